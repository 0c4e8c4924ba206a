//===- passes/linalg_match.c - Reading and building linalg-on-tensors -----===//
//
// The matchers and builders of linalg_match.h. Every matcher checks what an
// op computes: a copy is a generic whose body yields its input unchanged, a
// transpose one whose input map is a permutation, a zero fill a fill of the
// value zero however it is made.
//
//===----------------------------------------------------------------------===//

#include "linalg_match.h"

#include "rewrite.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Attribute `name` of `op`, inherent (a property) or discardable.
static MlirAttribute attrOf(MlirOperation op, const char *name) {
  MlirAttribute a = mlirOperationGetInherentAttributeByName(op, embStr(name));
  if (mlirAttributeIsNull(a))
    a = mlirOperationGetDiscardableAttributeByName(op, embStr(name));
  return a;
}

//===----------------------------------------------------------------------===//
// linalg.generic
//===----------------------------------------------------------------------===//

/// 'p' or 'r' for an iterator type attribute, 0 for anything else. The C
/// API has no accessor for linalg's enum attributes: read the printed form.
static char iteratorKind(MlirAttribute a) {
  char text[64];
  embPrintAttribute(a, text, sizeof text);
  if (strstr(text, "parallel"))
    return 'p';
  if (strstr(text, "reduction"))
    return 'r';
  return 0;
}

bool embReadGeneric(MlirOperation op, EmbGeneric *g) {
  if (mlirOperationIsNull(op) || !embOpIs(op, "linalg.generic"))
    return false;
  memset(g, 0, sizeof *g);
  g->op = op;
  MlirAttribute seg = attrOf(op, "operandSegmentSizes");
  MlirAttribute its = attrOf(op, "iterator_types");
  MlirAttribute maps = attrOf(op, "indexing_maps");
  if (mlirAttributeIsNull(seg) || mlirAttributeIsNull(its) ||
      mlirAttributeIsNull(maps) || mlirDenseArrayGetNumElements(seg) != 2)
    return false;
  g->numInputs = mlirDenseI32ArrayGetElement(seg, 0);
  g->numInits = mlirDenseI32ArrayGetElement(seg, 1);
  g->numLoops = mlirArrayAttrGetNumElements(its);
  if (g->numLoops > EMB_MAX_LOOPS ||
      mlirArrayAttrGetNumElements(maps) != g->numInputs + g->numInits)
    return false;
  for (intptr_t i = 0; i < g->numLoops; ++i)
    if (!(g->iterators[i] = iteratorKind(mlirArrayAttrGetElement(its, i))))
      return false;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (!mlirTypeIsARankedTensor(
            mlirValueGetType(mlirOperationGetOperand(op, i))))
      return false;
  g->body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(g->body))
    return false;
  g->yield = mlirBlockGetTerminator(g->body);
  return !mlirOperationIsNull(g->yield) && embOpIs(g->yield, "linalg.yield");
}

bool embReadGenericOf(MlirValue v, EmbGeneric *g) {
  return embReadGeneric(embProducer(embSkipCasts(v)), g);
}

MlirValue embGenericOperand(const EmbGeneric *g, intptr_t i) {
  return mlirOperationGetOperand(g->op, i);
}

static MlirAffineMap rawMap(const EmbGeneric *g, intptr_t i) {
  return mlirAffineMapAttrGetValue(
      mlirArrayAttrGetElement(attrOf(g->op, "indexing_maps"), i));
}

/// The static extent of every loop of `g` that some operand reads at a
/// plain dim of static size; -1 for the others.
static void loopExtents(const EmbGeneric *g, int64_t *extent) {
  for (intptr_t k = 0; k < g->numLoops; ++k)
    extent[k] = -1;
  for (intptr_t j = 0, n = g->numInputs + g->numInits; j < n; ++j) {
    MlirAffineMap m = rawMap(g, j);
    MlirType t = mlirValueGetType(embGenericOperand(g, j));
    for (intptr_t r = 0, nr = mlirAffineMapGetNumResults(m); r < nr; ++r) {
      int64_t loop = embMapResult(m, r);
      int64_t size = embDim(t, r);
      if (loop >= 0 && loop < g->numLoops && size >= 0)
        extent[loop] = size;
    }
  }
}

/// torch-mlir reads every operand dim of static size 1 at the constant 0
/// (createElementwiseLinalgGeneric), also where the loop itself runs once:
/// a [B, 1] input of [B, 1] loops is read at (d0, 0), not the identity. Over
/// a loop of extent 1 the two are the same map, so such a 0 is read as the
/// loop right-aligned with its dim (the loop broadcasting aligns it with)
/// when that loop has static extent 1 and the map reads it nowhere else:
/// the matchers then see the identity (or the bias map) they look for,
/// and a real broadcast (a 0 over a longer loop) stays a 0.
MlirAffineMap embGenericMap(const EmbGeneric *g, intptr_t i) {
  MlirAffineMap m = rawMap(g, i);
  intptr_t n = mlirAffineMapGetNumResults(m);
  intptr_t loops = mlirAffineMapGetNumDims(m);
  if (n > EMB_MAX_LOOPS || loops != g->numLoops || n > loops ||
      mlirAffineMapGetNumSymbols(m) != 0)
    return m;
  int64_t extent[EMB_MAX_LOOPS];
  bool read[EMB_MAX_LOOPS] = {false}, changed = false;
  loopExtents(g, extent);
  for (intptr_t r = 0; r < n; ++r) {
    int64_t loop = embMapResult(m, r);
    if (loop >= 0 && loop < loops)
      read[loop] = true;
  }
  MlirContext ctx = mlirAffineMapGetContext(m);
  MlirAffineExpr exprs[EMB_MAX_LOOPS];
  for (intptr_t r = 0; r < n; ++r) {
    exprs[r] = mlirAffineMapGetResult(m, r);
    intptr_t aligned = loops - n + r;
    if (embMapResult(m, r) == EMB_MAP_ZERO && extent[aligned] == 1 &&
        !read[aligned]) {
      exprs[r] = mlirAffineDimExprGet(ctx, aligned);
      read[aligned] = changed = true;
    }
  }
  return changed ? mlirAffineMapGet(ctx, loops, 0, n, exprs) : m;
}

MlirValue embGenericYielded(const EmbGeneric *g, intptr_t i) {
  return mlirOperationGetOperand(g->yield, i);
}

intptr_t embGenericArgOperand(const EmbGeneric *g, MlirValue v) {
  if (!mlirValueIsABlockArgument(v) ||
      !mlirBlockEqual(mlirBlockArgumentGetOwner(v), g->body))
    return -1;
  return mlirBlockArgumentGetArgNumber(v);
}

bool embGenericAllParallel(const EmbGeneric *g) {
  for (intptr_t i = 0; i < g->numLoops; ++i)
    if (g->iterators[i] != 'p')
      return false;
  return true;
}

bool embDefinedAbove(const EmbGeneric *g, MlirValue v) {
  MlirBlock owner = mlirValueIsABlockArgument(v)
                        ? mlirBlockArgumentGetOwner(v)
                        : mlirOperationGetBlock(mlirOpResultGetOwner(v));
  // Defined above if no block between its block and the function is the
  // generic's body.
  for (MlirBlock b = owner; !mlirBlockIsNull(b);) {
    if (mlirBlockEqual(b, g->body))
      return false;
    MlirOperation parent = mlirBlockGetParentOperation(b);
    if (mlirOperationIsNull(parent))
      break;
    b = mlirOperationGetBlock(parent);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Affine maps
//===----------------------------------------------------------------------===//

int64_t embMapResult(MlirAffineMap m, intptr_t i) {
  MlirAffineExpr e = mlirAffineMapGetResult(m, i);
  if (mlirAffineExprIsADim(e))
    return mlirAffineDimExprGetPosition(e);
  if (mlirAffineExprIsAConstant(e) && mlirAffineConstantExprGetValue(e) == 0)
    return EMB_MAP_ZERO;
  return EMB_MAP_OTHER;
}

bool embMapIs(MlirAffineMap m, intptr_t n, const int64_t *dims) {
  if (mlirAffineMapGetNumResults(m) != n || mlirAffineMapGetNumSymbols(m) != 0)
    return false;
  for (intptr_t i = 0; i < n; ++i)
    if (embMapResult(m, i) != dims[i])
      return false;
  return true;
}

bool embMapIsIdentityOf(MlirAffineMap m, intptr_t n) {
  return mlirAffineMapGetNumDims(m) == n && mlirAffineMapIsIdentity(m);
}

//===----------------------------------------------------------------------===//
// Scalars in a body
//===----------------------------------------------------------------------===//

MlirOperation embProducer(MlirValue v) {
  if (mlirValueIsNull(v) || !mlirValueIsAOpResult(v))
    return (MlirOperation){NULL};
  return mlirOpResultGetOwner(v);
}

bool embMadeBy(MlirValue v, const char *name, MlirOperation *op) {
  MlirOperation def = embProducer(v);
  if (mlirOperationIsNull(def) || !embOpIs(def, name))
    return false;
  if (op)
    *op = def;
  return true;
}

bool embConstInt(MlirValue v, int64_t *value) {
  MlirOperation c;
  if (!embMadeBy(v, "arith.constant", &c))
    return false;
  MlirAttribute a = attrOf(c, "value");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return false;
  *value = mlirIntegerAttrGetValueInt(a);
  return true;
}

bool embConstFloat(MlirValue v, double *value) {
  MlirOperation c;
  if (!embMadeBy(v, "arith.constant", &c))
    return false;
  MlirAttribute a = attrOf(c, "value");
  if (!mlirAttributeIsNull(a) && mlirAttributeIsADenseElements(a) &&
      mlirDenseElementsAttrIsSplat(a))
    a = mlirDenseElementsAttrGetSplatValue(a);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAFloat(a))
    return false;
  *value = mlirFloatAttrGetValueDouble(a);
  return true;
}

bool embConstFloatIn(const EmbGeneric *g, MlirValue v, double *value) {
  intptr_t arg = embGenericArgOperand(g, v);
  if (arg >= 0)
    return arg < g->numInputs &&
           embConstFloat(embGenericOperand(g, arg), value);
  return embConstFloat(v, value);
}

bool embIsLoopIndex(MlirValue v, int64_t dim) {
  MlirOperation op;
  int64_t d;
  return embMadeBy(v, "linalg.index", &op) && embGetIntAttr(op, "dim", &d) &&
         d == dim;
}

MlirValue embStripIntCasts(MlirValue v) {
  MlirOperation op;
  while (embMadeBy(v, "arith.index_cast", &op) ||
         embMadeBy(v, "arith.extsi", &op) || embMadeBy(v, "arith.extui", &op))
    v = mlirOperationGetOperand(op, 0);
  return v;
}

bool embIsDimSize(MlirValue v, MlirValue t, int64_t dim) {
  v = embStripIntCasts(v);
  int64_t n = embDim(mlirValueGetType(t), dim), c, d;
  MlirOperation op;
  if (embConstInt(v, &c))
    return n >= 0 && c == n;
  return embMadeBy(v, "tensor.dim", &op) &&
         mlirValueEqual(mlirOperationGetOperand(op, 0), t) &&
         embConstInt(mlirOperationGetOperand(op, 1), &d) && d == dim;
}

bool embReadCmpI(MlirValue v, int *pred, MlirValue *lhs, MlirValue *rhs) {
  MlirOperation op;
  int64_t p;
  if (!embMadeBy(v, "arith.cmpi", &op) || !embGetIntAttr(op, "predicate", &p))
    return false;
  MlirValue a = mlirOperationGetOperand(op, 0);
  MlirValue b = mlirOperationGetOperand(op, 1);
  switch (p) {
  case EMB_CMPI_EQ:
  case EMB_CMPI_NE:
  case EMB_CMPI_SLT:
  case EMB_CMPI_SLE:
    *pred = (int)p;
    *lhs = a;
    *rhs = b;
    return true;
  case EMB_CMPI_SGT: // a > b is b < a
    *pred = EMB_CMPI_SLT;
    *lhs = b;
    *rhs = a;
    return true;
  case EMB_CMPI_SGE:
    *pred = EMB_CMPI_SLE;
    *lhs = b;
    *rhs = a;
    return true;
  }
  return false;
}

bool embReadBinary(MlirValue v, const char *name, MlirValue *a, MlirValue *b) {
  MlirOperation op;
  if (!embMadeBy(v, name, &op) || mlirOperationGetNumOperands(op) != 2)
    return false;
  *a = mlirOperationGetOperand(op, 0);
  *b = mlirOperationGetOperand(op, 1);
  return true;
}

//===----------------------------------------------------------------------===//
// Tensor producers
//===----------------------------------------------------------------------===//

MlirValue embSkipCasts(MlirValue v) {
  MlirOperation op;
  while (embMadeBy(v, "tensor.cast", &op))
    v = mlirOperationGetOperand(op, 0);
  return v;
}

bool embIsFilledWith(MlirValue v, double *value) {
  v = embSkipCasts(v);
  MlirOperation op;
  if (embMadeBy(v, "linalg.fill", &op))
    return embConstFloat(mlirOperationGetOperand(op, 0), value);
  return embConstFloat(v, value);
}

bool embIsZeroTensor(MlirValue v) {
  double value;
  if (embIsFilledWith(v, &value))
    return value == 0.0;
  // An integer zero (an index count's accumulator).
  MlirOperation op;
  int64_t i;
  return embMadeBy(embSkipCasts(v), "linalg.fill", &op) &&
         embConstInt(mlirOperationGetOperand(op, 0), &i) && i == 0;
}

bool embReadCopy(MlirValue v, MlirValue *src, MlirAffineMap *map) {
  EmbGeneric g;
  if (!embReadGenericOf(v, &g) || g.numInputs != 1 || g.numInits != 1 ||
      !embGenericAllParallel(&g) ||
      !embMapIsIdentityOf(embGenericMap(&g, 1), g.numLoops) ||
      embGenericArgOperand(&g, embGenericYielded(&g, 0)) != 0)
    return false;
  *src = embGenericOperand(&g, 0);
  *map = embGenericMap(&g, 0);
  return true;
}

bool embReadTranspose(MlirValue v, MlirValue *src, int64_t *perm) {
  v = embSkipCasts(v);
  MlirOperation op;
  if (embMadeBy(v, "linalg.transpose", &op)) {
    MlirAttribute p = attrOf(op, "permutation");
    intptr_t n = mlirDenseArrayGetNumElements(p);
    if (n > EMB_MAX_LOOPS)
      return false;
    for (intptr_t i = 0; i < n; ++i)
      perm[i] = mlirDenseI64ArrayGetElement(p, i);
    *src = mlirOperationGetOperand(op, 0);
    return true;
  }
  // A copy generic reading its input at a permutation of the loops: loop i
  // is result dim i, and input dim j is read at loop map[j], so result dim
  // map[j] is input dim j.
  MlirAffineMap map;
  if (!embReadCopy(v, src, &map) || !mlirAffineMapIsPermutation(map))
    return false;
  intptr_t n = mlirAffineMapGetNumResults(map);
  for (intptr_t j = 0; j < n; ++j)
    perm[embMapResult(map, j)] = j;
  return true;
}

bool embReadUnaryElementwise(MlirValue v, const char *name, MlirValue *src) {
  EmbGeneric g;
  MlirOperation op;
  if (!embReadGenericOf(v, &g) || g.numInputs != 1 || g.numInits != 1 ||
      !embGenericAllParallel(&g) ||
      !embMapIsIdentityOf(embGenericMap(&g, 0), g.numLoops) ||
      !embMapIsIdentityOf(embGenericMap(&g, 1), g.numLoops) ||
      !embMadeBy(embGenericYielded(&g, 0), name, &op) ||
      embGenericArgOperand(&g, mlirOperationGetOperand(op, 0)) != 0)
    return false;
  *src = embGenericOperand(&g, 0);
  return true;
}

bool embReadReshape(MlirValue v, const char *name, intptr_t n,
                    const int64_t (*groups)[EMB_MAX_LOOPS], MlirValue *src) {
  MlirOperation op;
  if (!embMadeBy(embSkipCasts(v), name, &op))
    return false;
  MlirAttribute r = attrOf(op, "reassociation");
  if (mlirAttributeIsNull(r) || mlirArrayAttrGetNumElements(r) != n)
    return false;
  for (intptr_t i = 0; i < n; ++i) {
    MlirAttribute g = mlirArrayAttrGetElement(r, i);
    intptr_t len = mlirArrayAttrGetNumElements(g), j = 0;
    for (; j < len; ++j)
      if (groups[i][j] !=
          mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(g, j)))
        return false;
    if (j < EMB_MAX_LOOPS && groups[i][j] != -1)
      return false;
  }
  *src = mlirOperationGetOperand(op, 0);
  return true;
}

bool embSingleUser(MlirValue v, MlirOperation *user) {
  MlirOpOperand use = mlirValueGetFirstUse(v);
  if (mlirOpOperandIsNull(use) ||
      !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)))
    return false;
  *user = mlirOpOperandGetOwner(use);
  return true;
}

bool embIsConstantTensor(MlirValue v) {
  v = embSkipCasts(v);
  return embMadeBy(v, "arith.constant", NULL);
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

MlirValue embCreateEmptyLike(MlirOperation before, MlirLocation loc,
                             MlirType type, MlirValue like,
                             const int64_t *dimsOf) {
  MlirValue sizes[EMB_MAX_LOOPS];
  intptr_t n = 0;
  for (intptr_t i = 0, rank = mlirShapedTypeGetRank(type); i < rank; ++i)
    if (embDim(type, i) < 0)
      sizes[n++] = embCreateDim(before, loc, like, dimsOf[i]);
  return mlirOperationGetResult(
      embCreateOp(before, loc, "tensor.empty", n, sizes, type, 0, NULL), 0);
}

/// Creates a one-block region whose block has arguments of `types` and is
/// ended by `linalg.yield` of argument `yieldArg`.
static MlirRegion yieldRegion(MlirLocation loc, intptr_t n,
                              const MlirType *types, intptr_t yieldArg) {
  MlirLocation locs[EMB_MAX_LOOPS];
  for (intptr_t i = 0; i < n; ++i)
    locs[i] = loc;
  MlirBlock block = mlirBlockCreate(n, types, locs);
  MlirValue arg = mlirBlockGetArgument(block, yieldArg);
  MlirOperationState s = mlirOperationStateGet(embStr("linalg.yield"), loc);
  mlirOperationStateAddOperands(&s, 1, &arg);
  mlirBlockAppendOwnedOperation(block, mlirOperationCreate(&s));
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, block);
  return region;
}

MlirValue embCreateTranspose(MlirOperation before, MlirLocation loc,
                             MlirValue src, const int64_t *perm) {
  MlirType t = mlirValueGetType(src);
  intptr_t rank = mlirShapedTypeGetRank(t);
  bool identity = true;
  for (intptr_t i = 0; i < rank; ++i)
    identity &= perm[i] == i;
  if (identity)
    return src;
  MlirOperation b = embDefiningOp(src, EMB_OP_BROADCAST);
  if (!mlirOperationIsNull(b) && perm[0] == 0) {
    MlirValue user =
        embCreateTranspose(before, loc, mlirOperationGetOperand(b, 0), perm);
    int64_t shape[EMB_MAX_LOOPS];
    for (intptr_t i = 0; i < rank; ++i)
      shape[i] = embDim(t, perm[i]);
    return embCreateBroadcast(
        before, loc, user, mlirOperationGetOperand(b, 1),
        embTensorType(rank, shape, mlirShapedTypeGetElementType(t)));
  }
  int64_t shape[EMB_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    shape[i] = embDim(t, perm[i]);
  MlirType element = mlirShapedTypeGetElementType(t);
  MlirType result = embTensorType(rank, shape, element);
  MlirValue init = embCreateEmptyLike(before, loc, result, src, perm);
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType args[] = {element, element};
  MlirRegion body = yieldRegion(loc, 2, args, 0);
  MlirOperationState s = mlirOperationStateGet(embStr("linalg.transpose"), loc);
  MlirValue operands[] = {src, init};
  mlirOperationStateAddOperands(&s, 2, operands);
  mlirOperationStateAddResults(&s, 1, &result);
  MlirNamedAttribute attr =
      embNamedAttr(ctx, "permutation", mlirDenseI64ArrayGet(ctx, rank, perm));
  mlirOperationStateAddAttributes(&s, 1, &attr);
  mlirOperationStateAddOwnedRegions(&s, 1, &body);
  MlirOperation op = mlirOperationCreate(&s);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before,
                                      op);
  return mlirOperationGetResult(op, 0);
}

MlirValue embCreateReshape(MlirOperation before, MlirLocation loc,
                           const char *name, MlirValue src, MlirType type,
                           intptr_t n, const int64_t (*groups)[EMB_MAX_LOOPS]) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirAttribute list[EMB_MAX_LOOPS];
  MlirType i64 = mlirIntegerTypeGet(ctx, 64);
  MlirValue operands[1 + EMB_MAX_LOOPS];
  intptr_t numOperands = 0;
  operands[numOperands++] = src;
  bool expand = !strcmp(name, "tensor.expand_shape");
  int64_t shape[EMB_MAX_LOOPS];
  for (intptr_t i = 0; i < n; ++i) {
    MlirAttribute dims[EMB_MAX_LOOPS];
    intptr_t len = 0;
    for (; len < EMB_MAX_LOOPS && groups[i][len] >= 0; ++len) {
      int64_t d = groups[i][len];
      dims[len] = mlirIntegerAttrGet(i64, d);
      if (expand) {
        shape[d] = embDim(type, d) < 0 ? mlirShapedTypeGetDynamicSize()
                                       : embDim(type, d);
        if (embDim(type, d) < 0)
          operands[numOperands++] = embCreateDim(before, loc, src, i);
      }
    }
    list[i] = mlirArrayAttrGet(ctx, len, dims);
  }
  MlirNamedAttribute attrs[2];
  attrs[0] = embNamedAttr(ctx, "reassociation", mlirArrayAttrGet(ctx, n, list));
  intptr_t numAttrs = 1;
  if (expand)
    attrs[numAttrs++] = embNamedAttr(
        ctx, "static_output_shape",
        mlirDenseI64ArrayGet(ctx, mlirShapedTypeGetRank(type), shape));
  return mlirOperationGetResult(embCreateOp(before, loc, name, numOperands,
                                            operands, type, numAttrs, attrs),
                                0);
}

MlirValue embCreateIntVector(MlirOperation before, MlirLocation loc,
                             MlirType element, intptr_t n,
                             const int64_t *values) {
  MlirContext ctx = mlirLocationGetContext(loc);
  int64_t shape[] = {n};
  MlirType type =
      mlirRankedTensorTypeGet(1, shape, element, mlirAttributeGetNull());
  MlirAttribute dense;
  if (mlirIntegerTypeGetWidth(element) == 32) {
    int32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
      return (MlirValue){NULL};
    for (intptr_t i = 0; i < n; ++i)
      v[i] = (int32_t)values[i];
    dense = mlirDenseElementsAttrInt32Get(type, n, v);
    free(v);
  } else {
    dense = mlirDenseElementsAttrInt64Get(type, n, values);
  }
  MlirNamedAttribute attr = embNamedAttr(ctx, "value", dense);
  return mlirOperationGetResult(
      embCreateOp(before, loc, "arith.constant", 0, NULL, type, 1, &attr), 0);
}

MlirOperation embCreateGeneric(MlirOperation before, MlirLocation loc,
                               intptr_t numInputs, intptr_t numInits,
                               const MlirValue *operands,
                               const MlirAffineMap *maps, const char *iterators,
                               MlirType resultType, MlirBlock body) {
  MlirContext ctx = mlirLocationGetContext(loc);
  intptr_t n = numInputs + numInits;
  intptr_t loops = mlirAffineMapGetNumDims(maps[0]);
  MlirAttribute mapAttrs[2 * EMB_MAX_LOOPS], iterAttrs[EMB_MAX_LOOPS];
  for (intptr_t i = 0; i < n; ++i)
    mapAttrs[i] = mlirAffineMapAttrGet(maps[i]);
  MlirAttribute parallel =
      mlirAttributeParseGet(ctx, embStr("#linalg.iterator_type<parallel>"));
  MlirAttribute reduction =
      mlirAttributeParseGet(ctx, embStr("#linalg.iterator_type<reduction>"));
  for (intptr_t i = 0; i < loops; ++i)
    iterAttrs[i] = iterators[i] == 'r' ? reduction : parallel;
  int32_t segments[] = {(int32_t)numInputs, (int32_t)numInits};
  MlirNamedAttribute attrs[] = {
      embNamedAttr(ctx, "indexing_maps", mlirArrayAttrGet(ctx, n, mapAttrs)),
      embNamedAttr(ctx, "iterator_types",
                   mlirArrayAttrGet(ctx, loops, iterAttrs)),
      embNamedAttr(ctx, "operandSegmentSizes",
                   mlirDenseI32ArrayGet(ctx, 2, segments)),
  };
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirOperationState s = mlirOperationStateGet(embStr("linalg.generic"), loc);
  mlirOperationStateAddOperands(&s, n, operands);
  mlirOperationStateAddResults(&s, 1, &resultType);
  mlirOperationStateAddAttributes(&s, 3, attrs);
  mlirOperationStateAddOwnedRegions(&s, 1, &region);
  MlirOperation op = mlirOperationCreate(&s);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before,
                                      op);
  return op;
}

//===----------------------------------------------------------------------===//
// Erasing and the walk
//===----------------------------------------------------------------------===//

void embReplaceAndErase(MlirOperation op, intptr_t i, MlirValue with) {
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i), with);
  embEraseUnused(op);
}

void embEraseUnused(MlirOperation op) {
  if (embHasEffects(op))
    return;
  for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r)
    if (embHasUses(mlirOperationGetResult(op, r)))
      return;
  enum { maxOperands = 16 };
  MlirValue operands[maxOperands];
  intptr_t n = mlirOperationGetNumOperands(op);
  if (n > maxOperands)
    n = maxOperands;
  for (intptr_t k = 0; k < n; ++k)
    operands[k] = mlirOperationGetOperand(op, k);
  mlirOperationDestroy(op);
  embEraseDeadProducers(n, operands);
}

/// The raising passes erase whole linalg ops; their bodies are read through
/// the ops, never visited on their own.
static bool isLinalgOp(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length > 7 && memcmp(name.data, "linalg.", 7) == 0;
}

void embRaiseNestedOps(MlirOperation root, MlirExternalPass pass,
                       const char *passName,
                       bool (*rewrite)(MlirOperation op, const void *options),
                       const void *options) {
  embRewriteNestedOpsSkipping(root, pass, passName, isLinalgOp, rewrite,
                              options);
}
