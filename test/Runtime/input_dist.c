// RUN: %runtime_test_dir/input_dist
//
// The CPU reference of the input dist's local ops against outputs worked
// out by hand: emb.bucketize with table-wise and column-wise slots (a
// feature's ids to two ranks), row-wise slots (ids clamped to the table's
// rows and shifted to the shard's, per-sample weights following them, i32),
// ids at the ends of i32 and i64 (saturated, never overflowed), an empty
// batch; its depth (how many slots one id can fall in); and
// emb.lengths_to_offsets (offsets and block sums, i32 and i64, no lengths).
// Then what they refuse: bad offsets and lengths (EMBRT_OUT_OF_RANGE, the
// outputs untouched), malformed slots and a too small ids buffer
// (EMBRT_INVALID_ARGUMENT), and through the compiled ABI the extents that
// disagree, naming the IR op.

#include "emb/compiled.h"
#include "harness.h"

static embrtContext *ctx;

static void expectIndices(const char *what, const void *got, embrtDtype dtype,
                          const int64_t *want, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    int64_t g = dtype == EMBRT_I32 ? ((const int32_t *)got)[i]
                                   : ((const int64_t *)got)[i];
    if (g != want[i]) {
      HARNESS_FAIL("%s[%lld] is %lld, expected %lld", what, (long long)i,
                   (long long)g, (long long)want[i]);
      return;
    }
  }
}

//===----------------------------------------------------------------------===//
// emb.bucketize
//===----------------------------------------------------------------------===//

/// Two features, B = 2: feature 0 table-wise on rank 1, feature 1 column-wise
/// on ranks 0 and 1 (both slots take every id). Bags: f0 [3, 7], [1];
/// f1 [], [2, 2, 5].
static void testTableAndColumnSlots(void) {
  TEST_CASE("table-wise and column-wise slots");
  int64_t indices[] = {3, 7, 1, 2, 2, 5}, offsets[] = {0, 2, 3, 3, 6};
  int64_t ranks[] = {0, 1, 1}, feats[] = {1, 0, 1}, begin[] = {0, 0, 0},
          end[] = {10, 10, 10};
  EXPECT_EQ_INT(embrtBucketizeDepth(3, feats, begin, end), 2);
  int64_t ids[12], lengths[6], counts[2];
  embrtBucketizeArgs a = {.structSize = sizeof a,
                          .indexDtype = EMBRT_I64,
                          .indices = indices,
                          .numIndices = 6,
                          .offsets = offsets,
                          .numFeatures = 2,
                          .batchSize = 2,
                          .worldSize = 2,
                          .numSlots = 3,
                          .slotRanks = ranks,
                          .slotFeatures = feats,
                          .slotRowBegin = begin,
                          .slotRowEnd = end,
                          .ids = ids,
                          .idsCapacity = 12,
                          .lengths = lengths,
                          .counts = counts};
  EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_OK, ctx);
  const int64_t wantIds[] = {2, 2, 5, 3, 7, 1, 2, 2, 5};
  const int64_t wantLengths[] = {0, 3, 2, 1, 0, 3}, wantCounts[] = {3, 6};
  expectIndices("ids", ids, EMBRT_I64, wantIds, 9);
  expectIndices("lengths", lengths, EMBRT_I64, wantLengths, 6);
  expectIndices("counts", counts, EMBRT_I64, wantCounts, 2);

  // One entry too few for the most ids there can be (6 ids, 2 slots each).
  a.idsCapacity = 11;
  EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "bucketize: idsCapacity is 11 but 6 ids can fall in up to 2 "
                  "slots each: 12 entries are needed");
  embrtContextClearError(ctx);
  a.idsCapacity = 12;

  // Malformed slots.
  int64_t down[] = {1, 0, 1};
  a.slotRanks = down;
  EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "slotRanks must not decrease (each rank's slots are one "
                  "block), got 0 after 1");
  embrtContextClearError(ctx);
  a.slotRanks = ranks;
  int64_t far[] = {1, 2, 1};
  a.slotFeatures = far;
  EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "slotFeatures[1] is 2 but there are 2 features");
  embrtContextClearError(ctx);
  a.slotFeatures = feats;
  int64_t backwards[] = {0, 0, 5};
  a.slotRowEnd = backwards;
  a.slotRowBegin = end;
  EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "slot 0 has rows [10, 0)");
  embrtContextClearError(ctx);
  a.slotRowBegin = begin;
  a.slotRowEnd = end;

  // Bad offsets: refused before anything is written.
  int64_t bad[] = {0, 3, 2, 3, 6};
  memset(lengths, 0x7F, sizeof lengths);
  a.offsets = bad;
  EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "bucketize: feature 0 bag 1: offsets[2] is 2, out of order "
                  "or outside 0..6");
  EXPECT_TRUE(lengths[0] == 0x7F7F7F7F7F7F7F7FLL);
  embrtContextClearError(ctx);
  int64_t short_[] = {0, 2, 3, 3, 5};
  a.offsets = short_;
  EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "offsets[4] (the last) is 5, must equal numIndices 6");
  embrtContextClearError(ctx);
}

/// Row-wise: rows [60, 100) on rank 0 and [0, 60) on rank 1 of a 100-row
/// table, B = 3, i32, with per-sample weights. Bags: [5, 61, -3], [99, 150],
/// [60, 59]. Ids outside the table go to the first or last shard (-3 to
/// rank 1 as -3, 150 to rank 0 as 90), each shifted to its shard's rows.
static void testRowSlots(void) {
  TEST_CASE("row-wise slots, clamped, shifted, weighted");
  int64_t indices[] = {5, 61, -3, 99, 150, 60, 59};
  int64_t offsets[] = {0, 3, 5, 7};
  void *idx = indexTensor(EMBRT_I32, indices, 7);
  void *off = indexTensor(EMBRT_I32, offsets, 4);
  float psw[7] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f}, weights[7];
  int64_t ranks[] = {0, 1}, feats[] = {0, 0}, begin[] = {60, 0},
          end[] = {100, 60};
  EXPECT_EQ_INT(embrtBucketizeDepth(2, feats, begin, end), 1);
  int32_t ids[7], lengths[6];
  int64_t counts[2];
  embrtBucketizeArgs a = {.structSize = sizeof a,
                          .indexDtype = EMBRT_I32,
                          .indices = idx,
                          .numIndices = 7,
                          .offsets = off,
                          .numFeatures = 1,
                          .batchSize = 3,
                          .perSampleWeights = psw,
                          .weightDtype = EMBRT_F32,
                          .worldSize = 2,
                          .numSlots = 2,
                          .slotRanks = ranks,
                          .slotFeatures = feats,
                          .slotRowBegin = begin,
                          .slotRowEnd = end,
                          .ids = ids,
                          .idsCapacity = 7,
                          .weights = weights,
                          .lengths = lengths,
                          .counts = counts};
  EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_OK, ctx);
  const int64_t wantIds[] = {1, 39, 90, 0, 5, -3, 59};
  const int64_t wantLengths[] = {1, 2, 1, 2, 0, 1}, wantCounts[] = {4, 3};
  const float wantWeights[] = {1.5f, 3.5f, 4.5f, 5.5f, 0.5f, 2.5f, 6.5f};
  expectIndices("ids", ids, EMBRT_I32, wantIds, 7);
  expectIndices("lengths", lengths, EMBRT_I32, wantLengths, 6);
  expectIndices("counts", counts, EMBRT_I64, wantCounts, 2);
  for (int i = 0; i < 7; ++i)
    EXPECT_TRUE(weights[i] == wantWeights[i]);
  free(idx);
  free(off);
}

/// Ids at the ends of the index type, in row-wise slots [5, 10) and
/// [10, 20): an id below the table goes to the first shard and stays below
/// it, saturated at the type's least value where id - begin does not fit
/// (i64: it would overflow; i32: it would wrap to a large positive id).
static void testExtremeIds(void) {
  TEST_CASE("row-wise slots, ids at the ends of the type");
  int64_t ranks[] = {0, 1}, feats[] = {0, 0}, begin[] = {5, 10},
          end[] = {10, 20};
  const embrtDtype dtypes[] = {EMBRT_I64, EMBRT_I32};
  const int64_t least[] = {INT64_MIN, INT32_MIN},
                most[] = {INT64_MAX, INT32_MAX};
  for (int d = 0; d < 2; ++d) {
    int64_t indices[] = {least[d], least[d] + 4, -1, 7, most[d]};
    int64_t offsets[] = {0, 5};
    void *idx = indexTensor(dtypes[d], indices, 5);
    void *off = indexTensor(dtypes[d], offsets, 2);
    int64_t ids[5], lengths[2], counts[2];
    embrtBucketizeArgs a = {.structSize = sizeof a,
                            .indexDtype = dtypes[d],
                            .indices = idx,
                            .numIndices = 5,
                            .offsets = off,
                            .numFeatures = 1,
                            .batchSize = 1,
                            .worldSize = 2,
                            .numSlots = 2,
                            .slotRanks = ranks,
                            .slotFeatures = feats,
                            .slotRowBegin = begin,
                            .slotRowEnd = end,
                            .ids = ids,
                            .idsCapacity = 5,
                            .lengths = lengths,
                            .counts = counts};
    EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_OK, ctx);
    const int64_t wantIds[] = {least[d], least[d], -6, 2, most[d] - 10};
    const int64_t wantLengths[] = {4, 1}, wantCounts[] = {4, 1};
    expectIndices("ids", ids, dtypes[d], wantIds, 5);
    expectIndices("lengths", lengths, dtypes[d], wantLengths, 2);
    expectIndices("counts", counts, EMBRT_I64, wantCounts, 2);
    free(idx);
    free(off);
  }
}

/// Depth: disjoint rows 1, an empty range covers nothing, three column
/// shards 3; features apart.
static void testDepth(void) {
  TEST_CASE("depth");
  int64_t feats[] = {0, 0, 0, 1, 1, 1};
  int64_t begin[] = {0, 7, 7, 0, 0, 0}, end[] = {7, 7, 9, 4, 4, 4};
  EXPECT_EQ_INT(embrtBucketizeDepth(3, feats, begin, end), 1);
  EXPECT_EQ_INT(embrtBucketizeDepth(6, feats, begin, end), 3);
  int64_t emptyEnd[] = {0};
  EXPECT_EQ_INT(embrtBucketizeDepth(1, feats, begin, emptyEnd), 0);
}

/// An empty batch (B = 0): nothing is read, every count is 0.
static void testEmptyBatch(void) {
  TEST_CASE("empty batch");
  int64_t offsets[] = {0}, ranks[] = {0}, feats[] = {0}, begin[] = {0},
          end[] = {5};
  int64_t ids[1], lengths[1], counts[1] = {-1};
  embrtBucketizeArgs a = {.structSize = sizeof a,
                          .indexDtype = EMBRT_I64,
                          .indices = NULL,
                          .numIndices = 0,
                          .offsets = offsets,
                          .numFeatures = 3,
                          .batchSize = 0,
                          .worldSize = 1,
                          .numSlots = 1,
                          .slotRanks = ranks,
                          .slotFeatures = feats,
                          .slotRowBegin = begin,
                          .slotRowEnd = end,
                          .ids = ids,
                          .idsCapacity = 0,
                          .lengths = lengths,
                          .counts = counts};
  EXPECT_STATUS(embrtBucketize(ctx, &a), EMBRT_OK, ctx);
  EXPECT_EQ_INT(counts[0], 0);
}

//===----------------------------------------------------------------------===//
// emb.lengths_to_offsets
//===----------------------------------------------------------------------===//

static void testLengthsToOffsets(void) {
  TEST_CASE("lengths_to_offsets");
  for (int wide = 0; wide < 2; ++wide) {
    embrtDtype dt = wide ? EMBRT_I64 : EMBRT_I32;
    int64_t lens[] = {3, 0, 2, 1, 4, 0};
    void *lengths = indexTensor(dt, lens, 6);
    int64_t out[7], sums[3];
    embrtLengthsToOffsetsArgs a = {sizeof a, dt,   lengths, 6, 2,
                                   out,      sums, NULL,    0};
    EXPECT_STATUS(embrtLengthsToOffsets(ctx, &a), EMBRT_OK, ctx);
    const int64_t want[] = {0, 3, 3, 5, 6, 10, 10}, wantSums[] = {5, 5};
    expectIndices("offsets", out, dt, want, 7);
    expectIndices("block_sums", sums, EMBRT_I64, wantSums, 2);
    a.numBlocks = 3;
    EXPECT_STATUS(embrtLengthsToOffsets(ctx, &a), EMBRT_OK, ctx);
    const int64_t wantThree[] = {3, 3, 4};
    expectIndices("block_sums", sums, EMBRT_I64, wantThree, 3);
    a.numBlocks = 4;
    EXPECT_STATUS(embrtLengthsToOffsets(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                    "numLengths is 6, which 4 blocks do not divide");
    embrtContextClearError(ctx);
    free(lengths);
  }
  // No lengths: one offset, 0, and empty blocks.
  int64_t none[1], zero[1] = {9}, sums[2] = {9, 9};
  embrtLengthsToOffsetsArgs e = {sizeof e, EMBRT_I64, none, 0, 2,
                                 zero,     sums,      NULL, 0};
  EXPECT_STATUS(embrtLengthsToOffsets(ctx, &e), EMBRT_OK, ctx);
  EXPECT_EQ_INT(zero[0], 0);
  EXPECT_EQ_INT(sums[0] + sums[1], 0);
  // A negative length, an i32 offset past INT32_MAX.
  int64_t neg[] = {1, -1}, out[3] = {7, 7, 7}, s1[1];
  embrtLengthsToOffsetsArgs n = {sizeof n, EMBRT_I64, neg,  2, 1,
                                 out,      s1,        NULL, 0};
  EXPECT_STATUS(embrtLengthsToOffsets(ctx, &n), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "lengths_to_offsets: lengths[1] is -1: a length must not be "
                  "negative");
  EXPECT_EQ_INT(out[0], 7);
  embrtContextClearError(ctx);
  int32_t big[] = {INT32_MAX, 1}, out32[3];
  n.dtype = EMBRT_I32;
  n.lengths = big;
  n.offsets = out32;
  EXPECT_STATUS(embrtLengthsToOffsets(ctx, &n), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "lengths[1] is 1: the offsets pass the largest value of "
                  "their type");
  embrtContextClearError(ctx);
}

//===----------------------------------------------------------------------===//
// The compiled ABI
//===----------------------------------------------------------------------===//

static void testCompiled(void) {
  TEST_CASE("compiled ABI");
  // The row-wise case of testRowSlots, i64, through the decoder.
  int64_t indices[] = {5, 61, -3, 99, 150, 60, 59}, offsets[] = {0, 3, 5, 7};
  int64_t ids[7], lengths[6], counts[2];
  int64_t attrs[EMB_ABI_BUCKETIZE_SLOTS + 8] = {
      [EMB_ABI_BUCKETIZE_INDEX_DTYPE] = EMBRT_I64,
      [EMB_ABI_BUCKETIZE_PSW_DTYPE] = -1,
      [EMB_ABI_BUCKETIZE_WORLD_SIZE] = 2,
      [EMB_ABI_BUCKETIZE_NUM_SLOTS] = 2,
  };
  const int64_t slots[8] = {0, 1, 0, 0, 60, 0, 100, 60};
  memcpy(attrs + EMB_ABI_BUCKETIZE_SLOTS, slots, sizeof slots);
  void *bufs[] = {
      [EMB_ABI_BUCKETIZE_BUF_INDICES] = indices,
      [EMB_ABI_BUCKETIZE_BUF_OFFSETS] = offsets,
      [EMB_ABI_BUCKETIZE_BUF_PSW] = NULL,
      [EMB_ABI_BUCKETIZE_BUF_IDS] = ids,
      [EMB_ABI_BUCKETIZE_BUF_WEIGHTS] = NULL,
      [EMB_ABI_BUCKETIZE_BUF_LENGTHS] = lengths,
      [EMB_ABI_BUCKETIZE_BUF_COUNTS] = counts,
      [EMB_ABI_BUCKETIZE_BUF_WORKSPACE] = NULL,
  };
  int64_t dims[] = {
      [EMB_ABI_BUCKETIZE_DIM_INDICES] = 7,
      [EMB_ABI_BUCKETIZE_DIM_BATCH] = 3,
      [EMB_ABI_BUCKETIZE_DIM_IDS_CAPACITY] = 7,
      [EMB_ABI_BUCKETIZE_DIM_WORKSPACE] = 0,
      [EMB_ABI_BUCKETIZE_DIM_OFFSETS] = 4,
      [EMB_ABI_BUCKETIZE_DIM_PSW] = 0,
      [EMB_ABI_BUCKETIZE_DIM_LENGTHS] = 6,
      [EMB_ABI_BUCKETIZE_DIM_COUNTS] = 2,
  };
  EXPECT_EQ_INT(embrtCompiledBucketizeWorkspace(ctx, attrs, bufs, dims), 0);
  embrtCompiledBucketize(ctx, attrs, bufs, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  const int64_t wantIds[] = {1, 39, 90, 0, 5, -3, 59};
  expectIndices("ids", ids, EMBRT_I64, wantIds, 7);
  // What a data-parallel lookup reads: the ids written, 7.
  EXPECT_EQ_INT(embrtCompiledBucketizeCount(ctx, attrs, bufs, dims), 7);
  // Extents that disagree.
  dims[EMB_ABI_BUCKETIZE_DIM_LENGTHS] = 5;
  embrtCompiledBucketize(ctx, attrs, bufs, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.bucketize: lengths has 5 entries but 2 slots of 3 "
                  "bags need 6");
  embrtContextClearError(ctx);
  // A batch whose slots' bags pass int64 (offsets of one entry fit any
  // batch): refused, never multiplied out.
  dims[EMB_ABI_BUCKETIZE_DIM_OFFSETS] = 1;
  dims[EMB_ABI_BUCKETIZE_DIM_BATCH] = INT64_MAX / 2 + 1;
  embrtCompiledBucketize(ctx, attrs, bufs, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.bucketize: lengths has 5 entries but 2 slots of "
                  "4611686018427387904 bags need more than int64 counts");
  embrtContextClearError(ctx);
  dims[EMB_ABI_BUCKETIZE_DIM_BATCH] = 3;
  dims[EMB_ABI_BUCKETIZE_DIM_LENGTHS] = 6;
  dims[EMB_ABI_BUCKETIZE_DIM_OFFSETS] = 5;
  embrtCompiledBucketize(ctx, attrs, bufs, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.bucketize: offsets has 5 entries, which is not F*B+1 "
                  "for the batch of 3 bags the lengths give");
  embrtContextClearError(ctx);
  dims[EMB_ABI_BUCKETIZE_DIM_OFFSETS] = 4;
  dims[EMB_ABI_BUCKETIZE_DIM_COUNTS] = 3;
  embrtCompiledBucketize(ctx, attrs, bufs, dims);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.bucketize: counts has 3 entries but world_size is 2");
  embrtContextClearError(ctx);

  int64_t lens[] = {2, 0, 1, 4}, out[5], sums[2];
  int64_t lattrs[] = {
      [EMB_ABI_L2O_DTYPE] = EMBRT_I64, [EMB_ABI_L2O_BLOCKS] = 2};
  void *lbufs[] = {lens, out, sums, NULL};
  int64_t ldims[] = {[EMB_ABI_L2O_DIM_LENGTHS] = 4,
                     [EMB_ABI_L2O_DIM_WORKSPACE] = 0,
                     [EMB_ABI_L2O_DIM_OFFSETS] = 5,
                     [EMB_ABI_L2O_DIM_BLOCK_SUMS] = 2};
  embrtCompiledLengthsToOffsets(ctx, lattrs, lbufs, ldims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  const int64_t wantOff[] = {0, 2, 2, 3, 7}, wantSums[] = {2, 5};
  expectIndices("offsets", out, EMBRT_I64, wantOff, 5);
  expectIndices("block_sums", sums, EMBRT_I64, wantSums, 2);
  ldims[EMB_ABI_L2O_DIM_OFFSETS] = 4;
  embrtCompiledLengthsToOffsets(ctx, lattrs, lbufs, ldims);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.lengths_to_offsets: offsets has 4 entries but lengths "
                  "has 4 (offsets must have one more)");
  embrtContextClearError(ctx);
  ldims[EMB_ABI_L2O_DIM_OFFSETS] = 5;
  ldims[EMB_ABI_L2O_DIM_BLOCK_SUMS] = 1;
  embrtCompiledLengthsToOffsets(ctx, lattrs, lbufs, ldims);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.lengths_to_offsets: block_sums has 1 entries but "
                  "blocks is 2");
  embrtContextClearError(ctx);
}

int main(void) {
  ctx = newCpuContext();
  testTableAndColumnSlots();
  testRowSlots();
  testExtremeIds();
  testDepth();
  testEmptyBatch();
  testLengthsToOffsets();
  testCompiled();
  embrtContextDestroy(ctx);
  return harnessFinish();
}
