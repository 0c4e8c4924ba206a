// Small models that test/PyTorch/test_compiled.py calls through
// emb_torch.load, compiled by make_compiled_models.sh (emb-compile --shared,
// one .so per entry and target); the test computes each in torch.
//
// @dense_tower: two features (B = 4) over two tables, pooled (weighted
//   sum), then relu(concat(pooled, dense) @ w): static results only, so a
//   call can be captured into a CUDA graph.
// @sgd_step: the same lookup and its backward with SGD: the tables are
//   updated in place, in the caller's tensors; returns the pooled forward.
// @sequence: pooling none over a dynamic id list: a result of run-time
//   shape [N, 8] (an embrtCompiledResult).

func.func @dense_tower(%ids: tensor<?xi64>, %offsets: tensor<9xi64>,
                       %weights: tensor<?xf32>,
                       %t0: tensor<50x16xf32>, %t1: tensor<30x16xf32>,
                       %dense: tensor<4x32xf32>, %w: tensor<64x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x32xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<50x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<30x16xf32>) -> !emb.table_handle
  %pooled = "emb.tbe"(%ids, %offsets, %h0, %h1, %weights) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<4x32xf32>
  %x = tensor.concat dim(1) %pooled, %dense : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x64xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %zeros = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
  %r = arith.maximumf %y, %zeros : tensor<4x8xf32>
  return %r, %pooled : tensor<4x8xf32>, tensor<4x32xf32>
}

func.func @sgd_step(%ids: tensor<?xi64>, %offsets: tensor<9xi64>,
                    %t0: tensor<50x16xf32>, %t1: tensor<30x16xf32>,
                    %grad: tensor<4x32xf32>, %hyper: tensor<5xf32>)
    -> tensor<4x32xf32> {
  %h0 = "emb.table"(%t0) : (tensor<50x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<30x16xf32>) -> !emb.table_handle
  %pooled = "emb.tbe"(%ids, %offsets, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x32xf32>
  %new:2 = "emb.tbe_backward"(%ids, %offsets, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x32xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return %pooled : tensor<4x32xf32>
}

func.func @sequence(%w: tensor<100x8xf32>, %ids: tensor<?xi64>, %off: tensor<?xi64>) -> tensor<?x8xf32> {
  %0 = "emb.embedding_bag"(%w, %ids, %off) {mode = "none"} : (tensor<100x8xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
