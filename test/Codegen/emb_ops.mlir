// emb-lower-to-runtime on emb ops: each becomes one runtime call (emb.table
// is its operand's buffer). What emb.ikbo_lce reads through is in
// ikbo_read_through.mlir.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// REQUIRES: emb-compiler

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

// emb.attention with key lengths (what emb-raise-attention makes of SDPA's
// key mask): attrs [1] the lengths' dtype (i64, 4), [2] no cand_to_user,
// [3] has lengths; buffers [3] null, [4] the lengths; dims [14] their count
// (B = 8, checked by the runtime against q's).
// CHECK-LABEL: func.func @attention_key_lengths
// CHECK-SAME: (%{{.+}}: !llvm.ptr, %{{.+}}: memref<8x1x2x16xf16>, %{{.+}}: memref<8x32x2x16xf16>, %{{.+}}: memref<8x32x2x16xf16>, %[[LEN:.+]]: memref<8xi64>, %{{.+}}: memref<8x1x2x16xf16>)
// CHECK: memref.extract_aligned_pointer_as_index %[[LEN]]
// CHECK: %[[LENP:.+]] = llvm.inttoptr
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[IDT:.+]] = arith.constant 4 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][1]
// CHECK-NEXT: llvm.store %[[IDT]]
// CHECK: %[[NOIDX:.+]] = arith.constant 0 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][2]
// CHECK-NEXT: llvm.store %[[NOIDX]]
// CHECK: %[[HASLEN:.+]] = arith.constant 1 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][3]
// CHECK-NEXT: llvm.store %[[HASLEN]]
// CHECK: %[[BUFS:.+]] = llvm.alloca %{{.+}} x !llvm.ptr
// CHECK: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.getelementptr %[[BUFS]][3]
// CHECK-NEXT: llvm.store %[[NULL]]
// CHECK-NEXT: %[[SLOT:.+]] = llvm.getelementptr %[[BUFS]][4]
// CHECK-NEXT: llvm.store %[[LENP]], %[[SLOT]]
// CHECK: %[[DIMS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: llvm.getelementptr %[[DIMS]][14]
// CHECK-NEXT: llvm.store %c8_i64{{(_[0-9]+)?}},
// CHECK: call @embrtCompiledAttention(
func.func @attention_key_lengths(%q: tensor<8x1x2x16xf16>, %k: tensor<8x32x2x16xf16>, %v: tensor<8x32x2x16xf16>, %len: tensor<8xi64>) -> tensor<8x1x2x16xf16> {
  %0 = "emb.attention"(%q, %k, %v, %len) : (tensor<8x1x2x16xf16>, tensor<8x32x2x16xf16>, tensor<8x32x2x16xf16>, tensor<8xi64>) -> tensor<8x1x2x16xf16>
  return %0 : tensor<8x1x2x16xf16>
}

// -----

// emb.ikbo_attention with additive_mask (what emb-raise-attention makes of
// a key mask): attrs [7] 1; without it (below, @ikbo_attention_in_bf16) 0.
// CHECK-LABEL: func.func @ikbo_attention_additive_mask
// CHECK: %[[ATTRS:.+]] = llvm.alloca %c8_i64{{(_[0-9]+)?}} x i64
// CHECK: %[[A7:.+]] = llvm.getelementptr %[[ATTRS]][7]
// CHECK-NEXT: llvm.store %c1_i64{{(_[0-9]+)?}}, %[[A7]]
// CHECK: call @embrtCompiledAttention(
func.func @ikbo_attention_additive_mask(%q: tensor<8x1x2x4xf16>, %k: tensor<4x5x2x4xf16>, %v: tensor<4x5x2x4xf16>, %c2u: tensor<8xi64>, %len: tensor<4xi64>) -> tensor<8x1x2x4xf16> {
  %0 = "emb.ikbo_attention"(%q, %k, %v, %c2u, %len) {additive_mask} : (tensor<8x1x2x4xf16>, tensor<4x5x2x4xf16>, tensor<4x5x2x4xf16>, tensor<8xi64>, tensor<4xi64>) -> tensor<8x1x2x4xf16>
  return %0 : tensor<8x1x2x4xf16>
}

// -----

// emb.ikbo_attention of f32 data with compute_type = bf16: attrs [6] the
// compute dtype (bf16, 2); [0] the data's dtype stays f32 (0).
// CHECK-LABEL: func.func @ikbo_attention_in_bf16
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[F32:.+]] = arith.constant 0 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][0]
// CHECK-NEXT: llvm.store %[[F32]]
// CHECK: %[[BF16:.+]] = arith.constant 2 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][6]
// CHECK-NEXT: llvm.store %[[BF16]]
// CHECK: %[[A7:.+]] = llvm.getelementptr %[[ATTRS]][7]
// CHECK-NEXT: llvm.store %c0_i64{{(_[0-9]+)?}}, %[[A7]]
// CHECK: call @embrtCompiledAttention(
func.func @ikbo_attention_in_bf16(%q: tensor<8x4x2x64xf32>, %k: tensor<2x32x2x64xf32>, %v: tensor<2x32x2x64xf32>, %c2u: tensor<8xi32>) -> tensor<8x4x2x64xf32> {
  %0 = "emb.ikbo_attention"(%q, %k, %v, %c2u) {compute_type = bf16} : (tensor<8x4x2x64xf32>, tensor<2x32x2x64xf32>, tensor<2x32x2x64xf32>, tensor<8xi32>) -> tensor<8x4x2x64xf32>
  return %0 : tensor<8x4x2x64xf32>
}

// -----

// emb.ikbo_lce of f32 data: attrs [4] is the compute dtype, bf16 (2) with
// compute_type = bf16; [0] the data's dtype stays f32 (0). The attrs array
// has 5 entries.
// CHECK-LABEL: func.func @ikbo_lce_in_bf16
// CHECK: %[[NATTRS:.+]] = arith.constant 5 : i64
// CHECK-NEXT: %[[ATTRS:.+]] = llvm.alloca %[[NATTRS]] x i64
// CHECK-NEXT: %[[F32:.+]] = arith.constant 0 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][0]
// CHECK-NEXT: llvm.store %[[F32]]
// CHECK: %[[BF16:.+]] = arith.constant 2 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][4]
// CHECK-NEXT: llvm.store %[[BF16]]
// CHECK: call @embrtCompiledIkboLce(
func.func @ikbo_lce_in_bf16(%wu: tensor<8x12xf32>, %wc: tensor<8x16xf32>, %u: tensor<3x12x4xf32>, %c: tensor<6x16x4xf32>, %c2u: tensor<6xi32>) -> tensor<6x8x4xf32> {
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) {compute_type = bf16} : (tensor<8x12xf32>, tensor<8x16xf32>, tensor<3x12x4xf32>, tensor<6x16x4xf32>, tensor<6xi32>) -> tensor<6x8x4xf32>
  return %0 : tensor<6x8x4xf32>
}

// -----

// compute_type = f16: attrs [4] is f16 (1).
// CHECK-LABEL: func.func @ikbo_lce_in_f16
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[F16:.+]] = arith.constant 1 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][4]
// CHECK-NEXT: llvm.store %[[F16]]
// CHECK: call @embrtCompiledIkboLce(
func.func @ikbo_lce_in_f16(%wu: tensor<8x12xf32>, %wc: tensor<8x16xf32>, %u: tensor<3x12x4xf32>, %c: tensor<6x16x4xf32>, %c2u: tensor<6xi32>) -> tensor<6x8x4xf32> {
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) {compute_type = f16} : (tensor<8x12xf32>, tensor<8x16xf32>, tensor<3x12x4xf32>, tensor<6x16x4xf32>, tensor<6xi32>) -> tensor<6x8x4xf32>
  return %0 : tensor<6x8x4xf32>
}

// -----

// Without compute_type, attrs [4] is f32 (0): the data as it is.
// CHECK-LABEL: func.func @ikbo_lce_exact
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: llvm.getelementptr %[[ATTRS]][3]
// CHECK-NEXT: llvm.store
// CHECK-NEXT: %[[EXACT:.+]] = arith.constant 0 : i64
// CHECK-NEXT: llvm.getelementptr %[[ATTRS]][4]
// CHECK-NEXT: llvm.store %[[EXACT]]
// CHECK: call @embrtCompiledIkboLce(
func.func @ikbo_lce_exact(%wu: tensor<8x12xf32>, %wc: tensor<8x16xf32>, %u: tensor<3x12x4xf32>, %c: tensor<6x16x4xf32>, %c2u: tensor<6xi32>) -> tensor<6x8x4xf32> {
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) : (tensor<8x12xf32>, tensor<8x16xf32>, tensor<3x12x4xf32>, tensor<6x16x4xf32>, tensor<6xi32>) -> tensor<6x8x4xf32>
  return %0 : tensor<6x8x4xf32>
}
