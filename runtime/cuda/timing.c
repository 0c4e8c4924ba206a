//===- runtime/cuda/timing.c - CUDA events ------------------------*- C -*-===//
//
// The CUDA backend's embrtEvent hooks: a cudaEvent_t recorded on the
// context's stream; the elapsed time waits for the second event (so not
// during a graph capture).
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/cuda.h"

#include <cuda_runtime_api.h>

embrtStatus embrtCudaEventCreate(embrtContext *ctx, embrtEvent *event) {
  cudaEvent_t e = NULL;
  embrtStatus status =
      embrtCudaRecord(ctx, cudaEventCreate(&e), "event: cudaEventCreate");
  event->handle = e;
  return status;
}

embrtStatus embrtCudaEventRecord(embrtContext *ctx, embrtEvent *event) {
  cudaStream_t stream = (cudaStream_t)embrtCudaStateOf(ctx)->env.stream;
  return embrtCudaRecord(ctx,
                         cudaEventRecord((cudaEvent_t)event->handle, stream),
                         "event: cudaEventRecord");
}

embrtStatus embrtCudaEventElapsedMs(embrtContext *ctx, const embrtEvent *start,
                                    const embrtEvent *end, float *ms) {
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "event: the context is capturing a graph, which "
                         "cannot wait for an event; time a graph with events "
                         "recorded around embrtGraphLaunch");
  EMBRT_TRY(embrtCudaRecord(ctx, cudaEventSynchronize((cudaEvent_t)end->handle),
                            "event: cudaEventSynchronize"));
  return embrtCudaRecord(ctx,
                         cudaEventElapsedTime(ms, (cudaEvent_t)start->handle,
                                              (cudaEvent_t)end->handle),
                         "event: cudaEventElapsedTime");
}

void embrtCudaEventDestroy(embrtContext *ctx, embrtEvent *event) {
  if (event->handle)
    cudaEventDestroy((cudaEvent_t)event->handle);
}
