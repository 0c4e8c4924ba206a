// emb-lower-strided-copies: a memref.copy MLIR would lower to a call of its
// runner library's memrefCopy (a buffer that is not contiguous) becomes a
// linalg.copy, which convert-linalg-to-loops makes into loops; a copy
// between contiguous buffers stays a memcpy-to-be.
// RUN: emb-opt --split-input-file --emb-lower-strided-copies %s | FileCheck %s
// RUN: emb-opt --split-input-file --pass-pipeline='builtin.module(emb-lower-strided-copies,func.func(convert-linalg-to-loops),expand-strided-metadata,lower-affine,convert-scf-to-cf,finalize-memref-to-llvm,convert-to-llvm,reconcile-unrealized-casts)' %s | FileCheck %s --check-prefix=LLVM
// REQUIRES: emb-compiler

// Into a column block (what the bufferization of tensor.concat along dim 1
// writes).
// CHECK-LABEL: func.func @column_block
// CHECK-SAME: (%[[SRC:.+]]: memref<4x3xf32>, %[[DST:.+]]: memref<4x3xf32, strided<[6, 1], offset: 3>>)
// CHECK: linalg.copy ins(%[[SRC]] : memref<4x3xf32>) outs(%[[DST]] : memref<4x3xf32, strided<[6, 1], offset: 3>>)
// CHECK-NOT: memref.copy
// LLVM-NOT: memrefCopy
func.func @column_block(%src: memref<4x3xf32>, %dst: memref<4x3xf32, strided<[6, 1], offset: 3>>) {
  memref.copy %src, %dst : memref<4x3xf32> to memref<4x3xf32, strided<[6, 1], offset: 3>>
  return
}

// -----

// Dynamic strides are not known to be contiguous.
// CHECK-LABEL: func.func @dynamic_strides
// CHECK: linalg.copy
// CHECK-NOT: memref.copy
func.func @dynamic_strides(%src: memref<?x?xf16, strided<[?, 1], offset: ?>>, %dst: memref<?x?xf16>) {
  memref.copy %src, %dst : memref<?x?xf16, strided<[?, 1], offset: ?>> to memref<?x?xf16>
  return
}

// -----

// Identity layouts, and a strided layout that is row-major, are contiguous:
// MLIR lowers those copies to a memcpy.
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<2x8xf32> to memref<2x8xf32>
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<2x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
// CHECK-NOT: linalg.copy
// LLVM-LABEL: llvm.func @contiguous
// LLVM: "llvm.intr.memcpy"
// LLVM-NOT: memrefCopy
func.func @contiguous(%a: memref<2x8xf32>, %b: memref<2x8xf32>, %c: memref<2x8xf32, strided<[8, 1], offset: 16>>) {
  memref.copy %a, %b : memref<2x8xf32> to memref<2x8xf32>
  memref.copy %a, %c : memref<2x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  return
}
