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

// -----

// Key lengths that are an argument: on user rows every user's length would
// be read and checked, where per candidate only the lengths of users some
// candidate selects are; a length past Lk of a user no candidate selects
// would make the model fail. The attention stays on candidate rows.
// CHECK-LABEL: func.func @attention_user_lengths
// CHECK-SAME: (%[[Q:.+]]: tensor<4x1x1x8xf16>, %[[K:.+]]: tensor<4x6x1x8xf16>, %[[V:.+]]: tensor<4x6x1x8xf16>, %[[LEN:.+]]: tensor<4xi32>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[BQ:.+]] = "emb.broadcast"(%[[Q]], %[[C2U]])
// CHECK: %[[BK:.+]] = "emb.broadcast"(%[[K]], %[[C2U]])
// CHECK: %[[BV:.+]] = "emb.broadcast"(%[[V]], %[[C2U]])
// CHECK: %[[BL:.+]] = "emb.broadcast"(%[[LEN]], %[[C2U]])
// CHECK: %[[O:.+]] = "emb.attention"(%[[BQ]], %[[BK]], %[[BV]], %[[BL]]) : (tensor<16x1x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16xi32>) -> tensor<16x1x1x8xf16>
// CHECK: return %[[O]]
func.func @attention_user_lengths(%q: tensor<4x1x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<4x6x1x8xf16>, %len: tensor<4xi32>, %c2u: tensor<16xi32>) -> tensor<16x1x1x8xf16> {
  %bq = "emb.broadcast"(%q, %c2u) : (tensor<4x1x1x8xf16>, tensor<16xi32>) -> tensor<16x1x1x8xf16>
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bl = "emb.broadcast"(%len, %c2u) : (tensor<4xi32>, tensor<16xi32>) -> tensor<16xi32>
  %o = "emb.attention"(%bq, %bk, %bv, %bl) : (tensor<16x1x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16xi32>) -> tensor<16x1x1x8xf16>
  return %o : tensor<16x1x1x8xf16>
}

// -----

// Constant key lengths with one past Lk = 6: not provably in range.
// CHECK-LABEL: func.func @attention_constant_lengths_past_lk
// CHECK: "emb.attention"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (tensor<16x1x1x8xf16>
func.func @attention_constant_lengths_past_lk(%q: tensor<4x1x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<4x6x1x8xf16>, %c2u: tensor<16xi64>) -> tensor<16x1x1x8xf16> {
  %len = arith.constant dense<[0, 7, 2, 5]> : tensor<4xi64>
  %bq = "emb.broadcast"(%q, %c2u) : (tensor<4x1x1x8xf16>, tensor<16xi64>) -> tensor<16x1x1x8xf16>
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi64>) -> tensor<16x6x1x8xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi64>) -> tensor<16x6x1x8xf16>
  %bl = "emb.broadcast"(%len, %c2u) : (tensor<4xi64>, tensor<16xi64>) -> tensor<16xi64>
  %o = "emb.attention"(%bq, %bk, %bv, %bl) : (tensor<16x1x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16xi64>) -> tensor<16x1x1x8xf16>
  return %o : tensor<16x1x1x8xf16>
}

// -----

// The lengths of an emb.jagged_to_padded whose max_length (8) is past the
// attention's Lk (6): a length of 7 or 8 is possible.
// CHECK-LABEL: func.func @attention_jagged_lengths_past_lk
// CHECK: "emb.attention"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (tensor<16x1x1x8xf16>
func.func @attention_jagged_lengths_past_lk(%q: tensor<4x1x1x8xf16>, %k: tensor<4x6x1x8xf16>, %seq: tensor<?x8xf16>, %off: tensor<5xi32>, %c2u: tensor<16xi32>) -> (tensor<16x1x1x8xf16>, tensor<4x8x8xf16>) {
  %padded, %len = "emb.jagged_to_padded"(%seq, %off) {max_length = 8 : i64} : (tensor<?x8xf16>, tensor<5xi32>) -> (tensor<4x8x8xf16>, tensor<4xi32>)
  %bq = "emb.broadcast"(%q, %c2u) : (tensor<4x1x1x8xf16>, tensor<16xi32>) -> tensor<16x1x1x8xf16>
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bl = "emb.broadcast"(%len, %c2u) : (tensor<4xi32>, tensor<16xi32>) -> tensor<16xi32>
  %o = "emb.attention"(%bq, %bk, %bk, %bl) : (tensor<16x1x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16xi32>) -> tensor<16x1x1x8xf16>
  return %o, %padded : tensor<16x1x1x8xf16>, tensor<4x8x8xf16>
}

// -----

// A broadcast of a broadcast by an inner index that is an argument: as
// written every entry of i1 is checked against the 4 users, composed only
// those i2 reads would be, so the two broadcasts stay.
// CHECK-LABEL: func.func @compose_argument_index
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf16>, %[[I1:.+]]: tensor<16xi32>, %[[I2:.+]]: tensor<64xi64>)
// CHECK: %[[B1:.+]] = "emb.broadcast"(%[[U]], %[[I1]]) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
// CHECK: %[[B2:.+]] = "emb.broadcast"(%[[B1]], %[[I2]]) : (tensor<16x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
// CHECK: return %[[B2]]
func.func @compose_argument_index(%u: tensor<4x8xf16>, %i1: tensor<16xi32>, %i2: tensor<64xi64>) -> tensor<64x8xf16> {
  %b1 = "emb.broadcast"(%u, %i1) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
  %b2 = "emb.broadcast"(%b1, %i2) : (tensor<16x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
  return %b2 : tensor<64x8xf16>
}

// -----

// A constant inner index with an entry outside the 4 users (4, and -1):
// as written an error whatever i2 reads, so the broadcasts stay.
// CHECK-LABEL: func.func @compose_index_outside
// CHECK: %[[B1:.+]] = "emb.broadcast"(%{{.+}}, %{{.+}}) : (tensor<4x8xf16>, tensor<6xi32>) -> tensor<6x8xf16>
// CHECK: "emb.broadcast"(%[[B1]], %{{.+}}) : (tensor<6x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
// CHECK-LABEL: func.func @compose_index_negative
// CHECK: %[[B1:.+]] = "emb.broadcast"(%{{.+}}, %{{.+}}) : (tensor<4x8xf16>, tensor<6xi64>) -> tensor<6x8xf16>
// CHECK: "emb.broadcast"(%[[B1]], %{{.+}}) : (tensor<6x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
func.func @compose_index_outside(%u: tensor<4x8xf16>, %i2: tensor<64xi64>) -> tensor<64x8xf16> {
  %i1 = arith.constant dense<[0, 3, 1, 4, 3, 0]> : tensor<6xi32>
  %b1 = "emb.broadcast"(%u, %i1) : (tensor<4x8xf16>, tensor<6xi32>) -> tensor<6x8xf16>
  %b2 = "emb.broadcast"(%b1, %i2) : (tensor<6x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
  return %b2 : tensor<64x8xf16>
}
func.func @compose_index_negative(%u: tensor<4x8xf16>, %i2: tensor<64xi64>) -> tensor<64x8xf16> {
  %i1 = arith.constant dense<[0, 3, 1, -1, 3, 0]> : tensor<6xi64>
  %b1 = "emb.broadcast"(%u, %i1) : (tensor<4x8xf16>, tensor<6xi64>) -> tensor<6x8xf16>
  %b2 = "emb.broadcast"(%b1, %i2) : (tensor<6x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
  return %b2 : tensor<64x8xf16>
}

// -----

// A constant inner index over a dynamic number of users: its entries cannot
// be shown to be users.
// CHECK-LABEL: func.func @compose_dynamic_users
// CHECK: %[[B1:.+]] = "emb.broadcast"(%{{.+}}, %{{.+}}) : (tensor<?x8xf16>, tensor<2xi32>) -> tensor<2x8xf16>
// CHECK: "emb.broadcast"(%[[B1]], %{{.+}}) : (tensor<2x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
func.func @compose_dynamic_users(%u: tensor<?x8xf16>, %i2: tensor<64xi64>) -> tensor<64x8xf16> {
  %i1 = arith.constant dense<[0, 1]> : tensor<2xi32>
  %b1 = "emb.broadcast"(%u, %i1) : (tensor<?x8xf16>, tensor<2xi32>) -> tensor<2x8xf16>
  %b2 = "emb.broadcast"(%b1, %i2) : (tensor<2x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
  return %b2 : tensor<64x8xf16>
}

// -----

// Integer division and remainder of broadcasts stay per candidate: on user
// rows they would divide the rows of users no candidate selects too, by a
// divisor that may be 0 there.
// CHECK-LABEL: func.func @integer_division
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xi64>, %[[B:.+]]: tensor<4x8xi64>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[BA:.+]] = "emb.broadcast"(%[[A]], %[[C2U]])
// CHECK: %[[BB:.+]] = "emb.broadcast"(%[[B]], %[[C2U]])
// CHECK: %[[Q:.+]] = arith.divsi %[[BA]], %[[BB]] : tensor<16x8xi64>
// CHECK: %[[R:.+]] = arith.remui %[[BA]], %[[BB]] : tensor<16x8xi64>
// CHECK: return %[[Q]], %[[R]]
func.func @integer_division(%a: tensor<4x8xi64>, %b: tensor<4x8xi64>, %c2u: tensor<16xi32>) -> (tensor<16x8xi64>, tensor<16x8xi64>) {
  %ba = "emb.broadcast"(%a, %c2u) : (tensor<4x8xi64>, tensor<16xi32>) -> tensor<16x8xi64>
  %bb = "emb.broadcast"(%b, %c2u) : (tensor<4x8xi64>, tensor<16xi32>) -> tensor<16x8xi64>
  %q = arith.divsi %ba, %bb : tensor<16x8xi64>
  %r = arith.remui %ba, %bb : tensor<16x8xi64>
  return %q, %r : tensor<16x8xi64>, tensor<16x8xi64>
}
