// Where emb-fuse-broadcast must leave the IR alone, and the remarks that say
// why.
// RUN: emb-opt --split-input-file --emb-fuse-broadcast %s 2>/dev/null | FileCheck %s
// RUN: emb-opt --split-input-file --emb-fuse-broadcast %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// REQUIRES: emb-compiler

// k and v broadcast by different cand_to_user values: no single map to read
// them in place with.
// CHECK-LABEL: func.func @attention_different_indices
// CHECK: "emb.attention"
// CHECK-NOT: "emb.ikbo_attention"
// REMARK: fuse_broadcast_negative.mlir:[[@LINE+4]]:8: remark: 'emb.attention' not fused: k and v are broadcast by different cand_to_user values
func.func @attention_different_indices(%q: tensor<16x2x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<4x6x1x8xf16>, %i: tensor<16xi32>, %j: tensor<16xi32>) -> tensor<16x2x1x8xf16> {
  %bk = "emb.broadcast"(%k, %i) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bv = "emb.broadcast"(%v, %j) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %o = "emb.attention"(%q, %bk, %bv) : (tensor<16x2x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>) -> tensor<16x2x1x8xf16>
  return %o : tensor<16x2x1x8xf16>
}

// -----

// Key lengths broadcast by another cand_to_user than k and v: not the
// users' lengths of the same candidates.
// CHECK-LABEL: func.func @key_lengths_other_index
// CHECK: "emb.attention"
// CHECK-NOT: "emb.ikbo_attention"
// REMARK: [[@LINE+5]]:8: remark: 'emb.attention' not fused: its key_lengths are not broadcast by the cand_to_user of k and v
func.func @key_lengths_other_index(%q: tensor<16x1x2x8xf16>, %k: tensor<4x6x2x8xf16>, %v: tensor<4x6x2x8xf16>, %i: tensor<16xi64>, %j: tensor<16xi64>, %len: tensor<4xi64>) -> tensor<16x1x2x8xf16> {
  %bk = "emb.broadcast"(%k, %i) : (tensor<4x6x2x8xf16>, tensor<16xi64>) -> tensor<16x6x2x8xf16>
  %bv = "emb.broadcast"(%v, %i) : (tensor<4x6x2x8xf16>, tensor<16xi64>) -> tensor<16x6x2x8xf16>
  %bl = "emb.broadcast"(%len, %j) : (tensor<4xi64>, tensor<16xi64>) -> tensor<16xi64>
  %o = "emb.attention"(%q, %bk, %bv, %bl) : (tensor<16x1x2x8xf16>, tensor<16x6x2x8xf16>, tensor<16x6x2x8xf16>, tensor<16xi64>) -> tensor<16x1x2x8xf16>
  return %o : tensor<16x1x2x8xf16>
}

// -----

// Key lengths of another integer type than cand_to_user: emb.ikbo_attention
// reads both with one type.
// CHECK-LABEL: func.func @key_lengths_other_type
// CHECK: "emb.attention"
// REMARK: [[@LINE+5]]:8: remark: 'emb.attention' not fused: its key_lengths and cand_to_user hold different integer types
func.func @key_lengths_other_type(%q: tensor<16x1x2x8xf16>, %k: tensor<4x6x2x8xf16>, %v: tensor<4x6x2x8xf16>, %i: tensor<16xi64>, %len: tensor<4xi32>) -> tensor<16x1x2x8xf16> {
  %bk = "emb.broadcast"(%k, %i) : (tensor<4x6x2x8xf16>, tensor<16xi64>) -> tensor<16x6x2x8xf16>
  %bv = "emb.broadcast"(%v, %i) : (tensor<4x6x2x8xf16>, tensor<16xi64>) -> tensor<16x6x2x8xf16>
  %bl = "emb.broadcast"(%len, %i) : (tensor<4xi32>, tensor<16xi64>) -> tensor<16xi32>
  %o = "emb.attention"(%q, %bk, %bv, %bl) : (tensor<16x1x2x8xf16>, tensor<16x6x2x8xf16>, tensor<16x6x2x8xf16>, tensor<16xi32>) -> tensor<16x1x2x8xf16>
  return %o : tensor<16x1x2x8xf16>
}

// -----

// Only k is a broadcast: v is per candidate.
// CHECK-LABEL: func.func @attention_v_candidate
// CHECK: "emb.attention"
// REMARK: [[@LINE+3]]:8: remark: 'emb.attention' not fused: only its k is a broadcast (k and v must both be)
func.func @attention_v_candidate(%q: tensor<16x2x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<16x6x1x8xf16>, %c2u: tensor<16xi32>) -> tensor<16x2x1x8xf16> {
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %o = "emb.attention"(%q, %bk, %v) : (tensor<16x2x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>) -> tensor<16x2x1x8xf16>
  return %o : tensor<16x2x1x8xf16>
}

// -----

// A concat piece of dynamic K: w's columns cannot be split statically.
// CHECK-LABEL: func.func @lce_dynamic_k
// CHECK: "emb.lce"
// CHECK-NOT: "emb.ikbo_lce"
// REMARK: [[@LINE+4]]:8: remark: 'emb.lce' not fused with its broadcast inputs: concat piece 1 has a dynamic K
func.func @lce_dynamic_k(%w: tensor<8x?xf16>, %u: tensor<4x4x16xf16>, %cand: tensor<16x?x16xf16>, %c2u: tensor<16xi32>) -> tensor<16x8x16xf16> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x4x16xf16>, tensor<16xi32>) -> tensor<16x4x16xf16>
  %x = tensor.concat dim(1) %b, %cand : (tensor<16x4x16xf16>, tensor<16x?x16xf16>) -> tensor<16x?x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x?xf16>, tensor<16x?x16xf16>) -> tensor<16x8x16xf16>
  return %y : tensor<16x8x16xf16>
}

// -----

// Every piece is a user piece: the whole lce runs on user rows, which is
// emb-sink-broadcast's rewrite, not a fusion.
// CHECK-LABEL: func.func @lce_all_user
// CHECK: "emb.lce"
// CHECK-NOT: "emb.ikbo_lce"
func.func @lce_all_user(%w: tensor<8x8xf16>, %u: tensor<4x3x16xf16>, %v: tensor<4x5x16xf16>, %c2u: tensor<16xi32>) -> tensor<16x8x16xf16> {
  %bu = "emb.broadcast"(%u, %c2u) : (tensor<4x3x16xf16>, tensor<16xi32>) -> tensor<16x3x16xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x5x16xf16>, tensor<16xi32>) -> tensor<16x5x16xf16>
  %x = tensor.concat dim(1) %bu, %bv : (tensor<16x3x16xf16>, tensor<16x5x16xf16>) -> tensor<16x8x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x8xf16>, tensor<16x8x16xf16>) -> tensor<16x8x16xf16>
  return %y : tensor<16x8x16xf16>
}

// -----

// Other ops that mix a broadcast with candidate data have no fused form.
// CHECK-LABEL: func.func @mulf_not_fused
// CHECK: %[[B:.+]] = "emb.broadcast"
// CHECK: arith.mulf %[[B]], %{{.+}}
func.func @mulf_not_fused(%u: tensor<4x8xf32>, %c2u: tensor<16xi32>, %cand: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %m = arith.mulf %b, %cand : tensor<16x8xf32>
  return %m : tensor<16x8xf32>
}
