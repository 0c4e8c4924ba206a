//===- runtime/cuda/backend.c - The CUDA backend's table ----------*- C -*-===//
//
// embrtCudaBackend: the context, memory, event and graph hooks and the
// library ops of runtime/cuda/ (cuda.h), and a function per kernel op of
// kernels/ops.def. A kernel op makes the context's device current on the
// calling thread, returns early when its output is empty (so launchers never
// see an empty grid), hands the context's launch environment to the launcher
// of kernels/<family>.cu (kernels/launch.h), and records the launcher's
// message on the context when it fails. Workspace queries go to
// the kernels' own *WorkspaceSize functions the same way. During a graph
// capture an op refuses what a replay could not repeat (first-use
// allocations, metadata staged through host memory).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/cuda.h"
#include "runtime/half.h"

#include <cuda_runtime_api.h>

#include <stdio.h>
#include <string.h>

/// The context's launch environment.
static embrtLaunchEnv *envOf(const embrtContext *ctx) {
  return &embrtCudaStateOf(ctx)->env;
}

/// Makes the context's device current (cheap when it is already); `what`
/// names the op in the message of a failure.
static embrtStatus enter(embrtContext *ctx, const char *what) {
  return embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal), what);
}

/// A launcher's status, with its message recorded on the context when it
/// failed.
static embrtStatus launched(embrtContext *ctx, embrtStatus status) {
  if (status == EMBRT_OK)
    return EMBRT_OK;
  return embrtSetError(ctx, status, "%s", envOf(ctx)->message);
}

/// launched() for a family whose launcher names it (`family`: "tbe") while
/// the entry point was `op` ("embedding_bag"): the message names `op`.
static embrtStatus launchedAs(embrtContext *ctx, const char *op,
                              const char *family, embrtStatus status) {
  if (status == EMBRT_OK)
    return EMBRT_OK;
  const char *message = envOf(ctx)->message;
  size_t n = strlen(family);
  if (strncmp(message, family, n) == 0 && message[n] == ':')
    return embrtSetError(ctx, status, "%s%s", op, message + n);
  return embrtSetError(ctx, status, "%s", message);
}

//===----------------------------------------------------------------------===//
// emb.tbe and emb.embedding_bag (kernels/tbe.cu, kernels/tbe_backward.cu)
//===----------------------------------------------------------------------===//

static embrtStatus tbeWorkspaceSize(embrtContext *ctx, const embrtTbeArgs *args,
                                    size_t *bytes) {
  return launched(ctx, embrtCudaTbeWorkspaceSize(envOf(ctx), args, bytes));
}

static embrtStatus tbeForward(embrtContext *ctx, const char *op,
                              const embrtTbeArgs *args) {
  char what[64];
  snprintf(what, sizeof what, "%s: cudaSetDevice", op);
  EMBRT_TRY(enter(ctx, what));
  int64_t width = 0;
  for (int64_t f = 0; f < args->numFeatures; ++f)
    width += args->tableDims[args->featureTables[f]];
  int64_t rows = args->batchSize;
  if (args->pooling == EMBRT_POOLING_NONE) {
    rows = args->numIndices;
    width = args->numFeatures > 0 ? args->tableDims[args->featureTables[0]] : 0;
  }
  // Masked offsets check every id of a feature, in a bag or not: even a
  // lookup of no bags (kernels/tbe_masked.cu).
  int idsOnly = args->maskedOffsets && args->numIndices > 0;
  if (width == 0 || (rows == 0 && !idsOnly))
    return EMBRT_OK;
  if (ctx->capturing) {
    // The workspace of a lookup whose offsets are not masked is metadata
    // staged through host memory (kernels/tbe.cu), freed before the call
    // returns: a replay would read it after that. Masked offsets add a flag
    // the device writes, which a graph captures.
    embrtTbeArgs plain = *args;
    plain.maskedOffsets = 0;
    size_t staged = 0;
    EMBRT_TRY(tbeWorkspaceSize(ctx, &plain, &staged));
    if (staged > 0)
      return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                           "%s: %lld features are more than the kernel's "
                           "parameter block holds; their metadata goes "
                           "through host memory, which a graph cannot "
                           "capture",
                           op, (long long)args->numFeatures);
  }
  return launchedAs(ctx, op, "tbe",
                    embrtCudaLaunchTbeForward(envOf(ctx), args));
}

static embrtStatus tbeBackwardWorkspaceSize(embrtContext *ctx,
                                            const embrtTbeBackwardArgs *args,
                                            size_t *bytes) {
  // CUB's size queries read the current device's properties.
  EMBRT_TRY(enter(ctx, "tbe_backward: cudaSetDevice"));
  return launched(ctx,
                  embrtCudaTbeBackwardWorkspaceSize(envOf(ctx), args, bytes));
}

static embrtStatus tbeBackward(embrtContext *ctx, const char *op,
                               const embrtTbeBackwardArgs *args) {
  char what[64];
  snprintf(what, sizeof what, "%s: cudaSetDevice", op);
  EMBRT_TRY(enter(ctx, what));
  const embrtTbeArgs *l = &args->lookup;
  if (l->numFeatures == 0 || l->batchSize == 0)
    return EMBRT_OK; // no bags: nothing is touched
  // Beyond the kernel's parameter block (kParamTables, kParamFeatures in
  // kernels/tbe_backward.cu) the metadata goes through host memory freed
  // before the call returns, which a replay would read after that.
  if (ctx->capturing && (l->numTables > 64 || l->numFeatures > 256))
    return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                         "%s: %lld tables and %lld features are "
                         "more than the kernel's parameter block holds (64 "
                         "and 256); their metadata goes through host memory, "
                         "which a graph cannot capture",
                         op, (long long)l->numTables,
                         (long long)l->numFeatures);
  return launchedAs(ctx, op, "tbe_backward",
                    embrtCudaLaunchTbeBackward(envOf(ctx), args));
}

//===----------------------------------------------------------------------===//
// emb.broadcast and emb.broadcast_add (kernels/broadcast.cu)
//===----------------------------------------------------------------------===//

static embrtStatus broadcast(embrtContext *ctx,
                             const embrtBroadcastArgs *args) {
  EMBRT_TRY(enter(ctx, "broadcast: cudaSetDevice"));
  if (args->batchSize == 0 || args->rowElements == 0)
    return EMBRT_OK;
  return launched(ctx, embrtCudaLaunchBroadcast(envOf(ctx), args));
}

static embrtStatus broadcastAdd(embrtContext *ctx,
                                const embrtBroadcastArgs *args) {
  EMBRT_TRY(enter(ctx, "broadcast_add: cudaSetDevice"));
  if (args->batchSize == 0 || args->rowElements == 0)
    return EMBRT_OK;
  return launched(ctx, embrtCudaLaunchBroadcastAdd(envOf(ctx), args));
}

//===----------------------------------------------------------------------===//
// emb.jagged_to_padded (kernels/jagged.cu)
//===----------------------------------------------------------------------===//

static embrtStatus jaggedToPadded(embrtContext *ctx,
                                  const embrtJaggedToPaddedArgs *args) {
  EMBRT_TRY(enter(ctx, "jagged_to_padded: cudaSetDevice"));
  if (args->numUsers == 0)
    return EMBRT_OK;
  // The padding as one element of the dtype, rounded once as the CPU does.
  union {
    float f32;
    double f64;
    uint16_t f16;
  } element;
  memset(&element, 0, sizeof element);
  switch (args->dtype) {
  case EMBRT_F16:
    element.f16 = embrtF64ToF16(args->paddingValue);
    break;
  case EMBRT_BF16:
    element.f16 = embrtF64ToBF16(args->paddingValue);
    break;
  case EMBRT_F64:
    element.f64 = args->paddingValue;
    break;
  default:
    element.f32 = (float)args->paddingValue;
    break;
  }
  return launched(ctx,
                  embrtCudaLaunchJaggedToPadded(envOf(ctx), args, &element));
}

//===----------------------------------------------------------------------===//
// emb.bucketize and emb.lengths_to_offsets (kernels/input_dist.cu)
//===----------------------------------------------------------------------===//

static embrtStatus bucketizeWorkspaceSize(embrtContext *ctx,
                                          const embrtBucketizeArgs *args,
                                          size_t *bytes) {
  // CUB's size queries read the current device's properties.
  EMBRT_TRY(enter(ctx, "bucketize: cudaSetDevice"));
  return launched(ctx,
                  embrtCudaBucketizeWorkspaceSize(envOf(ctx), args, bytes));
}

static embrtStatus bucketize(embrtContext *ctx,
                             const embrtBucketizeArgs *args) {
  EMBRT_TRY(enter(ctx, "bucketize: cudaSetDevice"));
  // The slots' metadata goes through host memory freed before the call
  // returns, which a replay would read after that.
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                         "bucketize: its slots are staged through host "
                         "memory, which a graph cannot capture (and the "
                         "all-to-all of its ids reads counts on the host)");
  return launched(ctx, embrtCudaLaunchBucketize(envOf(ctx), args));
}

static embrtStatus lengthsToOffsetsWorkspaceSize(
    embrtContext *ctx, const embrtLengthsToOffsetsArgs *args, size_t *bytes) {
  EMBRT_TRY(enter(ctx, "lengths_to_offsets: cudaSetDevice"));
  return launched(
      ctx, embrtCudaLengthsToOffsetsWorkspaceSize(envOf(ctx), args, bytes));
}

static embrtStatus lengthsToOffsets(embrtContext *ctx,
                                    const embrtLengthsToOffsetsArgs *args) {
  EMBRT_TRY(enter(ctx, "lengths_to_offsets: cudaSetDevice"));
  return launched(ctx, embrtCudaLaunchLengthsToOffsets(envOf(ctx), args));
}

//===----------------------------------------------------------------------===//
// emb.lce (kernels/lce.cu) and emb.ikbo_lce (kernels/ikbo_lce.cu)
//===----------------------------------------------------------------------===//

static embrtStatus lceWorkspaceSize(embrtContext *ctx, const embrtLceArgs *args,
                                    size_t *bytes) {
  return launched(ctx, embrtCudaLceWorkspaceSize(envOf(ctx), args, bytes));
}

static embrtStatus lce(embrtContext *ctx, const embrtLceArgs *args) {
  EMBRT_TRY(enter(ctx, "lce: cudaSetDevice"));
  if (args->batchSize == 0 || args->m == 0 || args->n == 0)
    return EMBRT_OK;
  // The launcher runs cuBLAS on the context's handle, made on first use
  // (cublasCreate allocates: not during a capture).
  if (ctx->capturing && !envOf(ctx)->blasHandle)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "lce: the context's first cuBLAS call cannot be "
                         "captured (its handle allocates); run the call once "
                         "before capturing it");
  EMBRT_TRY(embrtCudaEnsureBlasHandle(ctx));
  return launched(ctx, embrtCudaLaunchLce(envOf(ctx), args));
}

static embrtStatus ikboLceWorkspaceSize(embrtContext *ctx,
                                        const embrtIkboLceArgs *args,
                                        size_t *bytes) {
  return launched(ctx, embrtCudaIkboLceWorkspaceSize(envOf(ctx), args, bytes));
}

static embrtStatus ikboLce(embrtContext *ctx, const embrtIkboLceArgs *args) {
  EMBRT_TRY(enter(ctx, "ikbo_lce: cudaSetDevice"));
  if (args->batchSize == 0 || args->m == 0 || args->n == 0)
    return EMBRT_OK;
  // Exact f32 runs on cuBLAS (kernels/ikbo_lce.cu) with the context's
  // handle, made on first use outside a capture; a capture before any
  // cuBLAS call takes the portable kernel instead (same results within f32
  // rounding).
  if (args->dtype == EMBRT_F32 && args->computeDtype == EMBRT_F32 &&
      !ctx->capturing)
    EMBRT_TRY(embrtCudaEnsureBlasHandle(ctx));
  return launched(ctx, embrtCudaLaunchIkboLce(envOf(ctx), args));
}

//===----------------------------------------------------------------------===//
// emb.attention and emb.ikbo_attention (kernels/attention.cu)
//===----------------------------------------------------------------------===//

static embrtStatus attentionWorkspaceSize(embrtContext *ctx,
                                          const embrtAttentionArgs *args,
                                          size_t *bytes) {
  return launched(ctx,
                  embrtCudaAttentionWorkspaceSize(envOf(ctx), args, bytes));
}

static embrtStatus attention(embrtContext *ctx,
                             const embrtAttentionArgs *args) {
  EMBRT_TRY(enter(ctx, "attention: cudaSetDevice"));
  if (args->batchSize == 0 || args->lq == 0 || args->heads == 0 ||
      args->headDim == 0)
    return EMBRT_OK;
  return launched(ctx, embrtCudaLaunchAttention(envOf(ctx), args));
}

//===----------------------------------------------------------------------===//
// Data movement and elementwise (kernels/data.cu)
//===----------------------------------------------------------------------===//

static embrtStatus concat(embrtContext *ctx, const embrtConcatArgs *args) {
  EMBRT_TRY(enter(ctx, "concat: cudaSetDevice"));
  int64_t total = 0;
  for (int64_t i = 0; i < args->numInputs; ++i)
    total += args->inputDimSizes[i];
  if (args->outerSize == 0 || args->innerSize == 0 || total == 0)
    return EMBRT_OK;
  return launched(ctx, embrtCudaLaunchConcat(envOf(ctx), args));
}

static embrtStatus stridedCopy(embrtContext *ctx,
                               const embrtStridedCopyArgs *args) {
  EMBRT_TRY(enter(ctx, "strided_copy: cudaSetDevice"));
  for (int64_t d = 0; d < args->rank; ++d)
    if (args->sizes[d] == 0)
      return EMBRT_OK;
  return launched(ctx, embrtCudaLaunchStridedCopy(envOf(ctx), args));
}

static embrtStatus elementwise(embrtContext *ctx,
                               const embrtElementwiseArgs *args) {
  EMBRT_TRY(enter(ctx, "elementwise: cudaSetDevice"));
  if (args->numElements == 0)
    return EMBRT_OK;
  return launched(ctx, embrtCudaLaunchElementwise(envOf(ctx), args));
}

static embrtStatus fill(embrtContext *ctx, void *output, embrtDtype dtype,
                        int64_t numElements, const void *value) {
  EMBRT_TRY(enter(ctx, "fill: cudaSetDevice"));
  if (numElements == 0)
    return EMBRT_OK;
  return launched(
      ctx, embrtCudaLaunchFill(envOf(ctx), output, dtype, numElements, value));
}

static embrtStatus convert(embrtContext *ctx, const void *input,
                           embrtDtype inputDtype, void *output,
                           embrtDtype outputDtype, int64_t numElements) {
  EMBRT_TRY(enter(ctx, "convert: cudaSetDevice"));
  if (numElements == 0)
    return EMBRT_OK;
  return launched(ctx,
                  embrtCudaLaunchConvert(envOf(ctx), input, inputDtype, output,
                                         outputDtype, numElements));
}

//===----------------------------------------------------------------------===//
// embrtQuantizeTable and embrtDequantizeTable (kernels/quantize.cu)
//===----------------------------------------------------------------------===//

static embrtStatus quantizeTable(embrtContext *ctx,
                                 const embrtQuantizeTableArgs *args) {
  EMBRT_TRY(enter(ctx, "quantize_table: cudaSetDevice"));
  if (args->rows == 0)
    return EMBRT_OK;
  return launched(ctx, embrtCudaLaunchQuantizeTable(envOf(ctx), args));
}

static embrtStatus dequantizeTable(embrtContext *ctx,
                                   const embrtQuantizeTableArgs *args) {
  EMBRT_TRY(enter(ctx, "dequantize_table: cudaSetDevice"));
  if (args->rows == 0)
    return EMBRT_OK;
  return launched(ctx, embrtCudaLaunchDequantizeTable(envOf(ctx), args));
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

const struct embrtBackend embrtCudaBackend = {
    .workspaceAlignment = 256,
    .usesHostMemory = 0,

    .contextInit = embrtCudaContextInit,
    .contextRelease = embrtCudaContextRelease,
    .synchronize = embrtCudaSynchronize,
    .pollDeviceErrors = embrtCudaPollDeviceErrors,

    .deviceMalloc = embrtCudaMalloc,
    .deviceFree = embrtCudaFree,
    .deviceMallocAsync = embrtCudaMallocAsync,
    .deviceFreeAsync = embrtCudaFreeAsync,
    .deviceMemcpy = embrtCudaMemcpy,
    .deviceMemset = embrtCudaMemset,

    .eventCreate = embrtCudaEventCreate,
    .eventRecord = embrtCudaEventRecord,
    .eventElapsedMs = embrtCudaEventElapsedMs,
    .eventDestroy = embrtCudaEventDestroy,

    .captureBegin = embrtCudaCaptureBegin,
    .captureEnd = embrtCudaCaptureEnd,
    .graphLaunch = embrtCudaGraphLaunch,
    .graphDestroy = embrtCudaGraphDestroy,

// The ops, one per row of kernels/ops.def: a kernel op is this file's
// function of its name, a library op embrtCuda<Op> (cuda.h).
#define EMBRT_KERNEL_OP(op, Op, Args, takes) .op = op,
#define EMBRT_LIBRARY_OP(op, Op, Args, takes) .op = embrtCuda##Op,
#include "kernels/ops.def"
    .launchKernel = embrtCudaLaunchKernel,

    .commGetUniqueId = embrtCudaCommGetUniqueId,
    .commInit = embrtCudaCommInit,
    .commRelease = embrtCudaCommRelease,
};
