// The model's own tensor.extract and tensor.insert in a mixed function (cpu
// target): each index not known to be in range is compared with its dim
// before the access, which runs only when every index is inside; otherwise
// embrtCompiledCheckIndex records which op, function, location and dim,
// and a read yields zero, a write leaves the tensor as it was. Runs, with
// indices out of range: element_bounds_run.test. A constant index outside a
// static dim: element_bounds_invalid.mlir.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime %s | FileCheck %s
// REQUIRES: emb-compiler

// A read at indices from the model's inputs, of a dynamic and a static dim;
// a write at one of them.
// CHECK-DAG: llvm.mlir.global private constant @[[$D0:__emb_index_[0-9]+]]("tensor.extract in @gather ({{.*}}element_bounds.mlir:[[#@LINE+42]]:8): dim 0\00")
// CHECK-DAG: llvm.mlir.global private constant @[[$D1:__emb_index_[0-9]+]]("tensor.extract in @gather ({{.*}}element_bounds.mlir:[[#@LINE+41]]:8): dim 1\00")
// CHECK-DAG: llvm.mlir.global private constant @[[$INS:__emb_index_[0-9]+]]("tensor.insert in @gather ({{.*}}element_bounds.mlir:[[#@LINE+41]]:8): dim 0\00")
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[CTX:[^:]+]]: !llvm.ptr, %{{[^:]+}}: memref<?x3xf32>
// CHECK: %[[X:.+]] = bufferization.to_tensor %{{.+}} : memref<?x3xf32> to tensor<?x3xf32>
// CHECK: %[[I:.+]] = arith.index_cast %{{.+}} : i64 to index
// CHECK: %[[J:.+]] = arith.index_cast %{{.+}} : i64 to index
// CHECK: %[[ROWS:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3xf32>
// CHECK: %[[C3:.+]] = arith.constant 3 : index
// CHECK: %[[GE0:.+]] = arith.cmpi sge, %[[I]], %[[Z:.+]] : index
// CHECK: %[[LT0:.+]] = arith.cmpi slt, %[[I]], %[[ROWS]] : index
// CHECK: %[[IN0:.+]] = arith.andi %[[GE0]], %[[LT0]] : i1
// CHECK: %[[GE1:.+]] = arith.cmpi sge, %[[J]], %[[Z]] : index
// CHECK: %[[LT1:.+]] = arith.cmpi slt, %[[J]], %[[C3]] : index
// CHECK: %[[IN1:.+]] = arith.andi %[[GE1]], %[[LT1]] : i1
// CHECK: %[[OK:.+]] = arith.andi %[[IN0]], %[[IN1]] : i1
// CHECK: %[[V:.+]] = scf.if %[[OK]] -> (f32) {
// CHECK:   %[[E:.+]] = tensor.extract %[[X]][%[[I]], %[[J]]] : tensor<?x3xf32>
// CHECK:   scf.yield %[[E]] : f32
// CHECK: } else {
// CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:   %[[M0:.+]] = llvm.mlir.addressof @[[$D0]]
// CHECK:   func.call @embrtCompiledCheckIndex(%[[CTX]], %{{.+}}, %{{.+}}, %[[M0]]) : (!llvm.ptr, i64, i64, !llvm.ptr) -> i64
// CHECK:   %[[M1:.+]] = llvm.mlir.addressof @[[$D1]]
// CHECK:   func.call @embrtCompiledCheckIndex(%[[CTX]], %{{.+}}, %{{.+}}, %[[M1]])
// CHECK:   scf.yield %[[ZERO]] : f32
// CHECK: %[[R:.+]] = scf.if %{{.+}} -> (tensor<4xf32>) {
// CHECK:   %[[INS:.+]] = tensor.insert %[[V]] into %[[O:.+]][%[[J]]] : tensor<4xf32>
// CHECK:   scf.yield %[[INS]] : tensor<4xf32>
// CHECK: } else {
// CHECK:   llvm.mlir.addressof @[[$INS]]
// CHECK:   func.call @embrtCompiledCheckIndex
// CHECK:   scf.yield %[[O]] : tensor<4xf32>
// CHECK: bufferization.materialize_in_destination %[[R]]
func.func @gather(%x: tensor<?x3xf32>, %ij: tensor<2xi64>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.extract %ij[%c0] : tensor<2xi64>
  %b = tensor.extract %ij[%c1] : tensor<2xi64>
  %i = arith.index_cast %a : i64 to index
  %j = arith.index_cast %b : i64 to index
  %e = tensor.extract %x[%i, %j] : tensor<?x3xf32>
  %r = tensor.insert %e into %o[%j] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Constant indices inside static dims are known to be in range: no check.
// A constant index of a dynamic dim is checked.
// CHECK-LABEL: func.func @constants
// CHECK: %[[A:.+]] = tensor.extract %{{.+}}[%{{.+}}, %{{.+}}] : tensor<2x3xi64>
// CHECK-NOT: scf.if
// CHECK: %[[D:.+]] = tensor.dim
// CHECK: scf.if
// CHECK:   tensor.extract %{{.+}} : tensor<?xi64>
// CHECK-NOT: scf.if
// CHECK: return
func.func @constants(%t: tensor<2x3xi64>, %u: tensor<?xi64>) -> tensor<2xi64> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = tensor.extract %t[%c1, %c2] : tensor<2x3xi64>
  %b = tensor.extract %u[%c2] : tensor<?xi64>
  %r = tensor.from_elements %a, %b : tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// In a linalg body (torch-mlir's embedding_bag reads the table at an id
// with no assert): the element whose id is outside yields zero.
// CHECK-LABEL: func.func @bag_rows
// CHECK: linalg.generic
// CHECK: %[[ROW:.+]] = arith.index_cast
// CHECK: %[[COL:.+]] = linalg.index 1 : index
// CHECK: %[[V:.+]] = scf.if %{{.+}} -> (f32) {
// CHECK:   tensor.extract %{{.+}}[%[[ROW]], %[[COL]]] : tensor<10x4xf32>
// CHECK: } else {
// CHECK:   func.call @embrtCompiledCheckIndex
// CHECK: linalg.yield %[[V]] : f32
#ids = affine_map<(d0, d1) -> (d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @bag_rows(%table: tensor<10x4xf32>, %ids: tensor<6xi64>) -> tensor<6x4xf32> {
  %0 = tensor.empty() : tensor<6x4xf32>
  %1 = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<6xi64>) outs(%0 : tensor<6x4xf32>) {
  ^bb0(%id: i64, %acc: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %x = tensor.extract %table[%row, %col] : tensor<10x4xf32>
    linalg.yield %x : f32
  } -> tensor<6x4xf32>
  return %1 : tensor<6x4xf32>
}
