// RUN: %runtime_test_dir/gemm
//
// embrtGemm on the CPU against a direct f64 computation: f32, f16 and bf16
// inputs with f32 or input-typed output; every transpose; batches with
// broadcast (stride 0) operands; padded leading dimensions and batch
// strides (the gaps must stay untouched); alpha and beta; a bias with each
// activation; odd and degenerate shapes (K = 0 gives the epilogue of zero).
// The output is poisoned with 0xFF bytes (NaN) before each run, so an
// unwritten element fails. Then the compiled ABI (embrtCompiledGemm) against
// the entry point, bit for bit, and malformed arguments, each with its named
// error.

#include "harness.h"

#include "emb/compiled.h"

static double activate(embrtActivation act, double x) {
  switch (act) {
  case EMBRT_ACTIVATION_RELU:
    return x > 0 ? x : 0;
  case EMBRT_ACTIVATION_GELU_TANH:
    return 0.5 * x *
           (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  case EMBRT_ACTIVATION_SIGMOID:
    return 1 / (1 + exp(-x));
  default:
    return x;
  }
}

/// One case: shapes, layout and epilogue; padA/padB/padC widen the leading
/// dimensions, gap* the batch strides; bcastA/bcastB make the stride 0.
typedef struct Case {
  const char *name;
  int64_t batch, m, n, k;
  int transA, transB;
  int64_t padA, padB, padC, gapA, gapB, gapC;
  int bcastA, bcastB;
  int bias;
  embrtActivation act;
  float alpha, beta;
} Case;

static const Case kCases[] = {
    {"plain", 1, 3, 5, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"odd", 2, 17, 9, 33, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"tiles", 1, 5, 130, 70, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"trans_a", 2, 6, 11, 13, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"trans_b", 2, 6, 11, 13, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"trans_ab", 3, 4, 7, 5, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    {"padded", 3, 7, 9, 11, 0, 1, 3, 5, 2, 4, 1, 6, 0, 0, 0, 0, 1, 0},
    {"bcast_a", 4, 8, 6, 10, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0},
    {"bcast_b", 4, 8, 6, 10, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0},
    {"bias", 2, 9, 13, 17, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0},
    {"bias_relu", 1, 9, 13, 17, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0},
    {"relu", 2, 9, 13, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0},
    {"bias_gelu", 1, 9, 13, 17, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1, 0},
    {"bias_sigmoid", 2, 9, 13, 17, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 1, 0},
    {"alpha_beta", 2, 5, 6, 7, 1, 0, 0, 0, 1, 0, 0, 3, 0, 0, 1, 1, 0.5f, 0.75f},
    {"k0", 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 1, 0},
    {"m0", 2, 0, 4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0},
    {"vector", 1, 64, 1, 256, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 1, 0},
};

/// A case's buffers and the args that describe them.
typedef struct Run {
  embrtGemmArgs args;
  void *a, *b, *c, *bias, *c0;
  int64_t elemsA, elemsB, elemsC;
} Run;

static Run makeRun(const Case *c, embrtDtype dtype, embrtDtype outDtype,
                   Rng *rng) {
  Run r;
  memset(&r, 0, sizeof r);
  embrtGemmArgs *a = &r.args;
  a->structSize = sizeof *a;
  a->dtype = dtype;
  a->outputDtype = outDtype;
  a->batchSize = c->batch, a->m = c->m, a->n = c->n, a->k = c->k;
  a->transA = c->transA, a->transB = c->transB;
  int64_t aRows = c->transA ? c->k : c->m, aCols = c->transA ? c->m : c->k;
  int64_t bRows = c->transB ? c->n : c->k, bCols = c->transB ? c->k : c->n;
  a->lda = aCols + c->padA;
  a->ldb = bCols + c->padB;
  a->ldc = c->n + c->padC;
  a->strideA = c->bcastA ? 0 : aRows * a->lda + c->gapA;
  a->strideB = c->bcastB ? 0 : bRows * a->ldb + c->gapB;
  a->strideC = c->m * a->ldc + c->gapC;
  r.elemsA = c->batch * a->strideA + aRows * a->lda + 1;
  r.elemsB = c->batch * a->strideB + bRows * a->ldb + 1;
  r.elemsC = c->batch * a->strideC + c->m * a->ldc + 1;
  r.a = randomTensor(rng, dtype, r.elemsA);
  r.b = randomTensor(rng, dtype, r.elemsB);
  size_t cBytes = (size_t)r.elemsC * embrtDtypeSize(outDtype);
  r.c0 =
      c->beta != 0 ? randomTensor(rng, outDtype, r.elemsC) : poisoned(cBytes);
  r.c = malloc(cBytes);
  memcpy(r.c, r.c0, cBytes);
  r.bias = c->bias ? randomTensor(rng, outDtype, c->n) : NULL;
  a->a = r.a, a->b = r.b, a->output = r.c, a->bias = r.bias;
  a->activation = c->act;
  a->alpha = c->alpha, a->beta = c->beta;
  return r;
}

static void freeRun(Run *r) {
  free(r->a);
  free(r->b);
  free(r->c);
  free(r->c0);
  free(r->bias);
}

/// Checks every output element against the direct computation and every
/// element outside the output matrices against its value before the call.
static void checkRun(const Run *r) {
  const embrtGemmArgs *a = &r->args;
  double tol = harnessTolerance(a->outputDtype, a->dtype);
  size_t es = embrtDtypeSize(a->outputDtype);
  char *inside = calloc((size_t)r->elemsC, 1);
  int bad = 0;
  for (int64_t b = 0; b < a->batchSize && bad < 3; ++b)
    for (int64_t i = 0; i < a->m && bad < 3; ++i)
      for (int64_t j = 0; j < a->n && bad < 3; ++j) {
        double sum = 0, mag = 0;
        for (int64_t p = 0; p < a->k; ++p) {
          int64_t ia =
              b * a->strideA + (a->transA ? p * a->lda + i : i * a->lda + p);
          int64_t ib =
              b * a->strideB + (a->transB ? j * a->ldb + p : p * a->ldb + j);
          double t = refLoad(r->a, a->dtype, ia) * refLoad(r->b, a->dtype, ib);
          sum += t, mag += fabs(t);
        }
        int64_t at = b * a->strideC + i * a->ldc + j;
        double x = a->alpha * sum;
        mag *= fabs(a->alpha);
        if (a->beta != 0) {
          double c0 = a->beta * refLoad(r->c0, a->outputDtype, at);
          x += c0, mag += fabs(c0);
        }
        if (r->bias) {
          double v = refLoad(r->bias, a->outputDtype, j);
          x += v, mag += fabs(v);
        }
        inside[at] = 1;
        bad += !EXPECT_NEAR("output", at, refLoad(r->c, a->outputDtype, at),
                            activate(a->activation, x), mag, tol);
      }
  for (int64_t at = 0; at < r->elemsC && bad < 3; ++at)
    if (!inside[at] &&
        memcmp((char *)r->c + at * es, (char *)r->c0 + at * es, es)) {
      HARNESS_FAIL("element %lld outside the output matrices was written",
                   (long long)at);
      ++bad;
    }
  free(inside);
}

static void testCases(embrtContext *ctx, Rng *rng) {
  static const embrtDtype kDtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  char name[96];
  for (size_t c = 0; c < sizeof kCases / sizeof kCases[0]; ++c)
    for (int d = 0; d < 3; ++d)
      for (int o = 0; o < 2; ++o) {
        embrtDtype dtype = kDtypes[d], out = o ? dtype : EMBRT_F32;
        if (o && dtype == EMBRT_F32)
          continue;
        snprintf(name, sizeof name, "%s %s->%s", kCases[c].name,
                 dtypeLabel(dtype), dtypeLabel(out));
        TEST_CASE(name);
        Run r = makeRun(&kCases[c], dtype, out, rng);
        EXPECT_STATUS(embrtGemm(ctx, &r.args), EMBRT_OK, ctx);
        checkRun(&r);
        freeRun(&r);
      }
}

/// Packed leading dimensions (0) mean the stored row length.
static void testPacked(embrtContext *ctx, Rng *rng) {
  TEST_CASE("packed");
  Case c = {"packed", 2, 5, 7, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0};
  Run r = makeRun(&c, EMBRT_F32, EMBRT_F32, rng);
  r.args.lda = r.args.ldb = r.args.ldc = 0;
  EXPECT_STATUS(embrtGemm(ctx, &r.args), EMBRT_OK, ctx);
  r.args.lda = 5, r.args.ldb = 3, r.args.ldc = 7;
  checkRun(&r);
  freeRun(&r);
}

/// embrtCompiledGemm decodes its arrays into the same call.
static void testCompiled(embrtContext *ctx, Rng *rng) {
  TEST_CASE("compiled");
  Case c = {"compiled", 3, 6, 5, 4, 0, 1, 1,    2,    3,
            1,          2, 0, 0, 1, 1, 2, 0.5f, 0.25f};
  Run r = makeRun(&c, EMBRT_BF16, EMBRT_F32, rng);
  const embrtGemmArgs *a = &r.args;
  float alpha = a->alpha, beta = a->beta;
  uint32_t alphaBits, betaBits;
  memcpy(&alphaBits, &alpha, 4);
  memcpy(&betaBits, &beta, 4);
  int64_t attrs[] = {a->dtype,      a->outputDtype, a->transA, a->transB,
                     a->activation, alphaBits,      betaBits,  1};
  void *buffers[] = {r.a, r.b, r.bias, r.c};
  int64_t dims[] = {a->batchSize, a->m,         a->n,         a->k,
                    a->lda,       a->strideA,   a->ldb,       a->strideB,
                    a->ldc,       a->strideC,   a->batchSize, a->k,
                    a->n,         a->batchSize, a->m,         a->n};
  EXPECT_EQ_INT(attrs[EMB_ABI_GEMM_BATCHED], 1);
  EXPECT_EQ_INT(dims[EMB_ABI_GEMM_DIM_STRIDE_C], a->strideC);
  EXPECT_EQ_INT(dims[EMB_ABI_GEMM_DIM_OUTPUT_N], a->n);
  size_t bytes = (size_t)r.elemsC * embrtDtypeSize(a->outputDtype);
  // Operands whose run-time extents disagree: a named error, C unwritten.
  struct {
    int dim;
    int64_t value;
    const char *message;
  } bad[] = {
      {EMB_ABI_GEMM_DIM_B_BATCH, 0,
       "linalg.batch_matmul: b has batch = 0 but a has batch = 3"},
      {EMB_ABI_GEMM_DIM_B_K, a->k + 1,
       "linalg.batch_matmul: b has K = 5 but a has K = 4"},
      {EMB_ABI_GEMM_DIM_BIAS_N, 2,
       "linalg.batch_matmul: the bias has N = 2 but b has N = 5"},
      {EMB_ABI_GEMM_DIM_OUTPUT_BATCH, 4,
       "linalg.batch_matmul: the result has batch = 4 but a has batch = 3"},
      {EMB_ABI_GEMM_DIM_OUTPUT_M, 0,
       "linalg.batch_matmul: the result has M = 0 but a has M = 6"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    TEST_CASE(bad[i].message);
    int64_t wrong[sizeof dims / sizeof dims[0]];
    memcpy(wrong, dims, sizeof dims);
    wrong[bad[i].dim] = bad[i].value;
    embrtCompiledGemm(ctx, attrs, buffers, wrong);
    EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), bad[i].message);
    EXPECT_TRUE(memcmp(r.c, r.c0, bytes) == 0);
    embrtContextClearError(ctx);
  }
  embrtCompiledGemm(ctx, attrs, buffers, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  void *viaAbi = malloc(bytes);
  memcpy(viaAbi, r.c, bytes);
  memcpy(r.c, r.c0, bytes);
  EXPECT_STATUS(embrtGemm(ctx, a), EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(viaAbi, r.c, bytes) == 0);
  checkRun(&r);
  free(viaAbi);
  freeRun(&r);
}

static void expectInvalid(embrtContext *ctx, const embrtGemmArgs *a,
                          const char *needle) {
  TEST_CASE(needle);
  EXPECT_STATUS(embrtGemm(ctx, a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), needle);
  embrtContextClearError(ctx);
}

static void testInvalid(embrtContext *ctx, Rng *rng) {
  Case c = {"bad", 2, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0};
  Run r = makeRun(&c, EMBRT_F16, EMBRT_F16, rng);
  embrtGemmArgs a;
  TEST_CASE("null args");
  EXPECT_STATUS(embrtGemm(ctx, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  embrtContextClearError(ctx);
  a = r.args, a.structSize = 8;
  expectInvalid(ctx, &a, "embrtGemmArgs");
  a = r.args, a.dtype = EMBRT_I32;
  expectInvalid(ctx, &a, "gemm: dtype");
  a = r.args, a.outputDtype = EMBRT_BF16;
  expectInvalid(ctx, &a, "gemm: outputDtype is bf16, must be f32 or dtype");
  a = r.args, a.m = -1;
  expectInvalid(ctx, &a, "gemm: m");
  a = r.args, a.transB = 2;
  expectInvalid(ctx, &a, "gemm: transB is 2, must be 0 or 1");
  a = r.args, a.activation = (embrtActivation)9;
  expectInvalid(ctx, &a, "gemm: activation is 9");
  a = r.args, a.lda = 5;
  expectInvalid(ctx, &a, "gemm: lda is 5, must be 0 (packed) or >= 6");
  a = r.args, a.transB = 1, a.ldb = 5;
  expectInvalid(ctx, &a, "gemm: ldb is 5, must be 0 (packed) or >= 6");
  a = r.args, a.strideC = 19;
  expectInvalid(ctx, &a,
                "gemm: strideC is 19, so the output's batches "
                "overlap (one spans 20 elements)");
  a = r.args, a.strideB = -1;
  expectInvalid(ctx, &a, "gemm: strideB");
  a = r.args, a.a = NULL;
  expectInvalid(ctx, &a, "gemm: a is NULL");
  a = r.args, a.output = NULL;
  expectInvalid(ctx, &a, "gemm: output is NULL");
  a = r.args, a.m = INT64_MAX / 2, a.strideC = INT64_MAX / 2;
  expectInvalid(ctx, &a, "too large to address");
  freeRun(&r);
}

int main(void) {
  embrtContext *ctx = newCpuContext();
  Rng rng = rngSeed(0x6e33);
  testCases(ctx, &rng);
  testPacked(ctx, &rng);
  testCompiled(ctx, &rng);
  testInvalid(ctx, &rng);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
