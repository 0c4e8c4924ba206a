// emb-sink-broadcast moves emb.broadcast below ops that act on each batch row
// alone, so that they run on the U user rows: one case per kind of op.
// RUN: emb-opt --split-input-file --emb-sink-broadcast %s | FileCheck %s
// REQUIRES: emb-compiler

// A user-only activation runs on the 4 user rows; one broadcast remains.
// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[USER:.+]]: tensor<4x8xf16>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[ACT:.+]] = math.tanh %[[USER]] : tensor<4x8xf16>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[ACT]], %[[C2U]]) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
// CHECK: return %[[B]]
func.func @unary(%u: tensor<4x8xf16>, %c2u: tensor<16xi32>) -> tensor<16x8xf16> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
  %t = math.tanh %b : tensor<16x8xf16>
  return %t : tensor<16x8xf16>
}

// -----

// Both operands are broadcast by the same cand_to_user: the add runs on user
// rows (keeping its fastmath flags) and the two input broadcasts are gone.
// CHECK-LABEL: func.func @binary_same_index
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf32>, %[[V:.+]]: tensor<4x8xf32>, %[[C2U:.+]]: tensor<16xi64>)
// CHECK-NOT: "emb.broadcast"
// CHECK: %[[SUM:.+]] = arith.addf %[[U]], %[[V]] fastmath<contract> : tensor<4x8xf32>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[SUM]], %[[C2U]])
// CHECK-NOT: "emb.broadcast"
// CHECK: return %[[B]]
func.func @binary_same_index(%u: tensor<4x8xf32>, %v: tensor<4x8xf32>, %c2u: tensor<16xi64>) -> tensor<16x8xf32> {
  %bu = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi64>) -> tensor<16x8xf32>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x8xf32>, tensor<16xi64>) -> tensor<16x8xf32>
  %s = arith.addf %bu, %bv fastmath<contract> : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}

// -----

// Splat operands do not depend on the row: they are re-made at user shape
// (an arith.constant splat and a tensor.splat of a scalar).
// CHECK-LABEL: func.func @splat_operands
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf32>, %[[C2U:.+]]: tensor<16xi32>, %[[X:.+]]: f32)
// CHECK-NOT: {{(arith.constant|tensor.splat).*}}tensor<16x8xf32>
// CHECK: %[[HALF:.+]] = arith.constant dense<5.000000e-01> : tensor<4x8xf32>
// CHECK: %[[SCALED:.+]] = arith.mulf %[[U]], %[[HALF]] : tensor<4x8xf32>
// CHECK: %[[B0:.+]] = "emb.broadcast"(%[[SCALED]], %[[C2U]])
// CHECK: %[[XS:.+]] = tensor.splat %[[X]] : tensor<4x8xf32>
// CHECK: %[[DIFF:.+]] = arith.subf %[[XS]], %[[U]] : tensor<4x8xf32>
// CHECK: %[[B1:.+]] = "emb.broadcast"(%[[DIFF]], %[[C2U]])
// CHECK-NOT: {{(arith.constant|tensor.splat).*}}tensor<16x8xf32>
// CHECK: return %[[B0]], %[[B1]]
func.func @splat_operands(%u: tensor<4x8xf32>, %c2u: tensor<16xi32>, %x: f32) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %half = arith.constant dense<0.5> : tensor<16x8xf32>
  %m = arith.mulf %b, %half : tensor<16x8xf32>
  %s = tensor.splat %x : tensor<16x8xf32>
  %a = arith.subf %s, %b : tensor<16x8xf32>
  return %m, %a : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// A chain of user-only ops (a cast among them) all move to user rows; the
// broadcast ends up after the last one, at its element type.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf32>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[T:.+]] = math.tanh %[[U]] : tensor<4x8xf32>
// CHECK: %[[N:.+]] = arith.negf %[[T]] : tensor<4x8xf32>
// CHECK: %[[H:.+]] = arith.truncf %[[N]] : tensor<4x8xf32> to tensor<4x8xf16>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[H]], %[[C2U]]) : (tensor<4x8xf16>, tensor<16xi32>) -> tensor<16x8xf16>
// CHECK: return %[[B]]
func.func @chain(%u: tensor<4x8xf32>, %c2u: tensor<16xi32>) -> tensor<16x8xf16> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %t = math.tanh %b : tensor<16x8xf32>
  %n = arith.negf %t : tensor<16x8xf32>
  %h = arith.truncf %n : tensor<16x8xf32> to tensor<16x8xf16>
  return %h : tensor<16x8xf16>
}

// -----

// Comparisons make i1 tensors at user shape; a scalar select condition does
// not depend on the row.
// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf32>, %[[V:.+]]: tensor<4x8xf32>, %[[C2U:.+]]: tensor<16xi32>, %[[P:.+]]: i1)
// CHECK: %[[GT:.+]] = arith.cmpf ogt, %[[U]], %[[V]] : tensor<4x8xf32>
// CHECK: %[[MAX:.+]] = arith.select %[[GT]], %[[U]], %[[V]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK: %[[SEL:.+]] = arith.select %[[P]], %[[MAX]], %[[V]] : tensor<4x8xf32>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[SEL]], %[[C2U]])
// CHECK: return %[[B]]
func.func @select(%u: tensor<4x8xf32>, %v: tensor<4x8xf32>, %c2u: tensor<16xi32>, %p: i1) -> tensor<16x8xf32> {
  %bu = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %gt = arith.cmpf ogt, %bu, %bv : tensor<16x8xf32>
  %m = arith.select %gt, %bu, %bv : tensor<16x8xi1>, tensor<16x8xf32>
  %s = arith.select %p, %m, %bv : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}

// -----

// lce(w, broadcast(u, i)) -> broadcast(lce(w, u), i): the matmul runs on U.
// CHECK-LABEL: func.func @lce
// CHECK-SAME: (%[[W:.+]]: tensor<8x12xf16>, %[[U:.+]]: tensor<4x12x16xf16>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[Y:.+]] = "emb.lce"(%[[W]], %[[U]]) : (tensor<8x12xf16>, tensor<4x12x16xf16>) -> tensor<4x8x16xf16>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[Y]], %[[C2U]]) : (tensor<4x8x16xf16>, tensor<16xi32>) -> tensor<16x8x16xf16>
// CHECK: return %[[B]]
func.func @lce(%w: tensor<8x12xf16>, %u: tensor<4x12x16xf16>, %c2u: tensor<16xi32>) -> tensor<16x8x16xf16> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x12x16xf16>, tensor<16xi32>) -> tensor<16x12x16xf16>
  %y = "emb.lce"(%w, %b) : (tensor<8x12xf16>, tensor<16x12x16xf16>) -> tensor<16x8x16xf16>
  return %y : tensor<16x8x16xf16>
}

// -----

// A broadcast of a broadcast whose inner index is a constant inside the 4
// users: the index maps compose into one, i1[i2[b]], which is the broadcast
// of the rank-1 i1 by i2; u is read once. (Every entry of i1 is valid, so
// checking only those i2 reads drops no error.)
// CHECK-LABEL: func.func @compose
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf16>, %[[I2:.+]]: tensor<64xi64>)
// CHECK: %[[I1:.+]] = arith.constant dense<[0, 3, 1, 2, 3, 0]> : tensor<6xi32>
// CHECK: %[[COMPOSED:.+]] = "emb.broadcast"(%[[I1]], %[[I2]]) : (tensor<6xi32>, tensor<64xi64>) -> tensor<64xi32>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[U]], %[[COMPOSED]]) : (tensor<4x8xf16>, tensor<64xi32>) -> tensor<64x8xf16>
// CHECK-NOT: "emb.broadcast"
// CHECK: return %[[B]]
func.func @compose(%u: tensor<4x8xf16>, %i2: tensor<64xi64>) -> tensor<64x8xf16> {
  %i1 = arith.constant dense<[0, 3, 1, 2, 3, 0]> : tensor<6xi32>
  %b1 = "emb.broadcast"(%u, %i1) : (tensor<4x8xf16>, tensor<6xi32>) -> tensor<6x8xf16>
  %b2 = "emb.broadcast"(%b1, %i2) : (tensor<6x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
  return %b2 : tensor<64x8xf16>
}

// -----

// A splat inner index inside the users composes too.
// CHECK-LABEL: func.func @compose_splat
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf16>, %[[I2:.+]]: tensor<64xi64>)
// CHECK: %[[I1:.+]] = arith.constant dense<3> : tensor<16xi64>
// CHECK: %[[COMPOSED:.+]] = "emb.broadcast"(%[[I1]], %[[I2]]) : (tensor<16xi64>, tensor<64xi64>) -> tensor<64xi64>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[U]], %[[COMPOSED]]) : (tensor<4x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
// CHECK: return %[[B]]
func.func @compose_splat(%u: tensor<4x8xf16>, %i2: tensor<64xi64>) -> tensor<64x8xf16> {
  %i1 = arith.constant dense<3> : tensor<16xi64>
  %b1 = "emb.broadcast"(%u, %i1) : (tensor<4x8xf16>, tensor<16xi64>) -> tensor<16x8xf16>
  %b2 = "emb.broadcast"(%b1, %i2) : (tensor<16x8xf16>, tensor<64xi64>) -> tensor<64x8xf16>
  return %b2 : tensor<64x8xf16>
}

// -----

// A concat along K of broadcasts by one cand_to_user is a broadcast of the
// user concat; the lce that reads it then runs on user rows too.
// CHECK-LABEL: func.func @concat_then_lce
// CHECK-SAME: (%[[U:.+]]: tensor<4x3x16xf16>, %[[V:.+]]: tensor<4x5x16xf16>, %[[C2U:.+]]: tensor<16xi32>, %[[W:.+]]: tensor<8x8xf16>)
// CHECK: %[[X:.+]] = tensor.concat dim(1) %[[U]], %[[V]] : (tensor<4x3x16xf16>, tensor<4x5x16xf16>) -> tensor<4x8x16xf16>
// CHECK: %[[Y:.+]] = "emb.lce"(%[[W]], %[[X]]) : (tensor<8x8xf16>, tensor<4x8x16xf16>) -> tensor<4x8x16xf16>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[Y]], %[[C2U]])
// CHECK: return %[[B]]
func.func @concat_then_lce(%u: tensor<4x3x16xf16>, %v: tensor<4x5x16xf16>, %c2u: tensor<16xi32>, %w: tensor<8x8xf16>) -> tensor<16x8x16xf16> {
  %bu = "emb.broadcast"(%u, %c2u) : (tensor<4x3x16xf16>, tensor<16xi32>) -> tensor<16x3x16xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x5x16xf16>, tensor<16xi32>) -> tensor<16x5x16xf16>
  %x = tensor.concat dim(1) %bu, %bv : (tensor<16x3x16xf16>, tensor<16x5x16xf16>) -> tensor<16x8x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x8xf16>, tensor<16x8x16xf16>) -> tensor<16x8x16xf16>
  return %y : tensor<16x8x16xf16>
}

// -----

// Reshapes that keep dim 0 in a group of its own act on each row alone.
// CHECK-LABEL: func.func @reshapes
// CHECK-SAME: (%[[U:.+]]: tensor<4x48xf32>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[E:.+]] = tensor.expand_shape %[[U]] {{\[}}[0], [1, 2]] output_shape [4, 3, 16] : tensor<4x48xf32> into tensor<4x3x16xf32>
// CHECK: %[[X:.+]] = math.exp %[[E]] : tensor<4x3x16xf32>
// CHECK: %[[C:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<4x3x16xf32> into tensor<4x48xf32>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[C]], %[[C2U]]) : (tensor<4x48xf32>, tensor<16xi32>) -> tensor<16x48xf32>
// CHECK: return %[[B]]
func.func @reshapes(%u: tensor<4x48xf32>, %c2u: tensor<16xi32>) -> tensor<16x48xf32> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x48xf32>, tensor<16xi32>) -> tensor<16x48xf32>
  %e = tensor.expand_shape %b [[0], [1, 2]] output_shape [16, 3, 16] : tensor<16x48xf32> into tensor<16x3x16xf32>
  %t = math.exp %e : tensor<16x3x16xf32>
  %c = tensor.collapse_shape %t [[0], [1, 2]] : tensor<16x3x16xf32> into tensor<16x48xf32>
  return %c : tensor<16x48xf32>
}

// -----

// Dynamic U and B: the expand_shape's row count becomes tensor.dim of the
// user tensor, and the tensor.dim that sized it from the broadcast reads
// cand_to_user instead, so the input broadcast is left without users.
// CHECK-LABEL: func.func @dynamic_users
// CHECK-SAME: (%[[U:.+]]: tensor<?x48xf32>, %[[C2U:.+]]: tensor<?xi32>)
// CHECK: %[[ZERO:.+]] = arith.constant 0 : index
// CHECK: %[[USERS:.+]] = tensor.dim %[[U]], %[[ZERO]] : tensor<?x48xf32>
// CHECK: %[[E:.+]] = tensor.expand_shape %[[U]] {{\[}}[0], [1, 2]] output_shape [%[[USERS]], 3, 16] : tensor<?x48xf32> into tensor<?x3x16xf32>
// CHECK: %[[T:.+]] = math.tanh %[[E]] : tensor<?x3x16xf32>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[T]], %[[C2U]]) : (tensor<?x3x16xf32>, tensor<?xi32>) -> tensor<?x3x16xf32>
// CHECK-NOT: "emb.broadcast"
// CHECK: return %[[B]]
func.func @dynamic_users(%u: tensor<?x48xf32>, %c2u: tensor<?xi32>) -> tensor<?x3x16xf32> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<?x48xf32>, tensor<?xi32>) -> tensor<?x48xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %b, %c0 : tensor<?x48xf32>
  %e = tensor.expand_shape %b [[0], [1, 2]] output_shape [%n, 3, 16] : tensor<?x48xf32> into tensor<?x3x16xf32>
  %t = math.tanh %e : tensor<?x3x16xf32>
  return %t : tensor<?x3x16xf32>
}

// -----

// tensor.dim of a broadcast: dim 0 is cand_to_user's length, the others are
// the user tensor's.
// CHECK-LABEL: func.func @dims
// CHECK-SAME: (%[[U:.+]]: tensor<?x?xf32>, %[[C2U:.+]]: tensor<?xi32>)
// CHECK-NOT: "emb.broadcast"
// CHECK-DAG: tensor.dim %[[C2U]], %{{.+}} : tensor<?xi32>
// CHECK-DAG: tensor.dim %[[U]], %{{.+}} : tensor<?x?xf32>
func.func @dims(%u: tensor<?x?xf32>, %c2u: tensor<?xi32>) -> (index, index) {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<?x?xf32>, tensor<?xi32>) -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %b, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %b, %c1 : tensor<?x?xf32>
  return %rows, %cols : index, index
}

// -----

// Attention whose q, k and v are all broadcast by one cand_to_user runs on
// user rows, keeping its scale.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.+]]: tensor<4x2x1x8xf16>, %[[K:.+]]: tensor<4x6x1x8xf16>, %[[V:.+]]: tensor<4x6x1x8xf16>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[O:.+]] = "emb.attention"(%[[Q]], %[[K]], %[[V]]) {scale = 5.000000e-01 : f32} : (tensor<4x2x1x8xf16>, tensor<4x6x1x8xf16>, tensor<4x6x1x8xf16>) -> tensor<4x2x1x8xf16>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[O]], %[[C2U]])
// CHECK: return %[[B]]
func.func @attention(%q: tensor<4x2x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<4x6x1x8xf16>, %c2u: tensor<16xi32>) -> tensor<16x2x1x8xf16> {
  %bq = "emb.broadcast"(%q, %c2u) : (tensor<4x2x1x8xf16>, tensor<16xi32>) -> tensor<16x2x1x8xf16>
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %o = "emb.attention"(%bq, %bk, %bv) {scale = 0.5 : f32} : (tensor<16x2x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>) -> tensor<16x2x1x8xf16>
  return %o : tensor<16x2x1x8xf16>
}

// -----

// With key lengths, the lengths must be broadcast too (they are per row),
// and in 0..Lk whatever the inputs (on user rows every user's length is
// read, where per candidate only those some candidate selects are): the
// lengths of an emb.jagged_to_padded of max_length Lk. The attention runs on
// user rows with the users' lengths.
// CHECK-LABEL: func.func @attention_key_lengths
// CHECK-SAME: (%[[Q:.+]]: tensor<4x1x1x8xf16>, %[[SEQ:.+]]: tensor<?x8xf16>, %[[OFF:.+]]: tensor<5xi32>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[PADDED:.+]]:2 = "emb.jagged_to_padded"(%[[SEQ]], %[[OFF]])
// CHECK: %[[K:.+]] = tensor.expand_shape %[[PADDED]]#0
// CHECK: %[[O:.+]] = "emb.attention"(%[[Q]], %[[K]], %[[K]], %[[PADDED]]#1) : (tensor<4x1x1x8xf16>, tensor<4x6x1x8xf16>, tensor<4x6x1x8xf16>, tensor<4xi32>) -> tensor<4x1x1x8xf16>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[O]], %[[C2U]])
// CHECK: return %[[B]]
func.func @attention_key_lengths(%q: tensor<4x1x1x8xf16>, %seq: tensor<?x8xf16>, %off: tensor<5xi32>, %c2u: tensor<16xi32>) -> tensor<16x1x1x8xf16> {
  %padded, %len = "emb.jagged_to_padded"(%seq, %off) {max_length = 6 : i64} : (tensor<?x8xf16>, tensor<5xi32>) -> (tensor<4x6x8xf16>, tensor<4xi32>)
  %k = tensor.expand_shape %padded [[0], [1], [2, 3]] output_shape [4, 6, 1, 8] : tensor<4x6x8xf16> into tensor<4x6x1x8xf16>
  %bq = "emb.broadcast"(%q, %c2u) : (tensor<4x1x1x8xf16>, tensor<16xi32>) -> tensor<16x1x1x8xf16>
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bl = "emb.broadcast"(%len, %c2u) : (tensor<4xi32>, tensor<16xi32>) -> tensor<16xi32>
  %o = "emb.attention"(%bq, %bk, %bk, %bl) : (tensor<16x1x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16xi32>) -> tensor<16x1x1x8xf16>
  return %o : tensor<16x1x1x8xf16>
}

// -----

// Constant key lengths, all in 0..Lk: the attention runs on user rows.
// CHECK-LABEL: func.func @attention_constant_lengths
// CHECK-SAME: (%[[Q:.+]]: tensor<4x1x1x8xf16>, %[[K:.+]]: tensor<4x6x1x8xf16>, %[[V:.+]]: tensor<4x6x1x8xf16>, %[[C2U:.+]]: tensor<16xi64>)
// CHECK: %[[LEN:.+]] = arith.constant dense<[0, 6, 2, 5]> : tensor<4xi64>
// CHECK: %[[O:.+]] = "emb.attention"(%[[Q]], %[[K]], %[[V]], %[[LEN]]) : (tensor<4x1x1x8xf16>, tensor<4x6x1x8xf16>, tensor<4x6x1x8xf16>, tensor<4xi64>) -> tensor<4x1x1x8xf16>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[O]], %[[C2U]])
// CHECK: return %[[B]]
func.func @attention_constant_lengths(%q: tensor<4x1x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<4x6x1x8xf16>, %c2u: tensor<16xi64>) -> tensor<16x1x1x8xf16> {
  %len = arith.constant dense<[0, 6, 2, 5]> : tensor<4xi64>
  %bq = "emb.broadcast"(%q, %c2u) : (tensor<4x1x1x8xf16>, tensor<16xi64>) -> tensor<16x1x1x8xf16>
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi64>) -> tensor<16x6x1x8xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi64>) -> tensor<16x6x1x8xf16>
  %bl = "emb.broadcast"(%len, %c2u) : (tensor<4xi64>, tensor<16xi64>) -> tensor<16xi64>
  %o = "emb.attention"(%bq, %bk, %bv, %bl) : (tensor<16x1x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16xi64>) -> tensor<16x1x1x8xf16>
  return %o : tensor<16x1x1x8xf16>
}

// -----

// A broadcast with a user it can sink through and one it cannot (the mulf
// reads a candidate tensor): it stays for the second.
// CHECK-LABEL: func.func @several_users
// CHECK-SAME: (%[[U:.+]]: tensor<4x8xf32>, %[[C2U:.+]]: tensor<16xi32>, %[[CAND:.+]]: tensor<16x8xf32>)
// CHECK: %[[KEPT:.+]] = "emb.broadcast"(%[[U]], %[[C2U]])
// CHECK: %[[T:.+]] = math.tanh %[[U]] : tensor<4x8xf32>
// CHECK: %[[SUNK:.+]] = "emb.broadcast"(%[[T]], %[[C2U]])
// CHECK: %[[M:.+]] = arith.mulf %[[KEPT]], %[[CAND]] : tensor<16x8xf32>
// CHECK: return %[[SUNK]], %[[M]]
func.func @several_users(%u: tensor<4x8xf32>, %c2u: tensor<16xi32>, %cand: tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %t = math.tanh %b : tensor<16x8xf32>
  %m = arith.mulf %b, %cand : tensor<16x8xf32>
  return %t, %m : tensor<16x8xf32>, tensor<16x8xf32>
}

// -----

// Ops nested in regions are rewritten too (the broadcast is defined outside
// the loop body).
// CHECK-LABEL: func.func @nested
// CHECK: scf.for
// CHECK: %[[T:.+]] = math.tanh %{{.+}} : tensor<4x8xf32>
// CHECK: "emb.broadcast"(%[[T]], %{{.+}})
func.func @nested(%u: tensor<4x8xf32>, %c2u: tensor<16xi32>, %init: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x8xf32>, tensor<16xi32>) -> tensor<16x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<16x8xf32> {
    %t = math.tanh %b : tensor<16x8xf32>
    %s = arith.addf %acc, %t : tensor<16x8xf32>
    scf.yield %s : tensor<16x8xf32>
  }
  return %r : tensor<16x8xf32>
}
