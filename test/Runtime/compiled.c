// RUN: %runtime_test_dir/compiled
//
// The compiled-model ABI (emb/compiled.h) on the CPU: its memory functions
// (a negative size is a named error, never a silent NULL), and each op's
// decoder checks the extents a call carries besides its sizes (what a model
// read from `?` dims at run time). A good call of each op against numbers
// worked out by hand, then every checked extent changed in turn: a named
// EMBRT_OUT_OF_RANGE error and an untouched output (the emb ops, elementwise
// ops and tensor.concat). Also what the lookups' data errors and bounds-check
// notes say for a compiled embedding bag and TBE: the entry point, the
// feature and table, the id and its position.

#include "emb/compiled.h"
#include "harness.h"

typedef void (*CompiledOp)(embrtContext *ctx, const int64_t *attrs,
                           void *const *buffers, const int64_t *dims);

/// A call of one op: its three arrays and the output it writes.
typedef struct Call {
  CompiledOp op;
  const int64_t *attrs;
  void *const *buffers;
  int64_t *dims;
  float *output;
  int64_t outputElements;
} Call;

/// A value no op writes: a call that fails must leave it everywhere.
#define SENTINEL -12345.0f

static void fillSentinel(const Call *c) {
  for (int64_t i = 0; i < c->outputElements; ++i)
    c->output[i] = SENTINEL;
}

/// Runs the call and expects it to succeed with `want` in its output.
static void expectOutput(embrtContext *ctx, const Call *c, const float *want) {
  fillSentinel(c);
  embrtContextClearError(ctx);
  c->op(ctx, c->attrs, c->buffers, c->dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  for (int64_t i = 0; i < c->outputElements; ++i)
    if (c->output[i] != want[i]) {
      HARNESS_FAIL("output[%lld] is %g, expected %g", (long long)i,
                   (double)c->output[i], (double)want[i]);
      break;
    }
}

/// Sets dims[index] to `value` for one call: the call must fail with
/// `message` and write nothing.
static void expectExtentError(embrtContext *ctx, const Call *c,
                              const char *label, int64_t index, int64_t value,
                              const char *message) {
  TEST_CASE(label);
  int64_t saved = c->dims[index];
  c->dims[index] = value;
  fillSentinel(c);
  embrtContextClearError(ctx);
  c->op(ctx, c->attrs, c->buffers, c->dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), message);
  for (int64_t i = 0; i < c->outputElements; ++i)
    if (c->output[i] != SENTINEL) {
      HARNESS_FAIL("output[%lld] was written", (long long)i);
      break;
    }
  c->dims[index] = saved;
  embrtContextClearError(ctx);
}

//===----------------------------------------------------------------------===//
// emb.embedding_bag
//===----------------------------------------------------------------------===//

/// weight[10, 4] with row r = 4r .. 4r + 3; ids 0..8 in bags {0, 1, 2},
/// {3, 4, 5}, {6, 7, 8}; weights 1 but 2 for the last id.
static void testEmbeddingBag(embrtContext *ctx) {
  TEST_CASE("embedding_bag");
  float weight[40], psw[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2}, output[36];
  int64_t ids[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, offsets[4] = {0, 3, 6, 9};
  for (int i = 0; i < 40; ++i)
    weight[i] = (float)i;
  int64_t attrs[EMB_ABI_TBE_FEATURE_TABLES + 1] = {
      [EMB_ABI_TBE_POOLING] = EMBRT_POOLING_SUM,
      [EMB_ABI_TBE_BOUNDS_CHECK] = EMBRT_BOUNDS_FATAL,
      [EMB_ABI_TBE_TABLE_DTYPE] = EMBRT_F32,
      [EMB_ABI_TBE_INDEX_DTYPE] = EMBRT_I64,
      [EMB_ABI_TBE_PSW_DTYPE] = EMBRT_F32,
      [EMB_ABI_TBE_OUTPUT_DTYPE] = EMBRT_F32,
      [EMB_ABI_TBE_CONFIG_ID] = -1,
      [EMB_ABI_TBE_NUM_TABLES] = 1,
      [EMB_ABI_TBE_NUM_FEATURES] = 1,
      [EMB_ABI_TBE_IS_BAG] = 1,
      [EMB_ABI_TBE_FEATURE_TABLES] = 0,
  };
  void *buffers[EMB_ABI_TBE_BUF_TABLES + 1] = {
      [EMB_ABI_TBE_BUF_INDICES] = ids,   [EMB_ABI_TBE_BUF_OFFSETS] = offsets,
      [EMB_ABI_TBE_BUF_PSW] = psw,       [EMB_ABI_TBE_BUF_OUTPUT] = output,
      [EMB_ABI_TBE_BUF_TABLES] = weight,
  };
  int64_t dims[EMB_ABI_TBE_DIM_TABLES + 2] = {
      [EMB_ABI_TBE_DIM_INDICES] = 9,     [EMB_ABI_TBE_DIM_BATCH] = 3,
      [EMB_ABI_TBE_DIM_OFFSETS] = 4,     [EMB_ABI_TBE_DIM_PSW] = 9,
      [EMB_ABI_TBE_DIM_OUTPUT_ROWS] = 3, [EMB_ABI_TBE_DIM_OUTPUT_COLS] = 4,
      [EMB_ABI_TBE_DIM_TABLES] = 10,     [EMB_ABI_TBE_DIM_TABLES + 1] = 4,
  };
  Call c = {embrtCompiledTbe, attrs, buffers, dims, output, 12};
  // Bags: 12 + 3d, 48 + 3d, and 24 + 28 + 2 * 32 + 4d = 116 + 4d.
  float sums[12];
  for (int d = 0; d < 4; ++d) {
    sums[d] = (float)(12 + 3 * d);
    sums[4 + d] = (float)(48 + 3 * d);
    sums[8 + d] = (float)(116 + 4 * d);
  }
  expectOutput(ctx, &c, sums);

  expectExtentError(
      ctx, &c, "short per_sample_weights", EMB_ABI_TBE_DIM_PSW, 7,
      "emb.embedding_bag: per_sample_weights has 7 entries but indices has 9");
  expectExtentError(
      ctx, &c, "long per_sample_weights", EMB_ABI_TBE_DIM_PSW, 10,
      "emb.embedding_bag: per_sample_weights has 10 entries but indices has 9");
  expectExtentError(ctx, &c, "long offsets", EMB_ABI_TBE_DIM_OFFSETS, 5,
                    "emb.embedding_bag: offsets has 5 entries but the result "
                    "has 3 rows (bags), which need 4");
  expectExtentError(ctx, &c, "empty offsets", EMB_ABI_TBE_DIM_OFFSETS, 0,
                    "emb.embedding_bag: offsets has 0 entries, needs at "
                    "least 1");
  expectExtentError(ctx, &c, "narrow result", EMB_ABI_TBE_DIM_OUTPUT_COLS, 8,
                    "emb.embedding_bag: the result has 8 columns but weight "
                    "has 4");
  expectExtentError(ctx, &c, "short result", EMB_ABI_TBE_DIM_OUTPUT_ROWS, 2,
                    "emb.embedding_bag: the result has 2 rows but offsets "
                    "has 4 entries, for 3 rows (bags)");

  // A data error names the bag's entry point, the bag, the id and where it
  // is; under "warning" the note says the same and the id adds nothing.
  TEST_CASE("embedding_bag: id outside the weight");
  ids[4] = 12;
  fillSentinel(&c);
  embrtContextClearError(ctx);
  embrtCompiledTbe(ctx, attrs, buffers, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "embedding_bag: bag 1: id 12 is outside weight (10 rows), "
                  "at indices[4]");
  TEST_CASE("embedding_bag: bounds check warning");
  attrs[EMB_ABI_TBE_BOUNDS_CHECK] = EMBRT_BOUNDS_WARNING;
  for (int d = 0; d < 4; ++d) // rows 3 and 5
    sums[4 + d] = (float)(32 + 2 * d);
  expectOutput(ctx, &c, sums);
  EXPECT_EQ_INT(embrtContextGetInvalidIdCount(ctx), 1);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "embedding_bag: skipped 1 ids outside their tables (bounds "
                  "check warning); the first: bag 1: id 12 is outside weight "
                  "(10 rows), at indices[4]");
  embrtContextClearError(ctx);

  // Pooling none: a result row per id.
  TEST_CASE("embedding_bag none");
  attrs[EMB_ABI_TBE_POOLING] = EMBRT_POOLING_NONE;
  attrs[EMB_ABI_TBE_PSW_DTYPE] = -1;
  buffers[EMB_ABI_TBE_BUF_PSW] = NULL;
  ids[4] = 4;
  dims[EMB_ABI_TBE_DIM_OUTPUT_ROWS] = 9;
  c.outputElements = 36;
  expectOutput(ctx, &c, weight);
  expectExtentError(ctx, &c, "none: short result", EMB_ABI_TBE_DIM_OUTPUT_ROWS,
                    8,
                    "emb.embedding_bag: the result has 8 rows but indices "
                    "has 9 entries");
}

//===----------------------------------------------------------------------===//
// emb.tbe
//===----------------------------------------------------------------------===//

/// Two features over two tables: t0[10, 4] (row r = 4r + d), t1[10, 2] (row
/// r = 100 + 2r + d); batch 2, ids {0, 1}, {2} of feature 0 and {3}, {4, 5}
/// of feature 1, weighted 1.
static void testTbe(embrtContext *ctx) {
  TEST_CASE("tbe");
  float t0[40], t1[20], psw[6] = {1, 1, 1, 1, 1, 1}, output[12];
  int64_t ids[6] = {0, 1, 2, 3, 4, 5}, offsets[5] = {0, 2, 3, 4, 6};
  for (int i = 0; i < 40; ++i)
    t0[i] = (float)i;
  for (int i = 0; i < 20; ++i)
    t1[i] = (float)(100 + i);
  int64_t attrs[EMB_ABI_TBE_FEATURE_TABLES + 2] = {
      [EMB_ABI_TBE_POOLING] = EMBRT_POOLING_SUM,
      [EMB_ABI_TBE_BOUNDS_CHECK] = EMBRT_BOUNDS_WARNING,
      [EMB_ABI_TBE_TABLE_DTYPE] = EMBRT_F32,
      [EMB_ABI_TBE_INDEX_DTYPE] = EMBRT_I64,
      [EMB_ABI_TBE_PSW_DTYPE] = EMBRT_F32,
      [EMB_ABI_TBE_OUTPUT_DTYPE] = EMBRT_F32,
      [EMB_ABI_TBE_CONFIG_ID] = -1,
      [EMB_ABI_TBE_NUM_TABLES] = 2,
      [EMB_ABI_TBE_NUM_FEATURES] = 2,
      [EMB_ABI_TBE_IS_BAG] = 0,
      [EMB_ABI_TBE_FEATURE_TABLES] = 0,
      [EMB_ABI_TBE_FEATURE_TABLES + 1] = 1,
  };
  void *buffers[EMB_ABI_TBE_BUF_TABLES + 2] = {
      [EMB_ABI_TBE_BUF_INDICES] = ids, [EMB_ABI_TBE_BUF_OFFSETS] = offsets,
      [EMB_ABI_TBE_BUF_PSW] = psw,     [EMB_ABI_TBE_BUF_OUTPUT] = output,
      [EMB_ABI_TBE_BUF_TABLES] = t0,   [EMB_ABI_TBE_BUF_TABLES + 1] = t1,
  };
  int64_t dims[EMB_ABI_TBE_DIM_TABLES + 4] = {
      [EMB_ABI_TBE_DIM_INDICES] = 6,     [EMB_ABI_TBE_DIM_BATCH] = 2,
      [EMB_ABI_TBE_DIM_OFFSETS] = 5,     [EMB_ABI_TBE_DIM_PSW] = 6,
      [EMB_ABI_TBE_DIM_OUTPUT_ROWS] = 2, [EMB_ABI_TBE_DIM_OUTPUT_COLS] = 6,
      [EMB_ABI_TBE_DIM_TABLES] = 10,     [EMB_ABI_TBE_DIM_TABLES + 1] = 10,
      [EMB_ABI_TBE_DIM_TABLES + 2] = 4,  [EMB_ABI_TBE_DIM_TABLES + 3] = 2,
  };
  Call c = {embrtCompiledTbe, attrs, buffers, dims, output, 12};
  float want[12] = {4, 6, 8, 10, 106, 107, 8, 9, 10, 11, 218, 220};
  expectOutput(ctx, &c, want);

  expectExtentError(ctx, &c, "short per_sample_weights", EMB_ABI_TBE_DIM_PSW, 5,
                    "emb.tbe: per_sample_weights has 5 entries but indices "
                    "has 6");
  expectExtentError(ctx, &c, "long offsets", EMB_ABI_TBE_DIM_OFFSETS, 6,
                    "emb.tbe: offsets has 6 entries but 2 features x the "
                    "result's 2 rows (bags) need 5");
  expectExtentError(ctx, &c, "narrow result", EMB_ABI_TBE_DIM_OUTPUT_COLS, 5,
                    "emb.tbe: the result has 5 columns but the tables of its "
                    "2 features have 6 in all");

  // A table of no rows may have any width as a tensor: a huge one is the
  // entry point's named error, and never overflows the result's width.
  TEST_CASE("tbe: huge table width");
  dims[EMB_ABI_TBE_DIM_TABLES] = 0;
  dims[EMB_ABI_TBE_DIM_TABLES + 2] = INT64_MAX;
  fillSentinel(&c);
  embrtContextClearError(ctx);
  embrtCompiledTbe(ctx, attrs, buffers, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "tbe: tableDims[0] is 9223372036854775807, must be in "
                  "1..2048");
  EXPECT_TRUE(output[0] == SENTINEL && output[11] == SENTINEL);
  dims[EMB_ABI_TBE_DIM_TABLES] = 10;
  dims[EMB_ABI_TBE_DIM_TABLES + 2] = 4;
  embrtContextClearError(ctx);

  // The warning's note names the op, the feature, the table, the id and its
  // position.
  TEST_CASE("tbe: bounds check warning");
  ids[4] = 10;
  want[10] = 110; // row 5 of t1 alone
  want[11] = 111;
  expectOutput(ctx, &c, want);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "tbe: skipped 1 ids outside their tables (bounds check "
                  "warning); the first: feature 1 bag 1: id 10 is outside "
                  "table 1 (10 rows), at indices[4]");
  embrtContextClearError(ctx);
}

//===----------------------------------------------------------------------===//
// emb.broadcast and emb.broadcast_add
//===----------------------------------------------------------------------===//

/// ro[2, 4] (user u's row is u + 1), cand_to_user [1, 0, 1], nro[3, 4] with
/// nro[b][j] = 10b + j.
static void testBroadcast(embrtContext *ctx) {
  TEST_CASE("broadcast_add");
  float ro[8] = {1, 1, 1, 1, 2, 2, 2, 2}, nro[12], output[12], want[12];
  int64_t c2u[3] = {1, 0, 1};
  for (int b = 0; b < 3; ++b)
    for (int j = 0; j < 4; ++j) {
      nro[4 * b + j] = (float)(10 * b + j);
      want[4 * b + j] = nro[4 * b + j] + ro[4 * c2u[b] + j];
    }
  int64_t attrs[] = {[EMB_ABI_BCAST_DTYPE] = EMBRT_F32,
                     [EMB_ABI_BCAST_INDEX_DTYPE] = EMBRT_I64};
  void *buffers[] = {[EMB_ABI_BCAST_BUF_RO] = ro,
                     [EMB_ABI_BCAST_BUF_INDEX] = c2u,
                     [EMB_ABI_BCAST_BUF_NRO] = nro,
                     [EMB_ABI_BCAST_BUF_OUTPUT] = output};
  int64_t dims[] = {
      [EMB_ABI_BCAST_DIM_USERS] = 2,      [EMB_ABI_BCAST_DIM_ROW] = 4,
      [EMB_ABI_BCAST_DIM_BATCH] = 3,      [EMB_ABI_BCAST_DIM_OUTPUT_ROWS] = 3,
      [EMB_ABI_BCAST_DIM_OUTPUT_ROW] = 4, [EMB_ABI_BCAST_DIM_NRO_ROWS] = 3,
      [EMB_ABI_BCAST_DIM_NRO_ROW] = 4,
  };
  Call c = {embrtCompiledBroadcastAdd, attrs, buffers, dims, output, 12};
  expectOutput(ctx, &c, want);
  expectExtentError(ctx, &c, "cand_to_user longer than nro",
                    EMB_ABI_BCAST_DIM_NRO_ROWS, 2,
                    "emb.broadcast_add: nro has 2 rows but cand_to_user has 3 "
                    "entries");
  expectExtentError(ctx, &c, "cand_to_user shorter than nro",
                    EMB_ABI_BCAST_DIM_NRO_ROWS, 4,
                    "emb.broadcast_add: nro has 4 rows but cand_to_user has 3 "
                    "entries");
  expectExtentError(ctx, &c, "wide nro", EMB_ABI_BCAST_DIM_NRO_ROW, 8,
                    "emb.broadcast_add: nro has 8 elements a row but ro has 4");
  expectExtentError(ctx, &c, "short result", EMB_ABI_BCAST_DIM_OUTPUT_ROWS, 2,
                    "emb.broadcast_add: the result has 2 rows but "
                    "cand_to_user has 3 entries");

  TEST_CASE("broadcast");
  buffers[EMB_ABI_BCAST_BUF_NRO] = NULL;
  dims[EMB_ABI_BCAST_DIM_NRO_ROWS] = dims[EMB_ABI_BCAST_DIM_NRO_ROW] = 0;
  for (int b = 0; b < 3; ++b)
    for (int j = 0; j < 4; ++j)
      want[4 * b + j] = ro[4 * c2u[b] + j];
  c.op = embrtCompiledBroadcast;
  expectOutput(ctx, &c, want);
  expectExtentError(ctx, &c, "long result", EMB_ABI_BCAST_DIM_OUTPUT_ROWS, 4,
                    "emb.broadcast: the result has 4 rows but cand_to_user "
                    "has 3 entries");
  expectExtentError(ctx, &c, "narrow result", EMB_ABI_BCAST_DIM_OUTPUT_ROW, 2,
                    "emb.broadcast: the result has 2 elements a row but ro "
                    "has 4");
}

//===----------------------------------------------------------------------===//
// emb.ikbo_attention
//===----------------------------------------------------------------------===//

/// q[3, 1, 1, 2], k_user and v_user [2, 2, 1, 2], cand_to_user [1, 0, 1]:
/// every key of a user is the same, so each candidate gets the mean of its
/// user's values: (2, 3) for user 0, (6, 7) for user 1.
static void testIkboAttention(embrtContext *ctx) {
  TEST_CASE("ikbo_attention");
  float q[6] = {1, 2, 3, 4, 5, 6}, k[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  float v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, output[6];
  int64_t c2u[3] = {1, 0, 1};
  int64_t attrs[] = {
      [EMB_ABI_ATTN_DTYPE] = EMBRT_F32,
      [EMB_ABI_ATTN_INDEX_DTYPE] = EMBRT_I64,
      [EMB_ABI_ATTN_HAS_INDEX] = 1,
      [EMB_ABI_ATTN_HAS_LENGTHS] = 0,
      [EMB_ABI_ATTN_CONFIG_ID] = -1,
      [EMB_ABI_ATTN_SCALE_BITS] = 0,
      [EMB_ABI_ATTN_COMPUTE_DTYPE] = EMBRT_F32,
      [EMB_ABI_ATTN_ADDITIVE_MASK] = 0,
  };
  void *buffers[] = {
      [EMB_ABI_ATTN_BUF_Q] = q,
      [EMB_ABI_ATTN_BUF_K] = k,
      [EMB_ABI_ATTN_BUF_V] = v,
      [EMB_ABI_ATTN_BUF_INDEX] = c2u,
      [EMB_ABI_ATTN_BUF_LENGTHS] = NULL,
      [EMB_ABI_ATTN_BUF_OUTPUT] = output,
      [EMB_ABI_ATTN_BUF_WORKSPACE] = NULL,
  };
  int64_t dims[] = {
      [EMB_ABI_ATTN_DIM_B] = 3,
      [EMB_ABI_ATTN_DIM_U] = 2,
      [EMB_ABI_ATTN_DIM_LQ] = 1,
      [EMB_ABI_ATTN_DIM_LK] = 2,
      [EMB_ABI_ATTN_DIM_HEADS] = 1,
      [EMB_ABI_ATTN_DIM_HEAD_DIM] = 2,
      [EMB_ABI_ATTN_DIM_WORKSPACE] = 0,
      [EMB_ABI_ATTN_DIM_K_HEADS] = 1,
      [EMB_ABI_ATTN_DIM_K_HEAD_DIM] = 2,
      [EMB_ABI_ATTN_DIM_V_USERS] = 2,
      [EMB_ABI_ATTN_DIM_V_LK] = 2,
      [EMB_ABI_ATTN_DIM_V_HEADS] = 1,
      [EMB_ABI_ATTN_DIM_V_HEAD_DIM] = 2,
      [EMB_ABI_ATTN_DIM_INDEX] = 3,
      [EMB_ABI_ATTN_DIM_LENGTHS] = 0,
      [EMB_ABI_ATTN_DIM_OUTPUT_B] = 3,
      [EMB_ABI_ATTN_DIM_OUTPUT_LQ] = 1,
      [EMB_ABI_ATTN_DIM_OUTPUT_HEADS] = 1,
      [EMB_ABI_ATTN_DIM_OUTPUT_HEAD_DIM] = 2,
  };
  int64_t bytes = embrtCompiledAttentionWorkspace(ctx, attrs, buffers, dims);
  void *workspace = malloc(bytes > 0 ? (size_t)bytes : 1);
  buffers[EMB_ABI_ATTN_BUF_WORKSPACE] = workspace;
  dims[EMB_ABI_ATTN_DIM_WORKSPACE] = bytes;
  Call c = {embrtCompiledAttention, attrs, buffers, dims, output, 6};
  float want[6] = {6, 7, 2, 3, 6, 7};
  expectOutput(ctx, &c, want);
  // compute_type reaches the runtime: i32 is no compute type.
  TEST_CASE("ikbo_attention compute dtype");
  attrs[EMB_ABI_ATTN_COMPUTE_DTYPE] = EMBRT_I32;
  embrtContextClearError(ctx);
  embrtCompiledAttention(ctx, attrs, buffers, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "computeDtype is i32");
  embrtContextClearError(ctx);
  attrs[EMB_ABI_ATTN_COMPUTE_DTYPE] = EMBRT_BF16; // every value is bf16's
  expectOutput(ctx, &c, want);
  attrs[EMB_ABI_ATTN_COMPUTE_DTYPE] = EMBRT_F32;
  expectExtentError(ctx, &c, "short cand_to_user", EMB_ABI_ATTN_DIM_INDEX, 2,
                    "emb.ikbo_attention: cand_to_user has B = 2 but q has B "
                    "= 3");
  expectExtentError(ctx, &c, "short v_user", EMB_ABI_ATTN_DIM_V_LK, 1,
                    "emb.ikbo_attention: v_user has Lk = 1 but k_user has Lk "
                    "= 2");
  expectExtentError(ctx, &c, "k_user heads", EMB_ABI_ATTN_DIM_K_HEADS, 2,
                    "emb.ikbo_attention: k_user has H = 2 but q has H = 1");
  expectExtentError(ctx, &c, "short result", EMB_ABI_ATTN_DIM_OUTPUT_B, 2,
                    "emb.ikbo_attention: the result has B = 2 but q has B = "
                    "3");
  attrs[EMB_ABI_ATTN_HAS_LENGTHS] = 1;
  int64_t lengths[2] = {2, 2};
  buffers[EMB_ABI_ATTN_BUF_LENGTHS] = lengths;
  dims[EMB_ABI_ATTN_DIM_LENGTHS] = 2;
  expectOutput(ctx, &c, want);
  expectExtentError(ctx, &c, "short user_lengths", EMB_ABI_ATTN_DIM_LENGTHS, 1,
                    "emb.ikbo_attention: user_lengths has U = 1 but k_user "
                    "has U = 2");
  free(workspace);
}

//===----------------------------------------------------------------------===//
// emb.lce and emb.ikbo_lce
//===----------------------------------------------------------------------===//

/// w[2, 3] = [[1, 2, 3], [4, 5, 6]] times x[1, 3, 1] of ones: (6, 15).
static void testLce(embrtContext *ctx) {
  TEST_CASE("lce");
  float w[6] = {1, 2, 3, 4, 5, 6}, x[3] = {1, 1, 1}, output[2];
  int64_t attrs[] = {
      [EMB_ABI_LCE_DTYPE] = EMBRT_F32, [EMB_ABI_LCE_CONFIG_ID] = -1};
  void *buffers[] = {[EMB_ABI_LCE_BUF_W] = w,
                     [EMB_ABI_LCE_BUF_X] = x,
                     [EMB_ABI_LCE_BUF_OUTPUT] = output,
                     [EMB_ABI_LCE_BUF_WORKSPACE] = NULL};
  int64_t dims[] = {
      [EMB_ABI_LCE_DIM_B] = 1,         [EMB_ABI_LCE_DIM_M] = 2,
      [EMB_ABI_LCE_DIM_K] = 3,         [EMB_ABI_LCE_DIM_N] = 1,
      [EMB_ABI_LCE_DIM_WORKSPACE] = 0, [EMB_ABI_LCE_DIM_X_K] = 3,
      [EMB_ABI_LCE_DIM_OUTPUT_B] = 1,  [EMB_ABI_LCE_DIM_OUTPUT_M] = 2,
      [EMB_ABI_LCE_DIM_OUTPUT_N] = 1,
  };
  EXPECT_EQ_INT(embrtCompiledLceWorkspace(ctx, attrs, buffers, dims), 0);
  Call c = {embrtCompiledLce, attrs, buffers, dims, output, 2};
  float want[2] = {6, 15};
  expectOutput(ctx, &c, want);
  expectExtentError(ctx, &c, "x's K", EMB_ABI_LCE_DIM_X_K, 2,
                    "emb.lce: x has K = 2 but w has K = 3");
  expectExtentError(ctx, &c, "result's M", EMB_ABI_LCE_DIM_OUTPUT_M, 3,
                    "emb.lce: the result has M = 3 but w has M = 2");
}

/// w_user = identity[2, 2], w_cand[2, 1] = (1, 10), users (1, 2) and (3,
/// 4), cand[b] = b + 1, cand_to_user [1, 0, 1]: out[b] = (b + 1, 10 (b +
/// 1)) + user[cand_to_user[b]].
static void testIkboLce(embrtContext *ctx) {
  TEST_CASE("ikbo_lce");
  float wUser[4] = {1, 0, 0, 1}, wCand[2] = {1, 10}, user[4] = {1, 2, 3, 4};
  float cand[3] = {1, 2, 3}, output[6];
  int64_t c2u[3] = {1, 0, 1};
  int64_t attrs[] = {[EMB_ABI_IKBO_LCE_DTYPE] = EMBRT_F32,
                     [EMB_ABI_IKBO_LCE_INDEX_DTYPE] = EMBRT_I64,
                     [EMB_ABI_IKBO_LCE_CONFIG_ID] = -1,
                     [EMB_ABI_IKBO_LCE_NUM_CAND_PIECES] = 0,
                     [EMB_ABI_IKBO_LCE_COMPUTE_DTYPE] = EMBRT_F32};
  void *buffers[EMB_ABI_IKBO_LCE_NUM_BUFFERS] = {
      [EMB_ABI_IKBO_LCE_BUF_W_USER] = wUser,
      [EMB_ABI_IKBO_LCE_BUF_W_CAND] = wCand,
      [EMB_ABI_IKBO_LCE_BUF_USER] = user,
      [EMB_ABI_IKBO_LCE_BUF_CAND] = cand,
      [EMB_ABI_IKBO_LCE_BUF_INDEX] = c2u,
      [EMB_ABI_IKBO_LCE_BUF_OUTPUT] = output,
      [EMB_ABI_IKBO_LCE_BUF_WORKSPACE] = NULL,
  };
  int64_t dims[EMB_ABI_IKBO_LCE_NUM_DIMS] = {
      [EMB_ABI_IKBO_LCE_DIM_B] = 3,
      [EMB_ABI_IKBO_LCE_DIM_U] = 2,
      [EMB_ABI_IKBO_LCE_DIM_M] = 2,
      [EMB_ABI_IKBO_LCE_DIM_K_USER] = 2,
      [EMB_ABI_IKBO_LCE_DIM_K_CAND] = 1,
      [EMB_ABI_IKBO_LCE_DIM_N] = 1,
      [EMB_ABI_IKBO_LCE_DIM_WORKSPACE] = 0,
      [EMB_ABI_IKBO_LCE_DIM_W_USER_STRIDE] = 0,
      [EMB_ABI_IKBO_LCE_DIM_W_CAND_STRIDE] = 0,
      [EMB_ABI_IKBO_LCE_DIM_INDEX] = 3,
      [EMB_ABI_IKBO_LCE_DIM_W_USER_ROWS] = 2,
      [EMB_ABI_IKBO_LCE_DIM_W_USER_COLS] = 2,
      [EMB_ABI_IKBO_LCE_DIM_W_CAND_COLS] = 1,
      [EMB_ABI_IKBO_LCE_DIM_USER_N] = 1,
      [EMB_ABI_IKBO_LCE_DIM_OUTPUT_B] = 3,
      [EMB_ABI_IKBO_LCE_DIM_OUTPUT_M] = 2,
      [EMB_ABI_IKBO_LCE_DIM_OUTPUT_N] = 1,
  };
  int64_t bytes = embrtCompiledIkboLceWorkspace(ctx, attrs, buffers, dims);
  void *workspace = malloc(bytes > 0 ? (size_t)bytes : 1);
  buffers[EMB_ABI_IKBO_LCE_BUF_WORKSPACE] = workspace;
  dims[EMB_ABI_IKBO_LCE_DIM_WORKSPACE] = bytes;
  Call c = {embrtCompiledIkboLce, attrs, buffers, dims, output, 6};
  float want[6] = {4, 14, 3, 22, 6, 34};
  expectOutput(ctx, &c, want);
  // compute_type reaches the runtime: i32 is no compute type.
  TEST_CASE("ikbo_lce compute dtype");
  attrs[EMB_ABI_IKBO_LCE_COMPUTE_DTYPE] = EMBRT_I32;
  embrtContextClearError(ctx);
  embrtCompiledIkboLce(ctx, attrs, buffers, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "computeDtype is i32");
  embrtContextClearError(ctx);
  attrs[EMB_ABI_IKBO_LCE_COMPUTE_DTYPE] = EMBRT_F32;
  // User 0 = (1 + 2^-10, 2): f32 reads it as it is (output[2] is 3 + 2^-10),
  // bf16 rounds it to 1 and gives the integers back, every value bf16's.
  user[0] = 1.0f + 0x1p-10f;
  float exact[6] = {4, 14, 3.0f + 0x1p-10f, 22, 6, 34};
  expectOutput(ctx, &c, exact);
  attrs[EMB_ABI_IKBO_LCE_COMPUTE_DTYPE] = EMBRT_BF16;
  expectOutput(ctx, &c, want);
  for (int i = 0; i < 6; ++i)
    if (embrtBF16ToF32(embrtF32ToBF16(output[i])) != output[i]) {
      HARNESS_FAIL("output[%d] = %g is no bf16 value", i, (double)output[i]);
      break;
    }
  attrs[EMB_ABI_IKBO_LCE_COMPUTE_DTYPE] = EMBRT_F32;
  user[0] = 1;
  expectExtentError(ctx, &c, "short cand_to_user", EMB_ABI_IKBO_LCE_DIM_INDEX,
                    2,
                    "emb.ikbo_lce: cand_to_user has B = 2 but cand has B = 3");
  expectExtentError(ctx, &c, "w_user rows", EMB_ABI_IKBO_LCE_DIM_W_USER_ROWS, 3,
                    "emb.ikbo_lce: w_user has M = 3 but w_cand has M = 2");
  expectExtentError(ctx, &c, "w_user columns", EMB_ABI_IKBO_LCE_DIM_W_USER_COLS,
                    1, "emb.ikbo_lce: w_user has K = 1 but user has K = 2");
  expectExtentError(ctx, &c, "user's N", EMB_ABI_IKBO_LCE_DIM_USER_N, 2,
                    "emb.ikbo_lce: user has N = 2 but cand has N = 1");
  // A column view reads K columns of wider rows: more columns are fine,
  // fewer are not.
  TEST_CASE("ikbo_lce: column view");
  dims[EMB_ABI_IKBO_LCE_DIM_W_CAND_STRIDE] = 1;
  dims[EMB_ABI_IKBO_LCE_DIM_W_CAND_COLS] = 0;
  expectExtentError(ctx, &c, "view too narrow",
                    EMB_ABI_IKBO_LCE_DIM_W_CAND_COLS, 0,
                    "emb.ikbo_lce: w_cand has K = 0 but cand has K = 1");
  dims[EMB_ABI_IKBO_LCE_DIM_W_CAND_COLS] = 3;
  expectOutput(ctx, &c, want);
  // The candidates in pieces along K: cand (K 1) then a zero piece (K 1,
  // NULL) against w_cand's two columns (1, 10) and (0, 0): the same output.
  // Each piece's B and N are checked against the first's.
  TEST_CASE("ikbo_lce: candidate pieces");
  float wCand2[4] = {1, 0, 10, 0};
  attrs[EMB_ABI_IKBO_LCE_NUM_CAND_PIECES] = 2;
  buffers[EMB_ABI_IKBO_LCE_BUF_W_CAND] = wCand2;
  buffers[EMB_ABI_IKBO_LCE_BUF_CAND] = NULL;
  buffers[EMB_ABI_IKBO_LCE_BUF_CAND_PIECE_0] = cand;
  buffers[EMB_ABI_IKBO_LCE_BUF_CAND_PIECE_0 + 1] = NULL;
  dims[EMB_ABI_IKBO_LCE_DIM_K_CAND] = 2;
  dims[EMB_ABI_IKBO_LCE_DIM_W_CAND_STRIDE] = 0;
  dims[EMB_ABI_IKBO_LCE_DIM_W_CAND_COLS] = 2;
  for (int q = 0; q < EMBRT_IKBO_LCE_MAX_PIECES; ++q) {
    dims[EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_K_0 + q] = q < 2 ? 1 : 0;
    dims[EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_B_0 + q] = 3;
    dims[EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_N_0 + q] = 1;
  }
  expectOutput(ctx, &c, want);
  expectExtentError(ctx, &c, "a piece's B",
                    EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_B_0 + 1, 2,
                    "emb.ikbo_lce: cand piece 1 has B = 2 but cand piece 0 "
                    "has B = 3");
  free(workspace);
}

//===----------------------------------------------------------------------===//
// Elementwise ops and tensor.concat
//===----------------------------------------------------------------------===//

/// a + b over 4 elements; then a and b of other lengths.
static void testElementwise(embrtContext *ctx) {
  TEST_CASE("elementwise");
  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, output[4];
  int64_t attrs[] = {[EMB_ABI_ELEMENTWISE_DTYPE] = EMBRT_F32,
                     [EMB_ABI_ELEMENTWISE_IS_UNARY] = 0,
                     [EMB_ABI_ELEMENTWISE_OP] = EMBRT_BINARY_ADD};
  void *buffers[] = {[EMB_ABI_ELEMENTWISE_BUF_A] = a,
                     [EMB_ABI_ELEMENTWISE_BUF_B] = b,
                     [EMB_ABI_ELEMENTWISE_BUF_OUTPUT] = output};
  int64_t dims[] = {[EMB_ABI_ELEMENTWISE_DIM_ELEMENTS] = 4,
                    [EMB_ABI_ELEMENTWISE_DIM_A_ELEMENTS] = 4,
                    [EMB_ABI_ELEMENTWISE_DIM_B_ELEMENTS] = 4};
  Call c = {embrtCompiledElementwise, attrs, buffers, dims, output, 4};
  float want[4] = {11, 22, 33, 44};
  expectOutput(ctx, &c, want);
  expectExtentError(ctx, &c, "short b", EMB_ABI_ELEMENTWISE_DIM_B_ELEMENTS, 2,
                    "elementwise add: b has 2 elements but the result has 4");
  expectExtentError(ctx, &c, "long a", EMB_ABI_ELEMENTWISE_DIM_A_ELEMENTS, 6,
                    "elementwise add: a has 6 elements but the result has 4");
}

/// [2, 1] ++ [2, 2] along dim 1 into [2, 3]; then inputs and results whose
/// other dims or total disagree.
static void testConcat(embrtContext *ctx) {
  TEST_CASE("concat");
  float x[2] = {1, 2}, y[4] = {3, 4, 5, 6}, output[6];
  int64_t attrs[] = {
      [EMB_ABI_CONCAT_DTYPE] = EMBRT_F32, [EMB_ABI_CONCAT_NUM_INPUTS] = 2};
  void *buffers[] = {output, x, y};
  // outer, inner, the sizes along dim 1, each input's outer and inner, the
  // result's outer, inner and size along dim 1.
  int64_t dims[] = {2, 1, 1, 2, 2, 1, 2, 1, 2, 1, 3};
  Call c = {embrtCompiledConcat, attrs, buffers, dims, output, 6};
  float want[6] = {1, 3, 4, 2, 5, 6};
  expectOutput(ctx, &c, want);
  expectExtentError(ctx, &c, "input rows", 6, 3,
                    "tensor.concat: input 1 has 3 elements before the "
                    "concatenated dim but input 0 has 2");
  expectExtentError(ctx, &c, "result rows", 8, 3,
                    "tensor.concat: the result has 3 elements before the "
                    "concatenated dim but input 0 has 2");
  expectExtentError(ctx, &c, "result columns", 10, 4,
                    "tensor.concat: the result has 4 along the concatenated "
                    "dim but the inputs have 3 in all");
}

/// tensor.extract_slice of x[3, 4] (x[r][c] = 4r + c): rows 1..2, columns
/// 1 and 3 (stride 2); then slices that leave x along a dim, and one that
/// walks a dim backwards.
static void testStridedCopy(embrtContext *ctx) {
  TEST_CASE("extract_slice");
  float x[12], output[4];
  for (int i = 0; i < 12; ++i)
    x[i] = (float)i;
  int64_t attrs[] = {[EMB_ABI_COPY_DTYPE] = EMBRT_F32, [EMB_ABI_COPY_RANK] = 2};
  void *buffers[] = {
      [EMB_ABI_COPY_BUF_INPUT] = x, [EMB_ABI_COPY_BUF_OUTPUT] = output};
  // offset 5, sizes 2 2, input strides 4 2; offsets 1 1, steps 1 2, dims
  // 3 4.
  int64_t dims[] = {5, 2, 2, 4, 2, 1, 1, 1, 2, 3, 4};
  Call c = {embrtCompiledStridedCopy, attrs, buffers, dims, output, 4};
  float want[4] = {5, 7, 9, 11};
  expectOutput(ctx, &c, want);
  expectExtentError(ctx, &c, "slice past the rows", 9, 2,
                    "tensor.extract_slice: dim 0 of the slice (offset 1, 2 "
                    "elements, stride 1) is outside the operand's 2");
  expectExtentError(ctx, &c, "slice past the columns", 8, 3,
                    "tensor.extract_slice: dim 1 of the slice (offset 1, 2 "
                    "elements, stride 3) is outside the operand's 4");
  expectExtentError(ctx, &c, "negative offset", 5, -1,
                    "dim 0 of the slice (offset -1, 2 elements, stride 1)");
  expectExtentError(ctx, &c, "huge stride", 8, INT64_MAX,
                    "dim 1 of the slice (offset 1, 2 elements, stride "
                    "9223372036854775807)");
  // Rows 2 and 1 (stride -1), from offset 9: 9 11, 5 7.
  TEST_CASE("extract_slice backwards");
  int64_t back[] = {9, 2, 2, -4, 2, 2, 1, -1, 2, 3, 4};
  Call b = {embrtCompiledStridedCopy, attrs, buffers, back, output, 4};
  float wantBack[4] = {9, 11, 5, 7};
  expectOutput(ctx, &b, wantBack);
  expectExtentError(ctx, &b, "backwards past row 0", 5, 0,
                    "dim 0 of the slice (offset 0, 2 elements, stride -1)");
}

/// Memory of compiled models: a zero-byte tensor gets a pointer; a negative
/// size (of an allocation or a copy) records a named error, never a silent
/// NULL or no-op.
static void testMemory(embrtContext *ctx) {
  TEST_CASE("alloc");
  void *p = embrtCompiledAlloc(ctx, 0);
  EXPECT_TRUE(p != NULL);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  embrtCompiledFree(ctx, p);
  TEST_CASE("alloc of a negative size");
  EXPECT_TRUE(embrtCompiledAlloc(ctx, -1) == NULL);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "alloc: bytes is -1, must be >= 0");
  embrtContextClearError(ctx);
  TEST_CASE("copy of a negative size");
  float src[2] = {1.0f, 2.0f}, dst[2] = {0.0f, 0.0f};
  embrtCompiledCopy(ctx, EMBRT_COPY_HOST_TO_DEVICE, dst, src, INT64_MIN);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "copy: bytes is -9223372036854775808, must be >= 0");
  EXPECT_TRUE(dst[0] == 0.0f && dst[1] == 0.0f);
  embrtContextClearError(ctx);
  embrtCompiledCopy(ctx, EMBRT_COPY_HOST_TO_DEVICE, dst, src, sizeof src);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  EXPECT_TRUE(dst[0] == 1.0f && dst[1] == 2.0f);
}

/// The static size a cast or reshape claims: 1 when it holds; otherwise 0
/// and an error naming what and both sizes, unless an error came first.
static void testCheckExtent(embrtContext *ctx) {
  TEST_CASE("check extent");
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtCompiledCheckExtent(ctx, 3, 3, "tensor.cast: dim 0"), 1);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  EXPECT_EQ_INT(embrtCompiledCheckExtent(ctx, 2, 3, "tensor.cast: dim 0"), 0);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "tensor.cast: dim 0 is 2, but the result's shape needs 3");
  // A second failure is most likely the first one's consequence: the
  // first message is kept, and the outcome still says it failed.
  EXPECT_EQ_INT(embrtCompiledCheckExtent(ctx, 0, 6, "tensor.cast: dim 1"), 0);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "dim 0 is 2");
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtCompiledCheckExtent(NULL, 1, 2, NULL), 0);
}

/// An index of the model's own tensor.extract or tensor.insert: 1 inside
/// 0..size-1; otherwise 0 and an error naming what, the index and the
/// range (or the empty dim), unless an error came first.
static void testCheckIndex(embrtContext *ctx) {
  TEST_CASE("check index");
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtCompiledCheckIndex(ctx, 0, 3, "tensor.extract: dim 0"), 1);
  EXPECT_EQ_INT(embrtCompiledCheckIndex(ctx, 2, 3, "tensor.extract: dim 0"), 1);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  EXPECT_EQ_INT(embrtCompiledCheckIndex(ctx, 3, 3, "tensor.extract: dim 0"), 0);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "tensor.extract: dim 0: index 3 is outside 0..2");
  EXPECT_EQ_INT(embrtCompiledCheckIndex(ctx, -1, 3, "tensor.insert: dim 1"), 0);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "index 3 is outside 0..2");
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtCompiledCheckIndex(ctx, -1, 3, "tensor.insert: dim 1"), 0);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "tensor.insert: dim 1: index -1 is outside 0..2");
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtCompiledCheckIndex(ctx, 0, 0, "tensor.extract: dim 0"), 0);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "tensor.extract: dim 0: index 0 of a dim with no elements");
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtCompiledCheckIndex(ctx, INT64_MIN, INT64_MAX, NULL), 0);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "an index: index");
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtCompiledCheckIndex(NULL, 5, 2, NULL), 0);
}

int main(void) {
  embrtContext *ctx = newCpuContext();
  testMemory(ctx);
  testCheckExtent(ctx);
  testCheckIndex(ctx);
  testStridedCopy(ctx);
  testEmbeddingBag(ctx);
  testTbe(ctx);
  testBroadcast(ctx);
  testIkboAttention(ctx);
  testLce(ctx);
  testIkboLce(ctx);
  testElementwise(ctx);
  testConcat(ctx);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
