// What the scan for inputs that crash MLIR 22 (tools/common/upstream.c)
// must let through: the same ops and attributes in their valid forms, and
// the crashing forms where they are not code (comments, strings, names).
// REQUIRES: emb-compiler
// RUN: emb-opt %s | FileCheck %s

// array<index ...> in a comment, array<i64: ...>, and !llvm.array of index.
// CHECK-LABEL: func.func @arrays
// CHECK-SAME: a = array<i64: 1, 2>
// CHECK-SAME: b = "array<index: 1>"
func.func @arrays() -> !llvm.array<2 x index> attributes {a = array<i64: 1, 2>, b = "array<index: 1>"} {
  %0 = llvm.mlir.undef : !llvm.array<2 x index>
  return %0 : !llvm.array<2 x index>
}

// tensor.concat along dim 1; a value named %dim; "dim(-1)" in a comment.
// CHECK-LABEL: func.func @concat
// CHECK: tensor.concat dim(1)
func.func @concat(%dim: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = tensor.concat dim(1) %dim, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32> // dim(-1)
  return %0 : tensor<2x6xf32>
}

// Reshapes whose reassociation is empty as a whole (to and from rank 0),
// not a group of it.
// CHECK-LABEL: func.func @reshapes
// CHECK: tensor.collapse_shape %{{.*}} []
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1, 1]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 3]
func.func @reshapes(%a: tensor<1x1xf32>, %b: tensor<6xf32>) -> (tensor<1x1xf32>, tensor<2x3xf32>) {
  %0 = tensor.collapse_shape %a [] : tensor<1x1xf32> into tensor<f32>
  %1 = tensor.expand_shape %0 [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %2 = tensor.expand_shape %b [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  return %1, %2 : tensor<1x1xf32>, tensor<2x3xf32>
}

// Dense-array lists of linalg's custom forms that parse: spaced out over
// lines with a comment, hex; and the generic form's array<i64: ...>
// (linalg_dense_array.mlir: a negative or empty list parses too, for the
// verifier to refuse).
// CHECK-LABEL: func.func @dense_arrays
// CHECK: linalg.transpose ins({{.*}}) outs({{.*}}) permutation = [1, 0]
// CHECK: linalg.broadcast ins({{.*}}) outs({{.*}}) dimensions = [0]
// CHECK: linalg.reduce ins({{.*}}) outs({{.*}}) dimensions = [1]
// CHECK: linalg.transpose ins({{.*}}) outs({{.*}}) permutation = [1, 0]
func.func @dense_arrays(%x: tensor<2x3xf32>, %t: tensor<3x2xf32>, %v: tensor<3xf32>, %b: tensor<2x3xf32>, %r: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<3x2xf32>) {
  %0 = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%t : tensor<3x2xf32>) permutation = [ 1 , // first
    0 ]
  %1 = linalg.broadcast ins(%v : tensor<3xf32>) outs(%b : tensor<2x3xf32>) dimensions = [0x0]
  %2 = linalg.reduce ins(%x : tensor<2x3xf32>) outs(%r : tensor<2xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  %3 = "linalg.transpose"(%x, %t) <{permutation = array<i64: 1, 0>}> ({
  ^bb0(%in: f32, %init: f32):
    linalg.yield %in : f32
  }) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<3x2xf32>
}

// A broadcast adding two dims, named once each, in the generic form.
// CHECK-LABEL: func.func @broadcast_two
// CHECK: linalg.broadcast ins({{.*}}) outs({{.*}}) dimensions = [0, 1]
func.func @broadcast_two(%s: tensor<f32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "linalg.broadcast"(%s, %b) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%in: f32, %init: f32):
    linalg.yield %in : f32
  }) : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}


// Batch matmuls whose element types the region builder casts between
// (integers and floats, complex with complex), a layout on an operand.
// CHECK-LABEL: func.func @batch_matmuls
// CHECK-COUNT-3: linalg.batch_matmul
func.func @batch_matmuls(%a: memref<2x3x4xi1>, %b: memref<2x4x5xf32>, %c: memref<2x3x5xbf16>, %x: memref<2x3x4xcomplex<f32>>, %y: memref<2x4x5xcomplex<f32>>, %z: memref<2x3x5xcomplex<f32>>, %s: memref<2x3x4xf32, strided<[12, 4, 1]>>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xi1>, memref<2x4x5xf32>) outs(%c : memref<2x3x5xbf16>)
  linalg.batch_matmul ins(%x, %y : memref<2x3x4xcomplex<f32>>, memref<2x4x5xcomplex<f32>>) outs(%z : memref<2x3x5xcomplex<f32>>)
  linalg.batch_matmul ins(%s, %b : memref<2x3x4xf32, strided<[12, 4, 1]>>, memref<2x4x5xf32>) outs(%c : memref<2x3x5xbf16>)
  return
}

// tensor.from_elements whose count matches, of element types the count scan
// reads past (a dialect's type, complex, a vector), and of a dynamic type
// (the verifier's to refuse: not the scan's).
// CHECK-LABEL: func.func @from_elements
// CHECK: tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xcomplex<f32>>
// CHECK: tensor.from_elements %{{.*}} : tensor<1x!emb.table_handle>
// CHECK: tensor.from_elements %{{.*}} : tensor<1x1xvector<4xf32>>
func.func @from_elements(%a: complex<f32>, %t: !emb.table_handle, %v: vector<4xf32>) -> (tensor<2xcomplex<f32>>, tensor<1x!emb.table_handle>, tensor<1x1xvector<4xf32>>) {
  %0 = tensor.from_elements %a, %a : tensor<2xcomplex<f32>>
  %1 = tensor.from_elements %t : tensor<1x!emb.table_handle>
  %2 = tensor.from_elements %v : tensor<1x1xvector<4xf32>>
  return %0, %1, %2 : tensor<2xcomplex<f32>>, tensor<1x!emb.table_handle>, tensor<1x1xvector<4xf32>>
}
