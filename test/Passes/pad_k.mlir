// emb-pad-k pads K of emb.lce and of emb.ikbo_lce (Ku and Kc apart) with
// zeros to a multiple of 16 bytes' worth of the element type (or align=N):
// zero columns in the weight, zero rows in the embeddings, extending a
// concat along K that makes an operand instead of copying it again.
// RUN: emb-opt --split-input-file --emb-pad-k %s | FileCheck %s
// RUN: emb-opt --split-input-file --emb-pad-k=align=16 %s | FileCheck %s --check-prefix=ALIGN16
// Padding twice changes nothing.
// RUN: emb-opt --split-input-file --emb-pad-k %s | emb-opt --split-input-file --emb-pad-k > %t.twice
// RUN: emb-opt --split-input-file --emb-pad-k %s > %t.once
// RUN: diff %t.once %t.twice
// REQUIRES: emb-compiler

// f16: K = 12 pads to 16 (8 elements are 16 bytes).
// CHECK-LABEL: func.func @lce_f16
// CHECK-SAME: (%[[W:.+]]: tensor<8x12xf16>, %[[X:.+]]: tensor<16x12x32xf16>)
// CHECK: %[[WZ:.+]] = arith.constant dense<0.000000e+00> : tensor<8x4xf16>
// CHECK: %[[WP:.+]] = tensor.concat dim(1) %[[W]], %[[WZ]] : (tensor<8x12xf16>, tensor<8x4xf16>) -> tensor<8x16xf16>
// CHECK: %[[XZ:.+]] = arith.constant dense<0.000000e+00> : tensor<16x4x32xf16>
// CHECK: %[[XP:.+]] = tensor.concat dim(1) %[[X]], %[[XZ]] : (tensor<16x12x32xf16>, tensor<16x4x32xf16>) -> tensor<16x16x32xf16>
// CHECK: %[[Y:.+]] = "emb.lce"(%[[WP]], %[[XP]]) : (tensor<8x16xf16>, tensor<16x16x32xf16>) -> tensor<16x8x32xf16>
// CHECK: return %[[Y]]
// ALIGN16-LABEL: func.func @lce_f16
// ALIGN16: "emb.lce"(%{{.+}}, %{{.+}}) : (tensor<8x16xf16>, tensor<16x16x32xf16>)
func.func @lce_f16(%w: tensor<8x12xf16>, %x: tensor<16x12x32xf16>) -> tensor<16x8x32xf16> {
  %y = "emb.lce"(%w, %x) : (tensor<8x12xf16>, tensor<16x12x32xf16>) -> tensor<16x8x32xf16>
  return %y : tensor<16x8x32xf16>
}

// -----

// f32: K = 6 pads to 8 (4 elements are 16 bytes); align=16 pads it to 16.
// CHECK-LABEL: func.func @lce_f32
// CHECK: "emb.lce"(%{{.+}}, %{{.+}}) : (tensor<4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
// ALIGN16-LABEL: func.func @lce_f32
// ALIGN16: "emb.lce"(%{{.+}}, %{{.+}}) : (tensor<4x16xf32>, tensor<2x16x4xf32>) -> tensor<2x4x4xf32>
func.func @lce_f32(%w: tensor<4x6xf32>, %x: tensor<2x6x4xf32>) -> tensor<2x4x4xf32> {
  %y = "emb.lce"(%w, %x) : (tensor<4x6xf32>, tensor<2x6x4xf32>) -> tensor<2x4x4xf32>
  return %y : tensor<2x4x4xf32>
}

// -----

// An operand made by a concat along K: the concat gains a zero piece, and the
// old one (now unused) is gone.
// CHECK-LABEL: func.func @extend_concat
// CHECK-SAME: (%[[W:.+]]: tensor<8x10xf16>, %[[A:.+]]: tensor<16x3x32xf16>, %[[B:.+]]: tensor<16x7x32xf16>)
// CHECK: %[[Z:.+]] = arith.constant dense<0.000000e+00> : tensor<16x6x32xf16>
// CHECK-NOT: tensor.concat dim(1) %[[A]], %[[B]] :
// CHECK: %[[XP:.+]] = tensor.concat dim(1) %[[A]], %[[B]], %[[Z]] : (tensor<16x3x32xf16>, tensor<16x7x32xf16>, tensor<16x6x32xf16>) -> tensor<16x16x32xf16>
// CHECK: "emb.lce"(%{{.+}}, %[[XP]]) : (tensor<8x16xf16>, tensor<16x16x32xf16>)
func.func @extend_concat(%w: tensor<8x10xf16>, %a: tensor<16x3x32xf16>, %b: tensor<16x7x32xf16>) -> tensor<16x8x32xf16> {
  %x = tensor.concat dim(1) %a, %b : (tensor<16x3x32xf16>, tensor<16x7x32xf16>) -> tensor<16x10x32xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x10xf16>, tensor<16x10x32xf16>) -> tensor<16x8x32xf16>
  return %y : tensor<16x8x32xf16>
}

// -----

// emb.ikbo_lce: Ku = 3 and Kc = 5 each pad to 8 (bf16), independently.
// CHECK-LABEL: func.func @ikbo_lce
// CHECK-SAME: (%[[WU:.+]]: tensor<8x3xbf16>, %[[WC:.+]]: tensor<8x5xbf16>, %[[U:.+]]: tensor<4x3x32xbf16>, %[[C:.+]]: tensor<16x5x32xbf16>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK-DAG: %[[WUP:.+]] = tensor.concat dim(1) %[[WU]], %{{.+}} : (tensor<8x3xbf16>, tensor<8x5xbf16>) -> tensor<8x8xbf16>
// CHECK-DAG: %[[UP:.+]] = tensor.concat dim(1) %[[U]], %{{.+}} : (tensor<4x3x32xbf16>, tensor<4x5x32xbf16>) -> tensor<4x8x32xbf16>
// CHECK-DAG: %[[WCP:.+]] = tensor.concat dim(1) %[[WC]], %{{.+}} : (tensor<8x5xbf16>, tensor<8x3xbf16>) -> tensor<8x8xbf16>
// CHECK-DAG: %[[CP:.+]] = tensor.concat dim(1) %[[C]], %{{.+}} : (tensor<16x5x32xbf16>, tensor<16x3x32xbf16>) -> tensor<16x8x32xbf16>
// CHECK: "emb.ikbo_lce"(%[[WUP]], %[[WCP]], %[[UP]], %[[CP]], %[[C2U]]) : (tensor<8x8xbf16>, tensor<8x8xbf16>, tensor<4x8x32xbf16>, tensor<16x8x32xbf16>, tensor<16xi32>) -> tensor<16x8x32xbf16>
func.func @ikbo_lce(%wu: tensor<8x3xbf16>, %wc: tensor<8x5xbf16>, %u: tensor<4x3x32xbf16>, %c: tensor<16x5x32xbf16>, %c2u: tensor<16xi32>) -> tensor<16x8x32xbf16> {
  %y = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) : (tensor<8x3xbf16>, tensor<8x5xbf16>, tensor<4x3x32xbf16>, tensor<16x5x32xbf16>, tensor<16xi32>) -> tensor<16x8x32xbf16>
  return %y : tensor<16x8x32xbf16>
}

// -----

// Only the unaligned half of an ikbo_lce is padded: Ku = 8 stays.
// CHECK-LABEL: func.func @ikbo_lce_one_side
// CHECK-SAME: (%[[WU:.+]]: tensor<8x8xf16>, %[[WC:.+]]: tensor<8x5xf16>, %[[U:.+]]: tensor<4x8x32xf16>
// CHECK: "emb.ikbo_lce"(%[[WU]], %{{.+}}, %[[U]], %{{.+}}, %{{.+}}) : (tensor<8x8xf16>, tensor<8x8xf16>, tensor<4x8x32xf16>, tensor<16x8x32xf16>, tensor<16xi32>)
func.func @ikbo_lce_one_side(%wu: tensor<8x8xf16>, %wc: tensor<8x5xf16>, %u: tensor<4x8x32xf16>, %c: tensor<16x5x32xf16>, %c2u: tensor<16xi32>) -> tensor<16x8x32xf16> {
  %y = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) : (tensor<8x8xf16>, tensor<8x5xf16>, tensor<4x8x32xf16>, tensor<16x5x32xf16>, tensor<16xi32>) -> tensor<16x8x32xf16>
  return %y : tensor<16x8x32xf16>
}

// -----

// compute_type stays on the padded op: f32 Ku = 6 and Kc = 3 pad to 8 and 4
// (align=16 to 16).
// CHECK-LABEL: func.func @ikbo_lce_in_bf16
// CHECK: "emb.ikbo_lce"(%{{.+}}) {compute_type = bf16} : (tensor<8x8xf32>, tensor<8x4xf32>, tensor<4x8x32xf32>, tensor<16x4x32xf32>, tensor<16xi32>) -> tensor<16x8x32xf32>
// ALIGN16-LABEL: func.func @ikbo_lce_in_bf16
// ALIGN16: "emb.ikbo_lce"(%{{.+}}) {compute_type = bf16} : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<4x16x32xf32>, tensor<16x16x32xf32>, tensor<16xi32>) -> tensor<16x8x32xf32>
func.func @ikbo_lce_in_bf16(%wu: tensor<8x6xf32>, %wc: tensor<8x3xf32>, %u: tensor<4x6x32xf32>, %c: tensor<16x3x32xf32>, %c2u: tensor<16xi32>) -> tensor<16x8x32xf32> {
  %y = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) {compute_type = bf16} : (tensor<8x6xf32>, tensor<8x3xf32>, tensor<4x6x32xf32>, tensor<16x3x32xf32>, tensor<16xi32>) -> tensor<16x8x32xf32>
  return %y : tensor<16x8x32xf32>
}

// -----

// Aligned K is left alone.
// CHECK-LABEL: func.func @aligned
// CHECK-NOT: tensor.concat
// CHECK: "emb.lce"(%{{.+}}, %{{.+}}) : (tensor<8x16xf16>, tensor<16x16x32xf16>)
func.func @aligned(%w: tensor<8x16xf16>, %x: tensor<16x16x32xf16>) -> tensor<16x8x32xf16> {
  %y = "emb.lce"(%w, %x) : (tensor<8x16xf16>, tensor<16x16x32xf16>) -> tensor<16x8x32xf16>
  return %y : tensor<16x8x32xf16>
}

// -----

// A dynamic batch made by a concat along K: the concat is extended (no
// copy), and the zero rows are a tensor.splat sized by tensor.dim.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-SAME: (%[[W:.+]]: tensor<8x12xf16>, %[[A:.+]]: tensor<?x5x32xf16>, %[[B:.+]]: tensor<?x7x32xf16>)
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f16
// CHECK-DAG: %[[D:.+]] = tensor.dim %{{.+}}, %{{.+}} : tensor<?x12x32xf16>
// CHECK: %[[XZ:.+]] = tensor.splat %[[ZERO]][%[[D]]] : tensor<?x4x32xf16>
// CHECK: %[[XP:.+]] = tensor.concat dim(1) %[[A]], %[[B]], %[[XZ]] : (tensor<?x5x32xf16>, tensor<?x7x32xf16>, tensor<?x4x32xf16>) -> tensor<?x16x32xf16>
// CHECK: "emb.lce"(%{{.+}}, %[[XP]]) : (tensor<8x16xf16>, tensor<?x16x32xf16>) -> tensor<?x8x32xf16>
func.func @dynamic_batch(%w: tensor<8x12xf16>, %a: tensor<?x5x32xf16>, %b: tensor<?x7x32xf16>) -> tensor<?x8x32xf16> {
  %x = tensor.concat dim(1) %a, %b : (tensor<?x5x32xf16>, tensor<?x7x32xf16>) -> tensor<?x12x32xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x12xf16>, tensor<?x12x32xf16>) -> tensor<?x8x32xf16>
  return %y : tensor<?x8x32xf16>
}
