//===- runtime/cuda/disabled.c - The CUDA backend when not built --*- C -*-===//
//
// Built instead of runtime/cuda/*.c when the runtime is configured without
// CUDA: every CUDA hook answers EMBRT_UNSUPPORTED. In practice only
// embrtContextCreate(EMBRT_DEVICE_CUDA, ...) reaches it, since no CUDA
// context can then exist.
//
//===----------------------------------------------------------------------===//

#include "runtime/internal.h"

static embrtStatus unsupported(embrtContext *ctx) {
  return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                       "the emb runtime was built without CUDA");
}

embrtStatus embrtCudaContextInit(embrtContext *ctx, int ordinal, void *stream) {
  return unsupported(ctx);
}

void embrtCudaContextRelease(embrtContext *ctx) {}

embrtStatus embrtCudaSynchronize(embrtContext *ctx) { return unsupported(ctx); }

embrtStatus embrtCudaMalloc(embrtContext *ctx, size_t bytes, void **out) {
  return unsupported(ctx);
}

embrtStatus embrtCudaFree(embrtContext *ctx, void *ptr) {
  return unsupported(ctx);
}

embrtStatus embrtCudaMallocAsync(embrtContext *ctx, size_t bytes, void **out) {
  return unsupported(ctx);
}

embrtStatus embrtCudaFreeAsync(embrtContext *ctx, void *ptr) {
  return unsupported(ctx);
}

embrtStatus embrtCudaMemcpy(embrtContext *ctx, void *dst, const void *src,
                            size_t bytes, embrtCopyKind kind) {
  return unsupported(ctx);
}

embrtStatus embrtCudaMemset(embrtContext *ctx, void *dst, int value,
                            size_t bytes) {
  return unsupported(ctx);
}

embrtStatus embrtCudaTbeWorkspaceSize(embrtContext *ctx,
                                      const embrtTbeArgs *args, size_t *bytes) {
  return unsupported(ctx);
}

embrtStatus embrtCudaTbeForward(embrtContext *ctx, const embrtTbeArgs *args) {
  return unsupported(ctx);
}

embrtStatus embrtCudaBroadcast(embrtContext *ctx,
                               const embrtBroadcastArgs *args) {
  return unsupported(ctx);
}

embrtStatus embrtCudaBroadcastAdd(embrtContext *ctx,
                                  const embrtBroadcastArgs *args) {
  return unsupported(ctx);
}

embrtStatus embrtCudaLceWorkspaceSize(embrtContext *ctx,
                                      const embrtLceArgs *args, size_t *bytes) {
  return unsupported(ctx);
}

embrtStatus embrtCudaLce(embrtContext *ctx, const embrtLceArgs *args) {
  return unsupported(ctx);
}

embrtStatus embrtCudaIkboLceWorkspaceSize(embrtContext *ctx,
                                          const embrtIkboLceArgs *args,
                                          size_t *bytes) {
  return unsupported(ctx);
}

embrtStatus embrtCudaIkboLce(embrtContext *ctx, const embrtIkboLceArgs *args) {
  return unsupported(ctx);
}

embrtStatus embrtCudaAttentionWorkspaceSize(embrtContext *ctx,
                                            const embrtAttentionArgs *args,
                                            size_t *bytes) {
  return unsupported(ctx);
}

embrtStatus embrtCudaAttention(embrtContext *ctx,
                               const embrtAttentionArgs *args) {
  return unsupported(ctx);
}

embrtStatus embrtCudaConcat(embrtContext *ctx, const embrtConcatArgs *args) {
  return unsupported(ctx);
}

embrtStatus embrtCudaStridedCopy(embrtContext *ctx,
                                 const embrtStridedCopyArgs *args) {
  return unsupported(ctx);
}

embrtStatus embrtCudaElementwise(embrtContext *ctx,
                                 const embrtElementwiseArgs *args) {
  return unsupported(ctx);
}

embrtStatus embrtCudaFill(embrtContext *ctx, void *output, embrtDtype dtype,
                          int64_t numElements, const void *value) {
  return unsupported(ctx);
}

embrtStatus embrtCudaConvert(embrtContext *ctx, const void *input,
                             embrtDtype inputDtype, void *output,
                             embrtDtype outputDtype, int64_t numElements) {
  return unsupported(ctx);
}

embrtStatus embrtCudaEventCreate(embrtContext *ctx, void **event) {
  return unsupported(ctx);
}

embrtStatus embrtCudaEventRecord(embrtContext *ctx, void *event) {
  return unsupported(ctx);
}

embrtStatus embrtCudaEventElapsedMs(embrtContext *ctx, void *start, void *end,
                                    float *ms) {
  return unsupported(ctx);
}

void embrtCudaEventDestroy(void *event) {}
