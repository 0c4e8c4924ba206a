// Sharded lookups for sharding_run.test and test/Tools/emb-run/ranks.test:
// each kind under a world of one (every shard the whole table, every
// collective a rank's copy to itself), their mixture, i32 ids, per-sample
// weights.

// Table 0 read by features 0 and 2.
func.func @table_wise(%idx: tensor<?xi64>, %off: tensor<13xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>) -> tensor<4x40xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1, 0>, world_size = 1 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}, {kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x40xf32>
  return %0 : tensor<4x40xf32>
}

func.func @row_wise(%idx: tensor<?xi32>, %off: tensor<9xi32>, %t0: tensor<100x32xf32>) -> tensor<8x32xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", bounds_check = "warning", feature_tables = array<i64: 0>, world_size = 1 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0>, row_ranges = array<i64: 0, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi32>, tensor<9xi32>, !emb.table_handle) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

func.func @column_wise(%idx: tensor<?xi64>, %off: tensor<3xi64>, %t0: tensor<50x40xf16>) -> tensor<2x40xf16> {
  %h0 = "emb.table"(%t0) : (tensor<50x40xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "mean", padding_idx = 0 : i64, feature_tables = array<i64: 0>, world_size = 1 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 0>, col_ranges = array<i64: 0, 40>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<3xi64>, !emb.table_handle) -> tensor<2x40xf16>
  return %0 : tensor<2x40xf16>
}

func.func @data_parallel(%idx: tensor<?xi64>, %off: tensor<9xi64>, %t0: tensor<10x8xf32>) -> tensor<4x16xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 1 : i64, sharding = [{kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// Every kind at once: the three groups of emb-shard.
func.func @mixed(%idx: tensor<?xi64>, %off: tensor<25xi64>, %t0: tensor<100x64xf32>, %t1: tensor<50x32xf32>, %t2: tensor<10x16xf32>, %t3: tensor<7x8xf32>) -> tensor<8x104xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<10x16xf32>) -> !emb.table_handle
  %h3 = "emb.table"(%t3) : (tensor<7x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %h3) {pooling = "sum", feature_tables = array<i64: 0, 1, 3>, world_size = 1 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0>, row_ranges = array<i64: 0, 100>}, {kind = "column_wise", ranks = array<i64: 0>, col_ranges = array<i64: 0, 32>}, {kind = "table_wise", ranks = array<i64: 0>}, {kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 4, 0>} : (tensor<?xi64>, tensor<25xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<8x104xf32>
  return %0 : tensor<8x104xf32>
}

// Per-sample weights: a third all-to-all beside the lengths and ids.
func.func @weighted(%idx: tensor<?xi64>, %off: tensor<25xi64>, %t0: tensor<100x64xf32>, %t1: tensor<50x32xf32>, %t2: tensor<10x16xf32>, %t3: tensor<7x8xf32>, %psw: tensor<?xf32>) -> tensor<8x104xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<10x16xf32>) -> !emb.table_handle
  %h3 = "emb.table"(%t3) : (tensor<7x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %h3, %psw) {pooling = "sum", feature_tables = array<i64: 0, 1, 3>, world_size = 1 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0>, row_ranges = array<i64: 0, 100>}, {kind = "column_wise", ranks = array<i64: 0>, col_ranges = array<i64: 0, 32>}, {kind = "table_wise", ranks = array<i64: 0>}, {kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 4, 1>} : (tensor<?xi64>, tensor<25xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<8x104xf32>
  return %0 : tensor<8x104xf32>
}

// A training step: the forward and its rowwise Adagrad backward, the
// updated tables and states returned.
func.func @step(%idx: tensor<?xi64>, %off: tensor<13xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf32>, %m1: tensor<50xf32>, %grad: tensor<4x40xf32>, %hyper: tensor<5xf32>) -> (tensor<4x40xf32>, tensor<100x16xf32>, tensor<50x8xf32>, tensor<100xf32>, tensor<50xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<50xf32>) -> !emb.state_handle
  %pooled = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1, 0>, world_size = 1 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0>, row_ranges = array<i64: 0, 100>}, {kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x40xf32>
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1, 0>, world_size = 1 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0>, row_ranges = array<i64: 0, 100>}, {kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle, tensor<4x40xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<100x16xf32>
  %n1 = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<50x8xf32>
  %ns0 = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<100xf32>
  %ns1 = "emb.table_value"(%new#3) : (!emb.state_handle) -> tensor<50xf32>
  return %pooled, %n0, %n1, %ns0, %ns1 : tensor<4x40xf32>, tensor<100x16xf32>, tensor<50x8xf32>, tensor<100xf32>, tensor<50xf32>
}
