// emb-lower-to-runtime on linalg matmul chains (codegen/gemm.c): a matmul or
// batch_matmul into a zero fill, with the transposes and broadcasts of its
// operands and a bias and activation after it, is one embrtCompiledGemm call
// on both targets; nothing of the chain is left. The numbers are in
// gemm_numbers.mlir.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cpu %s | FileCheck %s
// REQUIRES: emb-compiler

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// torch's linear + relu: the transpose, the fill, the matmul, the bias and
// the relu become one call that writes the result buffer; nothing is
// allocated for the chain's intermediates.
// CHECK-LABEL: func.func @linear_relu
// CHECK-NOT: embrtCompiledAlloc
// CHECK: call @embrtCompiledGemm(%arg0,
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.
// CHECK: return
func.func @linear_relu(%x: tensor<4x3xf32>, %w: tensor<5x3xf32>, %b: tensor<5xf32>) -> tensor<4x5xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<3x5xf32>
  %wt = linalg.transpose ins(%w : tensor<5x3xf32>) outs(%e0 : tensor<3x5xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<4x5xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<4x3xf32>, tensor<3x5xf32>) outs(%z : tensor<4x5xf32>) -> tensor<4x5xf32>
  %e2 = tensor.empty() : tensor<4x5xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<4x5xf32>, tensor<5xf32>) outs(%e2 : tensor<4x5xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  %e3 = tensor.empty() : tensor<4x5xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x5xf32>) outs(%e3 : tensor<4x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.cmpf ugt, %in, %cst : f32
    %s = arith.select %c, %in, %cst : f32
    linalg.yield %s : f32
  } -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#w3 = affine_map<(d0, d1, d2) -> (d1, d2)>

// torch.matmul(w, x) as torch-mlir writes it: w copied to every batch, then
// a batch_matmul into zeros, f16 in, f32 out. The copy goes: the call reads
// w once with a batch stride of 0.
// CHECK-LABEL: func.func @bmm_broadcast
// CHECK-NOT: embrtCompiledAlloc
// CHECK: call @embrtCompiledGemm(%arg0,
// CHECK-NOT: linalg.
// CHECK: return
func.func @bmm_broadcast(%w: tensor<8x8xf16>, %x: tensor<24x8x16xf16>) -> tensor<24x8x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<24x8x8xf16>
  %wb = linalg.generic {indexing_maps = [#w3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x8xf16>) outs(%e0 : tensor<24x8x8xf16>) {
  ^bb0(%in: f16, %out: f16):
    linalg.yield %in : f16
  } -> tensor<24x8x8xf16>
  %e1 = tensor.empty() : tensor<24x8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
  %mm = linalg.batch_matmul ins(%wb, %x : tensor<24x8x8xf16>, tensor<24x8x16xf16>) outs(%z : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
  return %mm : tensor<24x8x16xf32>
}
