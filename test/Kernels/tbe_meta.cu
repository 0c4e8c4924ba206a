// REQUIRES: cuda
// RUN: %kernel_test_dir/tbe_meta
//===- test/Kernels/tbe_meta.cu - TBE forward launch metadata -------------===//
//
// The host half of kernels/tbe_forward.cuh, on the CPU: the metadata of each
// launch of a lookup that mixes dense and quantized tables. A launch gives
// CTAs only to its own features, leaves the others an empty entry (whatever
// D they have: a dense D = 5 does not pack as int4), keeps the features'
// output columns, and the launches cover every feature once. Needs no GPU.
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
        // Packed rows: 16-byte chunks, min(chunks, 32) lanes.
        int chunks = (int)embrtQuantizedRowBytes((embrtTablePrecision)which[l],
                                                 meta[f].dim) /
                     16;
        EXPECT_EQ_INT(meta[f].passes, (chunks + 31) / 32);
        EXPECT_EQ_INT((meta[f].flags >> 3) & 7, 4);
        EXPECT_TRUE(meta[f].table == tables[featureTables[f]]);
      }
      col += dims[featureTables[f]];
    }
  }
  for (int f = 0; f < 6; ++f)
    EXPECT_EQ_INT(owners[f], 1);
  return harnessFinish();
}
