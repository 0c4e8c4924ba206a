// An empty reassociation group crashes MLIR 22's reshape verifiers:
// tensor.expand_shape and memref.collapse_shape build an affine map from
// no expressions (memref.expand_shape accepts the group silently, dropping
// a dimension; tensor.collapse_shape already rejects it upstream).
//   upstream: llvm/llvm-project#222602 (tensor.expand_shape; fix #222648
//             open), #225348 (memref, open); mlir-opt 22.1.8 dies of
//             SIGSEGV (exit 139) on the tensor.expand_shape and
//             memref.collapse_shape cases below.
//   emb:      the tools scan the source before parsing (tools/common/
//             upstream.c) and reject the group at the op, naming it.
// When the mlir-opt line starts failing, MLIR fixed the bug: update the
// status here and in docs/emb-opt.md, and drop the scan's case.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: not emb-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not emb-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %if mlir-opt %{ not --crash %mlir_opt %s %}

// CHECK-NOT: internal error
// TOOL-NOT: internal error

// The second group is empty.
// CHECK: reshape_empty_group.mlir:[[# @LINE + 3]]:8: error: 'tensor.expand_shape' op reassociation group 1 is empty: every group must name at least one dimension (MLIR 22's verifier crashes on an empty group, an upstream bug)
// TOOL: reshape_empty_group.mlir:[[# @LINE + 2]]:8: error: 'tensor.expand_shape' op reassociation group 1 is empty
func.func @expand(%a: tensor<6x1xf32>) -> tensor<2x3xf32> {
  %0 = tensor.expand_shape %a [[0, 1], []] output_shape [2, 3] : tensor<6x1xf32> into tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The only group is empty, over several lines, in the generic form.
// CHECK: reshape_empty_group.mlir:[[# @LINE + 2]]:8: error: 'tensor.expand_shape' op reassociation group 0 is empty
func.func @generic(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tensor.expand_shape"(%a) <{reassociation = [
         [ ]
       ], static_output_shape = array<i64: 4>}> : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// memref.collapse_shape of a strided memref.
// CHECK: reshape_empty_group.mlir:[[# @LINE + 2]]:8: error: 'memref.collapse_shape' op reassociation group 1 is empty
func.func @collapse(%a: memref<2x3xf32, strided<[6, 2]>>) {
  %0 = memref.collapse_shape %a [[0, 1], []] : memref<2x3xf32, strided<[6, 2]>> into memref<6x1xf32>
  return
}

// -----

// memref.expand_shape (accepted upstream, losing a dimension).
// CHECK: reshape_empty_group.mlir:[[# @LINE + 2]]:8: error: 'memref.expand_shape' op reassociation group 1 is empty
func.func @memref_expand(%a: memref<6x1xf32>) {
  %0 = memref.expand_shape %a [[0, 1], []] output_shape [2, 3] : memref<6x1xf32> into memref<2x3xf32>
  return
}

// CHECK-NOT: internal error
// TOOL-NOT: internal error
