// emb-shard's programs, every rank's run together on random inputs
// (Inputs/shard_sim.py interprets them, carrying out the collectives
// between the ranks), give each rank what the unsharded emb.tbe gives for
// its batch: for each kind, their mixtures, 2 and 3 ranks, out-of-range ids
// under bounds_check warning, padding ids, mean pooling, per-sample weights;
// then the planner's plans over 4 ranks.
// RUN: %python %S/Inputs/shard_sim.py emb-opt %s | FileCheck %s
// RUN: %python %S/Inputs/shard_sim.py emb-opt %s 'world-size=4 hbm-mb=1' | FileCheck %s --check-prefix=PLAN
// REQUIRES: emb-compiler

// CHECK-NOT: MISMATCH
// CHECK: @table_wise rank 0: 4x40, max abs diff 0{{$}}
// CHECK: @table_wise rank 1: 4x40, max abs diff 0{{$}}
func.func @table_wise(%idx: tensor<?xi64>, %off: tensor<13xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>) -> tensor<4x40xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1, 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x40xf32>
  return %0 : tensor<4x40xf32>
}

// -----

// Partial sums add up in another order: equal to rounding.
// CHECK: @row_wise rank 0: 8x32, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
// CHECK: @row_wise rank 1: 8x32, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
func.func @row_wise(%idx: tensor<?xi32>, %off: tensor<9xi32>, %t0: tensor<100x32xbf16>) -> tensor<8x32xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xbf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", bounds_check = "warning", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 1, 0>, row_ranges = array<i64: 0, 60, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi32>, tensor<9xi32>, !emb.table_handle) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// CHECK: @column_wise rank 0: 2x40, max abs diff 0{{$}}
// CHECK: @column_wise rank 1: 2x40, max abs diff 0{{$}}
func.func @column_wise(%idx: tensor<?xi64>, %off: tensor<3xi64>, %t0: tensor<50x40xf16>) -> tensor<2x40xf16> {
  %h0 = "emb.table"(%t0) : (tensor<50x40xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "mean", padding_idx = 0 : i64, feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 1, 0>, col_ranges = array<i64: 0, 16, 40>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<3xi64>, !emb.table_handle) -> tensor<2x40xf16>
  return %0 : tensor<2x40xf16>
}

// -----

// CHECK: @data_parallel rank 1: 4x16, max abs diff 0{{$}}
func.func @data_parallel(%idx: tensor<?xi64>, %off: tensor<9xi64>, %t0: tensor<10x8xf32>) -> tensor<4x16xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK: @mixed rank 0: 8x104, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
// CHECK: @mixed rank 1: 8x104, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
func.func @mixed(%idx: tensor<?xi64>, %off: tensor<25xi64>, %t0: tensor<100x64xf32>, %t1: tensor<50x32xf32>, %t2: tensor<10x16xf32>, %t3: tensor<7x8xf32>) -> tensor<8x104xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<10x16xf32>) -> !emb.table_handle
  %h3 = "emb.table"(%t3) : (tensor<7x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %h3) {pooling = "sum", feature_tables = array<i64: 0, 1, 3>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 60, 100>}, {kind = "column_wise", ranks = array<i64: 1, 0>, col_ranges = array<i64: 0, 16, 32>}, {kind = "table_wise", ranks = array<i64: 1>}, {kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 4, 0>} : (tensor<?xi64>, tensor<25xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<8x104xf32>
  return %0 : tensor<8x104xf32>
}

// -----

// Three ranks, five features over four tables, features sharing tables,
// an empty row shard (rank 2 holds rows [7, 7) of table 3), a rank with no
// table-wise or column-wise table (rank 2).
// CHECK: @three_ranks rank 0: 4x80, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
// CHECK: @three_ranks rank 1: 4x80, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
// CHECK: @three_ranks rank 2: 4x80, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
func.func @three_ranks(%idx: tensor<?xi64>, %off: tensor<21xi64>, %t0: tensor<30x16xf32>, %t1: tensor<20x24xf32>, %t2: tensor<40x8xf32>, %t3: tensor<7x8xf32>) -> tensor<4x80xf32> {
  %h0 = "emb.table"(%t0) : (tensor<30x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<20x24xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<40x8xf32>) -> !emb.table_handle
  %h3 = "emb.table"(%t3) : (tensor<7x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %h3) {pooling = "sum", bounds_check = "ignore", feature_tables = array<i64: 1, 0, 2, 3, 1>, world_size = 3 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 1>}, {kind = "column_wise", ranks = array<i64: 0, 1>, col_ranges = array<i64: 0, 8, 24>}, {kind = "row_wise", ranks = array<i64: 2, 0, 1>, row_ranges = array<i64: 0, 10, 25, 40>}, {kind = "row_wise", ranks = array<i64: 0, 1, 2>, row_ranges = array<i64: 0, 3, 7, 7>}], operandSegmentSizes = array<i32: 1, 1, 4, 0>} : (tensor<?xi64>, tensor<21xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<4x80xf32>
  return %0 : tensor<4x80xf32>
}

// -----

// Per-sample weights travel with their ids (a third all_to_all, with the
// ids' counts): three ranks, every kind, weighted sums.
// CHECK: @weighted rank 0: 4x72, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
// CHECK: @weighted rank 1: 4x72, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
// CHECK: @weighted rank 2: 4x72, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
func.func @weighted(%idx: tensor<?xi64>, %off: tensor<21xi64>, %t0: tensor<30x16xf32>, %t1: tensor<20x24xf32>, %t2: tensor<40x8xf32>, %t3: tensor<7x8xf32>, %psw: tensor<?xf32>) -> tensor<4x72xf32> {
  %h0 = "emb.table"(%t0) : (tensor<30x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<20x24xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<40x8xf32>) -> !emb.table_handle
  %h3 = "emb.table"(%t3) : (tensor<7x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %h3, %psw) {pooling = "sum", bounds_check = "warning", feature_tables = array<i64: 0, 1, 2, 3, 0>, world_size = 3 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 2, 0, 1>, row_ranges = array<i64: 0, 10, 25, 30>}, {kind = "column_wise", ranks = array<i64: 1, 2>, col_ranges = array<i64: 0, 8, 24>}, {kind = "table_wise", ranks = array<i64: 0>}, {kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 4, 1>} : (tensor<?xi64>, tensor<21xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<4x72xf32>
  return %0 : tensor<4x72xf32>
}

// -----

// No plan: the planner's (RUN 2, four ranks of 1 MiB) splits the 1.07 MiB
// table by rows, places the others whole and replicates none.
// PLAN-NOT: MISMATCH
// PLAN: @planned_sum rank 0: 4x44, max abs diff {{.+}}
// PLAN-NOT: MISMATCH
// PLAN: @planned_sum rank 3: 4x44, max abs diff {{.+}}
// PLAN-NOT: MISMATCH
func.func @planned_sum(%idx: tensor<?xi64>, %off: tensor<17xi64>, %t0: tensor<70000x4xf32>, %t1: tensor<100x16xf32>, %t2: tensor<50x8xf32>) -> tensor<4x44xf32> {
  %h0 = "emb.table"(%t0) : (tensor<70000x4xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x16xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<50x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2) {pooling = "sum", feature_tables = array<i64: 0, 1, 2, 1>, operandSegmentSizes = array<i32: 1, 1, 3, 0>} : (tensor<?xi64>, tensor<17xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<4x44xf32>
  return %0 : tensor<4x44xf32>
}

// -----

// Under mean pooling the 2.1 MiB table is split by columns (three shards).
// PLAN: @planned_mean rank 0: 4x16, max abs diff 0{{$}}
// PLAN: @planned_mean rank 3: 4x16, max abs diff 0{{$}}
func.func @planned_mean(%idx: tensor<?xi64>, %off: tensor<9xi64>, %t0: tensor<70000x8xf32>, %t1: tensor<100x8xf32>) -> tensor<4x16xf32> {
  %h0 = "emb.table"(%t0) : (tensor<70000x8xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "mean", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
// Without the planner the last two have no plan.
// CHECK: @planned_sum: no plan
// CHECK: @planned_mean: no plan
