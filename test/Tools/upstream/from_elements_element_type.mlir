// from_elements_count.mlir's case with an unsigned element type: the scan
// before parsing knew only signless integers and floats, and let this one
// through to MLIR 22's parser, which aborted (emb-fuzz seed 1224,
// execution 2615). It now reads the count of any element type.
//   upstream: as from_elements_count.mlir.
// REQUIRES: emb-compiler
// RUN: not emb-opt %s 2>&1 | FileCheck %s
// RUN: %if mlir-opt %{ not --crash %mlir_opt %s %}

// CHECK-NOT: internal error
// CHECK: from_elements_element_type.mlir:[[# @LINE + 2]]:8: error: custom op 'tensor.from_elements' number of operands and types do not match: got 0 operands and 9223372036854775807 types (checked before parsing
func.func @unsigned() -> tensor<9223372036854775807xui8> {
  %0 = tensor.from_elements : tensor<9223372036854775807xui8>
  return %0 : tensor<9223372036854775807xui8>
}
