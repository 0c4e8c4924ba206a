// emb-attention-compute-type: compute_type on f32 attention ops (bf16 by
// default, f16 on request, removed by type=f32); f16 data left alone.
// RUN: emb-opt --split-input-file --emb-attention-compute-type %s | FileCheck %s --check-prefix=BF16
// RUN: emb-opt --split-input-file '--emb-attention-compute-type=type=f16' %s | FileCheck %s --check-prefix=F16
// RUN: emb-opt --split-input-file '--emb-attention-compute-type=type=f32' %s | FileCheck %s --check-prefix=F32
// RUN: not emb-opt '--emb-attention-compute-type=type=f64' %s 2>&1 | FileCheck %s --check-prefix=BAD
// REQUIRES: emb-compiler

// BAD: emb-opt: error: emb-attention-compute-type: option 'type' must be f32, f16 or bf16, got 'f64'

// BF16-LABEL: func.func @f32_ops
// BF16: "emb.attention"({{.*}}) {compute_type = bf16, scale = 1.250000e-01 : f32}
// BF16: "emb.ikbo_attention"({{.*}}) {compute_type = bf16}
// F16-LABEL: func.func @f32_ops
// F16: "emb.attention"({{.*}}) {compute_type = f16, scale = 1.250000e-01 : f32}
// F16: "emb.ikbo_attention"({{.*}}) {compute_type = f16}
// F32-LABEL: func.func @f32_ops
// F32: "emb.attention"({{.*}}) {scale = 1.250000e-01 : f32}
// F32-NOT: compute_type
// F32: "emb.ikbo_attention"({{[^{]*}}) :
func.func @f32_ops(%q: tensor<8x4x2x64xf32>, %k: tensor<8x32x2x64xf32>, %v: tensor<8x32x2x64xf32>, %ku: tensor<2x32x2x64xf32>, %c2u: tensor<8xi32>) -> (tensor<8x4x2x64xf32>, tensor<8x4x2x64xf32>) {
  %0 = "emb.attention"(%q, %k, %v) {scale = 0.125 : f32} : (tensor<8x4x2x64xf32>, tensor<8x32x2x64xf32>, tensor<8x32x2x64xf32>) -> tensor<8x4x2x64xf32>
  %1 = "emb.ikbo_attention"(%q, %ku, %ku, %c2u) {compute_type = f16} : (tensor<8x4x2x64xf32>, tensor<2x32x2x64xf32>, tensor<2x32x2x64xf32>, tensor<8xi32>) -> tensor<8x4x2x64xf32>
  return %0, %1 : tensor<8x4x2x64xf32>, tensor<8x4x2x64xf32>
}

// -----

// BF16-LABEL: func.func @f16_op
// BF16: "emb.attention"({{[^{]*}}) :
// BF16-NOT: compute_type
// F16-LABEL: func.func @f16_op
// F16-NOT: compute_type
func.func @f16_op(%q: tensor<8x4x2x64xf16>, %k: tensor<8x32x2x64xf16>, %v: tensor<8x32x2x64xf16>) -> tensor<8x4x2x64xf16> {
  %0 = "emb.attention"(%q, %k, %v) : (tensor<8x4x2x64xf16>, tensor<8x32x2x64xf16>, tensor<8x32x2x64xf16>) -> tensor<8x4x2x64xf16>
  return %0 : tensor<8x4x2x64xf16>
}
