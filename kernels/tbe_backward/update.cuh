//===- kernels/tbe_backward/update.cuh - TBE backward update ----*- C++ -*-===//
//
// What the long runs (kernels/tbe_backward/long_runs.cuh) and the short
// runs (kernels/tbe_backward/short_runs.cuh) of the CUDA TBE backward share:
// the hyper-parameters, the gather of a run's gradient rows into f32
// accumulators, and the load, optimizer update and store of a table row.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_BACKWARD_UPDATE_CUH
#define EMB_KERNELS_TBE_BACKWARD_UPDATE_CUH

#include "kernels/tbe_backward/common.cuh"

namespace {

//===----------------------------------------------------------------------===//
// Gather and update: what the long and the short runs share
//===----------------------------------------------------------------------===//

/// The hyper-parameters and the step, read once per thread.
struct Hyper {
  float lr, eps, b1, b2, wd, c1, c2;
  long long step;
};

/// Fills the CTA's copy of the hyper-parameters (thread 0), then waits.
__device__ __forceinline__ void loadHyper(const Shared &s, Hyper &h) {
  h.lr = __ldg(s.hyper + EMBRT_HYPER_LEARNING_RATE);
  h.eps = __ldg(s.hyper + EMBRT_HYPER_EPS);
  h.b1 = __ldg(s.hyper + EMBRT_HYPER_BETA1);
  h.b2 = __ldg(s.hyper + EMBRT_HYPER_BETA2);
  h.wd = __ldg(s.hyper + EMBRT_HYPER_WEIGHT_DECAY);
  h.step = s.step ? __ldg(s.step) : 0;
  h.c1 = 1.0f - powf(h.b1, (float)h.step);
  h.c2 = 1.0f - powf(h.b2, (float)h.step);
}

/// Adam counts steps from 1 (runtime/tbe_backward.c): at step 0 its bias
/// correction is 0. A step below 1 is recorded (embrtSynchronize reports
/// it) and the kernels that update rows return before touching any: the
/// CTA's Hyper is shared, so the whole CTA, and every CTA, leaves alike.
__device__ __forceinline__ bool badStep(const Shared &s, const Hyper &h) {
  if (s.optimizer != EMBRT_OPTIMIZER_ADAM || h.step >= 1)
    return false;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    embrtDeviceRecordError(s.errors, EMBRT_DEVERR_BAD_STEP, -1, -1, -1, h.step,
                           1);
  return true;
}

/// The first gradient element of the row of a position whose sort value is
/// v, and its scale (generic modes; MODE_ROW is inlined in gather).
__device__ __forceinline__ unsigned long long
gradRowOfValue(const Params &p, unsigned v, float &scale) {
  const Shared &s = p.s;
  unsigned bag = v;
  scale = 1.0f;
  switch (s.mode) {
  case MODE_POS_NONE:
    return (unsigned long long)v * s.sumD;
  case MODE_POS_WEIGHTED:
    bag = __ldg(s.bagOf + v);
    scale = loadWeight(s, v);
    break;
  case MODE_BAG_MEAN:
    scale = __ldg(s.invCount + v);
    break;
  default:
    break;
  }
  const unsigned f = fastDiv(s.byBatch, bag);
  const unsigned b = bag - f * (unsigned)s.batch;
  return (unsigned long long)b * s.sumD + featureAt(p, (int)f).col;
}

/// The same for sorted position q.
__device__ __forceinline__ unsigned long long
gradRowOf(const Params &p, unsigned q, float &scale) {
  return gradRowOfValue(p, __ldg(p.s.sortedVals + q), scale);
}

/// Adds the gradient rows of sorted positions [start, end) (this lane's
/// columns col0 .., n of them valid) to acc, kBatch rows in flight: as many
/// as kLoadRegs registers hold, 2 to 8. The sums are the same bit for bit
/// whatever kBatch is: each row is added in position order.
template <typename GT, int E, bool kVec, int kLoadRegs = 32>
__device__ __forceinline__ void gather(const Params &p, unsigned start,
                                       unsigned end, unsigned col0, int n,
                                       float *acc) {
  using C = Cols<GT, E, kVec>;
  constexpr int kRowRegs = C::kBytes >= 4 ? C::kBytes / 4 : 1;
  constexpr int kBatch = kLoadRegs / kRowRegs < 2   ? 2
                         : kLoadRegs / kRowRegs > 8 ? 8
                                                    : kLoadRegs / kRowRegs;
  const GT *grad = static_cast<const GT *>(p.s.grad) + col0;
  if (p.s.mode == MODE_ROW) {
    for (unsigned q0 = start; q0 < end; q0 += kBatch) {
      typename C::R r[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (q0 + u < end && n > 0) {
          const unsigned v = __ldg(p.s.sortedVals + q0 + u);
          r[u] = C::load(grad + v, n);
        } else {
#pragma unroll
          for (int i = 0; i < kRowRegs; ++i)
            r[u].w[i] = 0;
        }
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
#pragma unroll
        for (int i = 0; i < E; ++i)
          acc[i] += Elem<GT>::get(r[u].w, i);
    }
    return;
  }
  // Scaled rows hold a scale and a 64-bit row each: half the batch.
  constexpr int kHalf = kBatch / 2;
  for (unsigned q0 = start; q0 < end; q0 += kHalf) {
    typename C::R r[kHalf];
    float scale[kHalf];
#pragma unroll
    for (int u = 0; u < kHalf; ++u) {
      scale[u] = 0.0f;
      if (q0 + u < end && n > 0) {
        const unsigned long long row = gradRowOf(p, q0 + u, scale[u]);
        r[u] = C::load(grad + row, n);
      } else {
#pragma unroll
        for (int i = 0; i < kRowRegs; ++i)
          r[u].w[i] = 0;
      }
    }
#pragma unroll
    for (int u = 0; u < kHalf; ++u)
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] = fmaf(scale[u], Elem<GT>::get(r[u].w, i), acc[i]);
  }
}

/// A run as the pipeline carries it.
struct Run {
  unsigned start, end;
  unsigned long long key;
  bool valid;
};

__device__ __forceinline__ Run loadRun(const Params &p, long long r,
                                       long long numRuns) {
  Run run;
  run.valid = r >= 0;
  run.start = run.end = 0;
  run.key = 0;
  if (run.valid) {
    run.start = __ldg(p.s.starts + r);
    run.end =
        r + 1 < numRuns ? __ldg(p.s.starts + r + 1) : (unsigned)p.s.numIndices;
    run.key = loadKey(p.s.unique, p.s.key64, r);
  }
  return run;
}

/// A table row as loaded ahead of its update: this lane's columns (raw) and
/// the row's state (rowwise Adagrad).
template <typename TT, int E> struct RowData {
  Raw<E *(int)sizeof(TT)> w;
  float state;
};

/// Where a row lives: its table's slot and the row, and the lane's columns.
struct RowRef {
  int slot;
  unsigned row;
  unsigned col0;
  int n; ///< valid columns of this lane (0: none)
};

template <typename TT, int E, bool kVec>
__device__ __forceinline__ RowRef rowRefOf(const Params &p, int bucket,
                                           unsigned long long key,
                                           const Group &g) {
  RowRef ref;
  ref.slot = slotOfKey(p, bucket, key);
  const TableMeta &tm = tableAt(p, ref.slot);
  ref.row = (unsigned)(key - tm.keyBase);
  ref.col0 = (unsigned)g.lane * E;
  const int left = (int)tm.dim - (int)ref.col0;
  ref.n = left <= 0 ? 0 : left < E ? left : E;
  return ref;
}

/// The optimizer (embrtOptimizer): kOpt when known at compile time, else (-1)
/// read from the parameters (loadRow and applyRow).
template <int kOpt>
__device__ __forceinline__ int optimizerOf(const Shared &s) {
  return kOpt >= 0 ? kOpt : s.optimizer;
}

template <typename TT, int E, bool kVec, int kOpt = -1>
__device__ __forceinline__ RowData<TT, E> loadRow(const Params &p,
                                                  const RowRef &ref) {
  const TableMeta &tm = tableAt(p, ref.slot);
  RowData<TT, E> d;
#pragma unroll
  for (int i = 0; i < (E * (int)sizeof(TT) >= 4 ? E * (int)sizeof(TT) / 4 : 1);
       ++i)
    d.w.w[i] = 0;
  const size_t at = (size_t)ref.row * tm.dim + ref.col0;
  if (ref.n > 0)
    d.w = Cols<TT, E, kVec>::load(reinterpret_cast<const TT *>(tm.table) + at,
                                  ref.n);
  d.state = 0.0f;
  if (optimizerOf<kOpt>(p.s) == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
    d.state = __ldcg(tm.m1 + ref.row);
  else if (optimizerOf<kOpt>(p.s) == EMBRT_OPTIMIZER_ADAM && ref.n > 0) {
    prefetchL1(tm.m1 + at);
    prefetchL1(tm.m2 + at);
  }
  return d;
}

/// Applies the optimizer to the row `ref` (loaded as `d`) with gradient g
/// (this lane's columns), and stores the row and its state. Called by the
/// whole group.
template <typename TT, int E, bool kVec, int kOpt = -1>
__device__ __forceinline__ void
applyRow(const Params &p, const Hyper &h, const Group &g, float *red,
         const RowRef &ref, const RowData<TT, E> &d, float *grad) {
  const Shared &s = p.s;
  const TableMeta &tm = tableAt(p, ref.slot);
  const size_t at = (size_t)ref.row * tm.dim + ref.col0;
  float w[E];
#pragma unroll
  for (int i = 0; i < E; ++i)
    w[i] = Elem<TT>::get(d.w.w, i);
  switch (optimizerOf<kOpt>(s)) {
  case EMBRT_OPTIMIZER_SGD:
#pragma unroll
    for (int i = 0; i < E; ++i)
      w[i] -= h.lr * (grad[i] + h.wd * w[i]);
    break;
  case EMBRT_OPTIMIZER_ROWWISE_ADAGRAD: {
    float part = 0.0f;
#pragma unroll
    for (int i = 0; i < E; ++i) {
      grad[i] = fmaf(h.wd, w[i], grad[i]);
      if (i < ref.n)
        part = fmaf(grad[i], grad[i], part);
    }
    const float sum = groupSum(part, g, red);
    const float state = d.state + sum / (float)tm.dim;
    const float scale = h.lr / (sqrtf(state) + h.eps);
#pragma unroll
    for (int i = 0; i < E; ++i)
      w[i] -= scale * grad[i];
    if (g.lane == 0)
      tm.m1[ref.row] = state;
    break;
  }
  default: { // Adam, with decoupled weight decay
    if (ref.n > 0) {
      using F = Cols<float, E, kVec>;
      typename F::R m = F::load(tm.m1 + at, ref.n),
                    v = F::load(tm.m2 + at, ref.n);
#pragma unroll
      for (int i = 0; i < E; ++i) {
        const float mi =
            h.b1 * __uint_as_float(m.w[i]) + (1.0f - h.b1) * grad[i];
        const float vi =
            h.b2 * __uint_as_float(v.w[i]) + (1.0f - h.b2) * grad[i] * grad[i];
        w[i] -= h.lr * ((mi / h.c1) / (sqrtf(vi / h.c2) + h.eps) + h.wd * w[i]);
        m.w[i] = __float_as_uint(mi);
        v.w[i] = __float_as_uint(vi);
      }
      F::store(tm.m1 + at, m, ref.n);
      F::store(tm.m2 + at, v, ref.n);
    }
    break;
  }
  }
  if (ref.n > 0) {
    Raw<E *(int)sizeof(TT)> out = d.w;
    const uint32_t rowSeed =
        sizeof(TT) == 4 ? 0u : embSrRowSeed(s.seed, h.step, tm.index, ref.row);
#pragma unroll
    for (int i = 0; i < E; ++i)
      Elem<TT>::set(out.w, i, roundElem<TT>(w[i], rowSeed, ref.col0 + i));
    Cols<TT, E, kVec>::store(reinterpret_cast<TT *>(tm.table) + at, out, ref.n);
  }
}

} // namespace

#endif // EMB_KERNELS_TBE_BACKWARD_UPDATE_CUH
