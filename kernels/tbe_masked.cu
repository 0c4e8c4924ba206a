//===- kernels/tbe_masked.cu - TBE forward over masked offsets -*- C++ -*-===//
//
// The forward of emb.tbe whose offsets are read as a mask
// (embrtTbeArgs::maskedOffsets): bag b of feature f holds the feature's ids
// at the positions j (from 0 within the feature) with lo <= j < hi, lo and hi
// its two offsets in the feature's own numbers, whatever they hold. Offsets
// that are valid by the usual rules make the usual lookup, so the usual
// kernels run it at their usual speed, and this file decides which and
// covers the rest, all on the stream (no host synchronisation: a graph
// captures it), around the usual launches of kernels/tbe.cu:
//   1. tbeLaunchMaskCheck: a flag in the workspace cleared
//      (cudaMemsetAsync), then tbeMaskCheckKernel, which sets it when the
//      offsets (or feature ends) break the usual rules, those of
//      runtime/cpu/tbe.c's embrtCpuCheckTbeOffsets. It records no error.
//   2. the usual launches, whose CTAs return at once when the flag is set
//      (Shared::maskFlag);
//   3. tbeLaunchMasked: tbeMaskedKernel, one launch a row format (the
//      usual launches' parameter blocks), whose CTAs return at once when the
//      flag is clear; otherwise it writes every bag of its features under the
//      masked rules and checks every id of them (boundsCheck), in a bag or
//      not, and the feature ends (an error when out of order, as the CPU
//      backend's; the lookup then runs with them clamped and checks no id,
//      the check kernel having told it so: kMaskBadEnds).
// The masked kernel serves bad inputs: simple over fast. A warp pools a bag,
// its lanes across the columns, the bag's positions clamped into the
// feature's, so nothing is read out of bounds whatever the offsets hold; the
// id checks are a grid-stride loop over all positions apart from the bags,
// so that an id is counted once (EMBRT_BOUNDS_WARNING) however many bags
// hold it. Sums as the usual kernels': f64 for f32 tables, f32 for the
// others, packed rows read by kernels/tbe_forward.cuh's Format<Packed<P>>
// and summed in f32 (int rows' biases apart); a mean divides in f64 and the
// result is rounded once to the output type.
//
//===----------------------------------------------------------------------===//

#include "kernels/tbe_forward.cuh"

namespace {

/// Threads of the check and the masked kernels' CTAs, and the most CTAs the
/// masked kernel takes (grid-stride beyond). The masked kernel's CTAs return at
/// once for valid offsets, so its grid stays small.
constexpr int kMaskThreads = 256;
constexpr long long kMaskMaxCtas = 512;
/// The check's grid cap: one offset a thread up to 2^24 of them, so that
/// their loads are all in flight at once (a grid-stride loop of 512 CTAs
/// waited on its loads an iteration at a time: 45 us for 4.2e6 offsets).
constexpr long long kMaskCheckMaxCtas = 65536;
/// The flag's bit set beside bit 0 when the feature ends are out of order.
constexpr unsigned kMaskBadEnds = 2;

//===----------------------------------------------------------------------===//
// The check: are the offsets valid by the usual rules?
//===----------------------------------------------------------------------===//

/// What tbeMaskCheckKernel reads.
struct MaskCheck {
  const void *offsets;     ///< [F*B+1]
  const void *featureEnds; ///< [2F] or NULL
  unsigned *flag;
  long long features, batch, numIndices;
  int off64;
};

__device__ __forceinline__ long long entry(const void *p, int off64,
                                           long long i) {
  return embrt::loadIndex<embrt::IndexLoad::ReadOnly>(p, off64, i);
}

/// Feature f's ids [start, start + count) by its ends, or false when they
/// are out of order or past N (the last not at N).
__device__ bool featureSpan(const MaskCheck &c, long long f, long long *start,
                            long long *count) {
  const long long N = c.numIndices;
  const long long begin = f > 0 ? entry(c.featureEnds, c.off64, f - 1) : 0;
  const long long end = entry(c.featureEnds, c.off64, f);
  if (begin < 0 || end < begin || end > N || (f + 1 == c.features && end != N))
    return false;
  *start = begin;
  *count = end - begin;
  return true;
}

/// Whether offsets[i] keeps the usual rules (i in [0, F*B]): without
/// feature ends, offsets[0] is 0, none decreases or passes N, the last is N;
/// with them, each feature's offsets in its own numbers (less where its ids
/// start) start at 0, never decrease and stay within its id count, and the
/// last of all is N.
__device__ bool offsetValid(const MaskCheck &c, long long i) {
  const long long N = c.numIndices, bags = c.features * c.batch;
  const long long v = entry(c.offsets, c.off64, i);
  if (i == bags && v != N)
    return false;
  if (!c.featureEnds)
    return v <= N && (i == 0 ? v == 0 : v >= entry(c.offsets, c.off64, i - 1));
  if (i == bags)
    return true;
  const long long f = i / c.batch, b = i - f * c.batch;
  long long start, count;
  if (!featureSpan(c, f, &start, &count))
    return false;
  const long long own = ownOffset(v, start);
  if (own > count)
    return false;
  return b == 0 ? own == 0
                : own >= ownOffset(entry(c.offsets, c.off64, i - 1), start);
}

/// With feature ends: whether feature f's ends keep the usual rules, and its
/// own last offset (featureEnds[F + f]) follows its offsets and is its id
/// count.
__device__ bool featureValid(const MaskCheck &c, long long f) {
  long long start, count;
  if (!featureSpan(c, f, &start, &count))
    return false;
  const long long B = c.batch;
  if (B == 0) // its offsets[0], the lookup's, is its first and its last
    return ownOffset(entry(c.offsets, c.off64, 0), start) == 0 && count == 0;
  const long long last = entry(c.featureEnds, c.off64, c.features + f);
  return last == count &&
         last >= ownOffset(entry(c.offsets, c.off64, f * B + B - 1), start);
}

/// tbeMaskCheckKernel: sets bit 0 of *c.flag when the offsets (and feature
/// ends) are not valid by the usual rules, and kMaskBadEnds too when the
/// feature ends themselves are out of order; writes nothing else.
///
/// Work unit: one offset (F*B + 1 of them) or, with feature ends, one
///   feature's ends (F more), each checked against its neighbours.
/// Grid: min(ceil(units / kMaskThreads), kMaskCheckMaxCtas) CTAs,
///   grid-stride.
/// Block: kMaskThreads threads, one unit each a stride.
__global__ void __launch_bounds__(kMaskThreads)
    tbeMaskCheckKernel(const MaskCheck c) {
  const long long offsets = c.features * c.batch + 1;
  const long long units = offsets + (c.featureEnds ? c.features : 0);
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       i < units; i += stride) {
    long long start, count;
    if (i >= offsets && !featureSpan(c, i - offsets, &start, &count)) {
      atomicOr(c.flag, kMaskBadEnds | 1u);
      return;
    }
    if (!(i < offsets ? offsetValid(c, i) : featureValid(c, i - offsets))) {
      atomicOr(c.flag, 1u);
      return;
    }
  }
}

//===----------------------------------------------------------------------===//
// The masked lookup: device helpers
//===----------------------------------------------------------------------===//

/// a - b in the offsets' width (i32 or i64), sign-extended.
__device__ __forceinline__ long long wrapSub(long long a, long long b,
                                             bool off64) {
  const unsigned long long d = (unsigned long long)a - (unsigned long long)b;
  return off64 ? (long long)d : (long long)(int)(unsigned)d;
}

/// Feature f's positions: `size` ids from `begin` (its ends clamped into a
/// non-decreasing range of [0, N]), and `shift`, what its offsets are less
/// in its own numbers (its first end, as it is).
struct Span {
  long long shift, begin, size;
};

__device__ Span spanOf(const Shared &s, int f) {
  if (!s.featureEnds) // one feature: the lookup's positions and offsets
    return {0, 0, s.numIndices};
  const long long N = s.numIndices;
  const long long shift = f > 0 ? loadEnd(s, f - 1) : 0;
  const long long begin = min(max(shift, 0ll), N);
  const long long end = min(max(loadEnd(s, f), begin), N);
  return {shift, begin, end - begin};
}

/// Bag b of feature f: its offsets lo and hi in the feature's own numbers.
struct Bag {
  long long lo, hi;
  /// The positions it sums, [first, end) of the feature's, clamped.
  __device__ long long first(const Span &sp) const {
    return min(max(lo, 0ll), sp.size);
  }
  __device__ long long end(const Span &sp) const {
    return min(max(hi, first(sp)), sp.size);
  }
};

__device__ Bag bagOf(const Shared &s, const Span &sp, int f, long long b) {
  const long long g = (long long)f * s.batch + b;
  Bag bag;
  bag.lo = wrapSub(loadOffset(s, g), sp.shift, s.off64);
  bag.hi = s.featureEnds && b + 1 == s.batch
               ? loadEnd(s, s.numFeatures + f) // its own last, not shifted
               : wrapSub(loadOffset(s, g + 1), sp.shift, s.off64);
  return bag;
}

/// Whether id `id` adds a row of feature meta `m` (not padding, in the
/// table).
__device__ __forceinline__ bool isPadding(const Shared &s, long long id) {
  return s.hasPadding && id == s.paddingIdx;
}
__device__ __forceinline__ bool inTable(const FeatureMeta &m, long long id) {
  return (unsigned long long)id < (unsigned long long)m.rows;
}

/// Element `col` of output row `bag`: `v` rounded once to the output type.
__device__ __forceinline__ void storeOut(const Shared &s, long long bag,
                                         long long col, double v) {
  const long long i = bag * s.outStride + col;
  if (s.outF32)
    static_cast<float *>(s.output)[i] = (float)v;
  else if (s.outBf16)
    static_cast<__nv_bfloat16 *>(s.output)[i] = __double2bfloat16(v);
  else
    static_cast<__half *>(s.output)[i] = __double2half(v);
}

/// The pooled value of a sum `sum` of a bag whose offsets are `bag`.
__device__ __forceinline__ double pooled(const Shared &s, const Bag &bag,
                                         double sum) {
  if (s.pooling != EMBRT_POOLING_MEAN)
    return sum;
  const long long n = wrapSub(bag.hi, bag.lo, s.off64);
  return sum / (double)(n > 1 ? n : 1);
}

/// Dense rows of T: lane `lane` sums columns lane, lane + 32, ... of the
/// rows at positions [first, end) of the feature's, kCols columns a pass.
template <typename T>
__device__ void poolDense(const Shared &s, const FeatureMeta &m, const Span &sp,
                          const Bag &bag, long long b, int lane) {
  using Acc = typename Elem<T>::Acc;
  constexpr int kCols = 4;
  const T *table = reinterpret_cast<const T *>(m.table);
  const long long first = sp.begin + bag.first(sp);
  const long long end = sp.begin + bag.end(sp);
  for (int c0 = 0; c0 < m.dim; c0 += 32 * kCols) {
    Acc acc[kCols];
#pragma unroll
    for (int k = 0; k < kCols; ++k)
      acc[k] = 0;
    for (long long pos = first; pos < end; ++pos) {
      const long long id = loadIndex<TbeIdLoad::ReadOnly>(s, pos);
      if (isPadding(s, id) || !inTable(m, id))
        continue;
      const T *row = table + (unsigned long long)id * m.dim;
      const Acc w = s.weightKind ? (Acc)loadWeight(s, pos) : Acc(1);
#pragma unroll
      for (int k = 0; k < kCols; ++k) {
        const int col = c0 + k * 32 + lane;
        if (col < m.dim) {
          const Acc x = (Acc)embrt::toCompute(__ldg(row + col));
          acc[k] = s.weightKind ? fma(w, x, acc[k]) : acc[k] + x;
        }
      }
    }
#pragma unroll
    for (int k = 0; k < kCols; ++k) {
      const int col = c0 + k * 32 + lane;
      if (col < m.dim)
        storeOut(s, b, m.outCol + col, pooled(s, bag, (double)acc[k]));
    }
  }
}

/// Packed rows (T: Packed<P>): lane `lane` decodes chunks lane, lane + 32,
/// ... of each row (Format<T>::chunks, as the usual kernel splits them) and
/// sums their values, int rows' products and biases apart.
template <typename T>
__device__ void poolPacked(const Shared &s, const FeatureMeta &m,
                           const Span &sp, const Bag &bag, long long b,
                           int lane) {
  using F = Format<T>;
  constexpr int kW = F::kVec / 4;
  constexpr int kN = F::elems(F::kVec);
  constexpr bool kApart = !F::kFp8;
  const unsigned rowBytes = F::rowBytes(m.dim);
  const long long first = sp.begin + bag.first(sp);
  const long long end = sp.begin + bag.end(sp);
  for (int chunk = lane; chunk < F::chunks(m.dim); chunk += 32) {
    // The chunk's bytes in the row: as stored, or (kDataLanes) the
    // elements' chunk, 4 bytes on, whose words past the row read as zeros.
    const unsigned at = kDataLanes ? 4 + chunk * F::kVec : chunk * F::kVec;
    float acc[kN];
#pragma unroll
    for (int i = 0; i < kN; ++i)
      acc[i] = 0;
    float biasSum = 0;
    for (long long pos = first; pos < end; ++pos) {
      const long long id = loadIndex<TbeIdLoad::ReadOnly>(s, pos);
      if (isPadding(s, id) || !inTable(m, id))
        continue;
      const unsigned *row = reinterpret_cast<const unsigned *>(
          m.table + (unsigned long long)id * rowBytes);
      const float w = s.weightKind ? loadWeight(s, pos) : 1.0f;
      const typename F::Header h = F::header(__ldg(row));
      unsigned words[kW];
#pragma unroll
      for (int i = 0; i < kW; ++i)
        words[i] = at + 4 * i < rowBytes ? __ldg(row + at / 4 + i) : 0u;
      float v[kN];
      F::template decode<kN, kApart>(words, h, v);
#pragma unroll
      for (int i = 0; i < kN; ++i)
        acc[i] = s.weightKind ? fmaf(w, v[i], acc[i]) : acc[i] + v[i];
      if constexpr (kApart)
        biasSum = s.weightKind ? fmaf(w, h.bias, biasSum) : biasSum + h.bias;
    }
    const int e0 = F::firstElem(chunk);
#pragma unroll
    for (int i = 0; i < kN; ++i) {
      const int e = e0 + i;
      if (e >= 0 && e < m.dim) // not the header, nor the padding after
        storeOut(s, b, m.outCol + e,
                 pooled(s, bag, kApart ? acc[i] + biasSum : acc[i]));
    }
  }
}

/// Records feature f's end when it is before its start or past N (the last
/// not at N), as the usual lookup's check does
/// (EMBRT_DEVERR_BAD_FEATURE_OFFSETS with index -1).
__device__ void checkFeatureEnd(const Shared &s, int f) {
  const long long N = s.numIndices;
  const long long start = f > 0 ? loadEnd(s, f - 1) : 0, end = loadEnd(s, f);
  if (end < start || end > N || (f + 1 == s.numFeatures && end != N))
    embrtDeviceRecordError(s.errors, EMBRT_DEVERR_BAD_FEATURE_OFFSETS, f, -1,
                           -1, end, N);
}

/// The feature whose positions hold position p, or -1 (past every feature,
/// or feature ends out of order): the first f with featureEnds[f] > p.
__device__ int featureAt(const Shared &s, long long p) {
  if (!s.featureEnds)
    return 0;
  int lo = 0, hi = s.numFeatures;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (loadEnd(s, mid) > p)
      hi = mid;
    else
      lo = mid + 1;
  }
  if (lo == s.numFeatures)
    return -1;
  const Span sp = spanOf(s, lo);
  return p >= sp.begin && p < sp.begin + sp.size ? lo : -1;
}

/// Out of the hot loop: records id `id` at position p of feature f outside
/// its table (EMBRT_BOUNDS_FATAL), in the first bag that holds it, or bag -1
/// when none does. The bags are searched only while no error is recorded.
__device__ __noinline__ void reportMaskedBadId(const Shared &s,
                                               const FeatureMeta &m, int f,
                                               long long p, long long id) {
  if (*reinterpret_cast<volatile int *>(&s.errors->code) != 0)
    return;
  const Span sp = spanOf(s, f);
  const long long j = p - sp.begin;
  long long holder = -1;
  for (long long b = 0; b < s.batch && holder < 0; ++b) {
    const Bag bag = bagOf(s, sp, f, b);
    if (bag.first(sp) <= j && j < bag.end(sp))
      holder = b;
  }
  embrtDeviceRecordBadId(s.errors, f, m.tableIndex, holder, p, id, m.rows);
}

//===----------------------------------------------------------------------===//
// The masked lookup: the kernel
//===----------------------------------------------------------------------===//

/// tbeMaskedKernel<T, kCap>: the lookup of masked offsets that are not valid
/// by the usual rules, for the features of one row format (T: a dense table
/// type or Packed<P>; the launch's parameter block is the usual launch's, so
/// its other features have no columns, passes == 0).
///
/// Work unit: bag b of feature f (F*B of them), one warp; then position p
///   of the ids (N of them), one thread, for the bounds check.
/// Grid: min(max(ceil(F*B / warps a CTA), ceil(N / kMaskThreads)),
///   kMaskMaxCtas) CTAs, warp- and grid-stride.
/// Block: kMaskThreads threads; no shared memory.
/// One warp: the bag's positions clamped into its feature's, in order, each
///   id read by every lane; dense rows: lane l the columns l + 32k; packed
///   rows: lane l the chunks l + 32k.
template <typename T, int kCap>
__global__ void __launch_bounds__(kMaskThreads)
    tbeMaskedKernel(const __grid_constant__ Params<kCap> p) {
  const Shared &s = p.s;
  const unsigned flag = __ldg(s.maskFlag);
  if (!flag) // valid offsets: the usual kernels' lookup
    return;
  const FeatureMeta *global = s.metaGlobal;
  // Feature ends are emb's own layout, not the model's offsets: out of
  // order they are an error as ever (and the lookup runs clamped).
  for (long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       s.featureEnds && f < s.numFeatures;
       f += (long long)gridDim.x * blockDim.x)
    checkFeatureEnd(s, (int)f);
  const int lane = (int)threadIdx.x & 31;
  const long long warpsPerCta = blockDim.x >> 5;
  const long long bags = (long long)s.numFeatures * s.batch;
  for (long long u = blockIdx.x * warpsPerCta + (threadIdx.x >> 5); u < bags;
       u += gridDim.x * warpsPerCta) {
    const int f = (int)(u / s.batch);
    const FeatureMeta m = global ? global[f] : p.meta[f];
    if (m.passes == 0) // another launch's feature
      continue;
    const long long b = u - (long long)f * s.batch;
    const Span sp = spanOf(s, f);
    const Bag bag = bagOf(s, sp, f, b);
    if constexpr (Format<T>::kPacked)
      poolPacked<T>(s, m, sp, bag, b, lane);
    else
      poolDense<T>(s, m, sp, bag, b, lane);
  }

  // Every id of a feature, in a bag or not, checked once; not when the
  // feature ends are out of order (which feature holds a position is then
  // unknown: the ends' error is the lookup's, as on the CPU).
  if ((s.bounds != EMBRT_BOUNDS_FATAL && s.bounds != EMBRT_BOUNDS_WARNING) ||
      (flag & kMaskBadEnds))
    return;
  unsigned long long skipped = 0;
  for (long long pos = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       pos < s.numIndices; pos += (long long)gridDim.x * blockDim.x) {
    const int f = featureAt(s, pos);
    if (f < 0)
      continue;
    const FeatureMeta m = global ? global[f] : p.meta[f];
    if (m.passes == 0)
      continue;
    const long long id = loadIndex<TbeIdLoad::ReadOnly>(s, pos);
    if (isPadding(s, id) || inTable(m, id))
      continue;
    if (s.bounds == EMBRT_BOUNDS_FATAL)
      reportMaskedBadId(s, m, f, pos, id);
    else
      ++skipped;
  }
  if (s.bounds != EMBRT_BOUNDS_WARNING)
    return;
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    skipped += __shfl_down_sync(0xffffffffu, skipped, d);
  if (lane == 0)
    embrtDeviceCountInvalidIds(s.errors, skipped);
}

//===----------------------------------------------------------------------===//
// Instantiations: the three dense table types and the four packed
// precisions, two parameter-block sizes
//===----------------------------------------------------------------------===//

/// The masked kernel for launch `which` (launchesBefore) of `a`.
template <int kCap>
Kernel<kCap> maskedKernelFor(const embrtTbeArgs *a, int which) {
  switch (which) {
  case EMBRT_PRECISION_INT8:
    return tbeMaskedKernel<Packed<EMBRT_PRECISION_INT8>, kCap>;
  case EMBRT_PRECISION_INT4:
    return tbeMaskedKernel<Packed<EMBRT_PRECISION_INT4>, kCap>;
  case EMBRT_PRECISION_INT2:
    return tbeMaskedKernel<Packed<EMBRT_PRECISION_INT2>, kCap>;
  case EMBRT_PRECISION_FP8:
    return tbeMaskedKernel<Packed<EMBRT_PRECISION_FP8>, kCap>;
  default:
    break;
  }
  if (a->tableDtype == EMBRT_F32)
    return tbeMaskedKernel<float, kCap>;
  if (a->tableDtype == EMBRT_F16)
    return tbeMaskedKernel<__half, kCap>;
  return tbeMaskedKernel<__nv_bfloat16, kCap>;
}

/// Launches the masked kernel of launch `which`, over the metadata its usual
/// launch had: built again here within kCap features, else the copy that
/// launch left in the workspace.
template <int kCap>
embrtStatus launchMasked(embrtLaunchEnv *env, const embrtTbeArgs *a,
                         const TbeConfig *cfg, long long outStride, int which,
                         const unsigned *maskFlag) {
  Params<kCap> p;
  fillShared(env, a, cfg, outStride, maskFlag, p.s);
  if (a->numFeatures <= kCap) {
    if (buildMeta(a, cfg, outStride, which, p.meta) < 0)
      return EMBRT_OK; // refused by the usual launch already
  } else {
    p.s.metaGlobal = reinterpret_cast<const FeatureMeta *>(
        static_cast<const char *>(a->workspace) +
        (size_t)launchesBefore(a, which) * (size_t)a->numFeatures *
            sizeof(FeatureMeta));
  }
  const long long bags = a->numFeatures * a->batchSize;
  const long long byBags = (bags + kMaskThreads / 32 - 1) / (kMaskThreads / 32);
  const long long byIds = (a->numIndices + kMaskThreads - 1) / kMaskThreads;
  long long ctas = byBags > byIds ? byBags : byIds;
  ctas = ctas < 1 ? 1 : ctas > kMaskMaxCtas ? kMaskMaxCtas : ctas;
  Kernel<kCap> kernel = maskedKernelFor<kCap>(a, which);
  kernel<<<(unsigned)ctas, kMaskThreads, 0,
           static_cast<cudaStream_t>(env->stream)>>>(p);
  return embrtCudaCheck(env, cudaGetLastError(), "tbe: masked kernel launch");
}

} // namespace

//===----------------------------------------------------------------------===//
// Host side (called by kernels/tbe.cu)
//===----------------------------------------------------------------------===//

embrtStatus tbeLaunchMaskCheck(embrtLaunchEnv *env, const embrtTbeArgs *a,
                               unsigned *maskFlag) {
  cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
  embrtStatus status = embrtCudaCheck(
      env, cudaMemsetAsync(maskFlag, 0, sizeof *maskFlag, stream),
      "tbe: clearing the mask flag");
  if (status != EMBRT_OK)
    return status;
  MaskCheck c;
  c.offsets = a->offsets;
  c.featureEnds = a->featureEnds;
  c.flag = maskFlag;
  c.features = a->numFeatures;
  c.batch = a->batchSize;
  c.numIndices = a->numIndices;
  c.off64 = a->offsetDtype == EMBRT_I64;
  const long long units =
      c.features * c.batch + 1 + (c.featureEnds ? c.features : 0);
  long long ctas = (units + kMaskThreads - 1) / kMaskThreads;
  ctas = ctas > kMaskCheckMaxCtas ? kMaskCheckMaxCtas : ctas;
  tbeMaskCheckKernel<<<(unsigned)ctas, kMaskThreads, 0, stream>>>(c);
  return embrtCudaCheck(env, cudaGetLastError(), "tbe: mask check launch");
}

embrtStatus tbeLaunchMasked(embrtLaunchEnv *env, const embrtTbeArgs *a,
                            const TbeConfig *cfg, long long outStride,
                            const unsigned *maskFlag) {
  for (int which = EMBRT_PRECISION_DENSE; which <= EMBRT_PRECISION_FP8;
       ++which) {
    if (launchesBefore(a, which + 1) == launchesBefore(a, which))
      continue; // no feature of this row format
    embrtStatus status =
        a->numFeatures <= kSmallCap
            ? launchMasked<kSmallCap>(env, a, cfg, outStride, which, maskFlag)
            : launchMasked<kLargeCap>(env, a, cfg, outStride, which, maskFlag);
    if (status != EMBRT_OK)
      return status;
  }
  return EMBRT_OK;
}
