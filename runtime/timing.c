//===- runtime/timing.c - Events for timing device work ------------------===//
//
// On CUDA an embrtEvent wraps a cudaEvent_t recorded on the context's stream;
// on the CPU, where every call has finished when it returns, it holds the
// host's monotonic clock at the time it was recorded.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "runtime/internal.h"

#include <stdlib.h>
#include <time.h>

struct embrtEvent {
  void *cudaEvent; ///< cudaEvent_t on CUDA
  double hostMs;   ///< the host clock on the CPU
  int recorded;
};

embrtStatus embrtEventCreate(embrtContext *ctx, embrtEvent **out) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!out)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "event: out is NULL");
  *out = calloc(1, sizeof **out);
  if (!*out)
    return embrtSetError(ctx, EMBRT_OUT_OF_MEMORY, "event: out of memory");
  if (ctx->device != EMBRT_DEVICE_CUDA)
    return EMBRT_OK;
  embrtStatus status = embrtCudaEventCreate(ctx, &(*out)->cudaEvent);
  if (status != EMBRT_OK) {
    free(*out);
    *out = NULL;
  }
  return status;
}

embrtStatus embrtEventRecord(embrtContext *ctx, embrtEvent *event) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!event)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "event: event is NULL");
  event->recorded = 1;
  if (ctx->device == EMBRT_DEVICE_CUDA)
    return embrtCudaEventRecord(ctx, event->cudaEvent);
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  event->hostMs = (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
  return EMBRT_OK;
}

embrtStatus embrtEventElapsedMs(embrtContext *ctx, embrtEvent *start,
                                embrtEvent *end, float *ms) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!start || !end || !ms)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "event: start, end and ms must not be NULL");
  if (!start->recorded || !end->recorded)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "event: both events must be recorded first");
  if (ctx->device == EMBRT_DEVICE_CUDA)
    return embrtCudaEventElapsedMs(ctx, start->cudaEvent, end->cudaEvent, ms);
  *ms = (float)(end->hostMs - start->hostMs);
  return EMBRT_OK;
}

void embrtEventDestroy(embrtContext *ctx, embrtEvent *event) {
  if (!event)
    return;
  if (ctx && ctx->device == EMBRT_DEVICE_CUDA)
    embrtCudaEventDestroy(event->cudaEvent);
  free(event);
}
