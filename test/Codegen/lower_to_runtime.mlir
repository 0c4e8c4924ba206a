// emb-lower-to-runtime: every function takes a context and memrefs and writes
// its results into trailing memrefs; sizes come from the types or, where
// dynamic, from the memref descriptors. The ops themselves are in
// emb_ops.mlir, tensor_ops.mlir and constants.mlir, buffers in buffers.mlir.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// REQUIRES: emb-compiler

// The signature: context first, inputs, then the result buffer; the op that
// computes the returned value writes straight into it (no alloc, no copy).
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, %[[RO:.+]]: memref<4x8xf16>, %[[IDX:.+]]: memref<16xi32>, %[[OUT:.+]]: memref<16x8xf16>)
// CHECK-SAME: attributes {emb.num_results = 1 : i64, emb.target = "cuda", llvm.emit_c_interface}
// CHECK-NOT: embrtCompiledAlloc
// CHECK: call @embrtCompiledBroadcast(%[[CTX]],
// CHECK-NOT: embrtCompiledCopy
// CHECK: return
func.func @broadcast(%ro: tensor<4x8xf16>, %idx: tensor<16xi32>) -> tensor<16x8xf16> {
  %0 = "emb.broadcast"(%ro, %idx) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
  return %0 : tensor<16x8xf16>
}

// -----

// Dynamic sizes are read from the memref descriptors at run time.
// CHECK-LABEL: func.func @dynamic
// CHECK: memref.dim %{{.*}}, %{{.*}} : memref<?x8xf32>
// CHECK: call @embrtCompiledBroadcast
func.func @dynamic(%ro: tensor<?x8xf32>, %idx: tensor<16xi64>) -> tensor<16x8xf32> {
  %0 = "emb.broadcast"(%ro, %idx) : (tensor<?x8xf32>, tensor<16xi64>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
