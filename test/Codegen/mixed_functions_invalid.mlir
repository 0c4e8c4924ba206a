// What emb-lower-to-runtime refuses in a function with ops the runtime has no
// call for: on the cuda target an op that is neither a runtime call nor a
// GPU kernel (gpu_kernels_invalid.mlir has what kernels refuse), on the cpu
// target the ops MLIR's cpu pipeline does not lower either; each error names
// the first such op at its location.
// RUN: not emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: not emb-opt --split-input-file --emb-lower-to-runtime %s 2>&1 | FileCheck %s --check-prefix=CPU
// REQUIRES: emb-compiler

// torch-mlir's relu after an embedding bag: the cpu target compiles the
// generic, the cuda target makes it a GPU kernel (gpu_kernels.mlir): no
// error on either.
// CUDA-NOT: 'linalg.generic' op cannot
// CPU-NOT: 'linalg.generic' op cannot
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu(%table: tensor<10x4xf32>, %ids: tensor<8xi64>, %offsets: tensor<3xi64>) -> tensor<2x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %bags = "emb.embedding_bag"(%table, %ids, %offsets) {mode = "sum"} : (tensor<10x4xf32>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x4xf32>
  %0 = tensor.empty() : tensor<2x4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%bags : tensor<2x4xf32>) outs(%0 : tensor<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = arith.maximumf %in, %cst : f32
    linalg.yield %2 : f32
  } -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// An op of a dialect the cpu pipeline does not lower (tosa, as another
// frontend's importer writes it).
func.func @tosa(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CPU: [[@LINE+2]]:8: error: 'tosa.abs' op cannot be lowered to the emb runtime (target cpu): it has no runtime call, and MLIR's cpu pipeline lowers only arith, math, tensor, linalg, scf, cf, affine, index, memref and bufferization ops
  // CUDA: [[@LINE+1]]:8: error: 'tosa.abs' op cannot be lowered to the emb runtime (target cuda): every op must map to a runtime call or a GPU kernel (linalg ops and arith and math on tensors), and emb has no GPU lowering for this one (the cpu target compiles it)
  %0 = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// emb ops are lowered in the function's own block only.
func.func @nested(%cond: tensor<i1>, %table: tensor<10x4xf32>, %ids: tensor<8xi64>, %offsets: tensor<3xi64>) -> tensor<2x4xf32> {
  %c = tensor.extract %cond[] : tensor<i1>
  %0 = scf.if %c -> tensor<2x4xf32> {
    // CPU: [[@LINE+1]]:10: error: 'emb.embedding_bag' op cannot be lowered to the emb runtime (target cpu): emb ops inside regions are not lowered
    %1 = "emb.embedding_bag"(%table, %ids, %offsets) {mode = "sum"} : (tensor<10x4xf32>, tensor<8xi64>, tensor<3xi64>) -> tensor<2x4xf32>
    scf.yield %1 : tensor<2x4xf32>
  } else {
    %2 = arith.constant dense<0.0> : tensor<2x4xf32>
    scf.yield %2 : tensor<2x4xf32>
  }
  return %0 : tensor<2x4xf32>
}

// -----

// Every function is an entry of the compiled module: calls between them are
// not lowered.
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CPU: [[@LINE+1]]:8: error: 'func.call' op cannot be lowered to the emb runtime (target cpu): calls between functions are not lowered
  %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A dense_resource without its blob, in a mixed function.
func.func @missing_blob(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CPU: [[@LINE+1]]:8: error: 'arith.constant' op cannot be lowered to the emb runtime (target cpu): its dense_resource has no data (the module's dialect_resources section has no blob of that name)
  %w = arith.constant dense_resource<missing> : tensor<2xf32>
  %0 = tensor.empty() : tensor<2xf32>
  %1 = linalg.add ins(%x, %w : tensor<2xf32>, tensor<2xf32>) outs(%0 : tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

// A tensor whose bytes do not fit int64 (the index arithmetic of its
// buffer's size): an argument (emb-fuzz seed 1221, execution 951: LLVM
// aborted on the constant) and an op's result. The cuda target refuses
// them as launches past the grid's most (gpu_kernels_invalid.mlir).
func.func @huge_argument(%x: tensor<4611686018427387904xi64>) -> tensor<4611686018427387904xi64> {
  // CPU: [[@LINE-1]]:1: error: 'func.func' op cannot be lowered to the emb runtime (target cpu): its argument 0, of type tensor<4611686018427387904xi64>, holds more bytes than 64-bit sizes count (INT64_MAX); it is not lowered
  %four = arith.constant dense<4> : tensor<4611686018427387904xi64>
  %0 = arith.divsi %x, %four : tensor<4611686018427387904xi64>
  return %0 : tensor<4611686018427387904xi64>
}

// -----

func.func @huge_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  // CPU: [[@LINE+1]]:8: error: 'tensor.empty' op cannot be lowered to the emb runtime (target cpu): its result 0, of type tensor<2305843009213693952x4xf32>, holds more bytes than 64-bit sizes count (INT64_MAX); it is not lowered
  %0 = tensor.empty() : tensor<2305843009213693952x4xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%0 : tensor<2305843009213693952x4xf32>) -> tensor<2305843009213693952x4xf32>
  return %x : tensor<4xf32>
}

// -----

// A dense_resource scalar becomes a dense constant of its blob's value
// (scalar_resource.test); one of an element type the runtime has no dtype
// for is refused at the constant.
func.func @scalar_resource_i16(%x: tensor<f32>) -> tensor<f32> {
  // CPU: [[@LINE+1]]:8: error: 'arith.constant' op cannot be lowered to the emb runtime (target cpu): a dense_resource scalar of this element type is not lowered (no runtime dtype)
  %w = arith.constant dense_resource<weights> : tensor<i16>
  %0 = tensor.empty() : tensor<f32>
  %1 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%x, %w : tensor<f32>, tensor<i16>) outs(%0 : tensor<f32>) {
  ^bb0(%a: f32, %b: i16, %o: f32):
    %f = arith.sitofp %b : i16 to f32
    %s = arith.addf %a, %f : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %1 : tensor<f32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x020000000300"
    }
  }
#-}
