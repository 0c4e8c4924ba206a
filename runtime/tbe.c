//===- runtime/tbe.c - emb.tbe and emb.embedding_bag --------------*- C -*-===//
//
// The backend-neutral side of the table-batched lookup: the argument checks,
// the public entry points (embrtTbe*, embrtEmbeddingBag*), the compiled-ABI
// decoders (embrtCompiledTbe*) and the launch-configuration choice the
// compiler stores (embrtTbeSelectConfig, over kernels/tbe_config.h). An
// embedding bag runs as a TBE of one table and one feature. Each entry point
// checks its arguments once, asks the backend for the workspace it needs and
// checks the caller's, then calls the context's backend; a context whose sticky
// status already holds an error still runs the call.
//
//===----------------------------------------------------------------------===//

#include "runtime/tbe.h"
#include "emb/compiled.h"
#include "kernels/tbe_config.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"
#include "runtime/quantize.h"

#include <stdio.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

/// Checks the parts shared by tbe and embedding_bag: enums, the dtypes, the
/// per-sample weights and the index counts.
static embrtStatus
checkLookupCommon(embrtContext *ctx, const char *op, const char *poolingName,
                  embrtPooling pooling, embrtBoundsCheck boundsCheck,
                  embrtDtype tableDtype, const char *tableDtypeName,
                  embrtDtype indexDtype, embrtDtype offsetDtype,
                  int64_t numIndices, const void *perSampleWeights,
                  embrtDtype perSampleWeightDtype, embrtDtype outputDtype,
                  int64_t configId, int withOutput) {
  if (pooling != EMBRT_POOLING_SUM && pooling != EMBRT_POOLING_MEAN &&
      pooling != EMBRT_POOLING_NONE)
    return embrtInvalid(ctx, "%s: %s is %d, not an embrtPooling", op,
                        poolingName, (int)pooling);
  if ((int)boundsCheck < EMBRT_BOUNDS_FATAL ||
      (int)boundsCheck > EMBRT_BOUNDS_NONE)
    return embrtInvalid(ctx, "%s: boundsCheck is %d, not an embrtBoundsCheck",
                        op, (int)boundsCheck);
  EMBRT_TRY(embrtCheckStorageFloat(ctx, op, tableDtypeName, tableDtype));
  EMBRT_TRY(embrtCheckIndexDtype(ctx, op, "indexDtype", indexDtype));
  EMBRT_TRY(embrtCheckIndexDtype(ctx, op, "offsetDtype", offsetDtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numIndices", numIndices));
  if (offsetDtype == EMBRT_I32 && numIndices > INT32_MAX)
    return embrtInvalid(ctx, "%s: numIndices is %lld, too many for i32 offsets",
                        op, (long long)numIndices);
  if (perSampleWeights) {
    if (pooling != EMBRT_POOLING_SUM)
      return embrtInvalid(ctx, "%s: perSampleWeights need %s SUM", op,
                          poolingName);
    if (perSampleWeightDtype != EMBRT_F32 && perSampleWeightDtype != tableDtype)
      return embrtInvalid(
          ctx, "%s: perSampleWeightDtype is %s, must be f32 or %s", op,
          embrtDtypeName(perSampleWeightDtype), embrtDtypeName(tableDtype));
  }
  if (!withOutput)
    return EMBRT_OK;
  if (outputDtype != EMBRT_F32 && outputDtype != tableDtype)
    return embrtInvalid(ctx, "%s: outputDtype is %s, must be f32 or %s", op,
                        embrtDtypeName(outputDtype),
                        embrtDtypeName(tableDtype));
  return embrtCheckConfigId(ctx, op, configId);
}

/// Table t's storage: dense rows of tableDtype, or packed rows of a known
/// precision whose D packs into whole bytes (embrtQuantizedRowBytes). Only
/// the forward (`withOutput`) reads quantized tables.
static embrtStatus checkTablePrecision(embrtContext *ctx, const char *op,
                                       const embrtTbeArgs *args, int64_t t,
                                       int withOutput) {
  int64_t rows = args->tableRows[t], dim = args->tableDims[t];
  int64_t stored =
      args->tablePrecisions ? args->tablePrecisions[t] : EMBRT_PRECISION_DENSE;
  embrtTablePrecision p = (embrtTablePrecision)stored;
  if (stored == EMBRT_PRECISION_DENSE)
    return embrtCheckCount(ctx, op, "a table", args->tableDtype, NULL, rows,
                           dim, 1, 1);
  int bits =
      stored > 0 && stored <= EMBRT_PRECISION_FP8 ? embrtPrecisionBits(p) : 0;
  if (bits == 0)
    return embrtInvalid(ctx,
                        "%s: tablePrecisions[%lld] is %lld, not an "
                        "embrtTablePrecision",
                        op, (long long)t, (long long)stored);
  if (!withOutput)
    return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                         "%s: table %lld is %s; the backward updates dense "
                         "tables only",
                         op, (long long)t, embrtTablePrecisionName(p));
  int64_t rowBytes = embrtQuantizedRowBytes(p, dim);
  if (rowBytes < 0)
    return embrtInvalid(ctx,
                        "%s: tableDims[%lld] is %lld, not a multiple of %d, "
                        "which one byte of %s packs",
                        op, (long long)t, (long long)dim, 8 / bits,
                        embrtTablePrecisionName(p));
  return embrtCheckCount(ctx, op, "a table", EMBRT_I8, NULL, rows, rowBytes, 1,
                         1);
}

/// What a lookup with maskedOffsets admits (embrtTbeArgs::maskedOffsets).
static embrtStatus checkMaskedOffsets(embrtContext *ctx, const char *op,
                                      const embrtTbeArgs *args) {
  if (!args->maskedOffsets)
    return EMBRT_OK;
  if (args->pooling == EMBRT_POOLING_NONE)
    return embrtInvalid(ctx, "%s: maskedOffsets needs pooling SUM or MEAN", op);
  if (args->numFeatures > 1 && !args->featureEnds)
    return embrtInvalid(ctx,
                        "%s: maskedOffsets with %lld features needs "
                        "featureEnds (where each feature's ids are)",
                        op, (long long)args->numFeatures);
  if (args->pooling == EMBRT_POOLING_MEAN &&
      (args->hasPaddingIdx || (args->boundsCheck != EMBRT_BOUNDS_FATAL &&
                               args->boundsCheck != EMBRT_BOUNDS_NONE)))
    return embrtInvalid(ctx,
                        "%s: maskedOffsets with pooling MEAN takes no "
                        "paddingIdx and boundsCheck FATAL or NONE only (its "
                        "divisor counts every id of the bag)",
                        op);
  return EMBRT_OK;
}

embrtStatus embrtCheckTbeLookup(embrtContext *ctx, const char *op,
                                const embrtTbeArgs *args, embrtCheckMode mode,
                                int withOutput) {
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtTbeArgs), "embrtTbeArgs"));
  EMBRT_TRY(checkLookupCommon(
      ctx, op, "pooling", args->pooling, args->boundsCheck, args->tableDtype,
      "tableDtype", args->indexDtype, args->offsetDtype, args->numIndices,
      args->perSampleWeights, args->perSampleWeightDtype, args->outputDtype,
      args->configId, withOutput));
  int64_t T = args->numTables, F = args->numFeatures, B = args->batchSize;
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numTables", T));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numFeatures", F));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "batchSize", B));

  if (T > 0 && !args->tableRows)
    return embrtInvalid(ctx, "%s: tableRows is NULL", op);
  if (T > 0 && !args->tableDims)
    return embrtInvalid(ctx, "%s: tableDims is NULL", op);
  if (T > 0 && mode == EMBRT_CHECK_CALL && !args->tables)
    return embrtInvalid(ctx, "%s: tables is NULL", op);
  for (int64_t t = 0; t < T; ++t) {
    int64_t rows = args->tableRows[t], dim = args->tableDims[t];
    if (rows < 0)
      return embrtInvalid(ctx, "%s: tableRows[%lld] is %lld, must be >= 0", op,
                          (long long)t, (long long)rows);
    if (dim < 1 || dim > EMBRT_MAX_TABLE_DIM)
      return embrtInvalid(ctx, "%s: tableDims[%lld] is %lld, must be in 1..%d",
                          op, (long long)t, (long long)dim,
                          EMBRT_MAX_TABLE_DIM);
    EMBRT_TRY(checkTablePrecision(ctx, op, args, t, withOutput));
    if (mode == EMBRT_CHECK_CALL && rows > 0 && !args->tables[t])
      return embrtInvalid(ctx, "%s: tables[%lld] is NULL", op, (long long)t);
  }

  if (F > 0 && !args->featureTables)
    return embrtInvalid(ctx, "%s: featureTables is NULL", op);
  int64_t sumDims = 0;
  for (int64_t f = 0; f < F; ++f) {
    int64_t t = args->featureTables[f];
    if (t < 0 || t >= T)
      return embrtInvalid(
          ctx, "%s: featureTables[%lld] is %lld, outside the %lld tables", op,
          (long long)f, (long long)t, (long long)T);
    sumDims += args->tableDims[t]; // <= F * EMBRT_MAX_TABLE_DIM: no overflow
    if (args->pooling == EMBRT_POOLING_NONE) {
      int64_t t0 = args->featureTables[0];
      if (args->tableDims[t] != args->tableDims[t0])
        return embrtInvalid(
            ctx,
            "%s: pooling NONE needs one D for all features, feature "
            "0 has %lld (table %lld) but feature %lld has %lld "
            "(table %lld)",
            op, (long long)args->tableDims[t0], (long long)t0, (long long)f,
            (long long)args->tableDims[t], (long long)t);
    }
  }

  int64_t numBags = 0, outputElements = 0;
  if (!embrtMulOk(F, B, &numBags) || numBags == INT64_MAX)
    return embrtInvalid(ctx, "%s: numFeatures * batchSize is too large", op);
  EMBRT_TRY(embrtCheckCount(ctx, op, "offsets", args->offsetDtype, NULL,
                            numBags + 1, 1, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "indices", args->indexDtype, NULL,
                            args->numIndices, 1, 1, 1));
  if (!withOutput) {
    if (mode == EMBRT_CHECK_SHAPES)
      return EMBRT_OK;
    EMBRT_TRY(
        embrtCheckData(ctx, op, "indices", args->indices, args->numIndices));
    return embrtCheckData(ctx, op, "offsets", args->offsets, 1);
  }
  if (args->pooling == EMBRT_POOLING_NONE) {
    int64_t dim = F > 0 ? args->tableDims[args->featureTables[0]] : 0;
    EMBRT_TRY(embrtCheckCount(ctx, op, "output", args->outputDtype,
                              &outputElements, args->numIndices, dim, 1, 1));
  } else {
    EMBRT_TRY(embrtCheckCount(ctx, op, "output", args->outputDtype,
                              &outputElements, B, sumDims, 1, 1));
  }
  if (args->featureEnds && F > INT64_MAX / 2)
    return embrtInvalid(ctx, "%s: numFeatures is too large for featureEnds",
                        op);
  EMBRT_TRY(checkMaskedOffsets(ctx, op, args));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  EMBRT_TRY(
      embrtCheckData(ctx, op, "indices", args->indices, args->numIndices));
  EMBRT_TRY(embrtCheckData(ctx, op, "offsets", args->offsets, 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

embrtStatus embrtCheckEmbeddingBagLookup(embrtContext *ctx, const char *op,
                                         const embrtEmbeddingBagArgs *args,
                                         embrtCheckMode mode, int withOutput) {
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtEmbeddingBagArgs),
                             "embrtEmbeddingBagArgs"));
  EMBRT_TRY(checkLookupCommon(
      ctx, op, "mode", args->mode, args->boundsCheck, args->weightDtype,
      "weightDtype", args->indexDtype, args->offsetDtype, args->numIndices,
      args->perSampleWeights, args->perSampleWeightDtype, args->outputDtype,
      args->configId, withOutput));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "rows", args->rows));
  if (args->dim < 1 || args->dim > EMBRT_MAX_TABLE_DIM)
    return embrtInvalid(ctx, "%s: dim is %lld, must be in 1..%d", op,
                        (long long)args->dim, EMBRT_MAX_TABLE_DIM);
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "batchSize", args->batchSize));
  int64_t weightElements = 0, outputElements = 0;
  EMBRT_TRY(embrtCheckCount(ctx, op, "weight", args->weightDtype,
                            &weightElements, args->rows, args->dim, 1, 1));
  if (args->batchSize == INT64_MAX)
    return embrtInvalid(ctx, "%s: batchSize is too large", op);
  EMBRT_TRY(embrtCheckCount(ctx, op, "offsets", args->offsetDtype, NULL,
                            args->batchSize + 1, 1, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "indices", args->indexDtype, NULL,
                            args->numIndices, 1, 1, 1));
  if (!withOutput) {
    if (mode == EMBRT_CHECK_SHAPES)
      return EMBRT_OK;
    EMBRT_TRY(embrtCheckData(ctx, op, "weight", args->weight, weightElements));
    EMBRT_TRY(
        embrtCheckData(ctx, op, "indices", args->indices, args->numIndices));
    return embrtCheckData(ctx, op, "offsets", args->offsets, 1);
  }
  EMBRT_TRY(embrtCheckCount(
      ctx, op, "output", args->outputDtype, &outputElements,
      args->mode == EMBRT_POOLING_NONE ? args->numIndices : args->batchSize,
      args->dim, 1, 1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  EMBRT_TRY(embrtCheckData(ctx, op, "weight", args->weight, weightElements));
  EMBRT_TRY(
      embrtCheckData(ctx, op, "indices", args->indices, args->numIndices));
  EMBRT_TRY(embrtCheckData(ctx, op, "offsets", args->offsets, 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

embrtStatus embrtTbeWorkspaceSize(embrtContext *ctx, const embrtTbeArgs *args,
                                  size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckBytesOut(ctx, "tbe", bytes));
  EMBRT_TRY(embrtCheckTbeLookup(ctx, "tbe", args, EMBRT_CHECK_SHAPES, 1));
  return ctx->backend->tbeWorkspaceSize(ctx, args, bytes);
}

/// Runs checked TBE arguments: workspace check, then the backend.
static embrtStatus runTbe(embrtContext *ctx, const char *op,
                          const embrtTbeArgs *args) {
  size_t needed = 0;
  EMBRT_TRY(ctx->backend->tbeWorkspaceSize(ctx, args, &needed));
  EMBRT_TRY(embrtCheckWorkspace(ctx, op, args->workspace, args->workspaceBytes,
                                needed));
  return ctx->backend->tbeForward(ctx, op, args);
}

embrtStatus embrtTbeForward(embrtContext *ctx, const embrtTbeArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckTbeLookup(ctx, "tbe", args, EMBRT_CHECK_CALL, 1));
  return runTbe(ctx, "tbe", args);
}

void embrtEmbeddingBagToTbe(const embrtEmbeddingBagArgs *bag,
                            embrtSingleTableTbe *tbe) {
  tbe->tables[0] = bag->weight;
  tbe->tableRows[0] = bag->rows;
  tbe->tableDims[0] = bag->dim;
  tbe->featureTables[0] = 0;
  embrtTbeArgs *a = &tbe->args;
  a->structSize = sizeof(embrtTbeArgs);
  a->pooling = bag->mode;
  a->boundsCheck = bag->boundsCheck;
  a->numTables = 1;
  a->tables = tbe->tables;
  a->tableRows = tbe->tableRows;
  a->tableDims = tbe->tableDims;
  a->tableDtype = bag->weightDtype;
  a->numFeatures = 1;
  a->featureTables = tbe->featureTables;
  a->batchSize = bag->batchSize;
  a->numIndices = bag->numIndices;
  a->indices = bag->indices;
  a->indexDtype = bag->indexDtype;
  a->offsets = bag->offsets;
  a->offsetDtype = bag->offsetDtype;
  a->perSampleWeights = bag->perSampleWeights;
  a->perSampleWeightDtype = bag->perSampleWeightDtype;
  a->paddingIdx = bag->paddingIdx;
  a->hasPaddingIdx = bag->hasPaddingIdx;
  a->output = bag->output;
  a->outputDtype = bag->outputDtype;
  a->configId = bag->configId;
  a->workspace = bag->workspace;
  a->workspaceBytes = bag->workspaceBytes;
  a->maskedOffsets = bag->maskedOffsets;
}

void embrtTbeToEmbeddingBag(const embrtTbeArgs *tbe,
                            embrtEmbeddingBagArgs *bag) {
  memset(bag, 0, sizeof *bag);
  bag->structSize = sizeof *bag;
  bag->mode = tbe->pooling;
  bag->boundsCheck = tbe->boundsCheck;
  bag->weight = tbe->tables ? tbe->tables[0] : NULL;
  bag->rows = tbe->tableRows ? tbe->tableRows[0] : 0;
  bag->dim = tbe->tableDims ? tbe->tableDims[0] : 0;
  bag->weightDtype = tbe->tableDtype;
  bag->batchSize = tbe->batchSize;
  bag->numIndices = tbe->numIndices;
  bag->indices = tbe->indices;
  bag->indexDtype = tbe->indexDtype;
  bag->offsets = tbe->offsets;
  bag->offsetDtype = tbe->offsetDtype;
  bag->perSampleWeights = tbe->perSampleWeights;
  bag->perSampleWeightDtype = tbe->perSampleWeightDtype;
  bag->paddingIdx = tbe->paddingIdx;
  bag->hasPaddingIdx = tbe->hasPaddingIdx;
  bag->output = tbe->output;
  bag->outputDtype = tbe->outputDtype;
  bag->configId = tbe->configId;
  bag->workspace = tbe->workspace;
  bag->workspaceBytes = tbe->workspaceBytes;
  bag->maskedOffsets = tbe->maskedOffsets;
}

embrtStatus embrtEmbeddingBagWorkspaceSize(embrtContext *ctx,
                                           const embrtEmbeddingBagArgs *args,
                                           size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckBytesOut(ctx, "embedding_bag", bytes));
  EMBRT_TRY(embrtCheckEmbeddingBagLookup(ctx, "embedding_bag", args,
                                         EMBRT_CHECK_SHAPES, 1));
  embrtSingleTableTbe tbe = {0};
  embrtEmbeddingBagToTbe(args, &tbe);
  return ctx->backend->tbeWorkspaceSize(ctx, &tbe.args, bytes);
}

embrtStatus embrtEmbeddingBag(embrtContext *ctx,
                              const embrtEmbeddingBagArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckEmbeddingBagLookup(ctx, "embedding_bag", args,
                                         EMBRT_CHECK_CALL, 1));
  embrtSingleTableTbe tbe = {0};
  embrtEmbeddingBagToTbe(args, &tbe);
  EMBRT_TRY(checkMaskedOffsets(ctx, "embedding_bag", &tbe.args));
  return runTbe(ctx, "embedding_bag", &tbe.args);
}

//===----------------------------------------------------------------------===//
// Launch configurations (kernels/tbe_config.h)
//===----------------------------------------------------------------------===//

int64_t embrtTbeSelectConfig(embrtDtype tableDtype, int64_t maxDim,
                             int64_t avgBagSize, int64_t numBags) {
  const TbeShape shape = {tableDtype, maxDim, avgBagSize, numBags};
  return tbeSelectConfig(&shape);
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
//===----------------------------------------------------------------------===//

/// Decodes an emb.tbe call. The tables, their rows and their widths are read
/// in place: they are contiguous in `buffers` and `dims`.
static embrtTbeArgs decodeTbe(const int64_t *attrs, void *const *buffers,
                              const int64_t *dims) {
  embrtTbeArgs a;
  int64_t numTables = attrs[EMB_ABI_TBE_NUM_TABLES];
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.pooling = (embrtPooling)attrs[EMB_ABI_TBE_POOLING];
  a.boundsCheck = (embrtBoundsCheck)attrs[EMB_ABI_TBE_BOUNDS_CHECK];
  a.hasPaddingIdx = (int)attrs[EMB_ABI_TBE_HAS_PADDING];
  a.paddingIdx = attrs[EMB_ABI_TBE_PADDING_IDX];
  a.tableDtype = (embrtDtype)attrs[EMB_ABI_TBE_TABLE_DTYPE];
  a.indexDtype = (embrtDtype)attrs[EMB_ABI_TBE_INDEX_DTYPE];
  a.offsetDtype = a.indexDtype;
  a.outputDtype = (embrtDtype)attrs[EMB_ABI_TBE_OUTPUT_DTYPE];
  a.configId = attrs[EMB_ABI_TBE_CONFIG_ID];
  a.numTables = numTables;
  a.numFeatures = attrs[EMB_ABI_TBE_NUM_FEATURES];
  a.maskedOffsets = (int)attrs[EMB_ABI_TBE_MASKED_OFFSETS];
  a.featureTables = attrs + EMB_ABI_TBE_FEATURE_TABLES;
  if (attrs[EMB_ABI_TBE_PRECISIONS])
    a.tablePrecisions = attrs + EMB_ABI_TBE_FEATURE_TABLES + a.numFeatures;
  a.indices = buffers[EMB_ABI_TBE_BUF_INDICES];
  a.offsets = buffers[EMB_ABI_TBE_BUF_OFFSETS];
  if (attrs[EMB_ABI_TBE_PSW_DTYPE] >= 0) {
    a.perSampleWeights = buffers[EMB_ABI_TBE_BUF_PSW];
    a.perSampleWeightDtype = (embrtDtype)attrs[EMB_ABI_TBE_PSW_DTYPE];
  }
  a.output = buffers[EMB_ABI_TBE_BUF_OUTPUT];
  a.workspace = buffers[EMB_ABI_TBE_BUF_WORKSPACE];
  a.workspaceBytes = (size_t)dims[EMB_ABI_TBE_DIM_WORKSPACE];
  a.numIndices = dims[EMB_ABI_TBE_DIM_INDICES];
  a.batchSize = dims[EMB_ABI_TBE_DIM_BATCH];
  a.tables = (const void *const *)(buffers + EMB_ABI_TBE_BUF_TABLES);
  a.tableRows = dims + EMB_ABI_TBE_DIM_TABLES;
  a.tableDims = dims + EMB_ABI_TBE_DIM_TABLES + numTables;
  return a;
}

/// The name of table `t` in messages: `weight` for a bag, else `weights_t`.
static const char *tableName(int isBag, int64_t t, char *buffer, size_t size) {
  if (isBag)
    return "weight";
  snprintf(buffer, size, "weights_%lld", (long long)t);
  return buffer;
}

embrtStatus embrtCheckCompiledLookup(embrtContext *ctx, const char *op,
                                     int isBag, int hasPsw, const char *out,
                                     const embrtTbeArgs *a,
                                     const int64_t *dims) {
  int64_t F = a->numFeatures, B = a->batchSize, N = a->numIndices;
  int64_t offsets = dims[EMB_ABI_TBE_DIM_OFFSETS];
  int64_t outRows = dims[EMB_ABI_TBE_DIM_OUTPUT_ROWS];
  int64_t outCols = dims[EMB_ABI_TBE_DIM_OUTPUT_COLS];
  int pooled = a->pooling != EMBRT_POOLING_NONE;
  if (hasPsw)
    EMBRT_TRY(embrtCheckExtent(ctx, op, "per_sample_weights",
                               dims[EMB_ABI_TBE_DIM_PSW], "entries", "indices",
                               N, "entries"));
  if (offsets < 1)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: offsets has %lld entries, needs at least 1", op,
                         (long long)offsets);
  // Malformed counts are the entry point's to report.
  if (F < 1 || B < 0 || N < 0 || a->numTables < 1)
    return EMBRT_OK;
  int64_t bags = 0;
  if (!embrtMulOk(F, B, &bags) || bags != offsets - 1) {
    if (!pooled)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "%s: offsets has %lld entries, not %lld features x "
                           "a batch + 1",
                           op, (long long)offsets, (long long)F);
    if (F == 1)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "%s: offsets has %lld entries but %s has %lld rows "
                           "(bags), which need %lld",
                           op, (long long)offsets, out, (long long)B,
                           (long long)(B + 1));
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: offsets has %lld entries but %lld features x "
                         "%s's %lld rows (bags) need %lld",
                         op, (long long)offsets, (long long)F, out,
                         (long long)B, (long long)(bags + 1));
  }
  char name[32];
  if (!pooled) {
    int64_t t = a->featureTables[0];
    if (t < 0 || t >= a->numTables)
      return EMBRT_OK;
    EMBRT_TRY(embrtCheckExtent(ctx, op, out, outRows, "rows", "indices", N,
                               "entries"));
    return embrtCheckExtent(ctx, op, out, outCols, "columns",
                            tableName(isBag, t, name, sizeof name),
                            a->tableDims[t], "columns");
  }
  if (outRows != B)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: %s has %lld rows but offsets has %lld entries, "
                         "for %lld rows (bags)",
                         op, out, (long long)outRows, (long long)offsets,
                         (long long)B);
  int64_t width = 0;
  for (int64_t f = 0; f < F; ++f) {
    int64_t t = a->featureTables[f];
    // A width outside 1..EMBRT_MAX_TABLE_DIM (a table of no rows may be
    // any) is the entry point's to report, and must not overflow the sum.
    if (t < 0 || t >= a->numTables || a->tableDims[t] < 1 ||
        a->tableDims[t] > EMBRT_MAX_TABLE_DIM)
      return EMBRT_OK;
    width += a->tableDims[t];
  }
  if (isBag)
    return embrtCheckExtent(ctx, op, out, outCols, "columns", "weight", width,
                            "columns");
  if (outCols != width)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: %s has %lld columns but the tables of its %lld "
                         "features have %lld in all",
                         op, out, (long long)outCols, (long long)F,
                         (long long)width);
  return EMBRT_OK;
}

/// The feature ends of an emb.tbe with feature_ends: the last 2F entries
/// of its offsets buffer, whose extent the lookup's own offsets are then
/// checked without (in `lookupDims`, the first EMB_ABI_TBE_DIM_TABLES
/// entries of `dims`, which is all embrtCheckCompiledLookup reads of it
/// besides the sizes in `a`). False with an error if they do not fit.
static int splitFeatureEnds(embrtContext *ctx, embrtTbeArgs *a,
                            const int64_t *dims, int64_t *lookupDims) {
  memcpy(lookupDims, dims, EMB_ABI_TBE_DIM_TABLES * sizeof *dims);
  int64_t entries = dims[EMB_ABI_TBE_DIM_OFFSETS], F = a->numFeatures;
  if (F < 1 || F > (INT64_MAX - 1) / 2 || entries < 2 * F + 1) {
    embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                  "emb.tbe: offsets has %lld entries, too few for its %lld "
                  "features' 2F feature ends (feature_ends) and 1 offset",
                  (long long)entries, (long long)F);
    return 0;
  }
  lookupDims[EMB_ABI_TBE_DIM_OFFSETS] = entries - 2 * F;
  a->featureEnds = (const char *)a->offsets +
                   (size_t)(entries - 2 * F) * embrtDtypeSize(a->offsetDtype);
  return 1;
}

void embrtCompiledTbe(embrtContext *ctx, const int64_t *attrs,
                      void *const *buffers, const int64_t *dims) {
  embrtTbeArgs a = decodeTbe(attrs, buffers, dims);
  int isBag = attrs[EMB_ABI_TBE_IS_BAG] != 0;
  int64_t lookupDims[EMB_ABI_TBE_DIM_TABLES];
  if (attrs[EMB_ABI_TBE_FEATURE_ENDS] && !isBag) {
    if (!splitFeatureEnds(ctx, &a, dims, lookupDims))
      return;
    dims = lookupDims;
  }
  if (embrtCheckCompiledLookup(ctx, isBag ? "emb.embedding_bag" : "emb.tbe",
                               isBag, attrs[EMB_ABI_TBE_PSW_DTYPE] >= 0,
                               "the result", &a, dims) != EMBRT_OK)
    return;
  if (!isBag) {
    embrtTbeForward(ctx, &a);
    return;
  }
  embrtEmbeddingBagArgs bag;
  embrtTbeToEmbeddingBag(&a, &bag);
  embrtEmbeddingBag(ctx, &bag);
}

int64_t embrtCompiledTbeWorkspace(embrtContext *ctx, const int64_t *attrs,
                                  void *const *buffers, const int64_t *dims) {
  embrtTbeArgs a = decodeTbe(attrs, buffers, dims);
  size_t bytes = 0;
  embrtStatus status;
  if (attrs[EMB_ABI_TBE_IS_BAG]) {
    embrtEmbeddingBagArgs bag;
    embrtTbeToEmbeddingBag(&a, &bag);
    status = embrtEmbeddingBagWorkspaceSize(ctx, &bag, &bytes);
  } else {
    // The feature ends as the call splits them (masked offsets need them).
    int64_t lookupDims[EMB_ABI_TBE_DIM_TABLES];
    if (attrs[EMB_ABI_TBE_FEATURE_ENDS] &&
        !splitFeatureEnds(ctx, &a, dims, lookupDims))
      return 0;
    status = embrtTbeWorkspaceSize(ctx, &a, &bytes);
  }
  return status == EMBRT_OK ? (int64_t)bytes : 0;
}
