// emb-lower-to-runtime on mixed functions (target cpu): a function with an op
// the runtime has no call for keeps its tensors for MLIR's bufferization;
// its signature becomes the entry ABI, each emb op a runtime call on buffers
// between to_buffer and to_tensor, and its results are copied into the
// caller's buffers. Runs of such functions: mixed_functions_numbers.mlir.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime %s | FileCheck %s
// RUN: emb-opt --split-input-file --emb-lower-to-llvm %s | FileCheck %s --check-prefix=LLVM
// REQUIRES: emb-compiler

// A matmul, an embedding bag and a relu generic (torch-mlir's form around an
// emb op). The matmul into its zero fill is an embrtGemm call on buffers
// like an emb op (codegen/gemm.c; the generic adds the bags, not a bias, so
// it is not its epilogue); the generic stays as it is; the bag reads fresh
// read-only buffers of its operands, writes a memref.alloc, frees its
// workspace right after the call, and its result is a tensor again for the
// generic.
// CHECK-LABEL: func.func @matmul_bag_relu
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, %[[X:.+]]: memref<2x3xf32>, %[[W:.+]]: memref<3x4xf32>, %[[TABLE:.+]]: memref<5x4xf32>, %[[IDS:.+]]: memref<4xi64>, %[[OFFSETS:.+]]: memref<3xi64>, %[[OUT:.+]]: memref<2x4xf32>)
// CHECK-SAME: attributes {emb.num_results = 1 : i64, emb.target = "cpu", llvm.emit_c_interface}
// CHECK: %[[XT:.+]] = bufferization.to_tensor %[[X]] restrict : memref<2x3xf32> to tensor<2x3xf32>
// CHECK: %[[WT:.+]] = bufferization.to_tensor %[[W]] restrict
// CHECK: %[[TABLET:.+]] = bufferization.to_tensor %[[TABLE]] restrict
// CHECK: bufferization.to_buffer %[[XT]] read_only : tensor<2x3xf32> to memref<2x3xf32>
// CHECK: bufferization.to_buffer %[[WT]] read_only : tensor<3x4xf32> to memref<3x4xf32>
// CHECK: %[[MMBUF:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x4xf32>
// CHECK: call @embrtCompiledGemm(%[[CTX]],
// CHECK-NEXT: %[[MM:.+]] = bufferization.to_tensor %[[MMBUF]] restrict writable : memref<2x4xf32> to tensor<2x4xf32>
// CHECK-NOT: linalg.matmul
// CHECK: bufferization.to_buffer %[[TABLET]] read_only : tensor<5x4xf32> to memref<5x4xf32>
// CHECK: %[[BAGS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x4xf32>
// CHECK: %[[WS:.+]] = call @embrtCompiledAlloc(%[[CTX]],
// CHECK: call @embrtCompiledTbe(%[[CTX]],
// CHECK-NEXT: call @embrtCompiledFree(%[[CTX]], %[[WS]])
// CHECK-NEXT: %[[BAGST:.+]] = bufferization.to_tensor %[[BAGS]] restrict writable : memref<2x4xf32> to tensor<2x4xf32>
// CHECK: %[[RELU:.+]] = linalg.generic {{.*}} ins(%[[MM]], %[[BAGST]] : tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK: bufferization.materialize_in_destination %[[RELU]] in restrict writable %[[OUT]] : (tensor<2x4xf32>, memref<2x4xf32>) -> ()
// CHECK-NEXT: return
// CHECK-NOT: emb.embedding_bag
// Through emb-lower-to-llvm, MLIR's buffers are malloc'ed and freed, the
// runtime is called, and nothing calls MLIR's runner library (memrefCopy).
// LLVM-LABEL: llvm.func @matmul_bag_relu
// LLVM-DAG: llvm.call @malloc
// LLVM-DAG: llvm.call @free
// LLVM-DAG: llvm.call @embrtCompiledTbe
// LLVM-DAG: llvm.call @embrtCompiledGemm
// LLVM-LABEL: llvm.func @_mlir_ciface_matmul_bag_relu
// LLVM-NOT: memrefCopy
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @matmul_bag_relu(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %table: tensor<5x4xf32>, %ids: tensor<4xi64>, %offsets: tensor<3xi64>) -> tensor<2x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = linalg.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %bags = "emb.embedding_bag"(%table, %ids, %offsets) {mode = "sum"} : (tensor<5x4xf32>, tensor<4xi64>, tensor<3xi64>) -> tensor<2x4xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%2, %bags : tensor<2x4xf32>, tensor<2x4xf32>) outs(%0 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %cst : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  return %3 : tensor<2x4xf32>
}

// -----

// A function of runtime ops only keeps the other path, in a module where
// another function is mixed: no bufferization op, its result written by the
// call itself.
// CHECK-LABEL: func.func @runtime_only
// CHECK-NOT: bufferization
// CHECK: call @embrtCompiledElementwise
// CHECK-LABEL: func.func @mixed
// CHECK: bufferization.to_tensor
func.func @runtime_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @mixed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.sin %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A table-batched lookup in a mixed function: each table is read through a
// buffer of the tensor behind its handle; emb.table goes with its user.
// CHECK-LABEL: func.func @tbe_tables
// CHECK-SAME: (%{{.+}}: !llvm.ptr, %{{.+}}: memref<8xi64>, %{{.+}}: memref<3xi64>, %[[T0:.+]]: memref<10x4xf32>, %[[T1:.+]]: memref<6x4xf32>,
// CHECK: %[[T0T:.+]] = bufferization.to_tensor %[[T0]] restrict
// CHECK: %[[T1T:.+]] = bufferization.to_tensor %[[T1]] restrict
// CHECK-DAG: bufferization.to_buffer %[[T0T]] read_only
// CHECK-DAG: bufferization.to_buffer %[[T1T]] read_only
// CHECK: call @embrtCompiledTbe(
// CHECK-NOT: emb.table
// CHECK: math.tanh
func.func @tbe_tables(%ids: tensor<8xi64>, %offsets: tensor<3xi64>, %t0: tensor<10x4xf32>, %t1: tensor<6x4xf32>) -> tensor<1x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x4xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<6x4xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%ids, %offsets, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<3xi64>, !emb.table_handle, !emb.table_handle) -> tensor<1x8xf32>
  %1 = tensor.empty() : tensor<1x8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<1x8xf32>) outs(%1 : tensor<1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %3 = math.tanh %in : f32
    linalg.yield %3 : f32
  } -> tensor<1x8xf32>
  return %2 : tensor<1x8xf32>
}

// -----

// Dynamic sizes (math.sin has no runtime call, so the function is mixed):
// an emb op's result buffer is allocated with the size the runtime call
// computes (offsets - 1 bags), and the inputs keep their dynamic dims. The
// result, of a size the caller cannot know, is returned through an
// embrtCompiledResult (the last argument): a buffer from
// embrtCompiledAlloc, seen as a memref through a cast descriptor; its
// address, rank (2) and dims are stored in the record, then the value is
// materialised into it.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: memref<?xi64>, %{{.+}}: memref<?xi64>, %[[REC:.+]]: !llvm.ptr)
// CHECK: %[[BAGS:.+]] = arith.divsi
// CHECK: %[[N:.+]] = arith.index_cast %[[BAGS]] : i64 to index
// CHECK: memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x4xf32>
// CHECK: call @embrtCompiledTbe(
// CHECK: %[[DATA:.+]] = call @embrtCompiledAlloc(
// CHECK: %[[BUF:.+]] = builtin.unrealized_conversion_cast %{{.+}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x4xf32>
// CHECK: %[[SLOT0:.+]] = llvm.getelementptr %[[REC]][0]
// CHECK-NEXT: llvm.store %[[DATA]], %[[SLOT0]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[RANK:.+]] = arith.constant 2 : i64
// CHECK-NEXT: %[[SLOT1:.+]] = llvm.getelementptr %[[REC]][1]
// CHECK-NEXT: llvm.store %[[RANK]], %[[SLOT1]] : i64, !llvm.ptr
// CHECK: bufferization.materialize_in_destination %{{.+}} in restrict writable %[[BUF]]
func.func @dynamic(%table: tensor<10x4xf32>, %ids: tensor<?xi64>, %offsets: tensor<?xi64>) -> tensor<?x4xf32> {
  %bags = "emb.embedding_bag"(%table, %ids, %offsets) {mode = "sum"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x4xf32>
  %0 = math.sin %bags : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Frozen weights stay a dense_resource constant: bufferization makes it a
// memref.global, and the translation to LLVM IR reads the blob.
// CHECK-LABEL: func.func @resource
// CHECK: arith.constant dense_resource<weights> : tensor<2x2xf32>
// LLVM: llvm.mlir.global private constant @{{.+}}(dense_resource<weights> : tensor<2x2xf32>)
func.func @resource(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense_resource<weights> : tensor<2x2xf32>
  %0 = tensor.empty() : tensor<2x2xf32>
  %1 = linalg.add ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%0 : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// An input returned as it is, and one value returned twice: each result is
// copied into its own buffer.
// CHECK-LABEL: func.func @returns
// CHECK-SAME: (%{{.+}}: !llvm.ptr, %[[IN:.+]]: memref<3xf32>, %[[OUT0:.+]]: memref<3xf32>, %[[OUT1:.+]]: memref<3xf32>, %[[OUT2:.+]]: memref<3xf32>)
// CHECK: %[[INT:.+]] = bufferization.to_tensor %[[IN]] restrict
// CHECK: %[[ABS:.+]] = math.absf %[[INT]]
// CHECK: bufferization.materialize_in_destination %[[INT]] in restrict writable %[[OUT0]]
// CHECK: bufferization.materialize_in_destination %[[ABS]] in restrict writable %[[OUT1]]
// CHECK: bufferization.materialize_in_destination %[[ABS]] in restrict writable %[[OUT2]]
func.func @returns(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = math.absf %x : tensor<3xf32>
  %c = arith.constant 0 : index
  %1 = tensor.extract %x[%c] : tensor<3xf32>
  return %x, %0, %0 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// One tensor.empty written by two generics (torch-mlir's output after its
// CSE) becomes one per use, right before it: bufferization's analysis of one
// alias set through every such op is quadratic in their number.
// CHECK-LABEL: func.func @shared_empty
// CHECK: %[[E0:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[A:.+]] = linalg.generic {{.*}} outs(%[[E0]] : tensor<4xf32>)
// CHECK: %[[E1:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[A]] : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
#vec = affine_map<(d0) -> (d0)>
func.func @shared_empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.tanh %in : f32
    linalg.yield %2 : f32
  } -> tensor<4xf32>
  %3 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]} ins(%1 : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = math.exp %in : f32
    linalg.yield %4 : f32
  } -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
