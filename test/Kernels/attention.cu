// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/attention
//===- test/Kernels/attention.cu - GPU test of the attention kernels ------===//
//
// Checks embrtCudaLaunchAttention (emb.attention and emb.ikbo_attention) on
// the GPU against an f64 reference of broadcast attention: for candidate b,
// query i, head h, softmax over the first len(u) keys of user u =
// cand_to_user[b], zeros when the user has no keys or the candidate's data is
// bad. Every case draws fresh random inputs, poisons the output and the
// workspace (NaN bytes) before the launch and compares every element with
// |out - ref| <= atol + rtol * |ref|. The reference runs on the GPU (one CTA
// per query row, f64 throughout) and is itself checked against a CPU loop on
// small cases first.
//
// Usage: attention [--quick] [--filter SUBSTRING] [--exclude SUBSTRING]
//                  [--list] [--skip-wgmma]
//   --quick       a few small cases of every path (for compute-sanitizer);
//   --skip-wgmma  runs the automatic cases on the mma.sync path instead.
//
// The test calls the kernels' entry points directly with a launch
// environment it fills itself (test/Kernels/gpu_test.cuh), not through the
// runtime's CUDA backend.
//
//===----------------------------------------------------------------------===//

#include "kernels/attention_config.h"
#include "kernels/launch.h"
#include "test/Kernels/gpu_test.cuh"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

//===----------------------------------------------------------------------===//
// Device helpers: reference, comparison
//===----------------------------------------------------------------------===//

__device__ inline double toD(float x) { return x; }
__device__ inline double toD(__half x) { return toF(x); }
__device__ inline double toD(__nv_bfloat16 x) { return toF(x); }

struct RefArgs {
  const void *q, *k, *v;
  const void *c2u, *lengths;
  int i64;
  int B, U, Lq, Lk, H, Dh;
  double scale;
  float *out;
};

/// One CTA (128 threads) per query row (b, i, h), f64 throughout: scores of
/// every key in shared memory, max, exp, sum, then each thread one output
/// column. Rows of bad candidates or users without keys are zeros.
template <typename T> __global__ void referenceKernel(RefArgs a) {
  extern __shared__ double sh[];
  double *q = sh, *red = q + a.Dh, *s = red + 128;
  const long long row = blockIdx.x;
  const int h = (int)(row % a.H);
  const long long bi = row / a.H;
  const int b = (int)(bi / a.Lq);
  const long long base = row * a.Dh;
  long long u = a.c2u ? loadIdx(a.c2u, a.i64, b) : b;
  bool ok = u >= 0 && u < a.U;
  long long len = a.Lk;
  if (ok && a.lengths) {
    len = loadIdx(a.lengths, a.i64, u);
    ok = len >= 0 && len <= a.Lk;
  }
  if (!ok || len == 0) {
    for (int d = threadIdx.x; d < a.Dh; d += blockDim.x)
      a.out[base + d] = 0.f;
    return;
  }
  const T *Q = (const T *)a.q, *K = (const T *)a.k, *V = (const T *)a.v;
  for (int d = threadIdx.x; d < a.Dh; d += blockDim.x)
    q[d] = toD(Q[base + d]);
  __syncthreads();
  double mx = -INFINITY;
  for (int j = threadIdx.x; j < len; j += blockDim.x) {
    const T *kr = K + ((u * a.Lk + j) * a.H + h) * a.Dh;
    double dot = 0.0;
    for (int d = 0; d < a.Dh; ++d)
      dot += q[d] * toD(kr[d]);
    s[j] = dot * a.scale;
    mx = fmax(mx, s[j]);
  }
  red[threadIdx.x] = mx;
  __syncthreads();
  for (int w = 64; w > 0; w >>= 1) {
    if (threadIdx.x < w)
      red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + w]);
    __syncthreads();
  }
  mx = red[0];
  __syncthreads();
  double sum = 0.0;
  for (int j = threadIdx.x; j < len; j += blockDim.x) {
    s[j] = exp(s[j] - mx);
    sum += s[j];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int w = 64; w > 0; w >>= 1) {
    if (threadIdx.x < w)
      red[threadIdx.x] += red[threadIdx.x + w];
    __syncthreads();
  }
  sum = red[0];
  for (int d = threadIdx.x; d < a.Dh; d += blockDim.x) {
    double acc = 0.0;
    for (long long j = 0; j < len; ++j)
      acc += s[j] * toD(V[((u * a.Lk + j) * a.H + h) * a.Dh + d]);
    a.out[base + d] = (float)(acc / sum);
  }
}

struct CompareStats {
  unsigned long long bad;
  unsigned long long firstBad;
  unsigned maxErrBits;
};

template <typename T>
__global__ void compareKernel(const T *out, const float *ref, long long n,
                              float atol, float rtol, CompareStats *st) {
  float worst = 0.f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float o = (float)toD(out[i]), r = ref[i];
    float err = fabsf(o - r);
    if (!(err <= atol + rtol * fabsf(r))) {
      atomicAdd(&st->bad, 1ull);
      atomicMin(&st->firstBad, (unsigned long long)i);
    }
    if (err == err)
      worst = fmaxf(worst, err);
  }
  atomicMax(&st->maxErrBits, __float_as_uint(worst));
}

/// dst[i] = src[i] rounded to T (nearest even) and widened back: the
/// operands the conversion path (computeDtype) multiplies.
template <typename T>
__global__ void roundKernel(float *dst, const float *src, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    dst[i] = (float)toD(T(src[i]));
}

/// Counts the f32 outputs that T cannot hold: the conversion path's output
/// is its f16/bf16 kernel's, widened.
template <typename T>
__global__ void unroundedKernel(const float *out, long long n,
                                unsigned long long *count) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    if ((float)toD(T(out[i])) != out[i])
      atomicAdd(count, 1ull);
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

static size_t dsize(embrtDtype t) { return t == EMBRT_F32 ? 4 : 2; }

static const char *dname(embrtDtype t) {
  return t == EMBRT_F32 ? "f32" : t == EMBRT_F16 ? "f16" : "bf16";
}

template <typename F> static void byDtype(embrtDtype t, F f) {
  if (t == EMBRT_F32)
    f((float *)nullptr);
  else if (t == EMBRT_F16)
    f((__half *)nullptr);
  else
    f((__nv_bfloat16 *)nullptr);
}

static void fill(void *p, embrtDtype t, long long n, uint64_t seed, float lo,
                 float hi) {
  byDtype(t, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    fillKernel<T><<<1024, 256>>>((T *)p, n, seed, lo, hi);
  });
  CUDA_CHECK(cudaGetLastError());
}

/// One test case. users == 0: plain attention (K/V per candidate).
struct Case {
  std::string name;
  int B, users, Lq, Lk, H, Dh;
  embrtDtype dtype;
  int ragged;         ///< candidate counts per user vary in 1 .. 2B/U - 1
  int unsorted;       ///< cand_to_user shuffled
  int lengths;        ///< random user lengths in [0, Lk]
  int i64;            ///< int64 indices
  int bad;            ///< 1: bad cand_to_user entries, 2: bad lengths,
                      ///< 3: bad lengths of users no candidate reads only
  int gaps;           ///< only even users have candidates
  const char *config; ///< config row name, or NULL for the automatic choice
  float scale;        ///< 0: 1/sqrt(Dh)
  embrtDtype compute; ///< computeDtype: F32, or F16/BF16 for f32 data
};

static int configByName(const char *name) {
  if (!name)
    return -1;
  for (int i = 0; i < ATTENTION_NUM_CONFIGS; ++i)
    if (!strcmp(kAttentionConfigs[i].name, name))
      return i;
  fprintf(stderr, "unknown config %s\n", name);
  exit(2);
}

static float atolFor(embrtDtype t) { return t == EMBRT_BF16 ? 4e-3f : 1e-3f; }
static float rtolFor(embrtDtype t) { return t == EMBRT_BF16 ? 1e-2f : 1e-4f; }

static uint64_t seedCounter = 0x1234567ull;

/// Builds cand_to_user (host) for a case.
static std::vector<long long> makeCandToUser(const Case &c, uint64_t seed) {
  std::vector<long long> c2u(c.B);
  const int U = c.users;
  uint64_t r = seed;
  if (c.ragged) {
    int b = 0, u = 0;
    while (b < c.B) {
      int mean = c.B / U > 0 ? c.B / U : 1;
      int n = 1 + (int)(mix64(++r) %
                        (uint64_t)(2 * mean - 1 > 0 ? 2 * mean - 1 : 1));
      for (int i = 0; i < n && b < c.B; ++i)
        c2u[b++] = u;
      u = (u + 1) % U;
    }
    std::vector<long long> sorted = c2u;
    std::sort(sorted.begin(), sorted.end());
    c2u = sorted;
  } else {
    int per = (c.B + U - 1) / U;
    for (int b = 0; b < c.B; ++b)
      c2u[b] = b / per;
  }
  if (c.gaps)
    for (int b = 0; b < c.B; ++b)
      c2u[b] = (c2u[b] * 2) % U;
  if (c.unsorted)
    for (int i = c.B - 1; i > 0; --i) {
      int j = (int)(mix64(++r) % (uint64_t)(i + 1));
      std::swap(c2u[i], c2u[j]);
    }
  if (c.bad == 1 && c.B >= 3) {
    c2u[c.B / 3] = -1;
    c2u[c.B - 1] = U;
  }
  return c2u;
}

static std::vector<long long> makeLengths(const Case &c, uint64_t seed) {
  std::vector<long long> len(c.users);
  for (int u = 0; u < c.users; ++u) {
    uint64_t r = mix64(seed + u);
    len[u] = (long long)(r % (uint64_t)(c.Lk + 1));
    if (u % 7 == 0)
      len[u] = c.Lk;
    if (u % 11 == 5)
      len[u] = 0;
    if (u % 13 == 3)
      len[u] = 1;
  }
  if (c.bad == 2 && c.users >= 2) {
    len[0] = -3;
    len[c.users - 1] = c.Lk + 1;
  }
  return len;
}

static void *uploadIndices(const std::vector<long long> &v, int i64) {
  void *d = nullptr;
  if (i64) {
    CUDA_CHECK(cudaMalloc(&d, v.size() * 8 + 8));
    CUDA_CHECK(cudaMemcpy(d, v.data(), v.size() * 8, cudaMemcpyHostToDevice));
  } else {
    std::vector<int> w(v.begin(), v.end());
    CUDA_CHECK(cudaMalloc(&d, w.size() * 4 + 4));
    CUDA_CHECK(cudaMemcpy(d, w.data(), w.size() * 4, cudaMemcpyHostToDevice));
  }
  return d;
}

static size_t refSmem(const Case &c) {
  return (size_t)(c.Dh + 128 + c.Lk + 1) * sizeof(double);
}

static void runReference(const Case &c, const RefArgs &ra) {
  long long rows = (long long)c.B * c.Lq * c.H;
  byDtype(c.dtype, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    CUDA_CHECK(cudaFuncSetAttribute(referenceKernel<T>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)refSmem(c)));
    referenceKernel<T><<<(unsigned)rows, 128, refSmem(c)>>>(ra);
  });
  CUDA_CHECK(cudaGetLastError());
}

static int failures = 0, passes = 0, skipped = 0;
static bool skipWgmma = false;

/// Runs one case; returns 0 on success.
static int runCase(embrtLaunchEnv *env, const Case &cin, bool cpuCheck) {
  Case c = cin;
  if (skipWgmma && c.config && !strncmp(c.config, "wgmma", 5)) {
    ++skipped;
    return 0;
  }
  if (skipWgmma && !c.config &&
      (c.dtype != EMBRT_F32 || c.compute != EMBRT_F32))
    c.config = c.Dh == 128 ? "mma_d128" : c.Dh == 64 ? "mma_d64" : nullptr;
  const uint64_t seed = mix64(++seedCounter * 7919);
  const int ikbo = c.users > 0;
  const int U = ikbo ? c.users : c.B;
  const long long nq = (long long)c.B * c.Lq * c.H * c.Dh;
  const long long nkv = (long long)U * c.Lk * c.H * c.Dh;
  const size_t es = dsize(c.dtype);
  void *q, *k, *v, *out;
  float *ref;
  CUDA_CHECK(cudaMalloc(&q, nq * es + 16));
  CUDA_CHECK(cudaMalloc(&k, nkv * es + 16));
  CUDA_CHECK(cudaMalloc(&v, nkv * es + 16));
  CUDA_CHECK(cudaMalloc(&out, nq * es + 16));
  CUDA_CHECK(cudaMalloc(&ref, nq * sizeof(float) + 16));
  fill(q, c.dtype, nq, seed ^ 1, -2.f, 2.f);
  fill(k, c.dtype, nkv, seed ^ 2, -2.f, 2.f);
  fill(v, c.dtype, nkv, seed ^ 3, -1.f, 1.f);
  // The conversion path: the reference multiplies q, k and v rounded to the
  // compute type; the output has its tolerances.
  const bool converted = c.compute != EMBRT_F32;
  const embrtDtype tolType = converted ? c.compute : c.dtype;
  float *rq = nullptr, *rk = nullptr, *rv = nullptr;
  if (converted) {
    CUDA_CHECK(cudaMalloc(&rq, nq * 4 + 16));
    CUDA_CHECK(cudaMalloc(&rk, nkv * 4 + 16));
    CUDA_CHECK(cudaMalloc(&rv, nkv * 4 + 16));
    const float *src[] = {(float *)q, (float *)k, (float *)v};
    float *dstp[] = {rq, rk, rv};
    const long long ns[] = {nq, nkv, nkv};
    for (int i = 0; i < 3; ++i) {
      if (c.compute == EMBRT_BF16)
        roundKernel<__nv_bfloat16><<<1024, 256>>>(dstp[i], src[i], ns[i]);
      else
        roundKernel<__half><<<1024, 256>>>(dstp[i], src[i], ns[i]);
      CUDA_CHECK(cudaGetLastError());
    }
  }
  std::vector<long long> c2u, len;
  void *dc2u = nullptr, *dlen = nullptr;
  if (ikbo) {
    c2u = makeCandToUser(c, seed ^ 4);
    dc2u = uploadIndices(c2u, c.i64);
  }
  if (c.lengths || c.bad >= 2) {
    Case lc = c;
    lc.users = U;
    len = makeLengths(lc, seed ^ 5);
    // Lengths outside 0..Lk for the users no candidate maps to: never read,
    // so no error and the same output (the op's rule, docs/dialect.md).
    if (c.bad == 3) {
      std::vector<char> read(U, 0);
      for (long long u : c2u)
        read[u] = 1;
      for (int u = 0; u < U; ++u)
        if (!read[u])
          len[u] = u % 2 ? c.Lk + 1 : -3;
    }
    dlen = uploadIndices(len, c.i64);
  }
  const float scale = c.scale != 0.f ? c.scale : 1.f / sqrtf((float)c.Dh);

  embrtAttentionArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = c.dtype;
  a.batchSize = c.B;
  a.numUsers = U;
  a.lq = c.Lq;
  a.lk = c.Lk;
  a.heads = c.H;
  a.headDim = c.Dh;
  a.scale = scale;
  a.q = q;
  a.k = k;
  a.v = v;
  a.candToUser = dc2u;
  a.userLengths = dlen;
  a.indexDtype = c.i64 ? EMBRT_I64 : EMBRT_I32;
  a.output = out;
  a.configId = configByName(c.config);
  a.computeDtype = c.compute;
  size_t wsBytes = 0;
  embrtCudaAttentionWorkspaceSize(env, &a, &wsBytes);
  void *ws = nullptr;
  if (wsBytes) {
    CUDA_CHECK(cudaMalloc(&ws, wsBytes));
    CUDA_CHECK(cudaMemset(ws, 0xff, wsBytes));
  }
  a.workspace = ws;
  a.workspaceBytes = wsBytes;

  RefArgs ra = {q, k,    v,    dc2u, dlen, c.i64,         c.B,
                U, c.Lq, c.Lk, c.H,  c.Dh, (double)scale, ref};
  if (converted)
    ra.q = rq, ra.k = rk, ra.v = rv;
  runReference(c, ra);
  CUDA_CHECK(cudaMemset(out, 0xff, nq * es));
  CUDA_CHECK(cudaMemset(env->deviceErrors, 0, sizeof(embrtDeviceErrors)));
  CUDA_CHECK(cudaDeviceSynchronize());
  embrtStatus st = embrtCudaLaunchAttention(env, &a);
  cudaError_t syncErr = cudaStreamSynchronize((cudaStream_t)env->stream);
  int fail = 0;
  if (st != EMBRT_OK || syncErr != cudaSuccess) {
    printf("FAIL %-58s launch status %d (%s), sync %s\n", c.name.c_str(),
           (int)st, env->message, cudaGetErrorString(syncErr));
    if (syncErr != cudaSuccess)
      exit(3); // the context is gone
    fail = 1;
  }
  embrtDeviceErrors de = gpuTestDeviceErrors(env);
  int wantCode = c.bad == 1   ? EMBRT_DEVERR_BAD_CAND_TO_USER
                 : c.bad == 2 ? EMBRT_DEVERR_BAD_USER_LENGTH
                              : 0;
  if (!fail && de.code != wantCode) {
    printf("FAIL %-58s device error code %d, expected %d\n", c.name.c_str(),
           de.code, wantCode);
    fail = 1;
  }

  CompareStats *dst;
  CUDA_CHECK(cudaMalloc(&dst, sizeof(CompareStats)));
  CompareStats init = {0, ~0ull, 0};
  CUDA_CHECK(cudaMemcpy(dst, &init, sizeof init, cudaMemcpyHostToDevice));
  byDtype(c.dtype, [&](auto *tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    compareKernel<T><<<1024, 256>>>((const T *)out, ref, nq, atolFor(tolType),
                                    rtolFor(tolType), dst);
  });
  if (converted) {
    CompareStats zero = {0, 0, 0};
    CUDA_CHECK(cudaMemcpy(dst, &zero, sizeof zero, cudaMemcpyHostToDevice));
    if (c.compute == EMBRT_BF16)
      unroundedKernel<__nv_bfloat16>
          <<<1024, 256>>>((const float *)out, nq, &dst->bad);
    else
      unroundedKernel<__half><<<1024, 256>>>((const float *)out, nq, &dst->bad);
    CUDA_CHECK(cudaGetLastError());
    CompareStats us;
    CUDA_CHECK(cudaMemcpy(&us, dst, sizeof us, cudaMemcpyDeviceToHost));
    if (!fail && us.bad) {
      printf("FAIL %-58s %llu of %lld outputs are not %s values\n",
             c.name.c_str(), us.bad, nq, dname(c.compute));
      fail = 1;
    }
    CUDA_CHECK(cudaMemcpy(dst, &init, sizeof init, cudaMemcpyHostToDevice));
    byDtype(c.dtype, [&](auto *tag) {
      using T = std::remove_pointer_t<decltype(tag)>;
      compareKernel<T><<<1024, 256>>>((const T *)out, ref, nq, atolFor(tolType),
                                      rtolFor(tolType), dst);
    });
  }
  CUDA_CHECK(cudaGetLastError());
  CompareStats cs;
  CUDA_CHECK(cudaMemcpy(&cs, dst, sizeof cs, cudaMemcpyDeviceToHost));
  float maxErr;
  memcpy(&maxErr, &cs.maxErrBits, 4);
  if (!fail && cs.bad) {
    long long i = (long long)cs.firstBad;
    float r;
    CUDA_CHECK(cudaMemcpy(&r, ref + i, 4, cudaMemcpyDeviceToHost));
    printf("FAIL %-58s %llu of %lld elements off (first %lld: ref %g), max "
           "err %.3g\n",
           c.name.c_str(), cs.bad, nq, i, r, maxErr);
    fail = 1;
  }

  if (cpuCheck) {
    // The GPU reference against a plain CPU loop (f64 on the same inputs).
    std::vector<float> gref(nq);
    CUDA_CHECK(cudaMemcpy(gref.data(), ref, nq * 4, cudaMemcpyDeviceToHost));
    std::vector<float> fq(nq), fk(nkv), fv(nkv);
    auto toHost = [&](void *src, long long n, std::vector<float> &dstv) {
      if (c.dtype == EMBRT_F32) {
        CUDA_CHECK(cudaMemcpy(dstv.data(), src, n * 4, cudaMemcpyDeviceToHost));
        return;
      }
      std::vector<uint16_t> h(n);
      CUDA_CHECK(cudaMemcpy(h.data(), src, n * 2, cudaMemcpyDeviceToHost));
      for (long long i = 0; i < n; ++i) {
        uint32_t bits;
        if (c.dtype == EMBRT_BF16) {
          bits = (uint32_t)h[i] << 16;
          memcpy(&dstv[i], &bits, 4);
        } else {
          __half_raw raw;
          raw.x = h[i];
          dstv[i] = __half2float(__half(raw));
        }
      }
    };
    toHost((void *)ra.q, nq, fq);
    toHost((void *)ra.k, nkv, fk);
    toHost((void *)ra.v, nkv, fv);
    double worst = 0.0;
    std::vector<double> s(c.Lk + 1);
    for (int b = 0; b < c.B; ++b)
      for (int i = 0; i < c.Lq; ++i)
        for (int h = 0; h < c.H; ++h) {
          long long base = (((long long)b * c.Lq + i) * c.H + h) * c.Dh;
          long long u = ikbo ? c2u[b] : b;
          bool ok = u >= 0 && u < U;
          long long n = c.Lk;
          if (ok && !len.empty()) {
            n = len[u];
            ok = n >= 0 && n <= c.Lk;
          }
          for (int d = 0; d < c.Dh; ++d) {
            double want = 0.0;
            if (ok && n > 0) {
              double mx = -INFINITY, sum = 0.0, acc = 0.0;
              for (long long j = 0; j < n; ++j) {
                double dot = 0.0;
                for (int e = 0; e < c.Dh; ++e)
                  dot += (double)fq[base + e] *
                         fk[((u * c.Lk + j) * c.H + h) * c.Dh + e];
                s[j] = dot * scale;
                mx = fmax(mx, s[j]);
              }
              for (long long j = 0; j < n; ++j) {
                double p = exp(s[j] - mx);
                sum += p;
                acc += p * fv[((u * c.Lk + j) * c.H + h) * c.Dh + d];
              }
              want = acc / sum;
            }
            worst = fmax(worst, fabs(want - gref[base + d]));
          }
        }
    if (worst > 1e-6) {
      printf("FAIL %-58s GPU reference differs from the CPU by %.3g\n",
             c.name.c_str(), worst);
      fail = 1;
    }
  }

  if (!fail)
    printf("ok   %-58s max err %.3g\n", c.name.c_str(), maxErr);
  fail ? ++failures : ++passes;
  cudaFree(q);
  cudaFree(k);
  cudaFree(v);
  cudaFree(out);
  cudaFree(ref);
  cudaFree(dst);
  if (converted) {
    cudaFree(rq);
    cudaFree(rk);
    cudaFree(rv);
  }
  if (dc2u)
    cudaFree(dc2u);
  if (dlen)
    cudaFree(dlen);
  if (ws)
    cudaFree(ws);
  return fail;
}

static std::string caseName(const Case &c) {
  char buf[256], scale[32] = "";
  if (c.scale != 0.f)
    snprintf(scale, sizeof scale, "_scale%g", (double)c.scale);
  char via[16] = "";
  if (c.compute != EMBRT_F32)
    snprintf(via, sizeof via, "_via_%s", dname(c.compute));
  snprintf(buf, sizeof buf, "%s%s_B%d_U%d_Lq%d_Lk%d_H%d_D%d%s%s%s%s%s%s%s_%s",
           dname(c.dtype), via, c.B, c.users, c.Lq, c.Lk, c.H, c.Dh, scale,
           c.ragged ? "_ragged" : "", c.unsorted ? "_unsorted" : "",
           c.lengths ? "_lengths" : "", c.i64 ? "_i64" : "",
           c.bad == 1   ? "_badc2u"
           : c.bad == 2 ? "_badlen"
           : c.bad == 3 ? "_badlen_unread"
                        : "",
           c.gaps ? "_gaps" : "", c.config ? c.config : "auto");
  return buf;
}

static Case mk(int B, int users, int Lq, int Lk, int H, int Dh,
               embrtDtype dtype, const char *config = nullptr) {
  Case c;
  c.B = B;
  c.users = users;
  c.Lq = Lq;
  c.Lk = Lk;
  c.H = H;
  c.Dh = Dh;
  c.dtype = dtype;
  c.ragged = c.unsorted = c.lengths = c.i64 = c.bad = c.gaps = 0;
  c.config = config;
  c.scale = 0.f;
  c.compute = EMBRT_F32;
  return c;
}

static std::vector<Case> quickCases() {
  std::vector<Case> v;
  const char *halfConfigs[] = {
      nullptr,    "wgmma_d128", "wgmma_d128_n160_pp", "wgmma_d128_pp_kvfirst",
      "mma_d128", "simt"};
  for (const char *cfg : halfConfigs) {
    Case c = mk(24, 5, 3, 300, 2, 128, EMBRT_F16, cfg);
    c.unsorted = 1;
    c.lengths = 1;
    v.push_back(c);
  }
  Case d64 = mk(20, 4, 5, 200, 2, 64, EMBRT_BF16);
  d64.ragged = 1;
  v.push_back(d64);
  v.push_back(mk(20, 4, 5, 200, 2, 64, EMBRT_F16, "mma_d64"));
  v.push_back(mk(6, 0, 7, 130, 2, 128, EMBRT_F16));
  v.push_back(mk(10, 3, 4, 70, 1, 128, EMBRT_F32));
  Case via = mk(24, 5, 3, 300, 2, 128, EMBRT_F32);
  via.lengths = 1;
  via.compute = EMBRT_BF16;
  v.push_back(via);
  Case bad = mk(16, 4, 3, 150, 2, 128, EMBRT_F16);
  bad.bad = 1;
  v.push_back(bad);
  bad.bad = 2;
  v.push_back(bad);
  bad.gaps = 1; // users 1 and 3 have no candidates
  bad.bad = 3;
  v.push_back(bad);
  return v;
}

static std::vector<Case> fullCases() {
  std::vector<Case> v;
  // The issue's matrix: B x H x Lk x candidates per user, Dh=128, f32 (SIMT
  // path), f16 (the device's automatic choice) and f16 on the kvfirst
  // variant; Lq = 4 makes partial tiles.
  const int Bs[] = {512, 1024, 2048}, Hs[] = {1, 2, 4, 6};
  const int Lks[] = {500, 512, 1000, 1024, 2000, 2048}, Cs[] = {10, 70};
  const embrtDtype types[] = {EMBRT_F32, EMBRT_F16, EMBRT_F16};
  const char *typeConfigs[] = {nullptr, nullptr, "wgmma_d128_pp"};
  for (int ti = 0; ti < 3; ++ti)
    for (int B : Bs)
      for (int H : Hs)
        for (int Lk : Lks)
          for (int C : Cs)
            v.push_back(mk(B, (B + C - 1) / C, 4, Lk, H, 128, types[ti],
                           typeConfigs[ti]));
  // Every path on bench-like and odd shapes.
  const char *halfConfigs[] = {nullptr,
                               "wgmma_d128_pp",
                               "wgmma_d128",
                               "wgmma_d128_n160_pp",
                               "wgmma_d128_pp_kvfirst",
                               "mma_d128",
                               "simt"};
  for (const char *cfg : halfConfigs) {
    v.push_back(mk(2048, 32, 64, 2048, 2, 128, EMBRT_F16, cfg));
    Case r = mk(2066, 32, 64, 1024, 2, 128, EMBRT_F16, cfg);
    r.ragged = 1;
    v.push_back(r);
    Case o = mk(700, 10, 65, 1000, 3, 128, EMBRT_BF16, cfg);
    o.unsorted = 1;
    o.lengths = 1;
    v.push_back(o);
  }
  const char *d64Configs[] = {nullptr, "wgmma_d64", "mma_d64", "simt"};
  for (const char *cfg : d64Configs) {
    Case c = mk(1024, 15, 5, 1000, 2, 64, EMBRT_F16, cfg);
    c.lengths = 1;
    v.push_back(c);
    Case b = mk(512, 8, 7, 2048, 4, 64, EMBRT_BF16, cfg);
    b.unsorted = 1;
    b.ragged = 1;
    v.push_back(b);
  }
  // Odd query lengths, short keys, unsorted, lengths, i64, gaps, plain.
  const int Lqs[] = {1, 7, 65, 129};
  for (int Lq : Lqs) {
    Case c = mk(300, 7, Lq, 777, 2, 128, EMBRT_F16);
    c.unsorted = Lq % 2;
    c.lengths = 1;
    v.push_back(c);
  }
  const int shortLk[] = {1, 5, 100, 127, 128, 129, 255};
  for (int Lk : shortLk)
    v.push_back(mk(130, 9, 8, Lk, 2, 128, EMBRT_F16));
  Case un = mk(2048, 29, 4, 1000, 4, 128, EMBRT_F16);
  un.unsorted = 1;
  v.push_back(un);
  un.dtype = EMBRT_BF16;
  un.lengths = 1;
  un.i64 = 1;
  v.push_back(un);
  Case gaps = mk(500, 20, 6, 600, 2, 128, EMBRT_F16);
  gaps.gaps = 1;
  gaps.unsorted = 1;
  v.push_back(gaps);
  Case f32l = mk(1024, 15, 3, 1000, 2, 128, EMBRT_F32);
  f32l.lengths = 1;
  f32l.unsorted = 1;
  v.push_back(f32l);
  v.push_back(mk(40, 40, 1, 64, 2, 96, EMBRT_F16)); // head dim 96: SIMT
  v.push_back(mk(64, 0, 65, 333, 2, 128, EMBRT_F16));
  v.push_back(mk(64, 0, 65, 333, 2, 64, EMBRT_BF16));
  v.push_back(mk(64, 0, 65, 333, 2, 128, EMBRT_F16, "mma_d128"));
  v.push_back(mk(32, 0, 9, 100, 2, 128, EMBRT_F32));
  // emb.attention's key lengths per row (plain, one query row, as the
  // ranking model's masked target attention before emb-ikbo).
  Case keyLen = mk(64, 0, 1, 333, 2, 128, EMBRT_F16);
  keyLen.lengths = 1;
  v.push_back(keyLen);
  keyLen.config = "mma_d128";
  v.push_back(keyLen);
  Case neg = mk(512, 8, 4, 1000, 2, 128, EMBRT_F16);
  neg.scale = -0.07f;
  v.push_back(neg);
  // f32 data through the f16/bf16 kernels (computeDtype): IKBO with
  // lengths, ragged, plain, head dim 64, a negative scale, no keys.
  for (embrtDtype ct : {EMBRT_BF16, EMBRT_F16}) {
    Case cv = mk(1024, 15, 3, 1000, 2, 128, EMBRT_F32);
    cv.compute = ct;
    cv.lengths = 1;
    cv.unsorted = 1;
    v.push_back(cv);
    Case cr = mk(2066, 32, 64, 1024, 2, 128, EMBRT_F32);
    cr.compute = ct;
    cr.ragged = 1;
    v.push_back(cr);
    Case cp = mk(64, 0, 65, 333, 2, 64, EMBRT_F32);
    cp.compute = ct;
    v.push_back(cp);
    Case cn = mk(512, 8, 4, 1000, 2, 128, EMBRT_F32);
    cn.compute = ct;
    cn.scale = -0.07f;
    v.push_back(cn);
    v.push_back(mk(40, 4, 2, 0, 2, 128, EMBRT_F32));
    v.back().compute = ct;
    // Element counts not a multiple of 8: the one-element conversions.
    v.push_back(mk(7, 3, 3, 50, 1, 20, EMBRT_F32));
    v.back().compute = ct;
  }
  neg.scale = -0.07f;
  neg.config = "mma_d128";
  v.push_back(neg);
  // A negative scale on the Hopper kernels with every shape of last block:
  // full (Lk 1024), partial (user lengths, bf16), the only block (Lk 100),
  // and head dim 64.
  const int negLks[] = {1024, 100};
  for (int Lk : negLks) {
    Case n = mk(512, 8, 4, Lk, 2, 128, EMBRT_F16, "wgmma_d128_pp");
    n.scale = -0.05f;
    v.push_back(n);
  }
  Case negLen = mk(700, 10, 65, 1000, 3, 128, EMBRT_BF16, "wgmma_d128_pp");
  negLen.scale = -0.06f;
  negLen.lengths = 1;
  v.push_back(negLen);
  negLen.config = "wgmma_d128";
  v.push_back(negLen);
  Case neg64 = mk(512, 8, 7, 2048, 4, 64, EMBRT_F16, "wgmma_d64");
  neg64.scale = -0.1f;
  neg64.lengths = 1;
  v.push_back(neg64);
  // The half-width last block (at most 64 valid keys: softmax and P V at
  // N 64): the only block (Lk 64, 1), after full blocks (Lk 192: 64 valid,
  // 130: 2), beside 65 valid keys at full width (Lk 193), with either sign,
  // and user lengths (random last blocks) at Lk 192, on every Hopper row
  // (n160 has no half width: it runs them at full width).
  const char *halfBlockConfigs[] = {"wgmma_d128_pp", "wgmma_d128_pp_kvfirst",
                                    "wgmma_d128", "wgmma_d64_pp",
                                    "wgmma_d128_n160_pp"};
  for (const char *cfg : halfBlockConfigs)
    for (int Lk : {64, 1, 130, 192, 193})
      for (float sc : {0.2f, -0.3f}) {
        Case h = mk(300, 6, 5, Lk, 2, strstr(cfg, "_d64") ? 64 : 128,
                    sc > 0.f ? EMBRT_F16 : EMBRT_BF16, cfg);
        h.scale = sc;
        h.lengths = Lk == 192;
        v.push_back(h);
      }
  // More groups than the plan kernel counts in shared memory (4096): its
  // counts and cursors in the workspace, sorted and unsorted.
  Case many = mk(6000, 4500, 2, 64, 2, 128, EMBRT_F16);
  many.ragged = 1;
  v.push_back(many);
  many.unsorted = 1;
  many.lengths = 1;
  v.push_back(many);
  // Large scales: the row maximum often passes the softmax's reference by
  // more than 2^8 from one key block to the next (the rescale of O), with
  // either sign, on every Hopper row.
  const char *bigScaleConfigs[] = {"wgmma_d128_pp", "wgmma_d128_pp_kvfirst",
                                   "wgmma_d128", "wgmma_d128_n160_pp"};
  for (const char *cfg : bigScaleConfigs)
    for (float sc : {0.6f, -0.6f}) {
      Case b = mk(512, 8, 4, 2000, 2, 128, EMBRT_F16, cfg);
      b.scale = sc;
      b.lengths = sc < 0.f;
      v.push_back(b);
      b.dtype = EMBRT_BF16;
      v.push_back(b);
    }
  Case big64 = mk(512, 8, 7, 2048, 4, 64, EMBRT_F16, "wgmma_d64_pp");
  big64.scale = 0.9f;
  v.push_back(big64);
  // The automatic choice past Lk 4096 (a different row than below it).
  v.push_back(mk(512, 8, 4, 5000, 2, 128, EMBRT_F16));
  Case longLen = mk(700, 10, 65, 2500, 2, 128, EMBRT_BF16);
  longLen.lengths = 1;
  longLen.unsorted = 1;
  v.push_back(longLen);
  // Zero keys everywhere.
  v.push_back(mk(64, 4, 3, 0, 2, 128, EMBRT_F16));
  // Bad data on every path.
  const char *badConfigs[] = {nullptr, "mma_d128", "simt"};
  for (const char *cfg : badConfigs)
    for (int kind = 1; kind <= 3; ++kind) {
      Case b = mk(300, 6, 5, 500, 2, 128, EMBRT_F16, cfg);
      b.bad = kind;
      b.gaps = kind == 3; // odd users have no candidates
      v.push_back(b);
    }
  return v;
}

int main(int argc, char **argv) {
  bool quick = false, list = false;
  const char *filter = nullptr, *exclude = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick"))
      quick = true;
    else if (!strcmp(argv[i], "--list"))
      list = true;
    else if (!strcmp(argv[i], "--skip-wgmma"))
      skipWgmma = true;
    else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
    else if (!strcmp(argv[i], "--exclude") && i + 1 < argc)
      exclude = argv[++i];
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    fprintf(stderr, "no GPU\n");
    return 1;
  }
  embrtLaunchEnv env = gpuTestEnv();
  const AttentionShape shortKeys = {env.ccMajor, EMBRT_F16, 128, 1, 4096};
  const AttentionShape longKeys = {env.ccMajor, EMBRT_F16, 128, 1, 4097};
  const int autoShort = (int)attentionSelectConfig(&shortKeys);
  const int autoLong = (int)attentionSelectConfig(&longKeys);
  printf("device cc %d.%d, %d SMs; automatic f16 Dh=128 config: %s up to "
         "Lk 4096, %s past it\n",
         env.ccMajor, env.ccMinor, env.smCount,
         autoShort >= 0 ? kAttentionConfigs[autoShort].name : "(none)",
         autoLong >= 0 ? kAttentionConfigs[autoLong].name : "(none)");

  // The reference first: against the CPU on small cases.
  std::vector<Case> refCases;
  {
    Case c = mk(12, 4, 3, 77, 2, 64, EMBRT_F16);
    c.unsorted = 1;
    c.lengths = 1;
    refCases.push_back(c);
    Case p = mk(5, 0, 2, 40, 3, 32, EMBRT_F32);
    refCases.push_back(p);
    p.compute = EMBRT_BF16; // rounded operands, Dh 32: the SIMT kernel
    refCases.push_back(p);
    Case b = mk(9, 3, 2, 130, 1, 128, EMBRT_BF16);
    b.bad = 1;
    refCases.push_back(b);
  }
  std::vector<Case> cases = quick ? quickCases() : fullCases();
  for (Case &c : refCases)
    c.name = "refcheck_" + caseName(c);
  for (Case &c : cases)
    c.name = caseName(c);
  if (list) {
    for (const Case &c : cases)
      printf("%s\n", c.name.c_str());
    return 0;
  }
  for (const Case &c : refCases)
    runCase(&env, c, true);
  for (const Case &c : cases)
    if ((!filter || strstr(c.name.c_str(), filter)) &&
        (!exclude || !strstr(c.name.c_str(), exclude)))
      runCase(&env, c, false);
  printf("%d passed, %d failed, %d skipped\n", passes, failures, skipped);
  return failures ? 1 : 0;
}
