// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/ikbo_lce
//===- test/Kernels/ikbo_lce.cu - GPU test of emb.ikbo_lce ----------------===//
//
// Checks embrtCudaLaunchIkboLce against an f32 reference of
//   out[b] = wCand @ cand[b] + wUser @ user[c2u[b]]
// with FBGEMM's IKBO tolerance: the max-abs error over every element must not
// exceed that of cuBLAS's half-precision decomposition on the same data
// (cand GEMM and user GEMM in the dtype, broadcast-add in the dtype), or
// 1e-4, whichever is larger. For f32 the baseline is cuBLAS's f32 GEMMs.
// The tolerance applies as it is to FBGEMM's accuracy matrix, the benchmark
// shapes ("_strict" cases) and every path that rounds once; kernels that keep
// the user result in the dtype (a second rounding) may add half an ulp of
// the largest user value on the other shapes, where small K can make the
// baseline's own extra rounding smaller than theirs.
//
// Every case draws fresh random inputs, poisons the output with NaN bytes and
// counts elements left non-finite. The f32 reference runs on the GPU (one
// thread per 4 output rows of one column, f32 FMAs over K) and is itself
// checked against an f64 sum on 257 sampled elements per case. A bad
// cand_to_user entry must leave the row's user term out and be recorded in
// the device error record. Each case runs twice: first without a schedule
// counter (the sm90a kernel's static tile schedule), then with one (its
// dynamic schedule), which must leave the counter at 0.
//
// Usage: ikbo_lce [--quick] [--smoke] [--filter SUBSTRING] [--list]
//                 [--watchdog S] [--skip-configs NAME,NAME]
//   --quick     a few small cases of every path (for compute-sanitizer);
//   --smoke     one small case per configuration, forced;
//   --skip-configs  leaves out cases that would run these configurations;
//   --watchdog  seconds a launch may take before it counts as a hang
//               (default 30; the process then exits with status 3).
//
// f32 data computed in f16 or bf16 (computeDtype, the conversion path) is
// checked against the same reference and baseline run on the operands
// rounded to the compute type by the test's own kernel: the tolerance of
// that type's case, and every output element must be a value of the compute
// type (the path rounds its output once), so an exact f32 result fails.
//
// f32 cases run on the cuBLAS path (the launch environment gets a cuBLAS
// handle on its stream) unless they force the portable row.
//
// The test calls the kernels' entry points directly with a launch
// environment it fills itself (test/Kernels/gpu_test.cuh), not through the
// runtime's CUDA backend.
//
//===----------------------------------------------------------------------===//

#include "kernels/ikbo_lce_config.h"
#include "kernels/launch.h"
#include "test/Kernels/gpu_test.cuh"

#include <cublas_v2.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#define BLAS_CHECK(expr)                                                       \
  do {                                                                         \
    cublasStatus_t st_ = (expr);                                               \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                        \
      fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__, __LINE__,     \
              #expr, (int)st_);                                                \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

//===----------------------------------------------------------------------===//
// Device helpers: reference, comparison
//===----------------------------------------------------------------------===//

struct Problem {
  const void *wUser, *wCand, *user, *cand, *c2u;
  int i64;
  long long B, U, M, N, Ku, Kc;
};

/// ref[b][m][n] in f32: thread (b, n, 4 rows of m) sums both products with
/// f32 FMAs; a bad c2u entry contributes no user term.
template <typename T> __global__ void referenceKernel(Problem p, float *ref) {
  const long long n = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long m0 = 4LL * blockIdx.y;
  const long long b = blockIdx.z;
  if (n >= p.N)
    return;
  const T *wc = (const T *)p.wCand, *wu = (const T *)p.wUser;
  const T *xc = (const T *)p.cand + b * p.Kc * p.N;
  float acc[4] = {0, 0, 0, 0};
  for (long long k = 0; k < p.Kc; ++k) {
    float x = toF(xc[k * p.N + n]);
    for (int i = 0; i < 4; ++i)
      if (m0 + i < p.M)
        acc[i] = fmaf(toF(wc[(m0 + i) * p.Kc + k]), x, acc[i]);
  }
  long long u = loadIdx(p.c2u, p.i64, b);
  if (u >= 0 && u < p.U) {
    const T *xu = (const T *)p.user + u * p.Ku * p.N;
    for (long long k = 0; k < p.Ku; ++k) {
      float x = toF(xu[k * p.N + n]);
      for (int i = 0; i < 4; ++i)
        if (m0 + i < p.M)
          acc[i] = fmaf(toF(wu[(m0 + i) * p.Ku + k]), x, acc[i]);
    }
  }
  for (int i = 0; i < 4; ++i)
    if (m0 + i < p.M)
      ref[(b * p.M + m0 + i) * p.N + n] = acc[i];
}

/// f64 sums of sampled elements: |ref - f64| per sample into dev[s].
template <typename T>
__global__ void sampleKernel(Problem p, const float *ref, uint64_t seed,
                             int samples, double *dev, double *mag) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= samples)
    return;
  const long long total = p.B * p.M * p.N;
  long long e = (long long)(mix64(seed ^ (uint64_t)s * 0x51ed27ull) % total);
  if (s == 0)
    e = total - 1;
  const long long n = e % p.N, m = (e / p.N) % p.M, b = e / (p.M * p.N);
  const T *wc = (const T *)p.wCand, *wu = (const T *)p.wUser;
  const T *xc = (const T *)p.cand + b * p.Kc * p.N;
  double acc = 0;
  for (long long k = 0; k < p.Kc; ++k)
    acc += (double)toF(wc[m * p.Kc + k]) * toF(xc[k * p.N + n]);
  long long u = loadIdx(p.c2u, p.i64, b);
  if (u >= 0 && u < p.U) {
    const T *xu = (const T *)p.user + u * p.Ku * p.N;
    for (long long k = 0; k < p.Ku; ++k)
      acc += (double)toF(wu[m * p.Ku + k]) * toF(xu[k * p.N + n]);
  }
  dev[s] = fabs(acc - (double)ref[e]);
  mag[s] = fabs(acc);
}

/// max |out - ref| (as ordered float bits) and the count of non-finite out.
template <typename T>
__global__ void compareKernel(const T *out, const float *ref, long long n,
                              unsigned *maxBits, unsigned long long *bad) {
  unsigned localMax = 0;
  unsigned long long localBad = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float v = toF(out[i]);
    if (!isfinite(v)) {
      ++localBad;
      continue;
    }
    float d = fabsf(v - ref[i]);
    localMax = max(localMax, __float_as_uint(d));
  }
  atomicMax(maxBits, localMax);
  if (localBad)
    atomicAdd(bad, localBad);
}

/// max |x| over n elements (as ordered float bits).
template <typename T>
__global__ void maxAbsKernel(const T *x, long long n, unsigned *maxBits) {
  unsigned m = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    m = max(m, __float_as_uint(fabsf(toF(x[i]))));
  atomicMax(maxBits, m);
}

/// FBGEMM's fp16 baseline: out[b] = T(float(cand_res[b]) +
/// float(user_res[c2u[b]])), both results already rounded to T.
template <typename T>
__global__ void baselineAddKernel(const T *candRes, const T *userRes, Problem p,
                                  T *out) {
  const long long total = p.B * p.M * p.N, per = p.M * p.N;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < total; i += (long long)gridDim.x * blockDim.x) {
    long long b = i / per;
    long long u = loadIdx(p.c2u, p.i64, b);
    float v = toF(candRes[i]);
    if (u >= 0 && u < p.U)
      v += toF(userRes[u * per + i % per]);
    out[i] = fromF<T>(v);
  }
}

/// to[i] = T(from[i]): the operands a computeDtype case's references read.
template <typename T>
__global__ void roundCopyKernel(const float *from, T *to, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    to[i] = fromF<T>(from[i]);
}

/// Counts the elements of x that T cannot hold exactly.
template <typename T>
__global__ void notOfTypeKernel(const float *x, long long n,
                                unsigned long long *count) {
  unsigned long long local = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    local += toF(fromF<T>(x[i])) != x[i];
  if (local)
    atomicAdd(count, local);
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

struct Case {
  std::string name;
  embrtDtype dtype;
  long long B, M, N, Ku, Kc;
  int ratio;          // candidates per user
  bool sorted;        // c2u nondecreasing
  int i64;            // index dtype I64
  int configId;       // -1: automatic
  long long bad;      // candidate with an out-of-range user, -1: none
  int expectPath;     // -1: any, else IKBO_LCE_PATH_*
  bool strict;        // FBGEMM's tolerance whatever the path (spec matrix)
  int view;           // > 0: wUser, wCand passed as column blocks of one
                      // [M, Ku + Kc + view - 1] matrix (row strides)
  int pieces;         // > 0: cand passed as pieces along K (candPieces): Kc
                      // split into `pieces` parts, the last one zeros (NULL)
  embrtDtype compute; // computeDtype: F32 (the data as it is), F16 or BF16
};

/// The dtype the products of `c` read: its compute type when it converts.
static embrtDtype readDtype(const Case &c) {
  return c.compute != EMBRT_F32 ? c.compute : c.dtype;
}

static uint64_t gSeed = 0x1234abcdull;

static uint64_t nextSeed() {
  gSeed = mix64(gSeed + 0x9e3779b97f4a7c15ull);
  return gSeed;
}

static size_t dtypeSize(embrtDtype d) { return d == EMBRT_F32 ? 4 : 2; }

template <typename T> static void fill(void *p, long long n) {
  fillKernel<T><<<1024, 256>>>((T *)p, n, nextSeed(), -1.f, 1.f);
  CUDA_CHECK(cudaGetLastError());
}

static void fillAny(embrtDtype d, void *p, long long n) {
  if (d == EMBRT_F32)
    fill<float>(p, n);
  else if (d == EMBRT_F16)
    fill<__half>(p, n);
  else
    fill<__nv_bfloat16>(p, n);
}

static cudaDataType blasType(embrtDtype d) {
  return d == EMBRT_F32   ? CUDA_R_32F
         : d == EMBRT_F16 ? CUDA_R_16F
                          : CUDA_R_16BF;
}

/// res[i] = W [M, K] @ X[i] [K, N] for `count` items, rounded to the dtype.
static void blasBatched(cublasHandle_t h, embrtDtype d, const void *w,
                        const void *x, void *res, long long count, long long M,
                        long long N, long long K) {
  const float one = 1.f, zero = 0.f;
  cudaDataType t = blasType(d);
  // Column-major: res^T [N, M] = X^T [N, K] @ W^T [K, M].
  BLAS_CHECK(cublasGemmStridedBatchedEx(
      h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, x, t, (int)N,
      K * N, w, t, (int)K, 0, &zero, res, t, (int)N, M * N, (int)count,
      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

template <typename T>
static void compare(const void *out, const float *ref, long long n,
                    float *maxErr, unsigned long long *bad) {
  unsigned *dMax;
  unsigned long long *dBad;
  CUDA_CHECK(cudaMalloc(&dMax, sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&dBad, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemset(dMax, 0, sizeof(unsigned)));
  CUDA_CHECK(cudaMemset(dBad, 0, sizeof(unsigned long long)));
  compareKernel<T><<<1024, 256>>>((const T *)out, ref, n, dMax, dBad);
  CUDA_CHECK(cudaGetLastError());
  unsigned bits;
  CUDA_CHECK(cudaMemcpy(&bits, dMax, sizeof bits, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(bad, dBad, sizeof *bad, cudaMemcpyDeviceToHost));
  memcpy(maxErr, &bits, sizeof bits);
  CUDA_CHECK(cudaFree(dMax));
  CUDA_CHECK(cudaFree(dBad));
}

static void compareAny(embrtDtype d, const void *out, const float *ref,
                       long long n, float *maxErr, unsigned long long *bad) {
  if (d == EMBRT_F32)
    compare<float>(out, ref, n, maxErr, bad);
  else if (d == EMBRT_F16)
    compare<__half>(out, ref, n, maxErr, bad);
  else
    compare<__nv_bfloat16>(out, ref, n, maxErr, bad);
}

template <typename T>
static void reference(const Problem &p, float *ref, double *worstRel) {
  dim3 grid((unsigned)((p.N + 127) / 128), (unsigned)((p.M + 3) / 4),
            (unsigned)p.B);
  referenceKernel<T><<<grid, 128>>>(p, ref);
  CUDA_CHECK(cudaGetLastError());
  const int samples = 257;
  double *dev, *mag;
  CUDA_CHECK(cudaMalloc(&dev, samples * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&mag, samples * sizeof(double)));
  sampleKernel<T>
      <<<(samples + 127) / 128, 128>>>(p, ref, nextSeed(), samples, dev, mag);
  CUDA_CHECK(cudaGetLastError());
  std::vector<double> hd(samples), hm(samples);
  CUDA_CHECK(cudaMemcpy(hd.data(), dev, samples * sizeof(double),
                        cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hm.data(), mag, samples * sizeof(double),
                        cudaMemcpyDeviceToHost));
  *worstRel = 0;
  for (int s = 0; s < samples; ++s)
    *worstRel = std::max(*worstRel, hd[s] / std::max(hm[s], 1.0));
  CUDA_CHECK(cudaFree(dev));
  CUDA_CHECK(cudaFree(mag));
}

static void referenceAny(embrtDtype d, const Problem &p, float *ref,
                         double *worstRel) {
  if (d == EMBRT_F32)
    reference<float>(p, ref, worstRel);
  else if (d == EMBRT_F16)
    reference<__half>(p, ref, worstRel);
  else
    reference<__nv_bfloat16>(p, ref, worstRel);
}

/// `n` f32 elements at `from` rounded to `d` (F16 or BF16) in a new buffer.
static void *roundedCopy(embrtDtype d, const void *from, long long n) {
  void *to;
  CUDA_CHECK(cudaMalloc(&to, n * 2 + 1));
  if (d == EMBRT_F16)
    roundCopyKernel<<<1024, 256>>>((const float *)from, (__half *)to, n);
  else
    roundCopyKernel<<<1024, 256>>>((const float *)from, (__nv_bfloat16 *)to, n);
  CUDA_CHECK(cudaGetLastError());
  return to;
}

/// Elements of the f32 `x` that `d` (F16 or BF16) cannot hold exactly.
static unsigned long long countNotOfType(embrtDtype d, const void *x,
                                         long long n) {
  unsigned long long *dCount, count = 0;
  CUDA_CHECK(cudaMalloc(&dCount, sizeof count));
  CUDA_CHECK(cudaMemset(dCount, 0, sizeof count));
  if (d == EMBRT_F16)
    notOfTypeKernel<__half><<<1024, 256>>>((const float *)x, n, dCount);
  else
    notOfTypeKernel<__nv_bfloat16><<<1024, 256>>>((const float *)x, n, dCount);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(&count, dCount, sizeof count, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(dCount));
  return count;
}

/// Half a unit in the last place of the dtype at the largest |user result|:
/// what keeping the user result in the dtype may add to the error.
static float halfUlpOfMax(embrtDtype d, const void *x, long long n) {
  if (d == EMBRT_F32 || n == 0)
    return 0.f;
  unsigned *dMax;
  CUDA_CHECK(cudaMalloc(&dMax, sizeof(unsigned)));
  CUDA_CHECK(cudaMemset(dMax, 0, sizeof(unsigned)));
  if (d == EMBRT_F16)
    maxAbsKernel<__half><<<1024, 256>>>((const __half *)x, n, dMax);
  else
    maxAbsKernel<__nv_bfloat16>
        <<<1024, 256>>>((const __nv_bfloat16 *)x, n, dMax);
  CUDA_CHECK(cudaGetLastError());
  unsigned bits;
  CUDA_CHECK(cudaMemcpy(&bits, dMax, sizeof bits, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(dMax));
  float v;
  memcpy(&v, &bits, sizeof v);
  if (!(v > 0.f))
    return 0.f;
  const int mantissa = d == EMBRT_F16 ? 10 : 7;
  return 0.5f * ldexpf(1.f, (int)floorf(log2f(v)) - mantissa);
}

static void baselineAdd(embrtDtype d, const void *cr, const void *ur,
                        const Problem &p, void *out) {
  if (d == EMBRT_F32)
    baselineAddKernel<float>
        <<<1024, 256>>>((const float *)cr, (const float *)ur, p, (float *)out);
  else if (d == EMBRT_F16)
    baselineAddKernel<__half><<<1024, 256>>>(
        (const __half *)cr, (const __half *)ur, p, (__half *)out);
  else
    baselineAddKernel<__nv_bfloat16><<<1024, 256>>>((const __nv_bfloat16 *)cr,
                                                    (const __nv_bfloat16 *)ur,
                                                    p, (__nv_bfloat16 *)out);
  CUDA_CHECK(cudaGetLastError());
}

static double gWatchdogSeconds = 30;

/// Prints the first mismatches of a failed case (small cases only).
template <typename T>
static void showMismatches(const void *out, const float *ref, long long B,
                           long long M, long long N, float tol) {
  const long long total = B * M * N;
  if (total > (1LL << 26))
    return;
  std::vector<T> o(total);
  std::vector<float> r(total);
  CUDA_CHECK(
      cudaMemcpy(o.data(), out, total * sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(r.data(), ref, total * sizeof(float), cudaMemcpyDeviceToHost));
  int shown = 0;
  long long wrong = 0;
  for (long long i = 0; i < total; ++i) {
    float v = (float)o[i];
    if (std::isfinite(v) && fabsf(v - r[i]) <= tol)
      continue;
    ++wrong;
    if (shown++ < 12)
      printf("  b=%lld m=%lld n=%lld out=%g ref=%g\n", i / (M * N), i / N % M,
             i % N, v, r[i]);
  }
  printf("  %lld of %lld elements wrong\n", wrong, total);
}

struct Env {
  embrtLaunchEnv launch;
  cublasHandle_t blas;
};

static const char *dtypeName(embrtDtype d) {
  return d == EMBRT_F32 ? "f32" : d == EMBRT_F16 ? "f16" : "bf16";
}

/// "f32", or "f32->bf16" for f32 data computed in bf16.
static std::string caseDtypeName(const Case &c) {
  std::string s = dtypeName(c.dtype);
  if (c.compute != EMBRT_F32)
    s += std::string("->") + dtypeName(c.compute);
  return s;
}

static IkboLceShape shapeFor(const Env &env, const Case &c) {
  IkboLceShape shape;
  shape.ccMajor = env.launch.ccMajor;
  shape.ccMinor = env.launch.ccMinor;
  shape.maxSharedPerBlock = env.launch.maxSharedPerBlockOptin;
  shape.dtype = readDtype(c); // a converting call runs that dtype's kernels
  shape.batch = c.B;
  shape.users = (c.B + c.ratio - 1) / c.ratio;
  shape.m = c.M;
  shape.n = c.N;
  shape.kUser = c.Ku;
  shape.kCand = c.Kc;
  shape.aligned = 1;
  shape.pieces = c.pieces > 0;
  shape.blas = env.launch.blasHandle != nullptr;
  return shape;
}

/// Runs one case; returns true when it passes.
static bool runCase(Env &env, const Case &c) {
  const long long U = (c.B + c.ratio - 1) / c.ratio;
  const size_t es = dtypeSize(c.dtype);
  const long long outN = c.B * c.M * c.N;
  void *wUser, *wCand, *user, *cand, *c2u, *out, *cr, *ur, *base, *ws = nullptr;
  float *ref;
  CUDA_CHECK(cudaMalloc(&wUser, c.M * c.Ku * es));
  CUDA_CHECK(cudaMalloc(&wCand, c.M * c.Kc * es));
  CUDA_CHECK(cudaMalloc(&user, U * c.Ku * c.N * es));
  CUDA_CHECK(cudaMalloc(&cand, c.B * c.Kc * c.N * es));
  CUDA_CHECK(cudaMalloc(&c2u, c.B * 8));
  CUDA_CHECK(cudaMalloc(&out, outN * es));
  CUDA_CHECK(cudaMalloc(&cr, outN * es));
  CUDA_CHECK(cudaMalloc(&ur, U * c.M * c.N * es));
  CUDA_CHECK(cudaMalloc(&base, outN * es));
  CUDA_CHECK(cudaMalloc(&ref, outN * sizeof(float)));
  fillAny(c.dtype, wUser, c.M * c.Ku);
  fillAny(c.dtype, wCand, c.M * c.Kc);
  // A view case passes both weights inside one wider matrix (random past
  // them); the packed copies serve the references.
  void *wAll = nullptr;
  const long long S = c.Ku + c.Kc + (c.view > 0 ? c.view - 1 : 0);
  if (c.view > 0) {
    CUDA_CHECK(cudaMalloc(&wAll, c.M * S * es));
    fillAny(c.dtype, wAll, c.M * S);
    CUDA_CHECK(cudaMemcpy2D(wAll, S * es, wUser, c.Ku * es, c.Ku * es, c.M,
                            cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpy2D((char *)wAll + c.Ku * es, S * es, wCand, c.Kc * es,
                            c.Kc * es, c.M, cudaMemcpyDeviceToDevice));
  }
  fillAny(c.dtype, user, U * c.Ku * c.N);
  fillAny(c.dtype, cand, c.B * c.Kc * c.N);
  // Pieces: cand's rows of K in `pieces` parts (the last, of the zeros the
  // reference reads, passed as NULL), each copied out as [B, K_p, N].
  void *piece[EMBRT_IKBO_LCE_MAX_PIECES] = {nullptr};
  long long pieceK[EMBRT_IKBO_LCE_MAX_PIECES] = {0};
  if (c.pieces > 0) {
    long long k0 = 0;
    for (int q = 0; q < c.pieces; ++q) {
      pieceK[q] = q + 1 < c.pieces ? (c.Kc - k0) / 2 + (q == 0) : c.Kc - k0;
      const size_t width = pieceK[q] * c.N * es, pitch = c.Kc * c.N * es;
      char *rows = (char *)cand + k0 * c.N * es;
      if (q + 1 < c.pieces) {
        CUDA_CHECK(cudaMalloc(&piece[q], c.B * width + 1));
        CUDA_CHECK(cudaMemcpy2D(piece[q], width, rows, pitch, width, c.B,
                                cudaMemcpyDeviceToDevice));
      } else if (width) {
        CUDA_CHECK(cudaMemset2D(rows, pitch, 0, width, c.B));
      }
      k0 += pieceK[q];
    }
  }

  // c2u: candidate b belongs to user b / ratio; unsorted cases shuffle it.
  std::vector<long long> idx(c.B);
  for (long long b = 0; b < c.B; ++b)
    idx[b] = b / c.ratio;
  if (!c.sorted) {
    for (long long b = c.B - 1; b > 0; --b)
      std::swap(idx[b], idx[nextSeed() % (uint64_t)(b + 1)]);
  }
  if (c.bad >= 0)
    idx[c.bad] = (c.bad % 2) ? U + 7 : -3;
  if (c.i64) {
    CUDA_CHECK(cudaMemcpy(c2u, idx.data(), c.B * 8, cudaMemcpyHostToDevice));
  } else {
    std::vector<int> idx32(idx.begin(), idx.end());
    CUDA_CHECK(cudaMemcpy(c2u, idx32.data(), c.B * 4, cudaMemcpyHostToDevice));
  }

  // A converting case's references read the operands rounded to the
  // compute type (the packed weights, the candidates with the zero piece).
  const embrtDtype rd = readDtype(c);
  void *narrow[4] = {nullptr, nullptr, nullptr, nullptr};
  if (rd != c.dtype) {
    narrow[0] = roundedCopy(rd, wUser, c.M * c.Ku);
    narrow[1] = roundedCopy(rd, wCand, c.M * c.Kc);
    narrow[2] = roundedCopy(rd, user, U * c.Ku * c.N);
    narrow[3] = roundedCopy(rd, cand, c.B * c.Kc * c.N);
  }
  const bool conv = rd != c.dtype;
  Problem p = {conv ? narrow[0] : wUser,
               conv ? narrow[1] : wCand,
               conv ? narrow[2] : user,
               conv ? narrow[3] : cand,
               c2u,
               c.i64,
               c.B,
               U,
               c.M,
               c.N,
               c.Ku,
               c.Kc};
  double refRel;
  referenceAny(rd, p, ref, &refRel);

  // FBGEMM's baseline: cuBLAS in the dtype, broadcast-add in the dtype.
  blasBatched(env.blas, rd, p.wCand, p.cand, cr, c.B, c.M, c.N, c.Kc);
  blasBatched(env.blas, rd, p.wUser, p.user, ur, U, c.M, c.N, c.Ku);
  baselineAdd(rd, cr, ur, p, base);
  float baseErr;
  unsigned long long baseBad;
  compareAny(rd, base, ref, outN, &baseErr, &baseBad);
  const float userHalfUlp = halfUlpOfMax(rd, ur, U * c.M * c.N);

  embrtIkboLceArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = c.dtype;
  a.batchSize = c.B;
  a.numUsers = U;
  a.m = c.M;
  a.kUser = c.Ku;
  a.kCand = c.Kc;
  a.n = c.N;
  a.wUser = wUser;
  a.wCand = wCand;
  if (c.view > 0) {
    a.wUser = wAll;
    a.wCand = (char *)wAll + c.Ku * es;
    a.wUserStride = a.wCandStride = S;
  }
  a.user = user;
  a.cand = cand;
  if (c.pieces > 0) {
    a.cand = nullptr;
    a.numCandPieces = c.pieces;
    for (int q = 0; q < c.pieces; ++q) {
      a.candPieces[q] = piece[q];
      a.candPieceK[q] = pieceK[q];
    }
  }
  a.candToUser = c2u;
  a.indexDtype = c.i64 ? EMBRT_I64 : EMBRT_I32;
  a.output = out;
  a.configId = c.configId;
  a.computeDtype = c.compute;
  size_t wsBytes = 0;
  if (embrtCudaIkboLceWorkspaceSize(&env.launch, &a, &wsBytes) != EMBRT_OK) {
    printf("FAIL %s: workspace size query\n", c.name.c_str());
    return false;
  }
  if (wsBytes) {
    CUDA_CHECK(cudaMalloc(&ws, wsBytes));
    CUDA_CHECK(cudaMemset(ws, 0xFF, wsBytes)); // poison
  }
  a.workspace = ws;
  a.workspaceBytes = wsBytes;

  // Which path the launcher will take (the same pure selection).
  IkboLceShape shape = shapeFor(env, c);
  int config = ikboLceResolveConfig(&shape, c.configId);

  bool ok = true;
  std::string why;
  for (int rep = 0; rep < 2 && ok; ++rep) {
    CUDA_CHECK(cudaMemset(out, 0xFF, outN * es)); // poison: NaN
    CUDA_CHECK(
        cudaMemset(env.launch.deviceErrors, 0, sizeof(embrtDeviceErrors)));
    CUDA_CHECK(cudaDeviceSynchronize());
    // The first run on the sm90a path's static schedule, the second on its
    // dynamic one (the counter), which must leave the counter at 0.
    unsigned int *counter = env.launch.scheduleCounter;
    if (rep == 0)
      env.launch.scheduleCounter = nullptr;
    embrtStatus st = embrtCudaLaunchIkboLce(&env.launch, &a);
    env.launch.scheduleCounter = counter;
    if (st != EMBRT_OK) {
      ok = false;
      why = std::string("launch: ") + env.launch.message;
      break;
    }
    std::string what = c.name + " config=" + kIkboLceConfigs[config].name;
    waitOrDie((cudaStream_t)env.launch.stream, gWatchdogSeconds, what.c_str(),
              stdout);
    CUDA_CHECK(cudaGetLastError());
    unsigned int left = 0;
    CUDA_CHECK(cudaMemcpy(&left, counter, sizeof left, cudaMemcpyDeviceToHost));
    if (left != 0) {
      ok = false;
      why = "the schedule counter was left at " + std::to_string(left);
    }
    embrtDeviceErrors de = gpuTestDeviceErrors(&env.launch);
    if (c.bad >= 0) {
      if (de.code != EMBRT_DEVERR_BAD_CAND_TO_USER || de.index != c.bad ||
          de.value != idx[c.bad] || de.limit != U) {
        ok = false;
        char buf[256];
        snprintf(buf, sizeof buf,
                 "device error record code=%d index=%lld value=%lld "
                 "limit=%lld, expected %d %lld %lld %lld",
                 de.code, de.index, de.value, de.limit,
                 EMBRT_DEVERR_BAD_CAND_TO_USER, c.bad, idx[c.bad], U);
        why = buf;
      }
    } else if (de.code != 0) {
      ok = false;
      why = "unexpected device error " + std::to_string(de.code);
    }
    float err;
    unsigned long long bad;
    compareAny(c.dtype, out, ref, outN, &err, &bad);
    // FBGEMM's tolerance. Configurations that keep the user result in the
    // dtype round twice (user result, then output); on the spec matrix they
    // must still meet it, elsewhere they may add half an ulp of the largest
    // user value (the second rounding), which small-K cases can reach.
    const IkboLceConfig &cf = kIkboLceConfigs[config];
    const bool roundsUser =
        cf.path == IKBO_LCE_PATH_SM90A && !cf.userF32 && rd != EMBRT_F32;
    const float tol = std::max(baseErr, 1e-4f) +
                      (roundsUser && !c.strict ? userHalfUlp : 0.f);
    if (bad || !(err <= tol)) {
      ok = false;
      char buf[256];
      snprintf(buf, sizeof buf,
               "max|err| %.4g > tolerance %.4g or %llu non-finite", err, tol,
               bad);
      why = buf;
    }
    // The conversion path rounds its output to the compute type once.
    const unsigned long long notOfType =
        conv ? countNotOfType(rd, out, outN) : 0;
    if (ok && notOfType) {
      ok = false;
      why = std::to_string(notOfType) + " output elements are not values of " +
            dtypeName(rd);
    }
    if (!ok && c.dtype == EMBRT_F16)
      showMismatches<__half>(out, ref, c.B, c.M, c.N, tol);
    if (rep == 1 || !ok)
      printf("%s %-44s %-9s path=%-16s%s err=%.3e base=%.3e (x%.2f) tol=%s "
             "refcheck=%.1e%s%s\n",
             ok ? "PASS" : "FAIL", c.name.c_str(), caseDtypeName(c).c_str(),
             kIkboLceConfigs[config].name, rep == 0 ? " (static schedule)" : "",
             err, baseErr, baseErr > 0 ? err / baseErr : 0.0,
             roundsUser && !c.strict ? "base+ulp/2" : "base", refRel,
             ok ? "" : ": ", why.c_str());
  }
  // The f32 reference must agree with the f64 samples far below tolerance.
  if (refRel > 1e-4) {
    printf("FAIL %s: f32 reference off the f64 samples by %.2e\n",
           c.name.c_str(), refRel);
    ok = false;
  }
  if (c.expectPath >= 0 && kIkboLceConfigs[config].path != c.expectPath) {
    printf("FAIL %s: took %s, expected path %d\n", c.name.c_str(),
           kIkboLceConfigs[config].name, c.expectPath);
    ok = false;
  }
  void *bufs[] = {wUser, wCand, user, cand, c2u, out,
                  cr,    ur,    base, ref,  ws,  wAll};
  for (void *b : bufs)
    if (b)
      CUDA_CHECK(cudaFree(b));
  for (void *b : narrow)
    if (b)
      CUDA_CHECK(cudaFree(b));
  for (void *b : piece)
    if (b)
      CUDA_CHECK(cudaFree(b));
  return ok;
}

static Case mk(embrtDtype d, long long B, long long M, long long N,
               long long Ku, long long Kc, int ratio, bool sorted,
               int configId = -1, int i64 = 0, long long bad = -1,
               int expectPath = -1) {
  Case c;
  c.dtype = d;
  c.B = B;
  c.M = M;
  c.N = N;
  c.Ku = Ku;
  c.Kc = Kc;
  c.ratio = ratio;
  c.sorted = sorted;
  c.i64 = i64;
  c.configId = configId;
  c.bad = bad;
  c.expectPath = expectPath;
  c.strict = false;
  c.view = 0;
  c.pieces = 0;
  c.compute = EMBRT_F32;
  char buf[160];
  snprintf(buf, sizeof buf, "B%lld_M%lld_N%lld_Ku%lld_Kc%lld_r%d_%s%s%s%s", B,
           M, N, Ku, Kc, ratio, sorted ? "sorted" : "shuffled",
           i64 ? "_i64" : "", bad >= 0 ? "_bad" : "",
           configId >= 0
               ? (std::string("_cfg") + std::to_string(configId)).c_str()
               : "");
  c.name = buf;
  return c;
}

/// `c` with its weights read as column blocks of one matrix with `extra`
/// columns past them.
static Case viewCase(Case c, int extra) {
  c.view = extra + 1;
  c.name += "_view" + std::to_string(c.Ku + c.Kc + extra);
  return c;
}

/// `c` with its candidate embeddings passed in `n` pieces along K.
static Case piecesCase(Case c, int n) {
  c.pieces = n;
  c.name += "_pieces" + std::to_string(n);
  return c;
}

/// `c` (f32 data) computed in `d`, f16 or bf16.
static Case computeCase(Case c, embrtDtype d) {
  c.compute = d;
  c.name += std::string("_compute_") + dtypeName(d);
  return c;
}

/// FBGEMM's tolerance as it is, whatever the path: the spec matrix and the
/// benchmark shapes.
static Case strictCase(Case c) {
  c.strict = true;
  c.name += "_strict";
  return c;
}

static int configIndex(const char *name) {
  for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i)
    if (!strcmp(kIkboLceConfigs[i].name, name))
      return i;
  fprintf(stderr, "no configuration %s\n", name);
  exit(2);
}

static std::vector<Case> cases(bool quick, bool smokeOnly, bool hopper) {
  std::vector<Case> v;
  const int sm90 = hopper ? IKBO_LCE_PATH_SM90A : -1;
  const int port = IKBO_LCE_PATH_PORTABLE;
  const int smallk = hopper ? IKBO_LCE_PATH_SMALLK : -1;
  const int sk = configIndex("smallk_mma");
  const int blas = IKBO_LCE_PATH_CUBLAS; // f32 with a cuBLAS handle
  const int pf = IKBO_LCE_CONFIG_PORTABLE;
  if (quick) {
    v.push_back(
        mk(EMBRT_F16, 24, 433, 256, 130, 72, 8, false, -1, 0, -1, sm90));
    v.push_back(mk(EMBRT_BF16, 16, 100, 64, 64, 77, 5, true, -1, 1, 3, sm90));
    v.push_back(mk(EMBRT_F16, 12, 437, 256, 96, 40, 4, false,
                   configIndex("sm90a_m224_c4"), 0, 5));
    v.push_back(mk(EMBRT_F16, 12, 200, 256, 96, 40, 4, true,
                   configIndex("sm90a_m224_c2")));
    v.push_back(mk(EMBRT_F16, 12, 437, 256, 96, 40, 4, true,
                   configIndex("sm90a_m224_f32_c4"), 1, 7));
    v.push_back(mk(EMBRT_F32, 8, 70, 40, 33, 20, 3, false, -1, 0, 2, blas));
    v.push_back(mk(EMBRT_F32, 8, 70, 40, 33, 20, 3, false, pf, 0, 2, port));
    v.push_back(piecesCase(
        mk(EMBRT_F32, 9, 70, 40, 33, 20, 3, false, -1, 1, 4, blas), 3));
    v.push_back(mk(EMBRT_F16, 8, 70, 72, 33, 20, 3, true, 0, 0, -1, port));
    v.push_back(viewCase(mk(EMBRT_F16, 24, 433, 256, 130, 73, 8, true), 0));
    v.push_back(viewCase(mk(EMBRT_F16, 24, 200, 256, 128, 64, 8, true), 64));
    v.push_back(mk(EMBRT_F16, 40, 64, 128, 32, 34, 8, true, sk, 0, 5, smallk));
    v.push_back(
        mk(EMBRT_BF16, 9, 117, 200, 17, 64, 3, false, sk, 1, -1, smallk));
    v.push_back(piecesCase(
        mk(EMBRT_F16, 40, 64, 128, 32, 40, 8, true, -1, 0, -1, smallk), 3));
    v.push_back(piecesCase(
        mk(EMBRT_F16, 12, 200, 256, 96, 40, 4, true, -1, 0, -1, sm90), 2));
    v.push_back(computeCase(
        piecesCase(mk(EMBRT_F32, 12, 200, 256, 96, 40, 4, true, -1, 0, 5), 3),
        EMBRT_BF16));
    v.push_back(computeCase(
        viewCase(mk(EMBRT_F32, 16, 70, 72, 33, 20, 3, false), 2), EMBRT_F16));
    return v;
  }
  // Smoke: every configuration forced on a small case, so that a broken
  // path shows before the long matrix (--smoke runs only these).
  for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i) {
    const IkboLceConfig &cf = kIkboLceConfigs[i];
    Case c =
        cf.path == IKBO_LCE_PATH_CUBLAS
            ? mk(EMBRT_F32, 8, 433, 256, 136, 72, 4, false, i)
        : cf.path == IKBO_LCE_PATH_SMALLK
            ? mk(EMBRT_F16, 8, 117, 256, 33, 40, 4, false, i)
            : mk(EMBRT_F16, 8,
                 cf.path == IKBO_LCE_PATH_PORTABLE ? 433 : 2 * cf.mTile - 11,
                 256, 136, 72, 4, false, i);
    c.name += "_smoke";
    v.push_back(c);
  }
  if (smokeOnly)
    return v;
  // The FBGEMM IKBO accuracy matrix (f16), automatic configuration.
  for (long long B : {512, 1024})
    for (long long M : {128, 433})
      for (long long Ku : {1024, 1025})
        for (long long Kc : {1023, 1024})
          for (int ratio : {10, 70})
            for (bool sorted : {true, false})
              v.push_back(strictCase(mk(EMBRT_F16, B, M, 256, Ku, Kc, ratio,
                                        sorted, -1, 0, -1, sm90)));
  // bf16 and f32; the benchmark shape, padded and not.
  v.push_back(strictCase(mk(EMBRT_BF16, 512, 433, 256, 1025, 1024, 70, false)));
  v.push_back(strictCase(mk(EMBRT_BF16, 512, 128, 256, 1024, 1023, 10, true)));
  v.push_back(strictCase(mk(EMBRT_F16, 1024, 433, 256, 1184, 872, 70, true)));
  v.push_back(strictCase(mk(EMBRT_F16, 1024, 433, 256, 1178, 866, 70, false)));
  // Weights as column blocks of one matrix, as the compiled model passes
  // them: the benchmark's [433, 2044] (copied with a 16-byte pitch, the
  // candidate block at an odd column), an aligned stride read in place, a
  // stride with an aligned K but an odd pitch, and the portable path.
  v.push_back(strictCase(
      viewCase(mk(EMBRT_F16, 1024, 433, 256, 1178, 866, 70, true), 0)));
  v.push_back(viewCase(mk(EMBRT_BF16, 256, 433, 256, 1024, 512, 10, false), 0));
  v.push_back(viewCase(mk(EMBRT_F16, 128, 200, 256, 256, 128, 10, true), 3));
  v.push_back(viewCase(
      mk(EMBRT_F32, 32, 100, 64, 70, 41, 4, false, -1, 0, -1, blas), 5));
  v.push_back(viewCase(
      mk(EMBRT_F32, 32, 100, 64, 70, 41, 4, false, pf, 0, -1, port), 5));
  v.push_back(
      mk(EMBRT_F32, 64, 433, 256, 200, 131, 10, false, -1, 0, -1, blas));
  v.push_back(
      mk(EMBRT_F32, 64, 433, 256, 200, 131, 10, false, pf, 0, -1, port));
  // The cuBLAS path: the benchmark shape (its weights as column blocks,
  // candidates in pieces), N and M*N not multiples of 4 (one-element
  // gather), a batch of one.
  v.push_back(strictCase(piecesCase(viewCase(mk(EMBRT_F32, 1024, 433, 256, 1178,
                                                866, 70, true, -1, 0, -1, blas),
                                             0),
                                    3)));
  v.push_back(mk(EMBRT_F32, 50, 33, 101, 129, 77, 5, false, -1, 1, 7, blas));
  v.push_back(mk(EMBRT_F32, 1, 433, 256, 40, 24, 1, true, -1, 0, -1, blas));
  // Every configuration forced, on a shape its tile suits.
  for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i) {
    const IkboLceConfig &cf = kIkboLceConfigs[i];
    if (cf.path == IKBO_LCE_PATH_CUBLAS) {
      v.push_back(mk(EMBRT_F32, 96, 433, 256, 264, 203, 7, false, i, i % 2, -1,
                     cf.path));
      continue;
    }
    const bool small = cf.path == IKBO_LCE_PATH_SMALLK;
    long long M = cf.path == IKBO_LCE_PATH_PORTABLE ? 433
                  : small                           ? 100
                                                    : 2 * cf.mTile - 11;
    for (embrtDtype d : {EMBRT_F16, EMBRT_BF16})
      v.push_back(mk(d, 96, M, 256, small ? 48 : 264, small ? 61 : 203, 7,
                     false, i, i % 2, -1, hopper ? cf.path : -1));
  }
  // Small K (forced, and picked where it applies): the ranking model's LCE
  // (K 40 padded, 34 read in place), bf16, N of three column chunks and of
  // a partial one, the fewest rows and columns, K of one and of eight
  // k-steps (one side past 64), M not a multiple of 16, the weights as
  // column blocks, I64 indices and bad entries.
  v.push_back(strictCase(
      mk(EMBRT_F16, 2048, 64, 128, 32, 40, 64, true, sk, 0, -1, smallk)));
  v.push_back(strictCase(
      mk(EMBRT_F16, 2048, 64, 128, 32, 34, 64, true, sk, 0, -1, smallk)));
  v.push_back(
      mk(EMBRT_BF16, 2048, 64, 128, 32, 40, 64, false, sk, 0, -1, smallk));
  v.push_back(
      mk(EMBRT_F16, 300, 128, 384, 64, 64, 10, true, sk, 1, -1, smallk));
  v.push_back(mk(EMBRT_BF16, 77, 48, 200, 20, 9, 7, false, sk, 0, -1, smallk));
  v.push_back(mk(EMBRT_F16, 33, 1, 8, 1, 1, 4, true, sk, 0, -1, smallk));
  v.push_back(mk(EMBRT_F16, 1, 16, 136, 64, 16, 1, true, sk, 0, -1, smallk));
  v.push_back(viewCase(
      mk(EMBRT_F16, 500, 64, 128, 32, 34, 64, true, sk, 0, -1, smallk), 3));
  v.push_back(mk(EMBRT_F16, 640, 64, 128, 32, 40, 64, true, sk, 1, 17, smallk));
  v.push_back(
      mk(EMBRT_F16, 200, 128, 256, 28, 100, 10, false, sk, 0, -1, smallk));
  v.push_back(mk(EMBRT_BF16, 50, 72, 136, 63, 64, 5, true, -1, 1, 9, smallk));
  // Candidates in pieces (a concat read in place): the ranking model's
  // features, attention output and zeros on the small-K path; two and four
  // pieces; and on the paths that copy the pieces together first.
  v.push_back(strictCase(piecesCase(
      mk(EMBRT_F16, 2048, 64, 128, 32, 40, 64, true, -1, 0, -1, smallk), 3)));
  v.push_back(piecesCase(
      mk(EMBRT_BF16, 300, 96, 200, 24, 37, 10, false, -1, 1, 11, smallk), 2));
  v.push_back(piecesCase(
      mk(EMBRT_F16, 100, 64, 128, 32, 64, 8, true, -1, 0, -1, smallk), 4));
  v.push_back(piecesCase(
      mk(EMBRT_F16, 96, 433, 256, 136, 203, 7, false, -1, 0, -1, sm90), 3));
  v.push_back(piecesCase(
      mk(EMBRT_F32, 32, 70, 40, 33, 20, 3, false, pf, 0, 2, port), 3));
  // Edges: N not a multiple of 8 (portable), one column tile (unclustered,
  // one consumer past N), three tiles, tiny batches, K below one block,
  // I64 indices, bad entries.
  v.push_back(
      mk(EMBRT_F16, 64, 433, 100, 300, 260, 10, false, -1, 0, -1, port));
  v.push_back(mk(EMBRT_F16, 64, 433, 64, 300, 260, 10, false));
  v.push_back(mk(EMBRT_BF16, 64, 300, 384, 200, 136, 6, true));
  v.push_back(mk(EMBRT_F16, 1, 433, 256, 40, 24, 1, true));
  v.push_back(mk(EMBRT_F16, 5, 1000, 256, 8, 16, 5, true));
  v.push_back(mk(EMBRT_F16, 256, 433, 256, 1184, 872, 1000, true, -1, 1));
  v.push_back(mk(EMBRT_F16, 512, 433, 256, 1024, 1024, 2, false, -1, 0, 77));
  v.push_back(mk(EMBRT_BF16, 128, 128, 256, 512, 520, 10, true, -1, 1, 100));
  v.push_back(mk(EMBRT_F32, 32, 128, 64, 64, 64, 4, true, pf, 1, 5, port));
  // f32 data computed in bf16 and f16 (the conversion path): the benchmark
  // shape with its weights as column blocks and its candidates in pieces,
  // FBGEMM's shapes (odd K: strided, unaligned weight rows), the small-K
  // path, the portable path (N not a multiple of 8, unaligned rounding),
  // I64 indices and bad entries, one candidate.
  for (embrtDtype d : {EMBRT_BF16, EMBRT_F16}) {
    v.push_back(strictCase(computeCase(
        piecesCase(
            viewCase(mk(EMBRT_F32, 1024, 433, 256, 1178, 866, 70, true), 0), 3),
        d)));
    v.push_back(strictCase(computeCase(
        mk(EMBRT_F32, 512, 433, 256, 1025, 1023, 10, false, -1, 0, -1, sm90),
        d)));
    v.push_back(computeCase(
        mk(EMBRT_F32, 640, 64, 128, 32, 40, 64, true, -1, 1, 17, smallk), d));
    v.push_back(computeCase(
        mk(EMBRT_F32, 64, 433, 100, 300, 260, 10, false, -1, 0, -1, port), d));
    v.push_back(computeCase(mk(EMBRT_F32, 1, 433, 256, 40, 24, 1, true), d));
    v.push_back(computeCase(
        viewCase(mk(EMBRT_F32, 96, 200, 256, 264, 203, 7, false, -1, 1, 9), 5),
        d));
  }
  return v;
}

int main(int argc, char **argv) {
  bool quick = false, list = false, smoke = false;
  const char *filter = nullptr;
  std::string skip; // ",name,name," configurations not to run
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--quick"))
      quick = true;
    else if (!strcmp(argv[i], "--list"))
      list = true;
    else if (!strcmp(argv[i], "--smoke"))
      smoke = true;
    else if (!strcmp(argv[i], "--skip-configs") && i + 1 < argc)
      skip = std::string(",") + argv[++i] + ",";
    else if (!strcmp(argv[i], "--watchdog") && i + 1 < argc)
      gWatchdogSeconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
      filter = argv[++i];
    else {
      fprintf(stderr, "usage: ikbo_lce [--quick] [--smoke] [--filter S] "
                      "[--list] [--watchdog SECONDS] [--skip-configs A,B]\n");
      return 2;
    }
  }
  Env env;
  env.launch = gpuTestEnv(); // its stream is ordered after default-stream work
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  BLAS_CHECK(cublasCreate(&env.blas));
  BLAS_CHECK(cublasSetStream(env.blas, 0));
  // The launcher's own handle, on its stream (the f32 cuBLAS path).
  cublasHandle_t launchBlas;
  BLAS_CHECK(cublasCreate(&launchBlas));
  BLAS_CHECK(cublasSetStream(launchBlas, (cudaStream_t)env.launch.stream));
  env.launch.blasHandle = launchBlas;
  const bool hopper = prop.major == 9 && prop.minor == 0;
  printf("%s, cc %d.%d, %d SMs\n", prop.name, prop.major, prop.minor,
         prop.multiProcessorCount);

  int failed = 0, run = 0;
  for (const Case &c : cases(quick, smoke, hopper)) {
    if (filter && c.name.find(filter) == std::string::npos &&
        strcmp(filter, dtypeName(c.dtype)))
      continue;
    IkboLceShape sh = shapeFor(env, c);
    const char *cfg =
        kIkboLceConfigs[ikboLceResolveConfig(&sh, c.configId)].name;
    if (skip.find(std::string(",") + cfg + ",") != std::string::npos)
      continue;
    if (list) {
      printf("%s %s %s\n", c.name.c_str(), dtypeName(c.dtype), cfg);
      continue;
    }
    ++run;
    if (!runCase(env, c))
      ++failed;
    fflush(stdout);
  }
  printf("%d of %d cases passed\n", run - failed, run);
  BLAS_CHECK(cublasDestroy(env.blas));
  BLAS_CHECK(cublasDestroy(launchBlas));
  env.launch.blasHandle = nullptr;
  gpuTestEnvDestroy(&env.launch);
  return failed ? 1 : 0;
}
