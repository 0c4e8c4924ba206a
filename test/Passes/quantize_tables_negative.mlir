// emb-quantize-tables refuses, naming what is wrong: a malformed tables=
// list, a table it cannot quantize that tables= names, and a constant
// table with a non-finite value. Table 0 is a constant f32 8-wide table with
// a NaN in row 1, table 1 an argument 7 wide, table 2 one the backward
// trains.
// RUN: not emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{tables=x})' %s 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{tables=1=int3})' %s 2>&1 | FileCheck %s --check-prefix=PRECISION
// RUN: not emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{tables=3=int8})' %s 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{tables=1=int8,1=fp8})' %s 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{tables=1=int4,0=dense})' %s 2>&1 | FileCheck %s --check-prefix=PACK
// RUN: not emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{tables=2=int8,0=dense})' %s 2>&1 | FileCheck %s --check-prefix=TRAINED
// RUN: not emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{tables=0=fp8})' %s 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: not emb-opt '--pass-pipeline=builtin.module(emb-quantize-tables{precision=int3})' %s 2>&1 | FileCheck %s --check-prefix=OPTION
// REQUIRES: emb-compiler

// FORM: error: emb-quantize-tables: tables= entry 'x' is not <table>=<precision> (a table's number, from 0)
// PRECISION: error: emb-quantize-tables: tables= entry '1=int3': the precision must be dense, int8, int4, int2 or fp8
// RANGE: error: emb-quantize-tables: tables= names table 3, but the module has 3
// TWICE: error: emb-quantize-tables: tables= names table 1 twice
// PACK: [[@LINE+10]]:9: error: emb-quantize-tables: tables= asks for table 1 as int4, but its 7 columns do not pack into whole bytes of int4
// TRAINED: [[@LINE+11]]:9: error: emb-quantize-tables: tables= asks for table 2 as int8, but it is trained by an emb.tbe_backward (quantized tables are for lookups)
// NAN: [[@LINE+7]]:9: error: emb-quantize-tables: table 0: row 1 column 2 is nan; a quantized table's rows must be finite
// OPTION: emb-quantize-tables: option 'precision' must be int8, int4, int2 or fp8, got 'int3'
func.func @f(%i: tensor<?xi64>, %o: tensor<7xi64>, %arg: tensor<100x7xf32>,
             %idx: tensor<8xi64>, %off: tensor<5xi64>, %t: tensor<100x8xf32>,
             %grad: tensor<4x8xf32>, %hyper: tensor<5xf32>)
    -> (tensor<3x15xf32>, !emb.table_handle) {
  %c = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 0x7FC00000, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  %h0 = "emb.table"(%c) : (tensor<2x8xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%arg) : (tensor<100x7xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<7xi64>, !emb.table_handle, !emb.table_handle) -> tensor<3x15xf32>
  %h2 = "emb.table"(%t) : (tensor<100x8xf32>) -> !emb.table_handle
  %new = "emb.tbe_backward"(%idx, %off, %h2, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x8xf32>, tensor<5xf32>) -> (!emb.table_handle)
  return %0, %new : tensor<3x15xf32>, !emb.table_handle
}
