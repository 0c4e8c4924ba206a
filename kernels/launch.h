//===- kernels/launch.h - Kernel launchers of the CUDA backend ----*- C -*-===//
//
// The boundary between the host side of the CUDA backend (runtime/cuda/*.c,
// plain C) and the device code (kernels/*.cu): `extern "C"` launchers, one
// per op, and the helpers they share. Both sides include this header.
//
// Contract of every launcher:
//   - its arguments were checked by runtime/check.c (shapes agree, pointers
//     set, enums valid, workspace large enough and 256-byte aligned);
//   - its output is not empty (runtime/cuda/ops.c returns early otherwise)
//     and the context's device is current on the calling thread;
//   - it enqueues work on (cudaStream_t)ctx->stream, never synchronises and
//     never allocates: scratch memory is args->workspace, of at least the
//     bytes its *WorkspaceSize function asked for;
//   - data errors found on the device (an id out of range under
//     EMBRT_BOUNDS_FATAL, a bad cand_to_user, offset or user length) go to
//     ctx->deviceErrors through kernels/device_errors.cuh, the output is
//     still fully written, and embrtSynchronize reports them;
//   - it checks every CUDA call and cudaGetLastError() after each launch with
//     embrtCudaCheck, and returns the resulting status.
//
// *WorkspaceSize functions get checked shapes (data pointers may be unset)
// and must answer from the shapes alone.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_LAUNCH_H
#define EMB_KERNELS_LAUNCH_H

#include "runtime/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Helpers (runtime/cuda/errors.c, runtime/cuda/context.c)
//===----------------------------------------------------------------------===//

/// Translates a cudaError_t: EMBRT_OK for cudaSuccess, otherwise records
/// and returns EMBRT_OUT_OF_MEMORY (allocation failures) or
/// EMBRT_DEVICE_ERROR with "<what> failed: <cudaGetErrorString> (<name>)".
embrtStatus embrtCudaCheck(embrtContext *ctx, int cudaError, const char *what);

/// The same for a cublasStatus_t (EMBRT_UNSUPPORTED for
/// CUBLAS_STATUS_NOT_SUPPORTED).
embrtStatus embrtCublasCheck(embrtContext *ctx, int cublasStatus,
                             const char *what);

/// The context's cublasHandle_t, created on first use and bound to the
/// context's stream. The context owns it.
embrtStatus embrtCudaBlasHandle(embrtContext *ctx, void **handle);

/// Threads per block of the runtime's grid-stride kernels.
#define EMBRT_CUDA_THREADS 256

/// Blocks for a grid-stride loop over `work` items of one item per thread:
/// enough to cover the work, at most 32 per SM, at least 1.
static inline unsigned embrtCudaGridSize(const embrtContext *ctx,
                                         int64_t work) {
  int64_t blocks = (work + EMBRT_CUDA_THREADS - 1) / EMBRT_CUDA_THREADS;
  int64_t cap = (int64_t)(ctx->smCount > 0 ? ctx->smCount : 1) * 32;
  if (blocks > cap)
    blocks = cap;
  return (unsigned)(blocks > 0 ? blocks : 1);
}

//===----------------------------------------------------------------------===//
// Kernels of the kernel engineers: kernels/tbe.cu, kernels/ikbo_lce.cu and
// kernels/attention.cu. Until a file exists, kernels/pending.c answers
// EMBRT_UNSUPPORTED for its functions.
//===----------------------------------------------------------------------===//

/// emb.tbe (and emb.embedding_bag as T = F = 1).
embrtStatus embrtCudaLaunchTbeForward(embrtContext *ctx,
                                      const embrtTbeArgs *args);
embrtStatus embrtCudaTbeWorkspaceSize(embrtContext *ctx,
                                      const embrtTbeArgs *args, size_t *bytes);

/// emb.ikbo_lce.
embrtStatus embrtCudaLaunchIkboLce(embrtContext *ctx,
                                   const embrtIkboLceArgs *args);
embrtStatus embrtCudaIkboLceWorkspaceSize(embrtContext *ctx,
                                          const embrtIkboLceArgs *args,
                                          size_t *bytes);

/// emb.attention (candToUser == NULL) and emb.ikbo_attention. A workspace
/// query with U == B and no index arrays comes as plain attention.
embrtStatus embrtCudaLaunchAttention(embrtContext *ctx,
                                     const embrtAttentionArgs *args);
embrtStatus embrtCudaAttentionWorkspaceSize(embrtContext *ctx,
                                            const embrtAttentionArgs *args,
                                            size_t *bytes);

//===----------------------------------------------------------------------===//
// Kernels of the runtime: kernels/broadcast.cu, kernels/lce.cu,
// kernels/data.cu.
//===----------------------------------------------------------------------===//

embrtStatus embrtCudaLaunchBroadcast(embrtContext *ctx,
                                     const embrtBroadcastArgs *args);
embrtStatus embrtCudaLaunchBroadcastAdd(embrtContext *ctx,
                                        const embrtBroadcastArgs *args);

/// emb.lce through cuBLAS. Its workspace is cuBLAS's (cublasSetWorkspace).
embrtStatus embrtCudaLaunchLce(embrtContext *ctx, const embrtLceArgs *args);
embrtStatus embrtCudaLceWorkspaceSize(embrtContext *ctx,
                                      const embrtLceArgs *args, size_t *bytes);

embrtStatus embrtCudaLaunchConcat(embrtContext *ctx,
                                  const embrtConcatArgs *args);
embrtStatus embrtCudaLaunchStridedCopy(embrtContext *ctx,
                                       const embrtStridedCopyArgs *args);
embrtStatus embrtCudaLaunchElementwise(embrtContext *ctx,
                                       const embrtElementwiseArgs *args);
/// `value` is host memory (embrtDtypeSize(dtype) bytes), read at the call.
embrtStatus embrtCudaLaunchFill(embrtContext *ctx, void *output,
                                embrtDtype dtype, int64_t numElements,
                                const void *value);
embrtStatus embrtCudaLaunchConvert(embrtContext *ctx, const void *input,
                                   embrtDtype inputDtype, void *output,
                                   embrtDtype outputDtype, int64_t numElements);

#ifdef __cplusplus
}
#endif

#endif // EMB_KERNELS_LAUNCH_H
