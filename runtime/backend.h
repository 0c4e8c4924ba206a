//===- runtime/backend.h - The table a backend fills --------------*- C -*-===//
//
// A backend is one struct embrtBackend: a function per context, memory,
// event and graph hook and per op. A context points to its backend, chosen at
// creation from the device (runtime/context.c), and the backend-neutral layer
// calls through it with no test of the device:
//
//   runtime/<family>.c   checks the arguments once, then ctx->backend-><op>
//   runtime/cpu/         embrtCpuBackend: the reference loops
//   runtime/cuda/        embrtCudaBackend: fills a launch environment from the
//                        context and calls the launcher in kernels/<family>.cu
//
// Backends trust their arguments (checked by the caller) and report only what
// they alone can see: data errors, device errors, allocation failures. A
// build without CUDA has no embrtCudaBackend; creating a CUDA context then
// answers EMBRT_UNSUPPORTED.
//
// The ops are the rows of kernels/ops.def, from which this struct's op
// fields, the CPU backend's functions and table, the launchers and the CUDA
// backend's table are all declared. Adding an op family: its entry points in
// runtime/<family>.c, a row for each op in kernels/ops.def, its CPU loops in
// runtime/cpu/<family>.c, its launchers in kernels/<family>.cu and the CUDA
// backend's function per op in runtime/cuda/backend.c.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_BACKEND_H
#define EMB_RUNTIME_BACKEND_H

#include "emb/runtime.h"

#include <stddef.h>
#include <stdint.h>

/// An embrtEvent: a point on the context's stream.
struct embrtEvent {
  /// The backend's own event (a cudaEvent_t on CUDA); unused on the CPU.
  void *handle;
  /// The host's monotonic clock when recorded, in ms (CPU).
  double hostMs;
  /// Whether embrtEventRecord has run (checked by runtime/timing.c).
  int recorded;
};

/// An embrtGraph: work captured from a context's stream.
struct embrtGraph {
  /// The context that captured it, the only one that may launch it.
  embrtContext *ctx;
  /// The backend's executable graph (a cudaGraphExec_t on CUDA).
  void *handle;
};

/// One launch of a compiler-generated kernel (embrtCompiledLaunchKernel).
typedef struct embrtKernelLaunch {
  const char *ptx; ///< NUL-terminated PTX text
  int64_t ptxBytes;
  uint64_t hash; ///< the PTX's FNV-1a, computed by the compiler
  const char *kernel;
  unsigned grid[3], block[3], sharedBytes;
  void *const *args; ///< numArgs device pointers, the kernel's parameters
  int numArgs;
} embrtKernelLaunch;

struct embrtBackend {
  /// The alignment a workspace needs: 256 bytes on CUDA (what cuBLAS asks
  /// for; cudaMalloc gives it), 16 on the CPU (what malloc gives).
  size_t workspaceAlignment;
  /// Whether data pointers are host memory, so that a compiled model's
  /// constants are used in place instead of uploaded (runtime/compiled.c).
  int usesHostMemory;

  //===--------------------------------------------------------------------===//
  // Contexts (runtime/context.c)
  //===--------------------------------------------------------------------===//

  /// Fills the backend's part of a new context (ctx->backendState) with
  /// `stream` (the caller's, or NULL); ctx->device and ctx->ordinal are set.
  /// On failure it records why on ctx.
  embrtStatus (*contextInit)(embrtContext *ctx, void *stream);
  /// Frees what contextInit made, even after a partial contextInit.
  void (*contextRelease)(embrtContext *ctx);
  /// embrtSynchronize: waits for the context's work, reports device errors.
  embrtStatus (*synchronize)(embrtContext *ctx);
  /// embrtPollDeviceErrors: reports finished work's device errors, no wait.
  embrtStatus (*pollDeviceErrors)(embrtContext *ctx);

  //===--------------------------------------------------------------------===//
  // Memory (runtime/memory.c): sizes are nonzero, pointers are set.
  //===--------------------------------------------------------------------===//

  embrtStatus (*deviceMalloc)(embrtContext *ctx, size_t bytes, void **out);
  embrtStatus (*deviceFree)(embrtContext *ctx, void *ptr);
  embrtStatus (*deviceMallocAsync)(embrtContext *ctx, size_t bytes, void **out);
  embrtStatus (*deviceFreeAsync)(embrtContext *ctx, void *ptr);
  embrtStatus (*deviceMemcpy)(embrtContext *ctx, void *dst, const void *src,
                              size_t bytes, embrtCopyKind kind);
  embrtStatus (*deviceMemset)(embrtContext *ctx, void *dst, int value,
                              size_t bytes);

  //===--------------------------------------------------------------------===//
  // Events (runtime/timing.c): the event struct is allocated and zeroed.
  //===--------------------------------------------------------------------===//

  embrtStatus (*eventCreate)(embrtContext *ctx, embrtEvent *event);
  embrtStatus (*eventRecord)(embrtContext *ctx, embrtEvent *event);
  /// Both events are recorded.
  embrtStatus (*eventElapsedMs)(embrtContext *ctx, const embrtEvent *start,
                                const embrtEvent *end, float *ms);
  void (*eventDestroy)(embrtContext *ctx, embrtEvent *event);

  //===--------------------------------------------------------------------===//
  // Graphs (runtime/context.c): capture of the context's stream and replay.
  // Called with the arguments checked and ctx->capturing as the hook needs
  // it (0 for captureBegin, 1 for captureEnd).
  //===--------------------------------------------------------------------===//

  embrtStatus (*captureBegin)(embrtContext *ctx, embrtCaptureMode mode);
  /// Ends the capture. With `graph` set, makes the captured work its
  /// executable graph (graph->handle); with NULL (a failed call during the
  /// capture, or a context destroyed while capturing) discards it.
  embrtStatus (*captureEnd)(embrtContext *ctx, embrtGraph *graph);
  embrtStatus (*graphLaunch)(embrtContext *ctx, const embrtGraph *graph);
  void (*graphDestroy)(embrtContext *ctx, embrtGraph *graph);

  //===--------------------------------------------------------------------===//
  // Ops, one per row of kernels/ops.def, which says what each takes: the
  // entry points of runtime/<family>.c call them with checked arguments.
  //===--------------------------------------------------------------------===//

#define EMBRT_OP(op, Op, Args, takes)                                          \
  embrtStatus(*op) EMBRT_OP_PARAMS(takes, Args);
#include "kernels/ops.def"

  /// A kernel the compiler generated (embrtCompiledLaunchKernel, checked
  /// by runtime/compiled.c); NULL where the device cannot run PTX.
  embrtStatus (*launchKernel)(embrtContext *ctx,
                              const struct embrtKernelLaunch *launch);

  //===--------------------------------------------------------------------===//
  // Communicators (runtime/collectives.c): arguments are checked;
  // ctx->worldSize and ctx->rank are set before commInit, and the
  // collectives (ops above) run only once it succeeded.
  //===--------------------------------------------------------------------===//

  embrtStatus (*commGetUniqueId)(embrtCommId *out);
  /// Sets ctx->comm; on failure records why.
  embrtStatus (*commInit)(embrtContext *ctx, const embrtCommId *id);
  /// Frees ctx->comm (set).
  void (*commRelease)(embrtContext *ctx);
};

/// Copies `n` i64 counts from the context's device to `host` and waits for
/// the stream (runtime/collectives.c): the one host synchronisation of a
/// sharded program's input dist, where NCCL needs counts computed on the
/// device on the host (docs/sharding.md). Refused while the context
/// captures a graph; `op` names the IR op in the messages.
embrtStatus embrtCopyCountsToHost(embrtContext *ctx, const char *op,
                                  int64_t *host, const int64_t *device,
                                  int64_t n);

/// The CPU reference backend (runtime/cpu/backend.c).
extern const struct embrtBackend embrtCpuBackend;

#ifdef EMB_HAVE_CUDA
/// The CUDA backend (runtime/cuda/backend.c), when built with CUDA.
extern const struct embrtBackend embrtCudaBackend;
#endif

#endif // EMB_RUNTIME_BACKEND_H
