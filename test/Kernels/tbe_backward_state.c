// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/tbe_backward_state
// RUN: %kernel_test_dir/tbe_backward_state_stateruntime
//===- test/Kernels/tbe_backward_state.c - GPU test of states below f32 ---===//
//
// embrtTbeBackward with its optimizer states stored below f32
// (embrtStatePrecision) on a CUDA context against the CPU reference backend
// on a CPU context, from the same fresh random inputs (tables, gradients,
// stored states and scales, never zero): rowwise Adagrad with each
// precision of its row state, Adam with each precision of m and v
// independently, f32 and bf16 tables, mixed D with vector and element-wise
// lanes (1, 3, 8, 17, 64, 128, and 1000: a group of several warps, whose row
// maximum goes through shared memory), a hot row (a long run, reduced in
// chunks), each under the default routing and forced all-short and
// all-long. One step, then the tables, states and scales are compared.
// Then rowwise Adagrad's fp8 table scale of 0: reported by embrtSynchronize,
// nothing updated.
//
// Tolerances: the CPU sums and updates in f64, the GPU in f32 in another
// order, so the f32 value a state is rounded from may differ from the
// CPU's by the error of an f32 sum: for each element the test bounds it by
// 2e-6 of what the state's update adds up in magnitude (for Adam's m,
// beta1 |m0| + (1 - beta1) G with G the sum of |gradient| over the row's
// ids; for v, beta2 v0 + 2 (1 - beta2) G^2; for rowwise Adagrad's sum, its
// input plus the mean of 2 G'^2, G' with the weight decay's term), which
// stands for a cancelling sum, where a relative bound does not hold. An
// fp8 row's scale (its largest magnitude over the format's largest value)
// moves with that value. Where the value straddles a rounding point the
// stochastic rounding of the two may pick neighbouring values: a stored
// state must be within one step of its format (at the value, times the
// row's scale) plus 1e-5 of the CPU's value plus that bound; a scale
// within 1e-5 relative plus the row's largest bound over the format's
// largest value. Of the states stored in bf16 or fp8 at most 1 in 1000 may
// differ from the CPU's bits at all (f32 states are not rounded, and their
// bits follow the order of the sums). Tables: f32 within 1e-5 of the row's
// largest |w| plus 2e-3 of its largest change (as tbe_backward.c), 16-bit
// tables one 16-bit ulp.
//
// tbe_backward_state_stateruntime is this test linked against
// kernels/tbe_backward.cu's variant "stateruntime" (EMB_TBE_BWD_STATE_FIXED=0:
// rowwise Adagrad's short-run kernel reading its state's precision at run
// time).
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"
#include "../Runtime/state_harness.h"

#include "kernels/stochastic_rounding.h"

#define T 7

static const int64_t kDims[T] = {128, 8, 1, 3, 17, 64, 1000};
static const int64_t kRows[T] = {300, 200, 150, 120, 100, 90, 40};

typedef struct Inputs {
  embrtOptimizer optimizer;
  embrtDtype tableDtype;
  embrtStatePrecision precision[2];
  int64_t rows[T], dims[T], featureTables[T], B, N;
  void *tables[T];
  void *state[2][T];
  float *scales[2][T];
  int64_t *ids, *offs;
  float *grad;
  float hyper[EMBRT_NUM_HYPER_PARAMS];
  int64_t step;
  uint64_t seed;
} Inputs;

static int64_t stateElems(const Inputs *in, int t) {
  return in->optimizer == EMBRT_OPTIMIZER_ADAM ? in->rows[t] * in->dims[t]
                                               : in->rows[t];
}

static size_t stateBytes(const Inputs *in, int k, int t) {
  return (size_t)stateElems(in, t) *
         (size_t)embrtStatePrecisionBytes(in->precision[k]);
}

static size_t scaleBytes(const Inputs *in, int t) {
  return (size_t)(in->optimizer == EMBRT_OPTIMIZER_ADAM ? in->rows[t] : 1) * 4;
}

/// Random inputs; states are the stochastic roundings of random values
/// (non-negative for v and the Adagrad sums) under random scales.
static void makeInputs(Inputs *in, Rng *rng, embrtOptimizer opt,
                       embrtDtype tableDtype, embrtStatePrecision p1,
                       embrtStatePrecision p2) {
  memset(in, 0, sizeof *in);
  in->optimizer = opt;
  in->tableDtype = tableDtype;
  in->precision[0] = p1;
  in->precision[1] = p2;
  in->B = 96;
  int states = opt == EMBRT_OPTIMIZER_ADAM ? 2 : 1;
  for (int t = 0; t < T; ++t) {
    in->rows[t] = kRows[t];
    in->dims[t] = kDims[t];
    in->featureTables[t] = t;
    in->tables[t] = randomTensor(rng, tableDtype, kRows[t] * kDims[t]);
    for (int k = 0; k < states; ++k) {
      embrtStatePrecision prec = in->precision[k];
      int positive = k == 1 || opt == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD;
      in->state[k][t] = malloc(stateBytes(in, k, t));
      if (stateIsFp8(prec)) {
        int64_t ns = (int64_t)scaleBytes(in, t) / 4;
        in->scales[k][t] = malloc(scaleBytes(in, t));
        for (int64_t r = 0; r < ns; ++r)
          in->scales[k][t][r] = opt == EMBRT_OPTIMIZER_ADAM
                                    ? (float)rngUniform(rng, 1e-3, 1e-2)
                                    : (float)rngUniform(rng, 0.2, 0.4);
      }
      int64_t width = opt == EMBRT_OPTIMIZER_ADAM ? kDims[t] : 1;
      for (int64_t i = 0; i < stateElems(in, t); ++i) {
        double x = rngValue(rng) * (opt == EMBRT_OPTIMIZER_ADAM ? 0.5 : 2.0);
        if (positive)
          x = fabs(x);
        float scale =
            stateIsFp8(prec)
                ? in->scales[k][t][opt == EMBRT_OPTIMIZER_ADAM ? i / width : 0]
                : 1.0f;
        stateStoreBits(
            in->state[k][t], prec, i,
            embStateEncode((int)prec, (float)x, scale, (uint32_t)rngNext(rng)));
      }
    }
  }
  int64_t numBags = T * in->B;
  in->offs = malloc((size_t)(numBags + 1) * sizeof(int64_t));
  in->offs[0] = 0;
  for (int64_t b = 0; b < numBags; ++b)
    in->offs[b + 1] = in->offs[b] + rngInt(rng, 0, 12);
  in->N = in->offs[numBags];
  in->ids = malloc((size_t)(in->N + 1) * sizeof(int64_t));
  for (int f = 0; f < T; ++f)
    for (int64_t i = in->offs[f * in->B]; i < in->offs[(f + 1) * in->B]; ++i)
      // A hot row 7 in every table: a long run.
      in->ids[i] = rngInt(rng, 0, 5) == 0 ? 7 : rngInt(rng, 0, kRows[f]);
  int64_t width = 0;
  for (int t = 0; t < T; ++t)
    width += kDims[t];
  in->grad = randomTensor(rng, EMBRT_F32, in->B * width);
  in->hyper[EMBRT_HYPER_LEARNING_RATE] = 0.05f;
  in->hyper[EMBRT_HYPER_EPS] = 1e-3f;
  in->hyper[EMBRT_HYPER_BETA1] = 0.9f;
  in->hyper[EMBRT_HYPER_BETA2] = 0.99f;
  in->hyper[EMBRT_HYPER_WEIGHT_DECAY] = 0.01f;
  in->step = 4;
  in->seed = rngNext(rng);
}

static void freeInputs(Inputs *in) {
  for (int t = 0; t < T; ++t) {
    free(in->tables[t]);
    for (int k = 0; k < 2; ++k) {
      free(in->state[k][t]);
      free(in->scales[k][t]);
    }
  }
  free(in->ids);
  free(in->offs);
  free(in->grad);
}

/// The buffers of one side: host memory for the CPU, device memory for
/// CUDA, holding copies of the inputs.
typedef struct Side {
  void *tables[T], *state[2][T], *scales[2][T];
  void *ids, *offs, *grad, *hyper, *step, *workspace;
} Side;

static void *copyIn(embrtContext *ctx, int gpu, const void *host,
                    size_t bytes) {
  void *p = NULL;
  if (!host)
    return NULL;
  if (!gpu) {
    p = malloc(bytes ? bytes : 1);
    memcpy(p, host, bytes);
    return p;
  }
  EXPECT_STATUS(embrtMalloc(ctx, bytes ? bytes : 16, &p), EMBRT_OK, ctx);
  if (p && bytes)
    EXPECT_STATUS(embrtMemcpy(ctx, p, host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
                  EMBRT_OK, ctx);
  return p;
}

static void copyOut(embrtContext *ctx, int gpu, void *host, const void *p,
                    size_t bytes) {
  if (!p || !bytes)
    return;
  if (!gpu)
    memcpy(host, p, bytes);
  else
    EXPECT_STATUS(embrtMemcpy(ctx, host, p, bytes, EMBRT_COPY_DEVICE_TO_HOST),
                  EMBRT_OK, ctx);
}

static void release(embrtContext *ctx, int gpu, void *p) {
  if (gpu)
    embrtFree(ctx, p);
  else
    free(p);
}

/// Runs one step of `in` on `ctx` with routing `configId`; the results go
/// to `out` (a copy of `in` whose buffers are overwritten).
static void runSide(embrtContext *ctx, const Inputs *in, int64_t configId,
                    Inputs *out, embrtStatus wantSync) {
  int gpu = embrtContextGetDevice(ctx) == EMBRT_DEVICE_CUDA;
  size_t esz = embrtDtypeSize(in->tableDtype);
  Side s;
  memset(&s, 0, sizeof s);
  int64_t width = 0;
  for (int t = 0; t < T; ++t) {
    width += in->dims[t];
    s.tables[t] = copyIn(ctx, gpu, in->tables[t],
                         (size_t)(in->rows[t] * in->dims[t]) * esz);
    for (int k = 0; k < 2; ++k) {
      s.state[k][t] = copyIn(ctx, gpu, in->state[k][t], stateBytes(in, k, t));
      s.scales[k][t] = copyIn(ctx, gpu, in->scales[k][t], scaleBytes(in, t));
    }
  }
  s.ids = copyIn(ctx, gpu, in->ids, (size_t)in->N * 8);
  s.offs = copyIn(ctx, gpu, in->offs, (size_t)(T * in->B + 1) * 8);
  s.grad = copyIn(ctx, gpu, in->grad, (size_t)(in->B * width) * 4);
  s.hyper = copyIn(ctx, gpu, in->hyper, sizeof in->hyper);
  s.step = copyIn(ctx, gpu, &in->step, 8);

  embrtTbeBackwardArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  embrtTbeArgs *l = &a.lookup;
  l->structSize = sizeof *l;
  l->pooling = EMBRT_POOLING_SUM;
  l->boundsCheck = EMBRT_BOUNDS_FATAL;
  l->numTables = T;
  l->tables = (const void *const *)s.tables;
  l->tableRows = in->rows;
  l->tableDims = in->dims;
  l->tableDtype = in->tableDtype;
  l->numFeatures = T;
  l->featureTables = in->featureTables;
  l->batchSize = in->B;
  l->numIndices = in->N;
  l->indices = s.ids;
  l->indexDtype = EMBRT_I64;
  l->offsets = s.offs;
  l->offsetDtype = EMBRT_I64;
  l->configId = -1;
  a.gradOutput = s.grad;
  a.gradDtype = EMBRT_F32;
  a.optimizer = in->optimizer;
  a.momentum1 = s.state[0];
  a.momentum2 = in->optimizer == EMBRT_OPTIMIZER_ADAM ? s.state[1] : NULL;
  a.momentum1Precision = in->precision[0];
  a.momentum2Precision = in->precision[1];
  a.momentum1Scales = stateIsFp8(in->precision[0]) ? s.scales[0] : NULL;
  a.momentum2Scales = stateIsFp8(in->precision[1]) ? s.scales[1] : NULL;
  a.hyperParams = s.hyper;
  a.step = s.step;
  a.seed = in->seed;
  a.configId = configId;
  size_t bytes = 0;
  EXPECT_STATUS(embrtTbeBackwardWorkspaceSize(ctx, &a, &bytes), EMBRT_OK, ctx);
  if (gpu)
    EXPECT_STATUS(embrtMalloc(ctx, bytes ? bytes : 256, &s.workspace), EMBRT_OK,
                  ctx);
  else
    s.workspace = malloc(bytes ? bytes : 1);
  a.workspace = s.workspace;
  a.workspaceBytes = bytes;
  EXPECT_STATUS(embrtTbeBackward(ctx, &a), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtSynchronize(ctx), wantSync, ctx);

  for (int t = 0; t < T; ++t) {
    copyOut(ctx, gpu, out->tables[t], s.tables[t],
            (size_t)(in->rows[t] * in->dims[t]) * esz);
    release(ctx, gpu, s.tables[t]);
    for (int k = 0; k < 2; ++k) {
      copyOut(ctx, gpu, out->state[k][t], s.state[k][t], stateBytes(in, k, t));
      copyOut(ctx, gpu, out->scales[k][t], s.scales[k][t], scaleBytes(in, t));
      release(ctx, gpu, s.state[k][t]);
      release(ctx, gpu, s.scales[k][t]);
    }
  }
  release(ctx, gpu, s.ids);
  release(ctx, gpu, s.offs);
  release(ctx, gpu, s.grad);
  release(ctx, gpu, s.hyper);
  release(ctx, gpu, s.step);
  release(ctx, gpu, s.workspace);
}

/// A copy of `in` with buffers of its own (results land there).
static void cloneInputs(const Inputs *in, Inputs *c) {
  *c = *in;
  size_t esz = embrtDtypeSize(in->tableDtype);
  for (int t = 0; t < T; ++t) {
    size_t tb = (size_t)(in->rows[t] * in->dims[t]) * esz;
    c->tables[t] = malloc(tb);
    memcpy(c->tables[t], in->tables[t], tb);
    for (int k = 0; k < 2; ++k) {
      c->state[k][t] = c->scales[k][t] = NULL;
      if (in->state[k][t]) {
        c->state[k][t] = malloc(stateBytes(in, k, t));
        memcpy(c->state[k][t], in->state[k][t], stateBytes(in, k, t));
      }
      if (in->scales[k][t]) {
        c->scales[k][t] = malloc(scaleBytes(in, t));
        memcpy(c->scales[k][t], in->scales[k][t], scaleBytes(in, t));
      }
    }
  }
  c->ids = NULL;
  c->offs = NULL;
  c->grad = NULL;
}

static double ulp16(embrtDtype dtype, double x) {
  int e = 0;
  frexp(fabs(x), &e);
  --e;
  return dtype == EMBRT_F16 ? ldexp(1.0, (e < -14 ? -14 : e) - 10)
                            : ldexp(1.0, (e < -126 ? -126 : e) - 7);
}

/// sumAbs[t][r * D + d]: the sum of |gradient| over the ids of row r of
/// table t (feature t is table t), the magnitude an f32 sum of the row's
/// gradient is exact to within a few ulps of.
static double *gradientMagnitudes(const Inputs *in, int t) {
  int64_t D = in->dims[t], base = 0;
  for (int f = 0; f < t; ++f)
    base += in->dims[f];
  int64_t width = base;
  for (int f = t; f < T; ++f)
    width += in->dims[f];
  double *m = calloc((size_t)(in->rows[t] * D), sizeof(double));
  for (int64_t b = 0; b < in->B; ++b)
    for (int64_t i = in->offs[t * in->B + b]; i < in->offs[t * in->B + b + 1];
         ++i)
      for (int64_t d = 0; d < D; ++d)
        m[in->ids[i] * D + d] += fabs((double)in->grad[b * width + base + d]);
  return m;
}

/// The bound on how far the GPU's f32 value of state `k` (element `d` of
/// row `r`, whose gradient magnitudes are `G`) may be from the CPU's before
/// rounding, beyond 1e-5 relative: 2e-6 of what its update adds up.
static double stateSumBound(const Inputs *in, int k, int t, int64_t r,
                            int64_t d, const double *G) {
  int64_t D = in->dims[t];
  embrtStatePrecision prec = in->precision[k];
  const float *h = in->hyper;
  if (in->optimizer == EMBRT_OPTIMIZER_ADAM) {
    int64_t i = r * D + d;
    float scale = stateIsFp8(prec) ? in->scales[k][t][r] : 1.0f;
    double s0 = fabs(embStateDecode(
        (int)prec, stateLoadBits(in->state[k][t], prec, i), scale));
    double g = G[i];
    return k == 0 ? 2e-6 * (h[EMBRT_HYPER_BETA1] * s0 +
                            (1.0 - h[EMBRT_HYPER_BETA1]) * g)
                  : 2e-6 * (h[EMBRT_HYPER_BETA2] * s0 +
                            (1.0 - h[EMBRT_HYPER_BETA2]) * 2.0 * g * g);
  }
  float scale = stateIsFp8(prec) ? in->scales[k][t][0] : 1.0f;
  double s0 =
      embStateDecode((int)prec, stateLoadBits(in->state[k][t], prec, r), scale);
  double sum = 0;
  for (int64_t e = 0; e < D; ++e) {
    double g = G[r * D + e] +
               h[EMBRT_HYPER_WEIGHT_DECAY] *
                   fabs(refLoad(in->tables[t], in->tableDtype, r * D + e));
    sum += 2.0 * g * g;
  }
  return 2e-6 * (s0 + sum / (double)D);
}

static void compare(const Inputs *in, const Inputs *cpu, const Inputs *gpu) {
  int bad = 0;
  // Stored codes that differ from the CPU's: only where the two f32 values
  // straddle a rounding point (about 1e-6 of them). A wrong random stream
  // would differ in a third of them and still pass the tolerance.
  int64_t codesDiffer = 0, codes = 0;
  int states = in->optimizer == EMBRT_OPTIMIZER_ADAM ? 2 : 1;
  for (int t = 0; t < T && bad < 10; ++t) {
    int64_t D = in->dims[t];
    double *G = gradientMagnitudes(in, t);
    for (int64_t r = 0; r < in->rows[t] && bad < 10; ++r) {
      double wmax = 0, dmax = 0;
      for (int64_t d = 0; d < D; ++d) {
        double w0 = refLoad(in->tables[t], in->tableDtype, r * D + d);
        double w1 = refLoad(cpu->tables[t], in->tableDtype, r * D + d);
        wmax = fmax(wmax, fabs(w1));
        dmax = fmax(dmax, fabs(w1 - w0));
      }
      for (int64_t d = 0; d < D; ++d) {
        double want = refLoad(cpu->tables[t], in->tableDtype, r * D + d);
        double got = refLoad(gpu->tables[t], in->tableDtype, r * D + d);
        double tol = in->tableDtype == EMBRT_F32
                         ? 1e-5 * wmax + 2e-3 * dmax
                         : 1.01 * ulp16(in->tableDtype, want);
        if (!(fabs(got - want) <= tol)) {
          HARNESS_FAIL("table %d [%lld, %lld] is %.9g, CPU %.9g", t,
                       (long long)r, (long long)d, got, want);
          ++bad;
          break;
        }
      }
      for (int k = 0; k < states; ++k) {
        embrtStatePrecision prec = in->precision[k];
        int adam = in->optimizer == EMBRT_OPTIMIZER_ADAM;
        int64_t width = adam ? D : 1;
        float cs = 1.0f, gs = 1.0f;
        if (stateIsFp8(prec)) {
          cs = cpu->scales[k][t][adam ? r : 0];
          gs = gpu->scales[k][t][adam ? r : 0];
          // Rowwise Adagrad's table scale is an input, left as it was.
          double rowBound = 0;
          for (int64_t d = 0; adam && d < width; ++d)
            rowBound = fmax(rowBound, stateSumBound(in, k, t, r, d, G));
          double tol = 1e-5 * fabs(cs) +
                       rowBound / embFp8Max(prec == EMBRT_STATE_FP8_E5M2);
          if (!(fabs(gs - cs) <= tol)) {
            HARNESS_FAIL("momentum%d scale of table %d row %lld is %.9g, CPU "
                         "%.9g",
                         k + 1, t, (long long)r, (double)gs, (double)cs);
            ++bad;
          }
        }
        for (int64_t d = 0; d < width; ++d) {
          int64_t i = r * width + d;
          double want = embStateDecode(
              (int)prec, stateLoadBits(cpu->state[k][t], prec, i), cs);
          double got = embStateDecode(
              (int)prec, stateLoadBits(gpu->state[k][t], prec, i), gs);
          if (prec != EMBRT_STATE_F32) {
            codesDiffer += stateLoadBits(cpu->state[k][t], prec, i) !=
                           stateLoadBits(gpu->state[k][t], prec, i);
            ++codes;
          }
          double tol = stateFormatStep(prec, want / cs) * cs * 1.0001 +
                       1e-5 * fabs(want) + stateSumBound(in, k, t, r, d, G) +
                       1e-30;
          if (!(fabs(got - want) <= tol)) {
            HARNESS_FAIL("momentum%d of table %d [%lld] is %.9g, CPU %.9g",
                         k + 1, t, (long long)i, got, want);
            ++bad;
            break;
          }
        }
      }
    }
    free(G);
  }
  if (codesDiffer > codes / 1000 + 2)
    HARNESS_FAIL("%lld of %lld stored states differ from the CPU's bits",
                 (long long)codesDiffer, (long long)codes);
}

int main(void) {
  embrtContext *gpu = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }
  embrtContext *cpu = newCpuContext();
  Rng rng = rngSeed(4039);
  static const embrtStatePrecision precisions[] = {
      EMBRT_STATE_F32, EMBRT_STATE_BF16, EMBRT_STATE_FP8_E4M3,
      EMBRT_STATE_FP8_E5M2};
  static const int64_t routings[] = {-1, 1, 2};
  static const embrtDtype tableTypes[] = {EMBRT_F32, EMBRT_BF16};
  for (int o = 0; o < 2; ++o) {
    embrtOptimizer opt =
        o ? EMBRT_OPTIMIZER_ADAM : EMBRT_OPTIMIZER_ROWWISE_ADAGRAD;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < (o ? 4 : 1); ++j)
        for (int d = 0; d < 2; ++d)
          for (int r = 0; r < 3; ++r) {
            char label[128];
            snprintf(label, sizeof label,
                     "%s %s table, momentum1 %s, momentum2 %s, config %lld",
                     o ? "adam" : "rowwise_adagrad", d ? "bf16" : "f32",
                     embrtStatePrecisionName(precisions[i]),
                     o ? embrtStatePrecisionName(precisions[j]) : "-",
                     (long long)routings[r]);
            TEST_CASE(label);
            fprintf(stderr, "@%s\n", label);
            Inputs in, c, g;
            makeInputs(&in, &rng, opt, tableTypes[d], precisions[i],
                       o ? precisions[j] : EMBRT_STATE_F32);
            cloneInputs(&in, &c);
            cloneInputs(&in, &g);
            runSide(cpu, &in, routings[r], &c, EMBRT_OK);
            runSide(gpu, &in, routings[r], &g, EMBRT_OK);
            compare(&in, &c, &g);
            freeInputs(&c);
            freeInputs(&g);
            freeInputs(&in);
          }
  }
  // A table scale of 0: CUDA reads it on the device, reports it at
  // embrtSynchronize and updates nothing (the CPU refuses it at the call).
  TEST_CASE("rowwise_adagrad fp8_e4m3 with a table scale of 0");
  fprintf(stderr, "@%s\n", harnessCaseName);
  Inputs in, g;
  makeInputs(&in, &rng, EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, EMBRT_F32,
             EMBRT_STATE_FP8_E4M3, EMBRT_STATE_F32);
  in.scales[0][3][0] = 0.0f;
  cloneInputs(&in, &g);
  runSide(gpu, &in, -1, &g, EMBRT_OUT_OF_RANGE);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "device: tbe_backward: momentum1Scales[3] is 0, the "
                  "table's scale of an fp8 state must be positive and finite "
                  "(nothing was updated)");
  embrtContextClearError(gpu);
  for (int t = 0; t < T; ++t) {
    EXPECT_TRUE(memcmp(g.tables[t], in.tables[t],
                       (size_t)(in.rows[t] * in.dims[t]) * 4) == 0);
    EXPECT_TRUE(memcmp(g.state[0][t], in.state[0][t], stateBytes(&in, 0, t)) ==
                0);
  }
  freeInputs(&g);
  freeInputs(&in);

  embrtContextDestroy(cpu);
  embrtContextDestroy(gpu);
  return harnessFinish();
}
