// What emb-lower-to-runtime{target=cuda} refuses to make a GPU kernel of
// (codegen/gpu_kernels.c), each error at the op it names; the cpu target
// compiles all of these with MLIR (mixed_functions.mlir).
// RUN: not emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// Dynamic shapes: a kernel's grid and indexing are compiled for static
// sizes.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  // CHECK: gpu_kernels_invalid.mlir:[[@LINE+1]]:8: error: 'linalg.generic' op cannot be lowered to the emb runtime (target cuda): no GPU kernel for it: a GPU kernel needs static shapes, and it reads a tensor of dynamic shape
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// torch-mlir's bounds check inside a body: a kernel cannot record its
// failure yet, and dropping it would read out of bounds.
#ids = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @bounds_check(%ids: tensor<4xi64>, %table: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %c6 = arith.constant 6 : index
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#ids, #id], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<4xi64>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: i64, %o: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %ok = arith.cmpi slt, %i, %c6 : index
    // CHECK: gpu_kernels_invalid.mlir:[[@LINE+1]]:5: error: 'cf.assert' op cannot be lowered to the emb runtime (target cuda): a GPU kernel cannot check a cf.assert yet (the cpu target compiles it)
    cf.assert %ok, "index must be smaller than dim size"
    %v = tensor.extract %table[%i, %j] : tensor<6x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// A scalar the function computes (here a size the runtime path reads from a
// buffer) is no kernel argument: kernels take buffers only.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @scalar(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  // CHECK: gpu_kernels_invalid.mlir:[[@LINE+1]]:8: error: 'linalg.generic' op cannot be lowered to the emb runtime (target cuda): no GPU kernel for it: a GPU kernel reads only tensors and constants, and it reads a scalar computed at run time
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ni = arith.index_cast %n : index to i32
    %nf = arith.sitofp %ni : i32 to f32
    %r = arith.divf %a, %nf : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// An op that is neither a runtime call nor a kernel op (tensor.pad: MLIR
// lowers it, but not as a linalg op the kernels take).
func.func @pad(%x: tensor<4x8xf32>) -> tensor<4x10xf32> {
  %z = arith.constant 0.0 : f32
  // CHECK: gpu_kernels_invalid.mlir:[[@LINE+1]]:8: error: 'tensor.pad' op cannot be lowered to the emb runtime (target cuda): every op must map to a runtime call or a GPU kernel (linalg ops and arith and math on tensors), and emb has no GPU lowering for this one (the cpu target compiles it)
  %p = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<4x8xf32> to tensor<4x10xf32>
  return %p : tensor<4x10xf32>
}

// -----

// An output whose indexing map uses a reduction loop (MLIR's verifier takes
// it; found by emb-fuzz: the kernel built a load with no index for it).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @output_reduced(%x: tensor<4x8xf32>, %m: tensor<4xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // CHECK: gpu_kernels_invalid.mlir:[[@LINE+1]]:8: error: 'linalg.generic' op cannot be lowered to the emb runtime (target cuda): {{.*}}output 0's indexing map uses loop 1, a reduction
  %n = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "reduction"]} ins(%x, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.divf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// Loops whose points pass 2^63 (found by emb-fuzz: the point count
// overflowed before any kernel was built).
#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @span_overflow(%x: tensor<8xf32>) -> tensor<8x4611686018427387904xf32> {
  %e = tensor.empty() : tensor<8x4611686018427387904xf32>
  // CHECK: gpu_kernels_invalid.mlir:[[@LINE+1]]:8: error: 'linalg.generic' op cannot be lowered to the emb runtime (target cuda): no GPU kernel for it: its loops span more than 2^63 points
  %y = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8x4611686018427387904xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<8x4611686018427387904xf32>
  return %y : tensor<8x4611686018427387904xf32>
}

// -----

// More points than one launch's grid holds: 2^40 points are 2^32 blocks
// of 256 threads.
#row = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @grid_too_large(%x: tensor<65536xf32>) -> tensor<65536x16777216xf32> {
  %e = tensor.empty() : tensor<65536x16777216xf32>
  // CHECK: gpu_kernels_invalid.mlir:[[@LINE+1]]:8: error: 'linalg.generic' op cannot be lowered to the emb runtime (target cuda): no GPU kernel for it: its 1099511627776 parallel points need more than 2147483647 blocks of 256 threads, a launch's most
  %y = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<65536xf32>) outs(%e : tensor<65536x16777216xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<65536x16777216xf32>
  return %y : tensor<65536x16777216xf32>
}
