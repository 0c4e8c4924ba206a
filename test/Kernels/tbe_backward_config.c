// RUN: %kernel_test_dir/tbe_backward_config
//===- test/Kernels/tbe_backward_config.c - TBE backward routing ----------===//
//
// The pure functions of kernels/tbe_backward_config.h, on the CPU: the
// routing rows the tests and compiled models rely on, the selection by the
// launch's ids, the chunk spacing that
// sizes the partial sums, and the gather width of every D bucket (lanes a
// row, columns a lane, vector or element-wise) for f32 and 16-bit
// gradients, aligned and not. Needs no GPU.
//
//===----------------------------------------------------------------------===//

#include "kernels/tbe_backward_config.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expectInt(const char *what, long long got, long long want) {
  if (got != want) {
    printf("FAIL %s: got %lld, expected %lld\n", what, got, want);
    ++failures;
  }
}

static void expectBucket(const char *what, TbeBwdBucket b, int lanes, int elems,
                         int vector) {
  if (b.lanes != lanes || b.elems != elems || b.vector != vector) {
    printf("FAIL %s: got %d lanes x %d (%s), expected %d x %d (%s)\n", what,
           b.lanes, b.elems, b.vector ? "vector" : "scalar", lanes, elems,
           vector ? "vector" : "scalar");
    ++failures;
  }
}

int main(void) {
  // Routing rows: seg64 below EMB_TBE_BWD_SMALL_LAUNCH ids (2^20), the
  // seed's (256, chunks of 256) from there on; a row chosen ahead of time is
  // kept either way; the test rows force every run short or long.
  const TbeBwdShape shape = {1000, 100};
  const TbeBwdShape below = {(1 << 20) - 1, 4096};
  const TbeBwdShape at = {1 << 20, 4096};
  const TbeBwdShape large = {(int64_t)1 << 26, 65536};
  expectInt("1000 ids", tbeBwdSelectConfig(&shape), TBE_BWD_CONFIG_SEG64);
  expectInt("2^20 - 1 ids", tbeBwdSelectConfig(&below), TBE_BWD_CONFIG_SEG64);
  expectInt("2^20 ids", tbeBwdSelectConfig(&at), TBE_BWD_CONFIG_DEFAULT);
  expectInt("2^26 ids", tbeBwdSelectConfig(&large), TBE_BWD_CONFIG_DEFAULT);
  expectInt("resolve -1 below", tbeBwdResolveConfig(&shape, -1),
            TBE_BWD_CONFIG_SEG64);
  expectInt("resolve -1 large", tbeBwdResolveConfig(&large, -1),
            TBE_BWD_CONFIG_DEFAULT);
  expectInt("default threshold", tbeBwdGetConfig(0)->threshold, 256);
  expectInt("default chunk", tbeBwdGetConfig(0)->chunk, 256);
  expectInt("seg64 threshold", tbeBwdGetConfig(TBE_BWD_CONFIG_SEG64)->threshold,
            64);
  expectInt("seg64 chunk", tbeBwdGetConfig(TBE_BWD_CONFIG_SEG64)->chunk, 64);
  expectInt("kept", tbeBwdResolveConfig(&shape, 2), 2);
  expectInt("the default kept below", tbeBwdResolveConfig(&shape, 0), 0);
  expectInt("past the table", tbeBwdResolveConfig(&shape, TBE_BWD_NUM_CONFIGS),
            TBE_BWD_CONFIG_SEG64);
  if (strcmp(tbeBwdGetConfig(TBE_BWD_CONFIG_ALL_SHORT)->name, "all_short") ||
      strcmp(tbeBwdGetConfig(TBE_BWD_CONFIG_ALL_LONG)->name, "all_long") ||
      strcmp(tbeBwdGetConfig(TBE_BWD_CONFIG_SEG64)->name, "seg64")) {
    printf("FAIL routing rows moved\n");
    ++failures;
  }
  expectInt("all short threshold",
            tbeBwdGetConfig(TBE_BWD_CONFIG_ALL_SHORT)->threshold >= INT32_MAX,
            1);
  expectInt("all long threshold",
            tbeBwdGetConfig(TBE_BWD_CONFIG_ALL_LONG)->threshold, 1);
  expectInt("key64 row", tbeBwdGetConfig(TBE_BWD_CONFIG_KEY64)->keyBits, 64);
  expectInt("key64 row routes as the default",
            tbeBwdGetConfig(TBE_BWD_CONFIG_KEY64)->threshold, 256);
  expectInt("out of range", tbeBwdGetConfig(TBE_BWD_NUM_CONFIGS) == 0, 1);
  expectInt("negative", tbeBwdGetConfig(-1) == 0, 1);
  // Chunks start at least min(threshold, chunk) apart.
  expectInt("spacing default", tbeBwdChunkSpacing(tbeBwdGetConfig(0)), 256);
  expectInt("spacing all long", tbeBwdChunkSpacing(tbeBwdGetConfig(2)), 1);
  for (int i = 0; i < TBE_BWD_NUM_CONFIGS; ++i) {
    const TbeBwdConfig *c = tbeBwdGetConfig(i);
    expectInt("chunk >= 1", c->chunk >= 1, 1);
    expectInt("threshold >= 1", c->threshold >= 1, 1);
  }

  // f32 gradients, aligned: 16 bytes (4 columns) a lane, lanes to cover D.
  expectBucket("f32 d128", tbeBwdSelectBucket(4, 128, 8), 32, 4, 1);
  expectBucket("f32 d64", tbeBwdSelectBucket(4, 64, 8), 16, 4, 1);
  expectBucket("f32 d16", tbeBwdSelectBucket(4, 16, 8), 4, 4, 1);
  expectBucket("f32 d256: two warps", tbeBwdSelectBucket(4, 256, 8), 64, 4, 1);
  expectBucket("f32 d1000", tbeBwdSelectBucket(4, 1000, 8), 256, 4, 1);
  // Wider than 1024: 8 columns a lane (32 bytes), 256 lanes for 2048.
  expectBucket("f32 d2048", tbeBwdSelectBucket(4, 2048, 8), 256, 8, 1);
  // 16-bit gradients: 8 columns (16 bytes) a lane.
  expectBucket("f16 d128", tbeBwdSelectBucket(2, 128, 8), 16, 8, 1);
  expectBucket("f16 d2048", tbeBwdSelectBucket(2, 2048, 8), 256, 8, 1);
  // Narrow or oddly aligned rows: the widest aligned vector while a warp
  // covers the row; no lanes past the row beyond the power of two.
  expectBucket("f32 d1", tbeBwdSelectBucket(4, 1, 1), 1, 1, 1);
  expectBucket("f32 d3", tbeBwdSelectBucket(4, 3, 1), 4, 1, 1);
  expectBucket("f32 d24 by 2", tbeBwdSelectBucket(4, 24, 2), 16, 2, 1);
  expectBucket("f32 d17", tbeBwdSelectBucket(4, 17, 1), 32, 1, 1);
  // Misaligned and wider than a warp of single columns: 8 columns a lane,
  // loaded one at a time.
  expectBucket("f32 d100 misaligned", tbeBwdSelectBucket(4, 100, 1), 16, 8, 0);
  expectBucket("f32 d2048 misaligned", tbeBwdSelectBucket(4, 2048, 2), 256, 8,
               0);
  expectBucket("f16 d100 by 4", tbeBwdSelectBucket(2, 100, 4), 32, 4, 1);
  // Every D up to 2048 fits the lanes of one CTA.
  for (int g = 2; g <= 4; g += 2)
    for (int64_t d = 1; d <= 2048; ++d)
      for (int a = 1; a <= 8; a *= 2) {
        TbeBwdBucket b = tbeBwdSelectBucket(g, d, a);
        if (b.lanes > TBE_BWD_MAX_LANES || (int64_t)b.lanes * b.elems < d) {
          printf("FAIL d %lld align %d: %d lanes x %d\n", (long long)d, a,
                 b.lanes, b.elems);
          ++failures;
        }
      }

  if (failures) {
    printf("FAILED: %d\n", failures);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
