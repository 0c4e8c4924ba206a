//===- runtime/entry.c - Public entry points of the ops -----------*- C -*-===//
//
// Each entry point checks its arguments once (runtime/check.c), asks the
// backend for the workspace it needs and checks the caller's, then calls the
// backend of the context's device. A context whose sticky status already
// holds an error still runs the call.
//
//===----------------------------------------------------------------------===//

#include "runtime/check.h"

#define CHECK(expr)                                                            \
  do {                                                                         \
    embrtStatus checkStatus_ = (expr);                                         \
    if (checkStatus_ != EMBRT_OK)                                              \
      return checkStatus_;                                                     \
  } while (0)

static int onCuda(const embrtContext *ctx) {
  return ctx->device == EMBRT_DEVICE_CUDA;
}

//===----------------------------------------------------------------------===//
// emb.tbe and emb.embedding_bag
//===----------------------------------------------------------------------===//

static embrtStatus tbeWorkspaceSize(embrtContext *ctx, const embrtTbeArgs *args,
                                    size_t *bytes) {
  *bytes = 0;
  return onCuda(ctx) ? embrtCudaTbeWorkspaceSize(ctx, args, bytes)
                     : embrtCpuTbeWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtTbeWorkspaceSize(embrtContext *ctx, const embrtTbeArgs *args,
                                  size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckBytesOut(ctx, "tbe", bytes));
  *bytes = 0;
  CHECK(embrtCheckTbe(ctx, args, EMBRT_CHECK_SHAPES));
  return tbeWorkspaceSize(ctx, args, bytes);
}

/// Runs checked TBE arguments: workspace check, then the backend.
static embrtStatus runTbe(embrtContext *ctx, const char *op,
                          const embrtTbeArgs *args) {
  size_t needed;
  CHECK(tbeWorkspaceSize(ctx, args, &needed));
  CHECK(embrtCheckWorkspace(ctx, op, args->workspace, args->workspaceBytes,
                            needed));
  return onCuda(ctx) ? embrtCudaTbeForward(ctx, args)
                     : embrtCpuTbeForward(ctx, args);
}

embrtStatus embrtTbeForward(embrtContext *ctx, const embrtTbeArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckTbe(ctx, args, EMBRT_CHECK_CALL));
  return runTbe(ctx, "tbe", args);
}

/// An embedding bag as a TBE with one table and one feature; the arrays the
/// TBE arguments point to live beside them.
typedef struct SingleTableTbe {
  embrtTbeArgs args;
  const void *tables[1];
  int64_t tableRows[1], tableDims[1], featureTables[1];
} SingleTableTbe;

static void toTbe(const embrtEmbeddingBagArgs *bag, SingleTableTbe *tbe) {
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
}

embrtStatus embrtEmbeddingBagWorkspaceSize(embrtContext *ctx,
                                           const embrtEmbeddingBagArgs *args,
                                           size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckBytesOut(ctx, "embedding_bag", bytes));
  *bytes = 0;
  CHECK(embrtCheckEmbeddingBag(ctx, args, EMBRT_CHECK_SHAPES));
  SingleTableTbe tbe = {0};
  toTbe(args, &tbe);
  return tbeWorkspaceSize(ctx, &tbe.args, bytes);
}

embrtStatus embrtEmbeddingBag(embrtContext *ctx,
                              const embrtEmbeddingBagArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckEmbeddingBag(ctx, args, EMBRT_CHECK_CALL));
  SingleTableTbe tbe = {0};
  toTbe(args, &tbe);
  return runTbe(ctx, "embedding_bag", &tbe.args);
}

//===----------------------------------------------------------------------===//
// emb.broadcast and emb.broadcast_add
//===----------------------------------------------------------------------===//

embrtStatus embrtBroadcast(embrtContext *ctx, const embrtBroadcastArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckBroadcast(ctx, args, 0));
  return onCuda(ctx) ? embrtCudaBroadcast(ctx, args)
                     : embrtCpuBroadcast(ctx, args);
}

embrtStatus embrtBroadcastAdd(embrtContext *ctx,
                              const embrtBroadcastArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckBroadcast(ctx, args, 1));
  return onCuda(ctx) ? embrtCudaBroadcastAdd(ctx, args)
                     : embrtCpuBroadcastAdd(ctx, args);
}

//===----------------------------------------------------------------------===//
// emb.lce and emb.ikbo_lce
//===----------------------------------------------------------------------===//

static embrtStatus lceWorkspaceSize(embrtContext *ctx, const embrtLceArgs *args,
                                    size_t *bytes) {
  *bytes = 0;
  return onCuda(ctx) ? embrtCudaLceWorkspaceSize(ctx, args, bytes)
                     : embrtCpuLceWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtLceWorkspaceSize(embrtContext *ctx, const embrtLceArgs *args,
                                  size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckBytesOut(ctx, "lce", bytes));
  *bytes = 0;
  CHECK(embrtCheckLce(ctx, args, EMBRT_CHECK_SHAPES));
  return lceWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtLce(embrtContext *ctx, const embrtLceArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckLce(ctx, args, EMBRT_CHECK_CALL));
  size_t needed;
  CHECK(lceWorkspaceSize(ctx, args, &needed));
  CHECK(embrtCheckWorkspace(ctx, "lce", args->workspace, args->workspaceBytes,
                            needed));
  return onCuda(ctx) ? embrtCudaLce(ctx, args) : embrtCpuLce(ctx, args);
}

static embrtStatus ikboLceWorkspaceSize(embrtContext *ctx,
                                        const embrtIkboLceArgs *args,
                                        size_t *bytes) {
  *bytes = 0;
  return onCuda(ctx) ? embrtCudaIkboLceWorkspaceSize(ctx, args, bytes)
                     : embrtCpuIkboLceWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtIkboLceWorkspaceSize(embrtContext *ctx,
                                      const embrtIkboLceArgs *args,
                                      size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckBytesOut(ctx, "ikbo_lce", bytes));
  *bytes = 0;
  CHECK(embrtCheckIkboLce(ctx, args, EMBRT_CHECK_SHAPES));
  return ikboLceWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtIkboLce(embrtContext *ctx, const embrtIkboLceArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckIkboLce(ctx, args, EMBRT_CHECK_CALL));
  size_t needed;
  CHECK(ikboLceWorkspaceSize(ctx, args, &needed));
  CHECK(embrtCheckWorkspace(ctx, "ikbo_lce", args->workspace,
                            args->workspaceBytes, needed));
  return onCuda(ctx) ? embrtCudaIkboLce(ctx, args) : embrtCpuIkboLce(ctx, args);
}

//===----------------------------------------------------------------------===//
// emb.attention and emb.ikbo_attention
//===----------------------------------------------------------------------===//

static embrtStatus attentionWorkspaceSize(embrtContext *ctx,
                                          const embrtAttentionArgs *args,
                                          size_t *bytes) {
  *bytes = 0;
  return onCuda(ctx) ? embrtCudaAttentionWorkspaceSize(ctx, args, bytes)
                     : embrtCpuAttentionWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtAttentionWorkspaceSize(embrtContext *ctx,
                                        const embrtAttentionArgs *args,
                                        size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckBytesOut(ctx, "attention", bytes));
  *bytes = 0;
  // One query serves both ops. Only ikbo_attention has index arrays or a
  // user batch other than the candidate batch; anything else is checked as
  // plain attention (the two need the same workspace for the same shapes).
  int isIkbo = args && (args->candToUser || args->userLengths ||
                        args->numUsers != args->batchSize);
  CHECK(embrtCheckAttention(ctx, args, isIkbo, EMBRT_CHECK_SHAPES));
  return attentionWorkspaceSize(ctx, args, bytes);
}

static embrtStatus runAttention(embrtContext *ctx,
                                const embrtAttentionArgs *args, int isIkbo) {
  const char *op = isIkbo ? "ikbo_attention" : "attention";
  CHECK(embrtCheckAttention(ctx, args, isIkbo, EMBRT_CHECK_CALL));
  size_t needed;
  CHECK(attentionWorkspaceSize(ctx, args, &needed));
  CHECK(embrtCheckWorkspace(ctx, op, args->workspace, args->workspaceBytes,
                            needed));
  return onCuda(ctx) ? embrtCudaAttention(ctx, args)
                     : embrtCpuAttention(ctx, args);
}

embrtStatus embrtAttention(embrtContext *ctx, const embrtAttentionArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  return runAttention(ctx, args, 0);
}

embrtStatus embrtIkboAttention(embrtContext *ctx,
                               const embrtAttentionArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  return runAttention(ctx, args, 1);
}

//===----------------------------------------------------------------------===//
// Data movement and elementwise
//===----------------------------------------------------------------------===//

embrtStatus embrtConcat(embrtContext *ctx, const embrtConcatArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckConcat(ctx, args));
  return onCuda(ctx) ? embrtCudaConcat(ctx, args) : embrtCpuConcat(ctx, args);
}

embrtStatus embrtStridedCopy(embrtContext *ctx,
                             const embrtStridedCopyArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckStridedCopy(ctx, args));
  return onCuda(ctx) ? embrtCudaStridedCopy(ctx, args)
                     : embrtCpuStridedCopy(ctx, args);
}

embrtStatus embrtElementwise(embrtContext *ctx,
                             const embrtElementwiseArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckElementwise(ctx, args));
  return onCuda(ctx) ? embrtCudaElementwise(ctx, args)
                     : embrtCpuElementwise(ctx, args);
}

embrtStatus embrtFill(embrtContext *ctx, void *output, embrtDtype dtype,
                      int64_t numElements, const void *value) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckFill(ctx, output, dtype, numElements, value));
  return onCuda(ctx) ? embrtCudaFill(ctx, output, dtype, numElements, value)
                     : embrtCpuFill(ctx, output, dtype, numElements, value);
}

embrtStatus embrtConvert(embrtContext *ctx, const void *input,
                         embrtDtype inputDtype, void *output,
                         embrtDtype outputDtype, int64_t numElements) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  CHECK(embrtCheckConvert(ctx, input, inputDtype, output, outputDtype,
                          numElements));
  return onCuda(ctx) ? embrtCudaConvert(ctx, input, inputDtype, output,
                                        outputDtype, numElements)
                     : embrtCpuConvert(ctx, input, inputDtype, output,
                                       outputDtype, numElements);
}
