//===- runtime/context.c - Contexts and their error state ---------*- C -*-===//
//
// Creation and destruction of contexts, the sticky status with the last
// message, and embrtSynchronize. The CUDA parts (stream, device properties,
// the device error record) live in runtime/cuda/context.c.
//
// Sticky errors: ctx->status keeps the first failing status until
// embrtContextClearError; ctx->message is the message of the most recent
// failure (or warning note). A context in an error state still runs later
// calls: a caller may issue a sequence and check the status once at the end.
//
//===----------------------------------------------------------------------===//

#include "runtime/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Why the last embrtContextCreate on this thread failed.
static _Thread_local char createError[sizeof(((embrtContext *)0)->message)];

static void setCreateError(const char *message) {
  snprintf(createError, sizeof createError, "%s", message);
}

embrtStatus embrtSetError(embrtContext *ctx, embrtStatus status,
                          const char *fmt, ...) {
  if (status == EMBRT_OK || !ctx)
    return status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
  va_end(ap);
  if (ctx->status == EMBRT_OK)
    ctx->status = status;
  return status;
}

void embrtSetNote(embrtContext *ctx, const char *fmt, ...) {
  if (!ctx)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
  va_end(ap);
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

  embrtContext *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    setCreateError("context: out of host memory");
    return EMBRT_OUT_OF_MEMORY;
  }
  ctx->device = device;
  ctx->ordinal = ordinal;
  if (device == EMBRT_DEVICE_CUDA) {
    embrtStatus status = embrtCudaContextInit(ctx, ordinal, stream);
    if (status != EMBRT_OK) {
      setCreateError(ctx->message);
      embrtCudaContextRelease(ctx);
      free(ctx);
      return status;
    }
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
  if (ctx->device == EMBRT_DEVICE_CUDA)
    embrtCudaContextRelease(ctx);
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
  if (ctx->device == EMBRT_DEVICE_CUDA)
    return embrtCudaSynchronize(ctx);
  return EMBRT_OK; // the CPU backend finishes every call before returning
}
