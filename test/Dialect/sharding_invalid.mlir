// Every verifier rule of a sharding plan on emb.tbe (dialect/sharding.h),
// one per block.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// A plan needs its world size.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op attribute 'sharding' needs attribute 'world_size'
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// And a world size needs a plan.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op attribute 'world_size' is only allowed with a 'sharding' plan
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// The world size is a positive integer.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op world_size must be an integer in 1..65536, got 0 : i64
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 0 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// One entry per table.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding has 2 entries but there are 1 tables
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}, {kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Each entry is a dictionary.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] must be a dictionary, got "table_wise"
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = ["table_wise"], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// With a known kind.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] kind must be table_wise, row_wise, column_wise or data_parallel, got "grid_wise"
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "grid_wise"}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// A kind takes only its own keys.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] (data_parallel) takes no 'ranks'
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "data_parallel", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Table-wise: the one rank that holds it.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] (table_wise) needs 1 ranks (the one that holds it), got 2
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0, 1>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Ranks are ranks of the world.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] ranks[0] is 2, not a rank of world_size 2
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 2>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Row-wise: a row range on every rank.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] (row_wise) needs 2 ranks (one row range on every rank), got 1
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0>, row_ranges = array<i64: 0, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// A rank holds one shard of a table.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] names rank 1 twice (a rank holds one shard of a table)
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 1, 1>, row_ranges = array<i64: 0, 50, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Row ranges: one more than ranks.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] (row_wise) needs row_ranges = array<i64> with 3 entries (one more than ranks)
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Row ranges do not decrease.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] (row_wise) row_ranges must not decrease, got 120 then 100
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 120, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Row ranges cover the table.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] (row_wise) row_ranges must end at the table's 100 rows, got 90
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 50, 90>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Column ranges start at 0.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] (column_wise) col_ranges must start at 0
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 0, 1>, col_ranges = array<i64: 8, 16, 32>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Column shards are not empty.
func.func @f(%i: tensor<?xi64>, %o: tensor<9xi64>, %t0: tensor<100x32xf32>) -> tensor<4x64xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xf32>) -> !emb.table_handle
  // CHECK: [[@LINE+1]]:8: error: 'emb.tbe' op sharding[0] (column_wise) col_ranges must increase, got 32 then 32
  %0 = "emb.tbe"(%i, %o, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 0, 1>, col_ranges = array<i64: 0, 32, 32>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}
