// emb-lower-to-runtime on emb.jagged_to_padded: one call of
// embrtCompiledJaggedToPadded with its attrs (dtype, index dtype,
// max_length, the padding value's f64 bits), the four buffers and the dims
// the runtime checks. Numbers: jagged_to_padded_run.test (CPU),
// test/Kernels/jagged.c (GPU against the CPU).
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// REQUIRES: emb-compiler

// attrs: f32 (0), i64 offsets (4), max_length 3, -1.0 as bits
// (0xBFF0000000000000). With a dynamic result the users are the offsets' count
// minus one, and the results are the call's allocations, handed over through
// embrtCompiledResult records (dynamic_results.test runs them).
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, %{{.+}}: memref<?x4xf32>, %[[OFF:.+]]: memref<?xi64>, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr)
// CHECK: %[[N:.+]] = memref.dim %[[OFF]]
// CHECK: %[[NI:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[M1:.+]] = arith.constant -1 : i64
// CHECK: arith.addi %[[NI]], %[[M1]] : i64
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[DT:.+]] = arith.constant 0 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][0]
// CHECK-NEXT: llvm.store %[[DT]]
// CHECK: %[[IDT:.+]] = arith.constant 4 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][1]
// CHECK-NEXT: llvm.store %[[IDT]]
// CHECK: %[[LK:.+]] = arith.constant 3 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][2]
// CHECK-NEXT: llvm.store %[[LK]]
// CHECK: %[[PAD:.+]] = arith.constant -4616189618054758400 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][3]
// CHECK-NEXT: llvm.store %[[PAD]]
// CHECK: call @embrtCompiledJaggedToPadded(%[[CTX]], %[[ATTRS]], %{{.+}}, %{{.+}})
// CHECK-NOT: emb.jagged_to_padded
// CHECK: return
func.func @dynamic(%v: tensor<?x4xf32>, %o: tensor<?xi64>) -> (tensor<?x3x4xf32>, tensor<?xi64>) {
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 3, padding_value = -1.0 : f64} : (tensor<?x4xf32>, tensor<?xi64>) -> (tensor<?x3x4xf32>, tensor<?xi64>)
  return %p, %l : tensor<?x3x4xf32>, tensor<?xi64>
}

// -----

// f16 values, i32 offsets, the default padding (0.0: bits 0). An
// intermediate result is a runtime allocation: 2 * 8 * 16 * 2 bytes for the
// padded rows, 2 * 4 for the lengths.
// CHECK-LABEL: func.func @intermediate
// CHECK-DAG: %[[PB:.+]] = arith.constant 512 : i64
// CHECK-DAG: %[[LB:.+]] = arith.constant 8 : i64
// CHECK-DAG: call @embrtCompiledAlloc(%{{.+}}, %[[PB]])
// CHECK-DAG: call @embrtCompiledAlloc(%{{.+}}, %[[LB]])
// CHECK: call @embrtCompiledJaggedToPadded(
// CHECK: call @embrtCompiledElementwise(
func.func @intermediate(%v: tensor<100x16xf16>, %o: tensor<3xi32>) -> tensor<2x8x16xf16> {
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 8} : (tensor<100x16xf16>, tensor<3xi32>) -> (tensor<2x8x16xf16>, tensor<2xi32>)
  %t = math.tanh %p : tensor<2x8x16xf16>
  return %t : tensor<2x8x16xf16>
}
