//===- passes/rewrite.c - IR building blocks for emb's rewrites -----------===//

#include "rewrite.h"

#include "ir.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Op lists
//===----------------------------------------------------------------------===//

bool embOpListPush(EmbOpList *list, MlirOperation op) {
  if (list->size == list->capacity) {
    size_t capacity = list->capacity ? list->capacity * 2 : 64;
    MlirOperation *grown = realloc(list->ops, capacity * sizeof *grown);
    if (!grown)
      return false;
    list->ops = grown;
    list->capacity = capacity;
  }
  list->ops[list->size++] = op;
  return true;
}

void embOpListFree(EmbOpList *list) {
  free(list->ops);
  *list = (EmbOpList){NULL, 0, 0};
}

typedef struct {
  MlirOperation root;
  EmbOpList *list;
  bool (*skipRegions)(MlirOperation op);
  bool failed;
} Collector;

static MlirWalkResult collectOne(MlirOperation op, void *userData) {
  Collector *c = userData;
  if (mlirOperationEqual(op, c->root))
    return MlirWalkResultAdvance;
  if (!embOpListPush(c->list, op)) {
    c->failed = true;
    return MlirWalkResultInterrupt;
  }
  return c->skipRegions && c->skipRegions(op) ? MlirWalkResultSkip
                                              : MlirWalkResultAdvance;
}

bool embCollectNestedOpsSkipping(MlirOperation root, EmbOpList *list,
                                 bool (*skipRegions)(MlirOperation op)) {
  Collector c = {root, list, skipRegions, false};
  mlirOperationWalk(root, collectOne, &c, MlirWalkPreOrder);
  return !c.failed;
}

bool embCollectNestedOps(MlirOperation root, EmbOpList *list) {
  return embCollectNestedOpsSkipping(root, list, NULL);
}

void embRewriteNestedOpsSkipping(MlirOperation root, MlirExternalPass pass,
                                 const char *passName,
                                 bool (*skipRegions)(MlirOperation op),
                                 bool (*rewrite)(MlirOperation op,
                                                 const void *options),
                                 const void *options) {
  EmbOpList ops = {NULL, 0, 0};
  bool ok = embCollectNestedOpsSkipping(root, &ops, skipRegions);
  for (size_t i = 0; ok && i < ops.size; ++i)
    ok = rewrite(ops.ops[i], options);
  embOpListFree(&ops);
  if (!ok) {
    embEmitErrorf(mlirOperationGetLocation(root), "%s: out of memory",
                  passName);
    mlirExternalPassSignalFailure(pass);
  }
}

void embRewriteNestedOps(MlirOperation root, MlirExternalPass pass,
                         const char *passName,
                         bool (*rewrite)(MlirOperation op, const void *options),
                         const void *options) {
  embRewriteNestedOpsSkipping(root, pass, passName, NULL, rewrite, options);
}

//===----------------------------------------------------------------------===//
// Matching and erasing
//===----------------------------------------------------------------------===//

MlirOperation embDefiningOp(MlirValue v, const char *name) {
  if (!mlirValueIsAOpResult(v))
    return (MlirOperation){NULL};
  MlirOperation def = mlirOpResultGetOwner(v);
  return embOpIs(def, name) ? def : (MlirOperation){NULL};
}

bool embHasUses(MlirValue v) {
  return !mlirOpOperandIsNull(mlirValueGetFirstUse(v));
}

bool embEraseIfDead(MlirOperation op) {
  if (embHasEffects(op))
    return false;
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i)
    if (embHasUses(mlirOperationGetResult(op, i)))
      return false;
  mlirOperationDestroy(op);
  return true;
}

void embReplaceOp(MlirOperation op, MlirValue with) {
  mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), with);
  mlirOperationDestroy(op);
}

/// True if `name` starts with `prefix`.
static bool hasPrefix(MlirStringRef name, const char *prefix) {
  size_t n = strlen(prefix);
  return name.length > n && memcmp(name.data, prefix, n) == 0;
}

/// True if no operand or result of `op` is a memref (a linalg op then
/// only reads its tensor operands and makes new tensors).
static bool onTensorsOnly(MlirOperation op) {
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (mlirTypeIsAMemRef(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return false;
  return true;
}

bool embIsPure(MlirOperation op) {
  static const char *const names[] = {EMB_OP_BROADCAST, "arith.constant", NULL};
  if (embHasEffects(op))
    return false;
  for (int i = 0; names[i]; ++i)
    if (embOpIs(op, names[i]))
      return true;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  // Every tensor op is a value computation. A linalg op on tensors (a
  // generic's body included: torch-mlir's cf.assert bounds checks read an
  // id of a result nobody wants) writes nothing but its results.
  if (hasPrefix(name, "tensor."))
    return true;
  if (hasPrefix(name, "linalg.") && !embOpIs(op, "linalg.yield") &&
      !embOpIs(op, "linalg.index"))
    return onTensorsOnly(op);
  return embIsElementwise(op);
}

static bool contains(const EmbOpList *list, MlirOperation op) {
  for (size_t i = 0; i < list->size; ++i)
    if (mlirOperationEqual(list->ops[i], op))
      return true;
  return false;
}

/// True if every use of `op`'s results is by an op in `dead`.
static bool usedOnlyBy(MlirOperation op, const EmbOpList *dead) {
  for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r)
    for (MlirOpOperand use =
             mlirValueGetFirstUse(mlirOperationGetResult(op, r));
         !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
      if (!contains(dead, mlirOpOperandGetOwner(use)))
        return false;
  return true;
}

/// Adds the producer of `v` to `dead` if it is pure and only ops in `dead`
/// use it.
static bool considerProducer(EmbOpList *dead, MlirValue v) {
  if (!mlirValueIsAOpResult(v))
    return true;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!embIsPure(def) || contains(dead, def) || !usedOnlyBy(def, dead))
    return true;
  return embOpListPush(dead, def);
}

/// Closes `dead` over the producers its ops leave without users, then erases
/// them all, users before producers (the order they were added), so that no
/// op is erased twice or read after it is gone.
static void eraseClosure(EmbOpList *dead) {
  bool ok = true;
  for (size_t i = 0; ok && i < dead->size; ++i)
    for (intptr_t k = 0, n = mlirOperationGetNumOperands(dead->ops[i]);
         ok && k < n; ++k)
      ok = considerProducer(dead, mlirOperationGetOperand(dead->ops[i], k));
  // Out of memory: the closure is partial but every op in it is dead.
  for (size_t i = 0; i < dead->size; ++i)
    mlirOperationDestroy(dead->ops[i]);
  embOpListFree(dead);
}

void embEraseDeadChain(MlirOperation op) {
  EmbOpList dead = {NULL, 0, 0};
  if (embIsPure(op) && usedOnlyBy(op, &dead) && embOpListPush(&dead, op))
    eraseClosure(&dead);
  embOpListFree(&dead);
}

void embEraseDeadProducers(intptr_t n, const MlirValue *values) {
  EmbOpList dead = {NULL, 0, 0};
  for (intptr_t i = 0; i < n; ++i)
    if (!considerProducer(&dead, values[i]))
      break;
  eraseClosure(&dead);
}

bool embIsElementwise(MlirOperation op) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  bool arith = n.length > 6 && memcmp(n.data, "arith.", 6) == 0;
  bool math = n.length > 5 && memcmp(n.data, "math.", 5) == 0;
  return (arith || math) && !embOpIs(op, "arith.constant") &&
         mlirOperationGetNumRegions(op) == 0;
}

//===----------------------------------------------------------------------===//
// Tensor types
//===----------------------------------------------------------------------===//

enum { maxRank = 16 };

MlirType embTensorType(intptr_t rank, const int64_t *shape, MlirType element) {
  int64_t dims[maxRank];
  for (intptr_t i = 0; i < rank && i < maxRank; ++i)
    dims[i] = shape[i] < 0 ? mlirShapedTypeGetDynamicSize() : shape[i];
  return mlirRankedTensorTypeGet(rank, dims, element, mlirAttributeGetNull());
}

/// The dims of `t` (-1 for dynamic) into `dims`; returns the rank.
static intptr_t shapeOf(MlirType t, int64_t *dims) {
  intptr_t rank = mlirShapedTypeGetRank(t);
  for (intptr_t i = 0; i < rank && i < maxRank; ++i)
    dims[i] = embDim(t, i);
  return rank;
}

MlirType embWithDim(MlirType t, intptr_t i, int64_t size) {
  int64_t dims[maxRank];
  intptr_t rank = shapeOf(t, dims);
  dims[i] = size;
  return embTensorType(rank, dims, mlirShapedTypeGetElementType(t));
}

MlirType embWithElement(MlirType t, MlirType element) {
  int64_t dims[maxRank];
  intptr_t rank = shapeOf(t, dims);
  return embTensorType(rank, dims, element);
}

bool embSameShape(MlirType a, MlirType b) {
  intptr_t rank = mlirShapedTypeGetRank(a);
  if (rank != mlirShapedTypeGetRank(b))
    return false;
  for (intptr_t i = 0; i < rank; ++i)
    if (embDim(a, i) != embDim(b, i))
      return false;
  return true;
}

bool embIsStatic(MlirType t) { return embNumElements(t) >= 0; }

int embElementBytes(MlirType element) {
  if (mlirTypeIsAF32(element))
    return 4;
  if (mlirTypeIsAF16(element) || mlirTypeIsABF16(element))
    return 2;
  return 0;
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

/// Creates op `name` (see embCreateOp) without inserting it.
static MlirOperation buildOp(MlirLocation loc, const char *name,
                             intptr_t numOperands, const MlirValue *operands,
                             MlirType resultType, intptr_t numAttrs,
                             const MlirNamedAttribute *attrs) {
  MlirOperationState state = mlirOperationStateGet(embStr(name), loc);
  mlirOperationStateAddOperands(&state, numOperands, operands);
  if (!mlirTypeIsNull(resultType))
    mlirOperationStateAddResults(&state, 1, &resultType);
  mlirOperationStateAddAttributes(&state, numAttrs, attrs);
  return mlirOperationCreate(&state);
}

MlirOperation embCreateOp(MlirOperation before, MlirLocation loc,
                          const char *name, intptr_t numOperands,
                          const MlirValue *operands, MlirType resultType,
                          intptr_t numAttrs, const MlirNamedAttribute *attrs) {
  MlirOperation op =
      buildOp(loc, name, numOperands, operands, resultType, numAttrs, attrs);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before,
                                      op);
  return op;
}

MlirOperation embAppendOp(MlirBlock block, MlirLocation loc, const char *name,
                          intptr_t numOperands, const MlirValue *operands,
                          MlirType resultType, intptr_t numAttrs,
                          const MlirNamedAttribute *attrs) {
  MlirOperation op =
      buildOp(loc, name, numOperands, operands, resultType, numAttrs, attrs);
  mlirBlockAppendOwnedOperation(block, op);
  return op;
}

MlirValue embCreateBroadcast(MlirOperation before, MlirLocation loc,
                             MlirValue ro, MlirValue candToUser,
                             MlirType resultType) {
  MlirValue operands[] = {ro, candToUser};
  return mlirOperationGetResult(embCreateOp(before, loc, EMB_OP_BROADCAST, 2,
                                            operands, resultType, 0, NULL),
                                0);
}

MlirValue embCreateIntConstant(MlirOperation before, MlirLocation loc,
                               MlirType type, int64_t value) {
  MlirNamedAttribute attr = embNamedAttr(mlirLocationGetContext(loc), "value",
                                         mlirIntegerAttrGet(type, value));
  return mlirOperationGetResult(
      embCreateOp(before, loc, "arith.constant", 0, NULL, type, 1, &attr), 0);
}

MlirValue embCreateIndexConstant(MlirOperation before, MlirLocation loc,
                                 int64_t value) {
  return embCreateIntConstant(
      before, loc, mlirIndexTypeGet(mlirLocationGetContext(loc)), value);
}

MlirValue embCreateDim(MlirOperation before, MlirLocation loc, MlirValue v,
                       intptr_t i) {
  MlirValue operands[] = {v, embCreateIndexConstant(before, loc, i)};
  MlirType index = mlirIndexTypeGet(mlirLocationGetContext(loc));
  return mlirOperationGetResult(
      embCreateOp(before, loc, "tensor.dim", 2, operands, index, 0, NULL), 0);
}

MlirValue embCreateConcat(MlirOperation before, MlirLocation loc, int64_t dim,
                          intptr_t n, const MlirValue *values) {
  if (n == 1)
    return values[0];
  MlirType first = mlirValueGetType(values[0]);
  int64_t dims[maxRank];
  intptr_t rank = shapeOf(first, dims);
  for (intptr_t i = 1; i < n; ++i) {
    MlirType t = mlirValueGetType(values[i]);
    for (intptr_t d = 0; d < rank; ++d) {
      int64_t size = embDim(t, d);
      // Along `dim` the sizes add up; a sum past INT64_MAX has no static
      // size and is left dynamic (found by emb-fuzz under UBSan).
      if (d == dim)
        dims[d] = dims[d] < 0 || size < 0 || size > INT64_MAX - dims[d]
                      ? -1
                      : dims[d] + size;
      else if (dims[d] < 0)
        dims[d] = size;
    }
  }
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirNamedAttribute attr = embNamedAttr(
      ctx, "dim", mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), dim));
  MlirType type =
      embTensorType(rank, dims, mlirShapedTypeGetElementType(first));
  return mlirOperationGetResult(
      embCreateOp(before, loc, "tensor.concat", n, values, type, 1, &attr), 0);
}

MlirValue embCreateSliceAlong(MlirOperation before, MlirLocation loc,
                              MlirValue src, intptr_t dim, int64_t offset,
                              int64_t size) {
  MlirType t = mlirValueGetType(src);
  intptr_t rank = mlirShapedTypeGetRank(t);
  int64_t offsets[maxRank], sizes[maxRank], strides[maxRank], dims[maxRank];
  MlirValue operands[1 + maxRank];
  intptr_t numOperands = 1;
  operands[0] = src;
  for (intptr_t i = 0; i < rank; ++i) {
    offsets[i] = i == dim ? offset : 0;
    strides[i] = 1;
    dims[i] = i == dim ? size : embDim(t, i);
    sizes[i] = dims[i] < 0 ? mlirShapedTypeGetDynamicSize() : dims[i];
    if (dims[i] < 0)
      operands[numOperands++] = embCreateDim(before, loc, src, i);
  }
  MlirContext ctx = mlirLocationGetContext(loc);
  int32_t segments[] = {1, 0, (int32_t)(numOperands - 1), 0};
  MlirNamedAttribute attrs[] = {
      embNamedAttr(ctx, "static_offsets",
                   mlirDenseI64ArrayGet(ctx, rank, offsets)),
      embNamedAttr(ctx, "static_sizes", mlirDenseI64ArrayGet(ctx, rank, sizes)),
      embNamedAttr(ctx, "static_strides",
                   mlirDenseI64ArrayGet(ctx, rank, strides)),
      embNamedAttr(ctx, "operandSegmentSizes",
                   mlirDenseI32ArrayGet(ctx, 4, segments)),
  };
  MlirType type = embTensorType(rank, dims, mlirShapedTypeGetElementType(t));
  return mlirOperationGetResult(embCreateOp(before, loc, "tensor.extract_slice",
                                            numOperands, operands, type, 4,
                                            attrs),
                                0);
}

MlirValue embCreateSplatConstant(MlirOperation before, MlirLocation loc,
                                 MlirType type, MlirAttribute element) {
  MlirNamedAttribute attr =
      embNamedAttr(mlirLocationGetContext(loc), "value",
                   mlirDenseElementsAttrSplatGet(type, element));
  return mlirOperationGetResult(
      embCreateOp(before, loc, "arith.constant", 0, NULL, type, 1, &attr), 0);
}

MlirValue embCreateFilled(MlirOperation before, MlirLocation loc, MlirType type,
                          MlirAttribute scalar, MlirValue like) {
  if (embIsStatic(type))
    return embCreateSplatConstant(before, loc, type, scalar);
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirNamedAttribute attr = embNamedAttr(ctx, "value", scalar);
  MlirValue operands[1 + maxRank];
  operands[0] = mlirOperationGetResult(
      embCreateOp(before, loc, "arith.constant", 0, NULL,
                  mlirAttributeGetType(scalar), 1, &attr),
      0);
  intptr_t numOperands = 1;
  for (intptr_t i = 0, rank = mlirShapedTypeGetRank(type); i < rank; ++i)
    if (embDim(type, i) < 0)
      operands[numOperands++] = embCreateDim(before, loc, like, i);
  return mlirOperationGetResult(embCreateOp(before, loc, "tensor.splat",
                                            numOperands, operands, type, 0,
                                            NULL),
                                0);
}

MlirAttribute embZeroAttr(MlirType element) {
  return mlirFloatAttrDoubleGet(mlirTypeGetContext(element), element, 0.0);
}
