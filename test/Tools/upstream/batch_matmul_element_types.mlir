// linalg.batch_matmul and linalg.batch_reduce_matmul in custom form build
// their body from the operands' element types; where a cast between them
// fails (index anywhere, a complex input into a result that is not
// complex, a complex of integers, a vector), MLIR 22's region builder uses the failed cast's
// null value and crashes in the parser (linalg.matmul reports the same
// types as an error). Found by emb-fuzz (a test's memref<2x3x4xf32> made
// complex<f32>).
//   upstream: related to llvm/llvm-project#179677 (non-numeric types,
//             closed by #181616 after the 22 branch); mlir-opt 22.1.8 dies
//             of SIGSEGV (exit 139) on each case below.
//   emb:      the tools scan the source before parsing (tools/common/
//             upstream.c) and reject the types at the op, naming them.
// When an mlir-opt line starts failing, MLIR fixed the bug: update the
// status here and in docs/emb-opt.md, and drop the scan's case.
// REQUIRES: emb-compiler
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: not emb-run %s --random-inputs 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: not emb-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=TOOL
// RUN: %if mlir-opt %{ sed -n '/@complex_into_f32(/,/^}/p' %s | not --crash %mlir_opt %}
// RUN: %if mlir-opt %{ sed -n '/@index_operand(/,/^}/p' %s | not --crash %mlir_opt %}
// RUN: %if mlir-opt %{ sed -n '/@reduce_layout(/,/^}/p' %s | not --crash %mlir_opt %}
// RUN: %if mlir-opt %{ sed -n '/@numbers_into_complex_int(/,/^}/p' %s | not --crash %mlir_opt %}

// CHECK-NOT: internal error
// TOOL-NOT: internal error

// A complex input into an f32 result, as emb-fuzz wrote it.
// CHECK: batch_matmul_element_types.mlir:[[# @LINE + 3]]:3: error: 'linalg.batch_matmul' op element types complex<f32>, f32 and f32 cannot be built into its body: a complex input needs a complex result, a complex type float parts, and index (or any type that is no integer, float or complex) is not taken (MLIR 22's linalg.batch_matmul crashes on the cast it cannot make, an upstream bug; linalg.matmul reports it)
// TOOL: batch_matmul_element_types.mlir:[[# @LINE + 2]]:3: error: 'linalg.batch_matmul' op element types complex<f32>, f32 and f32 cannot be built into its body
func.func @complex_into_f32(%a: memref<2x3x4xcomplex<f32>>, %b: memref<2x4x5xf32>, %c: memref<2x3x5xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xcomplex<f32>>, memref<2x4x5xf32>) outs(%c : memref<2x3x5xf32>)
  return
}

// -----

// An index operand, on tensors, the op spread over lines.
// CHECK: batch_matmul_element_types.mlir:[[# @LINE + 2]]:8: error: 'linalg.batch_matmul' op element types f32, index and f32 cannot be built into its body
func.func @index_operand(%a: tensor<?x3x4xf32>, %b: tensor<?x4x5xindex>, %c: tensor<?x3x5xf32>) -> tensor<?x3x5xf32> {
  %0 = linalg.batch_matmul
      ins(%a, %b : tensor<?x3x4xf32>,
                   tensor<?x4x5xindex>)
      outs(%c : tensor<?x3x5xf32>) -> tensor<?x3x5xf32>
  return %0 : tensor<?x3x5xf32>
}

// -----

// batch_reduce_matmul, a complex input with a strided layout.
// CHECK: batch_matmul_element_types.mlir:[[# @LINE + 2]]:3: error: 'linalg.batch_reduce_matmul' op element types complex<f32>, complex<f32> and f16 cannot be built into its body
func.func @reduce_layout(%a: memref<2x3x4xcomplex<f32>, strided<[12, 4, 1]>>, %b: memref<2x4x5xcomplex<f32>>, %c: memref<3x5xf16>) {
  linalg.batch_reduce_matmul ins(%a, %b : memref<2x3x4xcomplex<f32>, strided<[12, 4, 1]>>, memref<2x4x5xcomplex<f32>>) outs(%c : memref<3x5xf16>)
  return
}

// -----

// Numbers into a complex of integers, on buffers (emb-fuzz made a test's
// f32 result complex<si32>): the cast into it crashes.
// CHECK: batch_matmul_element_types.mlir:[[# @LINE + 2]]:3: error: 'linalg.batch_matmul' op element types f32, i32 and complex<si32> cannot be built into its body
func.func @numbers_into_complex_int(%a: memref<2x3x4xf32>, %b: memref<2x4x5xi32>, %c: memref<2x3x5xcomplex<si32>>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf32>, memref<2x4x5xi32>) outs(%c : memref<2x3x5xcomplex<si32>>)
  return
}

// -----

// Types MLIR reports itself are left to it: numbers into a complex result.
// CHECK-NOT: cannot be built into its body
// CHECK: batch_matmul_element_types.mlir:[[# @LINE + 2]]:3: error: expected add/mul op in the body
func.func @numbers_into_complex(%a: memref<2x3x4xf32>, %b: memref<2x4x5xi32>, %c: memref<2x3x5xcomplex<f32>>) {
  linalg.batch_matmul ins(%a, %b : memref<2x3x4xf32>, memref<2x4x5xi32>) outs(%c : memref<2x3x5xcomplex<f32>>)
  return
}

// CHECK-NOT: internal error
// TOOL-NOT: internal error
