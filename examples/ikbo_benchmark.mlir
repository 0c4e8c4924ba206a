// The linear compression of Meta's in-kernel broadcast (IKBO) benchmark, as
// a model exporter writes it: fp16, B = 1024 candidates from 15 users (about
// 70 candidates per user), N = 256. Each candidate's K = 2044 embedding rows
// are 1178 user rows (the same for all of a user's candidates) and 866
// candidate rows; an LCE compresses K to M = 433.
//
// As written, the user embeddings are broadcast to candidate rows (a
// 1024x1178x256 copy, 600 MiB) and the LCE runs on 1024 x 2044 rows.
// `emb-opt --emb-ikbo` rewrites it into one emb.ikbo_lce: the user product
// runs on 15 users, only its 433x256 result is indexed per candidate, and
// Ku = 1178 and Kc = 866 are padded to 1184 and 872 (multiples of 8 f16).
func.func @ikbo_benchmark(%user: tensor<15x1178x256xf16>,
                          %cand: tensor<1024x866x256xf16>,
                          %cand_to_user: tensor<1024xi32>,
                          %w: tensor<433x2044xf16>) -> tensor<1024x433x256xf16> {
  %user_b = "emb.broadcast"(%user, %cand_to_user) : (tensor<15x1178x256xf16>, tensor<1024xi32>) -> tensor<1024x1178x256xf16>
  %x = tensor.concat dim(1) %user_b, %cand : (tensor<1024x1178x256xf16>, tensor<1024x866x256xf16>) -> tensor<1024x2044x256xf16>
  %y = "emb.lce"(%w, %x) : (tensor<433x2044xf16>, tensor<1024x2044x256xf16>) -> tensor<1024x433x256xf16>
  return %y : tensor<1024x433x256xf16>
}
