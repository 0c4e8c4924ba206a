// A data-parallel lookup whose offsets the bucketize refuses (test/Codegen/
// sharding_run.test; reduced by emb-fuzz from test/Codegen/sharding.mlir).
func.func @data_parallel(%idx: tensor<?xi32>, %off: tensor<9xi32>, %t0: tensor<10x8xf32>) -> tensor<4x8xf32> {
  %b:3 = "emb.bucketize"(%idx, %off) {slot_features = array<i64: 1>, slot_ranks = array<i64: 0>, slot_row_begin = array<i64: 0>, slot_row_end = array<i64: 10>, world_size = 2} : (tensor<?xi32>, tensor<9xi32>) -> (tensor<?xi32>, tensor<4xi32>, tensor<2xi64>)
  %o:2 = "emb.lengths_to_offsets"(%b#1) {blocks = 1 : i64} : (tensor<4xi32>) -> (tensor<5xi32>, tensor<1xi64>)
  %h = "emb.table"(%t0) : (tensor<10x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%b#0, %o#0, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi32>, tensor<5xi32>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}