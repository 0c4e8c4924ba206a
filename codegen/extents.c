//===- codegen/extents.c - The model's own extents checked ----------------===//
//
// A dynamic dim is a number the caller gives, and MLIR leaves an op whose
// operands disagree on one undefined: a linalg.generic takes each loop's
// extent from the first operand dim its maps give the loop, so an input
// whose dim is shorter is read past its end, and a tensor.concat takes its
// dims from its first input, so a shorter other input leaves part of the
// result unwritten (whatever the allocation held). In a mixed function (cpu
// target) each such op whose extents the lowering cannot prove equal is
// checked before it runs:
//
//   %r = linalg.generic ins(%a, %b : tensor<?xf32>, tensor<?xf32>) ...
// becomes
//   %ok = dim(%b, 0) == dim(%a, 0)            // and so on, every loop
//   %r = scf.if %ok -> (tensor<?xf32>) {
//     %g = linalg.generic ins(%a, %b ...) ...
//     scf.yield %g
//   } else {
//     call @embrtCompiledCheckExtent(%ctx, dim(%b, 0), dim(%a, 0),
//          @"linalg.generic in @f (loc): operand 1's dim 0 (loop 0)")
//     scf.yield %init                           // its outs, not computed
//   }
//
// so the first disagreement becomes the context's error ("linalg.generic
// in @f (m.mlir:4:8): operand 1's dim 0 (loop 0) is 2, but the result's
// shape needs 4"), the op does not run, and the call reports it. Static
// dims that disagree are the verifier's; a loop that only one operand dim
// gives, or a map result that is not a plain dim (d0 + d1, a constant), is
// not compared. The named linalg ops read the same way: by the maps they
// state (indexing_maps), else their implicit ones (matmul, batch_matmul,
// matvec, vecmat; the elementwise ones such as linalg.add: every operand of
// the result's shape); others (transpose, broadcast, reduce) are not
// checked. tensor.concat: every input's dims but the concatenated one
// against input 0's, the failing path yielding an empty result of its
// shape. Runs after the emb ops are
// lowered, so that the GEMM chains they absorb are not wrapped first.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"
#include "linalg_match.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// arith.cmpi's eq predicate.
enum { CMPI_EQ = 0 };

static int namedIndex(MlirOperation op);
static bool isElementwise(MlirOperation op);

static bool isChecked(MlirOperation op) {
  return embOpIs(op, "linalg.generic") || embOpIs(op, "tensor.concat") ||
         namedIndex(op) >= 0 || isElementwise(op);
}

/// One extent to compare: operand `operand`'s dim `dim` against operand
/// `refOperand`'s dim `refDim`.
typedef struct Pair {
  int operand, dim, refOperand, refDim;
  int loop; ///< the loop both give (generic), -1 for concat
} Pair;

/// The extent of dim `d` of `v`: a constant when static, else tensor.dim.
static MlirValue extentOf(EmbLowering *l, MlirValue v, int d) {
  MlirType t = mlirValueGetType(v);
  if (!mlirShapedTypeIsDynamicDim(t, d))
    return embBuildConstIndex(&l->b, mlirShapedTypeGetDimSize(t, d));
  MlirValue ops[2] = {v, embBuildConstIndex(&l->b, d)};
  MlirType it = mlirIndexTypeGet(l->ctx);
  return mlirOperationGetResult(
      embBuildOp(&l->b, "tensor.dim", 2, ops, 1, &it, 0, NULL), 0);
}

static bool isDynamic(MlirValue v, int d) {
  return mlirShapedTypeIsDynamicDim(mlirValueGetType(v), d);
}

/// The named linalg ops whose maps are implicit, with their maps (an op
/// that states `indexing_maps` is read by them instead).
static const struct {
  const char *op, *maps;
} kNamedMaps[] = {
    {"linalg.matmul", "[affine_map<(m, n, k) -> (m, k)>, "
                      "affine_map<(m, n, k) -> (k, n)>, "
                      "affine_map<(m, n, k) -> (m, n)>]"},
    {"linalg.batch_matmul", "[affine_map<(b, m, n, k) -> (b, m, k)>, "
                            "affine_map<(b, m, n, k) -> (b, k, n)>, "
                            "affine_map<(b, m, n, k) -> (b, m, n)>]"},
    {"linalg.matvec", "[affine_map<(m, k) -> (m, k)>, "
                      "affine_map<(m, k) -> (k)>, affine_map<(m, k) -> (m)>]"},
    {"linalg.vecmat",
     "[affine_map<(n, k) -> (k)>, "
     "affine_map<(n, k) -> (k, n)>, affine_map<(n, k) -> (n)>]"},
};

/// The named elementwise ops: every operand of the result's shape.
static const char *const kElementwise[] = {
    "linalg.add",   "linalg.sub",    "linalg.mul",        "linalg.div",
    "linalg.max",   "linalg.min",    "linalg.copy",       "linalg.exp",
    "linalg.log",   "linalg.abs",    "linalg.negf",       "linalg.sqrt",
    "linalg.rsqrt", "linalg.tanh",   "linalg.erf",        "linalg.floor",
    "linalg.ceil",  "linalg.square", "linalg.reciprocal", "linalg.powf"};

static int namedIndex(MlirOperation op) {
  for (size_t i = 0; i < sizeof kNamedMaps / sizeof kNamedMaps[0]; ++i)
    if (embOpIs(op, kNamedMaps[i].op))
      return (int)i;
  return -1;
}

static bool isElementwise(MlirOperation op) {
  for (size_t i = 0; i < sizeof kElementwise / sizeof kElementwise[0]; ++i)
    if (embOpIs(op, kElementwise[i]))
      return true;
  return false;
}

/// Appends the pair (k, j) against the first operand dim of loop `d`,
/// or records (k, j) as that first one.
static int addLoopDim(MlirOperation op, int first[][2], int k, int j, int d,
                      Pair *pairs, int n, int cap) {
  if (first[d][0] < 0) {
    first[d][0] = k;
    first[d][1] = j;
    return n;
  }
  MlirValue v = mlirOperationGetOperand(op, k);
  MlirValue ref = mlirOperationGetOperand(op, first[d][0]);
  if ((isDynamic(v, j) || isDynamic(ref, first[d][1])) && n < cap)
    pairs[n++] = (Pair){k, j, first[d][0], first[d][1], d};
  return n;
}

/// The pairs of a linalg op: per loop, each further operand dim its maps
/// give the loop against the first, where either is dynamic (operands in
/// order, inputs then inits, as the maps). At most `cap`.
static int linalgPairs(EmbLowering *l, MlirOperation op, Pair *pairs, int cap) {
  intptr_t numOperands = mlirOperationGetNumOperands(op);
  int first[EMB_MAX_LOOPS][2];
  for (int d = 0; d < EMB_MAX_LOOPS; ++d)
    first[d][0] = -1;
  int n = 0;
  if (isElementwise(op) && mlirAttributeIsNull(mlirOperationGetAttributeByName(
                               op, embStr("indexing_maps")))) {
    for (intptr_t k = 0; k < numOperands; ++k) {
      MlirType t = mlirValueGetType(mlirOperationGetOperand(op, k));
      if (!mlirTypeIsARankedTensor(t))
        continue;
      for (intptr_t j = 0; j < mlirShapedTypeGetRank(t) && j < EMB_MAX_LOOPS;
           ++j)
        n = addLoopDim(op, first, (int)k, (int)j, (int)j, pairs, n, cap);
    }
    return n;
  }
  MlirAttribute maps =
      mlirOperationGetAttributeByName(op, embStr("indexing_maps"));
  int named = namedIndex(op);
  if (mlirAttributeIsNull(maps) && named >= 0)
    maps = mlirAttributeParseGet(l->ctx, embStr(kNamedMaps[named].maps));
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) ||
      mlirArrayAttrGetNumElements(maps) != numOperands)
    return 0;
  for (intptr_t k = 0; k < numOperands; ++k) {
    MlirType t = mlirValueGetType(mlirOperationGetOperand(op, k));
    MlirAttribute a = mlirArrayAttrGetElement(maps, k);
    if (!mlirTypeIsARankedTensor(t) || !mlirAttributeIsAAffineMap(a))
      continue;
    MlirAffineMap m = mlirAffineMapAttrGetValue(a);
    if (mlirAffineMapGetNumResults(m) != mlirShapedTypeGetRank(t))
      continue;
    for (intptr_t j = 0; j < mlirAffineMapGetNumResults(m); ++j) {
      int64_t d = embMapResult(m, j);
      if (d >= 0 && d < EMB_MAX_LOOPS)
        n = addLoopDim(op, first, (int)k, (int)j, (int)d, pairs, n, cap);
    }
  }
  return n;
}

/// The pairs of a concat: every input's dims but the concatenated one
/// against input 0's, where either is dynamic.
static int concatPairs(MlirOperation op, Pair *pairs, int cap) {
  int64_t axis = 0;
  if (!embGetIntAttr(op, "dim", &axis))
    return 0;
  MlirValue ref = mlirOperationGetOperand(op, 0);
  MlirType rt = mlirValueGetType(ref);
  if (!mlirTypeIsARankedTensor(rt))
    return 0;
  int rank = (int)mlirShapedTypeGetRank(rt), n = 0;
  for (intptr_t k = 1; k < mlirOperationGetNumOperands(op); ++k) {
    MlirValue v = mlirOperationGetOperand(op, k);
    if (!mlirTypeIsARankedTensor(mlirValueGetType(v)) ||
        mlirShapedTypeGetRank(mlirValueGetType(v)) != rank)
      continue;
    for (int d = 0; d < rank; ++d)
      if (d != axis && (isDynamic(v, d) || isDynamic(ref, d)) && n < cap)
        pairs[n++] = (Pair){(int)k, d, 0, d, -1};
  }
  return n;
}

/// "linalg.generic in @f (loc): operand 1's dim 0 (loop 0)".
static void describe(MlirOperation func, MlirOperation op, const Pair *p,
                     char *buf, size_t size) {
  char name[64], fn[256] = "?", where[256];
  embOpName(op, name, sizeof name);
  embGetStringAttr(func, "sym_name", fn, sizeof fn);
  embFormatLocation(mlirOperationGetLocation(op), where, sizeof where);
  if (p->loop >= 0)
    snprintf(buf, size, "%s in @%s (%s): operand %d's dim %d (loop %d)", name,
             fn, where, p->operand, p->dim, p->loop);
  else
    snprintf(buf, size, "%s in @%s (%s): input %d's dim %d", name, fn, where,
             p->operand, p->dim);
}

/// What the failing path yields for the results of `op`: a generic's
/// inits, a concat's empty result of the shape input 0 and the
/// concatenated dim's sum give.
static void fallbackValues(EmbLowering *l, MlirOperation op, MlirValue *out) {
  intptr_t numResults = mlirOperationGetNumResults(op);
  if (!embOpIs(op, "tensor.concat")) { // a linalg op: its inits
    intptr_t numOperands = mlirOperationGetNumOperands(op);
    for (intptr_t i = 0; i < numResults; ++i)
      out[i] = mlirOperationGetOperand(op, numOperands - numResults + i);
    return;
  }
  int64_t axis = 0;
  embGetIntAttr(op, "dim", &axis);
  MlirType rt = mlirValueGetType(mlirOperationGetResult(op, 0));
  int rank = (int)mlirShapedTypeGetRank(rt);
  MlirValue *sizes = calloc((size_t)rank + 1, sizeof(MlirValue));
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    if (!mlirShapedTypeIsDynamicDim(rt, d))
      continue;
    if (d != axis) {
      sizes[n++] = extentOf(l, mlirOperationGetOperand(op, 0), d);
      continue;
    }
    MlirValue sum = {NULL};
    for (intptr_t k = 0; k < mlirOperationGetNumOperands(op); ++k) {
      MlirValue e = extentOf(l, mlirOperationGetOperand(op, k), d);
      sum = mlirValueIsNull(sum) ? e
                                 : embBuildBinary(&l->b, "arith.addi", sum, e);
    }
    sizes[n++] = sum;
  }
  out[0] = mlirOperationGetResult(
      embBuildOp(&l->b, "tensor.empty", n, sizes, 1, &rt, 0, NULL), 0);
  free(sizes);
}

/// The most pairs one op is checked on.
enum { kMaxPairs = 64 };

static void guard(EmbLowering *l, MlirOperation func, MlirOperation op) {
  Pair pairs[kMaxPairs];
  int n = embOpIs(op, "tensor.concat") ? concatPairs(op, pairs, kMaxPairs)
                                       : linalgPairs(l, op, pairs, kMaxPairs);
  intptr_t numResults = mlirOperationGetNumResults(op);
  if (n == 0 || numResults == 0)
    return;
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirBlock block = mlirOperationGetBlock(op);

  // The extents and the condition, before the op.
  l->b = (EmbBuilder){l->ctx, loc, block, op};
  MlirValue got[kMaxPairs], want[kMaxPairs], ok = {NULL};
  for (int i = 0; i < n; ++i) {
    got[i] = extentOf(l, mlirOperationGetOperand(op, pairs[i].operand),
                      pairs[i].dim);
    want[i] = extentOf(l, mlirOperationGetOperand(op, pairs[i].refOperand),
                       pairs[i].refDim);
    MlirValue eq = embBuildCmpI(&l->b, CMPI_EQ, got[i], want[i]);
    ok = mlirValueIsNull(ok) ? eq : embBuildBinary(&l->b, "arith.andi", ok, eq);
  }

  // The failing path: the first disagreement becomes the context's error
  // (the runtime keeps the first), the results are not computed.
  MlirBlock elseBlock = mlirBlockCreate(0, NULL, NULL);
  l->b = (EmbBuilder){l->ctx, loc, elseBlock, {NULL}};
  for (int i = 0; i < n; ++i) {
    char what[EMB_MAX_MESSAGE];
    describe(func, op, &pairs[i], what, sizeof what);
    size_t len = strlen(what) + 1;
    MlirValue args[4] = {
        l->ctxArg, embBuildIndexToI64(&l->b, got[i]),
        embBuildIndexToI64(&l->b, want[i]),
        embBuildConstantGlobal(
            l, "__emb_extent_",
            mlirStringAttrGet(l->ctx, (MlirStringRef){what, len}), (int64_t)len,
            0)};
    embCallRuntime(l, EMB_RT_CHECK_EXTENT, 4, args, embI64Type(l->ctx));
  }
  MlirValue *fallback = calloc((size_t)numResults, sizeof(MlirValue));
  fallbackValues(l, op, fallback);
  embBuildOp(&l->b, "scf.yield", numResults, fallback, 0, NULL, 0, NULL);
  free(fallback);

  // The passing path: the op itself.
  embMoveIntoIf(l->ctx, op, ok, elseBlock);
}

void embGuardExtents(EmbLowering *l, MlirOperation func) {
  size_t n = 0;
  MlirOperation *ops = embCollectOps(func, isChecked, &n);
  for (size_t i = 0; i < n && !l->failed; ++i)
    guard(l, func, ops[i]);
  free(ops);
}
