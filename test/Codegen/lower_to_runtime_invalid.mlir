// emb-lower-to-runtime refuses what the runtime cannot run, naming the op.
// RUN: not emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// An op with neither a runtime call nor a GPU kernel (math.sin on tensors,
// say, is a kernel: gpu_kernels.mlir).
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: lower_to_runtime_invalid.mlir:[[@LINE+1]]:8: error: 'tensor.generate' op cannot be lowered to the emb runtime (target cuda): every op must map to a runtime call or a GPU kernel
  %0 = tensor.generate {
  ^bb0(%i: index, %j: index):
    %c = arith.constant 1.0 : f32
    tensor.yield %c : f32
  } : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Entry functions take ranked tensors.
// CHECK: [[@LINE+1]]:1: error: emb-lower-to-runtime: argument #0 of the function is f32; entry functions take and return ranked tensors of at most 8 dims with a runtime element type
func.func @g(%x: f32) -> tensor<4xf32> {
  %0 = arith.constant dense<1.0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// i16 has no runtime dtype (the runtime has no 16-bit integer), so an entry
// function cannot take it.
// CHECK: [[@LINE+1]]:1: error: emb-lower-to-runtime: argument #0 of the function is tensor<4xi16>; entry functions take and return ranked tensors of at most 8 dims with a runtime element type
func.func @i16(%x: tensor<4xi16>) -> tensor<4xi16> {
  return %x : tensor<4xi16>
}

// -----

// A dense_resource constant whose blob the module does not hold (dense_resource
// constants lower like dense ones: constants.mlir).
func.func @h() -> tensor<2xf32> {
  // CHECK: [[@LINE+1]]:8: error: 'arith.constant' op cannot be lowered to the emb runtime (target cuda): its dense_resource has no data (the module's dialect_resources section has no blob of that name)
  %0 = arith.constant dense_resource<missing> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// RUN: not emb-opt --split-input-file --emb-lower-to-runtime=target=tpu %s 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: emb-opt: error: emb-lower-to-runtime: option 'target' must be cpu or cuda, got 'tpu'

// -----

// A reassociation index outside the dims it groups (MLIR 22's verifier takes
// a negative one; found by emb-fuzz, the lowering indexed outside the dims).
// emb's tools refuse it after parsing (Tools/upstream/
// reshape_reassociation_range.mlir); the lowering's own refusal, for host
// compilers that parse with the C API, is in CAPI/passes.c.
func.func @negative_reassociation(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  // CHECK: lower_to_runtime_invalid.mlir:[[@LINE+1]]:8: error: 'tensor.collapse_shape' op reassociation group 0 names dim -9007199254740992 where dim 0 of the source type (rank 2) comes next
  %0 = tensor.collapse_shape %x [[-9007199254740992, 1]] : tensor<4x8xf32> into tensor<32xf32>
  return %0 : tensor<32xf32>
}
