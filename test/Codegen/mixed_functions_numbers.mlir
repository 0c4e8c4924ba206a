// Mixed functions run through the JIT on the CPU: emb ops as runtime calls
// among linalg, tensor, arith and math ops that MLIR compiles, with results
// worked out by hand. Inputs with known values are the results of the
// @inputs_* functions, written as .npy and read back.
// REQUIRES: emb-compiler
// RUN: rm -rf %t && mkdir -p %t

// relu(x @ w + embedding_bag(table, ids, offsets)): x @ w is
// [[1, 2, 3, -6], [-1, 0, 1, 0]], the bags are rows 1+2 and 4+0 of a table
// whose row r holds r: [3, 3, 3, 3] and [4, 4, 4, 4].
// RUN: emb-run %s --entry inputs_matmul_bag --random-inputs --output-dir %t/a
// RUN: emb-run %s --entry matmul_bag_relu --inputs %t/a/inputs_matmul_bag.result0.npy,%t/a/inputs_matmul_bag.result1.npy,%t/a/inputs_matmul_bag.result2.npy,%t/a/inputs_matmul_bag.result3.npy,%t/a/inputs_matmul_bag.result4.npy --print | FileCheck %s --check-prefix=RELU
// RELU: result #0 tensor<2x4xf32>: sum 31, min 0, max 6, first [4, 5, 6, 0, ...]

// torch's linear with weights frozen as dense_resource blobs (transpose,
// matmul, bias generic), concatenated along dim 1 with the bags above (the
// copies into column blocks are loops, not MLIR's memrefCopy): rows
// [3.5, 6, 11, 3, 3, 3, 3] and [0.5, 1, 4, 4, 4, 4, 4].
// RUN: emb-run %s --entry inputs_linear --random-inputs --output-dir %t/b
// RUN: emb-run %s --entry linear_concat --inputs %t/b/inputs_linear.result0.npy,%t/a/inputs_matmul_bag.result2.npy,%t/a/inputs_matmul_bag.result3.npy,%t/a/inputs_matmul_bag.result4.npy --print | FileCheck %s --check-prefix=LINEAR
// LINEAR: result #0 tensor<2x7xf32>: sum 54, min 0.5, max 11, first [3.5, 6, 11, 3, ...]

// torch-mlir's softmax (max, sub, exp, keepdim sum, div with constant-0
// broadcast maps) of [0, ln 2, ln 3, ln 4]: [0.1, 0.2, 0.3, 0.4].
// RUN: emb-run %s --entry inputs_softmax --random-inputs --output-dir %t/c
// RUN: emb-run %s --entry softmax --inputs %t/c/inputs_softmax.result0.npy --print | FileCheck %s --check-prefix=SOFTMAX
// SOFTMAX: result #0 tensor<1x4xf32>: sum 1, min 0.1, max 0.4, first [0.1, 0.2, 0.3, 0.4]

// emb-ikbo rewrites the emb ops of a mixed function (the LCE of broadcast
// user rows becomes emb.ikbo_lce, read through its padding) and keeps the
// numbers of the function as written (f16, a relu generic after it).
// RUN: emb-run %s --entry ikbo_relu --random-inputs --seed 6 --compare-unoptimized | FileCheck %s --check-prefix=IKBO
// IKBO: result #0 tensor<32x24x16xf16>: max abs diff {{.*}} against @ikbo_relu as written {{.*}}: ok
// RUN: emb-opt --emb-ikbo --emb-lower-to-runtime %s | FileCheck %s --check-prefix=FUSED
// FUSED-LABEL: func.func @ikbo_relu
// FUSED-NOT: call @embrtCompiledLce(
// FUSED: call @embrtCompiledIkboLce(
// FUSED-NOT: call @embrtCompiledLce(
// FUSED: linalg.generic

// --repeat times a mixed function like any other.
// RUN: emb-run %s --entry ikbo_relu --random-inputs --repeat 3 2>&1 | FileCheck %s --check-prefix=TIME
// TIME: emb-run: @ikbo_relu: median {{[0-9.]+}} ms over 3 runs

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func @matmul_bag_relu(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %table: tensor<5x4xf32>, %ids: tensor<4xi64>, %offsets: tensor<3xi64>) -> tensor<2x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = linalg.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%1 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %bags = "emb.embedding_bag"(%table, %ids, %offsets) {mode = "sum"} : (tensor<5x4xf32>, tensor<4xi64>, tensor<3xi64>) -> tensor<2x4xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%2, %bags : tensor<2x4xf32>, tensor<2x4xf32>) outs(%0 : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %cst : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  return %3 : tensor<2x4xf32>
}

func.func @inputs_matmul_bag() -> (tensor<2x3xf32>, tensor<3x4xf32>, tensor<5x4xf32>, tensor<4xi64>, tensor<3xi64>) {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]]> : tensor<2x3xf32>
  %w = arith.constant dense<[[1.0, 0.0, 0.0, -1.0], [0.0, 1.0, 0.0, -1.0], [0.0, 0.0, 1.0, -1.0]]> : tensor<3x4xf32>
  %t = arith.constant dense<[[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], [4.0, 4.0, 4.0, 4.0]]> : tensor<5x4xf32>
  %i = arith.constant dense<[1, 2, 4, 0]> : tensor<4xi64>
  %o = arith.constant dense<[0, 2, 4]> : tensor<3xi64>
  return %x, %w, %t, %i, %o : tensor<2x3xf32>, tensor<3x4xf32>, tensor<5x4xf32>, tensor<4xi64>, tensor<3xi64>
}

func.func @linear_concat(%x: tensor<2x2xf32>, %table: tensor<5x4xf32>, %ids: tensor<4xi64>, %offsets: tensor<3xi64>) -> tensor<2x7xf32> {
  %w = arith.constant dense_resource<linear_weight> : tensor<3x2xf32>
  %b = arith.constant dense_resource<linear_bias> : tensor<3xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x3xf32>
  %transposed = linalg.transpose ins(%w : tensor<3x2xf32>) outs(%0 : tensor<2x3xf32>) permutation = [1, 0]
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = linalg.matmul ins(%x, %transposed : tensor<2x2xf32>, tensor<2x3xf32>) outs(%1 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%2, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %4 = arith.addf %in, %in_0 : f32
    linalg.yield %4 : f32
  } -> tensor<2x3xf32>
  %bags = "emb.embedding_bag"(%table, %ids, %offsets) {mode = "sum"} : (tensor<5x4xf32>, tensor<4xi64>, tensor<3xi64>) -> tensor<2x4xf32>
  %concat = tensor.concat dim(1) %3, %bags : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
  return %concat : tensor<2x7xf32>
}

func.func @inputs_linear() -> tensor<2x2xf32> {
  %x = arith.constant dense<[[1.0, 1.0], [2.0, -1.0]]> : tensor<2x2xf32>
  return %x : tensor<2x2xf32>
}

func.func @softmax(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x1xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1xf32>) -> tensor<1x1xf32>
  %max = linalg.generic {indexing_maps = [#id, #keep], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<1x4xf32>) outs(%1 : tensor<1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<1x1xf32>
  %2 = tensor.empty() : tensor<1x4xf32>
  %exp = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<1x4xf32>, tensor<1x1xf32>) outs(%2 : tensor<1x4xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %s = arith.subf %in, %m : f32
    %e = math.exp %s : f32
    linalg.yield %e : f32
  } -> tensor<1x4xf32>
  %3 = linalg.fill ins(%zero : f32) outs(%0 : tensor<1x1xf32>) -> tensor<1x1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #keep], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<1x4xf32>) outs(%3 : tensor<1x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<1x1xf32>
  %div = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<1x4xf32>, tensor<1x1xf32>) outs(%2 : tensor<1x4xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  } -> tensor<1x4xf32>
  return %div : tensor<1x4xf32>
}

func.func @inputs_softmax() -> tensor<1x4xf32> {
  %x = arith.constant dense<[[0.0, 6.931471806e-01, 1.098612289e+00, 1.386294361e+00]]> : tensor<1x4xf32>
  return %x : tensor<1x4xf32>
}

// The IKBO benchmark's structure at a small size (Inputs/ikbo_small.mlir),
// with a relu after the LCE.
func.func @ikbo_relu(%user: tensor<4x13x16xf16>, %cand: tensor<32x11x16xf16>, %c2u: tensor<32xi32>, %w: tensor<24x24xf16>) -> tensor<32x24x16xf16> {
  %ub = "emb.broadcast"(%user, %c2u) : (tensor<4x13x16xf16>, tensor<32xi32>) -> tensor<32x13x16xf16>
  %x = tensor.concat dim(1) %ub, %cand : (tensor<32x13x16xf16>, tensor<32x11x16xf16>) -> tensor<32x24x16xf16>
  %y = "emb.lce"(%w, %x) : (tensor<24x24xf16>, tensor<32x24x16xf16>) -> tensor<32x24x16xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<32x24x16xf16>
  %1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : tensor<32x24x16xf16>) outs(%0 : tensor<32x24x16xf16>) {
  ^bb0(%in: f16, %out: f16):
    %r = arith.maximumf %in, %zero : f16
    linalg.yield %r : f16
  } -> tensor<32x24x16xf16>
  return %1 : tensor<32x24x16xf16>
}

{-#
  dialect_resources: {
    builtin: {
      linear_weight: "0x040000000000803F0000004000004040000080400000A0400000C040",
      linear_bias: "0x040000000000003F000080BF00000000"
    }
  }
#-}
