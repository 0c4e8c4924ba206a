//===- runtime/tbe_backward.c - The fused TBE backward ------------*- C -*-===//
//
// The backend-neutral side of training a lookup: the argument checks, the
// public entry points (embrtTbeBackward*, embrtEmbeddingBagBackward*) and the
// compiled-ABI decoders (embrtCompiledTbeBackward*). The lookup fields are
// checked as the forward checks them (runtime/tbe.c), less its output; then
// the gradient, the optimizer and its state, the hyper-parameters, the step
// and the routing configuration (kernels/tbe_backward_config.h). An
// embedding bag runs as a TBE of one table and one feature.
//
// Contract of the update (docs/runtime.md): tables and optimizer states are
// updated in place. Their buffers must not overlap one another or the
// lookup's inputs; the caller keeps them alive until the stream has run the
// call.
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "kernels/tbe_backward_config.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"
#include "runtime/tbe.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

static const char *optimizerName(embrtOptimizer optimizer) {
  switch (optimizer) {
  case EMBRT_OPTIMIZER_SGD:
    return "sgd";
  case EMBRT_OPTIMIZER_ROWWISE_ADAGRAD:
    return "rowwise_adagrad";
  case EMBRT_OPTIMIZER_ADAM:
    return "adam";
  }
  return "?";
}

const char *embrtStatePrecisionName(embrtStatePrecision precision) {
  switch (precision) {
  case EMBRT_STATE_F32:
    return "f32";
  case EMBRT_STATE_BF16:
    return "bf16";
  case EMBRT_STATE_FP8_E4M3:
    return "fp8_e4m3";
  case EMBRT_STATE_FP8_E5M2:
    return "fp8_e5m2";
  }
  return "unknown";
}

int64_t embrtStatePrecisionBytes(embrtStatePrecision precision) {
  switch (precision) {
  case EMBRT_STATE_F32:
    return 4;
  case EMBRT_STATE_BF16:
    return 2;
  case EMBRT_STATE_FP8_E4M3:
  case EMBRT_STATE_FP8_E5M2:
    return 1;
  }
  return 0;
}

static int isFp8State(embrtStatePrecision precision) {
  return precision == EMBRT_STATE_FP8_E4M3 || precision == EMBRT_STATE_FP8_E5M2;
}

/// What each state of `optimizer` holds, for messages ("" when it has none;
/// %s: the state's precision).
static const char *stateNeed(embrtOptimizer optimizer, int which) {
  if (optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD && which == 1)
    return "needs one %s state per row";
  if (optimizer == EMBRT_OPTIMIZER_ADAM)
    return which == 1 ? "needs %s first moments [rows, D] per table"
                      : "needs %s second moments [rows, D] per table";
  return "";
}

/// Checks one optimizer state array (`which` 1 or 2): its precision, present
/// when the optimizer has that state, with an aligned entry for every table
/// that has rows, and, for fp8, the scales.
static embrtStatus checkState(embrtContext *ctx, const char *op,
                              const embrtTbeBackwardArgs *args, int which) {
  const char *need = stateNeed(args->optimizer, which);
  const char *name = which == 1 ? "momentum1" : "momentum2";
  const char *opt = optimizerName(args->optimizer);
  embrtStatePrecision precision =
      which == 1 ? args->momentum1Precision : args->momentum2Precision;
  int64_t bytes = embrtStatePrecisionBytes(precision);
  if (bytes == 0)
    return embrtInvalid(ctx,
                        "%s: %sPrecision is %d, not an embrtStatePrecision", op,
                        name, (int)precision);
  if (!*need) {
    if (precision != EMBRT_STATE_F32)
      return embrtInvalid(ctx,
                          "%s: %sPrecision is %s, but %s has no %s (it must "
                          "be f32)",
                          op, name, embrtStatePrecisionName(precision), opt,
                          name);
    return EMBRT_OK;
  }
  void *const *states = which == 1 ? args->momentum1 : args->momentum2;
  void *const *scales =
      which == 1 ? args->momentum1Scales : args->momentum2Scales;
  const char *pname = embrtStatePrecisionName(precision);
  const int fp8 = isFp8State(precision);
  const char *scaleNeed = args->optimizer == EMBRT_OPTIMIZER_ADAM
                              ? "needs one f32 scale per row ([rows] per table)"
                              : "needs one f32 scale per table ([1] per table)";
  char needText[64];
  snprintf(needText, sizeof needText, need, pname);
  need = needText;
  if (!states)
    return embrtInvalid(ctx, "%s: %s is NULL, %s %s", op, name, opt, need);
  if (fp8 && !scales)
    return embrtInvalid(ctx, "%s: %sScales is NULL, a %s %s %s", op, name,
                        pname, name, scaleNeed);
  for (int64_t t = 0; t < args->lookup.numTables; ++t) {
    if (args->lookup.tableRows[t] == 0)
      continue;
    if (!states[t])
      return embrtInvalid(ctx, "%s: %s[%lld] is NULL, %s %s", op, name,
                          (long long)t, opt, need);
    if ((uintptr_t)states[t] % (uintptr_t)bytes != 0)
      return embrtInvalid(ctx, "%s: %s[%lld] is not %lld-byte aligned (%s)", op,
                          name, (long long)t, (long long)bytes, pname);
    if (!fp8)
      continue;
    if (!scales[t])
      return embrtInvalid(ctx, "%s: %sScales[%lld] is NULL, a %s %s %s", op,
                          name, (long long)t, pname, name, scaleNeed);
    if ((uintptr_t)scales[t] % 4 != 0)
      return embrtInvalid(ctx, "%s: %sScales[%lld] is not 4-byte aligned (f32)",
                          op, name, (long long)t);
    // Rowwise Adagrad's scale is the caller's, read only: a backend on host
    // memory checks it here (CUDA does not read device memory on the host).
    float scale = 0;
    if (args->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD &&
        ctx->backend->usesHostMemory &&
        !((scale = *(const float *)scales[t]) > 0.0f && scale <= 3.4e38f))
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "%s: %sScales[%lld] is %g, the table's scale of a "
                           "%s state must be positive and finite",
                           op, name, (long long)t, (double)scale, pname);
  }
  return EMBRT_OK;
}

/// Checks the fields of the backward beyond the lookup (already checked,
/// under the op's own names, by the caller).
static embrtStatus checkBackwardFields(embrtContext *ctx, const char *op,
                                       const embrtTbeBackwardArgs *args,
                                       embrtCheckMode mode) {
  const embrtTbeArgs *l = &args->lookup;
  if ((int)args->optimizer < EMBRT_OPTIMIZER_SGD ||
      (int)args->optimizer > EMBRT_OPTIMIZER_ADAM)
    return embrtInvalid(ctx, "%s: optimizer is %d, not an embrtOptimizer", op,
                        (int)args->optimizer);
  if (args->gradDtype != EMBRT_F32 && args->gradDtype != l->tableDtype)
    return embrtInvalid(ctx, "%s: gradDtype is %s, must be f32 or %s", op,
                        embrtDtypeName(args->gradDtype),
                        embrtDtypeName(l->tableDtype));
  if (args->configId < -1 || args->configId >= TBE_BWD_NUM_CONFIGS)
    return embrtInvalid(ctx, "%s: configId is %lld, must be -1 or below %d", op,
                        (long long)args->configId, TBE_BWD_NUM_CONFIGS);

  // The gradient's rows and their width; with a row stride, the elements
  // from its first to its last are (rows - 1) * stride + width.
  int64_t gradRows = l->numIndices, width = 0, gradElements = 0;
  if (l->pooling == EMBRT_POOLING_NONE) {
    width = l->numFeatures > 0 ? l->tableDims[l->featureTables[0]] : 0;
  } else {
    gradRows = l->batchSize;
    for (int64_t f = 0; f < l->numFeatures; ++f)
      width += l->tableDims[l->featureTables[f]];
  }
  EMBRT_TRY(embrtCheckCount(ctx, op, "gradOutput", args->gradDtype,
                            &gradElements, gradRows, width, 1, 1));
  if (args->gradRowStride != 0) {
    if (args->gradRowStride < width)
      return embrtInvalid(ctx,
                          "%s: gradRowStride is %lld, must be 0 (dense rows) "
                          "or at least a row's %lld elements",
                          op, (long long)args->gradRowStride, (long long)width);
    int64_t span = 0;
    if (gradRows > 0)
      EMBRT_TRY(embrtCheckCount(ctx, op, "gradOutput", args->gradDtype, &span,
                                gradRows - 1, args->gradRowStride, 1, 1));
    if (span > INT64_MAX - width)
      return embrtInvalid(ctx, "%s: gradOutput is too large to address", op);
    gradElements = gradRows > 0 ? span + width : 0;
  }
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;

  EMBRT_TRY(
      embrtCheckData(ctx, op, "gradOutput", args->gradOutput, gradElements));
  if (!args->hyperParams)
    return embrtInvalid(ctx,
                        "%s: hyperParams is NULL, %s reads %d f32 "
                        "hyper-parameters (learning rate, eps, beta1, beta2, "
                        "weight decay) from device memory",
                        op, optimizerName(args->optimizer),
                        EMBRT_NUM_HYPER_PARAMS);
  if ((uintptr_t)args->hyperParams % 4 != 0)
    return embrtInvalid(ctx, "%s: hyperParams is not 4-byte aligned (f32)", op);
  if (!args->step && args->optimizer == EMBRT_OPTIMIZER_ADAM)
    return embrtInvalid(ctx,
                        "%s: step is NULL, adam needs the step count (one i64 "
                        "in device memory) for its bias correction",
                        op);
  if (args->step && (uintptr_t)args->step % 8 != 0)
    return embrtInvalid(ctx, "%s: step is not 8-byte aligned (i64)", op);
  // Adam counts steps from 1, as PyTorch's does: at step 0 its bias
  // correction 1 - beta^0 is 0 and every touched row would become NaN. The
  // step is data in device memory: a backend on host memory checks it here,
  // before anything is touched; CUDA's update kernels check it on the device
  // (reported by embrtSynchronize) and then touch nothing.
  if (args->optimizer == EMBRT_OPTIMIZER_ADAM && ctx->backend->usesHostMemory &&
      *args->step < 1)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: step is %lld, adam counts steps from 1 (its bias "
                         "correction 1 - beta^step must not be 0)",
                         op, (long long)*args->step);
  EMBRT_TRY(checkState(ctx, op, args, 1));
  return checkState(ctx, op, args, 2);
}

static embrtStatus checkTbeBackward(embrtContext *ctx,
                                    const embrtTbeBackwardArgs *args,
                                    embrtCheckMode mode) {
  const char *op = "tbe_backward";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtTbeBackwardArgs),
                             "embrtTbeBackwardArgs"));
  EMBRT_TRY(embrtCheckTbeLookup(ctx, op, &args->lookup, mode, 0));
  if (args->lookup.featureEnds)
    return embrtInvalid(ctx,
                        "%s: lookup.featureEnds must be NULL (feature ends "
                        "are the forward's)",
                        op);
  if (args->lookup.maskedOffsets)
    return embrtInvalid(ctx,
                        "%s: lookup.maskedOffsets must be 0 (masked offsets "
                        "are the forward's)",
                        op);
  return checkBackwardFields(ctx, op, args, mode);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// Runs checked arguments: workspace query and check, then the backend.
static embrtStatus runBackward(embrtContext *ctx, const char *op,
                               const embrtTbeBackwardArgs *args) {
  size_t needed = 0;
  EMBRT_TRY(ctx->backend->tbeBackwardWorkspaceSize(ctx, args, &needed));
  EMBRT_TRY(embrtCheckWorkspace(ctx, op, args->workspace, args->workspaceBytes,
                                needed));
  return ctx->backend->tbeBackward(ctx, op, args);
}

embrtStatus embrtTbeBackwardWorkspaceSize(embrtContext *ctx,
                                          const embrtTbeBackwardArgs *args,
                                          size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckBytesOut(ctx, "tbe_backward", bytes));
  EMBRT_TRY(checkTbeBackward(ctx, args, EMBRT_CHECK_SHAPES));
  return ctx->backend->tbeBackwardWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtTbeBackward(embrtContext *ctx,
                             const embrtTbeBackwardArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkTbeBackward(ctx, args, EMBRT_CHECK_CALL));
  return runBackward(ctx, "tbe_backward", args);
}

/// An embedding bag's backward as a TBE backward of one table; the arrays
/// the TBE arguments point to live beside them.
typedef struct SingleTableBackward {
  embrtTbeBackwardArgs args;
  embrtSingleTableTbe lookup;
  void *momentum1[1], *momentum2[1];
  void *momentum1Scales[1], *momentum2Scales[1];
} SingleTableBackward;

static void toTbeBackward(const embrtEmbeddingBagBackwardArgs *bag,
                          SingleTableBackward *out) {
  memset(out, 0, sizeof *out);
  embrtEmbeddingBagToTbe(&bag->lookup, &out->lookup);
  embrtTbeBackwardArgs *a = &out->args;
  a->structSize = sizeof *a;
  a->lookup = out->lookup.args;
  // The copy's arrays still point into out->lookup, which outlives it.
  a->gradOutput = bag->gradOutput;
  a->gradDtype = bag->gradDtype;
  a->optimizer = bag->optimizer;
  out->momentum1[0] = bag->momentum1;
  out->momentum2[0] = bag->momentum2;
  a->momentum1 = bag->momentum1 ? out->momentum1 : NULL;
  a->momentum2 = bag->momentum2 ? out->momentum2 : NULL;
  a->momentum1Precision = bag->momentum1Precision;
  a->momentum2Precision = bag->momentum2Precision;
  out->momentum1Scales[0] = bag->momentum1Scales;
  out->momentum2Scales[0] = bag->momentum2Scales;
  a->momentum1Scales = bag->momentum1Scales ? out->momentum1Scales : NULL;
  a->momentum2Scales = bag->momentum2Scales ? out->momentum2Scales : NULL;
  a->gradRowStride = bag->gradRowStride;
  a->hyperParams = bag->hyperParams;
  a->step = bag->step;
  a->seed = bag->seed;
  a->configId = bag->configId;
  a->workspace = bag->workspace;
  a->workspaceBytes = bag->workspaceBytes;
}

static embrtStatus
checkEmbeddingBagBackward(embrtContext *ctx,
                          const embrtEmbeddingBagBackwardArgs *args,
                          embrtCheckMode mode, SingleTableBackward *tbe) {
  const char *op = "embedding_bag_backward";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtEmbeddingBagBackwardArgs),
                             "embrtEmbeddingBagBackwardArgs"));
  EMBRT_TRY(embrtCheckEmbeddingBagLookup(ctx, op, &args->lookup, mode, 0));
  toTbeBackward(args, tbe);
  return checkBackwardFields(ctx, op, &tbe->args, mode);
}

embrtStatus embrtEmbeddingBagBackwardWorkspaceSize(
    embrtContext *ctx, const embrtEmbeddingBagBackwardArgs *args,
    size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckBytesOut(ctx, "embedding_bag_backward", bytes));
  SingleTableBackward tbe;
  EMBRT_TRY(checkEmbeddingBagBackward(ctx, args, EMBRT_CHECK_SHAPES, &tbe));
  return ctx->backend->tbeBackwardWorkspaceSize(ctx, &tbe.args, bytes);
}

embrtStatus
embrtEmbeddingBagBackward(embrtContext *ctx,
                          const embrtEmbeddingBagBackwardArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  SingleTableBackward tbe;
  EMBRT_TRY(checkEmbeddingBagBackward(ctx, args, EMBRT_CHECK_CALL, &tbe));
  return runBackward(ctx, "embedding_bag_backward", &tbe.args);
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
//===----------------------------------------------------------------------===//

/// Decodes an emb.tbe_backward (or emb.embedding_bag_backward) call. The
/// tables, states, rows and widths are read in place: they are contiguous in
/// `buffers` and `dims`.
static embrtTbeBackwardArgs decodeTbeBackward(const int64_t *attrs,
                                              void *const *buffers,
                                              const int64_t *dims) {
  embrtTbeBackwardArgs a;
  int64_t numTables = attrs[EMB_ABI_TBE_BWD_NUM_TABLES];
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  embrtTbeArgs *l = &a.lookup;
  l->structSize = sizeof *l;
  l->pooling = (embrtPooling)attrs[EMB_ABI_TBE_BWD_POOLING];
  l->boundsCheck = (embrtBoundsCheck)attrs[EMB_ABI_TBE_BWD_BOUNDS_CHECK];
  l->hasPaddingIdx = (int)attrs[EMB_ABI_TBE_BWD_HAS_PADDING];
  l->paddingIdx = attrs[EMB_ABI_TBE_BWD_PADDING_IDX];
  l->tableDtype = (embrtDtype)attrs[EMB_ABI_TBE_BWD_TABLE_DTYPE];
  l->indexDtype = (embrtDtype)attrs[EMB_ABI_TBE_BWD_INDEX_DTYPE];
  l->offsetDtype = l->indexDtype;
  l->outputDtype = l->tableDtype;
  l->configId = -1;
  l->numTables = numTables;
  l->numFeatures = attrs[EMB_ABI_TBE_BWD_NUM_FEATURES];
  l->featureTables = attrs + EMB_ABI_TBE_BWD_FEATURE_TABLES;
  l->indices = buffers[EMB_ABI_TBE_BWD_BUF_INDICES];
  l->offsets = buffers[EMB_ABI_TBE_BWD_BUF_OFFSETS];
  if (attrs[EMB_ABI_TBE_BWD_PSW_DTYPE] >= 0) {
    l->perSampleWeights = buffers[EMB_ABI_TBE_BWD_BUF_PSW];
    l->perSampleWeightDtype = (embrtDtype)attrs[EMB_ABI_TBE_BWD_PSW_DTYPE];
  }
  l->numIndices = dims[EMB_ABI_TBE_BWD_DIM_INDICES];
  l->batchSize = dims[EMB_ABI_TBE_BWD_DIM_BATCH];
  l->tables = (const void *const *)(buffers + EMB_ABI_TBE_BWD_BUF_TABLES);
  l->tableRows = dims + EMB_ABI_TBE_BWD_DIM_TABLES;
  l->tableDims = dims + EMB_ABI_TBE_BWD_DIM_TABLES + numTables;
  a.gradOutput = buffers[EMB_ABI_TBE_BWD_BUF_GRAD];
  a.gradDtype = (embrtDtype)attrs[EMB_ABI_TBE_BWD_GRAD_DTYPE];
  a.optimizer = (embrtOptimizer)attrs[EMB_ABI_TBE_BWD_OPTIMIZER];
  a.momentum1 = buffers + EMB_ABI_TBE_BWD_BUF_TABLES + numTables;
  a.momentum2 = buffers + EMB_ABI_TBE_BWD_BUF_TABLES + 2 * numTables;
  a.momentum1Scales = buffers + EMB_ABI_TBE_BWD_BUF_TABLES + 3 * numTables;
  a.momentum2Scales = buffers + EMB_ABI_TBE_BWD_BUF_TABLES + 4 * numTables;
  a.momentum1Precision =
      (embrtStatePrecision)attrs[EMB_ABI_TBE_BWD_MOMENTUM1_PRECISION];
  a.momentum2Precision =
      (embrtStatePrecision)attrs[EMB_ABI_TBE_BWD_MOMENTUM2_PRECISION];
  a.hyperParams = (const float *)buffers[EMB_ABI_TBE_BWD_BUF_HYPER];
  a.step = (const int64_t *)buffers[EMB_ABI_TBE_BWD_BUF_STEP];
  a.seed = (uint64_t)attrs[EMB_ABI_TBE_BWD_SEED];
  a.configId = attrs[EMB_ABI_TBE_BWD_CONFIG_ID];
  a.workspace = buffers[EMB_ABI_TBE_BWD_BUF_WORKSPACE];
  a.workspaceBytes = (size_t)dims[EMB_ABI_TBE_BWD_DIM_WORKSPACE];
  return a;
}

/// The layouts are distinct enums; compare their values.
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(EMB_ABI_TBE_BWD_DIM_OFFSETS, EMB_ABI_TBE_DIM_OFFSETS) &&
                   SAME(EMB_ABI_TBE_BWD_DIM_PSW, EMB_ABI_TBE_DIM_PSW) &&
                   SAME(EMB_ABI_TBE_BWD_DIM_GRAD_ROWS,
                        EMB_ABI_TBE_DIM_OUTPUT_ROWS) &&
                   SAME(EMB_ABI_TBE_BWD_DIM_GRAD_COLS,
                        EMB_ABI_TBE_DIM_OUTPUT_COLS),
               "embrtCheckCompiledLookup reads the backward's dims");
#undef SAME

/// Checks the optimizer states' extents (after the tables' rows and widths
/// in `dims`) against their tables: [rows] for rowwise Adagrad, [rows, D]
/// for both of Adam's; and an fp8 state's scales: [rows] for Adam, [1] for
/// rowwise Adagrad.
static embrtStatus checkStateExtents(embrtContext *ctx, const char *op,
                                     int isBag, const embrtTbeBackwardArgs *a,
                                     const int64_t *dims) {
  const embrtTbeArgs *l = &a->lookup;
  int64_t T = l->numTables;
  int states = a->optimizer == EMBRT_OPTIMIZER_ADAM              ? 2
               : a->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD ? 1
                                                                 : 0;
  const int64_t *extents = dims + EMB_ABI_TBE_BWD_DIM_TABLES + 2 * T;
  for (int s = 0; s < states; ++s) {
    for (int64_t t = 0; t < T; ++t) {
      char state[32], table[32];
      if (isBag) {
        snprintf(state, sizeof state, "momentum%d", s + 1);
        snprintf(table, sizeof table, "weight");
      } else {
        snprintf(state, sizeof state, "momentum%d_%lld", s + 1, (long long)t);
        snprintf(table, sizeof table, "weights_%lld", (long long)t);
      }
      int64_t rows = extents[2 * s * T + t],
              cols = extents[(2 * s + 1) * T + t];
      EMBRT_TRY(embrtCheckExtent(ctx, op, state, rows, "rows", table,
                                 l->tableRows[t], "rows"));
      if (a->optimizer == EMBRT_OPTIMIZER_ADAM)
        EMBRT_TRY(embrtCheckExtent(ctx, op, state, cols, "columns", table,
                                   l->tableDims[t], "columns"));
      embrtStatePrecision p =
          s == 0 ? a->momentum1Precision : a->momentum2Precision;
      if (p != EMBRT_STATE_FP8_E4M3 && p != EMBRT_STATE_FP8_E5M2)
        continue;
      int64_t entries = extents[(4 + s) * T + t];
      snprintf(state, sizeof state,
               isBag ? "momentum%d_scales" : "momentum%d_scales_%lld", s + 1,
               (long long)t);
      if (a->optimizer == EMBRT_OPTIMIZER_ADAM)
        EMBRT_TRY(embrtCheckExtent(ctx, op, state, entries, "entries", table,
                                   l->tableRows[t], "rows"));
      else if (entries != 1)
        return embrtInvalid(ctx,
                            "%s: %s has %lld entries, but a rowwise Adagrad "
                            "fp8 state takes one scale per table",
                            op, state, (long long)entries);
    }
  }
  return EMBRT_OK;
}

/// The embedding bag's backward of a decoded call of one table (its state
/// pointers are the call's, read in place).
static void toBagBackward(const embrtTbeBackwardArgs *a,
                          embrtEmbeddingBagBackwardArgs *bag) {
  memset(bag, 0, sizeof *bag);
  bag->structSize = sizeof *bag;
  embrtTbeToEmbeddingBag(&a->lookup, &bag->lookup);
  bag->gradOutput = a->gradOutput;
  bag->gradDtype = a->gradDtype;
  bag->optimizer = a->optimizer;
  bag->momentum1 = a->momentum1 ? a->momentum1[0] : NULL;
  bag->momentum2 = a->momentum2 ? a->momentum2[0] : NULL;
  bag->momentum1Precision = a->momentum1Precision;
  bag->momentum2Precision = a->momentum2Precision;
  bag->momentum1Scales = a->momentum1Scales ? a->momentum1Scales[0] : NULL;
  bag->momentum2Scales = a->momentum2Scales ? a->momentum2Scales[0] : NULL;
  bag->gradRowStride = a->gradRowStride;
  bag->hyperParams = a->hyperParams;
  bag->step = a->step;
  bag->seed = a->seed;
  bag->configId = a->configId;
  bag->workspace = a->workspace;
  bag->workspaceBytes = a->workspaceBytes;
}

void embrtCompiledTbeBackward(embrtContext *ctx, const int64_t *attrs,
                              void *const *buffers, const int64_t *dims) {
  embrtTbeBackwardArgs a = decodeTbeBackward(attrs, buffers, dims);
  int isBag = attrs[EMB_ABI_TBE_BWD_IS_BAG] != 0;
  const char *op = isBag ? "emb.embedding_bag_backward" : "emb.tbe_backward";
  if (embrtCheckCompiledLookup(ctx, op, isBag,
                               attrs[EMB_ABI_TBE_BWD_PSW_DTYPE] >= 0,
                               "grad_output", &a.lookup, dims) != EMBRT_OK ||
      checkStateExtents(ctx, op, isBag, &a, dims) != EMBRT_OK)
    return;
  if (!isBag) {
    embrtTbeBackward(ctx, &a);
    return;
  }
  embrtEmbeddingBagBackwardArgs bag;
  toBagBackward(&a, &bag);
  embrtEmbeddingBagBackward(ctx, &bag);
}

int64_t embrtCompiledTbeBackwardWorkspace(embrtContext *ctx,
                                          const int64_t *attrs,
                                          void *const *buffers,
                                          const int64_t *dims) {
  embrtTbeBackwardArgs a = decodeTbeBackward(attrs, buffers, dims);
  size_t bytes = 0;
  embrtStatus status;
  if (attrs[EMB_ABI_TBE_BWD_IS_BAG]) {
    embrtEmbeddingBagBackwardArgs bag;
    toBagBackward(&a, &bag);
    status = embrtEmbeddingBagBackwardWorkspaceSize(ctx, &bag, &bytes);
  } else {
    status = embrtTbeBackwardWorkspaceSize(ctx, &a, &bytes);
  }
  return status == EMBRT_OK ? (int64_t)bytes : 0;
}
