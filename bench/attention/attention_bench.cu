//===- bench/attention/attention_bench.cu - Times emb's attention kernels -===//
//
// Times embrtCudaLaunchAttention (the plan kernel and the attention kernel,
// as one call) on the IKBO target-attention shapes: 32 users, 64 query rows a
// candidate, 2 heads, head dim 128, f16 or bf16 (or f32 data computed in
// either through the conversion path, --dtype f32 --compute bf16); uniform
// 64 candidates a
// user (B = 2048) and ragged 64-65 (B = 2066), Lk from 512 to 16384. Every
// applicable row of the launch table is timed (or those --config lists).
// Timed as the peers' triton.testing.do_bench times them (BenchTimer in
// bench/common/bench_timer.cuh): the L2 flushed before every call, 25 ms of
// warm-up calls, then at least --reps calls (30) and 100 ms, each between
// its own pair of CUDA events, no host synchronisation between calls; the
// median. --burst times as this benchmark did before 2026-12-04 (5 warm-up
// calls, --reps timed, no flush): a burst ends before the card's power cap
// lowers its clocks ("SW power cap", 1500-1650 MHz against 1980), so it ran
// ours up to 12 % faster than the peers' sustained timing runs theirs.
// The output is poisoned before the
// first call and checked afterwards to be all finite (every element
// written). One JSON object a line on stdout and in --out FILE.
//
// --masked gives user u the length Lk/2 + (u * 37 mod (Lk/2 + 1)) (keys past
// it masked): "useful_tflops" counts only the unmasked keys' FLOPs, so that
// it can be set beside the unmasked run's "tflops". --additive-mask (with
// --masked) times the call with embrtAttentionArgs::additiveMask (SDPA's
// additive mask, kernels/attention_additive_mask.cu) on finite inputs: the
// check's cost beside the --masked run.
//
// Usage: attention_bench [--out FILE] [--skip-wgmma] [--lk N]...
//                        [--config NAME[,NAME...]] [--exclude SUBSTRING]
//                        [--uniform] [--reps N] [--dtype f16|bf16|f32]
//                        [--compute f16|bf16] [--masked] [--additive-mask]
//                        [--run N] [--burst]
//
//===----------------------------------------------------------------------===//

#include "bench/common/bench_timer.cuh"
#include "kernels/attention_config.h"
#include "kernels/launch.h"
#include "test/Kernels/gpu_test.cuh"

#include <algorithm>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

template <typename T>
__global__ void countNonFinite(const T *p, long long n,
                               unsigned long long *count) {
  unsigned long long c = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    c += !isfinite((float)p[i]);
  if (c)
    atomicAdd(count, c);
}

/// Uniform random values in [lo, hi) of the dtype (f16, bf16 or f32).
static void fill(void *p, embrtDtype t, long long n, uint64_t seed, float lo,
                 float hi) {
  if (t == EMBRT_BF16)
    fillKernel<__nv_bfloat16>
        <<<1024, 256>>>((__nv_bfloat16 *)p, n, seed, lo, hi);
  else if (t == EMBRT_F32)
    fillKernel<float><<<1024, 256>>>((float *)p, n, seed, lo, hi);
  else
    fillKernel<__half><<<1024, 256>>>((__half *)p, n, seed, lo, hi);
}

static embrtDtype parseDtype(const char *d) {
  return !strcmp(d, "f16")    ? EMBRT_F16
         : !strcmp(d, "bf16") ? EMBRT_BF16
         : !strcmp(d, "f32")  ? EMBRT_F32
                              : EMBRT_I8; // not a float: rejected
}

/// Whether `name` is one of the comma-separated names of `list`.
static bool listed(const char *list, const char *name) {
  const size_t n = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && !strncmp(p, name, n))
      return true;
    p = end ? end + 1 : nullptr;
  }
  return false;
}

int main(int argc, char **argv) {
  const char *outPath = nullptr;
  bool skipWgmma = false, uniformOnly = false, masked = false, burst = false;
  bool additive = false;
  embrtDtype dtype = EMBRT_F16, compute = EMBRT_F32;
  int run = 1;
  const char *only = nullptr, *exclude = nullptr;
  int reps = 30;
  std::vector<int> lks;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc)
      outPath = argv[++i];
    else if (!strcmp(argv[i], "--skip-wgmma"))
      skipWgmma = true;
    else if (!strcmp(argv[i], "--uniform"))
      uniformOnly = true;
    else if (!strcmp(argv[i], "--config") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--exclude") && i + 1 < argc)
      exclude = argv[++i];
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--lk") && i + 1 < argc)
      lks.push_back(atoi(argv[++i]));
    else if (!strcmp(argv[i], "--burst"))
      burst = true;
    else if (!strcmp(argv[i], "--masked"))
      masked = true;
    else if (!strcmp(argv[i], "--additive-mask"))
      masked = additive = true;
    else if (!strcmp(argv[i], "--run") && i + 1 < argc)
      run = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dtype") && i + 1 < argc)
      dtype = parseDtype(argv[++i]);
    else if (!strcmp(argv[i], "--compute") && i + 1 < argc)
      compute = parseDtype(argv[++i]);
  }
  if (dtype == EMBRT_I8 || (compute != EMBRT_F32 && dtype != EMBRT_F32) ||
      (compute != EMBRT_F32 && compute != EMBRT_F16 && compute != EMBRT_BF16)) {
    fprintf(stderr, "--dtype takes f16, bf16 or f32; --compute f16 or bf16, "
                    "with --dtype f32\n");
    return 2;
  }
  auto nameOf = [](embrtDtype t) {
    return t == EMBRT_BF16 ? "bf16" : t == EMBRT_F32 ? "f32" : "f16";
  };
  // The kernels' own type: the compute type of the conversion path.
  const embrtDtype kernelDtype = compute != EMBRT_F32 ? compute : dtype;
  const char *dtypeName = nameOf(dtype), *computeName = nameOf(kernelDtype);
  const size_t es = dtype == EMBRT_F32 ? 4 : 2;
  if (lks.empty())
    lks = {512, 1024, 2048, 4096, 8192, 16384};
  FILE *out = outPath ? fopen(outPath, "w") : nullptr;

  embrtLaunchEnv env = gpuTestEnv();
  cudaStream_t stream = (cudaStream_t)env.stream;

  const int U = 32, Lq = 64, H = 2, Dh = 128;
  BenchTimer timer(stream);
  timer.minCalls = reps;
  if (burst)
    timer.burst(reps);
  unsigned long long *bad;
  CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));

  for (int ragged = 0; ragged <= (uniformOnly ? 0 : 1); ++ragged) {
    // Uniform: 64 candidates a user. Ragged: 64 or 65 (18 users get 65).
    std::vector<int> c2u;
    for (int u = 0; u < U; ++u) {
      int n = 64 + (ragged && (u * 7) % 32 < 18);
      for (int i = 0; i < n; ++i)
        c2u.push_back(u);
    }
    const int B = (int)c2u.size();
    int *dc2u;
    CUDA_CHECK(cudaMalloc(&dc2u, B * sizeof(int)));
    CUDA_CHECK(
        cudaMemcpy(dc2u, c2u.data(), B * sizeof(int), cudaMemcpyHostToDevice));
    for (int Lk : lks) {
      const long long nq = (long long)B * Lq * H * Dh;
      const long long nkv = (long long)U * Lk * H * Dh;
      void *q, *k, *v, *o;
      CUDA_CHECK(cudaMalloc(&q, nq * es));
      CUDA_CHECK(cudaMalloc(&k, nkv * es));
      CUDA_CHECK(cudaMalloc(&v, nkv * es));
      CUDA_CHECK(cudaMalloc(&o, nq * es));
      fill(q, dtype, nq, 11 + Lk, -2.f, 2.f);
      fill(k, dtype, nkv, 22 + Lk, -2.f, 2.f);
      fill(v, dtype, nkv, 33 + Lk, -1.f, 1.f);
      CUDA_CHECK(cudaGetLastError());
      // Masked: the users' lengths, and the keys the candidates attend to.
      std::vector<int> len(U, Lk);
      if (masked)
        for (int u = 0; u < U; ++u)
          len[u] = Lk / 2 + (u * 37) % (Lk / 2 + 1);
      double keys = 0;
      for (int b = 0; b < B; ++b)
        keys += len[c2u[b]];
      int *dlen = nullptr;
      if (masked) {
        CUDA_CHECK(cudaMalloc(&dlen, U * sizeof(int)));
        CUDA_CHECK(cudaMemcpy(dlen, len.data(), U * sizeof(int),
                              cudaMemcpyHostToDevice));
      }
      embrtAttentionArgs a;
      memset(&a, 0, sizeof a);
      a.structSize = sizeof a;
      a.dtype = dtype;
      a.batchSize = B;
      a.numUsers = U;
      a.lq = Lq;
      a.lk = Lk;
      a.heads = H;
      a.headDim = Dh;
      a.scale = 1.f / sqrtf((float)Dh);
      a.q = q;
      a.k = k;
      a.v = v;
      a.candToUser = dc2u;
      a.indexDtype = EMBRT_I32;
      a.output = o;
      a.userLengths = dlen;
      a.computeDtype = compute;
      a.additiveMask = additive;
      size_t wsBytes = 0;
      embrtCudaAttentionWorkspaceSize(&env, &a, &wsBytes);
      void *ws;
      CUDA_CHECK(cudaMalloc(&ws, wsBytes));
      a.workspace = ws;
      a.workspaceBytes = wsBytes;
      const double flops = 4.0 * B * H * Lq * (double)Lk * Dh;
      const double usefulFlops = 4.0 * H * Lq * keys * Dh;

      for (int id = 0; id < ATTENTION_NUM_CONFIGS; ++id) {
        const AttentionConfig &cfg = kAttentionConfigs[id];
        const AttentionShape shape = {env.ccMajor, kernelDtype, Dh, 1, Lk};
        // The row the runtime picks (the head dim the benchmark reports on).
        const AttentionShape autoShape = {env.ccMajor, kernelDtype, 128, 1, Lk};
        if (!attentionConfigApplies(&cfg, &shape))
          continue;
        if (skipWgmma && cfg.path == ATTENTION_PATH_WGMMA)
          continue;
        if (only && !listed(only, cfg.name))
          continue;
        if (exclude && strstr(cfg.name, exclude))
          continue;
        if (cfg.path == ATTENTION_PATH_SIMT && Lk > 2048)
          continue; // minutes, and not a contender
        a.configId = id;
        CUDA_CHECK(cudaMemset(o, 0xff, nq * es));
        CUDA_CHECK(cudaMemset(env.deviceErrors, 0, sizeof(embrtDeviceErrors)));
        bool failed = false;
        auto call = [&]() {
          if (!failed && embrtCudaLaunchAttention(&env, &a) != EMBRT_OK) {
            fprintf(stderr, "%s: %s\n", cfg.name, env.message);
            failed = true;
          }
        };
        const std::vector<float> times = timer.times(call, 100.0);
        if (failed)
          continue;
        CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
        if (dtype == EMBRT_BF16)
          countNonFinite<<<1024, 256>>>((const __nv_bfloat16 *)o, nq, bad);
        else if (dtype == EMBRT_F32)
          countNonFinite<<<1024, 256>>>((const float *)o, nq, bad);
        else
          countNonFinite<<<1024, 256>>>((const __half *)o, nq, bad);
        CUDA_CHECK(cudaGetLastError());
        unsigned long long nonFinite;
        CUDA_CHECK(cudaMemcpy(&nonFinite, bad, sizeof nonFinite,
                              cudaMemcpyDeviceToHost));
        const float ms = (float)BenchTimer::medianOf(times);
        char line[768];
        snprintf(
            line, sizeof line,
            "{\"case\": \"ikbo_attention_%s\", \"B\": %d, \"U\": %d, "
            "\"H\": %d, \"Lq\": %d, \"Lk\": %d, \"Dh\": %d, \"dtype\": "
            "\"%s\", \"compute\": \"%s\", \"ragged\": %s, \"masked\": %s, "
            "\"additive_mask\": %s, "
            "\"impl\": "
            "\"emb_%s\", \"auto\": %s, \"run\": %d, \"ms\": %.5f, "
            "\"ms_min\": %.5f, \"tflops\": %.1f, \"useful_tflops\": "
            "%.1f, \"nonfinite\": %llu}",
            ragged ? "ragged" : "uniform", B, U, H, Lq, Lk, Dh, dtypeName,
            computeName, ragged ? "true" : "false", masked ? "true" : "false",
            additive ? "true" : "false", cfg.name,
            id == attentionSelectConfig(&autoShape) ? "true" : "false", run, ms,
            times[0], flops / ms / 1e9, usefulFlops / ms / 1e9, nonFinite);
        printf("%s\n", line);
        if (out)
          fprintf(out, "%s\n", line);
        fflush(stdout);
      }
      cudaFree(q);
      cudaFree(k);
      cudaFree(v);
      cudaFree(o);
      cudaFree(ws);
      cudaFree(dlen);
    }
    cudaFree(dc2u);
  }
  if (out)
    fclose(out);
  return 0;
}
