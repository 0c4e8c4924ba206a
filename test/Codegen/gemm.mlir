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

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias2 = affine_map<(d0, d1) -> (d1)>

// torch's f16 linear + relu as torch-mlir writes it: the product into an
// f32 zero fill, a truncf generic back to f16, the bias, the relu. One call
// that writes f16 (attrs [1] = 1) into the result buffer: nothing is left.
// CHECK-LABEL: func.func @linear_f16_truncated
// CHECK-NOT: embrtCompiledAlloc
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: llvm.getelementptr %[[ATTRS]][1]
// CHECK-NEXT: llvm.store %c1_i64{{(_[0-9]+)?}},
// CHECK: call @embrtCompiledGemm(%arg0,
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.
// CHECK: return
func.func @linear_f16_truncated(%x: tensor<4x3xf16>, %w: tensor<5x3xf16>, %b: tensor<5xf16>) -> tensor<4x5xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f16
  %e0 = tensor.empty() : tensor<3x5xf16>
  %wt = linalg.transpose ins(%w : tensor<5x3xf16>) outs(%e0 : tensor<3x5xf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<4x5xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<4x3xf16>, tensor<3x5xf16>) outs(%z : tensor<4x5xf32>) -> tensor<4x5xf32>
  %e2 = tensor.empty() : tensor<4x5xf16>
  %t = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x5xf32>) outs(%e2 : tensor<4x5xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x5xf16>
  %y = linalg.generic {indexing_maps = [#id2, #bias2, #id2], iterator_types = ["parallel", "parallel"]} ins(%t, %b : tensor<4x5xf16>, tensor<5xf16>) outs(%e2 : tensor<4x5xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %s = arith.addf %in, %in_0 : f16
    linalg.yield %s : f16
  } -> tensor<4x5xf16>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x5xf16>) outs(%e2 : tensor<4x5xf16>) {
  ^bb0(%in: f16, %out: f16):
    %c = arith.cmpf ugt, %in, %zero : f16
    %s = arith.select %c, %in, %zero : f16
    linalg.yield %s : f16
  } -> tensor<4x5xf16>
  return %r : tensor<4x5xf16>
}

// -----

#rows = affine_map<(d0, d1) -> (d0, 0)>
#unit = affine_map<(d0, d1) -> (0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A layer to one output ([B, 1]): torch-mlir reads every dim of static size
// 1 at the constant 0, so the truncf and the sigmoid read (d0, 0) and the
// [1] bias (0). Over a loop of extent 1 that is the identity (and the bias
// map): one call with the bias and the sigmoid (attrs [4] = 3).
// CHECK-LABEL: func.func @linear_to_one
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: llvm.getelementptr %[[ATTRS]][4]
// CHECK-NEXT: llvm.store %c3_i64{{(_[0-9]+)?}},
// CHECK: call @embrtCompiledGemm(%arg0,
// CHECK-NOT: linalg.
// CHECK: return
func.func @linear_to_one(%x: tensor<6x8xf16>, %w: tensor<1x8xf16>, %b: tensor<1xf16>) -> tensor<6x1xf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f16
  %e0 = tensor.empty() : tensor<8x1xf16>
  %wt = linalg.transpose ins(%w : tensor<1x8xf16>) outs(%e0 : tensor<8x1xf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<6x1xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<6x1xf32>) -> tensor<6x1xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<6x8xf16>, tensor<8x1xf16>) outs(%z : tensor<6x1xf32>) -> tensor<6x1xf32>
  %e2 = tensor.empty() : tensor<6x1xf16>
  %t = linalg.generic {indexing_maps = [#rows, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<6x1xf32>) outs(%e2 : tensor<6x1xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<6x1xf16>
  %y = linalg.generic {indexing_maps = [#rows, #unit, #id2], iterator_types = ["parallel", "parallel"]} ins(%t, %b : tensor<6x1xf16>, tensor<1xf16>) outs(%e2 : tensor<6x1xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %s = arith.addf %in, %in_0 : f16
    linalg.yield %s : f16
  } -> tensor<6x1xf16>
  %r = linalg.generic {indexing_maps = [#rows, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<6x1xf16>) outs(%e2 : tensor<6x1xf16>) {
  ^bb0(%in: f16, %out: f16):
    %n = arith.negf %in : f16
    %e = math.exp %n : f16
    %d = arith.addf %e, %one : f16
    %s = arith.divf %one, %d : f16
    linalg.yield %s : f16
  } -> tensor<6x1xf16>
  return %r : tensor<6x1xf16>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// Two chains whose products share one zero fill (CSE merges fills of one
// shape): once both matmuls are calls nothing reads the fill, so it is not
// lowered (no fill call, no GPU kernel).
// CHECK-LABEL: func.func @shared_fill
// CHECK: call @embrtCompiledGemm(
// CHECK: call @embrtCompiledGemm(
// CHECK-NOT: embrtCompiledFill
// CHECK-NOT: embrtCompiledLaunchKernel
// CHECK: return
func.func @shared_fill(%x: tensor<4x3xf16>, %w: tensor<3x5xf16>, %v: tensor<3x5xf16>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<4x5xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %a = linalg.matmul ins(%x, %w : tensor<4x3xf16>, tensor<3x5xf16>) outs(%z : tensor<4x5xf32>) -> tensor<4x5xf32>
  %b = linalg.matmul ins(%x, %v : tensor<4x3xf16>, tensor<3x5xf16>) outs(%z : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %a, %b : tensor<4x5xf32>, tensor<4x5xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A truncf of a product that is also used as it is: the chain ends at the
// matmul (f32 out), and the truncf is an op of its own (on the cuda target a
// GPU kernel).
// CHECK-LABEL: func.func @product_used_twice
// CHECK: call @embrtCompiledGemm(
// CHECK-NOT: call @embrtCompiledGemm(
// CHECK: return
func.func @product_used_twice(%x: tensor<4x3xf16>, %w: tensor<3x5xf16>) -> (tensor<4x5xf32>, tensor<4x5xf16>) {
  %cst = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<4x5xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<4x3xf16>, tensor<3x5xf16>) outs(%z : tensor<4x5xf32>) -> tensor<4x5xf32>
  %e2 = tensor.empty() : tensor<4x5xf16>
  %t = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x5xf32>) outs(%e2 : tensor<4x5xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<4x5xf16>
  return %mm, %t : tensor<4x5xf32>, tensor<4x5xf16>
}

// -----

// A zero fill that a matmul reads as an operand (as well as accumulating
// into it) is computed (a generated kernel on cuda, MLIR's loops on cpu):
// only what no call reads is absorbed.
// CHECK-LABEL: func.func @fill_read_as_operand
// CHECK: {{call @embrtCompiledLaunchKernel|linalg.fill}}
// CHECK: call @embrtCompiledGemm(
// CHECK: return
func.func @fill_read_as_operand(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%x, %z : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %mm : tensor<4x4xf32>
}
