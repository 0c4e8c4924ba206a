// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/tbe_backward
// RUN: %kernel_test_dir/tbe_backward_pipe
//===- test/Kernels/tbe_backward.c - GPU test of the TBE backward ---------===//
//
// embrtTbeBackward (and embrtEmbeddingBagBackward) on a CUDA context against
// the CPU reference backend on a CPU context, on fresh random inputs (values
// never zero): every optimizer x pooling x table dtype x gradient dtype,
// weighted (f32 and table-typed weights) and not, mixed D with misaligned
// gradient columns (vector and element-wise gathers), shared tables, padding
// ids, i32 and i64 ids and offsets; the four bounds-check modes and bad
// offsets; and the hard cases: a row touched by millions of positions, all
// ids the same, every id distinct, mostly empty bags, tables of one row,
// D = 1 and D = 2048, groups of several warps (D = 256, 1000), more tables
// and features than the parameter block holds, no ids at all, several steps
// in a row (states carried), gradient rows a stride apart (gradRowStride);
// Adam at a step below 1 (refused, nothing changed). Every routing
// configuration is forced too, and the all-short and all-long routings are
// compared with each other; one routing sorts 64-bit keys (which otherwise need
// 2^32 rows).
//
// Tables and states are compared element by element after the step(s).
// Tolerance per row: f32 results within 1e-5 of the row's largest |w| plus
// 2e-3 of its largest change (the GPU sums in f32, the CPU in f64); f16 and
// bf16 rows are rounded stochastically with the same seeded bits on both
// sides, so they may differ by one 16-bit ulp where the f32 values straddle
// a rounding point.
//
// Usage: tbe_backward [--quick]   (--quick: small shapes, for
// compute-sanitizer)
//
// tbe_backward_pipe is this test linked against kernels/tbe_backward.cu's
// variant "pipe" (kernels/variants.cmake: EMB_TBE_BWD_OCC=0): the same cases
// through the accumulate kernel's per-run pipeline for the short runs (the
// default before the short-run kernel of its own; both paths stay tested).
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"

#define MAX_TABLES 80

static int quick;

/// One test case: shapes, modes, the optimizer; inputs drawn from a seed.
typedef struct Case {
  const char *name;
  embrtDtype tableDtype, gradDtype, indexDtype, offsetDtype;
  embrtPooling pooling;
  embrtBoundsCheck bounds;
  embrtOptimizer optimizer;
  int numTables;
  int64_t dims[MAX_TABLES];
  int64_t rows[MAX_TABLES];
  int64_t numFeatures; ///< feature f looks up table f % numTables
  int64_t batch;
  int64_t minBag, maxBag; ///< bag sizes, uniform; 0 allows empty bags
  int emptyPercent;       ///< bags forced empty
  int weighted;           ///< 0 none, 1 f32 weights, 2 table-typed
  int paddingPercent;     ///< ids equal to paddingIdx (which is 1)
  int badPerMille;        ///< out-of-range ids (-1: exactly one)
  int badOffsets;         ///< 1: one decreasing offset
  int idMode;             ///< 0 random, 1 all the same, 2 all distinct
  int steps;
  int64_t configId;
  int viaEmbeddingBag;
  /// The GPU reads the gradient's rows this many elements further apart
  /// than their width (gradRowStride: the columns of a wider tensor, the
  /// elements between rows NaN); the CPU reads them dense.
  int64_t gradPad;
} Case;

typedef struct Inputs {
  int64_t N, numBags, gradElements;
  void *tables[MAX_TABLES], *m1[MAX_TABLES], *m2[MAX_TABLES];
  int64_t *ids, *offs;
  void *indices, *offsets, *weights, *grad;
  embrtDtype weightDtype;
  int64_t featureTables[400];
  float hyper[EMBRT_NUM_HYPER_PARAMS];
  int64_t step;
} Inputs;

static int64_t gradWidth(const Case *c) {
  if (c->pooling == EMBRT_POOLING_NONE)
    return c->dims[0];
  int64_t w = 0;
  for (int64_t f = 0; f < c->numFeatures; ++f)
    w += c->dims[f % c->numTables];
  return w;
}

static void *zerosF32(int64_t n) { return calloc((size_t)(n > 0 ? n : 1), 4); }

static void makeInputs(const Case *c, Rng *rng, Inputs *in) {
  memset(in, 0, sizeof *in);
  for (int t = 0; t < c->numTables; ++t) {
    int64_t n = c->rows[t] * c->dims[t];
    in->tables[t] = randomTensor(rng, c->tableDtype, n);
    if (c->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD) {
      in->m1[t] = zerosF32(c->rows[t]);
      for (int64_t r = 0; r < c->rows[t]; ++r)
        ((float *)in->m1[t])[r] = (float)rngUniform(rng, 0.0, 1.0);
    } else if (c->optimizer == EMBRT_OPTIMIZER_ADAM) {
      in->m1[t] = zerosF32(n);
      in->m2[t] = zerosF32(n);
      for (int64_t i = 0; i < n; ++i) {
        ((float *)in->m1[t])[i] = (float)rngUniform(rng, -0.5, 0.5);
        ((float *)in->m2[t])[i] = (float)rngUniform(rng, 0.0, 0.5);
      }
    }
  }
  for (int64_t f = 0; f < c->numFeatures; ++f)
    in->featureTables[f] = f % c->numTables;
  in->numBags = c->numFeatures * c->batch;
  in->offs = malloc((size_t)(in->numBags + 1) * sizeof(int64_t));
  in->offs[0] = 0;
  for (int64_t g = 0; g < in->numBags; ++g) {
    int64_t len = rngInt(rng, c->minBag, c->maxBag + 1);
    if (rngInt(rng, 0, 100) < c->emptyPercent)
      len = 0;
    in->offs[g + 1] = in->offs[g] + len;
  }
  in->N = in->offs[in->numBags];
  in->ids = malloc((size_t)(in->N > 0 ? in->N : 1) * sizeof(int64_t));
  for (int64_t g = 0; g < in->numBags; ++g) {
    int64_t rows = c->rows[in->featureTables[g / c->batch]];
    for (int64_t i = in->offs[g]; i < in->offs[g + 1]; ++i) {
      int64_t id = c->idMode == 1   ? rows / 2
                   : c->idMode == 2 ? i % rows
                                    : rngInt(rng, 0, rows);
      if (rngInt(rng, 0, 100) < c->paddingPercent)
        id = 1;
      if (c->badPerMille > 0 && rngInt(rng, 0, 1000) < c->badPerMille)
        id = (rngNext(rng) & 1) ? -1 - rngInt(rng, 0, 5)
                                : rows + rngInt(rng, 0, 5);
      in->ids[i] = id;
    }
  }
  if (c->badPerMille < 0 && in->N > 0) { // exactly one bad id
    int64_t i = rngInt(rng, 0, in->N), g = 0;
    while (in->offs[g + 1] <= i)
      ++g;
    in->ids[i] = c->rows[in->featureTables[g / c->batch]] + 3;
  }
  if (c->badOffsets && in->numBags > 2) {
    int64_t g = rngInt(rng, 1, in->numBags);
    in->offs[g] = in->offs[g - 1] > 0 ? in->offs[g - 1] - 1 : in->N + 1;
  }
  in->indices = indexTensor(c->indexDtype, in->ids, in->N);
  in->offsets = indexTensor(c->offsetDtype, in->offs, in->numBags + 1);
  in->weightDtype = c->weighted == 2 ? c->tableDtype : EMBRT_F32;
  if (c->weighted)
    in->weights = randomTensor(rng, in->weightDtype, in->N);
  in->gradElements =
      (c->pooling == EMBRT_POOLING_NONE ? in->N : c->batch) * gradWidth(c);
  in->grad = randomTensor(rng, c->gradDtype, in->gradElements);
  in->hyper[EMBRT_HYPER_LEARNING_RATE] = 0.03f;
  in->hyper[EMBRT_HYPER_EPS] = 1e-2f;
  in->hyper[EMBRT_HYPER_BETA1] = 0.9f;
  in->hyper[EMBRT_HYPER_BETA2] = 0.999f;
  in->hyper[EMBRT_HYPER_WEIGHT_DECAY] = 0.01f;
  in->step = 1;
}

static void freeInputs(const Case *c, Inputs *in) {
  for (int t = 0; t < c->numTables; ++t) {
    free(in->tables[t]);
    free(in->m1[t]);
    free(in->m2[t]);
  }
  free(in->ids);
  free(in->offs);
  free(in->indices);
  free(in->offsets);
  free(in->weights);
  free(in->grad);
}

/// Device (or host) copies of the per-table buffers of one side.
typedef struct Side {
  void *tables[MAX_TABLES], *m1[MAX_TABLES], *m2[MAX_TABLES];
  void *indices, *offsets, *weights, *grad, *hyper, *step, *workspace;
  size_t workspaceBytes;
  int64_t gradRowStride; ///< 0: dense gradient rows
} Side;

/// The dense gradient `grad` (`elements` of the case's gradient dtype) as
/// rows `pitch` elements apart, NaN between them; its bytes in `*bytes`.
static void *stridedGrad(const Case *c, const void *grad, int64_t elements,
                         int64_t pitch, size_t *bytes) {
  int64_t width = gradWidth(c), rows = width ? elements / width : 0;
  size_t esz = embrtDtypeSize(c->gradDtype);
  *bytes = (size_t)(rows * pitch) * esz;
  char *out = malloc(*bytes ? *bytes : 1);
  memset(out, 0xff, *bytes); // NaN in f32, f16 and bf16
  for (int64_t r = 0; r < rows; ++r)
    memcpy(out + (size_t)(r * pitch) * esz,
           (const char *)grad + (size_t)(r * width) * esz, (size_t)width * esz);
  return out;
}

static embrtTbeBackwardArgs makeArgs(const Case *c, const Inputs *in,
                                     const Side *s, int64_t configId) {
  embrtTbeBackwardArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  embrtTbeArgs *l = &a.lookup;
  l->structSize = sizeof *l;
  l->pooling = c->pooling;
  l->boundsCheck = c->bounds;
  l->numTables = c->numTables;
  l->tables = (const void *const *)s->tables;
  l->tableRows = c->rows;
  l->tableDims = c->dims;
  l->tableDtype = c->tableDtype;
  l->numFeatures = c->numFeatures;
  l->featureTables = in->featureTables;
  l->batchSize = c->batch;
  l->numIndices = in->N;
  l->indices = s->indices;
  l->indexDtype = c->indexDtype;
  l->offsets = s->offsets;
  l->offsetDtype = c->offsetDtype;
  l->perSampleWeights = c->weighted ? s->weights : NULL;
  l->perSampleWeightDtype = in->weightDtype;
  l->paddingIdx = 1;
  l->hasPaddingIdx = c->paddingPercent > 0;
  l->configId = -1;
  a.gradOutput = s->grad;
  a.gradDtype = c->gradDtype;
  a.gradRowStride = s->gradRowStride;
  a.optimizer = c->optimizer;
  a.momentum1 = c->optimizer == EMBRT_OPTIMIZER_SGD ? NULL : s->m1;
  a.momentum2 = c->optimizer == EMBRT_OPTIMIZER_ADAM ? s->m2 : NULL;
  a.hyperParams = s->hyper;
  a.step = s->step;
  a.seed = 0x5eed0000ull + (uint64_t)c->numFeatures;
  a.configId = configId;
  a.workspace = s->workspace;
  a.workspaceBytes = s->workspaceBytes;
  return a;
}

/// Runs `a` on `ctx`, through embrtEmbeddingBagBackward when the case asks.
static embrtStatus backward(embrtContext *ctx, const Case *c,
                            const embrtTbeBackwardArgs *a) {
  if (!c->viaEmbeddingBag)
    return embrtTbeBackward(ctx, a);
  embrtEmbeddingBagBackwardArgs e;
  memset(&e, 0, sizeof e);
  e.structSize = sizeof e;
  embrtEmbeddingBagArgs *l = &e.lookup;
  l->structSize = sizeof *l;
  l->mode = a->lookup.pooling;
  l->boundsCheck = a->lookup.boundsCheck;
  l->weight = a->lookup.tables[0];
  l->rows = a->lookup.tableRows[0];
  l->dim = a->lookup.tableDims[0];
  l->weightDtype = a->lookup.tableDtype;
  l->batchSize = a->lookup.batchSize;
  l->numIndices = a->lookup.numIndices;
  l->indices = a->lookup.indices;
  l->indexDtype = a->lookup.indexDtype;
  l->offsets = a->lookup.offsets;
  l->offsetDtype = a->lookup.offsetDtype;
  l->perSampleWeights = a->lookup.perSampleWeights;
  l->perSampleWeightDtype = a->lookup.perSampleWeightDtype;
  l->paddingIdx = a->lookup.paddingIdx;
  l->hasPaddingIdx = a->lookup.hasPaddingIdx;
  l->configId = -1;
  e.gradOutput = a->gradOutput;
  e.gradDtype = a->gradDtype;
  e.gradRowStride = a->gradRowStride;
  e.optimizer = a->optimizer;
  e.momentum1 = a->momentum1 ? a->momentum1[0] : NULL;
  e.momentum2 = a->momentum2 ? a->momentum2[0] : NULL;
  e.hyperParams = a->hyperParams;
  e.step = a->step;
  e.seed = a->seed;
  e.configId = a->configId;
  e.workspace = a->workspace;
  e.workspaceBytes = a->workspaceBytes;
  return embrtEmbeddingBagBackward(ctx, &e);
}

static void *toDevice(embrtContext *gpu, const void *host, size_t bytes) {
  void *d = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, bytes ? bytes : 16, &d), EMBRT_OK, gpu);
  if (d && host && bytes)
    EXPECT_STATUS(embrtMemcpy(gpu, d, host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
                  EMBRT_OK, gpu);
  return d;
}

static void toHost(embrtContext *gpu, void *host, const void *d, size_t bytes) {
  if (bytes)
    EXPECT_STATUS(embrtMemcpy(gpu, host, d, bytes, EMBRT_COPY_DEVICE_TO_HOST),
                  EMBRT_OK, gpu);
}

static size_t stateElems(const Case *c, int t, int which) {
  if (c->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
    return which == 1 ? (size_t)c->rows[t] : 0;
  if (c->optimizer == EMBRT_OPTIMIZER_ADAM)
    return (size_t)(c->rows[t] * c->dims[t]);
  return 0;
}

/// A side on `ctx` holding copies of the inputs (device memory for CUDA).
static Side makeSide(embrtContext *ctx, const Case *c, const Inputs *in) {
  Side s;
  memset(&s, 0, sizeof s);
  int gpu = embrtContextGetDevice(ctx) == EMBRT_DEVICE_CUDA;
  size_t esz = embrtDtypeSize(c->tableDtype);
  for (int t = 0; t < c->numTables; ++t) {
    size_t tb = (size_t)(c->rows[t] * c->dims[t]) * esz;
    size_t b1 = stateElems(c, t, 1) * 4, b2 = stateElems(c, t, 2) * 4;
    if (gpu) {
      s.tables[t] = toDevice(ctx, in->tables[t], tb);
      s.m1[t] = b1 ? toDevice(ctx, in->m1[t], b1) : NULL;
      s.m2[t] = b2 ? toDevice(ctx, in->m2[t], b2) : NULL;
    } else {
      s.tables[t] = malloc(tb ? tb : 1);
      memcpy(s.tables[t], in->tables[t], tb);
      s.m1[t] = b1 ? malloc(b1) : NULL;
      s.m2[t] = b2 ? malloc(b2) : NULL;
      if (b1)
        memcpy(s.m1[t], in->m1[t], b1);
      if (b2)
        memcpy(s.m2[t], in->m2[t], b2);
    }
  }
  size_t ib = (size_t)in->N * embrtDtypeSize(c->indexDtype);
  size_t ob = (size_t)(in->numBags + 1) * embrtDtypeSize(c->offsetDtype);
  size_t wb = c->weighted ? (size_t)in->N * embrtDtypeSize(in->weightDtype) : 0;
  size_t gb = (size_t)in->gradElements * embrtDtypeSize(c->gradDtype);
  if (gpu) {
    s.indices = toDevice(ctx, in->indices, ib);
    s.offsets = toDevice(ctx, in->offsets, ob);
    s.weights = wb ? toDevice(ctx, in->weights, wb) : NULL;
    if (c->gradPad) {
      s.gradRowStride = gradWidth(c) + c->gradPad;
      size_t sb;
      void *strided =
          stridedGrad(c, in->grad, in->gradElements, s.gradRowStride, &sb);
      s.grad = toDevice(ctx, strided, sb);
      free(strided);
    } else {
      s.grad = toDevice(ctx, in->grad, gb);
    }
    s.hyper = toDevice(ctx, in->hyper, sizeof in->hyper);
    s.step = toDevice(ctx, &in->step, 8);
  } else {
    s.indices = in->indices;
    s.offsets = in->offsets;
    s.weights = in->weights;
    s.grad = in->grad;
    s.hyper = (void *)in->hyper;
    // Its own step: runSteps counts it up (the GPU side starts from in->step
    // too).
    s.step = malloc(8);
    memcpy(s.step, &in->step, 8);
  }
  return s;
}

static void freeSide(embrtContext *ctx, const Case *c, Side *s) {
  int gpu = embrtContextGetDevice(ctx) == EMBRT_DEVICE_CUDA;
  for (int t = 0; t < c->numTables; ++t) {
    if (gpu) {
      embrtFree(ctx, s->tables[t]);
      embrtFree(ctx, s->m1[t]);
      embrtFree(ctx, s->m2[t]);
    } else {
      free(s->tables[t]);
      free(s->m1[t]);
      free(s->m2[t]);
    }
  }
  if (gpu) {
    embrtFree(ctx, s->indices);
    embrtFree(ctx, s->offsets);
    embrtFree(ctx, s->weights);
    embrtFree(ctx, s->grad);
    embrtFree(ctx, s->hyper);
    embrtFree(ctx, s->step);
    embrtFree(ctx, s->workspace);
  } else {
    free(s->workspace);
    free(s->step);
  }
}

/// Sizes and allocates the side's workspace for `configId`.
static void allocWorkspace(embrtContext *ctx, const Case *c, const Inputs *in,
                           Side *s, int64_t configId) {
  embrtTbeBackwardArgs a = makeArgs(c, in, s, configId);
  size_t bytes = 0;
  EXPECT_STATUS(embrtTbeBackwardWorkspaceSize(ctx, &a, &bytes), EMBRT_OK, ctx);
  if (embrtContextGetDevice(ctx) == EMBRT_DEVICE_CUDA)
    EXPECT_STATUS(embrtMalloc(ctx, bytes ? bytes : 256, &s->workspace),
                  EMBRT_OK, ctx);
  else
    s->workspace = malloc(bytes ? bytes : 16);
  s->workspaceBytes = bytes;
}

/// The tables and states of a side after its steps, on the host.
typedef struct Result {
  void *tables[MAX_TABLES];
  float *m1[MAX_TABLES], *m2[MAX_TABLES];
} Result;

static Result fetch(embrtContext *ctx, const Case *c, const Side *s) {
  Result r;
  memset(&r, 0, sizeof r);
  int gpu = embrtContextGetDevice(ctx) == EMBRT_DEVICE_CUDA;
  size_t esz = embrtDtypeSize(c->tableDtype);
  for (int t = 0; t < c->numTables; ++t) {
    size_t tb = (size_t)(c->rows[t] * c->dims[t]) * esz;
    size_t b1 = stateElems(c, t, 1) * 4, b2 = stateElems(c, t, 2) * 4;
    r.tables[t] = poisoned(tb);
    r.m1[t] = b1 ? poisoned(b1) : NULL;
    r.m2[t] = b2 ? poisoned(b2) : NULL;
    if (gpu) {
      toHost(ctx, r.tables[t], s->tables[t], tb);
      if (b1)
        toHost(ctx, r.m1[t], s->m1[t], b1);
      if (b2)
        toHost(ctx, r.m2[t], s->m2[t], b2);
    } else {
      memcpy(r.tables[t], s->tables[t], tb);
      if (b1)
        memcpy(r.m1[t], s->m1[t], b1);
      if (b2)
        memcpy(r.m2[t], s->m2[t], b2);
    }
  }
  return r;
}

static void freeResult(const Case *c, Result *r) {
  for (int t = 0; t < c->numTables; ++t) {
    free(r->tables[t]);
    free(r->m1[t]);
    free(r->m2[t]);
  }
}

/// One 16-bit ulp at |x| (0 for f32 tables).
static double ulp16(embrtDtype dtype, double x) {
  if (dtype == EMBRT_F32)
    return 0;
  int mantissa = dtype == EMBRT_F16 ? 10 : 7;
  int minExp = dtype == EMBRT_F16 ? -14 : -126;
  int e;
  frexp(fabs(x), &e);
  if (e - 1 < minExp)
    e = minExp + 1;
  return ldexp(1.0, e - 1 - mantissa);
}

/// Compares `got` with `want`, starting from `before`, row by row.
static void compare(const Case *c, const char *what, const Inputs *before,
                    const Result *got, const Result *want) {
  int bad = 0;
  for (int t = 0; t < c->numTables && bad < 6; ++t) {
    int64_t D = c->dims[t];
    for (int64_t r = 0; r < c->rows[t] && bad < 6; ++r) {
      double maxW = 0, maxDelta = 0;
      for (int64_t d = 0; d < D; ++d) {
        int64_t i = r * D + d;
        double w0 = refLoad(before->tables[t], c->tableDtype, i);
        double w1 = refLoad(want->tables[t], c->tableDtype, i);
        maxW = fmax(maxW, fabs(w1));
        maxDelta = fmax(maxDelta, fabs(w1 - w0));
      }
      double tol = 1e-5 * maxW + 2e-3 * maxDelta + 1e-7;
      for (int64_t d = 0; d < D && bad < 6; ++d) {
        int64_t i = r * D + d;
        double g = refLoad(got->tables[t], c->tableDtype, i);
        double w = refLoad(want->tables[t], c->tableDtype, i);
        // One 16-bit ulp a step: rounding points straddled in earlier steps
        // carry over.
        double bound = tol + 1.01 * c->steps * ulp16(c->tableDtype, w);
        if (!(fabs(g - w) <= bound)) {
          HARNESS_FAIL("%s: table %d row %lld col %lld is %.9g, expected "
                       "%.9g (was %.9g, |diff| %.3g > %.3g)",
                       what, t, (long long)r, (long long)d, g, w,
                       refLoad(before->tables[t], c->tableDtype, i),
                       fabs(g - w), bound);
          ++bad;
        }
      }
      if (c->optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD) {
        double g = got->m1[t][r], w = want->m1[t][r];
        if (!(fabs(g - w) <= 2e-4 * fabs(w) + 1e-6)) {
          HARNESS_FAIL("%s: state of table %d row %lld is %.9g, expected %.9g",
                       what, t, (long long)r, g, w);
          ++bad;
        }
      }
      if (c->optimizer == EMBRT_OPTIMIZER_ADAM) {
        double mScale = 0, vScale = 0;
        for (int64_t d = 0; d < D; ++d) {
          mScale = fmax(mScale, fabs(want->m1[t][r * D + d]));
          vScale = fmax(vScale, fabs(want->m2[t][r * D + d]));
        }
        for (int64_t d = 0; d < D && bad < 6; ++d) {
          int64_t i = r * D + d;
          if (!(fabs(got->m1[t][i] - want->m1[t][i]) <= 1e-4 * mScale + 1e-7) ||
              !(fabs(got->m2[t][i] - want->m2[t][i]) <= 1e-4 * vScale + 1e-7)) {
            HARNESS_FAIL("%s: moments of table %d [%lld] are %.9g, %.9g, "
                         "expected %.9g, %.9g",
                         what, t, (long long)i, got->m1[t][i], got->m2[t][i],
                         want->m1[t][i], want->m2[t][i]);
            ++bad;
          }
        }
      }
    }
  }
}

/// Runs the case's steps on one side (a new gradient each step, drawn from
/// `gradSeed`, and the next step count). Returns the status of the first
/// failing call or synchronisation.
static embrtStatus runSteps(embrtContext *ctx, const Case *c, Inputs *in,
                            Side *s, int64_t configId, uint64_t gradSeed,
                            char *message, size_t messageSize) {
  int gpu = embrtContextGetDevice(ctx) == EMBRT_DEVICE_CUDA;
  Rng rng = rngSeed(gradSeed);
  size_t gb = (size_t)in->gradElements * embrtDtypeSize(c->gradDtype);
  embrtStatus status = EMBRT_OK;
  for (int k = 0; k < c->steps && status == EMBRT_OK; ++k) {
    int64_t step = in->step + k;
    void *grad =
        k == 0 ? NULL : randomTensor(&rng, c->gradDtype, in->gradElements);
    if (gpu) {
      if (grad && s->gradRowStride) {
        size_t sb;
        void *strided =
            stridedGrad(c, grad, in->gradElements, s->gradRowStride, &sb);
        EXPECT_STATUS(
            embrtMemcpy(ctx, s->grad, strided, sb, EMBRT_COPY_HOST_TO_DEVICE),
            EMBRT_OK, ctx);
        free(strided);
      } else if (grad) {
        EXPECT_STATUS(
            embrtMemcpy(ctx, s->grad, grad, gb, EMBRT_COPY_HOST_TO_DEVICE),
            EMBRT_OK, ctx);
      }
      EXPECT_STATUS(
          embrtMemcpy(ctx, s->step, &step, 8, EMBRT_COPY_HOST_TO_DEVICE),
          EMBRT_OK, ctx);
    } else {
      if (grad)
        memcpy(s->grad, grad, gb);
      *(int64_t *)s->step = step;
    }
    embrtTbeBackwardArgs a = makeArgs(c, in, s, configId);
    status = backward(ctx, c, &a);
    if (status == EMBRT_OK && gpu)
      status = embrtSynchronize(ctx);
    free(grad);
  }
  snprintf(message, messageSize, "%s", embrtContextGetLastError(ctx));
  return status;
}

static int64_t casesRun;

/// The case on the CPU (reference) and on the GPU under `configs` (-1: the
/// runtime's choice); every GPU result against the CPU's, and the all-short
/// and all-long routings against each other when both ran.
static void runCase(embrtContext *gpu, embrtContext *cpu, const Case *c,
                    uint64_t seed, const int64_t *configs, int numConfigs) {
  TEST_CASE(c->name);
  fprintf(stderr, "@%s\n", c->name);
  ++casesRun;
  Rng rng = rngSeed(seed);
  Inputs in;
  makeInputs(c, &rng, &in);
  // The CPU's grad buffer is the inputs' own: keep a copy for the GPU.
  size_t gb = (size_t)in.gradElements * embrtDtypeSize(c->gradDtype);
  void *grad0 = malloc(gb ? gb : 1);
  memcpy(grad0, in.grad, gb);

  Side host = makeSide(cpu, c, &in);
  allocWorkspace(cpu, c, &in, &host, -1);
  char cpuMessage[1024];
  int64_t cpuInvalid = embrtContextGetInvalidIdCount(cpu);
  embrtStatus cpuStatus = runSteps(cpu, c, &in, &host, -1, seed * 7 + 1,
                                   cpuMessage, sizeof cpuMessage);
  cpuInvalid = embrtContextGetInvalidIdCount(cpu) - cpuInvalid;
  embrtContextClearError(cpu);
  Result want = fetch(cpu, c, &host);
  memcpy(in.grad, grad0, gb);

  Result routed[2];
  int haveRouted[2] = {0, 0};
  for (int k = 0; k < numConfigs; ++k) {
    char what[64];
    snprintf(what, sizeof what, "config %lld", (long long)configs[k]);
    Side dev = makeSide(gpu, c, &in);
    allocWorkspace(gpu, c, &in, &dev, configs[k]);
    char gpuMessage[1024];
    int64_t gpuInvalid = embrtContextGetInvalidIdCount(gpu);
    embrtStatus gpuStatus =
        runSteps(gpu, c, &in, &dev, configs[k], seed * 7 + 1, gpuMessage,
                 sizeof gpuMessage);
    gpuInvalid = embrtContextGetInvalidIdCount(gpu) - gpuInvalid;
    if (cpuStatus != EMBRT_OK) {
      if (gpuStatus != cpuStatus)
        HARNESS_FAIL("%s: the GPU returned %s (%s), the CPU %s (%s)", what,
                     embrtStatusName(gpuStatus), gpuMessage,
                     embrtStatusName(cpuStatus), cpuMessage);
      const char *where = strstr(cpuMessage, "feature");
      if (c->badPerMille < 0 && where) {
        // "feature F bag B: id I ... table"; the CPU also names the id's
        // position (", at indices[P]"), the device record does not.
        char want[256];
        snprintf(want, sizeof want, "%s", where);
        char *at = strstr(want, ", at indices[");
        if (at)
          *at = '\0';
        EXPECT_CONTAINS(gpuMessage, want);
      } else
        EXPECT_CONTAINS(gpuMessage, "device: feature");
    } else {
      if (gpuStatus != EMBRT_OK)
        HARNESS_FAIL("%s: the GPU returned %s: %s", what,
                     embrtStatusName(gpuStatus), gpuMessage);
      EXPECT_EQ_INT(gpuInvalid, cpuInvalid);
      Result got = fetch(gpu, c, &dev);
      compare(c, what, &in, &got, &want);
      int slot = configs[k] == 1 ? 0 : configs[k] == 2 ? 1 : -1;
      if (slot >= 0 && !haveRouted[slot]) {
        routed[slot] = got;
        haveRouted[slot] = 1;
      } else {
        freeResult(c, &got);
      }
    }
    embrtContextClearError(gpu);
    freeSide(gpu, c, &dev);
  }
  if (haveRouted[0] && haveRouted[1])
    compare(c, "all-long against all-short", &in, &routed[1], &routed[0]);
  for (int k = 0; k < 2; ++k)
    if (haveRouted[k])
      freeResult(c, &routed[k]);
  freeResult(c, &want);
  freeSide(cpu, c, &host);
  free(grad0);
  freeInputs(c, &in);
}

/// Adam counts steps from 1: a step below 1 is refused on both sides, the
/// CPU from the call, the GPU at embrtSynchronize (the step is device data),
/// under every routing; neither changes a table or a state.
static void testAdamStepBelowOne(embrtContext *gpu, embrtContext *cpu,
                                 const Case *c, int64_t step) {
  TEST_CASE(c->name);
  fprintf(stderr, "@%s\n", c->name);
  ++casesRun;
  Rng rng = rngSeed(99);
  Inputs in;
  makeInputs(c, &rng, &in);
  in.step = step;
  char want[160], message[1024];
  snprintf(want, sizeof want, "step is %lld, adam counts steps from 1",
           (long long)step);
  Side host = makeSide(cpu, c, &in);
  allocWorkspace(cpu, c, &in, &host, -1);
  embrtStatus status =
      runSteps(cpu, c, &in, &host, -1, 5, message, sizeof message);
  if (status != EMBRT_OUT_OF_RANGE)
    HARNESS_FAIL("the CPU returned %s (%s)", embrtStatusName(status), message);
  EXPECT_CONTAINS(message, want);
  embrtContextClearError(cpu);
  static const int64_t configs[] = {-1, 1, 2, 5};
  for (int k = -1; k < 4; ++k) {
    // k = -1: the CPU's side, then the GPU under each routing.
    embrtContext *ctx = k < 0 ? cpu : gpu;
    Side dev;
    memset(&dev, 0, sizeof dev);
    if (k >= 0) {
      dev = makeSide(gpu, c, &in);
      allocWorkspace(gpu, c, &in, &dev, configs[k]);
      status =
          runSteps(gpu, c, &in, &dev, configs[k], 5, message, sizeof message);
      if (status != EMBRT_OUT_OF_RANGE)
        HARNESS_FAIL("config %lld: the GPU returned %s (%s)",
                     (long long)configs[k], embrtStatusName(status), message);
      EXPECT_CONTAINS(message, want);
      embrtContextClearError(gpu);
    }
    Result got = fetch(ctx, c, k < 0 ? &host : &dev);
    for (int t = 0; t < c->numTables; ++t) {
      size_t n = (size_t)(c->rows[t] * c->dims[t]);
      EXPECT_TRUE(memcmp(got.tables[t], in.tables[t],
                         n * embrtDtypeSize(c->tableDtype)) == 0);
      EXPECT_TRUE(memcmp(got.m1[t], in.m1[t], n * 4) == 0);
      EXPECT_TRUE(memcmp(got.m2[t], in.m2[t], n * 4) == 0);
    }
    freeResult(c, &got);
    if (k >= 0)
      freeSide(gpu, c, &dev);
  }
  freeSide(cpu, c, &host);
  freeInputs(c, &in);
}

/// A case with the defaults: f32 tables and gradients, i64 ids and offsets,
/// sum pooling, fatal bounds checks, rowwise Adagrad, one step.
static Case base(const char *name) {
  Case c;
  memset(&c, 0, sizeof c);
  c.name = name;
  c.tableDtype = c.gradDtype = EMBRT_F32;
  c.indexDtype = c.offsetDtype = EMBRT_I64;
  c.pooling = EMBRT_POOLING_SUM;
  c.bounds = EMBRT_BOUNDS_FATAL;
  c.optimizer = EMBRT_OPTIMIZER_ROWWISE_ADAGRAD;
  c.steps = 1;
  c.configId = -1;
  return c;
}

static void setTables(Case *c, int n, const int64_t *dims, int64_t rows) {
  c->numTables = n;
  for (int t = 0; t < n; ++t) {
    c->dims[t] = dims[t % 8];
    c->rows[t] = rows + 37 * t;
  }
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    quick |= strcmp(argv[i], "--quick") == 0;
  embrtContext *gpu = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }
  embrtContext *cpu = newCpuContext();
  const int64_t B = quick ? 24 : 160;
  uint64_t seed = 1;
  static const embrtDtype tableTypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  static const char *typeNames[] = {"f32", "f16", "bf16"};
  static const char *optNames[] = {"sgd", "rowwise_adagrad", "adam"};
  static const char *poolNames[] = {"sum", "mean", "none"};
  static const int64_t mixedDims[] = {128, 64, 8, 1, 3, 17, 100, 24};
  static const int64_t auto1[] = {-1};
  static const int64_t routings[] = {-1, 1, 2, 5};
  static const int64_t allConfigs[] = {0, 1, 2, 3, 4, 5};
  char names[160][112];
  int nameCount = 0;
#define NAME(...)                                                              \
  (snprintf(names[nameCount], 112, __VA_ARGS__), names[nameCount++])

  // Every optimizer x table dtype x pooling x gradient dtype; mixed D with
  // misaligned columns, shared tables, padding for MEAN, weights for SUM.
  for (int o = 0; o < 3; ++o)
    for (int d = 0; d < 3; ++d)
      for (int pool = 0; pool < 3; ++pool)
        for (int gt = 0; gt < (d ? 2 : 1); ++gt) {
          Case c =
              base(NAME("%s, %s tables, %s grad, %s", optNames[o], typeNames[d],
                        gt ? typeNames[d] : "f32", poolNames[pool]));
          c.optimizer = (embrtOptimizer)o;
          c.tableDtype = tableTypes[d];
          c.gradDtype = gt ? tableTypes[d] : EMBRT_F32;
          c.pooling = (embrtPooling)pool;
          if (pool == EMBRT_POOLING_NONE) {
            static const int64_t same[] = {40, 40, 40, 40, 40, 40, 40, 40};
            setTables(&c, 3, same, 300);
          } else {
            setTables(&c, 8, mixedDims, 300);
          }
          c.numFeatures = pool == EMBRT_POOLING_NONE ? 4 : 11;
          c.batch = B;
          c.minBag = 0;
          c.maxBag = 12;
          c.paddingPercent = pool == EMBRT_POOLING_MEAN ? 15 : 0;
          c.weighted = pool == EMBRT_POOLING_SUM ? (gt ? 2 : 1) : 0;
          if (pool == EMBRT_POOLING_SUM && o == 1 && d == 0)
            c.weighted = 0; // the unweighted row-offset values, mixed D
          c.indexDtype = (o + pool) % 2 ? EMBRT_I32 : EMBRT_I64;
          c.offsetDtype = (d + pool) % 2 ? EMBRT_I32 : EMBRT_I64;
          c.steps = 2;
          runCase(gpu, cpu, &c, seed++, auto1, 1);
        }

  // Routing: forced all-short and all-long on hot rows (runs from 1 to
  // hundreds of positions), compared with the CPU and with each other;
  // then every configuration.
  for (int o = 0; o < 3; ++o) {
    Case c = base(NAME("routing, %s, skewed ids", optNames[o]));
    c.optimizer = (embrtOptimizer)o;
    c.tableDtype = o == 2 ? EMBRT_BF16 : EMBRT_F32;
    static const int64_t dims[] = {64, 16};
    setTables(&c, 2, dims, quick ? 20 : 60);
    c.numFeatures = 3;
    c.batch = quick ? 64 : 600;
    c.minBag = 1;
    c.maxBag = 20;
    c.steps = 2;
    runCase(gpu, cpu, &c, seed++, routings, 4);
  }
  {
    Case c = base(NAME("every configuration, f16, mean"));
    c.tableDtype = c.gradDtype = EMBRT_F16;
    c.pooling = EMBRT_POOLING_MEAN;
    c.paddingPercent = 10;
    setTables(&c, 4, mixedDims, 90);
    c.numFeatures = 5;
    c.batch = quick ? 40 : 300;
    c.minBag = 0;
    c.maxBag = 30;
    runCase(gpu, cpu, &c, seed++, allConfigs, 6);
  }

  // The hard ones.
  {
    Case c = base(NAME("one row touched by millions of positions"));
    static const int64_t dims[] = {64};
    setTables(&c, 1, dims, 1000);
    c.numFeatures = 1;
    c.batch = quick ? 20000 : 1000000;
    c.minBag = c.maxBag = 3;
    c.idMode = 1;
    runCase(gpu, cpu, &c, seed++, routings, quick ? 2 : 4);
  }
  for (int k = 0; k < 2; ++k) {
    Case c = base(NAME(k ? "every id distinct" : "all ids the same"));
    c.optimizer = k ? EMBRT_OPTIMIZER_ADAM : EMBRT_OPTIMIZER_SGD;
    c.tableDtype = k ? EMBRT_F16 : EMBRT_F32;
    static const int64_t dims[] = {32, 8};
    setTables(&c, 2, dims, quick ? 2000 : 40000);
    c.numFeatures = 2;
    c.batch = quick ? 100 : 3000;
    c.minBag = 1;
    c.maxBag = 10;
    c.idMode = k ? 2 : 1;
    runCase(gpu, cpu, &c, seed++, routings, 4);
  }
  for (int d = 0; d < 2; ++d) {
    // Tables past 2^16 rows (keys and rows past 16 bits), ids over all
    // their rows.
    Case c = base(NAME("tables past 2^16 rows, %s", typeNames[d]));
    c.tableDtype = c.gradDtype = tableTypes[d];
    static const int64_t dims[] = {128, 16};
    setTables(&c, 2, dims, quick ? 70000 : 150000);
    c.numFeatures = 3;
    c.batch = quick ? 500 : 2000;
    c.minBag = 1;
    c.maxBag = 12;
    c.steps = 2;
    runCase(gpu, cpu, &c, seed++, routings, 4);
  }
  {
    Case c = base(NAME("mostly empty bags, tables of one row"));
    static const int64_t dims[] = {16, 1, 4};
    setTables(&c, 3, dims, 1);
    c.rows[0] = c.rows[1] = c.rows[2] = 1;
    c.numFeatures = 5;
    c.batch = B;
    c.minBag = 0;
    c.maxBag = 4;
    c.emptyPercent = 90;
    c.steps = 3;
    runCase(gpu, cpu, &c, seed++, routings, 4);
  }
  for (int d = 0; d < 3; ++d) {
    Case c = base(NAME("D = 1, 2048, 256 and 1000, %s", typeNames[d]));
    c.tableDtype = tableTypes[d];
    c.gradDtype = d == 1 ? EMBRT_F16 : EMBRT_F32;
    c.optimizer = (embrtOptimizer)d;
    static const int64_t dims[] = {1, 2048, 256, 1000};
    setTables(&c, 4, dims, 40);
    c.numFeatures = 4;
    c.batch = quick ? 10 : 50;
    c.minBag = 0;
    c.maxBag = 6;
    c.steps = 2;
    runCase(gpu, cpu, &c, seed++, routings, 4);
  }
  {
    Case c = base(NAME("no ids at all"));
    static const int64_t dims[] = {16, 48};
    setTables(&c, 2, dims, 10);
    c.numFeatures = 2;
    c.batch = 17;
    runCase(gpu, cpu, &c, seed++, auto1, 1);
  }
  {
    Case c = base(NAME("70 tables, 300 features (metadata in the workspace)"));
    setTables(&c, 70, mixedDims, 20);
    c.numFeatures = 300;
    c.batch = quick ? 3 : 8;
    c.minBag = 0;
    c.maxBag = 5;
    runCase(gpu, cpu, &c, seed++, auto1, 1);
  }
  {
    Case c = base(NAME("embedding_bag_backward, mean, padding"));
    c.viaEmbeddingBag = 1;
    c.pooling = EMBRT_POOLING_MEAN;
    c.tableDtype = c.gradDtype = EMBRT_BF16;
    c.optimizer = EMBRT_OPTIMIZER_ADAM;
    static const int64_t dims[] = {64};
    setTables(&c, 1, dims, 500);
    c.numFeatures = 1;
    c.batch = quick ? 64 : 2048;
    c.minBag = 1;
    c.maxBag = 8;
    c.paddingPercent = 25;
    c.steps = 3;
    runCase(gpu, cpu, &c, seed++, auto1, 1);
  }

  // Gradient rows a stride apart on the GPU (the columns of a wider tensor,
  // NaN between rows), dense on the CPU: every pooling, f32 and 16-bit
  // gradients, pads that keep and that break the vector loads' alignment,
  // several steps, and through embrtEmbeddingBagBackward.
  for (int k = 0; k < 5; ++k) {
    static const char *what[] = {"sum, f32, pad 5", "sum, f16, pad 8",
                                 "mean, bf16, pad 3", "none, f32, pad 64",
                                 "embedding_bag_backward, adam, pad 7"};
    Case c = base(NAME("strided gradient: %s", what[k]));
    c.pooling = k == 2   ? EMBRT_POOLING_MEAN
                : k == 3 ? EMBRT_POOLING_NONE
                         : EMBRT_POOLING_SUM;
    c.tableDtype = c.gradDtype = k == 1   ? EMBRT_F16
                                 : k == 2 ? EMBRT_BF16
                                          : EMBRT_F32;
    c.optimizer =
        k >= 3 ? EMBRT_OPTIMIZER_ADAM
               : (embrtOptimizer)(k % 2 ? EMBRT_OPTIMIZER_SGD
                                        : EMBRT_OPTIMIZER_ROWWISE_ADAGRAD);
    static const int64_t pads[] = {5, 8, 3, 64, 7};
    c.gradPad = pads[k];
    static const int64_t dims64[] = {64};
    static const int64_t same[] = {40, 40, 40, 40, 40, 40, 40, 40};
    if (k == 4) {
      c.viaEmbeddingBag = 1;
      setTables(&c, 1, dims64, 500);
      c.numFeatures = 1;
    } else if (k == 3) {
      setTables(&c, 3, same, 300);
      c.numFeatures = 4;
    } else {
      setTables(&c, 8, mixedDims, 300);
      c.numFeatures = 11;
    }
    c.batch = B;
    c.maxBag = 12;
    c.paddingPercent = k == 2 ? 15 : 0;
    c.weighted = k == 0;
    c.steps = 2;
    runCase(gpu, cpu, &c, seed++, auto1, 1);
  }

  // Adam at a step below 1: refused, nothing changed (the CPU from the
  // call, the GPU at embrtSynchronize).
  {
    Case c = base(NAME("adam at step 0"));
    c.optimizer = EMBRT_OPTIMIZER_ADAM;
    setTables(&c, 8, mixedDims, 300);
    c.numFeatures = 11;
    c.batch = B;
    c.maxBag = 12;
    testAdamStepBelowOne(gpu, cpu, &c, 0);
    c = base(NAME("adam at step -1, embedding_bag_backward, bf16"));
    c.optimizer = EMBRT_OPTIMIZER_ADAM;
    c.viaEmbeddingBag = 1;
    c.tableDtype = c.gradDtype = EMBRT_BF16;
    static const int64_t dims[] = {64};
    setTables(&c, 1, dims, 500);
    c.numFeatures = 1;
    c.batch = quick ? 64 : 2048;
    c.minBag = 1;
    c.maxBag = 8;
    testAdamStepBelowOne(gpu, cpu, &c, -1);
  }

  // Bounds-check modes with bad ids; bad offsets.
  for (int mode = 0; mode < 4; ++mode) {
    static const char *modes[] = {"fatal", "warning", "ignore", "none"};
    Case c = base(NAME("bounds %s", modes[mode]));
    c.bounds = (embrtBoundsCheck)mode;
    setTables(&c, 3, mixedDims, 50);
    c.numFeatures = 3;
    c.batch = B;
    c.minBag = 0;
    c.maxBag = 8;
    c.badPerMille = mode == 0 ? -1 : 50;
    c.paddingPercent = 10;
    c.indexDtype = mode % 2 ? EMBRT_I32 : EMBRT_I64;
    runCase(gpu, cpu, &c, seed++, auto1, 1);
  }
  {
    Case c = base(NAME("bad offsets"));
    c.bounds = EMBRT_BOUNDS_IGNORE;
    setTables(&c, 2, mixedDims, 50);
    c.numFeatures = 2;
    c.batch = B;
    c.minBag = 0;
    c.maxBag = 8;
    c.badOffsets = 1;
    c.offsetDtype = EMBRT_I32;
    runCase(gpu, cpu, &c, seed++, auto1, 1);
  }

  fprintf(stderr, "%lld cases\n", (long long)casesRun);
  embrtContextDestroy(cpu);
  embrtContextDestroy(gpu);
  return harnessFinish();
}
