//===- kernels/tbe_backward/long_runs.cuh - Long runs -----------*- C++ -*-===//
//
// Step 5 of the CUDA TBE backward (kernels/tbe_backward.cu): the accumulate
// kernel, one launch per D bucket. Runs of at least `threshold` positions
// are split into chunks (kernels/tbe_backward/sort.cuh's classify kernel
// lists them); a group sums a chunk's gradient rows into its slot of the
// workspace, and the group that lands a run's last chunk sums the run's
// partials in chunk order and updates the row, in the same launch. With
// EMB_TBE_BWD_OCC=0 the kernel then takes the bucket's short runs too, through
// the per-run pipeline (the default before shortRunsKernel,
// kernels/tbe_backward/short_runs.cuh): a group owns one run at a time, and
// the next run's descriptor and table row are loaded while the current run's
// gradient rows are gathered.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_BACKWARD_LONG_RUNS_CUH
#define EMB_KERNELS_TBE_BACKWARD_LONG_RUNS_CUH

#include "kernels/tbe_backward/update.cuh"

namespace {

//===----------------------------------------------------------------------===//
// Kernel 5: accumulate and update, per D bucket
//===----------------------------------------------------------------------===//

/// accumulateKernel<TT, GT, E, kVec, kState>: one D bucket's runs; TT the
/// table's storage type, GT the gradient's, E columns a lane (vectors when
/// kVec), kState 1 when the states are stored below f32 (update.cuh).
///
/// Work: first the bucket's long chunks (one per group at a time); with
///   EMB_TBE_BWD_OCC=0 then its short runs in units of kUnitRuns consecutive
///   runs (one unit per group at a time), else they are shortRunsKernel's;
///   both grid-stride over groups. Counts come from Control.
/// Grid: persistent, the CTAs that fit at once (or fewer when the work is
///   smaller); block kThreads, split into groups of G = bucket lanes.
/// One thread: columns [lane * E, lane * E + E) of every row its group
///   handles; f32 accumulators; kBatch gradient rows in flight.
/// Shared memory: the groups' reductions (G > 32). Alignment: the host picks
///   E so that every vector access is aligned (tbeBwdSelectBucket).
template <typename TT, typename GT, int E, bool kVec, int kState>
__global__ void __launch_bounds__(kThreads, kAccumulateMinBlocks)
    accumulateKernel(const __grid_constant__ Params p, int bucket) {
  const Shared &s = p.s;
  __shared__ float red[kWarps];
  __shared__ int flag[kWarps];
  // In shared memory, not registers: read once per row update.
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
  const int groupsPerCta = kThreads / g.lanes;
  const long long gid = (long long)blockIdx.x * groupsPerCta + g.index;
  const long long numGroups = (long long)gridDim.x * groupsPerCta;
  const Control *ctrl = s.ctrl;
  const long long numRuns = ctrl->numRuns;

  // Long runs: a chunk's partial sum to its slot; the last chunk of a run
  // sums the run's partials and updates the row.
  const unsigned numChunks = (unsigned)ctrl->longAlloc[bucket];
  const uint4 *chunks = s.chunks + (size_t)bucket * s.cap;
  const uint4 *desc = s.desc + (size_t)bucket * s.cap;
  unsigned *countdown = s.countdown + (size_t)bucket * s.cap;
  for (long long c = gid; c < numChunks; c += numGroups) {
    const uint4 item = __ldcg(chunks + c);
    const uint4 run = __ldcg(desc + item.z);
    const TableMeta &tm = tableAt(p, (int)run.z);
    RowRef ref;
    ref.slot = (int)run.z;
    ref.row = run.w;
    ref.col0 = (unsigned)g.lane * E;
    const int left = (int)tm.dim - (int)ref.col0;
    ref.n = left <= 0 ? 0 : left < E ? left : E;
    float acc[E];
#pragma unroll
    for (int i = 0; i < E; ++i)
      acc[i] = 0.0f;
    gather<GT, E, kVec>(p, item.x, item.y, ref.col0, ref.n, acc);
    using F = Cols<float, E, kVec>;
    const unsigned mySlot = (run.x + item.w * s.chunk) / s.spacing;
    if (ref.n > 0) {
      typename F::R out;
#pragma unroll
      for (int i = 0; i < E; ++i)
        out.w[i] = __float_as_uint(acc[i]);
      F::store(s.partial + (size_t)mySlot * s.partialStride + ref.col0, out,
               ref.n);
    }
    __threadfence();
    groupSync(g);
    int last = 0;
    if (g.lane == 0)
      last = atomicSub(countdown + item.z, 1u) == 1u;
    last = groupBroadcast(last, g, flag);
    if (last) {
      __threadfence();
      const RowData<TT, E> d = loadRow<TT, E, kVec, -1, kState>(p, ref);
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] = 0.0f;
      if (ref.n > 0) {
        for (unsigned k = 0; k < run.y; ++k) {
          const unsigned slot = (run.x + k * s.chunk) / s.spacing;
          const typename F::R part = F::load(
              s.partial + (size_t)slot * s.partialStride + ref.col0, ref.n);
#pragma unroll
          for (int i = 0; i < E; ++i)
            acc[i] += __uint_as_float(part.w[i]);
        }
      }
      applyRow<TT, E, kVec, -1, kState>(p, h, g, red, ref, d, acc);
    }
  }

  // Short runs are shortRunsKernel's (EMB_TBE_BWD_OCC).
  if constexpr (kOcc)
    return;
  const long long runBegin = ctrl->runBegin[bucket],
                  runEnd = ctrl->runEnd[bucket];

  // Short runs: units of kUnitRuns consecutive runs, two-deep pipeline.
  const long long numUnits = (runEnd - runBegin + kUnitRuns - 1) / kUnitRuns;
  // The k-th run this group takes, or -1.
  auto runAt = [&](long long k) -> long long {
    const long long u = gid + (k / kUnitRuns) * numGroups;
    if (u >= numUnits)
      return -1;
    const long long r = runBegin + u * kUnitRuns + k % kUnitRuns;
    return r < runEnd ? r : -1;
  };
  auto isShort = [&](const Run &run) {
    return run.valid && run.end > run.start &&
           run.end - run.start < s.threshold;
  };
  // Run k + 2's descriptor, k + 1's table row, and k's gather and update are
  // in flight together.
  Run cur = loadRun(p, runAt(0), numRuns), next = loadRun(p, runAt(1), numRuns);
  RowRef curRef = rowRefOf<TT, E, kVec>(p, bucket, cur.key, g);
  RowData<TT, E> curRow = {};
  if (isShort(cur))
    curRow = loadRow<TT, E, kVec, -1, kState>(p, curRef);
  for (long long k = 0; cur.valid; ++k) {
    const Run after = loadRun(p, runAt(k + 2), numRuns);
    RowRef nextRef = curRef;
    RowData<TT, E> nextRow = curRow;
    if (isShort(next)) {
      nextRef = rowRefOf<TT, E, kVec>(p, bucket, next.key, g);
      nextRow = loadRow<TT, E, kVec, -1, kState>(p, nextRef);
    }
    if (isShort(cur)) {
      float acc[E];
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] = 0.0f;
      gather<GT, E, kVec>(p, cur.start, cur.end, curRef.col0, curRef.n, acc);
      applyRow<TT, E, kVec, -1, kState>(p, h, g, red, curRef, curRow, acc);
    }
    cur = next;
    curRef = nextRef;
    curRow = nextRow;
    next = after;
  }
}

} // namespace

#endif // EMB_KERNELS_TBE_BACKWARD_LONG_RUNS_CUH
