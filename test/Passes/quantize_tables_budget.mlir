// emb-quantize-tables{budget-mib}: the table that takes the most bytes moves
// one step down dense -> int8 -> int4 -> int2 until all tables fit. Tables:
// 0 is 65536x64 f32 (16 MiB), 1 is 32768x64 f32 (8 MiB), 2 is 16384x6 f16
// (192 KiB; its packed rows would take no fewer bytes, so it never moves).
// An int8 row of 64 is 68 -> 80 bytes, int4 36 -> 48, int2 20 -> 32.
// RUN: emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{budget-mib=30})' %s 2>&1 | FileCheck %s --check-prefix=B30
// RUN: emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{budget-mib=20})' %s 2>&1 | FileCheck %s --check-prefix=B20
// RUN: emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{budget-mib=8})' %s 2>&1 | FileCheck %s --check-prefix=B8
// RUN: emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{budget-mib=4})' %s 2>&1 | FileCheck %s --check-prefix=B4
// With table 0 kept dense by tables=, the rest cannot reach 4 MiB.
// RUN: not emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{budget-mib=4 tables=0=dense})' %s 2>&1 | FileCheck %s --check-prefix=FIXED
// REQUIRES: emb-compiler

// 24.2 MiB fit in 30: nothing moves.
// B30: remark: emb-quantize-tables: the tables take 24.19 MiB (budget-mib=30)
// B30-NOT: precision
// 20: table 0 to int8 (5 MiB): 13.19 MiB.
// B20: remark: emb-quantize-tables: the tables take 13.19 MiB (budget-mib=20)
// B20: table 0 (65536x64) as int8
// B20-NOT: table 1 (
// 8: then table 1 (now the largest, 8 MiB) to int8 (2.5 MiB): 7.69 MiB.
// B8: the tables take 7.69 MiB (budget-mib=8)
// B8-DAG: table 0 (65536x64) as int8
// B8-DAG: table 1 (32768x64) as int8
// 4: table 0 to int4 (3 MiB), table 1 to int4 (1.5), table 0 to int2 (2).
// B4: the tables take 3.69 MiB (budget-mib=4)
// B4-DAG: table 0 (65536x64) as int2
// B4-DAG: table 1 (32768x64) as int4
// B4-NOT: table 2 (16384x6) as
// FIXED: [[@LINE+2]]:9: error: emb-quantize-tables: the tables take 17.19 MiB with every table that may be quantized at its smallest precision, more than budget-mib=4
func.func @f(%i: tensor<?xi64>, %o: tensor<7xi64>, %big: tensor<65536x64xf32>, %mid: tensor<32768x64xf32>, %small: tensor<16384x6xf16>) -> (tensor<3x128xf32>, tensor<3x12xf16>) {
  %h0 = "emb.table"(%big) : (tensor<65536x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%mid) : (tensor<32768x64xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%small) : (tensor<16384x6xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<7xi64>, !emb.table_handle, !emb.table_handle) -> tensor<3x128xf32>
  %1 = "emb.tbe"(%i, %o, %h2, %h2) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<7xi64>, !emb.table_handle, !emb.table_handle) -> tensor<3x12xf16>
  return %0, %1 : tensor<3x128xf32>, tensor<3x12xf16>
}
