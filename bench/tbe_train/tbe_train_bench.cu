//===- bench/tbe_train/tbe_train_bench.cu - Times a TBE training step
//------===//
//
// Times one training step of emb's TBE, the forward (embrtTbeForward) then
// the fused backward with its optimizer (embrtTbeBackward), on the shapes of
// issue 14's bars, with the inputs and the method of the torch peers
// (bench/tbe_train/peers.py): T tables of E rows, L ids a bag drawn
// uniformly or Zipf(alpha) with the hot rows scattered, i64 ids and
// offsets, a fixed random output gradient, learning rate 0.01.
//
// Method (as triton.testing.do_bench; BenchTimer in bench/common/
// bench_timer.cuh): 5 timed steps estimate the time, then 25 ms of warm-up
// steps (at most 200) and 100 ms of measured steps (at least 5, at most
// 500), each after a 256 MB memset that flushes L2,
// timed alone with CUDA events; the median is reported. The forward and the
// backward are also timed alone (fwd_ms, bwd_ms). The tables train while
// they are timed (every step updates them), as they would.
//
// Bytes (the floor of the step, issue 14): the forward's row reads, the
// gradient read once, one read and one write of every touched row and of
// its optimizer state. Ids, offsets and the forward's output are left out.
//
// Check: before timing, one backward step on fresh tables is compared on 64
// sampled touched rows (and their states) with a host computation from the
// same inputs (f64 sums, the optimizer in f64; 16-bit tables within an ulp).
//
// States below f32 (embrtStatePrecision; the *_state cases: bf16, or fp8
// with rowwise Adagrad's table scale 2 and Adam's row scales): the same
// steps with the states stored at that precision, against the f32-state
// case of the same shape (train_rowwise_uniform and train_adam_uniform) in
// the same run; the check decodes the states and holds rowwise Adagrad's
// new state to one step of its format. bench/tbe_train/state_precision.py
// trains 100 steps both ways and compares the tables.
//
// Usage: tbe_train_bench [--out FILE.jsonl] [--only CASE,...] [--sweep]
//                        [--variants NAME,...] [--run N]
//   --sweep: also every routing configuration on the cases that name them,
//   and the accumulate variants (kernels/variants.cmake; --variants: only
//   those) on every case, each step timed whole and checked as the
//   default's; those that promise the default's bits (pipe) are also
//   compared with a default step from the same sampled rows, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "bench/common/bench_timer.cuh"
#include "emb/runtime.h"
#include "kernels/launch.h"
#include "kernels/stochastic_rounding.h"
#include "test/Kernels/gpu_test.cuh"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

typedef embrtStatus (*BackwardLauncher)(embrtLaunchEnv *,
                                        const embrtTbeBackwardArgs *);

// Variants of kernels/tbe_backward.cu (kernels/variants.cmake,
// EMB_TBE_BWD_SUFFIX), called as launchers with a launch environment.
#ifdef TBE_TRAIN_VARIANTS
extern "C" embrtStatus
embrtCudaLaunchTbeBackward_mb2(embrtLaunchEnv *, const embrtTbeBackwardArgs *);
extern "C" embrtStatus
embrtCudaLaunchTbeBackward_occ(embrtLaunchEnv *, const embrtTbeBackwardArgs *);
extern "C" embrtStatus
embrtCudaLaunchTbeBackward_pipe(embrtLaunchEnv *, const embrtTbeBackwardArgs *);
extern "C" embrtStatus
embrtCudaLaunchTbeBackward_plain(embrtLaunchEnv *,
                                 const embrtTbeBackwardArgs *);
extern "C" embrtStatus
embrtCudaLaunchTbeBackward_stateruntime(embrtLaunchEnv *,
                                        const embrtTbeBackwardArgs *);
static const struct {
  const char *name;
  BackwardLauncher launch;
  bool sameBits; ///< the check also compares the sampled rows with the
                 ///< default's step bit for bit
} kVariants[] = {
    {"mb2", embrtCudaLaunchTbeBackward_mb2, false},
    // 8 CTAs an SM: Adam's rows differ from the default's (6 CTAs) in
    // the last bit (call 6): within the GPU test's tolerance, not the same
    // bits.
    {"occ", embrtCudaLaunchTbeBackward_occ, false},
    {"pipe", embrtCudaLaunchTbeBackward_pipe, true},
    {"plain", embrtCudaLaunchTbeBackward_plain, true},
    {"stateruntime", embrtCudaLaunchTbeBackward_stateruntime, true},
};
#endif

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

struct Shape {
  const char *name;
  int64_t B, T, E, D, L;
  embrtDtype dtype;
  double alpha; ///< Zipf exponent, 0: uniform
  embrtOptimizer optimizer;
  double bar; ///< torch ms / ours ms to reach, 0: none stated
  bool sweep; ///< --sweep times the routing configurations here
  /// How momentum1 and momentum2 are stored (f32 unless named).
  embrtStatePrecision state1 = EMBRT_STATE_F32, state2 = EMBRT_STATE_F32;
};

static const Shape kShapes[] = {
    {"train_rowwise_uniform", 16384, 32, 100000, 128, 20, EMBRT_F32, 0,
     EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, 6, true},
    {"train_rowwise_zipf", 16384, 32, 100000, 128, 20, EMBRT_F32, 1.15,
     EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, 6, true},
    {"train_rowwise_l4", 65536, 64, 1000000, 64, 4, EMBRT_F32, 0,
     EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, 8, true},
    {"train_rowwise_fbgemm", 512, 32, 100000, 128, 20, EMBRT_F32, 0,
     EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, 5, false},
    {"train_sgd_uniform", 16384, 32, 100000, 128, 20, EMBRT_F32, 0,
     EMBRT_OPTIMIZER_SGD, 0, false},
    {"train_adam_uniform", 16384, 32, 100000, 128, 20, EMBRT_F32, 0,
     EMBRT_OPTIMIZER_ADAM, 0, false},
    {"train_rowwise_f16", 16384, 32, 100000, 128, 20, EMBRT_F16, 0,
     EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, 0, false},
    // DLRM-DCNv2's lookups as bench/dlrm_train runs them (26 tables of D 128,
    // f32, B 16384, 3.5 M ids, rows mostly touched once), with one pooling
    // factor, MLPerf's mean (8.2), and 2 M rows a table (27 GB of tables).
    {"train_rowwise_dlrm", 16384, 26, 2000000, 128, 8, EMBRT_F32, 0,
     EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, 0, false},
    // The uniform cases with their states below f32 (embrtStatePrecision).
    {"train_rowwise_uniform_bf16_state", 16384, 32, 100000, 128, 20, EMBRT_F32,
     0, EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, 0, false, EMBRT_STATE_BF16},
    {"train_rowwise_uniform_fp8_state", 16384, 32, 100000, 128, 20, EMBRT_F32,
     0, EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, 0, false, EMBRT_STATE_FP8_E4M3},
    {"train_adam_uniform_bf16_state", 16384, 32, 100000, 128, 20, EMBRT_F32, 0,
     EMBRT_OPTIMIZER_ADAM, 0, false, EMBRT_STATE_BF16, EMBRT_STATE_BF16},
    {"train_adam_uniform_fp8_state", 16384, 32, 100000, 128, 20, EMBRT_F32, 0,
     EMBRT_OPTIMIZER_ADAM, 0, false, EMBRT_STATE_FP8_E4M3,
     EMBRT_STATE_FP8_E5M2},
};

static const char *optimizerName(embrtOptimizer o) {
  return o == EMBRT_OPTIMIZER_SGD               ? "sgd"
         : o == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD ? "rowwise_adagrad"
                                                : "adam";
}

static const char *dtypeName(embrtDtype d) {
  return d == EMBRT_F32 ? "float32" : d == EMBRT_F16 ? "float16" : "bfloat16";
}

//===----------------------------------------------------------------------===//
// Inputs on the device
//===----------------------------------------------------------------------===//

/// Values of table t from the hash stream (never zero), in +-[0.25, 1.25).
template <typename T>
__global__ void fillValues(T *p, long long n, uint64_t seed, float scale) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    uint64_t x = mix64At(seed, (uint64_t)i);
    float m = 0.25f + (float)((x >> 40) & 0xFFFF) / 65536.0f;
    p[i] = fromF<T>(((x & 1) ? m : -m) * scale);
  }
}

/// Uniform ids in [0, E) for n positions.
__global__ void uniformIds(long long *ids, long long n, uint64_t seed,
                           long long E) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    ids[i] = (long long)(mix64At(seed, (uint64_t)i) % (uint64_t)E);
}

/// Zipf ids: rank by a search of the CDF, then through a permutation.
__global__ void zipfIds(long long *ids, long long n, uint64_t seed,
                        const double *cdf, const long long *perm, long long E) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    double u = (mix64At(seed, (uint64_t)i) >> 11) * (1.0 / 9007199254740992.0);
    long long lo = 0, hi = E - 1;
    while (lo < hi) {
      long long mid = (lo + hi) >> 1;
      if (cdf[mid] < u)
        lo = mid + 1;
      else
        hi = mid;
    }
    ids[i] = perm[lo];
  }
}

__global__ void rangeOffsets(long long *offs, long long n, long long L) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    offs[i] = i * L;
}

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
};

struct Device {
  cudaStream_t stream;
  embrtContext *ctx;
  embrtLaunchEnv env;
};

static double hostValue(embrtDtype d, const void *p, int64_t i) {
  if (d == EMBRT_F32)
    return ((const float *)p)[i];
  uint16_t b = ((const uint16_t *)p)[i];
  return d == EMBRT_F16 ? embrtF16ToF32(b) : embrtBF16ToF32(b);
}

//===----------------------------------------------------------------------===//
// One shape
//===----------------------------------------------------------------------===//

static int runNumber = 1;

/// Whether `name` is in the comma list `list` (NULL: every name).
[[maybe_unused]] static bool selected(const char *list, const char *name) {
  return !list || strstr((std::string(",") + list + ",").c_str(),
                         (std::string(",") + name + ",").c_str());
}

static void runShape(Device &dev, const Shape &sh, FILE *out, bool sweep,
                     const char *variants) {
  embrtContext *ctx = dev.ctx;
  cudaStream_t stream = dev.stream;
  const int64_t B = sh.B, T = sh.T, E = sh.E, D = sh.D, L = sh.L;
  const size_t esz = embrtDtypeSize(sh.dtype);
  const int64_t numBags = T * B, N = numBags * L;
  const uint64_t seed = 0x7a1bull + (uint64_t)B * 131 + (uint64_t)D * 7 + L;

  // Tables (one allocation, T pointers 256-byte aligned) and states.
  const size_t tableBytes = ((size_t)E * D * esz + 255) & ~(size_t)255;
  char *tables = nullptr;
  CUDA_CHECK(cudaMalloc(&tables, tableBytes * T));
  std::vector<void *> tablePtrs(T), m1Ptrs(T, nullptr), m2Ptrs(T, nullptr);
  std::vector<int64_t> rows(T, E), dims(T, D), featureTables(T);
  const size_t stateElems = sh.optimizer == EMBRT_OPTIMIZER_ADAM ? (size_t)E * D
                            : sh.optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD
                                ? (size_t)E
                                : 0;
  const embrtStatePrecision prec[2] = {sh.state1, sh.state2};
  const bool quantized =
      sh.state1 != EMBRT_STATE_F32 || sh.state2 != EMBRT_STATE_F32;
  const size_t elemBytes[2] = {(size_t)embrtStatePrecisionBytes(sh.state1),
                               (size_t)embrtStatePrecisionBytes(sh.state2)};
  const size_t stateBytes[2] = {
      (stateElems * elemBytes[0] + 255) & ~(size_t)255,
      (stateElems * elemBytes[1] + 255) & ~(size_t)255};
  char *m1 = nullptr, *m2 = nullptr;
  if (stateElems) {
    CUDA_CHECK(cudaMalloc(&m1, stateBytes[0] * T));
    CUDA_CHECK(cudaMemset(m1, 0, stateBytes[0] * T));
  }
  if (sh.optimizer == EMBRT_OPTIMIZER_ADAM) {
    CUDA_CHECK(cudaMalloc(&m2, stateBytes[1] * T));
    CUDA_CHECK(cudaMemset(m2, 0, stateBytes[1] * T));
  }
  // fp8 scales: rowwise Adagrad's one a table (2: a row's state, about 2
  // a step here, stays within 2 * 448 for the 100 steps of
  // state_precision.py), Adam's one a row (1; rewritten by every update).
  const bool fp8[2] = {sh.state1 >= EMBRT_STATE_FP8_E4M3,
                       sh.state2 >= EMBRT_STATE_FP8_E4M3};
  const int64_t scaleCount = sh.optimizer == EMBRT_OPTIMIZER_ADAM ? E : 1;
  const size_t scaleBytes = ((size_t)scaleCount * 4 + 255) & ~(size_t)255;
  float *scales[2] = {nullptr, nullptr};
  std::vector<void *> scalePtrs[2] = {std::vector<void *>(T, nullptr),
                                      std::vector<void *>(T, nullptr)};
  for (int k = 0; k < 2; ++k)
    if (fp8[k]) {
      CUDA_CHECK(cudaMalloc(&scales[k], scaleBytes * T));
      std::vector<float> init(scaleBytes / 4 * T,
                              sh.optimizer == EMBRT_OPTIMIZER_ADAM ? 1.0f
                                                                   : 2.0f);
      CUDA_CHECK(cudaMemcpy(scales[k], init.data(), scaleBytes * T,
                            cudaMemcpyHostToDevice));
      for (int64_t t = 0; t < T; ++t)
        scalePtrs[k][t] = (char *)scales[k] + scaleBytes * t;
    }
  for (int64_t t = 0; t < T; ++t) {
    tablePtrs[t] = tables + tableBytes * t;
    if (m1)
      m1Ptrs[t] = m1 + stateBytes[0] * t;
    if (m2)
      m2Ptrs[t] = m2 + stateBytes[1] * t;
    featureTables[t] = t;
    if (sh.dtype == EMBRT_F32)
      fillValues<float><<<1024, 256, 0, stream>>>((float *)tablePtrs[t], E * D,
                                                  seed + t, 1.0f);
    else
      fillValues<__half><<<1024, 256, 0, stream>>>((__half *)tablePtrs[t],
                                                   E * D, seed + t, 1.0f);
  }
  CUDA_CHECK(cudaGetLastError());

  // Ids (per table: uniform or Zipf with a random permutation), offsets.
  long long *dIds = nullptr, *dOffs = nullptr;
  CUDA_CHECK(cudaMalloc(&dIds, N * 8));
  CUDA_CHECK(cudaMalloc(&dOffs, (numBags + 1) * 8));
  rangeOffsets<<<1024, 256, 0, stream>>>(dOffs, numBags + 1, L);
  if (sh.alpha > 1.0) {
    std::vector<double> cdf(E);
    std::vector<long long> perm(E);
    double *dCdf = nullptr;
    long long *dPerm = nullptr;
    CUDA_CHECK(cudaMalloc(&dCdf, E * 8));
    CUDA_CHECK(cudaMalloc(&dPerm, E * 8));
    double sum = 0;
    for (int64_t i = 0; i < E; ++i)
      cdf[i] = (sum += pow((double)(i + 1), -sh.alpha));
    for (int64_t i = 0; i < E; ++i)
      cdf[i] /= sum;
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t i = 0; i < E; ++i)
        perm[i] = i;
      for (int64_t i = E - 1; i > 0; --i)
        std::swap(perm[i], perm[mix64At(seed + 99 + t, i) % (uint64_t)(i + 1)]);
      CUDA_CHECK(cudaMemcpy(dCdf, cdf.data(), E * 8, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemcpy(dPerm, perm.data(), E * 8, cudaMemcpyHostToDevice));
      zipfIds<<<1024, 256, 0, stream>>>(dIds + t * B * L, B * L, seed + 7 * t,
                                        dCdf, dPerm, E);
      CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    cudaFree(dCdf);
    cudaFree(dPerm);
  } else {
    for (int64_t t = 0; t < T; ++t)
      uniformIds<<<1024, 256, 0, stream>>>(dIds + t * B * L, B * L,
                                           seed + 7 * t, E);
  }
  CUDA_CHECK(cudaGetLastError());

  // The forward's output and the backward's gradient, in the table dtype.
  void *dOut = nullptr, *dGrad = nullptr;
  const size_t outBytes = (size_t)B * T * D * esz;
  CUDA_CHECK(cudaMalloc(&dOut, outBytes));
  CUDA_CHECK(cudaMalloc(&dGrad, outBytes));
  if (sh.dtype == EMBRT_F32)
    fillValues<float><<<1024, 256, 0, stream>>>((float *)dGrad, B * T * D,
                                                seed ^ 0x6a7d, 1.0f);
  else
    fillValues<__half><<<1024, 256, 0, stream>>>((__half *)dGrad, B * T * D,
                                                 seed ^ 0x6a7d, 1.0f);
  float hyper[EMBRT_NUM_HYPER_PARAMS] = {0.01f, 1e-8f, 0.9f, 0.999f, 0.0f};
  if (sh.optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
    hyper[EMBRT_HYPER_EPS] = 1e-8f;
  float *dHyper = nullptr;
  long long *dStep = nullptr;
  CUDA_CHECK(cudaMalloc(&dHyper, sizeof hyper));
  CUDA_CHECK(cudaMalloc(&dStep, 8));
  CUDA_CHECK(cudaMemcpy(dHyper, hyper, sizeof hyper, cudaMemcpyHostToDevice));
  const long long one = 1;
  CUDA_CHECK(cudaMemcpy(dStep, &one, 8, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());

  embrtTbeArgs f;
  memset(&f, 0, sizeof f);
  f.structSize = sizeof f;
  f.pooling = EMBRT_POOLING_SUM;
  f.boundsCheck = EMBRT_BOUNDS_FATAL;
  f.numTables = T;
  f.tables = (const void *const *)tablePtrs.data();
  f.tableRows = rows.data();
  f.tableDims = dims.data();
  f.tableDtype = sh.dtype;
  f.numFeatures = T;
  f.featureTables = featureTables.data();
  f.batchSize = B;
  f.numIndices = N;
  f.indices = dIds;
  f.indexDtype = EMBRT_I64;
  f.offsets = dOffs;
  f.offsetDtype = EMBRT_I64;
  f.output = dOut;
  f.outputDtype = sh.dtype;
  f.configId = -1;
  size_t fwdBytes = 0;
  if (embrtTbeWorkspaceSize(ctx, &f, &fwdBytes) != EMBRT_OK) {
    fprintf(stderr, "%s: %s\n", sh.name, embrtContextGetLastError(ctx));
    exit(3);
  }
  void *fwdWs = nullptr;
  if (fwdBytes)
    CUDA_CHECK(cudaMalloc(&fwdWs, fwdBytes));
  f.workspace = fwdWs;
  f.workspaceBytes = fwdBytes;

  embrtTbeBackwardArgs bw;
  memset(&bw, 0, sizeof bw);
  bw.structSize = sizeof bw;
  bw.lookup = f;
  bw.gradOutput = dGrad;
  bw.gradDtype = sh.dtype;
  bw.optimizer = sh.optimizer;
  bw.momentum1 = stateElems ? m1Ptrs.data() : nullptr;
  bw.momentum2 = m2 ? m2Ptrs.data() : nullptr;
  bw.momentum1Precision = sh.state1;
  bw.momentum2Precision = sh.state2;
  bw.momentum1Scales = fp8[0] ? scalePtrs[0].data() : nullptr;
  bw.momentum2Scales = fp8[1] ? scalePtrs[1].data() : nullptr;
  bw.hyperParams = dHyper;
  bw.step = (const int64_t *)dStep;
  bw.seed = 1234;
  bw.configId = -1;
  size_t bwdBytes = 0;
  if (embrtTbeBackwardWorkspaceSize(ctx, &bw, &bwdBytes) != EMBRT_OK) {
    fprintf(stderr, "%s: %s\n", sh.name, embrtContextGetLastError(ctx));
    exit(3);
  }
  // The largest configuration's workspace, so that the sweep can reuse it.
  if (sweep)
    for (int64_t id : {3, 4}) {
      embrtTbeBackwardArgs probe = bw;
      probe.configId = id;
      size_t bytes = 0;
      if (embrtTbeBackwardWorkspaceSize(ctx, &probe, &bytes) == EMBRT_OK)
        bwdBytes = std::max(bwdBytes, bytes);
    }
  void *bwdWs = nullptr;
  CUDA_CHECK(cudaMalloc(&bwdWs, bwdBytes));
  bw.workspace = bwdWs;
  bw.workspaceBytes = bwdBytes;

  // Host copies for the check and the byte count.
  std::vector<long long> ids(N);
  CUDA_CHECK(cudaMemcpy(ids.data(), dIds, N * 8, cudaMemcpyDeviceToHost));
  int64_t unique = 0;
  {
    std::vector<uint8_t> seen(E);
    for (int64_t t = 0; t < T; ++t) {
      std::fill(seen.begin(), seen.end(), 0);
      for (int64_t i = t * B * L; i < (t + 1) * B * L; ++i)
        if (!seen[ids[i]]) {
          seen[ids[i]] = 1;
          ++unique;
        }
    }
  }
  // A state row's bytes read and written (fp8 with its scale).
  const double stateRw = sh.optimizer == EMBRT_OPTIMIZER_ADAM
                             ? 2.0 * D * (double)(elemBytes[0] + elemBytes[1]) +
                                   8.0 * (fp8[0] + fp8[1])
                         : sh.optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD
                             ? 2.0 * elemBytes[0]
                             : 0.0;
  const double bytes = (double)N * D * esz + (double)B * T * D * esz +
                       (double)unique * (2.0 * D * esz + stateRw);

  // 64 sampled rows (touched by the batch) for the checks, and copies of
  // them (with their states) from and to the device.
  std::vector<std::pair<int64_t, int64_t>> sample; // (table, row)
  std::unordered_map<int64_t, int> index;          // key -> sample slot
  {
    Rng pick{0xc0ffee + (uint64_t)B};
    while (sample.size() < 64) {
      int64_t i = (int64_t)(pick.next() % (uint64_t)N);
      int64_t t = i / (B * L), key = t * E + ids[i];
      if (index.count(key))
        continue;
      index[key] = (int)sample.size();
      sample.push_back({t, ids[i]});
    }
  }
  const size_t rowBytes = D * esz;
  using Rows = std::vector<std::vector<uint8_t>>;
  using States = std::vector<std::vector<float>>;
  // toDevice false: w, a, b = the sampled rows, m1 and m2 rows (states
  // below f32 decoded); true: back (the rows, and f32 states; states below
  // f32 go back as stored through rawStates: a decoded state does not
  // always encode back to its bits).
  auto copyRows = [&](Rows &w, States &a, States &b, bool toDevice) {
    const cudaMemcpyKind kind =
        toDevice ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    auto copy = [&](void *host, void *dev, size_t n) {
      CUDA_CHECK(toDevice ? cudaMemcpy(dev, host, n, kind)
                          : cudaMemcpy(host, dev, n, kind));
    };
    // State `which` (0, 1) of row r of table t: n elements at element off.
    auto copyState = [&](std::vector<float> &v, int which, int64_t t, int64_t r,
                         size_t off, size_t n) {
      char *base = (char *)(which ? m2Ptrs[t] : m1Ptrs[t]);
      if (!quantized) {
        copy(v.data(), (float *)base + off, n * 4);
        return;
      }
      if (toDevice)
        return;
      std::vector<uint8_t> raw(n * elemBytes[which]);
      copy(raw.data(), base + off * elemBytes[which], raw.size());
      float scale = 1.0f;
      if (fp8[which])
        copy(&scale,
             (float *)scalePtrs[which][t] +
                 (sh.optimizer == EMBRT_OPTIMIZER_ADAM ? r : 0),
             4);
      for (size_t i = 0; i < n; ++i) {
        uint32_t bits = 0;
        memcpy(&bits, raw.data() + i * elemBytes[which], elemBytes[which]);
        v[i] = embStateDecode((int)prec[which], bits, scale);
      }
    };
    for (int k = 0; k < 64; ++k) {
      int64_t t = sample[k].first, r = sample[k].second;
      w[k].resize(rowBytes);
      copy(w[k].data(), (char *)tablePtrs[t] + r * rowBytes, rowBytes);
      size_t n = sh.optimizer == EMBRT_OPTIMIZER_ADAM  ? D
                 : sh.optimizer == EMBRT_OPTIMIZER_SGD ? 0
                                                       : 1;
      size_t off = sh.optimizer == EMBRT_OPTIMIZER_ADAM ? r * D : r;
      a[k].resize(n);
      b[k].resize(sh.optimizer == EMBRT_OPTIMIZER_ADAM ? n : 0);
      if (n)
        copyState(a[k], 0, t, r, off, n);
      if (!b[k].empty())
        copyState(b[k], 1, t, r, off, n);
    }
  };
  auto fetchRows = [&](Rows &w, States &a, States &b) {
    copyRows(w, a, b, false);
  };
  // The sampled rows' states as stored (with an Adam fp8 state row's scale
  // after its codes), from the device (toDevice false) or back to it.
  auto rawStates = [&](Rows &raw, bool toDevice) {
    const bool adam = sh.optimizer == EMBRT_OPTIMIZER_ADAM;
    const size_t n = adam ? D : sh.optimizer == EMBRT_OPTIMIZER_SGD ? 0 : 1;
    raw.resize(2 * 64);
    for (int k = 0; k < 64 && n; ++k)
      for (int which = 0; which < (adam ? 2 : 1); ++which) {
        const int64_t t = sample[k].first, r = sample[k].second;
        const size_t bytes = n * elemBytes[which];
        const bool rowScale = adam && fp8[which];
        char *dev = (char *)(which ? m2Ptrs[t] : m1Ptrs[t]) +
                    (adam ? r * D : r) * elemBytes[which];
        std::vector<uint8_t> &v = raw[2 * k + which];
        v.resize(bytes + (rowScale ? 4 : 0));
        CUDA_CHECK(
            toDevice
                ? cudaMemcpy(dev, v.data(), bytes, cudaMemcpyHostToDevice)
                : cudaMemcpy(v.data(), dev, bytes, cudaMemcpyDeviceToHost));
        if (rowScale) {
          float *scale = (float *)scalePtrs[which][t] + r;
          CUDA_CHECK(toDevice ? cudaMemcpy(scale, v.data() + bytes, 4,
                                           cudaMemcpyHostToDevice)
                              : cudaMemcpy(v.data() + bytes, scale, 4,
                                           cudaMemcpyDeviceToHost));
        }
      }
  };

  // The check: one backward step (`step`: true when it ran without error)
  // on the sampled rows, from the tables as they are (fresh for the default;
  // trained by the timing before a variant's check).
  auto checkStep = [&](auto step) -> std::string {
    std::string check = "ok";
    Rows before(64), after(64);
    States s1(64), s2(64), s1a(64), s2a(64);
    fetchRows(before, s1, s2);
    if (!step())
      return std::string("step failed");
    fetchRows(after, s1a, s2a);
    std::vector<uint8_t> gradHost(outBytes);
    CUDA_CHECK(
        cudaMemcpy(gradHost.data(), dGrad, outBytes, cudaMemcpyDeviceToHost));
    std::vector<double> g(64 * D, 0.0);
    for (int64_t i = 0; i < N; ++i) {
      int64_t t = i / (B * L), b = (i % (B * L)) / L;
      auto it = index.find(t * E + ids[i]);
      if (it == index.end())
        continue;
      for (int64_t d = 0; d < D; ++d)
        g[it->second * D + d] +=
            hostValue(sh.dtype, gradHost.data(), (b * T + t) * D + d);
    }
    const double lr = hyper[0], eps = hyper[1], b1 = hyper[2], b2 = hyper[3];
    for (int k = 0; k < 64 && check == "ok"; ++k) {
      std::vector<double> w(D);
      for (int64_t d = 0; d < D; ++d)
        w[d] = hostValue(sh.dtype, before[k].data(), d);
      double scale = lr, state = 0;
      if (sh.optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD) {
        double sum = 0;
        for (int64_t d = 0; d < D; ++d)
          sum += g[k * D + d] * g[k * D + d];
        state = s1[k][0] + sum / D;
        scale = lr / (sqrt(state) + eps);
      }
      for (int64_t d = 0; d < D && check == "ok"; ++d) {
        double gd = g[k * D + d], want = w[d] - scale * gd;
        if (sh.optimizer == EMBRT_OPTIMIZER_ADAM) {
          double m = b1 * s1[k][d] + (1 - b1) * gd;
          double v = b2 * s2[k][d] + (1 - b2) * gd * gd;
          want = w[d] - lr * ((m / (1 - b1)) / (sqrt(v / (1 - b2)) + eps));
        }
        double got = hostValue(sh.dtype, after[k].data(), d);
        double tol = 1e-5 * fabs(want) + 2e-3 * fabs(want - w[d]) +
                     (esz == 2 ? fabs(want) / 1024.0 : 0.0) + 1e-7;
        if (!(fabs(got - want) <= tol)) {
          char msg[200];
          snprintf(msg, sizeof msg,
                   "table %lld row %lld col %lld: %.7g vs %.7g (was %.7g)",
                   (long long)sample[k].first, (long long)sample[k].second,
                   (long long)d, got, want, w[d]);
          check = msg;
        }
      }
      // A stored state: within one step of its format (bf16 2^-7 of the
      // value, e4m3 2^-3, e5m2 2^-2; rounded stochastically).
      const double stateTol = sh.state1 == EMBRT_STATE_F32        ? 1e-4
                              : sh.state1 == EMBRT_STATE_BF16     ? 1.0 / 128
                              : sh.state1 == EMBRT_STATE_FP8_E4M3 ? 0.125
                                                                  : 0.25;
      if (check == "ok" && sh.optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD &&
          !(fabs(s1a[k][0] - state) <= stateTol * state + 1e-9))
        check = "rowwise state differs";
    }
    return check;
  };
  // Whether `step` leaves the sampled rows and states bit for bit as the
  // default's step does from the same rows (put back between the two: a
  // row's update reads only its own row and state, and the gradient).
  auto sameAsDefault = [&](auto step) -> std::string {
    Rows before(64), want(64), got(64), raw;
    States s1(64), s2(64), w1(64), w2(64), g1(64), g2(64);
    fetchRows(before, s1, s2);
    rawStates(raw, false);
    if (embrtTbeBackward(ctx, &bw) != EMBRT_OK ||
        embrtSynchronize(ctx) != EMBRT_OK)
      return std::string("default step failed");
    fetchRows(want, w1, w2);
    copyRows(before, s1, s2, true);
    rawStates(raw, true);
    if (!step())
      return std::string("step failed");
    fetchRows(got, g1, g2);
    for (int k = 0; k < 64; ++k)
      if (got[k] != want[k] || g1[k] != w1[k] || g2[k] != w2[k]) {
        char msg[160];
        snprintf(msg, sizeof msg, "table %lld row %lld: not the default's bits",
                 (long long)sample[k].first, (long long)sample[k].second);
        return std::string(msg);
      }
    return std::string("ok");
  };
  const std::string check = checkStep([&]() {
    if (embrtTbeBackward(ctx, &bw) != EMBRT_OK ||
        embrtSynchronize(ctx) != EMBRT_OK) {
      fprintf(stderr, "%s: %s\n", sh.name, embrtContextGetLastError(ctx));
      exit(3);
    }
    return true;
  });

  // Timing: the step, then the forward and the backward alone.
  // Steps are short: at most 200 warm-up calls and 500 timed, at least 5.
  BenchTimer timer(stream);
  timer.maxWarm = 200;
  timer.minCalls = 5;
  timer.maxCalls = 500;
  auto forward = [&]() {
    if (embrtTbeForward(ctx, &f) != EMBRT_OK) {
      fprintf(stderr, "%s: %s\n", sh.name, embrtContextGetLastError(ctx));
      exit(3);
    }
  };
  auto backward = [&]() {
    if (embrtTbeBackward(ctx, &bw) != EMBRT_OK) {
      fprintf(stderr, "%s: %s\n", sh.name, embrtContextGetLastError(ctx));
      exit(3);
    }
  };
  auto emit = [&](const char *impl, int64_t configId, double ms, double fwdMs,
                  double bwdMs, const std::string &ok) {
    char line[1400];
    snprintf(line, sizeof line,
             "{\"case\": \"%s\", \"B\": %lld, \"T\": %lld, \"E\": %lld, "
             "\"D\": %lld, \"L\": %lld, \"dtype\": \"%s\", \"weighted\": "
             "false, \"alpha\": %g, \"optimizer\": \"%s\", \"impl\": \"%s\", "
             "\"config\": %lld, \"ms\": %.6f, \"fwd_ms\": %.6f, \"bwd_ms\": "
             "%.6f, \"gbps\": %.1f, \"bytes\": %.0f, \"unique\": %lld, "
             "\"bar\": %g, \"run\": %d, \"check\": \"%s\"}",
             sh.name, (long long)B, (long long)T, (long long)E, (long long)D,
             (long long)L, dtypeName(sh.dtype), sh.alpha > 1 ? sh.alpha : 1.0,
             optimizerName(sh.optimizer), impl, (long long)configId, ms, fwdMs,
             bwdMs, bytes / ms / 1e6, bytes, (long long)unique, sh.bar,
             runNumber, ok.c_str());
    printf("%s\n", line);
    fflush(stdout);
    if (out) {
      fprintf(out, "%s\n", line);
      fflush(out);
    }
  };
  double step = timer.median([&]() {
    forward();
    backward();
  });
  double fwd = timer.median(forward, 50.0);
  double bwd = timer.median(backward, 50.0);
  std::string status =
      embrtSynchronize(ctx) == EMBRT_OK
          ? check
          : std::string("status: ") + embrtContextGetLastError(ctx);
  emit("emb", -1, step, fwd, bwd, status);

  if (sweep && sh.sweep) {
    for (int64_t id : {0, 3, 4}) {
      bw.configId = id;
      double b = timer.median(backward, 40.0);
      char impl[64];
      snprintf(impl, sizeof impl, "emb cfg=%lld", (long long)id);
      emit(impl, id, fwd + b, fwd, b,
           embrtSynchronize(ctx) == EMBRT_OK ? "ok" : "status");
    }
    bw.configId = -1;
  }
#ifdef TBE_TRAIN_VARIANTS
  // Variants: on every shape (the sweep's routings only where it names
  // them); each one's step timed whole, as the default's, its backward
  // alone, and its result checked as the default's was.
  for (const auto &v : kVariants) {
    if (!sweep || !selected(variants, v.name))
      continue;
    auto launch = [&]() {
      if (v.launch(&dev.env, &bw) != EMBRT_OK) {
        fprintf(stderr, "%s %s: %s\n", sh.name, v.name, dev.env.message);
        exit(3);
      }
    };
    double vStep = timer.median([&]() {
      forward();
      launch();
    });
    double b = timer.median(launch, 50.0);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    embrtDeviceErrors record = gpuTestDeviceErrors(&dev.env);
    auto variantStep = [&]() {
      launch();
      CUDA_CHECK(cudaStreamSynchronize(stream));
      return gpuTestDeviceErrors(&dev.env).code == EMBRT_DEVERR_NONE;
    };
    std::string ok = record.code == EMBRT_DEVERR_NONE
                         ? checkStep(variantStep)
                         : std::string("device error");
    // Variants that promise the default's bits (same sums in the same
    // order) are held to it.
    if (ok == "ok" && v.sameBits)
      ok = sameAsDefault(variantStep);
    char impl[64];
    snprintf(impl, sizeof impl, "emb var=%s", v.name);
    emit(impl, -1, vStep, fwd, b, ok);
  }
#endif

  cudaFree(tables);
  cudaFree(m1);
  cudaFree(m2);
  cudaFree(scales[0]);
  cudaFree(scales[1]);
  cudaFree(dIds);
  cudaFree(dOffs);
  cudaFree(dOut);
  cudaFree(dGrad);
  cudaFree(dHyper);
  cudaFree(dStep);
  cudaFree(fwdWs);
  cudaFree(bwdWs);
}

int main(int argc, char **argv) {
  const char *outPath = nullptr, *only = nullptr, *variants = nullptr;
  bool sweep = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc)
      outPath = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--sweep"))
      sweep = true;
    else if (!strcmp(argv[i], "--variants") && i + 1 < argc)
      variants = argv[++i];
    else if (!strcmp(argv[i], "--run") && i + 1 < argc)
      runNumber = atoi(argv[++i]);
  }
  Device dev;
  CUDA_CHECK(cudaStreamCreateWithFlags(&dev.stream, cudaStreamNonBlocking));
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, dev.stream, &dev.ctx) !=
      EMBRT_OK) {
    fprintf(stderr, "no CUDA context: %s\n", embrtGetCreateError());
    return 1;
  }
  dev.env = gpuTestEnvOn(dev.stream);
  FILE *out = outPath ? fopen(outPath, "w") : nullptr;
  for (const Shape &sh : kShapes) {
    if (only && !selected(only, sh.name))
      continue;
    runShape(dev, sh, out, sweep, variants);
  }
  if (out)
    fclose(out);
  embrtContextDestroy(dev.ctx);
  CUDA_CHECK(cudaFree(dev.env.deviceErrors));
  CUDA_CHECK(cudaFree(dev.env.scheduleCounter));
  CUDA_CHECK(cudaStreamDestroy(dev.stream));
  return 0;
}
