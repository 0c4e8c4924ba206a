// examples/torch/fixed_ratio.mlir written in the emb dialect: candidate b is
// user b / 6.
func.func @fixed_ratio(%user: tensor<4x3x16xf32>, %cand: tensor<24x5x16xf32>, %w: tensor<8x8xf32>) -> tensor<24x8x16xf32> {
  %c2u = arith.constant dense<[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3]> : tensor<24xi32>
  %ub = "emb.broadcast"(%user, %c2u) : (tensor<4x3x16xf32>, tensor<24xi32>) -> tensor<24x3x16xf32>
  %x = tensor.concat dim(1) %ub, %cand : (tensor<24x3x16xf32>, tensor<24x5x16xf32>) -> tensor<24x8x16xf32>
  %y = "emb.lce"(%w, %x) : (tensor<8x8xf32>, tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
  return %y : tensor<24x8x16xf32>
}
