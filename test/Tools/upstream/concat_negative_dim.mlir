// tensor.concat with a negative dim crashes MLIR 22's ConcatOp verifier
// (it indexes the operands' shape with the dim; a dim past the rank gets
// "concatenation dim must be less than the tensor rank").
//   upstream: not found reported in llvm/llvm-project; mlir-opt 22.1.8
//             dies of SIGSEGV (exit 139) on every case below, in the
//             parser's verification of the module.
//   emb:      the tools scan the source before parsing (tools/common/
//             upstream.c) and reject a negative dim, or one past INT64_MAX
//             (which the i64 attribute reads as negative), at the op.
// When the mlir-opt line starts failing, MLIR fixed the bug: update the
// status here and in docs/emb-opt.md, and drop the scan's case.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: not emb-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not emb-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %if mlir-opt %{ not --crash %mlir_opt %s %}

// CHECK-NOT: internal error
// TOOL-NOT: internal error

// The custom form.
// CHECK: concat_negative_dim.mlir:[[# @LINE + 3]]:8: error: 'tensor.concat' op dim is -1: it must be a dimension of the operands, 0 or more (MLIR 22's tensor.concat verifier crashes on a negative dim, an upstream bug)
// TOOL: concat_negative_dim.mlir:[[# @LINE + 2]]:8: error: 'tensor.concat' op dim is -1
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = tensor.concat dim(-1) %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// The generic form, the dim a property.
// CHECK: concat_negative_dim.mlir:[[# @LINE + 2]]:8: error: 'tensor.concat' op dim is -2
func.func @generic(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = "tensor.concat"(%a, %b) <{dim = -2 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// 2^64 - 1 is -1 as an i64.
// CHECK: concat_negative_dim.mlir:[[# @LINE + 2]]:8: error: 'tensor.concat' op dim is 18446744073709551615
func.func @wrapped(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = "tensor.concat"(%a, %b) {dim = 18446744073709551615 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// CHECK-NOT: internal error
// TOOL-NOT: internal error
