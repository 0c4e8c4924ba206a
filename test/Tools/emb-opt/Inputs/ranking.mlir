// A small ranking block: user embeddings broadcast to candidates, then a
// linear compression over the concatenation.
func.func @rank(%user: tensor<2x4x8xf32>, %cand: tensor<6x4x8xf32>,
                %c2u: tensor<6xi32>, %w: tensor<3x8xf32>) -> tensor<6x3x8xf32> {
  %ub = "emb.broadcast"(%user, %c2u) : (tensor<2x4x8xf32>, tensor<6xi32>) -> tensor<6x4x8xf32>
  %x = tensor.concat dim(1) %ub, %cand : (tensor<6x4x8xf32>, tensor<6x4x8xf32>) -> tensor<6x8x8xf32>
  %y = "emb.lce"(%w, %x) : (tensor<3x8xf32>, tensor<6x8x8xf32>) -> tensor<6x3x8xf32>
  return %y : tensor<6x3x8xf32>
}
