// emb-quantize-tables: which tables, at what precision, and what they
// become. A constant table is packed here (dense in, dense out;
// dense_resource in, dense_resource out) with a remark giving the error on
// its rows; a table passed in gets an emb.quantize_table; a trained table
// stays dense; budget-mib moves the largest table one step at a time.
// The IR (stdout) and the remarks (stderr) are checked apart.
// RUN: emb-opt --split-input-file --emb-quantize-tables %s 2>/dev/null | FileCheck %s --check-prefixes=CHECK,INT8
// RUN: emb-opt --split-input-file --emb-quantize-tables %s 2>&1 >/dev/null | FileCheck %s --check-prefixes=REMARK,INT8-REMARK
// The first block alone with tables= (each block is a module of its own).
// RUN: %python -c "import sys; sys.stdout.write(open(sys.argv[1]).read().split(chr(10) + '// -----' + chr(10))[0])" %s > %t.mlir
// RUN: emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{tables=1=fp8,0=int4})' %t.mlir 2>/dev/null | FileCheck %s --check-prefix=LIST
// RUN: emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{tables=1=fp8,0=int4})' %t.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=LIST-REMARK
// REQUIRES: emb-compiler

// Table 0 is a constant: int4 rows of 8 columns are 4 + 4 = 8 bytes, padded
// to 16. Row 0 is 0, 0.5, ..., 3 and 7.5 (bias 0, scale 7.5 / 15 = 0.5 =
// f16 0x3800, q = 0..6 and 15, low nibble first), row 1 is constant 1 (scale
// 1 = 0x3c00, bias 1 = 0x3c00, q 0): both exact.
// Table 1 is an argument: quantized on each call.
// CHECK-LABEL: func.func @two_tables
// INT8-REMARK: remark: emb-quantize-tables: table 0 (2x8) as int8: 16 bytes a row instead of 32; error on its rows (||row - read back|| / ||row||): max {{.*}}, rms {{.*}}
// INT8-REMARK: remark: emb-quantize-tables: table 1 (?x16) as int8: not a constant, so emb.quantize_table quantizes it on every call
// INT8: %[[C:.+]] = arith.constant dense<{{.*}}> : tensor<2x16xi8>
// INT8: "emb.table"(%[[C]]) {dim = 8 : i64, precision = "int8"} : (tensor<2x16xi8>) -> !emb.table_handle
// INT8: %[[Q:.+]] = "emb.quantize_table"(%arg2) {dim = 16 : i64, precision = "int8"} : (tensor<?x16xf32>) -> tensor<?x32xi8>
// INT8: "emb.table"(%[[Q]]) {dim = 16 : i64, precision = "int8"} : (tensor<?x32xi8>) -> !emb.table_handle
// INT8-NOT: tensor<2x8xf32>
// LIST-REMARK: remark: emb-quantize-tables: table 0 (2x8) as int4: 16 bytes a row instead of 32; error on its rows (||row - read back|| / ||row||): max 0, rms 0
// LIST-REMARK: remark: emb-quantize-tables: table 1 (?x16) as fp8
// LIST: arith.constant dense<{{\[}}[0, 56, 0, 0, 16, 50, 84, -10, 0, 0, 0, 0, 0, 0, 0, 0], [0, 60, 0, 60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<2x16xi8>
// LIST: "emb.quantize_table"(%arg2) {dim = 16 : i64, precision = "fp8"} : (tensor<?x16xf32>) -> tensor<?x32xi8>
func.func @two_tables(%i: tensor<?xi64>, %o: tensor<7xi64>, %arg: tensor<?x16xf32>) -> tensor<3x24xf32> {
  %c = arith.constant dense<[[0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 7.5], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<2x8xf32>
  %h0 = "emb.table"(%c) : (tensor<2x8xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%arg) : (tensor<?x16xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<7xi64>, !emb.table_handle, !emb.table_handle) -> tensor<3x24xf32>
  return %0 : tensor<3x24xf32>
}

// -----

// A dense_resource table becomes a dense_resource of packed rows.
// CHECK-LABEL: func.func @resource
// REMARK: remark: emb-quantize-tables: table 0 (2x32) as int8: 48 bytes a row instead of 64
// CHECK: arith.constant dense_resource<emb_quantized_table_0> : tensor<2x48xi8>
// CHECK: emb_quantized_table_0: "0x10000000
func.func @resource(%i: tensor<?xi64>, %o: tensor<4xi64>) -> tensor<3x32xf16> {
  %c = arith.constant dense_resource<t> : tensor<2x32xf16>
  %h0 = "emb.table"(%c) : (tensor<2x32xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "mean", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<4xi64>, !emb.table_handle) -> tensor<3x32xf16>
  return %0 : tensor<3x32xf16>
}
{-#
  dialect_resources: {
    builtin: {
      t: "0x02000000000000340038003A003C003D003E003F00408040004180410042804200438043004440448044C044004540458045C045004640468046C046004740478047C04700482048404860488048A048C048E04800492049404960498049A049C049E049004A204A404A604A804AA04AC04AE04A004B204B404B604B804BA04BC04BE04B"
    }
  }
#-}

// -----

// A table whose packed rows would take no fewer bytes stays dense (f16 D 8:
// 16 bytes, and 4 + 8 padded to 16 as int8).
// CHECK-LABEL: func.func @narrow
// REMARK: remark: emb-quantize-tables: table 0 stays dense: it is so narrow that its packed rows (a 4-byte header, padded to 16 bytes) would take no fewer bytes
// CHECK-NOT: precision
func.func @narrow(%i: tensor<?xi64>, %o: tensor<4xi64>, %t: tensor<10x8xf16>) -> tensor<3x8xf16> {
  %h0 = "emb.table"(%t) : (tensor<10x8xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<4xi64>, !emb.table_handle) -> tensor<3x8xf16>
  return %0 : tensor<3x8xf16>
}

// -----

// A table the backward trains stays dense, and says why.
// CHECK-LABEL: func.func @trained
// REMARK: remark: emb-quantize-tables: table 0 stays dense: it is trained by an emb.tbe_backward (quantized tables are for lookups)
// CHECK-NOT: precision
func.func @trained(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t: tensor<100x8xf32>, %grad: tensor<4x8xf32>, %hyper: tensor<5xf32>) -> (tensor<4x8xf32>, !emb.table_handle) {
  %h = "emb.table"(%t) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  %new = "emb.tbe_backward"(%idx, %off, %h, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x8xf32>, tensor<5xf32>) -> (!emb.table_handle)
  return %0, %new : tensor<4x8xf32>, !emb.table_handle
}
