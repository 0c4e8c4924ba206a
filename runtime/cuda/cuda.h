//===- runtime/cuda/cuda.h - The CUDA backend's host side ---------*- C -*-===//
//
// What the CUDA backend keeps for a context, and the hooks its table
// (runtime/cuda/backend.c) points to: contexts and synchronize
// (runtime/cuda/context.c), memory (runtime/cuda/memory.c), events
// (runtime/cuda/timing.c) and graphs (runtime/cuda/graph.c). The op rows of the
// table fill nothing per call: the context's launch environment is handed to
// the launchers as it is.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_CUDA_CUDA_H
#define EMB_RUNTIME_CUDA_CUDA_H

#include "kernels/launch.h"
#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/status.h"

/// A CUDA context's own state (ctx->backendState).
typedef struct embrtCudaState {
  /// The stream, the device's properties (read once, at creation), the
  /// device error record and the cuBLAS handle, as launchers see them.
  embrtLaunchEnv env;
  /// Whether the context created env.stream (and destroys it).
  int ownsStream;
  /// cuBLASLt's handle, workspace and cached plans (runtime/cuda/gemm.c),
  /// made by the context's first GEMM.
  struct embrtCudaGemmState *gemm;
  /// The PTX modules of compiler-generated kernels this context loaded
  /// (runtime/cuda/modules.c), made by its first launch of one.
  struct embrtCudaModules *modules;
  /// The device error record's host mirror (page-locked, mapped; the
  /// record's hostMirror is its device address), which
  /// embrtPollDeviceErrors reads.
  embrtDeviceErrors *errorMirror;
} embrtCudaState;

static inline embrtCudaState *embrtCudaStateOf(const embrtContext *ctx) {
  return (embrtCudaState *)ctx->backendState;
}

/// Records a failed CUDA call on the context, translated by
/// embrtCudaTranslate (kernels/common/launch_env.c), and returns its status;
/// EMBRT_OK for cudaSuccess.
embrtStatus embrtCudaRecord(embrtContext *ctx, int cudaError, const char *what);

/// Creates the context's cuBLAS handle (env.blasHandle, bound to its stream)
/// unless it exists: a context that never runs cuBLAS never makes one.
embrtStatus embrtCudaEnsureBlasHandle(embrtContext *ctx);

//===----------------------------------------------------------------------===//
// Hooks of the table (runtime/backend.h)
//===----------------------------------------------------------------------===//

embrtStatus embrtCudaContextInit(embrtContext *ctx, void *stream);
void embrtCudaContextRelease(embrtContext *ctx);
embrtStatus embrtCudaSynchronize(embrtContext *ctx);
embrtStatus embrtCudaPollDeviceErrors(embrtContext *ctx);

embrtStatus embrtCudaMalloc(embrtContext *ctx, size_t bytes, void **out);
embrtStatus embrtCudaFree(embrtContext *ctx, void *ptr);
embrtStatus embrtCudaMallocAsync(embrtContext *ctx, size_t bytes, void **out);
embrtStatus embrtCudaFreeAsync(embrtContext *ctx, void *ptr);
embrtStatus embrtCudaMemcpy(embrtContext *ctx, void *dst, const void *src,
                            size_t bytes, embrtCopyKind kind);
embrtStatus embrtCudaMemset(embrtContext *ctx, void *dst, int value,
                            size_t bytes);

/// The library ops of kernels/ops.def: embrtGemm on cuBLASLt
/// (runtime/cuda/gemm.c) and the collectives on NCCL
/// (runtime/cuda/collectives.c).
#define EMBRT_LIBRARY_OP(op, Op, Args, takes)                                  \
  embrtStatus embrtCuda##Op EMBRT_OP_PARAMS(takes, Args);
#include "kernels/ops.def"

/// Releases what embrtCudaGemm keeps in the context.
void embrtCudaGemmRelease(embrtContext *ctx);

/// embrtCompiledLaunchKernel (runtime/cuda/modules.c), and the unloading of
/// the modules it loaded.
embrtStatus embrtCudaLaunchKernel(embrtContext *ctx,
                                  const embrtKernelLaunch *launch);
void embrtCudaModulesRelease(embrtContext *ctx);

embrtStatus embrtCudaEventCreate(embrtContext *ctx, embrtEvent *event);
embrtStatus embrtCudaEventRecord(embrtContext *ctx, embrtEvent *event);
embrtStatus embrtCudaEventElapsedMs(embrtContext *ctx, const embrtEvent *start,
                                    const embrtEvent *end, float *ms);
void embrtCudaEventDestroy(embrtContext *ctx, embrtEvent *event);

embrtStatus embrtCudaCaptureBegin(embrtContext *ctx, embrtCaptureMode mode);
embrtStatus embrtCudaCaptureEnd(embrtContext *ctx, embrtGraph *graph);
embrtStatus embrtCudaGraphLaunch(embrtContext *ctx, const embrtGraph *graph);
void embrtCudaGraphDestroy(embrtContext *ctx, embrtGraph *graph);

// Communicators on NCCL (runtime/cuda/collectives.c; in a
// build without NCCL, runtime/cuda/collectives_no_nccl.c answers
// EMBRT_UNSUPPORTED).
embrtStatus embrtCudaCommGetUniqueId(embrtCommId *out);
embrtStatus embrtCudaCommInit(embrtContext *ctx, const embrtCommId *id);
void embrtCudaCommRelease(embrtContext *ctx);

#endif // EMB_RUNTIME_CUDA_CUDA_H
