//===- ikbo_lce.cu - IKBO linear compression (emb.ikbo_lce) ---*- CUDA -*-===//
//
// out[b] = wCand @ cand[b] + wUser @ user[candToUser[b]] for b < B, with
// wUser [M, Ku], wCand [M, Kc], user [U, Ku, N], cand [B, Kc, N], row-major.
//
// The user product runs once per user (U items, not B) into the caller's
// workspace. The candidate product adds row candToUser[b] of it to its f32
// accumulators before the one rounding of the output, so no candidate-sized
// intermediate is written. A candToUser entry outside [0, U) is recorded in
// env->deviceErrors and adds nothing.
//
// This file holds the portable path (any GPU, any dtype, any alignment; user
// result in f32, transposed: userT[u][n][m]) and the entry points; the Hopper
// path is kernels/ikbo_lce_sm90a.cu and the configuration table
// kernels/ikbo_lce_config.cuh. The launcher picks the configuration from
// env->ccMajor/ccMinor, the dtype, N and the pointers' alignment (or
// args->configId when that row can run the problem).
//
//===----------------------------------------------------------------------===//

#include "kernels/device_errors.cuh"
#include "kernels/ikbo_lce_config.cuh"
#include "kernels/launch.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdint.h>

namespace {

constexpr int kTile = 64;     // m and n of a portable CTA tile
constexpr int kTileK = 16;    // k per shared-memory step
constexpr int kThreads = 256; // 16 x 16 threads, 4 x 4 outputs each

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

__device__ __forceinline__ float toFloat(float x) { return x; }
__device__ __forceinline__ float toFloat(__half x) { return __half2float(x); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 x) {
  return __bfloat162float(x);
}

template <typename T> __device__ __forceinline__ T fromFloat(float x);
template <> __device__ __forceinline__ float fromFloat<float>(float x) {
  return x;
}
template <> __device__ __forceinline__ __half fromFloat<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

__device__ __forceinline__ long long loadIndex(const void *p, int is64,
                                               long long i) {
  return is64 ? ((const long long *)p)[i] : ((const int *)p)[i];
}

struct PortableParams {
  const void *w; ///< [M][K], rows ldw elements apart
  const void *x; ///< [items][K][N]
  void *out;     ///< [items][M][N] (add mode)
  float *userT;  ///< [U][nPad][mPad] f32
  const void *candToUser;
  embrtDeviceErrors *errors;
  long long m, n, k, ldw, items, users, nPad, mPad;
  int addMode; ///< 0: userT[item] = W x[item]; 1: out = W x + userT[c2u]
  int index64;
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// One CTA computes a 64 (m) x 64 (n) tile of W @ x[item] for items
/// blockIdx.z, blockIdx.z + gridDim.z, ...; thread (ty, tx) = (tid / 16,
/// tid % 16) owns rows m0 + 4ty .. +3 and columns n0 + 4tx .. +3, in f32.
/// Grid: (ceil(N / 64), ceil(M / 64), min(items, 65535)); block: 256.
/// Shared memory (static, 8.5 KB): W step [16 k][64 m] and x step [16 k]
/// [64 n], both as f32; loads outside M, N, K read zeros. No alignment
/// assumptions. User mode writes userT[item][n][m]; add mode writes
/// out[item][m][n] = round(acc + userT[c2u[item]][n][m]).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    ikboLcePortableKernel(const PortableParams p) {
  __shared__ float ws[kTileK][kTile + 4];
  __shared__ float xs[kTileK][kTile];
  const T *w = (const T *)p.w;
  const T *x = (const T *)p.x;
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const long long m0 = (long long)blockIdx.y * kTile;
  const long long n0 = (long long)blockIdx.x * kTile;

  for (long long item = blockIdx.z; item < p.items; item += gridDim.z) {
    long long user = item;
    bool addUser = false;
    if (p.addMode) {
      user = loadIndex(p.candToUser, p.index64, item);
      addUser = user >= 0 && user < p.users;
      if (!addUser && tid == 0 && blockIdx.x == 0 && blockIdx.y == 0 &&
          p.errors)
        embrtDeviceRecordError(p.errors, EMBRT_DEVERR_BAD_CAND_TO_USER, -1, -1,
                               item, user, p.users);
    }
    const T *xi = x + item * p.k * p.n;
    float acc[4][4] = {};
    for (long long k0 = 0; k0 < p.k; k0 += kTileK) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int e = tid + kThreads * i;
        const int mm = e / kTileK, kk = e % kTileK;
        const long long gm = m0 + mm, gk = k0 + kk;
        ws[kk][mm] = gm < p.m && gk < p.k ? toFloat(w[gm * p.ldw + gk]) : 0.f;
        const int xk = e / kTile, xn = e % kTile;
        const long long xgk = k0 + xk, gn = n0 + xn;
        xs[xk][xn] = xgk < p.k && gn < p.n ? toFloat(xi[xgk * p.n + gn]) : 0.f;
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kTileK; ++kk) {
        float a[4], b[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          a[i] = ws[kk][4 * ty + i];
          b[i] = xs[kk][4 * tx + i];
        }
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j)
            acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const long long m = m0 + 4 * ty + i;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const long long n = n0 + 4 * tx + j;
        if (m >= p.m || n >= p.n)
          continue;
        if (!p.addMode) {
          p.userT[(item * p.nPad + n) * p.mPad + m] = acc[i][j];
        } else {
          float v = acc[i][j];
          if (addUser)
            v += p.userT[(user * p.nPad + n) * p.mPad + m];
          ((T *)p.out)[(item * p.m + m) * p.n + n] = fromFloat<T>(v);
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Instantiations and host helpers
//===----------------------------------------------------------------------===//

template __global__ void ikboLcePortableKernel<float>(const PortableParams);
template __global__ void ikboLcePortableKernel<__half>(const PortableParams);
template __global__ void
ikboLcePortableKernel<__nv_bfloat16>(const PortableParams);

template <typename T>
embrtStatus launchPortable(embrtLaunchEnv *env, const PortableParams &user,
                           const PortableParams &cand) {
  const PortableParams *runs[2] = {&user, &cand};
  for (int i = 0; i < 2; ++i) {
    const PortableParams &p = *runs[i];
    if (p.items == 0)
      continue;
    dim3 grid((unsigned)ikboLceCeilDiv(p.n, kTile),
              (unsigned)ikboLceCeilDiv(p.m, kTile),
              (unsigned)(p.items < 65535 ? p.items : 65535));
    ikboLcePortableKernel<T>
        <<<grid, kThreads, 0, (cudaStream_t)env->stream>>>(p);
    embrtStatus status =
        embrtCudaCheck(env, cudaGetLastError(),
                       i == 0 ? "ikbo_lce: user product launch"
                              : "ikbo_lce: candidate product launch");
    if (status != EMBRT_OK)
      return status;
  }
  return EMBRT_OK;
}

bool aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

/// What the selection sees of `a`. A W operand that the sm90a launcher copies
/// with a 16-byte pitch (layout `l`) need not be aligned itself.
IkboLceShape shapeOf(const embrtLaunchEnv *env, const embrtIkboLceArgs *a,
                     const IkboLceLayout &l) {
  IkboLceShape s;
  s.ccMajor = env->ccMajor;
  s.ccMinor = env->ccMinor;
  s.maxSharedPerBlock = env->maxSharedPerBlockOptin;
  s.dtype = a->dtype;
  s.batch = a->batchSize;
  s.users = a->numUsers;
  s.m = a->m;
  s.n = a->n;
  s.kUser = a->kUser;
  s.kCand = a->kCand;
  s.aligned = (l.kUserPitch || aligned16(a->wUser)) &&
              (l.kCandPitch || aligned16(a->wCand)) && aligned16(a->user) &&
              aligned16(a->cand) && aligned16(a->output) &&
              aligned16(a->workspace);
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

extern "C" embrtStatus
embrtCudaIkboLceWorkspaceSize(embrtLaunchEnv *env, const embrtIkboLceArgs *args,
                              size_t *bytes) {
  (void)env;
  IkboLceLayout layout;
  ikboLceLayout(args, &layout);
  *bytes = layout.bytes;
  return EMBRT_OK;
}

extern "C" embrtStatus embrtCudaLaunchIkboLce(embrtLaunchEnv *env,
                                              const embrtIkboLceArgs *args) {
  IkboLceLayout layout;
  ikboLceLayout(args, &layout);
  if (args->workspaceBytes < layout.bytes || (layout.bytes && !args->workspace))
    return embrtLaunchError(env, EMBRT_INVALID_ARGUMENT,
                            "ikbo_lce: workspace has %zu bytes, needs %zu",
                            args->workspaceBytes, layout.bytes);
  if (args->batchSize == 0 || args->m == 0 || args->n == 0)
    return EMBRT_OK;

  IkboLceShape shape = shapeOf(env, args, layout);
  // A K of zero has no k block for the pipelined kernel; the portable one
  // handles it (the sums are empty).
  int config = args->kUser > 0 && args->kCand > 0
                   ? ikboLceResolveConfig(&shape, args->configId)
                   : IKBO_LCE_CONFIG_PORTABLE;
  if (kIkboLceConfigs[config].path == IKBO_LCE_PATH_SM90A)
    return ikboLceLaunchSm90a(env, args, &layout, config);

  PortableParams user;
  user.w = args->wUser;
  user.x = args->user;
  user.out = nullptr;
  user.userT = (float *)((uint8_t *)args->workspace + layout.userResultOffset);
  user.candToUser = args->candToUser;
  user.errors = env->deviceErrors;
  user.m = args->m;
  user.n = args->n;
  user.k = args->kUser;
  user.ldw = args->wUserStride ? args->wUserStride : args->kUser;
  user.items = args->numUsers;
  user.users = args->numUsers;
  user.nPad = layout.nPad;
  user.mPad = layout.mPad;
  user.addMode = 0;
  user.index64 = args->indexDtype == EMBRT_I64;
  PortableParams cand = user;
  cand.w = args->wCand;
  cand.x = args->cand;
  cand.out = args->output;
  cand.k = args->kCand;
  cand.ldw = args->wCandStride ? args->wCandStride : args->kCand;
  cand.items = args->batchSize;
  cand.addMode = 1;
  switch (args->dtype) {
  case EMBRT_F32:
    return launchPortable<float>(env, user, cand);
  case EMBRT_F16:
    return launchPortable<__half>(env, user, cand);
  case EMBRT_BF16:
    return launchPortable<__nv_bfloat16>(env, user, cand);
  default:
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "ikbo_lce: dtype %d has no kernel",
                            (int)args->dtype);
  }
}
