//===- kernels/tbe_backward/sort.cuh - TBE backward sort --------*- C++ -*-===//
//
// Steps 1 and 4 of the CUDA TBE backward (kernels/tbe_backward.cu): the
// kernel that writes every position's key and sort value, and the kernel that
// classifies the runs CUB's sort and run-length encode leave (each D bucket's
// range of runs; long runs get a descriptor and their chunks). The CUB calls
// between them are launched by kernels/tbe_backward/launch.cuh.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_BACKWARD_SORT_CUH
#define EMB_KERNELS_TBE_BACKWARD_SORT_CUH

#include "kernels/tbe_backward/common.cuh"

#include <cub/block/block_scan.cuh>

namespace {

//===----------------------------------------------------------------------===//
// Kernel 1: linearize (key and value of every position)
//===----------------------------------------------------------------------===//

/// linearizeKernel<K>: K the key type (32 or 64 bits).
/// Work unit: 32 consecutive bags (global bag ids g0 .. g0 + 31), one warp.
/// Grid: persistent, grid-stride over the units; block kThreads (8 warps).
/// One thread: the offsets of bag g0 + lane (checked, clamped, made
///   non-decreasing across the warp by a max scan), then positions base +
///   lane for base = lo, lo + 32, .. < hi, kLinearizeAhead of them at a
///   time: their ids loaded first, then each position's bag by a 5-step
///   shuffle search over the warp's 32 bag starts, its key and value.
///   [lo, hi) chains from warp to warp (the first unit from 0, the last to
///   N), so even bad offsets leave no position unwritten.
/// Shared memory: per warp 32 bag counts (MEAN). Block 0 zeroes Control.
template <typename K>
__global__ void __launch_bounds__(kThreads)
    linearizeKernel(const __grid_constant__ Params p) {
  const Shared &s = p.s;
  if (blockIdx.x == 0 && threadIdx.x < sizeof(Control) / 4)
    reinterpret_cast<unsigned *>(s.ctrl)[threadIdx.x] = 0;
  __shared__ unsigned bagCount[kWarps][32];
  const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;
  const long long N = s.numIndices, numBags = s.numBags;
  const long long numUnits = (numBags + 31) / 32;
  const bool mean = s.mode == MODE_BAG_MEAN;
  K *keys = static_cast<K *>(s.keys);
  for (long long unit = (long long)blockIdx.x * kWarps + warp; unit < numUnits;
       unit += (long long)gridDim.x * kWarps) {
    const long long g0 = unit * 32, g = g0 + lane;
    const bool bagValid = g < numBags;
    // Lanes past the last bag start where it ends.
    const long long rawStart = loadOffset(s, g < numBags ? g : numBags);
    const long long rawEnd = loadOffset(s, g < numBags ? g + 1 : numBags);
    const bool firstBad = g == 0 && rawStart != 0;
    const bool bad = bagValid && (firstBad || rawEnd < rawStart || rawEnd > N ||
                                  (g + 1 == numBags && rawEnd != N));
    const unsigned badMask = __ballot_sync(0xffffffffu, bad);
    if (badMask && lane == __ffs(badMask) - 1) {
      const unsigned f = fastDiv(s.byBatch, (unsigned)g);
      reportBadOffsets(s.errors, (int)f, g - (long long)f * s.batch,
                       firstBad ? g : g + 1, firstBad ? rawStart : rawEnd, N);
    }
    // Bag starts, clamped into [0, N] and made non-decreasing.
    long long m = min(max(rawStart, 0ll), N);
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const long long v = __shfl_up_sync(0xffffffffu, m, o);
      if (lane >= o)
        m = max(m, v);
    }
    const long long unitEnd = loadOffset(s, min(g0 + 32, numBags));
    const long long m0 = __shfl_sync(0xffffffffu, m, 0);
    const long long mEnd =
        max(__shfl_sync(0xffffffffu, m, 31), min(max(unitEnd, 0ll), N));
    const long long lo = unit == 0 ? 0 : m0;
    const long long hi = unit == numUnits - 1 ? N : mEnd;

    // This lane's bag: where its keys start, its rows, its value base.
    unsigned f = 0, b = 0, rows = 0, valBase = 0;
    unsigned long long keyBase = 0;
    int tableIndex = 0;
    if (bagValid) {
      f = fastDiv(s.byBatch, (unsigned)g);
      b = (unsigned)(g - (long long)f * s.batch);
      const FeatureMeta &fm = featureAt(p, (int)f);
      const TableMeta &tm = tableAt(p, (int)fm.slot);
      keyBase = tm.keyBase;
      rows = tm.rows;
      tableIndex = tm.index;
      valBase = s.mode == MODE_ROW ? b * s.gradPitch + fm.col : (unsigned)g;
    }
    if (mean) {
      bagCount[warp][lane] = 0;
      __syncwarp();
    }

    for (long long batch = lo; batch < hi; batch += 32 * kLinearizeAhead) {
      // The batch's ids in flight together: a unit of long bags is a chain
      // of these loads, one batch after another.
      long long ids[kLinearizeAhead];
#pragma unroll
      for (int u = 0; u < kLinearizeAhead; ++u) {
        const long long q = batch + 32 * u + lane;
        ids[u] = q < hi ? loadIndex<TbeIdLoad::ReadOnly>(s, q) : 0;
      }
#pragma unroll
      for (int u = 0; u < kLinearizeAhead; ++u) {
        const long long base = batch + 32 * u;
        if (base >= hi) // the same for the whole warp
          break;
        const long long q = base + lane;
        const bool inRange = q < hi;
        int j = 0;
#pragma unroll
        for (int step = 16; step; step >>= 1)
          if (__shfl_sync(0xffffffffu, m, j + step) <= q)
            j += step;
        const unsigned jRows = __shfl_sync(0xffffffffu, rows, j);
        const unsigned jVal = __shfl_sync(0xffffffffu, valBase, j);
        const unsigned long long jKey = __shfl_sync(0xffffffffu, keyBase, j);
        const bool jValid = __shfl_sync(0xffffffffu, (int)bagValid, j);
        const bool hasBag =
            inRange && jValid && q >= m0 && (j < 31 || q < mEnd);
        const long long id = ids[u];
        const bool pad = s.hasPadding && id == s.paddingIdx;
        const bool inTable = (unsigned long long)id < jRows;
        const bool contributes = hasBag && !pad && inTable;
        if (s.bounds <= EMBRT_BOUNDS_WARNING) {
          const unsigned badIds =
              __ballot_sync(0xffffffffu, hasBag && !pad && !inTable);
          if (badIds) {
            const unsigned jf = __shfl_sync(0xffffffffu, f, j);
            const unsigned jb = __shfl_sync(0xffffffffu, b, j);
            const int jt = __shfl_sync(0xffffffffu, tableIndex, j);
            if (s.bounds == EMBRT_BOUNDS_WARNING) {
              if (lane == 0)
                embrtDeviceCountInvalidIds(s.errors, __popc(badIds));
            } else if (lane == __ffs(badIds) - 1) {
              reportBadId(s.errors, (int)jf, jt, jb, q, id, jRows);
            }
          }
        }
        if (inRange) {
          keys[q] =
              contributes ? (K)(jKey + (unsigned long long)id) : (K)s.sentinel;
          s.vals[q] = s.mode <= MODE_BAG_MEAN ? jVal : (unsigned)q;
          if (s.mode == MODE_POS_WEIGHTED)
            s.bagOf[q] = (unsigned)(g0 + j);
          if (mean && contributes)
            atomicAdd(&bagCount[warp][j], 1u);
        }
      }
    }
    if (mean) {
      __syncwarp();
      const unsigned c = bagCount[warp][lane];
      if (bagValid)
        s.invCount[g] = c ? 1.0f / (float)c : 0.0f;
      __syncwarp();
    }
  }
}

//===----------------------------------------------------------------------===//
// Kernel 4: classify runs (bucket ranges, long runs and their chunks)
//===----------------------------------------------------------------------===//

__device__ __forceinline__ int bucketOfKey(const Params &p,
                                           unsigned long long key) {
  int b = 0;
  while (b < p.s.numBuckets && key >= p.buckets[b].keyEnd)
    ++b;
  return b;
}

/// classifyKernel<K>: K the key type.
/// Work unit: kThreads consecutive runs, one per thread, per block iteration
///   (grid-stride to the run count in Control).
/// One thread: its run's bucket (Control's bucket ranges where the bucket
///   changes), length, and, when long, its descriptor and countdown.
/// Block: the long runs of an iteration get their descriptors and chunks
///   with one atomic per bucket (a block prefix sum places each run), then
///   all threads write the chunk items.
template <typename K>
__global__ void __launch_bounds__(kThreads)
    classifyKernel(const __grid_constant__ Params p) {
  const Shared &s = p.s;
  using Scan = cub::BlockScan<unsigned long long, kThreads>;
  __shared__ typename Scan::TempStorage scanTemp;
  __shared__ unsigned long long allocBase;
  __shared__ uint4 longRuns[kThreads]; // {start, end, run index, first chunk}
  __shared__ unsigned char longBucket[kThreads];
  __shared__ int numLong;
  Control *ctrl = s.ctrl;
  const long long numRuns = ctrl->numRuns, N = s.numIndices;
  const int nb = s.numBuckets;
  for (long long base = (long long)blockIdx.x * kThreads; base < numRuns;
       base += (long long)gridDim.x * kThreads) {
    const long long r = base + threadIdx.x;
    const bool valid = r < numRuns;
    const unsigned long long key =
        valid ? loadKey(s.unique, s.key64, r) : s.sentinel;
    const int b = bucketOfKey(p, key);
    if (valid) {
      const int prev =
          r > 0 ? bucketOfKey(p, loadKey(s.unique, s.key64, r - 1)) : -1;
      if (b != prev) {
        if (b < nb)
          ctrl->runBegin[b] = (int)r;
        if (prev >= 0 && prev < nb)
          ctrl->runEnd[prev] = (int)r;
      }
      if (r == numRuns - 1 && b < nb)
        ctrl->runEnd[b] = (int)numRuns;
    }
    const unsigned start = valid ? __ldg(s.starts + r) : 0;
    const unsigned end =
        valid ? (r + 1 < numRuns ? __ldg(s.starts + r + 1) : (unsigned)N) : 0;
    const bool isLong = valid && b < nb && end - start >= s.threshold;
    if (!__syncthreads_or(isLong))
      continue;
    const unsigned nch = isLong ? max(1u, (end - start) / s.chunk) : 0u;
    if (threadIdx.x == 0)
      numLong = 0;
    for (int bb = 0; bb < nb; ++bb) {
      const bool mine = isLong && b == bb;
      unsigned long long prefix, total;
      Scan(scanTemp).ExclusiveSum(mine ? (1ull << 32) | nch : 0ull, prefix,
                                  total);
      if (threadIdx.x == 0 && total)
        allocBase = atomicAdd(&ctrl->longAlloc[bb], total);
      __syncthreads();
      if (mine) {
        const unsigned long long at = allocBase + prefix;
        const unsigned k = (unsigned)(at >> 32), c0 = (unsigned)at;
        const int slot = slotOfKey(p, bb, key);
        const unsigned row = (unsigned)(key - tableAt(p, slot).keyBase);
        s.desc[(size_t)bb * s.cap + k] = make_uint4(start, nch, slot, row);
        s.countdown[(size_t)bb * s.cap + k] = nch;
        const int e = atomicAdd(&numLong, 1);
        longRuns[e] = make_uint4(start, end, k, c0);
        longBucket[e] = (unsigned char)bb;
      }
      __syncthreads();
    }
    for (int e = 0; e < numLong; ++e) {
      const uint4 run = longRuns[e];
      const unsigned n = max(1u, (run.y - run.x) / s.chunk);
      uint4 *items = s.chunks + (size_t)longBucket[e] * s.cap + run.w;
      for (unsigned c = threadIdx.x; c < n; c += kThreads) {
        const unsigned cs = run.x + c * s.chunk;
        items[c] = make_uint4(cs, c + 1 == n ? run.y : cs + s.chunk, run.z, c);
      }
    }
    __syncthreads();
  }
}

} // namespace

#endif // EMB_KERNELS_TBE_BACKWARD_SORT_CUH
