// emb-lower-to-runtime refuses a backward op whose updates it cannot make
// in place.
// RUN: not emb-opt --split-input-file --emb-lower-to-runtime=target=cpu %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// A dense constant is read where the module holds it and never written, so
// it cannot be a table the backward updates (a splat can: it is a buffer of
// its own, see tbe_backward.mlir), even through a reshape.
func.func @f(%idx: tensor<4xi64>, %off: tensor<3xi64>, %grad: tensor<2x2xf32>, %hyper: tensor<5xf32>) -> tensor<3x2xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %t0 = tensor.expand_shape %c [[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
  %h0 = "emb.table"(%t0) : (tensor<3x2xf32>) -> !emb.table_handle
  // CHECK: tbe_backward_invalid.mlir:[[@LINE+1]]:10: error: 'emb.tbe_backward' op cannot be lowered to the emb runtime (target cpu): weights_0 is a dense constant, which compiled code reads in place and never writes; pass it as an argument
  %new = "emb.tbe_backward"(%idx, %off, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xi64>, tensor<3xi64>, !emb.table_handle, tensor<2x2xf32>, tensor<5xf32>) -> !emb.table_handle
  %t = "emb.table_value"(%new) : (!emb.table_handle) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
