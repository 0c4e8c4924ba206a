//===- kernels/dtype.cuh - Element types on the device ---------*- CUDA -*-===//
//
// The storage types of embrtDtype on the device and their conversions to
// and from the compute type: f32 for f32, f16 and bf16, f64 for f64 (the
// runtime's elementwise rule; reductions may accumulate f32 data in f32).
// Every narrowing conversion rounds to nearest even.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_DTYPE_CUH
#define EMB_KERNELS_DTYPE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace embrt {

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

} // namespace embrt

#endif // EMB_KERNELS_DTYPE_CUH
