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

#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace {

//===----------------------------------------------------------------------===//
// Gather and update: what the long and the short runs share
//===----------------------------------------------------------------------===//

/// The hyper-parameters and the step, read once per thread, with the
/// step's random streams (embSrStepSeed) for the rows and the states.
struct Hyper {
  float lr, eps, b1, b2, wd, c1, c2;
  long long step;
  uint32_t rowSeed, stateSeed1, stateSeed2;
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
  h.rowSeed = embSrStepSeed(s.seed, h.step);
  h.stateSeed1 = embSrStepSeed(embSrStateSeed(s.seed, 1), h.step);
  h.stateSeed2 = embSrStepSeed(embSrStateSeed(s.seed, 2), h.step);
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
    return (unsigned long long)v * s.gradPitch;
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
  return (unsigned long long)b * s.gradPitch + featureAt(p, (int)f).col;
}

/// Adds the gradient rows of sorted positions [start, end) (this lane's
/// columns col0 .., n of them valid) to acc, kBatch rows in flight: as many
/// as kLoadRegs registers hold, 2 to 8. The sums are the same bit for bit
/// whatever kBatch is: each row is added in position order. onePos: a run
/// of one position loads its row alone, without the batch's predicated
/// slots (the same sum; callers pass it where their group is a whole warp
/// or more, so that a warp's lanes take one path).
template <typename GT, int E, bool kVec, int kLoadRegs = 32>
__device__ __forceinline__ void gather(const Params &p, unsigned start,
                                       unsigned end, unsigned col0, int n,
                                       float *acc, bool onePos = false) {
  using C = Cols<GT, E, kVec>;
  constexpr int kRowRegs = C::kBytes >= 4 ? C::kBytes / 4 : 1;
  constexpr int kBatch = kLoadRegs / kRowRegs < 2   ? 2
                         : kLoadRegs / kRowRegs > 8 ? 8
                                                    : kLoadRegs / kRowRegs;
  const GT *grad = static_cast<const GT *>(p.s.grad) + col0;
  if (onePos && end - start == 1) {
    // One row, added as the batches add their first: 0 + row, or
    // fma(scale, row, 0).
    typename C::R r;
#pragma unroll
    for (int i = 0; i < kRowRegs; ++i)
      r.w[i] = 0;
    float scale = 1.0f;
    if (n > 0) {
      const unsigned v = __ldg(p.s.sortedVals + start);
      const unsigned long long row =
          p.s.mode == MODE_ROW ? v : gradRowOfValue(p, v, scale);
      r = C::load(grad + row, n);
    }
    if (p.s.mode == MODE_ROW) {
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] += Elem<GT>::get(r.w, i);
    } else {
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] = fmaf(n > 0 ? scale : 0.0f, Elem<GT>::get(r.w, i), acc[i]);
    }
    return;
  }
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
        const unsigned v = __ldg(p.s.sortedVals + q0 + u);
        const unsigned long long row = gradRowOfValue(p, v, scale[u]);
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
  /// Rowwise Adagrad's state: as f32, or in the kState kernels its stored
  /// bits (decoded by applyRow).
  float state;
};

/// Where a row lives: its table's slot and the row, and the lane's columns.
struct RowRef {
  int slot;
  unsigned row;
  unsigned col0;
  int n; ///< valid columns of this lane (0: none)
};

/// The row of `key` in table slot `slot`.
template <typename TT, int E, bool kVec>
__device__ __forceinline__ RowRef rowRefAt(const Params &p, int slot,
                                           unsigned long long key,
                                           const Group &g) {
  RowRef ref;
  ref.slot = slot;
  const TableMeta &tm = tableAt(p, ref.slot);
  ref.row = (unsigned)(key - tm.keyBase);
  ref.col0 = (unsigned)g.lane * E;
  const int left = (int)tm.dim - (int)ref.col0;
  ref.n = left <= 0 ? 0 : left < E ? left : E;
  return ref;
}

template <typename TT, int E, bool kVec>
__device__ __forceinline__ RowRef rowRefOf(const Params &p, int bucket,
                                           unsigned long long key,
                                           const Group &g) {
  return rowRefAt<TT, E, kVec>(p, slotOfKey(p, bucket, key), key, g);
}

//===----------------------------------------------------------------------===//
// States below f32 (embrtStatePrecision; the kState instantiations)
//===----------------------------------------------------------------------===//

__device__ __forceinline__ bool isFp8State(int prec) {
  return prec == EMBRT_STATE_FP8_E4M3 || prec == EMBRT_STATE_FP8_E5M2;
}

/// Bytes of an element of a state of precision `prec`.
__device__ __forceinline__ unsigned stateElemBytes(int prec) {
  return prec == EMBRT_STATE_BF16 ? 2u : isFp8State(prec) ? 1u : 4u;
}

/// Rowwise Adagrad's fp8 table scales must be positive and finite (the CPU
/// refuses them at the call; CUDA does not read device memory on the host).
/// Every CTA of the kernels that update rows checks them all first (T loads)
/// and, as for badStep, returns before touching a row if one is not; block
/// 0 records it (embrtSynchronize reports it, and nothing was updated).
/// Called by the whole CTA; only in the kState instantiations.
__device__ __forceinline__ bool badStateScale(const Params &p) {
  const Shared &s = p.s;
  if (s.optimizer != EMBRT_OPTIMIZER_ROWWISE_ADAGRAD || !isFp8State(s.m1Prec))
    return false;
  __shared__ int bad;
  if (threadIdx.x == 0)
    bad = 0;
  __syncthreads();
  for (int slot = (int)threadIdx.x; slot < s.numTables; slot += kThreads) {
    const float *scale = stateMetaAt(p, slot).m1Scale;
    if (!scale) // a table of no rows
      continue;
    const float v = __ldg(scale);
    if (v > 0.0f && v <= 3.4e38f)
      continue;
    atomicExch(&bad, 1);
    if (blockIdx.x == 0)
      embrtDeviceRecordError(s.errors, EMBRT_DEVERR_BAD_STATE_SCALE, -1, -1,
                             tableAt(p, slot).index,
                             (long long)__float_as_uint(v), -1);
  }
  __syncthreads();
  return bad != 0;
}

/// The stored bits of element i of a state of precision `prec` at `base`.
__device__ __forceinline__ unsigned loadStateBits(int prec, const void *base,
                                                  size_t i) {
  if (prec == EMBRT_STATE_BF16)
    return __ldcg(static_cast<const unsigned short *>(base) + i);
  if (isFp8State(prec))
    return __ldcg(static_cast<const unsigned char *>(base) + i);
  return __ldcg(static_cast<const unsigned *>(base) + i);
}

__device__ __forceinline__ void storeStateElem(int prec, void *base, size_t i,
                                               unsigned bits) {
  if (prec == EMBRT_STATE_BF16)
    static_cast<unsigned short *>(base)[i] = (unsigned short)bits;
  else if (isFp8State(prec))
    static_cast<unsigned char *>(base)[i] = (unsigned char)bits;
  else
    static_cast<unsigned *>(base)[i] = bits;
}

/// One state element of precision `prec` from its stored bits, as f32 (times
/// `scale` for fp8): embStateDecode's value, the fp8 codes by the card's
/// conversion where it has one (sm_89 and later: every e4m3 and e5m2 value
/// is an f16 value, so through f16 it is exact; NaN stays NaN).
__device__ __forceinline__ float decodeState(int prec, unsigned bits,
                                             float scale) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  if (isFp8State(prec))
    return __half2float(__half(__nv_cvt_fp8_to_halfraw(
               (__nv_fp8_storage_t)bits,
               prec == EMBRT_STATE_FP8_E5M2 ? __NV_E5M2 : __NV_E4M3))) *
           scale;
#endif
  return embStateDecode(prec, bits, scale);
}

/// A lane's E columns of fp8 codes: E bytes, one vector when kVec (E >= 2;
/// the host aligns the state rows for it, alignedElems).
template <int E, bool kVec> struct Fp8Cols {
  using R = Raw<E>;
  __device__ static unsigned get(const R &r, int i) {
    return (r.w[i / 4] >> (8 * (i % 4))) & 0xffu;
  }
  __device__ static void set(R &r, int i, unsigned code) {
    const int sh = 8 * (i % 4);
    r.w[i / 4] = (r.w[i / 4] & ~(0xffu << sh)) | code << sh;
  }
  __device__ static R load(const unsigned char *p, int n) {
    R r;
#pragma unroll
    for (int i = 0; i < (E >= 4 ? E / 4 : 1); ++i)
      r.w[i] = 0;
    if constexpr (kVec && E >= 2) {
      r = loadRaw<E>(p);
    } else {
#pragma unroll
      for (int i = 0; i < E; ++i)
        if (i < n)
          set(r, i, __ldcg(p + i));
    }
    return r;
  }
  __device__ static void store(unsigned char *p, const R &r, int n) {
    if constexpr (kVec && E >= 2) {
      storeRaw<E>(p, r);
    } else {
#pragma unroll
      for (int i = 0; i < E; ++i)
        if (i < n)
          p[i] = (unsigned char)get(r, i);
    }
  }
};

/// This lane's columns [col0, col0 + n) of a state row at `at` of
/// precision `prec`, as f32 (times `scale` for fp8); 0 past n.
template <int E, bool kVec>
__device__ __forceinline__ void loadStateCols(int prec, const void *base,
                                              size_t at, int n, float scale,
                                              float *out) {
  if (prec == EMBRT_STATE_BF16) {
    using C = Cols<__nv_bfloat16, E, kVec>;
    const typename C::R r =
        C::load(static_cast<const __nv_bfloat16 *>(base) + at, n);
#pragma unroll
    for (int i = 0; i < E; ++i)
      out[i] = Elem<__nv_bfloat16>::get(r.w, i);
  } else if (isFp8State(prec)) {
    using C = Fp8Cols<E, kVec>;
    const typename C::R r =
        C::load(static_cast<const unsigned char *>(base) + at, n);
#pragma unroll
    for (int i = 0; i < E; ++i)
      out[i] = decodeState(prec, C::get(r, i), scale);
  } else {
    using C = Cols<float, E, kVec>;
    const typename C::R r = C::load(static_cast<const float *>(base) + at, n);
#pragma unroll
    for (int i = 0; i < E; ++i)
      out[i] = __uint_as_float(r.w[i]);
  }
}

/// Stores x (this lane's columns, n of them valid) into a state row at `at`
/// of precision `prec`: f32 as is, bf16 and fp8 (of x / scale) rounded
/// stochastically with column col0 + i of the row's stream `rowSeed`.
template <int E, bool kVec>
__device__ __forceinline__ void
storeStateCols(int prec, void *base, size_t at, int n, float scale,
               const float *x, uint32_t rowSeed, unsigned col0) {
  if (prec == EMBRT_STATE_BF16) {
    using C = Cols<__nv_bfloat16, E, kVec>;
    typename C::R r;
#pragma unroll
    for (int i = 0; i < (2 * E >= 4 ? 2 * E / 4 : 1); ++i)
      r.w[i] = 0;
#pragma unroll
    for (int i = 0; i < E; ++i)
      Elem<__nv_bfloat16>::set(
          r.w, i, embSrToBF16(x[i], embSrColumnBits(rowSeed, col0 + i)));
    C::store(static_cast<__nv_bfloat16 *>(base) + at, r, n);
  } else if (isFp8State(prec)) {
    using C = Fp8Cols<E, kVec>;
    typename C::R r;
#pragma unroll
    for (int i = 0; i < (E >= 4 ? E / 4 : 1); ++i)
      r.w[i] = 0;
#pragma unroll
    for (int i = 0; i < E; ++i)
      C::set(r, i,
             embStateEncode(prec, x[i], scale,
                            embSrColumnBits(rowSeed, col0 + i)));
    C::store(static_cast<unsigned char *>(base) + at, r, n);
  } else {
    using C = Cols<float, E, kVec>;
    typename C::R r;
#pragma unroll
    for (int i = 0; i < E; ++i)
      r.w[i] = __float_as_uint(x[i]);
    C::store(static_cast<float *>(base) + at, r, n);
  }
}

/// The random stream of state `which` (1, 2) of a row (the CPU's
/// stateRowSeed).
__device__ __forceinline__ uint32_t stateRowSeed(const Shared &s,
                                                 const Hyper &h, int which,
                                                 int table, unsigned row) {
  return embSrRowSeed(which == 1 ? h.stateSeed1 : h.stateSeed2, table, row);
}

/// Adam's update of a row whose states are stored below f32 (kState): as
/// the f32 update, on the decoded states; then each fp8 state row's new
/// scale (its largest magnitude over the format's largest value, reduced
/// over the group) and the stochastically rounded stores. Called by the
/// whole group.
template <int E, bool kVec>
__device__ __forceinline__ void
adamStates(const Params &p, const Hyper &h, const Group &g, float *red,
           const RowRef &ref, const TableMeta &tm, size_t at, const float *grad,
           float *w) {
  const Shared &s = p.s;
  const StateMeta &sm = stateMetaAt(p, ref.slot);
  const int p1 = s.m1Prec, p2 = s.m2Prec;
  float m[E], v[E];
  float mScale = 1.0f, vScale = 1.0f;
  if (ref.n > 0) {
    if (isFp8State(p1))
      mScale = __ldcg(sm.m1Scale + ref.row);
    if (isFp8State(p2))
      vScale = __ldcg(sm.m2Scale + ref.row);
    loadStateCols<E, kVec>(p1, tm.m1, at, ref.n, mScale, m);
    loadStateCols<E, kVec>(p2, tm.m2, at, ref.n, vScale, v);
  } else {
#pragma unroll
    for (int i = 0; i < E; ++i)
      m[i] = v[i] = 0.0f;
  }
  float mMax = 0.0f, vMax = 0.0f;
#pragma unroll
  for (int i = 0; i < E; ++i) {
    const float mi = h.b1 * m[i] + (1.0f - h.b1) * grad[i];
    const float vi = h.b2 * v[i] + (1.0f - h.b2) * grad[i] * grad[i];
    w[i] -= h.lr * ((mi / h.c1) / (sqrtf(vi / h.c2) + h.eps) + h.wd * w[i]);
    m[i] = mi;
    v[i] = vi;
    if (i < ref.n) {
      mMax = fmaxf(mMax, fabsf(mi));
      vMax = fmaxf(vMax, fabsf(vi));
    }
  }
  // The whole group takes part in the reductions; only fp8 rows need them.
  if (isFp8State(p1))
    mScale = embStateRowScale(p1, groupMax(mMax, g, red));
  if (isFp8State(p2))
    vScale = embStateRowScale(p2, groupMax(vMax, g, red));
  if (ref.n > 0) {
    storeStateCols<E, kVec>(p1, tm.m1, at, ref.n, mScale, m,
                            stateRowSeed(s, h, 1, tm.index, ref.row), ref.col0);
    storeStateCols<E, kVec>(p2, tm.m2, at, ref.n, vScale, v,
                            stateRowSeed(s, h, 2, tm.index, ref.row), ref.col0);
  }
  if (g.lane == 0) {
    if (isFp8State(p1))
      sm.m1Scale[ref.row] = mScale;
    if (isFp8State(p2))
      sm.m2Scale[ref.row] = vScale;
  }
}

/// The optimizer (embrtOptimizer): kOpt when known at compile time, else (-1)
/// read from the parameters (loadRow and applyRow).
template <int kOpt>
__device__ __forceinline__ int optimizerOf(const Shared &s) {
  return kOpt >= 0 ? kOpt : s.optimizer;
}

/// kState, the states' precisions: 0, every state f32 (the kernels as they
/// were); 1, read from the parameters (Shared::m1Prec, m2Prec);
/// kStateM1 + prec (rowwise Adagrad's short-run kernel), its one state of
/// precision prec (embrtStatePrecision) known at compile time, so that its
/// load, decode and encode are that precision's code alone.
constexpr int kStateM1 = 2;

/// The precision of momentum1 (rowwise Adagrad's state) in a kState kernel.
template <int kState> __device__ __forceinline__ int m1PrecOf(const Shared &s) {
  return kState >= kStateM1 ? kState - kStateM1 : s.m1Prec;
}

template <typename TT, int E, bool kVec, int kOpt = -1, int kState = 0>
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
  if constexpr (kState) {
    // Rowwise Adagrad's state as stored, decoded by applyRow after the
    // gather: a decode here would wait for the load (and an fp8 state for
    // its table's scale, two loads more) before the gather's loads issue,
    // one DRAM round trip more a row. Adam's rows, prefetched as the f32
    // kernels' (the first bytes of this lane's columns).
    if (optimizerOf<kOpt>(p.s) == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD) {
      d.state =
          __uint_as_float(loadStateBits(m1PrecOf<kState>(p.s), tm.m1, ref.row));
    } else if (optimizerOf<kOpt>(p.s) == EMBRT_OPTIMIZER_ADAM && ref.n > 0) {
      prefetchL1(reinterpret_cast<const char *>(tm.m1) +
                 at * stateElemBytes(p.s.m1Prec));
      prefetchL1(reinterpret_cast<const char *>(tm.m2) +
                 at * stateElemBytes(p.s.m2Prec));
    }
    return d;
  }
  if (optimizerOf<kOpt>(p.s) == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
    d.state = __ldcg(tm.m1 + ref.row);
  else if (optimizerOf<kOpt>(p.s) == EMBRT_OPTIMIZER_ADAM && ref.n > 0) {
    prefetchL1(tm.m1 + at);
    prefetchL1(tm.m2 + at);
  }
  return d;
}

/// Rowwise Adagrad's new state of a row whose state is stored below f32,
/// kept by one lane of its group until the group stores the states its
/// lanes keep together (kDeferState).
struct PendingState {
  float state;
  unsigned row;
  int slot;
};

/// The stores of the states that a group's lanes below `count` keep, all at
/// once: each lane's encoded with its row's stream and its table's scale,
/// the bits applyRow stores. Called by the whole group.
template <int kState>
__device__ __forceinline__ void
storePendingStates(const Params &p, const Hyper &h, const Group &g,
                   const PendingState &q, int count) {
  if (g.lane >= count)
    return;
  const Shared &s = p.s;
  const TableMeta &tm = tableAt(p, q.slot);
  const int prec = m1PrecOf<kState>(s);
  const float scale =
      isFp8State(prec) ? __ldg(stateMetaAt(p, q.slot).m1Scale) : 1.0f;
  storeStateElem(
      prec, tm.m1, q.row,
      embStateEncode(
          prec, q.state, scale,
          embSrColumnBits(stateRowSeed(s, h, 1, tm.index, q.row), 0)));
}

/// Applies the optimizer to the row `ref` (loaded as `d`) with gradient g
/// (this lane's columns), and stores the row and its state. Called by the
/// whole group.
/// kDeferState (rowwise Adagrad in the kState instantiations): the row's
/// state is not stored but returned in `stateOut` (every lane), for the
/// caller to keep (PendingState) and store with its group's next ones
/// (storePendingStates), and its table's fp8 scale is the caller's
/// `stateScaleIn` (1 for bf16): the encode's instructions, one lane's of
/// each row's group otherwise, then run on every lane once a group of rows.
template <typename TT, int E, bool kVec, int kOpt = -1, int kState = 0,
          bool kDeferState = false>
__device__ __forceinline__ void
applyRow(const Params &p, const Hyper &h, const Group &g, float *red,
         const RowRef &ref, const RowData<TT, E> &d, float *grad,
         float stateScaleIn = 1.0f, float *stateOut = nullptr) {
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
    float stateIn = d.state, stateScale = 1.0f;
    if constexpr (kState) {
      if constexpr (kDeferState)
        stateScale = stateScaleIn;
      else if (isFp8State(m1PrecOf<kState>(s)))
        stateScale = __ldg(stateMetaAt(p, ref.slot).m1Scale);
      stateIn = decodeState(m1PrecOf<kState>(s), __float_as_uint(d.state),
                            stateScale);
    }
    const float state = stateIn + sum / (float)tm.dim;
    const float scale = h.lr / (sqrtf(state) + h.eps);
#pragma unroll
    for (int i = 0; i < E; ++i)
      w[i] -= scale * grad[i];
    if constexpr (kDeferState)
      *stateOut = state;
    else if (g.lane == 0) {
      if constexpr (kState) {
        const int prec = m1PrecOf<kState>(s);
        storeStateElem(
            prec, tm.m1, ref.row,
            embStateEncode(
                prec, state, stateScale,
                embSrColumnBits(stateRowSeed(s, h, 1, tm.index, ref.row), 0)));
      } else {
        tm.m1[ref.row] = state;
      }
    }
    break;
  }
  default: { // Adam, with decoupled weight decay
    if constexpr (kState) {
      adamStates<E, kVec>(p, h, g, red, ref, tm, at, grad, w);
      break;
    }
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
        sizeof(TT) == 4 ? 0u : embSrRowSeed(h.rowSeed, tm.index, ref.row);
#pragma unroll
    for (int i = 0; i < E; ++i)
      Elem<TT>::set(out.w, i, roundElem<TT>(w[i], rowSeed, ref.col0 + i));
    Cols<TT, E, kVec>::store(reinterpret_cast<TT *>(tm.table) + at, out, ref.n);
  }
}

} // namespace

#endif // EMB_KERNELS_TBE_BACKWARD_UPDATE_CUH
