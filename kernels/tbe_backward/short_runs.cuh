//===- kernels/tbe_backward/short_runs.cuh - Short runs ---------*- C++ -*-===//
//
// The runs of fewer than `threshold` positions (most of them: runs of 1 to
// 4 at the benchmark's shapes), each owned whole by one group of lanes:
// shortRunsKernel, one run a group at a time at high occupancy, launched
// after the accumulate kernel of each D bucket (the default,
// EMB_TBE_BWD_OCC=1). With EMB_TBE_BWD_OCC=0 the accumulate kernel takes them
// itself after its long chunks, through the per-run pipeline at its end
// (kernels/tbe_backward/long_runs.cuh; kept there, in the kernel's body: as
// a function of its own it compiled to other code).
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_BACKWARD_SHORT_RUNS_CUH
#define EMB_KERNELS_TBE_BACKWARD_SHORT_RUNS_CUH

#include "kernels/tbe_backward/update.cuh"

namespace {

//===----------------------------------------------------------------------===//
// Short runs by occupancy (EMB_TBE_BWD_OCC)
//===----------------------------------------------------------------------===//

/// The hypothesis (bench/tbe_train/NOTES.md, call 6): the short runs'
/// latency is hidden better by many groups each waiting on one run than by
/// fewer groups each pipelining three. So no software pipeline, few
/// registers (32 a thread at 8 CTAs of 256 an SM: 64 warps, against the
/// per-run pipeline's 24), and the optimizer a template parameter so that
/// the loop body is one run's code for one optimizer. The sums are the
/// per-run pipeline's bit for bit (each run's rows added in position order,
/// the same update and rounding), only fewer rows in flight a lane.

/// The runs of a unit that a group's lanes describe (EMB_TBE_BWD_RUN_UNITS):
/// the most, up to a warp's lanes and the group's, that still gives every
/// group of the grid a unit (a power of two, so that a lane's run is its
/// lane's low bits); 1 when the bucket has fewer runs than groups.
__device__ __forceinline__ unsigned runUnit(unsigned runs, unsigned numGroups,
                                            const Group &g) {
  const unsigned most = g.lanes < 32 ? (unsigned)g.lanes : 32u;
  unsigned unit = 1;
  while (unit < most && (unsigned long long)unit * 2 * numGroups <= runs)
    unit *= 2;
  return unit;
}

/// shortRunsKernel's loop with units of runs (EMB_TBE_BWD_RUN_UNITS): the
/// group takes units of `unit` consecutive runs, grid-striding as the
/// one-run loop does (so the grid still walks the key order together). Lane
/// l < unit loads the bounds, key and first sort value of the unit's run l
/// (the unit's bounds are consecutive words: one or two lines) into the
/// group's slots of shared memory (in registers across the unit's runs they
/// spilled); then the group updates the unit's runs one by one from there
/// as the one-run loop does, a run's first gradient row asked for with its
/// table row and state. The same sums, updates and roundings: the same
/// bits.
template <typename TT, typename GT, int E, bool kVec, int kOpt, int kState>
__device__ __forceinline__ void shortRunUnits(const Params &p, const Hyper &h,
                                              const Group &g, float *red,
                                              int bucket, unsigned numGroups) {
  // A group's unit is at most its lanes: kThreads slots cover a CTA.
  __shared__ unsigned dStart[kThreads], dEnd[kThreads], dFirst[kThreads];
  __shared__ unsigned long long dKey[kThreads];
  const Shared &s = p.s;
  const Control *ctrl = s.ctrl;
  const unsigned numRuns = (unsigned)ctrl->numRuns;
  const unsigned runBegin = (unsigned)ctrl->runBegin[bucket];
  const unsigned runEnd = (unsigned)ctrl->runEnd[bucket];
  const unsigned N = (unsigned)s.numIndices;
  const unsigned groupsPerCta = kThreads / (unsigned)g.lanes;
  const unsigned unit = runUnit(runEnd - runBegin, numGroups, g);
  const unsigned base = (unsigned)(g.index * g.lanes);
  for (unsigned u0 =
           runBegin + (blockIdx.x * groupsPerCta + (unsigned)g.index) * unit;
       u0 < runEnd; u0 += numGroups * unit) {
    // The previous unit's slots are read.
    groupSync(g);
    const unsigned r = u0 + (unsigned)g.lane;
    if ((unsigned)g.lane < unit && r < runEnd) {
      const unsigned start = __ldg(s.starts + r);
      const unsigned end = r + 1 < numRuns ? __ldg(s.starts + r + 1) : N;
      dStart[base + g.lane] = start;
      dEnd[base + g.lane] = end;
      dKey[base + g.lane] = loadKey(s.unique, s.key64, r);
      dFirst[base + g.lane] = end != start && end - start < s.threshold
                                  ? __ldg(s.sortedVals + start)
                                  : 0u;
    }
    groupSync(g);
    const unsigned count = runEnd - u0 < unit ? runEnd - u0 : unit;
    for (unsigned i = 0; i < count; ++i) {
      const unsigned start = dStart[base + i], end = dEnd[base + i];
      if (end == start || end - start >= s.threshold)
        continue;
      const RowRef ref = rowRefOf<TT, E, kVec>(p, bucket, dKey[base + i], g);
      const RowData<TT, E> d = loadRow<TT, E, kVec, kOpt, kState>(p, ref);
      float acc[E];
#pragma unroll
      for (int k = 0; k < E; ++k)
        acc[k] = 0.0f;
      gather<GT, E, kVec, kOccLoadRegs, true>(p, start, end, ref.col0, ref.n,
                                              acc, dFirst[base + i]);
      applyRow<TT, E, kVec, kOpt, kState>(p, h, g, red, ref, d, acc);
    }
  }
}

/// shortRunsKernel<TT, GT, E, kVec, kOpt, kState>: the short runs (fewer than
/// `threshold` positions) of one D bucket; the long runs' chunks are the
/// accumulate kernel's, launched before it on the same stream (they touch
/// other rows: a run is one row).
/// Work: one short run per group at a time, runs runBegin + k * groups +
///   group (grid-stride over the bucket's runs, counts from Control), so the
///   groups of the grid walk the key order together and each table's
///   gradient columns are gathered from L2 while its runs are updated.
/// Grid: persistent, the CTAs that fit at once (8 an SM; fewer when N is
///   small). A grid sized from N (the only bound the host has on the run
///   count) would launch N / runs times the CTAs needed (3.4x at L = 20),
///   each of the extra ones paying a launch and a Control load to exit;
///   persistent CTAs also read the hyper-parameters once.
/// One thread: columns [lane * E, lane * E + E) of its group's row: the
///   run's start, end and key, then its table row and state (asked for
///   first, so that their DRAM latency runs under the gather), its gradient
///   rows (kOccLoadRegs registers of them in flight), the update, the stores.
/// Shared memory: the hyper-parameters, the groups' reductions (G > 32).
template <typename TT, typename GT, int E, bool kVec, int kOpt, int kState>
__global__ void __launch_bounds__(kThreads, kOccBlocks)
    shortRunsKernel(const __grid_constant__ Params p, int bucket) {
  const Shared &s = p.s;
  __shared__ float red[kWarps];
  __shared__ Hyper h;
  if (threadIdx.x == 0)
    loadHyper(s, h);
  __syncthreads();
  if (badStep(s, h))
    return;
  if constexpr (kState)
    if (badStateScale(p))
      return;
  const Group g = makeGroup(p.buckets[bucket].lanes);
  // Runs and positions fit 31 bits (the entry points check N).
  const unsigned groupsPerCta = kThreads / (unsigned)g.lanes;
  const unsigned numGroups = gridDim.x * groupsPerCta;
  if constexpr (kRunUnits) {
    shortRunUnits<TT, GT, E, kVec, kOpt, kState>(p, h, g, red, bucket,
                                                 numGroups);
  } else {
    const Control *ctrl = s.ctrl;
    const unsigned numRuns = (unsigned)ctrl->numRuns;
    const unsigned runEnd = (unsigned)ctrl->runEnd[bucket];
    const unsigned N = (unsigned)s.numIndices;
    for (unsigned r = (unsigned)ctrl->runBegin[bucket] +
                      blockIdx.x * groupsPerCta + (unsigned)g.index;
         r < runEnd; r += numGroups) {
      // The key with the bounds, not after the length test: one round trip.
      const unsigned start = __ldg(s.starts + r);
      const unsigned end = r + 1 < numRuns ? __ldg(s.starts + r + 1) : N;
      const unsigned long long key = loadKey(s.unique, s.key64, r);
      if (end == start || end - start >= s.threshold)
        continue;
      const RowRef ref = rowRefOf<TT, E, kVec>(p, bucket, key, g);
      const RowData<TT, E> d = loadRow<TT, E, kVec, kOpt, kState>(p, ref);
      float acc[E];
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] = 0.0f;
      gather<GT, E, kVec, kOccLoadRegs>(p, start, end, ref.col0, ref.n, acc);
      applyRow<TT, E, kVec, kOpt, kState>(p, h, g, red, ref, d, acc);
    }
  }
}

} // namespace

#endif // EMB_KERNELS_TBE_BACKWARD_SHORT_RUNS_CUH
