//===- runtime/timing.c - Events for timing device work -----------*- C -*-===//
//
// embrtEvent (runtime/backend.h) marks a point on the context's stream: this
// file allocates it and checks the arguments; the backend records it (a
// cudaEvent_t on CUDA, runtime/cuda/timing.c; the host's monotonic clock on
// the CPU, where every call has finished when it returns).
//
//===----------------------------------------------------------------------===//

#include "runtime/backend.h"
#include "runtime/context.h"
#include "runtime/status.h"

#include <stdlib.h>

embrtStatus embrtEventCreate(embrtContext *ctx, embrtEvent **out) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!out)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "event: out is NULL");
  *out = calloc(1, sizeof **out);
  if (!*out)
    return embrtSetError(ctx, EMBRT_OUT_OF_MEMORY, "event: out of memory");
  embrtStatus status = ctx->backend->eventCreate(ctx, *out);
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
  return ctx->backend->eventRecord(ctx, event);
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
  return ctx->backend->eventElapsedMs(ctx, start, end, ms);
}

void embrtEventDestroy(embrtContext *ctx, embrtEvent *event) {
  if (!event)
    return;
  if (ctx)
    ctx->backend->eventDestroy(ctx, event);
  free(event);
}
