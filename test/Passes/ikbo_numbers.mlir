// emb-ikbo keeps the numbers: emb-run runs each model as written and after
// the pipeline on the same random inputs (users in the user batch) and
// compares every element within the dtype's tolerance. The sums are the
// same but in another order (user and candidate products apart), so f16
// may differ in the last bit.
// RUN: emb-run %s --entry ranking --random-inputs --pipeline emb-ikbo --compare-unoptimized | FileCheck %s --check-prefix=RANKING
// RUN: emb-run %s --entry attention_bias --random-inputs --pipeline emb-ikbo --compare-unoptimized | FileCheck %s --check-prefix=ATTENTION
// RUN: emb-run %s --entry interleaved --random-inputs --pipeline emb-ikbo --compare-unoptimized | FileCheck %s --check-prefix=INTERLEAVED
// RUN: emb-run %examples/ranking_block.mlir --random-inputs --pipeline emb-ikbo --compare-unoptimized | FileCheck %s --check-prefix=EXAMPLE
// RUN: emb-run %examples/target_attention.mlir --random-inputs --pipeline emb-ikbo --compare-unoptimized | FileCheck %s --check-prefix=EXAMPLE
// REQUIRES: emb-compiler

// EXAMPLE: result #0 {{.*}}: max abs diff {{.*}}: ok

// RANKING: result #0 tensor<16x8x16xf16>: max abs diff {{.*}} against @ranking {{.*}}: ok
func.func @ranking(%user: tensor<4x48xf16>, %cand: tensor<16x5x16xf16>, %c2u: tensor<16xi32>, %w: tensor<8x8xf16>) -> tensor<16x8x16xf16> {
  %b = "emb.broadcast"(%user, %c2u) : (tensor<4x48xf16>, tensor<16xi32>) -> tensor<16x48xf16>
  %b3 = tensor.expand_shape %b [[0], [1, 2]] output_shape [16, 3, 16] : tensor<16x48xf16> into tensor<16x3x16xf16>
  %act = math.tanh %b3 : tensor<16x3x16xf16>
  %x = tensor.concat dim(1) %act, %cand : (tensor<16x3x16xf16>, tensor<16x5x16xf16>) -> tensor<16x8x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x8xf16>, tensor<16x8x16xf16>) -> tensor<16x8x16xf16>
  return %y : tensor<16x8x16xf16>
}

// ATTENTION: result #0 tensor<16x2x1x8xf32>: max abs diff {{.*}} against @attention_bias {{.*}}: ok
func.func @attention_bias(%q: tensor<16x2x1x8xf32>, %k: tensor<4x6x1x8xf32>, %v: tensor<4x6x1x8xf32>, %bias: tensor<4x2x1x8xf32>, %c2u: tensor<16xi32>) -> tensor<16x2x1x8xf32> {
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<4x6x1x8xf32>, tensor<16xi32>) -> tensor<16x6x1x8xf32>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<4x6x1x8xf32>, tensor<16xi32>) -> tensor<16x6x1x8xf32>
  %o = "emb.attention"(%q, %bk, %bv) : (tensor<16x2x1x8xf32>, tensor<16x6x1x8xf32>, tensor<16x6x1x8xf32>) -> tensor<16x2x1x8xf32>
  %bb = "emb.broadcast"(%bias, %c2u) : (tensor<4x2x1x8xf32>, tensor<16xi32>) -> tensor<16x2x1x8xf32>
  %s = arith.addf %o, %bb : tensor<16x2x1x8xf32>
  return %s : tensor<16x2x1x8xf32>
}

// Interleaved user and candidate pieces, f32 (K = 10: Ku = 3 -> 4, Kc = 7 -> 8).
// INTERLEAVED: result #0 tensor<16x8x16xf32>: max abs diff {{.*}} against @interleaved {{.*}}: ok
func.func @interleaved(%w: tensor<8x10xf32>, %u1: tensor<4x2x16xf32>, %c1: tensor<16x3x16xf32>, %u2: tensor<4x1x16xf32>, %c2: tensor<16x4x16xf32>, %c2u: tensor<16xi32>) -> tensor<16x8x16xf32> {
  %b1 = "emb.broadcast"(%u1, %c2u) : (tensor<4x2x16xf32>, tensor<16xi32>) -> tensor<16x2x16xf32>
  %b2 = "emb.broadcast"(%u2, %c2u) : (tensor<4x1x16xf32>, tensor<16xi32>) -> tensor<16x1x16xf32>
  %x = tensor.concat dim(1) %c1, %b1, %c2, %b2 : (tensor<16x3x16xf32>, tensor<16x2x16xf32>, tensor<16x4x16xf32>, tensor<16x1x16xf32>) -> tensor<16x10x16xf32>
  %y = "emb.lce"(%w, %x) : (tensor<8x10xf32>, tensor<16x10x16xf32>) -> tensor<16x8x16xf32>
  return %y : tensor<16x8x16xf32>
}
