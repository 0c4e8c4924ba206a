// tensor.expand_shape's verifier in MLIR 22 reads each reassociation index
// in 32 bits, so an index of 2^32 or more passes as its low bits (found by
// emb-fuzz as a crash under emb-raise): canonicalize then reads the whole
// index and crashes folding the reshape pair.
//   upstream: not found reported in llvm/llvm-project; mlir-opt 22.1.8
//             parses and verifies both cases and dies of SIGSEGV in
//             --canonicalize on the first.
//   emb:      the tools walk the parsed module before any pass
//             (tools/common/upstream.c) and reject a reassociation that
//             does not name the dims 0, 1, ... in order, at the op.
// When the mlir-opt line starts failing, MLIR fixed the bug: update the
// status here and in docs/emb-opt.md, and drop the walk's case.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file --emb-raise %s 2>&1 | FileCheck %s
// RUN: not emb-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not emb-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %if mlir-opt %{ %mlir_opt --allow-unregistered-dialect --split-input-file %s -o /dev/null %}
// RUN: %if mlir-opt %{ not --crash %mlir_opt --allow-unregistered-dialect --split-input-file --canonicalize %s %}

// CHECK-NOT: internal error
// TOOL-NOT: internal error

// An index far past the expanded type's rank (the fuzz case, reduced).
// CHECK: reshape_reassociation_range.mlir:[[# @LINE + 5]]:8: error: 'tensor.expand_shape' op reassociation group 0 names dim 9007199254740992 where dim 0 of the result type (rank 3) comes next: the groups must name its dims 0..2 in order (MLIR 22's verifier reads the index in 32 bits, and its canonicalizer crashes on one past the rank, an upstream bug)
// TOOL: reshape_reassociation_range.mlir:[[# @LINE + 4]]:8: error: 'tensor.expand_shape' op reassociation group 0 names dim 9007199254740992
func.func @through_reshapes(%ro: tensor<4x8xf16>, %idx: tensor<16xi32>) -> tensor<2x4x16xf16> {
  %0 = "emb.broadcast"(%ro, %idx) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<16x8xf16> into tensor<128xf16>
  %2 = tensor.expand_shape %1 [[9007199254740992, 1, 2]] output_shape [2, 4, 16] : tensor<128xf16> into tensor<2x4x16xf16>
  return %2 : tensor<2x4x16xf16>
}

// -----

// An index that is 2 in 32 bits: upstream reads it as dim 2.
// CHECK: reshape_reassociation_range.mlir:[[# @LINE + 2]]:8: error: 'tensor.expand_shape' op reassociation group 1 names dim 4294967298 where dim 2 of the result type (rank 3) comes next
func.func @wraps(%a: tensor<6x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tensor.expand_shape %a [[0, 1], [4294967298]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// CHECK-NOT: internal error
// TOOL-NOT: internal error
