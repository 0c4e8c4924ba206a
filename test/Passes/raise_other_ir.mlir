// emb-raise on IR it has nothing to raise in: it is left as it was (up to
// emb-raise's canonicalize), without a remark and without reading past what
// the ops have (no results, rank 0, values made inside a body).
// RUN: emb-opt --split-input-file --emb-raise %s 2>&1 | FileCheck %s --implicit-check-not=remark:
// REQUIRES: emb-compiler

// Linalg on memrefs: no results to replace.
// CHECK-LABEL: func.func @memref_ops
// CHECK: linalg.batch_matmul ins(%{{.+}}, %{{.+}} : memref<2x3x4xf32>, memref<2x4x5xf32>) outs(%{{.+}} : memref<2x3x5xf32>)
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : memref<3x4xf32>, memref<4x5xf32>) outs(%{{.+}} : memref<3x5xf32>)
func.func @memref_ops(%a: memref<2x3x4xf32>, %b: memref<2x4x5xf32>, %c: memref<2x3x5xf32>, %m: memref<3x4xf32>, %n: memref<4x5xf32>, %o: memref<3x5xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf32>, memref<2x4x5xf32>) outs(%c : memref<2x3x5xf32>)
  linalg.matmul ins(%m, %n : memref<3x4xf32>, memref<4x5xf32>) outs(%o : memref<3x5xf32>)
  return
}

// -----

// A rank-0 copy and a rank-0 collapse of it: no loop to broadcast along,
// no dims to merge.
// CHECK-LABEL: func.func @rank_zero
// CHECK-NOT: "emb.
func.func @rank_zero(%s: tensor<f32>) -> tensor<f32> {
  %0 = tensor.empty() : tensor<f32>
  %1 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%s : tensor<f32>) outs(%0 : tensor<f32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<f32>
  %c = tensor.collapse_shape %1 [] : tensor<f32> into tensor<f32>
  return %c : tensor<f32>
}

// -----

// A generic that reads a tensor made inside its own body: no source
// captured from above, so no gather.
// CHECK-LABEL: func.func @body_tensor
// CHECK: linalg.generic
// CHECK-NOT: "emb.
func.func @body_tensor(%i: tensor<4xi64>) -> tensor<4x4xf32> {
  %0 = tensor.empty() : tensor<4x4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%i : tensor<4xi64>) outs(%0 : tensor<4x4xf32>) {
  ^bb0(%x: i64, %y: f32):
    %t = arith.constant dense<1.0> : tensor<2xf32>
    %k = arith.index_cast %x : i64 to index
    %v = tensor.extract %t[%k] : tensor<2xf32>
    linalg.yield %v : f32
  } -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}

// -----

// A batched product of two batched operands with a dynamic batch (neither
// an lce nor attention).
// CHECK-LABEL: func.func @dynamic_bmm
// CHECK: linalg.batch_matmul
// CHECK-NOT: "emb.
func.func @dynamic_bmm(%a: tensor<?x3x4xf32>, %x: tensor<?x4x5xf32>, %n: index) -> tensor<?x3x5xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x3x5xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  %r = linalg.batch_matmul ins(%a, %x : tensor<?x3x4xf32>, tensor<?x4x5xf32>) outs(%f : tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  return %r : tensor<?x3x5xf32>
}
