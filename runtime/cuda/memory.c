//===- runtime/cuda/memory.c - Device memory and copies -----------*- C -*-===//
//
// Plain device memory (cudaMalloc, never managed memory) and copies and
// memsets ordered on the context's stream. Copies to or from pageable host
// memory may block in the CUDA runtime; the host buffer of a device-to-host
// copy is valid after embrtSynchronize. A copy captured into a graph must use
// page-locked host memory (checked here while the context captures).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/cuda.h"

#include <cuda_runtime_api.h>

#include <stdio.h>

static cudaStream_t streamOf(const embrtContext *ctx) {
  return (cudaStream_t)embrtCudaStateOf(ctx)->env.stream;
}

embrtStatus embrtCudaMalloc(embrtContext *ctx, size_t bytes, void **out) {
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "malloc: cudaSetDevice"));
  cudaError_t error = cudaMalloc(out, bytes);
  if (error == cudaSuccess)
    return EMBRT_OK;
  *out = NULL;
  char what[64];
  snprintf(what, sizeof what, "malloc: cudaMalloc of %zu bytes", bytes);
  return embrtCudaRecord(ctx, error, what);
}

embrtStatus embrtCudaFree(embrtContext *ctx, void *ptr) {
  EMBRT_TRY(
      embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal), "free: cudaSetDevice"));
  return embrtCudaRecord(ctx, cudaFree(ptr), "free: cudaFree");
}

embrtStatus embrtCudaMallocAsync(embrtContext *ctx, size_t bytes, void **out) {
  cudaError_t error = cudaMallocAsync(out, bytes, streamOf(ctx));
  if (error == cudaSuccess)
    return EMBRT_OK;
  *out = NULL;
  char what[80];
  snprintf(what, sizeof what, "malloc async: cudaMallocAsync of %zu bytes",
           bytes);
  return embrtCudaRecord(ctx, error, what);
}

embrtStatus embrtCudaFreeAsync(embrtContext *ctx, void *ptr) {
  return embrtCudaRecord(ctx, cudaFreeAsync(ptr, streamOf(ctx)),
                         "free async: cudaFreeAsync");
}

/// A captured copy reads or writes `host` at every replay: it must be
/// page-locked (a pageable copy is staged by the CUDA runtime when it is
/// made, which a graph cannot repeat).
static embrtStatus checkCapturedHost(embrtContext *ctx, const void *host) {
  struct cudaPointerAttributes attributes;
  // A query, but the thread's capture mode may count it among the calls it
  // forbids while capturing: relaxed for its duration.
  enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  cudaError_t error = cudaPointerGetAttributes(&attributes, host);
  cudaThreadExchangeStreamCaptureMode(&mode);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    attributes.type = cudaMemoryTypeUnregistered;
  }
  if (attributes.type != cudaMemoryTypeUnregistered)
    return EMBRT_OK;
  return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                       "memcpy: a captured copy needs page-locked host memory "
                       "(cudaMallocHost or cudaHostRegister); %p is pageable",
                       host);
}

embrtStatus embrtCudaMemcpy(embrtContext *ctx, void *dst, const void *src,
                            size_t bytes, embrtCopyKind kind) {
  static const enum cudaMemcpyKind kinds[] = {
      [EMBRT_COPY_HOST_TO_DEVICE] = cudaMemcpyHostToDevice,
      [EMBRT_COPY_DEVICE_TO_HOST] = cudaMemcpyDeviceToHost,
      [EMBRT_COPY_DEVICE_TO_DEVICE] = cudaMemcpyDeviceToDevice,
  };
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "memcpy: cudaSetDevice"));
  if (ctx->capturing && kind != EMBRT_COPY_DEVICE_TO_DEVICE)
    EMBRT_TRY(
        checkCapturedHost(ctx, kind == EMBRT_COPY_HOST_TO_DEVICE ? src : dst));
  return embrtCudaRecord(
      ctx, cudaMemcpyAsync(dst, src, bytes, kinds[kind], streamOf(ctx)),
      "memcpy: cudaMemcpyAsync");
}

embrtStatus embrtCudaMemset(embrtContext *ctx, void *dst, int value,
                            size_t bytes) {
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "memset: cudaSetDevice"));
  return embrtCudaRecord(ctx, cudaMemsetAsync(dst, value, bytes, streamOf(ctx)),
                         "memset: cudaMemsetAsync");
}
