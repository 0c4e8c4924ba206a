// emb-expand-f64-to-bf16: a scalar arith.truncf from f64 to bf16 becomes a
// rounding to odd f32 (to nearest, one step toward zero where that went
// away from zero, the last bit set where it was inexact) and a truncf from
// f32 to bf16, which arith-expand makes integer code: one rounding, as the
// f64 to bf16 conversion has, and no call of __truncdfbf2. Other truncf
// stay. Numbers: test/Tools/emb-compile/bf16.test.
// RUN: emb-opt --split-input-file --emb-expand-f64-to-bf16 %s | FileCheck %s
// REQUIRES: emb-compiler

// CHECK-LABEL: func.func @f64_to_bf16
// CHECK-SAME: (%[[D:.+]]: f64)
// CHECK: %[[F:.+]] = arith.truncf %[[D]] : f64 to f32
// CHECK: %[[BACK:.+]] = arith.extf %[[F]] : f32 to f64
// CHECK: %[[NEG_BACK:.+]] = arith.negf %[[BACK]] : f64
// CHECK: %[[ABS_BACK:.+]] = arith.maximumf %[[BACK]], %[[NEG_BACK]] : f64
// CHECK: %[[NEG_D:.+]] = arith.negf %[[D]] : f64
// CHECK: %[[ABS_D:.+]] = arith.maximumf %[[D]], %[[NEG_D]] : f64
// CHECK: %[[AWAY:.+]] = arith.cmpf ogt, %[[ABS_BACK]], %[[ABS_D]] : f64
// CHECK: %[[BITS:.+]] = arith.bitcast %[[F]] : f32 to i32
// CHECK: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK: %[[LESS:.+]] = arith.subi %[[BITS]], %[[ONE]] : i32
// CHECK: %[[TOWARD_ZERO:.+]] = arith.select %[[AWAY]], %[[LESS]], %[[BITS]] : i32
// CHECK: %[[INEXACT:.+]] = arith.cmpf one, %[[BACK]], %[[D]] : f64
// CHECK: %[[STICKY:.+]] = arith.ori %[[TOWARD_ZERO]], %[[ONE]] : i32
// CHECK: %[[ODD:.+]] = arith.select %[[INEXACT]], %[[STICKY]], %[[TOWARD_ZERO]] : i32
// CHECK: %[[NARROWED:.+]] = arith.bitcast %[[ODD]] : i32 to f32
// CHECK: %[[B:.+]] = arith.truncf %[[NARROWED]] : f32 to bf16
// CHECK: return %[[B]] : bf16
func.func @f64_to_bf16(%d: f64) -> bf16 {
  %b = arith.truncf %d : f64 to bf16
  return %b : bf16
}

// -----

// f32 to bf16 (arith-expand's) and f64 to f16 (libgcc's __truncdfhf2) stay.
// CHECK-LABEL: func.func @others
// CHECK-NEXT: arith.truncf %{{.+}} : f32 to bf16
// CHECK-NEXT: arith.truncf %{{.+}} : f64 to f16
// CHECK-NEXT: return
func.func @others(%x: f32, %d: f64) -> (bf16, f16) {
  %b = arith.truncf %x : f32 to bf16
  %h = arith.truncf %d : f64 to f16
  return %b, %h : bf16, f16
}
