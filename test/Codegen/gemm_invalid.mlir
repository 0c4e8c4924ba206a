// A matmul that is not a chain codegen/gemm.c matches stays linalg: the cpu
// target compiles it with MLIR, the cuda target as a generated GPU kernel
// (gpu_kernels.mlir), which needs static shapes.
// RUN: not emb-opt --emb-lower-to-runtime=target=cuda %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// Accumulating into a tensor that is not a zero fill is not a chain, and its
// rows are dynamic.
// CHECK: error: 'linalg.matmul' op cannot be lowered to the emb runtime (target cuda): no GPU kernel for it: a GPU kernel needs static shapes, and it reads a tensor of dynamic shape
func.func @accumulate(%x: tensor<?x3xf32>, %w: tensor<3x5xf32>, %c: tensor<?x5xf32>) -> tensor<?x5xf32> {
  %mm = linalg.matmul ins(%x, %w : tensor<?x3xf32>, tensor<3x5xf32>) outs(%c : tensor<?x5xf32>) -> tensor<?x5xf32>
  return %mm : tensor<?x5xf32>
}
