// emb-lower-to-runtime on tensor ops: reshapes alias their operand, concat
// and extract_slice are runtime calls.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// REQUIRES: emb-compiler

// Reshapes alias their operand's buffer: no call; a returned alias of an
// input is copied into the result buffer (device to device: kind 2).
// CHECK-LABEL: func.func @reshape
// CHECK-NOT: embrtCompiledAlloc
// CHECK: %[[KIND:.+]] = arith.constant 2 : i64
// CHECK: call @embrtCompiledCopy(%{{.*}}, %[[KIND]],
func.func @reshape(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = tensor.collapse_shape %x [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// Concat, slices and splat constants are runtime calls too.
// CHECK-LABEL: func.func @data
// CHECK: call @embrtCompiledFill
// CHECK: call @embrtCompiledConcat
// CHECK: call @embrtCompiledStridedCopy
func.func @data(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %z = arith.constant dense<0.0> : tensor<4x8xf32>
  %c = tensor.concat dim(1) %x, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %s = tensor.extract_slice %c[0, 6] [4, 4] [1, 1] : tensor<4x16xf32> to tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
