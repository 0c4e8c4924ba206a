// emb-shard's programs, every rank's run together on random inputs
// (Inputs/shard_sim.py interprets them, carrying out the collectives
// between the ranks), give each rank what the unsharded emb.tbe gives for
// its batch: for each kind, their mixtures, 2 and 3 ranks, out-of-range ids
// under bounds_check warning, padding ids, mean pooling, per-sample weights;
// training steps (the sharded backward of every optimizer); then the
// planner's plans over 4 ranks.
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

// Training steps: the forward and its fused backward under one plan. Each
// rank's updated shards of the tables and states must be the windows of one
// unsharded backward over every rank's batch: the gradients go back to the
// rows' owners (the reverse of the output dist: an all_to_all of gradient
// columns, an all_gather for row-wise partial sums), and the backward takes
// the forward's input dist. Rowwise Adagrad over row-wise and table-wise
// tables, two ranks:
// CHECK: @step_adagrad rank 0 result 0: 4x40, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
// CHECK: @step_adagrad rank 1 result 4: 50, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
func.func @step_adagrad(%idx: tensor<?xi64>, %off: tensor<13xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf32>, %m1: tensor<50xf32>, %grad: tensor<4x40xf32>, %hyper: tensor<5xf32>) -> (tensor<4x40xf32>, tensor<100x16xf32>, tensor<50x8xf32>, tensor<100xf32>, tensor<50xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<50xf32>) -> !emb.state_handle
  %pooled = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1, 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 1, 0>, row_ranges = array<i64: 0, 60, 100>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x40xf32>
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1, 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 1, 0>, row_ranges = array<i64: 0, 60, 100>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle, tensor<4x40xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<100x16xf32>
  %n1 = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<50x8xf32>
  %ns0 = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<100xf32>
  %ns1 = "emb.table_value"(%new#3) : (!emb.state_handle) -> tensor<50xf32>
  return %pooled, %n0, %n1, %ns0, %ns1 : tensor<4x40xf32>, tensor<100x16xf32>, tensor<50x8xf32>, tensor<100xf32>, tensor<50xf32>
}

// -----

// Adam (with its step) over column-wise, row-wise and table-wise tables,
// three ranks, per-sample weights, ids outside the tables skipped:
// CHECK: @step_adam rank 0 result 0: 4x72, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
// CHECK: @step_adam rank 2 result 6: 0x8, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
func.func @step_adam(%idx: tensor<?xi64>, %off: tensor<17xi64>, %t0: tensor<20x24xf32>, %t1: tensor<30x16xf32>, %t2: tensor<40x8xf32>, %m0: tensor<20x24xf32>, %m1: tensor<30x16xf32>, %m2: tensor<40x8xf32>, %v0: tensor<20x24xf32>, %v1: tensor<30x16xf32>, %v2: tensor<40x8xf32>, %psw: tensor<?xf32>, %grad: tensor<4x72xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) -> (tensor<4x72xf32>, tensor<20x24xf32>, tensor<30x16xf32>, tensor<40x8xf32>, tensor<20x24xf32>, tensor<30x16xf32>, tensor<40x8xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<20x24xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<30x16xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<40x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<20x24xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<30x16xf32>) -> !emb.state_handle
  %s2 = "emb.state"(%m2) : (tensor<40x8xf32>) -> !emb.state_handle
  %w0 = "emb.state"(%v0) : (tensor<20x24xf32>) -> !emb.state_handle
  %w1 = "emb.state"(%v1) : (tensor<30x16xf32>) -> !emb.state_handle
  %w2 = "emb.state"(%v2) : (tensor<40x8xf32>) -> !emb.state_handle
  %pooled = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %psw) {pooling = "sum", bounds_check = "warning", feature_tables = array<i64: 0, 1, 2, 0>, world_size = 3 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 2, 0>, col_ranges = array<i64: 0, 8, 24>}, {kind = "row_wise", ranks = array<i64: 1, 2, 0>, row_ranges = array<i64: 0, 10, 10, 30>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 3, 1>} : (tensor<?xi64>, tensor<17xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<4x72xf32>
  %new:9 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %h2, %psw, %grad, %s0, %s1, %s2, %w0, %w1, %w2, %hyper, %step) {optimizer = "adam", pooling = "sum", bounds_check = "warning", feature_tables = array<i64: 0, 1, 2, 0>, world_size = 3 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 2, 0>, col_ranges = array<i64: 0, 8, 24>}, {kind = "row_wise", ranks = array<i64: 1, 2, 0>, row_ranges = array<i64: 0, 10, 10, 30>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 3, 1, 1, 3, 3, 1, 1>, resultSegmentSizes = array<i32: 3, 3, 3>} : (tensor<?xi64>, tensor<17xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, tensor<?xf32>, tensor<4x72xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<20x24xf32>
  %n1 = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<30x16xf32>
  %n2 = "emb.table_value"(%new#2) : (!emb.table_handle) -> tensor<40x8xf32>
  %nm0 = "emb.table_value"(%new#3) : (!emb.state_handle) -> tensor<20x24xf32>
  %nm1 = "emb.table_value"(%new#4) : (!emb.state_handle) -> tensor<30x16xf32>
  %nv2 = "emb.table_value"(%new#8) : (!emb.state_handle) -> tensor<40x8xf32>
  return %pooled, %n0, %n1, %n2, %nm0, %nm1, %nv2 : tensor<4x72xf32>, tensor<20x24xf32>, tensor<30x16xf32>, tensor<40x8xf32>, tensor<20x24xf32>, tensor<30x16xf32>, tensor<40x8xf32>
}

// -----

// SGD under mean pooling with a padding id: table-wise and column-wise
// tables (each owner sees whole bags, so the mean's count is the bag's),
// two ranks.
// CHECK: @step_sgd_mean rank 0 result 0: 8x40, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
// CHECK: @step_sgd_mean rank 1 result 2: 40x16, max abs diff {{.+}}
// CHECK-NOT: MISMATCH
func.func @step_sgd_mean(%idx: tensor<?xi32>, %off: tensor<17xi32>, %t0: tensor<60x24xf32>, %t1: tensor<40x16xf32>, %grad: tensor<8x40xf32>, %hyper: tensor<5xf32>) -> (tensor<8x40xf32>, tensor<60x24xf32>, tensor<40x16xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<60x24xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<40x16xf32>) -> !emb.table_handle
  %pooled = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "mean", padding_idx = 0 : i64, feature_tables = array<i64: 0, 1>, world_size = 2 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 1, 0>, col_ranges = array<i64: 0, 10, 24>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi32>, tensor<17xi32>, !emb.table_handle, !emb.table_handle) -> tensor<8x40xf32>
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "mean", padding_idx = 0 : i64, feature_tables = array<i64: 0, 1>, world_size = 2 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 1, 0>, col_ranges = array<i64: 0, 10, 24>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<?xi32>, tensor<17xi32>, !emb.table_handle, !emb.table_handle, tensor<8x40xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<60x24xf32>
  %n1 = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<40x16xf32>
  return %pooled, %n0, %n1 : tensor<8x40xf32>, tensor<60x24xf32>, tensor<40x16xf32>
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
