//===- kernels/attention_additive_mask.cu - SDPA's additive key mask ------===//
//
// emb.attention's additive_mask (embrtAttentionArgs::additiveMask): the key
// lengths stand for the -inf that PyTorch's math attention adds to the
// scores of the masked keys, so a masked key's NaN or +inf score makes its
// row NaN and a masked key's non-finite value makes its elements NaN. The
// main kernels never read a masked key; after them, on the stream, two
// launches make the result what the math form gives:
//
//   1. maskedKeysKernel, a block per (user, head): the largest magnitude of
//      the user's masked keys (j >= length), or +inf when a masked key or
//      value holds a non-finite element, into the workspace;
//   2. additiveMaskKernel, a warp per (row, head): the largest magnitude of
//      the row's queries; when every query and masked key is finite and the
//      scores provably stay in the data type's range (the bound the CPU
//      backend uses, runtime/cpu/attention.c), the main kernel's result
//      stands; otherwise the warp computes the (row, head) in the math form
//      over all Lk keys and overwrites it.
//
// On finite inputs in range the math form is never computed: the cost is
// the masked keys' and the queries' reads and two launches. Rows whose
// cand_to_user or length is out of range are left to the main kernel, which
// records the error.
//
//===----------------------------------------------------------------------===//

#include "kernels/attention_common.cuh"

#include <limits.h>
#include <math.h>

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

template <typename T>
__global__ void __launch_bounds__(256) maskedKeysKernel(MaskParams p) {
  const long long u = blockIdx.x / p.heads, h = blockIdx.x % p.heads;
  const long long keys = clampedLength(p, u);
  float top = 0.0f;
  int bad = 0;
  for (long long e = threadIdx.x; e < (p.lk - keys) * p.headDim;
       e += blockDim.x) {
    long long j = keys + e / p.headDim, d = e % p.headDim;
    long long at = ((u * p.lk + j) * p.heads + h) * p.headDim + d;
    float kx = load<T>(p.k, at), vx = load<T>(p.v, at);
    bad |= !isfinite(kx) || !isfinite(vx);
    top = fmaxf(top, fabsf(kx));
  }
  __shared__ float tops[8];
  top = warpMax(top);
  if ((threadIdx.x & 31) == 0)
    tops[threadIdx.x >> 5] = top;
  bad = __syncthreads_or(bad);
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w)
      top = fmaxf(top, tops[w]);
    p.maskedMax[blockIdx.x] = bad ? INFINITY : top;
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

template <typename T>
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
  float qmax = 0.0f;
  for (long long e = lane; e < p.lq * p.headDim; e += 32) {
    long long i = e / p.headDim, d = e % p.headDim;
    float x = load<T>(p.q, ((b * p.lq + i) * p.heads + h) * p.headDim + d);
    qmax = isfinite(x) ? fmaxf(qmax, fabsf(x)) : INFINITY;
  }
  qmax = warpMax(qmax);
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

template <typename T>
embrtStatus launch(embrtLaunchEnv *env, const MaskParams &p) {
  cudaStream_t stream = (cudaStream_t)env->stream;
  maskedKeysKernel<T><<<(unsigned)(p.users * p.heads), 256, 0, stream>>>(p);
  embrtStatus st = embrtCudaCheck(env, (int)cudaGetLastError(),
                                  "attention: masked keys launch");
  if (st != EMBRT_OK)
    return st;
  additiveMaskKernel<T>
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
  if (p.batch == 0 || p.users == 0 || p.lq == 0 || p.heads == 0 ||
      p.headDim == 0)
    return EMBRT_OK;
  if (p.users * p.heads > INT_MAX || (p.batch * p.heads + 3) / 4 > INT_MAX)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "attention: too many rows for the additive mask's "
                            "grid");
  switch (args->dtype) {
  case EMBRT_F16:
    return launch<__half>(env, p);
  case EMBRT_BF16:
    return launch<__nv_bfloat16>(env, p);
  default:
    return launch<float>(env, p);
  }
}
