// The model's integer divisions in a mixed function (cpu target): a divisor
// that may be zero is compared with zero before the division, and a zero
// calls embrtCompiledAssert with the op, the function and the location; a
// signed division of the smallest value by -1 divides by 1 instead (it
// wraps); the division itself takes the safe divisor, so nothing traps. A
// division on tensors becomes a linalg.generic of the scalar division.
// Runs, with zero divisors: integer_division_run.test.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime %s | FileCheck %s
// REQUIRES: emb-compiler

// A signed remainder of scalars read from the inputs.
// CHECK-DAG: llvm.mlir.global private constant @[[$REM:__emb_division_[0-9]+]]("arith.remsi in @scalar ({{.*}}integer_division.mlir:[[#@LINE+21]]:8): division by zero\00")
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[CTX:[^:]+]]: !llvm.ptr
// CHECK: %[[X:.+]] = tensor.extract
// CHECK: %[[Y:.+]] = tensor.extract
// CHECK: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK: %[[ZERO:.+]] = arith.cmpi eq, %[[Y]], %{{.+}} : i32
// CHECK: scf.if %[[ZERO]] {
// CHECK:   %[[M:.+]] = llvm.mlir.addressof @[[$REM]]
// CHECK:   func.call @embrtCompiledAssert(%[[CTX]], %{{.+}}, %[[M]]) : (!llvm.ptr, i64, !llvm.ptr) -> ()
// CHECK: }
// CHECK: %[[M1:.+]] = arith.cmpi eq, %[[Y]], %c-1_i32 : i32
// CHECK: %[[MIN:.+]] = arith.cmpi eq, %[[X]], %c-2147483648_i32 : i32
// CHECK: %[[WRAPS:.+]] = arith.andi %[[MIN]], %[[M1]] : i1
// CHECK: %[[BAD:.+]] = arith.ori %[[ZERO]], %[[WRAPS]] : i1
// CHECK: %[[SAFE:.+]] = arith.select %[[BAD]], %[[ONE]], %[[Y]] : i32
// CHECK: arith.remsi %[[X]], %[[SAFE]] : i32
func.func @scalar(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<i32> {
  %c0 = arith.constant 0 : index
  %x = tensor.extract %a[%c0] : tensor<2xi32>
  %y = tensor.extract %b[%c0] : tensor<2xi32>
  %q = arith.remsi %x, %y : i32
  %t = tensor.from_elements %q : tensor<i32>
  return %t : tensor<i32>
}

// -----

// An unsigned division of tensors of a dynamic size: each element checked,
// no wrap.
// CHECK-DAG: llvm.mlir.global private constant @[[$DIV:__emb_division_[0-9]+]]("arith.divui in @tensor ({{.*}}integer_division.mlir:[[#@LINE+18]]:8): division by zero\00")
// CHECK-LABEL: func.func @tensor
// CHECK-SAME: (%[[CTX:[^:]+]]: !llvm.ptr
// CHECK: %[[A:.+]] = bufferization.to_tensor %{{.+}} : memref<?x3xi64> to tensor<?x3xi64>
// CHECK: %[[B:.+]] = bufferization.to_tensor %{{.+}} : memref<?x3xi64> to tensor<?x3xi64>
// CHECK: %[[N:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x3xi64>
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x3xi64>
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<?x3xi64>, tensor<?x3xi64>) outs(%[[E]] : tensor<?x3xi64>)
// CHECK: ^bb0(%[[X:.+]]: i64, %[[Y:.+]]: i64, %{{.+}}: i64):
// CHECK:   %[[ZERO:.+]] = arith.cmpi eq, %[[Y]], %{{.+}} : i64
// CHECK:   scf.if %[[ZERO]] {
// CHECK:     llvm.mlir.addressof @[[$DIV]]
// CHECK:     func.call @embrtCompiledAssert(%[[CTX]]
// CHECK-NOT: arith.andi
// CHECK:   %[[SAFE:.+]] = arith.select %[[ZERO]], %{{.+}}, %[[Y]] : i64
// CHECK:   %[[Q:.+]] = arith.divui %[[X]], %[[SAFE]] : i64
// CHECK:   linalg.yield %[[Q]] : i64
func.func @tensor(%a: tensor<?x3xi64>, %b: tensor<?x3xi64>) -> tensor<?x3xi64> {
  %q = arith.divui %a, %b : tensor<?x3xi64>
  return %q : tensor<?x3xi64>
}

// -----

// Constant divisors: 4 cannot trap (left as it is), -1 only wraps (no zero
// check, no error message).
// CHECK-NOT: __emb_division_
// CHECK-LABEL: func.func @constants
// CHECK: %[[A:.+]] = bufferization.to_tensor
// CHECK: %[[FOUR:.+]] = arith.constant dense<4> : tensor<4xi64>
// CHECK: arith.divsi %[[A]], %[[FOUR]] : tensor<4xi64>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.+]]: i64, %[[Y:.+]]: i64, %{{.+}}: i64):
// CHECK-NOT: scf.if
// CHECK:   %[[M1:.+]] = arith.cmpi eq, %[[Y]], %c-1_i64 : i64
// CHECK:   %[[MIN:.+]] = arith.cmpi eq, %[[X]], %c-9223372036854775808_i64 : i64
// CHECK:   %[[WRAPS:.+]] = arith.andi %[[MIN]], %[[M1]] : i1
// CHECK:   %[[SAFE:.+]] = arith.select %[[WRAPS]], %{{.+}}, %[[Y]] : i64
// CHECK:   arith.floordivsi %[[X]], %[[SAFE]] : i64
func.func @constants(%a: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %four = arith.constant dense<4> : tensor<4xi64>
  %minus = arith.constant dense<-1> : tensor<4xi64>
  %q = arith.divsi %a, %four : tensor<4xi64>
  %n = arith.floordivsi %a, %minus : tensor<4xi64>
  return %q, %n : tensor<4xi64>, tensor<4xi64>
}
