//===- kernels/common/launch_env.h - The launch environment -------*- C -*-===//
//
// What every launcher of the CUDA backend (kernels/launch.h) works in: the
// launch environment (the stream, the device's properties, the device error
// record), the one translation of CUDA and cuBLAS errors into statuses
// (kernels/common/launch_env.c), and the grid size of the grid-stride
// kernels. Plain C: the runtime's CUDA host code fills the environment,
// kernel tests and benchmarks fill one themselves.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_COMMON_LAUNCH_ENV_H
#define EMB_KERNELS_COMMON_LAUNCH_ENV_H

#include "emb/runtime.h"
#include "kernels/common/device_errors.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// The launch environment
//===----------------------------------------------------------------------===//

/// What a launcher may know of the device and the stream it runs on. The
/// runtime's CUDA backend keeps one per context (runtime/cuda/context.c);
/// kernel tests and benchmarks fill one directly.
typedef struct embrtLaunchEnv {
  /// The cudaStream_t every launch and copy is ordered on.
  void *stream;
  /// Device properties, read once (launch shapes are chosen from them).
  int smCount;
  int ccMajor, ccMinor;
  int64_t l2Bytes;
  int64_t maxSharedPerBlockOptin;
  /// The device error record (device memory, zeroed before first use).
  embrtDeviceErrors *deviceErrors;
  /// A device word the persistent kernels' dynamic tile schedules count in
  /// (kernels/ikbo_lce_sm90a.cu): zeroed before first use, 0 again after
  /// every launch that counts in it. NULL: those kernels keep a static
  /// schedule.
  unsigned int *scheduleCounter;
  /// A cublasHandle_t bound to `stream`, for launchers that use cuBLAS
  /// (embrtCudaLaunchLce); the backend creates it before the first call
  /// that needs it. NULL elsewhere.
  void *blasHandle;
  /// Why the last launcher call failed: written by the launcher whenever it
  /// returns a status other than EMBRT_OK.
  char message[512];
} embrtLaunchEnv;

//===----------------------------------------------------------------------===//
// Errors (kernels/common/launch_env.c)
//===----------------------------------------------------------------------===//

/// The one translation of a cudaError_t into a status: EMBRT_OK for
/// cudaSuccess, otherwise EMBRT_OUT_OF_MEMORY (allocation failures) or
/// EMBRT_DEVICE_ERROR, with "<what> failed: <cudaGetErrorString> (<name>)"
/// written into `message` (`size` bytes). It consumes CUDA's non-sticky last
/// error, so that the next launch check does not report it again.
embrtStatus embrtCudaTranslate(int cudaError, const char *what, char *message,
                               size_t size);

/// The same for a cublasStatus_t (EMBRT_UNSUPPORTED for
/// CUBLAS_STATUS_NOT_SUPPORTED).
embrtStatus embrtCublasTranslate(int cublasStatus, const char *what,
                                 char *message, size_t size);

/// Writes a printf-style message into env->message and returns `status`.
embrtStatus embrtLaunchError(embrtLaunchEnv *env, embrtStatus status,
                             const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// embrtCudaTranslate into env->message.
static inline embrtStatus embrtCudaCheck(embrtLaunchEnv *env, int cudaError,
                                         const char *what) {
  if (cudaError == 0)
    return EMBRT_OK;
  return embrtCudaTranslate(cudaError, what, env->message, sizeof env->message);
}

/// embrtCublasTranslate into env->message.
static inline embrtStatus embrtCublasCheck(embrtLaunchEnv *env,
                                           int cublasStatus, const char *what) {
  if (cublasStatus == 0)
    return EMBRT_OK;
  return embrtCublasTranslate(cublasStatus, what, env->message,
                              sizeof env->message);
}

//===----------------------------------------------------------------------===//
// Grid-stride launches
//===----------------------------------------------------------------------===//

/// Threads per block of the runtime's grid-stride kernels.
#define EMBRT_CUDA_THREADS 256

/// Blocks for a grid-stride loop over `work` items of one item per thread:
/// enough to cover the work, at most 32 per SM, at least 1.
static inline unsigned embrtCudaGridSize(const embrtLaunchEnv *env,
                                         int64_t work) {
  int64_t blocks = (work + EMBRT_CUDA_THREADS - 1) / EMBRT_CUDA_THREADS;
  int64_t cap = (int64_t)(env->smCount > 0 ? env->smCount : 1) * 32;
  if (blocks > cap)
    blocks = cap;
  return (unsigned)(blocks > 0 ? blocks : 1);
}

#ifdef __cplusplus
}
#endif

#endif // EMB_KERNELS_COMMON_LAUNCH_ENV_H
