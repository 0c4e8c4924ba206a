// tensor.from_elements in custom form with a result type of more elements
// than it has operands: MLIR 22's parser makes a list of as many types
// before it compares the counts, and aborts when the count passes 2^32
// (LLVM ERROR: SmallVector unable to grow); smaller counts get its
// "number of operands and types do not match" error.
//   upstream: not found reported in llvm/llvm-project; mlir-opt 22.1.8
//             aborts (exit 134) on the first case below. Found by emb-fuzz.
//   emb:      the tools scan the source before parsing (tools/common/
//             upstream.c) and report MLIR's own error at the op, for any
//             count that differs.
// When the mlir-opt line starts failing, MLIR fixed the bug: update the
// status here and in docs/reliability.md, and drop the scan's case.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: not emb-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %if mlir-opt %{ not --crash %mlir_opt %s %}

// CHECK-NOT: internal error
// TOOL-NOT: internal error

// CHECK: from_elements_count.mlir:[[# @LINE + 3]]:8: error: custom op 'tensor.from_elements' number of operands and types do not match: got 0 operands and 9223372036854775807 types (checked before parsing: MLIR 22's parser first makes a list of that many types, and aborts past 2^32)
// TOOL: from_elements_count.mlir:[[# @LINE + 2]]:8: error: custom op 'tensor.from_elements' number of operands and types do not match
func.func @huge() -> tensor<9223372036854775807xi64> {
  %0 = tensor.from_elements : tensor<9223372036854775807xi64>
  return %0 : tensor<9223372036854775807xi64>
}

// -----

// CHECK: from_elements_count.mlir:[[# @LINE + 3]]:8: error: custom op 'tensor.from_elements' number of operands and types do not match: got 1 operands and 2 types
func.func @short(%a: i64) -> tensor<2xi64> {
  %c = arith.constant 0 : i64
  %0 = tensor.from_elements %a : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// As many operands as elements: accepted.
// CHECK-NOT: error
// CHECK-LABEL: func.func @fits
// CHECK: tensor.from_elements %{{.+}}, %{{.+}} : tensor<2xi64>
func.func @fits(%a: i64, %b: i64) -> tensor<2xi64> {
  %0 = tensor.from_elements %a, %b : tensor<2xi64>
  return %0 : tensor<2xi64>
}
