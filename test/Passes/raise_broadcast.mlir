// emb-raise-broadcast: torch-mlir's expand/broadcast_to of user rows (a
// collapse of the broadcast size-1 dim, then a copy generic whose input map
// leaves a loop out) become emb.broadcast with a generated cand_to_user.
// RUN: emb-opt --split-input-file --emb-raise-broadcast %s | FileCheck %s
// REQUIRES: emb-compiler

// One user's row expanded to 8 candidates, u[1, 16].expand(8, 16): every
// candidate is user 0.
// CHECK-LABEL: func.func @one_user
// CHECK-SAME: (%[[USER:.+]]: tensor<1x16xf32>)
// CHECK: %[[C2U:.+]] = arith.constant dense<0> : tensor<8xi32>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[USER]], %[[C2U]]) : (tensor<1x16xf32>, tensor<8xi32>) -> tensor<8x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[B]]
#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @one_user(%user: tensor<1x16xf32>) -> tensor<8x16xf32> {
  %collapsed = tensor.collapse_shape %user [[0, 1]] : tensor<1x16xf32> into tensor<16xf32>
  %0 = tensor.empty() : tensor<8x16xf32>
  %1 = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<16xf32>) outs(%0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// The same for a [1, 3, 16] user tensor (three features per user).
// CHECK-LABEL: func.func @one_user_3d
// CHECK-SAME: (%[[USER:.+]]: tensor<1x3x16xf16>)
// CHECK: %[[C2U:.+]] = arith.constant dense<0> : tensor<6xi32>
// CHECK: "emb.broadcast"(%[[USER]], %[[C2U]]) : (tensor<1x3x16xf16>, tensor<6xi32>) -> tensor<6x3x16xf16>
#row3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @one_user_3d(%user: tensor<1x3x16xf16>) -> tensor<6x3x16xf16> {
  %collapsed = tensor.collapse_shape %user [[0, 1], [2]] : tensor<1x3x16xf16> into tensor<3x16xf16>
  %0 = tensor.empty() : tensor<6x3x16xf16>
  %1 = linalg.generic {indexing_maps = [#row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed : tensor<3x16xf16>) outs(%0 : tensor<6x3x16xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<6x3x16xf16>
  return %1 : tensor<6x3x16xf16>
}

// -----

// A fixed ratio, u.unsqueeze(1).expand(4, 3, 16).reshape(12, 16): the copy
// leaves out loop 1 and the collapse merges it into the batch, so candidate
// b is user b / 3. (The unsqueeze and the collapse of its size-1 dim cancel
// in torch-mlir's canonicalizer.)
// CHECK-LABEL: func.func @ratio
// CHECK-SAME: (%[[USER:.+]]: tensor<4x16xf32>)
// CHECK: %[[C2U:.+]] = arith.constant dense<[0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]> : tensor<12xi32>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[USER]], %[[C2U]]) : (tensor<4x16xf32>, tensor<12xi32>) -> tensor<12x16xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor.collapse_shape
// CHECK: return %[[B]]
#keep = affine_map<(d0, d1, d2) -> (d0, d2)>
#id3r = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @ratio(%user: tensor<4x16xf32>) -> tensor<12x16xf32> {
  %0 = tensor.empty() : tensor<4x3x16xf32>
  %1 = linalg.generic {indexing_maps = [#keep, #id3r], iterator_types = ["parallel", "parallel", "parallel"]} ins(%user : tensor<4x16xf32>) outs(%0 : tensor<4x3x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x3x16xf32>
  %collapsed = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<4x3x16xf32> into tensor<12x16xf32>
  return %collapsed : tensor<12x16xf32>
}

// -----

// A fixed ratio of rank-3 user tensors: 2 candidates per user.
// CHECK-LABEL: func.func @ratio_3d
// CHECK-SAME: (%[[USER:.+]]: tensor<3x2x8xbf16>)
// CHECK: %[[C2U:.+]] = arith.constant dense<[0, 0, 1, 1, 2, 2]> : tensor<6xi32>
// CHECK: "emb.broadcast"(%[[USER]], %[[C2U]]) : (tensor<3x2x8xbf16>, tensor<6xi32>) -> tensor<6x2x8xbf16>
#keep4 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @ratio_3d(%user: tensor<3x2x8xbf16>) -> tensor<6x2x8xbf16> {
  %0 = tensor.empty() : tensor<3x2x2x8xbf16>
  %1 = linalg.generic {indexing_maps = [#keep4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%user : tensor<3x2x8xbf16>) outs(%0 : tensor<3x2x2x8xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    linalg.yield %in : bf16
  } -> tensor<3x2x2x8xbf16>
  %collapsed = tensor.collapse_shape %1 [[0, 1], [2], [3]] : tensor<3x2x2x8xbf16> into tensor<6x2x8xbf16>
  return %collapsed : tensor<6x2x8xbf16>
}

// -----

// The tile u.expand(2, 4, 16).reshape(8, 16) repeats the whole user batch:
// the copy leaves out loop 0, and candidate b is user b % 4.
// CHECK-LABEL: func.func @tile
// CHECK-SAME: (%[[USER:.+]]: tensor<4x16xf32>)
// CHECK: %[[C2U:.+]] = arith.constant dense<[0, 1, 2, 3, 0, 1, 2, 3]> : tensor<8xi32>
// CHECK: "emb.broadcast"(%[[USER]], %[[C2U]]) : (tensor<4x16xf32>, tensor<8xi32>) -> tensor<8x16xf32>
#inner = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3t = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @tile(%user: tensor<4x16xf32>) -> tensor<8x16xf32> {
  %0 = tensor.empty() : tensor<2x4x16xf32>
  %1 = linalg.generic {indexing_maps = [#inner, #id3t], iterator_types = ["parallel", "parallel", "parallel"]} ins(%user : tensor<4x16xf32>) outs(%0 : tensor<2x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x4x16xf32>
  %collapsed = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
  return %collapsed : tensor<8x16xf32>
}
