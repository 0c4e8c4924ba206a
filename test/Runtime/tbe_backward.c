// RUN: %runtime_test_dir/tbe_backward
//
// embrtTbeBackward and embrtEmbeddingBagBackward on the CPU against a direct
// computation: a dense f64 gradient of every table, accumulated by looping
// over features, bags and ids, then each optimizer applied to the rows that
// some contributing id touched. Every optimizer x pooling x table dtype,
// weighted (f32 and table-typed weights) and not, padding ids, shared
// tables, empty bags, f32 and table-typed gradients, several steps in a row;
// then the bounds-check modes, bad offsets, the compiled ABI, the named
// errors of malformed arguments and Adam's step below 1 (refused, nothing
// changed).
//
// f32 tables must match to f32 rounding. f16 and bf16 rows are rounded
// stochastically: the direct computation rounds its f32 value with the same
// seeded bits (kernels/stochastic_rounding.h), and the result must be that
// value or a neighbour (the two f64 computations may differ in the last f32
// bit), and within one 16-bit ulp of the exact value.

#include "harness.h"

#include "emb/compiled.h"
#include "kernels/stochastic_rounding.h"

#define MAX_TABLES 4
#define MAX_FEATURES 6

/// One backward problem: the lookup, its gradient, the optimizer and the
/// state, with host copies of everything as int64 / double for the
/// reference.
typedef struct Problem {
  int64_t T, F, B, N;
  int64_t rows[MAX_TABLES], dims[MAX_TABLES], featureTables[MAX_FEATURES];
  embrtDtype tableDtype, indexDtype, offsetDtype, weightDtype, gradDtype;
  embrtPooling pooling;
  embrtBoundsCheck boundsCheck;
  embrtOptimizer optimizer;
  int hasPadding, hasWeights;
  int64_t paddingIdx;
  void *tables[MAX_TABLES], *m1[MAX_TABLES], *m2[MAX_TABLES];
  int64_t *ids, *offs;
  void *indices, *offsets, *weights, *grad;
  int64_t gradElements;
  float hyper[EMBRT_NUM_HYPER_PARAMS];
  int64_t step;
  uint64_t seed;
} Problem;

static int64_t sumDims(const Problem *p) {
  int64_t w = 0;
  for (int64_t f = 0; f < p->F; ++f)
    w += p->dims[p->featureTables[f]];
  return w;
}

/// Random tables, states, bags (one in five empty), ids (one in eight the
/// padding id where there is one), weights and gradient.
static void makeProblem(Problem *p, Rng *rng, int maxBag) {
  for (int64_t t = 0; t < p->T; ++t) {
    int64_t n = p->rows[t] * p->dims[t];
    p->tables[t] = randomTensor(rng, p->tableDtype, n);
    p->m1[t] = p->m2[t] = NULL;
    if (p->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD) {
      p->m1[t] = malloc((size_t)(p->rows[t] + 1) * 4);
      for (int64_t r = 0; r < p->rows[t]; ++r)
        ((float *)p->m1[t])[r] = (float)rngUniform(rng, 0.0, 2.0);
    } else if (p->optimizer == EMBRT_OPTIMIZER_ADAM) {
      p->m1[t] = malloc((size_t)(n + 1) * 4);
      p->m2[t] = malloc((size_t)(n + 1) * 4);
      for (int64_t i = 0; i < n; ++i) {
        ((float *)p->m1[t])[i] = (float)rngUniform(rng, -0.5, 0.5);
        ((float *)p->m2[t])[i] = (float)rngUniform(rng, 0.0, 0.5);
      }
    }
  }
  int64_t numBags = p->F * p->B;
  p->offs = malloc((size_t)(numBags + 1) * sizeof(int64_t));
  p->offs[0] = 0;
  for (int64_t s = 0; s < numBags; ++s)
    p->offs[s + 1] =
        p->offs[s] + (rngInt(rng, 0, 5) == 0 ? 0 : rngInt(rng, 1, maxBag + 1));
  p->N = p->offs[numBags];
  p->ids = malloc((size_t)(p->N + 1) * sizeof(int64_t));
  for (int64_t f = 0; f < p->F; ++f) {
    int64_t rows = p->rows[p->featureTables[f]];
    for (int64_t i = p->offs[f * p->B]; i < p->offs[(f + 1) * p->B]; ++i)
      p->ids[i] = p->hasPadding && rngInt(rng, 0, 8) == 0
                      ? p->paddingIdx
                      : rngInt(rng, 0, rows);
  }
  p->weights = p->hasWeights ? randomTensor(rng, p->weightDtype, p->N) : NULL;
  p->gradElements = p->pooling == EMBRT_POOLING_NONE
                        ? p->N * p->dims[p->featureTables[0]]
                        : p->B * sumDims(p);
  p->grad = randomTensor(rng, p->gradDtype, p->gradElements);
  p->indices = indexTensor(p->indexDtype, p->ids, p->N);
  p->offsets = indexTensor(p->offsetDtype, p->offs, numBags + 1);
  p->hyper[EMBRT_HYPER_LEARNING_RATE] = 0.05f;
  p->hyper[EMBRT_HYPER_EPS] = 1e-3f;
  p->hyper[EMBRT_HYPER_BETA1] = 0.9f;
  p->hyper[EMBRT_HYPER_BETA2] = 0.99f;
  p->hyper[EMBRT_HYPER_WEIGHT_DECAY] = 0.01f;
  p->step = 1;
  p->seed = rngNext(rng);
}

static void freeProblem(Problem *p) {
  for (int64_t t = 0; t < p->T; ++t) {
    free(p->tables[t]);
    free(p->m1[t]);
    free(p->m2[t]);
  }
  free(p->ids);
  free(p->offs);
  free(p->indices);
  free(p->offsets);
  free(p->weights);
  free(p->grad);
}

static embrtTbeBackwardArgs argsOf(Problem *p) {
  embrtTbeBackwardArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  embrtTbeArgs *l = &a.lookup;
  l->structSize = sizeof *l;
  l->pooling = p->pooling;
  l->boundsCheck = p->boundsCheck;
  l->numTables = p->T;
  l->tables = (const void *const *)p->tables;
  l->tableRows = p->rows;
  l->tableDims = p->dims;
  l->tableDtype = p->tableDtype;
  l->numFeatures = p->F;
  l->featureTables = p->featureTables;
  l->batchSize = p->B;
  l->numIndices = p->N;
  l->indices = p->indices;
  l->indexDtype = p->indexDtype;
  l->offsets = p->offsets;
  l->offsetDtype = p->offsetDtype;
  l->perSampleWeights = p->weights;
  l->perSampleWeightDtype = p->weightDtype;
  l->paddingIdx = p->paddingIdx;
  l->hasPaddingIdx = p->hasPadding;
  l->configId = -1;
  a.gradOutput = p->grad;
  a.gradDtype = p->gradDtype;
  a.optimizer = p->optimizer;
  a.momentum1 = p->optimizer == EMBRT_OPTIMIZER_SGD ? NULL : p->m1;
  a.momentum2 = p->optimizer == EMBRT_OPTIMIZER_ADAM ? p->m2 : NULL;
  a.hyperParams = p->hyper;
  a.step = &p->step;
  a.seed = p->seed;
  a.configId = -1;
  return a;
}

/// Runs `a` with a workspace of the size the runtime asks for.
static embrtStatus runBackward(embrtContext *ctx, embrtTbeBackwardArgs *a) {
  size_t bytes = 0;
  embrtStatus status = embrtTbeBackwardWorkspaceSize(ctx, a, &bytes);
  if (status != EMBRT_OK)
    return status;
  void *ws = malloc(bytes ? bytes : 1);
  a->workspace = ws;
  a->workspaceBytes = bytes;
  status = embrtTbeBackward(ctx, a);
  free(ws);
  a->workspace = NULL;
  a->workspaceBytes = 0;
  return status;
}

//===----------------------------------------------------------------------===//
// The direct computation
//===----------------------------------------------------------------------===//

/// The expected tables and states after one step, in f64 (16-bit tables as
/// their stochastically rounded bits, decoded).
typedef struct Expected {
  double *w[MAX_TABLES], *exact[MAX_TABLES], *m1[MAX_TABLES], *m2[MAX_TABLES];
} Expected;

static double load(const void *p, embrtDtype dtype, int64_t i) {
  return refLoad(p, dtype, i);
}

static void expectStep(const Problem *p, Expected *e) {
  int64_t width = sumDims(p), col = 0;
  double *grad[MAX_TABLES];
  char *touched[MAX_TABLES];
  for (int64_t t = 0; t < p->T; ++t) {
    int64_t n = p->rows[t] * p->dims[t];
    grad[t] = calloc((size_t)n + 1, sizeof(double));
    touched[t] = calloc((size_t)p->rows[t] + 1, 1);
  }
  for (int64_t f = 0; f < p->F; ++f) {
    int64_t t = p->featureTables[f], D = p->dims[t];
    for (int64_t b = 0; b < p->B; ++b) {
      int64_t g = f * p->B + b, count = 0;
      for (int64_t i = p->offs[g]; i < p->offs[g + 1]; ++i) {
        int64_t id = p->ids[i];
        count += !(p->hasPadding && id == p->paddingIdx) && id >= 0 &&
                 id < p->rows[t];
      }
      for (int64_t i = p->offs[g]; i < p->offs[g + 1]; ++i) {
        int64_t id = p->ids[i];
        if ((p->hasPadding && id == p->paddingIdx) || id < 0 ||
            id >= p->rows[t])
          continue;
        double scale = p->hasWeights ? load(p->weights, p->weightDtype, i)
                       : p->pooling == EMBRT_POOLING_MEAN ? 1.0 / count
                                                          : 1.0;
        int64_t base =
            p->pooling == EMBRT_POOLING_NONE ? i * D : b * width + col;
        for (int64_t d = 0; d < D; ++d)
          grad[t][id * D + d] += scale * load(p->grad, p->gradDtype, base + d);
        touched[t][id] = 1;
      }
    }
    col += D;
  }
  double lr = p->hyper[0], eps = p->hyper[1], b1 = p->hyper[2],
         b2 = p->hyper[3], wd = p->hyper[4];
  for (int64_t t = 0; t < p->T; ++t) {
    int64_t D = p->dims[t], n = p->rows[t] * D;
    e->w[t] = malloc((size_t)(n + 1) * sizeof(double));
    e->exact[t] = malloc((size_t)(n + 1) * sizeof(double));
    e->m1[t] = malloc((size_t)(n + 1) * sizeof(double));
    e->m2[t] = malloc((size_t)(n + 1) * sizeof(double));
    for (int64_t i = 0; i < n; ++i) {
      e->w[t][i] = e->exact[t][i] = load(p->tables[t], p->tableDtype, i);
      e->m1[t][i] =
          p->optimizer == EMBRT_OPTIMIZER_ADAM ? ((float *)p->m1[t])[i] : 0;
      e->m2[t][i] =
          p->optimizer == EMBRT_OPTIMIZER_ADAM ? ((float *)p->m2[t])[i] : 0;
    }
    for (int64_t r = 0; r < p->rows[t]; ++r) {
      if (p->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
        e->m1[t][r] = ((float *)p->m1[t])[r];
      if (!touched[t][r])
        continue;
      double *w = e->exact[t] + r * D, *g = grad[t] + r * D;
      if (p->optimizer == EMBRT_OPTIMIZER_SGD) {
        for (int64_t d = 0; d < D; ++d)
          w[d] = w[d] - lr * (g[d] + wd * w[d]);
      } else if (p->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD) {
        double sum = 0;
        for (int64_t d = 0; d < D; ++d)
          sum += (g[d] + wd * w[d]) * (g[d] + wd * w[d]);
        double s = e->m1[t][r] + sum / D;
        for (int64_t d = 0; d < D; ++d)
          w[d] = w[d] - lr * (g[d] + wd * w[d]) / (sqrt(s) + eps);
        e->m1[t][r] = s;
      } else {
        double c1 = 1 - pow(b1, (double)p->step),
               c2 = 1 - pow(b2, (double)p->step);
        for (int64_t d = 0; d < D; ++d) {
          double *m = &e->m1[t][r * D + d], *v = &e->m2[t][r * D + d];
          *m = b1 * *m + (1 - b1) * g[d];
          *v = b2 * *v + (1 - b2) * g[d] * g[d];
          w[d] = w[d] - lr * ((*m / c1) / (sqrt(*v / c2) + eps) + wd * w[d]);
        }
      }
      uint32_t rowSeed = embSrRowSeed(embSrStepSeed(p->seed, p->step), t, r);
      for (int64_t d = 0; d < D; ++d) {
        float x = (float)w[d];
        uint32_t bits = embSrColumnBits(rowSeed, (uint32_t)d);
        e->w[t][r * D + d] = p->tableDtype == EMBRT_F16
                                 ? refF16ToDouble(embSrToF16(x, bits))
                             : p->tableDtype == EMBRT_BF16
                                 ? refBF16ToDouble(embSrToBF16(x, bits))
                                 : (double)x;
      }
    }
    free(grad[t]);
    free(touched[t]);
  }
}

static void freeExpected(const Problem *p, Expected *e) {
  for (int64_t t = 0; t < p->T; ++t) {
    free(e->w[t]);
    free(e->exact[t]);
    free(e->m1[t]);
    free(e->m2[t]);
  }
}

/// The spacing of 16-bit values around x: one ulp of `dtype` at |x|.
static double ulpOf(embrtDtype dtype, double x) {
  int mantissa = dtype == EMBRT_F16 ? 10 : dtype == EMBRT_BF16 ? 7 : 23;
  int minExp = dtype == EMBRT_F16 ? -14 : -126;
  int e;
  frexp(fabs(x), &e); // |x| in [2^(e-1), 2^e)
  if (e - 1 < minExp)
    e = minExp + 1;
  return ldexp(1.0, e - 1 - mantissa);
}

/// Compares the problem's tables and states with `e`.
static void checkStep(const Problem *p, const Expected *e) {
  int bad = 0;
  for (int64_t t = 0; t < p->T && bad < 8; ++t) {
    int64_t D = p->dims[t], n = p->rows[t] * D;
    for (int64_t i = 0; i < n && bad < 8; ++i) {
      double got = load(p->tables[t], p->tableDtype, i), want = e->w[t][i];
      if (p->tableDtype == EMBRT_F32) {
        if (!EXPECT_NEAR("table", i, got, want, 1.0, 2e-6))
          ++bad;
      } else {
        // The same bits, or a neighbour; within an ulp of the exact value.
        double ulp = ulpOf(p->tableDtype, want);
        if (fabs(got - want) > 1.01 * ulp ||
            fabs(got - e->exact[t][i]) > 1.01 * ulpOf(p->tableDtype, got)) {
          HARNESS_FAIL("table %lld [%lld] is %.9g, expected %.9g (exact %.9g)",
                       (long long)t, (long long)i, got, want, e->exact[t][i]);
          ++bad;
        }
      }
      if (p->optimizer == EMBRT_OPTIMIZER_ADAM) {
        if (!EXPECT_NEAR("m", i, ((float *)p->m1[t])[i], e->m1[t][i], 1.0,
                         2e-6) ||
            !EXPECT_NEAR("v", i, ((float *)p->m2[t])[i], e->m2[t][i], 1.0,
                         2e-6))
          ++bad;
      }
    }
    if (p->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
      for (int64_t r = 0; r < p->rows[t] && bad < 8; ++r)
        if (!EXPECT_NEAR("state", r, ((float *)p->m1[t])[r], e->m1[t][r], 1.0,
                         2e-6))
          ++bad;
  }
}

/// Runs `steps` steps (new gradients, next step count each) and checks each.
static void runAndCheck(embrtContext *ctx, Problem *p, Rng *rng, int steps) {
  for (int s = 0; s < steps; ++s) {
    Expected e;
    expectStep(p, &e);
    embrtTbeBackwardArgs a = argsOf(p);
    EXPECT_STATUS(runBackward(ctx, &a), EMBRT_OK, ctx);
    checkStep(p, &e);
    freeExpected(p, &e);
    free(p->grad);
    p->grad = randomTensor(rng, p->gradDtype, p->gradElements);
    ++p->step;
  }
}

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

static const embrtDtype kTableTypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
static const embrtOptimizer kOptimizers[] = {
    EMBRT_OPTIMIZER_SGD, EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, EMBRT_OPTIMIZER_ADAM};
static const char *kOptimizerNames[] = {"sgd", "rowwise_adagrad", "adam"};

/// Four tables of mixed D, six features (two share table 1), small rows so
/// that rows are touched many times.
static void setUpMixed(Problem *p, embrtDtype tableDtype, embrtPooling pooling,
                       embrtOptimizer optimizer) {
  memset(p, 0, sizeof *p);
  p->T = 4;
  static const int64_t dims[] = {8, 3, 16, 1};
  static const int64_t rows[] = {11, 7, 1, 30};
  for (int t = 0; t < 4; ++t) {
    p->dims[t] = pooling == EMBRT_POOLING_NONE ? 5 : dims[t];
    p->rows[t] = rows[t];
  }
  p->F = 6;
  static const int64_t ft[] = {0, 1, 2, 1, 3, 0};
  memcpy(p->featureTables, ft, sizeof ft);
  p->B = 9;
  p->tableDtype = p->weightDtype = p->gradDtype = tableDtype;
  p->indexDtype = EMBRT_I64;
  p->offsetDtype = EMBRT_I32;
  p->pooling = pooling;
  p->boundsCheck = EMBRT_BOUNDS_FATAL;
  p->optimizer = optimizer;
  p->paddingIdx = 2;
}

static void testCombinations(embrtContext *ctx, Rng *rng) {
  char name[160];
  for (int o = 0; o < 3; ++o)
    for (int d = 0; d < 3; ++d)
      for (int pool = 0; pool < 3; ++pool)
        for (int variant = 0; variant < 3; ++variant) {
          // variant 0: plain; 1: padding + f32 gradient (+ f32 weights for
          // SUM); 2: table-typed weights (SUM) or i32 ids.
          Problem p;
          setUpMixed(&p, kTableTypes[d], (embrtPooling)pool, kOptimizers[o]);
          if (variant == 1) {
            p.hasPadding = 1;
            p.gradDtype = EMBRT_F32;
            p.hasWeights = pool == EMBRT_POOLING_SUM;
            p.weightDtype = EMBRT_F32;
          } else if (variant == 2) {
            p.hasWeights = pool == EMBRT_POOLING_SUM;
            p.indexDtype = EMBRT_I32;
            p.offsetDtype = EMBRT_I64;
          }
          snprintf(name, sizeof name, "%s %s %s variant %d", kOptimizerNames[o],
                   dtypeLabel(kTableTypes[d]),
                   pool == 0   ? "sum"
                   : pool == 1 ? "mean"
                               : "none",
                   variant);
          TEST_CASE(name);
          fprintf(stderr, "@%s\n", name);
          makeProblem(&p, rng, 6);
          runAndCheck(ctx, &p, rng, 3);
          freeProblem(&p);
        }
}

/// Empty bags only, and bags of padding only: nothing is touched, nothing
/// changes (tables are compared with their old values).
static void testNothingTouched(embrtContext *ctx, Rng *rng) {
  for (int k = 0; k < 2; ++k) {
    TEST_CASE(k ? "all padding" : "all bags empty");
    Problem p;
    setUpMixed(&p, EMBRT_BF16, EMBRT_POOLING_MEAN,
               EMBRT_OPTIMIZER_ROWWISE_ADAGRAD);
    p.hasPadding = 1;
    makeProblem(&p, rng, 4);
    if (k == 0) {
      for (int64_t g = 0; g <= p.F * p.B; ++g)
        p.offs[g] = 0;
      p.N = 0;
    } else {
      for (int64_t i = 0; i < p.N; ++i)
        p.ids[i] = p.paddingIdx;
    }
    free(p.indices);
    free(p.offsets);
    p.indices = indexTensor(p.indexDtype, p.ids, p.N);
    p.offsets = indexTensor(p.offsetDtype, p.offs, p.F * p.B + 1);
    runAndCheck(ctx, &p, rng, 1);
    freeProblem(&p);
  }
}

/// One row touched by every position (all ids the same), every id distinct,
/// a table of one row, D = 2048.
static void testShapes(embrtContext *ctx, Rng *rng) {
  for (int k = 0; k < 3; ++k) {
    static const char *names[] = {"all ids the same", "every id distinct",
                                  "D = 2048"};
    TEST_CASE(names[k]);
    Problem p;
    memset(&p, 0, sizeof p);
    p.T = 1;
    p.rows[0] = k == 1 ? 4000 : 50;
    p.dims[0] = k == 2 ? 2048 : 4;
    p.F = 1;
    p.B = k == 2 ? 3 : 200;
    p.tableDtype = p.weightDtype = p.gradDtype = EMBRT_F32;
    p.indexDtype = p.offsetDtype = EMBRT_I64;
    p.pooling = EMBRT_POOLING_SUM;
    p.optimizer = kOptimizers[k];
    makeProblem(&p, rng, 8);
    for (int64_t i = 0; i < p.N; ++i)
      p.ids[i] = k == 0 ? 7 : k == 1 ? i : rngInt(rng, 0, 50);
    free(p.indices);
    p.indices = indexTensor(p.indexDtype, p.ids, p.N);
    runAndCheck(ctx, &p, rng, 2);
    freeProblem(&p);
  }
}

/// Bounds-check modes: fatal fails before touching anything; warning counts
/// and updates the rest; ignore and none skip silently.
static void testBoundsModes(embrtContext *ctx, Rng *rng) {
  for (int mode = 0; mode < 4; ++mode) {
    static const char *names[] = {"bounds fatal", "bounds warning",
                                  "bounds ignore", "bounds none"};
    TEST_CASE(names[mode]);
    Problem p;
    setUpMixed(&p, EMBRT_F32, EMBRT_POOLING_SUM, EMBRT_OPTIMIZER_SGD);
    p.boundsCheck = (embrtBoundsCheck)mode;
    makeProblem(&p, rng, 5);
    int64_t bad = 0;
    for (int64_t i = 0; i < p.N; i += 7, ++bad)
      p.ids[i] = (i & 8) ? -3 : 1000;
    free(p.indices);
    p.indices = indexTensor(p.indexDtype, p.ids, p.N);
    embrtContextClearError(ctx);
    if (mode == EMBRT_BOUNDS_FATAL) {
      float before = ((float *)p.tables[0])[0];
      embrtTbeBackwardArgs a = argsOf(&p);
      EXPECT_STATUS(runBackward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                      "tbe_backward: feature 0 bag");
      EXPECT_CONTAINS(embrtContextGetLastError(ctx), "is outside table 0");
      EXPECT_TRUE(((float *)p.tables[0])[0] == before);
    } else {
      runAndCheck(ctx, &p, rng, 1);
      EXPECT_EQ_INT(embrtContextGetInvalidIdCount(ctx),
                    mode == EMBRT_BOUNDS_WARNING ? bad : 0);
      if (mode == EMBRT_BOUNDS_WARNING)
        EXPECT_CONTAINS(embrtContextGetLastError(ctx), "skipped");
    }
    embrtContextClearError(ctx);
    freeProblem(&p);
  }
}

static void testBadOffsets(embrtContext *ctx, Rng *rng) {
  TEST_CASE("decreasing offsets");
  Problem p;
  setUpMixed(&p, EMBRT_F32, EMBRT_POOLING_SUM, EMBRT_OPTIMIZER_SGD);
  p.boundsCheck = EMBRT_BOUNDS_IGNORE;
  makeProblem(&p, rng, 5);
  ((int32_t *)p.offsets)[4] = ((int32_t *)p.offsets)[3] - 1;
  embrtTbeBackwardArgs a = argsOf(&p);
  EXPECT_STATUS(runBackward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "offsets[4] is");
  embrtContextClearError(ctx);
  freeProblem(&p);
}

/// embrtEmbeddingBagBackward and the compiled ABI decode to the same step.
static void testEntryPoints(embrtContext *ctx, Rng *rng) {
  TEST_CASE("embedding_bag_backward");
  Problem p;
  memset(&p, 0, sizeof p);
  p.T = 1;
  p.rows[0] = 40;
  p.dims[0] = 6;
  p.F = 1;
  p.B = 30;
  p.tableDtype = p.weightDtype = p.gradDtype = EMBRT_F16;
  p.indexDtype = p.offsetDtype = EMBRT_I32;
  p.pooling = EMBRT_POOLING_MEAN;
  p.optimizer = EMBRT_OPTIMIZER_ADAM;
  p.hasPadding = 1;
  p.paddingIdx = 0;
  makeProblem(&p, rng, 5);
  p.step = 3;
  {
    Expected e;
    expectStep(&p, &e);
    embrtTbeBackwardArgs t = argsOf(&p);
    embrtEmbeddingBagBackwardArgs a;
    memset(&a, 0, sizeof a);
    a.structSize = sizeof a;
    embrtEmbeddingBagArgs *l = &a.lookup;
    l->structSize = sizeof *l;
    l->mode = p.pooling;
    l->boundsCheck = p.boundsCheck;
    l->weight = p.tables[0];
    l->rows = p.rows[0];
    l->dim = p.dims[0];
    l->weightDtype = p.tableDtype;
    l->batchSize = p.B;
    l->numIndices = p.N;
    l->indices = p.indices;
    l->indexDtype = p.indexDtype;
    l->offsets = p.offsets;
    l->offsetDtype = p.offsetDtype;
    l->paddingIdx = p.paddingIdx;
    l->hasPaddingIdx = 1;
    l->configId = -1;
    a.gradOutput = p.grad;
    a.gradDtype = p.gradDtype;
    a.optimizer = p.optimizer;
    a.momentum1 = p.m1[0];
    a.momentum2 = p.m2[0];
    a.hyperParams = p.hyper;
    a.step = &p.step;
    a.seed = t.seed;
    a.configId = -1;
    size_t bytes = 0;
    EXPECT_STATUS(embrtEmbeddingBagBackwardWorkspaceSize(ctx, &a, &bytes),
                  EMBRT_OK, ctx);
    void *ws = malloc(bytes);
    a.workspace = ws;
    a.workspaceBytes = bytes;
    EXPECT_STATUS(embrtEmbeddingBagBackward(ctx, &a), EMBRT_OK, ctx);
    checkStep(&p, &e);
    freeExpected(&p, &e);

    TEST_CASE("embedding_bag_backward invalid");
    a.momentum2 = NULL;
    EXPECT_STATUS(embrtEmbeddingBagBackward(ctx, &a), EMBRT_INVALID_ARGUMENT,
                  ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                    "embedding_bag_backward: momentum2 is NULL, adam needs");
    a.momentum2 = p.m2[0];
    l->dim = 0;
    EXPECT_STATUS(embrtEmbeddingBagBackward(ctx, &a), EMBRT_INVALID_ARGUMENT,
                  ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                    "embedding_bag_backward: dim is 0");
    l->dim = p.dims[0];
    embrtContextClearError(ctx);
    // Adam counts steps from 1: step 0 is refused before anything changes.
    size_t tableBytes = (size_t)(p.rows[0] * p.dims[0]) * 2;
    void *before = malloc(tableBytes);
    memcpy(before, p.tables[0], tableBytes);
    int64_t step = p.step;
    p.step = 0;
    EXPECT_STATUS(embrtEmbeddingBagBackward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                    "embedding_bag_backward: step is 0, adam counts steps "
                    "from 1");
    EXPECT_TRUE(memcmp(before, p.tables[0], tableBytes) == 0);
    p.step = step;
    free(before);
    free(ws);
    embrtContextClearError(ctx);
  }

  TEST_CASE("compiled tbe_backward");
  free(p.grad);
  p.grad = randomTensor(rng, p.gradDtype, p.gradElements);
  ++p.step;
  p.indexDtype = p.offsetDtype = EMBRT_I64; // the ABI has one index dtype
  free(p.indices);
  free(p.offsets);
  p.indices = indexTensor(p.indexDtype, p.ids, p.N);
  p.offsets = indexTensor(p.offsetDtype, p.offs, p.B + 1);
  Expected e;
  expectStep(&p, &e);
  int64_t attrs[EMB_ABI_TBE_BWD_FEATURE_TABLES + 1];
  attrs[EMB_ABI_TBE_BWD_POOLING] = p.pooling;
  attrs[EMB_ABI_TBE_BWD_BOUNDS_CHECK] = p.boundsCheck;
  attrs[EMB_ABI_TBE_BWD_HAS_PADDING] = 1;
  attrs[EMB_ABI_TBE_BWD_PADDING_IDX] = p.paddingIdx;
  attrs[EMB_ABI_TBE_BWD_TABLE_DTYPE] = p.tableDtype;
  attrs[EMB_ABI_TBE_BWD_INDEX_DTYPE] = p.indexDtype;
  attrs[EMB_ABI_TBE_BWD_PSW_DTYPE] = -1;
  attrs[EMB_ABI_TBE_BWD_GRAD_DTYPE] = p.gradDtype;
  attrs[EMB_ABI_TBE_BWD_OPTIMIZER] = p.optimizer;
  attrs[EMB_ABI_TBE_BWD_SEED] = (int64_t)p.seed;
  attrs[EMB_ABI_TBE_BWD_CONFIG_ID] = -1;
  attrs[EMB_ABI_TBE_BWD_MOMENTUM1_PRECISION] = EMBRT_STATE_F32;
  attrs[EMB_ABI_TBE_BWD_MOMENTUM2_PRECISION] = EMBRT_STATE_F32;
  attrs[EMB_ABI_TBE_BWD_NUM_TABLES] = 1;
  attrs[EMB_ABI_TBE_BWD_NUM_FEATURES] = 1;
  attrs[EMB_ABI_TBE_BWD_IS_BAG] = 1;
  attrs[EMB_ABI_TBE_BWD_FEATURE_TABLES] = 0;
  void *buffers[EMB_ABI_TBE_BWD_BUF_TABLES + 5];
  buffers[EMB_ABI_TBE_BWD_BUF_INDICES] = p.indices;
  buffers[EMB_ABI_TBE_BWD_BUF_OFFSETS] = p.offsets;
  buffers[EMB_ABI_TBE_BWD_BUF_PSW] = NULL;
  buffers[EMB_ABI_TBE_BWD_BUF_GRAD] = p.grad;
  buffers[EMB_ABI_TBE_BWD_BUF_HYPER] = p.hyper;
  buffers[EMB_ABI_TBE_BWD_BUF_STEP] = &p.step;
  buffers[EMB_ABI_TBE_BWD_BUF_WORKSPACE] = NULL;
  buffers[EMB_ABI_TBE_BWD_BUF_TABLES] = p.tables[0];
  buffers[EMB_ABI_TBE_BWD_BUF_TABLES + 1] = p.m1[0];
  buffers[EMB_ABI_TBE_BWD_BUF_TABLES + 2] = p.m2[0];
  buffers[EMB_ABI_TBE_BWD_BUF_TABLES + 3] = NULL; // f32 states: no scales
  buffers[EMB_ABI_TBE_BWD_BUF_TABLES + 4] = NULL;
  // One table: its rows and width, then m's and v's rows and columns, then
  // no scales' entries.
  int64_t dims[EMB_ABI_TBE_BWD_DIM_TABLES + 8];
  dims[EMB_ABI_TBE_BWD_DIM_INDICES] = p.N;
  dims[EMB_ABI_TBE_BWD_DIM_BATCH] = p.B;
  dims[EMB_ABI_TBE_BWD_DIM_WORKSPACE] = 0;
  dims[EMB_ABI_TBE_BWD_DIM_OFFSETS] = p.B + 1;
  dims[EMB_ABI_TBE_BWD_DIM_PSW] = 0;
  dims[EMB_ABI_TBE_BWD_DIM_GRAD_ROWS] = p.B;
  dims[EMB_ABI_TBE_BWD_DIM_GRAD_COLS] = p.dims[0];
  dims[EMB_ABI_TBE_BWD_DIM_TABLES] = p.rows[0];
  dims[EMB_ABI_TBE_BWD_DIM_TABLES + 1] = p.dims[0];
  for (int s = 0; s < 2; ++s) {
    dims[EMB_ABI_TBE_BWD_DIM_TABLES + 2 + 2 * s] = p.rows[0];
    dims[EMB_ABI_TBE_BWD_DIM_TABLES + 3 + 2 * s] = p.dims[0];
    dims[EMB_ABI_TBE_BWD_DIM_TABLES + 6 + s] = 0;
  }
  int64_t bytes = embrtCompiledTbeBackwardWorkspace(ctx, attrs, buffers, dims);
  EXPECT_TRUE(bytes > 0);
  void *ws = malloc((size_t)bytes);
  buffers[EMB_ABI_TBE_BWD_BUF_WORKSPACE] = ws;
  dims[EMB_ABI_TBE_BWD_DIM_WORKSPACE] = bytes;
  embrtContextClearError(ctx);
  embrtCompiledTbeBackward(ctx, attrs, buffers, dims);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OK);
  checkStep(&p, &e);
  freeExpected(&p, &e);

  // Extents that disagree with the sizes the call uses (dims a compiled
  // model read from `?` dims at run time): a named error, and nothing is
  // updated. Each case changes one extent of the good call.
  static const struct {
    const char *label;
    int index;
    int64_t delta;
    const char *message;
  } extentCases[] = {
      {"short grad_output", EMB_ABI_TBE_BWD_DIM_GRAD_ROWS, -1,
       "emb.embedding_bag_backward: grad_output has 29 rows but offsets has "
       "31 entries, for 30 rows (bags)"},
      {"narrow grad_output", EMB_ABI_TBE_BWD_DIM_GRAD_COLS, -2,
       "emb.embedding_bag_backward: grad_output has 4 columns but weight has "
       "6"},
      {"long offsets", EMB_ABI_TBE_BWD_DIM_OFFSETS, 1,
       "emb.embedding_bag_backward: offsets has 32 entries but grad_output "
       "has 30 rows (bags), which need 31"},
      {"short momentum1", EMB_ABI_TBE_BWD_DIM_TABLES + 2, -1,
       "emb.embedding_bag_backward: momentum1 has 39 rows but weight has 40"},
      {"narrow momentum2", EMB_ABI_TBE_BWD_DIM_TABLES + 5, -3,
       "emb.embedding_bag_backward: momentum2 has 3 columns but weight has 6"},
  };
  size_t tableBytes = (size_t)(p.rows[0] * p.dims[0]) * 2;
  void *before = malloc(tableBytes);
  memcpy(before, p.tables[0], tableBytes);
  for (size_t c = 0; c < sizeof extentCases / sizeof extentCases[0]; ++c) {
    TEST_CASE(extentCases[c].label);
    int64_t saved = dims[extentCases[c].index];
    dims[extentCases[c].index] += extentCases[c].delta;
    embrtContextClearError(ctx);
    embrtCompiledTbeBackward(ctx, attrs, buffers, dims);
    EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), extentCases[c].message);
    EXPECT_TRUE(memcmp(before, p.tables[0], tableBytes) == 0);
    dims[extentCases[c].index] = saved;
  }

  // A data error of the compiled bag names embedding_bag_backward.
  TEST_CASE("compiled bag's data error");
  ((int64_t *)p.offsets)[0] = 1;
  embrtContextClearError(ctx);
  embrtCompiledTbeBackward(ctx, attrs, buffers, dims);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "embedding_bag_backward: offsets[0] is 1, must be 0");
  ((int64_t *)p.offsets)[0] = 0;
  embrtContextClearError(ctx);
  free(before);
  free(ws);
  freeProblem(&p);
}

/// Adam counts steps from 1 (as PyTorch's): at step 0 its bias correction
/// 1 - beta^0 is 0 and every touched row would become NaN. A step below 1
/// is a named EMBRT_OUT_OF_RANGE and nothing changes; the other optimizers
/// read the step only for the rounding's seed and take any.
static void testAdamStep(embrtContext *ctx, Rng *rng) {
  const int64_t steps[] = {0, -1, INT64_MIN};
  const char *messages[] = {
      "tbe_backward: step is 0, adam counts steps from 1",
      "tbe_backward: step is -1, adam counts steps from 1",
      "tbe_backward: step is -9223372036854775808, adam counts steps from 1"};
  for (int d = 0; d < 2; ++d) {
    TEST_CASE(d ? "adam step below 1, bf16" : "adam step below 1, f32");
    Problem p;
    setUpMixed(&p, d ? EMBRT_BF16 : EMBRT_F32, EMBRT_POOLING_SUM,
               EMBRT_OPTIMIZER_ADAM);
    makeProblem(&p, rng, 4);
    void *before[3][MAX_TABLES];
    size_t bytes[3][MAX_TABLES];
    for (int64_t t = 0; t < p.T; ++t) {
      void *now[3] = {p.tables[t], p.m1[t], p.m2[t]};
      size_t n = (size_t)(p.rows[t] * p.dims[t]);
      bytes[0][t] = n * embrtDtypeSize(p.tableDtype);
      bytes[1][t] = bytes[2][t] = n * 4;
      for (int k = 0; k < 3; ++k) {
        before[k][t] = malloc(bytes[k][t]);
        memcpy(before[k][t], now[k], bytes[k][t]);
      }
    }
    for (int s = 0; s < 3; ++s) {
      p.step = steps[s];
      embrtTbeBackwardArgs a = argsOf(&p);
      EXPECT_STATUS(runBackward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx), messages[s]);
      embrtContextClearError(ctx);
    }
    for (int64_t t = 0; t < p.T; ++t) {
      void *now[3] = {p.tables[t], p.m1[t], p.m2[t]};
      for (int k = 0; k < 3; ++k) {
        EXPECT_TRUE(memcmp(before[k][t], now[k], bytes[k][t]) == 0);
        free(before[k][t]);
      }
    }
    freeProblem(&p);
  }

  TEST_CASE("sgd and rowwise adagrad at step 0");
  for (int o = 0; o < 2; ++o) {
    Problem p;
    setUpMixed(&p, EMBRT_F16, EMBRT_POOLING_MEAN, kOptimizers[o]);
    makeProblem(&p, rng, 4);
    p.step = 0;
    runAndCheck(ctx, &p, rng, 1);
    freeProblem(&p);
  }
}

/// The gradient's rows a row stride apart (the lookup's columns of a wider
/// tensor, as a concatenation's gradient arrives): the step equals the
/// dense one, and the elements between rows (NaN here) are never read.
static void testGradRowStride(embrtContext *ctx, Rng *rng) {
  for (int pool = 0; pool < 3; ++pool) {
    static const char *names[] = {"strided gradient, sum",
                                  "strided gradient, mean",
                                  "strided gradient, none"};
    TEST_CASE(names[pool]);
    Problem p;
    setUpMixed(&p, pool == 1 ? EMBRT_BF16 : EMBRT_F32, (embrtPooling)pool,
               pool == 2 ? EMBRT_OPTIMIZER_ADAM
                         : EMBRT_OPTIMIZER_ROWWISE_ADAGRAD);
    p.hasWeights = pool == EMBRT_POOLING_SUM;
    p.gradDtype = EMBRT_F32;
    p.weightDtype = EMBRT_F32;
    makeProblem(&p, rng, 6);
    Expected e;
    expectStep(&p, &e);
    int64_t width = p.pooling == EMBRT_POOLING_NONE ? p.dims[0] : sumDims(&p);
    int64_t rows = p.gradElements / width, pitch = width + 5;
    float *strided = malloc((size_t)(rows * pitch) * sizeof *strided);
    memset(strided, 0xff, (size_t)(rows * pitch) * sizeof *strided);
    for (int64_t r = 0; r < rows; ++r)
      memcpy(strided + r * pitch, (const float *)p.grad + r * width,
             (size_t)width * sizeof *strided);
    embrtTbeBackwardArgs a = argsOf(&p);
    a.gradOutput = strided;
    a.gradRowStride = pitch;
    EXPECT_STATUS(runBackward(ctx, &a), EMBRT_OK, ctx);
    checkStep(&p, &e);
    freeExpected(&p, &e);
    free(strided);
    freeProblem(&p);
  }
}

static void testInvalidArguments(embrtContext *ctx, Rng *rng) {
  Problem p;
  setUpMixed(&p, EMBRT_F16, EMBRT_POOLING_SUM, EMBRT_OPTIMIZER_ROWWISE_ADAGRAD);
  makeProblem(&p, rng, 3);
  embrtTbeBackwardArgs good = argsOf(&p), a;
  size_t bytes = 0;
  EXPECT_STATUS(embrtTbeBackwardWorkspaceSize(ctx, &good, &bytes), EMBRT_OK,
                ctx);
  void *ws = malloc(bytes);
  good.workspace = ws;
  good.workspaceBytes = bytes;

  TEST_CASE("null args");
  EXPECT_STATUS(embrtTbeBackward(ctx, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "tbe_backward: args is NULL");
  EXPECT_STATUS(embrtTbeBackward(NULL, &good), EMBRT_INVALID_ARGUMENT, ctx);

#define CASE(label, text, body)                                                \
  do {                                                                         \
    TEST_CASE(label);                                                          \
    a = good;                                                                  \
    body;                                                                      \
    EXPECT_STATUS(embrtTbeBackward(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);     \
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), text);                      \
  } while (0)
  CASE("bad struct size", "tbe_backward: structSize",
       a.structSize = sizeof a - 8);
  CASE("bad lookup struct size", "tbe_backward: structSize",
       a.lookup.structSize = 3);
  CASE("masked offsets",
       "tbe_backward: lookup.maskedOffsets must be 0 (masked offsets are the "
       "forward's)",
       a.lookup.maskedOffsets = 1);
  CASE("momentum1 NULL",
       "tbe_backward: momentum1 is NULL, rowwise_adagrad needs one f32 state "
       "per row",
       a.momentum1 = NULL);
  void *someNull[MAX_TABLES] = {p.m1[0], NULL, p.m1[2], p.m1[3]};
  CASE("momentum1 entry NULL",
       "tbe_backward: momentum1[1] is NULL, rowwise_adagrad needs one f32 "
       "state per row",
       a.momentum1 = someNull);
  void *misaligned[MAX_TABLES] = {p.m1[0], p.m1[1], (char *)p.m1[2] + 2,
                                  p.m1[3]};
  CASE("momentum1 misaligned", "tbe_backward: momentum1[2] is not 4-byte",
       a.momentum1 = misaligned);
  CASE("adam without momentum2",
       "tbe_backward: momentum2 is NULL, adam needs f32 second moments",
       a.optimizer = EMBRT_OPTIMIZER_ADAM);
  CASE("adam without step", "tbe_backward: step is NULL, adam needs the step",
       (a.optimizer = EMBRT_OPTIMIZER_ADAM, a.momentum2 = p.m1, a.step = NULL));
  CASE("misaligned step", "tbe_backward: step is not 8-byte aligned",
       a.step = (const int64_t *)((char *)&p.step + 4));
  CASE("hyperParams NULL",
       "tbe_backward: hyperParams is NULL, rowwise_adagrad reads 5 f32",
       a.hyperParams = NULL);
  CASE("hyperParams misaligned",
       "tbe_backward: hyperParams is not 4-byte aligned",
       a.hyperParams = (const float *)((char *)p.hyper + 1));
  CASE("bad optimizer", "tbe_backward: optimizer is 7, not an embrtOptimizer",
       a.optimizer = (embrtOptimizer)7);
  CASE("bad grad dtype", "tbe_backward: gradDtype is bf16, must be f32 or f16",
       a.gradDtype = EMBRT_BF16);
  CASE("null grad", "tbe_backward: gradOutput is NULL", a.gradOutput = NULL);
  CASE("short grad row stride",
       "tbe_backward: gradRowStride is 3, must be 0 (dense rows) or at least "
       "a row's 39 elements",
       a.gradRowStride = 3);
  CASE("negative grad row stride",
       "tbe_backward: gradRowStride is -39, must be 0 (dense rows) or at "
       "least a row's 39 elements",
       a.gradRowStride = -39);
  CASE("bad configId", "tbe_backward: configId is 99, must be -1 or below",
       a.configId = 99);
  CASE("bad pooling", "tbe_backward: pooling is 9",
       a.lookup.pooling = (embrtPooling)9);
  CASE("bad table dtype",
       "tbe_backward: tableDtype is i32, must be f32, f16 or bf16",
       a.lookup.tableDtype = EMBRT_I32);
  CASE("null indices", "tbe_backward: indices is NULL",
       a.lookup.indices = NULL);
  CASE("weights with mean", "tbe_backward: perSampleWeights need pooling SUM",
       (a.lookup.perSampleWeights = p.grad,
        a.lookup.pooling = EMBRT_POOLING_MEAN));
  CASE("null workspace", "tbe_backward: workspace is NULL", a.workspace = NULL);
  CASE("short workspace", "tbe_backward: workspace has",
       a.workspaceBytes = bytes - 1);
#undef CASE

  TEST_CASE("sgd needs no state, rowwise adagrad no step");
  a = good;
  a.optimizer = EMBRT_OPTIMIZER_SGD;
  a.momentum1 = NULL;
  a.step = NULL;
  EXPECT_STATUS(embrtTbeBackward(ctx, &a), EMBRT_OK, ctx);
  a = good;
  a.step = NULL;
  EXPECT_STATUS(embrtTbeBackward(ctx, &a), EMBRT_OK, ctx);
  embrtContextClearError(ctx);
  free(ws);
  freeProblem(&p);
}

/// The stochastic rounding itself: unbiased on average, never further than
/// one ulp, exact values kept, NaN and infinity kept.
static void testStochasticRounding(Rng *rng) {
  TEST_CASE("stochastic rounding");
  for (int k = 0; k < 2; ++k) {
    for (int trial = 0; trial < 20; ++trial) {
      double x = rngValue(rng) * ldexp(1.0, (int)rngInt(rng, -20, 10));
      if (k == 0 && trial == 19)
        x = 3e-6; // an f16 subnormal
      float xf = (float)x;
      double sum = 0;
      int n = 4000;
      for (int i = 0; i < n; ++i) {
        uint32_t r = (uint32_t)rngNext(rng);
        double got = k ? refBF16ToDouble(embSrToBF16(xf, r))
                       : refF16ToDouble(embSrToF16(xf, r));
        double ulp = ulpOf(k ? EMBRT_BF16 : EMBRT_F16, xf);
        if (fabs(got - xf) > ulp * 1.0001) {
          HARNESS_FAIL("%s of %g gave %g, more than an ulp away",
                       k ? "bf16" : "f16", (double)xf, got);
          break;
        }
        sum += got;
      }
      double ulp = ulpOf(k ? EMBRT_BF16 : EMBRT_F16, xf);
      if (fabs(sum / n - xf) > 0.05 * ulp)
        HARNESS_FAIL("%s of %g averages %g: biased", k ? "bf16" : "f16",
                     (double)xf, sum / n);
    }
  }
  EXPECT_TRUE(embSrToF16(1.5f, 0xffffffffu) == embrtF32ToF16(1.5f));
  EXPECT_TRUE(embSrToBF16(1.5f, 0xffffffffu) == embrtF32ToBF16(1.5f));
  EXPECT_TRUE(isnan(refF16ToDouble(embSrToF16(NAN, 123))));
  EXPECT_TRUE(isnan(refBF16ToDouble(embSrToBF16(NAN, 123))));
  EXPECT_TRUE(isinf(refF16ToDouble(embSrToF16(INFINITY, 0xffffffffu))));
  EXPECT_TRUE(refF16ToDouble(embSrToF16(1e6f, 0)) == 65504.0);
  EXPECT_TRUE(refF16ToDouble(embSrToF16(-1e-9f, 0)) == 0.0);
  EXPECT_TRUE(refF16ToDouble(embSrToF16(-1e-9f, 0xffffffffu)) == -0x1p-24);
}

static int compareU32(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/// The random streams the rounding draws from (embSrStepSeed, embSrRowSeed,
/// embSrColumnBits): distinct rows of a table get distinct row streams, and
/// one value rounded to bf16 across the rows of a table, the columns of a
/// row, the tables and the steps averages to itself (a stream that repeated
/// itself along any of them would round them all alike: a bias of 0.3 or
/// 0.7 ulp).
static void testRowStreams(void) {
  TEST_CASE("row streams");
  // A bijection on the rows below 2^32: no two of 2^16 rows (spread over
  // the range) share a stream.
  enum { kRows = 1 << 16 };
  uint32_t *seen = malloc(kRows * sizeof(uint32_t));
  const uint32_t step = embSrStepSeed(7, 3);
  for (int64_t i = 0; i < kRows; ++i)
    seen[i] = embSrRowSeed(step, 5, i * 65521);
  qsort(seen, kRows, sizeof(uint32_t), compareU32);
  int repeats = 0;
  for (int64_t i = 1; i < kRows; ++i)
    repeats += seen[i] == seen[i - 1];
  EXPECT_TRUE(repeats == 0);
  free(seen);
  EXPECT_TRUE(embSrStepSeed(7, 3) != embSrStepSeed(7, 4));
  EXPECT_TRUE(embSrStepSeed(7, 3) != embSrStepSeed(8, 3));
  EXPECT_TRUE(embSrRowSeed(step, 0, 0) != embSrRowSeed(step, 1, 0));
  EXPECT_TRUE(embSrRowSeed(step, 0, 1) !=
              embSrRowSeed(step, 0, 1 + (1ll << 32)));
  // x = 1 + 0.3 bf16 ulp rounds up with probability 0.3.
  const float x = 1.0f + 0.3f * 0x1p-7f;
  const double want = (double)x;
  static const char *const kOver[4] = {"rows", "columns", "tables", "steps"};
  double sums[4] = {0, 0, 0, 0};
  const int n = 1 << 14;
  for (int i = 0; i < n; ++i) {
    const uint32_t bits[4] = {
        embSrColumnBits(embSrRowSeed(step, 2, i), 0),
        embSrColumnBits(embSrRowSeed(step, 2, 9), (uint32_t)i),
        embSrColumnBits(embSrRowSeed(step, i, 9), 0),
        embSrColumnBits(embSrRowSeed(embSrStepSeed(7, i), 2, 9), 0)};
    for (int k = 0; k < 4; ++k)
      sums[k] += refBF16ToDouble(embSrToBF16(x, bits[k]));
  }
  for (int k = 0; k < 4; ++k)
    if (fabs(sums[k] / n - want) > 0.03 * 0x1p-7)
      HARNESS_FAIL("bf16 of %.9g over the %s averages %.9g: biased", want,
                   kOver[k], sums[k] / n);
}

int main(void) {
  embrtContext *ctx = newCpuContext();
  Rng rng = rngSeed(14);
  testCombinations(ctx, &rng);
  testNothingTouched(ctx, &rng);
  testShapes(ctx, &rng);
  testBoundsModes(ctx, &rng);
  testBadOffsets(ctx, &rng);
  testEntryPoints(ctx, &rng);
  testGradRowStride(ctx, &rng);
  testInvalidArguments(ctx, &rng);
  testAdamStep(ctx, &rng);
  testStochasticRounding(&rng);
  testRowStreams();
  embrtContextDestroy(ctx);
  return harnessFinish();
}
