// emb-raise-lce: torch.matmul(W[M,K], X[B,K,N]) as torch-mlir writes it
// becomes emb.lce(W, X).
// RUN: emb-opt --split-input-file --emb-raise-lce %s | FileCheck %s
// The IKBO shape: raised, then emb-ikbo fuses the broadcast user rows.
// RUN: emb-opt --split-input-file --emb-raise-lce --emb-ikbo %s | FileCheck %s --check-prefix=IKBO
// REQUIRES: emb-compiler

// The broadcast form, f32: W copied to [B,M,K] (input map (b,m,k) -> (m,k)),
// then batch_matmul into a zero fill.
// CHECK-LABEL: func.func @broadcast_f32
// CHECK-SAME: (%[[W:.+]]: tensor<8x12xf32>, %[[X:.+]]: tensor<16x12x4xf32>)
// CHECK: %[[Y:.+]] = "emb.lce"(%[[W]], %[[X]]) : (tensor<8x12xf32>, tensor<16x12x4xf32>) -> tensor<16x8x4xf32>
// CHECK-NOT: linalg
// CHECK: return %[[Y]]
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @broadcast_f32(%w: tensor<8x12xf32>, %x: tensor<16x12x4xf32>) -> tensor<16x8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x8x12xf32>
  %1 = linalg.generic {indexing_maps = [#w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x12xf32>) outs(%0 : tensor<16x8x12xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x8x12xf32>
  %2 = tensor.empty() : tensor<16x8x4xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  %4 = linalg.batch_matmul ins(%1, %x : tensor<16x8x12xf32>, tensor<16x12x4xf32>) outs(%3 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  return %4 : tensor<16x8x4xf32>
}

// -----

// f16 accumulates in f32 and is truncated back by an elementwise generic:
// the lce is f16 throughout, the truncf consumed.
// CHECK-LABEL: func.func @broadcast_f16
// CHECK-SAME: (%[[W:.+]]: tensor<8x12xf16>, %[[X:.+]]: tensor<16x12x4xf16>)
// CHECK: %[[Y:.+]] = "emb.lce"(%[[W]], %[[X]]) : (tensor<8x12xf16>, tensor<16x12x4xf16>) -> tensor<16x8x4xf16>
// CHECK-NOT: linalg
// CHECK-NOT: arith.truncf
// CHECK: return %[[Y]]
#w2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#id32 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @broadcast_f16(%w: tensor<8x12xf16>, %x: tensor<16x12x4xf16>) -> tensor<16x8x4xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x8x12xf16>
  %1 = linalg.generic {indexing_maps = [#w2, #id32], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x12xf16>) outs(%0 : tensor<16x8x12xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<16x8x12xf16>
  %2 = tensor.empty() : tensor<16x8x4xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  %4 = linalg.batch_matmul ins(%1, %x : tensor<16x8x12xf16>, tensor<16x12x4xf16>) outs(%3 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  %5 = tensor.empty() : tensor<16x8x4xf16>
  %6 = linalg.generic {indexing_maps = [#id32, #id32], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<16x8x4xf32>) outs(%5 : tensor<16x8x4xf16>) {
  ^bb0(%in: f32, %out: f16):
    %7 = arith.truncf %in : f32 to f16
    linalg.yield %7 : f16
  } -> tensor<16x8x4xf16>
  return %6 : tensor<16x8x4xf16>
}

// -----

// The folded form (PyTorch folds the batch into the rows): X transposed to
// [B,N,K] and collapsed, matmul by W^T into zeros, expanded to [B,N,M] and
// transposed to [B,M,N].
// CHECK-LABEL: func.func @folded
// CHECK-SAME: (%[[W:.+]]: tensor<8x12xf32>, %[[X:.+]]: tensor<16x12x4xf32>)
// CHECK: %[[Y:.+]] = "emb.lce"(%[[W]], %[[X]]) : (tensor<8x12xf32>, tensor<16x12x4xf32>) -> tensor<16x8x4xf32>
// CHECK-NOT: linalg
// CHECK: return %[[Y]]
func.func @folded(%w: tensor<8x12xf32>, %x: tensor<16x12x4xf32>) -> tensor<16x8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<16x4x12xf32>
  %transposed = linalg.transpose ins(%x : tensor<16x12x4xf32>) outs(%0 : tensor<16x4x12xf32>) permutation = [0, 2, 1]
  %collapsed = tensor.collapse_shape %transposed [[0, 1], [2]] : tensor<16x4x12xf32> into tensor<64x12xf32>
  %1 = tensor.empty() : tensor<12x8xf32>
  %transposed_0 = linalg.transpose ins(%w : tensor<8x12xf32>) outs(%1 : tensor<12x8xf32>) permutation = [1, 0]
  %2 = tensor.empty() : tensor<64x8xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<64x8xf32>) -> tensor<64x8xf32>
  %4 = linalg.matmul ins(%collapsed, %transposed_0 : tensor<64x12xf32>, tensor<12x8xf32>) outs(%3 : tensor<64x8xf32>) -> tensor<64x8xf32>
  %expanded = tensor.expand_shape %4 [[0, 1], [2]] output_shape [16, 4, 8] : tensor<64x8xf32> into tensor<16x4x8xf32>
  %5 = tensor.empty() : tensor<16x8x4xf32>
  %transposed_1 = linalg.transpose ins(%expanded : tensor<16x4x8xf32>) outs(%5 : tensor<16x8x4xf32>) permutation = [0, 2, 1]
  return %transposed_1 : tensor<16x8x4xf32>
}

// -----

// The folded form in bf16 (the truncf between the matmul and the expand),
// with W^T frozen as a constant [K, M]: W is its transpose, made here.
// CHECK-LABEL: func.func @folded_bf16_frozen
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xbf16>)
// CHECK: %[[WT:.+]] = arith.constant dense<{{.+}}> : tensor<3x2xbf16>
// CHECK: %[[W:.+]] = linalg.transpose ins(%[[WT]] : tensor<3x2xbf16>) outs(%{{.+}} : tensor<2x3xbf16>) permutation = [1, 0]
// CHECK: %[[Y:.+]] = "emb.lce"(%[[W]], %[[X]]) : (tensor<2x3xbf16>, tensor<2x3x4xbf16>) -> tensor<2x2x4xbf16>
// CHECK: return %[[Y]]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @folded_bf16_frozen(%x: tensor<2x3x4xbf16>) -> tensor<2x2x4xbf16> {
  %wt = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xbf16>
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x4x3xbf16>
  %transposed = linalg.transpose ins(%x : tensor<2x3x4xbf16>) outs(%0 : tensor<2x4x3xbf16>) permutation = [0, 2, 1]
  %collapsed = tensor.collapse_shape %transposed [[0, 1], [2]] : tensor<2x4x3xbf16> into tensor<8x3xbf16>
  %2 = tensor.empty() : tensor<8x2xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x2xf32>) -> tensor<8x2xf32>
  %4 = linalg.matmul ins(%collapsed, %wt : tensor<8x3xbf16>, tensor<3x2xbf16>) outs(%3 : tensor<8x2xf32>) -> tensor<8x2xf32>
  %5 = tensor.empty() : tensor<8x2xbf16>
  %6 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x2xf32>) outs(%5 : tensor<8x2xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x2xbf16>
  %expanded = tensor.expand_shape %6 [[0, 1], [2]] output_shape [2, 4, 2] : tensor<8x2xbf16> into tensor<2x4x2xbf16>
  %7 = tensor.empty() : tensor<2x2x4xbf16>
  %transposed_1 = linalg.transpose ins(%expanded : tensor<2x4x2xbf16>) outs(%7 : tensor<2x2x4xbf16>) permutation = [0, 2, 1]
  return %transposed_1 : tensor<2x2x4xbf16>
}

// -----

// The IKBO shape: X concatenates a broadcast of user rows (already raised)
// and candidate rows along K. The raised lce is what emb-ikbo fuses (Ku = 5
// and Kc = 7 padded to 8 each).
// CHECK-LABEL: func.func @ikbo_shape
// CHECK: %[[X:.+]] = tensor.concat dim(1)
// CHECK: "emb.lce"(%{{.+}}, %[[X]]) : (tensor<8x12xf16>, tensor<16x12x4xf16>) -> tensor<16x8x4xf16>
// IKBO-LABEL: func.func @ikbo_shape
// IKBO-SAME: (%[[W:.+]]: tensor<8x12xf16>, %[[USER:.+]]: tensor<4x5x4xf16>, %[[CAND:.+]]: tensor<16x7x4xf16>, %[[C2U:.+]]: tensor<16xi64>)
// IKBO: %[[CANDP:.+]] = tensor.concat dim(1) %[[CAND]], %{{.+}} : (tensor<16x7x4xf16>, tensor<16x1x4xf16>) -> tensor<16x8x4xf16>
// IKBO: "emb.ikbo_lce"(%{{.+}}, %{{.+}}, %{{.+}}, %[[CANDP]], %[[C2U]]) : (tensor<8x8xf16>, tensor<8x8xf16>, tensor<4x8x4xf16>, tensor<16x8x4xf16>, tensor<16xi64>) -> tensor<16x8x4xf16>
// IKBO-NOT: "emb.broadcast"
// IKBO-NOT: "emb.lce"
#w3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#id33 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @ikbo_shape(%w: tensor<8x12xf16>, %user: tensor<4x5x4xf16>, %cand: tensor<16x7x4xf16>, %c2u: tensor<16xi64>) -> tensor<16x8x4xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %ub = "emb.broadcast"(%user, %c2u) : (tensor<4x5x4xf16>, tensor<16xi64>) -> tensor<16x5x4xf16>
  %x = tensor.concat dim(1) %ub, %cand : (tensor<16x5x4xf16>, tensor<16x7x4xf16>) -> tensor<16x12x4xf16>
  %0 = tensor.empty() : tensor<16x8x12xf16>
  %1 = linalg.generic {indexing_maps = [#w3, #id33], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x12xf16>) outs(%0 : tensor<16x8x12xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<16x8x12xf16>
  %2 = tensor.empty() : tensor<16x8x4xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  %4 = linalg.batch_matmul ins(%1, %x : tensor<16x8x12xf16>, tensor<16x12x4xf16>) outs(%3 : tensor<16x8x4xf32>) -> tensor<16x8x4xf32>
  %5 = tensor.empty() : tensor<16x8x4xf16>
  %6 = linalg.generic {indexing_maps = [#id33, #id33], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<16x8x4xf32>) outs(%5 : tensor<16x8x4xf16>) {
  ^bb0(%in: f32, %out: f16):
    %7 = arith.truncf %in : f32 to f16
    linalg.yield %7 : f16
  } -> tensor<16x8x4xf16>
  return %6 : tensor<16x8x4xf16>
}
