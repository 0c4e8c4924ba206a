// emb-quantize-tables{arguments=packed}: a table passed in as an argument of
// its function is taken as its packed rows (the argument's type becomes
// them, and the function's type with it), so nothing quantizes it on each
// call; the caller quantizes it once or passes FBGEMM's rows. An argument
// that something else reads too, or of a function the module calls (its
// caller passes dense rows), is quantized on each call as without the
// option. The IR (stdout) and the remarks (stderr) are checked apart.
// RUN: emb-opt --split-input-file '--pass-pipeline=builtin.module(emb-quantize-tables{precision=int4 arguments=packed})' %s 2>/dev/null | FileCheck %s
// RUN: emb-opt --split-input-file '--pass-pipeline=builtin.module(emb-quantize-tables{precision=int4 arguments=packed})' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// Without the option, the same first function quantizes on each call.
// RUN: emb-opt --split-input-file '--pass-pipeline=builtin.module(emb-quantize-tables{precision=int4})' %s 2>/dev/null | FileCheck %s --check-prefix=QUANTIZE
// REQUIRES: emb-compiler

// int4 rows of 16 columns: 4 + 8 = 12 bytes, padded to 16; of 32: 4 + 16 =
// 20, padded to 32.
// CHECK-LABEL: func.func @packed
// CHECK-SAME: (%arg0: tensor<?xi64>, %arg1: tensor<7xi64>, %arg2: tensor<?x16xi8>, %arg3: tensor<100x32xi8>) -> tensor<3x48xf32>
// CHECK-NOT: emb.quantize_table
// CHECK: "emb.table"(%arg2) {dim = 16 : i64, precision = "int4"} : (tensor<?x16xi8>) -> !emb.table_handle
// CHECK: "emb.table"(%arg3) {dim = 32 : i64, precision = "int4"} : (tensor<100x32xi8>) -> !emb.table_handle
// REMARK: remark: emb-quantize-tables: table 0 (?x16) as int4: argument #2 of @packed takes its packed rows (?x16 bytes: the caller quantizes it once)
// REMARK: remark: emb-quantize-tables: table 1 (100x32) as int4: argument #3 of @packed takes its packed rows (100x32 bytes: the caller quantizes it once)
// QUANTIZE-LABEL: func.func @packed
// QUANTIZE-SAME: %arg2: tensor<?x16xf32>, %arg3: tensor<100x32xf32>
// QUANTIZE: "emb.quantize_table"(%arg2) {dim = 16 : i64, precision = "int4"} : (tensor<?x16xf32>) -> tensor<?x16xi8>
// QUANTIZE: "emb.quantize_table"(%arg3) {dim = 32 : i64, precision = "int4"} : (tensor<100x32xf32>) -> tensor<100x32xi8>
func.func @packed(%i: tensor<?xi64>, %o: tensor<7xi64>, %a: tensor<?x16xf32>, %b: tensor<100x32xf32>) -> tensor<3x48xf32> {
  %h0 = "emb.table"(%a) : (tensor<?x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%b) : (tensor<100x32xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<7xi64>, !emb.table_handle, !emb.table_handle) -> tensor<3x48xf32>
  return %0 : tensor<3x48xf32>
}

// -----

// The table's argument is also returned: it stays dense, and the table is
// quantized on each call.
// CHECK-LABEL: func.func @read_twice
// CHECK-SAME: %arg2: tensor<100x16xf32>
// CHECK: %[[Q:.+]] = "emb.quantize_table"(%arg2) {dim = 16 : i64, precision = "int4"} : (tensor<100x16xf32>) -> tensor<100x16xi8>
// CHECK: "emb.table"(%[[Q]]) {dim = 16 : i64, precision = "int4"}
// REMARK: remark: emb-quantize-tables: table 0 (100x16) as int4: not a constant, so emb.quantize_table quantizes it on every call
func.func @read_twice(%i: tensor<?xi64>, %o: tensor<4xi64>, %t: tensor<100x16xf32>) -> (tensor<3x16xf32>, tensor<100x16xf32>) {
  %h = "emb.table"(%t) : (tensor<100x16xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<4xi64>, !emb.table_handle) -> tensor<3x16xf32>
  return %0, %t : tensor<3x16xf32>, tensor<100x16xf32>
}

// -----

// @lookup is called in the module, with a dense table: its argument stays
// dense.
// CHECK-LABEL: func.func @lookup
// CHECK-SAME: %arg2: tensor<100x16xf32>
// CHECK: "emb.quantize_table"(%arg2)
// CHECK-LABEL: func.func @caller
// CHECK: call @lookup(%arg0, %arg1, %arg2) : (tensor<?xi64>, tensor<4xi64>, tensor<100x16xf32>) -> tensor<3x16xf32>
// REMARK: remark: emb-quantize-tables: table 0 (100x16) as int4: not a constant, so emb.quantize_table quantizes it on every call
func.func @lookup(%i: tensor<?xi64>, %o: tensor<4xi64>, %t: tensor<100x16xf32>) -> tensor<3x16xf32> {
  %h = "emb.table"(%t) : (tensor<100x16xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<4xi64>, !emb.table_handle) -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}
func.func @caller(%i: tensor<?xi64>, %o: tensor<4xi64>, %t: tensor<100x16xf32>) -> tensor<3x16xf32> {
  %0 = call @lookup(%i, %o, %t) : (tensor<?xi64>, tensor<4xi64>, tensor<100x16xf32>) -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}
