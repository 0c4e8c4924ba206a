//===- runtime/context.c - Contexts -------------------------------*- C -*-===//
//
// Creation and destruction of contexts, their getters, embrtSynchronize, and
// the capture of a context's work into graphs (embrtContextBeginCapture).
// Creation checks the arguments, picks the backend of the device
// (runtime/backend.h) and lets it fill its part of the context (the CUDA
// backend: device properties, stream, device error record); every later call
// goes through that backend. A capture marks the context (ctx->capturing) so
// that calls a graph cannot hold (synchronize, blocking allocation) fail
// with a message instead of invalidating the capture.
//
//===----------------------------------------------------------------------===//

#include "runtime/context.h"
#include "runtime/backend.h"
#include "runtime/status.h"

#include <stdio.h>
#include <stdlib.h>

/// Why the last embrtContextCreate on this thread failed.
static _Thread_local char createError[sizeof(((embrtContext *)0)->message)];

static void setCreateError(const char *message) {
  snprintf(createError, sizeof createError, "%s", message);
}

/// The backend of a valid device; NULL for CUDA in a build without it.
static const struct embrtBackend *backendOf(embrtDevice device) {
#ifdef EMB_HAVE_CUDA
  if (device == EMBRT_DEVICE_CUDA)
    return &embrtCudaBackend;
#endif
  return device == EMBRT_DEVICE_CPU ? &embrtCpuBackend : NULL;
}

/// Ends the capture of `ctx` and drops what it recorded.
static void discardCapture(embrtContext *ctx) {
  ctx->backend->captureEnd(ctx, NULL);
  ctx->capturing = 0;
}

embrtStatus embrtContextCreate(embrtDevice device, int ordinal, void *stream,
                               embrtContext **out) {
  createError[0] = '\0';
  if (!out) {
    setCreateError("context: out is NULL");
    return EMBRT_INVALID_ARGUMENT;
  }
  *out = NULL;
  if (device != EMBRT_DEVICE_CPU && device != EMBRT_DEVICE_CUDA) {
    snprintf(createError, sizeof createError,
             "context: device is %d, must be EMBRT_DEVICE_CPU or "
             "EMBRT_DEVICE_CUDA",
             (int)device);
    return EMBRT_INVALID_ARGUMENT;
  }
  if (device == EMBRT_DEVICE_CPU && (ordinal != 0 || stream)) {
    snprintf(createError, sizeof createError,
             "context: the CPU device takes ordinal 0 and no stream, got "
             "ordinal %d and stream %p",
             ordinal, stream);
    return EMBRT_INVALID_ARGUMENT;
  }
  if (ordinal < 0) {
    snprintf(createError, sizeof createError,
             "context: ordinal is %d, must be >= 0", ordinal);
    return EMBRT_INVALID_ARGUMENT;
  }
  const struct embrtBackend *backend = backendOf(device);
  if (!backend) {
    setCreateError("the emb runtime was built without CUDA");
    return EMBRT_UNSUPPORTED;
  }

  embrtContext *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    setCreateError("context: out of host memory");
    return EMBRT_OUT_OF_MEMORY;
  }
  ctx->device = device;
  ctx->ordinal = ordinal;
  ctx->backend = backend;
  embrtStatus status = backend->contextInit(ctx, stream);
  if (status != EMBRT_OK) {
    setCreateError(ctx->message);
    backend->contextRelease(ctx);
    free(ctx);
    return status;
  }
  *out = ctx;
  return EMBRT_OK;
}

void embrtContextDestroy(embrtContext *ctx) {
  if (!ctx)
    return;
  if (ctx->capturing)
    discardCapture(ctx); // the stream is unusable mid-capture
  for (size_t i = 0; i < ctx->numConstants; ++i)
    embrtFree(ctx, ctx->constants[i].device);
  free(ctx->constants);
  if (ctx->comm)
    ctx->backend->commRelease(ctx);
  ctx->backend->contextRelease(ctx);
  free(ctx);
}

const char *embrtGetCreateError(void) { return createError; }

embrtDevice embrtContextGetDevice(const embrtContext *ctx) {
  return ctx ? ctx->device : EMBRT_DEVICE_CPU;
}

const char *embrtContextGetLastError(const embrtContext *ctx) {
  return ctx ? ctx->message : "context is NULL";
}

embrtStatus embrtContextGetStatus(const embrtContext *ctx) {
  return ctx ? ctx->status : EMBRT_INVALID_ARGUMENT;
}

void embrtContextClearError(embrtContext *ctx) {
  if (!ctx)
    return;
  ctx->status = EMBRT_OK;
  ctx->message[0] = '\0';
  ctx->invalidIdCount = 0;
}

int64_t embrtContextGetInvalidIdCount(const embrtContext *ctx) {
  return ctx ? ctx->invalidIdCount : 0;
}

embrtStatus embrtSynchronize(embrtContext *ctx) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "synchronize: the context is capturing a graph, "
                         "which cannot wait for the device (end the capture "
                         "first)");
  return ctx->backend->synchronize(ctx);
}

embrtStatus embrtPollDeviceErrors(embrtContext *ctx) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (ctx->capturing)
    return EMBRT_OK;
  return ctx->backend->pollDeviceErrors(ctx);
}

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

embrtStatus embrtContextBeginCapture(embrtContext *ctx,
                                     const embrtCaptureOptions *options) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  embrtCaptureMode mode = EMBRT_CAPTURE_THREAD_LOCAL;
  if (options) {
    if (options->structSize != sizeof *options)
      return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                           "capture: options.structSize is %zu, expected %zu",
                           options->structSize, sizeof *options);
    mode = options->mode;
    if (mode != EMBRT_CAPTURE_THREAD_LOCAL && mode != EMBRT_CAPTURE_GLOBAL &&
        mode != EMBRT_CAPTURE_RELAXED)
      return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                           "capture: options.mode is %d, not an "
                           "embrtCaptureMode",
                           (int)mode);
  }
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "capture: the context is capturing already");
  if (ctx->status != EMBRT_OK)
    // A failure during the capture must be told apart from an old one.
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "capture: the context holds an error (%s); clear "
                         "it with embrtContextClearError first",
                         embrtStatusName(ctx->status));
  EMBRT_TRY(ctx->backend->captureBegin(ctx, mode));
  ctx->capturing = 1;
  return EMBRT_OK;
}

embrtStatus embrtContextEndCapture(embrtContext *ctx, embrtGraph **out) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (out)
    *out = NULL;
  if (!ctx->capturing)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "capture: the context is not capturing "
                         "(embrtContextBeginCapture first)");
  if (!out) {
    discardCapture(ctx);
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "capture: out is NULL (the capture is discarded)");
  }
  if (ctx->status != EMBRT_OK) {
    // The first failure says what broke the capture.
    discardCapture(ctx);
    return embrtSetError(ctx, ctx->status,
                         "capture: a call failed during the capture, which "
                         "is discarded: %s",
                         ctx->captureFailure);
  }
  embrtGraph *graph = calloc(1, sizeof *graph);
  if (!graph) {
    discardCapture(ctx);
    return embrtSetError(ctx, EMBRT_OUT_OF_MEMORY, "capture: out of memory");
  }
  graph->ctx = ctx;
  embrtStatus status = ctx->backend->captureEnd(ctx, graph);
  ctx->capturing = 0;
  if (status != EMBRT_OK) {
    free(graph);
    return status;
  }
  *out = graph;
  return EMBRT_OK;
}

int embrtContextIsCapturing(const embrtContext *ctx) {
  return ctx ? ctx->capturing : 0;
}

embrtStatus embrtGraphLaunch(embrtContext *ctx, embrtGraph *graph) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!graph)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "graph: graph is NULL");
  if (graph->ctx != ctx)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "graph: the graph was captured on another context");
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "graph: the context is capturing a graph; launch "
                         "after the capture ends");
  return ctx->backend->graphLaunch(ctx, graph);
}

void embrtGraphDestroy(embrtContext *ctx, embrtGraph *graph) {
  if (!graph)
    return;
  if (ctx && graph->ctx == ctx)
    ctx->backend->graphDestroy(ctx, graph);
  free(graph);
}
