// A plan of two ranks for sharding_run.test (every rank's program compiles)
// and test/Tools/emb-run/ranks_gpu.test (it runs on two GPUs): every kind,
// a column-wise table split unevenly, a rank that holds no table-wise table.
func.func @mixed_two(%idx: tensor<?xi64>, %off: tensor<33xi64>, %t0: tensor<100x64xf32>, %t1: tensor<50x32xf32>, %t2: tensor<10x16xf32>, %t3: tensor<7x8xf32>) -> tensor<8x120xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<10x16xf32>) -> !emb.table_handle
  %h3 = "emb.table"(%t3) : (tensor<7x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %h3) {pooling = "sum", feature_tables = array<i64: 0, 1, 3, 2>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 60, 100>}, {kind = "column_wise", ranks = array<i64: 1, 0>, col_ranges = array<i64: 0, 16, 32>}, {kind = "table_wise", ranks = array<i64: 1>}, {kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 4, 0>} : (tensor<?xi64>, tensor<33xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<8x120xf32>
  return %0 : tensor<8x120xf32>
}

// A training step over two ranks.
func.func @step_two(%idx: tensor<?xi64>, %off: tensor<13xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf32>, %m1: tensor<50xf32>, %grad: tensor<4x40xf32>, %hyper: tensor<5xf32>) -> (tensor<4x40xf32>, tensor<100x16xf32>, tensor<50x8xf32>, tensor<100xf32>, tensor<50xf32>) {
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
