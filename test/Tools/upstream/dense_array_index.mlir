// A dense array of `index` crashes MLIR 22's attribute parser: it asks the
// element type for a bit width, which `index` does not have.
//   upstream: llvm/llvm-project#179045, fixed by #179075 after the 22
//             branch; mlir-opt 22.1.8 still dies of SIGSEGV (exit 139) on
//             every case below.
//   emb:      the tools scan the source before parsing (tools/common/
//             upstream.c) and reject the form with a located error.
// When the mlir-opt line starts failing, MLIR fixed the bug: update the
// status here and in docs/emb-opt.md, and drop the scan's case.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: not emb-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not emb-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %if mlir-opt %{ not --crash %mlir_opt %s %}

// CHECK-NOT: internal error
// TOOL-NOT: internal error

// On a function, in the custom form.
// CHECK: dense_array_index.mlir:[[# @LINE + 2]]:32: error: array<index: ...> is not supported: MLIR 22's dense-array parser crashes on the index element type (an upstream bug, llvm/llvm-project#179045); write array<i64: ...>
// TOOL: dense_array_index.mlir:[[# @LINE + 1]]:32: error: array<index: ...> is not supported
func.func @f() attributes {a = array<index: 1, 2>} {
  return
}

// -----

// Empty, spaced out, on an op in the generic form.
// CHECK: dense_array_index.mlir:[[# @LINE + 1]]:25: error: array<index: ...> is not supported
"func.func"() ({}) {a = array < index >, function_type = () -> (), sym_name = "g", sym_visibility = "private"} : () -> ()

// CHECK-NOT: internal error
// TOOL-NOT: internal error
