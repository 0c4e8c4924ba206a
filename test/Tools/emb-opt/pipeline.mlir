// --pass-pipeline mixes emb's passes with upstream ones, nested or not; the
// pass flags add to it in order; emb-verify runs after every pass; IR can be
// printed after each pass.
// REQUIRES: emb-compiler

// RUN: emb-opt %s --pass-pipeline='builtin.module(emb-verify,func.func(canonicalize,cse),emb-verify)' | FileCheck %s
// RUN: emb-opt %s --emb-verify --canonicalize --cse | FileCheck %s
// RUN: emb-opt %s --pass-pipeline='emb-verify, func.func(cse)' | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK: "emb.broadcast"
// CHECK-NOT: arith.addf
// CHECK: return

// RUN: emb-opt %s --mlir-print-ir-after-all --pass-pipeline='builtin.module(canonicalize)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER: // -----// IR Dump After Canonicalizer (canonicalize)
// AFTER: // -----// IR Dump After EmbVerify (emb-verify)

// RUN: not emb-opt %s --pass-pipeline='builtin.module(emb-verify' 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// UNBALANCED: emb-opt: error: invalid pass pipeline {{.*}}unbalanced

// RUN: not emb-opt %s --pass-pipeline='emb-verify,,cse' 2>&1 | FileCheck %s --check-prefix=EMPTYELEM
// EMPTYELEM: emb-opt: error: invalid pass pipeline 'emb-verify,,cse': empty element

// RUN: not emb-opt %s --pass-pipeline='func.func(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: emb-opt: error: invalid pass pipeline element 'no-such-pass': {{.*}}no-such-pass

// RUN: emb-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// GENERIC: "func.func"() <{function_type =

func.func @f(%u: tensor<2x8xf16>, %c: tensor<4xi32>, %x: f32) -> tensor<4x8xf16> {
  %dead = arith.addf %x, %x : f32
  %0 = "emb.broadcast"(%u, %c) : (tensor<2x8xf16>, tensor<4xi32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}
