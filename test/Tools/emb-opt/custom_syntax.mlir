// The emb ops have no custom assembly: MLIR's parser rejects it without a
// word, so emb-opt finds the op and says what to write instead.
// RUN: not emb-opt %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

func.func @f(%u: tensor<2x8xf16>, %c: tensor<4xi32>) -> tensor<4x8xf16> {
  // The quoted name in this comment does not count: "emb.lce" emb.lce
  // CHECK: custom_syntax.mlir:[[@LINE+1]]:8: error: custom syntax is not supported for 'emb.broadcast': write it in the generic form "emb.broadcast"(operands) {attributes} : (operand types) -> result type
  %0 = emb.broadcast %u, %c : tensor<2x8xf16>, tensor<4xi32> -> tensor<4x8xf16>
  // CHECK-NEXT: {{^}}  %0 = emb.broadcast
  // CHECK-NEXT: {{^}}       ^
  return %0 : tensor<4x8xf16>
}
