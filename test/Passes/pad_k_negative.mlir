// emb-pad-k refuses a dynamic K, and a pad that would copy a large (or
// dynamically sized) operand, with a remark, not an error: the IR is left as
// it was and the pipeline goes on.
// RUN: emb-opt --split-input-file --emb-pad-k %s 2>/dev/null | FileCheck %s
// RUN: emb-opt --split-input-file --emb-pad-k %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not emb-opt --emb-pad-k=align=-1 %s 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not emb-opt --emb-pad-k=size=8 %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// REQUIRES: emb-compiler

// OPTION: emb-opt: error: emb-pad-k: option 'align' must be an integer in 0..65536, got '-1'
// UNKNOWN: emb-opt: error: emb-pad-k: unknown option 'size' (options: align, copy-limit)

// Dynamic K in both operands.
// CHECK-LABEL: func.func @dynamic_k
// CHECK-NOT: tensor.concat
// CHECK: "emb.lce"(%{{.+}}, %{{.+}}) : (tensor<8x?xf16>, tensor<16x?x32xf16>)
// REMARK: pad_k_negative.mlir:[[@LINE+2]]:8: remark: 'emb.lce' not padded: K is dynamic (it must be static to pad to a multiple of 8)
func.func @dynamic_k(%w: tensor<8x?xf16>, %x: tensor<16x?x32xf16>) -> tensor<16x8x32xf16> {
  %y = "emb.lce"(%w, %x) : (tensor<8x?xf16>, tensor<16x?x32xf16>) -> tensor<16x8x32xf16>
  return %y : tensor<16x8x32xf16>
}

// -----

// Dynamic Ku, static Kc: Kc is padded, Ku is not.
// CHECK-LABEL: func.func @ikbo_dynamic_ku
// CHECK: "emb.ikbo_lce"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (tensor<8x?xf32>, tensor<8x8xf32>, tensor<4x?x32xf32>, tensor<16x8x32xf32>, tensor<16xi32>)
// REMARK: [[@LINE+2]]:8: remark: 'emb.ikbo_lce' not padded: Ku is dynamic (it must be static to pad to a multiple of 4)
func.func @ikbo_dynamic_ku(%wu: tensor<8x?xf32>, %wc: tensor<8x5xf32>, %u: tensor<4x?x32xf32>, %c: tensor<16x5x32xf32>, %c2u: tensor<16xi32>) -> tensor<16x8x32xf32> {
  %y = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) : (tensor<8x?xf32>, tensor<8x5xf32>, tensor<4x?x32xf32>, tensor<16x5x32xf32>, tensor<16xi32>) -> tensor<16x8x32xf32>
  return %y : tensor<16x8x32xf32>
}

// -----

// A candidate-sized embedding that no concat makes would be copied whole to
// pad it: over copy-limit (1024 x 7 x 256 x 4 bytes = 7 MiB > 1 MiB here) K
// stays as it is, with its weight.
// RUN: emb-opt --emb-pad-k=copy-limit=1 --split-input-file %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// CHECK-LABEL: func.func @over_copy_limit
// LIMIT: [[@LINE+2]]:8: remark: 'emb.lce' not padded: K = 7 stays, padding it would copy 7 MiB (copy-limit 1 MiB); the kernels read unpadded K
func.func @over_copy_limit(%w: tensor<8x7xf32>, %x: tensor<1024x7x256xf32>) -> tensor<1024x8x256xf32> {
  %y = "emb.lce"(%w, %x) : (tensor<8x7xf32>, tensor<1024x7x256xf32>) -> tensor<1024x8x256xf32>
  return %y : tensor<1024x8x256xf32>
}

// -----

// A dynamic batch could be any size: without a concat to extend, K stays.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-NOT: tensor.concat
// CHECK: "emb.lce"(%{{.+}}, %{{.+}}) : (tensor<8x12xf16>, tensor<?x12x32xf16>)
// REMARK: [[@LINE+2]]:8: remark: 'emb.lce' not padded: K = 12 stays, padding it would copy a dynamically sized operand (copy-limit 64 MiB); the kernels read unpadded K
func.func @dynamic_batch(%w: tensor<8x12xf16>, %x: tensor<?x12x32xf16>) -> tensor<?x8x32xf16> {
  %y = "emb.lce"(%w, %x) : (tensor<8x12xf16>, tensor<?x12x32xf16>) -> tensor<?x8x32xf16>
  return %y : tensor<?x8x32xf16>
}
