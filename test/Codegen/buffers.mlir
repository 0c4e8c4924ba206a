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
