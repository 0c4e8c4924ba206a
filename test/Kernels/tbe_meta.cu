// REQUIRES: cuda
// RUN: %kernel_test_dir/tbe_meta
// RUN: %kernel_test_dir/tbe_meta_packed_data
// RUN: %kernel_test_dir/tbe_meta_packed_vec8
//===- test/Kernels/tbe_meta.cu - TBE forward launch metadata -------------===//
//
// The host half of kernels/tbe_forward.cuh, on the CPU: the metadata of each
// launch of a lookup that mixes dense and quantized tables. A launch gives
// CTAs only to its own features, leaves the others an empty entry (whatever
// D they have: a dense D = 5 does not pack as int4), keeps the features'
// output columns, and the launches cover every feature once. Also how
// packed rows are split among lanes, for every precision and D. Needs no
// GPU. tbe_meta_packed_data and tbe_meta_packed_vec8: the same against the
// header with the knobs of those variants (kernels/variants.cmake).
//
//===----------------------------------------------------------------------===//

#include "kernels/tbe_forward.cuh"

#include "test/Runtime/harness.h"

int main() {
  TEST_CASE("mixed precisions: each launch's features");
  // Tables: dense D 5, int4 D 128, int8 D 24, dense D 7, fp8 D 12.
  const int64_t dims[5] = {5, 128, 24, 7, 12};
  const int64_t rows[5] = {10, 10, 10, 10, 10};
  const int64_t precisions[5] = {EMBRT_PRECISION_DENSE, EMBRT_PRECISION_INT4,
                                 EMBRT_PRECISION_INT8, EMBRT_PRECISION_DENSE,
                                 EMBRT_PRECISION_FP8};
  const int64_t featureTables[6] = {0, 1, 2, 3, 4, 1};
  alignas(16) static char storage[5][4096];
  const void *tables[5];
  for (int t = 0; t < 5; ++t)
    tables[t] = storage[t];
  embrtTbeArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.pooling = EMBRT_POOLING_SUM;
  a.numTables = 5;
  a.tables = tables;
  a.tableRows = rows;
  a.tableDims = dims;
  a.tableDtype = EMBRT_F16;
  a.tablePrecisions = precisions;
  a.numFeatures = 6;
  a.featureTables = featureTables;
  a.batchSize = 1000;
  a.numIndices = 6000;
  a.indexDtype = EMBRT_I64;
  a.offsetDtype = EMBRT_I64;
  a.output = storage[0];
  a.outputDtype = EMBRT_F16;
  const TbeConfig *cfg = tbeGetConfig(0);
  EXPECT_TRUE(cfg != NULL);
  long long outStride = 5 + 128 + 24 + 7 + 12 + 128;

  // Dense, int8, int4, fp8: four launches, in precision order.
  EXPECT_EQ_INT(launchesBefore(&a, EMBRT_PRECISION_FP8 + 1), 4);
  EXPECT_EQ_INT(launchesBefore(&a, EMBRT_PRECISION_INT4), 2);
  const int which[4] = {EMBRT_PRECISION_DENSE, EMBRT_PRECISION_INT8,
                        EMBRT_PRECISION_INT4, EMBRT_PRECISION_FP8};
  int owners[6] = {0};
  for (int l = 0; l < 4; ++l) {
    FeatureMeta meta[6];
    long long ctas = buildMeta(&a, cfg, outStride, which[l], meta);
    EXPECT_TRUE(ctas > 0);
    long long col = 0;
    for (int f = 0; f < 6; ++f) {
      long long next = f + 1 < 6 ? meta[f + 1].firstCta : ctas;
      long long own = next - meta[f].firstCta;
      int mine = precisionOf(&a, f) == which[l];
      EXPECT_TRUE(own >= 0);
      EXPECT_EQ_INT(own > 0, mine);
      owners[f] += mine;
      EXPECT_EQ_INT(meta[f].outCol, col);
      EXPECT_EQ_INT(meta[f].dim, dims[featureTables[f]]);
      EXPECT_EQ_INT(meta[f].tableIndex, featureTables[f]);
      if (mine && which[l] != EMBRT_PRECISION_DENSE) {
        // Packed rows: packedVec-byte chunks, min(chunks, 32) lanes.
        int chunks = packedChunks(which[l], meta[f].dim);
        EXPECT_EQ_INT(meta[f].passes, (chunks + 31) / 32);
        EXPECT_EQ_INT(meta[f].flags & 7, log2Of(chunks < 32 ? chunks : 32));
        EXPECT_EQ_INT((meta[f].flags >> 3) & 7, log2Of(packedVec(which[l])));
        EXPECT_TRUE(meta[f].table == tables[featureTables[f]]);
      }
      col += dims[featureTables[f]];
    }
  }
  for (int f = 0; f < 6; ++f)
    EXPECT_EQ_INT(owners[f], 1);

  TEST_CASE("split bags: which launches split, and their CTAs");
  {
    // A configuration of one bag a group split over up to 4 groups
    // (t256_split4): the dense launch splits the bags of D 5 and D 7 (f16
    // rows of 10 and 14 bytes: 2-byte chunks, groups of 8 lanes, so 4
    // groups a bag fit a warp): 1000 bags * 4 groups / 32 groups a CTA. The
    // quantized launches, pooling NONE, more features than the small
    // parameter block and positions past 32 bits do not split.
    int64_t split4 = -1;
    for (int64_t id = 0; id < TBE_NUM_CONFIGS; ++id)
      if (strcmp(tbeGetConfig(id)->name, "t256_split4") == 0)
        split4 = id;
    EXPECT_TRUE(split4 >= 0);
    const TbeConfig *sc = tbeGetConfig(split4);
    EXPECT_EQ_INT(launchSplitsLog2(&a, sc, EMBRT_PRECISION_DENSE), 2);
    EXPECT_EQ_INT(launchSplitsLog2(&a, sc, EMBRT_PRECISION_INT4), 0);
    EXPECT_EQ_INT(launchSplitsLog2(&a, cfg, EMBRT_PRECISION_DENSE), 0);
    EXPECT_EQ_INT(splitsLog2Of(2, 3), 2);
    EXPECT_EQ_INT(splitsLog2Of(5, 3), 2);
    EXPECT_EQ_INT(splitsLog2Of(2, 5), 0);
    FeatureMeta meta[6];
    long long ctas = buildMeta(&a, sc, outStride, EMBRT_PRECISION_DENSE, meta);
    EXPECT_EQ_INT(meta[3].firstCta - meta[0].firstCta, 125);
    EXPECT_EQ_INT(ctas - meta[3].firstCta, 125);
    FeatureMeta plain[6];
    EXPECT_EQ_INT(buildMeta(&a, cfg, outStride, EMBRT_PRECISION_DENSE, plain),
                  2 * 32);
    embrtTbeArgs b = a;
    b.pooling = EMBRT_POOLING_NONE;
    EXPECT_EQ_INT(launchSplitsLog2(&b, sc, EMBRT_PRECISION_DENSE), 0);
    b = a;
    b.numFeatures = kSmallCap + 1;
    EXPECT_EQ_INT(launchSplitsLog2(&b, sc, EMBRT_PRECISION_DENSE), 0);
    b = a;
    b.numIndices = INT32_MAX;
    EXPECT_EQ_INT(idsKind(&b), 0);
    EXPECT_EQ_INT(launchSplitsLog2(&b, sc, EMBRT_PRECISION_DENSE), 0);
    b.numIndices = 6000;
    b.indexDtype = EMBRT_I32;
    EXPECT_EQ_INT(idsKind(&b), 4);
    EXPECT_EQ_INT(idsKind(&a), 8);
  }

  TEST_CASE("packed rows: the lanes' chunks");
  // A lane a V-byte chunk of the row as stored (header and padding
  // included), or of its elements (kDataLanes): V = EMB_TBE_PACKED_VEC (16
  // or 8), 8 for int2. Rows of 80, 144, 16, 32 and 1040 bytes; int2's 48.
  const int V = EMB_TBE_PACKED_VEC;
  EXPECT_EQ_INT(packedVec(EMBRT_PRECISION_INT4), V);
  EXPECT_EQ_INT(packedVec(EMBRT_PRECISION_INT2), 8);
  EXPECT_EQ_INT(packedChunks(EMBRT_PRECISION_INT4, 128),
                kDataLanes ? 64 / V : 80 / V);
  EXPECT_EQ_INT(packedChunks(EMBRT_PRECISION_INT8, 128),
                kDataLanes ? 128 / V : 144 / V);
  EXPECT_EQ_INT(packedChunks(EMBRT_PRECISION_FP8, 12),
                kDataLanes ? (12 + V - 1) / V : 16 / V);
  EXPECT_EQ_INT(packedChunks(EMBRT_PRECISION_INT8, 24),
                kDataLanes ? (24 + V - 1) / V : 32 / V);
  EXPECT_EQ_INT(packedChunks(EMBRT_PRECISION_INT2, 128), kDataLanes ? 4 : 6);
  EXPECT_EQ_INT(packedChunks(EMBRT_PRECISION_INT4, 2048),
                kDataLanes ? 1024 / V : 1040 / V);
  // Every D of every precision: the lanes' chunks cover the elements, and
  // a lane the row's data does not reach has no chunk; with kDataLanes, a
  // group's last lane reads the first word of the stored chunk after its
  // own, which its first lane copies when the row has that chunk, and which
  // holds no element when it has not (the kernel then uses zeros).
  const int precs[4] = {EMBRT_PRECISION_INT8, EMBRT_PRECISION_INT4,
                        EMBRT_PRECISION_INT2, EMBRT_PRECISION_FP8};
  int bad = 0;
  for (int k = 0; k < 4; ++k) {
    const int p = precs[k];
    const int bits = p == EMBRT_PRECISION_INT4   ? 4
                     : p == EMBRT_PRECISION_INT2 ? 2
                                                 : 8;
    const int vec = packedVec(p), perChunk = vec * 8 / bits;
    for (int dim = 8 / bits; dim <= 2048; dim += 8 / bits) {
      const int rowBytes =
          (int)embrtQuantizedRowBytes((embrtTablePrecision)p, dim);
      const int dataBytes = dim * bits / 8;
      const int chunks = packedChunks(p, dim);
      int ok = rowBytes % vec == 0 && rowBytes >= 4 + dataBytes;
      if (kDataLanes) {
        ok = ok && chunks * perChunk >= dim && (chunks - 1) * perChunk < dim;
        for (int pass = 0; pass * 32 < chunks; ++pass) {
          const int active = chunks - pass * 32 < 32 ? chunks - pass * 32 : 32;
          const int after = (pass * 32 + active) * vec; // its first byte
          ok = ok && (after < rowBytes || after - 4 >= dataBytes);
        }
      } else {
        ok = ok && chunks * vec == rowBytes;
      }
      if (!ok && bad++ < 5)
        fprintf(stderr, "precision %d, D %d: chunks %d, row %d bytes\n", p, dim,
                chunks, rowBytes);
    }
  }
  EXPECT_EQ_INT(bad, 0);
  return harnessFinish();
}
