// Every verifier rule of emb.broadcast and emb.broadcast_add, one per block.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// cand_to_user is a vector.
func.func @f(%u: tensor<4x8xf16>, %c: tensor<16x1xi32>) -> tensor<16x8xf16> {
  // CHECK: broadcast_invalid.mlir:[[@LINE+1]]:8: error: 'emb.broadcast' op cand_to_user must have rank 1, got rank 2
  %0 = "emb.broadcast"(%u, %c) : (tensor<4x8xf16>, tensor<16x1xi32>) -> tensor<16x8xf16>
  return %0 : tensor<16x8xf16>
}

// -----

// cand_to_user holds i32 or i64.
func.func @f(%u: tensor<4x8xf16>, %c: tensor<16xf32>) -> tensor<16x8xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast' op cand_to_user must hold i32 or i64, got f32
  %0 = "emb.broadcast"(%u, %c) : (tensor<4x8xf16>, tensor<16xf32>) -> tensor<16x8xf16>
  return %0 : tensor<16x8xf16>
}

// -----

// ro has a batch dimension.
func.func @f(%u: tensor<f16>, %c: tensor<16xi32>) -> tensor<16xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast' op ro must have rank 1 or more, got rank 0
  %0 = "emb.broadcast"(%u, %c) : (tensor<f16>, tensor<16xi32>) -> tensor<16xf16>
  return %0 : tensor<16xf16>
}

// -----

// One result row per candidate.
func.func @f(%u: tensor<4x8xf16>, %c: tensor<15xi32>) -> tensor<16x8xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast' op cand_to_user has 15 rows but the result has 16
  %0 = "emb.broadcast"(%u, %c) : (tensor<4x8xf16>, tensor<15xi32>) -> tensor<16x8xf16>
  return %0 : tensor<16x8xf16>
}

// -----

// Rows keep their shape.
func.func @f(%u: tensor<4x8xf16>, %c: tensor<16xi32>) -> tensor<16x9xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast' op ro dim 1 is 8 but the result dim 1 is 9
  %0 = "emb.broadcast"(%u, %c) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x9xf16>
  return %0 : tensor<16x9xf16>
}

// -----

// ... and their rank.
func.func @f(%u: tensor<4x8xf16>, %c: tensor<16xi32>) -> tensor<16x8x1xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast' op ro has rank 2 but the result has rank 3
  %0 = "emb.broadcast"(%u, %c) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8x1xf16>
  return %0 : tensor<16x8x1xf16>
}

// -----

// ... and their element type.
func.func @f(%u: tensor<4x8xf16>, %c: tensor<16xi32>) -> tensor<16x8xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast' op ro holds f16 but the result holds f32
  %0 = "emb.broadcast"(%u, %c) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// broadcast_add: user and candidate rows agree.
func.func @f(%u: tensor<4x8xf16>, %c: tensor<16xi32>, %n: tensor<16x7xf16>) -> tensor<16x7xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast_add' op ro dim 1 is 8 but nro dim 1 is 7
  %0 = "emb.broadcast_add"(%u, %c, %n) : (tensor<4x8xf16>, tensor<16xi32>, tensor<16x7xf16>) -> tensor<16x7xf16>
  return %0 : tensor<16x7xf16>
}

// -----

// broadcast_add: one index per candidate row.
func.func @f(%u: tensor<4x8xf16>, %c: tensor<12xi64>, %n: tensor<16x8xf16>) -> tensor<16x8xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast_add' op cand_to_user has 12 rows but nro has 16
  %0 = "emb.broadcast_add"(%u, %c, %n) : (tensor<4x8xf16>, tensor<12xi64>, tensor<16x8xf16>) -> tensor<16x8xf16>
  return %0 : tensor<16x8xf16>
}

// -----

// broadcast_add: the result is nro's type.
func.func @f(%u: tensor<4x8xf16>, %c: tensor<16xi32>, %n: tensor<16x8xf16>) -> tensor<16x8xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast_add' op the result type tensor<16x8xf32> must equal nro's type tensor<16x8xf16>
  %0 = "emb.broadcast_add"(%u, %c, %n) : (tensor<4x8xf16>, tensor<16xi32>, tensor<16x8xf16>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// broadcast_add: floats only.
func.func @f(%u: tensor<4x8xi32>, %c: tensor<16xi32>, %n: tensor<16x8xi32>) -> tensor<16x8xi32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast_add' op ro must hold f32, f16 or bf16, got i32
  %0 = "emb.broadcast_add"(%u, %c, %n) : (tensor<4x8xi32>, tensor<16xi32>, tensor<16x8xi32>) -> tensor<16x8xi32>
  return %0 : tensor<16x8xi32>
}

// -----

// broadcast_add: user and candidate rows hold one type.
func.func @f(%u: tensor<4x8xbf16>, %c: tensor<16xi32>, %n: tensor<16x8xf16>) -> tensor<16x8xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.broadcast_add' op ro holds bf16 but nro holds f16
  %0 = "emb.broadcast_add"(%u, %c, %n) : (tensor<4x8xbf16>, tensor<16xi32>, tensor<16x8xf16>) -> tensor<16x8xf16>
  return %0 : tensor<16x8xf16>
}
