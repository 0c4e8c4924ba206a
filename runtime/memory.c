//===- runtime/memory.c - Allocation and copies -------------------*- C -*-===//
//
// embrtMalloc/Free/MallocAsync/FreeAsync/Memcpy/Memset: the argument checks
// and the cases every device answers alike (zero bytes, NULL pointers), then
// the context's backend: plain malloc and memcpy on the CPU
// (runtime/cpu/backend.c), cudaMalloc and copies ordered on the context's
// stream on CUDA (runtime/cuda/memory.c). While the context captures a graph
// the blocking pair (embrtMalloc, embrtFree: cudaMalloc and cudaFree, which
// wait for the device) fails with a message; the stream-ordered pair becomes
// the graph's own allocations, and the backend refuses copies a graph cannot
// replay (pageable host memory).
//
//===----------------------------------------------------------------------===//

#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/status.h"

embrtStatus embrtMalloc(embrtContext *ctx, size_t bytes, void **out) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!out)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "malloc: out is NULL");
  *out = NULL;
  if (bytes == 0)
    return EMBRT_OK; // NULL is a valid empty buffer everywhere
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "malloc: the context is capturing a graph, which "
                         "cannot hold a blocking allocation (embrtMallocAsync "
                         "can)");
  return ctx->backend->deviceMalloc(ctx, bytes, out);
}

embrtStatus embrtFree(embrtContext *ctx, void *ptr) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!ptr)
    return EMBRT_OK;
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "free: the context is capturing a graph, which "
                         "cannot hold a blocking free (embrtFreeAsync can)");
  return ctx->backend->deviceFree(ctx, ptr);
}

embrtStatus embrtMallocAsync(embrtContext *ctx, size_t bytes, void **out) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!out)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "malloc async: out is NULL");
  *out = NULL;
  if (bytes == 0)
    return EMBRT_OK;
  return ctx->backend->deviceMallocAsync(ctx, bytes, out);
}

embrtStatus embrtFreeAsync(embrtContext *ctx, void *ptr) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!ptr)
    return EMBRT_OK;
  return ctx->backend->deviceFreeAsync(ctx, ptr);
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
  return ctx->backend->deviceMemcpy(ctx, dst, src, bytes, kind);
}

embrtStatus embrtMemset(embrtContext *ctx, void *dst, int value, size_t bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (bytes == 0)
    return EMBRT_OK;
  if (!dst)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "memset: dst is NULL");
  return ctx->backend->deviceMemset(ctx, dst, value, bytes);
}
