//===- codegen/asserts.c - cf.assert as a runtime error -------------------===//
//
// torch-mlir guards reads with cf.assert: aten.embedding's body checks each
// id against the table's rows before its tensor.extract, and functions with
// dynamic dims check that sizes agree before the ops that rely on it.
// Upstream lowers cf.assert to abort(), and continuing past a failed one
// would read out of bounds. In a mixed function each
//
//   cf.assert %ok, "msg"
//   <rest of the block>
//   terminator(%v...)
//
// becomes
//
//   %r... = scf.if %ok -> (types of %v...) {
//     <rest of the block>
//     scf.yield %v...
//   } else {
//     call @embrtCompiledAssert(%ctx, 0, @"assertion failed in @f (loc): msg")
//     scf.yield <zeros>...
//   }
//   terminator(%r...)
//
// so a failure records its message in the context (sticky, the first one
// kept) and nothing the assertion guards runs: in the function's own block
// the rest of the function is skipped (the results are left as the caller
// gave them; the caller sees the error), in a linalg.generic body the
// element yields zero instead of reading. The scf.if bufferizes, deallocates
// and lowers like any other, so no allocation leaks on either path.
//
// linalg.index ops stay in front of the scf.if: convert-linalg-to-loops only
// replaces those directly in a linalg body. A block of a region with several
// blocks, or one that yields values no zero can stand for (a dynamically
// shaped tensor), is refused with an error at the assert.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// The message
//===----------------------------------------------------------------------===//

/// A private constant global holding `text` and its NUL
/// (`__emb_assert_<n>`); returns its address at the builder's point.
static MlirValue messageGlobal(EmbLowering *l, const char *text) {
  size_t len = strlen(text) + 1;
  return embBuildConstantGlobal(
      l, "__emb_assert_", mlirStringAttrGet(l->ctx, (MlirStringRef){text, len}),
      (int64_t)len, 0);
}

/// "assertion failed in @f (file:line:col): msg".
static void formatMessage(MlirOperation func, MlirOperation assertOp, char *buf,
                          size_t size) {
  char fn[256] = "?", msg[512] = "", where[256];
  embGetStringAttr(func, "sym_name", fn, sizeof fn);
  embGetStringAttr(assertOp, "msg", msg, sizeof msg);
  embFormatLocation(mlirOperationGetLocation(assertOp), where, sizeof where);
  snprintf(buf, size, "assertion failed in @%s (%s): %s", fn, where,
           msg[0] ? msg : "(no message)");
}

//===----------------------------------------------------------------------===//
// What the failing path yields
//===----------------------------------------------------------------------===//

/// The zero of scalar type `t` as an attribute, or null.
static MlirAttribute scalarZero(MlirContext ctx, MlirType t) {
  if (mlirTypeIsAInteger(t) || mlirTypeIsAIndex(t))
    return mlirIntegerAttrGet(t, 0);
  if (mlirTypeIsAFloat(t))
    return mlirFloatAttrDoubleGet(ctx, t, 0.0);
  return mlirAttributeGetNull();
}

MlirValue embBuildZeroOf(EmbLowering *l, MlirType t) {
  MlirAttribute value = mlirAttributeGetNull();
  if (mlirTypeIsARankedTensor(t)) {
    MlirAttribute e = scalarZero(l->ctx, mlirShapedTypeGetElementType(t));
    if (!mlirAttributeIsNull(e) && embNumElements(t) >= 0)
      value = mlirDenseElementsAttrSplatGet(t, e);
  } else {
    value = scalarZero(l->ctx, t);
  }
  if (mlirAttributeIsNull(value))
    return (MlirValue){NULL};
  MlirNamedAttribute a = embNamedAttr(l->ctx, "value", value);
  return mlirOperationGetResult(
      embBuildOp(&l->b, "arith.constant", 0, NULL, 1, &t, 1, &a), 0);
}

//===----------------------------------------------------------------------===//
// One assert
//===----------------------------------------------------------------------===//

static void refuse(EmbLowering *l, MlirOperation assertOp, const char *why) {
  embEmitErrorf(mlirOperationGetLocation(assertOp),
                "'cf.assert' op cannot be lowered for the cpu target: %s", why);
  l->failed = true;
}

static void guard(EmbLowering *l, MlirOperation func, MlirOperation assertOp) {
  MlirLocation loc = mlirOperationGetLocation(assertOp);
  MlirBlock block = mlirOperationGetBlock(assertOp);
  MlirRegion region = mlirBlockGetParentRegion(block);
  if (!mlirBlockEqual(mlirRegionGetFirstBlock(region), block) ||
      !mlirBlockIsNull(mlirBlockGetNextInRegion(block))) {
    refuse(l, assertOp,
           "its region has more than one block, so the rest of its block "
           "cannot be skipped");
    return;
  }
  MlirOperation term = mlirBlockGetTerminator(block);
  intptr_t nr =
      mlirOperationIsNull(term) ? 0 : mlirOperationGetNumOperands(term);
  MlirType *types = calloc((size_t)nr + 1, sizeof(MlirType));
  for (intptr_t i = 0; i < nr; ++i)
    types[i] = mlirValueGetType(mlirOperationGetOperand(term, i));

  // The failing path, built first so that a type without a zero is refused
  // before anything moves.
  MlirBlock thenBlock = mlirBlockCreate(0, NULL, NULL);
  MlirBlock elseBlock = mlirBlockCreate(0, NULL, NULL);
  l->b = (EmbBuilder){l->ctx, loc, elseBlock, {NULL}};
  char text[EMB_MAX_MESSAGE];
  formatMessage(func, assertOp, text, sizeof text);
  MlirValue args[3] = {l->ctxArg, embBuildConstI64(&l->b, 0),
                       messageGlobal(l, text)};
  embCallRuntime(l, EMB_RT_ASSERT, 3, args, (MlirType){NULL});
  MlirValue *zeros = calloc((size_t)nr + 1, sizeof(MlirValue));
  for (intptr_t i = 0; i < nr && !l->failed; ++i) {
    zeros[i] = embBuildZeroOf(l, types[i]);
    if (mlirValueIsNull(zeros[i])) {
      char ts[128], why[256];
      embPrintType(types[i], ts, sizeof ts);
      snprintf(why, sizeof why,
               "its block yields %s, which the failing path has no value for",
               ts);
      refuse(l, assertOp, why);
    }
  }
  if (l->failed) {
    mlirBlockDestroy(thenBlock);
    mlirBlockDestroy(elseBlock);
    free(types);
    free(zeros);
    return;
  }
  embBuildOp(&l->b, "scf.yield", nr, zeros, 0, NULL, 0, NULL);

  // The passing path: the rest of the block, then what it yielded.
  MlirValue *yielded = calloc((size_t)nr + 1, sizeof(MlirValue));
  for (intptr_t i = 0; i < nr; ++i)
    yielded[i] = mlirOperationGetOperand(term, i);
  EmbBuilder tb = {l->ctx, loc, thenBlock, {NULL}};
  MlirOperation thenYield =
      embBuildOp(&tb, "scf.yield", nr, yielded, 0, NULL, 0, NULL);
  for (MlirOperation op = mlirOperationGetNextInBlock(assertOp);
       !mlirOperationIsNull(op) && !mlirOperationEqual(op, term);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (embOpIs(op, "linalg.index"))
      mlirOperationMoveBefore(op, assertOp);
    else
      mlirOperationMoveBefore(op, thenYield);
    op = next;
  }

  MlirRegion thenRegion = mlirRegionCreate(), elseRegion = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(thenRegion, thenBlock);
  mlirRegionAppendOwnedBlock(elseRegion, elseBlock);
  MlirRegion regions[2] = {thenRegion, elseRegion};
  MlirOperationState st = mlirOperationStateGet(embStr("scf.if"), loc);
  MlirValue cond = mlirOperationGetOperand(assertOp, 0);
  mlirOperationStateAddOperands(&st, 1, &cond);
  if (nr)
    mlirOperationStateAddResults(&st, nr, types);
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  MlirOperation ifOp = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(block, assertOp, ifOp);
  for (intptr_t i = 0; i < nr; ++i)
    mlirOperationSetOperand(term, i, mlirOperationGetResult(ifOp, i));
  mlirOperationDestroy(assertOp);
  free(types);
  free(zeros);
  free(yielded);
}

//===----------------------------------------------------------------------===//
// Every assert of a function
//===----------------------------------------------------------------------===//

static bool isAssert(MlirOperation op) { return embOpIs(op, "cf.assert"); }

void embGuardAsserts(EmbLowering *l, MlirOperation func) {
  size_t n = 0;
  MlirOperation *asserts = embCollectOps(func, isAssert, &n);
  // In program order: a later assert of the same block is then inside the
  // passing path of the earlier one, and guards the rest of that.
  for (size_t i = 0; i < n && !l->failed; ++i)
    guard(l, func, asserts[i]);
  free(asserts);
}
