//===- kernels/launch.h - Kernel launchers of the CUDA backend ----*- C -*-===//
//
// The boundary between the host side of the CUDA backend (runtime/cuda/*.c,
// plain C) and the device code (kernels/*.cu): the `extern "C"` launchers,
// one per op. They work in the launch environment of
// kernels/common/launch_env.h and know nothing of the runtime's context: the
// backend fills an embrtLaunchEnv from it, and kernel tests and benchmarks
// fill one themselves.
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
//     env->deviceErrors through kernels/common/device_errors.cuh, the output
//     is still fully written, and embrtSynchronize reports them;
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
#include "kernels/common/launch_env.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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
