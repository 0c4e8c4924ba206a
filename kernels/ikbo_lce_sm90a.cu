//===- ikbo_lce_sm90a.cu - IKBO linear compression on Hopper -*- CUDA -*-===//
//
// emb.ikbo_lce on sm_90a: out[b] = wCand @ cand[b] + wUser @ user[c2u[b]].
// Built only for sm_90a (-gencode=arch=compute_90a,code=sm_90a): it uses
// wgmma, setmaxnreg and TMA multicast.
//
// Two launches of one persistent, warp-specialised kernel:
//   1. user mode: the user product wUser @ user[u] for the U users (the user
//      product runs at user batch size) into the workspace, in the dtype
//      ([U][M][N]) or, for the *_f32 configurations, in f32 transposed
//      (userT[u][n][m]);
//   2. add mode: out[b] = round(wCand @ cand[b] + user result[c2u[b]]), the
//      user rows added to the f32 accumulators before the output's one
//      rounding, so no candidate-sized intermediate exists. It is
//      programmatically dependent on launch 1 (PDL) and waits for it only
//      before its first read of the user result.
//
// The product is computed transposed, D[n, m] = X^T[n, k] W^T[k, m]:
// candidate columns n are the wgmma M side (cand[b] is [K, N] with n
// contiguous, an MN-major A operand), W rows m the wgmma N side (W is [M, K],
// a K-major B operand), so a tile of M may be any multiple of 8 up to 256.
// docs/kernels/ikbo_lce.md describes the design.
//
//===----------------------------------------------------------------------===//

#include "kernels/common/device_errors.cuh"
#include "kernels/common/index_load.cuh"
#include "kernels/common/sm90_sync.cuh"
#include "kernels/common/sm90_wgmma.cuh"
#include "kernels/ikbo_lce_config.h"
#include "kernels/launch.h"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <string.h>

namespace {

using embrt::IndexLoad;
using embrt::loadIndex;

constexpr int kBlockK = 64;   // k per stage: 128 B of 16-bit
constexpr int kTileN = 128;   // candidate columns per CTA
constexpr int kThreads = 384; // producer WG + 2 consumer WGs
constexpr int kATileBytes = kTileN * kBlockK * 2; // both consumers' X tiles
constexpr int kAHalfBytes = kATileBytes / 2;      // one consumer's X tile
constexpr int kRing = 4; // slots of the dynamic schedule's ring
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 232;

/// Kernel parameters; passed as a __grid_constant__ so that the tensor maps
/// stay in parameter space where TMA reads them.
struct Sm90aParams {
  CUtensorMap tmX;   ///< X: user [U][Ku][N] or cand [B][Kc][N]; box 64 x 64 x 1
  CUtensorMap tmW;   ///< W [M][K], 16-byte row pitch; box 64 x mTile/clusterN
  CUtensorMap tmOut; ///< store target: out [B][M][N] (add mode) or, with
                     ///< the user result in shared memory, user [U][M][N]
  CUtensorMap tmY;   ///< user result [U][M][N] in the dtype (add mode)
  float *userT;      ///< [U][nPad][mPad] f32 (f32 user-result kernels)
  const void *candToUser;
  embrtDeviceErrors *errors;
  long long nPad, mPad;
  int items;   ///< U in user mode, B in add mode
  int users;   ///< U
  int numK;    ///< k blocks of 64
  int mGroups; ///< W-row tiles of one item, divided by clusterM
  int nGroups; ///< column tiles of 128 of one item, divided by clusterN
  int clusterN, clusterM;
  int addMode;
  int index64;      ///< candToUser is I64
  int pdlTrigger;   ///< user mode: let the candidate launch start early
  int pdlWait;      ///< add mode: wait for the user launch before reading userT
  int pdlWaitFirst; ///< user mode, launched dependent on the W padding:
                    ///< wait for it before any load (and before pdlTrigger)
  /// The dynamic schedule's counter (0 between launches), or null for the
  /// static schedule.
  unsigned int *tileCounter;
};

//===----------------------------------------------------------------------===//
// Device helpers: warp matrix loads and stores, packing, work decoding
//===----------------------------------------------------------------------===//

__device__ __forceinline__ void ldmatrixX4Trans(uint32_t addr,
                                                uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
               "{%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

__device__ __forceinline__ void stmatrixX4Trans(uint32_t addr, uint32_t r0,
                                                uint32_t r1, uint32_t r2,
                                                uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], "
               "{%1, %2, %3, %4};" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

template <typename T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi);

template <>
__device__ __forceinline__ uint32_t pack2<__half>(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  uint32_t u;
  memcpy(&u, &h, 4);
  return u;
}

template <>
__device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  uint32_t u;
  memcpy(&u, &h, 4);
  return u;
}

/// The two 16-bit values of a packed pair as f32 (low half first).
template <typename T> __device__ __forceinline__ float2 unpack2(uint32_t u);

template <> __device__ __forceinline__ float2 unpack2<__half>(uint32_t u) {
  __half2 h;
  memcpy(&h, &u, 4);
  return __half22float2(h);
}

template <>
__device__ __forceinline__ float2 unpack2<__nv_bfloat16>(uint32_t u) {
  __nv_bfloat162 h;
  memcpy(&h, &u, 4);
  return __bfloat1622float2(h);
}

/// 0, computed from `v` where the compiler cannot see it: an address plus
/// afterValue(v) is used only once the load of v has returned. The ring's
/// readers release a slot that way, so the leader's next write into it (a
/// relaxed arrive tells it the slot is free; a cluster-scope release would
/// cost a fence a tile) cannot overtake their read.
__device__ __forceinline__ uint32_t afterValue(uint32_t v) {
  uint32_t z;
  asm volatile("and.b32 %0, %1, 0;" : "=r"(z) : "r"(v));
  return z;
}

/// A position in the persistent tile sequence: item (candidate or user) and
/// the group of W-row tiles and column tiles that one cluster covers. The
/// W-row group varies fastest, so clusters running at the same time read one
/// item's X once from memory and again from L2.
struct Work {
  int item, mGroup, nGroup;
};

__device__ __forceinline__ Work decodeWork(int w, int mGroups, int nGroups) {
  Work r;
  r.mGroup = w % mGroups;
  int t = w / mGroups;
  r.nGroup = t % nGroups;
  r.item = t / nGroups;
  return r;
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

/// One persistent CTA of 384 threads: warpgroup 0 produces, warpgroups 1 and 2
/// consume. A CTA tile is 128 candidate columns (n) by MT W rows (m) of one
/// item; consumer c owns columns n0 + 64c .. +63, i.e. a 64 x MT wgmma
/// accumulator (MT/2 f32 registers a thread). Clusters of clusterN x clusterM
/// CTAs walk the work sequence w = clusterId, clusterId + numClusters, ...;
/// CTA (nIdx, mIdx) of a cluster takes column tile nGroup * clusterN + nIdx
/// and W-row tile mGroup * clusterM + mIdx. CTAs sharing a W tile (same mIdx)
/// each load 1/clusterN of it and multicast it to the others; CTAs sharing
/// an X tile (same nIdx) each load 1/clusterM of it likewise.
///
/// Grid: min(work, resident clusters) * cluster CTAs; block: 384 threads.
/// Shared memory (dynamic, aligned up to 1 KB inside):
///   X stages   STAGES x [2 consumers][64 k][64 n] 16-bit, 128B-swizzled (TMA)
///   W stages   STAGES x [MT m][64 k] 16-bit, 128B-swizzled (TMA)
///   staging    2 consumers x [MT m][64 n] 16-bit, 128B-swizzled
///   barriers   full[STAGES] (1 arrival + bytes), empty[STAGES] (8 x cluster),
///              yuFull (1 + bytes), stagingEmpty (2), tileFull[kRing] (1 +
///              4 bytes), tileEmpty[kRing] (9 x cluster)
///   ring       kRing work indices (the dynamic schedule)
/// The producer (one thread) fills stage s once empty[s] has seen every
/// consumer warp of the cluster release it; consumers wait on full[s], issue
/// 4 wgmma k16 steps, and release the stage of the previous k block once its
/// wgmma group completed.
///
/// Epilogue with the user result in the dtype (kYuSmem): during the tile's
/// third k block (the last one in a CTA's first tile while the user launch
/// may still run, so that waiting for it stalls no main loop) the producer,
/// once both consumers have seen their previous store leave the staging
/// buffer (stagingEmpty), TMA-loads the user rows
/// user[c2u[b]][m0 ..][n0 ..] into it (yuFull). Each consumer then reads them
/// with ldmatrix.trans in the accumulator layout, adds them in f32, rounds
/// once and writes the result in place with stmatrix.trans; one thread
/// stores the block with TMA, which clips rows past M and columns past N.
/// User mode stores its product, rounded to the dtype, the same way.
/// Otherwise (f32 user result, userT[u][n][m]) the consumers load the user
/// rows from global memory into registers, the first of them during the
/// last k block, and user mode stores f32 directly.
///
/// Assumes: N % 8 == 0, 16-byte aligned tensors, W row pitch a multiple of
/// 8 elements; K, M, N otherwise arbitrary (TMA fills zeros past the edges).
template <typename T, int MT, int STAGES, bool kYuSmem>
__global__ void __launch_bounds__(kThreads, 1)
    ikboLceSm90aKernel(const __grid_constant__ Sm90aParams p) {
  constexpr int kWStageBytes = MT * 128;
  constexpr int kJBlocks = MT / 8; // n8 blocks of the wgmma accumulator
  constexpr int kStagingBytes = 2 * MT * 128;
  // f32 user result: loads in flight ahead of their use in the epilogue, and
  // how many start during the last k block (register budget permitting).
  constexpr int kPrefetch = kYuSmem || MT >= 256 ? 0
                            : kJBlocks < 8       ? kJBlocks
                                                 : 8;
  constexpr int kPrefetchInK = MT <= 224 ? kPrefetch : 0;

  extern __shared__ uint8_t smemRaw[];
  const uint32_t base = (smemAddr(smemRaw) + 1023u) & ~1023u;
  const uint32_t xBase = base;
  const uint32_t wBase = xBase + STAGES * kATileBytes;
  const uint32_t stagingBase = wBase + STAGES * kWStageBytes;
  const uint32_t barBase = stagingBase + kStagingBytes;
  auto fullBar = [&](int s) { return barBase + 8u * s; };
  auto emptyBar = [&](int s) { return barBase + 8u * (STAGES + s); };
  const uint32_t yuFull = barBase + 8u * (2 * STAGES);
  const uint32_t stagingEmpty = yuFull + 8u;
  const uint32_t tileFull = stagingEmpty + 8u;
  const uint32_t tileEmpty = tileFull + 8u * kRing;
  const uint32_t tileRing = tileEmpty + 8u * kRing;

  const int cluster = p.clusterN * p.clusterM;
  const uint32_t rank = cluster > 1 ? clusterCtaRank() : 0;
  const int nIdx = (int)rank % p.clusterN;
  const int mIdx = (int)rank / p.clusterN;
  const int clusterId = blockIdx.x / cluster;
  const int numClusters = gridDim.x / cluster;
  const int numWork = p.items * p.mGroups * p.nGroups;
  const int wg = threadIdx.x / 128;
  const bool yuFromSmem = kYuSmem && p.addMode;
  // The work sequence: static (w = clusterId, clusterId + numClusters, ...)
  // or, with a counter, dynamic: clusters that start early (beside a user
  // launch still running, say) take more tiles. The leader CTA's producer
  // fetches each index one tile ahead with an atomic and writes it into the
  // ring of every CTA of its cluster; each CTA's producer and consumer warps
  // read it there and release the slot on the leader's tileEmpty. Every
  // cluster fetches until it gets an index past the work, so a launch makes
  // numWork + numClusters fetches, and the last one resets the counter for
  // the next launch (which starts after this grid has completed).
  const bool dynamic = p.tileCounter != nullptr;
  auto ringSlot = [](int j) { return (uint32_t)(j % kRing); };
  auto ringParity = [](int j) { return (uint32_t)((j / kRing) & 1); };

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbarInit(fullBar(s), 1);
      mbarInit(emptyBar(s), 8 * cluster);
    }
    mbarInit(yuFull, 1);
    mbarInit(stagingEmpty, 2);
    for (int r = 0; r < kRing; ++r) {
      mbarInit(tileFull + 8u * r, 1);
      mbarInit(tileEmpty + 8u * r, 9 * cluster); // producer + 8 warps a CTA
    }
    fenceMbarInit();
    // The padded W must be complete before this thread loads it and before
    // the candidate launch (which reads W before its own wait) may start.
    if (p.pdlWaitFirst)
      gridDependencyWait();
    if (p.pdlTrigger)
      gridLaunchDependents();
  }
  if (cluster > 1)
    clusterSync();
  else
    __syncthreads();

  if (wg == 0) {
    //===------------------------------------------------------------------===//
    // Producer
    //===------------------------------------------------------------------===//
    setmaxnregDec<kProducerRegs>();
    if (threadIdx.x == 0) {
      tmaPrefetchMap(&p.tmX);
      tmaPrefetchMap(&p.tmW);
      const int wRows = MT / p.clusterN;
      // W: CTAs with this mIdx; X: CTAs with this nIdx.
      const uint16_t wMask =
          (uint16_t)(((1u << p.clusterN) - 1) << (p.clusterN * mIdx));
      const uint16_t xMask =
          (uint16_t)((1u << nIdx) | (1u << (nIdx + p.clusterN)));
      const int kYu = p.numK - 1 < 2 ? p.numK - 1 : 2;
      bool waitedForUsers = !p.pdlWait;
      int stage = 0;
      uint32_t phase = 0, tilePhase = 0;
      auto fetch = [&](int j) { // the leader: index j into the cluster's rings
        const uint32_t slot = ringSlot(j);
        mbarWait(tileEmpty + 8u * slot, ringParity(j) ^ 1);
        const unsigned v = atomicAdd(p.tileCounter, 1u);
        if (v == (unsigned)(numWork + numClusters - 1))
          atomicExch(p.tileCounter, 0u); // the launch's last fetch
        if (cluster == 1) // no cluster to address: this CTA's ring
          stShared(tileRing + 4u * slot, v);
        for (int r = 0; r < cluster && cluster > 1; ++r)
          stAsyncCluster(tileRing + 4u * slot, v, tileFull + 8u * slot,
                         (uint32_t)r);
      };
      auto take = [&](int j) {
        const uint32_t slot = ringSlot(j);
        if (cluster > 1)
          mbarArriveExpectTx(tileFull + 8u * slot, 4);
        else
          mbarArrive(tileFull + 8u * slot); // after this thread's store
        mbarWait(tileFull + 8u * slot, ringParity(j));
        const uint32_t v = ldShared(tileRing + 4u * slot);
        mbarArriveCluster(tileEmpty + 8u * slot + afterValue(v), 0);
        return (int)v;
      };
      const bool leader = dynamic && rank == 0;
      if (leader)
        fetch(0);
      for (int j = 0, w = dynamic ? take(0) : clusterId; w < numWork;
           ++j, w = dynamic ? take(j) : w + numClusters) {
        if (leader)
          fetch(j + 1);
        const Work t = decodeWork(w, p.mGroups, p.nGroups);
        const int n0 = (t.nGroup * p.clusterN + nIdx) * kTileN;
        const int m0 = (t.mGroup * p.clusterM + mIdx) * MT;
        long long user = -1;
        if (yuFromSmem)
          user =
              loadIndex<IndexLoad::ReadOnly>(p.candToUser, p.index64, t.item);
        // The user rows go in during the third k block, except in the first
        // tile after a user launch still running: there the wait for it
        // comes after the tile's last k block, so that the wait does not
        // stop this tile's main loop (only its epilogue waits).
        const int yuAt = waitedForUsers ? kYu : p.numK - 1;
        for (int kb = 0; kb < p.numK; ++kb) {
          mbarWait(emptyBar(stage), phase ^ 1);
          const uint32_t full = fullBar(stage);
          mbarArriveExpectTx(full, kATileBytes + kWStageBytes);
          const uint32_t x = xBase + stage * kATileBytes;
          if (p.clusterM > 1) {
            tmaLoad3dMulticast(x + mIdx * kAHalfBytes, &p.tmX, n0 + 64 * mIdx,
                               kb * kBlockK, t.item, full, xMask);
          } else {
            tmaLoad3d(x, &p.tmX, n0, kb * kBlockK, t.item, full);
            tmaLoad3d(x + kAHalfBytes, &p.tmX, n0 + 64, kb * kBlockK, t.item,
                      full);
          }
          const uint32_t wDst =
              wBase + stage * kWStageBytes + nIdx * wRows * 128;
          if (p.clusterN > 1)
            tmaLoad2dMulticast(wDst, &p.tmW, kb * kBlockK, m0 + nIdx * wRows,
                               full, wMask);
          else
            tmaLoad2d(wDst, &p.tmW, kb * kBlockK, m0, full);
          if (++stage == STAGES) {
            stage = 0;
            phase ^= 1;
          }
          if (yuFromSmem && kb == yuAt) {
            // The user rows of this tile, into the staging buffer once the
            // previous tile's stores have read it out.
            if (!waitedForUsers) {
              gridDependencyWait();
              waitedForUsers = true;
            }
            mbarWait(stagingEmpty, tilePhase ^ 1);
            if (user >= 0 && user < p.users) {
              mbarArriveExpectTx(yuFull, kStagingBytes);
              tmaLoad3d(stagingBase, &p.tmY, n0, m0, (int)user, yuFull);
              tmaLoad3d(stagingBase + MT * 128, &p.tmY, n0 + 64, m0, (int)user,
                        yuFull);
            } else {
              mbarArrive(yuFull); // nothing to add
            }
            tilePhase ^= 1;
          }
        }
      }
    }
    __syncwarp();
  } else {
    //===------------------------------------------------------------------===//
    // Consumers
    //===------------------------------------------------------------------===//
    setmaxnregInc<kConsumerRegs>();
    // Warp-uniform by construction; the shuffle lets the compiler keep what
    // derives from it (shared addresses, descriptors) in uniform registers.
    const int cw = __shfl_sync(0xffffffffu, wg - 1, 0);
    const int tid = threadIdx.x - 128 * wg;
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int q = lane / 8;
    const int i8 = lane % 8;
    const uint32_t staging = stagingBase + cw * MT * 128;
    float acc[MT / 2];
    int stage = 0;
    uint32_t phase = 0, tilePhase = 0;
    bool waitedForUsers = !p.pdlWait || kYuSmem;
    bool storePending = false;
    auto take = [&](int j) {
      const uint32_t slot = ringSlot(j);
      mbarWait(tileFull + 8u * slot, ringParity(j));
      const uint32_t v = ldShared(tileRing + 4u * slot);
      __syncwarp();
      if (lane == 0)
        mbarArriveCluster(tileEmpty + 8u * slot + afterValue(v), 0);
      return (int)v;
    };

    for (int j = 0, w = dynamic ? take(0) : clusterId; w < numWork;
         ++j, w = dynamic ? take(j) : w + numClusters) {
      const Work t = decodeWork(w, p.mGroups, p.nGroups);
      const int n0 = (t.nGroup * p.clusterN + nIdx) * kTileN;
      const int m0 = (t.mGroup * p.clusterM + mIdx) * MT;
      // This thread's first accumulator row and column in userT (f32).
      const long long nRow = n0 + 64 * cw + 16 * warp + lane / 4;
      const int mCol = m0 + 2 * (lane % 4);

      long long user = t.item;
      bool addUser = false;
      if (p.addMode) {
        user = loadIndex<IndexLoad::ReadOnly>(p.candToUser, p.index64, t.item);
        addUser = user >= 0 && user < p.users;
        if (!addUser && tid == 0 && cw == 0 && t.mGroup == 0 && mIdx == 0 &&
            p.errors)
          embrtDeviceRecordError(p.errors, EMBRT_DEVERR_BAD_CAND_TO_USER, -1,
                                 -1, t.item, user, p.users);
      }
      const float *yRow =
          p.userT + ((addUser ? user : 0) * p.nPad + nRow) * p.mPad + mCol;
      float2 y[kJBlocks][2];

      // One k block: wait for its stage, issue its 4 wgmma steps; release
      // the previous block's stage once that block's group is done.
      int prevStage = 0;
      auto mma = [&](int kb) {
        mbarWait(fullBar(stage), phase);
        const uint32_t x = xBase + stage * kATileBytes + cw * kAHalfBytes;
        const uint32_t wt = wBase + stage * kWStageBytes;
        wgmmaFence();
        // The step descriptors as offsets from the block's: one add each,
        // in the uniform datapath.
        const uint64_t daBlock = wgmmaDescSw128(x, kAHalfBytes, 1024);
        const uint64_t dbBlock = wgmmaDescSw128(wt, 16, 1024);
#pragma unroll
        for (int kk = 0; kk < kBlockK / 16; ++kk) {
          // X: 16 k rows of 128 B per step; W: 32 B further along each row.
          const uint64_t da = daBlock + ((kk * 2048) >> 4);
          const uint64_t db = dbBlock + ((kk * 32) >> 4);
          wgmmaSS<T, MT, 1, 0>(acc, da, db, (kb | kk) != 0);
        }
        wgmmaCommit();
        // Once the previous tile's store has read the staging buffer out,
        // the producer may load this tile's user rows into it.
        if (kb == 0 && yuFromSmem && storePending && tid == 0) {
          bulkWaitRead<0>();
          mbarArrive(stagingEmpty);
        }
      };
      auto release = [&](int kb) {
        if (kb > 0) {
          if (cluster > 1) {
            if (lane < cluster)
              mbarArriveCluster(emptyBar(prevStage), lane);
          } else if (lane == 0) {
            mbarArrive(emptyBar(prevStage));
          }
        }
        prevStage = stage;
        if (++stage == STAGES) {
          stage = 0;
          phase ^= 1;
        }
      };
      const int lastK = p.numK - 1;
      for (int kb = 0; kb < lastK; ++kb) {
        mma(kb);
        wgmmaWait<1>();
        release(kb);
      }
      mma(lastK);
      if (!waitedForUsers) {
        gridDependencyWait();
        waitedForUsers = true;
      }
      if (addUser && !kYuSmem) {
        // f32 user result: the first loads overlap the last k block.
#pragma unroll
        for (int j = 0; j < kPrefetchInK; ++j) {
          y[j][0] = __ldg((const float2 *)(yRow + 8 * j));
          y[j][1] = __ldg((const float2 *)(yRow + 8 * p.mPad + 8 * j));
        }
      }
      wgmmaWait<1>();
      release(lastK);
      wgmmaWait<0>();
      fenceOperands(acc);
      if (cluster > 1) {
        if (lane < cluster)
          mbarArriveCluster(emptyBar(prevStage), lane);
      } else if (lane == 0) {
        mbarArrive(emptyBar(prevStage));
      }

      if (!p.addMode && !kYuSmem) {
        // User mode, f32 result: straight to userT[item] (inside padding).
        float *out = p.userT + (user * p.nPad + nRow) * p.mPad + mCol;
#pragma unroll
        for (int j = 0; j < kJBlocks; ++j) {
          *(float2 *)(out + 8 * j) = make_float2(acc[4 * j], acc[4 * j + 1]);
          *(float2 *)(out + 8 * p.mPad + 8 * j) =
              make_float2(acc[4 * j + 2], acc[4 * j + 3]);
        }
        continue;
      }

      // The warpgroup's [MT m][64 n] block goes through the staging buffer
      // (128-byte swizzle). Lane 8q + i8 addresses row i8 of matrix q of an
      // x4 pair: n8 block j + q/2, columns 16 warp + 8 (q % 2); rows are m,
      // 16-byte chunks are n.
      if (yuFromSmem) {
        mbarWait(yuFull, tilePhase); // user rows arrived (or none needed)
        tilePhase ^= 1;
      } else {
        if (tid == 0)
          bulkWaitRead<0>(); // the previous store has left the buffer
        namedBarrierSync(1 + cw, 128);
        if (addUser) {
#pragma unroll
          for (int j = kPrefetchInK; j < kPrefetch; ++j) {
            y[j][0] = __ldg((const float2 *)(yRow + 8 * j));
            y[j][1] = __ldg((const float2 *)(yRow + 8 * p.mPad + 8 * j));
          }
        }
      }
      const float2 zero = make_float2(0.f, 0.f);
#pragma unroll
      for (int j = 0; j < kJBlocks; j += 2) {
        const int row = 8 * (j + (q >> 1)) + i8;
        const int chunk = (2 * warp + (q & 1)) ^ i8;
        const uint32_t addr = staging + row * 128 + chunk * 16;
        uint32_t r[4];
        if (kYuSmem) {
          // r[2d] / r[2d+1]: user values at this thread's accumulator
          // positions of n8 block j + d, rows 0-7 / 8-15.
          uint32_t yu[4] = {0, 0, 0, 0};
          if (addUser)
            ldmatrixX4Trans(addr, yu);
#pragma unroll
          for (int d = 0; d < 2; ++d) {
            const int jd = j + d;
            const float2 y0 = unpack2<T>(yu[2 * d]);
            const float2 y1 = unpack2<T>(yu[2 * d + 1]);
            r[2 * d] = pack2<T>(acc[4 * jd] + y0.x, acc[4 * jd + 1] + y0.y);
            r[2 * d + 1] =
                pack2<T>(acc[4 * jd + 2] + y1.x, acc[4 * jd + 3] + y1.y);
          }
        } else {
          if (addUser) {
#pragma unroll
            for (int d = 0; d < 2; ++d) {
              const int jn = j + d + kPrefetch;
              if (jn < kJBlocks) {
                y[jn][0] = __ldg((const float2 *)(yRow + 8 * jn));
                y[jn][1] = __ldg((const float2 *)(yRow + 8 * p.mPad + 8 * jn));
              }
            }
          }
#pragma unroll
          for (int d = 0; d < 2; ++d) {
            const int jd = j + d;
            const float2 y0 = addUser ? y[jd][0] : zero;
            const float2 y1 = addUser ? y[jd][1] : zero;
            r[2 * d] = pack2<T>(acc[4 * jd] + y0.x, acc[4 * jd + 1] + y0.y);
            r[2 * d + 1] =
                pack2<T>(acc[4 * jd + 2] + y1.x, acc[4 * jd + 3] + y1.y);
          }
        }
        stmatrixX4Trans(addr, r[0], r[1], r[2], r[3]);
      }
      fenceProxyAsync();
      namedBarrierSync(1 + cw, 128);
      if (tid == 0) {
        tmaStore3d(&p.tmOut, staging, n0 + 64 * cw, m0, t.item);
        bulkCommit();
      }
      storePending = true;
    }
    if (tid == 0)
      bulkWaitAll();
  }

  // No CTA may leave while a cluster peer can still arrive on its barriers
  // or multicast into its shared memory.
  if (cluster > 1)
    clusterSync();
}

/// One W to copy with a 16-byte row pitch: [rows][cols] read `srcStride`
/// elements a row apart, written `pitch` a row apart with zeros past cols.
struct PadRowsJob {
  const uint16_t *src;
  uint16_t *dst;
  long long cols, srcStride, pitch;
};

/// Copies the W operands that TMA cannot read in place (blockIdx.z picks the
/// job) so that TMA sees 16-byte row strides. A thread writes one 16-byte
/// chunk (8 elements) of a row: grid (ceil(max pitch / 8 / 256), rows
/// (grid-stride), jobs).
__global__ void ikboLcePadRowsKernel(const PadRowsJob j0, const PadRowsJob j1,
                                     long long rows) {
  // The user launch may start now; it waits for this grid before loading W.
  gridLaunchDependents();
  const PadRowsJob &j = blockIdx.z == 0 ? j0 : j1;
  const long long c0 = 8 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);
  if (c0 >= j.pitch)
    return;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    const uint16_t *src = j.src + r * j.srcStride;
    alignas(16) uint16_t v[8];
#pragma unroll
    for (int e = 0; e < 8; ++e)
      v[e] = c0 + e < j.cols ? src[c0 + e] : (uint16_t)0;
    *(uint4 *)(j.dst + r * j.pitch + c0) = *(const uint4 *)v;
  }
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

typedef CUresult (*EncodeTiledFn)(CUtensorMap *, CUtensorMapDataType,
                                  cuuint32_t, void *, const cuuint64_t *,
                                  const cuuint64_t *, const cuuint32_t *,
                                  const cuuint32_t *, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion,
                                  CUtensorMapFloatOOBfill);

/// cuTensorMapEncodeTiled through the runtime's driver entry point, so that
/// nothing links libcuda directly.
EncodeTiledFn encodeTiledFn(cudaError_t *err) {
  static EncodeTiledFn fn = nullptr;
  *err = cudaSuccess;
  if (!fn) {
    void *ptr = nullptr;
    cudaDriverEntryPointQueryResult q;
    *err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr,
                                            12000, cudaEnableDefault, &q);
    if (*err == cudaSuccess && q == cudaDriverEntryPointSuccess)
      fn = (EncodeTiledFn)ptr;
  }
  return fn;
}

/// A 2D or 3D 16-bit tensor map. dims/strides are innermost first; strides
/// in bytes, for dims 1.. only.
embrtStatus encodeMap(embrtLaunchEnv *env, CUtensorMap *map, embrtDtype dtype,
                      const void *ptr, int rank, const uint64_t *dims,
                      const uint64_t *strides, const uint32_t *box,
                      CUtensorMapSwizzle swizzle, const char *what) {
  cudaError_t err;
  EncodeTiledFn fn = encodeTiledFn(&err);
  if (!fn)
    return embrtLaunchError(env, EMBRT_DEVICE_ERROR,
                            "ikbo_lce: cuTensorMapEncodeTiled unavailable (%s)",
                            cudaGetErrorString(err));
  cuuint64_t d[3];
  cuuint64_t s[2];
  cuuint32_t b[3], e[3] = {1, 1, 1};
  for (int i = 0; i < rank; ++i) {
    d[i] = dims[i];
    b[i] = box[i];
    if (i > 0)
      s[i - 1] = strides[i - 1];
  }
  CUresult r =
      fn(map,
         dtype == EMBRT_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                             : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
         (cuuint32_t)rank, const_cast<void *>(ptr), d, s, b, e,
         CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
         CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return embrtLaunchError(env, EMBRT_DEVICE_ERROR,
                            "ikbo_lce: cuTensorMapEncodeTiled(%s) failed (%d)",
                            what, (int)r);
  return EMBRT_OK;
}

/// Launches both modes of one instantiation: the user product, then the
/// candidate product (programmatically dependent on it when the
/// configuration asks, so that its first tiles' main loops overlap the user
/// launch's tail; it waits for the user result before reading it).
template <typename T, int MT, int STAGES, bool kYuSmem>
embrtStatus launchInstance(embrtLaunchEnv *env, const IkboLceConfig *cfg,
                           Sm90aParams *user, Sm90aParams *cand, int userWork,
                           int candWork, bool padded) {
  auto kernel = ikboLceSm90aKernel<T, MT, STAGES, kYuSmem>;
  const int smem = (int)ikboLceSm90aSmemBytes(cfg);
  // Attributes and resident-cluster counts are per instantiation; the counts
  // are indexed by cluster size (1, 2 or 4).
  static int ready = 0;
  static int maxClusters[5] = {0, 0, 0, 0, 0};
  cudaError_t err;
  if (!ready) {
    err = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess)
      return embrtCudaCheck(env, err, "ikbo_lce: cudaFuncSetAttribute");
    ready = 1;
  }
  const int cl = cfg->clusterN * cfg->clusterM;
  cudaLaunchConfig_t lc = {};
  cudaLaunchAttribute attr[2];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cl;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[1].val.programmaticStreamSerializationAllowed = 1;
  lc.blockDim = dim3(kThreads, 1, 1);
  lc.dynamicSmemBytes = smem;
  lc.stream = (cudaStream_t)env->stream;
  lc.attrs = attr;
  lc.numAttrs = 1;
  if (!maxClusters[cl]) {
    int n = 0;
    lc.gridDim = dim3(cl * (env->smCount / cl), 1, 1);
    err = cudaOccupancyMaxActiveClusters(&n, kernel, &lc);
    if (err != cudaSuccess || n <= 0) {
      (void)cudaGetLastError();
      n = env->smCount / cl;
    }
    maxClusters[cl] = n > 0 ? n : 1;
  }
  const bool pdl = cfg->pdl && userWork > 0;
  user->pdlTrigger = pdl;
  cand->pdlWait = pdl;
  // After the W padding launch, the user launch overlaps its tail too.
  const bool afterPad = cfg->pdl && padded && userWork > 0;
  user->pdlWaitFirst = afterPad;
  Sm90aParams *runs[2] = {user, cand};
  const int work[2] = {userWork, candWork};
  for (int i = 0; i < 2; ++i) {
    if (work[i] == 0)
      continue;
    const int clusters = work[i] < maxClusters[cl] ? work[i] : maxClusters[cl];
    lc.gridDim = dim3(clusters * cl, 1, 1);
    lc.numAttrs = (i == 1 && pdl) || (i == 0 && afterPad) ? 2 : 1;
    err = cudaLaunchKernelEx(&lc, kernel, *runs[i]);
    if (err == cudaSuccess)
      err = cudaGetLastError();
    if (err != cudaSuccess)
      return embrtCudaCheck(env, err,
                            i == 0 ? "ikbo_lce: user product launch"
                                   : "ikbo_lce: candidate product launch");
  }
  return EMBRT_OK;
}

template <typename T>
embrtStatus dispatchInstance(embrtLaunchEnv *env, const IkboLceConfig *cfg,
                             Sm90aParams *user, Sm90aParams *cand, int userWork,
                             int candWork, bool padded) {
#define IKBO_INSTANCE(mt, st, f32)                                             \
  if (cfg->mTile == mt && cfg->stages == st && cfg->userF32 == f32)            \
    return launchInstance<T, mt, st, !f32>(env, cfg, user, cand, userWork,     \
                                           candWork, padded);
  IKBO_INSTANCE(64, 8, 0)
  IKBO_INSTANCE(128, 6, 0)
  IKBO_INSTANCE(192, 4, 0)
  IKBO_INSTANCE(224, 3, 0)
  IKBO_INSTANCE(224, 3, 1)
  IKBO_INSTANCE(256, 3, 0)
#undef IKBO_INSTANCE
  return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                          "ikbo_lce: configuration %s has no sm90a kernel",
                          cfg->name);
}

} // namespace

embrtStatus ikboLceLaunchSm90a(embrtLaunchEnv *env, const embrtIkboLceArgs *a,
                               const IkboLceLayout *l, int config) {
  const IkboLceConfig *cfg = &kIkboLceConfigs[config];
  cudaStream_t stream = (cudaStream_t)env->stream;
  uint8_t *ws = (uint8_t *)a->workspace;
  embrtStatus st;

  // W with a 16-byte row pitch where its K or row stride is not a multiple
  // of 8 (one launch for both); else W is read in place.
  const void *wUser = a->wUser, *wCand = a->wCand;
  int64_t kUserPitch = a->wUserStride ? a->wUserStride : a->kUser;
  int64_t kCandPitch = a->wCandStride ? a->wCandStride : a->kCand;
  PadRowsJob jobs[2];
  int numJobs = 0;
  long long widest = 0;
  if (l->kUserPitch) {
    jobs[numJobs++] = {(const uint16_t *)a->wUser,
                       (uint16_t *)(ws + l->wUserOffset), a->kUser, kUserPitch,
                       l->kUserPitch};
    wUser = ws + l->wUserOffset;
    kUserPitch = l->kUserPitch;
    widest = kUserPitch;
  }
  if (l->kCandPitch) {
    jobs[numJobs++] = {(const uint16_t *)a->wCand,
                       (uint16_t *)(ws + l->wCandOffset), a->kCand, kCandPitch,
                       l->kCandPitch};
    wCand = ws + l->wCandOffset;
    kCandPitch = l->kCandPitch;
    widest = kCandPitch > widest ? kCandPitch : widest;
  }
  if (numJobs) {
    dim3 grid((unsigned)ikboLceCeilDiv(widest, 8 * 256),
              (unsigned)(a->m < 65535 ? a->m : 65535), (unsigned)numJobs);
    ikboLcePadRowsKernel<<<grid, 256, 0, stream>>>(
        jobs[0], numJobs > 1 ? jobs[1] : jobs[0], a->m);
    embrtStatus padStatus =
        embrtCudaCheck(env, cudaGetLastError(), "ikbo_lce: W padding launch");
    if (padStatus != EMBRT_OK)
      return padStatus;
  }

  const int64_t n = a->n, m = a->m;
  const int nTiles = (int)ikboLceCeilDiv(n, kTileN);
  const int mTiles = (int)ikboLceCeilDiv(m, cfg->mTile);
  Sm90aParams pu, pc;
  memset(&pu, 0, sizeof(pu));
  pu.userT = (float *)(ws + l->userResultOffset);
  pu.candToUser = a->candToUser;
  pu.errors = env->deviceErrors;
  pu.nPad = l->nPad;
  pu.mPad = l->mPad;
  pu.users = (int)a->numUsers;
  pu.mGroups = mTiles / cfg->clusterM;
  pu.nGroups = nTiles / cfg->clusterN;
  pu.clusterN = cfg->clusterN;
  pu.clusterM = cfg->clusterM;
  pu.index64 = a->indexDtype == EMBRT_I64;
  pc = pu;
  pu.items = (int)a->numUsers;
  pu.numK = (int)ikboLceCeilDiv(a->kUser, kBlockK);
  pu.addMode = 0;
  pc.items = (int)a->batchSize;
  pc.numK = (int)ikboLceCeilDiv(a->kCand, kBlockK);
  pc.addMode = 1;
  pc.tileCounter = env->scheduleCounter; // null: the static schedule

  const uint32_t xBox[3] = {64, 64, 1};
  const uint32_t wBox[2] = {64, (uint32_t)(cfg->mTile / cfg->clusterN)};
  // A consumer warpgroup's [mTile m][64 n] block of out or of the user
  // result, 128-byte swizzled like the staging buffer.
  const uint32_t oBox[3] = {64, (uint32_t)cfg->mTile, 1};
  const CUtensorMapSwizzle sw128 = CU_TENSOR_MAP_SWIZZLE_128B;
  {
    const uint64_t dims[3] = {(uint64_t)n, (uint64_t)a->kUser,
                              (uint64_t)a->numUsers};
    const uint64_t strides[2] = {(uint64_t)n * 2, (uint64_t)(a->kUser * n * 2)};
    if ((st = encodeMap(env, &pu.tmX, a->dtype, a->user, 3, dims, strides, xBox,
                        sw128, "user")))
      return st;
  }
  {
    const uint64_t dims[3] = {(uint64_t)n, (uint64_t)a->kCand,
                              (uint64_t)a->batchSize};
    const uint64_t strides[2] = {(uint64_t)n * 2, (uint64_t)(a->kCand * n * 2)};
    if ((st = encodeMap(env, &pc.tmX, a->dtype, a->cand, 3, dims, strides, xBox,
                        sw128, "cand")))
      return st;
  }
  {
    const uint64_t dims[2] = {(uint64_t)a->kUser, (uint64_t)m};
    const uint64_t strides[1] = {(uint64_t)kUserPitch * 2};
    if ((st = encodeMap(env, &pu.tmW, a->dtype, wUser, 2, dims, strides, wBox,
                        sw128, "wUser")))
      return st;
  }
  {
    const uint64_t dims[2] = {(uint64_t)a->kCand, (uint64_t)m};
    const uint64_t strides[1] = {(uint64_t)kCandPitch * 2};
    if ((st = encodeMap(env, &pc.tmW, a->dtype, wCand, 2, dims, strides, wBox,
                        sw128, "wCand")))
      return st;
  }
  {
    const uint64_t dims[3] = {(uint64_t)n, (uint64_t)m, (uint64_t)a->batchSize};
    const uint64_t strides[2] = {(uint64_t)n * 2, (uint64_t)(m * n * 2)};
    if ((st = encodeMap(env, &pc.tmOut, a->dtype, a->output, 3, dims, strides,
                        oBox, sw128, "output")))
      return st;
  }
  if (!cfg->userF32 && a->numUsers > 0) {
    // The user result in the dtype, [U][M][N] at the start of the
    // user-result region: user mode stores it, add mode loads it.
    const uint64_t dims[3] = {(uint64_t)n, (uint64_t)m, (uint64_t)a->numUsers};
    const uint64_t strides[2] = {(uint64_t)n * 2, (uint64_t)(m * n * 2)};
    if ((st = encodeMap(env, &pu.tmOut, a->dtype, pu.userT, 3, dims, strides,
                        oBox, sw128, "user result")))
      return st;
    pc.tmY = pu.tmOut;
  }

  const int64_t perItem = (int64_t)pu.mGroups * pu.nGroups;
  if (a->batchSize * perItem > INT32_MAX || a->numUsers * perItem > INT32_MAX)
    return embrtLaunchError(
        env, EMBRT_UNSUPPORTED,
        "ikbo_lce: %lld tiles exceed the sm90a tile counter",
        (long long)(a->batchSize * perItem));
  const int userWork = (int)(a->numUsers * perItem);
  const int candWork = (int)(a->batchSize * perItem);
  if (a->dtype == EMBRT_BF16)
    return dispatchInstance<__nv_bfloat16>(env, cfg, &pu, &pc, userWork,
                                           candWork, numJobs > 0);
  return dispatchInstance<__half>(env, cfg, &pu, &pc, userWork, candWork,
                                  numJobs > 0);
}
