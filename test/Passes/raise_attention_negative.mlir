// Where emb-raise-attention must leave the IR alone, and the remarks that
// say why.
// RUN: emb-opt --allow-unregistered-dialect --split-input-file --emb-raise-attention %s 2>/dev/null | FileCheck %s
// RUN: emb-opt --allow-unregistered-dialect --split-input-file --emb-raise-attention %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// REQUIRES: emb-compiler

// A softmax over the query rows (dim 1), not over the keys: each key's
// weights sum to one, which is not attention.
// CHECK-LABEL: func.func @softmax_over_queries
// CHECK: linalg.batch_matmul
// CHECK-NOT: "emb.attention"
func.func @softmax_over_queries(%query: tensor<4x3x16xf32>, %key: tensor<4x6x16xf32>, %value: tensor<4x6x16xf32>) -> tensor<4x3x16xf32> {
  %e1 = tensor.empty() : tensor<4x16x6xf32>
  %t2 = linalg.transpose ins(%key : tensor<4x6x16xf32>) outs(%e1 : tensor<4x16x6xf32>) permutation = [0, 2, 1]
  %c3 = arith.constant 0.000000e+00 : f32
  %e5 = tensor.empty() : tensor<4x3x6xf32>
  %f4 = linalg.fill ins(%c3 : f32) outs(%e5 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %mm6 = linalg.batch_matmul ins(%query, %t2 : tensor<4x3x16xf32>, tensor<4x16x6xf32>) outs(%f4 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %c7 = arith.constant 0 : i64
  %e9 = tensor.empty() : tensor<4x6xi64>
  %f8 = linalg.fill ins(%c7 : i64) outs(%e9 : tensor<4x6xi64>) -> tensor<4x6xi64>
  %c10 = arith.constant 0xFF800000 : f32
  %e12 = tensor.empty() : tensor<4x6xf32>
  %f11 = linalg.fill ins(%c10 : f32) outs(%e12 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %max13:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%mm6 : tensor<4x3x6xf32>) outs(%f11, %f8 : tensor<4x6xf32>, tensor<4x6xi64>) {
  ^bb0(%a0: f32, %a1: f32, %a2: i64):
    %i = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %a0, %a1 : f32
    %gt = arith.cmpf ogt, %a0, %a1 : f32
    %s = arith.select %gt, %i64, %a2 : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<4x6xf32>, tensor<4x6xi64>)
  %mk14 = tensor.expand_shape %max13#0 [[0, 1], [2]] output_shape [4, 1, 6] : tensor<4x6xf32> into tensor<4x1x6xf32>
  %e16 = tensor.empty() : tensor<4x3x6xf32>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm6, %mk14 : tensor<4x3x6xf32>, tensor<4x1x6xf32>) outs(%e16 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.subf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6xf32>
  %e18 = tensor.empty() : tensor<4x3x6xf32>
  %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g15 : tensor<4x3x6xf32>) outs(%e18 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %e = math.exp %a0 : f32
    linalg.yield %e : f32
  } -> tensor<4x3x6xf32>
  %c19 = arith.constant 0.000000e+00 : f32
  %e21 = tensor.empty() : tensor<4x1x6xf32>
  %f20 = linalg.fill ins(%c19 : f32) outs(%e21 : tensor<4x1x6xf32>) -> tensor<4x1x6xf32>
  %g22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%g17 : tensor<4x3x6xf32>) outs(%f20 : tensor<4x1x6xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x1x6xf32>
  %e24 = tensor.empty() : tensor<4x3x6xf32>
  %g23 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g17, %g22 : tensor<4x3x6xf32>, tensor<4x1x6xf32>) outs(%e24 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.divf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6xf32>
  %c25 = arith.constant 0.000000e+00 : f32
  %e27 = tensor.empty() : tensor<4x3x16xf32>
  %f26 = linalg.fill ins(%c25 : f32) outs(%e27 : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  // REMARK: [[@LINE+1]]:{{[0-9]+}}: remark: emb-raise-attention: softmax reduces over dim 1, not the key dim
  %mm28 = linalg.batch_matmul ins(%g23, %value : tensor<4x3x6xf32>, tensor<4x6x16xf32>) outs(%f26 : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %mm28 : tensor<4x3x16xf32>
}

// -----

// v scaled before the product: emb.attention has no factor on v.
// CHECK-LABEL: func.func @scaled_v
// CHECK: linalg.batch_matmul
// CHECK-NOT: "emb.attention"
func.func @scaled_v(%query: tensor<4x3x16xf32>, %key: tensor<4x6x16xf32>, %value: tensor<4x6x16xf32>) -> tensor<4x3x16xf32> {
  %e1 = tensor.empty() : tensor<4x16x6xf32>
  %t2 = linalg.transpose ins(%key : tensor<4x6x16xf32>) outs(%e1 : tensor<4x16x6xf32>) permutation = [0, 2, 1]
  %c3 = arith.constant 0.000000e+00 : f32
  %e5 = tensor.empty() : tensor<4x3x6xf32>
  %f4 = linalg.fill ins(%c3 : f32) outs(%e5 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %mm6 = linalg.batch_matmul ins(%query, %t2 : tensor<4x3x16xf32>, tensor<4x16x6xf32>) outs(%f4 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %c7 = arith.constant 0 : i64
  %e9 = tensor.empty() : tensor<4x3xi64>
  %f8 = linalg.fill ins(%c7 : i64) outs(%e9 : tensor<4x3xi64>) -> tensor<4x3xi64>
  %c10 = arith.constant 0xFF800000 : f32
  %e12 = tensor.empty() : tensor<4x3xf32>
  %f11 = linalg.fill ins(%c10 : f32) outs(%e12 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %max13:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%mm6 : tensor<4x3x6xf32>) outs(%f11, %f8 : tensor<4x3xf32>, tensor<4x3xi64>) {
  ^bb0(%a0: f32, %a1: f32, %a2: i64):
    %i = linalg.index 2 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %a0, %a1 : f32
    %gt = arith.cmpf ogt, %a0, %a1 : f32
    %s = arith.select %gt, %i64, %a2 : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<4x3xf32>, tensor<4x3xi64>)
  %mk14 = tensor.expand_shape %max13#0 [[0], [1, 2]] output_shape [4, 3, 1] : tensor<4x3xf32> into tensor<4x3x1xf32>
  %e16 = tensor.empty() : tensor<4x3x6xf32>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm6, %mk14 : tensor<4x3x6xf32>, tensor<4x3x1xf32>) outs(%e16 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.subf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6xf32>
  %e18 = tensor.empty() : tensor<4x3x6xf32>
  %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g15 : tensor<4x3x6xf32>) outs(%e18 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %e = math.exp %a0 : f32
    linalg.yield %e : f32
  } -> tensor<4x3x6xf32>
  %c19 = arith.constant 0.000000e+00 : f32
  %e21 = tensor.empty() : tensor<4x3x1xf32>
  %f20 = linalg.fill ins(%c19 : f32) outs(%e21 : tensor<4x3x1xf32>) -> tensor<4x3x1xf32>
  %g22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g17 : tensor<4x3x6xf32>) outs(%f20 : tensor<4x3x1xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x1xf32>
  %e24 = tensor.empty() : tensor<4x3x6xf32>
  %g23 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g17, %g22 : tensor<4x3x6xf32>, tensor<4x3x1xf32>) outs(%e24 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.divf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6xf32>
  %e26 = tensor.empty() : tensor<4x6x16xf32>
  %g25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%value : tensor<4x6x16xf32>) outs(%e26 : tensor<4x6x16xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %c = arith.constant 5.000000e-01 : f32
    %m = arith.mulf %a0, %c : f32
    linalg.yield %m : f32
  } -> tensor<4x6x16xf32>
  %c27 = arith.constant 0.000000e+00 : f32
  %e29 = tensor.empty() : tensor<4x3x16xf32>
  %f28 = linalg.fill ins(%c27 : f32) outs(%e29 : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  // REMARK: [[@LINE+1]]:{{[0-9]+}}: remark: emb-raise-attention: v is scaled by 0.5
  %mm30 = linalg.batch_matmul ins(%g23, %g25 : tensor<4x3x6xf32>, tensor<4x6x16xf32>) outs(%f28 : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %mm30 : tensor<4x3x16xf32>
}

// -----

// exp(x) / sum(exp(x)) without subtracting the row max: numerically not the
// softmax emb.attention computes.
// CHECK-LABEL: func.func @unshifted_softmax
// CHECK: linalg.batch_matmul
// CHECK-NOT: "emb.attention"
func.func @unshifted_softmax(%query: tensor<4x3x16xf32>, %key: tensor<4x6x16xf32>, %value: tensor<4x6x16xf32>) -> tensor<4x3x16xf32> {
  %e1 = tensor.empty() : tensor<4x16x6xf32>
  %t2 = linalg.transpose ins(%key : tensor<4x6x16xf32>) outs(%e1 : tensor<4x16x6xf32>) permutation = [0, 2, 1]
  %c3 = arith.constant 0.000000e+00 : f32
  %e5 = tensor.empty() : tensor<4x3x6xf32>
  %f4 = linalg.fill ins(%c3 : f32) outs(%e5 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %mm6 = linalg.batch_matmul ins(%query, %t2 : tensor<4x3x16xf32>, tensor<4x16x6xf32>) outs(%f4 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %e8 = tensor.empty() : tensor<4x3x6xf32>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm6 : tensor<4x3x6xf32>) outs(%e8 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %e = math.exp %a0 : f32
    linalg.yield %e : f32
  } -> tensor<4x3x6xf32>
  %c9 = arith.constant 0.000000e+00 : f32
  %e11 = tensor.empty() : tensor<4x3x1xf32>
  %f10 = linalg.fill ins(%c9 : f32) outs(%e11 : tensor<4x3x1xf32>) -> tensor<4x3x1xf32>
  %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g7 : tensor<4x3x6xf32>) outs(%f10 : tensor<4x3x1xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x1xf32>
  %e14 = tensor.empty() : tensor<4x3x6xf32>
  %g13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g7, %g12 : tensor<4x3x6xf32>, tensor<4x3x1xf32>) outs(%e14 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.divf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6xf32>
  %c15 = arith.constant 0.000000e+00 : f32
  %e17 = tensor.empty() : tensor<4x3x16xf32>
  %f16 = linalg.fill ins(%c15 : f32) outs(%e17 : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  // REMARK: [[@LINE+1]]:{{[0-9]+}}: remark: emb-raise-attention: the softmax is not exp(x - max(x)) / sum(exp(x - max(x))) over the key dim
  %mm18 = linalg.batch_matmul ins(%g13, %value : tensor<4x3x6xf32>, tensor<4x6x16xf32>) outs(%f16 : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %mm18 : tensor<4x3x16xf32>
}

// -----

// v of head dim 4 while q and k have 16: emb.attention takes one head dim.
// CHECK-LABEL: func.func @other_v_dim
// CHECK: linalg.batch_matmul
// CHECK-NOT: "emb.attention"
func.func @other_v_dim(%query: tensor<4x3x16xf32>, %key: tensor<4x6x16xf32>, %value: tensor<4x6x4xf32>) -> tensor<4x3x4xf32> {
  %e1 = tensor.empty() : tensor<4x16x6xf32>
  %t2 = linalg.transpose ins(%key : tensor<4x6x16xf32>) outs(%e1 : tensor<4x16x6xf32>) permutation = [0, 2, 1]
  %c3 = arith.constant 0.000000e+00 : f32
  %e5 = tensor.empty() : tensor<4x3x6xf32>
  %f4 = linalg.fill ins(%c3 : f32) outs(%e5 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %mm6 = linalg.batch_matmul ins(%query, %t2 : tensor<4x3x16xf32>, tensor<4x16x6xf32>) outs(%f4 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %c7 = arith.constant 0 : i64
  %e9 = tensor.empty() : tensor<4x3xi64>
  %f8 = linalg.fill ins(%c7 : i64) outs(%e9 : tensor<4x3xi64>) -> tensor<4x3xi64>
  %c10 = arith.constant 0xFF800000 : f32
  %e12 = tensor.empty() : tensor<4x3xf32>
  %f11 = linalg.fill ins(%c10 : f32) outs(%e12 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %max13:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%mm6 : tensor<4x3x6xf32>) outs(%f11, %f8 : tensor<4x3xf32>, tensor<4x3xi64>) {
  ^bb0(%a0: f32, %a1: f32, %a2: i64):
    %i = linalg.index 2 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %a0, %a1 : f32
    %gt = arith.cmpf ogt, %a0, %a1 : f32
    %s = arith.select %gt, %i64, %a2 : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<4x3xf32>, tensor<4x3xi64>)
  %mk14 = tensor.expand_shape %max13#0 [[0], [1, 2]] output_shape [4, 3, 1] : tensor<4x3xf32> into tensor<4x3x1xf32>
  %e16 = tensor.empty() : tensor<4x3x6xf32>
  %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm6, %mk14 : tensor<4x3x6xf32>, tensor<4x3x1xf32>) outs(%e16 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.subf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6xf32>
  %e18 = tensor.empty() : tensor<4x3x6xf32>
  %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g15 : tensor<4x3x6xf32>) outs(%e18 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %e = math.exp %a0 : f32
    linalg.yield %e : f32
  } -> tensor<4x3x6xf32>
  %c19 = arith.constant 0.000000e+00 : f32
  %e21 = tensor.empty() : tensor<4x3x1xf32>
  %f20 = linalg.fill ins(%c19 : f32) outs(%e21 : tensor<4x3x1xf32>) -> tensor<4x3x1xf32>
  %g22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g17 : tensor<4x3x6xf32>) outs(%f20 : tensor<4x3x1xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x1xf32>
  %e24 = tensor.empty() : tensor<4x3x6xf32>
  %g23 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g17, %g22 : tensor<4x3x6xf32>, tensor<4x3x1xf32>) outs(%e24 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.divf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6xf32>
  %c25 = arith.constant 0.000000e+00 : f32
  %e27 = tensor.empty() : tensor<4x3x4xf32>
  %f26 = linalg.fill ins(%c25 : f32) outs(%e27 : tensor<4x3x4xf32>) -> tensor<4x3x4xf32>
  // REMARK: [[@LINE+1]]:{{[0-9]+}}: remark: emb-raise-attention: v has head dim 4 and q 16; emb.attention takes one head dim
  %mm28 = linalg.batch_matmul ins(%g23, %value : tensor<4x3x6xf32>, tensor<4x6x4xf32>) outs(%f26 : tensor<4x3x4xf32>) -> tensor<4x3x4xf32>
  return %mm28 : tensor<4x3x4xf32>
}

// -----

// tm_tensor.attention with a mask (a fourth input): emb.attention has none.
// CHECK-LABEL: func.func @tm_tensor_mask
// CHECK: "tm_tensor.attention"
// CHECK-NOT: "emb.attention"
func.func @tm_tensor_mask(%q: tensor<4x3x16xf32>, %k: tensor<4x6x16xf32>, %v: tensor<4x6x16xf32>, %mask: tensor<4x3x6xf32>) -> tensor<4x3x16xf32> {
  %0 = tensor.empty() : tensor<4x3x16xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-attention: tm_tensor.attention with a mask; emb.attention has none
  %1 = "tm_tensor.attention"(%q, %k, %v, %mask, %0) <{operandSegmentSizes = array<i32: 4, 1>}> : (tensor<4x3x16xf32>, tensor<4x6x16xf32>, tensor<4x6x16xf32>, tensor<4x3x6xf32>, tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %1 : tensor<4x3x16xf32>
}
