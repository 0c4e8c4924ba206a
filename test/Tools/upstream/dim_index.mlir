// tensor.dim and memref.dim with a constant index that is not a dim of the
// operand: MLIR leaves the result undefined; under emb's tools (which load
// every dialect they lower through) MLIR 22's canonicalizer crashes on a
// negative one (found by emb-fuzz as a crash in emb-run's lowering).
//   upstream: not found reported in llvm/llvm-project; mlir-opt 22.1.8
//             --canonicalize keeps the op (the crash needs a dialect the
//             input does not name loaded).
//   emb:      the tools walk the parsed module before any pass
//             (tools/common/upstream.c) and reject the index at the op.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file --canonicalize %s 2>&1 | FileCheck %s
// RUN: not emb-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not emb-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %if mlir-opt %{ %mlir_opt --split-input-file --canonicalize %s -o /dev/null %}

// CHECK-NOT: internal error
// TOOL-NOT: internal error

// CHECK: dim_index.mlir:[[# @LINE + 4]]:10: error: 'memref.dim' op index -1 is not a dim of its operand, which has 2 (MLIR leaves the result undefined, and MLIR 22's canonicalizer crashes on a negative index under emb's tools, an upstream bug)
// TOOL: dim_index.mlir:[[# @LINE + 3]]:10: error: 'memref.dim' op index -1 is not a dim of its operand
func.func @memref_negative(%m: memref<?x16xf32>) -> index {
  %c = arith.constant -1 : index
  %dim = memref.dim %m, %c : memref<?x16xf32>
  return %dim : index
}

// -----

// The fuzz case, reduced: a wrap of negative ids by a row count read with
// dim -1.
// CHECK: dim_index.mlir:[[# @LINE + 3]]:10: error: 'tensor.dim' op index -1 is not a dim of its operand, which has 2
func.func @tensor_negative(%user: tensor<?x16xf32>) -> i64 {
  %c = arith.constant -1 : index
  %dim = tensor.dim %user, %c : tensor<?x16xf32>
  %rows = arith.index_cast %dim : index to i64
  return %rows : i64
}

// -----

// One past the rank.
// CHECK: dim_index.mlir:[[# @LINE + 3]]:10: error: 'tensor.dim' op index 2 is not a dim of its operand, which has 2
func.func @past_rank(%t: tensor<?x16xf32>) -> index {
  %c = arith.constant 2 : index
  %dim = tensor.dim %t, %c : tensor<?x16xf32>
  return %dim : index
}

// -----

// In range: kept.
// CHECK-LABEL: func.func @in_range
func.func @in_range(%t: tensor<?x16xf32>) -> index {
  %c = arith.constant 0 : index
  %dim = tensor.dim %t, %c : tensor<?x16xf32>
  return %dim : index
}

// CHECK-NOT: internal error
// TOOL-NOT: internal error
