// A matmul that is not a chain codegen/gemm.c matches stays linalg, which
// the cuda target refuses (the cpu target compiles it with MLIR).
// RUN: not emb-opt --emb-lower-to-runtime=target=cuda %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// Accumulating into a tensor that is not a zero fill is not a chain.
// CHECK: error: 'linalg.matmul' op cannot be lowered to the emb runtime (target cuda): every op must map to a runtime call, and emb has no GPU lowering for this one yet
func.func @accumulate(%x: tensor<4x3xf32>, %w: tensor<3x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %mm = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %mm : tensor<4x5xf32>
}
