//===- kernels/input_dist.cu - The input dist on CUDA ----------*- CUDA -*-===//
//
// emb.bucketize and emb.lengths_to_offsets, the local ops of a sharded
// lookup's input dist (include/emb/runtime.h gives their contracts; the CPU
// reference is runtime/cpu/input_dist.c).
//
// bucketize, in three kernels and a CUB scan, all on env->stream:
//   1. bucketizeCountKernel: one warp a (slot, bag) counts the bag's ids
//      that fall in the slot and writes lengths[s*B + b] and a 64-bit copy;
//   2. cub::DeviceScan::ExclusiveSum over the S*B + 1 counts (the last one
//      0) gives each (slot, bag) its first position in `ids` and the total;
//   3. bucketizeScatterKernel: the same warps write their ids (minus the
//      slot's first row) at those positions, in bag order (a ballot and a
//      prefix count a chunk of 32), with their per-sample weights;
//   4. bucketizeRankCountsKernel: counts[r] is the difference of the
//      positions at the ends of rank r's block of slots.
// The slots' metadata (and each rank's first slot) is staged through host
// memory into the workspace, as the TBE forward stages its features'.
//
// lengths_to_offsets: a kernel widens the lengths to 64 bits (a last 0), a
// CUB exclusive scan makes the offsets, and a kernel narrows them to the
// lengths' type and takes the block sums as differences of offsets.
//
// Data errors go to the device error record (embrtSynchronize reports
// them): a bag whose offsets are out of order or outside 0..N
// (EMBRT_DEVERR_BAD_OFFSETS; the bag is taken as empty), a negative length
// or an i32 offset past INT32_MAX (EMBRT_DEVERR_BAD_LENGTHS; the length
// counts as 0, the offset is clamped). Every output is written whatever the
// data hold, and nothing is written past `ids`' capacity: a bag gives a slot
// at most its own ids, which the capacity (N times the depth) covers.
//
//===----------------------------------------------------------------------===//

#include "kernels/common/device_errors.cuh"
#include "kernels/common/index_load.cuh"
#include "kernels/launch.h"

#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>

#define TRY(expr)                                                              \
  do {                                                                         \
    embrtStatus tryStatus_ = (expr);                                           \
    if (tryStatus_ != EMBRT_OK)                                                \
      return tryStatus_;                                                       \
  } while (0)

namespace {

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

/// One slot as the kernels read it: its rank, feature and rows, and the rows
/// its feature's slots cover together ([lo, hi): where ids are clamped).
struct SlotMeta {
  long long rank, feature, begin, end, lo, hi;
};

using embrt::IndexLoad;
using embrt::loadIndex;

__device__ __forceinline__ void storeIndex(void *p, bool is64, long long i,
                                           long long v) {
  if (is64)
    static_cast<long long *>(p)[i] = v;
  else
    static_cast<int *>(p)[i] = (int)v;
}

/// The bag's ids [first, last), taken as empty (and recorded) when its
/// offsets are out of order or outside 0..N.
__device__ __forceinline__ void bagRange(const void *offsets, bool is64,
                                         long long f, long long b, long long B,
                                         long long N, bool record,
                                         embrtDeviceErrors *errors,
                                         long long *first, long long *last) {
  long long lo = loadIndex<IndexLoad::Plain>(offsets, is64, f * B + b);
  long long hi = loadIndex<IndexLoad::Plain>(offsets, is64, f * B + b + 1);
  if (lo >= 0 && lo <= hi && hi <= N) {
    *first = lo;
    *last = hi;
    return;
  }
  if (record)
    embrtDeviceRecordError(errors, EMBRT_DEVERR_BAD_OFFSETS, (int)f, b, -1,
                           lo < 0 || lo > N ? lo : hi, N);
  *first = *last = 0;
}

/// Id `id` as slot `m`'s shard numbers it: id - begin, saturated at the
/// least value of the index type (as runtime/cpu/input_dist.c), compared
/// before subtracting so that an id near INT64_MIN cannot overflow.
__device__ __forceinline__ long long localId(const SlotMeta &m, bool is64,
                                             long long id) {
  long long least = is64 ? INT64_MIN : INT32_MIN;
  return id < least + m.begin ? least : id - m.begin;
}

/// Whether id `id` of a bag goes to slot `m`.
__device__ __forceinline__ bool inSlot(const SlotMeta &m, long long id) {
  long long c = id < m.lo ? m.lo : id > m.hi - 1 ? m.hi - 1 : id;
  return c >= m.begin && c < m.end;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/*
 * bucketizeCountKernel: one warp per (slot s, bag b) pair, w = s * B + b,
 * grid-stride over the S * B pairs; CTAs of EMBRT_CUDA_THREADS threads. The
 * lanes stride over the bag's ids and count those in the slot; lane 0
 * writes lengths[w] and counts[w] (64-bit, for the scan). The slot's first
 * warp of a feature's bag records bad offsets (any warp of the bag may: the
 * record keeps the first). No shared memory.
 */
__global__ void bucketizeCountKernel(
    const void *__restrict__ indices, const void *__restrict__ offsets,
    bool is64, long long N, long long B, long long S,
    const SlotMeta *__restrict__ slots, long long *__restrict__ counts,
    void *__restrict__ lengths, embrtDeviceErrors *errors) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x / 32);
  for (long long w = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
       w < S * B; w += warps) {
    const SlotMeta m = slots[w / B];
    long long first, last;
    bagRange(offsets, is64, m.feature, w % B, B, N, lane == 0, errors, &first,
             &last);
    long long n = 0;
    for (long long i = first + lane; i < last; i += 32)
      n += inSlot(m, loadIndex<IndexLoad::Plain>(indices, is64, i));
    for (int d = 16; d > 0; d /= 2)
      n += __shfl_down_sync(0xffffffffu, n, d);
    if (lane == 0) {
      counts[w] = n;
      storeIndex(lengths, is64, w, n);
    }
  }
}

/*
 * bucketizeScatterKernel<W>: the warps of bucketizeCountKernel again; warp w
 * writes its slot's ids of its bag from position pos[w] on, in the bag's
 * order: a chunk of 32 ids at a time, each lane one id, a ballot of those
 * in the slot and the count of set bits below the lane give its place.
 * Weights (W: their element, 2 or 4 bytes; unused without weights) go to
 * the same places. No shared memory.
 */
template <typename Wt>
__global__ void bucketizeScatterKernel(
    const void *__restrict__ indices, const void *__restrict__ offsets,
    bool is64, long long N, long long B, long long S,
    const SlotMeta *__restrict__ slots, const long long *__restrict__ pos,
    void *__restrict__ ids, const Wt *__restrict__ psw, Wt *__restrict__ out) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x / 32);
  for (long long w = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
       w < S * B; w += warps) {
    const SlotMeta m = slots[w / B];
    long long first, last;
    bagRange(offsets, is64, m.feature, w % B, B, N, false, nullptr, &first,
             &last);
    long long at = pos[w];
    for (long long chunk = first; chunk < last; chunk += 32) {
      long long i = chunk + lane;
      long long id =
          i < last ? loadIndex<IndexLoad::Plain>(indices, is64, i) : 0;
      bool mine = i < last && inSlot(m, id);
      unsigned mask = __ballot_sync(0xffffffffu, mine);
      if (mine) {
        long long k = at + __popc(mask & ((1u << lane) - 1u));
        storeIndex(ids, is64, k, localId(m, is64, id));
        if (psw)
          out[k] = psw[i];
      }
      at += __popc(mask);
    }
  }
}

/*
 * bucketizeRankCountsKernel: one thread per rank r (grid-stride):
 * counts[r] = pos[rankFirst[r + 1] * B] - pos[rankFirst[r] * B], rank r's
 * slots being [rankFirst[r], rankFirst[r + 1]). No shared memory.
 */
__global__ void bucketizeRankCountsKernel(const long long *__restrict__ pos,
                                          const long long *__restrict__ first,
                                          long long B, long long W,
                                          long long *__restrict__ counts) {
  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < W;
       r += (long long)gridDim.x * blockDim.x)
    counts[r] = pos[first[r + 1] * B] - pos[first[r] * B];
}

/*
 * widenLengthsKernel: one thread per entry of wide[0..L] (grid-stride):
 * wide[i] = lengths[i], a negative one recorded and taken as 0; wide[L] = 0.
 * No shared memory.
 */
__global__ void widenLengthsKernel(const void *__restrict__ lengths, bool is64,
                                   long long L, long long *__restrict__ wide,
                                   embrtDeviceErrors *errors) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i <= L;
       i += (long long)gridDim.x * blockDim.x) {
    long long n = i < L ? loadIndex<IndexLoad::Plain>(lengths, is64, i) : 0;
    if (n < 0) {
      embrtDeviceRecordError(errors, EMBRT_DEVERR_BAD_LENGTHS, -1, -1, i, n, 0);
      n = 0;
    }
    wide[i] = n;
  }
}

/*
 * narrowOffsetsKernel: one thread per entry of offsets[0..L] and of
 * blockSums[0..K) (grid-stride over the larger): offsets[i] = scanned[i]
 * (an i32 offset past INT32_MAX recorded and clamped), blockSums[k] =
 * scanned[(k + 1) * L/K] - scanned[k * L/K]. No shared memory.
 */
__global__ void narrowOffsetsKernel(const long long *__restrict__ scanned,
                                    bool is64, long long L, long long K,
                                    void *__restrict__ offsets,
                                    long long *__restrict__ blockSums,
                                    embrtDeviceErrors *errors) {
  long long n = L + 1 > K ? L + 1 : K, per = L / K;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    if (i <= L) {
      long long v = scanned[i];
      if (!is64 && v > INT32_MAX) {
        embrtDeviceRecordError(errors, EMBRT_DEVERR_BAD_LENGTHS, -1, -1, i - 1,
                               v, INT32_MAX);
        v = INT32_MAX;
      }
      storeIndex(offsets, is64, i, v);
    }
    if (i < K)
      blockSums[i] = scanned[(i + 1) * per] - scanned[i * per];
  }
}

//===----------------------------------------------------------------------===//
// Workspace layouts
//===----------------------------------------------------------------------===//

size_t alignUp(size_t x) { return (x + 255) & ~(size_t)255; }

/// CUB's temporary storage for an exclusive sum of `n` 64-bit items.
embrtStatus scanBytes(embrtLaunchEnv *env, long long n, size_t *bytes) {
  *bytes = 0;
  return embrtCudaCheck(
      env,
      cub::DeviceScan::ExclusiveSum(nullptr, *bytes, (const long long *)nullptr,
                                    (long long *)nullptr, (int64_t)n,
                                    static_cast<cudaStream_t>(env->stream)),
      "input dist: cub::DeviceScan size query");
}

/// bucketize: [slots: S SlotMeta][rankFirst: W + 1][counts: S*B + 1]
/// [pos: S*B + 1][CUB], each 256-byte aligned.
struct BucketizeLayout {
  size_t slots, rankFirst, counts, pos, cub, cubBytes, total;
};

embrtStatus bucketizeLayout(embrtLaunchEnv *env, const embrtBucketizeArgs *a,
                            BucketizeLayout *l) {
  long long pairs = a->numSlots * a->batchSize;
  size_t at = 0;
  l->slots = at;
  at += alignUp(sizeof(SlotMeta) * (size_t)a->numSlots);
  l->rankFirst = at;
  at += alignUp(sizeof(long long) * (size_t)(a->worldSize + 1));
  l->counts = at;
  at += alignUp(sizeof(long long) * (size_t)(pairs + 1));
  l->pos = at;
  at += alignUp(sizeof(long long) * (size_t)(pairs + 1));
  TRY(scanBytes(env, pairs + 1, &l->cubBytes));
  l->cub = at;
  at += alignUp(l->cubBytes);
  l->total = at;
  return EMBRT_OK;
}

/// lengths_to_offsets: [wide: L + 1][scanned: L + 1][CUB].
struct OffsetsLayout {
  size_t wide, scanned, cub, cubBytes, total;
};

embrtStatus offsetsLayout(embrtLaunchEnv *env,
                          const embrtLengthsToOffsetsArgs *a,
                          OffsetsLayout *l) {
  size_t at = 0, n = (size_t)a->numLengths + 1;
  l->wide = at;
  at += alignUp(sizeof(long long) * n);
  l->scanned = at;
  at += alignUp(sizeof(long long) * n);
  TRY(scanBytes(env, (long long)n, &l->cubBytes));
  l->cub = at;
  at += alignUp(l->cubBytes);
  l->total = at;
  return EMBRT_OK;
}

/// Grid of warps-per-item kernels: `items` warps of 32 threads.
unsigned warpGrid(const embrtLaunchEnv *env, long long items) {
  return embrtCudaGridSize(env, items * 32);
}

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

extern "C" embrtStatus
embrtCudaBucketizeWorkspaceSize(embrtLaunchEnv *env,
                                const embrtBucketizeArgs *args, size_t *bytes) {
  BucketizeLayout l;
  TRY(bucketizeLayout(env, args, &l));
  *bytes = l.total;
  return EMBRT_OK;
}

extern "C" embrtStatus embrtCudaLaunchBucketize(embrtLaunchEnv *env,
                                                const embrtBucketizeArgs *a) {
  BucketizeLayout l;
  TRY(bucketizeLayout(env, a, &l));
  cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
  char *ws = static_cast<char *>(a->workspace);
  SlotMeta *slots = reinterpret_cast<SlotMeta *>(ws + l.slots);
  long long *rankFirst = reinterpret_cast<long long *>(ws + l.rankFirst);
  long long *counts = reinterpret_cast<long long *>(ws + l.counts);
  long long *pos = reinterpret_cast<long long *>(ws + l.pos);
  long long S = a->numSlots, B = a->batchSize, W = a->worldSize;
  bool is64 = a->indexDtype == EMBRT_I64;

  // The slots and each rank's first slot, staged through host memory.
  size_t metaBytes = sizeof(SlotMeta) * (size_t)S;
  size_t firstBytes = sizeof(long long) * (size_t)(W + 1);
  char *host = static_cast<char *>(malloc(metaBytes + firstBytes));
  if (!host)
    return embrtLaunchError(env, EMBRT_OUT_OF_MEMORY,
                            "bucketize: out of host memory for %lld slots",
                            (long long)S);
  SlotMeta *hs = reinterpret_cast<SlotMeta *>(host);
  long long *hf = reinterpret_cast<long long *>(host + metaBytes);
  for (long long s = 0; s < S; ++s) {
    SlotMeta m = {a->slotRanks[s],  a->slotFeatures[s], a->slotRowBegin[s],
                  a->slotRowEnd[s], a->slotRowBegin[s], a->slotRowEnd[s]};
    for (long long k = 0; k < S; ++k)
      if (a->slotFeatures[k] == m.feature) {
        m.lo = a->slotRowBegin[k] < m.lo ? a->slotRowBegin[k] : m.lo;
        m.hi = a->slotRowEnd[k] > m.hi ? a->slotRowEnd[k] : m.hi;
      }
    hs[s] = m;
  }
  for (long long r = 0, s = 0; r <= W; ++r) {
    while (s < S && a->slotRanks[s] < r)
      ++s;
    hf[r] = s;
  }
  cudaError_t e =
      cudaMemcpyAsync(slots, hs, metaBytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(rankFirst, hf, firstBytes, cudaMemcpyHostToDevice,
                        stream);
  free(host); // pageable: staged before cudaMemcpyAsync returns
  TRY(embrtCudaCheck(env, e, "bucketize: staging the slots"));
  TRY(embrtCudaCheck(
      env, cudaMemsetAsync(counts + S * B, 0, sizeof(long long), stream),
      "bucketize: cudaMemsetAsync"));

  bucketizeCountKernel<<<warpGrid(env, S * B), EMBRT_CUDA_THREADS, 0, stream>>>(
      a->indices, a->offsets, is64, a->numIndices, B, S, slots, counts,
      a->lengths, env->deviceErrors);
  TRY(embrtCudaCheck(env, cudaGetLastError(), "bucketize: count kernel"));
  size_t cubBytes = l.cubBytes;
  TRY(embrtCudaCheck(env,
                     cub::DeviceScan::ExclusiveSum(
                         ws + l.cub, cubBytes, (const long long *)counts, pos,
                         (int64_t)(S * B + 1), stream),
                     "bucketize: cub::DeviceScan::ExclusiveSum"));
  if (a->perSampleWeights && embrtDtypeSize(a->weightDtype) == 2)
    bucketizeScatterKernel<unsigned short>
        <<<warpGrid(env, S * B), EMBRT_CUDA_THREADS, 0, stream>>>(
            a->indices, a->offsets, is64, a->numIndices, B, S, slots, pos,
            a->ids, static_cast<const unsigned short *>(a->perSampleWeights),
            static_cast<unsigned short *>(a->weights));
  else
    bucketizeScatterKernel<unsigned int>
        <<<warpGrid(env, S * B), EMBRT_CUDA_THREADS, 0, stream>>>(
            a->indices, a->offsets, is64, a->numIndices, B, S, slots, pos,
            a->ids, static_cast<const unsigned int *>(a->perSampleWeights),
            static_cast<unsigned int *>(a->weights));
  TRY(embrtCudaCheck(env, cudaGetLastError(), "bucketize: scatter kernel"));
  bucketizeRankCountsKernel<<<embrtCudaGridSize(env, W), EMBRT_CUDA_THREADS, 0,
                              stream>>>(
      pos, rankFirst, B, W, reinterpret_cast<long long *>(a->counts));
  return embrtCudaCheck(env, cudaGetLastError(),
                        "bucketize: rank counts kernel");
}

extern "C" embrtStatus embrtCudaLengthsToOffsetsWorkspaceSize(
    embrtLaunchEnv *env, const embrtLengthsToOffsetsArgs *args, size_t *bytes) {
  OffsetsLayout l;
  TRY(offsetsLayout(env, args, &l));
  *bytes = l.total;
  return EMBRT_OK;
}

extern "C" embrtStatus
embrtCudaLaunchLengthsToOffsets(embrtLaunchEnv *env,
                                const embrtLengthsToOffsetsArgs *a) {
  OffsetsLayout l;
  TRY(offsetsLayout(env, a, &l));
  cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
  char *ws = static_cast<char *>(a->workspace);
  long long *wide = reinterpret_cast<long long *>(ws + l.wide);
  long long *scanned = reinterpret_cast<long long *>(ws + l.scanned);
  long long L = a->numLengths, K = a->numBlocks;
  bool is64 = a->dtype == EMBRT_I64;
  widenLengthsKernel<<<embrtCudaGridSize(env, L + 1), EMBRT_CUDA_THREADS, 0,
                       stream>>>(a->lengths, is64, L, wide, env->deviceErrors);
  TRY(embrtCudaCheck(env, cudaGetLastError(),
                     "lengths_to_offsets: widen kernel"));
  size_t cubBytes = l.cubBytes;
  TRY(embrtCudaCheck(env,
                     cub::DeviceScan::ExclusiveSum(
                         ws + l.cub, cubBytes, (const long long *)wide, scanned,
                         (int64_t)(L + 1), stream),
                     "lengths_to_offsets: cub::DeviceScan::ExclusiveSum"));
  narrowOffsetsKernel<<<embrtCudaGridSize(env, L + 1 > K ? L + 1 : K),
                        EMBRT_CUDA_THREADS, 0, stream>>>(
      scanned, is64, L, K, a->offsets,
      reinterpret_cast<long long *>(a->blockSums), env->deviceErrors);
  return embrtCudaCheck(env, cudaGetLastError(),
                        "lengths_to_offsets: narrow kernel");
}
