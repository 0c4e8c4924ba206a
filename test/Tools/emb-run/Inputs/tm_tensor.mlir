// torch-mlir's tm_tensor.attention in generic form (docs/frontend.md), on
// [B*H, L, D] = [1, 2, 4] queries and [1, 3, 4] keys and values: the raise
// pipeline makes it an emb.attention.
func.func @attention(%q: tensor<1x2x4xf32>, %k: tensor<1x3x4xf32>, %v: tensor<1x3x4xf32>) -> tensor<1x2x4xf32> {
  %0 = tensor.empty() : tensor<1x2x4xf32>
  %1 = "tm_tensor.attention"(%q, %k, %v, %0) <{operandSegmentSizes = array<i32: 3, 1>}> : (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  return %1 : tensor<1x2x4xf32>
}
