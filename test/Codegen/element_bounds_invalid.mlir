// A constant index outside a static dim of the model's own tensor.extract
// or tensor.insert (cpu target) is known to be out of range when the
// function is compiled: an error at the op names the index, the dim, its
// range and the type. (An emb-fuzz finding: a mutated constant made the
// compiled model read 65535 elements past a tensor<2xi64>.)
// RUN: not emb-opt --split-input-file --emb-lower-to-runtime %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// CHECK: element_bounds_invalid.mlir:[[#@LINE+4]]:8: error: 'tensor.extract' op cannot be lowered to the emb runtime (target cpu): index 65535 of dim 0 is outside 0..1 (tensor<2xi64>)
func.func @extract(%x: tensor<2xi64>) -> tensor<2xi64> {
  %c = arith.constant 65535 : index
  %y = arith.addi %x, %x : tensor<2xi64>
  %e = tensor.extract %x[%c] : tensor<2xi64>
  %r = tensor.insert %e into %y[%c] : tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// CHECK: element_bounds_invalid.mlir:[[#@LINE+5]]:8: error: 'tensor.insert' op cannot be lowered to the emb runtime (target cpu): index -1 of dim 1 is outside 0..2 (tensor<2x3xf32>)
func.func @insert(%x: tensor<2x3xf32>, %v: tensor<1xf32>) -> tensor<2x3xf32> {
  %c0 = arith.constant 0 : index
  %m = arith.constant -1 : index
  %e = tensor.extract %v[%c0] : tensor<1xf32>
  %r = tensor.insert %e into %x[%c0, %m] : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
