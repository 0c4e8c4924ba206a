//===- runtime/memory.c - Allocation and copies -------------------*- C -*-===//
//
// embrtMalloc/Free/Memcpy/Memset: plain malloc and memcpy on the CPU; the
// CUDA backend (runtime/cuda/memory.c) uses cudaMalloc and asynchronous
// copies on the context's stream.
//
//===----------------------------------------------------------------------===//

#include "runtime/internal.h"

#include <stdlib.h>
#include <string.h>

embrtStatus embrtMalloc(embrtContext *ctx, size_t bytes, void **out) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!out)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "malloc: out is NULL");
  *out = NULL;
  if (bytes == 0)
    return EMBRT_OK; // NULL is a valid empty buffer everywhere
  if (ctx->device == EMBRT_DEVICE_CUDA)
    return embrtCudaMalloc(ctx, bytes, out);
  *out = malloc(bytes);
  if (!*out)
    return embrtSetError(ctx, EMBRT_OUT_OF_MEMORY,
                         "malloc: %zu bytes of host memory are not available",
                         bytes);
  return EMBRT_OK;
}

embrtStatus embrtFree(embrtContext *ctx, void *ptr) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!ptr)
    return EMBRT_OK;
  if (ctx->device == EMBRT_DEVICE_CUDA)
    return embrtCudaFree(ctx, ptr);
  free(ptr);
  return EMBRT_OK;
}

embrtStatus embrtMallocAsync(embrtContext *ctx, size_t bytes, void **out) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (ctx->device != EMBRT_DEVICE_CUDA)
    return embrtMalloc(ctx, bytes, out);
  if (!out)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "malloc async: out is NULL");
  *out = NULL;
  if (bytes == 0)
    return EMBRT_OK;
  return embrtCudaMallocAsync(ctx, bytes, out);
}

embrtStatus embrtFreeAsync(embrtContext *ctx, void *ptr) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (ctx->device != EMBRT_DEVICE_CUDA)
    return embrtFree(ctx, ptr);
  if (!ptr)
    return EMBRT_OK;
  return embrtCudaFreeAsync(ctx, ptr);
}

embrtStatus embrtMemcpy(embrtContext *ctx, void *dst, const void *src,
                        size_t bytes, embrtCopyKind kind) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (kind != EMBRT_COPY_HOST_TO_DEVICE && kind != EMBRT_COPY_DEVICE_TO_HOST &&
      kind != EMBRT_COPY_DEVICE_TO_DEVICE)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "memcpy: kind is %d, not an embrtCopyKind", (int)kind);
  if (bytes == 0)
    return EMBRT_OK;
  if (!dst || !src)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "memcpy: %s is NULL",
                         dst ? "src" : "dst");
  if (ctx->device == EMBRT_DEVICE_CUDA)
    return embrtCudaMemcpy(ctx, dst, src, bytes, kind);
  memmove(dst, src, bytes);
  return EMBRT_OK;
}

embrtStatus embrtMemset(embrtContext *ctx, void *dst, int value, size_t bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (bytes == 0)
    return EMBRT_OK;
  if (!dst)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "memset: dst is NULL");
  if (ctx->device == EMBRT_DEVICE_CUDA)
    return embrtCudaMemset(ctx, dst, value, bytes);
  memset(dst, value, bytes);
  return EMBRT_OK;
}
