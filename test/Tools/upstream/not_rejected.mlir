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
