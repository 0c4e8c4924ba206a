//===- runtime/cuda/context.c - CUDA contexts and synchronize -----*- C -*-===//
//
// The CUDA half of a context (embrtCudaState): the device and its properties
// (SM count, compute capability, L2 size, opt-in shared memory per block,
// read once for launch-configuration choices), the stream (created and
// owned, or adopted from the caller), the device error record, and the
// cuBLAS handle (created on first use). Together they are the launch
// environment every launcher gets (kernels/common/launch_env.h).
//
// embrtSynchronize is the only place the runtime waits for the stream. It
// then reads the device error record back, resets it, adds the warning-mode
// invalid-id count to the context and turns a fatal record into
// EMBRT_OUT_OF_RANGE with a message naming where it happened.
// embrtPollDeviceErrors reports the same without waiting, from the record's
// host mirror, which the recording kernel fills (a read of host memory a
// poll while there is no error: no copy, event or stream work).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/cuda.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

embrtStatus embrtCudaRecord(embrtContext *ctx, int cudaError,
                            const char *what) {
  if (cudaError == cudaSuccess)
    return EMBRT_OK;
  char message[sizeof ctx->message];
  embrtStatus status =
      embrtCudaTranslate(cudaError, what, message, sizeof message);
  return embrtSetError(ctx, status, "%s", message);
}

static embrtStatus readAttribute(embrtContext *ctx, enum cudaDeviceAttr attr,
                                 int *value, const char *name) {
  *value = 0;
  return embrtCudaRecord(ctx, cudaDeviceGetAttribute(value, attr, ctx->ordinal),
                         name);
}

embrtStatus embrtCudaContextInit(embrtContext *ctx, void *stream) {
  embrtCudaState *state = calloc(1, sizeof *state);
  if (!state)
    return embrtSetError(ctx, EMBRT_OUT_OF_MEMORY,
                         "context: out of host memory");
  ctx->backendState = state;
  embrtLaunchEnv *env = &state->env;
  EMBRT_TRY(
      embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal), "cuda: cudaSetDevice"));
  int l2 = 0, smem = 0;
  EMBRT_TRY(readAttribute(ctx, cudaDevAttrMultiProcessorCount, &env->smCount,
                          "cuda: reading the SM count"));
  EMBRT_TRY(readAttribute(ctx, cudaDevAttrComputeCapabilityMajor, &env->ccMajor,
                          "cuda: reading the compute capability"));
  EMBRT_TRY(readAttribute(ctx, cudaDevAttrComputeCapabilityMinor, &env->ccMinor,
                          "cuda: reading the compute capability"));
  EMBRT_TRY(readAttribute(ctx, cudaDevAttrL2CacheSize, &l2,
                          "cuda: reading the L2 size"));
  EMBRT_TRY(readAttribute(ctx, cudaDevAttrMaxSharedMemoryPerBlockOptin, &smem,
                          "cuda: reading the opt-in shared memory"));
  env->l2Bytes = l2;
  env->maxSharedPerBlockOptin = smem;

  // Stream-ordered allocations (embrtMallocAsync) stay cached in the
  // device's pool across synchronisations instead of going back to the
  // driver, so a compiled model's intermediates cost no allocation after its
  // first call.
  cudaMemPool_t pool;
  uint64_t keepAll = UINT64_MAX;
  EMBRT_TRY(embrtCudaRecord(ctx,
                            cudaDeviceGetDefaultMemPool(&pool, ctx->ordinal),
                            "cuda: cudaDeviceGetDefaultMemPool"));
  EMBRT_TRY(embrtCudaRecord(
      ctx,
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keepAll),
      "cuda: setting the memory pool's release threshold"));

  // Gathers of table rows fetch only the 32-byte sectors they read. The
  // driver's default L2 fetch granularity (64 bytes on the H100) fetches a
  // row's edge sectors in pairs, which a row that is not a multiple of 64
  // bytes partly wastes: the int8 and int4 lookups run 1.05x and 1.06x
  // faster at 32, f16 rows of 256 bytes and torch's own kernels the same
  // (docs/kernels/tbe_quantized.md, "Fetch granularity"). The limit is a hint
  // for the whole device, set only where it is above 32 (a context on
  // another stream of the same device changes nothing); a device that
  // refuses it keeps its own, and the error is cleared so that no later
  // launch check reads it.
  size_t fetch = 0;
  if (cudaDeviceGetLimit(&fetch, cudaLimitMaxL2FetchGranularity) !=
          cudaSuccess ||
      (fetch > 32 &&
       cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 32) != cudaSuccess))
    (void)cudaGetLastError();

  if (stream) {
    env->stream = stream;
    state->ownsStream = 0;
  } else {
    cudaStream_t created = NULL;
    EMBRT_TRY(embrtCudaRecord(
        ctx, cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking),
        "cuda: cudaStreamCreateWithFlags"));
    env->stream = created;
    state->ownsStream = 1;
  }

  void *errors = NULL;
  EMBRT_TRY(embrtCudaRecord(ctx, cudaMalloc(&errors, sizeof(embrtDeviceErrors)),
                            "cuda: cudaMalloc of the device error record"));
  env->deviceErrors = errors;
  EMBRT_TRY(embrtCudaRecord(ctx,
                            cudaHostAlloc((void **)&state->errorMirror,
                                          sizeof(embrtDeviceErrors),
                                          cudaHostAllocMapped),
                            "cuda: cudaHostAlloc of the device error mirror"));
  memset(state->errorMirror, 0, sizeof(embrtDeviceErrors));
  // The record as it starts: no error, and where its mirror is.
  embrtDeviceErrors initial;
  memset(&initial, 0, sizeof initial);
  EMBRT_TRY(embrtCudaRecord(
      ctx,
      cudaHostGetDevicePointer((void **)&initial.hostMirror, state->errorMirror,
                               0),
      "cuda: cudaHostGetDevicePointer of the device error mirror"));
  void *counter = NULL;
  EMBRT_TRY(embrtCudaRecord(ctx, cudaMalloc(&counter, sizeof(unsigned int)),
                            "cuda: cudaMalloc of the schedule counter"));
  env->scheduleCounter = counter;
  EMBRT_TRY(embrtCudaRecord(ctx,
                            cudaMemsetAsync(counter, 0, sizeof(unsigned int),
                                            (cudaStream_t)env->stream),
                            "cuda: cudaMemsetAsync of the schedule counter"));
  // From pageable memory: the call returns once `initial` is staged.
  return embrtCudaRecord(ctx,
                         cudaMemcpyAsync(errors, &initial, sizeof initial,
                                         cudaMemcpyHostToDevice,
                                         (cudaStream_t)env->stream),
                         "cuda: cudaMemcpyAsync of the device error record");
}

void embrtCudaContextRelease(embrtContext *ctx) {
  embrtCudaState *state = embrtCudaStateOf(ctx);
  if (!state)
    return;
  embrtLaunchEnv *env = &state->env;
  // Errors here have nowhere to go: destruction frees what it can.
  cudaSetDevice(ctx->ordinal);
  if (env->blasHandle)
    cublasDestroy((cublasHandle_t)env->blasHandle);
  embrtCudaGemmRelease(ctx);
  embrtCudaModulesRelease(ctx);
  if (env->deviceErrors)
    cudaFree(env->deviceErrors); // waits for work that may still write it
  if (state->errorMirror)
    cudaFreeHost(state->errorMirror);
  if (env->scheduleCounter)
    cudaFree(env->scheduleCounter);
  if (state->ownsStream && env->stream)
    cudaStreamDestroy((cudaStream_t)env->stream);
  free(state);
  ctx->backendState = NULL;
  // Leave no error behind for the next context's first launch check (the
  // cudaSetDevice above fails for a context whose ordinal was bad).
  (void)cudaGetLastError();
}

embrtStatus embrtCudaEnsureBlasHandle(embrtContext *ctx) {
  embrtLaunchEnv *env = &embrtCudaStateOf(ctx)->env;
  if (env->blasHandle)
    return EMBRT_OK;
  cublasHandle_t created = NULL;
  embrtStatus status =
      embrtCublasCheck(env, cublasCreate(&created), "cuda: cublasCreate");
  if (status != EMBRT_OK)
    return embrtSetError(ctx, status, "%s", env->message);
  status =
      embrtCublasCheck(env, cublasSetStream(created, (cudaStream_t)env->stream),
                       "cuda: cublasSetStream");
  if (status != EMBRT_OK) {
    cublasDestroy(created);
    return embrtSetError(ctx, status, "%s", env->message);
  }
  env->blasHandle = created;
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
  case EMBRT_DEVERR_BAD_FEATURE_OFFSETS:
    if (r->index < 0)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "device: featureEnds[%d] is %lld, out of order or "
                           "past numIndices %lld",
                           r->feature, r->value, r->limit);
    if (r->index == 0)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "device: feature %d: its offsets[0] is %lld, must "
                           "be 0",
                           r->feature, r->value);
    if (r->bag < 0)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "device: feature %d: its offsets[%lld] (the last) "
                           "is %lld, must equal its %lld indices",
                           r->feature, r->index, r->value, r->limit);
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: feature %d bag %lld: its offsets[%lld] is "
                         "%lld, out of order or past its %lld indices",
                         r->feature, r->bag, r->index, r->value, r->limit);
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
  case EMBRT_DEVERR_BAD_JAGGED_OFFSETS:
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: jagged_to_padded: offsets[%lld] is %lld, "
                         "out of order or outside 0..%lld (the values' rows)",
                         r->index, r->value, r->limit);
  case EMBRT_DEVERR_BAD_LENGTHS:
    if (r->value < 0)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "device: lengths_to_offsets: lengths[%lld] is "
                           "%lld: a length must not be negative",
                           r->index, r->value);
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: lengths_to_offsets: lengths[%lld] makes "
                         "offset %lld, past the largest value of its type "
                         "(%lld)",
                         r->index, r->value, r->limit);
  case EMBRT_DEVERR_BAD_STEP:
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: tbe_backward: step is %lld, adam counts "
                         "steps from 1 (nothing was updated)",
                         r->value);
  case EMBRT_DEVERR_BAD_STATE_SCALE: {
    uint32_t bits = (uint32_t)r->value;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: tbe_backward: momentum1Scales[%lld] is %g, "
                         "the table's scale of an fp8 state must be positive "
                         "and finite (nothing was updated)",
                         r->index, (double)scale);
  }
  case EMBRT_DEVERR_NON_FINITE: {
    uint32_t bits = (uint32_t)r->value;
    const char *what = (bits & 0x7fffffu) ? "nan"
                       : (bits >> 31)     ? "-inf"
                                          : "inf";
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "device: quantize_table: row %lld column %lld is %s; "
                         "a quantized table's rows must be finite (the row "
                         "was written as zeros)",
                         r->index, r->limit, what);
  }
  case EMBRT_DEVERR_NONE:
    break;
  }
  return embrtSetError(ctx, EMBRT_DEVICE_ERROR,
                       "device: the error record holds unknown code %d",
                       r->code);
}

/// Marks the host mirror as holding no error (its other fields are rewritten
/// by the next recording thread before its code).
static void clearMirror(embrtCudaState *state) {
  if (state->errorMirror)
    *(volatile int *)&state->errorMirror->code = EMBRT_DEVERR_NONE;
}

embrtStatus embrtCudaSynchronize(embrtContext *ctx) {
  embrtLaunchEnv *env = &embrtCudaStateOf(ctx)->env;
  cudaStream_t stream = (cudaStream_t)env->stream;
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "synchronize: cudaSetDevice"));
  EMBRT_TRY(embrtCudaRecord(ctx, cudaStreamSynchronize(stream),
                            "synchronize: cudaStreamSynchronize"));
  embrtDeviceErrors record;
  EMBRT_TRY(
      embrtCudaRecord(ctx,
                      cudaMemcpyAsync(&record, env->deviceErrors, sizeof record,
                                      cudaMemcpyDeviceToHost, stream),
                      "synchronize: reading the device error record"));
  EMBRT_TRY(embrtCudaRecord(ctx, cudaStreamSynchronize(stream),
                            "synchronize: cudaStreamSynchronize"));
  if (record.code == EMBRT_DEVERR_NONE && record.invalidIdCount == 0)
    return EMBRT_OK;
  // Ordered before any later work on the stream; no need to wait for it.
  // Until it runs, the record's code keeps other kernels from recording (and
  // so from writing the mirror): the mirror's code is cleared now, so that
  // a poll does not report this error again.
  EMBRT_TRY(
      embrtCudaRecord(ctx,
                      cudaMemsetAsync(env->deviceErrors, 0,
                                      EMBRT_DEVICE_ERRORS_RESET_BYTES, stream),
                      "synchronize: resetting the device error record"));
  clearMirror(embrtCudaStateOf(ctx));
  ctx->invalidIdCount += (int64_t)record.invalidIdCount;
  if (record.code != EMBRT_DEVERR_NONE)
    return reportRecord(ctx, &record);
  embrtSetNote(ctx,
               "device: skipped %llu ids outside their tables (bounds check "
               "warning)",
               record.invalidIdCount);
  return EMBRT_OK;
}

embrtStatus embrtCudaPollDeviceErrors(embrtContext *ctx) {
  embrtCudaState *state = embrtCudaStateOf(ctx);
  const volatile embrtDeviceErrors *mirror = state->errorMirror;
  // The mirror's code is written last, after a system-scope fence: once it
  // reads nonzero, the other fields are the recording thread's.
  if (!mirror || mirror->code == EMBRT_DEVERR_NONE)
    return EMBRT_OK;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  embrtLaunchEnv *env = &state->env;
  cudaStream_t stream = (cudaStream_t)env->stream;
  // A stream that another library (PyTorch's CUDA graphs) is capturing
  // would record the reset below instead of running it: the error stays for
  // a poll outside the capture, or synchronize.
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  EMBRT_TRY(embrtCudaRecord(ctx, cudaStreamIsCapturing(stream, &capture),
                            "poll: cudaStreamIsCapturing"));
  if (capture != cudaStreamCaptureStatusNone)
    return EMBRT_OK;
  EMBRT_TRY(
      embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal), "poll: cudaSetDevice"));
  embrtDeviceErrors snapshot;
  memset(&snapshot, 0, sizeof snapshot);
  snapshot.code = mirror->code;
  snapshot.feature = mirror->feature;
  snapshot.bag = mirror->bag;
  snapshot.index = mirror->index;
  snapshot.value = mirror->value;
  snapshot.limit = mirror->limit;
  snapshot.table = mirror->table;
  // Clear the record's fatal part (the warning count stays for
  // synchronize), so that later kernels record anew and synchronize does not
  // report it twice; until the reset runs, the record's code keeps other
  // kernels from recording, so the mirror is cleared now.
  size_t from = offsetof(embrtDeviceErrors, code);
  EMBRT_TRY(embrtCudaRecord(
      ctx,
      cudaMemsetAsync((char *)env->deviceErrors + from, 0,
                      EMBRT_DEVICE_ERRORS_RESET_BYTES - from, stream),
      "poll: resetting the device error record"));
  clearMirror(state);
  return reportRecord(ctx, &snapshot);
}
