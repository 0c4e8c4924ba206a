// The custom forms of linalg.transpose (permutation = [...]),
// linalg.broadcast and linalg.reduce (dimensions = [...]) crash MLIR 22's
// parser when the list is not a bracketed list of i64 literals: their
// parsers store the attribute the dense-array parser returns without
// checking it, and a null one is dereferenced (after the parser's own
// error). Found by emb-fuzz (a deleted `]`, an integer past 2^64).
//   upstream: llvm/llvm-project#132747 (linalg.reduce, open); mlir-opt
//             22.1.8 dies of SIGSEGV (exit 139) on each op below.
//   emb:      the tools scan the source before parsing (tools/common/
//             upstream.c) and reject such a list at the op, naming the op
//             and the keyword; the generic form (array<i64: ...>) is
//             parsed by the generic parser, which checks it.
// When an mlir-opt line starts failing, MLIR fixed the bug: update the
// status here and in docs/emb-opt.md, and drop the scan's case.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: not emb-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not emb-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %if mlir-opt %{ sed -n '/@transpose_open(/,/^}/p' %s | not --crash %mlir_opt %}
// RUN: %if mlir-opt %{ sed -n '/@broadcast_word(/,/^}/p' %s | not --crash %mlir_opt %}
// RUN: %if mlir-opt %{ sed -n '/@reduce_too_large(/,/^}/p' %s | not --crash %mlir_opt %}

// CHECK-NOT: internal error
// TOOL-NOT: internal error

// The list is not closed.
// CHECK: linalg_dense_array.mlir:[[# @LINE + 3]]:8: error: 'linalg.transpose' op permutation must be a list of 64-bit integers in brackets, such as [1, 0] (MLIR 22's linalg.transpose parser crashes on anything else there, an upstream bug, llvm/llvm-project#132747)
// TOOL: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.transpose' op permutation must be a list of 64-bit integers in brackets
func.func @transpose_open(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0
  return %0 : tensor<3x2xf32>
}

// -----

// No list at all, and the generic form's spelling in the custom form.
// CHECK: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.transpose' op permutation must be a list
func.func @transpose_missing(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation =
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.transpose' op permutation must be a list
func.func @transpose_array(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = array<i64: 1, 0>
  return %0 : tensor<3x2xf32>
}

// -----

// Not an integer; a trailing comma; no comma.
// CHECK: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.broadcast' op dimensions must be a list of 64-bit integers in brackets
func.func @broadcast_word(%x: tensor<3xf32>, %e: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.broadcast ins(%x : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [x]
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.broadcast' op dimensions must be a list
func.func @broadcast_comma(%x: tensor<3xf32>, %e: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.broadcast ins(%x : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0,]
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.broadcast' op dimensions must be a list
func.func @broadcast_float(%x: tensor<3xf32>, %e: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.broadcast ins(%x : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0.0]
  return %0 : tensor<2x3xf32>
}

// -----

// An integer that does not fit an i64 (2^64, as emb-fuzz wrote it; and
// 2^63).
// CHECK: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.reduce' op dimensions must be a list of 64-bit integers in brackets
func.func @reduce_too_large(%x: tensor<2x3xf32>, %e: tensor<2xf32>) -> tensor<2xf32> {
  %0 = linalg.reduce ins(%x : tensor<2x3xf32>) outs(%e : tensor<2xf32>) dimensions = [18446744073709551616]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<2xf32>
}

// -----

// CHECK: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.reduce' op dimensions must be a list
func.func @reduce_i64_max_plus_one(%x: tensor<2x3xf32>, %e: tensor<2xf32>) -> tensor<2xf32> {
  %0 = linalg.reduce ins(%x : tensor<2x3xf32>) outs(%e : tensor<2xf32>) dimensions = [9223372036854775808]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<2xf32>
}

// -----

// A list that parses is the verifier's to refuse, not the scan's: a
// negative dim, an empty list.
// CHECK-NOT: must be a list of 64-bit integers
// CHECK: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.transpose' op permutation is not valid
func.func @transpose_negative(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [-1, 0]
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-NOT: must be a list of 64-bit integers
// CHECK: linalg_dense_array.mlir:[[# @LINE + 2]]:8: error: 'linalg.transpose' op size of permutation 0 does not match the argument rank 2
func.func @transpose_empty(%x: tensor<2x3xf32>, %e: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = []
  return %0 : tensor<3x2xf32>
}

// CHECK-NOT: internal error
// TOOL-NOT: internal error
