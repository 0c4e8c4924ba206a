// emb-quantize-tables on one table, as a constant (quantized at compile
// time) and as an argument of the same values (quantized by
// emb.quantize_table on each call), beside a dense one; and a model whose
// tables are all arguments, for random inputs (quantize_tables_run.test).
func.func @constant(%ids: tensor<6xi64>, %offsets: tensor<4xi64>) -> tensor<3x8xf32> {
  %c = arith.constant dense<[[-1.903, 0.519, -1.038, 1.384, -0.173, -1.73, 0.692, -0.865], [1.557, 0.0, -1.557, 0.865, -0.692, 1.73, 0.173, -1.384], [1.038, -0.519, 1.903, 0.346, -1.211, 1.211, -0.346, -1.903], [0.519, -1.038, 1.384, -0.173, -1.73, 0.692, -0.865, 1.557]]> : tensor<4x8xf32>
  %h = "emb.table"(%c) : (tensor<4x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%ids, %offsets, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<6xi64>, tensor<4xi64>, !emb.table_handle) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

func.func @argument(%t: tensor<4x8xf32>, %ids: tensor<6xi64>, %offsets: tensor<4xi64>) -> tensor<3x8xf32> {
  %h = "emb.table"(%t) : (tensor<4x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%ids, %offsets, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<6xi64>, tensor<4xi64>, !emb.table_handle) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

func.func @random(%t0: tensor<1000x64xf32>, %t1: tensor<500x32xf32>, %ids: tensor<?xi64>, %offsets: tensor<17xi64>, %w: tensor<?xf32>) -> tensor<8x96xf32> {
  %h0 = "emb.table"(%t0) : (tensor<1000x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<500x32xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%ids, %offsets, %h0, %h1, %w) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (tensor<?xi64>, tensor<17xi64>, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<8x96xf32>
  return %0 : tensor<8x96xf32>
}
