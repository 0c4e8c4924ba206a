// Generated GPU kernels that call math functions (codegen/gpu_kernels.c):
// libdevice's __nv_* functions are linked into the PTX from the CUDA
// toolkit, so the PTX defines everything it calls.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s --implicit-check-not=.extern
// REQUIRES: emb-compiler, libdevice

// A row softmax over rows of 1000: the two reductions are a block a row with
// a tree across the block (warp shuffles and a barrier in the PTX); the
// exp(x - max) that both the sum and the division read is recomputed in each
// (no intermediate of 64x1000), so there are five kernels: the two fills of
// the row results, the max, the sum, the division. The row results are
// runtime allocations, freed at the end.
// CHECK-DAG: llvm.mlir.global private constant @__emb_kernels_{{[0-9]+}}("{{.*}}shfl.sync.bfly.b32{{.*}}bar.sync{{.*}}\00")
// CHECK-DAG: llvm.mlir.global private constant @__emb_kernels_{{[0-9]+}}("{{.*}}ex2.approx{{.*}}\00")
// CHECK-LABEL: func.func @softmax(
// CHECK: %[[MAX:.+]] = call @embrtCompiledAlloc(%arg0, %c256_i64)
// CHECK: %[[SUM:.+]] = call @embrtCompiledAlloc(%arg0, %c256_i64{{.*}})
// CHECK-COUNT-5: call @embrtCompiledLaunchKernel(
// CHECK-NOT: call @embrtCompiledLaunchKernel
// CHECK-DAG: call @embrtCompiledFree(%arg0, %[[MAX]])
// CHECK-DAG: call @embrtCompiledFree(%arg0, %[[SUM]])
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1000xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x1000xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<64x1000xf32>, tensor<64xf32>) outs(%e2 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.subf %a, %c : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<64x1000xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<64x1000xf32>) outs(%f2 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e3 = tensor.empty() : tensor<64x1000xf32>
  %sm = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<64x1000xf32>, tensor<64xf32>) outs(%e3 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.divf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<64x1000xf32>
  return %sm : tensor<64x1000xf32>
}

// -----

// GELU in its erf form (as torch-mlir writes it) on f16, computed in f32:
// one kernel, erf from libdevice.
// CHECK-LABEL: func.func @gelu(
// CHECK-COUNT-1: call @embrtCompiledLaunchKernel(
// CHECK-NOT: call @embrtCompiledLaunchKernel
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %e = tensor.empty() : tensor<4x8xf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf16>) outs(%e : tensor<4x8xf16>) {
  ^bb0(%a: f16, %o: f16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.70710678 : f32
    %af = arith.extf %a : f16 to f32
    %t = arith.mulf %af, %rsqrt2 : f32
    %erf = math.erf %t : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %af, %half : f32
    %r = arith.mulf %h, %p : f32
    %rh = arith.truncf %r : f32 to f16
    linalg.yield %rh : f16
  } -> tensor<4x8xf16>
  return %g : tensor<4x8xf16>
}
