// Which lowering owns each op (codegen/classify.c): one owner an op, decided
// once a function, which the driver, the GPU kernels and the mixed path read.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s --check-prefix=CUDA
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cpu %s | FileCheck %s --check-prefix=CPU
// REQUIRES: emb-compiler

// A concat (tensor ops), an elementwise add (constants), a linalg.generic
// and what only it reads (a tensor.empty, a scalar constant). On the cuda
// target the generic is a GPU kernel and what only it reads is skipped (the
// kernel copies it in: no fill, no scalar); on the cpu target the generic has
// no owner, so the function is mixed and everything but emb ops and matmul
// chains is left to MLIR.
// CUDA-LABEL: func.func @owners(
// CUDA-NOT: arith.constant 0.000000e+00 : f32
// CUDA: call @embrtCompiledConcat(
// CUDA: %[[SUM:.+]] = call @embrtCompiledAlloc(%arg0, %c128_i64)
// CUDA: call @embrtCompiledElementwise(
// CUDA-NOT: call @embrtCompiledFill
// CUDA: call @embrtCompiledLaunchKernel(
// CUDA: call @embrtCompiledFree(%arg0, %[[SUM]])
// CUDA: return
// CPU-LABEL: func.func @owners(
// CPU-SAME: emb.target = "cpu"
// CPU-NOT: call @
// CPU: tensor.concat
// CPU: arith.addf %{{.+}}, %{{.+}} : tensor<4x8xf32>
// CPU: linalg.generic
// CPU: bufferization.materialize_in_destination
// CPU: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @owners(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<4x8xf32>) {
  %c = tensor.concat dim(0) %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %s = arith.addf %x, %y : tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %c, %r : tensor<8x8xf32>, tensor<4x8xf32>
}

// -----

// Without the generic every op has a runtime owner: both targets take the
// runtime path.
// CUDA-LABEL: func.func @runtime_path(
// CUDA: call @embrtCompiledConcat(
// CUDA: call @embrtCompiledElementwise(
// CUDA: return
// CPU-LABEL: func.func @runtime_path(
// CPU-NOT: bufferization
// CPU: call @embrtCompiledConcat(
// CPU: call @embrtCompiledElementwise(
// CPU-NOT: bufferization
// CPU: return
func.func @runtime_path(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<4x8xf32>) {
  %c = tensor.concat dim(0) %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %s = arith.addf %x, %y : tensor<4x8xf32>
  return %c, %s : tensor<8x8xf32>, tensor<4x8xf32>
}
