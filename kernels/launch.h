//===- kernels/launch.h - Kernel launchers of the CUDA backend ----*- C -*-===//
//
// The boundary between the host side of the CUDA backend (runtime/cuda/*.c,
// plain C) and the device code (kernels/*.cu): the launch environment, the
// `extern "C"` launchers, one per op, and the helpers they share. Launchers
// know nothing of the runtime's context: the backend fills an embrtLaunchEnv
// from it, and kernel tests and benchmarks fill one themselves.
//
// Contract of every launcher:
//   - its arguments were checked by the op family's file in runtime/ (shapes
//     agree, pointers set, enums valid, workspace large enough and 256-byte
//     aligned);
//   - its output is not empty (runtime/cuda/backend.c returns early
//     otherwise) and the device of env->stream is current on the calling
//     thread;
//   - it enqueues work on (cudaStream_t)env->stream, never synchronises and
//     never allocates: scratch memory is args->workspace, of at least the
//     bytes its *WorkspaceSize function asked for;
//   - data errors found on the device (an id out of range under
//     EMBRT_BOUNDS_FATAL, a bad cand_to_user, offset or user length) go to
//     env->deviceErrors through kernels/device_errors.cuh, the output is
//     still fully written, and embrtSynchronize reports them;
//   - it checks every CUDA call and cudaGetLastError() after each launch with
//     embrtCudaCheck (cuBLAS calls with embrtCublasCheck) and returns the
//     resulting status; a failure leaves its message in env->message, which
//     the backend records on the context.
//
// *WorkspaceSize functions get checked shapes (data pointers may be unset)
// and must answer from the shapes and the device properties alone.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_LAUNCH_H
#define EMB_KERNELS_LAUNCH_H

#include "emb/runtime.h"
#include "kernels/device_errors.h"

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
// Errors (kernels/launch.c)
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

//===----------------------------------------------------------------------===//
// Launchers, one per EMBRT_KERNEL_OP row of kernels/ops.def (which says what
// each takes and which kernels/<family>.cu defines it): embrtCudaLaunch<Op>,
// and embrtCuda<Op> for a workspace query
//===----------------------------------------------------------------------===//

#define EMBRT_KERNEL_OP(op, Op, Args, takes)                                   \
  embrtStatus EMBRT_LAUNCHER(takes, Op) EMBRT_LAUNCHER_PARAMS(takes, Args);
#include "kernels/ops.def"

#ifdef __cplusplus
}
#endif

#endif // EMB_KERNELS_LAUNCH_H
