// emb-lower-to-runtime: every op becomes a runtime call on buffers; the
// function takes a context and memrefs and writes its results into trailing
// memrefs.
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

// A table-batched lookup asks the runtime for its workspace, allocates it
// and passes it in; the tables are read through their handles.
// CHECK-LABEL: func.func @tbe
// CHECK: %[[WS:.+]] = call @embrtCompiledTbeWorkspace(
// CHECK: call @embrtCompiledAlloc(%{{.*}}, %[[WS]])
// CHECK: call @embrtCompiledTbe(
// CHECK-NOT: emb.tbe
// CHECK-NOT: emb.table
func.func @tbe(%idx: tensor<40xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>) -> tensor<4x24xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<40xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x24xf32>
  return %0 : tensor<4x24xf32>
}

// -----

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

// Dynamic sizes are read from the memref descriptors at run time.
// CHECK-LABEL: func.func @dynamic
// CHECK: memref.dim %{{.*}}, %{{.*}} : memref<?x8xf32>
// CHECK: call @embrtCompiledBroadcast
func.func @dynamic(%ro: tensor<?x8xf32>, %idx: tensor<16xi64>) -> tensor<16x8xf32> {
  %0 = "emb.broadcast"(%ro, %idx) : (tensor<?x8xf32>, tensor<16xi64>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
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
