// linalg.broadcast with a dimension named twice crashes MLIR 22's verifier
// (on a rank-0 input; on others it reads an input dim past the input's
// rank and reports a garbage size), in the custom and the generic form.
//   upstream: fixed by llvm/llvm-project#211203 (its verifier now rejects
//             duplicates) after the 22 branch; mlir-opt 22.1.8 dies of
//             SIGSEGV (exit 139) on both cases below.
//   emb:      the tools scan the source before parsing (tools/common/
//             upstream.c) and reject the repeated dimension at the op.
// When an mlir-opt line starts failing, MLIR fixed the bug: update the
// status here and in docs/emb-opt.md, and drop the scan's case.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: not emb-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not emb-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %if mlir-opt %{ sed -n '/@custom(/,/^}/p' %s | not --crash %mlir_opt %}
// RUN: %if mlir-opt %{ sed -n '/@generic(/,/^}/p' %s | not --crash %mlir_opt %}

// CHECK-NOT: internal error
// TOOL-NOT: internal error

// CHECK: broadcast_repeated_dims.mlir:[[# @LINE + 3]]:8: error: 'linalg.broadcast' op dimensions has 0 twice: each added dimension is named once (MLIR 22's linalg.broadcast verifier reads past the input's shape on a repeated one, an upstream bug fixed after 22, llvm/llvm-project#211203)
// TOOL: broadcast_repeated_dims.mlir:[[# @LINE + 2]]:8: error: 'linalg.broadcast' op dimensions has 0 twice
func.func @custom(%x: tensor<i32>, %e: tensor<32x2xi32>) -> tensor<32x2xi32> {
  %0 = linalg.broadcast ins(%x : tensor<i32>) outs(%e : tensor<32x2xi32>) dimensions = [0, 0]
  return %0 : tensor<32x2xi32>
}

// -----

// CHECK: broadcast_repeated_dims.mlir:[[# @LINE + 2]]:8: error: 'linalg.broadcast' op dimensions has 1 twice
func.func @generic(%x: tensor<4xf32>, %e: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %0 = "linalg.broadcast"(%x, %e) <{dimensions = array<i64: 1, 1>}> ({
  ^bb0(%in: f32, %init: f32):
    linalg.yield %in : f32
  }) : (tensor<4xf32>, tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}

// CHECK-NOT: internal error
// TOOL-NOT: internal error
