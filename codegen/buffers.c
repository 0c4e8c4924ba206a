//===- codegen/buffers.c - The lowering's value map and runtime calls -----===//
//
// What every part of emb-lower-to-runtime builds on: the map from each value
// of the function being lowered to what it became (a tensor's buffer and its
// sizes, or a scalar's new value), sizes that fold while they are constant,
// the buffers results are written into (the caller's out buffer for a
// returned value, else a runtime allocation freed before returning), and the
// runtime calls themselves: `embrtCompiled<Op>(ctx, attrs, buffers, dims)`
// with three arrays on the stack, and the workspace query before an op that
// needs scratch memory.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// The value map
//===----------------------------------------------------------------------===//

size_t embHashPointer(const void *p, size_t cap) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0xed5ad4bbu;
  x ^= x >> 11;
  return (size_t)x & (cap - 1);
}

EmbMapped embTensorMapping(MlirValue buffer, int rank, const EmbDim *dims) {
  EmbMapped m;
  memset(&m, 0, sizeof m);
  m.isTensor = true;
  m.value = buffer;
  m.rank = rank;
  for (int i = 0; i < rank; ++i)
    m.dims[i] = dims[i];
  return m;
}

// The table holds pointers to entries allocated one by one: a lowering
// keeps the EmbMapped * of an operand while it maps its result, which may
// grow the table, so entries never move.

EmbMapped *embLookupValue(EmbLowering *l, MlirValue v) {
  size_t i = embHashPointer(v.ptr, l->mapCap);
  while (l->map[i]) {
    if (l->map[i]->key == v.ptr)
      return l->map[i];
    i = (i + 1) & (l->mapCap - 1);
  }
  return NULL;
}

/// The slot of `key` in `table` (of `cap` slots): its entry or a free slot.
static size_t slotOf(EmbMapped **table, size_t cap, const void *key) {
  size_t i = embHashPointer(key, cap);
  while (table[i] && table[i]->key != key)
    i = (i + 1) & (cap - 1);
  return i;
}

static bool grow(EmbLowering *l) {
  size_t cap = l->mapCap * 2;
  EmbMapped **table = calloc(cap, sizeof(EmbMapped *));
  if (!table)
    return false;
  for (size_t i = 0; i < l->mapCap; ++i)
    if (l->map[i])
      table[slotOf(table, cap, l->map[i]->key)] = l->map[i];
  free(l->map);
  l->map = table;
  l->mapCap = cap;
  return true;
}

void embMapValue(EmbLowering *l, MlirValue v, const EmbMapped *m) {
  if ((l->mapCount + 1) * 2 > l->mapCap && !grow(l)) {
    l->failed = true; // out of memory
    return;
  }
  size_t i = slotOf(l->map, l->mapCap, v.ptr);
  if (!l->map[i]) {
    l->map[i] = malloc(sizeof(EmbMapped));
    if (!l->map[i]) {
      l->failed = true;
      return;
    }
    ++l->mapCount;
  }
  *l->map[i] = *m;
  l->map[i]->key = v.ptr;
}

void embFreeValueMap(EmbLowering *l) {
  for (size_t i = 0; l->map && i < l->mapCap; ++i)
    free(l->map[i]);
  free(l->map);
  l->map = NULL;
  l->mapCount = 0;
}

//===----------------------------------------------------------------------===//
// Sizes, element types and operands
//===----------------------------------------------------------------------===//

void embLowerFail(EmbLowering *l, MlirOperation op, const char *what) {
  char name[64];
  embOpName(op, name, sizeof name);
  embEmitErrorf(mlirOperationGetLocation(op),
                "'%s' op cannot be lowered to the emb runtime (target %s): %s",
                name, l->target == EMB_TARGET_CUDA ? "cuda" : "cpu", what);
  l->failed = true;
}

MlirValue embDimValue(EmbLowering *l, EmbDim *d) {
  if (mlirValueIsNull(d->v))
    d->v = embBuildConstI64(&l->b, d->c);
  return d->v;
}

EmbDim embMulDim(EmbLowering *l, EmbDim a, EmbDim b) {
  if (a.c >= 0 && b.c >= 0) // saturated: no buffer holds INT64_MAX bytes
    return embConstDim(a.c != 0 && b.c > INT64_MAX / a.c ? INT64_MAX
                                                         : a.c * b.c);
  if (a.c == 1)
    return b;
  if (b.c == 1)
    return a;
  EmbDim r = {embBuildMulI64(&l->b, embDimValue(l, &a), embDimValue(l, &b)),
              -1};
  return r;
}

EmbDim embAddDim(EmbLowering *l, EmbDim *a, EmbDim *b) {
  if (a->c >= 0 && b->c >= 0) // saturated, as embMulDim
    return embConstDim(a->c > INT64_MAX - b->c ? INT64_MAX : a->c + b->c);
  return (EmbDim){embBuildAddI64(&l->b, embDimValue(l, a), embDimValue(l, b)),
                  -1};
}

EmbDim embSegmentsOf(EmbLowering *l, EmbDim entries) {
  if (entries.c >= 0)
    return embConstDim(entries.c > 0 ? entries.c - 1 : 0);
  MlirValue minus = embBuildAddI64(&l->b, embDimValue(l, &entries),
                                   embBuildConstI64(&l->b, -1));
  return (EmbDim){embBuildMaxI64(&l->b, minus, embBuildConstI64(&l->b, 0)), -1};
}

EmbDim embDimProduct(EmbLowering *l, const EmbMapped *m, int from, int to) {
  EmbDim p = embConstDim(1);
  for (int i = from; i < to; ++i)
    p = embMulDim(l, p, m->dims[i]);
  return p;
}

/// The lowered form of tensor operand `i` of `op`.
EmbMapped *embTensorOperand(EmbLowering *l, MlirOperation op, intptr_t i) {
  EmbMapped *m = embLookupValue(l, mlirOperationGetOperand(op, i));
  if (!m || !m->isTensor) {
    embLowerFail(l, op, "an operand was not lowered");
    return NULL;
  }
  return m;
}

//===----------------------------------------------------------------------===//
// Runtime calls
//===----------------------------------------------------------------------===//

/// Whether the module has a symbol named `name`.
bool embHasSymbol(EmbLowering *l, const char *name) {
  MlirBlock body = mlirModuleGetBody(l->module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, embStr("sym_name"));
    if (!mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym)) {
      MlirStringRef s = mlirStringAttrGetValue(sym);
      if (s.length == strlen(name) &&
          (s.length == 0 || !memcmp(s.data, name, s.length)))
        return true;
    }
  }
  return false;
}

void embDeclareRuntime(EmbLowering *l, EmbRuntimeFn fn) {
  const EmbRuntimeSymbol *sym = &embRuntimeSymbols[fn];
  if (embHasSymbol(l, sym->name))
    return;
  MlirBlock body = mlirModuleGetBody(l->module);
  char text[512];
  snprintf(text, sizeof text, "func.func private @%s%s", sym->name,
           sym->signature);
  MlirOperation decl =
      mlirOperationCreateParse(l->ctx, embStr(text), embStr("emb-runtime"));
  mlirBlockInsertOwnedOperation(body, 0, decl);
}

MlirValue embCallRuntime(EmbLowering *l, EmbRuntimeFn fn, intptr_t nArgs,
                         const MlirValue *args, MlirType resultType) {
  embDeclareRuntime(l, fn);
  return embBuildCall(&l->b, embRuntimeSymbols[fn].name, nArgs, args,
                      resultType);
}

EmbCallArrays embBuildCallArrays(EmbLowering *l, const int64_t *attrs,
                                 int64_t nAttrs, const MlirValue *buffers,
                                 int64_t nBuffers, EmbDim *dims,
                                 int64_t nDims) {
  MlirType i64 = embI64Type(l->ctx), ptr = embPtrType(l->ctx);
  EmbCallArrays a;
  a.attrs = embBuildAlloca(&l->b, i64, nAttrs);
  for (int64_t i = 0; i < nAttrs; ++i)
    embBuildStoreAt(&l->b, a.attrs, i64, i, embBuildConstI64(&l->b, attrs[i]));
  a.buffers = embBuildAlloca(&l->b, ptr, nBuffers);
  for (int64_t i = 0; i < nBuffers; ++i)
    embBuildStoreAt(&l->b, a.buffers, ptr, i,
                    mlirValueIsNull(buffers[i]) ? embBuildNullPtr(&l->b)
                                                : buffers[i]);
  a.dims = embBuildAlloca(&l->b, i64, nDims);
  for (int64_t i = 0; i < nDims; ++i)
    embBuildStoreAt(&l->b, a.dims, i64, i, embDimValue(l, &dims[i]));
  return a;
}

void embCallRuntimeOp(EmbLowering *l, EmbRuntimeFn fn, EmbCallArrays a) {
  MlirValue args[4] = {l->ctxArg, a.attrs, a.buffers, a.dims};
  embCallRuntime(l, fn, 4, args, (MlirType){NULL});
}

MlirValue embBuildConstantGlobal(EmbLowering *l, const char *prefix,
                                 MlirAttribute value, int64_t bytes,
                                 int64_t alignment) {
  char name[64];
  int n = 0;
  do
    snprintf(name, sizeof name, "%s%d", prefix, n++);
  while (embHasSymbol(l, name));
  MlirType i8 = mlirIntegerTypeGet(l->ctx, 8);
  MlirNamedAttribute attrs[7] = {
      embNamedAttr(l->ctx, "sym_name", mlirStringAttrGet(l->ctx, embStr(name))),
      embNamedAttr(l->ctx, "global_type",
                   mlirTypeAttrGet(mlirLLVMArrayTypeGet(i8, (unsigned)bytes))),
      embNamedAttr(l->ctx, "value", value),
      embNamedAttr(
          l->ctx, "linkage",
          mlirAttributeParseGet(l->ctx, embStr("#llvm.linkage<private>"))),
      embNamedAttr(l->ctx, "constant", mlirUnitAttrGet(l->ctx)),
      embNamedAttr(l->ctx, "addr_space",
                   mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 32), 0)),
      embNamedAttr(
          l->ctx, "alignment",
          mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 64), alignment)),
  };
  MlirOperationState st =
      mlirOperationStateGet(embStr("llvm.mlir.global"), l->b.loc);
  mlirOperationStateAddAttributes(&st, alignment > 0 ? 7 : 6, attrs);
  MlirRegion init = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&st, 1, &init);
  mlirBlockInsertOwnedOperation(mlirModuleGetBody(l->module), 0,
                                mlirOperationCreate(&st));
  MlirType ptr = embPtrType(l->ctx);
  MlirNamedAttribute ref = embNamedAttr(
      l->ctx, "global_name", mlirFlatSymbolRefAttrGet(l->ctx, embStr(name)));
  return mlirOperationGetResult(
      embBuildOp(&l->b, "llvm.mlir.addressof", 0, NULL, 1, &ptr, 1, &ref), 0);
}

MlirValue embAllocBytes(EmbLowering *l, EmbDim bytes) {
  MlirValue args[2] = {l->ctxArg, embDimValue(l, &bytes)};
  MlirValue p = embCallRuntime(l, EMB_RT_ALLOC, 2, args, embPtrType(l->ctx));
  if (l->numOwned == l->ownedCap) {
    l->ownedCap = l->ownedCap ? 2 * l->ownedCap : 16;
    l->owned = realloc(l->owned, l->ownedCap * sizeof(MlirValue));
  }
  l->owned[l->numOwned++] = p;
  return p;
}

/// Asks the runtime for the workspace of the call in `a`, allocates it and
/// stores it at buffers[bufIndex] and its size at dims[dimIndex].
void embAddWorkspace(EmbLowering *l, EmbRuntimeFn sizeFn, EmbCallArrays a,
                     int64_t bufIndex, int64_t dimIndex) {
  MlirValue args[4] = {l->ctxArg, a.attrs, a.buffers, a.dims};
  MlirValue bytes = embCallRuntime(l, sizeFn, 4, args, embI64Type(l->ctx));
  EmbDim d = {bytes, -1};
  MlirValue ws = embAllocBytes(l, d);
  embBuildStoreAt(&l->b, a.buffers, embPtrType(l->ctx), bufIndex, ws);
  embBuildStoreAt(&l->b, a.dims, embI64Type(l->ctx), dimIndex, bytes);
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

/// Makes the buffer of result `r` (a tensor of `type` with sizes `dims`):
/// the caller's out buffer if `r` is returned, else a new allocation.
EmbMapped *embDefineResult(EmbLowering *l, MlirValue r, const EmbDim *dims) {
  MlirType type = mlirValueGetType(r);
  EmbMapped m = embTensorMapping((MlirValue){NULL},
                                 (int)mlirShapedTypeGetRank(type), dims);
  for (intptr_t i = 0; i < l->numResults; ++i) {
    if (l->returned[i] == r.ptr && !l->claimed[i]) {
      l->claimed[i] = true;
      m.value = l->outs[i].value;
      embMapValue(l, r, &m);
      return embLookupValue(l, r);
    }
  }
  if (l->mixed) {
    // MLIR's deallocation frees it once its tensor is dead.
    MlirValue sizes[EMBRT_MAX_RANK];
    intptr_t n = 0;
    for (int i = 0; i < m.rank; ++i)
      if (embDim(type, i) < 0)
        sizes[n++] = embBuildI64ToIndex(&l->b, embDimValue(l, &m.dims[i]));
    m.memref = embBuildMemrefAlloc(&l->b, embMemrefTypeOf(type), n, sizes);
    m.value = embBuildMemrefPtr(&l->b, m.memref, embTensorElementBytes(type));
    embMapValue(l, r, &m);
    return embLookupValue(l, r);
  }
  EmbDim bytes = embMulDim(l, embDimProduct(l, &m, 0, m.rank),
                           embConstDim(embTensorElementBytes(type)));
  m.value = embAllocBytes(l, bytes);
  embMapValue(l, r, &m);
  return embLookupValue(l, r);
}

const EmbDim *embResultExtents(EmbLowering *l, const EmbMapped *out) {
  for (intptr_t i = 0; i < l->numResults; ++i)
    if (l->outs[i].value.ptr == out->value.ptr && !l->reshapedResult[i])
      return l->outs[i].dims;
  return out->dims;
}

MlirType embMemrefTypeOf(MlirType tensor) {
  intptr_t rank = mlirShapedTypeGetRank(tensor);
  int64_t shape[EMBRT_MAX_RANK];
  for (intptr_t i = 0; i < rank; ++i)
    shape[i] = mlirShapedTypeGetDimSize(tensor, i);
  return mlirMemRefTypeGet(mlirShapedTypeGetElementType(tensor), rank, shape,
                           mlirAttributeGetNull(), mlirAttributeGetNull());
}

EmbMapped embBufferMapping(EmbLowering *l, MlirValue memref) {
  MlirType t = mlirValueGetType(memref);
  EmbMapped m;
  memset(&m, 0, sizeof m);
  m.isTensor = true;
  m.rank = (int)mlirShapedTypeGetRank(t);
  m.value = embBuildMemrefPtr(&l->b, memref, embTensorElementBytes(t));
  for (int i = 0; i < m.rank; ++i) {
    int64_t d = embDim(t, i);
    m.dims[i] = d >= 0 ? embConstDim(d)
                       : (EmbDim){embBuildMemrefDim(&l->b, memref, i), -1};
  }
  return m;
}

/// Sizes of a result: static dims from its type, dynamic ones from `from`
/// (an operand's lowered dims, matched position by position).
void embResultDims(EmbLowering *l, MlirValue r, EmbDim *dims,
                   const EmbDim *fallback) {
  MlirType t = mlirValueGetType(r);
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i) {
    int64_t d = embDim(t, i);
    dims[i] = d >= 0 ? embConstDim(d) : fallback[i];
  }
  (void)l;
}

/// Reads the dims of a result whose dynamic sizes are operands of `op`
/// (tensor.empty, tensor.expand_shape's output_shape): the i-th dynamic dim
/// takes operand firstDynamic + i.
bool embDynamicResultDims(EmbLowering *l, MlirOperation op,
                          intptr_t firstDynamic, EmbDim *dims) {
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  intptr_t next = firstDynamic;
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i) {
    int64_t d = embDim(t, i);
    if (d >= 0) {
      dims[i] = embConstDim(d);
      continue;
    }
    EmbMapped *s = embLookupValue(l, mlirOperationGetOperand(op, next++));
    if (!s || s->isTensor) {
      embLowerFail(l, op, "a dynamic size was not lowered");
      return false;
    }
    dims[i] = (EmbDim){embBuildIndexToI64(&l->b, s->value), -1};
  }
  return true;
}

/// Whether `op` has a tensor operand or result.
bool embHasTensor(MlirOperation op) {
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (mlirTypeIsATensor(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return true;
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetResult(op, i));
    if (mlirTypeIsATensor(t))
      return true;
  }
  return false;
}

bool embIsOpInDialect(MlirOperation op, const char *dialect) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  size_t n = strlen(dialect);
  return name.length > n && !strncmp(name.data, dialect, n) &&
         name.data[n] == '.';
}

MlirOperation embTopLevelOp(MlirOperation op, MlirBlock body) {
  while (!mlirOperationIsNull(op) &&
         !mlirBlockEqual(mlirOperationGetBlock(op), body))
    op = mlirOperationGetParentOperation(op);
  return op;
}
