// Two features over one table, each its own bag (B = 2), as
// batch_tables_run.test runs them with offsets that are wrong for one
// feature only.

// Offsets as tensors of their own (feature 0: 4 ids, feature 1: 3).
func.func @two_features(%t: tensor<10x2xf32>, %i0: tensor<4xi64>, %o0: tensor<3xi64>, %i1: tensor<3xi64>, %o1: tensor<3xi64>) -> tensor<2x4xf32> {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<10x2xf32>, tensor<4xi64>, tensor<3xi64>) -> tensor<2x2xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<10x2xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<2x2xf32>
  %x = tensor.concat dim(1) %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
  return %x : tensor<2x4xf32>
}

// As emb-raise-embedding-bag makes them from torch's offsets (B entries,
// the id count appended): only a first offset can be wrong.
func.func @torch_offsets(%t: tensor<10x2xf32>, %i0: tensor<4xi64>, %o0: tensor<2xi64>, %i1: tensor<3xi64>, %o1: tensor<2xi64>) -> tensor<2x4xf32> {
  %n0 = arith.constant dense<4> : tensor<1xi64>
  %n1 = arith.constant dense<3> : tensor<1xi64>
  %e0 = tensor.concat dim(0) %o0, %n0 : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %e1 = tensor.concat dim(0) %o1, %n1 : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>
  %a = "emb.embedding_bag"(%t, %i0, %e0) {mode = "sum"} : (tensor<10x2xf32>, tensor<4xi64>, tensor<3xi64>) -> tensor<2x2xf32>
  %b = "emb.embedding_bag"(%t, %i1, %e1) {mode = "sum"} : (tensor<10x2xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<2x2xf32>
  %x = tensor.concat dim(1) %a, %b : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
  return %x : tensor<2x4xf32>
}

// Masked bags (masked_offsets, as emb-raise-embedding-bag makes them): any
// offsets are valid, batched or not. Feature 1's table has 4 rows, so an id
// of feature 1 read as feature 0's would be caught.
func.func @masked(%t: tensor<10x2xf32>, %t1: tensor<4x3xf32>, %i0: tensor<4xi64>, %o0: tensor<3xi64>, %i1: tensor<3xi64>, %o1: tensor<3xi64>) -> tensor<2x5xf32> {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum", masked_offsets} : (tensor<10x2xf32>, tensor<4xi64>, tensor<3xi64>) -> tensor<2x2xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "sum", masked_offsets} : (tensor<4x3xf32>, tensor<3xi64>, tensor<3xi64>) -> tensor<2x3xf32>
  %x = tensor.concat dim(1) %a, %b : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  return %x : tensor<2x5xf32>
}

// The same with i32 ids and offsets, and means: emb-batch-tables' shift
// wraps in 32 bits, and the lookup undoes it in 32 bits.
func.func @masked_i32(%t: tensor<10x2xf32>, %t1: tensor<4x3xf32>, %i0: tensor<4xi32>, %o0: tensor<3xi32>, %i1: tensor<3xi32>, %o1: tensor<3xi32>) -> tensor<2x5xf32> {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "mean", masked_offsets} : (tensor<10x2xf32>, tensor<4xi32>, tensor<3xi32>) -> tensor<2x2xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "mean", masked_offsets} : (tensor<4x3xf32>, tensor<3xi32>, tensor<3xi32>) -> tensor<2x3xf32>
  %x = tensor.concat dim(1) %a, %b : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x5xf32>
  return %x : tensor<2x5xf32>
}
