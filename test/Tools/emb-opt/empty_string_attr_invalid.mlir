// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler
//
// An empty string attribute has no characters and a NULL data pointer in
// MLIR's C API: every place that copies or compares one must not hand that
// pointer to memcpy or memcmp (undefined behaviour that UBSan reports; the
// sanitizer build runs this file). Each case gets its verifier's error,
// naming the op and the attribute, and nothing else.

// CHECK-NOT: runtime error

// The pooling mode of an embedding bag.
// CHECK: empty_string_attr_invalid.mlir:[[# @LINE + 2]]:8: error: 'emb.embedding_bag' op attribute 'mode' must be one of sum, mean, none, got ""
func.func @bag_mode(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = ""} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// The bounds check of an embedding bag.
// CHECK: empty_string_attr_invalid.mlir:[[# @LINE + 2]]:8: error: 'emb.embedding_bag' op attribute 'bounds_check' must be one of fatal, warning, ignore, none, got ""
func.func @bag_bounds(%w: tensor<1000x64xf16>, %i: tensor<8xi64>, %o: tensor<3xi64>) -> tensor<2x64xf16> {
  %0 = "emb.embedding_bag"(%w, %i, %o) {mode = "sum", bounds_check = ""} : (tensor<1000x64xf16>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x64xf16>
  return %0 : tensor<2x64xf16>
}

// -----

// The pooling of a TBE.
// CHECK: empty_string_attr_invalid.mlir:[[# @LINE + 4]]:8: error: 'emb.tbe' op attribute 'pooling' must be one of sum, mean, none, got ""
func.func @tbe_pooling(%idx: tensor<?xi32>, %off: tensor<25xi32>, %t0: tensor<100x64xf16>, %t1: tensor<50x32xf16>) -> tensor<8x160xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "", feature_tables = array<i64: 0, 1, 0>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi32>, tensor<25xi32>, !emb.table_handle, !emb.table_handle) -> tensor<8x160xf32>
  return %0 : tensor<8x160xf32>
}

// -----

// The optimizer of a training step.
// CHECK: empty_string_attr_invalid.mlir:[[# @LINE + 4]]:12: error: 'emb.tbe_backward' op attribute 'optimizer' must be one of sgd, rowwise_adagrad, adam, got ""
func.func @tbe_backward_optimizer(%idx: tensor<?xi32>, %off: tensor<25xi32>, %t0: tensor<100x64xf16>, %t1: tensor<50x32xf16>, %grad: tensor<8x160xf32>, %hyper: tensor<5xf32>) -> (tensor<100x64xf16>, tensor<50x32xf16>) {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf16>) -> !emb.table_handle
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "", pooling = "sum", feature_tables = array<i64: 0, 1, 0>, seed = 7 : i64, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<?xi32>, tensor<25xi32>, !emb.table_handle, !emb.table_handle, tensor<8x160xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<100x64xf16>
  %n1 = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<50x32xf16>
  return %n0, %n1 : tensor<100x64xf16>, tensor<50x32xf16>
}

// CHECK-NOT: runtime error
