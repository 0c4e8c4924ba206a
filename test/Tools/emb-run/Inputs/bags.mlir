// Bags whose ids have a dynamic length, for --dynamic-size: an embedding bag
// (sum and mean) and a weighted TBE over two tables.
func.func @bags(%t: tensor<10x4xf32>, %ids: tensor<?xi64>, %off: tensor<4xi64>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %sum = "emb.embedding_bag"(%t, %ids, %off) {mode = "sum"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  %mean = "emb.embedding_bag"(%t, %ids, %off) {mode = "mean"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  return %sum, %mean : tensor<3x4xf32>, tensor<3x4xf32>
}

func.func @tbe_weighted(%ids: tensor<?xi64>, %off: tensor<7xi64>, %t0: tensor<10x4xf32>, %t1: tensor<20x8xf32>, %w: tensor<?xf32>) -> tensor<3x12xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x4xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<20x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%ids, %off, %h0, %h1, %w) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (tensor<?xi64>, tensor<7xi64>, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<3x12xf32>
  return %0 : tensor<3x12xf32>
}
