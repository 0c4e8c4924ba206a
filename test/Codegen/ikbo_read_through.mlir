// emb-lower-to-runtime reads emb.ikbo_lce's weights as column views of the
// matrix they were sliced from and reads through zero padding of K, so
// neither the slices nor the padded copies are made.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// REQUIRES: emb-compiler

// What emb-ikbo makes of a [M, Ku + Kc] weight: two column slices, the user
// side padded from K 5 to 8 on both the weight and the embeddings. The op
// gets W itself (the candidate block 5 columns = 10 bytes in), K 5 and 7,
// and row strides of 12; no copy, concat or fill remains.
// CHECK-LABEL: func.func @read_through
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, %[[USER:.+]]: memref<3x5x8xf16>, %[[CAND:.+]]: memref<6x7x8xf16>, %{{.+}}: memref<6xi32>, %[[W:.+]]: memref<4x12xf16>,
// CHECK-NOT: embrtCompiledStridedCopy
// CHECK-NOT: embrtCompiledConcat
// CHECK-NOT: embrtCompiledFill
// CHECK: memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: %[[WPTR:.+]] = llvm.inttoptr {{.*}} : i64 to !llvm.ptr
// CHECK: %[[WCAND:.+]] = llvm.getelementptr %[[WPTR]][10] {{.*}} i8
// CHECK: %[[BUFS:.+]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: %[[B0:.+]] = llvm.getelementptr %[[BUFS]][0]
// CHECK-NEXT: llvm.store %[[WPTR]], %[[B0]]
// CHECK: %[[B1:.+]] = llvm.getelementptr %[[BUFS]][1]
// CHECK-NEXT: llvm.store %[[WCAND]], %[[B1]]
// CHECK: %[[NDIMS:.+]] = arith.constant 29 : i64
// CHECK-NEXT: %[[DIMS:.+]] = llvm.alloca %[[NDIMS]] x i64
// CHECK: %[[KU:.+]] = arith.constant 5 : i64
// CHECK-NEXT: %[[D3:.+]] = llvm.getelementptr %[[DIMS]][3]
// CHECK-NEXT: llvm.store %[[KU]], %[[D3]]
// CHECK: %[[KC:.+]] = arith.constant 7 : i64
// CHECK-NEXT: %[[D4:.+]] = llvm.getelementptr %[[DIMS]][4]
// CHECK-NEXT: llvm.store %[[KC]], %[[D4]]
// CHECK: %[[SU:.+]] = arith.constant 12 : i64
// CHECK-NEXT: %[[D7:.+]] = llvm.getelementptr %[[DIMS]][7]
// CHECK-NEXT: llvm.store %[[SU]], %[[D7]]
// CHECK: %[[SC:.+]] = arith.constant 12 : i64
// CHECK-NEXT: %[[D8:.+]] = llvm.getelementptr %[[DIMS]][8]
// CHECK-NEXT: llvm.store %[[SC]], %[[D8]]
// The columns each view has from its first one on, which the runtime checks
// against K: 12 for the user block at column 0, 7 for the candidate block.
// CHECK: %[[CU:.+]] = arith.constant 12 : i64
// CHECK-NEXT: %[[D11:.+]] = llvm.getelementptr %[[DIMS]][11]
// CHECK-NEXT: llvm.store %[[CU]], %[[D11]]
// CHECK: %[[CC:.+]] = arith.constant 7 : i64
// CHECK-NEXT: %[[D12:.+]] = llvm.getelementptr %[[DIMS]][12]
// CHECK-NEXT: llvm.store %[[CC]], %[[D12]]
// CHECK: call @embrtCompiledIkboLce(%[[CTX]], %{{.*}}, %[[BUFS]], %[[DIMS]])
// CHECK-NOT: embrtCompiledConcat
// CHECK: return
func.func @read_through(%user: tensor<3x5x8xf16>, %cand: tensor<6x7x8xf16>, %c2u: tensor<6xi32>, %w: tensor<4x12xf16>) -> tensor<6x4x8xf16> {
  %z = arith.constant dense<0.0> : tensor<4x3xf16>
  %zu = arith.constant dense<0.0> : tensor<3x3x8xf16>
  %wu = tensor.extract_slice %w[0, 0] [4, 5] [1, 1] : tensor<4x12xf16> to tensor<4x5xf16>
  %wc = tensor.extract_slice %w[0, 5] [4, 7] [1, 1] : tensor<4x12xf16> to tensor<4x7xf16>
  %wup = tensor.concat dim(1) %wu, %z : (tensor<4x5xf16>, tensor<4x3xf16>) -> tensor<4x8xf16>
  %up = tensor.concat dim(1) %user, %zu : (tensor<3x5x8xf16>, tensor<3x3x8xf16>) -> tensor<3x8x8xf16>
  %0 = "emb.ikbo_lce"(%wup, %wc, %up, %cand, %c2u) : (tensor<4x8xf16>, tensor<4x7xf16>, tensor<3x8x8xf16>, tensor<6x7x8xf16>, tensor<6xi32>) -> tensor<6x4x8xf16>
  return %0 : tensor<6x4x8xf16>
}

// -----

// A padded value with another use is still made (and the padding constant
// with it); the op reads through it all the same (K 5). Padding on the
// weight alone is not read through: the padded embeddings' rows need not be
// zeros, so the candidate side keeps K 8 and its concat.
// CHECK-LABEL: func.func @shared_and_one_sided
// CHECK: call @embrtCompiledFill
// CHECK: call @embrtCompiledConcat
// CHECK: call @embrtCompiledConcat
// CHECK: %[[NDIMS:.+]] = arith.constant 29 : i64
// CHECK-NEXT: %[[DIMS:.+]] = llvm.alloca %[[NDIMS]] x i64
// CHECK: %[[KU:.+]] = arith.constant 5 : i64
// CHECK-NEXT: %[[D3:.+]] = llvm.getelementptr %[[DIMS]][3]
// CHECK-NEXT: llvm.store %[[KU]], %[[D3]]
// CHECK: %[[KC:.+]] = arith.constant 8 : i64
// CHECK-NEXT: %[[D4:.+]] = llvm.getelementptr %[[DIMS]][4]
// CHECK-NEXT: llvm.store %[[KC]], %[[D4]]
// CHECK: %[[D6:.+]] = llvm.getelementptr %[[DIMS]][6]
// CHECK-NEXT: llvm.store %{{.+}}, %[[D6]]
// CHECK-NEXT: %[[SU:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[D7:.+]] = llvm.getelementptr %[[DIMS]][7]
// CHECK-NEXT: llvm.store %[[SU]], %[[D7]]
// CHECK: call @embrtCompiledIkboLce
// CHECK: call @embrtCompiledElementwise
func.func @shared_and_one_sided(%user: tensor<3x5x8xf16>, %cand: tensor<6x8x8xf16>, %c2u: tensor<6xi32>, %wu: tensor<4x5xf16>, %wc: tensor<4x5xf16>) -> (tensor<6x4x8xf16>, tensor<3x8x8xf16>) {
  %z = arith.constant dense<0.0> : tensor<4x3xf16>
  %zu = arith.constant dense<0.0> : tensor<3x3x8xf16>
  %wup = tensor.concat dim(1) %wu, %z : (tensor<4x5xf16>, tensor<4x3xf16>) -> tensor<4x8xf16>
  %wcp = tensor.concat dim(1) %wc, %z : (tensor<4x5xf16>, tensor<4x3xf16>) -> tensor<4x8xf16>
  %up = tensor.concat dim(1) %user, %zu : (tensor<3x5x8xf16>, tensor<3x3x8xf16>) -> tensor<3x8x8xf16>
  %0 = "emb.ikbo_lce"(%wup, %wcp, %up, %cand, %c2u) : (tensor<4x8xf16>, tensor<4x8xf16>, tensor<3x8x8xf16>, tensor<6x8x8xf16>, tensor<6xi32>) -> tensor<6x4x8xf16>
  %1 = arith.addf %up, %up : tensor<3x8x8xf16>
  return %0, %1 : tensor<6x4x8xf16>, tensor<3x8x8xf16>
}

// -----

// The candidate embeddings as the ranking model makes them: its features
// beside its attention output, padded with zeros along K, the weight padded
// with as many zero columns. The op reads the two pieces where they are
// (numCandPieces, attribute 3, is 2; buffers 7 and 8), K 5 = 3 + 2, and the
// weight's column block in place; no concat, fill or copy is made.
// CHECK-LABEL: func.func @pieces
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, %[[USER:.+]]: memref<3x4x8xf16>, %[[FEAT:.+]]: memref<6x3x8xf16>, %[[ATT:.+]]: memref<6x2x8xf16>,
// CHECK-NOT: embrtCompiledStridedCopy
// CHECK-NOT: embrtCompiledConcat
// CHECK-NOT: embrtCompiledFill
// CHECK: memref.extract_aligned_pointer_as_index %[[FEAT]]
// CHECK: %[[FPTR:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ATT]]
// CHECK: %[[APTR:.+]] = llvm.inttoptr
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.*}} x i64
// CHECK: %[[NP:.+]] = arith.constant 2 : i64
// CHECK-NEXT: %[[A3:.+]] = llvm.getelementptr %[[ATTRS]][3]
// CHECK-NEXT: llvm.store %[[NP]], %[[A3]]
// CHECK: %[[BUFS:.+]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: %[[B7:.+]] = llvm.getelementptr %[[BUFS]][7]
// CHECK-NEXT: llvm.store %[[FPTR]], %[[B7]]
// CHECK: %[[B8:.+]] = llvm.getelementptr %[[BUFS]][8]
// CHECK-NEXT: llvm.store %[[APTR]], %[[B8]]
// CHECK: %[[KC:.+]] = arith.constant 5 : i64
// CHECK-NEXT: %[[D4:.+]] = llvm.getelementptr %{{.+}}[4]
// CHECK-NEXT: llvm.store %[[KC]], %[[D4]]
// CHECK: call @embrtCompiledIkboLce(%[[CTX]],
// CHECK-NOT: embrtCompiledConcat
// CHECK: return
func.func @pieces(%user: tensor<3x4x8xf16>, %feat: tensor<6x3x8xf16>, %att: tensor<6x2x8xf16>, %c2u: tensor<6xi32>, %w: tensor<4x9xf16>) -> tensor<6x4x8xf16> {
  %zw = arith.constant dense<0.0> : tensor<4x3xf16>
  %zc = arith.constant dense<0.0> : tensor<6x3x8xf16>
  %wu = tensor.extract_slice %w[0, 0] [4, 4] [1, 1] : tensor<4x9xf16> to tensor<4x4xf16>
  %wc = tensor.extract_slice %w[0, 4] [4, 5] [1, 1] : tensor<4x9xf16> to tensor<4x5xf16>
  %wcp = tensor.concat dim(1) %wc, %zw : (tensor<4x5xf16>, tensor<4x3xf16>) -> tensor<4x8xf16>
  %cand = tensor.concat dim(1) %feat, %att, %zc : (tensor<6x3x8xf16>, tensor<6x2x8xf16>, tensor<6x3x8xf16>) -> tensor<6x8x8xf16>
  %0 = "emb.ikbo_lce"(%wu, %wcp, %user, %cand, %c2u) : (tensor<4x4xf16>, tensor<4x8xf16>, tensor<3x4x8xf16>, tensor<6x8x8xf16>, tensor<6xi32>) -> tensor<6x4x8xf16>
  return %0 : tensor<6x4x8xf16>
}
