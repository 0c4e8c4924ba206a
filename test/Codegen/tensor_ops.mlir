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

// A cast that claims a static size of a dynamic one is checked when the
// function runs (embrtCompiledCheckExtent, with a message naming the op, the
// function, the location and the dim); a failed check leaves the result no
// elements: its first dim times the check's outcome. A cast between static
// sizes is not checked.
// CHECK-LABEL: llvm.mlir.global private constant @__emb_extent_0("tensor.cast in @cast_to_static ({{.*}}tensor_ops.mlir:{{[0-9]+}}:8): dim 0 of the operand\00")
// CHECK-LABEL: func.func @cast_to_static
// CHECK: %[[OK:.+]] = call @embrtCompiledCheckExtent(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64
// CHECK: arith.muli %{{.+}}, %[[OK]] : i64
// CHECK-NOT: embrtCompiledCheckExtent
// CHECK: return
func.func @cast_to_static(%x: tensor<?x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.cast %x : tensor<?x8xf32> to tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @cast_static
// CHECK-NOT: embrtCompiledCheckExtent
// CHECK: return
func.func @cast_static(%x: tensor<4x8xf32>) -> tensor<?x8xf32> {
  %0 = tensor.cast %x : tensor<4x8xf32> to tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
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
