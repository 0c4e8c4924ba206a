// emb-compute-type: compute_type on f32 emb.attention, emb.ikbo_attention
// and emb.ikbo_lce (bf16 by default, f16 on request, removed by type=f32);
// ops on f16 or bf16 data and emb.lce left alone.
// RUN: emb-opt --split-input-file --emb-compute-type %s | FileCheck %s --check-prefix=BF16
// RUN: emb-opt --split-input-file '--emb-compute-type=type=f16' %s | FileCheck %s --check-prefix=F16
// RUN: emb-opt --split-input-file '--emb-compute-type=type=f32' %s | FileCheck %s --check-prefix=F32
// RUN: not emb-opt '--emb-compute-type=type=f64' %s 2>&1 | FileCheck %s --check-prefix=BAD
// REQUIRES: emb-compiler

// BAD: emb-opt: error: emb-compute-type: option 'type' must be f32, f16 or bf16, got 'f64'

// f32 attention: both ops get the compute type (ikbo_attention's f16 is
// replaced); type=f32 removes it.
// BF16-LABEL: func.func @f32_attention
// BF16: "emb.attention"({{.*}}) {compute_type = bf16, scale = 1.250000e-01 : f32}
// BF16: "emb.ikbo_attention"({{.*}}) {compute_type = bf16}
// F16-LABEL: func.func @f32_attention
// F16: "emb.attention"({{.*}}) {compute_type = f16, scale = 1.250000e-01 : f32}
// F16: "emb.ikbo_attention"({{.*}}) {compute_type = f16}
// F32-LABEL: func.func @f32_attention
// F32: "emb.attention"({{.*}}) {scale = 1.250000e-01 : f32}
// F32-NOT: compute_type
// F32: "emb.ikbo_attention"({{[^{]*}}) :
func.func @f32_attention(%q: tensor<8x4x2x64xf32>, %k: tensor<8x32x2x64xf32>, %v: tensor<8x32x2x64xf32>, %ku: tensor<2x32x2x64xf32>, %c2u: tensor<8xi32>) -> (tensor<8x4x2x64xf32>, tensor<8x4x2x64xf32>) {
  %0 = "emb.attention"(%q, %k, %v) {scale = 0.125 : f32} : (tensor<8x4x2x64xf32>, tensor<8x32x2x64xf32>, tensor<8x32x2x64xf32>) -> tensor<8x4x2x64xf32>
  %1 = "emb.ikbo_attention"(%q, %ku, %ku, %c2u) {compute_type = f16} : (tensor<8x4x2x64xf32>, tensor<2x32x2x64xf32>, tensor<2x32x2x64xf32>, tensor<8xi32>) -> tensor<8x4x2x64xf32>
  return %0, %1 : tensor<8x4x2x64xf32>, tensor<8x4x2x64xf32>
}

// -----

// f32 emb.ikbo_lce gets the compute type too; type=f32 removes one. emb.lce
// has no compute_type (its f32 path is exact): it is left as it is.
// BF16-LABEL: func.func @f32_lce
// BF16: "emb.ikbo_lce"({{.*}}) {compute_type = bf16} :
// BF16: "emb.ikbo_lce"({{.*}}) {compute_type = bf16} :
// BF16: "emb.lce"({{[^{]*}}) :
// F16-LABEL: func.func @f32_lce
// F16: "emb.ikbo_lce"({{.*}}) {compute_type = f16} :
// F16: "emb.ikbo_lce"({{.*}}) {compute_type = f16} :
// F16: "emb.lce"({{[^{]*}}) :
// F32-LABEL: func.func @f32_lce
// F32-NOT: compute_type
// F32: "emb.ikbo_lce"({{[^{]*}}) :
// F32: "emb.ikbo_lce"({{[^{]*}}) :
// F32: "emb.lce"({{[^{]*}}) :
func.func @f32_lce(%wu: tensor<8x12xf32>, %wc: tensor<8x16xf32>, %u: tensor<3x12x4xf32>, %c: tensor<6x16x4xf32>, %c2u: tensor<6xi32>) -> (tensor<6x8x4xf32>, tensor<6x8x4xf32>, tensor<6x8x4xf32>) {
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) : (tensor<8x12xf32>, tensor<8x16xf32>, tensor<3x12x4xf32>, tensor<6x16x4xf32>, tensor<6xi32>) -> tensor<6x8x4xf32>
  %1 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) {compute_type = bf16} : (tensor<8x12xf32>, tensor<8x16xf32>, tensor<3x12x4xf32>, tensor<6x16x4xf32>, tensor<6xi32>) -> tensor<6x8x4xf32>
  %2 = "emb.lce"(%wc, %c) : (tensor<8x16xf32>, tensor<6x16x4xf32>) -> tensor<6x8x4xf32>
  return %0, %1, %2 : tensor<6x8x4xf32>, tensor<6x8x4xf32>, tensor<6x8x4xf32>
}

// -----

// Ops on f16 or bf16 data are left as they are.
// BF16-LABEL: func.func @half_data
// BF16: "emb.attention"({{[^{]*}}) :
// BF16: "emb.ikbo_lce"({{[^{]*}}) :
// BF16-NOT: compute_type
// F16-LABEL: func.func @half_data
// F16-NOT: compute_type
func.func @half_data(%q: tensor<8x4x2x64xf16>, %k: tensor<8x32x2x64xf16>, %v: tensor<8x32x2x64xf16>, %wu: tensor<8x12xbf16>, %wc: tensor<8x16xbf16>, %u: tensor<3x12x4xbf16>, %c: tensor<6x16x4xbf16>, %c2u: tensor<6xi32>) -> (tensor<8x4x2x64xf16>, tensor<6x8x4xbf16>) {
  %0 = "emb.attention"(%q, %k, %v) : (tensor<8x4x2x64xf16>, tensor<8x32x2x64xf16>, tensor<8x32x2x64xf16>) -> tensor<8x4x2x64xf16>
  %1 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) : (tensor<8x12xbf16>, tensor<8x16xbf16>, tensor<3x12x4xbf16>, tensor<6x16x4xbf16>, tensor<6xi32>) -> tensor<6x8x4xbf16>
  return %0, %1 : tensor<8x4x2x64xf16>, tensor<6x8x4xbf16>
}
