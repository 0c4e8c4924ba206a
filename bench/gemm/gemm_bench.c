//===- bench/gemm/gemm_bench.c - embrtGemm on the ranking model's MLP -----===//
//
// Times embrtGemm (cuBLASLt with the bias and relu in its epilogue) on the
// MLP shapes of the end-to-end ranking model: M = 2048 rows, f16 in and out,
// f32 accumulation, W stored [N, K] as torch keeps it (transB), bias [N].
// Per shape: 10 warm-up calls (the first makes the context's cuBLASLt plan),
// then three runs of `iters` calls timed with events on the context's
// stream; prints one line per shape with the median of the three, in ms per
// call:
//
//   ours <m> <k> <n> <epilogue> <ms>
//
// Usage: gemm_bench [iters]   (default 100)
//
//===----------------------------------------------------------------------===//

#include "emb/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(expr)                                                            \
  do {                                                                         \
    embrtStatus s_ = (expr);                                                   \
    if (s_ != EMBRT_OK) {                                                      \
      fprintf(stderr, "%s failed: %s\n", #expr,                                \
              ctx ? embrtContextGetLastError(ctx) : embrtGetCreateError());    \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static embrtContext *ctx;

static void *deviceRandom(int64_t n, unsigned seed) {
  uint16_t *h = malloc((size_t)n * 2);
  srand(seed);
  for (int64_t i = 0; i < n; ++i)
    h[i] = embrtF32ToF16(((float)rand() / (float)RAND_MAX - 0.5f) * 0.25f);
  void *d = NULL;
  CHECK(embrtMalloc(ctx, (size_t)n * 2, &d));
  CHECK(embrtMemcpy(ctx, d, h, (size_t)n * 2, EMBRT_COPY_HOST_TO_DEVICE));
  CHECK(embrtSynchronize(ctx));
  free(h);
  return d;
}

static int cmpFloat(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 100;
  CHECK(embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &ctx));
  const int64_t shapes[][3] = {
      {2048, 8192, 1024}, {2048, 1024, 256}, {2048, 256, 1}};
  const struct {
    const char *name;
    embrtActivation act;
  } epilogues[] = {{"bias_relu", EMBRT_ACTIVATION_RELU},
                   {"bias_sigmoid", EMBRT_ACTIVATION_SIGMOID}};
  embrtEvent *start = NULL, *end = NULL;
  CHECK(embrtEventCreate(ctx, &start));
  CHECK(embrtEventCreate(ctx, &end));
  for (int s = 0; s < 3; ++s)
    for (int e = 0; e < 2; ++e) {
      if (e == 1 && s != 2)
        continue; // the model's sigmoid follows its last layer only
      int64_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
      void *x = deviceRandom(m * k, 1), *w = deviceRandom(n * k, 2);
      void *b = deviceRandom(n, 3), *y = NULL;
      CHECK(embrtMalloc(ctx, (size_t)(m * n) * 2, &y));
      embrtGemmArgs a;
      memset(&a, 0, sizeof a);
      a.structSize = sizeof a;
      a.dtype = a.outputDtype = EMBRT_F16;
      a.batchSize = 1, a.m = m, a.n = n, a.k = k;
      a.transB = 1;
      a.a = x, a.b = w, a.output = y, a.bias = b;
      a.activation = epilogues[e].act;
      a.alpha = 1.0f;
      for (int i = 0; i < 10; ++i)
        CHECK(embrtGemm(ctx, &a));
      float runs[3];
      for (int r = 0; r < 3; ++r) {
        CHECK(embrtEventRecord(ctx, start));
        for (int i = 0; i < iters; ++i)
          CHECK(embrtGemm(ctx, &a));
        CHECK(embrtEventRecord(ctx, end));
        CHECK(embrtSynchronize(ctx));
        CHECK(embrtEventElapsedMs(ctx, start, end, &runs[r]));
        runs[r] /= (float)iters;
      }
      qsort(runs, 3, sizeof runs[0], cmpFloat);
      printf("ours %lld %lld %lld %s %.5f\n", (long long)m, (long long)k,
             (long long)n, epilogues[e].name, runs[1]);
      embrtFree(ctx, x), embrtFree(ctx, w), embrtFree(ctx, b),
          embrtFree(ctx, y);
    }
  embrtEventDestroy(ctx, start);
  embrtEventDestroy(ctx, end);
  embrtContextDestroy(ctx);
  return 0;
}
