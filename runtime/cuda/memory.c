//===- runtime/cuda/memory.c - Device memory and copies -----------*- C -*-===//
//
// Plain device memory (cudaMalloc, never managed memory) and copies and
// memsets ordered on the context's stream. Copies to or from pageable host
// memory may block in the CUDA runtime; the host buffer of a device-to-host
// copy is valid after embrtSynchronize.
//
//===----------------------------------------------------------------------===//

#include "kernels/launch.h"

#include <cuda_runtime_api.h>

#include <stdio.h>

embrtStatus embrtCudaMalloc(embrtContext *ctx, size_t bytes, void **out) {
  embrtStatus status =
      embrtCudaCheck(ctx, cudaSetDevice(ctx->ordinal), "malloc: cudaSetDevice");
  if (status != EMBRT_OK)
    return status;
  cudaError_t error = cudaMalloc(out, bytes);
  if (error == cudaSuccess)
    return EMBRT_OK;
  *out = NULL;
  char what[64];
  snprintf(what, sizeof what, "malloc: cudaMalloc of %zu bytes", bytes);
  return embrtCudaCheck(ctx, error, what);
}

embrtStatus embrtCudaFree(embrtContext *ctx, void *ptr) {
  embrtStatus status =
      embrtCudaCheck(ctx, cudaSetDevice(ctx->ordinal), "free: cudaSetDevice");
  if (status != EMBRT_OK)
    return status;
  return embrtCudaCheck(ctx, cudaFree(ptr), "free: cudaFree");
}

embrtStatus embrtCudaMallocAsync(embrtContext *ctx, size_t bytes, void **out) {
  cudaError_t error = cudaMallocAsync(out, bytes, (cudaStream_t)ctx->stream);
  if (error == cudaSuccess)
    return EMBRT_OK;
  *out = NULL;
  char what[80];
  snprintf(what, sizeof what, "malloc async: cudaMallocAsync of %zu bytes",
           bytes);
  return embrtCudaCheck(ctx, error, what);
}

embrtStatus embrtCudaFreeAsync(embrtContext *ctx, void *ptr) {
  return embrtCudaCheck(ctx, cudaFreeAsync(ptr, (cudaStream_t)ctx->stream),
                        "free async: cudaFreeAsync");
}

embrtStatus embrtCudaMemcpy(embrtContext *ctx, void *dst, const void *src,
                            size_t bytes, embrtCopyKind kind) {
  static const enum cudaMemcpyKind kinds[] = {
      [EMBRT_COPY_HOST_TO_DEVICE] = cudaMemcpyHostToDevice,
      [EMBRT_COPY_DEVICE_TO_HOST] = cudaMemcpyDeviceToHost,
      [EMBRT_COPY_DEVICE_TO_DEVICE] = cudaMemcpyDeviceToDevice,
  };
  embrtStatus status =
      embrtCudaCheck(ctx, cudaSetDevice(ctx->ordinal), "memcpy: cudaSetDevice");
  if (status != EMBRT_OK)
    return status;
  return embrtCudaCheck(
      ctx,
      cudaMemcpyAsync(dst, src, bytes, kinds[kind], (cudaStream_t)ctx->stream),
      "memcpy: cudaMemcpyAsync");
}

embrtStatus embrtCudaMemset(embrtContext *ctx, void *dst, int value,
                            size_t bytes) {
  embrtStatus status =
      embrtCudaCheck(ctx, cudaSetDevice(ctx->ordinal), "memset: cudaSetDevice");
  if (status != EMBRT_OK)
    return status;
  return embrtCudaCheck(
      ctx, cudaMemsetAsync(dst, value, bytes, (cudaStream_t)ctx->stream),
      "memset: cudaMemsetAsync");
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

embrtStatus embrtCudaEventCreate(embrtContext *ctx, void **event) {
  cudaEvent_t e = NULL;
  embrtStatus status =
      embrtCudaCheck(ctx, cudaEventCreate(&e), "event: cudaEventCreate");
  *event = e;
  return status;
}

embrtStatus embrtCudaEventRecord(embrtContext *ctx, void *event) {
  return embrtCudaCheck(
      ctx, cudaEventRecord((cudaEvent_t)event, (cudaStream_t)ctx->stream),
      "event: cudaEventRecord");
}

embrtStatus embrtCudaEventElapsedMs(embrtContext *ctx, void *start, void *end,
                                    float *ms) {
  embrtStatus status =
      embrtCudaCheck(ctx, cudaEventSynchronize((cudaEvent_t)end),
                     "event: cudaEventSynchronize");
  if (status != EMBRT_OK)
    return status;
  return embrtCudaCheck(
      ctx, cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end),
      "event: cudaEventElapsedTime");
}

void embrtCudaEventDestroy(void *event) {
  if (event)
    cudaEventDestroy((cudaEvent_t)event);
}
