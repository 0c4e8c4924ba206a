// What emb-shard refuses, each an error at the emb.tbe; the pass fails.
// RUN: not emb-opt --split-input-file --emb-shard='rank=1' %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// Row-wise shards give partial sums: mean pooling cannot be kept.
// CHECK: error: emb-shard: weights_0 is row_wise, which needs pooling sum (its shards give partial sums), got mean
func.func @row_wise_mean(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<100x8xf32>) -> tensor<4x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "mean", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 50, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Row-wise shards renumber rows: a padding_idx would name another row.
// CHECK: error: emb-shard: weights_0 is row_wise, whose shards renumber rows, so padding_idx cannot be kept
func.func @row_wise_padding(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<100x8xf32>) -> tensor<4x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", padding_idx = 0 : i64, feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 50, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The input dist re-buckets the offsets and would drop the feature ends that
// emb-batch-tables put behind them.
// CHECK: error: emb-shard: an 'emb.tbe' with feature_ends (made by emb-batch-tables) is not sharded yet: its input dist would drop the per-feature offset checks
func.func @feature_ends(%idx: tensor<?xi64>, %off: tensor<9xi64>, %t0: tensor<100x8xf32>) -> tensor<2x16xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, feature_ends, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// The input dist buckets bags by offsets that start at 0 and never
// decrease; masked offsets promise neither.
// CHECK: error: emb-shard: an 'emb.tbe' with masked_offsets is not sharded: its input dist needs offsets that start at 0 and never decrease
func.func @masked_offsets(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<100x8xf32>) -> tensor<4x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, masked_offsets, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The output dists move pooled rows.
// CHECK: error: emb-shard: pooling none is not sharded (the output dists move pooled rows)
func.func @pooling_none(%idx: tensor<12xi64>, %off: tensor<5xi64>, %t0: tensor<100x8xf32>) -> tensor<12x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "none", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<12xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<12x8xf32>
  return %0 : tensor<12x8xf32>
}

// -----

// The rank of the option must be one of the plan's.
// CHECK: error: emb-shard: rank 1 is not a rank of world_size 1
func.func @rank_outside(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<100x8xf32>) -> tensor<4x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, world_size = 1 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The plan's counts are compiled in: the batch must be static.
// CHECK: error: emb-shard: the batch (the result's rows) must be static: the plan's counts are compiled in
func.func @dynamic_batch(%idx: tensor<?xi64>, %off: tensor<?xi64>, %t0: tensor<100x8xf32>) -> tensor<?x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<?xi64>, !emb.table_handle) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A sharded table is passed in as the rank's shard: it must be an argument.
// CHECK: error: emb-shard: weights_0 must be an argument of the function around the 'emb.tbe' (the rank's shard of it is passed in its place)
func.func @table_not_argument(%idx: tensor<?xi64>, %off: tensor<5xi64>) -> tensor<4x8xf32> {
  %t0 = arith.constant dense<1.0> : tensor<100x8xf32>
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// No other op may read a sharded table: no rank holds it whole.
// CHECK: error: emb-shard: weights_0's table is read by another op too; a sharded table must be read only by its 'emb.tbe' (each rank holds a shard of it)
func.func @table_read_elsewhere(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<100x8xf32>) -> (tensor<4x8xf32>, tensor<100x8xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0, %t0 : tensor<4x8xf32>, tensor<100x8xf32>
}

// -----

// A data-parallel table's replicas would each step with their own batch's
// gradients only: the backward does not shard them.
// CHECK: error: emb-shard: weights_0 is data_parallel, whose replicas would each take only their own batch's gradients (they need an all-reduce of the gradients first, which the backward does not shard yet)
func.func @data_parallel_step(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<10x8xf32>, %grad: tensor<4x8xf32>, %hyper: tensor<5xf32>) -> tensor<10x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x8xf32>) -> !emb.table_handle
  %new = "emb.tbe_backward"(%idx, %off, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x8xf32>, tensor<5xf32>) -> !emb.table_handle
  %n = "emb.table_value"(%new) : (!emb.table_handle) -> tensor<10x8xf32>
  return %n : tensor<10x8xf32>
}

// -----

// Rowwise Adagrad's state is one a row over all the row's columns.
// CHECK: error: emb-shard: weights_0 is column_wise, but rowwise_adagrad keeps one state a row over all its columns, which no column shard sees whole
func.func @column_adagrad(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<10x8xf32>, %m0: tensor<10xf32>, %grad: tensor<4x8xf32>, %hyper: tensor<5xf32>) -> tensor<10x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<10xf32>) -> !emb.state_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %s0, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 0, 1>, col_ranges = array<i64: 0, 4, 8>}], operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x8xf32>, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.state_handle)
  %n = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<10x8xf32>
  return %n : tensor<10x8xf32>
}

// -----

// Each rank holds a shard of an updated table: it can only be returned.
// CHECK: error: emb-shard: the updated weights_0 may only be returned (through emb.table_value): each rank holds a shard of it
func.func @updated_read(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<10x8xf32>, %grad: tensor<4x8xf32>, %hyper: tensor<5xf32>) -> tensor<10x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x8xf32>) -> !emb.table_handle
  %new = "emb.tbe_backward"(%idx, %off, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x8xf32>, tensor<5xf32>) -> !emb.table_handle
  %n = "emb.table_value"(%new) : (!emb.table_handle) -> tensor<10x8xf32>
  %d = arith.addf %n, %n : tensor<10x8xf32>
  return %d : tensor<10x8xf32>
}

// -----

// The tables' handles may be read by sharded ops only.
// CHECK: error: emb-shard: weights_0's table is read by another op too; a sharded table must be read only by its 'emb.tbe' (each rank holds a shard of it)
func.func @unsharded_reader(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<10x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<10x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  %1 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Optimizer states below f32 are not sharded yet.
// CHECK: error: emb-shard: an 'emb.tbe_backward' with bf16 or fp8 optimizer states (momentum1_precision, momentum2_precision) is not sharded yet; shard the step with f32 states
func.func @bf16_state(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<100x8xf32>, %m0: tensor<100xbf16>, %grad: tensor<4x8xf32>, %hyper: tensor<5xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xbf16>) -> !emb.state_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %s0, %hyper) {optimizer = "rowwise_adagrad", momentum1_precision = "bf16", pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 50, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x8xf32>, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.state_handle)
  return
}
