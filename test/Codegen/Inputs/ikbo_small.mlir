// The IKBO benchmark's model at a small size: 4 users, 32 candidates,
// K_user = 13 and K_cand = 11 (odd, so emb-pad-k pads both), N = 16, M = 24.
func.func @ikbo_small(%user: tensor<4x13x16xf16>, %cand: tensor<32x11x16xf16>,
                      %c2u: tensor<32xi32>, %w: tensor<24x24xf16>) -> tensor<32x24x16xf16> {
  %ub = "emb.broadcast"(%user, %c2u) : (tensor<4x13x16xf16>, tensor<32xi32>) -> tensor<32x13x16xf16>
  %x = tensor.concat dim(1) %ub, %cand : (tensor<32x13x16xf16>, tensor<32x11x16xf16>) -> tensor<32x24x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<24x24xf16>, tensor<32x24x16xf16>) -> tensor<32x24x16xf16>
  return %y : tensor<32x24x16xf16>
}
