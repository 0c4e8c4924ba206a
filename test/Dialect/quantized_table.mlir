// Quantized tables: emb.table {precision, dim} over packed i8 rows, mixed
// with dense tables in one emb.tbe, printed and parsed back (the verifier's
// rules: quantized_table_invalid.mlir).
// RUN: emb-opt %s | emb-opt | FileCheck %s
// RUN: emb-opt %s --mlir-print-op-generic | emb-opt | FileCheck %s
// REQUIRES: emb-compiler

// int4 (D 128: 4 + 64 bytes, padded to 80), fp8 (D 12: 4 + 12 = 16) and a
// dense f16 table in one lookup with an f16 output.
// CHECK-LABEL: func.func @mixed
// CHECK: "emb.table"(%{{.*}}) {dim = 128 : i64, precision = "int4"} : (tensor<1000x80xi8>) -> !emb.table_handle
// CHECK: "emb.table"(%{{.*}}) {dim = 12 : i64, precision = "fp8"} : (tensor<50x16xi8>) -> !emb.table_handle
// CHECK: "emb.tbe"({{.*}}) -> tensor<4x148xf16>
func.func @mixed(%i: tensor<?xi64>, %o: tensor<13xi64>, %q4: tensor<1000x80xi8>, %q8: tensor<50x16xi8>, %d: tensor<10x8xf16>) -> tensor<4x148xf16> {
  %h0 = "emb.table"(%q4) {precision = "int4", dim = 128 : i64} : (tensor<1000x80xi8>) -> !emb.table_handle
  %h1 = "emb.table"(%q8) {precision = "fp8", dim = 12 : i64} : (tensor<50x16xi8>) -> !emb.table_handle
  %h2 = "emb.table"(%d) : (tensor<10x8xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1, %h2) {pooling = "sum", feature_tables = array<i64: 0, 1, 2>, operandSegmentSizes = array<i32: 1, 1, 3, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<4x148xf16>
  return %0 : tensor<4x148xf16>
}

// Quantized tables only: the output and the per-sample weights may be
// any float type; the rows may be dynamic.
// CHECK-LABEL: func.func @only_quantized
func.func @only_quantized(%i: tensor<?xi32>, %o: tensor<9xi32>, %w: tensor<?xbf16>, %q: tensor<?x16xi8>) -> tensor<4x32xbf16> {
  %h = "emb.table"(%q) {precision = "int2", dim = 16 : i64} : (tensor<?x16xi8>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h, %w) {pooling = "sum", feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<?xi32>, tensor<9xi32>, !emb.table_handle, tensor<?xbf16>) -> tensor<4x32xbf16>
  return %0 : tensor<4x32xbf16>
}
