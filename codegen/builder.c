//===- codegen/builder.c - Building upstream ops from C -------------------===//

#include "builder.h"

#include "ir.h"

#include "emb/runtime.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdlib.h>

MlirOperation embBuildOp(EmbBuilder *b, const char *name, intptr_t nOperands,
                         const MlirValue *operands, intptr_t nResults,
                         const MlirType *results, intptr_t nAttrs,
                         const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(embStr(name), b->loc);
  if (nOperands)
    mlirOperationStateAddOperands(&st, nOperands, operands);
  if (nResults)
    mlirOperationStateAddResults(&st, nResults, results);
  if (nAttrs)
    mlirOperationStateAddAttributes(&st, nAttrs, attrs);
  MlirOperation op = mlirOperationCreate(&st);
  embBuilderInsert(b, op);
  return op;
}

void embBuilderInsert(EmbBuilder *b, MlirOperation op) {
  if (!mlirOperationIsNull(b->before))
    mlirBlockInsertOwnedOperationBefore(b->block, b->before, op);
  else
    mlirBlockAppendOwnedOperation(b->block, op);
}

MlirType embI64Type(MlirContext ctx) { return mlirIntegerTypeGet(ctx, 64); }

MlirType embPtrType(MlirContext ctx) { return mlirLLVMPointerTypeGet(ctx, 0); }

static MlirValue integerConstant(EmbBuilder *b, MlirType t, int64_t v) {
  MlirNamedAttribute a =
      embNamedAttr(b->ctx, "value", mlirIntegerAttrGet(t, v));
  return mlirOperationGetResult(
      embBuildOp(b, "arith.constant", 0, NULL, 1, &t, 1, &a), 0);
}

MlirValue embBuildConstI64(EmbBuilder *b, int64_t v) {
  return integerConstant(b, embI64Type(b->ctx), v);
}

MlirValue embBuildConstIndex(EmbBuilder *b, int64_t v) {
  return integerConstant(b, mlirIndexTypeGet(b->ctx), v);
}

MlirValue embBuildIndexToI64(EmbBuilder *b, MlirValue v) {
  MlirType t = embI64Type(b->ctx);
  return mlirOperationGetResult(
      embBuildOp(b, "arith.index_cast", 1, &v, 1, &t, 0, NULL), 0);
}

MlirValue embBuildI64ToIndex(EmbBuilder *b, MlirValue v) {
  MlirType t = mlirIndexTypeGet(b->ctx);
  return mlirOperationGetResult(
      embBuildOp(b, "arith.index_cast", 1, &v, 1, &t, 0, NULL), 0);
}

static MlirValue binaryI64(EmbBuilder *b, const char *name, MlirValue x,
                           MlirValue y) {
  MlirValue operands[2] = {x, y};
  MlirType t = embI64Type(b->ctx);
  return mlirOperationGetResult(
      embBuildOp(b, name, 2, operands, 1, &t, 0, NULL), 0);
}

MlirValue embBuildMulI64(EmbBuilder *b, MlirValue x, MlirValue y) {
  return binaryI64(b, "arith.muli", x, y);
}

MlirValue embBuildAddI64(EmbBuilder *b, MlirValue x, MlirValue y) {
  return binaryI64(b, "arith.addi", x, y);
}

MlirValue embBuildDivI64(EmbBuilder *b, MlirValue x, MlirValue y) {
  return binaryI64(b, "arith.divsi", x, y);
}

MlirValue embBuildMaxI64(EmbBuilder *b, MlirValue x, MlirValue y) {
  return binaryI64(b, "arith.maxsi", x, y);
}

MlirValue embBuildBinary(EmbBuilder *b, const char *name, MlirValue x,
                         MlirValue y) {
  MlirValue operands[2] = {x, y};
  MlirType t = mlirValueGetType(x);
  return mlirOperationGetResult(
      embBuildOp(b, name, 2, operands, 1, &t, 0, NULL), 0);
}

/// arith.cmpi or arith.cmpf (`name`) of x and y: an i1.
static MlirValue compare(EmbBuilder *b, const char *name, int64_t predicate,
                         MlirValue x, MlirValue y) {
  MlirValue operands[2] = {x, y};
  MlirType i1 = mlirIntegerTypeGet(b->ctx, 1);
  MlirNamedAttribute p = embNamedAttr(
      b->ctx, "predicate",
      mlirIntegerAttrGet(mlirIntegerTypeGet(b->ctx, 64), predicate));
  return mlirOperationGetResult(embBuildOp(b, name, 2, operands, 1, &i1, 1, &p),
                                0);
}

MlirValue embBuildCmpI(EmbBuilder *b, int64_t predicate, MlirValue x,
                       MlirValue y) {
  return compare(b, "arith.cmpi", predicate, x, y);
}

MlirValue embBuildCmpF(EmbBuilder *b, int64_t predicate, MlirValue x,
                       MlirValue y) {
  return compare(b, "arith.cmpf", predicate, x, y);
}

MlirValue embBuildAlloca(EmbBuilder *b, MlirType elemType, int64_t n) {
  MlirValue count = embBuildConstI64(b, n > 0 ? n : 1);
  MlirType ptr = embPtrType(b->ctx);
  MlirNamedAttribute a =
      embNamedAttr(b->ctx, "elem_type", mlirTypeAttrGet(elemType));
  return mlirOperationGetResult(
      embBuildOp(b, "llvm.alloca", 1, &count, 1, &ptr, 1, &a), 0);
}

MlirValue embBuildGep(EmbBuilder *b, MlirValue base, MlirType elemType,
                      int32_t i) {
  MlirType ptr = embPtrType(b->ctx);
  MlirNamedAttribute attrs[3] = {
      embNamedAttr(b->ctx, "elem_type", mlirTypeAttrGet(elemType)),
      embNamedAttr(b->ctx, "rawConstantIndices",
                   mlirDenseI32ArrayGet(b->ctx, 1, &i)),
      embNamedAttr(b->ctx, "noWrapFlags",
                   mlirIntegerAttrGet(mlirIntegerTypeGet(b->ctx, 32), 0)),
  };
  return mlirOperationGetResult(
      embBuildOp(b, "llvm.getelementptr", 1, &base, 1, &ptr, 3, attrs), 0);
}

void embBuildStoreAt(EmbBuilder *b, MlirValue base, MlirType elemType,
                     int64_t i, MlirValue value) {
  MlirValue slot = embBuildGep(b, base, elemType, (int32_t)i);
  MlirValue operands[2] = {value, slot};
  MlirNamedAttribute ordering =
      embNamedAttr(b->ctx, "ordering",
                   mlirIntegerAttrGet(mlirIntegerTypeGet(b->ctx, 64), 0));
  embBuildOp(b, "llvm.store", 2, operands, 0, NULL, 1, &ordering);
}

MlirValue embBuildNullPtr(EmbBuilder *b) {
  MlirType ptr = embPtrType(b->ctx);
  return mlirOperationGetResult(
      embBuildOp(b, "llvm.mlir.zero", 0, NULL, 1, &ptr, 0, NULL), 0);
}

MlirValue embBuildMemrefPtr(EmbBuilder *b, MlirValue memref,
                            int64_t elemBytes) {
  MlirType index = mlirIndexTypeGet(b->ctx);
  MlirValue base = mlirOperationGetResult(
      embBuildOp(b, "memref.extract_aligned_pointer_as_index", 1, &memref, 1,
                 &index, 0, NULL),
      0);
  // The offset of an identity-layout memref is its descriptor's offset:
  // read it through extract_strided_metadata (results: base, offset,
  // sizes..., strides...).
  MlirType mt = mlirValueGetType(memref);
  intptr_t rank = mlirShapedTypeGetRank(mt);
  MlirType results[2 + 2 * EMBRT_MAX_RANK];
  results[0] =
      mlirMemRefTypeGet(mlirShapedTypeGetElementType(mt), 0, NULL,
                        mlirAttributeGetNull(), mlirAttributeGetNull());
  for (intptr_t i = 1; i < 2 + 2 * rank; ++i)
    results[i] = index;
  MlirOperation meta = embBuildOp(b, "memref.extract_strided_metadata", 1,
                                  &memref, 2 + 2 * rank, results, 0, NULL);
  MlirValue offset = embBuildIndexToI64(b, mlirOperationGetResult(meta, 1));
  MlirValue bytes = embBuildMulI64(b, offset, embBuildConstI64(b, elemBytes));
  MlirValue addr = embBuildAddI64(b, embBuildIndexToI64(b, base), bytes);
  MlirType ptr = embPtrType(b->ctx);
  return mlirOperationGetResult(
      embBuildOp(b, "llvm.inttoptr", 1, &addr, 1, &ptr, 0, NULL), 0);
}

MlirValue embBuildMemrefAlloc(EmbBuilder *b, MlirType type, intptr_t nDynamic,
                              const MlirValue *dynamicSizes) {
  int32_t segments[2] = {(int32_t)nDynamic, 0}; // sizes, symbols
  MlirNamedAttribute attrs[2] = {
      embNamedAttr(b->ctx, "operandSegmentSizes",
                   mlirDenseI32ArrayGet(b->ctx, 2, segments)),
      embNamedAttr(b->ctx, "alignment",
                   mlirIntegerAttrGet(embI64Type(b->ctx), 64)),
  };
  return mlirOperationGetResult(
      embBuildOp(b, "memref.alloc", nDynamic, dynamicSizes, 1, &type, 2, attrs),
      0);
}

MlirValue embBuildMemrefDim(EmbBuilder *b, MlirValue memref, int64_t dim) {
  MlirValue operands[2] = {memref, embBuildConstIndex(b, dim)};
  MlirType index = mlirIndexTypeGet(b->ctx);
  MlirValue d = mlirOperationGetResult(
      embBuildOp(b, "memref.dim", 2, operands, 1, &index, 0, NULL), 0);
  return embBuildIndexToI64(b, d);
}

MlirValue embBuildCall(EmbBuilder *b, const char *callee, intptr_t nArgs,
                       const MlirValue *args, MlirType resultType) {
  MlirNamedAttribute a = embNamedAttr(
      b->ctx, "callee", mlirFlatSymbolRefAttrGet(b->ctx, embStr(callee)));
  bool hasResult = !mlirTypeIsNull(resultType);
  MlirOperation call = embBuildOp(b, "func.call", nArgs, args,
                                  hasResult ? 1 : 0, &resultType, 1, &a);
  return hasResult ? mlirOperationGetResult(call, 0) : (MlirValue){NULL};
}

typedef struct {
  bool (*match)(MlirOperation);
  MlirOperation *ops;
  size_t n, cap;
} Collected;

static MlirWalkResult collectMatching(MlirOperation op, void *userData) {
  Collected *c = userData;
  if (!c->match(op))
    return MlirWalkResultAdvance;
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 8;
    c->ops = realloc(c->ops, c->cap * sizeof(MlirOperation));
  }
  c->ops[c->n++] = op;
  return MlirWalkResultAdvance;
}

MlirOperation embMoveIntoIf(MlirContext ctx, MlirOperation op, MlirValue cond,
                            MlirBlock elseBlock) {
  MlirLocation loc = mlirOperationGetLocation(op);
  intptr_t n = mlirOperationGetNumResults(op);
  MlirType *types = calloc((size_t)n + 1, sizeof(MlirType));
  MlirValue *results = calloc((size_t)n + 1, sizeof(MlirValue));
  for (intptr_t i = 0; i < n; ++i)
    types[i] = mlirValueGetType(mlirOperationGetResult(op, i));
  MlirBlock thenBlock = mlirBlockCreate(0, NULL, NULL);
  MlirRegion thenRegion = mlirRegionCreate(), elseRegion = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(thenRegion, thenBlock);
  mlirRegionAppendOwnedBlock(elseRegion, elseBlock);
  MlirRegion regions[2] = {thenRegion, elseRegion};
  MlirOperationState st = mlirOperationStateGet(embStr("scf.if"), loc);
  mlirOperationStateAddOperands(&st, 1, &cond);
  mlirOperationStateAddResults(&st, n, types);
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  MlirOperation ifOp = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, ifOp);
  for (intptr_t i = 0; i < n; ++i)
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, i),
                                  mlirOperationGetResult(ifOp, i));
  mlirOperationRemoveFromParent(op);
  mlirBlockAppendOwnedOperation(thenBlock, op);
  for (intptr_t i = 0; i < n; ++i)
    results[i] = mlirOperationGetResult(op, i);
  EmbBuilder tb = {ctx, loc, thenBlock, {NULL}};
  embBuildOp(&tb, "scf.yield", n, results, 0, NULL, 0, NULL);
  free(types);
  free(results);
  return ifOp;
}

MlirOperation *embCollectOps(MlirOperation root, bool (*match)(MlirOperation),
                             size_t *count) {
  Collected c = {match, NULL, 0, 0};
  mlirOperationWalk(root, collectMatching, &c, MlirWalkPreOrder);
  *count = c.n;
  return c.ops;
}
