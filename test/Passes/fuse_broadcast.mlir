// emb-fuse-broadcast folds emb.broadcast into the ops that mix user and
// candidate data: emb.lce of a K-concat -> emb.ikbo_lce, emb.attention on
// broadcast keys and values -> emb.ikbo_attention, arith.addf ->
// emb.broadcast_add. No broadcast of the fused inputs is left.
// RUN: emb-opt --split-input-file --emb-fuse-broadcast %s | FileCheck %s
// REQUIRES: emb-compiler

// User piece first: w splits into its first 4 columns (user) and the other
// 8 (candidate); the user tensor is read at user batch size.
// CHECK-LABEL: func.func @lce_user_first
// CHECK-SAME: (%[[W:.+]]: tensor<8x12xf16>, %[[USER:.+]]: tensor<4x4x16xf16>, %[[CAND:.+]]: tensor<16x8x16xf16>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK-NOT: "emb.broadcast"
// CHECK: %[[W_USER:.+]] = tensor.extract_slice %[[W]][0, 0] [8, 4] [1, 1] : tensor<8x12xf16> to tensor<8x4xf16>
// CHECK: %[[W_CAND:.+]] = tensor.extract_slice %[[W]][0, 4] [8, 8] [1, 1] : tensor<8x12xf16> to tensor<8x8xf16>
// CHECK: %[[Y:.+]] = "emb.ikbo_lce"(%[[W_USER]], %[[W_CAND]], %[[USER]], %[[CAND]], %[[C2U]]) : (tensor<8x4xf16>, tensor<8x8xf16>, tensor<4x4x16xf16>, tensor<16x8x16xf16>, tensor<16xi32>) -> tensor<16x8x16xf16>
// CHECK-NOT: "emb.lce"
// CHECK-NOT: tensor.concat
// CHECK: return %[[Y]]
func.func @lce_user_first(%w: tensor<8x12xf16>, %u: tensor<4x4x16xf16>, %cand: tensor<16x8x16xf16>, %c2u: tensor<16xi32>) -> tensor<16x8x16xf16> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x4x16xf16>, tensor<16xi32>) -> tensor<16x4x16xf16>
  %x = tensor.concat dim(1) %b, %cand : (tensor<16x4x16xf16>, tensor<16x8x16xf16>) -> tensor<16x12x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x12xf16>, tensor<16x12x16xf16>) -> tensor<16x8x16xf16>
  return %y : tensor<16x8x16xf16>
}

// -----

// Interleaved pieces: cand 3 | user 2 | cand 4 | user 1 along K = 10. The
// user pieces and their columns of w (3..4 and 9) are regrouped in order, and
// so are the candidate pieces and theirs (0..2 and 5..8).
// CHECK-LABEL: func.func @lce_interleaved
// CHECK-SAME: (%[[W:.+]]: tensor<8x10xf32>, %[[U1:.+]]: tensor<4x2x16xf32>, %[[C1:.+]]: tensor<16x3x16xf32>, %[[U2:.+]]: tensor<4x1x16xf32>, %[[C2:.+]]: tensor<16x4x16xf32>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[WU1:.+]] = tensor.extract_slice %[[W]][0, 3] [8, 2] [1, 1]
// CHECK: %[[WU2:.+]] = tensor.extract_slice %[[W]][0, 9] [8, 1] [1, 1]
// CHECK: %[[W_USER:.+]] = tensor.concat dim(1) %[[WU1]], %[[WU2]] : (tensor<8x2xf32>, tensor<8x1xf32>) -> tensor<8x3xf32>
// CHECK: %[[WC1:.+]] = tensor.extract_slice %[[W]][0, 0] [8, 3] [1, 1]
// CHECK: %[[WC2:.+]] = tensor.extract_slice %[[W]][0, 5] [8, 4] [1, 1]
// CHECK: %[[W_CAND:.+]] = tensor.concat dim(1) %[[WC1]], %[[WC2]] : (tensor<8x3xf32>, tensor<8x4xf32>) -> tensor<8x7xf32>
// CHECK: %[[USER:.+]] = tensor.concat dim(1) %[[U1]], %[[U2]] : (tensor<4x2x16xf32>, tensor<4x1x16xf32>) -> tensor<4x3x16xf32>
// CHECK: %[[CAND:.+]] = tensor.concat dim(1) %[[C1]], %[[C2]] : (tensor<16x3x16xf32>, tensor<16x4x16xf32>) -> tensor<16x7x16xf32>
// CHECK: %[[Y:.+]] = "emb.ikbo_lce"(%[[W_USER]], %[[W_CAND]], %[[USER]], %[[CAND]], %[[C2U]])
// CHECK-NOT: "emb.broadcast"
// CHECK: return %[[Y]]
func.func @lce_interleaved(%w: tensor<8x10xf32>, %u1: tensor<4x2x16xf32>, %c1: tensor<16x3x16xf32>, %u2: tensor<4x1x16xf32>, %c2: tensor<16x4x16xf32>, %c2u: tensor<16xi32>) -> tensor<16x8x16xf32> {
  %b1 = "emb.broadcast"(%u1, %c2u) : (tensor<4x2x16xf32>, tensor<16xi32>) -> tensor<16x2x16xf32>
  %b2 = "emb.broadcast"(%u2, %c2u) : (tensor<4x1x16xf32>, tensor<16xi32>) -> tensor<16x1x16xf32>
  %x = tensor.concat dim(1) %c1, %b1, %c2, %b2 : (tensor<16x3x16xf32>, tensor<16x2x16xf32>, tensor<16x4x16xf32>, tensor<16x1x16xf32>) -> tensor<16x10x16xf32>
  %y = "emb.lce"(%w, %x) : (tensor<8x10xf32>, tensor<16x10x16xf32>) -> tensor<16x8x16xf32>
  return %y : tensor<16x8x16xf32>
}

// -----

// Dynamic batch and M: the slices of w take M from tensor.dim; K is static.
// CHECK-LABEL: func.func @lce_dynamic_batch
// CHECK-SAME: (%[[W:.+]]: tensor<?x12xf16>, %[[USER:.+]]: tensor<?x4x16xf16>, %[[CAND:.+]]: tensor<?x8x16xf16>, %[[C2U:.+]]: tensor<?xi64>)
// CHECK: %[[M:.+]] = tensor.dim %[[W]], %{{.+}} : tensor<?x12xf16>
// CHECK: %[[W_USER:.+]] = tensor.extract_slice %[[W]][0, 8] [%[[M]], 4] [1, 1] : tensor<?x12xf16> to tensor<?x4xf16>
// CHECK: %[[W_CAND:.+]] = tensor.extract_slice %[[W]][0, 0] [%{{.+}}, 8] [1, 1] : tensor<?x12xf16> to tensor<?x8xf16>
// CHECK: "emb.ikbo_lce"(%[[W_USER]], %[[W_CAND]], %[[USER]], %[[CAND]], %[[C2U]]) : (tensor<?x4xf16>, tensor<?x8xf16>, tensor<?x4x16xf16>, tensor<?x8x16xf16>, tensor<?xi64>) -> tensor<?x?x16xf16>
func.func @lce_dynamic_batch(%w: tensor<?x12xf16>, %u: tensor<?x4x16xf16>, %cand: tensor<?x8x16xf16>, %c2u: tensor<?xi64>) -> tensor<?x?x16xf16> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<?x4x16xf16>, tensor<?xi64>) -> tensor<?x4x16xf16>
  %x = tensor.concat dim(1) %cand, %b : (tensor<?x8x16xf16>, tensor<?x4x16xf16>) -> tensor<?x12x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<?x12xf16>, tensor<?x12x16xf16>) -> tensor<?x?x16xf16>
  return %y : tensor<?x?x16xf16>
}

// -----

// Broadcasts by two cand_to_user values in one concat are never merged: the
// one covering more K (by %i, 6 rows) is fused; the other stays a candidate
// piece, still materialised.
// CHECK-LABEL: func.func @lce_two_indices
// CHECK-SAME: (%[[W:.+]]: tensor<8x12xf16>, %[[U:.+]]: tensor<4x6x16xf16>, %[[V:.+]]: tensor<2x2x16xf16>, %[[CAND:.+]]: tensor<16x4x16xf16>, %[[I:.+]]: tensor<16xi32>, %[[J:.+]]: tensor<16xi32>)
// CHECK: %[[BV:.+]] = "emb.broadcast"(%[[V]], %[[J]])
// CHECK: %[[W_USER:.+]] = tensor.extract_slice %[[W]][0, 2] [8, 6] [1, 1]
// CHECK: %[[CAND_ALL:.+]] = tensor.concat dim(1) %[[BV]], %[[CAND]] : (tensor<16x2x16xf16>, tensor<16x4x16xf16>) -> tensor<16x6x16xf16>
// CHECK: "emb.ikbo_lce"(%[[W_USER]], %{{.+}}, %[[U]], %[[CAND_ALL]], %[[I]])
func.func @lce_two_indices(%w: tensor<8x12xf16>, %u: tensor<4x6x16xf16>, %v: tensor<2x2x16xf16>, %cand: tensor<16x4x16xf16>, %i: tensor<16xi32>, %j: tensor<16xi32>) -> tensor<16x8x16xf16> {
  %bu = "emb.broadcast"(%u, %i) : (tensor<4x6x16xf16>, tensor<16xi32>) -> tensor<16x6x16xf16>
  %bv = "emb.broadcast"(%v, %j) : (tensor<2x2x16xf16>, tensor<16xi32>) -> tensor<16x2x16xf16>
  %x = tensor.concat dim(1) %bv, %bu, %cand : (tensor<16x2x16xf16>, tensor<16x6x16xf16>, tensor<16x4x16xf16>) -> tensor<16x12x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x12xf16>, tensor<16x12x16xf16>) -> tensor<16x8x16xf16>
  return %y : tensor<16x8x16xf16>
}

// -----

// Attention on broadcast keys and values reads them in place; scale stays.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.+]]: tensor<16x2x1x8xf16>, %[[K:.+]]: tensor<4x6x1x8xf16>, %[[V:.+]]: tensor<4x6x1x8xf16>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK-NOT: "emb.broadcast"
// CHECK: %[[O:.+]] = "emb.ikbo_attention"(%[[Q]], %[[K]], %[[V]], %[[C2U]]) {scale = 2.500000e-01 : f32} : (tensor<16x2x1x8xf16>, tensor<4x6x1x8xf16>, tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x2x1x8xf16>
// CHECK-NOT: "emb.attention"
// CHECK: return %[[O]]
func.func @attention(%q: tensor<16x2x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<4x6x1x8xf16>, %c2u: tensor<16xi32>) -> tensor<16x2x1x8xf16> {
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %o = "emb.attention"(%q, %bk, %bv) {scale = 0.25 : f32} : (tensor<16x2x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>) -> tensor<16x2x1x8xf16>
  return %o : tensor<16x2x1x8xf16>
}

// -----

// compute_type stays too (f32 data computed in bf16).
// CHECK-LABEL: func.func @attention_in_bf16
// CHECK: "emb.ikbo_attention"(%{{.+}}) {compute_type = bf16} : (tensor<16x2x1x8xf32>, tensor<4x6x1x8xf32>, tensor<4x6x1x8xf32>, tensor<16xi32>) -> tensor<16x2x1x8xf32>
// CHECK-NOT: "emb.attention"
func.func @attention_in_bf16(%q: tensor<16x2x1x8xf32>, %k: tensor<4x6x1x8xf32>, %v: tensor<4x6x1x8xf32>, %c2u: tensor<16xi32>) -> tensor<16x2x1x8xf32> {
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf32>, tensor<16xi32>) -> tensor<16x6x1x8xf32>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf32>, tensor<16xi32>) -> tensor<16x6x1x8xf32>
  %o = "emb.attention"(%q, %bk, %bv) {compute_type = bf16} : (tensor<16x2x1x8xf32>, tensor<16x6x1x8xf32>, tensor<16x6x1x8xf32>) -> tensor<16x2x1x8xf32>
  return %o : tensor<16x2x1x8xf32>
}

// -----

// Key lengths broadcast like k and v (the users' lengths, as
// emb-raise-attention makes them of SDPA's key mask) become the users'
// lengths of emb.ikbo_attention.
// CHECK-LABEL: func.func @attention_key_lengths
// CHECK-SAME: (%[[Q:.+]]: tensor<16x1x2x8xf16>, %[[K:.+]]: tensor<4x6x2x8xf16>, %[[V:.+]]: tensor<4x6x2x8xf16>, %[[C2U:.+]]: tensor<16xi64>, %[[LEN:.+]]: tensor<4xi64>)
// CHECK-NOT: "emb.broadcast"
// CHECK: %[[O:.+]] = "emb.ikbo_attention"(%[[Q]], %[[K]], %[[V]], %[[C2U]], %[[LEN]]) : (tensor<16x1x2x8xf16>, tensor<4x6x2x8xf16>, tensor<4x6x2x8xf16>, tensor<16xi64>, tensor<4xi64>) -> tensor<16x1x2x8xf16>
// CHECK: return %[[O]]
func.func @attention_key_lengths(%q: tensor<16x1x2x8xf16>, %k: tensor<4x6x2x8xf16>, %v: tensor<4x6x2x8xf16>, %c2u: tensor<16xi64>, %len: tensor<4xi64>) -> tensor<16x1x2x8xf16> {
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x2x8xf16>, tensor<16xi64>) -> tensor<16x6x2x8xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x2x8xf16>, tensor<16xi64>) -> tensor<16x6x2x8xf16>
  %bl = "emb.broadcast"(%len, %c2u) : (tensor<4xi64>, tensor<16xi64>) -> tensor<16xi64>
  %o = "emb.attention"(%q, %bk, %bv, %bl) : (tensor<16x1x2x8xf16>, tensor<16x6x2x8xf16>, tensor<16x6x2x8xf16>, tensor<16xi64>) -> tensor<16x1x2x8xf16>
  return %o : tensor<16x1x2x8xf16>
}

// -----

// addf of a broadcast and a candidate tensor, in either order.
// CHECK-LABEL: func.func @add_either_order
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf32>, %[[C2U:.+]]: tensor<16xi32>, %[[CAND:.+]]: tensor<16x8xf32>)
// CHECK-NOT: "emb.broadcast"(
// CHECK: %[[S:.+]] = "emb.broadcast_add"(%[[U]], %[[C2U]], %[[CAND]]) : (tensor<4x8xf32>, tensor<16xi32>, tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK: %[[T:.+]] = "emb.broadcast_add"(%[[U]], %[[C2U]], %[[CAND]])
// CHECK-NOT: arith.addf
// CHECK: return %[[S]], %[[T]]
func.func @add_either_order(%u: tensor<4x8xf32>, %c2u: tensor<16xi32>, %cand: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %s = arith.addf %b, %cand : tensor<16x8xf32>
  %t = arith.addf %cand, %b : tensor<16x8xf32>
  return %s, %t : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// One broadcast with several users (an lce's concat and an addf) is fused
// into each and is gone once the last one is rewritten.
// CHECK-LABEL: func.func @several_users
// CHECK-SAME: (%[[W:.+]]: tensor<8x12xf16>, %[[USER:.+]]: tensor<4x4x16xf16>, %[[CAND:.+]]: tensor<16x8x16xf16>, %[[C2U:.+]]: tensor<16xi32>, %[[BIAS:.+]]: tensor<16x4x16xf16>)
// CHECK-NOT: "emb.broadcast"(
// CHECK: %[[Y:.+]] = "emb.ikbo_lce"(%{{.+}}, %{{.+}}, %[[USER]], %[[CAND]], %[[C2U]])
// CHECK: %[[Z:.+]] = "emb.broadcast_add"(%[[USER]], %[[C2U]], %[[BIAS]])
// CHECK-NOT: "emb.broadcast"(
// CHECK: return %[[Y]], %[[Z]]
func.func @several_users(%w: tensor<8x12xf16>, %u: tensor<4x4x16xf16>, %cand: tensor<16x8x16xf16>, %c2u: tensor<16xi32>, %bias: tensor<16x4x16xf16>) -> (tensor<16x8x16xf16>, tensor<16x4x16xf16>) {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x4x16xf16>, tensor<16xi32>) -> tensor<16x4x16xf16>
  %x = tensor.concat dim(1) %b, %cand : (tensor<16x4x16xf16>, tensor<16x8x16xf16>) -> tensor<16x12x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x12xf16>, tensor<16x12x16xf16>) -> tensor<16x8x16xf16>
  %z = arith.addf %bias, %b : tensor<16x4x16xf16>
  return %y, %z : tensor<16x8x16xf16>, tensor<16x4x16xf16>
}

// -----

// A concat that has another user stays for it (with its broadcast); the lce
// is fused all the same.
// CHECK-LABEL: func.func @concat_kept
// CHECK: %[[B:.+]] = "emb.broadcast"
// CHECK: %[[X:.+]] = tensor.concat dim(1) %[[B]], %{{.+}}
// CHECK: %[[Y:.+]] = "emb.ikbo_lce"
// CHECK: return %[[Y]], %[[X]]
func.func @concat_kept(%w: tensor<8x12xf16>, %u: tensor<4x4x16xf16>, %cand: tensor<16x8x16xf16>, %c2u: tensor<16xi32>) -> (tensor<16x8x16xf16>, tensor<16x12x16xf16>) {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x4x16xf16>, tensor<16xi32>) -> tensor<16x4x16xf16>
  %x = tensor.concat dim(1) %b, %cand : (tensor<16x4x16xf16>, tensor<16x8x16xf16>) -> tensor<16x12x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x12xf16>, tensor<16x12x16xf16>) -> tensor<16x8x16xf16>
  return %y, %x : tensor<16x8x16xf16>, tensor<16x12x16xf16>
}
