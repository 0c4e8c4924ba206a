// RUN: %runtime_test_dir/tbe
//
// embrtTbeForward and embrtEmbeddingBag on the CPU against a direct f64
// computation: every dtype combination, pooling mode and bounds-check mode,
// mixed and shared tables, empty and all-padding bags, invalid offsets and
// malformed arguments.

#include "harness.h"

#define MAX_TABLES 4
#define MAX_FEATURES 5

/// One lookup problem: shapes, the ids and offsets as int64 (for the
/// reference), and the tensors handed to the runtime.
typedef struct Problem {
  int64_t T, F, B, N;
  int64_t rows[MAX_TABLES], dims[MAX_TABLES], featureTables[MAX_FEATURES];
  embrtDtype tableDtype, indexDtype, offsetDtype, outputDtype, weightDtype;
  embrtPooling pooling;
  embrtBoundsCheck boundsCheck;
  int hasPadding, hasWeights;
  int64_t paddingIdx;
  void *tables[MAX_TABLES];
  int64_t *ids, *offs;
  void *indices, *offsets, *weights, *output;
  int64_t outputElements;
} Problem;

/// Output width of the pooled output, or D of the unpooled one.
static int64_t rowWidth(const Problem *p) {
  if (p->pooling == EMBRT_POOLING_NONE)
    return p->F > 0 ? p->dims[p->featureTables[0]] : 0;
  int64_t width = 0;
  for (int64_t f = 0; f < p->F; ++f)
    width += p->dims[p->featureTables[f]];
  return width;
}

/// Fills the tables and a random bag layout (about one bag in five empty,
/// about one id in eight the padding id when there is one).
static void makeData(Problem *p, Rng *rng, int maxBag) {
  for (int64_t t = 0; t < p->T; ++t)
    p->tables[t] = randomTensor(rng, p->tableDtype, p->rows[t] * p->dims[t]);
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
}

/// Encodes ids and offsets and poisons the output.
static void encode(Problem *p) {
  free(p->indices);
  free(p->offsets);
  free(p->output);
  p->indices = indexTensor(p->indexDtype, p->ids, p->N);
  p->offsets = indexTensor(p->offsetDtype, p->offs, p->F * p->B + 1);
  int64_t rowsOut = p->pooling == EMBRT_POOLING_NONE ? p->N : p->B;
  p->outputElements = rowsOut * rowWidth(p);
  p->output =
      poisoned((size_t)p->outputElements * embrtDtypeSize(p->outputDtype));
}

static void freeProblem(Problem *p) {
  for (int64_t t = 0; t < p->T; ++t)
    free(p->tables[t]);
  free(p->ids);
  free(p->offs);
  free(p->indices);
  free(p->offsets);
  free(p->weights);
  free(p->output);
}

static embrtTbeArgs argsOf(Problem *p) {
  embrtTbeArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.pooling = p->pooling;
  a.boundsCheck = p->boundsCheck;
  a.numTables = p->T;
  a.tables = (const void *const *)p->tables;
  a.tableRows = p->rows;
  a.tableDims = p->dims;
  a.tableDtype = p->tableDtype;
  a.numFeatures = p->F;
  a.featureTables = p->featureTables;
  a.batchSize = p->B;
  a.numIndices = p->N;
  a.indices = p->indices;
  a.indexDtype = p->indexDtype;
  a.offsets = p->offsets;
  a.offsetDtype = p->offsetDtype;
  a.perSampleWeights = p->weights;
  a.perSampleWeightDtype = p->weightDtype;
  a.paddingIdx = p->paddingIdx;
  a.hasPaddingIdx = p->hasPadding;
  a.output = p->output;
  a.outputDtype = p->outputDtype;
  a.configId = -1;
  return a;
}

/// Whether id of table t contributes in the reference.
static int contributes(const Problem *p, int64_t id, int64_t t) {
  if (p->hasPadding && id == p->paddingIdx)
    return 0;
  return id >= 0 && id < p->rows[t];
}

/// Compares p->output with the f64 reference; returns the mismatch count.
static int checkOutput(const Problem *p) {
  int64_t width = rowWidth(p);
  double tol = harnessTolerance(p->outputDtype, p->tableDtype);
  int mismatches = 0;
  if (p->pooling == EMBRT_POOLING_NONE) {
    for (int64_t f = 0; f < p->F; ++f) {
      int64_t t = p->featureTables[f];
      for (int64_t i = p->offs[f * p->B]; i < p->offs[(f + 1) * p->B]; ++i)
        for (int64_t d = 0; d < width; ++d) {
          double ref =
              contributes(p, p->ids[i], t)
                  ? refLoad(p->tables[t], p->tableDtype, p->ids[i] * width + d)
                  : 0.0;
          double got = refLoad(p->output, p->outputDtype, i * width + d);
          if (!EXPECT_NEAR("output", i * width + d, got, ref, 0.0, tol) &&
              ++mismatches > 5)
            return mismatches;
        }
    }
    return mismatches;
  }
  int64_t column = 0;
  for (int64_t f = 0; f < p->F; ++f) {
    int64_t t = p->featureTables[f], D = p->dims[t];
    for (int64_t b = 0; b < p->B; ++b) {
      int64_t begin = p->offs[f * p->B + b], end = p->offs[f * p->B + b + 1];
      for (int64_t d = 0; d < D; ++d) {
        double sum = 0.0, magnitude = 0.0;
        int64_t count = 0;
        for (int64_t i = begin; i < end; ++i) {
          if (!contributes(p, p->ids[i], t))
            continue;
          double w = p->hasWeights ? refLoad(p->weights, p->weightDtype, i) : 1;
          double term =
              w * refLoad(p->tables[t], p->tableDtype, p->ids[i] * D + d);
          sum += term;
          magnitude += fabs(term);
          ++count;
        }
        if (p->pooling == EMBRT_POOLING_MEAN) {
          sum = count ? sum / (double)count : 0.0;
          magnitude = count ? magnitude / (double)count : 0.0;
        }
        int64_t at = b * width + column + d;
        double got = refLoad(p->output, p->outputDtype, at);
        if (!EXPECT_NEAR("output", at, got, sum, magnitude, tol) &&
            ++mismatches > 5)
          return mismatches;
      }
    }
    column += D;
  }
  return mismatches;
}

/// Whether the output is still all 0xFF bytes.
static int untouched(const Problem *p) {
  size_t bytes = (size_t)p->outputElements * embrtDtypeSize(p->outputDtype);
  for (size_t i = 0; i < bytes; ++i)
    if (((unsigned char *)p->output)[i] != 0xFF)
      return 0;
  return 1;
}

/// A problem with three tables (D = 1, 3 and 2048 when `wide`, else 1, 3,
/// 8), four features of which two share table 0.
static void setUpMixed(Problem *p, Rng *rng, embrtDtype tableDtype, int wide) {
  memset(p, 0, sizeof *p);
  p->T = 3;
  p->rows[0] = 50, p->dims[0] = 1;
  p->rows[1] = 7, p->dims[1] = 3;
  p->rows[2] = 20, p->dims[2] = wide ? 2048 : 8;
  p->F = 4;
  p->featureTables[0] = 0, p->featureTables[1] = 2;
  p->featureTables[2] = 1, p->featureTables[3] = 0;
  p->B = 6;
  p->tableDtype = tableDtype;
  p->indexDtype = EMBRT_I64;
  p->offsetDtype = EMBRT_I64;
  p->outputDtype = EMBRT_F32;
  p->weightDtype = EMBRT_F32;
  p->pooling = EMBRT_POOLING_SUM;
  p->boundsCheck = EMBRT_BOUNDS_FATAL;
  (void)rng;
}

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

/// Every dtype combination with every pooling mode, with and without
/// padding and per-sample weights.
static void testCombinations(embrtContext *ctx, Rng *rng) {
  const embrtDtype tableDtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  const embrtDtype indexDtypes[] = {EMBRT_I32, EMBRT_I64};
  const embrtPooling poolings[] = {EMBRT_POOLING_SUM, EMBRT_POOLING_MEAN,
                                   EMBRT_POOLING_NONE};
  static char name[128];
  for (int td = 0; td < 3; ++td)
    for (int out = 0; out < 2; ++out)
      for (int id = 0; id < 2; ++id)
        for (int od = 0; od < 2; ++od)
          for (int pm = 0; pm < 3; ++pm)
            for (int variant = 0; variant < 3; ++variant) {
              Problem p;
              setUpMixed(&p, rng, tableDtypes[td], 0);
              p.outputDtype = out ? tableDtypes[td] : EMBRT_F32;
              p.indexDtype = indexDtypes[id];
              p.offsetDtype = indexDtypes[od];
              p.pooling = poolings[pm];
              if (p.pooling == EMBRT_POOLING_NONE) {
                // One D for all features: three features share table 2.
                p.F = 3;
                p.featureTables[0] = 2;
                p.featureTables[1] = 2;
                p.featureTables[2] = 2;
              }
              p.hasPadding = variant >= 1;
              p.paddingIdx = 2;
              p.hasWeights = variant == 2 && p.pooling == EMBRT_POOLING_SUM;
              p.weightDtype = out ? tableDtypes[td] : EMBRT_F32;
              snprintf(name, sizeof name,
                       "combination table=%s out=%s idx=%s off=%s pooling=%d "
                       "variant=%d",
                       dtypeLabel(p.tableDtype), dtypeLabel(p.outputDtype),
                       dtypeLabel(p.indexDtype), dtypeLabel(p.offsetDtype),
                       (int)p.pooling, variant);
              TEST_CASE(name);
              makeData(&p, rng, 6);
              encode(&p);
              embrtTbeArgs a = argsOf(&p);
              EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
              checkOutput(&p);
              freeProblem(&p);
            }
}

/// D = 1, 3 and 2048 side by side; two features share table 0.
static void testWideMixed(embrtContext *ctx, Rng *rng) {
  const embrtDtype tableDtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  for (int td = 0; td < 3; ++td) {
    TEST_CASE(td == 0   ? "wide mixed f32"
              : td == 1 ? "wide mixed f16"
                        : "wide mixed bf16");
    Problem p;
    setUpMixed(&p, rng, tableDtypes[td], 1);
    p.outputDtype = tableDtypes[td];
    p.pooling = td == 1 ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
    makeData(&p, rng, 5);
    encode(&p);
    size_t bytes = 1;
    embrtTbeArgs a = argsOf(&p);
    EXPECT_STATUS(embrtTbeWorkspaceSize(ctx, &a, &bytes), EMBRT_OK, ctx);
    EXPECT_EQ_INT(bytes, 0);
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
    EXPECT_EQ_INT(rowWidth(&p), 1 + 2048 + 3 + 1);
    checkOutput(&p);
    freeProblem(&p);
  }
}

/// Empty bags give zeros; a mean over a bag of padding ids gives zeros.
static void testEmptyAndPaddingBags(embrtContext *ctx, Rng *rng) {
  TEST_CASE("empty and all-padding bags");
  const embrtPooling poolings[] = {EMBRT_POOLING_SUM, EMBRT_POOLING_MEAN};
  for (int pm = 0; pm < 2; ++pm) {
    Problem p;
    setUpMixed(&p, rng, EMBRT_F16, 0);
    p.pooling = poolings[pm];
    p.hasPadding = 1;
    p.paddingIdx = 4;
    makeData(&p, rng, 4);
    // Feature 1 bag 0: empty; feature 2 bag 1: three padding ids.
    int64_t numBags = p.F * p.B;
    int64_t *offs = malloc((size_t)(numBags + 1) * sizeof(int64_t));
    int64_t *ids = malloc((size_t)(p.N + 8) * sizeof(int64_t));
    int64_t n = 0;
    offs[0] = 0;
    for (int64_t s = 0; s < numBags; ++s) {
      int64_t f = s / p.B, b = s % p.B;
      int64_t rows = p.rows[p.featureTables[f]];
      if (f == 2 && b == 1) {
        for (int k = 0; k < 3; ++k)
          ids[n++] = p.paddingIdx;
      } else if (!(f == 1 && b == 0)) {
        for (int64_t i = p.offs[s]; i < p.offs[s + 1]; ++i)
          ids[n++] = p.ids[i] == p.paddingIdx ? p.ids[i] : p.ids[i] % rows;
      }
      offs[s + 1] = n;
    }
    free(p.ids);
    free(p.offs);
    p.ids = ids, p.offs = offs, p.N = n;
    free(p.weights);
    p.weights = NULL;
    encode(&p);
    embrtTbeArgs a = argsOf(&p);
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
    checkOutput(&p);
    int64_t width = rowWidth(&p);
    // Feature 1 is table 2 (D 8) at column 1; feature 2 is table 1 at 9.
    for (int64_t d = 0; d < 8; ++d)
      EXPECT_TRUE(refLoad(p.output, p.outputDtype, 0 * width + 1 + d) == 0.0);
    for (int64_t d = 0; d < 3; ++d)
      EXPECT_TRUE(refLoad(p.output, p.outputDtype, 1 * width + 9 + d) == 0.0);
    freeProblem(&p);
  }
}

/// Puts out-of-range ids at known places: feature 1 bag 3 (table 2) gets
/// id rows+99987, and feature 3 bag 4 (table 0) gets -1. Returns how many.
static int injectBadIds(Problem *p) {
  int injected = 0;
  struct {
    int64_t f, b, id;
  } bad[2] = {{1, 3, p->rows[2] + 99987}, {3, 4, -1}};
  for (int k = 0; k < 2; ++k) {
    int64_t s = bad[k].f * p->B + bad[k].b;
    if (p->offs[s + 1] > p->offs[s]) {
      p->ids[p->offs[s + 1] - 1] = bad[k].id;
      ++injected;
    }
  }
  return injected;
}

/// Makes sure the bags that injectBadIds uses are not empty.
static void makeBadBagsNonEmpty(Problem *p, Rng *rng) {
  for (int64_t s = 0; s < p->F * p->B; ++s)
    if (p->offs[s + 1] == p->offs[s]) {
      // Grow bag s by one id: shift everything after it.
      int64_t *ids = malloc((size_t)(p->N + 2) * sizeof(int64_t));
      int64_t at = p->offs[s];
      memcpy(ids, p->ids, (size_t)at * sizeof(int64_t));
      ids[at] = rngInt(rng, 0, p->rows[p->featureTables[s / p->B]]);
      memcpy(ids + at + 1, p->ids + at, (size_t)(p->N - at) * sizeof(int64_t));
      free(p->ids);
      p->ids = ids;
      for (int64_t r = s + 1; r <= p->F * p->B; ++r)
        ++p->offs[r];
      ++p->N;
    }
  if (p->hasWeights) {
    free(p->weights);
    p->weights = randomTensor(rng, p->weightDtype, p->N);
  }
}

static void testBoundsCheckModes(embrtContext *ctx, Rng *rng) {
  char text[64];
  // fatal: fails, names feature, bag, id, table and rows; output untouched.
  TEST_CASE("bounds fatal");
  Problem p;
  setUpMixed(&p, rng, EMBRT_F32, 0);
  p.rows[2] = 100000;
  p.boundsCheck = EMBRT_BOUNDS_FATAL;
  makeData(&p, rng, 4);
  makeBadBagsNonEmpty(&p, rng);
  EXPECT_EQ_INT(injectBadIds(&p), 2);
  encode(&p);
  embrtTbeArgs a = argsOf(&p);
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  const char *message = embrtContextGetLastError(ctx);
  EXPECT_CONTAINS(message, "feature 1 bag 3");
  EXPECT_CONTAINS(message, "id 199987");
  EXPECT_CONTAINS(message, "table 2 (100000 rows)");
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE);
  EXPECT_TRUE(untouched(&p));
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OK);
  EXPECT_TRUE(embrtContextGetLastError(ctx)[0] == '\0');

  // A negative id alone is out of range too.
  TEST_CASE("bounds fatal negative id");
  p.ids[p.offs[1 * p.B + 3 + 1] - 1] = 5; // repair the first bad id
  encode(&p);
  a = argsOf(&p);
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "feature 3 bag 4: id -1");
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "table 0 (50 rows)");
  embrtContextClearError(ctx);

  // warning: skips and counts; the note names the first; status stays OK.
  TEST_CASE("bounds warning");
  p.ids[p.offs[1 * p.B + 3 + 1] - 1] = p.rows[2] + 99987;
  p.boundsCheck = EMBRT_BOUNDS_WARNING;
  p.hasWeights = 1;
  makeBadBagsNonEmpty(&p, rng);
  encode(&p);
  a = argsOf(&p);
  int64_t before = embrtContextGetInvalidIdCount(ctx);
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
  EXPECT_EQ_INT(embrtContextGetInvalidIdCount(ctx) - before, 2);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OK);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "skipped 2 ids");
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "feature 1 bag 3: id 199987");
  checkOutput(&p);
  // A second call counts again.
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
  EXPECT_EQ_INT(embrtContextGetInvalidIdCount(ctx) - before, 4);
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtContextGetInvalidIdCount(ctx), 0);

  // ignore and none: skip silently.
  const embrtBoundsCheck silent[] = {EMBRT_BOUNDS_IGNORE, EMBRT_BOUNDS_NONE};
  for (int k = 0; k < 2; ++k) {
    snprintf(text, sizeof text, "bounds %s", k ? "none" : "ignore");
    TEST_CASE(text);
    p.boundsCheck = silent[k];
    encode(&p);
    a = argsOf(&p);
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
    EXPECT_EQ_INT(embrtContextGetInvalidIdCount(ctx), 0);
    EXPECT_TRUE(embrtContextGetLastError(ctx)[0] == '\0');
    checkOutput(&p);
  }

  // pooling none with bad ids under warning: zero rows for them.
  TEST_CASE("bounds warning pooling none");
  p.boundsCheck = EMBRT_BOUNDS_WARNING;
  p.pooling = EMBRT_POOLING_NONE;
  p.hasWeights = 0;
  free(p.weights);
  p.weights = NULL;
  p.dims[2] = 1, p.dims[1] = 1; // one D for all features
  free(p.tables[1]);
  free(p.tables[2]);
  p.tables[1] = randomTensor(rng, p.tableDtype, p.rows[1]);
  p.tables[2] = randomTensor(rng, p.tableDtype, p.rows[2]);
  encode(&p);
  a = argsOf(&p);
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
  EXPECT_EQ_INT(embrtContextGetInvalidIdCount(ctx), 2);
  checkOutput(&p);
  embrtContextClearError(ctx);
  freeProblem(&p);
}

/// Offsets that do not start at 0, decrease, or do not end at N fail with
/// EMBRT_OUT_OF_RANGE before anything is written.
static void testInvalidOffsets(embrtContext *ctx, Rng *rng) {
  Problem p;
  setUpMixed(&p, rng, EMBRT_BF16, 0);
  p.offsetDtype = EMBRT_I32;
  makeData(&p, rng, 4);
  makeBadBagsNonEmpty(&p, rng);
  int64_t numBags = p.F * p.B;
  struct {
    const char *name;
    int64_t at, value;
    const char *needle;
  } cases[] = {
      {"offsets[0] != 0", 0, 1, "offsets[0] is 1, must be 0"},
      {"decreasing offsets", 8, p.offs[7] - 1, "feature 1 bag 1: offsets[8]"},
      {"last offset short of N", numBags, p.N - 1, "(the last)"},
      {"offset past N", 5, p.N + 3, "past the"},
  };
  for (int k = 0; k < 4; ++k) {
    TEST_CASE(cases[k].name);
    int64_t saved = p.offs[cases[k].at];
    p.offs[cases[k].at] = cases[k].value;
    encode(&p);
    embrtTbeArgs a = argsOf(&p);
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), cases[k].needle);
    EXPECT_TRUE(untouched(&p));
    embrtContextClearError(ctx);
    p.offs[cases[k].at] = saved;
  }
  // Every bounds-check mode checks offsets.
  TEST_CASE("invalid offsets under bounds none");
  p.boundsCheck = EMBRT_BOUNDS_NONE;
  p.offs[numBags] = p.N + 1;
  encode(&p);
  embrtTbeArgs a = argsOf(&p);
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  embrtContextClearError(ctx);
  freeProblem(&p);
}

/// Feature ends (embrtTbeArgs::featureEnds): each feature's offsets are
/// checked as its own bag's would be, even where the concatenated offsets
/// are in order; valid ones change nothing.
static void testFeatureEnds(embrtContext *ctx, Rng *rng) {
  Problem p;
  setUpMixed(&p, rng, EMBRT_F32, 0);
  p.offsetDtype = EMBRT_I64;
  p.indexDtype = EMBRT_I64;
  makeData(&p, rng, 4);
  makeBadBagsNonEmpty(&p, rng); // every last bag holds an id
  encode(&p);
  int64_t F = p.F, B = p.B, ends[2 * MAX_FEATURES];
  for (int64_t f = 0; f < F; ++f) {
    ends[f] = p.offs[(f + 1) * B];
    ends[F + f] = p.offs[(f + 1) * B] - p.offs[f * B];
  }
  TEST_CASE("valid feature ends");
  embrtTbeArgs a = argsOf(&p);
  a.featureEnds = ends;
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
  checkOutput(&p);
  struct {
    const char *name;
    int64_t at, delta, at2, delta2;
    const char *needle;
  } cases[] = {
      // Feature 0's ids end one earlier (and so does its own last offset):
      // feature 1's offsets start at 1, in order with feature 0's.
      {"a feature's offsets start at 1", 0, -1, F, -1,
       "feature 1: its offsets[0] is 1, must be 0"},
      // Feature 0's own last offset is short of its ids.
      {"a feature's last offset short of its ids", F, -1, F, 0,
       "feature 0: its offsets[6] (the last) is"},
      {"feature ends out of order", F - 1, -1, F - 1, 0, "featureEnds[3]"},
  };
  for (int k = 0; k < 3; ++k) {
    TEST_CASE(cases[k].name);
    ends[cases[k].at] += cases[k].delta;
    ends[cases[k].at2] += cases[k].delta2;
    encode(&p);
    a = argsOf(&p);
    a.featureEnds = ends;
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), cases[k].needle);
    EXPECT_TRUE(untouched(&p));
    embrtContextClearError(ctx);
    ends[cases[k].at] -= cases[k].delta;
    ends[cases[k].at2] -= cases[k].delta2;
  }
  // An offset of INT64_MIN is not taken less where its feature starts
  // (which would overflow): it is below, and named as it is.
  TEST_CASE("an offset of INT64_MIN with feature ends");
  int64_t saved = p.offs[B];
  p.offs[B] = INT64_MIN;
  encode(&p);
  a = argsOf(&p);
  a.featureEnds = ends;
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "feature 1: its offsets[0] is -9223372036854775808");
  EXPECT_TRUE(untouched(&p));
  embrtContextClearError(ctx);
  p.offs[B] = saved;
  freeProblem(&p);
}

/// Malformed arguments: EMBRT_INVALID_ARGUMENT with a message naming the
/// field, and the first failure sticks.
static void testInvalidArguments(embrtContext *ctx, Rng *rng) {
  Problem p;
  setUpMixed(&p, rng, EMBRT_F16, 0);
  makeData(&p, rng, 3);
  encode(&p);
  embrtTbeArgs good = argsOf(&p), a;

  TEST_CASE("null args");
  EXPECT_STATUS(embrtTbeForward(ctx, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "tbe: args is NULL");
  EXPECT_STATUS(embrtTbeForward(NULL, &good), EMBRT_INVALID_ARGUMENT, ctx);

  TEST_CASE("bad struct size");
  a = good;
  a.structSize = sizeof a - 8;
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "structSize");

  int64_t dims[MAX_TABLES];
  memcpy(dims, p.dims, sizeof dims);
  const int64_t badDims[] = {0, 2049};
  for (int k = 0; k < 2; ++k) {
    TEST_CASE("table dim outside 1..2048");
    a = good;
    dims[2] = badDims[k];
    a.tableDims = dims;
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                    k ? "tbe: tableDims[2] is 2049, must be in 1..2048"
                      : "tbe: tableDims[2] is 0, must be in 1..2048");
  }

#define CASE(label, text, body)                                                \
  do {                                                                         \
    TEST_CASE(label);                                                          \
    a = good;                                                                  \
    body;                                                                      \
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);      \
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), text);                      \
  } while (0)
  CASE("null indices", "tbe: indices is NULL", a.indices = NULL);
  CASE("null offsets", "tbe: offsets is NULL", a.offsets = NULL);
  CASE("null output", "tbe: output is NULL", a.output = NULL);
  CASE("null tables", "tbe: tables is NULL", a.tables = NULL);
  CASE("null tableRows", "tbe: tableRows is NULL", a.tableRows = NULL);
  CASE("null featureTables", "tbe: featureTables is NULL",
       a.featureTables = NULL);
  const void *someNull[MAX_TABLES] = {p.tables[0], NULL, p.tables[2]};
  CASE("null table", "tbe: tables[1] is NULL", a.tables = someNull);
  int64_t badFeatures[MAX_FEATURES] = {0, 2, 3, 0};
  CASE("feature table out of range",
       "tbe: featureTables[2] is 3, outside the 3 tables",
       a.featureTables = badFeatures);
  int64_t negativeRows[MAX_TABLES] = {50, -1, 20};
  CASE("negative rows", "tbe: tableRows[1] is -1", a.tableRows = negativeRows);
  CASE("negative batch", "tbe: batchSize is -2, must be >= 0",
       a.batchSize = -2);
  CASE("bad pooling", "tbe: pooling is 7", a.pooling = (embrtPooling)7);
  CASE("bad bounds check", "tbe: boundsCheck is 9",
       a.boundsCheck = (embrtBoundsCheck)9);
  CASE("bad index dtype", "tbe: indexDtype is f32, must be i32 or i64",
       a.indexDtype = EMBRT_F32);
  CASE("bad table dtype", "tbe: tableDtype is i8, must be f32, f16 or bf16",
       a.tableDtype = EMBRT_I8);
  CASE("output dtype", "tbe: outputDtype is bf16, must be f32 or f16",
       a.outputDtype = EMBRT_BF16);
  CASE("weights with mean", "tbe: perSampleWeights need pooling SUM",
       (a.perSampleWeights = p.indices, a.pooling = EMBRT_POOLING_MEAN));
  CASE("weight dtype", "tbe: perSampleWeightDtype is bf16, must be f32 or f16",
       (a.perSampleWeights = p.indices, a.perSampleWeightDtype = EMBRT_BF16));
  CASE("pooling none with mixed D", "pooling NONE needs one D",
       a.pooling = EMBRT_POOLING_NONE);
  CASE("bad configId", "tbe: configId is -5", a.configId = -5);
  CASE("too many indices for i32 offsets", "too many for i32 offsets",
       (a.offsetDtype = EMBRT_I32, a.numIndices = (int64_t)INT32_MAX + 1));
  CASE(
      "masked offsets without pooling",
      "tbe: maskedOffsets needs pooling SUM or MEAN",
      (a.maskedOffsets = 1, a.pooling = EMBRT_POOLING_NONE, a.numFeatures = 1));
  CASE("masked offsets of several features without ends",
       "tbe: maskedOffsets with 4 features needs featureEnds",
       a.maskedOffsets = 1);
  CASE("masked mean with a padding id",
       "tbe: maskedOffsets with pooling MEAN takes no paddingIdx",
       (a.maskedOffsets = 1, a.pooling = EMBRT_POOLING_MEAN, a.numFeatures = 1,
        a.hasPaddingIdx = 1));
  CASE("masked mean skipping ids",
       "tbe: maskedOffsets with pooling MEAN takes no paddingIdx and "
       "boundsCheck FATAL or NONE only",
       (a.maskedOffsets = 1, a.pooling = EMBRT_POOLING_MEAN, a.numFeatures = 1,
        a.boundsCheck = EMBRT_BOUNDS_WARNING));
#undef CASE

  TEST_CASE("sticky status");
  embrtContextClearError(ctx);
  a = good;
  a.tableDtype = EMBRT_I64;
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_STATUS(embrtTbeForward(ctx, &good), EMBRT_OK, ctx); // still runs
  checkOutput(&p);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT);
  // A later failure of another kind keeps the first status, new message.
  a = good;
  a.pooling = (embrtPooling)5;
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "pooling is 5");
  embrtContextClearError(ctx);
  freeProblem(&p);
}

/// embrtEmbeddingBag is a one-table TBE; its messages use its own names.
static void testEmbeddingBag(embrtContext *ctx, Rng *rng) {
  const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  const embrtPooling poolings[] = {EMBRT_POOLING_SUM, EMBRT_POOLING_MEAN,
                                   EMBRT_POOLING_NONE};
  for (int td = 0; td < 3; ++td)
    for (int pm = 0; pm < 3; ++pm) {
      TEST_CASE("embedding_bag");
      Problem p;
      memset(&p, 0, sizeof p);
      p.T = 1, p.F = 1, p.B = 9;
      p.rows[0] = 40, p.dims[0] = 5;
      p.tableDtype = dtypes[td];
      p.indexDtype = td == 1 ? EMBRT_I32 : EMBRT_I64;
      p.offsetDtype = td == 2 ? EMBRT_I32 : EMBRT_I64;
      p.outputDtype = pm == 1 ? dtypes[td] : EMBRT_F32;
      p.weightDtype = EMBRT_F32;
      p.pooling = poolings[pm];
      p.hasWeights = pm == 0;
      p.hasPadding = 1;
      p.paddingIdx = 3;
      makeData(&p, rng, 7);
      encode(&p);
      embrtEmbeddingBagArgs a;
      memset(&a, 0, sizeof a);
      a.structSize = sizeof a;
      a.mode = p.pooling;
      a.boundsCheck = EMBRT_BOUNDS_FATAL;
      a.weight = p.tables[0];
      a.rows = p.rows[0];
      a.dim = p.dims[0];
      a.weightDtype = p.tableDtype;
      a.batchSize = p.B;
      a.numIndices = p.N;
      a.indices = p.indices;
      a.indexDtype = p.indexDtype;
      a.offsets = p.offsets;
      a.offsetDtype = p.offsetDtype;
      a.perSampleWeights = p.weights;
      a.perSampleWeightDtype = p.weightDtype;
      a.paddingIdx = p.paddingIdx;
      a.hasPaddingIdx = 1;
      a.output = p.output;
      a.outputDtype = p.outputDtype;
      a.configId = -1;
      size_t bytes = 7;
      EXPECT_STATUS(embrtEmbeddingBagWorkspaceSize(ctx, &a, &bytes), EMBRT_OK,
                    ctx);
      EXPECT_EQ_INT(bytes, 0);
      EXPECT_STATUS(embrtEmbeddingBag(ctx, &a), EMBRT_OK, ctx);
      checkOutput(&p);

      TEST_CASE("embedding_bag invalid");
      embrtEmbeddingBagArgs bad = a;
      bad.dim = 0;
      EXPECT_STATUS(embrtEmbeddingBag(ctx, &bad), EMBRT_INVALID_ARGUMENT, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                      "embedding_bag: dim is 0, must be in 1..2048");
      bad = a;
      bad.structSize = sizeof(embrtTbeArgs);
      EXPECT_STATUS(embrtEmbeddingBag(ctx, &bad), EMBRT_INVALID_ARGUMENT, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                      "embedding_bag: structSize");
      bad = a;
      bad.weight = NULL;
      EXPECT_STATUS(embrtEmbeddingBag(ctx, &bad), EMBRT_INVALID_ARGUMENT, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                      "embedding_bag: weight is NULL");
      embrtContextClearError(ctx);

      TEST_CASE("embedding_bag out of range");
      if (p.N > 0) {
        p.ids[p.N - 1] = 41;
        encode(&p);
        a.indices = p.indices;
        a.offsets = p.offsets;
        a.output = p.output;
        EXPECT_STATUS(embrtEmbeddingBag(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
        EXPECT_CONTAINS(embrtContextGetLastError(ctx), "id 41 is outside");
        embrtContextClearError(ctx);
      }
      freeProblem(&p);
    }
}

/// Degenerate shapes: no bags, no features, no indices.
static void testEmptyShapes(embrtContext *ctx, Rng *rng) {
  TEST_CASE("zero batch");
  Problem p;
  setUpMixed(&p, rng, EMBRT_F32, 0);
  p.B = 0;
  makeData(&p, rng, 3);
  encode(&p);
  embrtTbeArgs a = argsOf(&p);
  a.output = NULL; // nothing to write
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
  freeProblem(&p);

  TEST_CASE("no features");
  setUpMixed(&p, rng, EMBRT_F32, 0);
  p.F = 0;
  makeData(&p, rng, 3);
  encode(&p);
  a = argsOf(&p);
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
  freeProblem(&p);
}

int main(void) {
  Rng rng = rngSeed(0x7BE5EED);
  embrtContext *ctx = newCpuContext();
  testCombinations(ctx, &rng);
  testWideMixed(ctx, &rng);
  testEmptyAndPaddingBags(ctx, &rng);
  testBoundsCheckModes(ctx, &rng);
  testInvalidOffsets(ctx, &rng);
  testFeatureEnds(ctx, &rng);
  testInvalidArguments(ctx, &rng);
  testEmbeddingBag(ctx, &rng);
  testEmptyShapes(ctx, &rng);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
