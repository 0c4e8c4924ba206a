// --split-input-file runs every chunk on its own: a bad chunk reports its
// error with the line in the whole file and does not stop the others; the
// exit status is 1 if any chunk failed.
// RUN: not emb-opt --split-input-file %s 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// An empty separator (--split-input-file=) is the default one, as in
// mlir-opt: it would match every line.
// RUN: not emb-opt --split-input-file= %s 2>%t.empty.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=ERR < %t.empty.err
// REQUIRES: emb-compiler

// CHECK-LABEL: func.func @first
func.func @first(%u: tensor<2x8xf16>, %c: tensor<4xi32>) -> tensor<4x8xf16> {
  %0 = "emb.broadcast"(%u, %c) : (tensor<2x8xf16>, tensor<4xi32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// CHECK: // -----
// ERR: split_input.mlir:[[@LINE+2]]:8: error: 'emb.broadcast' op cand_to_user has 5 rows but the result has 4
func.func @second(%u: tensor<2x8xf16>, %c: tensor<5xi32>) -> tensor<4x8xf16> {
  %0 = "emb.broadcast"(%u, %c) : (tensor<2x8xf16>, tensor<5xi32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// CHECK: // -----
// CHECK-LABEL: func.func @third
func.func @third(%u: tensor<2x8xf16>, %c: tensor<4xi32>) -> tensor<4x8xf16> {
  %0 = "emb.broadcast"(%u, %c) : (tensor<2x8xf16>, tensor<4xi32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// A syntax error in a later chunk is located in the whole file.
// ERR: split_input.mlir:[[@LINE+1]]:1: error: custom op 'func.fun' is unknown
func.fun @fourth() {
  return
}
