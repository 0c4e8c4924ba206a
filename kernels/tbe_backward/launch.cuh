//===- kernels/tbe_backward/launch.cuh - Host plan, launch ------*- C++ -*-===//
//
// The host side of the CUDA TBE backward (kernels/tbe_backward.cu): the
// kernels' instantiations and the choice among them, the plan of a call (the
// workspace layout, from the shapes alone; each table's D bucket and key
// range) and the launch of its steps on the stream: linearize, CUB's sort,
// run-length encode and scan, classify, then the accumulate and short-run
// kernels of each bucket.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_BACKWARD_LAUNCH_CUH
#define EMB_KERNELS_TBE_BACKWARD_LAUNCH_CUH

#include "kernels/launch.h"
#include "kernels/tbe_backward/common.cuh"
#include "kernels/tbe_backward/long_runs.cuh"
#include "kernels/tbe_backward/short_runs.cuh"
#include "kernels/tbe_backward/sort.cuh"
#include "kernels/tbe_backward_config.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// Returns the status of `expr` unless it is EMBRT_OK (kernels/ cannot
/// include runtime/status.h).
#define TRY(expr)                                                              \
  do {                                                                         \
    embrtStatus tryStatus_ = (expr);                                           \
    if (tryStatus_ != EMBRT_OK)                                                \
      return tryStatus_;                                                       \
  } while (0)

namespace {

//===----------------------------------------------------------------------===//
// Instantiations: table type x gradient type x columns a lane x vector
//===----------------------------------------------------------------------===//

using AccumulateFn = void (*)(Params, int);

/// An accumulate kernel, and with EMB_TBE_BWD_OCC the short-run kernel
/// launched after it (else null).
struct Accumulate {
  AccumulateFn fn;
  AccumulateFn shortRuns;
};

/// The short-run kernel for `optimizer`; instantiated only with
/// EMB_TBE_BWD_OCC. SGD has no state: its kernel is the f32 one. kState is
/// stateKind's: 0, 1, or (kStateFixed) rowwise Adagrad's kStateM1 +
/// precision.
template <typename TT, typename GT, int E, bool kVec, int kState>
AccumulateFn shortRunsOf(int optimizer) {
  if constexpr (kOcc) {
    if (optimizer == EMBRT_OPTIMIZER_SGD)
      return shortRunsKernel<TT, GT, E, kVec, EMBRT_OPTIMIZER_SGD, 0>;
    if constexpr (!kStateFixed || kState != 1)
      if (optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
        return shortRunsKernel<TT, GT, E, kVec, EMBRT_OPTIMIZER_ROWWISE_ADAGRAD,
                               kState>;
    if constexpr (kState <= 1)
      return shortRunsKernel<TT, GT, E, kVec, EMBRT_OPTIMIZER_ADAM, kState>;
  }
  return nullptr;
}

/// The accumulate kernel (its states' precisions read at run time when any
/// is below f32) and the short-run kernel of kState.
template <typename TT, typename GT, int E, bool kVec, int kState>
Accumulate accumulateWith(int optimizer) {
  return {accumulateKernel<TT, GT, E, kVec, (kState ? 1 : 0)>,
          shortRunsOf<TT, GT, E, kVec, kState>(optimizer)};
}

template <typename TT, typename GT, int E, bool kVec>
Accumulate accumulateOf(int optimizer, int state) {
  if (state == 0)
    return accumulateWith<TT, GT, E, kVec, 0>(optimizer);
  if constexpr (kStateFixed) {
    switch (state) {
    case kStateM1 + EMBRT_STATE_BF16:
      return accumulateWith<TT, GT, E, kVec, kStateM1 + EMBRT_STATE_BF16>(
          optimizer);
    case kStateM1 + EMBRT_STATE_FP8_E4M3:
      return accumulateWith<TT, GT, E, kVec, kStateM1 + EMBRT_STATE_FP8_E4M3>(
          optimizer);
    case kStateM1 + EMBRT_STATE_FP8_E5M2:
      return accumulateWith<TT, GT, E, kVec, kStateM1 + EMBRT_STATE_FP8_E5M2>(
          optimizer);
    default:
      break;
    }
  }
  return accumulateWith<TT, GT, E, kVec, 1>(optimizer);
}

template <typename TT, typename GT>
Accumulate accumulateFor(int elems, int vector, int optimizer, int state) {
  if (!vector)
    return accumulateOf<TT, GT, 8, false>(optimizer, state);
  switch (elems) {
  case 1:
    return accumulateOf<TT, GT, 1, true>(optimizer, state);
  case 2:
    return accumulateOf<TT, GT, 2, true>(optimizer, state);
  case 4:
    return accumulateOf<TT, GT, 4, true>(optimizer, state);
  default:
    return accumulateOf<TT, GT, 8, true>(optimizer, state);
  }
}

/// `state`: the kernels' kState (stateKind).
Accumulate accumulateFor(embrtDtype table, embrtDtype grad, int elems,
                         int vector, int optimizer, int state) {
  if (table == EMBRT_F32)
    return accumulateFor<float, float>(elems, vector, optimizer, state);
  if (table == EMBRT_F16)
    return grad == EMBRT_F32
               ? accumulateFor<__half, float>(elems, vector, optimizer, state)
               : accumulateFor<__half, __half>(elems, vector, optimizer, state);
  return grad == EMBRT_F32
             ? accumulateFor<__nv_bfloat16, float>(elems, vector, optimizer,
                                                   state)
             : accumulateFor<__nv_bfloat16, __nv_bfloat16>(elems, vector,
                                                           optimizer, state);
}

/// Bytes of an element of a state of precision `prec` (embrtStatePrecision).
size_t stateBytes(embrtStatePrecision prec) {
  return prec == EMBRT_STATE_F32 ? 4 : prec == EMBRT_STATE_BF16 ? 2 : 1;
}

/// Whether a call stores some state below f32 (the kState kernels and the
/// workspace's StateMeta).
bool quantizedStates(const embrtTbeBackwardArgs *a) {
  return a->optimizer != EMBRT_OPTIMIZER_SGD &&
         (a->momentum1Precision != EMBRT_STATE_F32 ||
          (a->optimizer == EMBRT_OPTIMIZER_ADAM &&
           a->momentum2Precision != EMBRT_STATE_F32));
}

/// The kState of a call's kernels (update.cuh): 0 when every state is f32,
/// with kStateFixed rowwise Adagrad's kStateM1 + its state's precision,
/// else 1.
int stateKind(const embrtTbeBackwardArgs *a) {
  if (!quantizedStates(a))
    return 0;
  if (kStateFixed && a->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
    return kStateM1 + (int)a->momentum1Precision;
  return 1;
}

//===----------------------------------------------------------------------===//
// Host side: the plan of a call
//===----------------------------------------------------------------------===//

size_t dtypeBytes(embrtDtype d) { return d == EMBRT_F32 ? 4 : 2; }

size_t alignUp(size_t x) { return (x + 255) & ~(size_t)255; }

int bitLength(unsigned long long x) {
  int n = 0;
  while (x) {
    ++n;
    x >>= 1;
  }
  return n;
}

FastDiv makeFastDiv(unsigned d) {
  FastDiv f;
  f.d = d ? d : 1;
  f.mul = 0;
  f.shr = 0;
  if (f.d != 1) {
    int l = 0;
    while ((1ull << l) < f.d)
      ++l;
    const int pw = 31 + l;
    f.mul = (unsigned)(((1ull << pw) + f.d - 1) / f.d);
    f.shr = (unsigned)(pw - 32);
  }
  return f;
}

/// Where everything of a call lives in the workspace: byte offsets, from the
/// shapes alone (no pointers), so that the query and the call agree.
struct Layout {
  int key64, endBit;
  unsigned long long totalRows;
  size_t ctrl, stateMeta, meta, keys0, keys1, vals0, vals1, bagOf, invCount,
      desc, chunks, countdown, partial, cub, cubBytes, total;
  unsigned cap, partialStride;
  int globalMeta;
  const TbeBwdConfig *cfg;
};

/// The CUB temporary storage of the sort, the encode and the scan of N
/// items (host queries: nothing runs).
template <typename K>
embrtStatus cubBytes(embrtLaunchEnv *env, int n, int endBit, size_t *bytes) {
  // The last answer of this thread (a training loop asks the same each step).
  static thread_local int lastN = -1, lastBits, lastSm;
  static thread_local size_t lastBytes;
  if (n == lastN && endBit == lastBits && env->smCount == lastSm) {
    *bytes = lastBytes;
    return EMBRT_OK;
  }
  size_t sort = 0, rle = 0, scan = 0;
  cub::DoubleBuffer<K> keys(nullptr, nullptr);
  cub::DoubleBuffer<unsigned> vals(nullptr, nullptr);
  cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
  TRY(embrtCudaCheck(env,
                     cub::DeviceRadixSort::SortPairs(nullptr, sort, keys, vals,
                                                     n, 0, endBit, stream),
                     "tbe_backward: cub::DeviceRadixSort size query"));
  TRY(embrtCudaCheck(env,
                     cub::DeviceRunLengthEncode::Encode(
                         nullptr, rle, (const K *)nullptr, (K *)nullptr,
                         (unsigned *)nullptr, (int *)nullptr, n, stream),
                     "tbe_backward: cub::DeviceRunLengthEncode size query"));
  TRY(embrtCudaCheck(
      env,
      cub::DeviceScan::ExclusiveSum(nullptr, scan, (const unsigned *)nullptr,
                                    (unsigned *)nullptr, n, stream),
      "tbe_backward: cub::DeviceScan size query"));
  *bytes = sort > rle ? (sort > scan ? sort : scan) : (rle > scan ? rle : scan);
  lastN = n;
  lastBits = endBit;
  lastSm = env->smCount;
  lastBytes = *bytes;
  return EMBRT_OK;
}

embrtStatus planLayout(embrtLaunchEnv *env, const embrtTbeBackwardArgs *a,
                       Layout *L) {
  const embrtTbeArgs *l = &a->lookup;
  const int64_t N = l->numIndices, numBags = l->numFeatures * l->batchSize;
  const TbeBwdShape shape = {N, numBags};
  L->cfg = tbeBwdGetConfig(tbeBwdResolveConfig(&shape, a->configId));
  unsigned long long total = 0;
  int64_t maxDim = 1;
  for (int64_t t = 0; t < l->numTables; ++t) {
    total += (unsigned long long)l->tableRows[t];
    maxDim = l->tableDims[t] > maxDim ? l->tableDims[t] : maxDim;
  }
  L->totalRows = total;
  L->key64 = total >= 0xffffffffull || L->cfg->keyBits == 64;
  L->endBit = bitLength(total);
  if (L->endBit < 1)
    L->endBit = 1;
  L->globalMeta =
      l->numTables > kParamTables || l->numFeatures > kParamFeatures;
  const size_t keyBytes = L->key64 ? 8 : 4;
  const int64_t spacing = tbeBwdChunkSpacing(L->cfg);
  L->cap = (unsigned)(N / spacing + 1);
  L->partialStride = (unsigned)((maxDim + 7) & ~7ll);
  size_t at = 0;
  auto take = [&](size_t bytes) {
    size_t here = at;
    at += alignUp(bytes);
    return here;
  };
  L->ctrl = take(sizeof(Control));
  // Right after Control, where the kernels find it (kStateMetaOffset).
  L->stateMeta =
      quantizedStates(a) ? take((size_t)l->numTables * sizeof(StateMeta)) : 0;
  L->meta = L->globalMeta ? take((size_t)l->numTables * sizeof(TableMeta) +
                                 (size_t)l->numFeatures * sizeof(FeatureMeta))
                          : 0;
  L->keys0 = take((size_t)N * keyBytes);
  L->keys1 = take((size_t)N * keyBytes);
  L->vals0 = take((size_t)N * 4);
  L->vals1 = take((size_t)N * 4);
  // Weighted SUM keeps each position's bag. The query may not have the
  // weights' pointer yet: every SUM reserves it.
  L->bagOf = l->pooling == EMBRT_POOLING_SUM ? take((size_t)N * 4) : 0;
  L->invCount =
      l->pooling == EMBRT_POOLING_MEAN ? take((size_t)numBags * 4) : 0;
  L->desc = take((size_t)kMaxBuckets * L->cap * sizeof(uint4));
  L->chunks = take((size_t)kMaxBuckets * L->cap * sizeof(uint4));
  L->countdown = take((size_t)kMaxBuckets * L->cap * 4);
  L->partial = take((size_t)L->cap * L->partialStride * 4);
  size_t cb = 0;
  if (N > 0) {
    if (L->key64)
      TRY(cubBytes<unsigned long long>(env, (int)N, L->endBit, &cb));
    else
      TRY(cubBytes<unsigned>(env, (int)N, L->endBit, &cb));
  }
  L->cubBytes = cb;
  L->cub = take(cb);
  L->total = at;
  return EMBRT_OK;
}

/// Elements from one gradient row to the next: gradRowStride, or the dense
/// row's width (the sum of D over features; D for pooling NONE).
int64_t gradRowPitch(const embrtTbeBackwardArgs *a) {
  const embrtTbeArgs *l = &a->lookup;
  if (a->gradRowStride)
    return a->gradRowStride;
  if (l->pooling == EMBRT_POOLING_NONE)
    return l->numFeatures ? l->tableDims[l->featureTables[0]] : 0;
  int64_t width = 0;
  for (int64_t f = 0; f < l->numFeatures; ++f)
    width += l->tableDims[l->featureTables[f]];
  return width;
}

/// The widest per-lane vector (power of two, at most 8 elements) for which
/// every access of table t is aligned: its gradient rows (every feature's
/// column, the row pitch `pitch` in elements), table rows and (Adam)
/// state rows.
int alignedElems(const embrtTbeBackwardArgs *a, int64_t t, int64_t pitch) {
  const embrtTbeArgs *l = &a->lookup;
  const int64_t D = l->tableDims[t];
  const size_t tsz = dtypeBytes(l->tableDtype), gsz = dtypeBytes(a->gradDtype);
  const int none = l->pooling == EMBRT_POOLING_NONE;
  auto ok = [&](int e) {
    if (D % e)
      return false;
    auto aligned = [&](uintptr_t base, uint64_t stride, size_t sz) {
      const uint64_t need = (uint64_t)e * sz < 16 ? (uint64_t)e * sz : 16;
      return base % need == 0 && stride * sz % need == 0;
    };
    if (!aligned((uintptr_t)l->tables[t], (uint64_t)D, tsz))
      return false;
    if (a->optimizer == EMBRT_OPTIMIZER_ADAM &&
        (!aligned((uintptr_t)a->momentum1[t], (uint64_t)D,
                  stateBytes(a->momentum1Precision)) ||
         !aligned((uintptr_t)a->momentum2[t], (uint64_t)D,
                  stateBytes(a->momentum2Precision))))
      return false;
    // Partial sums are f32 rows of a stride that is a multiple of 8.
    if (!aligned(0, 8, 4))
      return false;
    int64_t col = 0;
    for (int64_t f = 0; f < l->numFeatures; ++f) {
      const int64_t ft = l->featureTables[f];
      if (ft == t && !aligned((uintptr_t)a->gradOutput + (none ? 0 : col) * gsz,
                              (uint64_t)pitch, gsz))
        return false;
      col += l->tableDims[ft];
    }
    return true;
  };
  for (int e = 8; e > 1; e >>= 1)
    if (ok(e))
      return e;
  return 1;
}

//===----------------------------------------------------------------------===//
// Host side: launch
//===----------------------------------------------------------------------===//

/// Buckets, slots and key bases: tables sorted by bucket, then index.
embrtStatus buildMeta(embrtLaunchEnv *env, const embrtTbeBackwardArgs *a,
                      Params *P, TableMeta *tables, FeatureMeta *features) {
  const embrtTbeArgs *l = &a->lookup;
  const int64_t T = l->numTables, F = l->numFeatures;
  const int none = l->pooling == EMBRT_POOLING_NONE;
  const int64_t pitch = gradRowPitch(a);
  const int gradBytes = (int)dtypeBytes(a->gradDtype);

  // Each table's bucket.
  TbeBwdBucket *tb =
      static_cast<TbeBwdBucket *>(malloc(sizeof(TbeBwdBucket) * (T + 1)));
  int *order = static_cast<int *>(malloc(sizeof(int) * (T + 1)));
  int *bucketId = static_cast<int *>(malloc(sizeof(int) * (T + 1)));
  if (!tb || !order || !bucketId) {
    free(tb);
    free(order);
    free(bucketId);
    return embrtLaunchError(env, EMBRT_OUT_OF_MEMORY,
                            "tbe_backward: no host memory for %lld tables",
                            (long long)T);
  }
  for (int64_t t = 0; t < T; ++t)
    tb[t] = tbeBwdSelectBucket(gradBytes, l->tableDims[t],
                               alignedElems(a, t, pitch));
  // Distinct buckets; past kMaxBuckets, widen every bucket to 256 lanes
  // (always enough), which leaves at most 5.
  TbeBwdBucket distinct[32];
  int nb = 0;
  for (int pass = 0; pass < 2; ++pass) {
    nb = 0;
    for (int64_t t = 0; t < T; ++t) {
      if (pass)
        tb[t].lanes = TBE_BWD_MAX_LANES;
      int k = 0;
      while (k < nb && (distinct[k].lanes != tb[t].lanes ||
                        distinct[k].elems != tb[t].elems ||
                        distinct[k].vector != tb[t].vector))
        ++k;
      if (k == nb && nb < 32)
        distinct[nb++] = tb[t];
      bucketId[t] = k;
    }
    if (nb <= kMaxBuckets)
      break;
  }
  // Slot order: by bucket, then by table index.
  int n = 0;
  for (int b = 0; b < nb; ++b)
    for (int64_t t = 0; t < T; ++t)
      if (bucketId[t] == b)
        order[n++] = (int)t;
  int *slotOf = static_cast<int *>(malloc(sizeof(int) * (T + 1)));
  unsigned long long key = 0;
  for (int b = 0, slot = 0; b < nb; ++b) {
    BucketMeta &bm = P->buckets[b];
    bm.lanes = distinct[b].lanes;
    bm.elems = distinct[b].elems;
    bm.vector = distinct[b].vector;
    bm.firstSlot = slot;
    bm.pad = 0;
    while (slot < T && bucketId[order[slot]] == b) {
      const int t = order[slot];
      TableMeta &m = tables[slot];
      m.table = static_cast<char *>(const_cast<void *>(l->tables[t]));
      m.m1 = a->momentum1 ? static_cast<float *>(a->momentum1[t]) : nullptr;
      m.m2 = a->momentum2 ? static_cast<float *>(a->momentum2[t]) : nullptr;
      m.keyBase = key;
      m.rows = (unsigned)l->tableRows[t];
      m.dim = (unsigned)l->tableDims[t];
      m.index = t;
      m.bucket = b;
      key += (unsigned long long)l->tableRows[t];
      if (slotOf)
        slotOf[t] = slot;
      ++slot;
    }
    bm.endSlot = slot;
    bm.keyEnd = key;
  }
  int64_t col = 0;
  for (int64_t f = 0; f < F && slotOf; ++f) {
    const int64_t t = l->featureTables[f];
    features[f].slot = (unsigned)slotOf[t];
    features[f].col = none ? 0u : (unsigned)col;
    col += l->tableDims[t];
  }
  P->s.numBuckets = nb;
  const int ok = slotOf != nullptr;
  free(tb);
  free(order);
  free(bucketId);
  free(slotOf);
  if (!ok)
    return embrtLaunchError(env, EMBRT_OUT_OF_MEMORY,
                            "tbe_backward: no host memory for %lld tables",
                            (long long)T);
  return EMBRT_OK;
}

/// CTAs for a persistent grid of `kernel` (threads kThreads): as many as fit
/// at once, at most `needed`, at least 1. The occupancy query is made once
/// per kernel and thread (a step launches up to a dozen kernels; the host
/// time of small steps counts).
template <typename Kernel>
unsigned persistentGrid(embrtLaunchEnv *env, Kernel kernel, long long needed) {
  static thread_local const void *known[64];
  static thread_local int knownPerSm[64], numKnown;
  int perSm = 0;
  for (int i = 0; i < numKnown; ++i)
    if (known[i] == reinterpret_cast<const void *>(kernel))
      perSm = knownPerSm[i];
  if (perSm == 0) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads,
                                                      0) != cudaSuccess ||
        perSm < 1) {
      cudaGetLastError();
      perSm = 1;
    }
    if (numKnown < 64) {
      known[numKnown] = reinterpret_cast<const void *>(kernel);
      knownPerSm[numKnown++] = perSm;
    }
  }
  long long grid = (long long)perSm * (env->smCount > 0 ? env->smCount : 1);
  if (needed < grid)
    grid = needed;
  return (unsigned)(grid > 0 ? grid : 1);
}

template <typename K>
embrtStatus launchSteps(embrtLaunchEnv *env, const embrtTbeBackwardArgs *a,
                        const Layout &L, Params &P) {
  cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
  const embrtTbeArgs *l = &a->lookup;
  const long long N = l->numIndices, numBags = P.s.numBags;
  char *ws = static_cast<char *>(a->workspace);

  // 1. Keys and values.
  {
    const long long units = (numBags + 31) / 32;
    const long long blocks = (units + kWarps - 1) / kWarps;
    const unsigned grid = persistentGrid(env, linearizeKernel<K>, blocks);
    linearizeKernel<K><<<grid, kThreads, 0, stream>>>(P);
    TRY(embrtCudaCheck(env, cudaGetLastError(),
                       "tbe_backward: linearize kernel launch"));
  }
  if (N == 0)
    return EMBRT_OK;

  // 2-3. Sort, run-length encode, run starts.
  cub::DoubleBuffer<K> keys(reinterpret_cast<K *>(ws + L.keys0),
                            reinterpret_cast<K *>(ws + L.keys1));
  cub::DoubleBuffer<unsigned> vals(reinterpret_cast<unsigned *>(ws + L.vals0),
                                   reinterpret_cast<unsigned *>(ws + L.vals1));
  size_t cubBytes = L.cubBytes;
  void *cubTemp = ws + L.cub;
  TRY(embrtCudaCheck(env,
                     cub::DeviceRadixSort::SortPairs(cubTemp, cubBytes, keys,
                                                     vals, (int)N, 0, L.endBit,
                                                     stream),
                     "tbe_backward: cub::DeviceRadixSort::SortPairs"));
  K *unique = keys.Alternate();
  unsigned *counts = vals.Alternate();
  unsigned *starts = reinterpret_cast<unsigned *>(keys.Current());
  Control *ctrl = reinterpret_cast<Control *>(ws + L.ctrl);
  cubBytes = L.cubBytes;
  TRY(embrtCudaCheck(env,
                     cub::DeviceRunLengthEncode::Encode(
                         cubTemp, cubBytes, keys.Current(), unique, counts,
                         &ctrl->numRuns, (int)N, stream),
                     "tbe_backward: cub::DeviceRunLengthEncode::Encode"));
  cubBytes = L.cubBytes;
  TRY(embrtCudaCheck(env,
                     cub::DeviceScan::ExclusiveSum(cubTemp, cubBytes, counts,
                                                   starts, (int)N, stream),
                     "tbe_backward: cub::DeviceScan::ExclusiveSum"));
  P.s.unique = unique;
  P.s.starts = starts;
  P.s.sortedVals = vals.Current();

  // 4. Classify.
  {
    const unsigned grid =
        persistentGrid(env, classifyKernel<K>, (N + kThreads - 1) / kThreads);
    classifyKernel<K><<<grid, kThreads, 0, stream>>>(P);
    TRY(embrtCudaCheck(env, cudaGetLastError(),
                       "tbe_backward: classify kernel launch"));
  }

  // 5. Accumulate and update, one launch per bucket (with
  // EMB_TBE_BWD_OCC two: the long chunks, then the short runs).
  for (int b = 0; b < P.s.numBuckets; ++b) {
    const BucketMeta &bm = P.buckets[b];
    const Accumulate acc = accumulateFor(l->tableDtype, a->gradDtype, bm.elems,
                                         bm.vector, a->optimizer, stateKind(a));
    const long long groupsPerCta = kThreads / bm.lanes;
    // Work items a group takes: at most N / spacing chunks plus the units
    // (none with the short-run kernel).
    const long long work =
        (long long)L.cap +
        (acc.shortRuns ? 0 : (N + kUnitRuns - 1) / kUnitRuns);
    const unsigned grid =
        persistentGrid(env, acc.fn, (work + groupsPerCta - 1) / groupsPerCta);
    acc.fn<<<grid, kThreads, 0, stream>>>(P, b);
    TRY(embrtCudaCheck(env, cudaGetLastError(),
                       "tbe_backward: accumulate kernel launch"));
    if (acc.shortRuns) {
      // At most N runs, one a group at a time.
      const unsigned shortGrid = persistentGrid(
          env, acc.shortRuns, (N + groupsPerCta - 1) / groupsPerCta);
      acc.shortRuns<<<shortGrid, kThreads, 0, stream>>>(P, b);
      TRY(embrtCudaCheck(env, cudaGetLastError(),
                         "tbe_backward: short-run kernel launch"));
    }
  }
  return EMBRT_OK;
}

} // namespace

#endif // EMB_KERNELS_TBE_BACKWARD_LAUNCH_CUH
