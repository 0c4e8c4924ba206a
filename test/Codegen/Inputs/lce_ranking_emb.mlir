// examples/torch/lce_ranking.mlir written in the emb dialect: what its raise
// must compute.
func.func @lce_ranking(%cand_a: tensor<24x3x16xf16>, %user: tensor<4x2x16xf16>, %cand_b: tensor<24x1x16xf16>, %c2u: tensor<24xi64>, %w: tensor<8x6xf16>) -> tensor<24x8x16xf16> {
  %ub = "emb.broadcast"(%user, %c2u) : (tensor<4x2x16xf16>, tensor<24xi64>) -> tensor<24x2x16xf16>
  %x = tensor.concat dim(1) %cand_a, %ub, %cand_b : (tensor<24x3x16xf16>, tensor<24x2x16xf16>, tensor<24x1x16xf16>) -> tensor<24x6x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x6xf16>, tensor<24x6x16xf16>) -> tensor<24x8x16xf16>
  return %y : tensor<24x8x16xf16>
}
