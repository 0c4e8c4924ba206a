// Every verifier rule of quantized tables (emb.table {precision, dim}), one
// per block.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

func.func @unknown(%q: tensor<10x16xi8>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op precision must be "int8", "int4", "int2" or "fp8", got "int3"
  %h = "emb.table"(%q) {precision = "int3", dim = 8 : i64} : (tensor<10x16xi8>) -> !emb.table_handle
  return
}

// -----

func.func @not_string(%q: tensor<10x16xi8>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op precision must be a string, got 4 : i64
  %h = "emb.table"(%q) {precision = 4, dim = 8 : i64} : (tensor<10x16xi8>) -> !emb.table_handle
  return
}

// -----

func.func @no_dim(%q: tensor<10x16xi8>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op an int8 table requires an integer attribute 'dim' (its columns)
  %h = "emb.table"(%q) {precision = "int8"} : (tensor<10x16xi8>) -> !emb.table_handle
  return
}

// -----

func.func @odd_dim(%q: tensor<10x16xi8>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op dim is 7, must be 1 to 2048 and a multiple of 2 for int4
  %h = "emb.table"(%q) {precision = "int4", dim = 7 : i64} : (tensor<10x16xi8>) -> !emb.table_handle
  return
}

// -----

func.func @row_bytes(%q: tensor<10x68xi8>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op weight has 68 bytes a row but an int4 row of 128 columns takes 80 (a 4-byte header and the packed columns, padded to 16)
  %h = "emb.table"(%q) {precision = "int4", dim = 128 : i64} : (tensor<10x68xi8>) -> !emb.table_handle
  return
}

// -----

func.func @dynamic_row_bytes(%q: tensor<10x?xi8>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op weight's second dimension (the bytes of a row) must be static: an int8 row of 8 columns takes 16
  %h = "emb.table"(%q) {precision = "int8", dim = 8 : i64} : (tensor<10x?xi8>) -> !emb.table_handle
  return
}

// -----

func.func @float_rows(%q: tensor<10x16xf16>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op an fp8 table's weight holds its packed rows as i8, got f16
  %h = "emb.table"(%q) {precision = "fp8", dim = 12 : i64} : (tensor<10x16xf16>) -> !emb.table_handle
  return
}

// -----

func.func @dim_on_dense(%t: tensor<10x16xf16>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op 'dim' is an attribute of a quantized table (precision) only
  %h = "emb.table"(%t) {dim = 16 : i64} : (tensor<10x16xf16>) -> !emb.table_handle
  return
}

// -----

// The output's columns are the quantized tables' dims, not their bytes.
func.func @columns(%i: tensor<?xi64>, %o: tensor<5xi64>, %q: tensor<10x80xi8>) -> tensor<4x80xf32> {
  %h = "emb.table"(%q) {precision = "int4", dim = 128 : i64} : (tensor<10x80xi8>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op the result has 80 columns but the features' tables sum to 128
  %0 = "emb.tbe"(%i, %o, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x80xf32>
  return %0 : tensor<4x80xf32>
}

// -----

// Beside a dense table the output is f32 or the dense tables' type.
func.func @output(%i: tensor<?xi64>, %o: tensor<9xi64>, %q: tensor<10x16xi8>, %d: tensor<10x8xf32>) -> tensor<4x16xf16> {
  %h0 = "emb.table"(%q) {precision = "int8", dim = 8 : i64} : (tensor<10x16xi8>) -> !emb.table_handle
  %h1 = "emb.table"(%d) : (tensor<10x8xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op the result must hold f32 or weights_1's type f32, got f16
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// Quantized tables only: per-sample weights and the output are each f32 or
// hold one 16-bit type.
func.func @weights(%i: tensor<?xi32>, %o: tensor<5xi32>, %w: tensor<?xf16>, %q: tensor<10x16xi8>) -> tensor<4x16xbf16> {
  %h = "emb.table"(%q) {precision = "int2", dim = 16 : i64} : (tensor<10x16xi8>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op per_sample_weights hold f16 but the result holds bf16: over quantized tables, each is f32 or both hold one type
  %0 = "emb.tbe"(%i, %o, %h, %w) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<?xi32>, tensor<5xi32>, !emb.table_handle, tensor<?xf16>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

// Quantized tables are for lookups: the backward updates dense tables.
func.func @backward(%idx: tensor<8xi64>, %off: tensor<9xi64>, %q: tensor<100x16xi8>, %t1: tensor<100x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  %h0 = "emb.table"(%q) {precision = "int8", dim = 8 : i64} : (tensor<100x16xi8>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x8xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:12: error: 'emb.tbe_backward' op weights_0 is an int8 table; emb.tbe_backward updates dense tables only
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// A sharding plan slices dense tables.
func.func @sharded(%i: tensor<?xi64>, %o: tensor<9xi64>, %q: tensor<100x48xi8>) -> tensor<4x128xf32> {
  %h0 = "emb.table"(%q) {precision = "int4", dim = 64 : i64} : (tensor<100x48xi8>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op a sharding plan takes dense tables only, but weights_0 is an int4 table
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}

// -----

// emb.quantize_table: a precision, a dim equal to the weight's columns, and
// the packed rows as its result.
func.func @pack_no_precision(%t: tensor<10x8xf32>) -> tensor<10x16xi8> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.quantize_table' op attribute "precision" is expected but not provided
  %p = "emb.quantize_table"(%t) {dim = 8 : i64} : (tensor<10x8xf32>) -> tensor<10x16xi8>
  return %p : tensor<10x16xi8>
}

// -----

func.func @pack_precision_string(%t: tensor<10x8xf32>) -> tensor<10x16xi8> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.quantize_table' op requires a string attribute 'precision'
  %p = "emb.quantize_table"(%t) {precision = 8 : i64, dim = 8 : i64} : (tensor<10x8xf32>) -> tensor<10x16xi8>
  return %p : tensor<10x16xi8>
}

// -----

func.func @pack_dense(%t: tensor<10x8xf32>) -> tensor<10x16xi8> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.quantize_table' op precision must be "int8", "int4", "int2" or "fp8", got "dense"
  %p = "emb.quantize_table"(%t) {precision = "dense", dim = 8 : i64} : (tensor<10x8xf32>) -> tensor<10x16xi8>
  return %p : tensor<10x16xi8>
}

// -----

func.func @pack_dim(%t: tensor<10x8xf32>) -> tensor<10x16xi8> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.quantize_table' op dim is 16 but weight has 8 columns
  %p = "emb.quantize_table"(%t) {precision = "int8", dim = 16 : i64} : (tensor<10x8xf32>) -> tensor<10x16xi8>
  return %p : tensor<10x16xi8>
}

// -----

func.func @pack_odd(%t: tensor<10x7xf32>) -> tensor<10x16xi8> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.quantize_table' op weight's 7 columns do not pack into whole bytes of int4
  %p = "emb.quantize_table"(%t) {precision = "int4", dim = 7 : i64} : (tensor<10x7xf32>) -> tensor<10x16xi8>
  return %p : tensor<10x16xi8>
}

// -----

func.func @pack_result(%t: tensor<10x8xf32>) -> tensor<10x12xi8> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.quantize_table' op the result must be the packed rows tensor<Ex16xi8> (an int8 row of 8 columns takes 16 bytes), got tensor<10x12xi8>
  %p = "emb.quantize_table"(%t) {precision = "int8", dim = 8 : i64} : (tensor<10x8xf32>) -> tensor<10x12xi8>
  return %p : tensor<10x12xi8>
}

// -----

func.func @pack_rows(%t: tensor<10x8xf32>) -> tensor<9x16xi8> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.quantize_table' op the result must be the packed rows tensor<Ex16xi8> (an int8 row of 8 columns takes 16 bytes), got tensor<9x16xi8>
  %p = "emb.quantize_table"(%t) {precision = "int8", dim = 8 : i64} : (tensor<10x8xf32>) -> tensor<9x16xi8>
  return %p : tensor<9x16xi8>
}

// -----

// A dim past the largest, read twice by one lookup: the table's error only
// (the lookup leaves such D out of its sum of D: no overflow).
func.func @huge_dim_twice(%i: tensor<?xi64>, %o: tensor<9xi64>, %q: tensor<100x48xi8>) -> tensor<4x128xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table' op dim is 9223372036854775807, must be 1 to 2048 and a multiple of 2 for int4
  %h = "emb.table"(%q) {precision = "int4", dim = 9223372036854775807 : i64} : (tensor<100x48xi8>) -> !emb.table_handle
  // CHECK-NOT: error
  %0 = "emb.tbe"(%i, %o, %h) {pooling = "sum", feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}
