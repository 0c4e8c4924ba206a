// emb as a plugin of the stock mlir-opt: with libEmbPlugin.so loaded as both
// dialect and pass plugin, mlir-opt raises torch-mlir's output and runs
// emb-ikbo, prints emb's remarks as its own, takes emb's pass options, and
// gives what emb-opt gives.
// RUN: %mlir_opt --load-dialect-plugin=%emb_plugin --load-pass-plugin=%emb_plugin --pass-pipeline='builtin.module(emb-raise,emb-ikbo)' %examples/torch/lce_ranking.mlir | FileCheck %s --check-prefix=LCE
// RUN: %mlir_opt --load-dialect-plugin=%emb_plugin --load-pass-plugin=%emb_plugin --allow-unregistered-dialect --split-input-file --pass-pipeline='builtin.module(func.func(emb-raise-attention))' %s 2>/dev/null | FileCheck %s
// RUN: %mlir_opt --load-dialect-plugin=%emb_plugin --load-pass-plugin=%emb_plugin --allow-unregistered-dialect --split-input-file --pass-pipeline='builtin.module(func.func(emb-raise-attention))' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// The benchmark: byte for byte what emb-opt prints.
// RUN: %mlir_opt --load-dialect-plugin=%emb_plugin --load-pass-plugin=%emb_plugin --pass-pipeline='builtin.module(emb-raise,emb-ikbo)' %examples/torch/ikbo_benchmark.mlir 2>/dev/null > %t.mlir_opt
// RUN: emb-opt --emb-raise --emb-ikbo %examples/torch/ikbo_benchmark.mlir 2>/dev/null > %t.emb_opt
// RUN: diff %t.mlir_opt %t.emb_opt
// Options go to emb's option tables, which report what is wrong.
// RUN: %mlir_opt --load-dialect-plugin=%emb_plugin --load-pass-plugin=%emb_plugin --pass-pipeline='builtin.module(emb-raise,emb-ikbo{align=64})' %examples/torch/ikbo_benchmark.mlir 2>/dev/null | FileCheck %s --check-prefix=ALIGN
// RUN: not %mlir_opt --load-pass-plugin=%emb_plugin --pass-pipeline='builtin.module(emb-ikbo{pad=1})' %examples/torch/lce_ranking.mlir 2>&1 | FileCheck %s --check-prefix=BADOPT
// Without the dialect plugin the emb ops the raise makes are unknown.
// RUN: not %mlir_opt --load-pass-plugin=%emb_plugin --pass-pipeline='builtin.module(emb-raise)' %examples/torch/lce_ranking.mlir 2>&1 | FileCheck %s --check-prefix=NODIALECT
// REQUIRES: emb-compiler, mlir-opt

// LCE-LABEL: func.func @lce_ranking
// LCE: "emb.ikbo_lce"
// LCE-NOT: linalg
// ALIGN: "emb.ikbo_lce"(%{{.+}}) : (tensor<433x1216xf16>, tensor<433x866xf16>, tensor<15x1216x256xf16>
// BADOPT: error: emb-ikbo: unknown option 'pad' (options: align)
// NODIALECT: error: 'emb.broadcast' op created with unregistered dialect

// tm_tensor.attention (a dialect mlir-opt does not have either) becomes
// emb.attention.
// CHECK-LABEL: func.func @tm_tensor
// CHECK: "emb.attention"(%{{.+}}) {scale = 1.250000e-01 : f32} : (tensor<4x3x1x8xf32>, tensor<4x5x1x8xf32>, tensor<4x5x1x8xf32>) -> tensor<4x3x1x8xf32>
// CHECK-NOT: tm_tensor
func.func @tm_tensor(%q: tensor<4x3x8xf32>, %k: tensor<4x5x8xf32>, %v: tensor<4x5x8xf32>) -> tensor<4x3x8xf32> {
  %0 = tensor.empty() : tensor<4x3x8xf32>
  %1 = "tm_tensor.attention"(%q, %k, %v, %0) <{operandSegmentSizes = array<i32: 3, 1>, scale = 1.250000e-01 : f64}> : (tensor<4x3x8xf32>, tensor<4x5x8xf32>, tensor<4x5x8xf32>, tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  return %1 : tensor<4x3x8xf32>
}

// -----

// emb's remarks are MLIR remarks at the op.
// CHECK-LABEL: func.func @tm_tensor_mask
// CHECK: "tm_tensor.attention"
func.func @tm_tensor_mask(%q: tensor<4x3x8xf32>, %k: tensor<4x5x8xf32>, %v: tensor<4x5x8xf32>, %mask: tensor<4x3x5xf32>) -> tensor<4x3x8xf32> {
  %0 = tensor.empty() : tensor<4x3x8xf32>
  // REMARK: plugin.mlir:[[@LINE+1]]:8: remark: emb-raise-attention: tm_tensor.attention with a mask; emb.attention has none
  %1 = "tm_tensor.attention"(%q, %k, %v, %mask, %0) <{operandSegmentSizes = array<i32: 4, 1>}> : (tensor<4x3x8xf32>, tensor<4x5x8xf32>, tensor<4x5x8xf32>, tensor<4x3x5xf32>, tensor<4x3x8xf32>) -> tensor<4x3x8xf32>
  return %1 : tensor<4x3x8xf32>
}
