//===- kernels/common/convert.cuh - Element conversions --------*- CUDA -*-===//
//
// Every conversion between element types on the device, one name each:
//   - the storage types of embrtDtype and their compute type (f32 for f32,
//     f16 and bf16, f64 for f64: the runtime's elementwise rule; reductions
//     may accumulate f32 data in f32): toCompute widens, fromCompute<T>
//     rounds, packCompute<T> rounds two values into one 32-bit pair;
//   - per-sample weights of the lookups, widened to f32;
//   - the computeDtype copies: a product of f32 data computed in f16 or bf16
//     (embrtAttentionArgs::computeDtype, embrtIkboLceArgs::computeDtype) runs
//     as three steps on the stream: its operands rounded (nearest even) into
//     the workspace in one launch (roundJobs), the f16/bf16 kernels on the
//     rounded copies, and their output widened into the caller's f32 output
//     in one launch (widen). Both launches move eight elements a thread and
//     step (16-byte stores of the narrow type) where the pointers and extents
//     allow, else one; both are memory-bound copies judged against the card's
//     copy rate.
// Every narrowing conversion rounds to nearest even.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_COMMON_CONVERT_CUH
#define EMB_KERNELS_COMMON_CONVERT_CUH

#include "kernels/common/launch_env.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdint.h>

namespace embrt {

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

/// The compute type of storage type T.
template <typename T> struct Compute { using type = float; };
template <> struct Compute<double> { using type = double; };

__device__ __forceinline__ float toCompute(float x) { return x; }
__device__ __forceinline__ float toCompute(__half x) { return __half2float(x); }
__device__ __forceinline__ float toCompute(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ __forceinline__ double toCompute(double x) { return x; }

/// Rounds a compute value to storage type T.
template <typename T> __device__ T fromCompute(typename Compute<T>::type x);
template <> __device__ __forceinline__ float fromCompute<float>(float x) {
  return x;
}
template <> __device__ __forceinline__ __half fromCompute<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromCompute<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ double fromCompute<double>(double x) {
  return x;
}

/// Two compute values rounded to a pair of T in one 32-bit word (the
/// first in the low half), as a 16-bit matrix operand holds them.
template <typename T> __device__ uint32_t packCompute(float a, float b);
template <>
__device__ __forceinline__ uint32_t packCompute<__half>(float a, float b) {
  __half2 h = __floats2half2_rn(a, b);
  return *reinterpret_cast<uint32_t *>(&h);
}
template <>
__device__ __forceinline__ uint32_t packCompute<__nv_bfloat16>(float a,
                                                               float b) {
  __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<uint32_t *>(&h);
}

/// Per-sample weight i of the lookups (embrtTbeArgs::perSampleWeights)
/// through the read-only path, in f32; `kind` is 1 for f32, 2 for f16 and
/// anything else for bf16 (the kernels' argument blocks encode it so, 0 being
/// "no weights", which the caller tests first).
__device__ __forceinline__ float
loadPerSampleWeight(int kind, const void *weights, long long i) {
  switch (kind) {
  case 1:
    return __ldg(static_cast<const float *>(weights) + i);
  case 2:
    return __half2float(__ldg(static_cast<const __half *>(weights) + i));
  default:
    return __bfloat162float(
        __ldg(static_cast<const __nv_bfloat16 *>(weights) + i));
  }
}

/// `count` elements of T packed for one aligned vector access.
template <typename T, int count> struct alignas(sizeof(T) * count) Pack {
  T v[count];
};

//===----------------------------------------------------------------------===//
// computeDtype copies
//===----------------------------------------------------------------------===//

/// The most operands one rounding launch takes.
constexpr int kRoundMaxJobs = 8;

/// rows x cols f32 elements, row r at from + r * fromPitch (NULL: zeros),
/// rounded to T at to + r * toPitch.
template <typename T> struct RoundJob {
  const float *from;
  T *to;
  long long rows, cols, fromPitch, toPitch;
};

/// The jobs of one rounding launch; vec[j]: job j moves eight elements a
/// step (see roundJobVectorizes).
template <typename T> struct RoundJobs {
  RoundJob<T> job[kRoundMaxJobs];
  int vec[kRoundMaxJobs];
  int count;
};

/// Every job of `a`, each over the whole grid in turn: element units of
/// eight (vec) or one, row and column from the unit index.
template <typename T> __global__ void roundJobsKernel(RoundJobs<T> a) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (int j = 0; j < a.count; ++j) {
    const RoundJob<T> job = a.job[j];
    if (a.vec[j]) {
      const long long perRow = job.cols / 8;
      const long long units = job.rows * perRow;
      for (long long i = t; i < units; i += stride) {
        const long long r = job.rows == 1 ? 0 : i / perRow;
        const long long c = 8 * (i - r * perRow);
        float4 x = make_float4(0.f, 0.f, 0.f, 0.f), y = x;
        if (job.from) {
          const float4 *src = reinterpret_cast<const float4 *>(
              job.from + r * job.fromPitch + c);
          x = src[0];
          y = src[1];
        }
        uint4 out;
        out.x = packCompute<T>(x.x, x.y);
        out.y = packCompute<T>(x.z, x.w);
        out.z = packCompute<T>(y.x, y.y);
        out.w = packCompute<T>(y.z, y.w);
        *reinterpret_cast<uint4 *>(job.to + r * job.toPitch + c) = out;
      }
    } else {
      const long long units = job.rows * job.cols;
      for (long long i = t; i < units; i += stride) {
        const long long r = job.rows == 1 ? 0 : i / job.cols;
        const long long c = i - r * job.cols;
        job.to[r * job.toPitch + c] =
            T(job.from ? job.from[r * job.fromPitch + c] : 0.f);
      }
    }
  }
}

/// out[i] = float(in[i]) for n elements of T; eight a thread and step when
/// vec (both pointers 16-byte aligned, n a multiple of 8).
template <typename T>
__global__ void widenKernel(const T *__restrict__ in, float *__restrict__ out,
                            long long n, int vec) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (vec) {
    for (long long i = t; i < n / 8; i += stride) {
      const uint4 r = reinterpret_cast<const uint4 *>(in)[i];
      const T *h = reinterpret_cast<const T *>(&r);
      reinterpret_cast<float4 *>(out)[2 * i] = make_float4(
          toCompute(h[0]), toCompute(h[1]), toCompute(h[2]), toCompute(h[3]));
      reinterpret_cast<float4 *>(out)[2 * i + 1] = make_float4(
          toCompute(h[4]), toCompute(h[5]), toCompute(h[6]), toCompute(h[7]));
    }
  } else {
    for (long long i = t; i < n; i += stride)
      out[i] = toCompute(in[i]);
  }
}

inline bool convertAligned16(const void *p) {
  return ((uintptr_t)p & 15u) == 0;
}

/// Whether `job` can move eight elements a step: whole 16-byte units in
/// every row of both sides.
template <typename T> bool roundJobVectorizes(const RoundJob<T> &job) {
  return job.cols % 8 == 0 && (job.rows == 1 || job.fromPitch % 4 == 0) &&
         (job.rows == 1 || job.toPitch % 8 == 0) &&
         convertAligned16(job.from) && convertAligned16(job.to);
}

/// Adds job (from, to, rows, cols, pitches) to `a`; empty jobs are dropped.
template <typename T>
void addRoundJob(RoundJobs<T> *a, const void *from, void *to, long long rows,
                 long long cols, long long fromPitch, long long toPitch) {
  if (rows <= 0 || cols <= 0)
    return;
  RoundJob<T> job = {static_cast<const float *>(from),
                     static_cast<T *>(to),
                     rows,
                     cols,
                     fromPitch,
                     toPitch};
  a->vec[a->count] = roundJobVectorizes(job);
  a->job[a->count++] = job;
}

/// One launch for every job of `a`, sized by the largest job.
template <typename T>
embrtStatus launchRoundJobs(embrtLaunchEnv *env, const RoundJobs<T> &a,
                            const char *what) {
  long long work = 0;
  for (int j = 0; j < a.count; ++j) {
    const long long units =
        a.job[j].rows * (a.vec[j] ? a.job[j].cols / 8 : a.job[j].cols);
    if (units > work)
      work = units;
  }
  if (work == 0)
    return EMBRT_OK;
  roundJobsKernel<T><<<embrtCudaGridSize(env, work), EMBRT_CUDA_THREADS, 0,
                       (cudaStream_t)env->stream>>>(a);
  return embrtCudaCheck(env, (int)cudaGetLastError(), what);
}

/// One launch widening n elements of T at `in` into the f32 `out`.
template <typename T>
embrtStatus launchWiden(embrtLaunchEnv *env, const void *in, void *out,
                        long long n, const char *what) {
  if (n == 0)
    return EMBRT_OK;
  const int vec = n % 8 == 0 && convertAligned16(in) && convertAligned16(out);
  widenKernel<T><<<embrtCudaGridSize(env, vec ? n / 8 : n), EMBRT_CUDA_THREADS,
                   0, (cudaStream_t)env->stream>>>(
      static_cast<const T *>(in), static_cast<float *>(out), n, vec);
  return embrtCudaCheck(env, (int)cudaGetLastError(), what);
}

} // namespace embrt

#endif // EMB_KERNELS_COMMON_CONVERT_CUH
