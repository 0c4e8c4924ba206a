//===- test/Kernels/gpu_test.cuh - Shared by GPU tests and benchmarks -----===//
//
// What the kernel tests (test/Kernels/*.cu) and the benchmark drivers
// (bench/*/*_bench.cu) that call launchers directly share: CUDA_CHECK, a
// counter-based hash for random inputs (the same on host and device),
// conversions between float and the 16-bit float types on the device, a
// random fill kernel, index loads, the launch environment a test builds in
// place of the runtime's CUDA backend (kernels/launch.h), a watchdog wait,
// and the waits a timer needs. The benchmarks' timer (BenchTimer) is
// bench/common/bench_timer.cuh. The CPU-side tests have
// test/Runtime/harness.h.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TEST_KERNELS_GPU_TEST_CUH
#define EMB_TEST_KERNELS_GPU_TEST_CUH

#include "emb/runtime.h"
#include "kernels/launch.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/// Exits with status 2 naming the call when a CUDA call fails: a test or
/// benchmark cannot go on without its buffers.
#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    cudaError_t err_ = (expr);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,            \
              cudaGetErrorString(err_));                                       \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

/// The finaliser of splitmix64: a well-mixed 64-bit hash.
__device__ __host__ inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/// Element i of the random stream `seed`: the same bits on host and device,
/// whatever thread draws it.
__device__ __host__ inline uint64_t mix64At(uint64_t seed, uint64_t i) {
  return mix64(seed + i * 0x9e3779b97f4a7c15ull);
}

//===----------------------------------------------------------------------===//
// Element types on the device
//===----------------------------------------------------------------------===//

/// float to T, rounded to nearest even.
template <typename T> __device__ inline T fromF(float x);
template <> __device__ inline float fromF<float>(float x) { return x; }
template <> __device__ inline __half fromF<__half>(float x) {
  return __float2half_rn(x);
}
template <> __device__ inline __nv_bfloat16 fromF<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

/// T to float, exactly.
__device__ inline float toF(float x) { return x; }
__device__ inline float toF(__half x) { return __half2float(x); }
__device__ inline float toF(__nv_bfloat16 x) { return __bfloat162float(x); }

/// Uniform values in [lo, hi) from stream `seed`, one element per index.
template <typename T>
__global__ void fillKernel(T *p, long long n, uint64_t seed, float lo,
                           float hi) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    double u = (mix64At(seed, (uint64_t)i) >> 11) * (1.0 / 9007199254740992.0);
    p[i] = fromF<T>((float)(lo + (hi - lo) * u));
  }
}

/// Element i of an i32 (i64 = 0) or i64 index array.
__device__ inline long long loadIdx(const void *p, int i64, long long i) {
  return i64 ? ((const long long *)p)[i] : ((const int *)p)[i];
}

//===----------------------------------------------------------------------===//
// The launch environment
//===----------------------------------------------------------------------===//

/// What the runtime's CUDA backend would hand a launcher on device 0, on the
/// caller's `stream`: the device's properties and a zeroed device error
/// record. No cuBLAS handle.
static inline embrtLaunchEnv gpuTestEnvOn(cudaStream_t stream) {
  embrtLaunchEnv env;
  memset(&env, 0, sizeof env);
  env.stream = stream;
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  env.smCount = prop.multiProcessorCount;
  env.ccMajor = prop.major;
  env.ccMinor = prop.minor;
  env.l2Bytes = prop.l2CacheSize;
  env.maxSharedPerBlockOptin = (int64_t)prop.sharedMemPerBlockOptin;
  CUDA_CHECK(cudaMalloc((void **)&env.deviceErrors, sizeof(embrtDeviceErrors)));
  CUDA_CHECK(cudaMemset(env.deviceErrors, 0, sizeof(embrtDeviceErrors)));
  CUDA_CHECK(cudaMalloc((void **)&env.scheduleCounter, sizeof(unsigned int)));
  CUDA_CHECK(cudaMemset(env.scheduleCounter, 0, sizeof(unsigned int)));
  return env;
}

/// The same on a new stream (cudaStreamCreate: ordered after work on the
/// legacy default stream).
static inline embrtLaunchEnv gpuTestEnv(void) {
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  return gpuTestEnvOn(stream);
}

/// Frees what gpuTestEnv made, the stream included.
static inline void gpuTestEnvDestroy(embrtLaunchEnv *env) {
  CUDA_CHECK(cudaFree(env->deviceErrors));
  if (env->scheduleCounter)
    CUDA_CHECK(cudaFree(env->scheduleCounter));
  CUDA_CHECK(cudaStreamDestroy((cudaStream_t)env->stream));
}

/// The device error record of `env`, read back (the stream must be idle).
static inline embrtDeviceErrors gpuTestDeviceErrors(const embrtLaunchEnv *env) {
  embrtDeviceErrors record;
  CUDA_CHECK(cudaMemcpy(&record, env->deviceErrors, sizeof record,
                        cudaMemcpyDeviceToHost));
  return record;
}

//===----------------------------------------------------------------------===//
// Waiting with a watchdog
//===----------------------------------------------------------------------===//

/// Waits for `stream`. A CUDA error prints "FAIL <what>: <error>" to `out`
/// and exits with status 2; work still running after `seconds` prints
/// "HANG <what>" and exits with status 3 at once (a hung context cannot be
/// recovered), so that one bad configuration cannot eat a GPU session.
static inline void waitOrDie(cudaStream_t stream, double seconds,
                             const char *what, FILE *out) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess)
      return;
    if (e != cudaErrorNotReady) {
      fprintf(out, "FAIL %s: %s\n", what, cudaGetErrorString(e));
      fflush(out);
      exit(2);
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    if ((t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec) > seconds) {
      fprintf(out, "HANG %s\n", what);
      fflush(out);
      _exit(3);
    }
    usleep(1000);
  }
}

#endif // EMB_TEST_KERNELS_GPU_TEST_CUH
