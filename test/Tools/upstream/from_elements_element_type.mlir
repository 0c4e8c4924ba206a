// from_elements_count.mlir's case with other element types: the scan before
// parsing knew only signless integers and floats, then any integer (emb-fuzz
// seed 1224, execution 2615: ui8), and let the rest (a dialect's type,
// complex, vectors) through to MLIR 22's parser, which aborted (emb-fuzz seed
// 1231: !emb.table_handle). It now reads the count whatever the element type.
//   upstream: as from_elements_count.mlir.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: %if mlir-opt %{ not --crash %mlir_opt %s %}

// CHECK-NOT: internal error
// CHECK: from_elements_element_type.mlir:[[# @LINE + 2]]:8: error: custom op 'tensor.from_elements' number of operands and types do not match: got 0 operands and 9223372036854775807 types (checked before parsing
func.func @unsigned() -> tensor<9223372036854775807xui8> {
  %0 = tensor.from_elements : tensor<9223372036854775807xui8>
  return %0 : tensor<9223372036854775807xui8>
}

// -----

// CHECK: from_elements_element_type.mlir:[[# @LINE + 2]]:8: error: custom op 'tensor.from_elements' number of operands and types do not match: got 0 operands and 9223372036854775807 types
func.func @dialect_type() -> tensor<9223372036854775807x!emb.table_handle> {
  %0 = tensor.from_elements : tensor<9223372036854775807x!emb.table_handle>
  return %0 : tensor<9223372036854775807x!emb.table_handle>
}

// -----

// CHECK: from_elements_element_type.mlir:[[# @LINE + 2]]:8: error: custom op 'tensor.from_elements' number of operands and types do not match: got 1 operands and 4294967296 types
func.func @complex(%a: complex<f32>) -> tensor<65536x65536xcomplex<f32>> {
  %0 = tensor.from_elements %a : tensor<65536x65536xcomplex<f32>>
  return %0 : tensor<65536x65536xcomplex<f32>>
}

// -----

// CHECK: from_elements_element_type.mlir:[[# @LINE + 2]]:8: error: custom op 'tensor.from_elements' number of operands and types do not match: got 0 operands and 8589934592 types
func.func @vector() -> tensor<8589934592xvector<2x[4]xf32>, "enc"> {
  %0 = tensor.from_elements : tensor<8589934592xvector<2x[4]xf32>, "enc">
  return %0 : tensor<8589934592xvector<2x[4]xf32>, "enc">
}
