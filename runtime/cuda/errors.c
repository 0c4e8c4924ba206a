//===- runtime/cuda/errors.c - CUDA errors to statuses ------------*- C -*-===//
//
// The one place where cudaError_t and cublasStatus_t become embrtStatus:
// allocation failures are EMBRT_OUT_OF_MEMORY, an operation cuBLAS does not
// support is EMBRT_UNSUPPORTED, everything else is EMBRT_DEVICE_ERROR. The
// message names the call and carries CUDA's own description.
//
//===----------------------------------------------------------------------===//

#include "kernels/launch.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

embrtStatus embrtCudaCheck(embrtContext *ctx, int cudaError, const char *what) {
  cudaError_t error = (cudaError_t)cudaError;
  if (error == cudaSuccess)
    return EMBRT_OK;
  // The CUDA runtime also keeps this error as its "last error": consume it,
  // or the next launch's cudaGetLastError would report it again as that
  // launch's failure (a failed cudaSetDevice on a bad ordinal, then any
  // kernel). Sticky errors (a fault in a kernel) stay, as they must.
  (void)cudaGetLastError();
  embrtStatus status = error == cudaErrorMemoryAllocation ? EMBRT_OUT_OF_MEMORY
                                                          : EMBRT_DEVICE_ERROR;
  return embrtSetError(ctx, status, "%s failed: %s (%s)", what,
                       cudaGetErrorString(error), cudaGetErrorName(error));
}

embrtStatus embrtCublasCheck(embrtContext *ctx, int cublasStatus,
                             const char *what) {
  cublasStatus_t error = (cublasStatus_t)cublasStatus;
  if (error == CUBLAS_STATUS_SUCCESS)
    return EMBRT_OK;
  embrtStatus status = EMBRT_DEVICE_ERROR;
  if (error == CUBLAS_STATUS_ALLOC_FAILED)
    status = EMBRT_OUT_OF_MEMORY;
  else if (error == CUBLAS_STATUS_NOT_SUPPORTED)
    status = EMBRT_UNSUPPORTED;
  return embrtSetError(ctx, status, "%s failed: %s (%s)", what,
                       cublasGetStatusString(error),
                       cublasGetStatusName(error));
}
