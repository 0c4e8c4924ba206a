// Where emb-raise-broadcast must leave the IR alone, and the remarks that
// say why.
// RUN: emb-opt --split-input-file --emb-raise-broadcast %s 2>/dev/null | FileCheck %s
// RUN: emb-opt --split-input-file --emb-raise-broadcast %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// REQUIRES: emb-compiler

// A weight copied to every row (how torch-mlir's matmul broadcasts a 2-D
// operand): the source has no batch dim, it is no user tensor of one row.
// emb-raise-lce consumes these copies where they feed an lce.
// CHECK-LABEL: func.func @weight_copy
// CHECK: linalg.generic
// CHECK-NOT: "emb.broadcast"
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @weight_copy(%w: tensor<8x12xf32>) -> tensor<16x8x12xf32> {
  %0 = tensor.empty() : tensor<16x8x12xf32>
  // REMARK: raise_broadcast_negative.mlir:[[@LINE+1]]:8: remark: emb-raise-broadcast: copies a tensor with no batch dim to every row (a weight, not a user tensor of one row)
  %1 = linalg.generic {indexing_maps = [#w, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x12xf32>) outs(%0 : tensor<16x8x12xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x8x12xf32>
  return %1 : tensor<16x8x12xf32>
}

// -----

// x[8, 1].expand(8, 16) broadcasts a size-1 feature dim, not users to
// candidates.
// CHECK-LABEL: func.func @feature_dim
// CHECK: linalg.generic
// CHECK-NOT: "emb.broadcast"
#col = affine_map<(d0, d1) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @feature_dim(%x: tensor<8x1xf32>) -> tensor<8x16xf32> {
  %collapsed = tensor.collapse_shape %x [[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
  %0 = tensor.empty() : tensor<8x16xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-broadcast: broadcasts along dim 1, not the batch dim
  %1 = linalg.generic {indexing_maps = [#col, #id2], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<8xf32>) outs(%0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// One user's row expanded to a dynamic number of candidates: the generated
// cand_to_user is a constant, which needs the batch.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK: linalg.generic
// CHECK-NOT: "emb.broadcast"
#row = affine_map<(d0, d1) -> (d1)>
#id2d = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_batch(%user: tensor<1x16xf32>, %n: index) -> tensor<?x16xf32> {
  %collapsed = tensor.collapse_shape %user [[0, 1]] : tensor<1x16xf32> into tensor<16xf32>
  %0 = tensor.empty(%n) : tensor<?x16xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-broadcast: a dynamic batch: the generated cand_to_user needs a static one
  %1 = linalg.generic {indexing_maps = [#row, #id2d], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<16xf32>) outs(%0 : tensor<?x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x16xf32>
  return %1 : tensor<?x16xf32>
}

// -----

// A fixed ratio of a dynamic number of users.
// CHECK-LABEL: func.func @dynamic_users
// CHECK: tensor.collapse_shape
// CHECK-NOT: "emb.broadcast"
#keep = affine_map<(d0, d1, d2) -> (d0, d2)>
#id3u = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @dynamic_users(%user: tensor<?x16xf32>, %u: index) -> tensor<?x16xf32> {
  %0 = tensor.empty(%u) : tensor<?x3x16xf32>
  %1 = linalg.generic {indexing_maps = [#keep, #id3u], iterator_types = ["parallel", "parallel", "parallel"]} ins(%user : tensor<?x16xf32>) outs(%0 : tensor<?x3x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x3x16xf32>
  // REMARK: [[@LINE+1]]:16: remark: emb-raise-broadcast: a dynamic batch: the generated cand_to_user needs a static one
  %collapsed = tensor.collapse_shape %1 [[0, 1], [2]] : tensor<?x3x16xf32> into tensor<?x16xf32>
  return %collapsed : tensor<?x16xf32>
}
