// A training step as a loop runs it: the forward's result is returned, the
// backward's results are left unused (the tables are updated in place in
// the caller's buffers, the aliasing contract of docs/dialect.md).
// erase_dead_run.test runs it twice on the same buffers.

func.func @tbe_step(%ids: tensor<2xi64>, %offsets: tensor<2xi64>, %t0: tensor<5x2xf32>, %grad: tensor<1x2xf32>, %hyper: tensor<5xf32>) -> tensor<1x2xf32> {
  %h0 = "emb.table"(%t0) : (tensor<5x2xf32>) -> !emb.table_handle
  %fwd = "emb.tbe"(%ids, %offsets, %h0) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<2xi64>, tensor<2xi64>, !emb.table_handle) -> tensor<1x2xf32>
  %new = "emb.tbe_backward"(%ids, %offsets, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<2xi64>, tensor<2xi64>, !emb.table_handle, tensor<1x2xf32>, tensor<5xf32>) -> !emb.table_handle
  return %fwd : tensor<1x2xf32>
}

func.func @bag_step(%w: tensor<5x2xf32>, %ids: tensor<2xi64>, %offsets: tensor<2xi64>, %grad: tensor<1x2xf32>, %hyper: tensor<5xf32>) -> tensor<1x2xf32> {
  %fwd = "emb.embedding_bag"(%w, %ids, %offsets) {mode = "sum"} : (tensor<5x2xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2xf32>
  %new = "emb.embedding_bag_backward"(%w, %ids, %offsets, %grad, %hyper) {optimizer = "sgd", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<5x2xf32>, tensor<2xi64>, tensor<2xi64>, tensor<1x2xf32>, tensor<5xf32>) -> tensor<5x2xf32>
  return %fwd : tensor<1x2xf32>
}
