// emb-raise-attention: scaled dot-product attention as torch-mlir gives it
// (decomposed by the FX importer, or tm_tensor.attention) becomes
// emb.attention in its [B, L, H, D] layout.
// RUN: emb-opt --allow-unregistered-dialect --split-input-file --emb-raise-attention %s | FileCheck %s
// Keys and values broadcast from user rows: emb-ikbo reads them in place.
// RUN: emb-opt --allow-unregistered-dialect --split-input-file --emb-raise-attention --emb-ikbo %s | FileCheck %s --check-prefix=IKBO
// REQUIRES: emb-compiler

// The FX importer's SDPA on q, k, v transposed from [B, L, H, D]: q and k^T
// scaled by sqrt(1/sqrt(8)) each (their product is the scale), the
// _safe_softmax generics with their -inf guard, two batch_matmuls over
// B*H = 4. emb.attention reads the model's own [B, L, H, D] tensors; its
// result is transposed back to [B, H, Lq, D] (which the model's transpose
// then cancels, in canonicalize).
// CHECK-LABEL: func.func @sdpa_f32
// CHECK-SAME: (%[[Q:.+]]: tensor<2x3x2x8xf32>, %[[K:.+]]: tensor<2x5x2x8xf32>, %[[V:.+]]: tensor<2x5x2x8xf32>)
// CHECK: %[[O:.+]] = "emb.attention"(%[[Q]], %[[K]], %[[V]]) {scale = 0.3535{{[0-9]+}} : f32} : (tensor<2x3x2x8xf32>, tensor<2x5x2x8xf32>, tensor<2x5x2x8xf32>) -> tensor<2x3x2x8xf32>
// CHECK: %[[BHLD:.+]] = linalg.transpose ins(%[[O]] : tensor<2x3x2x8xf32>) outs(%{{.+}} : tensor<2x2x3x8xf32>) permutation = [0, 2, 1, 3]
// CHECK: %[[BLHD:.+]] = linalg.transpose ins(%[[BHLD]] : tensor<2x2x3x8xf32>) outs(%{{.+}} : tensor<2x3x2x8xf32>) permutation = [0, 2, 1, 3]
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK: return %[[BLHD]]
func.func @sdpa_f32(%query: tensor<2x3x2x8xf32>, %key: tensor<2x5x2x8xf32>, %value: tensor<2x5x2x8xf32>) -> tensor<2x3x2x8xf32> {
  %e1 = tensor.empty() : tensor<2x2x3x8xf32>
  %t2 = linalg.transpose ins(%query : tensor<2x3x2x8xf32>) outs(%e1 : tensor<2x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %e3 = tensor.empty() : tensor<2x2x5x8xf32>
  %t4 = linalg.transpose ins(%key : tensor<2x5x2x8xf32>) outs(%e3 : tensor<2x2x5x8xf32>) permutation = [0, 2, 1, 3]
  %e5 = tensor.empty() : tensor<2x2x5x8xf32>
  %t6 = linalg.transpose ins(%value : tensor<2x5x2x8xf32>) outs(%e5 : tensor<2x2x5x8xf32>) permutation = [0, 2, 1, 3]
  %e8 = tensor.empty() : tensor<2x2x3x8xf32>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t2 : tensor<2x2x3x8xf32>) outs(%e8 : tensor<2x2x3x8xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %c = arith.constant 5.946036e-01 : f32
    %m = arith.mulf %a0, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x2x3x8xf32>
  %e9 = tensor.empty() : tensor<2x2x8x5xf32>
  %t10 = linalg.transpose ins(%t4 : tensor<2x2x5x8xf32>) outs(%e9 : tensor<2x2x8x5xf32>) permutation = [0, 1, 3, 2]
  %e12 = tensor.empty() : tensor<2x2x8x5xf32>
  %g11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t10 : tensor<2x2x8x5xf32>) outs(%e12 : tensor<2x2x8x5xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %c = arith.constant 5.946036e-01 : f32
    %m = arith.mulf %a0, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x2x8x5xf32>
  %cl13 = tensor.collapse_shape %g7 [[0, 1], [2], [3]] : tensor<2x2x3x8xf32> into tensor<4x3x8xf32>
  %cl14 = tensor.collapse_shape %g11 [[0, 1], [2], [3]] : tensor<2x2x8x5xf32> into tensor<4x8x5xf32>
  %c15 = arith.constant 0.000000e+00 : f32
  %e17 = tensor.empty() : tensor<4x3x5xf32>
  %f16 = linalg.fill ins(%c15 : f32) outs(%e17 : tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  %mm18 = linalg.batch_matmul ins(%cl13, %cl14 : tensor<4x3x8xf32>, tensor<4x8x5xf32>) outs(%f16 : tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  %ex19 = tensor.expand_shape %mm18 [[0, 1], [2], [3]] output_shape [2, 2, 3, 5] : tensor<4x3x5xf32> into tensor<2x2x3x5xf32>
  %c20 = arith.constant 0 : i64
  %e22 = tensor.empty() : tensor<2x2x3xi64>
  %f21 = linalg.fill ins(%c20 : i64) outs(%e22 : tensor<2x2x3xi64>) -> tensor<2x2x3xi64>
  %c23 = arith.constant 0xFF800000 : f32
  %e25 = tensor.empty() : tensor<2x2x3xf32>
  %f24 = linalg.fill ins(%c23 : f32) outs(%e25 : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %max26:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%ex19 : tensor<2x2x3x5xf32>) outs(%f24, %f21 : tensor<2x2x3xf32>, tensor<2x2x3xi64>) {
  ^bb0(%a0: f32, %a1: f32, %a2: i64):
    %i = linalg.index 3 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %a0, %a1 : f32
    %gt = arith.cmpf ogt, %a0, %a1 : f32
    %s = arith.select %gt, %i64, %a2 : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<2x2x3xf32>, tensor<2x2x3xi64>)
  %mk27 = tensor.expand_shape %max26#0 [[0], [1], [2, 3]] output_shape [2, 2, 3, 1] : tensor<2x2x3xf32> into tensor<2x2x3x1xf32>
  %e29 = tensor.empty() : tensor<2x2x3x5xf32>
  %g28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex19, %mk27 : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>) outs(%e29 : tensor<2x2x3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.subf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<2x2x3x5xf32>
  %e31 = tensor.empty() : tensor<2x2x3x5xf32>
  %g30 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g28 : tensor<2x2x3x5xf32>) outs(%e31 : tensor<2x2x3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %e = math.exp %a0 : f32
    linalg.yield %e : f32
  } -> tensor<2x2x3x5xf32>
  %c32 = arith.constant 0.000000e+00 : f32
  %e34 = tensor.empty() : tensor<2x2x3x1xf32>
  %f33 = linalg.fill ins(%c32 : f32) outs(%e34 : tensor<2x2x3x1xf32>) -> tensor<2x2x3x1xf32>
  %g35 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g30 : tensor<2x2x3x5xf32>) outs(%f33 : tensor<2x2x3x1xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<2x2x3x1xf32>
  %e37 = tensor.empty() : tensor<2x2x3x5xf32>
  %g36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g30, %g35 : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>) outs(%e37 : tensor<2x2x3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.divf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<2x2x3x5xf32>
  %e39 = tensor.empty() : tensor<2x2x3x5xi1>
  %g38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex19 : tensor<2x2x3x5xf32>) outs(%e39 : tensor<2x2x3x5xi1>) {
  ^bb0(%a0: f32, %a1: i1):
    %ninf = arith.constant 0xFF800000 : f32
    %q = arith.cmpf oeq, %a0, %ninf : f32
    linalg.yield %q : i1
  } -> tensor<2x2x3x5xi1>
  %c40 = arith.constant true
  %e42 = tensor.empty() : tensor<2x2x3x1xi1>
  %f41 = linalg.fill ins(%c40 : i1) outs(%e42 : tensor<2x2x3x1xi1>) -> tensor<2x2x3x1xi1>
  %g43 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g38 : tensor<2x2x3x5xi1>) outs(%f41 : tensor<2x2x3x1xi1>) {
  ^bb0(%a0: i1, %a1: i1):
    %s = arith.andi %a0, %a1 : i1
    linalg.yield %s : i1
  } -> tensor<2x2x3x1xi1>
  %z44 = arith.constant dense<0.000000e+00> : tensor<f32>
  %e46 = tensor.empty() : tensor<2x2x3x5xf32>
  %g45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g43, %z44, %g36 : tensor<2x2x3x1xi1>, tensor<f32>, tensor<2x2x3x5xf32>) outs(%e46 : tensor<2x2x3x5xf32>) {
  ^bb0(%a0: i1, %a1: f32, %a2: f32, %a3: f32):
    %s = arith.select %a0, %a1, %a2 : f32
    linalg.yield %s : f32
  } -> tensor<2x2x3x5xf32>
  %cl47 = tensor.collapse_shape %g45 [[0, 1], [2], [3]] : tensor<2x2x3x5xf32> into tensor<4x3x5xf32>
  %cl48 = tensor.collapse_shape %t6 [[0, 1], [2], [3]] : tensor<2x2x5x8xf32> into tensor<4x5x8xf32>
  %c49 = arith.constant 0.000000e+00 : f32
  %e51 = tensor.empty() : tensor<4x3x8xf32>
  %f50 = linalg.fill ins(%c49 : f32) outs(%e51 : tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %mm52 = linalg.batch_matmul ins(%cl47, %cl48 : tensor<4x3x5xf32>, tensor<4x5x8xf32>) outs(%f50 : tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %ex53 = tensor.expand_shape %mm52 [[0, 1], [2], [3]] output_shape [2, 2, 3, 8] : tensor<4x3x8xf32> into tensor<2x2x3x8xf32>
  %e54 = tensor.empty() : tensor<2x3x2x8xf32>
  %t55 = linalg.transpose ins(%ex53 : tensor<2x2x3x8xf32>) outs(%e54 : tensor<2x3x2x8xf32>) permutation = [0, 2, 1, 3]
  return %t55 : tensor<2x3x2x8xf32>
}
// -----

// f16 on [B, H, L, D] inputs: the products accumulate in f32 and are
// truncated, the softmax runs in f32 between an extf and a truncf. The
// inputs are transposed to emb's layout here. The scale is the product of
// the two f16 factors (0.5947 each).
// CHECK-LABEL: func.func @sdpa_f16
// CHECK-SAME: (%[[Q:.+]]: tensor<2x2x3x8xf16>, %[[K:.+]]: tensor<2x2x5x8xf16>, %[[V:.+]]: tensor<2x2x5x8xf16>)
// CHECK: %[[QT:.+]] = linalg.transpose ins(%[[Q]] : tensor<2x2x3x8xf16>) outs(%{{.+}} : tensor<2x3x2x8xf16>) permutation = [0, 2, 1, 3]
// CHECK: %[[KT:.+]] = linalg.transpose ins(%[[K]] : tensor<2x2x5x8xf16>) outs(%{{.+}} : tensor<2x5x2x8xf16>) permutation = [0, 2, 1, 3]
// CHECK: %[[VT:.+]] = linalg.transpose ins(%[[V]] : tensor<2x2x5x8xf16>) outs(%{{.+}} : tensor<2x5x2x8xf16>) permutation = [0, 2, 1, 3]
// CHECK: %[[O:.+]] = "emb.attention"(%[[QT]], %[[KT]], %[[VT]]) {scale = 0.3536{{[0-9]+}} : f32} : (tensor<2x3x2x8xf16>, tensor<2x5x2x8xf16>, tensor<2x5x2x8xf16>) -> tensor<2x3x2x8xf16>
// CHECK: %[[R:.+]] = linalg.transpose ins(%[[O]] : tensor<2x3x2x8xf16>) outs(%{{.+}} : tensor<2x2x3x8xf16>) permutation = [0, 2, 1, 3]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @sdpa_f16(%query: tensor<2x2x3x8xf16>, %key: tensor<2x2x5x8xf16>, %value: tensor<2x2x5x8xf16>) -> tensor<2x2x3x8xf16> {
  %e2 = tensor.empty() : tensor<2x2x3x8xf16>
  %g1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%query : tensor<2x2x3x8xf16>) outs(%e2 : tensor<2x2x3x8xf16>) {
  ^bb0(%a0: f16, %a1: f16):
    %c = arith.constant 5.946036e-01 : f16
    %m = arith.mulf %a0, %c : f16
    linalg.yield %m : f16
  } -> tensor<2x2x3x8xf16>
  %e3 = tensor.empty() : tensor<2x2x8x5xf16>
  %t4 = linalg.transpose ins(%key : tensor<2x2x5x8xf16>) outs(%e3 : tensor<2x2x8x5xf16>) permutation = [0, 1, 3, 2]
  %e6 = tensor.empty() : tensor<2x2x8x5xf16>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t4 : tensor<2x2x8x5xf16>) outs(%e6 : tensor<2x2x8x5xf16>) {
  ^bb0(%a0: f16, %a1: f16):
    %c = arith.constant 5.946036e-01 : f16
    %m = arith.mulf %a0, %c : f16
    linalg.yield %m : f16
  } -> tensor<2x2x8x5xf16>
  %cl7 = tensor.collapse_shape %g1 [[0, 1], [2], [3]] : tensor<2x2x3x8xf16> into tensor<4x3x8xf16>
  %cl8 = tensor.collapse_shape %g5 [[0, 1], [2], [3]] : tensor<2x2x8x5xf16> into tensor<4x8x5xf16>
  %c9 = arith.constant 0.000000e+00 : f32
  %e11 = tensor.empty() : tensor<4x3x5xf32>
  %f10 = linalg.fill ins(%c9 : f32) outs(%e11 : tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  %mm12 = linalg.batch_matmul ins(%cl7, %cl8 : tensor<4x3x8xf16>, tensor<4x8x5xf16>) outs(%f10 : tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  %e14 = tensor.empty() : tensor<4x3x5xf16>
  %g13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm12 : tensor<4x3x5xf32>) outs(%e14 : tensor<4x3x5xf16>) {
  ^bb0(%a0: f32, %a1: f16):
    %t = arith.truncf %a0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x3x5xf16>
  %ex15 = tensor.expand_shape %g13 [[0, 1], [2], [3]] output_shape [2, 2, 3, 5] : tensor<4x3x5xf16> into tensor<2x2x3x5xf16>
  %e17 = tensor.empty() : tensor<2x2x3x5xf32>
  %g16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex15 : tensor<2x2x3x5xf16>) outs(%e17 : tensor<2x2x3x5xf32>) {
  ^bb0(%a0: f16, %a1: f32):
    %e = arith.extf %a0 : f16 to f32
    linalg.yield %e : f32
  } -> tensor<2x2x3x5xf32>
  %c18 = arith.constant 0 : i64
  %e20 = tensor.empty() : tensor<2x2x3xi64>
  %f19 = linalg.fill ins(%c18 : i64) outs(%e20 : tensor<2x2x3xi64>) -> tensor<2x2x3xi64>
  %c21 = arith.constant 0xFF800000 : f32
  %e23 = tensor.empty() : tensor<2x2x3xf32>
  %f22 = linalg.fill ins(%c21 : f32) outs(%e23 : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %max24:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g16 : tensor<2x2x3x5xf32>) outs(%f22, %f19 : tensor<2x2x3xf32>, tensor<2x2x3xi64>) {
  ^bb0(%a0: f32, %a1: f32, %a2: i64):
    %i = linalg.index 3 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %a0, %a1 : f32
    %gt = arith.cmpf ogt, %a0, %a1 : f32
    %s = arith.select %gt, %i64, %a2 : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<2x2x3xf32>, tensor<2x2x3xi64>)
  %mk25 = tensor.expand_shape %max24#0 [[0], [1], [2, 3]] output_shape [2, 2, 3, 1] : tensor<2x2x3xf32> into tensor<2x2x3x1xf32>
  %e27 = tensor.empty() : tensor<2x2x3x5xf32>
  %g26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g16, %mk25 : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>) outs(%e27 : tensor<2x2x3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.subf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<2x2x3x5xf32>
  %e29 = tensor.empty() : tensor<2x2x3x5xf32>
  %g28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g26 : tensor<2x2x3x5xf32>) outs(%e29 : tensor<2x2x3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %e = math.exp %a0 : f32
    linalg.yield %e : f32
  } -> tensor<2x2x3x5xf32>
  %c30 = arith.constant 0.000000e+00 : f32
  %e32 = tensor.empty() : tensor<2x2x3x1xf32>
  %f31 = linalg.fill ins(%c30 : f32) outs(%e32 : tensor<2x2x3x1xf32>) -> tensor<2x2x3x1xf32>
  %g33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g28 : tensor<2x2x3x5xf32>) outs(%f31 : tensor<2x2x3x1xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<2x2x3x1xf32>
  %e35 = tensor.empty() : tensor<2x2x3x5xf32>
  %g34 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g28, %g33 : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>) outs(%e35 : tensor<2x2x3x5xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.divf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<2x2x3x5xf32>
  %e37 = tensor.empty() : tensor<2x2x3x5xf16>
  %g36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g34 : tensor<2x2x3x5xf32>) outs(%e37 : tensor<2x2x3x5xf16>) {
  ^bb0(%a0: f32, %a1: f16):
    %t = arith.truncf %a0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<2x2x3x5xf16>
  %e39 = tensor.empty() : tensor<2x2x3x5xi1>
  %g38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex15 : tensor<2x2x3x5xf16>) outs(%e39 : tensor<2x2x3x5xi1>) {
  ^bb0(%a0: f16, %a1: i1):
    %ninf = arith.constant 0xFC00 : f16
    %q = arith.cmpf oeq, %a0, %ninf : f16
    linalg.yield %q : i1
  } -> tensor<2x2x3x5xi1>
  %c40 = arith.constant true
  %e42 = tensor.empty() : tensor<2x2x3x1xi1>
  %f41 = linalg.fill ins(%c40 : i1) outs(%e42 : tensor<2x2x3x1xi1>) -> tensor<2x2x3x1xi1>
  %g43 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g38 : tensor<2x2x3x5xi1>) outs(%f41 : tensor<2x2x3x1xi1>) {
  ^bb0(%a0: i1, %a1: i1):
    %s = arith.andi %a0, %a1 : i1
    linalg.yield %s : i1
  } -> tensor<2x2x3x1xi1>
  %z44 = arith.constant dense<0.000000e+00> : tensor<f16>
  %e46 = tensor.empty() : tensor<2x2x3x5xf16>
  %g45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g43, %z44, %g36 : tensor<2x2x3x1xi1>, tensor<f16>, tensor<2x2x3x5xf16>) outs(%e46 : tensor<2x2x3x5xf16>) {
  ^bb0(%a0: i1, %a1: f16, %a2: f16, %a3: f16):
    %s = arith.select %a0, %a1, %a2 : f16
    linalg.yield %s : f16
  } -> tensor<2x2x3x5xf16>
  %cl47 = tensor.collapse_shape %g45 [[0, 1], [2], [3]] : tensor<2x2x3x5xf16> into tensor<4x3x5xf16>
  %cl48 = tensor.collapse_shape %value [[0, 1], [2], [3]] : tensor<2x2x5x8xf16> into tensor<4x5x8xf16>
  %c49 = arith.constant 0.000000e+00 : f32
  %e51 = tensor.empty() : tensor<4x3x8xf32>
  %f50 = linalg.fill ins(%c49 : f32) outs(%e51 : tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %mm52 = linalg.batch_matmul ins(%cl47, %cl48 : tensor<4x3x5xf16>, tensor<4x5x8xf16>) outs(%f50 : tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %e54 = tensor.empty() : tensor<4x3x8xf16>
  %g53 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm52 : tensor<4x3x8xf32>) outs(%e54 : tensor<4x3x8xf16>) {
  ^bb0(%a0: f32, %a1: f16):
    %t = arith.truncf %a0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<4x3x8xf16>
  %ex55 = tensor.expand_shape %g53 [[0, 1], [2], [3]] output_shape [2, 2, 3, 8] : tensor<4x3x8xf16> into tensor<2x2x3x8xf16>
  return %ex55 : tensor<2x2x3x8xf16>
}
// -----

// One head, [N, L, D] (torch-mlir's own SDPA decomposition): the scores
// scaled by 1/sqrt(16) after the product, softmax without the guard, no
// collapse or expand. emb.attention takes it as [N, L, 1, D].
// CHECK-LABEL: func.func @one_head
// CHECK-SAME: (%[[Q:.+]]: tensor<4x3x16xf32>, %[[K:.+]]: tensor<4x6x16xf32>, %[[V:.+]]: tensor<4x6x16xf32>)
// CHECK: %[[Q4:.+]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1], [2, 3]] output_shape [4, 3, 1, 16] : tensor<4x3x16xf32> into tensor<4x3x1x16xf32>
// CHECK: %[[K4:.+]] = tensor.expand_shape %[[K]] {{\[}}[0], [1], [2, 3]] output_shape [4, 6, 1, 16] : tensor<4x6x16xf32> into tensor<4x6x1x16xf32>
// CHECK: %[[V4:.+]] = tensor.expand_shape %[[V]] {{\[}}[0], [1], [2, 3]] output_shape [4, 6, 1, 16] : tensor<4x6x16xf32> into tensor<4x6x1x16xf32>
// CHECK: %[[O:.+]] = "emb.attention"(%[[Q4]], %[[K4]], %[[V4]]) {scale = 2.500000e-01 : f32} : (tensor<4x3x1x16xf32>, tensor<4x6x1x16xf32>, tensor<4x6x1x16xf32>) -> tensor<4x3x1x16xf32>
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[O]] {{\[}}[0], [1], [2, 3]] : tensor<4x3x1x16xf32> into tensor<4x3x16xf32>
// CHECK-NOT: linalg
// CHECK: return %[[R]]
func.func @one_head(%query: tensor<4x3x16xf32>, %key: tensor<4x6x16xf32>, %value: tensor<4x6x16xf32>) -> tensor<4x3x16xf32> {
  %e1 = tensor.empty() : tensor<4x16x6xf32>
  %t2 = linalg.transpose ins(%key : tensor<4x6x16xf32>) outs(%e1 : tensor<4x16x6xf32>) permutation = [0, 2, 1]
  %c3 = arith.constant 0.000000e+00 : f32
  %e5 = tensor.empty() : tensor<4x3x6xf32>
  %f4 = linalg.fill ins(%c3 : f32) outs(%e5 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %mm6 = linalg.batch_matmul ins(%query, %t2 : tensor<4x3x16xf32>, tensor<4x16x6xf32>) outs(%f4 : tensor<4x3x6xf32>) -> tensor<4x3x6xf32>
  %e8 = tensor.empty() : tensor<4x3x6xf32>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm6 : tensor<4x3x6xf32>) outs(%e8 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %c = arith.constant 2.500000e-01 : f32
    %m = arith.mulf %a0, %c : f32
    linalg.yield %m : f32
  } -> tensor<4x3x6xf32>
  %c9 = arith.constant 0 : i64
  %e11 = tensor.empty() : tensor<4x3xi64>
  %f10 = linalg.fill ins(%c9 : i64) outs(%e11 : tensor<4x3xi64>) -> tensor<4x3xi64>
  %c12 = arith.constant 0xFF800000 : f32
  %e14 = tensor.empty() : tensor<4x3xf32>
  %f13 = linalg.fill ins(%c12 : f32) outs(%e14 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %max15:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g7 : tensor<4x3x6xf32>) outs(%f13, %f10 : tensor<4x3xf32>, tensor<4x3xi64>) {
  ^bb0(%a0: f32, %a1: f32, %a2: i64):
    %i = linalg.index 2 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %a0, %a1 : f32
    %gt = arith.cmpf ogt, %a0, %a1 : f32
    %s = arith.select %gt, %i64, %a2 : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<4x3xf32>, tensor<4x3xi64>)
  %mk16 = tensor.expand_shape %max15#0 [[0], [1, 2]] output_shape [4, 3, 1] : tensor<4x3xf32> into tensor<4x3x1xf32>
  %e18 = tensor.empty() : tensor<4x3x6xf32>
  %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g7, %mk16 : tensor<4x3x6xf32>, tensor<4x3x1xf32>) outs(%e18 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.subf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6xf32>
  %e20 = tensor.empty() : tensor<4x3x6xf32>
  %g19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g17 : tensor<4x3x6xf32>) outs(%e20 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %e = math.exp %a0 : f32
    linalg.yield %e : f32
  } -> tensor<4x3x6xf32>
  %c21 = arith.constant 0.000000e+00 : f32
  %e23 = tensor.empty() : tensor<4x3x1xf32>
  %f22 = linalg.fill ins(%c21 : f32) outs(%e23 : tensor<4x3x1xf32>) -> tensor<4x3x1xf32>
  %g24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g19 : tensor<4x3x6xf32>) outs(%f22 : tensor<4x3x1xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x1xf32>
  %e26 = tensor.empty() : tensor<4x3x6xf32>
  %g25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%g19, %g24 : tensor<4x3x6xf32>, tensor<4x3x1xf32>) outs(%e26 : tensor<4x3x6xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.divf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<4x3x6xf32>
  %c27 = arith.constant 0.000000e+00 : f32
  %e29 = tensor.empty() : tensor<4x3x16xf32>
  %f28 = linalg.fill ins(%c27 : f32) outs(%e29 : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  %mm30 = linalg.batch_matmul ins(%g25, %value : tensor<4x3x6xf32>, tensor<4x6x16xf32>) outs(%f28 : tensor<4x3x16xf32>) -> tensor<4x3x16xf32>
  return %mm30 : tensor<4x3x16xf32>
}
// -----

// tm_tensor.attention (TorchToTMTensor) in generic form, on [B*H, L, D]
// collapsed from [B, H, L, D], with its scale attribute.
// CHECK-LABEL: func.func @tm_tensor
// CHECK-SAME: (%[[Q:.+]]: tensor<2x2x3x8xf32>, %[[K:.+]]: tensor<2x2x5x8xf32>, %[[V:.+]]: tensor<2x2x5x8xf32>)
// CHECK-DAG: %[[QT:.+]] = linalg.transpose ins(%[[Q]] : tensor<2x2x3x8xf32>) outs(%{{.+}} : tensor<2x3x2x8xf32>) permutation = [0, 2, 1, 3]
// CHECK-DAG: %[[KT:.+]] = linalg.transpose ins(%[[K]] : tensor<2x2x5x8xf32>) outs(%{{.+}} : tensor<2x5x2x8xf32>) permutation = [0, 2, 1, 3]
// CHECK-DAG: %[[VT:.+]] = linalg.transpose ins(%[[V]] : tensor<2x2x5x8xf32>) outs(%{{.+}} : tensor<2x5x2x8xf32>) permutation = [0, 2, 1, 3]
// CHECK: %[[O:.+]] = "emb.attention"(%[[QT]], %[[KT]], %[[VT]]) {scale = 1.250000e-01 : f32}
// CHECK: %[[OT:.+]] = linalg.transpose ins(%[[O]] : tensor<2x3x2x8xf32>) outs(%{{.+}} : tensor<2x2x3x8xf32>) permutation = [0, 2, 1, 3]
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[OT]] {{\[}}[0, 1], [2], [3]] : tensor<2x2x3x8xf32> into tensor<4x3x8xf32>
// CHECK-NOT: tm_tensor
// CHECK: tensor.expand_shape %[[R]]
func.func @tm_tensor(%query: tensor<2x2x3x8xf32>, %key: tensor<2x2x5x8xf32>, %value: tensor<2x2x5x8xf32>) -> tensor<2x2x3x8xf32> {
  %q = tensor.collapse_shape %query [[0, 1], [2], [3]] : tensor<2x2x3x8xf32> into tensor<4x3x8xf32>
  %k = tensor.collapse_shape %key [[0, 1], [2], [3]] : tensor<2x2x5x8xf32> into tensor<4x5x8xf32>
  %v = tensor.collapse_shape %value [[0, 1], [2], [3]] : tensor<2x2x5x8xf32> into tensor<4x5x8xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x3x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %2 = "tm_tensor.attention"(%q, %k, %v, %1) <{operandSegmentSizes = array<i32: 3, 1>, scale = 1.250000e-01 : f64}> : (tensor<4x3x8xf32>, tensor<4x5x8xf32>, tensor<4x5x8xf32>, tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  %expanded = tensor.expand_shape %2 [[0, 1], [2], [3]] output_shape [2, 2, 3, 8] : tensor<4x3x8xf32> into tensor<2x2x3x8xf32>
  return %expanded : tensor<2x2x3x8xf32>
}

// -----

// tm_tensor.attention on 3-D tensors without a scale: the default
// 1/sqrt(D) = 1/sqrt(16).
// CHECK-LABEL: func.func @tm_tensor_default_scale
// CHECK: "emb.attention"(%{{.+}}, %{{.+}}, %{{.+}}) {scale = 2.500000e-01 : f32} : (tensor<4x3x1x16xbf16>, tensor<4x6x1x16xbf16>, tensor<4x6x1x16xbf16>) -> tensor<4x3x1x16xbf16>
// CHECK-NOT: tm_tensor
func.func @tm_tensor_default_scale(%q: tensor<4x3x16xbf16>, %k: tensor<4x6x16xbf16>, %v: tensor<4x6x16xbf16>) -> tensor<4x3x16xbf16> {
  %0 = tensor.empty() : tensor<4x3x16xbf16>
  %1 = "tm_tensor.attention"(%q, %k, %v, %0) <{operandSegmentSizes = array<i32: 3, 1>}> : (tensor<4x3x16xbf16>, tensor<4x6x16xbf16>, tensor<4x6x16xbf16>, tensor<4x3x16xbf16>) -> tensor<4x3x16xbf16>
  return %1 : tensor<4x3x16xbf16>
}

// -----

// Keys and values broadcast from the users' [U, H, L, D] history: their
// transposes to emb's layout are made on the user tensors (U rows, not B)
// and broadcast again, so emb-ikbo still sees the broadcasts and reads each
// user's keys in place.
// CHECK-LABEL: func.func @broadcast_keys
// CHECK-SAME: (%[[Q:.+]]: tensor<6x2x3x8xf32>, %[[UK:.+]]: tensor<2x2x5x8xf32>, %[[UV:.+]]: tensor<2x2x5x8xf32>, %[[C2U:.+]]: tensor<6xi64>)
// CHECK: %[[UKT:.+]] = linalg.transpose ins(%[[UK]] : tensor<2x2x5x8xf32>) outs(%{{.+}} : tensor<2x5x2x8xf32>) permutation = [0, 2, 1, 3]
// CHECK: %[[KB:.+]] = "emb.broadcast"(%[[UKT]], %[[C2U]]) : (tensor<2x5x2x8xf32>, tensor<6xi64>) -> tensor<6x5x2x8xf32>
// CHECK: "emb.attention"(%{{.+}}, %[[KB]], %{{.+}})
// IKBO-LABEL: func.func @broadcast_keys
// IKBO-SAME: (%[[Q:.+]]: tensor<6x2x3x8xf32>, %[[UK:.+]]: tensor<2x2x5x8xf32>, %[[UV:.+]]: tensor<2x2x5x8xf32>, %[[C2U:.+]]: tensor<6xi64>)
// IKBO-DAG: %[[UKT:.+]] = linalg.transpose ins(%[[UK]] : tensor<2x2x5x8xf32>)
// IKBO-DAG: %[[UVT:.+]] = linalg.transpose ins(%[[UV]] : tensor<2x2x5x8xf32>)
// IKBO: "emb.ikbo_attention"(%{{.+}}, %[[UKT]], %[[UVT]], %[[C2U]]) {scale = 1.250000e-01 : f32} : (tensor<6x3x2x8xf32>, tensor<2x5x2x8xf32>, tensor<2x5x2x8xf32>, tensor<6xi64>) -> tensor<6x3x2x8xf32>
// IKBO-NOT: "emb.broadcast"
func.func @broadcast_keys(%query: tensor<6x2x3x8xf32>, %user_k: tensor<2x2x5x8xf32>, %user_v: tensor<2x2x5x8xf32>, %c2u: tensor<6xi64>) -> tensor<6x2x3x8xf32> {
  %key = "emb.broadcast"(%user_k, %c2u) : (tensor<2x2x5x8xf32>, tensor<6xi64>) -> tensor<6x2x5x8xf32>
  %value = "emb.broadcast"(%user_v, %c2u) : (tensor<2x2x5x8xf32>, tensor<6xi64>) -> tensor<6x2x5x8xf32>
  %q = tensor.collapse_shape %query [[0, 1], [2], [3]] : tensor<6x2x3x8xf32> into tensor<12x3x8xf32>
  %k = tensor.collapse_shape %key [[0, 1], [2], [3]] : tensor<6x2x5x8xf32> into tensor<12x5x8xf32>
  %v = tensor.collapse_shape %value [[0, 1], [2], [3]] : tensor<6x2x5x8xf32> into tensor<12x5x8xf32>
  %0 = tensor.empty() : tensor<12x3x8xf32>
  %1 = "tm_tensor.attention"(%q, %k, %v, %0) <{operandSegmentSizes = array<i32: 3, 1>, scale = 1.250000e-01 : f64}> : (tensor<12x3x8xf32>, tensor<12x5x8xf32>, tensor<12x5x8xf32>, tensor<12x3x8xf32>) -> tensor<12x3x8xf32>
  %expanded = tensor.expand_shape %1 [[0, 1], [2], [3]] output_shape [6, 2, 3, 8] : tensor<12x3x8xf32> into tensor<6x2x3x8xf32>
  return %expanded : tensor<6x2x3x8xf32>
}
