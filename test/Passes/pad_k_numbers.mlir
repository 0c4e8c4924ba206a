// Padded and unpadded give the same numbers: emb-run runs each function as
// written and after emb-pad-k on the same random inputs. Zero padding adds
// products that are exactly zero, so the results match bit for bit.
// RUN: emb-run %s --entry lce_f16 --random-inputs --pipeline emb-pad-k --compare-unoptimized | FileCheck %s --check-prefix=F16
// RUN: emb-run %s --entry lce_f32 --random-inputs --pipeline emb-pad-k --compare-unoptimized | FileCheck %s --check-prefix=F32
// RUN: emb-run %s --entry lce_f32 --random-inputs --pipeline 'emb-pad-k{align=16}' --compare-unoptimized | FileCheck %s --check-prefix=F32
// RUN: emb-run %s --entry ikbo_lce_bf16 --random-inputs --pipeline emb-pad-k --compare-unoptimized | FileCheck %s --check-prefix=BF16
// RUN: emb-run %s --entry concat_operand --random-inputs --pipeline emb-pad-k --compare-unoptimized | FileCheck %s --check-prefix=CONCAT
// REQUIRES: emb-compiler

// F16: result #0 tensor<16x8x32xf16>: max abs diff 0, max rel diff 0 against @lce_f16 {{.*}}: ok
func.func @lce_f16(%w: tensor<8x12xf16>, %x: tensor<16x12x32xf16>) -> tensor<16x8x32xf16> {
  %y = "emb.lce"(%w, %x) : (tensor<8x12xf16>, tensor<16x12x32xf16>) -> tensor<16x8x32xf16>
  return %y : tensor<16x8x32xf16>
}

// F32: result #0 tensor<3x5x7xf32>: max abs diff 0, max rel diff 0 against @lce_f32 {{.*}}: ok
func.func @lce_f32(%w: tensor<5x6xf32>, %x: tensor<3x6x7xf32>) -> tensor<3x5x7xf32> {
  %y = "emb.lce"(%w, %x) : (tensor<5x6xf32>, tensor<3x6x7xf32>) -> tensor<3x5x7xf32>
  return %y : tensor<3x5x7xf32>
}

// BF16: result #0 tensor<16x8x32xbf16>: max abs diff 0, max rel diff 0 against @ikbo_lce_bf16 {{.*}}: ok
func.func @ikbo_lce_bf16(%wu: tensor<8x3xbf16>, %wc: tensor<8x5xbf16>, %u: tensor<4x3x32xbf16>, %c: tensor<16x5x32xbf16>, %c2u: tensor<16xi32>) -> tensor<16x8x32xbf16> {
  %y = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) : (tensor<8x3xbf16>, tensor<8x5xbf16>, tensor<4x3x32xbf16>, tensor<16x5x32xbf16>, tensor<16xi32>) -> tensor<16x8x32xbf16>
  return %y : tensor<16x8x32xbf16>
}

// CONCAT: result #0 tensor<16x8x32xf16>: max abs diff 0, max rel diff 0 against @concat_operand {{.*}}: ok
func.func @concat_operand(%w: tensor<8x10xf16>, %a: tensor<16x3x32xf16>, %b: tensor<16x7x32xf16>) -> tensor<16x8x32xf16> {
  %x = tensor.concat dim(1) %a, %b : (tensor<16x3x32xf16>, tensor<16x7x32xf16>) -> tensor<16x10x32xf16>
  %y = "emb.lce"(%w, %x) : (tensor<8x10xf16>, tensor<16x10x32xf16>) -> tensor<16x8x32xf16>
  return %y : tensor<16x8x32xf16>
}
