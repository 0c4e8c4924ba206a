//===- bench/ikbo_lce/stub_runtime.c - embrtSetError for standalone builds ===//
//
// The IKBO LCE test and benchmark call the kernels' entry points directly.
// When they are built without the runtime library (bench/ikbo_lce/build.sh),
// this file supplies the one runtime function the kernels call. The CMake
// build links libembrt instead.
//
//===----------------------------------------------------------------------===//

#include "runtime/internal.h"

#include <stdio.h>

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
