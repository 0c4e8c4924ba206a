// Every verifier rule of emb.attention and emb.ikbo_attention, one per block.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// Layouts are [B, L, H, Dh].
func.func @f(%q: tensor<4x8x2xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>) -> tensor<4x8x2xf16> {
  // CHECK: attention_invalid.mlir:[[@LINE+1]]:8: error: 'emb.attention' op q must have rank 4, got rank 3
  %0 = "emb.attention"(%q, %k, %v) : (tensor<4x8x2xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>) -> tensor<4x8x2xf16>
  return %0 : tensor<4x8x2xf16>
}

// -----

// Keys and values are per candidate.
func.func @f(%q: tensor<4x8x2x32xf16>, %k: tensor<3x16x2x32xf16>, %v: tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op k has batch 3 but q has 4
  %0 = "emb.attention"(%q, %k, %v) : (tensor<4x8x2x32xf16>, tensor<3x16x2x32xf16>, tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16>
  return %0 : tensor<4x8x2x32xf16>
}

// -----

// As many values as keys.
func.func @f(%q: tensor<4x8x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x15x2x32xf16>) -> tensor<4x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op v has 15 keys but k has 16 keys
  %0 = "emb.attention"(%q, %k, %v) : (tensor<4x8x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x15x2x32xf16>) -> tensor<4x8x2x32xf16>
  return %0 : tensor<4x8x2x32xf16>
}

// -----

// Heads agree.
func.func @f(%q: tensor<4x8x2x32xf16>, %k: tensor<4x16x3x32xf16>, %v: tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op k has 3 heads but q has 2
  %0 = "emb.attention"(%q, %k, %v) : (tensor<4x8x2x32xf16>, tensor<4x16x3x32xf16>, tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16>
  return %0 : tensor<4x8x2x32xf16>
}

// -----

// Head dims agree.
func.func @f(%q: tensor<4x8x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x64xf16>) -> tensor<4x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op v has head dim 64 but q has 32
  %0 = "emb.attention"(%q, %k, %v) : (tensor<4x8x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x64xf16>) -> tensor<4x8x2x32xf16>
  return %0 : tensor<4x8x2x32xf16>
}

// -----

// One element type throughout.
func.func @f(%q: tensor<4x8x2x32xf16>, %k: tensor<4x16x2x32xbf16>, %v: tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op k holds bf16 but q holds f16
  %0 = "emb.attention"(%q, %k, %v) : (tensor<4x8x2x32xf16>, tensor<4x16x2x32xbf16>, tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16>
  return %0 : tensor<4x8x2x32xf16>
}

// -----

// The result is q's type.
func.func @f(%q: tensor<4x8x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op the result type tensor<4x8x2x32xf32> must equal q's type tensor<4x8x2x32xf16>
  %0 = "emb.attention"(%q, %k, %v) : (tensor<4x8x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf32>
  return %0 : tensor<4x8x2x32xf32>
}

// -----

// scale is a finite, nonzero float.
func.func @f(%q: tensor<4x8x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op scale must be finite and nonzero, got 0
  %0 = "emb.attention"(%q, %k, %v) {scale = 0.0 : f32} : (tensor<4x8x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16>
  return %0 : tensor<4x8x2x32xf16>
}

// -----

func.func @f(%q: tensor<4x8x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op attribute 'scale' must be a float, got 1 : i64
  %0 = "emb.attention"(%q, %k, %v) {scale = 1} : (tensor<4x8x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>) -> tensor<4x8x2x32xf16>
  return %0 : tensor<4x8x2x32xf16>
}

// -----

// ikbo_attention: one user per candidate.
func.func @f(%q: tensor<6x8x2x32xf16>, %k: tensor<3x16x2x32xf16>, %v: tensor<3x16x2x32xf16>, %i: tensor<5xi32>) -> tensor<6x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_attention' op cand_to_user has 5 rows but q has 6 candidates
  %0 = "emb.ikbo_attention"(%q, %k, %v, %i) : (tensor<6x8x2x32xf16>, tensor<3x16x2x32xf16>, tensor<3x16x2x32xf16>, tensor<5xi32>) -> tensor<6x8x2x32xf16>
  return %0 : tensor<6x8x2x32xf16>
}

// -----

// ikbo_attention: keys and values for the same users.
func.func @f(%q: tensor<6x8x2x32xf16>, %k: tensor<3x16x2x32xf16>, %v: tensor<4x16x2x32xf16>, %i: tensor<6xi32>) -> tensor<6x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_attention' op v_user has 4 users but k_user has 3
  %0 = "emb.ikbo_attention"(%q, %k, %v, %i) : (tensor<6x8x2x32xf16>, tensor<3x16x2x32xf16>, tensor<4x16x2x32xf16>, tensor<6xi32>) -> tensor<6x8x2x32xf16>
  return %0 : tensor<6x8x2x32xf16>
}

// -----

// attention: one key length per row.
func.func @f(%q: tensor<4x1x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>, %l: tensor<3xi64>) -> tensor<4x1x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op key_lengths has 3 entries but q has 4 rows
  %0 = "emb.attention"(%q, %k, %v, %l) : (tensor<4x1x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>, tensor<3xi64>) -> tensor<4x1x2x32xf16>
  return %0 : tensor<4x1x2x32xf16>
}

// -----

// attention: key lengths are integers of rank 1.
func.func @f(%q: tensor<4x1x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>, %l: tensor<4xf16>) -> tensor<4x1x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op key_lengths must hold i32 or i64, got f16
  %0 = "emb.attention"(%q, %k, %v, %l) : (tensor<4x1x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4xf16>) -> tensor<4x1x2x32xf16>
  return %0 : tensor<4x1x2x32xf16>
}

// -----

// attention: at most four operands (IRDL's own check).
func.func @f(%q: tensor<4x1x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>, %l: tensor<4xi64>) -> tensor<4x1x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: op expects at most 4 operands, but got 5
  %0 = "emb.attention"(%q, %k, %v, %l, %l) : (tensor<4x1x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4xi64>, tensor<4xi64>) -> tensor<4x1x2x32xf16>
  return %0 : tensor<4x1x2x32xf16>
}

// -----

// ikbo_attention: one length per user.
func.func @f(%q: tensor<6x8x2x32xf16>, %k: tensor<3x16x2x32xf16>, %v: tensor<3x16x2x32xf16>, %i: tensor<6xi32>, %l: tensor<4xi32>) -> tensor<6x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_attention' op user_lengths has 4 entries but k_user has 3 users
  %0 = "emb.ikbo_attention"(%q, %k, %v, %i, %l) : (tensor<6x8x2x32xf16>, tensor<3x16x2x32xf16>, tensor<3x16x2x32xf16>, tensor<6xi32>, tensor<4xi32>) -> tensor<6x8x2x32xf16>
  return %0 : tensor<6x8x2x32xf16>
}

// -----

// ikbo_attention: lengths are integers.
func.func @f(%q: tensor<6x8x2x32xf16>, %k: tensor<3x16x2x32xf16>, %v: tensor<3x16x2x32xf16>, %i: tensor<6xi32>, %l: tensor<3xf32>) -> tensor<6x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_attention' op user_lengths must hold i32 or i64, got f32
  %0 = "emb.ikbo_attention"(%q, %k, %v, %i, %l) : (tensor<6x8x2x32xf16>, tensor<3x16x2x32xf16>, tensor<3x16x2x32xf16>, tensor<6xi32>, tensor<3xf32>) -> tensor<6x8x2x32xf16>
  return %0 : tensor<6x8x2x32xf16>
}

// -----

// ikbo_attention: user keys have q's heads.
func.func @f(%q: tensor<6x8x2x32xf16>, %k: tensor<3x16x4x32xf16>, %v: tensor<3x16x4x32xf16>, %i: tensor<6xi32>) -> tensor<6x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_attention' op k_user has 4 heads but q has 2
  %0 = "emb.ikbo_attention"(%q, %k, %v, %i) : (tensor<6x8x2x32xf16>, tensor<3x16x4x32xf16>, tensor<3x16x4x32xf16>, tensor<6xi32>) -> tensor<6x8x2x32xf16>
  return %0 : tensor<6x8x2x32xf16>
}

// -----

// compute_type: f16 or bf16.
func.func @f(%q: tensor<6x8x2x32xf32>, %k: tensor<3x16x2x32xf32>, %v: tensor<3x16x2x32xf32>, %i: tensor<6xi32>) -> tensor<6x8x2x32xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_attention' op attribute 'compute_type' must be f16 or bf16, got f64
  %0 = "emb.ikbo_attention"(%q, %k, %v, %i) {compute_type = f64} : (tensor<6x8x2x32xf32>, tensor<3x16x2x32xf32>, tensor<3x16x2x32xf32>, tensor<6xi32>) -> tensor<6x8x2x32xf32>
  return %0 : tensor<6x8x2x32xf32>
}

// -----

// compute_type: a type, not a string.
func.func @f(%q: tensor<4x1x2x32xf32>, %k: tensor<4x16x2x32xf32>, %v: tensor<4x16x2x32xf32>) -> tensor<4x1x2x32xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op attribute 'compute_type' must be f16 or bf16, got "bf16"
  %0 = "emb.attention"(%q, %k, %v) {compute_type = "bf16"} : (tensor<4x1x2x32xf32>, tensor<4x16x2x32xf32>, tensor<4x16x2x32xf32>) -> tensor<4x1x2x32xf32>
  return %0 : tensor<4x1x2x32xf32>
}

// -----

// compute_type: only for f32 data.
func.func @f(%q: tensor<4x1x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>) -> tensor<4x1x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op compute_type bf16 needs f32 q, k and v, got f16
  %0 = "emb.attention"(%q, %k, %v) {compute_type = bf16} : (tensor<4x1x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>) -> tensor<4x1x2x32xf16>
  return %0 : tensor<4x1x2x32xf16>
}

// -----

// compute_type: only for f32 data; ikbo_attention names its own operands.
func.func @f(%q: tensor<6x8x2x32xbf16>, %k: tensor<3x16x2x32xbf16>, %v: tensor<3x16x2x32xbf16>, %i: tensor<6xi32>) -> tensor<6x8x2x32xbf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_attention' op compute_type f16 needs f32 q, k_user and v_user, got bf16
  %0 = "emb.ikbo_attention"(%q, %k, %v, %i) {compute_type = f16} : (tensor<6x8x2x32xbf16>, tensor<3x16x2x32xbf16>, tensor<3x16x2x32xbf16>, tensor<6xi32>) -> tensor<6x8x2x32xbf16>
  return %0 : tensor<6x8x2x32xbf16>
}

// -----

// additive_mask: only with the key lengths it makes additive.
func.func @f(%q: tensor<4x1x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>) -> tensor<4x1x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op additive_mask needs key_lengths (the mask it makes additive)
  %0 = "emb.attention"(%q, %k, %v) {additive_mask} : (tensor<4x1x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>) -> tensor<4x1x2x32xf16>
  return %0 : tensor<4x1x2x32xf16>
}

// -----

// additive_mask: ikbo_attention's are user_lengths.
func.func @f(%q: tensor<6x8x2x32xf16>, %k: tensor<3x16x2x32xf16>, %v: tensor<3x16x2x32xf16>, %i: tensor<6xi32>) -> tensor<6x8x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_attention' op additive_mask needs user_lengths (the mask it makes additive)
  %0 = "emb.ikbo_attention"(%q, %k, %v, %i) {additive_mask} : (tensor<6x8x2x32xf16>, tensor<3x16x2x32xf16>, tensor<3x16x2x32xf16>, tensor<6xi32>) -> tensor<6x8x2x32xf16>
  return %0 : tensor<6x8x2x32xf16>
}

// -----

// additive_mask: a unit attribute.
func.func @f(%q: tensor<4x1x2x32xf16>, %k: tensor<4x16x2x32xf16>, %v: tensor<4x16x2x32xf16>, %len: tensor<4xi64>) -> tensor<4x1x2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.attention' op attribute 'additive_mask' must be a unit attribute, got true
  %0 = "emb.attention"(%q, %k, %v, %len) {additive_mask = true} : (tensor<4x1x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4x16x2x32xf16>, tensor<4xi64>) -> tensor<4x1x2x32xf16>
  return %0 : tensor<4x1x2x32xf16>
}
