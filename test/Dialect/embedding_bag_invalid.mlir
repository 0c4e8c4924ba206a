// Every verifier rule of emb.embedding_bag, one per block.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// The weight is a 2-D table.
func.func @f(%w: tensor<1000xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: embedding_bag_invalid.mlir:[[@LINE+1]]:8: error: 'emb.embedding_bag' op weight must have rank 2, got rank 1
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum"} : (tensor<1000xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// Operands are ranked tensors.
func.func @f(%w: memref<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op weight must be a ranked tensor, got memref<1000x64xf16>
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum"} : (memref<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// The table holds floats.
func.func @f(%w: tensor<1000x64xi8>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op weight must hold f32, f16 or bf16, got i8
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum"} : (tensor<1000x64xi8>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// Ids are i32 or i64.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi16>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op indices must hold i32 or i64, got i16
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum"} : (tensor<1000x64xf16>, tensor<8xi16>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// Ids and offsets share one integer type.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi32>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op indices holds i32 but offsets holds i64
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum"} : (tensor<1000x64xf16>, tensor<8xi32>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// mode is required.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op attribute "mode" is expected but not provided
  %0 = "emb.embedding_bag"(%w, %i, %o) : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// mode is sum, mean or none.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op attribute 'mode' must be one of sum, mean, none, got "max"
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "max"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// mode is a string.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op attribute 'mode' must be a string (one of sum, mean, none), got 0 : i64
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = 0} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// bounds_check is one of the four modes.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op attribute 'bounds_check' must be one of fatal, warning, ignore, none, got "strict"
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum", bounds_check = "strict"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// padding_idx is an integer.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op attribute 'padding_idx' must be an integer, got "0"
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum", padding_idx = "0"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// padding_idx is non-negative.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op padding_idx must be non-negative, got -1
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum", padding_idx = -1 : i64} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// padding_idx is a row of the table.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op padding_idx 1000 is outside weight (1000 rows)
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum", padding_idx = 1000 : i64} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// The result holds f32 or the table's type.
func.func @f(%w: tensor<1000x64xbf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op the result must hold f32 or weight's type bf16, got f16
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum"} : (tensor<1000x64xbf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// The result has D columns.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x32xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op the result has 32 columns but weight has 64 (D)
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x32xf16>
  return %0 : tensor<2x32xf16>
}

// -----

// Pooled: offsets has B+1 elements.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<4xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op offsets has 4 elements but the result has 2 rows (offsets must have B+1)
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "mean"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<4xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// As many rows as int64_t holds: B+1 is not computed (it would overflow; found
// by emb-fuzz under UBSan).
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<5xi64>) -> tensor<9223372036854775807x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op offsets has 5 elements but the result has 9223372036854775807 rows (offsets must have B+1)
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<5xi64>) -> tensor<9223372036854775807x64xf16>
  return %0 : tensor<9223372036854775807x64xf16>
}

// -----

// offsets is never empty.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<0xi64>) -> tensor<8x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op offsets must have at least one element (B+1)
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "none"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<0xi64>) -> tensor<8x64xf16>
  return %0 : tensor<8x64xf16>
}

// -----

// mode none: one row per index.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op the result has 2 rows but indices has 8 (mode none gives one row per index)
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "none"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// Per-sample weights only with sum.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>, %p: tensor<8xf16>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op per_sample_weights are only allowed with mode sum, got mode mean
  %0 = "emb.embedding_bag"(%w, %i, %o, %p) {mode = "mean"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>, tensor<8xf16>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// One weight per index.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>, %p: tensor<7xf32>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op per_sample_weights has 7 elements but indices has 8
  %0 = "emb.embedding_bag"(%w, %i, %o, %p) {mode = "sum"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>, tensor<7xf32>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// Per-sample weights hold f32 or the table's type.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>, %p: tensor<8xbf16>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op per_sample_weights must hold f32 or weight's type f16, got bf16
  %0 = "emb.embedding_bag"(%w, %i, %o, %p) {mode = "sum"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>, tensor<8xbf16>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// At most four operands.
func.func @f(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>, %p: tensor<8xf16>) -> tensor<2x64xf16> {
  // CHECK: [[@LINE+1]]:8: error: op expects at most 4 operands, but got 5
  %0 = "emb.embedding_bag"(%w, %i, %o, %p, %p) {mode = "sum"} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>, tensor<8xf16>, tensor<8xf16>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// masked_offsets is a unit attribute.
func.func @f(%w: tensor<100x16xf32>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x16xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op attribute 'masked_offsets' must be a unit attribute, got true
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum", masked_offsets = true} : (tensor<100x16xf32>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// masked_offsets pools: a mask of mode none would have no bags to read.
func.func @f(%w: tensor<100x16xf32>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<8x16xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op masked_offsets needs mode sum or mean, got mode none
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "none", masked_offsets} : (tensor<100x16xf32>, tensor<8xi64>, tensor<3xi64>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// A masked mean divides by the offsets' difference, which counts padding ids.
func.func @f(%w: tensor<100x16xf32>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x16xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op masked_offsets with mode mean takes no padding_idx (the mean divides by the offsets' difference)
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "mean", padding_idx = 0 : i64, masked_offsets} : (tensor<100x16xf32>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// ... and ids a "warning" bounds check would skip.
func.func @f(%w: tensor<100x16xf32>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x16xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.embedding_bag' op masked_offsets with mode mean needs bounds_check "fatal" or "none", got "warning" (the mean divides by the offsets' difference, which counts every id)
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "mean", bounds_check = "warning", masked_offsets} : (tensor<100x16xf32>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
