// A target-attention block: each candidate (24 of them, 6 per user) attends
// with 4 query rows to its user's behaviour sequence of 32 events, 2 heads of
// dim 16. As exported, the user's keys and values are broadcast to every
// candidate; emb-ikbo makes each candidate read its user's keys in place.
func.func @target_attention(
    %q: tensor<24x4x2x16xf32>,
    %user_k: tensor<4x32x2x16xf32>, %user_v: tensor<4x32x2x16xf32>,
    %cand_to_user: tensor<24xi32>) -> tensor<24x4x2x16xf32> {
  %k = "emb.broadcast"(%user_k, %cand_to_user) : (tensor<4x32x2x16xf32>, tensor<24xi32>) -> tensor<24x32x2x16xf32>
  %v = "emb.broadcast"(%user_v, %cand_to_user) : (tensor<4x32x2x16xf32>, tensor<24xi32>) -> tensor<24x32x2x16xf32>
  %o = "emb.attention"(%q, %k, %v) : (tensor<24x4x2x16xf32>, tensor<24x32x2x16xf32>, tensor<24x32x2x16xf32>) -> tensor<24x4x2x16xf32>
  return %o : tensor<24x4x2x16xf32>
}
