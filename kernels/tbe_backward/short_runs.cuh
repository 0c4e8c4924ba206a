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
  const Control *ctrl = s.ctrl;
  const unsigned numRuns = (unsigned)ctrl->numRuns;
  const unsigned runEnd = (unsigned)ctrl->runEnd[bucket];
  const unsigned N = (unsigned)s.numIndices;
  // EMB_TBE_BWD_SHORT_LEAN, but for Adam (whose update spills more with
  // it): the same code as without it there.
  constexpr bool kLean = kShortLean && kOpt != EMBRT_OPTIMIZER_ADAM;
  int slot = -1; // the group's previous run's table (kLean)
  // Rowwise Adagrad's states below f32: each row's new state kept by lane
  // (rows done since the last store) of its group, stored a group of rows
  // at a time (applyRow's kDeferState). (The table's fp8 scale kept from
  // run to run while the table stays the same took two registers more, and
  // the step was no faster: bench/tbe_train/NOTES.md.)
  constexpr bool kDefer = kState && kOpt == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD;
  PendingState pending{0.0f, 0u, 0};
  int pendingCount = 0;
  for (unsigned r = (unsigned)ctrl->runBegin[bucket] +
                    blockIdx.x * groupsPerCta + (unsigned)g.index;
       r < runEnd; r += numGroups) {
    // The key with the bounds, not after the length test: one round trip.
    const unsigned start = __ldg(s.starts + r);
    const unsigned end = r + 1 < numRuns ? __ldg(s.starts + r + 1) : N;
    const unsigned long long key = loadKey(s.unique, s.key64, r);
    if (end == start || end - start >= s.threshold)
      continue;
    RowRef ref;
    if constexpr (kLean) {
      slot = slotOfKeyNear(p, bucket, key, slot);
      ref = rowRefAt<TT, E, kVec>(p, slot, key, g);
    } else {
      ref = rowRefOf<TT, E, kVec>(p, bucket, key, g);
    }
    const RowData<TT, E> d = loadRow<TT, E, kVec, kOpt, kState>(p, ref);
    float acc[E];
#pragma unroll
    for (int i = 0; i < E; ++i)
      acc[i] = 0.0f;
    // One-position runs alone where a group is a warp or more: sub-warp
    // groups would split a warp over the two paths.
    gather<GT, E, kVec, kOccLoadRegs>(p, start, end, ref.col0, ref.n, acc,
                                      kLean && g.lanes >= 32);
    if constexpr (kDefer) {
      float stateScale = 1.0f;
      if (isFp8State(m1PrecOf<kState>(s)))
        stateScale = __ldg(stateMetaAt(p, ref.slot).m1Scale);
      float state;
      applyRow<TT, E, kVec, kOpt, kState, true>(p, h, g, red, ref, d, acc,
                                                stateScale, &state);
      if (g.lane == pendingCount)
        pending = PendingState{state, ref.row, ref.slot};
      if (++pendingCount == g.lanes) {
        storePendingStates<kState>(p, h, g, pending, pendingCount);
        pendingCount = 0;
      }
    } else {
      applyRow<TT, E, kVec, kOpt, kState>(p, h, g, red, ref, d, acc);
    }
  }
  if constexpr (kDefer)
    storePendingStates<kState>(p, h, g, pending, pendingCount);
}

} // namespace

#endif // EMB_KERNELS_TBE_BACKWARD_SHORT_RUNS_CUH
