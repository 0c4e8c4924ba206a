//===- kernels/attention.cu - emb.attention and emb.ikbo_attention --------===//
//
// Softmax attention where candidates read their user's keys and values in
// place (emb.ikbo_attention) or their own (emb.attention), layout
// [B, Lq, H, Dh] for queries and outputs and [G, Lk, H, Dh] for keys and
// values. The candidates of one user are one block of C * Lq query rows
// against the user's Lk keys, so K/V are read once per query tile of the
// user rather than once per candidate, and nothing is broadcast in memory.
//
// This file holds the plan kernel (groups candidates by user on the device),
// the portable mma.sync path, the SIMT path (f32, any head dim), and the
// launcher. The Hopper path is kernels/attention_sm90a.cu; the launch table is
// kernels/attention_config.h.
//
//===----------------------------------------------------------------------===//

#include "kernels/attention_common.cuh"
#include "kernels/common/sm90_sync.cuh"

#include <limits.h>
#include <math.h>

namespace {

using embrt::IndexLoad;
using embrt::loadIndex;

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

/// Block-wide exclusive sum of int2 over 1024 threads; `total` gets the sum.
__device__ int2 blockExclusiveScan(int2 v, int2 &total) {
  __shared__ int2 warpSums[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int2 x = v;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    int y0 = __shfl_up_sync(0xffffffffu, x.x, d);
    int y1 = __shfl_up_sync(0xffffffffu, x.y, d);
    if (lane >= d) {
      x.x += y0;
      x.y += y1;
    }
  }
  if (lane == 31)
    warpSums[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int2 w = warpSums[lane];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      int y0 = __shfl_up_sync(0xffffffffu, w.x, d);
      int y1 = __shfl_up_sync(0xffffffffu, w.y, d);
      if (lane >= d) {
        w.x += y0;
        w.y += y1;
      }
    }
    warpSums[lane] = w;
  }
  __syncthreads();
  int2 before = warp ? warpSums[warp - 1] : make_int2(0, 0);
  total = warpSums[31];
  __syncthreads();
  return make_int2(before.x + x.x - v.x, before.y + x.y - v.y);
}

__device__ __forceinline__ void ldmatrixX4(uint32_t addr, uint32_t &r0,
                                           uint32_t &r1, uint32_t &r2,
                                           uint32_t &r3) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
      : "r"(addr));
}

__device__ __forceinline__ void ldmatrixX4Trans(uint32_t addr, uint32_t &r0,
                                                uint32_t &r1, uint32_t &r2,
                                                uint32_t &r3) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
      : "r"(addr));
}

/// c += a * b for one m16n8k16 tile, f32 accumulators.
template <typename T>
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4],
                                         uint32_t b0, uint32_t b1);
template <>
__device__ __forceinline__ void mma16816<__half>(float (&c)[4],
                                                 const uint32_t (&a)[4],
                                                 uint32_t b0, uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, "
               "%2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void
mma16816<__nv_bfloat16>(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                        uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, "
               "%2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// Groups whose counts the plan kernel keeps in shared memory (16 KB); more
/// use the workspace.
constexpr int kPlanSharedGroups = 4096;

/// Everything the plan kernel reads and writes (workspace arrays).
struct PlanParams {
  const void *candToUser;
  int i64;
  int batch, users, lq, blockM;
  int *counts;     ///< [U + 1], then the scatter cursors
  int *groupStart; ///< [U + 2]
  int *tileStart;  ///< [U + 2]
  int *perm;       ///< [B]
  int2 *tiles;     ///< [maxTiles]
  int *numTiles;   ///< [2]: the tile count, then whether perm is identity
  embrtDeviceErrors *errors;
};

/// Groups candidates by user and lists the query tiles, on the device.
///
/// Grid: 1 CTA; block: 1024 threads (one loop over B and U in strides of
/// 1024). Counts candidates per user (bad cand_to_user entries are recorded
/// and counted in an extra group U), scans counts and per-group tile counts
/// ceil(C * Lq / blockM) into groupStart/tileStart, writes perm (identity
/// when cand_to_user is valid and non-decreasing, else a scatter by atomic
/// cursors: order inside a group does not change any output), one
/// {group, first row} entry per tile (a warp per group), and numTiles =
/// {tile count, perm is the identity}. Static shared memory: 16.25 KB (the
/// counts of up to kPlanSharedGroups groups, the scan's warp sums).
__global__ void __launch_bounds__(1024) attentionPlanKernel(PlanParams pp) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // The Hopper main kernel is its programmatic dependent: let it launch now
  // (it waits for this grid's completion before reading the plan).
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const int tid = threadIdx.x, nt = blockDim.x;
  const int U = pp.users;
  // Counts and cursors in shared memory when the groups fit, else in the
  // workspace.
  __shared__ int sharedCounts[kPlanSharedGroups];
  int *counts = U + 1 <= kPlanSharedGroups ? sharedCounts : pp.counts;
  for (int u = tid; u <= U; u += nt)
    counts[u] = 0;
  __syncthreads();
  int sorted = 1;
  for (int b = tid; b < pp.batch; b += nt) {
    long long u = loadIndex<IndexLoad::Plain>(pp.candToUser, pp.i64, b);
    if (u < 0 || u >= U) {
      attentionRecordError(pp.errors, EMBRT_DEVERR_BAD_CAND_TO_USER, b, u, U);
      u = U;
      sorted = 0;
    } else if (b > 0 &&
               loadIndex<IndexLoad::Plain>(pp.candToUser, pp.i64, b - 1) > u) {
      sorted = 0;
    }
    atomicAdd(&counts[u], 1);
  }
  sorted = __syncthreads_and(sorted);

  int2 running = make_int2(0, 0);
  for (int base = 0; base <= U; base += nt) {
    const int g = base + tid;
    const int c = g <= U ? counts[g] : 0;
    const int tiles = (c * pp.lq + pp.blockM - 1) / pp.blockM;
    int2 total;
    int2 ex = blockExclusiveScan(make_int2(c, tiles), total);
    if (g <= U) {
      pp.groupStart[g] = running.x + ex.x;
      pp.tileStart[g] = running.y + ex.y;
    }
    running.x += total.x;
    running.y += total.y;
  }
  if (tid == 0) {
    pp.groupStart[U + 1] = running.x;
    pp.tileStart[U + 1] = running.y;
    pp.numTiles[0] = running.y;
    pp.numTiles[1] = sorted;
  }
  __syncthreads();

  if (sorted) {
    for (int b = tid; b < pp.batch; b += nt)
      pp.perm[b] = b;
  } else {
    for (int g = tid; g <= U; g += nt)
      counts[g] = pp.groupStart[g];
    __syncthreads();
    for (int b = tid; b < pp.batch; b += nt) {
      long long u = loadIndex<IndexLoad::Plain>(pp.candToUser, pp.i64, b);
      int g = (u < 0 || u >= U) ? U : (int)u;
      pp.perm[atomicAdd(&counts[g], 1)] = b;
    }
  }

  // A warp per group writes the group's tiles (no search per tile).
  const int lane = tid & 31;
  for (int g = tid >> 5; g <= U; g += nt >> 5) {
    const int first = pp.tileStart[g], n = pp.tileStart[g + 1] - first;
    for (int i = lane; i < n; i += 32)
      pp.tiles[first + i] = make_int2(g, i * pp.blockM);
  }
}

/// Flash attention on mma.sync m16n8k16 (sm_80+), f16/bf16, head dim DH.
///
/// Grid: maxTiles * H CTAs (CTA i: tile i / H, head i % H; CTAs past the
/// plan's tile count exit). Block: 128 threads = 4 warps; warp w owns query
/// rows 16w..16w+15 of the 64-row tile, thread (lane 4g+t) rows g and g+8,
/// two of every 8 columns of S (64 keys a block) and of O. Q is held in
/// registers (ldmatrix), K and V blocks are double-buffered in shared memory
/// with cp.async (keys at or past the user's length are zero-filled and
/// masked). Dynamic shared memory: Q [64][DH] + K, V [2][64][DH] halves,
/// rows of DH*2 bytes with 16-byte chunks XOR-swizzled by row (conflict-free
/// ldmatrix); 80 KB for DH=128. Bases 16-byte aligned.
template <typename T, int DH>
__global__ void __launch_bounds__(128)
    attentionMmaKernel(const AttentionParams p) {
  constexpr int BM = 64, BN = 64, CH = DH / 8, RB = DH * 2;
  extern __shared__ uint4 smemMma[];
  const uint32_t qS = smemAddr(smemMma);
  const uint32_t kS = qS + BM * RB, vS = kS + 2 * BN * RB;

  const int tile = blockIdx.x / p.heads, h = blockIdx.x % p.heads;
  if (tile >= attentionNumTiles(p))
    return;
  const AttentionTile t = attentionDecodeTile(p, tile, BM);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g8 = lane >> 2, tq = lane & 3;
  const T *q = static_cast<const T *>(p.q);
  const T *k = static_cast<const T *>(p.k);
  const T *v = static_cast<const T *>(p.v);
  T *out = static_cast<T *>(p.out);

  for (int idx = tid; idx < BM * CH; idx += 128) {
    const int row = idx / CH, c = idx % CH, r = t.rowStart + row;
    const bool valid = r < t.rows;
    embrt::copyAsync<16, false>(
        qS + attentionSwizzle(row, c, RB),
        valid ? q + attentionRowOffset(p, t, r, h) + 8 * c : q, valid);
  }
  auto loadKV = [&](int block, int stage) {
    for (int idx = tid; idx < BN * CH; idx += 128) {
      const int row = idx / CH, c = idx % CH, key = block * BN + row;
      const bool valid = key < t.keys;
      const long long off =
          valid ? attentionKeyOffset(p, t.group, key, h) + 8 * c : 0;
      const uint32_t dst = attentionSwizzle(row, c, RB) + stage * BN * RB;
      embrt::copyAsync<16, false>(kS + dst, k + off, valid);
      embrt::copyAsync<16, false>(vS + dst, v + off, valid);
    }
  };
  const int blocks = (t.keys + BN - 1) / BN;
  if (blocks > 0)
    loadKV(0, 0);
  embrt::commitCopies();

  float o[DH / 8][4];
#pragma unroll
  for (int i = 0; i < DH / 8; ++i)
    o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;
  const float sl2 = p.scaleLog2;
  uint32_t qf[DH / 16][4];

  for (int j = 0; j < blocks; ++j) {
    if (j + 1 < blocks)
      loadKV(j + 1, (j + 1) & 1);
    embrt::commitCopies();
    embrt::waitCopies<1>();
    __syncthreads();
    if (j == 0) {
#pragma unroll
      for (int kk = 0; kk < DH / 16; ++kk) {
        const int row = warp * 16 + (lane & 7) + (((lane >> 3) & 1) << 3);
        ldmatrixX4(qS + attentionSwizzle(row, 2 * kk + (lane >> 4), RB),
                   qf[kk][0], qf[kk][1], qf[kk][2], qf[kk][3]);
      }
    }
    const uint32_t kT = kS + (j & 1) * BN * RB, vT = vS + (j & 1) * BN * RB;
    float s[BN / 8][4];
#pragma unroll
    for (int i = 0; i < BN / 8; ++i)
      s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < DH / 16; ++kk) {
#pragma unroll
      for (int nb = 0; nb < BN / 16; ++nb) {
        const int key = nb * 16 + (lane & 7) + ((lane >> 4) << 3);
        uint32_t b0, b1, b2, b3;
        ldmatrixX4(kT + attentionSwizzle(key, 2 * kk + ((lane >> 3) & 1), RB),
                   b0, b1, b2, b3);
        mma16816<T>(s[2 * nb], qf[kk], b0, b1);
        mma16816<T>(s[2 * nb + 1], qf[kk], b2, b3);
      }
    }
    // Online softmax (rows g and g+8); keys past the length are masked.
    const int valid = t.keys - j * BN;
#pragma unroll
    for (int i = 0; i < BN / 8; ++i)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        if (p.negScale)
          s[i][e] = -s[i][e];
        if (i * 8 + 2 * tq + (e & 1) >= valid)
          s[i][e] = -INFINITY;
      }
    float x0 = m0, x1 = m1;
#pragma unroll
    for (int i = 0; i < BN / 8; ++i) {
      x0 = fmaxf(x0, fmaxf(s[i][0], s[i][1]));
      x1 = fmaxf(x1, fmaxf(s[i][2], s[i][3]));
    }
    x0 = fmaxf(x0, __shfl_xor_sync(0xffffffffu, x0, 1));
    x0 = fmaxf(x0, __shfl_xor_sync(0xffffffffu, x0, 2));
    x1 = fmaxf(x1, __shfl_xor_sync(0xffffffffu, x1, 1));
    x1 = fmaxf(x1, __shfl_xor_sync(0xffffffffu, x1, 2));
    const float c0 = m0 == -INFINITY ? 0.f : exp2f((m0 - x0) * sl2);
    const float c1 = m1 == -INFINITY ? 0.f : exp2f((m1 - x1) * sl2);
    m0 = x0;
    m1 = x1;
    float r0 = 0.f, r1 = 0.f;
    uint32_t pf[BN / 16][4];
#pragma unroll
    for (int i = 0; i < BN / 8; ++i) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float mb = (e < 2 ? x0 : x1) * sl2;
        float pe = exp2f(fmaf(s[i][e], sl2, -mb));
        s[i][e] = i * 8 + 2 * tq + (e & 1) >= valid ? 0.f : pe;
      }
      r0 += s[i][0] + s[i][1];
      r1 += s[i][2] + s[i][3];
      pf[i >> 1][(i & 1) * 2] = embrt::packCompute<T>(s[i][0], s[i][1]);
      pf[i >> 1][(i & 1) * 2 + 1] = embrt::packCompute<T>(s[i][2], s[i][3]);
    }
    l0 = l0 * c0 + r0;
    l1 = l1 * c1 + r1;
#pragma unroll
    for (int i = 0; i < DH / 8; ++i) {
      o[i][0] *= c0;
      o[i][1] *= c0;
      o[i][2] *= c1;
      o[i][3] *= c1;
    }
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
#pragma unroll
      for (int nd = 0; nd < DH / 16; ++nd) {
        const int key = kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3);
        uint32_t b0, b1, b2, b3;
        ldmatrixX4Trans(vT + attentionSwizzle(key, 2 * nd + (lane >> 4), RB),
                        b0, b1, b2, b3);
        mma16816<T>(o[2 * nd], pf[kk], b0, b1);
        mma16816<T>(o[2 * nd + 1], pf[kk], b2, b3);
      }
    }
    __syncthreads(); // this stage is refilled two blocks later
  }
  embrt::waitCopies<0>();

  l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
  l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
  const float i0 = l0 > 0.f ? 1.f / l0 : 0.f, i1 = l1 > 0.f ? 1.f / l1 : 0.f;
  const int ra = t.rowStart + warp * 16 + g8, rb = ra + 8;
  if (ra < t.rows) {
    T *dst = out + attentionRowOffset(p, t, ra, h) + 2 * tq;
#pragma unroll
    for (int i = 0; i < DH / 8; ++i)
      *reinterpret_cast<uint32_t *>(dst + 8 * i) =
          embrt::packCompute<T>(o[i][0] * i0, o[i][1] * i0);
  }
  if (rb < t.rows) {
    T *dst = out + attentionRowOffset(p, t, rb, h) + 2 * tq;
#pragma unroll
    for (int i = 0; i < DH / 8; ++i)
      *reinterpret_cast<uint32_t *>(dst + 8 * i) =
          embrt::packCompute<T>(o[i][2] * i1, o[i][3] * i1);
  }
}

/// Exact-arithmetic attention with f32 FMAs, any float dtype, head dim up to
/// 256 (the f32 path, and the fallback for unaligned tensors or other head
/// dims).
///
/// Grid: maxTiles * H CTAs (CTA i: tile i / H, head i % H). Block: 128
/// threads = 4 warps; warp w owns rows 4w..4w+3 of the 16-row tile. Per block
/// of 32 keys, lane j scores key j against the warp's rows, the warp does the
/// online softmax with shuffles, and lane j accumulates output columns
/// j, j+32, ... Dynamic shared memory (f32): Q [16][Dh], K [32][Dh+1]
/// (padded: conflict-free column reads), V [32][Dh]. No alignment needs.
template <typename T>
__global__ void __launch_bounds__(128)
    attentionSimtKernel(const AttentionParams p, float scale) {
  constexpr int BM = 16, BN = 32, MAXC = 8;
  extern __shared__ float smemSimt[];
  const int D = p.headDim;
  float *qs = smemSimt, *ks = qs + BM * D, *vs = ks + BN * (D + 1);

  const int tile = blockIdx.x / p.heads, h = blockIdx.x % p.heads;
  if (tile >= attentionNumTiles(p))
    return;
  const AttentionTile t = attentionDecodeTile(p, tile, BM);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const T *q = static_cast<const T *>(p.q);
  const T *k = static_cast<const T *>(p.k);
  const T *v = static_cast<const T *>(p.v);
  T *out = static_cast<T *>(p.out);

  for (int idx = tid; idx < BM * D; idx += 128) {
    const int row = idx / D, d = idx % D, r = t.rowStart + row;
    qs[idx] = r < t.rows
                  ? embrt::toCompute(q[attentionRowOffset(p, t, r, h) + d])
                  : 0.f;
  }
  float m[4], l[4], o[4][MAXC];
#pragma unroll
  for (int rr = 0; rr < 4; ++rr) {
    m[rr] = -INFINITY;
    l[rr] = 0.f;
#pragma unroll
    for (int i = 0; i < MAXC; ++i)
      o[rr][i] = 0.f;
  }
  const int blocks = (t.keys + BN - 1) / BN;
  for (int j = 0; j < blocks; ++j) {
    __syncthreads();
    for (int idx = tid; idx < BN * D; idx += 128) {
      const int key = idx / D, d = idx % D, kj = j * BN + key;
      float kx = 0.f, vx = 0.f;
      if (kj < t.keys) {
        const long long off = attentionKeyOffset(p, t.group, kj, h) + d;
        kx = embrt::toCompute(k[off]);
        vx = embrt::toCompute(v[off]);
      }
      ks[key * (D + 1) + d] = kx;
      vs[idx] = vx;
    }
    __syncthreads();
    const bool valid = j * BN + lane < t.keys;
    float s[4] = {0.f, 0.f, 0.f, 0.f};
    for (int d = 0; d < D; ++d) {
      const float kd = ks[lane * (D + 1) + d];
#pragma unroll
      for (int rr = 0; rr < 4; ++rr)
        s[rr] = fmaf(qs[(warp * 4 + rr) * D + d], kd, s[rr]);
    }
    float pr[4];
#pragma unroll
    for (int rr = 0; rr < 4; ++rr) {
      const float x = valid ? s[rr] * scale : -INFINITY;
      const float mx = fmaxf(m[rr], warpMax(x));
      const float c = m[rr] == -INFINITY ? 0.f : expf(m[rr] - mx);
      pr[rr] = valid ? expf(x - mx) : 0.f;
      l[rr] = l[rr] * c + warpSum(pr[rr]);
      m[rr] = mx;
#pragma unroll
      for (int i = 0; i < MAXC; ++i)
        o[rr][i] *= c;
    }
    for (int kk = 0; kk < BN; ++kk) {
      float pk[4];
#pragma unroll
      for (int rr = 0; rr < 4; ++rr)
        pk[rr] = __shfl_sync(0xffffffffu, pr[rr], kk);
#pragma unroll
      for (int i = 0; i < MAXC; ++i) {
        const int d = lane + 32 * i;
        if (d < D) {
          const float vd = vs[kk * D + d];
#pragma unroll
          for (int rr = 0; rr < 4; ++rr)
            o[rr][i] = fmaf(pk[rr], vd, o[rr][i]);
        }
      }
    }
  }
#pragma unroll
  for (int rr = 0; rr < 4; ++rr) {
    const int r = t.rowStart + warp * 4 + rr;
    if (r >= t.rows)
      continue;
    const float inv = l[rr] > 0.f ? 1.f / l[rr] : 0.f;
    T *dst = out + attentionRowOffset(p, t, r, h);
#pragma unroll
    for (int i = 0; i < MAXC; ++i) {
      const int d = lane + 32 * i;
      if (d < D)
        dst[d] = embrt::fromCompute<T>(o[rr][i] * inv);
    }
  }
}

//===----------------------------------------------------------------------===//
// Instantiations
//===----------------------------------------------------------------------===//

typedef void (*MainKernel)(const AttentionParams);
typedef void (*SimtKernel)(const AttentionParams, float);

/// The mma.sync instantiation for (dtype, head dim).
struct MmaVariant {
  embrtDtype dtype;
  int headDim;
  MainKernel kernel;
};

const MmaVariant mmaVariants[] = {
    {EMBRT_F16, 128, attentionMmaKernel<__half, 128>},
    {EMBRT_F16, 64, attentionMmaKernel<__half, 64>},
    {EMBRT_BF16, 128, attentionMmaKernel<__nv_bfloat16, 128>},
    {EMBRT_BF16, 64, attentionMmaKernel<__nv_bfloat16, 64>},
};

SimtKernel simtKernel(embrtDtype dtype) {
  switch (dtype) {
  case EMBRT_F16:
    return attentionSimtKernel<__half>;
  case EMBRT_BF16:
    return attentionSimtKernel<__nv_bfloat16>;
  default:
    return attentionSimtKernel<float>;
  }
}

//===----------------------------------------------------------------------===//
// Host helpers
//===----------------------------------------------------------------------===//

/// Byte offsets of the plan's arrays in the workspace.
struct PlanLayout {
  size_t counts, groupStart, tileStart, perm, tiles, numTiles, bytes;
};

size_t alignUp(size_t x, size_t a) { return (x + a - 1) / a * a; }

PlanLayout planLayout(int64_t batch, int64_t users, int64_t lq) {
  PlanLayout l;
  size_t at = 0;
  l.counts = at;
  at = alignUp(at + (size_t)(users + 1) * sizeof(int), 16);
  l.groupStart = at;
  at = alignUp(at + (size_t)(users + 2) * sizeof(int), 16);
  l.tileStart = at;
  at = alignUp(at + (size_t)(users + 2) * sizeof(int), 16);
  l.perm = at;
  at = alignUp(at + (size_t)batch * sizeof(int), 16);
  l.tiles = at;
  at = alignUp(at + (size_t)attentionMaxTiles(batch, users + 1, lq,
                                              ATTENTION_MIN_BLOCK_M) *
                        sizeof(int2),
               16);
  l.numTiles = at;
  l.bytes = alignUp(at + 2 * sizeof(int), 256);
  return l;
}

embrtStatus cudaStatus(embrtLaunchEnv *env, cudaError_t err, const char *what) {
  return embrtCudaCheck(env, (int)err, what);
}

bool aligned16(const void *ptr) { return ((uintptr_t)ptr & 15u) == 0; }

//===----------------------------------------------------------------------===//
// The conversion path (f32 data, computeDtype f16 or bf16)
//===----------------------------------------------------------------------===//

/// After the plan, the workspace holds q, k, v and the output in the
/// compute type.
struct ConvertLayout {
  size_t q, k, v, out, bytes;
  int64_t qElements, kvElements;
};

bool converts(const embrtAttentionArgs *args) {
  return args->dtype == EMBRT_F32 &&
         (args->computeDtype == EMBRT_F16 || args->computeDtype == EMBRT_BF16);
}

size_t planBytes(const embrtAttentionArgs *args) {
  return args->candToUser && args->batchSize > 0 && args->lq > 0
             ? planLayout(args->batchSize, args->numUsers, args->lq).bytes
             : 0;
}

ConvertLayout convertLayout(const embrtAttentionArgs *args) {
  ConvertLayout l;
  l.qElements = args->batchSize * args->lq * args->heads * args->headDim;
  l.kvElements = args->numUsers * args->lk * args->heads * args->headDim;
  const size_t q = alignUp((size_t)l.qElements * 2, 256);
  const size_t kv = alignUp((size_t)l.kvElements * 2, 256);
  l.q = planBytes(args);
  l.k = l.q + q;
  l.v = l.k + kv;
  l.out = l.v + kv;
  l.bytes = l.out + q;
  return l;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// The workspace of the main kernels (the plan, or the conversion's copies
/// after it); the additive mask's maxima come after it.
static size_t mainWorkspaceBytes(const embrtAttentionArgs *args) {
  return converts(args) ? convertLayout(args).bytes : planBytes(args);
}

extern "C" embrtStatus
embrtCudaAttentionWorkspaceSize(embrtLaunchEnv *env,
                                const embrtAttentionArgs *args, size_t *bytes) {
  size_t mask = attentionAdditiveMaskBytes(args);
  *bytes = mask ? alignUp(mainWorkspaceBytes(args), 256) + mask
                : mainWorkspaceBytes(args);
  return EMBRT_OK;
}

/// The additive mask: the main kernels without it, then
/// kernels/attention_additive_mask.cu's launches on the same stream.
static embrtStatus launchAdditiveMask(embrtLaunchEnv *env,
                                      const embrtAttentionArgs *args) {
  embrtAttentionArgs inner = *args;
  inner.additiveMask = 0;
  const size_t at = alignUp(mainWorkspaceBytes(&inner), 256);
  const size_t needed = at + attentionAdditiveMaskBytes(args);
  if (!args->workspace || args->workspaceBytes < needed)
    return embrtLaunchError(
        env, EMBRT_INVALID_ARGUMENT,
        "attention: workspace has %zu bytes, needs %zu (additiveMask)",
        args->workspace ? args->workspaceBytes : 0, needed);
  inner.workspaceBytes = at;
  embrtStatus st = embrtCudaLaunchAttention(env, &inner);
  if (st != EMBRT_OK)
    return st;
  return attentionLaunchAdditiveMask(env, args,
                                     static_cast<char *>(args->workspace) + at);
}

/// q, k and v of `args` rounded into `inner`'s (the workspace), one launch.
template <typename T>
static embrtStatus
roundOperands(embrtLaunchEnv *env, const embrtAttentionArgs *args,
              const embrtAttentionArgs *inner, const ConvertLayout &l) {
  embrt::RoundJobs<T> jobs = {};
  embrt::addRoundJob(&jobs, args->q, (void *)inner->q, 1, l.qElements, 0, 0);
  embrt::addRoundJob(&jobs, args->k, (void *)inner->k, 1, l.kvElements, 0, 0);
  embrt::addRoundJob(&jobs, args->v, (void *)inner->v, 1, l.kvElements, 0, 0);
  return embrt::launchRoundJobs(env, jobs, "attention: rounding launch");
}

/// f32 data computed in f16 or bf16: q, k and v rounded into the workspace
/// (one launch), the f16/bf16 kernels on them, the output widened into
/// args->output (one launch). All on the stream; no host synchronisation.
static embrtStatus launchConverted(embrtLaunchEnv *env,
                                   const embrtAttentionArgs *args) {
  const ConvertLayout l = convertLayout(args);
  if (!args->workspace || args->workspaceBytes < l.bytes)
    return embrtLaunchError(
        env, EMBRT_INVALID_ARGUMENT,
        "attention: workspace has %zu bytes, needs %zu (computeDtype %s)",
        args->workspace ? args->workspaceBytes : 0, l.bytes,
        args->computeDtype == EMBRT_F16 ? "f16" : "bf16");
  char *ws = static_cast<char *>(args->workspace);
  embrtAttentionArgs inner = *args;
  inner.dtype = args->computeDtype;
  inner.computeDtype = EMBRT_F32;
  inner.q = ws + l.q;
  inner.k = ws + l.k;
  inner.v = ws + l.v;
  inner.output = ws + l.out;
  inner.workspaceBytes = l.q; // the plan, first
  embrtStatus st = EMBRT_OK;
  if (inner.dtype == EMBRT_BF16)
    st = roundOperands<__nv_bfloat16>(env, args, &inner, l);
  else
    st = roundOperands<__half>(env, args, &inner, l);
  if (st != EMBRT_OK)
    return st;
  st = embrtCudaLaunchAttention(env, &inner);
  if (st != EMBRT_OK)
    return st;
  return inner.dtype == EMBRT_BF16
             ? embrt::launchWiden<__nv_bfloat16>(env, inner.output,
                                                 args->output, l.qElements,
                                                 "attention: widening launch")
             : embrt::launchWiden<__half>(env, inner.output, args->output,
                                          l.qElements,
                                          "attention: widening launch");
}

extern "C" embrtStatus
embrtCudaLaunchAttention(embrtLaunchEnv *env, const embrtAttentionArgs *args) {
  const int64_t B = args->batchSize, U = args->numUsers, Lq = args->lq,
                Lk = args->lk, H = args->heads, Dh = args->headDim;
  if (B == 0 || Lq == 0 || H == 0 || Dh == 0)
    return EMBRT_OK;
  if (B * Lq > INT_MAX || Lk > INT_MAX || H * Dh > INT_MAX || U > INT_MAX - 2 ||
      attentionMaxTiles(B, U + 1, Lq, ATTENTION_MIN_BLOCK_M) * H > INT_MAX)
    return embrtLaunchError(
        env, EMBRT_UNSUPPORTED,
        "attention: shape too large for 32-bit tile indices");
  if (args->configId >= ATTENTION_NUM_CONFIGS)
    return embrtLaunchError(
        env, EMBRT_INVALID_ARGUMENT,
        "attention: configId %lld is not in the table of %d",
        (long long)args->configId, ATTENTION_NUM_CONFIGS);
  // After the checks above, before any work: the additive mask and the
  // conversion path call back here, without the mask and with the compute
  // type.
  if (attentionAdditiveMaskBytes(args))
    return launchAdditiveMask(env, args);
  if (converts(args))
    return launchConverted(env, args);
  const bool ikbo = args->candToUser != nullptr;
  const int64_t groups = ikbo ? U : B;
  const int aligned = aligned16(args->q) && aligned16(args->k) &&
                      aligned16(args->v) && aligned16(args->output);
  const AttentionShape shape = {env->ccMajor, args->dtype, Dh, aligned, Lk};
  int id = (int)attentionResolveConfig(&shape, args->configId);
  // TMA maps need a non-empty K/V tensor; these degenerate shapes only write
  // zeros, which the SIMT path does.
  if (id >= 0 && kAttentionConfigs[id].path != ATTENTION_PATH_SIMT &&
      (Lk == 0 || groups == 0))
    id = (int)attentionResolveConfig(&shape, ATTENTION_NUM_CONFIGS - 1);
#ifdef EMB_ATTENTION_NO_SM90A
  // Built without kernels/attention_sm90a.cu (a CUDA before 12.0): the first
  // applicable row of another path.
  if (id >= 0 && kAttentionConfigs[id].path == ATTENTION_PATH_WGMMA) {
    id = -1;
    for (int i = 0; i < ATTENTION_NUM_CONFIGS && id < 0; ++i)
      if (kAttentionConfigs[i].path != ATTENTION_PATH_WGMMA &&
          attentionConfigApplies(&kAttentionConfigs[i], &shape))
        id = i;
  }
#endif
  if (id < 0)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "attention: no kernel for dtype %d, head dim %lld "
                            "on compute capability %d.%d",
                            (int)args->dtype, (long long)Dh, env->ccMajor,
                            env->ccMinor);
  const AttentionConfig &config = kAttentionConfigs[id];
  cudaStream_t stream = (cudaStream_t)env->stream;

  AttentionParams p = {};
  p.q = args->q;
  p.k = args->k;
  p.v = args->v;
  p.out = args->output;
  p.lengths = args->userLengths;
  p.lengthsI64 = args->indexDtype == EMBRT_I64;
  p.batch = (int)B;
  p.numGroups = (int)groups;
  p.lq = (int)Lq;
  p.lk = (int)Lk;
  p.heads = (int)H;
  p.headDim = (int)Dh;
  p.scaleLog2 = fabsf(args->scale) * 1.4426950408889634f;
  p.negScale = args->scale < 0.f;
  p.errors = env->deviceErrors;

  int64_t maxTiles;
  if (ikbo) {
    PlanLayout layout = planLayout(B, U, Lq);
    if (!args->workspace || args->workspaceBytes < layout.bytes)
      return embrtLaunchError(
          env, EMBRT_INVALID_ARGUMENT,
          "ikbo_attention: workspace has %zu bytes, needs %zu",
          args->workspace ? args->workspaceBytes : 0, layout.bytes);
    char *ws = static_cast<char *>(args->workspace);
    PlanParams pp;
    pp.candToUser = args->candToUser;
    pp.i64 = args->indexDtype == EMBRT_I64;
    pp.batch = (int)B;
    pp.users = (int)U;
    pp.lq = (int)Lq;
    pp.blockM = config.blockM;
    pp.counts = reinterpret_cast<int *>(ws + layout.counts);
    pp.groupStart = reinterpret_cast<int *>(ws + layout.groupStart);
    pp.tileStart = reinterpret_cast<int *>(ws + layout.tileStart);
    pp.perm = reinterpret_cast<int *>(ws + layout.perm);
    pp.tiles = reinterpret_cast<int2 *>(ws + layout.tiles);
    pp.numTiles = reinterpret_cast<int *>(ws + layout.numTiles);
    pp.errors = env->deviceErrors;
    attentionPlanKernel<<<1, 1024, 0, stream>>>(pp);
    embrtStatus st =
        cudaStatus(env, cudaGetLastError(), "attention: plan kernel launch");
    if (st != EMBRT_OK)
      return st;
    p.plain = 0;
    p.tiles = pp.tiles;
    p.perm = pp.perm;
    p.groupStart = pp.groupStart;
    p.numTilesDev = pp.numTiles;
    p.sortedDev = pp.numTiles + 1;
    maxTiles = attentionMaxTiles(B, U + 1, Lq, config.blockM);
  } else {
    p.plain = 1;
    p.tilesPerGroup = (int)((Lq + config.blockM - 1) / config.blockM);
    p.numTilesHost = (int)(B * p.tilesPerGroup);
    maxTiles = p.numTilesHost;
  }

  switch (config.path) {
  case ATTENTION_PATH_WGMMA:
#ifndef EMB_ATTENTION_NO_SM90A
    return attentionLaunchSm90a(env, args, p, id, (int)maxTiles);
#else
    break;
#endif
  case ATTENTION_PATH_MMA: {
    MainKernel kernel = nullptr;
    for (const MmaVariant &v : mmaVariants)
      if (v.dtype == args->dtype && v.headDim == Dh)
        kernel = v.kernel;
    const int smem = (int)(5 * 64 * Dh * 2); // Q, 2 x K, 2 x V
    embrtStatus st = cudaStatus(
        env,
        cudaFuncSetAttribute(kernel,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
        "attention: mma.sync shared memory attribute");
    if (st != EMBRT_OK)
      return st;
    kernel<<<(unsigned)(maxTiles * H), 128, smem, stream>>>(p);
    return cudaStatus(env, cudaGetLastError(), "attention: mma.sync launch");
  }
  case ATTENTION_PATH_SIMT: {
    SimtKernel kernel = simtKernel(args->dtype);
    const int smem = (int)((16 * Dh + 32 * (Dh + 1) + 32 * Dh) * sizeof(float));
    embrtStatus st = cudaStatus(
        env,
        cudaFuncSetAttribute(kernel,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, smem),
        "attention: SIMT shared memory attribute");
    if (st != EMBRT_OK)
      return st;
    kernel<<<(unsigned)(maxTiles * H), 128, smem, stream>>>(p, args->scale);
    return cudaStatus(env, cudaGetLastError(), "attention: SIMT launch");
  }
  }
  return embrtLaunchError(env, EMBRT_UNSUPPORTED, "attention: unknown path");
}
