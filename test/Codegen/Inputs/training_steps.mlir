// Small training steps whose updates are computed by hand in
// tbe_backward_run.test (each returns its updated tables and states).

// SGD with weight decay, two features sharing table 0 (B = 1).
func.func @sgd_step(%ids: tensor<4xi64>, %offsets: tensor<3xi64>, %t0: tensor<5x2xf32>, %grad: tensor<1x4xf32>, %hyper: tensor<5xf32>) -> tensor<5x2xf32> {
  %h0 = "emb.table"(%t0) : (tensor<5x2xf32>) -> !emb.table_handle
  %new = "emb.tbe_backward"(%ids, %offsets, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xi64>, tensor<3xi64>, !emb.table_handle, tensor<1x4xf32>, tensor<5xf32>) -> !emb.table_handle
  %t = "emb.table_value"(%new) : (!emb.table_handle) -> tensor<5x2xf32>
  return %t : tensor<5x2xf32>
}

// Exact rowwise Adagrad on one embedding bag, mean pooling, padding id 0.
func.func @bag_adagrad_step(%w: tensor<5x2xf32>, %ids: tensor<3xi64>, %offsets: tensor<3xi64>, %grad: tensor<2x2xf32>, %state: tensor<5xf32>, %hyper: tensor<5xf32>) -> (tensor<5x2xf32>, tensor<5xf32>) {
  %new:2 = "emb.embedding_bag_backward"(%w, %ids, %offsets, %grad, %state, %hyper) {optimizer = "rowwise_adagrad", mode = "mean", padding_idx = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<5x2xf32>, tensor<3xi64>, tensor<3xi64>, tensor<2x2xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<5x2xf32>, tensor<5xf32>)
  return %new#0, %new#1 : tensor<5x2xf32>, tensor<5xf32>
}

// Adam, with the step of its bias correction.
func.func @adam_step(%ids: tensor<1xi64>, %offsets: tensor<2xi64>, %t0: tensor<3x2xf32>, %grad: tensor<1x2xf32>, %m: tensor<3x2xf32>, %v: tensor<3x2xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<3x2xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<3x2xf32>) -> !emb.state_handle
  %sv = "emb.state"(%v) : (tensor<3x2xf32>) -> !emb.state_handle
  %new:3 = "emb.tbe_backward"(%ids, %offsets, %h0, %grad, %sm, %sv, %hyper, %step) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1xi64>, tensor<2xi64>, !emb.table_handle, tensor<1x2xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
  %t = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<3x2xf32>
  %nm = "emb.table_value"(%new#1) : (!emb.state_handle) -> tensor<3x2xf32>
  %nv = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<3x2xf32>
  return %t, %nm, %nv : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// Exact rowwise Adagrad as @bag_adagrad_step, its row states in bf16.
func.func @bag_adagrad_bf16_step(%w: tensor<5x2xf32>, %ids: tensor<3xi64>, %offsets: tensor<3xi64>, %grad: tensor<2x2xf32>, %state: tensor<5xbf16>, %hyper: tensor<5xf32>) -> (tensor<5x2xf32>, tensor<5xbf16>) {
  %new:2 = "emb.embedding_bag_backward"(%w, %ids, %offsets, %grad, %state, %hyper) {optimizer = "rowwise_adagrad", mode = "mean", padding_idx = 0 : i64, momentum1_precision = "bf16", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<5x2xf32>, tensor<3xi64>, tensor<3xi64>, tensor<2x2xf32>, tensor<5xbf16>, tensor<5xf32>) -> (tensor<5x2xf32>, tensor<5xbf16>)
  return %new#0, %new#1 : tensor<5x2xf32>, tensor<5xbf16>
}

// Exact rowwise Adagrad over two tables (one feature each, B = 1), row
// states in fp8 e4m3 with one scale per table: the codes, then the scales.
func.func @adagrad_fp8_step(%ids: tensor<2xi64>, %offsets: tensor<3xi64>, %t0: tensor<3x2xf32>, %t1: tensor<3x2xf32>, %grad: tensor<1x4xf32>, %c0: tensor<3xi8>, %c1: tensor<3xi8>, %s0: tensor<1xf32>, %s1: tensor<1xf32>, %hyper: tensor<5xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xi8>, tensor<3xi8>) {
  %h0 = "emb.table"(%t0) : (tensor<3x2xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<3x2xf32>) -> !emb.table_handle
  %q0 = "emb.state"(%c0) : (tensor<3xi8>) -> !emb.state_handle
  %q1 = "emb.state"(%c1) : (tensor<3xi8>) -> !emb.state_handle
  %k0 = "emb.state"(%s0) : (tensor<1xf32>) -> !emb.state_handle
  %k1 = "emb.state"(%s1) : (tensor<1xf32>) -> !emb.state_handle
  %new:6 = "emb.tbe_backward"(%ids, %offsets, %h0, %h1, %grad, %q0, %q1, %k0, %k1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, momentum1_precision = "fp8_e4m3", operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 4, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 4, 0>} : (tensor<2xi64>, tensor<3xi64>, !emb.table_handle, !emb.table_handle, tensor<1x4xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<3x2xf32>
  %n1 = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<3x2xf32>
  %n2 = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<3xi8>
  %n3 = "emb.table_value"(%new#3) : (!emb.state_handle) -> tensor<3xi8>
  return %n0, %n1, %n2, %n3 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3xi8>, tensor<3xi8>
}

// Adam with m in fp8 e4m3 and v in fp8 e5m2, each with one scale per row.
func.func @adam_fp8_step(%ids: tensor<1xi64>, %offsets: tensor<2xi64>, %t0: tensor<3x2xf32>, %grad: tensor<1x2xf32>, %m: tensor<3x2xi8>, %ms: tensor<3xf32>, %v: tensor<3x2xi8>, %vs: tensor<3xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) -> (tensor<3x2xf32>, tensor<3x2xi8>, tensor<3xf32>, tensor<3x2xi8>, tensor<3xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<3x2xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<3x2xi8>) -> !emb.state_handle
  %sms = "emb.state"(%ms) : (tensor<3xf32>) -> !emb.state_handle
  %sv = "emb.state"(%v) : (tensor<3x2xi8>) -> !emb.state_handle
  %svs = "emb.state"(%vs) : (tensor<3xf32>) -> !emb.state_handle
  %new:5 = "emb.tbe_backward"(%ids, %offsets, %h0, %grad, %sm, %sms, %sv, %svs, %hyper, %step) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "fp8_e4m3", momentum2_precision = "fp8_e5m2", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 2, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 2>} : (tensor<1xi64>, tensor<2xi64>, !emb.table_handle, tensor<1x2xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<3x2xf32>
  %n1 = "emb.table_value"(%new#1) : (!emb.state_handle) -> tensor<3x2xi8>
  %n2 = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<3xf32>
  %n3 = "emb.table_value"(%new#3) : (!emb.state_handle) -> tensor<3x2xi8>
  %n4 = "emb.table_value"(%new#4) : (!emb.state_handle) -> tensor<3xf32>
  return %n0, %n1, %n2, %n3, %n4 : tensor<3x2xf32>, tensor<3x2xi8>, tensor<3xf32>, tensor<3x2xi8>, tensor<3xf32>
}

// Rowwise Adagrad with an fp8 state whose table scale has a dynamic extent:
// the runtime checks it is one.
func.func @adagrad_fp8_dynamic_scale(%ids: tensor<2xi64>, %offsets: tensor<3xi64>, %t0: tensor<3x2xf32>, %grad: tensor<1x4xf32>, %c0: tensor<3xi8>, %s0: tensor<?xf32>, %hyper: tensor<5xf32>) -> tensor<3x2xf32> {
  %h0 = "emb.table"(%t0) : (tensor<3x2xf32>) -> !emb.table_handle
  %q0 = "emb.state"(%c0) : (tensor<3xi8>) -> !emb.state_handle
  %k0 = "emb.state"(%s0) : (tensor<?xf32>) -> !emb.state_handle
  %new:3 = "emb.tbe_backward"(%ids, %offsets, %h0, %grad, %q0, %k0, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 0>, momentum1_precision = "fp8_e4m3", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 2, 0>} : (tensor<2xi64>, tensor<3xi64>, !emb.table_handle, tensor<1x4xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<3x2xf32>
  return %n0 : tensor<3x2xf32>
}
