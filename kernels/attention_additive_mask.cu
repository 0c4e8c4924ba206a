//===- kernels/attention_additive_mask.cu - SDPA's additive key mask ------===//
//
// emb.attention's additive_mask (embrtAttentionArgs::additiveMask): the key
// lengths stand for the -inf that PyTorch's math attention adds to the
// scores of the masked keys, so a masked key's NaN or +inf score makes its
// row NaN and a masked key's non-finite value makes its elements NaN. The
// main kernels never read a masked key; after them, on the stream, two
// launches make the result what the math form gives:
//
//   1. maskedKeysKernel, blocks per (user, head) over slices of the keys:
//      the largest magnitude of the user's masked keys (j >= length), or
//      +inf when a masked key or value holds a non-finite element, into
//      the workspace (zeroed first);
//   2. additiveMaskKernel, a warp per (row, head): the largest magnitude of
//      the row's queries; when every query and masked key is finite and the
//      scores provably stay in the data type's range (the bound the CPU
//      backend uses, runtime/cpu/attention.c), the main kernel's result
//      stands; otherwise the warp computes the (row, head) in the math form
//      over all Lk keys and overwrites it.
//
// On finite inputs in range the math form is never computed: the cost is
// the masked keys' and the queries' reads, a memset and two launches. Rows
// whose cand_to_user or length is out of range are left to the main kernel,
// which records the error.
//
//===----------------------------------------------------------------------===//

#include "kernels/attention_common.cuh"

#include <limits.h>
#include <math.h>

#include <type_traits>

namespace {

using embrt::IndexLoad;
using embrt::loadIndex;

struct MaskParams {
  const void *q, *k, *v, *candToUser, *lengths;
  void *out;
  float *maskedMax; ///< [U * H]
  int lengthsI64;
  long long batch, users, lq, lk, heads, headDim;
  float scale;
};

template <typename T> struct DataMax;
template <> struct DataMax<__half> { static constexpr float value = 65504.0f; };
template <> struct DataMax<__nv_bfloat16> {
  static constexpr float value = 3.3895e38f;
};
template <> struct DataMax<float> {
  static constexpr float value = 3.4028235e38f;
};

template <typename T>
__device__ __forceinline__ float load(const void *p, long long i) {
  return embrt::toCompute(static_cast<const T *>(p)[i]);
}

/// x rounded to T and widened again.
template <typename T> __device__ __forceinline__ float roundData(float x) {
  return embrt::toCompute(embrt::fromCompute<T>(x));
}

/// The length of user u clamped to 0..Lk (a user no row reads may hold
/// anything; an out-of-range length a row reads is the main kernel's error).
__device__ __forceinline__ long long clampedLength(const MaskParams &p,
                                                   long long u) {
  long long n = loadIndex<IndexLoad::Plain>(p.lengths, p.lengthsI64, u);
  return n < 0 ? 0 : n > p.lk ? p.lk : n;
}

/// What a scan of rows gathers: the largest magnitude, and whether an
/// element was not finite.
struct Scan {
  float top = 0.0f;
  int bad = 0;
  __device__ void add(float x) {
    bad |= !isfinite(x);
    top = fmaxf(top, fabsf(x));
  }
};

/// One load of a scan: 16 bytes (kVec) or one element of T.
template <typename T, bool kVec> struct Chunk {
  using Word = typename std::conditional<kVec, uint4, T>::type;
  static constexpr int kElements = (int)(sizeof(Word) / sizeof(T));
  Word w;
  __device__ void load(const T *row, int c) {
    w = __ldg(reinterpret_cast<const Word *>(row) + c);
  }
  __device__ void addTo(Scan &scan) const {
    const T *x = reinterpret_cast<const T *>(&w);
#pragma unroll
    for (int t = 0; t < kElements; ++t)
      scan.add(embrt::toCompute(x[t]));
  }
};

/// Thread `tid` of `threads` scans its part of `rows` rows of `dh` elements,
/// `stride` elements apart from `base`: 16-byte loads where kVec (the
/// host checked the alignment), else one element a load. Rows go to
/// threads in blocks of whole rows, so a warp reads whole rows; where a row
/// is a load a thread or less, four rows' loads are in flight at once.
template <typename T, bool kVec>
__device__ void scanRows(const T *base, long long stride, int rows, int dh,
                         int tid, int threads, Scan &scan) {
  using C = Chunk<T, kVec>;
  const int chunks = dh / C::kElements;
  const int perRow = chunks < threads ? chunks : threads;
  const int rowStep = threads / perRow;
  const int row0 = tid / perRow, chunk0 = tid - row0 * perRow;
  if (row0 >= rowStep)
    return;
  if (chunks == perRow) { // one load a thread per row
    int r = row0;
    for (; r + 3 * rowStep < rows; r += 4 * rowStep) {
      C c[4];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        c[k].load(base + (r + k * rowStep) * stride, chunk0);
#pragma unroll
      for (int k = 0; k < 4; ++k)
        c[k].addTo(scan);
    }
    for (; r < rows; r += rowStep) {
      C c;
      c.load(base + r * stride, chunk0);
      c.addTo(scan);
    }
    return;
  }
  for (int r = row0; r < rows; r += rowStep)
    for (int k = chunk0; k < chunks; k += perRow) {
      C c;
      c.load(base + r * stride, k);
      c.addTo(scan);
    }
}

/// Block (x, y) scans slice y (`sliceRows` keys from y * sliceRows) of
/// user x / H's masked keys in head x % H, and raises maskedMax[x] (zeroed
/// before, a non-negative float's bits ordered as an int's) to its largest
/// key magnitude, or to +inf when a masked key or value there is not finite.
template <typename T, bool kVec>
__global__ void __launch_bounds__(256)
    maskedKeysKernel(MaskParams p, int sliceRows) {
  const long long u = blockIdx.x / p.heads, h = blockIdx.x % p.heads;
  const long long keys = clampedLength(p, u);
  const long long first = (long long)blockIdx.y * sliceRows;
  const long long start = first > keys ? first : keys;
  const long long end = first + sliceRows < p.lk ? first + sliceRows : p.lk;
  if (start >= end)
    return;
  const long long at = ((u * p.lk + start) * p.heads + h) * p.headDim;
  const int rows = (int)(end - start), dh = (int)p.headDim;
  Scan ks, vs;
  scanRows<T, kVec>(static_cast<const T *>(p.k) + at, p.heads * p.headDim, rows,
                    dh, threadIdx.x, blockDim.x, ks);
  scanRows<T, kVec>(static_cast<const T *>(p.v) + at, p.heads * p.headDim, rows,
                    dh, threadIdx.x, blockDim.x, vs);
  __shared__ float tops[8];
  float top = warpMax(ks.top);
  if ((threadIdx.x & 31) == 0)
    tops[threadIdx.x >> 5] = top;
  const int bad = __syncthreads_or(ks.bad | vs.bad);
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w)
      top = fmaxf(top, tops[w]);
    atomicMax(reinterpret_cast<int *>(p.maskedMax) + blockIdx.x,
              __float_as_int(bad ? INFINITY : top));
  }
}

/// Score j of query row qBase in the math form, before the mask, in every
/// lane: q and k scaled by r = sqrt(|scale|) and rounded to T, their
/// products summed in f32 and rounded to T.
template <typename T>
__device__ float mathScore(const MaskParams &p, long long qBase,
                           long long kBase, float r) {
  float acc = 0.0f;
  for (long long d = threadIdx.x & 31; d < p.headDim; d += 32)
    acc += roundData<T>(load<T>(p.q, qBase + d) * r) *
           roundData<T>(load<T>(p.k, kBase + d) * r);
  float s = roundData<T>(warpSum(acc));
  return p.scale < 0.0f ? -s : s;
}

template <typename T, bool kVec>
__global__ void __launch_bounds__(128) additiveMaskKernel(MaskParams p) {
  const long long w = (long long)blockIdx.x * 4 + (threadIdx.x >> 5);
  if (w >= p.batch * p.heads)
    return;
  const int lane = threadIdx.x & 31;
  const long long b = w / p.heads, h = w % p.heads;
  long long u = b;
  if (p.candToUser) {
    u = loadIndex<IndexLoad::Plain>(p.candToUser, p.lengthsI64, b);
    if (u < 0 || u >= p.users)
      return;
  }
  const long long keys =
      loadIndex<IndexLoad::Plain>(p.lengths, p.lengthsI64, u);
  if (keys < 0 || keys > p.lk || keys == p.lk)
    return; // out of range (the main kernel's error) or nothing masked
  Scan qs;
  scanRows<T, kVec>(
      static_cast<const T *>(p.q) + (b * p.lq * p.heads + h) * p.headDim,
      p.heads * p.headDim, (int)p.lq, (int)p.headDim, lane, 32, qs);
  const float qmax =
      __any_sync(0xffffffffu, qs.bad) ? INFINITY : warpMax(qs.top);
  const float kmax = p.maskedMax[u * p.heads + h];
  const float top = DataMax<T>::value, scale = fabsf(p.scale);
  const float r = sqrtf(scale), big = fmaxf(r, 1.0f);
  // NaN-free: qmax and kmax are magnitudes or +inf, so a failed bound is a
  // false comparison.
  if (qmax * big * 1.01f < top && kmax * big * 1.01f < top &&
      (double)p.headDim * qmax * kmax * fmax((double)scale, 1.0) * 1.03 < top)
    return;
  // The math form over every key, for each query of the row.
  for (long long i = 0; i < p.lq; ++i) {
    const long long qBase = ((b * p.lq + i) * p.heads + h) * p.headDim;
    bool allMasked = true, nan = false;
    float m = -INFINITY;
    for (long long j = 0; j < p.lk; ++j) {
      float s =
          mathScore<T>(p, qBase, ((u * p.lk + j) * p.heads + h) * p.headDim, r);
      if (j >= keys)
        s += -INFINITY; // NaN where s is NaN or +inf
      allMasked &= s == -INFINITY;
      nan |= isnan(s);
      m = fmaxf(m, s);
    }
    if (nan)
      m = NAN;
    float sum = 0.0f;
    if (!allMasked)
      for (long long j = 0; j < p.lk; ++j) {
        float s = mathScore<T>(p, qBase,
                               ((u * p.lk + j) * p.heads + h) * p.headDim, r);
        sum += expf((j >= keys ? s + -INFINITY : s) - m);
      }
    // Each lane's head-dim positions in chunks of 32 * 8.
    for (long long d0 = 0; d0 < p.headDim; d0 += 32 * 8) {
      float acc[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
      for (long long j = 0; j < p.lk; ++j) {
        const long long kBase = ((u * p.lk + j) * p.heads + h) * p.headDim;
        float prob = 0.0f;
        if (!allMasked) {
          float s = mathScore<T>(p, qBase, kBase, r);
          prob = roundData<T>(expf((j >= keys ? s + -INFINITY : s) - m) / sum);
        }
#pragma unroll
        for (int c = 0; c < 8; ++c) {
          long long d = d0 + c * 32 + lane;
          if (d < p.headDim)
            acc[c] += prob * load<T>(p.v, kBase + d);
        }
      }
#pragma unroll
      for (int c = 0; c < 8; ++c) {
        long long d = d0 + c * 32 + lane;
        if (d < p.headDim)
          static_cast<T *>(p.out)[qBase + d] = embrt::fromCompute<T>(acc[c]);
      }
    }
  }
}

template <typename T, bool kVec>
embrtStatus launch(embrtLaunchEnv *env, const MaskParams &p) {
  cudaStream_t stream = (cudaStream_t)env->stream;
  embrtStatus st = embrtCudaCheck(
      env,
      (int)cudaMemsetAsync(p.maskedMax, 0,
                           (size_t)(p.users * p.heads) * sizeof(float), stream),
      "attention: additive mask memset");
  if (st != EMBRT_OK)
    return st;
  // Slices of 128 keys (more where Lk needs more than 65535 of them).
  const long long slice = p.lk / 65535 + 1 > 128 ? p.lk / 65535 + 1 : 128;
  const dim3 grid((unsigned)(p.users * p.heads),
                  (unsigned)((p.lk + slice - 1) / slice));
  maskedKeysKernel<T, kVec><<<grid, 256, 0, stream>>>(p, (int)slice);
  st = embrtCudaCheck(env, (int)cudaGetLastError(),
                      "attention: masked keys launch");
  if (st != EMBRT_OK)
    return st;
  additiveMaskKernel<T, kVec>
      <<<(unsigned)((p.batch * p.heads + 3) / 4), 128, 0, stream>>>(p);
  return embrtCudaCheck(env, (int)cudaGetLastError(),
                        "attention: additive mask launch");
}

} // namespace

size_t attentionAdditiveMaskBytes(const embrtAttentionArgs *args) {
  return args->additiveMask && args->userLengths != nullptr
             ? (size_t)(args->numUsers * args->heads) * sizeof(float)
             : 0;
}

embrtStatus attentionLaunchAdditiveMask(embrtLaunchEnv *env,
                                        const embrtAttentionArgs *args,
                                        void *maskedMax) {
  MaskParams p;
  p.q = args->q;
  p.k = args->k;
  p.v = args->v;
  p.candToUser = args->candToUser;
  p.lengths = args->userLengths;
  p.out = args->output;
  p.maskedMax = static_cast<float *>(maskedMax);
  p.lengthsI64 = args->indexDtype == EMBRT_I64;
  p.batch = args->batchSize;
  p.users = args->numUsers;
  p.lq = args->lq;
  p.lk = args->lk;
  p.heads = args->heads;
  p.headDim = args->headDim;
  p.scale = args->scale;
  // Nothing to check without rows, or without keys (every length is then
  // 0 = Lk: nothing is masked).
  if (p.batch == 0 || p.users == 0 || p.lq == 0 || p.lk == 0 || p.heads == 0 ||
      p.headDim == 0)
    return EMBRT_OK;
  if (p.users * p.heads > INT_MAX || (p.batch * p.heads + 3) / 4 > INT_MAX)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "attention: too many rows for the additive mask's "
                            "grid");
  // 16-byte loads where every row of q, k and v starts 16-byte aligned.
  const size_t rowBytes = (size_t)p.headDim * embrtDtypeSize(args->dtype);
  const bool vec = rowBytes % 16 == 0 && ((uintptr_t)p.q & 15) == 0 &&
                   ((uintptr_t)p.k & 15) == 0 && ((uintptr_t)p.v & 15) == 0;
  switch (args->dtype) {
  case EMBRT_F16:
    return vec ? launch<__half, true>(env, p) : launch<__half, false>(env, p);
  case EMBRT_BF16:
    return vec ? launch<__nv_bfloat16, true>(env, p)
               : launch<__nv_bfloat16, false>(env, p);
  default:
    return vec ? launch<float, true>(env, p) : launch<float, false>(env, p);
  }
}
