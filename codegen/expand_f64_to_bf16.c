//===- codegen/expand_f64_to_bf16.c - emb-expand-f64-to-bf16 --------------===//
//
// LLVM lowers a conversion from f64 straight to bf16 to a call of
// __truncdfbf2, which libgcc 12 does not have (a compiled model does not
// link) and MLIR's arith-expand does not expand (it takes f32 to bf16). Two
// roundings to nearest, f64 to f32 to bf16, are not one: a value just past a
// bf16 tie rounds to the tie in f32, then to even. Rounding to odd first is:
// f32 keeps 16 more bits than bf16, and a sticky last bit set whenever f32
// dropped anything makes the second rounding see the value's side of every
// tie. This pass writes each scalar `arith.truncf` f64 to bf16 so:
//
//   %b = arith.truncf %d : f64 to bf16
// becomes
//   %f    = arith.truncf %d : f64 to f32          // to nearest
//   %back = arith.extf %f : f32 to f64
//   %away = arith.cmpf ogt, |%back|, |%d|         // rounded away from zero
//   %bits = arith.bitcast %f : f32 to i32
//   %tz   = select %away, %bits - 1, %bits        // toward zero (inf: max)
//   %odd  = select (%back one %d), %tz | 1, %tz   // sticky bit if inexact
//   %b    = arith.truncf (arith.bitcast %odd : i32 to f32) : f32 to bf16
//
// NaN compares unordered (kept as is), and infinities and f32's range come
// out as one rounding would give. Runs after convert-linalg-to-loops, where
// every truncf is scalar, and before arith-expand, which expands the f32 to
// bf16 conversion (emb-lower-to-llvm places it).
//
//===----------------------------------------------------------------------===//

#include "builder.h"
#include "codegen.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

/// arith.cmpf's predicates used here.
enum { cmpfOgt = 2, cmpfOne = 6 };

static bool isF64ToBF16(MlirOperation op) {
  return embOpIs(op, "arith.truncf") &&
         mlirTypeIsAF64(mlirValueGetType(mlirOperationGetOperand(op, 0))) &&
         mlirTypeIsABF16(mlirValueGetType(mlirOperationGetResult(op, 0)));
}

static MlirValue unary(EmbBuilder *b, const char *name, MlirValue x,
                       MlirType t) {
  return mlirOperationGetResult(embBuildOp(b, name, 1, &x, 1, &t, 0, NULL), 0);
}

/// |x| in arith alone (maximumf(x, -x)): the math dialect need not be
/// loaded where this pass runs.
static MlirValue absf(EmbBuilder *b, MlirValue x) {
  MlirValue neg = unary(b, "arith.negf", x, mlirValueGetType(x));
  return embBuildBinary(b, "arith.maximumf", x, neg);
}

static MlirValue selectValue(EmbBuilder *b, MlirValue c, MlirValue x,
                             MlirValue y) {
  MlirValue operands[3] = {c, x, y};
  MlirType t = mlirValueGetType(x);
  return mlirOperationGetResult(
      embBuildOp(b, "arith.select", 3, operands, 1, &t, 0, NULL), 0);
}

static void expand(MlirOperation trunc) {
  MlirContext ctx = mlirOperationGetContext(trunc);
  EmbBuilder b = {ctx, mlirOperationGetLocation(trunc),
                  mlirOperationGetBlock(trunc), trunc};
  MlirType f32 = mlirF32TypeGet(ctx), f64 = mlirF64TypeGet(ctx);
  MlirType i32 = mlirIntegerTypeGet(ctx, 32);
  MlirValue d = mlirOperationGetOperand(trunc, 0);
  MlirValue f = unary(&b, "arith.truncf", d, f32);
  MlirValue back = unary(&b, "arith.extf", f, f64);
  MlirValue absBack = absf(&b, back);
  MlirValue absD = absf(&b, d);
  MlirValue away = embBuildCmpF(&b, cmpfOgt, absBack, absD);
  MlirValue bits = unary(&b, "arith.bitcast", f, i32);
  MlirNamedAttribute oneAttr =
      embNamedAttr(ctx, "value", mlirIntegerAttrGet(i32, 1));
  MlirValue one = mlirOperationGetResult(
      embBuildOp(&b, "arith.constant", 0, NULL, 1, &i32, 1, &oneAttr), 0);
  MlirValue less = embBuildBinary(&b, "arith.subi", bits, one);
  MlirValue towardZero = selectValue(&b, away, less, bits);
  MlirValue inexact = embBuildCmpF(&b, cmpfOne, back, d);
  MlirValue sticky = embBuildBinary(&b, "arith.ori", towardZero, one);
  MlirValue odd = selectValue(&b, inexact, sticky, towardZero);
  MlirValue narrowed = unary(&b, "arith.bitcast", odd, f32);
  MlirValue result = unary(&b, "arith.truncf", narrowed,
                           mlirValueGetType(mlirOperationGetResult(trunc, 0)));
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(trunc, 0), result);
  mlirOperationDestroy(trunc);
}

static void run(MlirOperation op, MlirExternalPass pass, const void *options) {
  (void)pass;
  (void)options;
  size_t n = 0;
  MlirOperation *truncs = embCollectOps(op, isF64ToBF16, &n);
  for (size_t i = 0; i < n; ++i)
    expand(truncs[i]);
  free(truncs);
}

const EmbPassDef embExpandF64ToBF16PassDef = {
    .argument = "emb-expand-f64-to-bf16",
    .name = "EmbExpandF64ToBF16",
    .summary = "Write a scalar f64 to bf16 arith.truncf as a rounding to odd "
               "f32 and one to bf16 (no call of __truncdfbf2)",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "builtin.module",
    .run = run,
};
