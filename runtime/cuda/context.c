//===- runtime/cuda/context.c - CUDA contexts and synchronize -----*- C -*-===//
//
// The CUDA half of a context: the device and its properties (SM count,
// compute capability, L2 size, opt-in shared memory per block, read once for
// launch-configuration choices), the stream (created and owned, or adopted
// from the caller), the device error record, and the cuBLAS handle.
//
// embrtSynchronize is the only place the runtime waits for the stream. It
// then reads the device error record back, resets it, adds the warning-mode
// invalid-id count to the context and turns a fatal record into
// EMBRT_OUT_OF_RANGE with a message naming where it happened.
//
//===----------------------------------------------------------------------===//

#include "kernels/launch.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdint.h>

#define CHECK(expr)                                                            \
  do {                                                                         \
    embrtStatus checkStatus_ = (expr);                                         \
    if (checkStatus_ != EMBRT_OK)                                              \
      return checkStatus_;                                                     \
  } while (0)

static embrtStatus readAttribute(embrtContext *ctx, enum cudaDeviceAttr attr,
                                 int *value, const char *name) {
  *value = 0;
  return embrtCudaCheck(ctx, cudaDeviceGetAttribute(value, attr, ctx->ordinal),
                        name);
}

embrtStatus embrtCudaContextInit(embrtContext *ctx, int ordinal, void *stream) {
  ctx->ordinal = ordinal;
  CHECK(embrtCudaCheck(ctx, cudaSetDevice(ordinal), "cuda: cudaSetDevice"));
  int l2 = 0, smem = 0;
  CHECK(readAttribute(ctx, cudaDevAttrMultiProcessorCount, &ctx->smCount,
                      "cuda: reading the SM count"));
  CHECK(readAttribute(ctx, cudaDevAttrComputeCapabilityMajor, &ctx->ccMajor,
                      "cuda: reading the compute capability"));
  CHECK(readAttribute(ctx, cudaDevAttrComputeCapabilityMinor, &ctx->ccMinor,
                      "cuda: reading the compute capability"));
  CHECK(readAttribute(ctx, cudaDevAttrL2CacheSize, &l2,
                      "cuda: reading the L2 size"));
  CHECK(readAttribute(ctx, cudaDevAttrMaxSharedMemoryPerBlockOptin, &smem,
                      "cuda: reading the opt-in shared memory"));
  ctx->l2Bytes = l2;
  ctx->maxSharedPerBlockOptin = smem;

  // Stream-ordered allocations (embrtMallocAsync) stay cached in the
  // device's pool across synchronisations instead of going back to the
  // driver, so a compiled model's intermediates cost no allocation after its
  // first call.
  cudaMemPool_t pool;
  uint64_t keepAll = UINT64_MAX;
  CHECK(embrtCudaCheck(ctx, cudaDeviceGetDefaultMemPool(&pool, ordinal),
                       "cuda: cudaDeviceGetDefaultMemPool"));
  CHECK(embrtCudaCheck(
      ctx,
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll),
      "cuda: setting the memory pool's release threshold"));

  if (stream) {
    ctx->stream = stream;
    ctx->ownsStream = 0;
  } else {
    cudaStream_t created = NULL;
    CHECK(embrtCudaCheck(
        ctx, cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking),
        "cuda: cudaStreamCreateWithFlags"));
    ctx->stream = created;
    ctx->ownsStream = 1;
  }

  void *errors = NULL;
  CHECK(embrtCudaCheck(ctx, cudaMalloc(&errors, sizeof(embrtDeviceErrors)),
                       "cuda: cudaMalloc of the device error record"));
  ctx->deviceErrors = errors;
  return embrtCudaCheck(ctx,
                        cudaMemsetAsync(errors, 0, sizeof(embrtDeviceErrors),
                                        (cudaStream_t)ctx->stream),
                        "cuda: cudaMemsetAsync of the device error record");
}

void embrtCudaContextRelease(embrtContext *ctx) {
  // Errors here have nowhere to go: destruction frees what it can.
  cudaSetDevice(ctx->ordinal);
  if (ctx->blasHandle)
    cublasDestroy((cublasHandle_t)ctx->blasHandle);
  if (ctx->deviceErrors)
    cudaFree(ctx->deviceErrors); // waits for work that may still write it
  if (ctx->ownsStream && ctx->stream)
    cudaStreamDestroy((cudaStream_t)ctx->stream);
  ctx->blasHandle = NULL;
  ctx->deviceErrors = NULL;
  ctx->stream = NULL;
  // Leave no error behind for the next context's first launch check (the
  // cudaSetDevice above fails for a context whose ordinal was bad).
  (void)cudaGetLastError();
}

embrtStatus embrtCudaBlasHandle(embrtContext *ctx, void **handle) {
  if (!ctx->blasHandle) {
    cublasHandle_t created = NULL;
    CHECK(embrtCublasCheck(ctx, cublasCreate(&created), "cuda: cublasCreate"));
    embrtStatus status = embrtCublasCheck(
        ctx, cublasSetStream(created, (cudaStream_t)ctx->stream),
        "cuda: cublasSetStream");
    if (status != EMBRT_OK) {
      cublasDestroy(created);
      return status;
    }
    ctx->blasHandle = created;
  }
  *handle = ctx->blasHandle;
  return EMBRT_OK;
}

/// Formats the message of a fatal device error record.
static embrtStatus reportRecord(embrtContext *ctx, const embrtDeviceErrors *r) {
  switch ((embrtDeviceErrorCode)r->code) {
  case EMBRT_DEVERR_ID_OUT_OF_RANGE:
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: feature %d bag %lld: id %lld is outside "
                         "table %d (%lld rows)",
                         r->feature, r->bag, r->value, r->table, r->limit);
  case EMBRT_DEVERR_BAD_OFFSETS:
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: feature %d bag %lld: offset %lld is out of "
                         "order or outside 0..%lld",
                         r->feature, r->bag, r->value, r->limit);
  case EMBRT_DEVERR_BAD_CAND_TO_USER:
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: cand_to_user[%lld] is %lld, outside the "
                         "%lld users",
                         r->index, r->value, r->limit);
  case EMBRT_DEVERR_BAD_USER_LENGTH:
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: user_lengths[%lld] is %lld, outside "
                         "0..%lld (lk)",
                         r->index, r->value, r->limit);
  case EMBRT_DEVERR_NONE:
    break;
  }
  return embrtSetError(ctx, EMBRT_DEVICE_ERROR,
                       "device: the error record holds unknown code %d",
                       r->code);
}

embrtStatus embrtCudaSynchronize(embrtContext *ctx) {
  cudaStream_t stream = (cudaStream_t)ctx->stream;
  CHECK(embrtCudaCheck(ctx, cudaSetDevice(ctx->ordinal),
                       "synchronize: cudaSetDevice"));
  CHECK(embrtCudaCheck(ctx, cudaStreamSynchronize(stream),
                       "synchronize: cudaStreamSynchronize"));
  embrtDeviceErrors record;
  CHECK(
      embrtCudaCheck(ctx,
                     cudaMemcpyAsync(&record, ctx->deviceErrors, sizeof record,
                                     cudaMemcpyDeviceToHost, stream),
                     "synchronize: reading the device error record"));
  CHECK(embrtCudaCheck(ctx, cudaStreamSynchronize(stream),
                       "synchronize: cudaStreamSynchronize"));
  if (record.code == EMBRT_DEVERR_NONE && record.invalidIdCount == 0)
    return EMBRT_OK;
  // Ordered before any later work on the stream; no need to wait for it.
  CHECK(embrtCudaCheck(
      ctx, cudaMemsetAsync(ctx->deviceErrors, 0, sizeof record, stream),
      "synchronize: resetting the device error record"));
  ctx->invalidIdCount += (int64_t)record.invalidIdCount;
  if (record.code != EMBRT_DEVERR_NONE)
    return reportRecord(ctx, &record);
  embrtSetNote(ctx,
               "device: skipped %llu ids outside their tables (bounds check "
               "warning)",
               record.invalidIdCount);
  return EMBRT_OK;
}
