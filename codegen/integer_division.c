//===- codegen/integer_division.c - The model's integer divisions guarded -===//
//
// MLIR leaves an integer division or remainder by zero undefined, and also
// the signed one of the smallest value by -1; on x86 both trap (SIGFPE) and
// take the process down. A model gets what PyTorch gives on the CPU: a
// division by zero is an error (PyTorch raises ZeroDivisionError), and the
// smallest value divided by -1 wraps to itself (its remainder is 0). In a
// mixed function (cpu target) each arith.divsi, divui, remsi, remui,
// ceildivsi, ceildivui and floordivsi whose divisor is not a constant known
// to be safe divides by a safe divisor instead:
//
//   %q = arith.divsi %a, %b : i64
// becomes
//   %zero = arith.cmpi eq, %b, 0
//   scf.if %zero {
//     call @embrtCompiledAssert(%ctx, 0, @"arith.divsi in @f (loc): division
//                                          by zero")
//   }
//   %wraps = (%a == INT64_MIN) and (%b == -1)          // signed ops only
//   %safe = arith.select (%zero or %wraps), 1, %b
//   %q = arith.divsi %a, %safe : i64
//
// so a zero divisor becomes the context's error (sticky: the first one is
// reported, "arith.divsi in @f (m.mlir:4:8): division by zero") and yields
// the dividend, and INT_MIN / -1 is INT_MIN / 1: INT_MIN, remainder 0, for
// the floor and ceiling forms too. A division on tensors (elementwise) is
// made a linalg.generic of the scalar division first, as
// convert-elementwise-to-linalg would later, so that each element is
// checked. A divisor that is a constant (a scalar or a splat tensor) other
// than 0 costs nothing, and other than -1 no wrap check. Divisions the
// lowering builds itself (sizes) are not the model's and are left alone:
// this runs before the emb ops are lowered. The GPU kernels the cuda target
// generates do not check their divisions: a GPU does not trap on one, and
// its result is undefined (docs/reliability.md).
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// arith.cmpi's predicates used here.
enum { CMPI_EQ = 0 };

static const char *const signedOps[] = {"arith.divsi", "arith.remsi",
                                        "arith.ceildivsi", "arith.floordivsi"};
static const char *const unsignedOps[] = {"arith.divui", "arith.remui",
                                          "arith.ceildivui"};

static bool isSigned(MlirOperation op) {
  for (size_t i = 0; i < sizeof signedOps / sizeof signedOps[0]; ++i)
    if (embOpIs(op, signedOps[i]))
      return true;
  return false;
}

static bool isIntegerOrIndex(MlirType t) {
  return mlirTypeIsAInteger(t) || mlirTypeIsAIndex(t);
}

/// The width of an integer or index type (index: 64, as the CPU lowers it).
static unsigned widthOf(MlirType t) {
  return mlirTypeIsAIndex(t) ? 64 : mlirIntegerTypeGetWidth(t);
}

/// A division of the model on integers: scalars, or ranked tensors of them.
static bool isDivision(MlirOperation op) {
  bool named = isSigned(op);
  for (size_t i = 0; !named && i < sizeof unsignedOps / sizeof unsignedOps[0];
       ++i)
    named = embOpIs(op, unsignedOps[i]);
  if (!named || mlirOperationGetNumResults(op) != 1)
    return false;
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (mlirTypeIsARankedTensor(t))
    t = mlirShapedTypeGetElementType(t);
  return isIntegerOrIndex(t);
}

static MlirValue result0(MlirOperation op) {
  return mlirOperationGetResult(op, 0);
}

/// The value of a divisor that is an arith.constant (a scalar or a splat
/// tensor) of at most 64 bits; false if it is not one.
static bool knownDivisor(MlirValue v, int64_t *value) {
  if (!mlirValueIsAOpResult(v) ||
      !embOpIs(mlirOpResultGetOwner(v), "arith.constant"))
    return false;
  MlirType t = mlirValueGetType(v);
  if (mlirTypeIsARankedTensor(t))
    t = mlirShapedTypeGetElementType(t);
  if (!isIntegerOrIndex(t) || widthOf(t) > 64)
    return false;
  MlirAttribute a =
      mlirOperationGetAttributeByName(mlirOpResultGetOwner(v), embStr("value"));
  if (mlirAttributeIsADenseElements(a) && mlirDenseElementsAttrIsSplat(a))
    a = mlirDenseElementsAttrGetSplatValue(a);
  if (!mlirAttributeIsAInteger(a))
    return false;
  *value = mlirIntegerAttrGetValueInt(a);
  return true;
}

/// An arith.constant `digits` of integer or index type `t` at the builder's
/// point (parsed, so that any width takes its value as written).
static MlirValue constantOf(EmbBuilder *b, MlirType t, const char *digits) {
  char ts[64], text[128];
  embPrintType(t, ts, sizeof ts);
  snprintf(text, sizeof text, "%s : %s", digits, ts);
  MlirNamedAttribute value = embNamedAttr(
      b->ctx, "value", mlirAttributeParseGet(b->ctx, embStr(text)));
  return result0(embBuildOp(b, "arith.constant", 0, NULL, 1, &t, 1, &value));
}

/// "arith.divsi in @f (loc): division by zero", the runtime's message.
static void describe(MlirOperation func, MlirOperation op, char *buf,
                     size_t size) {
  char name[64], fn[256] = "?", where[256];
  embOpName(op, name, sizeof name);
  embGetStringAttr(func, "sym_name", fn, sizeof fn);
  embFormatLocation(mlirOperationGetLocation(op), where, sizeof where);
  snprintf(buf, size, "%s in @%s (%s): division by zero", name, fn, where);
}

/// Makes tensor division `op` a linalg.generic whose body is the same
/// division on scalars (its operands and result have one type, as for every
/// elementwise op); returns the scalar division.
static MlirOperation toGeneric(EmbLowering *l, MlirOperation op) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue x = mlirOperationGetOperand(op, 0);
  MlirType tt = mlirValueGetType(result0(op));
  MlirType e = mlirShapedTypeGetElementType(tt);
  intptr_t rank = mlirShapedTypeGetRank(tt);
  l->b = (EmbBuilder){l->ctx, loc, mlirOperationGetBlock(op), op};

  // The result's tensor, sized as the dividend.
  MlirValue *sizes = calloc((size_t)rank + 1, sizeof(MlirValue));
  intptr_t nd = 0;
  for (intptr_t d = 0; d < rank; ++d) {
    if (!mlirShapedTypeIsDynamicDim(tt, d))
      continue;
    MlirValue ops[2] = {x, embBuildConstIndex(&l->b, d)};
    MlirType it = mlirIndexTypeGet(l->ctx);
    sizes[nd++] =
        result0(embBuildOp(&l->b, "tensor.dim", 2, ops, 1, &it, 0, NULL));
  }
  MlirValue init =
      result0(embBuildOp(&l->b, "tensor.empty", nd, sizes, 1, &tt, 0, NULL));
  free(sizes);

  // Identity maps and parallel loops, as text.
  size_t cap = 64 * ((size_t)rank + 1);
  char *dims = calloc(cap, 1), *iters = calloc(cap, 1);
  char *map = calloc(3 * cap, 1), *maps = calloc(10 * cap, 1);
  strcpy(iters, "[");
  for (intptr_t d = 0; d < rank; ++d) {
    size_t n = strlen(dims);
    snprintf(dims + n, cap - n, "%sd%d", d ? ", " : "", (int)d);
    n = strlen(iters);
    snprintf(iters + n, cap - n, "%s#linalg.iterator_type<parallel>",
             d ? ", " : "");
  }
  strcat(iters, "]");
  snprintf(map, 3 * cap, "affine_map<(%s) -> (%s)>", dims, dims);
  snprintf(maps, 10 * cap, "[%s, %s, %s]", map, map, map);
  int32_t segments[2] = {2, 1}; // ins, outs
  MlirNamedAttribute attrs[3] = {
      embNamedAttr(l->ctx, "indexing_maps",
                   mlirAttributeParseGet(l->ctx, embStr(maps))),
      embNamedAttr(l->ctx, "iterator_types",
                   mlirAttributeParseGet(l->ctx, embStr(iters))),
      embNamedAttr(l->ctx, "operandSegmentSizes",
                   mlirDenseI32ArrayGet(l->ctx, 2, segments))};
  free(dims);
  free(iters);
  free(map);
  free(maps);

  // The body: the division of the elements, with the op's own attributes.
  MlirType argTypes[3] = {e, e, e};
  MlirLocation argLocs[3] = {loc, loc, loc};
  MlirBlock body = mlirBlockCreate(3, argTypes, argLocs);
  intptr_t na = mlirOperationGetNumAttributes(op);
  MlirNamedAttribute *own = calloc((size_t)na + 1, sizeof(MlirNamedAttribute));
  for (intptr_t i = 0; i < na; ++i)
    own[i] = mlirOperationGetAttribute(op, i);
  char name[64];
  embOpName(op, name, sizeof name);
  EmbBuilder bb = {l->ctx, loc, body, {NULL}};
  MlirValue args[2] = {mlirBlockGetArgument(body, 0),
                       mlirBlockGetArgument(body, 1)};
  MlirOperation scalar = embBuildOp(&bb, name, 2, args, 1, &e, na, own);
  free(own);
  MlirValue q = result0(scalar);
  embBuildOp(&bb, "linalg.yield", 1, &q, 0, NULL, 0, NULL);

  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirValue operands[3] = {x, mlirOperationGetOperand(op, 1), init};
  MlirOperationState st = mlirOperationStateGet(embStr("linalg.generic"), loc);
  mlirOperationStateAddOperands(&st, 3, operands);
  mlirOperationStateAddResults(&st, 1, &tt);
  mlirOperationStateAddAttributes(&st, 3, attrs);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation generic = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, generic);
  mlirValueReplaceAllUsesOfWith(result0(op), result0(generic));
  mlirOperationDestroy(op);
  return scalar;
}

/// Guards scalar division `op` (see the file's comment), whose divisor is
/// `c` if `known` (read before a tensor division became scalar).
static void guard(EmbLowering *l, MlirOperation func, MlirOperation op,
                  bool known, int64_t c) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue x = mlirOperationGetOperand(op, 0);
  MlirValue y = mlirOperationGetOperand(op, 1);
  MlirType t = mlirValueGetType(y);
  unsigned width = widthOf(t);
  l->b = (EmbBuilder){l->ctx, loc, mlirOperationGetBlock(op), op};
  MlirValue one = constantOf(&l->b, t, "1"), bad = {NULL};

  if (!known || c == 0) {
    bad = embBuildCmpI(&l->b, CMPI_EQ, y, constantOf(&l->b, t, "0"));
    // The failing path: the context's error.
    MlirBlock thenBlock = mlirBlockCreate(0, NULL, NULL);
    EmbBuilder outer = l->b;
    l->b = (EmbBuilder){l->ctx, loc, thenBlock, {NULL}};
    char what[EMB_MAX_MESSAGE];
    describe(func, op, what, sizeof what);
    size_t len = strlen(what) + 1;
    MlirValue args[3] = {
        l->ctxArg, embBuildConstI64(&l->b, 0),
        embBuildConstantGlobal(
            l, "__emb_division_",
            mlirStringAttrGet(l->ctx, (MlirStringRef){what, len}), (int64_t)len,
            0)};
    embCallRuntime(l, EMB_RT_ASSERT, 3, args, (MlirType){NULL});
    embBuildOp(&l->b, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
    l->b = outer;
    MlirRegion thenRegion = mlirRegionCreate(), elseRegion = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(thenRegion, thenBlock);
    MlirRegion regions[2] = {thenRegion, elseRegion};
    MlirOperationState st = mlirOperationStateGet(embStr("scf.if"), loc);
    mlirOperationStateAddOperands(&st, 1, &bad);
    mlirOperationStateAddOwnedRegions(&st, 2, regions);
    embBuilderInsert(&l->b, mlirOperationCreate(&st));
  }

  // INT_MIN / -1, which wraps: divided by 1 instead.
  if (isSigned(op) && width > 1 && width <= 64 && (!known || c == -1)) {
    char min[32];
    snprintf(min, sizeof min, "-%llu", 1ull << (width - 1));
    MlirValue wraps = embBuildBinary(
        &l->b, "arith.andi",
        embBuildCmpI(&l->b, CMPI_EQ, x, constantOf(&l->b, t, min)),
        embBuildCmpI(&l->b, CMPI_EQ, y, constantOf(&l->b, t, "-1")));
    bad = mlirValueIsNull(bad) ? wraps
                               : embBuildBinary(&l->b, "arith.ori", bad, wraps);
  }
  if (mlirValueIsNull(bad))
    return;
  MlirValue ops[3] = {bad, one, y};
  MlirValue safe =
      result0(embBuildOp(&l->b, "arith.select", 3, ops, 1, &t, 0, NULL));
  mlirOperationSetOperand(op, 1, safe);
}

void embGuardIntegerDivisions(EmbLowering *l, MlirOperation func) {
  size_t n = 0;
  MlirOperation *ops = embCollectOps(func, isDivision, &n);
  for (size_t i = 0; i < n && !l->failed; ++i) {
    MlirOperation op = ops[i];
    int64_t c = 0;
    bool known = knownDivisor(mlirOperationGetOperand(op, 1), &c);
    if (known && c != 0 && !(isSigned(op) && c == -1))
      continue; // cannot trap
    if (mlirTypeIsARankedTensor(mlirValueGetType(result0(op))))
      op = toGeneric(l, op);
    guard(l, func, op, known, c);
  }
  free(ops);
}
