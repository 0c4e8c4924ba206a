//===- bench/attention/attention_bench.cu - Times emb's attention kernels -===//
//
// Times embrtCudaLaunchAttention (the plan kernel and the attention kernel,
// as one call) on the IKBO target-attention shapes: 32 users, 64 query rows a
// candidate, 2 heads, head dim 128, f16; uniform 64 candidates a user (B =
// 2048) and ragged 64-65 (B = 2066), Lk from 512 to 16384. Every applicable
// row of the launch table is timed. CUDA events around each call, the L2
// flushed (a 256 MB memset) before each, 5 warm-up calls, the median of 30.
// The output is poisoned before the first call and checked afterwards to be
// all finite (every element written). One JSON object a line on stdout and
// in --out FILE.
//
// Usage: attention_bench [--out FILE] [--skip-wgmma] [--lk N]...
//                        [--config NAME] [--exclude SUBSTRING] [--uniform]
//                        [--reps N]
//
//===----------------------------------------------------------------------===//

#include "kernels/attention_config.cuh"
#include "kernels/launch.h"
#include "test/Kernels/gpu_test.cuh"

#include <algorithm>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

__global__ void fillHalf(__half *p, long long n, uint64_t seed, float lo,
                         float hi) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    uint64_t x = mix64At(seed, (uint64_t)i);
    p[i] = __float2half_rn(lo + (hi - lo) * (float)((x >> 40) * 0x1p-24));
  }
}

__global__ void countNonFinite(const __half *p, long long n,
                               unsigned long long *count) {
  unsigned long long c = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    c += !isfinite(__half2float(p[i]));
  if (c)
    atomicAdd(count, c);
}

int main(int argc, char **argv) {
  const char *outPath = nullptr;
  bool skipWgmma = false, uniformOnly = false;
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
  }
  if (lks.empty())
    lks = {512, 1024, 2048, 4096, 8192, 16384};
  FILE *out = outPath ? fopen(outPath, "w") : nullptr;

  embrtLaunchEnv env = gpuTestEnv();
  cudaStream_t stream = (cudaStream_t)env.stream;
  const int autoId = attentionSelectConfig(-1, env.ccMajor, EMBRT_F16, 128, 1);

  const int U = 32, Lq = 64, H = 2, Dh = 128;
  const size_t flushBytes = 256u << 20;
  void *flush;
  CUDA_CHECK(cudaMalloc(&flush, flushBytes));
  unsigned long long *bad;
  CUDA_CHECK(cudaMalloc(&bad, sizeof *bad));
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));

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
      __half *q, *k, *v, *o;
      CUDA_CHECK(cudaMalloc(&q, nq * 2));
      CUDA_CHECK(cudaMalloc(&k, nkv * 2));
      CUDA_CHECK(cudaMalloc(&v, nkv * 2));
      CUDA_CHECK(cudaMalloc(&o, nq * 2));
      fillHalf<<<1024, 256>>>(q, nq, 11 + Lk, -2.f, 2.f);
      fillHalf<<<1024, 256>>>(k, nkv, 22 + Lk, -2.f, 2.f);
      fillHalf<<<1024, 256>>>(v, nkv, 33 + Lk, -1.f, 1.f);
      CUDA_CHECK(cudaGetLastError());
      embrtAttentionArgs a;
      memset(&a, 0, sizeof a);
      a.structSize = sizeof a;
      a.dtype = EMBRT_F16;
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
      size_t wsBytes = 0;
      embrtCudaAttentionWorkspaceSize(&env, &a, &wsBytes);
      void *ws;
      CUDA_CHECK(cudaMalloc(&ws, wsBytes));
      a.workspace = ws;
      a.workspaceBytes = wsBytes;
      const double flops = 4.0 * B * H * Lq * (double)Lk * Dh;

      for (int id = 0; id < ATTENTION_NUM_CONFIGS; ++id) {
        const attentionConfig &cfg = attentionConfigs[id];
        if (!attentionConfigApplies(id, env.ccMajor, EMBRT_F16, Dh, 1))
          continue;
        if (skipWgmma && cfg.path == ATTENTION_PATH_WGMMA)
          continue;
        if (only && strcmp(only, cfg.name))
          continue;
        if (exclude && strstr(cfg.name, exclude))
          continue;
        if (cfg.path == ATTENTION_PATH_SIMT && Lk > 2048)
          continue; // minutes, and not a contender
        a.configId = id;
        CUDA_CHECK(cudaMemset(o, 0xff, nq * 2));
        CUDA_CHECK(cudaMemset(env.deviceErrors, 0, sizeof(embrtDeviceErrors)));
        std::vector<float> times;
        bool failed = false;
        for (int rep = 0; rep < reps + 5 && !failed; ++rep) {
          CUDA_CHECK(cudaMemsetAsync(flush, rep, flushBytes, stream));
          CUDA_CHECK(cudaEventRecord(e0, stream));
          if (embrtCudaLaunchAttention(&env, &a) != EMBRT_OK) {
            fprintf(stderr, "%s: %s\n", cfg.name, env.message);
            failed = true;
          }
          CUDA_CHECK(cudaEventRecord(e1, stream));
          CUDA_CHECK(cudaEventSynchronize(e1));
          float ms;
          CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
          if (rep >= 5)
            times.push_back(ms);
        }
        if (failed)
          continue;
        CUDA_CHECK(cudaMemset(bad, 0, sizeof *bad));
        countNonFinite<<<1024, 256>>>(o, nq, bad);
        unsigned long long nonFinite;
        CUDA_CHECK(cudaMemcpy(&nonFinite, bad, sizeof nonFinite,
                              cudaMemcpyDeviceToHost));
        std::sort(times.begin(), times.end());
        const float ms = times[times.size() / 2];
        char line[512];
        snprintf(line, sizeof line,
                 "{\"case\": \"ikbo_attention_%s\", \"B\": %d, \"U\": %d, "
                 "\"H\": %d, \"Lq\": %d, \"Lk\": %d, \"Dh\": %d, \"dtype\": "
                 "\"f16\", \"ragged\": %s, \"impl\": \"emb_%s\", \"auto\": "
                 "%s, \"ms\": %.5f, \"ms_min\": %.5f, \"tflops\": %.1f, "
                 "\"nonfinite\": %llu}",
                 ragged ? "ragged" : "uniform", B, U, H, Lq, Lk, Dh,
                 ragged ? "true" : "false", cfg.name,
                 id == autoId ? "true" : "false", ms, times[0],
                 flops / ms / 1e9, nonFinite);
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
    }
    cudaFree(dc2u);
  }
  if (out)
    fclose(out);
  return 0;
}
