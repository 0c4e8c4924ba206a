// The emb-ikbo pipeline: sink, fuse, pad K, clean up. User-only work runs at
// user batch size, no candidate-sized copy of a user tensor is left, and the
// K splits are aligned. Running it twice changes nothing.
// RUN: emb-opt --split-input-file --emb-ikbo %s | FileCheck %s
// RUN: emb-opt --split-input-file --emb-ikbo %s > %t.once
// RUN: emb-opt --split-input-file --emb-ikbo %t.once > %t.twice
// RUN: diff %t.once %t.twice
// The pipeline by name in --pass-pipeline, with its option.
// RUN: emb-opt --split-input-file --pass-pipeline='builtin.module(emb-ikbo{align=16})' %s | FileCheck %s --check-prefix=ALIGN16
// RUN: not emb-opt --emb-ikbo=pad=1 %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: emb-opt: error: emb-ikbo: unknown option 'pad' (options: align)
// The shipped examples.
// RUN: emb-opt --emb-ikbo %examples/ranking_block.mlir | FileCheck %s --check-prefix=RANKING
// RUN: emb-opt --emb-ikbo %examples/ranking_block.mlir | emb-opt --emb-ikbo | FileCheck %s --check-prefix=RANKING
// RUN: emb-opt --emb-ikbo %examples/target_attention.mlir | FileCheck %s --check-prefix=ATTENTION
// RUN: emb-opt --emb-ikbo %examples/ikbo_benchmark.mlir | FileCheck %s --check-prefix=BENCH
// REQUIRES: emb-compiler

// A ranking block: the user-only tanh must be sunk first, or the concat would
// hold tanh(broadcast) instead of a broadcast and nothing would fuse; then
// the lce becomes an ikbo_lce and Ku = 3, Kc = 5 pad to 8 each (f16).
// CHECK-LABEL: func.func @ranking
// CHECK-SAME: (%[[USER:.+]]: tensor<4x48xf16>, %[[CAND:.+]]: tensor<16x5x16xf16>, %[[C2U:.+]]: tensor<16xi32>, %[[W:.+]]: tensor<8x8xf16>)
// CHECK-NOT: "emb.broadcast"
// CHECK-DAG: %[[UZ:.+]] = arith.constant dense<0.000000e+00> : tensor<4x5x16xf16>
// CHECK-DAG: %[[CZ:.+]] = arith.constant dense<0.000000e+00> : tensor<16x3x16xf16>
// CHECK-DAG: %[[U3:.+]] = tensor.expand_shape %[[USER]] {{\[}}[0], [1, 2]] output_shape [4, 3, 16] : tensor<4x48xf16> into tensor<4x3x16xf16>
// CHECK-DAG: %[[ACT:.+]] = math.tanh %[[U3]] : tensor<4x3x16xf16>
// CHECK-DAG: %[[WU:.+]] = tensor.extract_slice %[[W]][0, 0] [8, 3] [1, 1]
// CHECK-DAG: %[[WC:.+]] = tensor.extract_slice %[[W]][0, 3] [8, 5] [1, 1]
// CHECK-DAG: %[[WUP:.+]] = tensor.concat dim(1) %[[WU]], %{{.+}} : (tensor<8x3xf16>, tensor<8x5xf16>) -> tensor<8x8xf16>
// CHECK-DAG: %[[UP:.+]] = tensor.concat dim(1) %[[ACT]], %[[UZ]] : (tensor<4x3x16xf16>, tensor<4x5x16xf16>) -> tensor<4x8x16xf16>
// CHECK-DAG: %[[WCP:.+]] = tensor.concat dim(1) %[[WC]], %{{.+}} : (tensor<8x5xf16>, tensor<8x3xf16>) -> tensor<8x8xf16>
// CHECK-DAG: %[[CP:.+]] = tensor.concat dim(1) %[[CAND]], %[[CZ]] : (tensor<16x5x16xf16>, tensor<16x3x16xf16>) -> tensor<16x8x16xf16>
// CHECK: %[[Y:.+]] = "emb.ikbo_lce"(%[[WUP]], %[[WCP]], %[[UP]], %[[CP]], %[[C2U]]) : (tensor<8x8xf16>, tensor<8x8xf16>, tensor<4x8x16xf16>, tensor<16x8x16xf16>, tensor<16xi32>) -> tensor<16x8x16xf16>
// CHECK-NOT: "emb.lce"
// CHECK-NOT: "emb.broadcast"
// CHECK: return %[[Y]]
// ALIGN16-LABEL: func.func @ranking
// ALIGN16: "emb.ikbo_lce"(%{{.+}}) : (tensor<8x16xf16>, tensor<8x16xf16>, tensor<4x16x16xf16>, tensor<16x16x16xf16>, tensor<16xi32>)
func.func @ranking(%user: tensor<4x48xf16>, %cand: tensor<16x5x16xf16>, %c2u: tensor<16xi32>, %w: tensor<8x8xf16>) -> tensor<16x8x16xf16> {
  %b = "emb.broadcast"(%user, %c2u) : (tensor<4x48xf16>, tensor<16xi32>) -> tensor<16x48xf16>
  %b3 = tensor.expand_shape %b [[0], [1, 2]] output_shape [16, 3, 16] : tensor<16x48xf16> into tensor<16x3x16xf16>
  %act = math.tanh %b3 : tensor<16x3x16xf16>
  %x = tensor.concat dim(1) %act, %cand : (tensor<16x3x16xf16>, tensor<16x5x16xf16>) -> tensor<16x8x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x8xf16>, tensor<16x8x16xf16>) -> tensor<16x8x16xf16>
  return %y : tensor<16x8x16xf16>
}

// -----

// Target attention with a per-user bias added to its output: keys and values
// are read in place, the bias is added by broadcast_add.
// CHECK-LABEL: func.func @attention_bias
// CHECK-SAME: (%[[Q:.+]]: tensor<16x2x1x8xf16>, %[[K:.+]]: tensor<4x6x1x8xf16>, %[[V:.+]]: tensor<4x6x1x8xf16>, %[[BIAS:.+]]: tensor<4x2x1x8xf16>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK-NOT: "emb.broadcast"(
// CHECK: %[[O:.+]] = "emb.ikbo_attention"(%[[Q]], %[[K]], %[[V]], %[[C2U]])
// CHECK: %[[S:.+]] = "emb.broadcast_add"(%[[BIAS]], %[[C2U]], %[[O]])
// CHECK-NOT: "emb.broadcast"(
// CHECK: return %[[S]]
func.func @attention_bias(%q: tensor<16x2x1x8xf16>, %k: tensor<4x6x1x8xf16>, %v: tensor<4x6x1x8xf16>, %bias: tensor<4x2x1x8xf16>, %c2u: tensor<16xi32>) -> tensor<16x2x1x8xf16> {
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf16>, tensor<16xi32>) -> tensor<16x6x1x8xf16>
  %o = "emb.attention"(%q, %bk, %bv) : (tensor<16x2x1x8xf16>, tensor<16x6x1x8xf16>, tensor<16x6x1x8xf16>) -> tensor<16x2x1x8xf16>
  %bb = "emb.broadcast"(%bias, %c2u) : (tensor<4x2x1x8xf16>, tensor<16xi32>) -> tensor<16x2x1x8xf16>
  %s = arith.addf %o, %bb : tensor<16x2x1x8xf16>
  return %s : tensor<16x2x1x8xf16>
}

// -----

// A user-only lce: the whole lce runs at user batch size (aligned K = 16),
// and only its small result is broadcast.
// CHECK-LABEL: func.func @user_only_lce
// CHECK-SAME: (%[[W:.+]]: tensor<8x16xf16>, %[[U:.+]]: tensor<4x16x16xf16>, %[[C2U:.+]]: tensor<16xi32>)
// CHECK: %[[Y:.+]] = "emb.lce"(%[[W]], %[[U]]) : (tensor<8x16xf16>, tensor<4x16x16xf16>) -> tensor<4x8x16xf16>
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[Y]], %[[C2U]])
// CHECK: return %[[B]]
func.func @user_only_lce(%w: tensor<8x16xf16>, %u: tensor<4x16x16xf16>, %c2u: tensor<16xi32>) -> tensor<16x8x16xf16> {
  %b = "emb.broadcast"(%u, %c2u) : (tensor<4x16x16xf16>, tensor<16xi32>) -> tensor<16x16x16xf16>
  %y = "emb.lce"(%w, %b) : (tensor<8x16xf16>, tensor<16x16x16xf16>) -> tensor<16x8x16xf16>
  return %y : tensor<16x8x16xf16>
}

// The ranking block example: the user tanh runs on the 4 users, the lce is
// an ikbo_lce over Ku = 3 + 1 and Kc = 5 + 3 (f32: multiples of 4).
// RANKING-LABEL: func.func @ranking_block
// RANKING-NOT: "emb.broadcast"
// RANKING: math.tanh %{{.+}} : tensor<4x3x16xf32>
// RANKING: "emb.ikbo_lce"(%{{.+}}) : (tensor<8x4xf32>, tensor<8x8xf32>, tensor<4x4x16xf32>, tensor<24x8x16xf32>, tensor<24xi32>) -> tensor<24x8x16xf32>
// RANKING-NOT: "emb.lce"
// RANKING-NOT: "emb.broadcast"

// ATTENTION-LABEL: func.func @target_attention
// ATTENTION-NOT: "emb.broadcast"
// ATTENTION: "emb.ikbo_attention"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (tensor<24x4x2x16xf32>, tensor<4x32x2x16xf32>, tensor<4x32x2x16xf32>, tensor<24xi32>)
// ATTENTION-NOT: "emb.attention"

// The IKBO benchmark shape: one ikbo_lce over 15 users, Ku = 1178 -> 1184
// (f16; the user side is small to copy) while Kc = 866 stays: padding the
// 1024x866x256 candidate argument would copy 433 MiB, and the kernel reads
// unpadded K. No broadcast left.
// BENCH-LABEL: func.func @ikbo_benchmark
// BENCH-NOT: "emb.broadcast"
// BENCH: "emb.ikbo_lce"(%{{.+}}) : (tensor<433x1184xf16>, tensor<433x866xf16>, tensor<15x1184x256xf16>, tensor<1024x866x256xf16>, tensor<1024xi32>) -> tensor<1024x433x256xf16>
// BENCH-NOT: "emb.lce"
