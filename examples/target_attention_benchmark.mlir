// Target attention at the shape of the IKBO attention benchmark: 32 users
// with 64 candidates each (B = 2048), every candidate attending with 64 query
// rows to its user's 2048-event sequence, 2 heads of dim 128, f16.
//
// As written, the user's keys and values are broadcast to every candidate
// (two 2048x2048x2x128 f16 copies, 2 GiB each); `emb-opt --emb-ikbo` makes
// it one emb.ikbo_attention that reads each user's keys once.
func.func @target_attention_benchmark(
    %q: tensor<2048x64x2x128xf16>,
    %user_k: tensor<32x2048x2x128xf16>, %user_v: tensor<32x2048x2x128xf16>,
    %cand_to_user: tensor<2048xi32>) -> tensor<2048x64x2x128xf16> {
  %k = "emb.broadcast"(%user_k, %cand_to_user) : (tensor<32x2048x2x128xf16>, tensor<2048xi32>) -> tensor<2048x2048x2x128xf16>
  %v = "emb.broadcast"(%user_v, %cand_to_user) : (tensor<32x2048x2x128xf16>, tensor<2048xi32>) -> tensor<2048x2048x2x128xf16>
  %o = "emb.attention"(%q, %k, %v) : (tensor<2048x64x2x128xf16>, tensor<2048x2048x2x128xf16>, tensor<2048x2048x2x128xf16>) -> tensor<2048x64x2x128xf16>
  return %o : tensor<2048x64x2x128xf16>
}
