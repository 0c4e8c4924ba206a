// emb-lower-to-runtime's buffers: a result the function returns is written
// straight into the caller's buffer; every other tensor is a runtime
// allocation, freed before the function returns.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// REQUIRES: emb-compiler

// An intermediate tensor is a runtime allocation of its size in bytes
// (16 * 8 * 2), freed before returning; an elementwise op on it is one call.
// CHECK-LABEL: func.func @intermediate
// CHECK: %[[BYTES:.+]] = arith.constant 256 : i64
// CHECK: %[[TMP:.+]] = call @embrtCompiledAlloc(%{{.*}}, %[[BYTES]])
// CHECK: call @embrtCompiledBroadcast
// CHECK: call @embrtCompiledElementwise
// CHECK: call @embrtCompiledFree(%{{.*}}, %[[TMP]])
// CHECK-NEXT: return
func.func @intermediate(%ro: tensor<4x8xf16>, %idx: tensor<16xi32>) -> tensor<16x8xf16> {
  %0 = "emb.broadcast"(%ro, %idx) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
  %1 = math.tanh %0 : tensor<16x8xf16>
  return %1 : tensor<16x8xf16>
}

// -----

// A result made by reshapes of static shape (the same elements in the same
// order) is written by the op under them straight into the out buffer:
// nothing is allocated or copied.
// CHECK-LABEL: func.func @through_reshapes
// CHECK-NOT: embrtCompiledAlloc
// CHECK: call @embrtCompiledBroadcast
// CHECK-NOT: embrtCompiledCopy
// CHECK: return
func.func @through_reshapes(%ro: tensor<4x8xf16>, %idx: tensor<16xi32>) -> tensor<2x4x16xf16> {
  %0 = "emb.broadcast"(%ro, %idx) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<16x8xf16> into tensor<128xf16>
  %2 = tensor.expand_shape %1 [[0, 1, 2]] output_shape [2, 4, 16] : tensor<128xf16> into tensor<2x4x16xf16>
  return %2 : tensor<2x4x16xf16>
}

// -----

// Returned as it is and through a reshape: the value claims the first out
// buffer, the reshape is copied into the second.
// CHECK-LABEL: func.func @returned_and_reshaped
// CHECK-NOT: embrtCompiledAlloc
// CHECK: call @embrtCompiledBroadcast
// CHECK: call @embrtCompiledCopy
// CHECK-NOT: embrtCompiledCopy
// CHECK: return
func.func @returned_and_reshaped(%ro: tensor<4x8xf16>, %idx: tensor<16xi32>) -> (tensor<16x8xf16>, tensor<128xf16>) {
  %0 = "emb.broadcast"(%ro, %idx) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<16x8xf16> into tensor<128xf16>
  return %0, %1 : tensor<16x8xf16>, tensor<128xf16>
}

// -----

// A value returned twice claims the first out buffer and is copied into the
// second (device to device: kind 2); nothing is allocated.
// CHECK-LABEL: func.func @returned_twice
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, %{{.+}}: memref<4x8xf16>, %{{.+}}: memref<16xi32>, %{{.+}}: memref<16x8xf16>, %{{.+}}: memref<16x8xf16>)
// CHECK-NOT: embrtCompiledAlloc
// CHECK: call @embrtCompiledBroadcast(%[[CTX]],
// CHECK: %[[KIND:.+]] = arith.constant 2 : i64
// CHECK: call @embrtCompiledCopy(%[[CTX]], %[[KIND]],
// CHECK-NOT: embrtCompiledFree
// CHECK: return
func.func @returned_twice(%ro: tensor<4x8xf16>, %idx: tensor<16xi32>) -> (tensor<16x8xf16>, tensor<16x8xf16>) {
  %0 = "emb.broadcast"(%ro, %idx) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
  return %0, %0 : tensor<16x8xf16>, tensor<16x8xf16>
}
