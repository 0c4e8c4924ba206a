// Splat constants and tensor.splat run with the right element bits in every
// dtype: each function's result has a known sum.
// REQUIRES: emb-compiler
// RUN: emb-run %s --entry f16_constant --random-inputs --print | FileCheck %s --check-prefix=F16
// F16: result #0 tensor<2x4xf16>: sum 18, min 2.25, max 2.25
// RUN: emb-run %s --entry bf16_constant --random-inputs --print | FileCheck %s --check-prefix=BF16
// BF16: result #0 tensor<2x4xbf16>: sum -12, min -1.5, max -1.5
// RUN: emb-run %s --entry splat_f32 --random-inputs --print | FileCheck %s --check-prefix=SPLAT
// SPLAT: result #0 tensor<2x4xf32>: sum 24, min 3, max 3
// RUN: emb-run %s --entry splat_i64 --random-inputs --print | FileCheck %s --check-prefix=I64
// I64: result #0 tensor<3xi64>: sum -21, min -7, max -7

func.func @f16_constant(%x: tensor<2x4xf16>) -> tensor<2x4xf16> {
  %c = arith.constant dense<1.5> : tensor<2x4xf16>
  %y = arith.mulf %c, %c : tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

func.func @bf16_constant(%x: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %c = arith.constant dense<-1.5> : tensor<2x4xbf16>
  return %c : tensor<2x4xbf16>
}

func.func @splat_f32(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %v = arith.constant 3.0 : f32
  %s = tensor.splat %v : tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

func.func @splat_i64(%x: tensor<3xi64>) -> tensor<3xi64> {
  %v = arith.constant -7 : i64
  %s = tensor.splat %v : tensor<3xi64>
  return %s : tensor<3xi64>
}
