// Every verifier rule of emb.tbe, one per block.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// The operand groups are spelled by operandSegmentSizes.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xf16> {
  // CHECK: tbe_invalid.mlir:[[@LINE+2]]:8: error: 'operandSegmentSizes' attribute is expected but not provided
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// At least one table.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op operandSegmentSizes must be array<i32: 1, 1, T, 0 or 1> with T >= 1 summing to the 2 operands, got array<i32: 1, 1, 0, 0>
  %0 = "emb.tbe"(%i, %o) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<8xi64>, tensor<5xi64>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// All tables hold one float type.
func.func @f(%i: tensor<8xi64>, %o: tensor<9xi64>, %t0: tensor<100x16xf16>, %t1: tensor<100x16xbf16>) -> tensor<4x32xf32> {
  // CHECK: [[@LINE+3]]:8: error: 'emb.tbe' op weights_1 holds bf16 but weights_0 holds f16
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x16xbf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// Tables are 1 to 2048 wide: emb.table and emb.tbe both say so.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x4096xf16>) -> tensor<4x4096xf16> {
  // CHECK: [[@LINE+2]]:9: error: 'emb.table' op weight has 4096 columns, must be 1 to 2048
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op weights_0 has 4096 columns, must be 1 to 2048
  %h0 = "emb.table"(%t0) : (tensor<100x4096xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x4096xf16>
  return %0 : tensor<4x4096xf16>
}

// -----

// feature_tables is required.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op attribute "feature_tables" is expected but not provided
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// feature_tables is an i64 array.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op feature_tables must be array<i64: ...>, got array<i32: 0>
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i32: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// At least one feature.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op feature_tables must name at least one feature
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// Each feature names a table.
func.func @f(%i: tensor<8xi64>, %o: tensor<9xi64>, %t0: tensor<100x16xf16>) -> tensor<4x32xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op feature_tables[1] is 1 but there are 1 tables
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x32xf16>
  return %0 : tensor<4x32xf16>
}

// -----

// pooling is sum, mean or none.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op attribute 'pooling' must be one of sum, mean, none, got "max"
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "max", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// bounds_check is one of the four modes.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op attribute 'bounds_check' must be one of fatal, warning, ignore, none, got "clamp"
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", bounds_check = "clamp", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// Pooled output: the features' widths side by side.
func.func @f(%i: tensor<8xi64>, %o: tensor<9xi64>, %t0: tensor<100x16xf16>, %t1: tensor<100x8xf16>) -> tensor<4x32xf16> {
  // CHECK: [[@LINE+3]]:8: error: 'emb.tbe' op the result has 32 columns but the features' tables sum to 24 (sum of D over features)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x8xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x32xf16>
  return %0 : tensor<4x32xf16>
}

// -----

// Offsets are feature-major: F*B+1.
func.func @f(%i: tensor<8xi64>, %o: tensor<8xi64>, %t0: tensor<100x16xf16>, %t1: tensor<100x8xf16>) -> tensor<4x24xf16> {
  // CHECK: [[@LINE+3]]:8: error: 'emb.tbe' op offsets has 8 elements, which is not F*B+1 for F = 2 features
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x8xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<8xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x24xf16>
  return %0 : tensor<4x24xf16>
}

// -----

// Offsets agree with the batch.
func.func @f(%i: tensor<8xi64>, %o: tensor<7xi64>, %t0: tensor<100x16xf16>, %t1: tensor<100x8xf16>) -> tensor<4x24xf16> {
  // CHECK: [[@LINE+3]]:8: error: 'emb.tbe' op offsets has 7 elements but the result has 4 rows (offsets must have F*B+1 = 9)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x8xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<7xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x24xf16>
  return %0 : tensor<4x24xf16>
}

// -----

// feature_ends: the offsets hold 2F feature ends behind their F*B+1; 4
// entries cannot hold 2 features' 4 ends and one offset.
func.func @f(%i: tensor<8xi64>, %o: tensor<4xi64>, %t0: tensor<100x16xf16>) -> tensor<4x32xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op offsets has 4 elements, fewer than F*B+1 offsets and the 2F = 4 feature ends (feature_ends)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, feature_ends, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<4xi64>, !emb.table_handle) -> tensor<4x32xf16>
  return %0 : tensor<4x32xf16>
}

// -----

// feature_ends: the batch is read from the offsets without the ends (13 =
// 2*4+1 + 4, not 2*6+1).
func.func @f(%i: tensor<8xi64>, %o: tensor<13xi64>, %t0: tensor<100x16xf16>) -> tensor<6x32xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op offsets has 9 elements before its 4 feature ends but the result has 6 rows (offsets must have F*B+1 = 13)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, feature_ends, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<13xi64>, !emb.table_handle) -> tensor<6x32xf16>
  return %0 : tensor<6x32xf16>
}

// -----

// feature_ends is a unit attribute.
func.func @f(%i: tensor<8xi64>, %o: tensor<9xi64>, %t0: tensor<100x16xf16>) -> tensor<2x32xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op attribute 'feature_ends' must be a unit attribute, got true
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, feature_ends = true, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<2x32xf16>
  return %0 : tensor<2x32xf16>
}

// -----

// A batch too large for F*B+1 to be computed (found by emb-fuzz under UBSan).
func.func @f(%i: tensor<8xi64>, %o: tensor<7xi64>, %t0: tensor<100x16xf16>, %t1: tensor<100x8xf16>) -> tensor<4611686018427387904x24xf16> {
  // CHECK: [[@LINE+3]]:8: error: 'emb.tbe' op offsets has 7 elements but the result has 4611686018427387904 rows (offsets must have F*B+1, more than INT64_MAX, for F = 2)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x8xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<7xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4611686018427387904x24xf16>
  return %0 : tensor<4611686018427387904x24xf16>
}

// -----

// Pooling none: one width for every feature.
func.func @f(%i: tensor<8xi64>, %o: tensor<9xi64>, %t0: tensor<100x16xf16>, %t1: tensor<100x8xf16>) -> tensor<8x16xf16> {
  // CHECK: [[@LINE+3]]:8: error: 'emb.tbe' op pooling none needs every feature's table to have the same number of columns
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x8xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "none", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<8x16xf16>
  return %0 : tensor<8x16xf16>
}

// -----

// Pooling none: one row per index.
func.func @f(%i: tensor<8xi64>, %o: tensor<9xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op the result has 4 rows but indices has 8 (pooling none gives one row per index)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "none", feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// Pooling none: the rows are the tables' width.
func.func @f(%i: tensor<8xi64>, %o: tensor<9xi64>, %t0: tensor<100x16xf16>) -> tensor<8x32xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op the result has 32 columns but the tables have 16
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "none", feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<8x32xf16>
  return %0 : tensor<8x32xf16>
}

// -----

// Per-sample weights only with sum.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>, %p: tensor<8xf32>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op per_sample_weights are only allowed with pooling sum, got pooling mean
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %p) {pooling = "mean", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<8xf32>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// One weight per index.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>, %p: tensor<9xf32>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op per_sample_weights has 9 elements but indices has 8
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %p) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<9xf32>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// The result holds f32 or the tables' type.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xbf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op the result must hold f32 or weights_0's type f16, got bf16
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

// padding_idx is a row of every table.
func.func @f(%i: tensor<8xi64>, %o: tensor<9xi64>, %t0: tensor<100x16xf16>, %t1: tensor<10x8xf16>) -> tensor<4x24xf16> {
  // CHECK: [[@LINE+3]]:8: error: 'emb.tbe' op padding_idx 10 is outside the smallest table (10 rows)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<10x8xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", padding_idx = 10 : i64, feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x24xf16>
  return %0 : tensor<4x24xf16>
}

// -----

// Ids and offsets share one integer type.
func.func @f(%i: tensor<8xi32>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op indices holds i32 but offsets holds i64
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi32>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// Tables come as handles made by emb.table.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op weights_0 must be an !emb.table_handle made by 'emb.table', got tensor<100x16xf16>
  %0 = "emb.tbe"(%i, %o, %t0) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, tensor<100x16xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// A handle passed in has no shape to read.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %h: !emb.table_handle) -> tensor<4x16xf16> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op weights_0 must be made by 'emb.table' (the table's shape is read from it), not passed in
  %0 = "emb.tbe"(%i, %o, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// emb.table takes a 2-D float table.
func.func @f(%t0: tensor<100xf16>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op weight must have rank 2, got rank 1
  %h = "emb.table"(%t0) : (tensor<100xf16>) -> !emb.table_handle
  return
}

// -----

// emb.table's tables are 1 to 2048 wide.
func.func @f(%t0: tensor<100x0xf16>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op weight has 0 columns, must be 1 to 2048
  %h = "emb.table"(%t0) : (tensor<100x0xf16>) -> !emb.table_handle
  return
}

// -----

// emb.table makes a handle.
func.func @f(%t0: tensor<100x8xf16>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op the result must be !emb.table_handle, got tensor<100x8xf16>
  %h = "emb.table"(%t0) : (tensor<100x8xf16>) -> tensor<100x8xf16>
  return
}

// -----

// masked_offsets over several features needs feature_ends: each position
// must have a feature, and plain offsets cannot say where one's ids end.
func.func @f(%i: tensor<8xi64>, %o: tensor<5xi64>, %t0: tensor<100x16xf16>) -> tensor<2x32xf16> {
  // CHECK: [[@LINE+2]]:8: error: 'emb.tbe' op masked_offsets with 2 features needs feature_ends (where each feature's ids are)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, masked_offsets, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<2x32xf16>
  return %0 : tensor<2x32xf16>
}
