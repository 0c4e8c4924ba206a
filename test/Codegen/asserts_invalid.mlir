// The cf.asserts whose failing path emb cannot make skip what they guard are
// refused at the assert (asserts.c).
// RUN: not emb-opt --split-input-file --emb-lower-to-runtime %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// In a region of several blocks, the rest of the block may define values
// the other blocks use.
func.func @blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<4xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %ok = arith.cmpf oge, %v, %zero : f32
  // CHECK: asserts_invalid.mlir:[[@LINE+1]]:3: error: 'cf.assert' op cannot be lowered for the cpu target: its region has more than one block, so the rest of its block cannot be skipped
  cf.assert %ok, "negative"
  cf.br ^bb1
^bb1:
  return %x : tensor<4xf32>
}

// -----

// A loop body that yields a dynamically shaped tensor: the failing path has
// no value of that shape to yield.
func.func @loop(%x: tensor<?xf32>, %n: tensor<i64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n0 = tensor.extract %n[] : tensor<i64>
  %ub = arith.index_cast %n0 : i64 to index
  %r = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %x) -> tensor<?xf32> {
    %ok = arith.cmpi slt, %i, %c1 : index
    // CHECK: asserts_invalid.mlir:[[@LINE+1]]:5: error: 'cf.assert' op cannot be lowered for the cpu target: its block yields tensor<?xf32>, which the failing path has no value for
    cf.assert %ok, "one iteration"
    scf.yield %acc : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
