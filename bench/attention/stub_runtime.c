//===- bench/attention/stub_runtime.c - embrtSetError for standalone builds
//===//
//
// The attention test and benchmark call the kernels' entry points directly.
// When they are built without the runtime library (bench/attention/build.sh),
// this file supplies the two runtime functions the kernels call. The CMake
// build links libembrt instead.
//
//===----------------------------------------------------------------------===//

#include "runtime/internal.h"

#include <cuda_runtime_api.h>
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

embrtStatus embrtCudaCheck(embrtContext *ctx, int cudaError, const char *what) {
  if (cudaError == 0)
    return EMBRT_OK;
  return embrtSetError(ctx, EMBRT_DEVICE_ERROR, "%s failed: %s", what,
                       cudaGetErrorString((cudaError_t)cudaError));
}
