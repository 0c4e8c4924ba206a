//===- runtime/cuda/graph.c - CUDA graphs of a context's stream ---*- C -*-===//
//
// The CUDA backend's graph hooks: stream capture of the context's stream
// (cudaStreamBeginCapture in the caller's mode, thread-local by default),
// instantiation of what it recorded into an executable graph, and launches
// of it on the same stream. The runtime keeps only the executable graph: the
// recorded one is destroyed once instantiated.
//
// What the capture records: the kernels the launchers enqueue, memsets and
// device copies, and the stream-ordered allocations of compiled models
// (cudaMallocAsync and cudaFreeAsync become the graph's memory nodes, whose
// memory the graph keeps between launches). The graph is instantiated with
// cudaGraphInstantiateFlagAutoFreeOnLaunch so that a graph whose capture
// allocated without freeing can still be launched again (its last
// allocation is freed first), and uploaded at once so that its first launch
// costs what the others do.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/cuda.h"

#include <cuda_runtime_api.h>

static cudaStream_t streamOf(const embrtContext *ctx) {
  return (cudaStream_t)embrtCudaStateOf(ctx)->env.stream;
}

embrtStatus embrtCudaCaptureBegin(embrtContext *ctx, embrtCaptureMode mode) {
  static const enum cudaStreamCaptureMode modes[] = {
      [EMBRT_CAPTURE_THREAD_LOCAL] = cudaStreamCaptureModeThreadLocal,
      [EMBRT_CAPTURE_GLOBAL] = cudaStreamCaptureModeGlobal,
      [EMBRT_CAPTURE_RELAXED] = cudaStreamCaptureModeRelaxed,
  };
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "capture: cudaSetDevice"));
  return embrtCudaRecord(ctx,
                         cudaStreamBeginCapture(streamOf(ctx), modes[mode]),
                         "capture: cudaStreamBeginCapture");
}

embrtStatus embrtCudaCaptureEnd(embrtContext *ctx, embrtGraph *out) {
  cudaGraph_t graph = NULL;
  cudaError_t error = cudaStreamEndCapture(streamOf(ctx), &graph);
  if (!out || error != cudaSuccess) {
    if (graph)
      cudaGraphDestroy(graph);
    // An invalidated capture leaves its error for the next launch check.
    (void)cudaGetLastError();
    return out ? embrtCudaRecord(ctx, error, "capture: cudaStreamEndCapture")
               : EMBRT_OK;
  }
  cudaGraphExec_t exec = NULL;
  error = cudaGraphInstantiateWithFlags(
      &exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch);
  cudaGraphDestroy(graph);
  EMBRT_TRY(embrtCudaRecord(ctx, error, "capture: cudaGraphInstantiate"));
  error = cudaGraphUpload(exec, streamOf(ctx));
  if (error != cudaSuccess) {
    cudaGraphExecDestroy(exec);
    return embrtCudaRecord(ctx, error, "capture: cudaGraphUpload");
  }
  out->handle = exec;
  return EMBRT_OK;
}

embrtStatus embrtCudaGraphLaunch(embrtContext *ctx, const embrtGraph *graph) {
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "graph: cudaSetDevice"));
  return embrtCudaRecord(
      ctx, cudaGraphLaunch((cudaGraphExec_t)graph->handle, streamOf(ctx)),
      "graph: cudaGraphLaunch");
}

void embrtCudaGraphDestroy(embrtContext *ctx, embrtGraph *graph) {
  // A launch in flight completes first; the host does not wait for it.
  if (graph->handle)
    cudaGraphExecDestroy((cudaGraphExec_t)graph->handle);
  graph->handle = NULL;
}
