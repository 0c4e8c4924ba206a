// cf.assert in a mixed function: a failure records "assertion failed in @f
// (location): message" in the runtime context, and the rest of its block
// (what the assertion guards) runs only when it holds. Runs, with a failing
// assertion: asserts_numbers.mlir.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime %s | FileCheck %s
// RUN: emb-opt --split-input-file --emb-lower-to-llvm %s | FileCheck %s --check-prefix=LLVM
// REQUIRES: emb-compiler

// aten.embedding as torch-mlir writes it: two bounds checks, then the read
// of the table. The read happens only when both hold; an element whose id
// fails one yields 0 after recording the message. linalg.index stays in the
// generic's own body, where convert-linalg-to-loops replaces it.
// CHECK-DAG: llvm.mlir.global private constant @[[$UPPER:__emb_assert_[0-9]+]]("assertion failed in @embedding ({{.*}}asserts.mlir:{{[0-9]+}}:5): index must be smaller than dim size\00")
// CHECK-DAG: llvm.mlir.global private constant @[[$LOWER:__emb_assert_[0-9]+]]("assertion failed in @embedding ({{.*}}asserts.mlir:{{[0-9]+}}:5): index must be larger or equal to 0\00")
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr,
// CHECK: linalg.generic
// CHECK: ^bb0(%[[ID:.+]]: i64, %{{.+}}: f32):
// CHECK: %[[ROW:.+]] = arith.index_cast %[[ID]] : i64 to index
// CHECK: %[[COL:.+]] = linalg.index 1 : index
// CHECK: %[[BELOW:.+]] = arith.cmpi slt, %[[ROW]]
// CHECK: %[[V:.+]] = scf.if %[[BELOW]] -> (f32) {
// CHECK:   %[[NONNEG:.+]] = arith.cmpi sge, %[[ID]]
// CHECK:   %[[V2:.+]] = scf.if %[[NONNEG]] -> (f32) {
// CHECK:     %[[E:.+]] = tensor.extract %{{.+}}[%[[ROW]], %[[COL]]] : tensor<100x16xf32>
// CHECK:     scf.yield %[[E]] : f32
// CHECK:   } else {
// CHECK:     %[[M1:.+]] = llvm.mlir.addressof @[[$LOWER]]
// CHECK:     func.call @embrtCompiledAssert(%[[CTX]], %{{.+}}, %[[M1]]) : (!llvm.ptr, i64, !llvm.ptr) -> ()
// CHECK:     %[[Z1:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:     scf.yield %[[Z1]] : f32
// CHECK:   scf.yield %[[V2]] : f32
// CHECK: } else {
// CHECK:   %[[M0:.+]] = llvm.mlir.addressof @[[$UPPER]]
// CHECK:   func.call @embrtCompiledAssert(%[[CTX]], %{{.+}}, %[[M0]])
// CHECK: linalg.yield %[[V]] : f32
// CHECK-NOT: cf.assert
// Nothing aborts: the lowered module has no call of abort.
// LLVM-NOT: @abort
#ids = affine_map<(d0, d1) -> (d0)>
#rows = affine_map<(d0, d1) -> (d0, d1)>
func.func @embedding(%table: tensor<100x16xf32>, %ids: tensor<6xi64>) -> tensor<6x16xf32> {
  %c100 = arith.constant 100 : index
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<6x16xf32>
  %1 = linalg.generic {indexing_maps = [#ids, #rows], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<6xi64>) outs(%0 : tensor<6x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %4 = arith.cmpi slt, %2, %c100 : index
    cf.assert %4, "index must be smaller than dim size"
    %5 = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %5, "index must be larger or equal to 0"
    %extracted = tensor.extract %table[%2, %3] : tensor<100x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<6x16xf32>
  return %1 : tensor<6x16xf32>
}

// -----

// A shape check in the function's own block (torch-mlir's, for dynamic
// dims): when it fails, the rest of the function does not run, emb ops and
// the copies into the caller's buffers included.
// CHECK-LABEL: func.func @shape_check
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, {{.*}}, %[[OUT:.+]]: memref<4xf32>)
// CHECK: %[[SAME:.+]] = arith.cmpi eq
// CHECK-NEXT: scf.if %[[SAME]] {
// CHECK:   call @embrtCompiledTbe(
// CHECK:   linalg.generic
// CHECK:   bufferization.materialize_in_destination %{{.+}} in restrict writable %[[OUT]]
// CHECK-NEXT: } else {
// CHECK:   func.call @embrtCompiledAssert(%[[CTX]],
// CHECK-NEXT: }
// CHECK-NEXT: return
#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @shape_check(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>, %table: tensor<10x4xf32>, %ids: tensor<2xi64>, %offsets: tensor<2xi64>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %d0 = tensor.dim %a, %c0 : tensor<?x4xf32>
  %d1 = tensor.dim %b, %c0 : tensor<?x4xf32>
  %same = arith.cmpi eq, %d0, %d1 : index
  cf.assert %same, "mismatched size for broadcast"
  %bag = "emb.embedding_bag"(%table, %ids, %offsets) {mode = "sum"} : (tensor<10x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x4xf32>
  %bag1 = tensor.collapse_shape %bag [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#row, #row, #col], iterator_types = ["reduction", "parallel"]} ins(%a, %b : tensor<?x4xf32>, tensor<?x4xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %r = arith.addf %sum, %bag1 : tensor<4xf32>
  return %r : tensor<4xf32>
}
