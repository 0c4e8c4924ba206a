// Splat constants and tensor.splat run with the right element bits in every
// dtype: each function's result has a known sum. Non-splat dense constants
// too: their bytes become a private global read through
// embrtCompiledConstant, and the results show them element by element.
// dense_resource constants (weights frozen into a torch-mlir model, their
// bytes in the module's dialect_resources blob) lower like dense ones.
// REQUIRES: emb-compiler
// RUN: emb-run %s --entry f16_constant --random-inputs --print | FileCheck %s --check-prefix=F16
// F16: result #0 tensor<2x4xf16>: sum 18, min 2.25, max 2.25
// RUN: emb-run %s --entry bf16_constant --random-inputs --print | FileCheck %s --check-prefix=BF16
// BF16: result #0 tensor<2x4xbf16>: sum -12, min -1.5, max -1.5
// RUN: emb-run %s --entry splat_f32 --random-inputs --print | FileCheck %s --check-prefix=SPLAT
// SPLAT: result #0 tensor<2x4xf32>: sum 24, min 3, max 3
// RUN: emb-run %s --entry splat_i64 --random-inputs --print | FileCheck %s --check-prefix=I64
// I64: result #0 tensor<3xi64>: sum -21, min -7, max -7
// RUN: emb-run %s --entry dense_f32 --random-inputs --print | FileCheck %s --check-prefix=DENSE32
// DENSE32: result #0 tensor<2x3xf32>: sum 5, min -6, max 5.5, first [1, -2.5, 3, 4, ...]
// RUN: emb-run %s --entry dense_f16_returned --random-inputs --print | FileCheck %s --check-prefix=DENSE16
// DENSE16: result #0 tensor<4xf16>: sum 0.625, min -1.25, max 1.5, first [0.25, -1.25, 1.5, 0.125]
// DENSE16: result #1 tensor<2x2xf16>: sum 0.625, min -1.25, max 1.5, first [0.25, -1.25, 1.5, 0.125]
// RUN: emb-run %s --entry dense_i64 --random-inputs --print | FileCheck %s --check-prefix=DENSE64
// DENSE64: result #0 tensor<3xi64>: sum -5e+09, min -5e+09, max 3, first [3, -5e+09, -2]
// RUN: emb-run %s --entry resource_f32 --random-inputs --print | FileCheck %s --check-prefix=RES32
// RES32: result #0 tensor<2x3xf32>: sum 4.5, min -6.5, max 5.5, first [1, -2.5, 3, 4, ...]
// RUN: emb-run %s --entry resource_f16 --random-inputs --print | FileCheck %s --check-prefix=RES16
// RES16: result #0 tensor<4xf16>: sum 0.625, min -1.25, max 1.5, first [0.25, -1.25, 1.5, 0.125]
// RUN: emb-run %s --entry resource_i64 --random-inputs --print | FileCheck %s --check-prefix=RES64
// RES64: result #0 tensor<3xi64>: sum -5e+09, min -5e+09, max 3, first [3, -5e+09, -2]
// RUN: emb-opt --emb-lower-to-runtime=target=cuda %s | FileCheck %s --check-prefix=LOWERED
// LOWERED: llvm.mlir.global private constant @[[$G:__emb_constant_[0-9]+]](dense<[0, 0, -128, 63, 0, 0, 32, -64, 0, 0, 64, 64, 0, 0, -128, 64, 0, 0, -80, 64, 0, 0, -64, -64]> : tensor<24xi8>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<24 x i8>
// LOWERED-LABEL: func.func @dense_f32
// LOWERED: %[[HOST:.+]] = llvm.mlir.addressof @[[$G]] : !llvm.ptr
// LOWERED: %[[BYTES:.+]] = arith.constant 24 : i64
// LOWERED: call @embrtCompiledConstant(%arg0, %[[HOST]], %[[BYTES]], %{{.+}})

// tensor.from_elements of scalars computed at run time (emb-raise-gather's
// offsets [0, N] of a lookup over a dynamic number of ids): one fill of one
// element a scalar, at its byte offset in the result.
// RUN: emb-run %s --entry from_elements_i64 --random-inputs --print | FileCheck %s --check-prefix=ELEMS
// ELEMS: result #0 tensor<3xi64>: sum 3, min -7, max 5, first [-7, 5, 5]
// RUN: emb-run %s --entry from_elements_f16 --random-inputs --print | FileCheck %s --check-prefix=ELEMS16
// ELEMS16: result #0 tensor<2xf16>: sum 1.25, min -0.25, max 1.5, first [1.5, -0.25]
// RUN: emb-opt --emb-lower-to-runtime=target=cuda %s | FileCheck %s --check-prefix=FILLS
// FILLS-LABEL: func.func @from_elements_i64
// FILLS: %[[E0:.+]] = llvm.getelementptr %[[OUT:.+]][0] {{.+}} : (!llvm.ptr) -> !llvm.ptr, i8
// FILLS: call @embrtCompiledFill(
// FILLS: llvm.getelementptr %[[OUT]][8] {{.+}} : (!llvm.ptr) -> !llvm.ptr, i8
// FILLS: call @embrtCompiledFill(
// FILLS: llvm.getelementptr %[[OUT]][16] {{.+}} : (!llvm.ptr) -> !llvm.ptr, i8
// FILLS: call @embrtCompiledFill(
// FILLS-NOT: tensor.from_elements

// A dense_resource of a type without elements, in a function MLIR compiles
// (linalg): it holds nothing and becomes a tensor.empty (MLIR 22's LLVM
// translation of its global divided by its element count: SIGFPE; found by
// emb-fuzz).
// RUN: emb-run %s --entry resource_empty --random-inputs --print | FileCheck %s --check-prefix=EMPTY
// RUN: emb-compile %s --entry resource_empty --target cpu -o %t.empty
// EMPTY: result #0 tensor<2x0xf32>: sum 0, min 0, max 0, first []

// A dense_resource's global holds its blob's bytes (without the blob's
// alignment prefix), read through embrtCompiledConstant like a dense one's.
// RUN: emb-opt --emb-lower-to-runtime=target=cuda %s | FileCheck %s --check-prefix=RESOURCE
// RESOURCE: llvm.mlir.global private constant @[[$R:__emb_constant_[0-9]+]](dense<[0, 0, -128, 63, 0, 0, 32, -64, 0, 0, 64, 64, 0, 0, -128, 64, 0, 0, -80, 64, 0, 0, -48, -64]> : tensor<24xi8>)
// RESOURCE-LABEL: func.func @resource_f32
// RESOURCE: %[[RHOST:.+]] = llvm.mlir.addressof @[[$R]] : !llvm.ptr
// RESOURCE: call @embrtCompiledConstant(%arg0, %[[RHOST]],

func.func @f16_constant(%x: tensor<2x4xf16>) -> tensor<2x4xf16> {
  %c = arith.constant dense<1.5> : tensor<2x4xf16>
  %y = arith.mulf %c, %c : tensor<2x4xf16>
  return %y : tensor<2x4xf16>
}

func.func @bf16_constant(%x: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %c = arith.constant dense<-1.5> : tensor<2x4xbf16>
  return %c : tensor<2x4xbf16>
}

func.func @splat_f32(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %v = arith.constant 3.0 : f32
  %s = tensor.splat %v : tensor<2x4xf32>
  return %s : tensor<2x4xf32>
}

func.func @splat_i64(%x: tensor<3xi64>) -> tensor<3xi64> {
  %v = arith.constant -7 : i64
  %s = tensor.splat %v : tensor<3xi64>
  return %s : tensor<3xi64>
}

func.func @dense_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = arith.constant dense<[[1.0, -2.5, 3.0], [4.0, 5.5, -6.0]]> : tensor<2x3xf32>
  %z = arith.constant dense<0.0> : tensor<2x3xf32>
  %0 = arith.mulf %x, %z : tensor<2x3xf32>
  %1 = arith.addf %0, %c : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// Returned as it is and through a reshape (which aliases it): both copied
// into the out buffers.
func.func @dense_f16_returned(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<2x2xf16>) {
  %c = arith.constant dense<[0.25, -1.25, 1.5, 0.125]> : tensor<4xf16>
  %r = tensor.expand_shape %c [[0, 1]] output_shape [2, 2] : tensor<4xf16> into tensor<2x2xf16>
  return %c, %r : tensor<4xf16>, tensor<2x2xf16>
}

func.func @dense_i64(%x: tensor<3xi64>) -> tensor<3xi64> {
  %c = arith.constant dense<[3, -5000000000, -2]> : tensor<3xi64>
  %z = arith.constant dense<0> : tensor<3xi64>
  %0 = arith.muli %x, %z : tensor<3xi64>
  %1 = arith.addi %0, %c : tensor<3xi64>
  return %1 : tensor<3xi64>
}

func.func @resource_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = arith.constant dense_resource<weights_f32> : tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

func.func @resource_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %c = arith.constant dense_resource<weights_f16> : tensor<4xf16>
  return %c : tensor<4xf16>
}

func.func @resource_i64(%x: tensor<3xi64>) -> tensor<3xi64> {
  %c = arith.constant dense_resource<weights_i64> : tensor<3xi64>
  return %c : tensor<3xi64>
}

func.func @resource_empty(%x: tensor<2x0xf32>) -> tensor<2x0xf32> {
  %w = arith.constant dense_resource<weights_empty> : tensor<2x0xf32>
  %e = tensor.empty() : tensor<2x0xf32>
  %0 = linalg.add ins(%x, %w : tensor<2x0xf32>, tensor<2x0xf32>) outs(%e : tensor<2x0xf32>) -> tensor<2x0xf32>
  return %0 : tensor<2x0xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights_f32: "0x040000000000803F000020C000004040000080400000B0400000D0C0",
      weights_f16: "0x02000000003400BD003E0030",
      weights_i64: "0x080000000300000000000000000EFAD5FEFFFFFFFEFFFFFFFFFFFFFF",
      weights_empty: "0x04000000"
    }
  }
#-}

func.func @from_elements_i64(%x: tensor<5xf32>) -> tensor<3xi64> {
  %c0 = arith.constant 0 : index
  %m7 = arith.constant -7 : i64
  %n = tensor.dim %x, %c0 : tensor<5xf32>
  %n64 = arith.index_cast %n : index to i64
  %t = tensor.from_elements %m7, %n64, %n64 : tensor<3xi64>
  return %t : tensor<3xi64>
}

func.func @from_elements_f16(%x: tensor<2xf16>) -> tensor<2xf16> {
  %a = arith.constant 1.5 : f16
  %b = arith.constant -0.25 : f16
  %t = tensor.from_elements %a, %b : tensor<2xf16>
  return %t : tensor<2xf16>
}
