//===- runtime/cuda/ops.c - CUDA backend of the ops ---------------*- C -*-===//
//
// The CUDA backend's op functions (runtime/internal.h): make the context's
// device current, return early when the output is empty (so launchers never
// see an empty grid), and call the launcher in kernels/ (kernels/launch.h).
// The *WorkspaceSize functions of tbe, ikbo_lce and attention are the
// kernel files' own (same names, same signatures).
//
//===----------------------------------------------------------------------===//

#include "kernels/launch.h"

#include <cuda_runtime_api.h>

/// Makes the context's device current on this thread (cheap when it is).
#define ENTER(op)                                                              \
  do {                                                                         \
    embrtStatus enterStatus_ = embrtCudaCheck(                                 \
        ctx, cudaSetDevice(ctx->ordinal), op ": cudaSetDevice");               \
    if (enterStatus_ != EMBRT_OK)                                              \
      return enterStatus_;                                                     \
  } while (0)

//===----------------------------------------------------------------------===//
// Lookups, broadcast, linear compression, attention
//===----------------------------------------------------------------------===//

embrtStatus embrtCudaTbeForward(embrtContext *ctx, const embrtTbeArgs *args) {
  ENTER("tbe");
  int64_t width = 0;
  for (int64_t f = 0; f < args->numFeatures; ++f)
    width += args->tableDims[args->featureTables[f]];
  int64_t rows = args->batchSize;
  if (args->pooling == EMBRT_POOLING_NONE) {
    rows = args->numIndices;
    width = args->numFeatures > 0 ? args->tableDims[args->featureTables[0]] : 0;
  }
  if (rows == 0 || width == 0)
    return EMBRT_OK;
  return embrtCudaLaunchTbeForward(ctx, args);
}

embrtStatus embrtCudaBroadcast(embrtContext *ctx,
                               const embrtBroadcastArgs *args) {
  ENTER("broadcast");
  if (args->batchSize == 0 || args->rowElements == 0)
    return EMBRT_OK;
  return embrtCudaLaunchBroadcast(ctx, args);
}

embrtStatus embrtCudaBroadcastAdd(embrtContext *ctx,
                                  const embrtBroadcastArgs *args) {
  ENTER("broadcast_add");
  if (args->batchSize == 0 || args->rowElements == 0)
    return EMBRT_OK;
  return embrtCudaLaunchBroadcastAdd(ctx, args);
}

embrtStatus embrtCudaLce(embrtContext *ctx, const embrtLceArgs *args) {
  ENTER("lce");
  if (args->batchSize == 0 || args->m == 0 || args->n == 0)
    return EMBRT_OK;
  return embrtCudaLaunchLce(ctx, args);
}

embrtStatus embrtCudaIkboLce(embrtContext *ctx, const embrtIkboLceArgs *args) {
  ENTER("ikbo_lce");
  if (args->batchSize == 0 || args->m == 0 || args->n == 0)
    return EMBRT_OK;
  return embrtCudaLaunchIkboLce(ctx, args);
}

embrtStatus embrtCudaAttention(embrtContext *ctx,
                               const embrtAttentionArgs *args) {
  ENTER("attention");
  if (args->batchSize == 0 || args->lq == 0 || args->heads == 0 ||
      args->headDim == 0)
    return EMBRT_OK;
  return embrtCudaLaunchAttention(ctx, args);
}

//===----------------------------------------------------------------------===//
// Data movement and elementwise
//===----------------------------------------------------------------------===//

embrtStatus embrtCudaConcat(embrtContext *ctx, const embrtConcatArgs *args) {
  ENTER("concat");
  int64_t total = 0;
  for (int64_t i = 0; i < args->numInputs; ++i)
    total += args->inputDimSizes[i];
  if (args->outerSize == 0 || args->innerSize == 0 || total == 0)
    return EMBRT_OK;
  return embrtCudaLaunchConcat(ctx, args);
}

embrtStatus embrtCudaStridedCopy(embrtContext *ctx,
                                 const embrtStridedCopyArgs *args) {
  ENTER("strided_copy");
  for (int64_t d = 0; d < args->rank; ++d)
    if (args->sizes[d] == 0)
      return EMBRT_OK;
  return embrtCudaLaunchStridedCopy(ctx, args);
}

embrtStatus embrtCudaElementwise(embrtContext *ctx,
                                 const embrtElementwiseArgs *args) {
  ENTER("elementwise");
  if (args->numElements == 0)
    return EMBRT_OK;
  return embrtCudaLaunchElementwise(ctx, args);
}

embrtStatus embrtCudaFill(embrtContext *ctx, void *output, embrtDtype dtype,
                          int64_t numElements, const void *value) {
  ENTER("fill");
  if (numElements == 0)
    return EMBRT_OK;
  return embrtCudaLaunchFill(ctx, output, dtype, numElements, value);
}

embrtStatus embrtCudaConvert(embrtContext *ctx, const void *input,
                             embrtDtype inputDtype, void *output,
                             embrtDtype outputDtype, int64_t numElements) {
  ENTER("convert");
  if (numElements == 0)
    return EMBRT_OK;
  return embrtCudaLaunchConvert(ctx, input, inputDtype, output, outputDtype,
                                numElements);
}
