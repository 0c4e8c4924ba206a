// emb-plan-sharding writes a sharding plan on each emb.tbe: tables in order
// of decreasing cost, each table-wise on the least-loaded rank with room,
// data-parallel when tiny, split row-wise (sum pooling) or column-wise when
// it fits on no rank whole. explain=1 prints the plan as a table.
// RUN: emb-opt --split-input-file --emb-plan-sharding='world-size=2 hbm-mb=200 replicate-kb=1 explain=1' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN
// RUN: emb-opt --split-input-file --emb-plan-sharding='world-size=2 hbm-mb=200 replicate-kb=1' %s | FileCheck %s
// RUN: emb-opt --split-input-file --emb-plan-sharding='world-size=2 hbm-mb=200 replicate-kb=1' --emb-shard='rank=1' %s | FileCheck %s --check-prefix=SHARD
// REQUIRES: emb-compiler

// Greedy by cost: table 0 (the costliest) goes to rank 0, table 1 to rank
// 1, table 2 to rank 1 (its cost so far is lower), and table 3, 320 bytes,
// is replicated. The pooling factor is 96 ids / (4 features * 8 bags).
// EXPLAIN-LABEL: remark: emb-plan-sharding: 4 tables over 2 ranks of 200.0 MiB (optimizer sgd, pooling factor 3.00)
// EXPLAIN-NEXT: table       rows   dim      memory   cost/step  kind           ranks
// EXPLAIN-NEXT:     0       1000    64   250.0 KiB    16.4 KiB  table_wise    0
// EXPLAIN-NEXT:     1        400    32    50.0 KiB     8.4 KiB  table_wise    1
// EXPLAIN-NEXT:     2        100    16     6.2 KiB     4.4 KiB  table_wise    1
// EXPLAIN-NEXT:     3         10     8       320 B     2.4 KiB  data_parallel all
// EXPLAIN-NEXT: rank      memory   cost/step
// EXPLAIN-NEXT:    0   250.3 KiB    17.6 KiB
// EXPLAIN-NEXT:    1    56.6 KiB    13.9 KiB
// CHECK-LABEL: func.func @greedy
// CHECK: sharding = [{kind = "table_wise", ranks = array<i64: 0>}, {kind = "table_wise", ranks = array<i64: 1>}, {kind = "table_wise", ranks = array<i64: 1>}, {kind = "data_parallel"}], world_size = 2 : i64
// The plan is one emb-shard applies: rank 1 holds tables 1 and 2.
// SHARD-LABEL: func.func @greedy
// SHARD-SAME: tensor<0x64xf32>, %{{.+}}: tensor<400x32xf32>, %{{.+}}: tensor<100x16xf32>, %{{.+}}: tensor<10x8xf32>) -> tensor<8x120xf32> attributes {emb.rank = 1 : i64, emb.world_size = 2 : i64}
func.func @greedy(%idx: tensor<96xi64>, %off: tensor<33xi64>, %t0: tensor<1000x64xf32>, %t1: tensor<400x32xf32>, %t2: tensor<100x16xf32>, %t3: tensor<10x8xf32>) -> tensor<8x120xf32> {
  %h0 = "emb.table"(%t0) : (tensor<1000x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<400x32xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<100x16xf32>) -> !emb.table_handle
  %h3 = "emb.table"(%t3) : (tensor<10x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %h3) {pooling = "sum", feature_tables = array<i64: 0, 1, 2, 3>, operandSegmentSizes = array<i32: 1, 1, 4, 0>} : (tensor<96xi64>, tensor<33xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<8x120xf32>
  return %0 : tensor<8x120xf32>
}

// -----

// 244 MiB fits on no rank of 200 MiB whole: under sum pooling it is split
// row-wise, evenly over both ranks; the small table then goes to the rank
// with the lower cost.
// EXPLAIN-LABEL: remark: emb-plan-sharding: 2 tables over 2 ranks of 200.0 MiB
// EXPLAIN: 0    1000000    64   244.1 MiB
// EXPLAIN-SAME: row_wise      0,1
// CHECK-LABEL: func.func @row_wise
// CHECK: sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 500000, 1000000>}, {kind = "table_wise", ranks = array<i64: 0>}]
// SHARD-LABEL: func.func @row_wise
// SHARD-SAME: tensor<500000x64xf32>, %{{.+}}: tensor<0x8xf32>)
func.func @row_wise(%idx: tensor<?xi64>, %off: tensor<9xi64>, %t0: tensor<1000000x64xf32>, %t1: tensor<100x8xf32>) -> tensor<4x72xf32> {
  %h0 = "emb.table"(%t0) : (tensor<1000000x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x72xf32>
  return %0 : tensor<4x72xf32>
}

// -----

// Under mean pooling row-wise partial sums would be wrong: the table is
// split by columns instead.
// EXPLAIN-LABEL: remark: emb-plan-sharding: 1 tables over 2 ranks
// EXPLAIN: column_wise   0,1
// CHECK-LABEL: func.func @column_wise
// CHECK: sharding = [{col_ranges = array<i64: 0, 32, 64>, kind = "column_wise", ranks = array<i64: 0, 1>}]
// SHARD-LABEL: func.func @column_wise
// SHARD-SAME: tensor<1000000x32xf32>)
func.func @column_wise(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<1000000x64xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<1000000x64xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "mean", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// A plan already there is kept (and not explained).
// EXPLAIN-NOT: remark
// CHECK-LABEL: func.func @planned
// CHECK: sharding = [{kind = "table_wise", ranks = array<i64: 1>}], world_size = 2 : i64
func.func @planned(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<100x8xf32>) -> tensor<4x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A lookup of a quantized table stays unsharded (a plan slices dense
// tables), with a remark; quantize after emb-shard instead.
// EXPLAIN: remark: emb-plan-sharding: this emb.tbe stays unsharded: weights_0 is an int4 table, and a plan slices dense tables (run emb-quantize-tables after emb-shard)
// CHECK-LABEL: func.func @quantized
// CHECK-NOT: sharding
// CHECK: return
// SHARD-LABEL: func.func @quantized
// SHARD: "emb.tbe"
func.func @quantized(%i: tensor<?xi64>, %o: tensor<9xi64>, %q: tensor<100x48xi8>) -> tensor<4x128xf32> {
  %h0 = "emb.table"(%q) {precision = "int4", dim = 64 : i64} : (tensor<100x48xi8>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}
