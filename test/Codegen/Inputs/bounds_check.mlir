// emb.embedding_bag and emb.tbe under each bounds_check mode; run by
// bounds_check_run.test on ids it writes, some outside their tables.

func.func @bag_fatal(%w: tensor<10x4xf32>, %idx: tensor<?xi64>, %off: tensor<4xi64>) -> tensor<3x4xf32> {
  %0 = "emb.embedding_bag"(%w, %idx, %off) {mode = "sum", bounds_check = "fatal"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @bag_warning(%w: tensor<10x4xf32>, %idx: tensor<?xi64>, %off: tensor<4xi64>) -> tensor<3x4xf32> {
  %0 = "emb.embedding_bag"(%w, %idx, %off) {mode = "sum", bounds_check = "warning"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @bag_ignore(%w: tensor<10x4xf32>, %idx: tensor<?xi64>, %off: tensor<4xi64>) -> tensor<3x4xf32> {
  %0 = "emb.embedding_bag"(%w, %idx, %off) {mode = "sum", bounds_check = "ignore"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @bag_none(%w: tensor<10x4xf32>, %idx: tensor<?xi64>, %off: tensor<4xi64>) -> tensor<3x4xf32> {
  %0 = "emb.embedding_bag"(%w, %idx, %off) {mode = "sum", bounds_check = "none"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

func.func @tbe_fatal(%t0: tensor<10x4xf32>, %t1: tensor<10x2xf32>, %idx: tensor<?xi64>, %off: tensor<5xi64>) -> tensor<2x6xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x4xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<10x2xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, bounds_check = "fatal", operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle, !emb.table_handle) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

func.func @tbe_warning(%t0: tensor<10x4xf32>, %t1: tensor<10x2xf32>, %idx: tensor<?xi64>, %off: tensor<5xi64>) -> tensor<2x6xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x4xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<10x2xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, bounds_check = "warning", operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle, !emb.table_handle) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
