// Every verifier rule of emb.jagged_to_padded, one per block.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// values is [N, D].
func.func @f(%v: tensor<10xf32>, %o: tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<2xi64>) {
  // CHECK: jagged_invalid.mlir:[[@LINE+1]]:12: error: 'emb.jagged_to_padded' op values must have rank 2, got rank 1
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10xf32>, tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<2xi64>)
  return %p, %l : tensor<2x4x8xf32>, tensor<2xi64>
}

// -----

// values holds floats.
func.func @f(%v: tensor<10x8xi32>, %o: tensor<3xi64>) -> (tensor<2x4x8xi32>, tensor<2xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op values must hold f32, f16 or bf16, got i32
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xi32>, tensor<3xi64>) -> (tensor<2x4x8xi32>, tensor<2xi64>)
  return %p, %l : tensor<2x4x8xi32>, tensor<2xi64>
}

// -----

// offsets holds i32 or i64.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xf32>) -> (tensor<2x4x8xf32>, tensor<2xf32>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op offsets must hold i32 or i64, got f32
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xf32>, tensor<3xf32>) -> (tensor<2x4x8xf32>, tensor<2xf32>)
  return %p, %l : tensor<2x4x8xf32>, tensor<2xf32>
}

// -----

// padded holds the values' type.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xi64>) -> (tensor<2x4x8xf16>, tensor<2xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op padded holds f16 but values holds f32
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xf32>, tensor<3xi64>) -> (tensor<2x4x8xf16>, tensor<2xi64>)
  return %p, %l : tensor<2x4x8xf16>, tensor<2xi64>
}

// -----

// lengths holds the offsets' type.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<2xi32>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op lengths holds i32 but offsets holds i64
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xf32>, tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<2xi32>)
  return %p, %l : tensor<2x4x8xf32>, tensor<2xi32>
}

// -----

// max_length is required.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<2xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op attribute "max_length" is expected but not provided
  %p, %l = "emb.jagged_to_padded"(%v, %o) : (tensor<10x8xf32>, tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<2xi64>)
  return %p, %l : tensor<2x4x8xf32>, tensor<2xi64>
}

// -----

// max_length is at least 1.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xi64>) -> (tensor<2x0x8xf32>, tensor<2xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op max_length must be an integer in 1..16777216, got 0 : i64
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 0} : (tensor<10x8xf32>, tensor<3xi64>) -> (tensor<2x0x8xf32>, tensor<2xi64>)
  return %p, %l : tensor<2x0x8xf32>, tensor<2xi64>
}

// -----

// padding_value is a float.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<2xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op attribute 'padding_value' must be a float that is not NaN, got "zero"
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4, padding_value = "zero"} : (tensor<10x8xf32>, tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<2xi64>)
  return %p, %l : tensor<2x4x8xf32>, tensor<2xi64>
}

// -----

// padded has a row per user: one fewer than the offsets.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<4xi64>) -> (tensor<2x4x8xf32>, tensor<2xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op padded has 2 users but offsets has 4 elements (one more than the users)
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xf32>, tensor<4xi64>) -> (tensor<2x4x8xf32>, tensor<2xi64>)
  return %p, %l : tensor<2x4x8xf32>, tensor<2xi64>
}

// -----

// padded's dim 1 is max_length.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xi64>) -> (tensor<2x5x8xf32>, tensor<2xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op padded dim 1 is 5 but max_length is 4
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xf32>, tensor<3xi64>) -> (tensor<2x5x8xf32>, tensor<2xi64>)
  return %p, %l : tensor<2x5x8xf32>, tensor<2xi64>
}

// -----

// padded's rows are as wide as the values'.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xi64>) -> (tensor<2x4x6xf32>, tensor<2xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op values has rows of 8 but padded has rows of 6
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xf32>, tensor<3xi64>) -> (tensor<2x4x6xf32>, tensor<2xi64>)
  return %p, %l : tensor<2x4x6xf32>, tensor<2xi64>
}

// -----

// lengths has a user's entry.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<3xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op lengths has 3 entries but padded has 2 users
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xf32>, tensor<3xi64>) -> (tensor<2x4x8xf32>, tensor<3xi64>)
  return %p, %l : tensor<2x4x8xf32>, tensor<3xi64>
}

// -----

// offsets is never empty.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<0xi64>) -> (tensor<0x4x8xf32>, tensor<0xi64>) {
  // CHECK: [[@LINE+1]]:12: error: 'emb.jagged_to_padded' op offsets must have at least one element (U + 1 for U users)
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xf32>, tensor<0xi64>) -> (tensor<0x4x8xf32>, tensor<0xi64>)
  return %p, %l : tensor<0x4x8xf32>, tensor<0xi64>
}

// -----

// Two results.
func.func @f(%v: tensor<10x8xf32>, %o: tensor<3xi64>) -> tensor<2x4x8xf32> {
  // CHECK: [[@LINE+1]]:8: error: op expects exactly 2 results, but got 1
  %p = "emb.jagged_to_padded"(%v, %o) {max_length = 4} : (tensor<10x8xf32>, tensor<3xi64>) -> tensor<2x4x8xf32>
  return %p : tensor<2x4x8xf32>
}
