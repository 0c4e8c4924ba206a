// RUN: %runtime_test_dir/lce
//
// embrtLce and embrtIkboLce on the CPU against direct f64 products: f32,
// f16 and bf16, odd and degenerate shapes, i32 and i64 cand_to_user, the
// single accumulator of ikbo_lce (bitwise equal to one lce over the
// concatenated operands), weights read as column views of a wider matrix
// (bitwise equal to packed copies), f32 data computed in f16 and bf16
// (computeDtype: bitwise equal to the same call on the operands rounded to
// that type, weights as column blocks and candidates in pieces included),
// out-of-range cand_to_user and malformed arguments.

#include "harness.h"

static const embrtDtype kDtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};

/// Checks out[b] (M x N) against w (M x K) @ x (K x N) [+ w2 @ x2].
static int checkProduct(const void *out, int64_t outBase, const void *w,
                        const void *x, int64_t xBase, int64_t K, const void *w2,
                        const void *x2, int64_t x2Base, int64_t K2, int64_t M,
                        int64_t N, embrtDtype dtype) {
  double tol = harnessTolerance(dtype, dtype);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0.0, magnitude = 0.0;
      for (int64_t k = 0; k < K; ++k) {
        double term =
            refLoad(w, dtype, m * K + k) * refLoad(x, dtype, xBase + k * N + n);
        sum += term, magnitude += fabs(term);
      }
      for (int64_t k = 0; k < K2; ++k) {
        double term = refLoad(w2, dtype, m * K2 + k) *
                      refLoad(x2, dtype, x2Base + k * N + n);
        sum += term, magnitude += fabs(term);
      }
      int64_t at = outBase + m * N + n;
      if (!EXPECT_NEAR("output", at, refLoad(out, dtype, at), sum, magnitude,
                       tol))
        return 0;
    }
  return 1;
}

static void testLce(embrtContext *ctx, Rng *rng) {
  const int64_t shapes[][4] = {{3, 4, 5, 6},  {1, 1, 1, 1}, {2, 17, 33, 9},
                               {5, 8, 64, 1}, {0, 3, 3, 3}, {4, 3, 0, 5},
                               {2, 0, 4, 4}};
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 7; ++s) {
      TEST_CASE("lce");
      embrtDtype dtype = kDtypes[d];
      int64_t B = shapes[s][0], M = shapes[s][1], K = shapes[s][2],
              N = shapes[s][3];
      void *w = randomTensor(rng, dtype, M * K);
      void *x = randomTensor(rng, dtype, B * K * N);
      void *out = poisoned((size_t)(B * M * N) * embrtDtypeSize(dtype));
      embrtLceArgs a = {sizeof a, dtype, B, M, K, N, w, x, out, -1, NULL, 0};
      size_t bytes = 9;
      EXPECT_STATUS(embrtLceWorkspaceSize(ctx, &a, &bytes), EMBRT_OK, ctx);
      EXPECT_EQ_INT(bytes, 0);
      EXPECT_STATUS(embrtLce(ctx, &a), EMBRT_OK, ctx);
      for (int64_t b = 0; b < B; ++b)
        if (!checkProduct(out, b * M * N, w, x, b * K * N, K, NULL, NULL, 0, 0,
                          M, N, dtype))
          break;
      free(w);
      free(x);
      free(out);
    }
}

typedef struct Ikbo {
  embrtDtype dtype, indexDtype;
  int64_t B, U, M, Ku, Kc, N;
  void *wUser, *wCand, *user, *cand, *c2u, *out;
  int64_t *users;
} Ikbo;

static void makeIkbo(Ikbo *p, Rng *rng) {
  p->wUser = randomTensor(rng, p->dtype, p->M * p->Ku);
  p->wCand = randomTensor(rng, p->dtype, p->M * p->Kc);
  p->user = randomTensor(rng, p->dtype, p->U * p->Ku * p->N);
  p->cand = randomTensor(rng, p->dtype, p->B * p->Kc * p->N);
  p->users = malloc((size_t)(p->B + 1) * sizeof(int64_t));
  for (int64_t b = 0; b < p->B; ++b)
    p->users[b] = rngInt(rng, 0, p->U);
  p->c2u = indexTensor(p->indexDtype, p->users, p->B);
  p->out = poisoned((size_t)(p->B * p->M * p->N) * embrtDtypeSize(p->dtype));
}

static void freeIkbo(Ikbo *p) {
  free(p->wUser);
  free(p->wCand);
  free(p->user);
  free(p->cand);
  free(p->users);
  free(p->c2u);
  free(p->out);
}

static embrtIkboLceArgs ikboArgs(const Ikbo *p) {
  embrtIkboLceArgs a = {
      sizeof a, p->dtype, p->B,     p->U,    p->M,    p->Ku,  p->Kc,
      p->N,     p->wUser, p->wCand, p->user, p->cand, p->c2u, p->indexDtype,
      p->out,   -1,       NULL,     0,       0,       0,      0,
      {NULL},   {0},      EMBRT_F32};
  return a;
}

/// The same element computed by one lce over [wCand | wUser] and
/// [cand[b]; user[u]]: ikbo_lce must match it bit for bit (one accumulator,
/// candidate terms first, one rounding).
static void checkSingleAccumulator(embrtContext *ctx, const Ikbo *p) {
  size_t es = embrtDtypeSize(p->dtype);
  int64_t K = p->Kc + p->Ku, M = p->M, N = p->N;
  char *w = malloc((size_t)(M * K) * es + 1);
  char *x = malloc((size_t)(p->B * K * N) * es + 1);
  for (int64_t m = 0; m < M; ++m) {
    memcpy(w + (m * K) * es, (char *)p->wCand + m * p->Kc * es, p->Kc * es);
    memcpy(w + (m * K + p->Kc) * es, (char *)p->wUser + m * p->Ku * es,
           p->Ku * es);
  }
  for (int64_t b = 0; b < p->B; ++b) {
    memcpy(x + b * K * N * es, (char *)p->cand + b * p->Kc * N * es,
           p->Kc * N * es);
    memcpy(x + (b * K + p->Kc) * N * es,
           (char *)p->user + p->users[b] * p->Ku * N * es, p->Ku * N * es);
  }
  char *out = poisoned((size_t)(p->B * M * N) * es);
  embrtLceArgs a = {sizeof a, p->dtype, p->B, M, K, N, w, x, out, -1, NULL, 0};
  EXPECT_STATUS(embrtLce(ctx, &a), EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(out, p->out, (size_t)(p->B * M * N) * es) == 0);
  free(w);
  free(x);
  free(out);
}

static void testIkboLce(embrtContext *ctx, Rng *rng) {
  const int64_t shapes[][6] = {// B, U, M, Ku, Kc, N
                               {6, 2, 3, 4, 5, 7},  {1, 1, 1, 1, 1, 1},
                               {9, 4, 8, 16, 3, 2}, {4, 3, 2, 0, 5, 3},
                               {4, 3, 2, 5, 0, 3},  {0, 2, 2, 2, 2, 2},
                               {3, 5, 4, 6, 6, 0}};
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 7; ++s)
      for (int ix = 0; ix < 2; ++ix) {
        TEST_CASE("ikbo_lce");
        Ikbo p = {.dtype = kDtypes[d],
                  .indexDtype = ix ? EMBRT_I64 : EMBRT_I32,
                  .B = shapes[s][0],
                  .U = shapes[s][1],
                  .M = shapes[s][2],
                  .Ku = shapes[s][3],
                  .Kc = shapes[s][4],
                  .N = shapes[s][5]};
        makeIkbo(&p, rng);
        embrtIkboLceArgs a = ikboArgs(&p);
        size_t bytes = 3;
        EXPECT_STATUS(embrtIkboLceWorkspaceSize(ctx, &a, &bytes), EMBRT_OK,
                      ctx);
        EXPECT_EQ_INT(bytes, 0);
        EXPECT_STATUS(embrtIkboLce(ctx, &a), EMBRT_OK, ctx);
        for (int64_t b = 0; b < p.B; ++b)
          if (!checkProduct(p.out, b * p.M * p.N, p.wCand, p.cand,
                            b * p.Kc * p.N, p.Kc, p.wUser, p.user,
                            p.users[b] * p.Ku * p.N, p.Ku, p.M, p.N, p.dtype))
            break;
        TEST_CASE("ikbo_lce single accumulator");
        checkSingleAccumulator(ctx, &p);
        freeIkbo(&p);
      }
}

/// wUser and wCand as the two column blocks of one [M, Ku + Kc + extra]
/// matrix (row strides, wCand at an odd column): the same bits as the packed
/// weights.
static void testIkboStridedWeights(embrtContext *ctx, Rng *rng) {
  const int64_t shapes[][7] = {// B, U, M, Ku, Kc, N, extra columns
                               {6, 2, 3, 5, 7, 4, 0},
                               {4, 3, 5, 3, 1, 2, 3},
                               {2, 1, 1, 1, 1, 1, 2}};
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 3; ++s) {
      TEST_CASE("ikbo_lce strided weights");
      Ikbo p = {.dtype = kDtypes[d],
                .indexDtype = EMBRT_I32,
                .B = shapes[s][0],
                .U = shapes[s][1],
                .M = shapes[s][2],
                .Ku = shapes[s][3],
                .Kc = shapes[s][4],
                .N = shapes[s][5]};
      makeIkbo(&p, rng);
      embrtIkboLceArgs a = ikboArgs(&p);
      EXPECT_STATUS(embrtIkboLce(ctx, &a), EMBRT_OK, ctx);
      size_t es = embrtDtypeSize(p.dtype);
      int64_t S = p.Ku + p.Kc + shapes[s][6];
      char *w = (char *)randomTensor(rng, p.dtype, p.M * S);
      for (int64_t m = 0; m < p.M; ++m) {
        memcpy(w + m * S * es, (char *)p.wUser + m * p.Ku * es, p.Ku * es);
        memcpy(w + (m * S + p.Ku) * es, (char *)p.wCand + m * p.Kc * es,
               p.Kc * es);
      }
      size_t outBytes = (size_t)(p.B * p.M * p.N) * es;
      char *out = poisoned(outBytes);
      a.wUser = w;
      a.wCand = w + p.Ku * es;
      a.wUserStride = a.wCandStride = S;
      a.output = out;
      EXPECT_STATUS(embrtIkboLce(ctx, &a), EMBRT_OK, ctx);
      EXPECT_TRUE(memcmp(out, p.out, outBytes) == 0);
      free(w);
      free(out);
      freeIkbo(&p);
    }
}

/// The candidate embeddings in pieces along K (a concat the compiled model
/// reads in place), the last a NULL piece of zeros: the same bits as the
/// packed cand with those rows zero; and the pieces' K must sum to kCand.
static void testIkboPieces(embrtContext *ctx, Rng *rng) {
  const int64_t shapes[][7] = {// B, U, M, Ku, Kc, N, pieces
                               {6, 2, 3, 4, 9, 5, 3},
                               {5, 3, 4, 3, 7, 2, 4},
                               {3, 1, 2, 2, 3, 3, 2}};
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 3; ++s) {
      TEST_CASE("ikbo_lce candidate pieces");
      Ikbo p = {.dtype = kDtypes[d],
                .indexDtype = EMBRT_I64,
                .B = shapes[s][0],
                .U = shapes[s][1],
                .M = shapes[s][2],
                .Ku = shapes[s][3],
                .Kc = shapes[s][4],
                .N = shapes[s][5]};
      makeIkbo(&p, rng);
      size_t es = embrtDtypeSize(p.dtype);
      int np = (int)shapes[s][6];
      embrtIkboLceArgs a = ikboArgs(&p);
      a.cand = NULL;
      a.numCandPieces = np;
      int64_t k0 = 0;
      for (int q = 0; q < np; ++q) {
        int64_t k = q + 1 < np ? 1 + q % 2 : p.Kc - k0;
        a.candPieceK[q] = k;
        char *piece =
            q + 1 < np ? malloc((size_t)(p.B * k * p.N) * es + 1) : NULL;
        for (int64_t b = 0; b < p.B; ++b) {
          char *rows = (char *)p.cand + (b * p.Kc + k0) * p.N * es;
          if (piece)
            memcpy(piece + b * k * p.N * es, rows, (size_t)(k * p.N) * es);
          else
            memset(rows, 0, (size_t)(k * p.N) * es); // what NULL reads
        }
        a.candPieces[q] = piece;
        k0 += k;
      }
      EXPECT_STATUS(embrtIkboLce(ctx, &a), EMBRT_OK, ctx);
      size_t outBytes = (size_t)(p.B * p.M * p.N) * es;
      char *packed = poisoned(outBytes);
      embrtIkboLceArgs ref = ikboArgs(&p);
      ref.output = packed;
      EXPECT_STATUS(embrtIkboLce(ctx, &ref), EMBRT_OK, ctx);
      EXPECT_TRUE(memcmp(packed, p.out, outBytes) == 0);
      for (int64_t b = 0; b < p.B; ++b)
        if (!checkProduct(p.out, b * p.M * p.N, p.wCand, p.cand, b * p.Kc * p.N,
                          p.Kc, p.wUser, p.user, p.users[b] * p.Ku * p.N, p.Ku,
                          p.M, p.N, p.dtype))
          break;
      TEST_CASE("ikbo_lce pieces whose K do not sum to kCand");
      a.candPieceK[0] += 1;
      EXPECT_STATUS(embrtIkboLce(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx), "but kCand is");
      embrtContextClearError(ctx);
      a.candPieceK[0] -= 1;
      TEST_CASE("ikbo_lce cand and pieces both given");
      a.cand = p.cand;
      EXPECT_STATUS(embrtIkboLce(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                      "cand and candPieces are both given");
      embrtContextClearError(ctx);
      a.numCandPieces = EMBRT_IKBO_LCE_MAX_PIECES + 1;
      EXPECT_STATUS(embrtIkboLce(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx), "numCandPieces is 5");
      embrtContextClearError(ctx);
      for (int q = 0; q < np; ++q)
        free((void *)a.candPieces[q]);
      free(packed);
      freeIkbo(&p);
    }
}

static void testIkboOutOfRange(embrtContext *ctx, Rng *rng) {
  TEST_CASE("ikbo_lce cand_to_user out of range");
  Ikbo p = {.dtype = EMBRT_F32,
            .indexDtype = EMBRT_I64,
            .B = 5,
            .U = 3,
            .M = 2,
            .Ku = 2,
            .Kc = 2,
            .N = 2};
  makeIkbo(&p, rng);
  ((int64_t *)p.c2u)[4] = 3;
  embrtIkboLceArgs a = ikboArgs(&p);
  EXPECT_STATUS(embrtIkboLce(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "ikbo_lce: cand_to_user[4] is 3, outside the 3 users");
  for (int64_t i = 0; i < p.B * p.M * p.N; ++i)
    EXPECT_TRUE(isnan(((float *)p.out)[i])); // untouched
  embrtContextClearError(ctx);
  freeIkbo(&p);
}

static void testInvalidArguments(embrtContext *ctx, Rng *rng) {
  float w[4] = {1, 2, 3, 4}, x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
  embrtLceArgs good = {sizeof good, EMBRT_F32, 2,   2,  2,    2,
                       w,           x,         out, -1, NULL, 0};
  embrtLceArgs a;
#define CASE(label, text, body)                                                \
  do {                                                                         \
    TEST_CASE(label);                                                          \
    a = good;                                                                  \
    body;                                                                      \
    EXPECT_STATUS(embrtLce(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);             \
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), text);                      \
  } while (0)
  CASE("struct size", "lce: structSize is 3", a.structSize = 3);
  CASE("dtype", "lce: dtype is f64, must be f32, f16 or bf16",
       a.dtype = EMBRT_F64);
  CASE("negative k", "lce: k is -4, must be >= 0", a.k = -4);
  CASE("null w", "lce: w is NULL", a.w = NULL);
  CASE("null x", "lce: x is NULL", a.x = NULL);
  CASE("null output", "lce: output is NULL", a.output = NULL);
  CASE("config", "lce: configId is -2", a.configId = -2);
  CASE("huge", "lce: w is too large to address",
       (a.m = INT64_MAX / 2, a.n = 4));
#undef CASE
  TEST_CASE("lce null args");
  EXPECT_STATUS(embrtLce(ctx, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  size_t bytes;
  EXPECT_STATUS(embrtLceWorkspaceSize(ctx, &good, NULL), EMBRT_INVALID_ARGUMENT,
                ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "lce: bytes is NULL");
  // A shape query needs no data pointers.
  a = good;
  a.w = a.x = NULL;
  a.output = NULL;
  EXPECT_STATUS(embrtLceWorkspaceSize(ctx, &a, &bytes), EMBRT_OK, ctx);

  Ikbo p = {.dtype = EMBRT_BF16,
            .indexDtype = EMBRT_I32,
            .B = 3,
            .U = 2,
            .M = 2,
            .Ku = 2,
            .Kc = 2,
            .N = 2};
  makeIkbo(&p, rng);
  embrtIkboLceArgs ig = ikboArgs(&p), ia;
#define CASE(label, text, body)                                                \
  do {                                                                         \
    TEST_CASE(label);                                                          \
    ia = ig;                                                                   \
    body;                                                                      \
    EXPECT_STATUS(embrtIkboLce(ctx, &ia), EMBRT_INVALID_ARGUMENT, ctx);        \
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), text);                      \
  } while (0)
  CASE("ikbo struct size", "ikbo_lce: structSize", ia.structSize = 0);
  CASE("ikbo index dtype", "ikbo_lce: indexDtype is bf16",
       ia.indexDtype = EMBRT_BF16);
  CASE("ikbo null c2u", "ikbo_lce: candToUser is NULL", ia.candToUser = NULL);
  CASE("ikbo null user", "ikbo_lce: user is NULL", ia.user = NULL);
  CASE("ikbo null wUser", "ikbo_lce: wUser is NULL", ia.wUser = NULL);
  CASE("ikbo negative users", "ikbo_lce: numUsers is -1", ia.numUsers = -1);
  CASE("ikbo short stride",
       "ikbo_lce: wCandStride is 1, must be 0 (packed) or >= 2",
       ia.wCandStride = 1);
  CASE("ikbo negative stride",
       "ikbo_lce: wUserStride is -3, must be 0 (packed) or >= 2",
       ia.wUserStride = -3);
  CASE("ikbo huge stride", "ikbo_lce: wUser is too large to address",
       ia.wUserStride = INT64_MAX / 2);
  CASE("ikbo compute type of half data",
       "ikbo_lce: computeDtype is f16, must be f32 (the data as it is), or "
       "f16 or bf16 with f32 data (dtype is bf16)",
       ia.computeDtype = EMBRT_F16);
  CASE("ikbo compute type not a float",
       "ikbo_lce: computeDtype is i32, must be f32",
       (ia.dtype = EMBRT_F32, ia.computeDtype = EMBRT_I32));
  // In an empty batch a piece holds no element whatever its K: the pieces'
  // K must not wrap around to kCand (2^64 + 2 is 2 mod 2^64).
  CASE("ikbo pieces' K past int64",
       "ikbo_lce: candPieceK[1] is 9223372036854775807, which takes the "
       "candidate pieces' K past int64",
       (ia.batchSize = 0, ia.cand = NULL, ia.numCandPieces = 3,
        ia.candPieceK[0] = INT64_MAX, ia.candPieceK[1] = INT64_MAX,
        ia.candPieceK[2] = 4));
#undef CASE
  embrtContextClearError(ctx);
  freeIkbo(&p);
}

/// `n` f32 elements rounded to `type` (a new tensor of that type; `from`
/// NULL: zeros).
static void *narrowed(const float *from, embrtDtype type, int64_t n) {
  void *to = malloc((size_t)n * 2 + 1);
  for (int64_t i = 0; i < n; ++i)
    refStore(to, type, i, from ? from[i] : 0.0);
  return to;
}

/// f32 data computed in f16 and bf16: the operands are read rounded and
/// the result is rounded once, so the f32 output holds, bit for bit, the
/// widened output of the same call on operands stored in that type; with
/// the weights as column blocks of one matrix and the candidates in two
/// pieces (the second NULL: zeros) as well.
static void testIkboComputeType(embrtContext *ctx, Rng *rng) {
  const embrtDtype computes[] = {EMBRT_F16, EMBRT_BF16};
  const int64_t shapes[][6] = {// B, U, M, Ku, Kc, N
                               {6, 2, 3, 4, 5, 7},
                               {9, 4, 8, 16, 3, 2},
                               {1, 1, 1, 1, 1, 1}};
  for (int c = 0; c < 2; ++c)
    for (int s = 0; s < 3; ++s)
      for (int split = 0; split < 2; ++split) {
        TEST_CASE(split ? "ikbo_lce computeDtype, views and pieces"
                        : "ikbo_lce computeDtype");
        embrtDtype ct = computes[c];
        Ikbo p = {.dtype = EMBRT_F32,
                  .indexDtype = EMBRT_I32,
                  .B = shapes[s][0],
                  .U = shapes[s][1],
                  .M = shapes[s][2],
                  .Ku = shapes[s][3],
                  .Kc = shapes[s][4],
                  .N = shapes[s][5]};
        makeIkbo(&p, rng);
        int64_t M = p.M, Ku = p.Ku, Kc = p.Kc, N = p.N, B = p.B;
        // Piece 0: the first k0 rows of K; piece 1 (NULL) reads zeros.
        int64_t k0 = split ? (Kc + 1) / 2 : Kc;
        for (int64_t b = 0; b < B; ++b)
          for (int64_t i = k0 * N; i < Kc * N; ++i)
            ((float *)p.cand)[b * Kc * N + i] = 0.0f;
        embrtIkboLceArgs a = ikboArgs(&p);
        a.computeDtype = ct;
        float *wAll = NULL, *piece = NULL;
        if (split) {
          int64_t S = Ku + Kc + 1;
          wAll = randomTensor(rng, EMBRT_F32, M * S);
          piece = malloc((size_t)(B * k0 * N) * sizeof(float) + 1);
          for (int64_t m = 0; m < M; ++m) {
            memcpy(wAll + m * S, (float *)p.wUser + m * Ku, Ku * 4);
            memcpy(wAll + m * S + Ku, (float *)p.wCand + m * Kc, Kc * 4);
          }
          for (int64_t b = 0; b < B; ++b)
            memcpy(piece + b * k0 * N, (float *)p.cand + b * Kc * N,
                   k0 * N * 4);
          a.wUser = wAll;
          a.wCand = wAll + Ku;
          a.wUserStride = a.wCandStride = S;
          a.cand = NULL;
          a.numCandPieces = 2;
          a.candPieces[0] = piece;
          a.candPieceK[0] = k0;
          a.candPieces[1] = NULL;
          a.candPieceK[1] = Kc - k0;
        }
        EXPECT_STATUS(embrtIkboLce(ctx, &a), EMBRT_OK, ctx);

        Ikbo q = p; // the same problem stored in the compute type
        q.dtype = ct;
        q.wUser = narrowed(p.wUser, ct, M * Ku);
        q.wCand = narrowed(p.wCand, ct, M * Kc);
        q.user = narrowed(p.user, ct, p.U * Ku * N);
        q.cand = narrowed(p.cand, ct, B * Kc * N);
        q.out = poisoned((size_t)(B * M * N) * 2);
        embrtIkboLceArgs qa = ikboArgs(&q);
        EXPECT_STATUS(embrtIkboLce(ctx, &qa), EMBRT_OK, ctx);
        for (int64_t b = 0; b < B; ++b)
          if (!checkProduct(q.out, b * M * N, q.wCand, q.cand, b * Kc * N, Kc,
                            q.wUser, q.user, q.users[b] * Ku * N, Ku, M, N, ct))
            break;
        int64_t differ = 0;
        for (int64_t i = 0; i < B * M * N; ++i)
          differ += ((float *)p.out)[i] != (float)refLoad(q.out, ct, i);
        EXPECT_EQ_INT(differ, 0);
        free(q.wUser);
        free(q.wCand);
        free(q.user);
        free(q.cand);
        free(q.out);
        free(wAll);
        free(piece);
        freeIkbo(&p);
      }
}

int main(void) {
  Rng rng = rngSeed(0x1CE);
  embrtContext *ctx = newCpuContext();
  testLce(ctx, &rng);
  testIkboLce(ctx, &rng);
  testIkboStridedWeights(ctx, &rng);
  testIkboPieces(ctx, &rng);
  testIkboComputeType(ctx, &rng);
  testIkboOutOfRange(ctx, &rng);
  testInvalidArguments(ctx, &rng);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
