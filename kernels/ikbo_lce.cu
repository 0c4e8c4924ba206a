//===- ikbo_lce.cu - IKBO linear compression (emb.ikbo_lce) ---*- CUDA -*-===//
//
// out[b] = wCand @ cand[b] + wUser @ user[candToUser[b]] for b < B, with
// wUser [M, Ku], wCand [M, Kc], user [U, Ku, N], cand [B, Kc, N], row-major.
//
// The portable and Hopper paths run the user product once per user (U
// items, not B) into the caller's workspace; the candidate product adds row
// candToUser[b] of it to its f32 accumulators before the one rounding of the
// output, so no candidate-sized intermediate is written. The small-K path,
// bound by memory, not by the products, computes both in one pass a
// candidate. A candToUser entry outside [0, U) is recorded in
// env->deviceErrors and adds nothing.
//
// This file holds the portable path (any GPU, any dtype, any alignment; user
// result in f32, transposed: userT[u][n][m]), the cuBLAS path (f32 data:
// strided-batched SGEMMs on env->blasHandle), the small-K path (Kc + Ku at
// most 128, M at most 128: tensor-core mma.sync, no workspace) and the entry
// points; the Hopper
// path is kernels/ikbo_lce_sm90a.cu and the configuration table
// kernels/ikbo_lce_config.h. The launcher picks the configuration from
// env->ccMajor/ccMinor, the dtype, N and the pointers' alignment (or
// args->configId when that row can run the problem).
//
//===----------------------------------------------------------------------===//

#include "kernels/common/convert.cuh"
#include "kernels/common/device_errors.cuh"
#include "kernels/common/index_load.cuh"
#include "kernels/common/sm80_copy.cuh"
#include "kernels/ikbo_lce_config.h"
#include "kernels/launch.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdint.h>
#include <string.h>

namespace {

constexpr int kSmallKMaxK = 128; // Kc + Ku of the small-K path: 8 k-steps
constexpr int kSmallKCols = 128; // columns of N a small-K unit computes
constexpr int kTile = 64;        // m and n of a portable CTA tile
constexpr int kTileK = 16;       // k per shared-memory step
constexpr int kThreads = 256;    // 16 x 16 threads, 4 x 4 outputs each

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

using embrt::IndexLoad;
using embrt::loadIndex;

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
      user = loadIndex<IndexLoad::Plain>(p.candToUser, p.index64, item);
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
        ws[kk][mm] =
            gm < p.m && gk < p.k ? embrt::toCompute(w[gm * p.ldw + gk]) : 0.f;
        const int xk = e / kTile, xn = e % kTile;
        const long long xgk = k0 + xk, gn = n0 + xn;
        xs[xk][xn] =
            xgk < p.k && gn < p.n ? embrt::toCompute(xi[xgk * p.n + gn]) : 0.f;
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
          ((T *)p.out)[(item * p.m + m) * p.n + n] = embrt::fromCompute<T>(v);
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

//===----------------------------------------------------------------------===//
// Small K: both products of a candidate in one mma.sync pass, memory-bound
//===----------------------------------------------------------------------===//

/// The small-K path: out[item] = [wCand | wUser] @ [cand[item] ;
/// user[candToUser[item]]] for an [M, Kc + Ku] W with Kc + Ku <=
/// kSmallKMaxK and M <= IKBO_LCE_SMALLK_MAX_M, in one launch: the user rows
/// (a few hundred KB in all, L2-resident) are read again for each candidate
/// instead of a per-user f32 result, which would cost a second launch and
/// 4 * M * N bytes of L2 reads a candidate. Work units are (item, 128-column
/// chunk of N).
struct SmallKParams {
  const void *wCand, *wUser; ///< [M][Kc], [M][Ku], rows ldwCand / ldwUser apart
  /// cand[items][Kc][N] in pieces along K: piece p holds rows k0[p] ..
  /// k0[p + 1] - 1 of each item as [items][k0[p + 1] - k0[p]][N]; a NULL
  /// piece reads zeros. One piece is cand itself.
  const void *piece[EMBRT_IKBO_LCE_MAX_PIECES];
  long long k0[EMBRT_IKBO_LCE_MAX_PIECES + 1];
  int pieces;
  const void *user; ///< [users][Ku][N]
  void *out;        ///< [items][M][N]
  const void *candToUser;
  embrtDeviceErrors *errors;
  long long m, n, kCand, kUser, ldwCand, ldwUser, items, users, chunks;
  int index64;
  int narrow; ///< items * chunks fits 32 bits
};

template <typename T> struct MmaOf;
template <> struct MmaOf<__half> {
  __device__ static void run(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                             uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0),
                   "r"(b1));
  }
  __device__ static uint32_t pack(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *(uint32_t *)&h;
  }
};
template <> struct MmaOf<__nv_bfloat16> {
  __device__ static void run(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                             uint32_t b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0),
                   "r"(b1));
  }
  __device__ static uint32_t pack(float lo, float hi) {
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *(uint32_t *)&h;
  }
};

/// 16-byte chunk `c` of row `r` of a [rows][128] 16-bit shared tile: at
/// chunk c ^ (r & 7), so that the eight rows of one ldmatrix (and of one
/// accumulator store) fall in eight bank groups.
__device__ __forceinline__ int smallKSlot(int r, int c) {
  return r * kSmallKCols + ((c ^ (r & 7)) * 8);
}

/// Item and first column of unit `u` (32-bit division where the units
/// allow it: the 64-bit one is a long software sequence).
__device__ __forceinline__ void smallKUnit(const SmallKParams &p, long long u,
                                           long long *item, long long *n0) {
  long long chunk = 0;
  if (p.chunks == 1) {
    *item = u;
  } else if (p.narrow) {
    const unsigned q = (unsigned)u / (unsigned)p.chunks;
    *item = q;
    chunk = (unsigned)u - q * (unsigned)p.chunks;
  } else {
    *item = u / p.chunks;
    chunk = u - *item * p.chunks;
  }
  *n0 = chunk * kSmallKCols;
}

/// One 16-byte chunk `c` of tile row `r`: from `src` by cp.async, or zeros.
__device__ __forceinline__ void smallKCopy(uint16_t *buf, int r, int c,
                                           const uint16_t *src) {
  uint16_t *dst = buf + smallKSlot(r, c);
  if (src) {
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    embrt::copyAsync<16, false>(d, src);
  } else {
    *(uint4 *)dst = make_uint4(0, 0, 0, 0);
  }
}

/// The x tile of (item, n0) into `buf` ([kp][128]: the Kc candidate rows,
/// then the Ku rows of its user): cp.async for rows < Kc + Ku and columns <
/// N, zeros past them, for a NULL piece and for a user outside [0, users).
/// Thread t copies chunk t % 16 of rows t / 16, t / 16 + blockDim / 16, ...,
/// a source pointer a piece stepping by whole rows. One commit group.
__device__ __forceinline__ void smallKLoad(const SmallKParams &p,
                                           long long item, long long n0, int kp,
                                           uint16_t *buf) {
  const int c = threadIdx.x & 15, rstep = blockDim.x >> 4;
  const bool colOk = n0 + 8 * c < p.n; // N % 8 == 0: a chunk is in or out
  const long long step = rstep * p.n;
  int r = threadIdx.x >> 4;
  for (int q = 0; q < p.pieces; ++q) {
    const int end = (int)p.k0[q + 1];
    if (r >= end)
      continue;
    if (!p.piece[q] || !colOk) {
      for (; r < end; r += rstep)
        smallKCopy(buf, r, c, nullptr);
      continue;
    }
    const uint16_t *base = (const uint16_t *)p.piece[q];
    long long off =
        (item * (p.k0[q + 1] - p.k0[q]) + (r - p.k0[q])) * p.n + n0 + 8 * c;
    for (; r < end; r += rstep, off += step)
      smallKCopy(buf, r, c, base + off);
  }
  const int kEnd = (int)(p.kCand + p.kUser);
  if (r < kEnd) {
    const long long user =
        loadIndex<IndexLoad::Plain>(p.candToUser, p.index64, item);
    if (user < 0 || user >= p.users || !colOk) {
      for (; r < kEnd; r += rstep)
        smallKCopy(buf, r, c, nullptr);
    } else {
      const uint16_t *base = (const uint16_t *)p.user;
      long long off = (user * p.kUser + (r - p.kCand)) * p.n + n0 + 8 * c;
      for (; r < kEnd; r += rstep, off += step)
        smallKCopy(buf, r, c, base + off);
    }
  }
  for (; r < kp; r += rstep)
    smallKCopy(buf, r, c, nullptr);
  embrt::commitCopies();
}

/// Warp w owns rows 16 (w % mw) .. + 15 of M (mw = ceil(M / 16)) and
/// columns 64 (w / mw) .. + 63 of a unit: its [wCand | wUser] rows stay in
/// registers (KS A fragments, KS = ceil((Kc + Ku) / 16) k-steps, a template
/// argument so that no register holds a step past K) for the CTA's life;
/// the x tile of each unit arrives by cp.async into one of two shared
/// buffers while the previous unit computes (ldmatrix.trans for the B
/// fragments); the f32 accumulators are rounded once into the unit's own
/// buffer, which the block then writes out in 16-byte stores, a row's 256
/// bytes by 16 lanes. Block: 64 x mw threads; grid-stride over units;
/// dynamic shared memory 2 * max(16 KS, 16 mw) * 256 bytes.
/// At most 80 registers a thread: three CTAs of eight warps an SM (24 warps;
/// 102 registers, two CTAs, ran the ranking model's LCE 20% slower on the
/// H200); KS 6 to 8 spill 16 to 56 bytes.
template <typename T, int KS>
__global__ void __maxnreg__(80) ikboLceSmallKKernel(const SmallKParams p) {
  extern __shared__ __align__(128) uint16_t smallKTiles[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane >> 2, t = lane & 3;
  const int mw = (int)((p.m + 15) / 16);
  const int m0 = 16 * (warp % mw), colBase = 64 * (warp / mw);
  const int kp = 16 * KS, rows = kp > 16 * mw ? kp : 16 * mw;
  const int kCand = (int)p.kCand, kTotal = (int)(p.kCand + p.kUser);
  uint32_t a[KS][4];
#pragma unroll
  for (int s = 0; s < KS; ++s)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int row = m0 + g + ((r & 1) ? 8 : 0);
      uint32_t half[2] = {0, 0};
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int col = 16 * s + 2 * t + ((r & 2) ? 8 : 0) + h;
        if (row >= p.m || col >= kTotal)
          continue;
        half[h] =
            col < kCand
                ? ((const uint16_t *)p.wCand)[row * p.ldwCand + col]
                : ((const uint16_t *)p.wUser)[row * p.ldwUser + (col - kCand)];
      }
      a[s][r] = half[0] | (half[1] << 16);
    }
  const long long units = p.items * p.chunks;
  const int bufElems = rows * kSmallKCols;
  int buf = 0;
  long long u = blockIdx.x;
  long long item = 0, n0 = 0;
  if (u < units) {
    smallKUnit(p, u, &item, &n0);
    smallKLoad(p, item, n0, kp, smallKTiles);
  }
  for (; u < units; u += gridDim.x) {
    const long long next = u + gridDim.x;
    uint16_t *tile = smallKTiles + buf * bufElems;
    const long long thisItem = item, thisN0 = n0;
    if (next < units) {
      smallKUnit(p, next, &item, &n0);
      smallKLoad(p, item, n0, kp, smallKTiles + (buf ^ 1) * bufElems);
    }
    // Columns of this warp's half that the unit has.
    const int nc =
        (int)(p.n - thisN0 < kSmallKCols ? p.n - thisN0 : kSmallKCols) -
        colBase;
    if (threadIdx.x == 0 && thisN0 == 0 && p.errors) {
      const long long user =
          loadIndex<IndexLoad::Plain>(p.candToUser, p.index64, thisItem);
      if (user < 0 || user >= p.users)
        embrtDeviceRecordError(p.errors, EMBRT_DEVERR_BAD_CAND_TO_USER, -1, -1,
                               thisItem, user, p.users);
    }
    float acc[8][4];
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
    if (next < units)
      embrt::waitCopies<1>();
    else
      embrt::waitCopies<0>();
    __syncthreads();
#pragma unroll
    for (int s = 0; s < KS; ++s) {
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        if (16 * jp >= nc)
          break;
        const int kr = 16 * s + (lane & 15),
                  c = colBase / 8 + 2 * jp + (lane >> 4);
        const unsigned addr =
            (unsigned)__cvta_generic_to_shared(tile + smallKSlot(kr, c));
        uint32_t b0, b1, b2, b3;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
                     "{%0,%1,%2,%3}, [%4];\n"
                     : "=r"(b0), "=r"(b1), "=r"(b2), "=r"(b3)
                     : "r"(addr));
        MmaOf<T>::run(acc[2 * jp], a[s], b0, b1);
        if (16 * jp + 8 < nc)
          MmaOf<T>::run(acc[2 * jp + 1], a[s], b2, b3);
      }
    }
    __syncthreads(); // every warp is done with the tile: it takes the output
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = m0 + g + 8 * h;
        *(uint32_t *)(tile + smallKSlot(r, colBase / 8 + j) + 2 * t) =
            MmaOf<T>::pack(acc[j][2 * h], acc[j][2 * h + 1]);
      }
    __syncthreads();
    {
      const int c = threadIdx.x & 15, rstep = blockDim.x >> 4;
      int r = threadIdx.x >> 4;
      uint16_t *out = (uint16_t *)p.out;
      long long off = (thisItem * p.m + r) * p.n + thisN0 + 8 * c;
      if (thisN0 + 8 * c < p.n)
        for (; r < p.m; r += rstep, off += rstep * p.n)
          *(uint4 *)(out + off) = *(const uint4 *)(tile + smallKSlot(r, c));
    }
    __syncthreads(); // the buffer is free for the unit after next
    buf ^= 1;
  }
}

/// out[b] = userRes[candToUser[b]] (rows of `row` f32 elements) for b <
/// items: the C of the cuBLAS path's candidate product. A bad entry gives
/// zeros (no user term) and is recorded. Four elements a thread and step
/// when `vec` (row a multiple of 4; cudaMalloc'd or aligned buffers).
__global__ void gatherUserRowsKernel(const float *__restrict__ userRes,
                                     float *__restrict__ out,
                                     const void *candToUser, int index64,
                                     long long items, long long users,
                                     long long row, int vec,
                                     embrtDeviceErrors *errors) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long width = vec ? row / 4 : row; // units a row
  for (long long i = t; i < items * width; i += stride) {
    const long long b = i / width, c = i - b * width;
    const long long u = loadIndex<IndexLoad::Plain>(candToUser, index64, b);
    const bool ok = u >= 0 && u < users;
    if (!ok && c == 0 && errors)
      embrtDeviceRecordError(errors, EMBRT_DEVERR_BAD_CAND_TO_USER, -1, -1, b,
                             u, users);
    if (vec) {
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
      if (ok)
        v = reinterpret_cast<const float4 *>(userRes + u * row)[c];
      reinterpret_cast<float4 *>(out + b * row)[c] = v;
    } else {
      out[b * row + c] = ok ? userRes[u * row + c] : 0.f;
    }
  }
}

/// The cuBLAS path (f32 data, exact): the user product into the workspace
/// ([U][M][N] f32, one strided-batched SGEMM, W through its row stride),
/// its rows gathered into the output, then the candidate product added on
/// top (beta 1), one SGEMM a non-NULL piece (in place) or one for the
/// whole tensor. Column-major view as in kernels/lce.cu: out[b]^T (N x M) =
/// x[b]^T (N x K) @ w^T (K x M).
embrtStatus launchCublas(embrtLaunchEnv *env, const embrtIkboLceArgs *a,
                         const IkboLceLayout &l) {
  cublasHandle_t blas = static_cast<cublasHandle_t>(env->blasHandle);
  uint8_t *ws = (uint8_t *)a->workspace;
  embrtStatus status = embrtCublasCheck(
      env, cublasSetWorkspace(blas, ws + l.blasOffset, l.blasBytes),
      "ikbo_lce: cublasSetWorkspace");
  if (status != EMBRT_OK)
    return status;
  const int M = (int)a->m, N = (int)a->n;
  const long long MN = (long long)M * N;
  const float one = 1.f, zero = 0.f;
  float *userRes = (float *)(ws + l.userResultOffset);
  cudaStream_t stream = (cudaStream_t)env->stream;
  if (a->numUsers > 0 && a->kUser == 0)
    status = embrtCudaCheck(
        env,
        cudaMemsetAsync(userRes, 0, (size_t)(a->numUsers * MN) * 4, stream),
        "ikbo_lce: zero user result");
  else if (a->numUsers > 0)
    status = embrtCublasCheck(
        env,
        cublasGemmStridedBatchedEx(
            blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, (int)a->kUser, &one, a->user,
            CUDA_R_32F, N, a->kUser * (long long)N, a->wUser, CUDA_R_32F,
            (int)(a->wUserStride ? a->wUserStride : a->kUser), 0, &zero,
            userRes, CUDA_R_32F, N, MN, (int)a->numUsers, CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT),
        "ikbo_lce: user product (cublasGemmStridedBatchedEx)");
  if (status != EMBRT_OK)
    return status;
  const int vec = MN % 4 == 0 && ((uintptr_t)a->output & 15) == 0;
  gatherUserRowsKernel<<<embrtCudaGridSize(env,
                                           a->batchSize * (vec ? MN / 4 : MN)),
                         EMBRT_CUDA_THREADS, 0, stream>>>(
      userRes, (float *)a->output, a->candToUser, a->indexDtype == EMBRT_I64,
      a->batchSize, a->numUsers, MN, vec, env->deviceErrors);
  status = embrtCudaCheck(env, cudaGetLastError(),
                          "ikbo_lce: gathering the user result");
  if (status != EMBRT_OK)
    return status;
  // The candidate product, a piece at a time along K (or whole).
  const int ldw = (int)(a->wCandStride ? a->wCandStride : a->kCand);
  const int pieces = a->numCandPieces > 0 ? (int)a->numCandPieces : 1;
  long long k0 = 0;
  for (int q = 0; q < pieces; ++q) {
    const void *x = a->numCandPieces > 0 ? a->candPieces[q] : a->cand;
    const long long k = a->numCandPieces > 0 ? a->candPieceK[q] : a->kCand;
    if (x && k > 0) {
      status = embrtCublasCheck(
          env,
          cublasGemmStridedBatchedEx(
              blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, (int)k, &one, x, CUDA_R_32F,
              N, k * N, (const float *)a->wCand + k0, CUDA_R_32F, ldw, 0, &one,
              a->output, CUDA_R_32F, N, MN, (int)a->batchSize,
              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "ikbo_lce: candidate product (cublasGemmStridedBatchedEx)");
      if (status != EMBRT_OK)
        return status;
    }
    k0 += k;
  }
  return EMBRT_OK;
}

/// The small-K kernel for KS k-steps.
template <typename T> struct SmallKKernels {
  using Fn = void (*)(const SmallKParams);
  static Fn of(int ks) {
    static const Fn table[kSmallKMaxK / 16] = {
        ikboLceSmallKKernel<T, 1>, ikboLceSmallKKernel<T, 2>,
        ikboLceSmallKKernel<T, 3>, ikboLceSmallKKernel<T, 4>,
        ikboLceSmallKKernel<T, 5>, ikboLceSmallKKernel<T, 6>,
        ikboLceSmallKKernel<T, 7>, ikboLceSmallKKernel<T, 8>};
    return table[ks - 1];
  }
};

/// Both products in one launch of the small-K kernel, as many CTAs as fit
/// on the device at once (or one a unit). The workspace is not used.
template <typename T>
embrtStatus launchSmallK(embrtLaunchEnv *env, const embrtIkboLceArgs *a) {
  SmallKParams p;
  memset(&p, 0, sizeof p);
  p.wCand = a->wCand;
  p.wUser = a->wUser;
  p.ldwCand = a->wCandStride ? a->wCandStride : a->kCand;
  p.ldwUser = a->wUserStride ? a->wUserStride : a->kUser;
  if (a->numCandPieces > 0) {
    p.pieces = (int)a->numCandPieces;
    for (int q = 0; q < p.pieces; ++q) {
      p.piece[q] = a->candPieces[q];
      p.k0[q + 1] = p.k0[q] + a->candPieceK[q];
    }
  } else {
    p.pieces = 1;
    p.piece[0] = a->cand;
    p.k0[1] = a->kCand;
  }
  p.user = a->user;
  p.out = a->output;
  p.candToUser = a->candToUser;
  p.errors = env->deviceErrors;
  p.m = a->m;
  p.n = a->n;
  p.kCand = a->kCand;
  p.kUser = a->kUser;
  p.items = a->batchSize;
  p.users = a->numUsers;
  p.chunks = ikboLceCeilDiv(a->n, kSmallKCols);
  p.index64 = a->indexDtype == EMBRT_I64;
  const long long units = p.items * p.chunks;
  if (units == 0)
    return EMBRT_OK;
  p.narrow = units <= (long long)UINT32_MAX;
  const int threads = 64 * (int)ikboLceCeilDiv(a->m, 16);
  const int ks = (int)ikboLceCeilDiv(p.kCand + p.kUser, 16);
  const int64_t kp = 16 * (int64_t)ks;
  const int64_t m16 = ikboLceRoundUp(p.m, 16);
  const size_t smem = 2 * (size_t)(kp > m16 ? kp : m16) * kSmallKCols * 2;
  void (*kernel)(const SmallKParams) = SmallKKernels<T>::of(ks);
  embrtStatus status = EMBRT_OK;
  if (smem > 48 * 1024)
    status = embrtCudaCheck(
        env,
        cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
        "ikbo_lce: small-K shared memory opt-in");
  if (status != EMBRT_OK)
    return status;
  int perSm = 0;
  status = embrtCudaCheck(env,
                          cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                              &perSm, kernel, threads, smem),
                          "ikbo_lce: small-K occupancy query");
  if (status != EMBRT_OK)
    return status;
  long long grid = (long long)env->smCount * (perSm > 0 ? perSm : 1);
  if (grid > units)
    grid = units;
  kernel<<<(unsigned)grid, threads, smem, (cudaStream_t)env->stream>>>(p);
  return embrtCudaCheck(env, cudaGetLastError(), "ikbo_lce: small-K launch");
}

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
  for (int64_t q = 0; q < a->numCandPieces; ++q)
    s.aligned = s.aligned && aligned16(a->candPieces[q]);
  s.pieces = a->numCandPieces > 0;
  s.blas = env->blasHandle != nullptr;
  return s;
}

/// The candidate pieces of `a` side by side in the workspace (layout
/// `l`), for the paths that read one [B, Kc, N] tensor: a 2D copy a piece
/// (B rows of its K x N elements, Kc x N apart), zeros for a NULL one.
/// Returns `a` reading the copy.
embrtStatus gatherCandPieces(embrtLaunchEnv *env, const embrtIkboLceArgs *a,
                             const IkboLceLayout *l, embrtIkboLceArgs *out) {
  *out = *a;
  out->numCandPieces = 0;
  uint8_t *dst = (uint8_t *)a->workspace + l->candOffset;
  out->cand = dst;
  const size_t es = a->dtype == EMBRT_F32 ? 4 : 2;
  const size_t pitch = (size_t)a->kCand * (size_t)a->n * es;
  cudaStream_t stream = (cudaStream_t)env->stream;
  size_t k0 = 0;
  for (int64_t q = 0; q < a->numCandPieces; ++q) {
    const size_t width = (size_t)a->candPieceK[q] * (size_t)a->n * es;
    if (width && a->batchSize) {
      cudaError_t e =
          a->candPieces[q]
              ? cudaMemcpy2DAsync(dst + k0, pitch, a->candPieces[q], width,
                                  width, (size_t)a->batchSize,
                                  cudaMemcpyDeviceToDevice, stream)
              : cudaMemset2DAsync(dst + k0, pitch, 0, width,
                                  (size_t)a->batchSize, stream);
      embrtStatus status =
          embrtCudaCheck(env, e, "ikbo_lce: copying a candidate piece");
      if (status != EMBRT_OK)
        return status;
    }
    k0 += width;
  }
  return EMBRT_OK;
}

/// The operands of the converting `a` rounded to T into `inner`'s (the
/// workspace), one launch: both weights (row strides kept on the read
/// side), the users, and the candidates, whole or piece by piece (a NULL
/// piece as zeros) into one [B, Kc, N] tensor.
template <typename T>
embrtStatus roundOperands(embrtLaunchEnv *env, const embrtIkboLceArgs *a,
                          const embrtIkboLceArgs *inner) {
  embrt::RoundJobs<T> jobs = {};
  const long long n = a->n;
  embrt::addRoundJob(&jobs, a->wUser, (void *)inner->wUser, a->m, a->kUser,
                     a->wUserStride ? a->wUserStride : a->kUser, a->kUser);
  embrt::addRoundJob(&jobs, a->wCand, (void *)inner->wCand, a->m, a->kCand,
                     a->wCandStride ? a->wCandStride : a->kCand, a->kCand);
  embrt::addRoundJob(&jobs, a->user, (void *)inner->user, 1,
                     a->numUsers * a->kUser * n, 0, 0);
  if (a->numCandPieces == 0) {
    embrt::addRoundJob(&jobs, a->cand, (void *)inner->cand, 1,
                       a->batchSize * a->kCand * n, 0, 0);
  } else {
    long long k0 = 0;
    for (int64_t q = 0; q < a->numCandPieces; ++q) {
      const long long kq = a->candPieceK[q];
      embrt::addRoundJob(&jobs, a->candPieces[q],
                         (void *)((T *)inner->cand + k0 * n), a->batchSize,
                         kq * n, kq * n, a->kCand * n);
      k0 += kq;
    }
  }
  return embrt::launchRoundJobs(env, jobs, "ikbo_lce: rounding launch");
}

/// f32 data computed in f16 or bf16 (T): the operands rounded into the
/// workspace (one launch), the f16/bf16 call on them, its output widened
/// into args->output (one launch). All on the stream; no host sync.
template <typename T>
embrtStatus launchConverted(embrtLaunchEnv *env, const embrtIkboLceArgs *a) {
  IkboLceConvertLayout l;
  ikboLceConvertLayout(a, &l);
  if (!a->workspace || a->workspaceBytes < l.bytes)
    return embrtLaunchError(
        env, EMBRT_INVALID_ARGUMENT,
        "ikbo_lce: workspace has %zu bytes, needs %zu (computeDtype %s)",
        a->workspace ? a->workspaceBytes : 0, l.bytes,
        a->computeDtype == EMBRT_F16 ? "f16" : "bf16");
  if (a->batchSize == 0 || a->m == 0 || a->n == 0)
    return EMBRT_OK;
  uint8_t *ws = (uint8_t *)a->workspace;
  embrtIkboLceArgs inner = ikboLceInnerArgs(a);
  inner.wUser = ws + l.wUser;
  inner.wCand = ws + l.wCand;
  inner.user = ws + l.user;
  inner.cand = ws + l.cand;
  inner.candToUser = a->candToUser;
  inner.output = ws + l.out;
  inner.workspace = ws + l.inner;
  inner.workspaceBytes = l.innerLayout.bytes;
  embrtStatus status = roundOperands<T>(env, a, &inner);
  if (status != EMBRT_OK)
    return status;
  status = embrtCudaLaunchIkboLce(env, &inner);
  if (status != EMBRT_OK)
    return status;
  return embrt::launchWiden<T>(env, inner.output, a->output,
                               a->batchSize * a->m * a->n,
                               "ikbo_lce: widening launch");
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

extern "C" embrtStatus
embrtCudaIkboLceWorkspaceSize(embrtLaunchEnv *env, const embrtIkboLceArgs *args,
                              size_t *bytes) {
  (void)env;
  if (ikboLceConverts(args)) {
    IkboLceConvertLayout layout;
    ikboLceConvertLayout(args, &layout);
    *bytes = layout.bytes;
    return EMBRT_OK;
  }
  IkboLceLayout layout;
  ikboLceLayout(args, &layout);
  *bytes = layout.bytes;
  return EMBRT_OK;
}

extern "C" embrtStatus embrtCudaLaunchIkboLce(embrtLaunchEnv *env,
                                              const embrtIkboLceArgs *args) {
  if (ikboLceConverts(args))
    return args->computeDtype == EMBRT_F16
               ? launchConverted<__half>(env, args)
               : launchConverted<__nv_bfloat16>(env, args);
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
                   ? (int)ikboLceResolveConfig(&shape, args->configId)
                   : IKBO_LCE_CONFIG_PORTABLE;
  if (kIkboLceConfigs[config].path == IKBO_LCE_PATH_SMALLK)
    return args->dtype == EMBRT_F16 ? launchSmallK<__half>(env, args)
                                    : launchSmallK<__nv_bfloat16>(env, args);
  if (kIkboLceConfigs[config].path == IKBO_LCE_PATH_CUBLAS)
    return launchCublas(env, args, layout); // pieces read in place
  // The other paths read the candidates as one tensor.
  embrtIkboLceArgs gathered;
  if (args->numCandPieces > 0) {
    embrtStatus status = gatherCandPieces(env, args, &layout, &gathered);
    if (status != EMBRT_OK)
      return status;
    args = &gathered;
  }
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
