// A dense_resource constant whose type needs more bytes than its blob
// holds: MLIR 22 takes the module (it never compares them), and its C API
// reads a resource's elements without a bounds check, so emb's lowering of
// the constant (codegen/constants.c, embReadResource) read past the blob
// (emb-fuzz: SEGV under ASan in mlirDenseFloatResourceElementsAttrGetValue).
//   upstream: mlir-opt 22.1.8 accepts the input (it does not read the blob).
//   emb:      the tools scan the source before parsing (tools/common/
//             upstream.c) and reject such a constant at its use; a blob as
//             large as the type, or larger, is taken.
// REQUIRES: emb-compiler
// RUN: not emb-opt %s 2>&1 | FileCheck %s
// RUN: not emb-compile %s -o %t --target cuda 2>&1 | FileCheck %s
// RUN: not emb-run %s --random-inputs 2>&1 | FileCheck %s
// RUN: emb-opt %S/Inputs/dense_resource_fits.mlir | FileCheck %s --check-prefix=FITS

// CHECK-NOT: internal error
// CHECK: dense_resource_blob.mlir:[[# @LINE + 2]]:23: error: dense_resource<weights>: its type needs 524288 bytes but the blob holds 16 (MLIR 22 does not compare them, and reading the elements would run past the blob)
func.func @resource(%x: tensor<2x65536xf32>) -> tensor<2x65536xf32> {
  %w = arith.constant dense_resource<weights> : tensor<2x65536xf32>
  %0 = tensor.empty() : tensor<2x65536xf32>
  %1 = linalg.add ins(%x, %w : tensor<2x65536xf32>, tensor<2x65536xf32>) outs(%0 : tensor<2x65536xf32>) -> tensor<2x65536xf32>
  return %1 : tensor<2x65536xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
// FITS: arith.constant dense_resource<weights> : tensor<4xf32>
