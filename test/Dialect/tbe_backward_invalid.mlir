// Every verifier rule of emb.tbe_backward, emb.embedding_bag_backward,
// emb.state and emb.table_value, one per block. The lookup rules the backward
// ops share with emb.tbe and emb.embedding_bag (tbe_invalid.mlir,
// embedding_bag_invalid.mlir) are run by the same functions; a few cases
// here show that they apply.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// emb.state names a state of rank 1 or 2.
func.func @f(%m: tensor<4x100x16xf32>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.state' op state must have rank 1 (one value a row, or an fp8 state's scales) or 2 (one value an element), got rank 3
  %s = "emb.state"(%m) : (tensor<4x100x16xf32>) -> !emb.state_handle
  return
}

// -----

// States are f32, bf16 or fp8 codes (as the backward's momentum1_precision
// and momentum2_precision say), whatever the table holds.
func.func @f(%m: tensor<100xf16>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.state' op state must hold f32, bf16 or i8 (fp8 codes), got f16
  %s = "emb.state"(%m) : (tensor<100xf16>) -> !emb.state_handle
  return
}

// -----

// emb.state makes a state handle.
func.func @f(%m: tensor<100xf32>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.state' op the result must be !emb.state_handle, got !emb.table_handle
  %s = "emb.state"(%m) : (tensor<100xf32>) -> !emb.table_handle
  return
}

// -----

// emb.table_value takes a handle.
func.func @f(%t0: tensor<100x16xf32>) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table_value' op handle must be an !emb.table_handle or !emb.state_handle, got tensor<100x16xf32>
  %v = "emb.table_value"(%t0) : (tensor<100x16xf32>) -> tensor<100x16xf32>
  return
}

// -----

// A handle passed in has no tensor type to give.
func.func @f(%h: !emb.table_handle) {
  // CHECK: [[@LINE+1]]:8: error: 'emb.table_value' op handle must be made by 'emb.tbe_backward', 'emb.table' or 'emb.state' (its tensor type is read from there), not passed in
  %v = "emb.table_value"(%h) : (!emb.table_handle) -> tensor<100x16xf32>
  return
}

// -----

// The result is the tensor type of the table the handle names.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+4]]:8: error: 'emb.table_value' op the result type tensor<100x16xf32> must be the handle's tensor type tensor<50x8xf32>
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  %v = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<100x16xf32>
  return
}

// -----

// At least one table.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+1]]:10: error: 'emb.tbe_backward' op needs at least one table (operandSegmentSizes[2] is 0)
  %new = "emb.tbe_backward"(%idx, %off, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle)
  return
}

// -----

// The optimizer is required (IRDL says so).
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op attribute "optimizer" is expected but not provided
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// The optimizer is sgd, rowwise_adagrad or adam.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op attribute 'optimizer' must be one of sgd, rowwise_adagrad, adam, got "adagrad"
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// The lookup's rules are emb.tbe's: offsets are F*B+1.
func.func @f(%idx: tensor<8xi64>, %off: tensor<8xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op offsets has 8 elements, which is not F*B+1 for F = 2 features
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<8xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// The lookup's rules are emb.tbe's: per-sample weights only with sum pooling.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>, %psw: tensor<8xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op per_sample_weights are only allowed with pooling sum, got pooling mean
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %psw, %grad, %hyper) {optimizer = "sgd", pooling = "mean", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<8xf32>, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// The lookup's rules are emb.tbe's: each feature names a table.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op feature_tables[1] is 2 but there are 2 tables
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 2>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// The lookup's rules are emb.tbe's: tables are handles made by emb.table.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %h1: !emb.table_handle, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+2]]:12: error: 'emb.tbe_backward' op weights_1 must be made by 'emb.table' (the table's shape is read from it), not passed in
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// grad_output is the forward's output: [B, sum of D over features].
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x16xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op grad_output has 16 columns but the features' tables sum to 24 (sum of D over features)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x16xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// grad_output has B rows, offsets F*B+1 entries.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<3x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op offsets has 9 elements but grad_output has 3 rows (offsets must have F*B+1 = 7)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<3x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// Pooling none: one gradient row per id.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x16xf32>, %grad: tensor<7x16xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op grad_output has 7 rows but indices has 8 (pooling none gives one row per index)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x16xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "none", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<7x16xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// grad_output holds f32 or the tables' type.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf16>, %t1: tensor<50x8xf16>, %grad: tensor<4x24xbf16>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op grad_output must hold f32 or weights_0's type f16, got bf16
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf16>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xbf16>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// grad_output is 2-D.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<96xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op grad_output must have rank 2, got rank 1
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<96xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// SGD keeps no state.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf32>, %m1: tensor<50xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+5]]:12: error: 'emb.tbe_backward' op optimizer sgd takes 0 momentum1 and 0 momentum2 operands (it keeps no state), got 2 and 0
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<50xf32>) -> !emb.state_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// Rowwise Adagrad keeps one state per table.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op optimizer rowwise_adagrad takes 2 momentum1 and 0 momentum2 operands (one f32 per table row, per table), got 0 and 0
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// Adam keeps two states per table.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf32>, %m1: tensor<50xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) {
  // CHECK: [[@LINE+5]]:12: error: 'emb.tbe_backward' op optimizer adam takes 2 momentum1 and 2 momentum2 operands (m and v, one f32 per table element, per table), got 2 and 0
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<50xf32>) -> !emb.state_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper, %step) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 1>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// States are handles made by emb.state.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op momentum1 #0 must be an !emb.state_handle made by 'emb.state', got !emb.table_handle
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %h0, %h1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.table_handle, !emb.table_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// A state handle passed in has no shape to check.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf32>, %s1: !emb.state_handle, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+4]]:12: error: 'emb.tbe_backward' op momentum1 #1 must be made by 'emb.state' (the state's shape is read from it), not passed in
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf32>) -> !emb.state_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// Rowwise Adagrad: one f32 per row of its table.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100x16xf32>, %m1: tensor<50xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+5]]:12: error: 'emb.tbe_backward' op momentum1 #0 has shape 100x16 but rowwise_adagrad needs 100 (one f32 per row of table 0)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100x16xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<50xf32>) -> !emb.state_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// Adam: one f32 per element of its table, in m and in v.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100x16xf32>, %m1: tensor<50x8xf32>, %w0: tensor<100x16xf32>, %w1: tensor<50xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) {
  // CHECK: [[@LINE+7]]:12: error: 'emb.tbe_backward' op momentum2 #1 has shape 50 but adam needs 50x8 (one f32 per element of table 1)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %a0 = "emb.state"(%m0) : (tensor<100x16xf32>) -> !emb.state_handle
  %a1 = "emb.state"(%m1) : (tensor<50x8xf32>) -> !emb.state_handle
  %v0 = "emb.state"(%w0) : (tensor<100x16xf32>) -> !emb.state_handle
  %v1 = "emb.state"(%w1) : (tensor<50xf32>) -> !emb.state_handle
  %new:6 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %a0, %a1, %v0, %v1, %hyper, %step) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 2, 1, 1>, resultSegmentSizes = array<i32: 2, 2, 2>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// A state of dynamic rows matches any table; a wrong width does not.
func.func @f(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<?x16xf32>, %m0: tensor<?x8xf32>, %w0: tensor<?x16xf32>, %grad: tensor<4x16xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) {
  // CHECK: [[@LINE+4]]:12: error: 'emb.tbe_backward' op momentum1 #0 has shape ?x8 but adam needs ?x16 (one f32 per element of table 0)
  %h0 = "emb.table"(%t0) : (tensor<?x16xf32>) -> !emb.table_handle
  %a0 = "emb.state"(%m0) : (tensor<?x8xf32>) -> !emb.state_handle
  %v0 = "emb.state"(%w0) : (tensor<?x16xf32>) -> !emb.state_handle
  %new:3 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %a0, %v0, %hyper, %step) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// A state of another float type: emb.state and the backward both say so.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf16>, %m1: tensor<50xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+4]]:9: error: 'emb.state' op state must hold f32, bf16 or i8 (fp8 codes), got f16
  // CHECK: [[@LINE+5]]:12: error: 'emb.tbe_backward' op momentum1 #0 must hold f32, got f16
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf16>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<50xf32>) -> !emb.state_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// Hyper-parameters: five f32 in EMBRT_HYPER_* order.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<4xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op hyper_params must be tensor<5xf32> (learning rate, eps, beta1, beta2, weight decay), got tensor<4xf32>
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<4xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// The step is a 0-d i64 tensor.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>, %step: tensor<1xi64>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op step must be tensor<i64>, got tensor<1xi64>
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper, %step) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 1>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>, tensor<1xi64>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// Adam needs the step for its bias correction.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100x16xf32>, %m1: tensor<50x8xf32>, %w0: tensor<100x16xf32>, %w1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+7]]:12: error: 'emb.tbe_backward' op optimizer adam needs a step operand (tensor<i64>: t >= 1 of the bias correction)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %a0 = "emb.state"(%m0) : (tensor<100x16xf32>) -> !emb.state_handle
  %a1 = "emb.state"(%m1) : (tensor<50x8xf32>) -> !emb.state_handle
  %v0 = "emb.state"(%w0) : (tensor<100x16xf32>) -> !emb.state_handle
  %v1 = "emb.state"(%w1) : (tensor<50x8xf32>) -> !emb.state_handle
  %new:6 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %a0, %a1, %v0, %v1, %hyper) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 2, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 2>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// The seed of the stochastic rounding is an integer.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op attribute 'seed' must be an integer, got "42"
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, seed = "42", operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// Results: the updated tables, then momentum1, then momentum2.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf32>, %m1: tensor<50xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+5]]:12: error: 'emb.tbe_backward' op resultSegmentSizes must be array<i32: 2, 2, 0> (the updated tables, momentum1 and momentum2), got array<i32: 2, 0, 2>
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<50xf32>) -> !emb.state_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 2>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// An updated table is a table handle.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op the result for weights_0 must be !emb.table_handle, got !emb.state_handle
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.state_handle, !emb.state_handle)
  return
}

// -----

// The forward after the backward would read the updated table.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+4]]:12: error: 'emb.tbe_backward' op weights_0 is updated in place, but 'emb.tbe' at {{.*}}tbe_backward_invalid.mlir:[[@LINE+5]]:8 reads it after this op (it or a value sharing its buffer); use this op's result
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op weights_1 is updated in place, but 'emb.tbe' at {{.*}}tbe_backward_invalid.mlir:[[@LINE+4]]:8 reads it after this op (it or a value sharing its buffer); use this op's result
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x24xf32>
  return
}

// -----

// Returning the operand tensor returns the updated buffer.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) -> tensor<50x8xf32> {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op weights_1 is updated in place, but 'func.return' at {{.*}}tbe_backward_invalid.mlir:[[@LINE+4]]:3 reads it after this op (it or a value sharing its buffer); use this op's result
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return %t1 : tensor<50x8xf32>
}

// -----

// A reshape made before the backward shares the buffer it updates.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) -> tensor<1600xf32> {
  // CHECK: [[@LINE+4]]:12: error: 'emb.tbe_backward' op weights_0 is updated in place, but 'func.return' at {{.*}}tbe_backward_invalid.mlir:[[@LINE+5]]:3 reads it after this op (it or a value sharing its buffer); use this op's result
  %c = tensor.collapse_shape %t0 [[0, 1]] : tensor<100x16xf32> into tensor<1600xf32>
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return %c : tensor<1600xf32>
}

// -----

// Two steps: the first step's result is the second one's operand.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+8]]:10: error: 'emb.tbe_backward' op weights_0 is updated in place, but 'emb.table_value' at {{.*}}tbe_backward_invalid.mlir:[[@LINE+9]]:11 reads it after this op (it or a value sharing its buffer); use this op's result
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %a:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  %a0 = "emb.table_value"(%a#0) : (!emb.table_handle) -> tensor<100x16xf32>
  %g0 = "emb.table"(%a0) : (tensor<100x16xf32>) -> !emb.table_handle
  %a1 = "emb.table_value"(%a#1) : (!emb.table_handle) -> tensor<50x8xf32>
  %g1 = "emb.table"(%a1) : (tensor<50x8xf32>) -> !emb.table_handle
  %b:2 = "emb.tbe_backward"(%idx, %off, %g0, %g1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  %late = "emb.table_value"(%a#0) : (!emb.table_handle) -> tensor<100x16xf32>
  return
}

// -----

// One buffer is updated once per op: features share a table through feature_tables.
func.func @f(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x32xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op weights_1 and weights_0 are one buffer: an op updates each table and state once (features share a table through feature_tables)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x32xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return
}

// -----

// emb.embedding_bag_backward: grad_output is [B, D].
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x8xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+1]]:10: error: 'emb.embedding_bag_backward' op grad_output has 8 columns but weight has 16 (D)
  %new = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %hyper) {optimizer = "sgd", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x8xf32>, tensor<5xf32>) -> (tensor<1000x16xf32>)
  return
}

// -----

// emb.embedding_bag_backward: offsets are B+1.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<16x16xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+1]]:10: error: 'emb.embedding_bag_backward' op offsets has 33 elements but grad_output has 16 rows (offsets must have B+1)
  %new = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %hyper) {optimizer = "sgd", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<16x16xf32>, tensor<5xf32>) -> (tensor<1000x16xf32>)
  return
}

// -----

// emb.embedding_bag_backward: the lookup's rules are emb.embedding_bag's.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>, %psw: tensor<96xf32>) {
  // CHECK: [[@LINE+1]]:10: error: 'emb.embedding_bag_backward' op per_sample_weights are only allowed with mode sum, got mode mean
  %new = "emb.embedding_bag_backward"(%w, %idx, %off, %psw, %grad, %hyper) {optimizer = "sgd", mode = "mean", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<96xf32>, tensor<32x16xf32>, tensor<5xf32>) -> (tensor<1000x16xf32>)
  return
}

// -----

// emb.embedding_bag_backward: states are tensors, one f32 per row for rowwise Adagrad.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>, %m: tensor<1000x16xf32>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.embedding_bag_backward' op momentum1 has shape 1000x16 but rowwise_adagrad needs 1000 (one f32 per row of weight)
  %new:2 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %hyper) {optimizer = "rowwise_adagrad", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<1000x16xf32>, tensor<5xf32>) -> (tensor<1000x16xf32>, tensor<1000x16xf32>)
  return
}

// -----

// emb.embedding_bag_backward: states hold f32 unless momentum1_precision
// says otherwise.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>, %m: tensor<1000xbf16>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.embedding_bag_backward' op momentum1 must hold f32, got bf16
  %new:2 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %hyper) {optimizer = "rowwise_adagrad", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<1000xbf16>, tensor<5xf32>) -> (tensor<1000x16xf32>, tensor<1000xbf16>)
  return
}

// -----

// emb.embedding_bag_backward: Adam keeps m and v.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>, %m: tensor<1000x16xf32>, %step: tensor<i64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.embedding_bag_backward' op optimizer adam takes 1 momentum1 and 1 momentum2 operands (m and v, one f32 per table element, per table), got 1 and 0
  %new:2 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %hyper, %step) {optimizer = "adam", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<1000x16xf32>, tensor<5xf32>, tensor<i64>) -> (tensor<1000x16xf32>, tensor<1000x16xf32>)
  return
}

// -----

// emb.embedding_bag_backward: each result has its operand's type.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+1]]:10: error: 'emb.embedding_bag_backward' op the result for weight must have its type tensor<1000x16xf32>, got tensor<1000x16xf16>
  %new = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %hyper) {optimizer = "sgd", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<5xf32>) -> (tensor<1000x16xf16>)
  return
}

// -----

// emb.embedding_bag_backward: m and v are two buffers.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>, %m: tensor<1000x16xf32>, %step: tensor<i64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.embedding_bag_backward' op momentum2 and momentum1 are one buffer: an op updates each table and state once (features share a table through feature_tables)
  %new:3 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %m, %hyper, %step) {optimizer = "adam", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<5xf32>, tensor<i64>) -> (tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<1000x16xf32>)
  return
}

// -----

// emb.embedding_bag_backward: the weight is not read after it.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+1]]:10: error: 'emb.embedding_bag_backward' op weight is updated in place, but 'emb.embedding_bag' at {{.*}}tbe_backward_invalid.mlir:[[@LINE+2]]:8 reads it after this op (it or a value sharing its buffer); use this op's result
  %new = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %hyper) {optimizer = "sgd", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<5xf32>) -> (tensor<1000x16xf32>)
  %0 = "emb.embedding_bag"(%w, %idx, %off) {mode = "sum"} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>) -> tensor<32x16xf32>
  return
}

// -----

// feature_ends is the forward's: the backward does not read feature ends.
func.func @f(%ids: tensor<4xi64>, %offsets: tensor<3xi64>, %t0: tensor<5x2xf32>, %grad: tensor<1x4xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+2]]:10: error: 'emb.tbe_backward' op feature_ends is an attribute of 'emb.tbe' only
  %h0 = "emb.table"(%t0) : (tensor<5x2xf32>) -> !emb.table_handle
  %new = "emb.tbe_backward"(%ids, %offsets, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 0>, feature_ends, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xi64>, tensor<3xi64>, !emb.table_handle, tensor<1x4xf32>, tensor<5xf32>) -> !emb.table_handle
  return
}

// -----

// Optimizer states' precisions: embrtStatePrecision's names.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>, %m: tensor<1000xf16>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.embedding_bag_backward' op attribute 'momentum1_precision' must be one of f32, bf16, fp8_e4m3, fp8_e5m2, got "f16"
  %new:2 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %hyper) {optimizer = "rowwise_adagrad", mode = "sum", momentum1_precision = "f16", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<1000xf16>, tensor<5xf32>) -> (tensor<1000x16xf32>, tensor<1000xf16>)
  return
}

// -----

// A precision for a state the optimizer does not keep.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+1]]:10: error: 'emb.embedding_bag_backward' op attribute 'momentum1_precision' is "bf16", but optimizer sgd keeps no momentum1 (it keeps no state)
  %new = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %hyper) {optimizer = "sgd", mode = "sum", momentum1_precision = "bf16", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<5xf32>) -> tensor<1000x16xf32>
  return
}

// -----

func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>, %m: tensor<1000xf32>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.embedding_bag_backward' op attribute 'momentum2_precision' is "fp8_e5m2", but optimizer rowwise_adagrad keeps no momentum2 (only momentum1)
  %new:2 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %hyper) {optimizer = "rowwise_adagrad", mode = "sum", momentum2_precision = "fp8_e5m2", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<1000xf32>, tensor<5xf32>) -> (tensor<1000x16xf32>, tensor<1000xf32>)
  return
}

// -----

// A bf16 state holds bf16.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>, %m: tensor<1000xf32>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.embedding_bag_backward' op momentum1 must hold bf16 (momentum1_precision = "bf16"), got f32
  %new:2 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %hyper) {optimizer = "rowwise_adagrad", mode = "sum", momentum1_precision = "bf16", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<1000xf32>, tensor<5xf32>) -> (tensor<1000x16xf32>, tensor<1000xf32>)
  return
}

// -----

// The bag's states are single tensors: no place for an fp8 state's scales.
func.func @f(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %grad: tensor<32x16xf32>, %hyper: tensor<5xf32>, %m: tensor<1000xi8>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.embedding_bag_backward' op attribute 'momentum1_precision' is "fp8_e4m3", but emb.embedding_bag_backward keeps f32 or bf16 states: an fp8 state and its scales need emb.tbe_backward (one table, one feature)
  %new:2 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %hyper) {optimizer = "rowwise_adagrad", mode = "sum", momentum1_precision = "fp8_e4m3", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<32x16xf32>, tensor<1000xi8>, tensor<5xf32>) -> (tensor<1000x16xf32>, tensor<1000xi8>)
  return
}

// -----

// An fp8 state holds i8 codes.
func.func @f(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x16xf32>, %m: tensor<100xf32>, %ms: tensor<1xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+4]]:12: error: 'emb.tbe_backward' op momentum1 #0 must hold i8 (the fp8 codes) (momentum1_precision = "fp8_e4m3"), got f32
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100xf32>) -> !emb.state_handle
  %ss = "emb.state"(%ms) : (tensor<1xf32>) -> !emb.state_handle
  %new:3 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %ss, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "fp8_e4m3", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 2, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// An fp8 state's codes are followed by its scales, one per table.
func.func @f(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x16xf32>, %m: tensor<100xi8>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+3]]:12: error: 'emb.tbe_backward' op optimizer rowwise_adagrad takes 2 momentum1 and 0 momentum2 operands (one fp8 code per table row, per table; an fp8 state's codes are followed by its f32 scales), got 1 and 0
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100xi8>) -> !emb.state_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "fp8_e4m3", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.state_handle)
  return
}

// -----

// Rowwise Adagrad's fp8 state has one scale per table.
func.func @f(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x16xf32>, %m: tensor<100xi8>, %ms: tensor<100xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+4]]:12: error: 'emb.tbe_backward' op momentum1_scales #0 has shape 100 but rowwise_adagrad's fp8 state takes one f32 scale per table (shape 1)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100xi8>) -> !emb.state_handle
  %ss = "emb.state"(%ms) : (tensor<100xf32>) -> !emb.state_handle
  %new:3 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %ss, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "fp8_e4m3", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 2, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// Scales are f32.
func.func @f(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x16xf32>, %m: tensor<100xi8>, %ms: tensor<1xbf16>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+4]]:12: error: 'emb.tbe_backward' op momentum1_scales #0 must hold f32, got bf16
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100xi8>) -> !emb.state_handle
  %ss = "emb.state"(%ms) : (tensor<1xbf16>) -> !emb.state_handle
  %new:3 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %ss, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "fp8_e4m3", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 2, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// Adam's fp8 states have one scale per row of their table; m and v may
// differ in precision.
func.func @f(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x16xf32>, %m: tensor<100x16xbf16>, %v: tensor<100x16xi8>, %vs: tensor<99xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) {
  // CHECK: [[@LINE+5]]:12: error: 'emb.tbe_backward' op momentum2_scales #0 has shape 99 but adam's fp8 states take one f32 scale per row of table 0 (100)
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100x16xbf16>) -> !emb.state_handle
  %sv = "emb.state"(%v) : (tensor<100x16xi8>) -> !emb.state_handle
  %ss = "emb.state"(%vs) : (tensor<99xf32>) -> !emb.state_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %sv, %ss, %hyper, %step) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "bf16", momentum2_precision = "fp8_e5m2", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 2>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

func.func @f(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x16xf32>, %m: tensor<100x16xbf16>, %v: tensor<100x16xi8>, %hyper: tensor<5xf32>, %step: tensor<i64>) {
  // CHECK: [[@LINE+4]]:12: error: 'emb.tbe_backward' op optimizer adam takes 1 momentum1 and 2 momentum2 operands (m and v, one bf16 and one fp8 code per table element, per table; an fp8 state's codes are followed by its f32 scales), got 1 and 1
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100x16xbf16>) -> !emb.state_handle
  %sv = "emb.state"(%v) : (tensor<100x16xi8>) -> !emb.state_handle
  %new:3 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %sv, %hyper, %step) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "bf16", momentum2_precision = "fp8_e5m2", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
  return
}

// -----

// An fp8 state's scales are updated with its codes (Adam writes a new
// scale per row; rowwise Adagrad's is returned as it came): reading them
// after the op is refused as for the states.
func.func @f(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x16xf32>, %m: tensor<100xi8>, %ms: tensor<1xf32>, %hyper: tensor<5xf32>) -> tensor<1xf32> {
  // CHECK: [[@LINE+4]]:12: error: 'emb.tbe_backward' op momentum1_scales #0 is updated in place, but 'func.return' at {{.*}}:[[@LINE+5]]:3 reads it after this op (it or a value sharing its buffer); use this op's result
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100xi8>) -> !emb.state_handle
  %ss = "emb.state"(%ms) : (tensor<1xf32>) -> !emb.state_handle
  %new:3 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %ss, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "fp8_e4m3", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 2, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
  return %ms : tensor<1xf32>
}

// -----

// masked_offsets is the forward's: a backward's offsets are valid ones.
func.func @f(%ids: tensor<4xi64>, %offsets: tensor<3xi64>, %t0: tensor<5x2xf32>, %grad: tensor<2x2xf32>, %hyper: tensor<5xf32>) {
  // CHECK: [[@LINE+2]]:10: error: 'emb.tbe_backward' op masked_offsets is an attribute of 'emb.embedding_bag' and 'emb.tbe' only
  %h0 = "emb.table"(%t0) : (tensor<5x2xf32>) -> !emb.table_handle
  %new = "emb.tbe_backward"(%ids, %offsets, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, masked_offsets, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xi64>, tensor<3xi64>, !emb.table_handle, tensor<2x2xf32>, tensor<5xf32>) -> !emb.table_handle
  return
}
