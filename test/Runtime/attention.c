// RUN: %runtime_test_dir/attention
//
// embrtAttention and embrtIkboAttention on the CPU against a direct f64
// softmax(q k^T * scale) v: f32, f16 and bf16, f32 data computed in f16 or
// bf16 (computeDtype), masked user lengths (zero included) and
// emb.attention's key lengths per row, the workspace protocol, out-of-range
// indices and malformed arguments (key lengths of no index dtype included).

#include "harness.h"

typedef struct Problem {
  embrtDtype dtype, indexDtype;
  embrtDtype compute; ///< computeDtype (F32, the zero value: the data as is)
  int64_t B, U, Lq, Lk, H, Dh;
  float scale;
  int ikbo, hasLengths, additiveMask;
  void *q, *k, *v, *c2u, *lengths, *out, *workspace;
  /// Output elements expected NaN (additiveMask), or NULL for none.
  const unsigned char *nanAt;
  int64_t *users, *lens;
  size_t workspaceBytes;
} Problem;

static void makeProblem(Problem *p, Rng *rng) {
  int64_t U = p->ikbo ? p->U : p->B;
  p->U = U;
  p->scale = (float)(1.0 / sqrt((double)(p->Dh ? p->Dh : 1)));
  p->q = randomTensor(rng, p->dtype, p->B * p->Lq * p->H * p->Dh);
  p->k = randomTensor(rng, p->dtype, U * p->Lk * p->H * p->Dh);
  p->v = randomTensor(rng, p->dtype, U * p->Lk * p->H * p->Dh);
  p->users = malloc((size_t)(p->B + 1) * sizeof(int64_t));
  p->lens = malloc((size_t)(U + 1) * sizeof(int64_t));
  for (int64_t b = 0; b < p->B; ++b)
    p->users[b] = p->ikbo ? rngInt(rng, 0, U) : b;
  for (int64_t u = 0; u < U; ++u)
    p->lens[u] = p->hasLengths ? rngInt(rng, 0, p->Lk + 1) : p->Lk;
  if (p->hasLengths && U > 1)
    p->lens[0] = 0, p->lens[U - 1] = p->Lk; // the extremes
  p->c2u = p->ikbo ? indexTensor(p->indexDtype, p->users, p->B) : NULL;
  p->lengths = p->hasLengths ? indexTensor(p->indexDtype, p->lens, U) : NULL;
  p->out = poisoned((size_t)(p->B * p->Lq * p->H * p->Dh) *
                    embrtDtypeSize(p->dtype));
  p->workspaceBytes = (size_t)p->Lk * sizeof(double);
  p->workspace = p->workspaceBytes ? malloc(p->workspaceBytes) : NULL;
}

static void freeProblem(Problem *p) {
  free(p->q);
  free(p->k);
  free(p->v);
  free(p->users);
  free(p->lens);
  free(p->c2u);
  free(p->lengths);
  free(p->out);
  free(p->workspace);
}

static embrtAttentionArgs argsOf(const Problem *p) {
  embrtAttentionArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = p->dtype;
  a.batchSize = p->B;
  a.numUsers = p->U;
  a.lq = p->Lq, a.lk = p->Lk, a.heads = p->H, a.headDim = p->Dh;
  a.scale = p->scale;
  a.q = p->q, a.k = p->k, a.v = p->v;
  a.candToUser = p->c2u;
  a.userLengths = p->lengths;
  a.indexDtype = p->indexDtype;
  a.output = p->out;
  a.configId = -1;
  a.workspace = p->workspace;
  a.workspaceBytes = p->workspaceBytes;
  a.computeDtype = p->compute;
  a.additiveMask = p->additiveMask;
  return a;
}

/// `x` rounded to `type` (F16 or BF16; F32 leaves it as it is).
static double roundTo(double x, embrtDtype type) {
  if (type == EMBRT_F16)
    return embrtF16ToF32(embrtF32ToF16((float)x));
  if (type == EMBRT_BF16)
    return embrtBF16ToF32(embrtF32ToBF16((float)x));
  return x;
}

/// Element i of q, k or v as the products read it.
static double operand(const Problem *p, const void *data, int64_t i) {
  return roundTo(refLoad(data, p->dtype, i), p->compute);
}

static void checkOutput(const Problem *p) {
  int64_t Lq = p->Lq, Lk = p->Lk, H = p->H, Dh = p->Dh;
  double tol = harnessTolerance(p->compute != EMBRT_F32 ? p->compute : p->dtype,
                                EMBRT_F64);
  double *weights = malloc((size_t)(Lk + 1) * sizeof(double));
  for (int64_t b = 0; b < p->B; ++b) {
    int64_t u = p->users[b], keys = p->lens[u];
    for (int64_t i = 0; i < Lq; ++i)
      for (int64_t h = 0; h < H; ++h) {
        int64_t qBase = ((b * Lq + i) * H + h) * Dh;
        double top = -INFINITY, total = 0.0;
        for (int64_t j = 0; j < keys; ++j) {
          double dot = 0.0;
          for (int64_t d = 0; d < Dh; ++d)
            dot += operand(p, p->q, qBase + d) *
                   operand(p, p->k, ((u * Lk + j) * H + h) * Dh + d);
          weights[j] = dot * p->scale;
          top = weights[j] > top ? weights[j] : top;
        }
        for (int64_t j = 0; j < keys; ++j)
          total += weights[j] = exp(weights[j] - top);
        for (int64_t d = 0; d < Dh; ++d) {
          double got = refLoad(p->out, p->dtype, qBase + d);
          if (p->nanAt && (p->nanAt[qBase + d] != 0) != (isnan(got) != 0)) {
            HARNESS_FAIL("output[%lld] is %g, expected %s",
                         (long long)(qBase + d), got,
                         p->nanAt[qBase + d] ? "NaN" : "a number");
            free(weights);
            return;
          }
          if (p->nanAt && p->nanAt[qBase + d])
            continue;
          double ref = 0.0, magnitude = 0.0;
          for (int64_t j = 0; j < keys; ++j) {
            double term = weights[j] / total *
                          operand(p, p->v, ((u * Lk + j) * H + h) * Dh + d);
            ref += term, magnitude += fabs(term);
          }
          if (!EXPECT_NEAR("output", qBase + d, got, ref, magnitude, tol)) {
            free(weights);
            return;
          }
        }
      }
  }
  free(weights);
}

static void testAttention(embrtContext *ctx, Rng *rng) {
  const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  const int64_t shapes[][5] = {// B, Lq, Lk, H, Dh
                               {3, 4, 5, 2, 8},
                               {1, 1, 1, 1, 1},
                               {2, 3, 17, 3, 5},
                               {2, 2, 0, 2, 4}};
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 4; ++s)
      for (int ikbo = 0; ikbo < 2; ++ikbo)
        for (int lengths = 0; lengths <= 1; ++lengths)
          for (int ix = 0; ix <= (ikbo || lengths); ++ix) {
            TEST_CASE(ikbo ? "ikbo_attention" : "attention");
            Problem p = {.dtype = dtypes[d],
                         .indexDtype = ix ? EMBRT_I64 : EMBRT_I32,
                         .B = shapes[s][0] * (ikbo ? 3 : 1),
                         .U = shapes[s][0],
                         .Lq = shapes[s][1],
                         .Lk = shapes[s][2],
                         .H = shapes[s][3],
                         .Dh = shapes[s][4],
                         .ikbo = ikbo,
                         .hasLengths = lengths};
            makeProblem(&p, rng);
            embrtAttentionArgs a = argsOf(&p);
            size_t bytes = 0;
            EXPECT_STATUS(embrtAttentionWorkspaceSize(ctx, &a, &bytes),
                          EMBRT_OK, ctx);
            EXPECT_EQ_INT(bytes, p.Lk * (int64_t)sizeof(double));
            EXPECT_STATUS(ikbo ? embrtIkboAttention(ctx, &a)
                               : embrtAttention(ctx, &a),
                          EMBRT_OK, ctx);
            checkOutput(&p);
            freeProblem(&p);
          }
}

/// additiveMask: keys past a row's length masked by an added -inf, as
/// PyTorch's math attention does (embrtAttentionArgs::additiveMask). On
/// finite inputs in range the result is the lengths' to the bit; a NaN
/// score or an inf value at a masked key, a NaN query of a row that keeps
/// no key and (f16) a masked score past 65504 make NaNs exactly where the
/// math form has them, and every other element is the lengths' result.
/// B 3 rows of lengths 2, 4, 0; Lq 2, Lk 4, H 2, Dh 8.
static void testAdditiveMask(embrtContext *ctx, Rng *rng) {
  const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  for (int t = 0; t < 3; ++t)
    for (int ikbo = 0; ikbo < 2; ++ikbo) {
      TEST_CASE(ikbo ? "ikbo_attention additive mask"
                     : "attention additive mask");
      Problem p = {.dtype = dtypes[t],
                   .indexDtype = EMBRT_I64,
                   .B = 3,
                   .U = 3,
                   .Lq = 2,
                   .Lk = 4,
                   .H = 2,
                   .Dh = 8,
                   .ikbo = ikbo,
                   .hasLengths = 1};
      makeProblem(&p, rng);
      p.lens[0] = 2, p.lens[1] = 4, p.lens[2] = 0;
      for (int64_t b = 0; b < 3; ++b)
        p.users[b] = b; // ikbo: user b, read through cand_to_user
      free(p.c2u);
      free(p.lengths);
      p.c2u = ikbo ? indexTensor(p.indexDtype, p.users, p.B) : NULL;
      p.lengths = indexTensor(p.indexDtype, p.lens, p.U);
      size_t outBytes = (size_t)(3 * 2 * 2 * 8) * embrtDtypeSize(p.dtype);
      embrtAttentionArgs a = argsOf(&p);
      embrtStatus (*run)(embrtContext *, const embrtAttentionArgs *) =
          ikbo ? embrtIkboAttention : embrtAttention;
      // Finite inputs: the lengths' result, bit for bit.
      EXPECT_STATUS(run(ctx, &a), EMBRT_OK, ctx);
      unsigned char *plain = malloc(outBytes);
      memcpy(plain, p.out, outBytes);
      p.additiveMask = a.additiveMask = 1;
      EXPECT_STATUS(run(ctx, &a), EMBRT_OK, ctx);
      EXPECT_TRUE(memcmp(plain, p.out, outBytes) == 0);
      free(plain);
      // Element [b, j, h, d] of k and v (Lk 4), [b, i, h, d] of q and out (Lq
      // 2).
#define KV(b, j, h, d) ((((b)*4 + (j)) * 2 + (h)) * 8 + (d))
#define QO(b, i, h, d) ((((b)*2 + (i)) * 2 + (h)) * 8 + (d))
      unsigned char nanAt[3 * 2 * 2 * 8] = {0};
      refStore(p.k, p.dtype, KV(0, 3, 1, 5), NAN); // row 0 keeps keys 0, 1
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t d = 0; d < 8; ++d)
          nanAt[QO(0, i, 1, d)] = 1;
      refStore(p.v, p.dtype, KV(2, 1, 0, 6), INFINITY); // row 2 keeps none
      nanAt[QO(2, 0, 0, 6)] = nanAt[QO(2, 1, 0, 6)] = 1;
      refStore(p.q, p.dtype, QO(2, 1, 1, 0), NAN);
      for (int64_t d = 0; d < 8; ++d)
        nanAt[QO(2, 1, 1, d)] = 1;
      // Query 0 of row 0, head 0, and its masked key 2: 200 in every
      // element, a score of 8 * (200 * 8^-1/4)^2 = 113137 (f16: +inf).
      for (int64_t d = 0; d < 8; ++d) {
        refStore(p.q, p.dtype, QO(0, 0, 0, d), 200.0);
        refStore(p.k, p.dtype, KV(0, 2, 0, d), 200.0);
        nanAt[QO(0, 0, 0, d)] = p.dtype == EMBRT_F16;
      }
#undef KV
#undef QO
      p.nanAt = nanAt;
      EXPECT_STATUS(run(ctx, &a), EMBRT_OK, ctx);
      checkOutput(&p);
      for (int64_t d = 0; d < 8; ++d)
        if (d != 6) // row 2 keeps no key: zeros but for the inf's element
          EXPECT_TRUE(refLoad(p.out, p.dtype, ((2 * 2 + 0) * 2 + 0) * 8 + d) ==
                      0.0);
      // Without the lengths there is nothing to make additive.
      TEST_CASE("additive mask without lengths");
      a.userLengths = NULL;
      EXPECT_STATUS(run(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
      EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                      "additiveMask needs userLengths");
      freeProblem(&p);
    }
}

/// f32 data computed in f16 or bf16: the reference multiplies the operands
/// rounded to the compute type, and every output is a value of that type.
static void testComputeType(embrtContext *ctx, Rng *rng) {
  const embrtDtype computes[] = {EMBRT_F16, EMBRT_BF16};
  for (int c = 0; c < 2; ++c)
    for (int ikbo = 0; ikbo < 2; ++ikbo) {
      TEST_CASE(c ? "attention in bf16" : "attention in f16");
      Problem p = {.dtype = EMBRT_F32,
                   .indexDtype = EMBRT_I32,
                   .compute = computes[c],
                   .B = ikbo ? 9 : 3,
                   .U = 3,
                   .Lq = 4,
                   .Lk = 17,
                   .H = 2,
                   .Dh = 8,
                   .ikbo = ikbo,
                   .hasLengths = 1};
      makeProblem(&p, rng);
      embrtAttentionArgs a = argsOf(&p);
      EXPECT_STATUS(ikbo ? embrtIkboAttention(ctx, &a)
                         : embrtAttention(ctx, &a),
                    EMBRT_OK, ctx);
      checkOutput(&p);
      int64_t n = p.B * p.Lq * p.H * p.Dh, unrounded = 0;
      for (int64_t i = 0; i < n; ++i) {
        double o = ((float *)p.out)[i];
        unrounded += roundTo(o, computes[c]) != o;
      }
      EXPECT_EQ_INT(unrounded, 0);
      freeProblem(&p);
    }
}

/// A user with no keys gives zero rows.
static void testZeroLength(embrtContext *ctx, Rng *rng) {
  TEST_CASE("ikbo_attention zero-length user");
  Problem p = {.dtype = EMBRT_F32,
               .indexDtype = EMBRT_I32,
               .B = 4,
               .U = 2,
               .Lq = 2,
               .Lk = 3,
               .H = 2,
               .Dh = 4,
               .ikbo = 1,
               .hasLengths = 1};
  makeProblem(&p, rng);
  p.lens[0] = 0, p.lens[1] = 2;
  for (int64_t b = 0; b < 4; ++b)
    p.users[b] = b % 2;
  free(p.c2u);
  free(p.lengths);
  p.c2u = indexTensor(p.indexDtype, p.users, p.B);
  p.lengths = indexTensor(p.indexDtype, p.lens, p.U);
  embrtAttentionArgs a = argsOf(&p);
  EXPECT_STATUS(embrtIkboAttention(ctx, &a), EMBRT_OK, ctx);
  checkOutput(&p);
  int64_t row = p.Lq * p.H * p.Dh;
  for (int64_t i = 0; i < row; ++i)
    EXPECT_TRUE(((float *)p.out)[2 * row + i] == 0.0f); // candidate 2: user 0
  freeProblem(&p);
}

static void testWorkspace(embrtContext *ctx, Rng *rng) {
  Problem p = {.dtype = EMBRT_BF16,
               .indexDtype = EMBRT_I64,
               .B = 2,
               .U = 2,
               .Lq = 2,
               .Lk = 6,
               .H = 1,
               .Dh = 4};
  makeProblem(&p, rng);
  embrtAttentionArgs a = argsOf(&p);
  TEST_CASE("workspace too small");
  a.workspaceBytes = p.workspaceBytes - 1;
  EXPECT_STATUS(embrtAttention(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "attention: workspace has 47 bytes, needs 48");
  TEST_CASE("workspace missing");
  a = argsOf(&p);
  a.workspace = NULL;
  EXPECT_STATUS(embrtAttention(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "attention: workspace is NULL, needs 48 bytes");
  TEST_CASE("workspace misaligned");
  char *raw = malloc(64);
  a = argsOf(&p);
  a.workspace = raw + 1;
  EXPECT_STATUS(embrtAttention(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "16-byte aligned");
  free(raw);
  TEST_CASE("nothing written on a bad workspace");
  for (int64_t i = 0; i < p.B * p.Lq * p.H * p.Dh; ++i)
    EXPECT_TRUE(((uint16_t *)p.out)[i] == 0xFFFF);
  TEST_CASE("a larger workspace is fine");
  a = argsOf(&p);
  double big[16];
  a.workspace = big;
  a.workspaceBytes = sizeof big;
  EXPECT_STATUS(embrtAttention(ctx, &a), EMBRT_OK, ctx);
  checkOutput(&p);
  TEST_CASE("shape-only query for ikbo");
  embrtAttentionArgs query;
  memset(&query, 0, sizeof query);
  query.structSize = sizeof query;
  query.dtype = EMBRT_F16;
  query.batchSize = 10, query.numUsers = 3;
  query.lq = 1, query.lk = 100, query.heads = 2, query.headDim = 8;
  query.indexDtype = EMBRT_I32;
  size_t bytes = 0;
  EXPECT_STATUS(embrtAttentionWorkspaceSize(ctx, &query, &bytes), EMBRT_OK,
                ctx);
  EXPECT_EQ_INT(bytes, 800);
  embrtContextClearError(ctx);
  freeProblem(&p);
}

static void testOutOfRange(embrtContext *ctx, Rng *rng) {
  Problem p = {.dtype = EMBRT_F16,
               .indexDtype = EMBRT_I32,
               .B = 4,
               .U = 3,
               .Lq = 2,
               .Lk = 5,
               .H = 2,
               .Dh = 2,
               .ikbo = 1,
               .hasLengths = 1};
  makeProblem(&p, rng);
  TEST_CASE("cand_to_user out of range");
  ((int32_t *)p.c2u)[2] = -3;
  embrtAttentionArgs a = argsOf(&p);
  EXPECT_STATUS(embrtIkboAttention(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "ikbo_attention: cand_to_user[2] is -3, outside the 3 users");
  // Candidates 0, 1 read user 0, 2 and 3 user 1; none reads user 2.
  const int64_t users[] = {0, 0, 1, 1};
  for (int64_t b = 0; b < p.B; ++b)
    ((int32_t *)p.c2u)[b] = (int32_t)(p.users[b] = users[b]);
  const int32_t badLengths[] = {6, -1};
  for (int k = 0; k < 2; ++k) {
    TEST_CASE("user length out of range");
    ((int32_t *)p.lengths)[1] = badLengths[k];
    EXPECT_STATUS(embrtIkboAttention(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
    char needle[80];
    snprintf(needle, sizeof needle, "user_lengths[1] is %d, outside 0..5",
             badLengths[k]);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), needle);
  }
  for (int64_t i = 0; i < p.B * p.Lq * p.H * p.Dh; ++i)
    EXPECT_TRUE(((uint16_t *)p.out)[i] == 0xFFFF);
  embrtContextClearError(ctx);
  // The length of a user no candidate reads is not read, so not checked:
  // as emb.attention over broadcast(user_lengths, cand_to_user) reads it.
  ((int32_t *)p.lengths)[0] = 5, p.lens[0] = 5;
  ((int32_t *)p.lengths)[1] = 3, p.lens[1] = 3;
  const int32_t unreadLengths[] = {6, -1, INT32_MIN};
  for (int k = 0; k < 3; ++k) {
    TEST_CASE("length of a user no candidate reads");
    ((int32_t *)p.lengths)[2] = unreadLengths[k];
    memset(p.out, 0xFF, (size_t)(p.B * p.Lq * p.H * p.Dh) * sizeof(uint16_t));
    EXPECT_STATUS(embrtIkboAttention(ctx, &a), EMBRT_OK, ctx);
    checkOutput(&p);
  }
  freeProblem(&p);

  // emb.attention's key_lengths: one per row, named as such.
  Problem plain = {.dtype = EMBRT_F32,
                   .indexDtype = EMBRT_I64,
                   .B = 3,
                   .Lq = 1,
                   .Lk = 4,
                   .H = 1,
                   .Dh = 2,
                   .hasLengths = 1};
  makeProblem(&plain, rng);
  TEST_CASE("key length out of range");
  ((int64_t *)plain.lengths)[2] = 5;
  a = argsOf(&plain);
  EXPECT_STATUS(embrtAttention(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "attention: key_lengths[2] is 5, outside 0..4");
  embrtContextClearError(ctx);
  freeProblem(&plain);
}

/// emb.attention's key lengths are typed by indexDtype, which is checked
/// whenever they are given: i32 lengths with the field left at its zero
/// value (f32, a memset struct) are refused, never read as i64. Without key
/// lengths plain attention reads no index, and the field is not read.
static void testKeyLengthDtype(embrtContext *ctx, Rng *rng) {
  Problem p = {.dtype = EMBRT_F32,
               .indexDtype = EMBRT_I32,
               .B = 3,
               .Lq = 2,
               .Lk = 4,
               .H = 2,
               .Dh = 2,
               .hasLengths = 1};
  makeProblem(&p, rng);
  const embrtDtype bad[] = {EMBRT_F32, EMBRT_I8};
  const char *messages[] = {"attention: indexDtype is f32, must be i32 or i64",
                            "attention: indexDtype is i8, must be i32 or i64"};
  for (int i = 0; i < 2; ++i) {
    TEST_CASE("key lengths of no index dtype");
    embrtAttentionArgs a = argsOf(&p);
    a.indexDtype = bad[i];
    size_t bytes = 0;
    EXPECT_STATUS(embrtAttentionWorkspaceSize(ctx, &a, &bytes),
                  EMBRT_INVALID_ARGUMENT, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), messages[i]);
    embrtContextClearError(ctx);
    EXPECT_STATUS(embrtAttention(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), messages[i]);
    embrtContextClearError(ctx);
  }
  size_t outBytes = (size_t)(p.B * p.Lq * p.H * p.Dh) * sizeof(float);
  for (size_t i = 0; i < outBytes; ++i)
    EXPECT_TRUE(((unsigned char *)p.out)[i] == 0xFF);
  freeProblem(&p);

  TEST_CASE("no key lengths, index dtype unset");
  Problem plain = {.dtype = EMBRT_F32,
                   .indexDtype = EMBRT_F32,
                   .B = 3,
                   .Lq = 2,
                   .Lk = 4,
                   .H = 2,
                   .Dh = 2};
  makeProblem(&plain, rng);
  embrtAttentionArgs a = argsOf(&plain);
  EXPECT_STATUS(embrtAttention(ctx, &a), EMBRT_OK, ctx);
  checkOutput(&plain);
  freeProblem(&plain);
}

static void testInvalidArguments(embrtContext *ctx, Rng *rng) {
  Problem p = {.dtype = EMBRT_F32,
               .indexDtype = EMBRT_I32,
               .B = 3,
               .U = 3,
               .Lq = 2,
               .Lk = 4,
               .H = 2,
               .Dh = 2};
  makeProblem(&p, rng);
  embrtAttentionArgs good = argsOf(&p), a;
  int32_t users[3] = {0, 1, 2};
#define CASE(label, call, text, body)                                          \
  do {                                                                         \
    TEST_CASE(label);                                                          \
    a = good;                                                                  \
    body;                                                                      \
    EXPECT_STATUS(call(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);                 \
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), text);                      \
  } while (0)
  CASE("struct size", embrtAttention, "attention: structSize is 1",
       a.structSize = 1);
  CASE("dtype", embrtAttention, "attention: dtype is f64", a.dtype = EMBRT_F64);
  CASE("users differ", embrtAttention,
       "attention: numUsers is 2, must equal batchSize 3", a.numUsers = 2);
  CASE("cand_to_user on attention", embrtAttention,
       "attention: candToUser must be NULL", a.candToUser = users);
  CASE("null q", embrtAttention, "attention: q is NULL", a.q = NULL);
  CASE("null v", embrtAttention, "attention: v is NULL", a.v = NULL);
  CASE("negative heads", embrtAttention, "attention: heads is -2",
       a.heads = -2);
  CASE("ikbo without cand_to_user", embrtIkboAttention,
       "ikbo_attention: candToUser is NULL", (void)0);
  CASE("ikbo index dtype", embrtIkboAttention,
       "ikbo_attention: indexDtype is i8",
       (a.candToUser = users, a.indexDtype = EMBRT_I8));
  CASE("compute type of f16 data", embrtAttention,
       "attention: computeDtype is bf16, must be f32 (the data as it is), or "
       "f16 or bf16 with f32 data (dtype is f16)",
       (a.dtype = EMBRT_F16, a.computeDtype = EMBRT_BF16));
  CASE("compute type not a float", embrtAttention,
       "attention: computeDtype is i32", a.computeDtype = EMBRT_I32);
#undef CASE
  TEST_CASE("null args");
  EXPECT_STATUS(embrtIkboAttention(ctx, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "ikbo_attention: args is NULL");
  embrtContextClearError(ctx);
  freeProblem(&p);
}

int main(void) {
  Rng rng = rngSeed(0xA77E);
  embrtContext *ctx = newCpuContext();
  testAttention(ctx, &rng);
  testComputeType(ctx, &rng);
  testZeroLength(ctx, &rng);
  testWorkspace(ctx, &rng);
  testOutOfRange(ctx, &rng);
  testInvalidArguments(ctx, &rng);
  testKeyLengthDtype(ctx, &rng);
  testAdditiveMask(ctx, &rng);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
