// Emb ops whose operands have `?` dims that must agree at run time; run by
// dynamic_extents_run.test on inputs it writes.

func.func @bag(%w: tensor<10x4xf32>, %idx: tensor<?xi64>, %off: tensor<?xi64>, %psw: tensor<?xf32>) -> tensor<3x4xf32> {
  %0 = "emb.embedding_bag"(%w, %idx, %off, %psw) {mode = "sum"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @tbe(%t0: tensor<10x4xf32>, %t1: tensor<10x2xf32>, %idx: tensor<?xi64>, %off: tensor<?xi64>, %psw: tensor<?xf32>) -> tensor<2x6xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x4xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<10x2xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %psw) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (tensor<?xi64>, tensor<?xi64>, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

func.func @bag_sgd(%w: tensor<10x4xf32>, %idx: tensor<?xi64>, %off: tensor<?xi64>, %grad: tensor<?x4xf32>, %hyper: tensor<5xf32>) -> tensor<10x4xf32> {
  %new = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %hyper) {optimizer = "sgd", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?x4xf32>, tensor<5xf32>) -> tensor<10x4xf32>
  return %new : tensor<10x4xf32>
}

func.func @broadcast_add(%ro: tensor<?x4xf32>, %c2u: tensor<?xi64>, %nro: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "emb.broadcast_add"(%ro, %c2u, %nro) : (tensor<?x4xf32>, tensor<?xi64>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @broadcast(%ro: tensor<?x4xf32>, %c2u: tensor<?xi64>) -> tensor<3x4xf32> {
  %0 = "emb.broadcast"(%ro, %c2u) : (tensor<?x4xf32>, tensor<?xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @ikbo_attention(%q: tensor<3x1x1x2xf32>, %k: tensor<2x2x1x2xf32>, %v: tensor<2x2x1x2xf32>, %c2u: tensor<?xi64>) -> tensor<3x1x1x2xf32> {
  %0 = "emb.ikbo_attention"(%q, %k, %v, %c2u) : (tensor<3x1x1x2xf32>, tensor<2x2x1x2xf32>, tensor<2x2x1x2xf32>, tensor<?xi64>) -> tensor<3x1x1x2xf32>
  return %0 : tensor<3x1x1x2xf32>
}

func.func @lce(%w: tensor<2x?xf32>, %x: tensor<1x?x1xf32>) -> tensor<1x2x1xf32> {
  %0 = "emb.lce"(%w, %x) : (tensor<2x?xf32>, tensor<1x?x1xf32>) -> tensor<1x2x1xf32>
  return %0 : tensor<1x2x1xf32>
}

func.func @ikbo_lce(%wu: tensor<2x2xf32>, %wc: tensor<2x1xf32>, %u: tensor<2x2x1xf32>, %c: tensor<3x1x1xf32>, %c2u: tensor<?xi64>) -> tensor<3x2x1xf32> {
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) : (tensor<2x2xf32>, tensor<2x1xf32>, tensor<2x2x1xf32>, tensor<3x1x1xf32>, tensor<?xi64>) -> tensor<3x2x1xf32>
  return %0 : tensor<3x2x1xf32>
}

func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<?xf32>
  %1 = tensor.cast %0 : tensor<?xf32> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

func.func @concat(%a: tensor<?x2xf32>, %b: tensor<?x?xf32>) -> tensor<4x2xf32> {
  %0 = tensor.concat dim(0) %a, %b : (tensor<?x2xf32>, tensor<?x?xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

func.func @cast(%a: tensor<?x2xf32>) -> tensor<3x2xf32> {
  %0 = tensor.cast %a : tensor<?x2xf32> to tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

func.func @add_cast(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<?xf32>
  %1 = tensor.cast %0 : tensor<?xf32> to tensor<4xf32>
  %2 = arith.addf %1, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

func.func @expand(%a: tensor<?xf32>) -> tensor<2x3xf32> {
  %c2 = arith.constant 2 : index
  %0 = tensor.expand_shape %a [[0, 1]] output_shape [%c2, 3] : tensor<?xf32> into tensor<?x3xf32>
  %1 = tensor.cast %0 : tensor<?x3xf32> to tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

func.func @slice(%a: tensor<?x4xf32>) -> tensor<2x2xf32> {
  %0 = tensor.extract_slice %a[1, 1] [2, 2] [1, 2] : tensor<?x4xf32> to tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

func.func @bag_sin(%w: tensor<10x4xf32>, %idx: tensor<?xi64>, %off: tensor<?xi64>) -> tensor<?x4xf32> {
  %bags = "emb.embedding_bag"(%w, %idx, %off) {mode = "sum"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  %0 = math.sin %bags : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

func.func @matmul(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// A batch of 0 passes MLIR's verifier against the result's 3 (found by
// emb-fuzz: the call read 3 batches of b).
func.func @bmm_empty_batch(%a: tensor<3x2x2xf32>, %b: tensor<0x2x2xf32>) -> tensor<3x2x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x2x2xf32>, tensor<0x2x2xf32>) outs(%f : tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}

// Results written through reshapes into the out buffer: each call's checked
// extents are its own result's dims, not the out buffer's.
func.func @reshaped_results(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %w: tensor<10x4xf32>, %idx: tensor<9xi64>, %off: tensor<4xi64>) -> (tensor<4xf32>, tensor<12xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  %0 = tensor.collapse_shape %mm [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %bags = "emb.embedding_bag"(%w, %idx, %off) {mode = "sum"} : (tensor<10x4xf32>, tensor<9xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  %1 = tensor.collapse_shape %bags [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  return %0, %1 : tensor<4xf32>, tensor<12xf32>
}
