//===- runtime/status.c - Status names and the last message -------*- C -*-===//
//
// Recording a failure or a note on a context, and the names of the status
// codes. Sticky errors: ctx->status keeps the first failing status until
// embrtContextClearError; ctx->message is the message of the most recent
// failure (or warning note); during a graph capture the first failure's
// message is kept as well, for embrtContextEndCapture to report. A context
// in an error state still runs later calls: a caller may issue a sequence
// and check the status once at the end.
//
//===----------------------------------------------------------------------===//

#include "runtime/status.h"
#include "runtime/context.h"

#include <stdarg.h>
#include <stdio.h>

embrtStatus embrtSetError(embrtContext *ctx, embrtStatus status,
                          const char *fmt, ...) {
  if (status == EMBRT_OK || !ctx)
    return status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->message, sizeof ctx->message, fmt, ap);
  va_end(ap);
  if (ctx->status == EMBRT_OK) {
    ctx->status = status;
    if (ctx->capturing)
      snprintf(ctx->captureFailure, sizeof ctx->captureFailure, "%s",
               ctx->message);
  }
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

const char *embrtStatusName(embrtStatus status) {
  switch (status) {
  case EMBRT_OK:
    return "EMBRT_OK";
  case EMBRT_INVALID_ARGUMENT:
    return "EMBRT_INVALID_ARGUMENT";
  case EMBRT_OUT_OF_RANGE:
    return "EMBRT_OUT_OF_RANGE";
  case EMBRT_UNSUPPORTED:
    return "EMBRT_UNSUPPORTED";
  case EMBRT_OUT_OF_MEMORY:
    return "EMBRT_OUT_OF_MEMORY";
  case EMBRT_DEVICE_ERROR:
    return "EMBRT_DEVICE_ERROR";
  }
  return "EMBRT_UNKNOWN_STATUS";
}
