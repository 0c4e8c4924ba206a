// Every verifier rule of emb.lce and emb.ikbo_lce, one per block.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// x is [B, K, N].
func.func @f(%w: tensor<8x16xf16>, %x: tensor<16x4xf16>) -> tensor<2x8x4xf16> {
  // CHECK: lce_invalid.mlir:[[@LINE+1]]:8: error: 'emb.lce' op x must have rank 3, got rank 2
  %0 = "emb.lce"(%w, %x) : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<2x8x4xf16>
  return %0 : tensor<2x8x4xf16>
}

// -----

// The contraction dims agree.
func.func @f(%w: tensor<8x16xf16>, %x: tensor<2x15x4xf16>) -> tensor<2x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.lce' op w has 16 columns (K) but x has 15 rows per batch (K)
  %0 = "emb.lce"(%w, %x) : (tensor<8x16xf16>, tensor<2x15x4xf16>) -> tensor<2x8x4xf16>
  return %0 : tensor<2x8x4xf16>
}

// -----

// The result is [B, M, N].
func.func @f(%w: tensor<8x16xf16>, %x: tensor<2x16x4xf16>) -> tensor<2x9x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.lce' op the result has 9 rows per batch but w has 8 rows (M)
  %0 = "emb.lce"(%w, %x) : (tensor<8x16xf16>, tensor<2x16x4xf16>) -> tensor<2x9x4xf16>
  return %0 : tensor<2x9x4xf16>
}

// -----

func.func @f(%w: tensor<8x16xf16>, %x: tensor<2x16x4xf16>) -> tensor<3x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.lce' op the result has batch 3 but x has batch 2
  %0 = "emb.lce"(%w, %x) : (tensor<8x16xf16>, tensor<2x16x4xf16>) -> tensor<3x8x4xf16>
  return %0 : tensor<3x8x4xf16>
}

// -----

func.func @f(%w: tensor<8x16xf16>, %x: tensor<2x16x4xf16>) -> tensor<2x8x5xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.lce' op the result has 5 columns but x has 4 (N)
  %0 = "emb.lce"(%w, %x) : (tensor<8x16xf16>, tensor<2x16x4xf16>) -> tensor<2x8x5xf16>
  return %0 : tensor<2x8x5xf16>
}

// -----

// One element type throughout.
func.func @f(%w: tensor<8x16xf16>, %x: tensor<2x16x4xbf16>) -> tensor<2x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.lce' op x holds bf16 but w holds f16
  %0 = "emb.lce"(%w, %x) : (tensor<8x16xf16>, tensor<2x16x4xbf16>) -> tensor<2x8x4xf16>
  return %0 : tensor<2x8x4xf16>
}

// -----

// Floats only.
func.func @f(%w: tensor<8x16xi8>, %x: tensor<2x16x4xi8>) -> tensor<2x8x4xi8> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.lce' op w must hold f32, f16 or bf16, got i8
  %0 = "emb.lce"(%w, %x) : (tensor<8x16xi8>, tensor<2x16x4xi8>) -> tensor<2x8x4xi8>
  return %0 : tensor<2x8x4xi8>
}

// -----

// ikbo_lce: the user weights span the user rows.
func.func @f(%wu: tensor<8x12xf16>, %wc: tensor<8x16xf16>, %u: tensor<3x11x4xf16>, %c: tensor<6x16x4xf16>, %i: tensor<6xi32>) -> tensor<6x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op w_user has 12 columns (Ku) but user has 11 rows per user (Ku)
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) : (tensor<8x12xf16>, tensor<8x16xf16>, tensor<3x11x4xf16>, tensor<6x16x4xf16>, tensor<6xi32>) -> tensor<6x8x4xf16>
  return %0 : tensor<6x8x4xf16>
}

// -----

// ikbo_lce: the candidate weights span the candidate rows.
func.func @f(%wu: tensor<8x12xf16>, %wc: tensor<8x16xf16>, %u: tensor<3x12x4xf16>, %c: tensor<6x17x4xf16>, %i: tensor<6xi32>) -> tensor<6x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op w_cand has 16 columns (Kc) but cand has 17 rows per candidate (Kc)
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) : (tensor<8x12xf16>, tensor<8x16xf16>, tensor<3x12x4xf16>, tensor<6x17x4xf16>, tensor<6xi32>) -> tensor<6x8x4xf16>
  return %0 : tensor<6x8x4xf16>
}

// -----

// ikbo_lce: both weights have M rows.
func.func @f(%wu: tensor<9x12xf16>, %wc: tensor<8x16xf16>, %u: tensor<3x12x4xf16>, %c: tensor<6x16x4xf16>, %i: tensor<6xi32>) -> tensor<6x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op w_user has 9 rows but w_cand has 8 (M)
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) : (tensor<9x12xf16>, tensor<8x16xf16>, tensor<3x12x4xf16>, tensor<6x16x4xf16>, tensor<6xi32>) -> tensor<6x8x4xf16>
  return %0 : tensor<6x8x4xf16>
}

// -----

// ikbo_lce: user and candidate embeddings have N columns.
func.func @f(%wu: tensor<8x12xf16>, %wc: tensor<8x16xf16>, %u: tensor<3x12x5xf16>, %c: tensor<6x16x4xf16>, %i: tensor<6xi32>) -> tensor<6x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op user has 5 columns but cand has 4 (N)
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) : (tensor<8x12xf16>, tensor<8x16xf16>, tensor<3x12x5xf16>, tensor<6x16x4xf16>, tensor<6xi32>) -> tensor<6x8x4xf16>
  return %0 : tensor<6x8x4xf16>
}

// -----

// ikbo_lce: one user index per candidate.
func.func @f(%wu: tensor<8x12xf16>, %wc: tensor<8x16xf16>, %u: tensor<3x12x4xf16>, %c: tensor<6x16x4xf16>, %i: tensor<5xi32>) -> tensor<6x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op cand_to_user has 5 rows but cand has 6 candidates
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) : (tensor<8x12xf16>, tensor<8x16xf16>, tensor<3x12x4xf16>, tensor<6x16x4xf16>, tensor<5xi32>) -> tensor<6x8x4xf16>
  return %0 : tensor<6x8x4xf16>
}

// -----

// ikbo_lce: one element type throughout.
func.func @f(%wu: tensor<8x12xf32>, %wc: tensor<8x16xf16>, %u: tensor<3x12x4xf16>, %c: tensor<6x16x4xf16>, %i: tensor<6xi32>) -> tensor<6x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op w_user holds f32 but w_cand holds f16
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) : (tensor<8x12xf32>, tensor<8x16xf16>, tensor<3x12x4xf16>, tensor<6x16x4xf16>, tensor<6xi32>) -> tensor<6x8x4xf16>
  return %0 : tensor<6x8x4xf16>
}

// -----

// ikbo_lce: the result is [B, M, N].
func.func @f(%wu: tensor<8x12xf16>, %wc: tensor<8x16xf16>, %u: tensor<3x12x4xf16>, %c: tensor<6x16x4xf16>, %i: tensor<6xi32>) -> tensor<6x8x8xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op the result has 8 columns but cand has 4 (N)
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) : (tensor<8x12xf16>, tensor<8x16xf16>, tensor<3x12x4xf16>, tensor<6x16x4xf16>, tensor<6xi32>) -> tensor<6x8x8xf16>
  return %0 : tensor<6x8x8xf16>
}

// -----

// ikbo_lce compute_type: f16 or bf16 (f32 is the default, not an attribute).
func.func @f(%wu: tensor<8x12xf32>, %wc: tensor<8x16xf32>, %u: tensor<3x12x4xf32>, %c: tensor<6x16x4xf32>, %i: tensor<6xi32>) -> tensor<6x8x4xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op attribute 'compute_type' must be f16 or bf16, got f32
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) {compute_type = f32} : (tensor<8x12xf32>, tensor<8x16xf32>, tensor<3x12x4xf32>, tensor<6x16x4xf32>, tensor<6xi32>) -> tensor<6x8x4xf32>
  return %0 : tensor<6x8x4xf32>
}

// -----

// ikbo_lce compute_type: a float type.
func.func @f(%wu: tensor<8x12xf32>, %wc: tensor<8x16xf32>, %u: tensor<3x12x4xf32>, %c: tensor<6x16x4xf32>, %i: tensor<6xi32>) -> tensor<6x8x4xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op attribute 'compute_type' must be f16 or bf16, got i32
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) {compute_type = i32} : (tensor<8x12xf32>, tensor<8x16xf32>, tensor<3x12x4xf32>, tensor<6x16x4xf32>, tensor<6xi32>) -> tensor<6x8x4xf32>
  return %0 : tensor<6x8x4xf32>
}

// -----

// ikbo_lce compute_type: a type, not a string.
func.func @f(%wu: tensor<8x12xf32>, %wc: tensor<8x16xf32>, %u: tensor<3x12x4xf32>, %c: tensor<6x16x4xf32>, %i: tensor<6xi32>) -> tensor<6x8x4xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op attribute 'compute_type' must be f16 or bf16, got "bf16"
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) {compute_type = "bf16"} : (tensor<8x12xf32>, tensor<8x16xf32>, tensor<3x12x4xf32>, tensor<6x16x4xf32>, tensor<6xi32>) -> tensor<6x8x4xf32>
  return %0 : tensor<6x8x4xf32>
}

// -----

// ikbo_lce compute_type: only for f32 data (f16 data).
func.func @f(%wu: tensor<8x12xf16>, %wc: tensor<8x16xf16>, %u: tensor<3x12x4xf16>, %c: tensor<6x16x4xf16>, %i: tensor<6xi32>) -> tensor<6x8x4xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op compute_type bf16 needs f32 w_user, w_cand, user and cand, got f16
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) {compute_type = bf16} : (tensor<8x12xf16>, tensor<8x16xf16>, tensor<3x12x4xf16>, tensor<6x16x4xf16>, tensor<6xi32>) -> tensor<6x8x4xf16>
  return %0 : tensor<6x8x4xf16>
}

// -----

// ikbo_lce compute_type: only for f32 data (bf16 data).
func.func @f(%wu: tensor<8x12xbf16>, %wc: tensor<8x16xbf16>, %u: tensor<3x12x4xbf16>, %c: tensor<6x16x4xbf16>, %i: tensor<6xi32>) -> tensor<6x8x4xbf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.ikbo_lce' op compute_type f16 needs f32 w_user, w_cand, user and cand, got bf16
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %i) {compute_type = f16} : (tensor<8x12xbf16>, tensor<8x16xbf16>, tensor<3x12x4xbf16>, tensor<6x16x4xbf16>, tensor<6xi32>) -> tensor<6x8x4xbf16>
  return %0 : tensor<6x8x4xbf16>
}

// -----

// lce: no compute_type (its f32 product is exact).
func.func @f(%w: tensor<8x12xf32>, %x: tensor<6x12x4xf32>) -> tensor<6x8x4xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.lce' op attribute 'compute_type' is not supported here (f32 emb.lce is exact); emb.ikbo_lce takes it
  %0 = "emb.lce"(%w, %x) {compute_type = bf16} : (tensor<8x12xf32>, tensor<6x12x4xf32>) -> tensor<6x8x4xf32>
  return %0 : tensor<6x8x4xf32>
}
