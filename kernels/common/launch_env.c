//===- kernels/common/launch_env.c - CUDA errors to statuses ------*- C -*-===//
//
// The one place where cudaError_t and cublasStatus_t become embrtStatus, for
// the launchers (through embrtCudaCheck and embrtCublasCheck, into the launch
// environment's message) and for the runtime's CUDA host code (which records
// the message on the context): allocation failures are EMBRT_OUT_OF_MEMORY,
// an operation cuBLAS does not support is EMBRT_UNSUPPORTED, everything else
// is EMBRT_DEVICE_ERROR. The message names the call and carries CUDA's own
// description.
//
//===----------------------------------------------------------------------===//

#include "kernels/common/launch_env.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdarg.h>
#include <stdio.h>

embrtStatus embrtCudaTranslate(int cudaError, const char *what, char *message,
                               size_t size) {
  cudaError_t error = (cudaError_t)cudaError;
  if (error == cudaSuccess)
    return EMBRT_OK;
  // The CUDA runtime also keeps this error as its "last error": consume it,
  // or the next launch's cudaGetLastError would report it again as that
  // launch's failure (a failed cudaSetDevice on a bad ordinal, then any
  // kernel). Sticky errors (a fault in a kernel) stay, as they must.
  (void)cudaGetLastError();
  snprintf(message, size, "%s failed: %s (%s)", what, cudaGetErrorString(error),
           cudaGetErrorName(error));
  return error == cudaErrorMemoryAllocation ? EMBRT_OUT_OF_MEMORY
                                            : EMBRT_DEVICE_ERROR;
}

embrtStatus embrtCublasTranslate(int cublasStatus, const char *what,
                                 char *message, size_t size) {
  cublasStatus_t error = (cublasStatus_t)cublasStatus;
  if (error == CUBLAS_STATUS_SUCCESS)
    return EMBRT_OK;
  snprintf(message, size, "%s failed: %s (%s)", what,
           cublasGetStatusString(error), cublasGetStatusName(error));
  if (error == CUBLAS_STATUS_ALLOC_FAILED)
    return EMBRT_OUT_OF_MEMORY;
  if (error == CUBLAS_STATUS_NOT_SUPPORTED)
    return EMBRT_UNSUPPORTED;
  return EMBRT_DEVICE_ERROR;
}

embrtStatus embrtLaunchError(embrtLaunchEnv *env, embrtStatus status,
                             const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(env->message, sizeof env->message, fmt, ap);
  va_end(ap);
  return status;
}
