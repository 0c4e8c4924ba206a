// The numbers of the linalg matmul chains that emb-lower-to-runtime turns
// into embrtGemm calls (codegen/gemm.c), on the CPU: each function computes
// its chain twice, once in the form the lowering matches (into a linalg.fill
// of zero) and once into a zero constant, which it does not match, so MLIR's
// own loops compute it; the function returns the difference, which must be
// within rounding of 0 on random inputs. The lowered call is checked with
// FileCheck on the same file.
// REQUIRES: emb-compiler
// RUN: emb-opt --emb-lower-to-runtime %s | FileCheck %s --check-prefix=CALLS
// RUN: emb-run %s --entry linear_relu --random-inputs --seed 3 --print | FileCheck %s --check-prefix=RELU
// RUN: emb-run %s --entry bmm_sigmoid --random-inputs --seed 4 --print | FileCheck %s --check-prefix=SIGMOID
// RUN: emb-run %s --entry linear_f16 --random-inputs --seed 5 --print | FileCheck %s --check-prefix=F16
// RUN: emb-run %s --entry mlp_f16 --random-inputs --seed 6 --print | FileCheck %s --check-prefix=MLP

// CALLS-LABEL: func.func @linear_relu
// CALLS: call @embrtCompiledGemm(
// CALLS-NOT: call @embrtCompiledGemm(
// CALLS: linalg.matmul
// CALLS-LABEL: func.func @bmm_sigmoid
// CALLS: call @embrtCompiledGemm(
// CALLS-NOT: call @embrtCompiledGemm(
// CALLS: linalg.batch_matmul
// CALLS-LABEL: func.func @linear_f16
// CALLS: call @embrtCompiledGemm(
// CALLS-NOT: call @embrtCompiledGemm(
// CALLS: linalg.matmul
// CALLS-LABEL: func.func @mlp_f16
// CALLS: call @embrtCompiledGemm(
// CALLS: call @embrtCompiledGemm(
// CALLS-NOT: call @embrtCompiledGemm(
// CALLS-NOT: linalg.fill
// CALLS: linalg.matmul

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#w3 = affine_map<(d0, d1, d2) -> (d1, d2)>

// torch's linear + relu (transpose, matmul, bias generic, cmpf/select relu)
// of x [6, 19] and w [11, 19], against the same with MLIR's loops.
// RELU: result #0 tensor<6x11xf32>: sum {{.*}}, min {{-?(0|[0-9.]+e-0[6-9])}}, max {{(0|[0-9.]+e-0[6-9])}}
func.func @linear_relu(%x: tensor<6x19xf32>, %w: tensor<11x19xf32>, %b: tensor<11xf32>) -> tensor<6x11xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %zeros = arith.constant dense<0.000000e+00> : tensor<6x11xf32>
  %e0 = tensor.empty() : tensor<19x11xf32>
  %wt = linalg.transpose ins(%w : tensor<11x19xf32>) outs(%e0 : tensor<19x11xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<6x11xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<6x11xf32>) -> tensor<6x11xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<6x19xf32>, tensor<19x11xf32>) outs(%z : tensor<6x11xf32>) -> tensor<6x11xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<6x11xf32>, tensor<11xf32>) outs(%e1 : tensor<6x11xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<6x11xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<6x11xf32>) outs(%e1 : tensor<6x11xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.cmpf ugt, %in, %cst : f32
    %s = arith.select %c, %in, %cst : f32
    linalg.yield %s : f32
  } -> tensor<6x11xf32>
  // The same through MLIR's loops.
  %wt2 = linalg.transpose ins(%w : tensor<11x19xf32>) outs(%e0 : tensor<19x11xf32>) permutation = [1, 0]
  %mm2 = linalg.matmul ins(%x, %wt2 : tensor<6x19xf32>, tensor<19x11xf32>) outs(%zeros : tensor<6x11xf32>) -> tensor<6x11xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%mm2, %b : tensor<6x11xf32>, tensor<11xf32>) outs(%e1 : tensor<6x11xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    %m = arith.maximumf %s, %cst : f32
    linalg.yield %m : f32
  } -> tensor<6x11xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%r, %r2 : tensor<6x11xf32>, tensor<6x11xf32>) outs(%e1 : tensor<6x11xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %s = arith.subf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<6x11xf32>
  return %d : tensor<6x11xf32>
}

// torch.matmul(w, x) with w [5, 7] broadcast to the 3 batches of x [3, 7, 9]
// (a copy generic into a batch_matmul), then sigmoid.
// SIGMOID: result #0 tensor<3x5x9xf32>: sum {{.*}}, min {{-?(0|[0-9.]+e-0[6-9])}}, max {{(0|[0-9.]+e-0[6-9])}}
func.func @bmm_sigmoid(%w: tensor<5x7xf32>, %x: tensor<3x7x9xf32>) -> tensor<3x5x9xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %zeros = arith.constant dense<0.000000e+00> : tensor<3x5x9xf32>
  %e0 = tensor.empty() : tensor<3x5x7xf32>
  %wb = linalg.generic {indexing_maps = [#w3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<5x7xf32>) outs(%e0 : tensor<3x5x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x5x7xf32>
  %e1 = tensor.empty() : tensor<3x5x9xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<3x5x9xf32>) -> tensor<3x5x9xf32>
  %mm = linalg.batch_matmul ins(%wb, %x : tensor<3x5x7xf32>, tensor<3x7x9xf32>) outs(%z : tensor<3x5x9xf32>) -> tensor<3x5x9xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm : tensor<3x5x9xf32>) outs(%e1 : tensor<3x5x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %a = arith.addf %e, %one : f32
    %s = arith.divf %one, %a : f32
    linalg.yield %s : f32
  } -> tensor<3x5x9xf32>
  %wb2 = linalg.generic {indexing_maps = [#w3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<5x7xf32>) outs(%e0 : tensor<3x5x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x5x7xf32>
  %mm2 = linalg.batch_matmul ins(%wb2, %x : tensor<3x5x7xf32>, tensor<3x7x9xf32>) outs(%zeros : tensor<3x5x9xf32>) -> tensor<3x5x9xf32>
  %d = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r, %mm2 : tensor<3x5x9xf32>, tensor<3x5x9xf32>) outs(%e1 : tensor<3x5x9xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %n = arith.negf %q : f32
    %e = math.exp %n : f32
    %a = arith.addf %e, %one : f32
    %s = arith.divf %one, %a : f32
    %t = arith.subf %p, %s : f32
    linalg.yield %t : f32
  } -> tensor<3x5x9xf32>
  return %d : tensor<3x5x9xf32>
}

// An f16 linear with bias and relu in one generic (f16 result, accumulated
// in f32 by the runtime), against an f32 matmul of the same f16 values
// rounded once to f16: equal but for a rare last-bit tie (|d| < 0.01).
// F16: result #0 tensor<8x12xf32>: sum {{.*}}, min {{-?(0|0\.00[0-9]*|[0-9.]+e-[0-9]+)}}, max {{(0|0\.00[0-9]*|[0-9.]+e-[0-9]+)}}
func.func @linear_f16(%x: tensor<8x24xf16>, %w: tensor<12x24xf16>, %b: tensor<12xf16>) -> tensor<8x12xf32> {
  %cst = arith.constant 0.000000e+00 : f16
  %zeros = arith.constant dense<0.000000e+00> : tensor<8x12xf32>
  %e0 = tensor.empty() : tensor<24x12xf16>
  %wt = linalg.transpose ins(%w : tensor<12x24xf16>) outs(%e0 : tensor<24x12xf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<8x12xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e1 : tensor<8x12xf16>) -> tensor<8x12xf16>
  %mm = linalg.matmul ins(%x, %wt : tensor<8x24xf16>, tensor<24x12xf16>) outs(%z : tensor<8x12xf16>) -> tensor<8x12xf16>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<8x12xf16>, tensor<12xf16>) outs(%e1 : tensor<8x12xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %s = arith.addf %in, %in_0 : f16
    %m = arith.maximumf %s, %cst : f16
    linalg.yield %m : f16
  } -> tensor<8x12xf16>
  // The reference: f32 products of the f16 values, rounded once to f16.
  %wt2 = linalg.transpose ins(%w : tensor<12x24xf16>) outs(%e0 : tensor<24x12xf16>) permutation = [1, 0]
  %mm2 = linalg.matmul ins(%x, %wt2 : tensor<8x24xf16>, tensor<24x12xf16>) outs(%zeros : tensor<8x12xf32>) -> tensor<8x12xf32>
  %e2 = tensor.empty() : tensor<8x12xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%r, %mm2, %b : tensor<8x12xf16>, tensor<8x12xf32>, tensor<12xf16>) outs(%e2 : tensor<8x12xf32>) {
  ^bb0(%p: f16, %q: f32, %bb: f16, %out: f32):
    %bf = arith.extf %bb : f16 to f32
    %s = arith.addf %q, %bf : f32
    %zf = arith.constant 0.000000e+00 : f32
    %m = arith.maximumf %s, %zf : f32
    %t = arith.truncf %m : f32 to f16
    %tf = arith.extf %t : f16 to f32
    %pf = arith.extf %p : f16 to f32
    %diff = arith.subf %pf, %tf : f32
    linalg.yield %diff : f32
  } -> tensor<8x12xf32>
  return %d : tensor<8x12xf32>
}

// Two f16 linear layers as torch-mlir writes them (the product into an f32
// zero fill, truncf, the bias, relu), the second reading the first's
// result, both chains' products into one fill (as CSE leaves them): each
// layer is one call that rounds once (the runtime adds the bias in f32),
// against MLIR's loops doing what the IR says (rounding after the product
// and after the bias). The two differ by f16 roundings of the first layer
// carried through the second: a few f16 ulps, |d| < 0.01 (values are
// O(1)); a wrong bias or activation would be off by O(1).
// MLP: result #0 tensor<8x16xf32>: sum {{.*}}, min {{-?(0|0\.00[0-9]*|[0-9.]+e-[0-9]+)}}, max {{(0|0\.00[0-9]*|[0-9.]+e-[0-9]+)}}
func.func @mlp_f16(%x: tensor<8x24xf16>, %w1: tensor<16x24xf16>, %b1: tensor<16xf16>, %w2: tensor<16x16xf16>, %b2: tensor<16xf16>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f16
  %zeros16 = arith.constant dense<0.000000e+00> : tensor<8x16xf32>
  %ae0 = tensor.empty() : tensor<24x16xf16>
  %be0 = tensor.empty() : tensor<16x16xf16>
  %ae1 = tensor.empty() : tensor<8x16xf16>
  %be1 = tensor.empty() : tensor<8x16xf16>
  %ce0 = tensor.empty() : tensor<24x16xf16>
  %de0 = tensor.empty() : tensor<16x16xf16>
  %ce1 = tensor.empty() : tensor<8x16xf16>
  %de1 = tensor.empty() : tensor<8x16xf16>
  %acc = tensor.empty() : tensor<8x16xf32>
  %fill = linalg.fill ins(%cst : f32) outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
  %awt = linalg.transpose ins(%w1 : tensor<16x24xf16>) outs(%ae0 : tensor<24x16xf16>) permutation = [1, 0]
  %amm = linalg.matmul ins(%x, %awt : tensor<8x24xf16>, tensor<24x16xf16>) outs(%fill : tensor<8x16xf32>) -> tensor<8x16xf32>
  %at = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%amm : tensor<8x16xf32>) outs(%ae1 : tensor<8x16xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<8x16xf16>
  %ay = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%at, %b1 : tensor<8x16xf16>, tensor<16xf16>) outs(%ae1 : tensor<8x16xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %s = arith.addf %in, %in_0 : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  %ah = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%ay : tensor<8x16xf16>) outs(%ae1 : tensor<8x16xf16>) {
  ^bb0(%in: f16, %out: f16):
    %c = arith.cmpf ugt, %in, %zero : f16
    %s = arith.select %c, %in, %zero : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  %bwt = linalg.transpose ins(%w2 : tensor<16x16xf16>) outs(%be0 : tensor<16x16xf16>) permutation = [1, 0]
  %bmm = linalg.matmul ins(%ah, %bwt : tensor<8x16xf16>, tensor<16x16xf16>) outs(%fill : tensor<8x16xf32>) -> tensor<8x16xf32>
  %bt = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%bmm : tensor<8x16xf32>) outs(%be1 : tensor<8x16xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<8x16xf16>
  %by = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%bt, %b2 : tensor<8x16xf16>, tensor<16xf16>) outs(%be1 : tensor<8x16xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %s = arith.addf %in, %in_0 : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  %bh = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%by : tensor<8x16xf16>) outs(%be1 : tensor<8x16xf16>) {
  ^bb0(%in: f16, %out: f16):
    %c = arith.cmpf ugt, %in, %zero : f16
    %s = arith.select %c, %in, %zero : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  // The same through MLIR's loops (products into a constant: no chain).
  %cwt = linalg.transpose ins(%w1 : tensor<16x24xf16>) outs(%ce0 : tensor<24x16xf16>) permutation = [1, 0]
  %cmm = linalg.matmul ins(%x, %cwt : tensor<8x24xf16>, tensor<24x16xf16>) outs(%zeros16 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %ct = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%cmm : tensor<8x16xf32>) outs(%ce1 : tensor<8x16xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<8x16xf16>
  %cy = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ct, %b1 : tensor<8x16xf16>, tensor<16xf16>) outs(%ce1 : tensor<8x16xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %s = arith.addf %in, %in_0 : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  %ch = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%cy : tensor<8x16xf16>) outs(%ce1 : tensor<8x16xf16>) {
  ^bb0(%in: f16, %out: f16):
    %c = arith.cmpf ugt, %in, %zero : f16
    %s = arith.select %c, %in, %zero : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  %dwt = linalg.transpose ins(%w2 : tensor<16x16xf16>) outs(%de0 : tensor<16x16xf16>) permutation = [1, 0]
  %dmm = linalg.matmul ins(%ch, %dwt : tensor<8x16xf16>, tensor<16x16xf16>) outs(%zeros16 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dt = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%dmm : tensor<8x16xf32>) outs(%de1 : tensor<8x16xf16>) {
  ^bb0(%in: f32, %out: f16):
    %r = arith.truncf %in : f32 to f16
    linalg.yield %r : f16
  } -> tensor<8x16xf16>
  %dy = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%dt, %b2 : tensor<8x16xf16>, tensor<16xf16>) outs(%de1 : tensor<8x16xf16>) {
  ^bb0(%in: f16, %in_0: f16, %out: f16):
    %s = arith.addf %in, %in_0 : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  %dh = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%dy : tensor<8x16xf16>) outs(%de1 : tensor<8x16xf16>) {
  ^bb0(%in: f16, %out: f16):
    %c = arith.cmpf ugt, %in, %zero : f16
    %s = arith.select %c, %in, %zero : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %diff = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%bh, %dh : tensor<8x16xf16>, tensor<8x16xf16>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%p: f16, %q: f16, %out: f32):
    %pf = arith.extf %p : f16 to f32
    %qf = arith.extf %q : f16 to f32
    %s = arith.subf %pf, %qf : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %diff : tensor<8x16xf32>
}
