// Models whose sizes are too large for any machine, for emb-run's checks of
// sizes formed from dims.
func.func @any_length(%x: tensor<?xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<0.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// The issue's tensor<4294967296x8xf32> (128 GiB), scaled to 16 TiB so that
// no test machine has the memory.
func.func @huge_input(%x: tensor<4294967296x1024xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<0.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}

func.func @huge_result(%x: tensor<2xf32>) -> tensor<4294967296x1024xf32> {
  %0 = tensor.empty() : tensor<4294967296x1024xf32>
  return %0 : tensor<4294967296x1024xf32>
}

// 2^64 elements: the element count itself overflows.
func.func @overflowing_input(%x: tensor<4294967296x4294967296xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<0.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// 2^62 elements fit in an int64_t, their 2^64 bytes do not.
func.func @overflowing_bytes(%x: tensor<4611686018427387904xf32>) -> tensor<2xf32> {
  %c = arith.constant dense<0.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// Bags of dynamic length: 2^62 bags of --dynamic-size ids overflow.
func.func @many_bags(%t: tensor<10x4xf32>, %ids: tensor<?xi64>, %off: tensor<4611686018427387905xi64>) -> tensor<4611686018427387904x4xf32> {
  %0 = "emb.embedding_bag"(%t, %ids, %off) {mode = "sum"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<4611686018427387905xi64>) -> tensor<4611686018427387904x4xf32>
  return %0 : tensor<4611686018427387904x4xf32>
}

// An intermediate whose static type claims 2^62 rows of 12 x 16 (2^66
// bytes) between operands that hold a few rows: its size is counted without
// overflow, and its buffer cannot be allocated.
func.func @huge_intermediate(%w: tensor<?x12xf32>, %u: tensor<?x4x16xf32>, %cand: tensor<?x8x16xf32>) -> tensor<?x?x16xf32> {
  %x = tensor.concat dim(1) %cand, %u : (tensor<?x8x16xf32>, tensor<?x4x16xf32>) -> tensor<4611686018427387904x12x16xf32>
  %y = "emb.lce"(%w, %x) : (tensor<?x12xf32>, tensor<4611686018427387904x12x16xf32>) -> tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}
