//===- bench/ikbo_lce/ikbo_lce_bench.cu - Timing of emb.ikbo_lce ----------===//
//
// Times embrtCudaLaunchIkboLce (user product + candidate product with the
// fused broadcast-add) as the peers' triton.testing.do_bench times them
// (BenchTimer in bench/common/bench_timer.cuh): the L2 flushed before every
// call, 25 ms of warm-up calls, then at least `reps` calls and 100 ms, each
// between its own pair of CUDA events, no host synchronisation between
// calls; the median is reported (the portable f32 kernel: 1 warm-up call
// and 3 timed; the single-call sets: 1 and 1; neither flushed). --burst
// times as this benchmark did before 2026-12-04: 5 warm-up calls, then
// `reps`, no flush. A burst ends before the card's power cap lowers its
// clocks (nvidia-smi: "SW power cap", 1500-1650 MHz against 1980), so
// timing ours in bursts against the peers' sustained runs flattered ours by
// 3-10 % (bench/attention/NOTES.md, v15). Inputs
// are random (never zeros); c2u is drawn like the torch peers draw it
// (sorted uniform users). One JSON line per measurement on stdout.
//
// Usage: ikbo_lce_bench [--set main,sweep,configs|all|one] [--reps N]
//                       [--config NAME] [--skip-configs NAME,NAME] [--burst]
//   main     the IKBO benchmark shape (B=1024, U=15, M=433, K 1184/872,
//            N=256) in f16 and bf16, padded and unpadded K, and the same U
//            with B=1 (the user product and launch costs alone);
//   sweep    B in {512, 1024, 2048, 3072} x {2, 10, 70, 1000} candidates a
//            user, padded K, f16;
//   configs  every configuration that applies, forced, on the main shape;
//   f32      the main shape in f32: the exact f32 path (cuBLAS, and the
//            portable row forced), then computed in
//            bf16 and in f16 (computeDtype: the conversion path, its
//            rounding and widening launches in the timing), and bf16
//            data (what the conversion costs); not in all;
//   pad      what copying W with a 16-byte pitch costs (K not a multiple of
//            8, so TMA cannot read W in place): B=1 with K 1184/872 (no
//            copy) and 1178/866 (the copy before the user launch), each
//            twice, alternating;
//   ranking  the end-to-end ranking model's LCE (bench/e2e: B=2048, U=32,
//            M=64, Ku=32, Kc 40 padded and 34, N=128), f16 and bf16, with the
//            selection, the small-K row and each sm90a row that applies,
//            forced (gbps: the least bytes the op moves over the time);
//   heldout  the held-apart shapes of FBGEMM's IKBO LCE tests: B in {512,
//            1024} x M in {128, 433} x K (user/cand) in {1024/1024,
//            1025/1023} x {10, 70} candidates a user, N=256, f16; K as
//            given (1025/1023: W, users and candidates with odd pitches)
//            and padded to multiples of 8 as emb-pad-k pads the model's
//            (tag heldout_padded), bench/ikbo_lce/heldout.sh times the
//            peers;
//   one      one call of the main shape after one warm-up (for ncu);
//   --shape B,U,M,Ku,Kc,N  one call of that shape (f16) after one warm-up,
//            instead of a set (for ncu); with --reps N, N calls back to
//            back, no flush (bench/ikbo_lce/power.py), or with --flush each
//            after an L2 flush as do_bench times (power.py --do-bench);
//   --config forces a configuration (by name) wherever it applies;
//   --static-schedule  runs the sm90a kernel on its static tile schedule
//            (no counter), for an A/B of the dynamic one.
//
// FLOPs counted: 2 M N (B Kc + U Ku), the decomposed product.
//
//===----------------------------------------------------------------------===//

#include "bench/common/bench_timer.cuh"
#include "kernels/ikbo_lce_config.h"
#include "kernels/launch.h"
#include "test/Kernels/gpu_test.cuh"

#include <cublas_v2.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

/// 16-bit floats uniform in [-1, 1): bits of f16 or bf16 made on the host's
/// behalf by the device.
__global__ void fill16(uint16_t *p, long long n, uint64_t seed, int bf16) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float u = (float)((mix64At(seed, (uint64_t)i) >> 40) * (1.0 / 16777216.0));
    float v = 2.f * u - 1.f;
    if (bf16) {
      __nv_bfloat16 h = __float2bfloat16_rn(v);
      p[i] = *(uint16_t *)&h;
    } else {
      __half h = __float2half_rn(v);
      p[i] = *(uint16_t *)&h;
    }
  }
}

/// f32 uniform in [-1, 1), the same draws as fill16 before rounding.
__global__ void fill32(float *p, long long n, uint64_t seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    float u = (float)((mix64At(seed, (uint64_t)i) >> 40) * (1.0 / 16777216.0));
    p[i] = 2.f * u - 1.f;
  }
}

struct Shape {
  const char *tag;
  embrtDtype dtype;
  long long B, U, M, Ku, Kc, N;
  int configId;
  embrtDtype compute = EMBRT_F32; // computeDtype (f32 data only)
};

static embrtLaunchEnv gEnv;
static bool gProfile; // one warm-up call, no flush (the profiler's sets)
static int gForceConfig = -1; // --config: for every shape without its own
static std::string gSkip;     // --skip-configs: ",name,name,"
static Shape gOne;            // --shape
static bool gBurst; // --burst: 5 warm-up calls, `reps` timed, no flush
static bool gFlush; // --flush: --shape's calls each after an L2 flush

/// A launch that has not finished after this many seconds is a hang.
static const double kWatchdogSeconds = 20;

static void run(const Shape &s, int reps) {
  const size_t es = s.dtype == EMBRT_F32 ? 4 : 2;
  void *wUser, *wCand, *user, *cand, *c2u, *out, *ws = nullptr;
  CUDA_CHECK(cudaMalloc(&wUser, s.M * s.Ku * es));
  CUDA_CHECK(cudaMalloc(&wCand, s.M * s.Kc * es));
  CUDA_CHECK(cudaMalloc(&user, s.U * s.Ku * s.N * es));
  CUDA_CHECK(cudaMalloc(&cand, s.B * s.Kc * s.N * es));
  CUDA_CHECK(cudaMalloc(&c2u, s.B * 4));
  CUDA_CHECK(cudaMalloc(&out, s.B * s.M * s.N * es));
  void *bufs[4] = {wUser, wCand, user, cand};
  long long counts[4] = {s.M * s.Ku, s.M * s.Kc, s.U * s.Ku * s.N,
                         s.B * s.Kc * s.N};
  for (int i = 0; i < 4; ++i) {
    if (s.dtype == EMBRT_F32)
      fill32<<<1024, 256>>>((float *)bufs[i], counts[i], 77 + 1000003ull * i);
    else
      fill16<<<1024, 256>>>((uint16_t *)bufs[i], counts[i], 77 + 1000003ull * i,
                            s.dtype == EMBRT_BF16);
    CUDA_CHECK(cudaGetLastError());
  }
  std::vector<int> idx(s.B);
  uint64_t h = 12345;
  for (long long b = 0; b < s.B; ++b) {
    h = mix64(h + b);
    idx[b] = (int)(h % (uint64_t)s.U);
  }
  std::sort(idx.begin(), idx.end());
  CUDA_CHECK(cudaMemcpy(c2u, idx.data(), s.B * 4, cudaMemcpyHostToDevice));

  embrtIkboLceArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = s.dtype;
  a.batchSize = s.B;
  a.numUsers = s.U;
  a.m = s.M;
  a.kUser = s.Ku;
  a.kCand = s.Kc;
  a.n = s.N;
  a.wUser = wUser;
  a.wCand = wCand;
  a.user = user;
  a.cand = cand;
  a.candToUser = c2u;
  a.indexDtype = EMBRT_I32;
  a.output = out;
  a.configId = s.configId >= 0 ? s.configId : gForceConfig;
  a.computeDtype = s.compute;
  size_t wsBytes = 0;
  embrtCudaIkboLceWorkspaceSize(&gEnv, &a, &wsBytes);
  if (wsBytes)
    CUDA_CHECK(cudaMalloc(&ws, wsBytes));
  a.workspace = ws;
  a.workspaceBytes = wsBytes;

  IkboLceShape shape;
  shape.ccMajor = gEnv.ccMajor;
  shape.ccMinor = gEnv.ccMinor;
  shape.maxSharedPerBlock = gEnv.maxSharedPerBlockOptin;
  shape.dtype = s.compute != EMBRT_F32 ? s.compute : s.dtype;
  shape.batch = s.B;
  shape.users = s.U;
  shape.m = s.M;
  shape.n = s.N;
  shape.kUser = s.Ku;
  shape.kCand = s.Kc;
  shape.aligned = 1;
  shape.pieces = 0;
  shape.blas = gEnv.blasHandle != nullptr;
  const int config = ikboLceResolveConfig(&shape, a.configId);
  if (gSkip.find(std::string(",") + kIkboLceConfigs[config].name + ",") !=
      std::string::npos) {
    fprintf(stderr, "skipping %s\n", kIkboLceConfigs[config].name);
    void *all[] = {wUser, wCand, user, cand, c2u, out, ws};
    for (void *b : all)
      if (b)
        CUDA_CHECK(cudaFree(b));
    return;
  }

  cudaStream_t stream = (cudaStream_t)gEnv.stream;
  CUDA_CHECK(cudaDeviceSynchronize());
  BenchTimer timer(stream);
  timer.minCalls = reps;
  timer.watchdogSeconds = kWatchdogSeconds;
  timer.what = kIkboLceConfigs[config].name;
  if (kIkboLceConfigs[config].path == IKBO_LCE_PATH_PORTABLE) {
    timer.fixed(1, 3); // seconds a call
    timer.flushOn = false;
  } else if (gProfile) {
    timer.fixed(1, reps);
    timer.flushOn = gFlush;
  } else if (gBurst) {
    timer.burst(reps);
  }
  const std::vector<float> sorted = timer.times(
      [&]() {
        if (embrtCudaLaunchIkboLce(&gEnv, &a) != EMBRT_OK) {
          fprintf(stderr, "launch failed: %s\n", gEnv.message);
          exit(1);
        }
      },
      100.0);
  CUDA_CHECK(cudaGetLastError());
  const int n = (int)sorted.size();
  const float med = (float)BenchTimer::medianOf(sorted);
  const double flops = 2.0 * s.M * s.N * (double)(s.B * s.Kc + s.U * s.Ku);
  // What the op must move at least: W, the users and candidates read once,
  // the output written once.
  const double bytes =
      (s.dtype == EMBRT_F32 ? 4.0 : 2.0) *
      ((double)s.M * (s.Ku + s.Kc) + (double)s.N * (s.U * s.Ku + s.B * s.Kc) +
       (double)s.B * s.M * s.N);
  printf("{\"case\": \"%s\", \"B\": %lld, \"U\": %lld, \"M\": %lld, "
         "\"Ku\": %lld, \"Kc\": %lld, \"N\": %lld, \"dtype\": \"%s\", "
         "\"compute\": \"%s\", "
         "\"impl\": \"emb_ikbo_lce\", \"config\": \"%s\", \"ms\": %.5f, "
         "\"ms_min\": %.5f, \"ms_max\": %.5f, \"reps\": %d, \"flops\": %.6g, "
         "\"tflops\": %.2f, \"min_bytes\": %.6g, \"gbps\": %.1f}\n",
         s.tag, s.B, s.U, s.M, s.Ku, s.Kc, s.N,
         s.dtype == EMBRT_BF16  ? "bf16"
         : s.dtype == EMBRT_F32 ? "f32"
                                : "f16",
         s.compute == EMBRT_BF16  ? "bf16"
         : s.compute == EMBRT_F16 ? "f16"
                                  : "as_data",
         kIkboLceConfigs[config].name, med, sorted[0], sorted[n - 1], n, flops,
         flops / med / 1e9, bytes, bytes / med / 1e6);
  fflush(stdout);
  void *all[] = {wUser, wCand, user, cand, c2u, out, ws};
  for (void *b : all)
    if (b)
      CUDA_CHECK(cudaFree(b));
}

int main(int argc, char **argv) {
  std::string set = "all";
  bool staticSchedule = false;
  int reps = 30;
  bool repsGiven = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--set") && i + 1 < argc)
      set = argv[++i];
    else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
      Shape one = {"shape", EMBRT_F16, 0, 0, 0, 0, 0, 0, -1};
      if (sscanf(argv[++i], "%lld,%lld,%lld,%lld,%lld,%lld", &one.B, &one.U,
                 &one.M, &one.Ku, &one.Kc, &one.N) != 6) {
        fprintf(stderr, "--shape: want B,U,M,Ku,Kc,N\n");
        return 2;
      }
      gOne = one;
      set = "shape";
    } else if (!strcmp(argv[i], "--burst")) {
      gBurst = true;
    } else if (!strcmp(argv[i], "--flush")) {
      gFlush = true;
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]), repsGiven = true;
    else if (!strcmp(argv[i], "--static-schedule"))
      staticSchedule = true;
    else if (!strcmp(argv[i], "--skip-configs") && i + 1 < argc)
      gSkip = std::string(",") + argv[++i] + ",";
    else if (!strcmp(argv[i], "--config") && i + 1 < argc) {
      const char *name = argv[++i];
      for (int c = 0; c < IKBO_LCE_NUM_CONFIGS; ++c)
        if (!strcmp(kIkboLceConfigs[c].name, name))
          gForceConfig = c;
      if (gForceConfig < 0) {
        fprintf(stderr, "--config: no configuration named '%s'\n", name);
        return 2;
      }
    } else {
      fprintf(stderr, "usage: ikbo_lce_bench [--set "
                      "main|sweep|configs|pad|ranking|heldout|all] "
                      "[--reps N] [--config NAME] [--skip-configs A,B] "
                      "[--static-schedule] [--burst] [--flush]\n");
      return 2;
    }
  }
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  gEnv = gpuTestEnv();
  // A cuBLAS handle on the launch stream, as the runtime's CUDA backend
  // gives f32 calls (the cuBLAS path).
  cublasHandle_t blas = nullptr;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS ||
      cublasSetStream(blas, (cudaStream_t)gEnv.stream) !=
          CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "cuBLAS handle creation failed\n");
    return 1;
  }
  gEnv.blasHandle = blas;
  unsigned int *counter = gEnv.scheduleCounter;
  if (staticSchedule) // the sm90a kernel's static tile schedule
    gEnv.scheduleCounter = nullptr;
  fprintf(stderr, "%s, cc %d.%d, %d SMs\n", prop.name, prop.major, prop.minor,
          prop.multiProcessorCount);

  if (set == "shape") { // one call of --shape, for a profiler
    gProfile = true;
    run(gOne, repsGiven ? reps : 1);
    gEnv.scheduleCounter = counter;
    gEnv.blasHandle = nullptr;
    cublasDestroy(blas);
    gpuTestEnvDestroy(&gEnv);
    return 0;
  }
  const bool all = set == "all";
  if (set == "one") { // one call of the main shape, for a profiler
    gProfile = true;
    run({"main", EMBRT_F16, 1024, 15, 433, 1184, 872, 256, -1}, 1);
  }
  auto want = [&](const char *x) {
    return all || set.find(x) != std::string::npos;
  };
  if (want("main")) {
    run({"main", EMBRT_F16, 1024, 15, 433, 1184, 872, 256, -1}, reps);
    run({"main_unpadded", EMBRT_F16, 1024, 15, 433, 1178, 866, 256, -1}, reps);
    run({"main", EMBRT_BF16, 1024, 15, 433, 1184, 872, 256, -1}, reps);
    run({"user_only", EMBRT_F16, 1, 15, 433, 1184, 872, 256, -1}, reps);
  }
  if (set.find("pad") != std::string::npos) {
    for (int i = 0; i < 2; ++i) {
      run({"pad_probe_aligned", EMBRT_F16, 1, 15, 433, 1184, 872, 256, -1},
          reps);
      run({"pad_probe_copied", EMBRT_F16, 1, 15, 433, 1178, 866, 256, -1},
          reps);
    }
  }
  if (want("configs")) {
    for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i)
      run({"config", EMBRT_F16, 1024, 15, 433, 1184, 872, 256, i}, reps);
  }
  if (want("ranking")) {
    for (embrtDtype d : {EMBRT_F16, EMBRT_BF16})
      for (long long kc : {40, 34}) {
        run({"ranking", d, 2048, 32, 64, 32, kc, 128, -1}, reps);
        for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i)
          if ((kIkboLceConfigs[i].path == IKBO_LCE_PATH_SM90A &&
               kIkboLceConfigs[i].mTile == 64) ||
              kIkboLceConfigs[i].path == IKBO_LCE_PATH_SMALLK)
            run({"ranking", d, 2048, 32, 64, 32, kc, 128, i}, reps);
      }
  }
  if (set.find("f32") != std::string::npos) { // the f32 paths, main shape
    run({"main", EMBRT_F32, 1024, 15, 433, 1184, 872, 256, -1}, reps);
    run({"main", EMBRT_F32, 1024, 15, 433, 1184, 872, 256,
         IKBO_LCE_CONFIG_PORTABLE},
        reps);
    for (embrtDtype d : {EMBRT_BF16, EMBRT_F16})
      run({"main", EMBRT_F32, 1024, 15, 433, 1184, 872, 256, -1, d}, reps);
    // bf16 data, for what the conversion costs.
    run({"main", EMBRT_BF16, 1024, 15, 433, 1184, 872, 256, -1}, reps);
  }
  if (want("heldout")) {
    for (long long B : {512, 1024})
      for (long long M : {128, 433})
        for (long long k : {0, 1})
          for (long long per : {10, 70}) {
            const long long ku = k ? 1025 : 1024, kc = k ? 1023 : 1024;
            const long long U = (B + per / 2) / per; // B / U nearest per
            run({"heldout", EMBRT_F16, B, U, M, ku, kc, 256, -1}, reps);
            if (k)
              run({"heldout_padded", EMBRT_F16, B, U, M, (ku + 7) / 8 * 8,
                   (kc + 7) / 8 * 8, 256, -1},
                  reps);
          }
  }
  if (want("sweep")) {
    for (long long B : {512, 1024, 2048, 3072})
      for (long long per : {2, 10, 70, 1000})
        run({"sweep", EMBRT_F16, B, (B + per - 1) / per, 433, 1184, 872, 256,
             -1},
            reps);
  }
  gEnv.scheduleCounter = counter;
  gEnv.blasHandle = nullptr;
  cublasDestroy(blas);
  gpuTestEnvDestroy(&gEnv);
  return 0;
}
