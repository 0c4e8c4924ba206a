// --allow-unregistered-dialect, as mlir-opt's: an op of a dialect emb does not
// load (torch-mlir's tm_tensor) parses in generic form with it and is refused
// without it.
// RUN: emb-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: not emb-opt %s 2>&1 | FileCheck %s --check-prefix=REFUSED
// REQUIRES: emb-compiler

// CHECK-LABEL: func.func @tm_tensor
// CHECK: "tm_tensor.attention"(%{{.+}}) <{operandSegmentSizes = array<i32: 3, 1>}> : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
func.func @tm_tensor(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>) -> tensor<2x4x8xf32> {
  %out = tensor.empty() : tensor<2x4x8xf32>
  // REFUSED: unregistered.mlir:[[@LINE+1]]:29: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
  %0 = "tm_tensor.attention"(%q, %k, %v, %out) <{operandSegmentSizes = array<i32: 3, 1>}> : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
