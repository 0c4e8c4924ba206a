//===- runtime/check.c - Argument checks of the entry points ------*- C -*-===//
//
// One check function per entry point (see check.h). Order inside each: the
// struct itself, enums and dtypes, shapes, host arrays, then (for calls) the
// data pointers. Sizes are checked for overflow so that backends can compute
// element counts and byte offsets in int64 without care.
//
//===----------------------------------------------------------------------===//

#include "runtime/check.h"

#include <stdio.h>

/// Widest table row the runtime accepts (tableDims, dim).
#define MAX_TABLE_DIM 2048

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static embrtStatus invalid(embrtContext *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static embrtStatus invalid(embrtContext *ctx, const char *fmt, ...) {
  char buffer[sizeof ctx->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buffer, sizeof buffer, fmt, ap);
  va_end(ap);
  return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "%s", buffer);
}

static const char *dtypeName(embrtDtype dtype) {
  switch (dtype) {
  case EMBRT_F32:
    return "f32";
  case EMBRT_F16:
    return "f16";
  case EMBRT_BF16:
    return "bf16";
  case EMBRT_I32:
    return "i32";
  case EMBRT_I64:
    return "i64";
  case EMBRT_F64:
    return "f64";
  case EMBRT_I8:
    return "i8";
  }
  return "an unknown dtype";
}

static int isKnownDtype(embrtDtype d) { return embrtDtypeSize(d) != 0; }

static int isIndexDtype(embrtDtype d) {
  return d == EMBRT_I32 || d == EMBRT_I64;
}

/// The dtypes of tables and matrix operands.
static int isStorageFloat(embrtDtype d) {
  return d == EMBRT_F32 || d == EMBRT_F16 || d == EMBRT_BF16;
}

/// The dtypes elementwise arithmetic accepts.
static int isFloatDtype(embrtDtype d) {
  return isStorageFloat(d) || d == EMBRT_F64;
}

// Byte counts are computed in int64 and must fit a size_t.
_Static_assert(sizeof(size_t) >= sizeof(int64_t), "the runtime needs 64 bits");

/// a * b for non-negative a and b; 0 on overflow.
static int mulOk(int64_t a, int64_t b, int64_t *out) {
  if (a != 0 && b > INT64_MAX / a)
    return 0;
  *out = a * b;
  return 1;
}

/// Checks that `count` elements of `dtype` (count itself the product of up to
/// four non-negative factors) are addressable; stores the count.
static embrtStatus checkCount(embrtContext *ctx, const char *op,
                              const char *name, embrtDtype dtype,
                              int64_t *count, int64_t a, int64_t b, int64_t c,
                              int64_t d) {
  int64_t n = 1, bytes;
  if (!mulOk(n, a, &n) || !mulOk(n, b, &n) || !mulOk(n, c, &n) ||
      !mulOk(n, d, &n) || !mulOk(n, (int64_t)embrtDtypeSize(dtype), &bytes))
    return invalid(ctx, "%s: %s is too large to address", op, name);
  if (count)
    *count = n;
  return EMBRT_OK;
}

/// A row stride in elements: 0 (packed rows of `cols`) or at least `cols`.
static embrtStatus checkRowStride(embrtContext *ctx, const char *op,
                                  const char *name, int64_t stride,
                                  int64_t cols) {
  if (stride != 0 && stride < cols)
    return invalid(ctx, "%s: %s is %lld, must be 0 (packed) or >= %lld", op,
                   name, (long long)stride, (long long)cols);
  return EMBRT_OK;
}

/// The elements a [rows, cols] matrix with row stride `stride` (0: cols)
/// spans from its first element: (rows - 1) * stride + cols.
static embrtStatus checkStridedRows(embrtContext *ctx, const char *op,
                                    const char *name, embrtDtype dtype,
                                    int64_t *count, int64_t rows, int64_t cols,
                                    int64_t stride) {
  if (rows == 0 || cols == 0 || stride == 0 || stride == cols)
    return checkCount(ctx, op, name, dtype, count, rows, cols, 1, 1);
  int64_t n = 0;
  if (!mulOk(rows - 1, stride, &n) || n > INT64_MAX - cols)
    return invalid(ctx, "%s: %s is too large to address", op, name);
  return checkCount(ctx, op, name, dtype, count, n + cols, 1, 1, 1);
}

#define CHECK(expr)                                                            \
  do {                                                                         \
    embrtStatus checkStatus_ = (expr);                                         \
    if (checkStatus_ != EMBRT_OK)                                              \
      return checkStatus_;                                                     \
  } while (0)

static embrtStatus checkStruct(embrtContext *ctx, const char *op,
                               const void *args, size_t structSize,
                               size_t expected, const char *typeName) {
  if (!args)
    return invalid(ctx, "%s: args is NULL", op);
  if (structSize != expected)
    return invalid(ctx,
                   "%s: structSize is %zu, this runtime knows %zu "
                   "(sizeof(%s))",
                   op, structSize, expected, typeName);
  return EMBRT_OK;
}

static embrtStatus checkNonNegative(embrtContext *ctx, const char *op,
                                    const char *name, int64_t value) {
  if (value < 0)
    return invalid(ctx, "%s: %s is %lld, must be >= 0", op, name,
                   (long long)value);
  return EMBRT_OK;
}

/// A data pointer that must be set when its tensor holds any element.
static embrtStatus checkData(embrtContext *ctx, const char *op,
                             const char *name, const void *ptr,
                             int64_t elements) {
  if (!ptr && elements > 0)
    return invalid(ctx, "%s: %s is NULL", op, name);
  return EMBRT_OK;
}

static embrtStatus checkIndexDtype(embrtContext *ctx, const char *op,
                                   const char *name, embrtDtype dtype) {
  if (!isIndexDtype(dtype))
    return invalid(ctx, "%s: %s is %s, must be i32 or i64", op, name,
                   dtypeName(dtype));
  return EMBRT_OK;
}

static embrtStatus checkStorageFloat(embrtContext *ctx, const char *op,
                                     const char *name, embrtDtype dtype) {
  if (!isStorageFloat(dtype))
    return invalid(ctx, "%s: %s is %s, must be f32, f16 or bf16", op, name,
                   dtypeName(dtype));
  return EMBRT_OK;
}

static embrtStatus checkConfigId(embrtContext *ctx, const char *op,
                                 int64_t configId) {
  if (configId < -1)
    return invalid(ctx, "%s: configId is %lld, must be >= -1", op,
                   (long long)configId);
  return EMBRT_OK;
}

/// Checks the parts shared by tbe and embedding_bag: enums, the dtypes, the
/// per-sample weights and the index counts.
static embrtStatus checkLookupCommon(
    embrtContext *ctx, const char *op, const char *poolingName,
    embrtPooling pooling, embrtBoundsCheck boundsCheck, embrtDtype tableDtype,
    const char *tableDtypeName, embrtDtype indexDtype, embrtDtype offsetDtype,
    int64_t numIndices, const void *perSampleWeights,
    embrtDtype perSampleWeightDtype, embrtDtype outputDtype, int64_t configId) {
  if (pooling != EMBRT_POOLING_SUM && pooling != EMBRT_POOLING_MEAN &&
      pooling != EMBRT_POOLING_NONE)
    return invalid(ctx, "%s: %s is %d, not an embrtPooling", op, poolingName,
                   (int)pooling);
  if ((int)boundsCheck < EMBRT_BOUNDS_FATAL ||
      (int)boundsCheck > EMBRT_BOUNDS_NONE)
    return invalid(ctx, "%s: boundsCheck is %d, not an embrtBoundsCheck", op,
                   (int)boundsCheck);
  CHECK(checkStorageFloat(ctx, op, tableDtypeName, tableDtype));
  CHECK(checkIndexDtype(ctx, op, "indexDtype", indexDtype));
  CHECK(checkIndexDtype(ctx, op, "offsetDtype", offsetDtype));
  CHECK(checkNonNegative(ctx, op, "numIndices", numIndices));
  if (offsetDtype == EMBRT_I32 && numIndices > INT32_MAX)
    return invalid(ctx, "%s: numIndices is %lld, too many for i32 offsets", op,
                   (long long)numIndices);
  if (perSampleWeights) {
    if (pooling != EMBRT_POOLING_SUM)
      return invalid(ctx, "%s: perSampleWeights need %s SUM", op, poolingName);
    if (perSampleWeightDtype != EMBRT_F32 && perSampleWeightDtype != tableDtype)
      return invalid(ctx, "%s: perSampleWeightDtype is %s, must be f32 or %s",
                     op, dtypeName(perSampleWeightDtype),
                     dtypeName(tableDtype));
  }
  if (outputDtype != EMBRT_F32 && outputDtype != tableDtype)
    return invalid(ctx, "%s: outputDtype is %s, must be f32 or %s", op,
                   dtypeName(outputDtype), dtypeName(tableDtype));
  return checkConfigId(ctx, op, configId);
}

//===----------------------------------------------------------------------===//
// Lookups
//===----------------------------------------------------------------------===//

embrtStatus embrtCheckTbe(embrtContext *ctx, const embrtTbeArgs *args,
                          embrtCheckMode mode) {
  const char *op = "tbe";
  CHECK(checkStruct(ctx, op, args, args ? args->structSize : 0,
                    sizeof(embrtTbeArgs), "embrtTbeArgs"));
  CHECK(checkLookupCommon(ctx, op, "pooling", args->pooling, args->boundsCheck,
                          args->tableDtype, "tableDtype", args->indexDtype,
                          args->offsetDtype, args->numIndices,
                          args->perSampleWeights, args->perSampleWeightDtype,
                          args->outputDtype, args->configId));
  int64_t T = args->numTables, F = args->numFeatures, B = args->batchSize;
  CHECK(checkNonNegative(ctx, op, "numTables", T));
  CHECK(checkNonNegative(ctx, op, "numFeatures", F));
  CHECK(checkNonNegative(ctx, op, "batchSize", B));

  if (T > 0 && !args->tableRows)
    return invalid(ctx, "%s: tableRows is NULL", op);
  if (T > 0 && !args->tableDims)
    return invalid(ctx, "%s: tableDims is NULL", op);
  if (T > 0 && mode == EMBRT_CHECK_CALL && !args->tables)
    return invalid(ctx, "%s: tables is NULL", op);
  for (int64_t t = 0; t < T; ++t) {
    int64_t rows = args->tableRows[t], dim = args->tableDims[t];
    if (rows < 0)
      return invalid(ctx, "%s: tableRows[%lld] is %lld, must be >= 0", op,
                     (long long)t, (long long)rows);
    if (dim < 1 || dim > MAX_TABLE_DIM)
      return invalid(ctx, "%s: tableDims[%lld] is %lld, must be in 1..%d", op,
                     (long long)t, (long long)dim, MAX_TABLE_DIM);
    CHECK(checkCount(ctx, op, "a table", args->tableDtype, NULL, rows, dim, 1,
                     1));
    if (mode == EMBRT_CHECK_CALL && rows > 0 && !args->tables[t])
      return invalid(ctx, "%s: tables[%lld] is NULL", op, (long long)t);
  }

  if (F > 0 && !args->featureTables)
    return invalid(ctx, "%s: featureTables is NULL", op);
  int64_t sumDims = 0;
  for (int64_t f = 0; f < F; ++f) {
    int64_t t = args->featureTables[f];
    if (t < 0 || t >= T)
      return invalid(ctx,
                     "%s: featureTables[%lld] is %lld, outside the %lld tables",
                     op, (long long)f, (long long)t, (long long)T);
    sumDims += args->tableDims[t]; // <= F * 2048: cannot overflow in practice
    if (args->pooling == EMBRT_POOLING_NONE) {
      int64_t t0 = args->featureTables[0];
      if (args->tableDims[t] != args->tableDims[t0])
        return invalid(ctx,
                       "%s: pooling NONE needs one D for all features, feature "
                       "0 has %lld (table %lld) but feature %lld has %lld "
                       "(table %lld)",
                       op, (long long)args->tableDims[t0], (long long)t0,
                       (long long)f, (long long)args->tableDims[t],
                       (long long)t);
    }
  }

  int64_t numBags = 0, outputElements = 0;
  if (!mulOk(F, B, &numBags) || numBags == INT64_MAX)
    return invalid(ctx, "%s: numFeatures * batchSize is too large", op);
  CHECK(checkCount(ctx, op, "offsets", args->offsetDtype, NULL, numBags + 1, 1,
                   1, 1));
  CHECK(checkCount(ctx, op, "indices", args->indexDtype, NULL, args->numIndices,
                   1, 1, 1));
  if (args->pooling == EMBRT_POOLING_NONE) {
    int64_t dim = F > 0 ? args->tableDims[args->featureTables[0]] : 0;
    CHECK(checkCount(ctx, op, "output", args->outputDtype, &outputElements,
                     args->numIndices, dim, 1, 1));
  } else {
    CHECK(checkCount(ctx, op, "output", args->outputDtype, &outputElements, B,
                     sumDims, 1, 1));
  }
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  CHECK(checkData(ctx, op, "indices", args->indices, args->numIndices));
  CHECK(checkData(ctx, op, "offsets", args->offsets, 1));
  CHECK(checkData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

embrtStatus embrtCheckEmbeddingBag(embrtContext *ctx,
                                   const embrtEmbeddingBagArgs *args,
                                   embrtCheckMode mode) {
  const char *op = "embedding_bag";
  CHECK(checkStruct(ctx, op, args, args ? args->structSize : 0,
                    sizeof(embrtEmbeddingBagArgs), "embrtEmbeddingBagArgs"));
  CHECK(checkLookupCommon(ctx, op, "mode", args->mode, args->boundsCheck,
                          args->weightDtype, "weightDtype", args->indexDtype,
                          args->offsetDtype, args->numIndices,
                          args->perSampleWeights, args->perSampleWeightDtype,
                          args->outputDtype, args->configId));
  CHECK(checkNonNegative(ctx, op, "rows", args->rows));
  if (args->dim < 1 || args->dim > MAX_TABLE_DIM)
    return invalid(ctx, "%s: dim is %lld, must be in 1..%d", op,
                   (long long)args->dim, MAX_TABLE_DIM);
  CHECK(checkNonNegative(ctx, op, "batchSize", args->batchSize));
  int64_t weightElements = 0, outputElements = 0;
  CHECK(checkCount(ctx, op, "weight", args->weightDtype, &weightElements,
                   args->rows, args->dim, 1, 1));
  if (args->batchSize == INT64_MAX)
    return invalid(ctx, "%s: batchSize is too large", op);
  CHECK(checkCount(ctx, op, "offsets", args->offsetDtype, NULL,
                   args->batchSize + 1, 1, 1, 1));
  CHECK(checkCount(ctx, op, "indices", args->indexDtype, NULL, args->numIndices,
                   1, 1, 1));
  CHECK(checkCount(ctx, op, "output", args->outputDtype, &outputElements,
                   args->mode == EMBRT_POOLING_NONE ? args->numIndices
                                                    : args->batchSize,
                   args->dim, 1, 1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  CHECK(checkData(ctx, op, "weight", args->weight, weightElements));
  CHECK(checkData(ctx, op, "indices", args->indices, args->numIndices));
  CHECK(checkData(ctx, op, "offsets", args->offsets, 1));
  CHECK(checkData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Broadcast
//===----------------------------------------------------------------------===//

embrtStatus embrtCheckBroadcast(embrtContext *ctx,
                                const embrtBroadcastArgs *args, int isAdd) {
  const char *op = isAdd ? "broadcast_add" : "broadcast";
  CHECK(checkStruct(ctx, op, args, args ? args->structSize : 0,
                    sizeof(embrtBroadcastArgs), "embrtBroadcastArgs"));
  if (isAdd && !isFloatDtype(args->dtype))
    return invalid(ctx, "%s: dtype is %s, must be f32, f16, bf16 or f64", op,
                   dtypeName(args->dtype));
  if (!isKnownDtype(args->dtype))
    return invalid(ctx, "%s: dtype is %d, not an embrtDtype", op,
                   (int)args->dtype);
  CHECK(checkIndexDtype(ctx, op, "indexDtype", args->indexDtype));
  CHECK(checkNonNegative(ctx, op, "numUsers", args->numUsers));
  CHECK(checkNonNegative(ctx, op, "rowElements", args->rowElements));
  CHECK(checkNonNegative(ctx, op, "batchSize", args->batchSize));
  int64_t roElements = 0, outputElements = 0;
  CHECK(checkCount(ctx, op, "ro", args->dtype, &roElements, args->numUsers,
                   args->rowElements, 1, 1));
  CHECK(checkCount(ctx, op, "output", args->dtype, &outputElements,
                   args->batchSize, args->rowElements, 1, 1));
  CHECK(checkData(ctx, op, "ro", args->ro, roElements));
  CHECK(checkData(ctx, op, "candToUser", args->candToUser, args->batchSize));
  if (isAdd)
    CHECK(checkData(ctx, op, "nro", args->nro, outputElements));
  else if (args->nro)
    return invalid(ctx, "%s: nro must be NULL (it belongs to broadcast_add)",
                   op);
  CHECK(checkData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Linear compression
//===----------------------------------------------------------------------===//

embrtStatus embrtCheckLce(embrtContext *ctx, const embrtLceArgs *args,
                          embrtCheckMode mode) {
  const char *op = "lce";
  CHECK(checkStruct(ctx, op, args, args ? args->structSize : 0,
                    sizeof(embrtLceArgs), "embrtLceArgs"));
  CHECK(checkStorageFloat(ctx, op, "dtype", args->dtype));
  CHECK(checkNonNegative(ctx, op, "batchSize", args->batchSize));
  CHECK(checkNonNegative(ctx, op, "m", args->m));
  CHECK(checkNonNegative(ctx, op, "k", args->k));
  CHECK(checkNonNegative(ctx, op, "n", args->n));
  CHECK(checkConfigId(ctx, op, args->configId));
  int64_t wElements = 0, xElements = 0, outputElements = 0;
  CHECK(checkCount(ctx, op, "w", args->dtype, &wElements, args->m, args->k, 1,
                   1));
  CHECK(checkCount(ctx, op, "x", args->dtype, &xElements, args->batchSize,
                   args->k, args->n, 1));
  CHECK(checkCount(ctx, op, "output", args->dtype, &outputElements,
                   args->batchSize, args->m, args->n, 1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  CHECK(checkData(ctx, op, "w", args->w, wElements));
  CHECK(checkData(ctx, op, "x", args->x, xElements));
  CHECK(checkData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

embrtStatus embrtCheckIkboLce(embrtContext *ctx, const embrtIkboLceArgs *args,
                              embrtCheckMode mode) {
  const char *op = "ikbo_lce";
  CHECK(checkStruct(ctx, op, args, args ? args->structSize : 0,
                    sizeof(embrtIkboLceArgs), "embrtIkboLceArgs"));
  CHECK(checkStorageFloat(ctx, op, "dtype", args->dtype));
  CHECK(checkIndexDtype(ctx, op, "indexDtype", args->indexDtype));
  CHECK(checkNonNegative(ctx, op, "batchSize", args->batchSize));
  CHECK(checkNonNegative(ctx, op, "numUsers", args->numUsers));
  CHECK(checkNonNegative(ctx, op, "m", args->m));
  CHECK(checkNonNegative(ctx, op, "kUser", args->kUser));
  CHECK(checkNonNegative(ctx, op, "kCand", args->kCand));
  CHECK(checkNonNegative(ctx, op, "n", args->n));
  CHECK(checkConfigId(ctx, op, args->configId));
  CHECK(checkRowStride(ctx, op, "wUserStride", args->wUserStride, args->kUser));
  CHECK(checkRowStride(ctx, op, "wCandStride", args->wCandStride, args->kCand));
  int64_t wUser = 0, wCand = 0, user = 0, cand = 0, output = 0;
  CHECK(checkStridedRows(ctx, op, "wUser", args->dtype, &wUser, args->m,
                         args->kUser, args->wUserStride));
  CHECK(checkStridedRows(ctx, op, "wCand", args->dtype, &wCand, args->m,
                         args->kCand, args->wCandStride));
  CHECK(checkCount(ctx, op, "user", args->dtype, &user, args->numUsers,
                   args->kUser, args->n, 1));
  CHECK(checkCount(ctx, op, "cand", args->dtype, &cand, args->batchSize,
                   args->kCand, args->n, 1));
  CHECK(checkCount(ctx, op, "output", args->dtype, &output, args->batchSize,
                   args->m, args->n, 1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  CHECK(checkData(ctx, op, "wUser", args->wUser, wUser));
  CHECK(checkData(ctx, op, "wCand", args->wCand, wCand));
  CHECK(checkData(ctx, op, "user", args->user, user));
  CHECK(checkData(ctx, op, "cand", args->cand, cand));
  CHECK(checkData(ctx, op, "candToUser", args->candToUser, args->batchSize));
  CHECK(checkData(ctx, op, "output", args->output, output));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

embrtStatus embrtCheckAttention(embrtContext *ctx,
                                const embrtAttentionArgs *args, int isIkbo,
                                embrtCheckMode mode) {
  const char *op = isIkbo ? "ikbo_attention" : "attention";
  CHECK(checkStruct(ctx, op, args, args ? args->structSize : 0,
                    sizeof(embrtAttentionArgs), "embrtAttentionArgs"));
  CHECK(checkStorageFloat(ctx, op, "dtype", args->dtype));
  CHECK(checkNonNegative(ctx, op, "batchSize", args->batchSize));
  CHECK(checkNonNegative(ctx, op, "numUsers", args->numUsers));
  CHECK(checkNonNegative(ctx, op, "lq", args->lq));
  CHECK(checkNonNegative(ctx, op, "lk", args->lk));
  CHECK(checkNonNegative(ctx, op, "heads", args->heads));
  CHECK(checkNonNegative(ctx, op, "headDim", args->headDim));
  CHECK(checkConfigId(ctx, op, args->configId));
  if (isIkbo) {
    CHECK(checkIndexDtype(ctx, op, "indexDtype", args->indexDtype));
  } else {
    if (args->numUsers != args->batchSize)
      return invalid(ctx, "%s: numUsers is %lld, must equal batchSize %lld", op,
                     (long long)args->numUsers, (long long)args->batchSize);
    if (args->candToUser)
      return invalid(ctx,
                     "%s: candToUser must be NULL (it belongs to "
                     "ikbo_attention)",
                     op);
    if (args->userLengths)
      return invalid(ctx,
                     "%s: userLengths must be NULL (it belongs to "
                     "ikbo_attention)",
                     op);
  }
  int64_t q = 0, kv = 0, scores = 0;
  CHECK(checkCount(ctx, op, "q", args->dtype, &q, args->batchSize, args->lq,
                   args->heads, args->headDim));
  CHECK(checkCount(ctx, op, "k", args->dtype, &kv, args->numUsers, args->lk,
                   args->heads, args->headDim));
  CHECK(checkCount(ctx, op, "the score row", EMBRT_F64, &scores, args->lk, 1, 1,
                   1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  CHECK(checkData(ctx, op, "q", args->q, q));
  CHECK(checkData(ctx, op, "k", args->k, kv));
  CHECK(checkData(ctx, op, "v", args->v, kv));
  if (isIkbo)
    CHECK(checkData(ctx, op, "candToUser", args->candToUser, args->batchSize));
  CHECK(checkData(ctx, op, "output", args->output, q));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Data movement and elementwise
//===----------------------------------------------------------------------===//

embrtStatus embrtCheckConcat(embrtContext *ctx, const embrtConcatArgs *args) {
  const char *op = "concat";
  CHECK(checkStruct(ctx, op, args, args ? args->structSize : 0,
                    sizeof(embrtConcatArgs), "embrtConcatArgs"));
  if (!isKnownDtype(args->dtype))
    return invalid(ctx, "%s: dtype is %d, not an embrtDtype", op,
                   (int)args->dtype);
  CHECK(checkNonNegative(ctx, op, "numInputs", args->numInputs));
  CHECK(checkNonNegative(ctx, op, "outerSize", args->outerSize));
  CHECK(checkNonNegative(ctx, op, "innerSize", args->innerSize));
  if (args->numInputs > 0 && !args->inputs)
    return invalid(ctx, "%s: inputs is NULL", op);
  if (args->numInputs > 0 && !args->inputDimSizes)
    return invalid(ctx, "%s: inputDimSizes is NULL", op);
  int64_t total = 0;
  for (int64_t i = 0; i < args->numInputs; ++i) {
    int64_t size = args->inputDimSizes[i], elements = 0;
    if (size < 0)
      return invalid(ctx, "%s: inputDimSizes[%lld] is %lld, must be >= 0", op,
                     (long long)i, (long long)size);
    if (size > INT64_MAX - total)
      return invalid(ctx, "%s: the output is too large to address", op);
    total += size;
    CHECK(checkCount(ctx, op, "an input", args->dtype, &elements,
                     args->outerSize, size, args->innerSize, 1));
    if (elements > 0 && !args->inputs[i])
      return invalid(ctx, "%s: inputs[%lld] is NULL", op, (long long)i);
  }
  int64_t outputElements = 0;
  CHECK(checkCount(ctx, op, "the output", args->dtype, &outputElements,
                   args->outerSize, total, args->innerSize, 1));
  CHECK(checkData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

embrtStatus embrtCheckStridedCopy(embrtContext *ctx,
                                  const embrtStridedCopyArgs *args) {
  const char *op = "strided_copy";
  CHECK(checkStruct(ctx, op, args, args ? args->structSize : 0,
                    sizeof(embrtStridedCopyArgs), "embrtStridedCopyArgs"));
  if (!isKnownDtype(args->dtype))
    return invalid(ctx, "%s: dtype is %d, not an embrtDtype", op,
                   (int)args->dtype);
  if (args->rank < 0 || args->rank > EMBRT_MAX_RANK)
    return invalid(ctx, "%s: rank is %lld, must be in 0..%d", op,
                   (long long)args->rank, EMBRT_MAX_RANK);
  CHECK(checkNonNegative(ctx, op, "inputOffset", args->inputOffset));
  int64_t elements = 1;
  for (int64_t d = 0; d < args->rank; ++d) {
    if (args->sizes[d] < 0)
      return invalid(ctx, "%s: sizes[%lld] is %lld, must be >= 0", op,
                     (long long)d, (long long)args->sizes[d]);
    if (!mulOk(elements, args->sizes[d], &elements))
      return invalid(ctx, "%s: the output is too large to address", op);
  }
  CHECK(
      checkCount(ctx, op, "the output", args->dtype, NULL, elements, 1, 1, 1));
  if (elements > 0) {
    // The window's lowest and highest input elements must be addressable.
    int64_t low = args->inputOffset, high = args->inputOffset;
    for (int64_t d = 0; d < args->rank; ++d) {
      int64_t stride = args->inputStrides[d], reach;
      int64_t magnitude = stride < 0 ? -stride : stride;
      if (stride == INT64_MIN ||
          !mulOk(args->sizes[d] - 1, magnitude, &reach) ||
          (stride > 0 && reach > INT64_MAX - high))
        return invalid(ctx, "%s: inputStrides[%lld] is too large", op,
                       (long long)d);
      if (stride < 0 && reach > low)
        return invalid(ctx,
                       "%s: the window reaches before the start of the input "
                       "(inputOffset %lld, inputStrides[%lld] is %lld)",
                       op, (long long)args->inputOffset, (long long)d,
                       (long long)stride);
      if (stride < 0)
        low -= reach;
      else
        high += reach;
    }
    CHECK(checkCount(ctx, op, "the input window", args->dtype, NULL, high, 1, 1,
                     1));
  }
  CHECK(checkData(ctx, op, "input", args->input, elements));
  CHECK(checkData(ctx, op, "output", args->output, elements));
  return EMBRT_OK;
}

embrtStatus embrtCheckElementwise(embrtContext *ctx,
                                  const embrtElementwiseArgs *args) {
  const char *op = "elementwise";
  CHECK(checkStruct(ctx, op, args, args ? args->structSize : 0,
                    sizeof(embrtElementwiseArgs), "embrtElementwiseArgs"));
  int integer = args->dtype == EMBRT_I32 || args->dtype == EMBRT_I64;
  if (!isFloatDtype(args->dtype) && !integer)
    return invalid(ctx,
                   "%s: dtype is %s, must be f32, f16, bf16, f64, i32 or i64",
                   op, dtypeName(args->dtype));
  if (integer && ((args->isUnary && args->unaryOp != EMBRT_UNARY_NEG &&
                   args->unaryOp != EMBRT_UNARY_ABS) ||
                  (!args->isUnary && args->binaryOp == EMBRT_BINARY_DIV)))
    return invalid(ctx,
                   "%s: %s takes add, sub, mul, max, min, neg and abs only", op,
                   dtypeName(args->dtype));
  CHECK(checkNonNegative(ctx, op, "numElements", args->numElements));
  CHECK(checkCount(ctx, op, "output", args->dtype, NULL, args->numElements, 1,
                   1, 1));
  if (args->isUnary) {
    if ((int)args->unaryOp < EMBRT_UNARY_NEG ||
        (int)args->unaryOp > EMBRT_UNARY_ABS)
      return invalid(ctx, "%s: unaryOp is %d, not an embrtUnaryOp", op,
                     (int)args->unaryOp);
    if (args->b)
      return invalid(ctx, "%s: b must be NULL for a unary op", op);
  } else {
    if ((int)args->binaryOp < EMBRT_BINARY_ADD ||
        (int)args->binaryOp > EMBRT_BINARY_MIN)
      return invalid(ctx, "%s: binaryOp is %d, not an embrtBinaryOp", op,
                     (int)args->binaryOp);
    CHECK(checkData(ctx, op, "b", args->b, args->numElements));
  }
  CHECK(checkData(ctx, op, "a", args->a, args->numElements));
  CHECK(checkData(ctx, op, "output", args->output, args->numElements));
  return EMBRT_OK;
}

embrtStatus embrtCheckFill(embrtContext *ctx, const void *output,
                           embrtDtype dtype, int64_t numElements,
                           const void *value) {
  const char *op = "fill";
  if (!isKnownDtype(dtype))
    return invalid(ctx, "%s: dtype is %d, not an embrtDtype", op, (int)dtype);
  CHECK(checkNonNegative(ctx, op, "numElements", numElements));
  CHECK(checkCount(ctx, op, "output", dtype, NULL, numElements, 1, 1, 1));
  if (!value)
    return invalid(ctx, "%s: value is NULL", op);
  return checkData(ctx, op, "output", output, numElements);
}

embrtStatus embrtCheckConvert(embrtContext *ctx, const void *input,
                              embrtDtype inputDtype, const void *output,
                              embrtDtype outputDtype, int64_t numElements) {
  const char *op = "convert";
  if (!isKnownDtype(inputDtype))
    return invalid(ctx, "%s: inputDtype is %d, not an embrtDtype", op,
                   (int)inputDtype);
  if (!isKnownDtype(outputDtype))
    return invalid(ctx, "%s: outputDtype is %d, not an embrtDtype", op,
                   (int)outputDtype);
  CHECK(checkNonNegative(ctx, op, "numElements", numElements));
  CHECK(checkCount(ctx, op, "input", inputDtype, NULL, numElements, 1, 1, 1));
  CHECK(checkCount(ctx, op, "output", outputDtype, NULL, numElements, 1, 1, 1));
  CHECK(checkData(ctx, op, "input", input, numElements));
  return checkData(ctx, op, "output", output, numElements);
}

//===----------------------------------------------------------------------===//
// Workspace
//===----------------------------------------------------------------------===//

size_t embrtWorkspaceAlignment(const embrtContext *ctx) {
  return ctx->device == EMBRT_DEVICE_CUDA ? 256 : 16;
}

embrtStatus embrtCheckWorkspace(embrtContext *ctx, const char *op,
                                const void *workspace, size_t bytes,
                                size_t needed) {
  if (needed == 0)
    return EMBRT_OK;
  if (!workspace)
    return invalid(ctx, "%s: workspace is NULL, needs %zu bytes", op, needed);
  if (bytes < needed)
    return invalid(ctx, "%s: workspace has %zu bytes, needs %zu", op, bytes,
                   needed);
  size_t alignment = embrtWorkspaceAlignment(ctx);
  if ((uintptr_t)workspace % alignment != 0)
    return invalid(ctx, "%s: workspace must be %zu-byte aligned", op,
                   alignment);
  return EMBRT_OK;
}

embrtStatus embrtCheckBytesOut(embrtContext *ctx, const char *op,
                               const size_t *bytes) {
  if (!bytes)
    return invalid(ctx, "%s: bytes is NULL", op);
  return EMBRT_OK;
}
