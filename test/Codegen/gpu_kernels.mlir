// The GPU kernels emb-lower-to-runtime{target=cuda} generates for the ops
// the runtime has no call for (codegen/gpu/): each group of such ops
// becomes PTX in a private global of the module, and each kernel of it one
// embrtCompiledLaunchKernel call on the lowered buffers; nothing of MLIR's
// GPU runtime (mgpu*) is left. The GPU runs these against the CPU in
// bench/gpu_kernels/run.sh (Inputs/gpu_kernels/).
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s --implicit-check-not=mgpu
// REQUIRES: emb-compiler

// A bias broadcast (linalg.broadcast) and an add and relu on f16: fused into
// one elementwise kernel of 256-thread blocks, reading the two inputs and
// writing the result buffer; the splat zero is copied into the kernel.
// CHECK: llvm.mlir.global private constant @__emb_kernel_name_0("emb_kernel_0_kernel\00")
// CHECK: llvm.mlir.global private constant @__emb_kernels_0("{{.*}}.target sm_90{{.*}}.entry emb_kernel_0_kernel({{.*}}.maxntid 256, 1, 1{{.*}}\00")
// CHECK-LABEL: func.func @bias_relu(
// CHECK-NOT: arith.constant 0.000000e+00 : f16
// CHECK: %[[PTX:.+]] = llvm.mlir.addressof @__emb_kernels_0 : !llvm.ptr
// CHECK: %[[NAME:.+]] = llvm.mlir.addressof @__emb_kernel_name_0 : !llvm.ptr
// CHECK: %[[LAUNCH:.+]] = llvm.alloca %c7_i64 x i64
// CHECK: %[[ARGS:.+]] = llvm.alloca %c3_i64 x !llvm.ptr
// CHECK: call @embrtCompiledLaunchKernel(%arg0, %[[PTX]], %{{.+}}, %{{.+}}, %[[NAME]], %[[LAUNCH]], %[[ARGS]], %c3_i64{{.*}})
// CHECK-NOT: call @embrtCompiledLaunchKernel
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @bias_relu(%x: tensor<4x8xf16>, %b: tensor<8xf16>) -> tensor<4x8xf16> {
  %z = arith.constant 0.0 : f16
  %e0 = tensor.empty() : tensor<4x8xf16>
  %bb = linalg.broadcast ins(%b : tensor<8xf16>) outs(%e0 : tensor<4x8xf16>) dimensions = [0]
  %e1 = tensor.empty() : tensor<4x8xf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %bb : tensor<4x8xf16>, tensor<4x8xf16>) outs(%e1 : tensor<4x8xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    %r = arith.maximumf %s, %z : f16
    linalg.yield %r : f16
  } -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

// Rows of 1000 divided by their max: the reduction is a block a row with a
// tree across the block (warp shuffles and a barrier in the PTX); the row
// maxima are a runtime allocation, freed at the end. Three kernels: the fill
// of the maxima, the max, the division.
// CHECK-DAG: llvm.mlir.global private constant @__emb_kernels_{{[0-9]+}}("{{.*}}shfl.sync.bfly.b32{{.*}}bar.sync{{.*}}\00")
// CHECK-LABEL: func.func @normalize_rows(
// CHECK: %[[MAX:.+]] = call @embrtCompiledAlloc(%arg0, %c256_i64)
// CHECK-COUNT-3: call @embrtCompiledLaunchKernel(
// CHECK-NOT: call @embrtCompiledLaunchKernel
// CHECK: call @embrtCompiledFree(%arg0, %[[MAX]])
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @normalize_rows(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1000xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x1000xf32>
  %n = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<64x1000xf32>, tensor<64xf32>) outs(%e2 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.divf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<64x1000xf32>
  return %n : tensor<64x1000xf32>
}

// -----

// A sum over rows of 16 (linalg.reduce) is a loop in the thread of each
// output point: no shuffles; the fill and the sum are two kernels.
// CHECK-NOT: shfl
// CHECK-LABEL: func.func @short_rows(
// CHECK-COUNT-2: call @embrtCompiledLaunchKernel(
// CHECK-NOT: call @embrtCompiledLaunchKernel
func.func @short_rows(%x: tensor<128x16xf32>) -> tensor<128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %s = linalg.reduce ins(%x : tensor<128x16xf32>) outs(%f : tensor<128xf32>) dimensions = [1]
    (%a: f32, %o: f32) {
      %r = arith.addf %a, %o : f32
      linalg.yield %r : f32
    }
  return %s : tensor<128xf32>
}

// -----

// A batch transpose of f16 then a cast to f32 (arith.extf on tensors): the
// cast reads the transpose through its indexing map, one kernel.
// CHECK-LABEL: func.func @transpose_cast(
// CHECK-COUNT-1: call @embrtCompiledLaunchKernel(
// CHECK-NOT: call @embrtCompiledLaunchKernel
func.func @transpose_cast(%x: tensor<2x3x4xf16>) -> tensor<2x4x3xf32> {
  %e = tensor.empty() : tensor<2x4x3xf16>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf16>) outs(%e : tensor<2x4x3xf16>) permutation = [0, 2, 1]
  %c = arith.extf %t : tensor<2x4x3xf16> to tensor<2x4x3xf32>
  return %c : tensor<2x4x3xf32>
}

// -----

// A sum over the middle dim kept as a dim of size 1 (torch's keepdim): the
// output's map has a constant result, (d0, 0, d2), and the output is read
// and written outside the reduction loop, where d1 has no index yet. Two
// kernels, the fill and the sum (this crashed the lowering: found by
// emb-fuzz).
// CHECK-LABEL: func.func @sum_keepdim(
// CHECK-COUNT-2: call @embrtCompiledLaunchKernel(
// CHECK-NOT: call @embrtCompiledLaunchKernel
func.func @sum_keepdim(%x: tensor<4x3x6xf32>) -> tensor<4x1x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x1x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x1x6xf32>) -> tensor<4x1x6xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : tensor<4x3x6xf32>) outs(%init : tensor<4x1x6xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x1x6xf32>
  return %sum : tensor<4x1x6xf32>
}

// -----

// An emb op between two kernel ops splits them into two groups, two PTX
// modules: a relu of the bag's input rows (kernel), the bag (runtime call),
// a cast of the bags to f16 (kernel: arith.truncf is no runtime call).
// CHECK-LABEL: func.func @around_a_bag(
// CHECK: llvm.mlir.addressof @__emb_kernels_0
// CHECK: call @embrtCompiledLaunchKernel(
// CHECK: call @embrtCompiledTbe(
// CHECK: llvm.mlir.addressof @__emb_kernels_1
// CHECK: call @embrtCompiledLaunchKernel(
// CHECK-NOT: call @embrtCompiledLaunchKernel
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @around_a_bag(%table: tensor<10x4xf32>, %ids: tensor<8xi64>, %offsets: tensor<3xi64>) -> tensor<2x4xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x4xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%table : tensor<10x4xf32>) outs(%e : tensor<10x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<10x4xf32>
  %bags = "emb.embedding_bag"(%relu, %ids, %offsets) {mode = "sum"} : (tensor<10x4xf32>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x4xf32>
  %t = arith.truncf %bags : tensor<2x4xf32> to tensor<2x4xf16>
  return %t : tensor<2x4xf16>
}
