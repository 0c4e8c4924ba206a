// Where emb-sink-broadcast must leave the IR alone: the op's other operand
// depends on the candidate row, or the broadcasts come from different
// cand_to_user values (never merged), or the op mixes rows.
// RUN: emb-opt --split-input-file --emb-sink-broadcast %s | FileCheck %s
// REQUIRES: emb-compiler

// Broadcasts by different cand_to_user values are never merged.
// CHECK-LABEL: func.func @different_indices
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf32>, %[[V:.+]]: tensor<4x8xf32>, %[[I:.+]]: tensor<16xi32>, %[[J:.+]]: tensor<16xi32>)
// CHECK: %[[BU:.+]] = "emb.broadcast"(%[[U]], %[[I]])
// CHECK: %[[BV:.+]] = "emb.broadcast"(%[[V]], %[[J]])
// CHECK: %[[S:.+]] = arith.addf %[[BU]], %[[BV]] : tensor<16x8xf32>
// CHECK: return %[[S]]
func.func @different_indices(%u: tensor<4x8xf32>, %v: tensor<4x8xf32>, %i: tensor<16xi32>, %j: tensor<16xi32>) -> tensor<16x8xf32> {
  %bu = "emb.broadcast"(%u, %i) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %bv = "emb.broadcast"(%v, %j) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %s = arith.addf %bu, %bv : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}

// -----

// A candidate-batched operand depends on the row: the op stays at B rows.
// CHECK-LABEL: func.func @candidate_operand
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf32>, %[[C2U:.+]]: tensor<16xi32>, %[[CAND:.+]]: tensor<16x8xf32>)
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[U]], %[[C2U]])
// CHECK: arith.mulf %[[B]], %[[CAND]] : tensor<16x8xf32>
func.func @candidate_operand(%u: tensor<4x8xf32>, %c2u: tensor<16xi32>, %cand: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %m = arith.mulf %b, %cand : tensor<16x8xf32>
  return %m : tensor<16x8xf32>
}

// -----

// A constant that is not a splat differs from row to row.
// CHECK-LABEL: func.func @non_splat_constant
// CHECK: %[[B:.+]] = "emb.broadcast"
// CHECK: arith.addf %[[B]], %{{.+}} : tensor<2x2xf32>
func.func @non_splat_constant(%u: tensor<1x2xf32>, %c2u: tensor<2xi32>) -> tensor<2x2xf32> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<1x2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %s = arith.addf %b, %c : tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

// -----

// With a dynamic user count a splat cannot be re-made at user shape as a
// constant: the op is left alone.
// CHECK-LABEL: func.func @splat_dynamic_users
// CHECK: %[[B:.+]] = "emb.broadcast"
// CHECK: arith.mulf %[[B]], %{{.+}} : tensor<16x8xf32>
func.func @splat_dynamic_users(%u: tensor<?x8xf32>, %c2u: tensor<16xi32>) -> tensor<16x8xf32> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<?x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %half = arith.constant dense<0.5> : tensor<16x8xf32>
  %m = arith.mulf %b, %half : tensor<16x8xf32>
  return %m : tensor<16x8xf32>
}

// -----

// Two user tensors of different static user counts cannot be combined at
// user batch size, even when broadcast by the same cand_to_user.
// CHECK-LABEL: func.func @different_user_counts
// CHECK: %[[BU:.+]] = "emb.broadcast"
// CHECK: %[[BV:.+]] = "emb.broadcast"
// CHECK: arith.addf %[[BU]], %[[BV]] : tensor<16x8xf32>
func.func @different_user_counts(%u: tensor<4x8xf32>, %v: tensor<5x8xf32>, %c2u: tensor<16xi32>) -> tensor<16x8xf32> {
  %bu = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<5x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %s = arith.addf %bu, %bv : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}

// -----

// A concat along the batch dim mixes rows.
// CHECK-LABEL: func.func @concat_batch_dim
// CHECK: %[[BU:.+]] = "emb.broadcast"
// CHECK: %[[BV:.+]] = "emb.broadcast"
// CHECK: tensor.concat dim(0) %[[BU]], %[[BV]]
func.func @concat_batch_dim(%u: tensor<4x8xf32>, %v: tensor<4x8xf32>, %c2u: tensor<16xi32>) -> tensor<32x8xf32> {
  %bu = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %c = tensor.concat dim(0) %bu, %bv : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<32x8xf32>
  return %c : tensor<32x8xf32>
}

// -----

// A concat along K that holds a candidate piece is emb-fuse-broadcast's.
// CHECK-LABEL: func.func @concat_with_candidate
// CHECK: %[[B:.+]] = "emb.broadcast"
// CHECK: tensor.concat dim(1) %[[B]], %{{.+}}
func.func @concat_with_candidate(%u: tensor<4x3x16xf16>, %c2u: tensor<16xi32>, %cand: tensor<16x5x16xf16>) -> tensor<16x8x16xf16> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x3x16xf16>, tensor<16xi32>) -> tensor<16x3x16xf16>
  %x = tensor.concat dim(1) %b, %cand : (tensor<16x3x16xf16>, tensor<16x5x16xf16>) -> tensor<16x8x16xf16>
  return %x : tensor<16x8x16xf16>
}

// -----

// A reshape that merges the batch dim with another mixes rows.
// CHECK-LABEL: func.func @collapse_batch_dim
// CHECK: %[[B:.+]] = "emb.broadcast"
// CHECK: tensor.collapse_shape %[[B]] {{\[}}[0, 1]]
func.func @collapse_batch_dim(%u: tensor<4x8xf32>, %c2u: tensor<16xi32>) -> tensor<128xf32> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %c = tensor.collapse_shape %b [[0, 1]] : tensor<16x8xf32> into tensor<128xf32>
  return %c : tensor<128xf32>
}

// -----

// Attention with a candidate q reads per-candidate data: it is
// emb-fuse-broadcast's (emb.ikbo_attention), not a sink.
// CHECK-LABEL: func.func @attention_candidate_q
// CHECK: "emb.attention"(%{{.+}}, %{{.+}}, %{{.+}}) : (tensor<16x2x1x8xf16>
func.func @attention_candidate_q(%q: tensor<16x2x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<4x6x1x8xf16>, %c2u: tensor<16xi32>) -> tensor<16x2x1x8xf16> {
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %o = "emb.attention"(%q, %bk, %bv) : (tensor<16x2x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>) -> tensor<16x2x1x8xf16>
  return %o : tensor<16x2x1x8xf16>
}

// -----

// Key lengths per candidate (not a broadcast) keep the attention on
// candidate rows, though q, k and v are broadcasts.
// CHECK-LABEL: func.func @attention_candidate_lengths
// CHECK: "emb.attention"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (tensor<16x1x1x8xf16>
func.func @attention_candidate_lengths(%q: tensor<4x1x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<4x6x1x8xf16>, %len: tensor<16xi32>, %c2u: tensor<16xi32>) -> tensor<16x1x1x8xf16> {
  %bq = "emb.broadcast"(%q, %c2u) : (tensor<4x1x1x8xf16>, tensor<16xi32>) -> tensor<16x1x1x8xf16>
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %o = "emb.attention"(%bq, %bk, %bv, %len) : (tensor<16x1x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16xi32>) -> tensor<16x1x1x8xf16>
  return %o : tensor<16x1x1x8xf16>
}
