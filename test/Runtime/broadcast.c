// RUN: %runtime_test_dir/broadcast
//
// embrtBroadcast and embrtBroadcastAdd on the CPU against direct
// computations: every dtype, i32 and i64 cand_to_user, odd row widths,
// rows of no element with NULL buffers, out-of-range cand_to_user and
// malformed arguments.

#include "harness.h"

typedef struct Case {
  embrtDtype dtype, indexDtype;
  int64_t numUsers, rowElements, batchSize;
} Case;

/// Random bytes: every bit pattern is a valid value to copy.
static void *randomBytes(Rng *rng, size_t bytes) {
  unsigned char *p = malloc(bytes ? bytes : 1);
  for (size_t i = 0; i < bytes; ++i)
    p[i] = (unsigned char)rngNext(rng);
  return p;
}

static void runBroadcast(embrtContext *ctx, Rng *rng, Case c) {
  size_t es = embrtDtypeSize(c.dtype);
  size_t rowBytes = (size_t)c.rowElements * es;
  void *ro = randomBytes(rng, (size_t)c.numUsers * rowBytes);
  int64_t *users = malloc((size_t)(c.batchSize + 1) * sizeof(int64_t));
  for (int64_t b = 0; b < c.batchSize; ++b)
    users[b] = rngInt(rng, 0, c.numUsers);
  void *c2u = indexTensor(c.indexDtype, users, c.batchSize);
  void *out = poisoned((size_t)c.batchSize * rowBytes);
  embrtBroadcastArgs a = {sizeof a, ro,  c.numUsers,   c.rowElements,
                          c.dtype,  c2u, c.indexDtype, c.batchSize,
                          NULL,     out};
  EXPECT_STATUS(embrtBroadcast(ctx, &a), EMBRT_OK, ctx);
  for (int64_t b = 0; b < c.batchSize; ++b)
    if (memcmp((char *)out + b * rowBytes, (char *)ro + users[b] * rowBytes,
               rowBytes) != 0) {
      HARNESS_FAIL("row %lld differs from user %lld's", (long long)b,
                   (long long)users[b]);
      break;
    }
  free(ro);
  free(users);
  free(c2u);
  free(out);
}

static void runBroadcastAdd(embrtContext *ctx, Rng *rng, Case c) {
  int64_t E = c.rowElements;
  void *ro = randomTensor(rng, c.dtype, c.numUsers * E);
  void *nro = randomTensor(rng, c.dtype, c.batchSize * E);
  int64_t *users = malloc((size_t)(c.batchSize + 1) * sizeof(int64_t));
  for (int64_t b = 0; b < c.batchSize; ++b)
    users[b] = rngInt(rng, 0, c.numUsers);
  void *c2u = indexTensor(c.indexDtype, users, c.batchSize);
  void *out = poisoned((size_t)(c.batchSize * E) * embrtDtypeSize(c.dtype));
  embrtBroadcastArgs a = {sizeof a, ro,           c.numUsers,  E,   c.dtype,
                          c2u,      c.indexDtype, c.batchSize, nro, out};
  EXPECT_STATUS(embrtBroadcastAdd(ctx, &a), EMBRT_OK, ctx);
  double tol = harnessTolerance(c.dtype, c.dtype);
  for (int64_t b = 0; b < c.batchSize; ++b)
    for (int64_t e = 0; e < E; ++e) {
      double x = refLoad(ro, c.dtype, users[b] * E + e);
      double y = refLoad(nro, c.dtype, b * E + e);
      if (!EXPECT_NEAR("output", b * E + e, refLoad(out, c.dtype, b * E + e),
                       x + y, fabs(x) + fabs(y), tol))
        b = c.batchSize, e = E; // stop at the first mismatch
    }
  free(ro);
  free(nro);
  free(users);
  free(c2u);
  free(out);
}

static void testShapes(embrtContext *ctx, Rng *rng) {
  const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16, EMBRT_I32,
                               EMBRT_I64, EMBRT_F64, EMBRT_I8};
  const int64_t widths[] = {1, 3, 8, 64, 257};
  for (int d = 0; d < 7; ++d)
    for (int w = 0; w < 5; ++w)
      for (int ix = 0; ix < 2; ++ix) {
        Case c = {dtypes[d], ix ? EMBRT_I64 : EMBRT_I32, rngInt(rng, 1, 9),
                  widths[w], rngInt(rng, 1, 40)};
        TEST_CASE("broadcast");
        runBroadcast(ctx, rng, c);
        if (dtypes[d] == EMBRT_F32 || dtypes[d] == EMBRT_F16 ||
            dtypes[d] == EMBRT_BF16 || dtypes[d] == EMBRT_F64) {
          TEST_CASE("broadcast_add");
          runBroadcastAdd(ctx, rng, c);
        }
      }
  TEST_CASE("empty shapes");
  Case empty = {EMBRT_F32, EMBRT_I32, 3, 0, 5};
  runBroadcast(ctx, rng, empty);
  runBroadcastAdd(ctx, rng, empty);
  empty.rowElements = 4, empty.batchSize = 0;
  runBroadcast(ctx, rng, empty);
  runBroadcastAdd(ctx, rng, empty);
}

/// Rows of no element: the checks let ro, nro and output be NULL, and no
/// NULL reaches memcpy (not even for 0 bytes). cand_to_user is still
/// checked.
static void testNullRowsOfNothing(embrtContext *ctx) {
  const int64_t users[] = {1, 0, 1};
  for (int ix = 0; ix < 2; ++ix)
    for (int add = 0; add < 2; ++add) {
      TEST_CASE(add ? "broadcast_add of empty rows, NULL buffers"
                    : "broadcast of empty rows, NULL buffers");
      embrtDtype indexDtype = ix ? EMBRT_I64 : EMBRT_I32;
      void *c2u = indexTensor(indexDtype, users, 3);
      embrtBroadcastArgs a = {sizeof a, NULL,       2, 0,    EMBRT_F32,
                              c2u,      indexDtype, 3, NULL, NULL};
      EXPECT_STATUS(add ? embrtBroadcastAdd(ctx, &a) : embrtBroadcast(ctx, &a),
                    EMBRT_OK, ctx);
      a.numUsers = 1; // user 1 is now out of range
      EXPECT_STATUS(add ? embrtBroadcastAdd(ctx, &a) : embrtBroadcast(ctx, &a),
                    EMBRT_OUT_OF_RANGE, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                      "cand_to_user[0] is 1, outside the 1 users");
      embrtContextClearError(ctx);
      free(c2u);
    }
}

/// A cand_to_user entry outside [0, U) fails before anything is written.
static void testOutOfRange(embrtContext *ctx, Rng *rng) {
  const int64_t badUsers[] = {4, -1, 1000000007};
  for (int k = 0; k < 3; ++k)
    for (int add = 0; add < 2; ++add) {
      TEST_CASE(add ? "broadcast_add out of range" : "broadcast out of range");
      float ro[4 * 2], nro[6 * 2], out[6 * 2];
      for (int i = 0; i < 8; ++i)
        ro[i] = (float)rngValue(rng);
      for (int i = 0; i < 12; ++i)
        nro[i] = (float)rngValue(rng);
      memset(out, 0xFF, sizeof out);
      int64_t users[6] = {0, 1, 2, 3, 0, 1};
      users[3] = badUsers[k];
      void *c2u = indexTensor(k == 2 ? EMBRT_I64 : EMBRT_I32, users, 6);
      embrtBroadcastArgs a = {sizeof a,
                              ro,
                              4,
                              2,
                              EMBRT_F32,
                              c2u,
                              k == 2 ? EMBRT_I64 : EMBRT_I32,
                              6,
                              add ? nro : NULL,
                              out};
      EXPECT_STATUS(add ? embrtBroadcastAdd(ctx, &a) : embrtBroadcast(ctx, &a),
                    EMBRT_OUT_OF_RANGE, ctx);
      char needle[64];
      snprintf(needle, sizeof needle, "cand_to_user[3] is %lld",
               (long long)badUsers[k]);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx), needle);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx), "the 4 users");
      unsigned char *bytes = (unsigned char *)out;
      for (size_t i = 0; i < sizeof out; ++i)
        EXPECT_TRUE(bytes[i] == 0xFF);
      embrtContextClearError(ctx);
      free(c2u);
    }
  TEST_CASE("no users");
  int32_t zero = 0;
  float out[2];
  embrtBroadcastArgs a = {sizeof a, NULL,      0, 2,    EMBRT_F32,
                          &zero,    EMBRT_I32, 1, NULL, out};
  EXPECT_STATUS(embrtBroadcast(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  embrtContextClearError(ctx);
}

static void testInvalidArguments(embrtContext *ctx) {
  float ro[4] = {1, 2, 3, 4}, nro[4] = {1, 1, 1, 1}, out[4];
  int32_t c2u[2] = {0, 1};
  embrtBroadcastArgs good = {sizeof good, ro,        2, 2,    EMBRT_F32,
                             c2u,         EMBRT_I32, 2, NULL, out};
  embrtBroadcastArgs a;
#define CASE(label, call, text, body)                                          \
  do {                                                                         \
    TEST_CASE(label);                                                          \
    a = good;                                                                  \
    body;                                                                      \
    EXPECT_STATUS(call(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);                 \
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), text);                      \
  } while (0)
  TEST_CASE("null args");
  EXPECT_STATUS(embrtBroadcast(ctx, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "broadcast: args is NULL");
  CASE("struct size", embrtBroadcast, "broadcast: structSize is 8",
       a.structSize = 8);
  CASE("null ro", embrtBroadcast, "broadcast: ro is NULL", a.ro = NULL);
  CASE("null output", embrtBroadcast, "broadcast: output is NULL",
       a.output = NULL);
  CASE("null cand_to_user", embrtBroadcast, "broadcast: candToUser is NULL",
       a.candToUser = NULL);
  CASE("nro on broadcast", embrtBroadcast, "broadcast: nro must be NULL",
       a.nro = nro);
  CASE("negative rows", embrtBroadcast, "broadcast: rowElements is -1",
       a.rowElements = -1);
  CASE("bad index dtype", embrtBroadcast,
       "broadcast: indexDtype is f16, must be i32 or i64",
       a.indexDtype = EMBRT_F16);
  CASE("bad dtype", embrtBroadcast, "broadcast: dtype is 12",
       a.dtype = (embrtDtype)12);
  CASE("nro missing", embrtBroadcastAdd, "broadcast_add: nro is NULL", (void)0);
  CASE("integer add", embrtBroadcastAdd,
       "broadcast_add: dtype is i32, must be f32, f16, bf16 or f64",
       (a.nro = nro, a.dtype = EMBRT_I32));
#undef CASE
  TEST_CASE("null args of broadcast_add");
  EXPECT_STATUS(embrtBroadcastAdd(ctx, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "broadcast_add: args is NULL");
  embrtContextClearError(ctx);
}

int main(void) {
  Rng rng = rngSeed(0xB40ADCA57);
  embrtContext *ctx = newCpuContext();
  testShapes(ctx, &rng);
  testOutOfRange(ctx, &rng);
  testInvalidArguments(ctx);
  testNullRowsOfNothing(ctx);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
