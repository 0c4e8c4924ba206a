// RUN: %runtime_test_dir/jagged
//
// embrtJaggedToPadded on the CPU against a direct computation: f32, f16,
// bf16 and f64 rows of odd and wide widths, i32 and i64 offsets, empty
// users, users longer than max_length (truncated), a padding value, no
// lengths buffer, rows of no element with NULL values and padded; bad
// offsets (out of order, negative, past the values) fail before anything is
// written; malformed arguments get named errors.

#include "harness.h"

typedef struct Case {
  embrtDtype dtype, indexDtype;
  int64_t numUsers, rowElements, maxLength;
  double padding;
  int withLengths;
} Case;

/// Random user lengths 0..2 * maxLength (about a third empty or truncated),
/// their offsets from a random start, and values with a few spare rows.
static void runCase(embrtContext *ctx, Rng *rng, Case c) {
  int64_t U = c.numUsers, D = c.rowElements, Lk = c.maxLength;
  int64_t *off = malloc((size_t)(U + 1) * sizeof(int64_t));
  off[0] = rngInt(rng, 0, 3);
  for (int64_t u = 0; u < U; ++u)
    off[u + 1] =
        off[u] + (rngInt(rng, 0, 3) == 0 ? 0 : rngInt(rng, 0, 2 * Lk + 1));
  int64_t N = off[U] + rngInt(rng, 0, 3);
  void *values = randomTensor(rng, c.dtype, N * D);
  void *offsets = indexTensor(c.indexDtype, off, U + 1);
  size_t es = embrtDtypeSize(c.dtype);
  void *padded = poisoned((size_t)(U * Lk * D) * es);
  void *lengths = c.withLengths ? poisoned((size_t)U * 8) : NULL;
  embrtJaggedToPaddedArgs a = {sizeof a, values,       N, D,  c.dtype,
                               offsets,  c.indexDtype, U, Lk, c.padding,
                               padded,   lengths};
  EXPECT_STATUS(embrtJaggedToPadded(ctx, &a), EMBRT_OK, ctx);
  void *padElement = poisoned(8); // the padding rounded to the dtype
  refStore(padElement, c.dtype, 0, c.padding);
  double pad = refLoad(padElement, c.dtype, 0);
  for (int64_t u = 0; u < U; ++u) {
    int64_t len = off[u + 1] - off[u], kept = len < Lk ? len : Lk;
    for (int64_t l = 0; l < Lk; ++l)
      for (int64_t d = 0; d < D; ++d) {
        double want =
            l < kept ? refLoad(values, c.dtype, (off[u] + l) * D + d) : pad;
        double got = refLoad(padded, c.dtype, (u * Lk + l) * D + d);
        if (got != want) {
          HARNESS_FAIL("padded[%lld, %lld, %lld] is %g, want %g", (long long)u,
                       (long long)l, (long long)d, got, want);
          u = U, l = Lk, d = D;
        }
      }
    if (lengths && u < U) {
      int64_t got = c.indexDtype == EMBRT_I64 ? ((int64_t *)lengths)[u]
                                              : ((int32_t *)lengths)[u];
      EXPECT_EQ_INT(got, kept);
    }
  }
  free(off), free(values), free(offsets), free(padded), free(lengths);
  free(padElement);
}

static void testShapes(embrtContext *ctx, Rng *rng) {
  const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16, EMBRT_F64};
  const int64_t widths[] = {1, 3, 8, 64, 129};
  for (int d = 0; d < 4; ++d)
    for (int w = 0; w < 5; ++w)
      for (int ix = 0; ix < 2; ++ix) {
        TEST_CASE(dtypeLabel(dtypes[d]));
        Case c = {dtypes[d], ix ? EMBRT_I64 : EMBRT_I32, rngInt(rng, 1, 12),
                  widths[w], rngInt(rng, 1, 9),          ix ? -2.5 : 0.0,
                  w != 2};
        runCase(ctx, rng, c);
      }
  TEST_CASE("no users");
  runCase(ctx, rng, (Case){EMBRT_F32, EMBRT_I64, 0, 4, 3, 0.0, 1});
  TEST_CASE("max_length 1");
  runCase(ctx, rng, (Case){EMBRT_F16, EMBRT_I32, 7, 16, 1, 1.0, 1});
  TEST_CASE("rows of zero elements");
  runCase(ctx, rng, (Case){EMBRT_F32, EMBRT_I32, 5, 0, 4, 0.0, 1});
}

/// Rows of no element: the checks let values and padded be NULL, and no
/// NULL reaches memcpy (not even for 0 bytes); the lengths are still
/// written.
static void testNullRowsOfNothing(embrtContext *ctx) {
  TEST_CASE("rows of zero elements, NULL buffers");
  const int64_t off[] = {0, 2, 2, 9};
  for (int ix = 0; ix < 2; ++ix) {
    embrtDtype indexDtype = ix ? EMBRT_I64 : EMBRT_I32;
    void *offsets = indexTensor(indexDtype, off, 4);
    int64_t lengths[3] = {-1, -1, -1};
    embrtJaggedToPaddedArgs a = {sizeof a,   NULL, 9, 0,   EMBRT_F32, offsets,
                                 indexDtype, 3,    4, 0.0, NULL,      lengths};
    EXPECT_STATUS(embrtJaggedToPadded(ctx, &a), EMBRT_OK, ctx);
    const int64_t want[] = {2, 0, 4};
    for (int u = 0; u < 3; ++u)
      EXPECT_EQ_INT(ix ? lengths[u] : ((int32_t *)lengths)[u], want[u]);
    free(offsets);
  }
}

/// Offsets out of order, negative or past the values fail before anything
/// is written, naming the first bad offset.
static void testBadOffsets(embrtContext *ctx) {
  static const struct {
    int64_t off[4];
    const char *needle;
  } cases[] = {
      {{0, 3, 2, 4}, "offsets[2] is 2, out of order or outside 0..5"},
      {{-1, 1, 2, 4}, "offsets[0] is -1, out of order or outside 0..5"},
      {{0, 1, 2, 6}, "offsets[3] is 6, out of order or outside 0..5"},
  };
  float values[5 * 2] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (int k = 0; k < 3; ++k)
    for (int ix = 0; ix < 2; ++ix) {
      TEST_CASE("bad offsets");
      embrtDtype idt = ix ? EMBRT_I64 : EMBRT_I32;
      void *offsets = indexTensor(idt, cases[k].off, 4);
      float padded[3 * 2 * 2];
      int64_t lengths[3];
      memset(padded, 0xFF, sizeof padded);
      memset(lengths, 0xFF, sizeof lengths);
      embrtJaggedToPaddedArgs a = {sizeof a,  values,  5,      2,
                                   EMBRT_F32, offsets, idt,    3,
                                   2,         0.0,     padded, lengths};
      EXPECT_STATUS(embrtJaggedToPadded(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx), cases[k].needle);
      unsigned char *p = (unsigned char *)padded, *l = (unsigned char *)lengths;
      for (size_t i = 0; i < sizeof padded; ++i)
        EXPECT_TRUE(p[i] == 0xFF);
      for (size_t i = 0; i < sizeof lengths; ++i)
        EXPECT_TRUE(l[i] == 0xFF);
      embrtContextClearError(ctx);
      free(offsets);
    }
}

static void testInvalidArguments(embrtContext *ctx) {
  float values[4] = {1, 2, 3, 4}, padded[2 * 2 * 2];
  int32_t offsets[3] = {0, 1, 2}, lengths[2];
  embrtJaggedToPaddedArgs good = {sizeof good, values,  2,         2,
                                  EMBRT_F32,   offsets, EMBRT_I32, 2,
                                  2,           0.0,     padded,    lengths};
  embrtJaggedToPaddedArgs a;
#define CASE(label, text, body)                                                \
  do {                                                                         \
    TEST_CASE(label);                                                          \
    a = good;                                                                  \
    body;                                                                      \
    EXPECT_STATUS(embrtJaggedToPadded(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);  \
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), text);                      \
  } while (0)
  TEST_CASE("null args");
  EXPECT_STATUS(embrtJaggedToPadded(ctx, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "jagged_to_padded: args is NULL");
  CASE("struct size", "jagged_to_padded: structSize is 8", a.structSize = 8);
  CASE("null values", "jagged_to_padded: values is NULL", a.values = NULL);
  CASE("null offsets", "jagged_to_padded: offsets is NULL", a.offsets = NULL);
  CASE("null padded", "jagged_to_padded: padded is NULL", a.padded = NULL);
  CASE("integer rows",
       "jagged_to_padded: dtype is i32, must be f32, f16, bf16 or f64",
       a.dtype = EMBRT_I32);
  CASE("bad index dtype",
       "jagged_to_padded: indexDtype is f16, must be i32 or i64",
       a.indexDtype = EMBRT_F16);
  CASE("max length 0", "jagged_to_padded: maxLength is 0, must be >= 1",
       a.maxLength = 0);
  CASE("negative users", "jagged_to_padded: numUsers is -1", a.numUsers = -1);
  CASE("NaN padding", "jagged_to_padded: paddingValue is NaN",
       a.paddingValue = NAN);
  CASE("padded too large", "jagged_to_padded: padded",
       (a.numUsers = INT64_MAX / 2, a.maxLength = 4));
#undef CASE
  embrtContextClearError(ctx);
}

int main(void) {
  Rng rng = rngSeed(0x1A66ED);
  embrtContext *ctx = newCpuContext();
  testShapes(ctx, &rng);
  testNullRowsOfNothing(ctx);
  testBadOffsets(ctx);
  testInvalidArguments(ctx);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
