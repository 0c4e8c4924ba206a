// What emb-plan-sharding cannot place: an error naming the table and the
// memory it needs; the pass fails.
// RUN: not emb-opt --split-input-file --emb-plan-sharding='world-size=2 hbm-mb=100' %s 2>&1 | FileCheck %s
// RUN: not emb-opt --split-input-file --emb-plan-sharding='world-size=2 hbm-mb=100 optimizer=sgd' %s 2>&1 | FileCheck %s --check-prefix=SGD
// RUN: not emb-opt --split-input-file --emb-plan-sharding='world-size=2 hbm-mb=100 optimizer=adam' %s 2>&1 | FileCheck %s --check-prefix=ADAM
// REQUIRES: emb-compiler

// 244 MiB needs more than two ranks of 100 MiB, even split by rows.
// CHECK: error: emb-plan-sharding: table 0 needs 244.1 MiB (with its optimizer state) and fits on no rank of 100.0 MiB, whole or row-wise split over 2 ranks
func.func @too_big(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<1000000x64xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<1000000x64xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// The optimizer state counts: 61 MiB of table fits on one rank under SGD,
// but Adam's m and v (8 bytes an element) make it 183 MiB, which fits on no
// rank whole: it is halved by rows.
// SGD-LABEL: func.func @state
// SGD: sharding = [{kind = "table_wise", ranks = array<i64: 0>}]
// ADAM-LABEL: func.func @state
// ADAM: sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 500000, 1000000>}]
func.func @state(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<1000000x16xf32>) -> tensor<4x16xf32> {
  %h0 = "emb.table"(%t0) : (tensor<1000000x16xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
