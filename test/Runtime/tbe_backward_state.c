// RUN: %runtime_test_dir/tbe_backward_state
//
// Optimizer states stored at a precision below f32 (embrtStatePrecision) in
// embrtTbeBackward and embrtEmbeddingBagBackward on the CPU.
//
// The codecs first: every fp8 code decodes to the value its fields say
// (computed here with ldexp); stochastic rounding to fp8 is unbiased,
// never more than one fp8 ulp away, keeps exact values, saturates at the
// format's largest value and keeps NaN.
//
// Then the step: the oracle is the same step with f32 states holding the
// values the stored states decode to. The tables must be bit for bit those
// of the f32 run (the update runs in f32/f64 on the decoded values, as the
// f32 run does); every touched row's state must be the f32 run's new state
// rounded stochastically with the documented stream (seed, step, table,
// row, column), and for Adam's fp8 rows under the scale the row's largest
// magnitude gives; untouched rows and their scales must not change. Every
// optimizer x precision, for both Adam moments independently, with states
// and scales drawn at random (never zero).
//
// Then the named errors: unknown precisions, a precision for a state the
// optimizer does not have, NULL scales (the array and an entry), a
// misaligned bf16 state, and rowwise Adagrad's table scale not positive.

#include "harness.h"
#include "state_harness.h"

#include "kernels/stochastic_rounding.h"

#define T 2
#define F 3

static const embrtStatePrecision kPrecisions[] = {
    EMBRT_STATE_F32, EMBRT_STATE_BF16, EMBRT_STATE_FP8_E4M3,
    EMBRT_STATE_FP8_E5M2};

//===----------------------------------------------------------------------===//
// Codecs
//===----------------------------------------------------------------------===//

/// An fp8 code's value from its fields, with ldexp (NaN for NaN codes).
static double fp8Value(unsigned code, int e5m2) {
  int M = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  int e = (int)((code & 0x7fu) >> M), m = (int)(code & ((1u << M) - 1));
  double sign = code & 0x80u ? -1.0 : 1.0;
  if (e5m2 && e == 31)
    return m ? NAN : sign * INFINITY;
  if (!e5m2 && e == 15 && m == 7)
    return NAN;
  if (e == 0)
    return sign * ldexp((double)m, 1 - bias - M);
  return sign * ldexp(1.0 + (double)m / (1 << M), e - bias);
}

static void testCodecs(Rng *rng) {
  TEST_CASE("fp8 decode");
  for (int k = 0; k < 2; ++k)
    for (unsigned code = 0; code < 256; ++code) {
      double want = fp8Value(code, k), got = embFp8ToF32((uint8_t)code, k);
      if (!(got == want || (isnan(got) && isnan(want))))
        HARNESS_FAIL("%s code 0x%02x decodes to %g, expected %g",
                     k ? "e5m2" : "e4m3", code, got, want);
    }

  TEST_CASE("fp8 stochastic rounding");
  for (int k = 0; k < 2; ++k) {
    double fmax = k ? 57344.0 : 448.0;
    for (int trial = 0; trial < 40; ++trial) {
      double x = rngValue(rng) * ldexp(1.0, (int)rngInt(rng, -18, 9));
      if (trial == 39)
        x = k ? 3e-6 : 5e-4; // subnormal
      if (fabs(x) >= fmax)
        continue;
      float xf = (float)x;
      double ulp = stateFormatStep(
                 k ? EMBRT_STATE_FP8_E5M2 : EMBRT_STATE_FP8_E4M3, xf),
             sum = 0;
      int n = 4000;
      for (int i = 0; i < n; ++i) {
        double got = embFp8ToF32(embSrToFp8(xf, (uint32_t)rngNext(rng), k), k);
        if (fabs(got - xf) > ulp * 1.0001 ||
            (got != 0 && (got < 0) != (xf < 0))) {
          HARNESS_FAIL("%s of %g gave %g, more than an ulp away",
                       k ? "e5m2" : "e4m3", (double)xf, got);
          break;
        }
        sum += got;
      }
      if (fabs(sum / n - xf) > 0.05 * ulp)
        HARNESS_FAIL("%s of %g averages %g: biased", k ? "e5m2" : "e4m3",
                     (double)xf, sum / n);
    }
    // Exact values stay, whatever the bits; the largest saturates.
    EXPECT_TRUE(embFp8ToF32(embSrToFp8(1.5f, 0xffffffffu, k), k) == 1.5f);
    EXPECT_TRUE(embFp8ToF32(embSrToFp8(-0.25f, 0xffffffffu, k), k) == -0.25f);
    EXPECT_TRUE(embFp8ToF32(embSrToFp8(1e9f, 0, k), k) == (float)fmax);
    EXPECT_TRUE(embFp8ToF32(embSrToFp8(-INFINITY, 0, k), k) == -(float)fmax);
    EXPECT_TRUE(embFp8ToF32(embSrToFp8((float)fmax * 0.999f, 0xffffu, k), k) ==
                (float)fmax);
    EXPECT_TRUE(isnan(embFp8ToF32(embSrToFp8(NAN, 7, k), k)));
    EXPECT_TRUE(embSrToFp8(0.0f, 0xffffu, k) == 0);
  }

  TEST_CASE("state codec");
  EXPECT_TRUE(embStateDecode(1, embStateEncode(1, 3.0f, 1.0f, 0), 1.0f) ==
              3.0f);
  EXPECT_TRUE(embStateDecode(2, embStateEncode(2, 0.75f, 0.25f, 0), 0.25f) ==
              0.75f);
  EXPECT_TRUE(embStateRowScale(2, 448.0f) == 1.0f);
  EXPECT_TRUE(embStateRowScale(3, 0.0f) == 1.0f);
  EXPECT_TRUE(embStateRowScale(3, NAN) == 1.0f);
  EXPECT_TRUE(embStateRowScale(3, 57344.0f * 4) == 4.0f);
}

//===----------------------------------------------------------------------===//
// One step against the f32 run
//===----------------------------------------------------------------------===//

/// A lookup of F features over T f32 tables (feature 2 shares table 0),
/// sum pooling, with its states at some precision.
typedef struct Problem {
  int64_t rows[T], dims[T], featureTables[F], B, N;
  float *tables[T];
  int64_t *ids, *offs;
  float *grad;
  float hyper[EMBRT_NUM_HYPER_PARAMS];
  int64_t step;
  uint64_t seed;
  embrtOptimizer optimizer;
  embrtStatePrecision precision[2];
  void *state[2][T];   ///< at precision[k]
  float *scales[2][T]; ///< fp8: [rows] (Adam) or [1] (rowwise Adagrad)
} Problem;

static int64_t stateElems(const Problem *p, int64_t t) {
  return p->optimizer == EMBRT_OPTIMIZER_ADAM ? p->rows[t] * p->dims[t]
                                              : p->rows[t];
}

/// A random state element at `precision` (non-negative when `positive`;
/// fp8 codes never NaN or infinite).
static uint32_t randomCode(Rng *rng, embrtStatePrecision precision,
                           int positive) {
  double x = rngUniform(rng, positive ? 0.05 : -1.0, 1.0);
  if (x > -0.05 && x < 0.05)
    x = 0.5;
  switch (precision) {
  case EMBRT_STATE_BF16:
    return embSrToBF16((float)x, (uint32_t)rngNext(rng));
  case EMBRT_STATE_FP8_E4M3:
  case EMBRT_STATE_FP8_E5M2: {
    unsigned code;
    do {
      code = (unsigned)rngInt(rng, 1, 256);
      if (positive)
        code &= 0x7fu;
    } while (
        isnan(embFp8ToF32((uint8_t)code, precision == EMBRT_STATE_FP8_E5M2)) ||
        isinf(embFp8ToF32((uint8_t)code, precision == EMBRT_STATE_FP8_E5M2)) ||
        code == 0 || code == 0x80);
    return code;
  }
  default:
    return embSrFloatBits((float)x);
  }
}

static void makeProblem(Problem *p, Rng *rng, embrtOptimizer optimizer,
                        embrtStatePrecision p1, embrtStatePrecision p2) {
  memset(p, 0, sizeof *p);
  p->optimizer = optimizer;
  p->precision[0] = p1;
  p->precision[1] = p2;
  p->rows[0] = 40;
  p->dims[0] = 8;
  p->rows[1] = 25;
  p->dims[1] = 13;
  p->featureTables[0] = 0;
  p->featureTables[1] = 1;
  p->featureTables[2] = 0;
  p->B = 12;
  int states = optimizer == EMBRT_OPTIMIZER_ADAM ? 2 : 1;
  for (int64_t t = 0; t < T; ++t) {
    p->tables[t] = randomTensor(rng, EMBRT_F32, p->rows[t] * p->dims[t]);
    for (int k = 0; k < states; ++k) {
      int64_t n = stateElems(p, t);
      p->state[k][t] =
          malloc((size_t)n * (size_t)embrtStatePrecisionBytes(p->precision[k]));
      // v and the Adagrad sum are non-negative.
      int positive = k == 1 || optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD;
      for (int64_t i = 0; i < n; ++i)
        stateStoreBits(p->state[k][t], p->precision[k], i,
                       randomCode(rng, p->precision[k], positive));
      if (stateIsFp8(p->precision[k])) {
        int64_t ns = optimizer == EMBRT_OPTIMIZER_ADAM ? p->rows[t] : 1;
        p->scales[k][t] = malloc((size_t)ns * 4);
        for (int64_t r = 0; r < ns; ++r)
          // Adagrad's states reach about 10 here: e4m3 holds 448 scales.
          p->scales[k][t][r] = optimizer == EMBRT_OPTIMIZER_ADAM
                                   ? (float)rngUniform(rng, 1e-3, 1e-2)
                                   : (float)rngUniform(rng, 0.05, 0.1);
      }
    }
  }
  int64_t numBags = F * p->B;
  p->offs = malloc((size_t)(numBags + 1) * sizeof(int64_t));
  p->offs[0] = 0;
  for (int64_t b = 0; b < numBags; ++b)
    p->offs[b + 1] = p->offs[b] + rngInt(rng, 0, 4);
  p->N = p->offs[numBags];
  p->ids = malloc((size_t)(p->N + 1) * sizeof(int64_t));
  for (int64_t f = 0; f < F; ++f)
    for (int64_t i = p->offs[f * p->B]; i < p->offs[(f + 1) * p->B]; ++i)
      p->ids[i] = rngInt(rng, 0, p->rows[p->featureTables[f]]);
  p->grad = randomTensor(rng, EMBRT_F32, p->B * (p->dims[0] * 2 + p->dims[1]));
  p->hyper[EMBRT_HYPER_LEARNING_RATE] = 0.05f;
  p->hyper[EMBRT_HYPER_EPS] = 1e-3f;
  p->hyper[EMBRT_HYPER_BETA1] = 0.9f;
  p->hyper[EMBRT_HYPER_BETA2] = 0.99f;
  p->hyper[EMBRT_HYPER_WEIGHT_DECAY] = 0.01f;
  p->step = 3;
  p->seed = rngNext(rng);
}

static void freeProblem(Problem *p) {
  for (int64_t t = 0; t < T; ++t) {
    free(p->tables[t]);
    for (int k = 0; k < 2; ++k) {
      free(p->state[k][t]);
      free(p->scales[k][t]);
    }
  }
  free(p->ids);
  free(p->offs);
  free(p->grad);
}

/// The f32 copy of `p`: its states decoded, the same everything else.
static void decodedCopy(const Problem *p, Problem *q) {
  *q = *p;
  for (int64_t t = 0; t < T; ++t) {
    int64_t n = p->rows[t] * p->dims[t];
    q->tables[t] = malloc((size_t)n * 4);
    memcpy(q->tables[t], p->tables[t], (size_t)n * 4);
    for (int k = 0; k < 2; ++k) {
      q->scales[k][t] = NULL;
      q->state[k][t] = NULL;
      q->precision[k] = EMBRT_STATE_F32;
      if (!p->state[k][t])
        continue;
      int64_t ns = stateElems(p, t);
      float *s = malloc((size_t)ns * 4);
      int64_t D = p->optimizer == EMBRT_OPTIMIZER_ADAM ? p->dims[t] : 1;
      for (int64_t i = 0; i < ns; ++i) {
        float scale = 1.0f;
        if (stateIsFp8(p->precision[k]))
          scale =
              p->scales[k][t][p->optimizer == EMBRT_OPTIMIZER_ADAM ? i / D : 0];
        s[i] = embStateDecode((int)p->precision[k],
                              stateLoadBits(p->state[k][t], p->precision[k], i),
                              scale);
      }
      q->state[k][t] = s;
    }
  }
  q->ids = NULL; // shared with p
  q->offs = NULL;
  q->grad = NULL;
}

static embrtTbeBackwardArgs argsOf(Problem *p, void **m1, void **m2, void **s1,
                                   void **s2) {
  embrtTbeBackwardArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  embrtTbeArgs *l = &a.lookup;
  l->structSize = sizeof *l;
  l->pooling = EMBRT_POOLING_SUM;
  l->boundsCheck = EMBRT_BOUNDS_FATAL;
  l->numTables = T;
  l->tables = (const void *const *)p->tables;
  l->tableRows = p->rows;
  l->tableDims = p->dims;
  l->tableDtype = EMBRT_F32;
  l->numFeatures = F;
  l->featureTables = p->featureTables;
  l->batchSize = p->B;
  l->numIndices = p->N;
  l->indices = p->ids;
  l->indexDtype = EMBRT_I64;
  l->offsets = p->offs;
  l->offsetDtype = EMBRT_I64;
  l->configId = -1;
  a.gradOutput = p->grad;
  a.gradDtype = EMBRT_F32;
  a.optimizer = p->optimizer;
  for (int64_t t = 0; t < T; ++t) {
    m1[t] = p->state[0][t];
    m2[t] = p->state[1][t];
    s1[t] = p->scales[0][t];
    s2[t] = p->scales[1][t];
  }
  a.momentum1 = p->optimizer == EMBRT_OPTIMIZER_SGD ? NULL : m1;
  a.momentum2 = p->optimizer == EMBRT_OPTIMIZER_ADAM ? m2 : NULL;
  a.momentum1Precision = p->precision[0];
  a.momentum2Precision = p->precision[1];
  a.momentum1Scales = stateIsFp8(p->precision[0]) ? s1 : NULL;
  a.momentum2Scales = stateIsFp8(p->precision[1]) ? s2 : NULL;
  a.hyperParams = p->hyper;
  a.step = &p->step;
  a.seed = p->seed;
  a.configId = -1;
  return a;
}

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
  return status;
}

static embrtStatus runProblem(embrtContext *ctx, Problem *p) {
  void *m1[T], *m2[T], *s1[T], *s2[T];
  embrtTbeBackwardArgs a = argsOf(p, m1, m2, s1, s2);
  return runBackward(ctx, &a);
}

/// Checks `p` (run at its precisions, from states `before`) against `q`
/// (the f32 run from the decoded states).
static void checkAgainstF32(const Problem *p, const Problem *before,
                            const Problem *q) {
  int bad = 0;
  char touched[T][64];
  memset(touched, 0, sizeof touched);
  for (int64_t f = 0; f < F; ++f)
    for (int64_t i = p->offs[f * p->B]; i < p->offs[(f + 1) * p->B]; ++i)
      touched[p->featureTables[f]][p->ids[i]] = 1;
  int states = p->optimizer == EMBRT_OPTIMIZER_ADAM ? 2 : 1;
  for (int64_t t = 0; t < T && bad < 8; ++t) {
    int64_t D = p->dims[t];
    if (memcmp(p->tables[t], q->tables[t], (size_t)(p->rows[t] * D) * 4)) {
      HARNESS_FAIL("table %lld differs from the f32-state run", (long long)t);
      ++bad;
    }
    for (int k = 0; k < states; ++k) {
      embrtStatePrecision prec = p->precision[k];
      int64_t width = p->optimizer == EMBRT_OPTIMIZER_ADAM ? D : 1;
      for (int64_t r = 0; r < p->rows[t] && bad < 8; ++r) {
        const float *want = (const float *)q->state[k][t] + r * width;
        float scale = 1.0f;
        if (stateIsFp8(prec)) {
          if (p->optimizer == EMBRT_OPTIMIZER_ADAM) {
            float amax = 0.0f;
            for (int64_t d = 0; d < width; ++d)
              amax = fmaxf(amax, fabsf(want[d]));
            scale = touched[t][r] ? embStateRowScale((int)prec, amax)
                                  : before->scales[k][t][r];
            if (p->scales[k][t][r] != scale) {
              HARNESS_FAIL("momentum%d scale of table %lld row %lld is %g, "
                           "expected %g",
                           k + 1, (long long)t, (long long)r,
                           (double)p->scales[k][t][r], (double)scale);
              ++bad;
            }
          } else {
            scale = p->scales[k][t][0];
            EXPECT_TRUE(scale == before->scales[k][t][0]);
          }
        }
        uint32_t rowSeed = embSrRowSeed(
            embSrStepSeed(embSrStateSeed(p->seed, k + 1), p->step), t, r);
        for (int64_t d = 0; d < width; ++d) {
          int64_t i = r * width + d;
          uint32_t got = stateLoadBits(p->state[k][t], prec, i);
          uint32_t expect =
              touched[t][r]
                  ? embStateEncode((int)prec, want[d], scale,
                                   embSrColumnBits(rowSeed, (uint32_t)d))
                  : stateLoadBits(before->state[k][t], prec, i);
          if (got != expect) {
            HARNESS_FAIL("momentum%d of table %lld [%lld] is 0x%x (%g), "
                         "expected 0x%x (%g; f32 run %g)",
                         k + 1, (long long)t, (long long)i, got,
                         (double)embStateDecode((int)prec, got, scale), expect,
                         (double)embStateDecode((int)prec, expect, scale),
                         (double)want[d]);
            ++bad;
            break;
          }
          // Within one step of the format of the f32 run's value.
          double value = embStateDecode((int)prec, got, scale);
          double ulp = prec == EMBRT_STATE_BF16
                           ? ldexp(fabs(want[d]), -7)
                           : scale * stateFormatStep(prec, want[d] / scale);
          if (touched[t][r] && prec != EMBRT_STATE_F32 &&
              fabs(value - want[d]) > ulp * 1.0001) {
            HARNESS_FAIL("momentum%d of table %lld [%lld] is %g, more than "
                         "a step from %g",
                         k + 1, (long long)t, (long long)i, value,
                         (double)want[d]);
            ++bad;
          }
        }
      }
    }
  }
}

/// A deep copy of `p`'s states and scales (for the untouched rows).
static void copyStates(const Problem *p, Problem *c) {
  memset(c, 0, sizeof *c);
  c->optimizer = p->optimizer;
  memcpy(c->precision, p->precision, sizeof c->precision);
  memcpy(c->rows, p->rows, sizeof c->rows);
  memcpy(c->dims, p->dims, sizeof c->dims);
  for (int k = 0; k < 2; ++k)
    for (int64_t t = 0; t < T; ++t) {
      if (p->state[k][t]) {
        size_t bytes = (size_t)stateElems(p, t) *
                       (size_t)embrtStatePrecisionBytes(p->precision[k]);
        c->state[k][t] = malloc(bytes);
        memcpy(c->state[k][t], p->state[k][t], bytes);
      }
      if (p->scales[k][t]) {
        size_t bytes =
            (size_t)(p->optimizer == EMBRT_OPTIMIZER_ADAM ? p->rows[t] : 1) * 4;
        c->scales[k][t] = malloc(bytes);
        memcpy(c->scales[k][t], p->scales[k][t], bytes);
      }
    }
}

static void testStep(embrtContext *ctx, Rng *rng) {
  for (int o = 0; o < 2; ++o) {
    embrtOptimizer opt =
        o ? EMBRT_OPTIMIZER_ADAM : EMBRT_OPTIMIZER_ROWWISE_ADAGRAD;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < (o ? 4 : 1); ++j) {
        char label[96];
        snprintf(label, sizeof label, "%s momentum1 %s momentum2 %s",
                 o ? "adam" : "rowwise_adagrad",
                 embrtStatePrecisionName(kPrecisions[i]),
                 o ? embrtStatePrecisionName(kPrecisions[j]) : "-");
        TEST_CASE(label);
        fprintf(stderr, "@%s\n", label);
        Problem p, q, before;
        makeProblem(&p, rng, opt, kPrecisions[i],
                    o ? kPrecisions[j] : EMBRT_STATE_F32);
        decodedCopy(&p, &q);
        copyStates(&p, &before);
        EXPECT_STATUS(runProblem(ctx, &p), EMBRT_OK, ctx);
        q.ids = p.ids;
        q.offs = p.offs;
        q.grad = p.grad;
        EXPECT_STATUS(runProblem(ctx, &q), EMBRT_OK, ctx);
        checkAgainstF32(&p, &before, &q);
        q.ids = NULL;
        q.offs = NULL;
        q.grad = NULL;
        freeProblem(&q);
        freeProblem(&before);
        freeProblem(&p);
      }
  }
}

/// The embedding bag's backward passes the precisions and scales on: it
/// gives the TBE backward's bits for a lookup of one table.
static void testEmbeddingBag(embrtContext *ctx, Rng *rng) {
  TEST_CASE("embedding bag, adam fp8_e4m3 / fp8_e5m2");
  Problem p;
  makeProblem(&p, rng, EMBRT_OPTIMIZER_ADAM, EMBRT_STATE_FP8_E4M3,
              EMBRT_STATE_FP8_E5M2);
  Problem before;
  copyStates(&p, &before);
  // Feature 0 alone, as a TBE of table 0 and as a bag.
  int64_t n0 = p.offs[p.B];
  embrtEmbeddingBagBackwardArgs bag;
  memset(&bag, 0, sizeof bag);
  bag.structSize = sizeof bag;
  embrtEmbeddingBagArgs *l = &bag.lookup;
  l->structSize = sizeof *l;
  l->mode = EMBRT_POOLING_SUM;
  l->boundsCheck = EMBRT_BOUNDS_FATAL;
  l->weight = p.tables[0];
  l->rows = p.rows[0];
  l->dim = p.dims[0];
  l->weightDtype = EMBRT_F32;
  l->batchSize = p.B;
  l->numIndices = n0;
  l->indices = p.ids;
  l->indexDtype = EMBRT_I64;
  l->offsets = p.offs;
  l->offsetDtype = EMBRT_I64;
  l->configId = -1;
  float *grad = malloc((size_t)(p.B * p.dims[0]) * 4);
  int64_t width = 2 * p.dims[0] + p.dims[1];
  for (int64_t b = 0; b < p.B; ++b)
    memcpy(grad + b * p.dims[0], p.grad + b * width, (size_t)p.dims[0] * 4);
  bag.gradOutput = grad;
  bag.gradDtype = EMBRT_F32;
  bag.optimizer = EMBRT_OPTIMIZER_ADAM;
  bag.momentum1 = p.state[0][0];
  bag.momentum2 = p.state[1][0];
  bag.momentum1Precision = EMBRT_STATE_FP8_E4M3;
  bag.momentum2Precision = EMBRT_STATE_FP8_E5M2;
  bag.momentum1Scales = p.scales[0][0];
  bag.momentum2Scales = p.scales[1][0];
  bag.hyperParams = p.hyper;
  bag.step = &p.step;
  bag.seed = p.seed;
  bag.configId = -1;
  size_t bytes = 0;
  EXPECT_STATUS(embrtEmbeddingBagBackwardWorkspaceSize(ctx, &bag, &bytes),
                EMBRT_OK, ctx);
  void *ws = malloc(bytes ? bytes : 1);
  bag.workspace = ws;
  bag.workspaceBytes = bytes;
  EXPECT_STATUS(embrtEmbeddingBagBackward(ctx, &bag), EMBRT_OK, ctx);
  free(ws);

  // The same step as a TBE of table 0 and feature 0 only, from `before`'s
  // states (Adam's states do not depend on the table's values).
  embrtTbeBackwardArgs a;
  void *m1[T], *m2[T], *s1[T], *s2[T];
  Problem r;
  copyStates(&before, &r);
  for (int64_t t = 0; t < T; ++t) {
    r.tables[t] = malloc((size_t)(p.rows[t] * p.dims[t]) * 4);
    memset(r.tables[t], 0, (size_t)(p.rows[t] * p.dims[t]) * 4);
  }
  r.featureTables[0] = 0;
  r.B = p.B;
  r.N = n0;
  r.ids = p.ids;
  r.offs = p.offs;
  r.grad = grad;
  memcpy(r.hyper, p.hyper, sizeof r.hyper);
  r.step = p.step;
  r.seed = p.seed;
  a = argsOf(&r, m1, m2, s1, s2);
  a.lookup.numTables = 1;
  a.lookup.numFeatures = 1;
  EXPECT_STATUS(runBackward(ctx, &a), EMBRT_OK, ctx);
  size_t n = (size_t)(p.rows[0] * p.dims[0]);
  EXPECT_TRUE(memcmp(r.state[0][0], p.state[0][0], n) == 0);
  EXPECT_TRUE(memcmp(r.state[1][0], p.state[1][0], n) == 0);
  EXPECT_TRUE(memcmp(r.scales[0][0], p.scales[0][0], (size_t)p.rows[0] * 4) ==
              0);
  EXPECT_TRUE(memcmp(r.scales[1][0], p.scales[1][0], (size_t)p.rows[0] * 4) ==
              0);
  r.ids = NULL;
  r.offs = NULL;
  r.grad = NULL;
  freeProblem(&r);
  free(grad);
  freeProblem(&before);
  freeProblem(&p);
}

//===----------------------------------------------------------------------===//
// Named errors
//===----------------------------------------------------------------------===//

static void testInvalid(embrtContext *ctx, Rng *rng) {
  Problem p;
  makeProblem(&p, rng, EMBRT_OPTIMIZER_ADAM, EMBRT_STATE_FP8_E4M3,
              EMBRT_STATE_BF16);
  void *m1[T], *m2[T], *s1[T], *s2[T];
  embrtTbeBackwardArgs good = argsOf(&p, m1, m2, s1, s2), a;
  size_t bytes = 0;
  EXPECT_STATUS(embrtTbeBackwardWorkspaceSize(ctx, &good, &bytes), EMBRT_OK,
                ctx);
  void *ws = malloc(bytes);
  good.workspace = ws;
  good.workspaceBytes = bytes;

#define CASE(label, status, text, body)                                        \
  do {                                                                         \
    TEST_CASE(label);                                                          \
    a = good;                                                                  \
    body;                                                                      \
    EXPECT_STATUS(embrtTbeBackward(ctx, &a), status, ctx);                     \
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), text);                      \
    embrtContextClearError(ctx);                                               \
  } while (0)
  CASE("unknown precision", EMBRT_INVALID_ARGUMENT,
       "tbe_backward: momentum1Precision is 9, not an embrtStatePrecision",
       a.momentum1Precision = (embrtStatePrecision)9);
  CASE("fp8 momentum1 without scales", EMBRT_INVALID_ARGUMENT,
       "tbe_backward: momentum1Scales is NULL, a fp8_e4m3 momentum1 needs one "
       "f32 scale per row ([rows] per table)",
       a.momentum1Scales = NULL);
  void *someNull[T] = {s1[0], NULL};
  CASE("fp8 momentum2 scale entry NULL", EMBRT_INVALID_ARGUMENT,
       "tbe_backward: momentum2Scales[1] is NULL, a fp8_e5m2 momentum2 needs "
       "one f32 scale per row",
       (a.momentum2Precision = EMBRT_STATE_FP8_E5M2,
        a.momentum2Scales = someNull));
  void *misaligned[T] = {m2[0], (char *)m2[1] + 1};
  CASE("misaligned bf16 state", EMBRT_INVALID_ARGUMENT,
       "tbe_backward: momentum2[1] is not 2-byte aligned (bf16)",
       a.momentum2 = misaligned);
  CASE("misaligned scale", EMBRT_INVALID_ARGUMENT,
       "tbe_backward: momentum1Scales[0] is not 4-byte aligned (f32)",
       (s1[0] = (char *)p.scales[0][0] + 2, a.momentum1Scales = s1));
  s1[0] = p.scales[0][0];
  CASE("state precision without the state", EMBRT_INVALID_ARGUMENT,
       "tbe_backward: momentum2Precision is bf16, but rowwise_adagrad has no "
       "momentum2 (it must be f32)",
       (a.optimizer = EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, a.momentum2 = NULL,
        a.momentum1Precision = EMBRT_STATE_F32));
  CASE("sgd with a state precision", EMBRT_INVALID_ARGUMENT,
       "tbe_backward: momentum1Precision is fp8_e4m3, but sgd has no "
       "momentum1",
       (a.optimizer = EMBRT_OPTIMIZER_SGD, a.momentum1 = NULL,
        a.momentum2 = NULL, a.momentum2Precision = EMBRT_STATE_F32));
  CASE("bf16 momentum1 NULL", EMBRT_INVALID_ARGUMENT,
       "tbe_backward: momentum1 is NULL, adam needs bf16 first moments",
       (a.momentum1Precision = EMBRT_STATE_BF16, a.momentum1 = NULL));
  free(ws);
  freeProblem(&p);

  Problem q;
  makeProblem(&q, rng, EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, EMBRT_STATE_FP8_E5M2,
              EMBRT_STATE_F32);
  good = argsOf(&q, m1, m2, s1, s2);
  EXPECT_STATUS(embrtTbeBackwardWorkspaceSize(ctx, &good, &bytes), EMBRT_OK,
                ctx);
  ws = malloc(bytes);
  good.workspace = ws;
  good.workspaceBytes = bytes;
  CASE("rowwise adagrad fp8 without scales", EMBRT_INVALID_ARGUMENT,
       "tbe_backward: momentum1Scales is NULL, a fp8_e5m2 momentum1 needs one "
       "f32 scale per table ([1] per table)",
       a.momentum1Scales = NULL);
  q.scales[0][1][0] = 0.0f;
  CASE("rowwise adagrad fp8 scale zero", EMBRT_OUT_OF_RANGE,
       "tbe_backward: momentum1Scales[1] is 0, the table's scale of a "
       "fp8_e5m2 state must be positive and finite",
       (void)0);
  q.scales[0][1][0] = NAN;
  CASE("rowwise adagrad fp8 scale NaN", EMBRT_OUT_OF_RANGE,
       "tbe_backward: momentum1Scales[1] is nan", (void)0);
#undef CASE
  free(ws);
  freeProblem(&q);

  TEST_CASE("names and sizes");
  EXPECT_TRUE(
      !strcmp(embrtStatePrecisionName(EMBRT_STATE_FP8_E5M2), "fp8_e5m2"));
  EXPECT_TRUE(
      !strcmp(embrtStatePrecisionName((embrtStatePrecision)7), "unknown"));
  EXPECT_EQ_INT(embrtStatePrecisionBytes(EMBRT_STATE_BF16), 2);
  EXPECT_EQ_INT(embrtStatePrecisionBytes((embrtStatePrecision)-1), 0);
}

int main(void) {
  embrtContext *ctx = newCpuContext();
  Rng rng = rngSeed(39);
  testCodecs(&rng);
  testStep(ctx, &rng);
  testEmbeddingBag(ctx, &rng);
  testInvalid(ctx, &rng);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
