// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/gemm
//===- test/Kernels/gemm.c - GPU test of embrtGemm on cuBLASLt
//-------------===//
//
// embrtGemm on a CUDA context (cuBLASLt, runtime/cuda/gemm.c) against the
// CPU reference backend on a CPU context, on fresh random inputs (values
// never zero): f32, f16 and bf16 inputs with f32 or input-typed output;
// every epilogue (none, bias, relu, bias + relu, gelu, bias + gelu, bias +
// sigmoid, the last a second pass); aligned shapes (multiples of 8: tensor
// cores) and odd ones (M, N, K not multiples of 8, so rows are not 16-byte
// aligned), misaligned base pointers (one element off), padded leading
// dimensions, batches with strides and broadcast (stride 0) operands, all
// four transposes, alpha and beta; the MLP shapes of the ranking model
// (2048 x 8192 -> 1024 and 1024 -> 256, 256 -> 1; bias + relu and bias +
// sigmoid, f16 and bf16, the first and last rows checked); each shape twice
// with new data (the second call runs the cached plan). Then what CUDA refuses:
// K = 0 (EMBRT_UNSUPPORTED, named).
//
// The GPU output is poisoned with 0xFF bytes before each run and every
// element of the output span is compared, so an unwritten element (or a
// written gap) fails. Tolerance: relative to max(|ref|, 2 sqrt(K) + the
// bias and beta terms) (1 under sigmoid), per output dtype: f32 output of f32
// data 2e-5 (cuBLASLt accumulates in f32, the CPU in f64), of 16-bit data 2e-5
// (both in f32, in a different order); f16 output 2e-3 and bf16 1.6e-2 (one
// rounding each side that may land on either neighbour, two with sigmoid).
//
// Usage: gemm [--quick]   (--quick: no MLP shapes, for compute-sanitizer)
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"

typedef struct Case {
  const char *name;
  int64_t batch, m, n, k;
  int transA, transB;
  int64_t padA, padB, padC; ///< added to the leading dimensions
  int bcastA, bcastB;       ///< stride 0
  int misalign;             ///< base pointers one element off
  float beta;
} Case;

static const Case kShapes[] = {
    {"aligned", 1, 128, 256, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"odd", 1, 37, 53, 29, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"odd_trans_b", 1, 37, 53, 29, 0, 1, 0, 0, 0, 0, 0, 0, 0},
    {"trans_a", 2, 24, 40, 16, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    {"trans_ab", 3, 13, 7, 11, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    {"batch", 5, 64, 72, 40, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"bcast_a", 4, 32, 24, 48, 0, 0, 0, 0, 0, 1, 0, 0, 0},
    {"bcast_b", 4, 31, 17, 9, 0, 1, 0, 0, 0, 0, 1, 0, 0},
    {"padded", 2, 33, 21, 19, 0, 1, 3, 5, 7, 0, 0, 0, 0},
    {"misaligned", 2, 16, 24, 32, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"beta", 2, 20, 30, 40, 1, 0, 0, 0, 2, 0, 0, 0, 0.5f},
    {"vector", 1, 64, 1, 256, 0, 1, 0, 0, 0, 0, 0, 0, 0},
};

/// The ranking model's MLP (M = 2048 rows): W stored [N, K] (transB).
static const Case kMlp[] = {
    {"mlp_8192_1024", 1, 2048, 1024, 8192, 0, 1, 0, 0, 0, 0, 0, 0, 0},
    {"mlp_1024_256", 1, 2048, 256, 1024, 0, 1, 0, 0, 0, 0, 0, 0, 0},
    {"mlp_256_1", 1, 2048, 1, 256, 0, 1, 0, 0, 0, 0, 0, 0, 0},
};

typedef struct Epilogue {
  const char *name;
  int bias;
  embrtActivation act;
} Epilogue;

static const Epilogue kEpilogues[] = {
    {"none", 0, EMBRT_ACTIVATION_NONE},
    {"bias", 1, EMBRT_ACTIVATION_NONE},
    {"relu", 0, EMBRT_ACTIVATION_RELU},
    {"bias_relu", 1, EMBRT_ACTIVATION_RELU},
    {"gelu", 0, EMBRT_ACTIVATION_GELU_TANH},
    {"bias_gelu", 1, EMBRT_ACTIVATION_GELU_TANH},
    {"bias_sigmoid", 1, EMBRT_ACTIVATION_SIGMOID},
};

static embrtContext *cpu, *gpu;

/// Rows of an MLP shape checked at each end.
enum { kMlpRows = 24 };

static double tolerance(embrtDtype out) {
  return out == EMBRT_BF16 ? 1.6e-2 : out == EMBRT_F16 ? 2e-3 : 2e-5;
}

static void *upload(const void *host, size_t bytes) {
  return harnessUpload(gpu, host, bytes);
}

/// Runs one case on both contexts and compares the whole output span.
static void runCase(const Case *c, const Epilogue *e, embrtDtype dtype,
                    embrtDtype out, int mlp, Rng *rng) {
  embrtGemmArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = dtype, a.outputDtype = out;
  a.batchSize = c->batch, a.m = c->m, a.n = c->n, a.k = c->k;
  a.transA = c->transA, a.transB = c->transB;
  int64_t aRows = c->transA ? c->k : c->m, aCols = c->transA ? c->m : c->k;
  int64_t bRows = c->transB ? c->n : c->k, bCols = c->transB ? c->k : c->n;
  a.lda = aCols + c->padA, a.ldb = bCols + c->padB, a.ldc = c->n + c->padC;
  a.strideA = c->bcastA ? 0 : aRows * a.lda;
  a.strideB = c->bcastB ? 0 : bRows * a.ldb;
  a.strideC = c->m * a.ldc;
  a.activation = e->act;
  a.alpha = 1.0f, a.beta = c->beta;
  int64_t off = c->misalign;
  int64_t nA = off + (c->batch - 1) * a.strideA + aRows * a.lda;
  int64_t nB = off + (c->batch - 1) * a.strideB + bRows * a.ldb;
  int64_t nC = off + c->batch * a.strideC;
  size_t es = embrtDtypeSize(dtype), os = embrtDtypeSize(out);
  for (int round = 0; round < 2; ++round) {
    void *hA = randomTensor(rng, dtype, nA), *hB = randomTensor(rng, dtype, nB);
    void *hBias = e->bias ? randomTensor(rng, out, c->n) : NULL;
    void *hC =
        c->beta != 0 ? randomTensor(rng, out, nC) : poisoned((size_t)nC * os);
    void *ref = malloc((size_t)nC * os), *got = malloc((size_t)nC * os);
    memcpy(ref, hC, (size_t)nC * os);
    void *dA = upload(hA, (size_t)nA * es), *dB = upload(hB, (size_t)nB * es);
    void *dC = upload(hC, (size_t)nC * os);
    void *dBias = hBias ? upload(hBias, (size_t)c->n * os) : NULL;

    // The reference: every row, or for the MLP shapes (batch 1) the first
    // and last kMlpRows rows (the CPU would take minutes for all of them).
    int64_t blocks[2][2] = {{0, c->m}, {0, 0}};
    if (mlp)
      blocks[0][1] = kMlpRows, blocks[1][0] = c->m - kMlpRows,
      blocks[1][1] = c->m;
    for (int k = 0; k < 2; ++k) {
      int64_t r0 = blocks[k][0], rows = blocks[k][1] - r0;
      if (rows <= 0)
        continue;
      embrtGemmArgs h = a;
      h.m = rows;
      h.a = (char *)hA + (off + (c->transA ? r0 : r0 * a.lda)) * es;
      h.b = (char *)hB + off * es;
      h.output = (char *)ref + (off + r0 * a.ldc) * os, h.bias = hBias;
      EXPECT_STATUS(embrtGemm(cpu, &h), EMBRT_OK, cpu);
    }
    embrtGemmArgs d = a;
    d.a = (char *)dA + off * es, d.b = (char *)dB + off * es;
    d.output = (char *)dC + off * os, d.bias = dBias;
    EXPECT_STATUS(embrtGemm(gpu, &d), EMBRT_OK, gpu);
    EXPECT_STATUS(
        embrtMemcpy(gpu, got, dC, (size_t)nC * os, EMBRT_COPY_DEVICE_TO_HOST),
        EMBRT_OK, gpu);
    EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);

    // Scale: the typical size of an element, 2 sqrt(K) (K random terms of
    // |a b| < 4 and random sign), plus the bias and beta terms; sigmoid's
    // outputs are at most 1.
    double scale = 2.0 * sqrt((double)c->k) + (e->bias ? 2.0 : 0.0) +
                   (c->beta != 0 ? 2.0 * c->beta : 0.0);
    int bad = 0;
    for (int64_t i = 0; i < nC && bad < 5; ++i) {
      int64_t row = (i - off) / a.ldc;
      if (mlp && row >= kMlpRows && row < c->m - kMlpRows)
        continue;
      double r = refLoad(ref, out, i), g = refLoad(got, out, i);
      if (isnan(r) && isnan(g))
        continue; // a gap: poisoned on both sides
      bad += !EXPECT_NEAR("output", i, g, r,
                          e->act == EMBRT_ACTIVATION_SIGMOID ? 1.0 : scale,
                          tolerance(out));
    }
    free(hA), free(hB), free(hBias), free(hC), free(ref), free(got);
    embrtFree(gpu, dA), embrtFree(gpu, dB), embrtFree(gpu, dC);
    embrtFree(gpu, dBias);
  }
}

static void testCases(const Case *cases, size_t n, int mlp, Rng *rng) {
  static const embrtDtype kDtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  char name[128];
  for (size_t c = 0; c < n; ++c)
    for (size_t e = 0; e < sizeof kEpilogues / sizeof kEpilogues[0]; ++e)
      for (int d = 0; d < 3; ++d)
        for (int o = 0; o < 2; ++o) {
          embrtDtype dtype = kDtypes[d], out = o ? dtype : EMBRT_F32;
          if (o && dtype == EMBRT_F32)
            continue;
          // The MLP shapes: the model's epilogues, 16-bit in and out.
          if (mlp && (!o || dtype == EMBRT_F32 ||
                      (kEpilogues[e].act != EMBRT_ACTIVATION_RELU &&
                       kEpilogues[e].act != EMBRT_ACTIVATION_SIGMOID) ||
                      !kEpilogues[e].bias))
            continue;
          snprintf(name, sizeof name, "%s %s %s->%s", cases[c].name,
                   kEpilogues[e].name, dtypeLabel(dtype), dtypeLabel(out));
          TEST_CASE(name);
          runCase(&cases[c], &kEpilogues[e], dtype, out, mlp, rng);
        }
}

/// What the CUDA backend refuses, by name.
static void testUnsupported(void) {
  void *buf = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, 4096, &buf), EMBRT_OK, gpu);
  embrtGemmArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = a.outputDtype = EMBRT_F16;
  a.batchSize = 1, a.m = 4, a.n = 4, a.k = 0;
  a.a = a.b = a.output = buf;
  a.alpha = 1.0f;
  TEST_CASE("k0");
  EXPECT_STATUS(embrtGemm(gpu, &a), EMBRT_UNSUPPORTED, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu), "gemm: k is 0");
  embrtContextClearError(gpu);
  embrtFree(gpu, buf);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  cpu = newCpuContext();
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }
  Rng rng = rngSeed(0x6e3313);
  testCases(kShapes, sizeof kShapes / sizeof kShapes[0], 0, &rng);
  if (!quick)
    testCases(kMlp, sizeof kMlp / sizeof kMlp[0], 1, &rng);
  testUnsupported();
  embrtContextDestroy(gpu);
  embrtContextDestroy(cpu);
  return harnessFinish();
}
