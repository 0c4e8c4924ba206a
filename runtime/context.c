//===- runtime/context.c - Contexts -------------------------------*- C -*-===//
//
// Creation and destruction of contexts, their getters, and embrtSynchronize.
// Creation checks the arguments, picks the backend of the device
// (runtime/backend.h) and lets it fill its part of the context (the CUDA
// backend: device properties, stream, device error record); every later call
// goes through that backend.
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
  return ctx->backend->synchronize(ctx);
}
