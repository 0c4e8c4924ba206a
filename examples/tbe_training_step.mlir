// One training step of the embeddings of a recommendation model, as
// TorchRec's EmbeddingBagCollection with a fused optimizer runs it: the
// table-batched lookup (forward), then, given the gradient of its pooled
// output, the fused backward with exact rowwise Adagrad, which updates
// every table row the batch touched, and its state, once.
//
//   features: 4 over 3 tables (features 0 and 3 share table 0), B = 32
//   tables:   1000 x 64, 500 x 32, 200 x 16, f32; one f32 Adagrad state a row
//   output:   [32, 64 + 32 + 16 + 64] pooled (sum), in feature order
//
// The gradient of the pooled output is an input: the dense part of the model
// (outside emb) computes it from the forward's output of the step before,
// as a pipelined trainer does. hyper_params holds the learning rate, eps,
// beta1, beta2 and weight decay (EMBRT_HYPER_* order; Adagrad reads the
// rate, eps and weight decay), so the same compiled step runs any schedule.
//
// The step returns the pooled output and the updated tables and states.
// Once lowered, the backward updates the argument buffers of the tables and
// states in place (see docs/dialect.md, the aliasing contract); returning
// them copies them into the result buffers.
func.func @tbe_training_step(
    %ids: tensor<?xi64>, %offsets: tensor<129xi64>,
    %t0: tensor<1000x64xf32>, %t1: tensor<500x32xf32>, %t2: tensor<200x16xf32>,
    %m0: tensor<1000xf32>, %m1: tensor<500xf32>, %m2: tensor<200xf32>,
    %grad: tensor<32x176xf32>, %hyper: tensor<5xf32>)
    -> (tensor<32x176xf32>, tensor<1000x64xf32>, tensor<500x32xf32>,
        tensor<200x16xf32>, tensor<1000xf32>, tensor<500xf32>,
        tensor<200xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<1000x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<500x32xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<200x16xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<1000xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<500xf32>) -> !emb.state_handle
  %s2 = "emb.state"(%m2) : (tensor<200xf32>) -> !emb.state_handle

  // Forward: reads the tables before the backward updates them.
  %pooled = "emb.tbe"(%ids, %offsets, %h0, %h1, %h2) {pooling = "sum", feature_tables = array<i64: 0, 1, 2, 0>, operandSegmentSizes = array<i32: 1, 1, 3, 0>} : (tensor<?xi64>, tensor<129xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<32x176xf32>

  // Backward + rowwise Adagrad: the forward's operands, the gradient of its
  // output, one state per table, the hyper-parameters.
  %new:6 = "emb.tbe_backward"(%ids, %offsets, %h0, %h1, %h2, %grad, %s0, %s1, %s2, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1, 2, 0>, operandSegmentSizes = array<i32: 1, 1, 3, 0, 1, 3, 0, 1, 0>, resultSegmentSizes = array<i32: 3, 3, 0>} : (tensor<?xi64>, tensor<129xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, tensor<32x176xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)

  // The updated tables and states as tensors. %t0 .. %m2 must not be read
  // from here on: their buffers hold the new values.
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<1000x64xf32>
  %n1 = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<500x32xf32>
  %n2 = "emb.table_value"(%new#2) : (!emb.table_handle) -> tensor<200x16xf32>
  %ns0 = "emb.table_value"(%new#3) : (!emb.state_handle) -> tensor<1000xf32>
  %ns1 = "emb.table_value"(%new#4) : (!emb.state_handle) -> tensor<500xf32>
  %ns2 = "emb.table_value"(%new#5) : (!emb.state_handle) -> tensor<200xf32>
  return %pooled, %n0, %n1, %n2, %ns0, %ns1, %ns2 : tensor<32x176xf32>, tensor<1000x64xf32>, tensor<500x32xf32>, tensor<200x16xf32>, tensor<1000xf32>, tensor<500xf32>, tensor<200xf32>
}
