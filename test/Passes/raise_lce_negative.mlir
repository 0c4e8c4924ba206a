// Where emb-raise-lce must leave the IR alone, and the remarks that say why.
// RUN: emb-opt --split-input-file --emb-raise-lce %s 2>/dev/null | FileCheck %s
// RUN: emb-opt --split-input-file --emb-raise-lce %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// REQUIRES: emb-compiler

// f16 inputs with the f32 accumulator returned as is: emb.lce has one float
// type throughout, its result would be f16.
// CHECK-LABEL: func.func @f32_result
// CHECK: linalg.batch_matmul
// CHECK-NOT: "emb.lce"
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @f32_result(%w: tensor<8x12xf16>, %x: tensor<16x12x4xf16>) -> tensor<16x8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x8x12xf16>
  %1 = linalg.generic {indexing_maps = [#w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x12xf16>) outs(%0 : tensor<16x8x12xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<16x8x12xf16>
  %2 = tensor.empty() : tensor<16x8x4xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  // REMARK: raise_lce_negative.mlir:[[@LINE+1]]:8: remark: emb-raise-lce: accumulates in f32 but its result is not truncated back to f16
  %4 = linalg.batch_matmul ins(%1, %x : tensor<16x8x12xf16>, tensor<16x12x4xf16>) outs(%3 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  return %4 : tensor<16x8x4xf32>
}

// -----

// The product added to a bias (the accumulator holds ones): W @ X + 1 is
// not an lce.
// CHECK-LABEL: func.func @bias_accumulator
// CHECK: linalg.batch_matmul
// CHECK-NOT: "emb.lce"
#w2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#id32 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @bias_accumulator(%w: tensor<8x12xf32>, %x: tensor<16x12x4xf32>) -> tensor<16x8x4xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x8x12xf32>
  %1 = linalg.generic {indexing_maps = [#w2, #id32], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x12xf32>) outs(%0 : tensor<16x8x12xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x8x12xf32>
  %2 = tensor.empty() : tensor<16x8x4xf32>
  %3 = linalg.fill ins(%one : f32) outs(%2 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-lce: the product is not accumulated into zeros
  %4 = linalg.batch_matmul ins(%1, %x : tensor<16x8x12xf32>, tensor<16x12x4xf32>) outs(%3 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  return %4 : tensor<16x8x4xf32>
}

// -----

// W in f16 and X in f32: no one float type for the lce.
// CHECK-LABEL: func.func @mixed_types
// CHECK: linalg.batch_matmul
// CHECK-NOT: "emb.lce"
#w3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#id33 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @mixed_types(%w: tensor<8x12xf16>, %x: tensor<16x12x4xf32>) -> tensor<16x8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x8x12xf16>
  %1 = linalg.generic {indexing_maps = [#w3, #id33], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x12xf16>) outs(%0 : tensor<16x8x12xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<16x8x12xf16>
  %2 = tensor.empty() : tensor<16x8x4xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-lce: w and x are not one float type
  %4 = linalg.batch_matmul ins(%1, %x : tensor<16x8x12xf16>, tensor<16x12x4xf32>) outs(%3 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  return %4 : tensor<16x8x4xf32>
}

// -----

// Two batched operands (as attention's products are): no W shared by every
// row, so not an lce, and nothing to remark on.
// CHECK-LABEL: func.func @batched_both
// CHECK: linalg.batch_matmul
// CHECK-NOT: "emb.lce"
func.func @batched_both(%a: tensor<16x8x12xf32>, %x: tensor<16x12x4xf32>) -> tensor<16x8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty() : tensor<16x8x4xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  %4 = linalg.batch_matmul ins(%a, %x : tensor<16x8x12xf32>, tensor<16x12x4xf32>) outs(%3 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  return %4 : tensor<16x8x4xf32>
}
