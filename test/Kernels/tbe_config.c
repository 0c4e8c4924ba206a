// RUN: %kernel_test_dir/tbe_config
//===- test/Kernels/tbe_config.c - The TBE launch table -------------------===//
//
// The TBE launch-configuration table (kernels/tbe_config.h), on the CPU:
// every entry is a shape the kernel accepts, lookups outside the table answer
// NULL, the selection is a pure function that picks the documented entry for
// each regime (launch-bound small problems; large ones by how many groups of
// lanes the bags fill), a requested id is kept, and the public
// embrtTbeSelectConfig, which the compiler stores for static shapes, answers
// the same; packed rows are selected over their stored bytes and lanes.
// Needs no GPU.
//
//===----------------------------------------------------------------------===//

#include "kernels/tbe_config.h"
#include "../Runtime/harness.h"

#include <stdint.h>

/// tbeSelectConfig of the shape, checked against the public selector.
static int64_t selectFor(embrtDtype dtype, int64_t maxDim, int64_t avgBagSize,
                         int64_t numBags) {
  const TbeShape shape = {dtype, maxDim, avgBagSize, numBags};
  int64_t id = tbeSelectConfig(&shape);
  EXPECT_EQ_INT(embrtTbeSelectConfig(dtype, maxDim, avgBagSize, numBags), id);
  return id;
}

static int64_t configNamed(const char *name) {
  for (int64_t id = 0; id < TBE_NUM_CONFIGS; ++id)
    if (strcmp(tbeGetConfig(id)->name, name) == 0)
      return id;
  HARNESS_FAIL("no configuration named %s", name);
  return -1;
}

static void testTable(void) {
  TEST_CASE("table");
  fprintf(stderr, "@table\n");
  int64_t n = TBE_NUM_CONFIGS;
  EXPECT_TRUE(n >= 1);
  for (int64_t id = 0; id < n; ++id) {
    const TbeConfig *c = tbeGetConfig(id);
    EXPECT_TRUE(c != NULL);
    if (!c)
      continue;
    EXPECT_TRUE(c->name && c->name[0]);
    // The kernel's limits: whole warps, at most 256 threads, a group of at
    // most 32 lanes per bag fits, at least one bag per group, stages of 6 or
    // 8 rows (the kernel's instantiations), and the row slots of a CTA
    // (threads * rows * 2 stages * 16 bytes) within 64 KB, so that three
    // CTAs fit an SM's 228 KB.
    EXPECT_TRUE(c->threadsPerBlock % 32 == 0);
    EXPECT_TRUE(c->threadsPerBlock >= 32 && c->threadsPerBlock <= 256);
    EXPECT_TRUE(c->bagsPerGroup >= 1 && c->bagsPerGroup <= 32);
    EXPECT_TRUE(c->rowsPerStage == 6 || c->rowsPerStage == 8);
    EXPECT_TRUE(c->threadsPerBlock * c->rowsPerStage * 2 * 16 <= 64 * 1024);
    // Splits: a power of two up to a warp of one-lane groups, and only
    // where the split kernels run (one bag a group, 6-row stages).
    EXPECT_TRUE(c->splitsPerBag >= 1 && c->splitsPerBag <= 32 &&
                (c->splitsPerBag & (c->splitsPerBag - 1)) == 0);
    if (c->splitsPerBag > 1)
      EXPECT_TRUE(c->bagsPerGroup == 1 && c->rowsPerStage == 6);
    for (int64_t other = 0; other < id; ++other)
      EXPECT_TRUE(strcmp(tbeGetConfig(other)->name, c->name) != 0);
  }
  EXPECT_TRUE(tbeGetConfig(-1) == NULL);
  EXPECT_TRUE(tbeGetConfig(n) == NULL);
  EXPECT_TRUE(tbeGetConfig(INT64_MAX) == NULL);
}

static void testSelection(void) {
  TEST_CASE("selection");
  fprintf(stderr, "@selection\n");
  int64_t n = TBE_NUM_CONFIGS;
  // Every answer is a valid id, for all dtypes and extreme shapes.
  static const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  static const int64_t dims[] = {1, 7, 64, 128, 2048};
  static const int64_t bags[] = {0, 1, 2, 4, 20, 100000};
  static const int64_t counts[] = {0, 1, 8192, 524288, INT64_MAX / 4};
  for (int d = 0; d < 3; ++d)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 6; ++j)
        for (int k = 0; k < 5; ++k) {
          int64_t id = selectFor(dtypes[d], dims[i], bags[j], counts[k]);
          EXPECT_TRUE(id >= 0 && id < n);
          // Pure: the same answer twice.
          EXPECT_EQ_INT(selectFor(dtypes[d], dims[i], bags[j], counts[k]), id);
        }

  // Launch-bound problems (under 64 MB of rows): 256-thread CTAs with one
  // bag a group where that grid is one wave (3 * 256 threads on each of 132
  // SMs: 101376 threads, lanes a bag times bags), else two bags a group
  // where that is one wave, else t128_bags1. The embedding_bag benchmark:
  // B=8192, f16 D 32 and 64 (4 and 8 lanes) take one bag a group, D=128 (16
  // lanes) two.
  int64_t small1 = configNamed("t256_bags1");
  int64_t small2 = configNamed("t256_bags2");
  int64_t small = configNamed("t128_bags1");
  int64_t split2 = configNamed("t256_split2");
  int64_t split4 = configNamed("t256_split4");
  int64_t split8 = configNamed("t256_split8");
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 32, 1, 8192), small1);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 4, 8192), small1);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 1, 8192), small2);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 8, 8192), small2);
  // One bag a group and bags of more than 8 ids on average: each bag split
  // over the most groups (8, 4, 2) whose lanes fit a warp and whose grid
  // stays within two waves (202752 threads). The sweep's #229 (B 512, f16
  // D 64: 8 lanes, bags of 22 on average): 4 groups; #72 (B 8192, f16 D
  // 32: 4 lanes, bags of 54): 8 would be 262144 threads, so 4; the
  // embedding_bag benchmark's L 8 (B 8192): not split.
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 22, 512), split4);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 32, 54, 8192), split4);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 8, 8192), small1);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 32, 8, 8192), small1);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 8, 512), small1);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 9, 512), split4);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 9, 8192), split2);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 8, 30, 1000), split8);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 32, 30, 1000), split8);
  // Rows of 32 lanes are not split; 16 lanes by 2 at most.
  EXPECT_EQ_INT(selectFor(EMBRT_F32, 128, 20, 1000), small1);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 20, 1000), split2);
  // At the edge of two waves (f16 D 64, 8 lanes: 6336 bags at 4 groups,
  // 12672 at 2, the most that one bag a group fits one wave with).
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 20, 6336), split4);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 20, 6337), split2);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 20, 12672), split2);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 20, 12673), small2);
  // At the wave's edge: 101376 threads.
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 1, 6336), small1);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 1, 6337), small2);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 1, 12672), small2);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 1, 12673), small);
  // f32 D=128: 32 lanes a bag; 8192 bags fit no wave.
  EXPECT_EQ_INT(selectFor(EMBRT_F32, 128, 8, 8192), small);

  // Large problems: 8 bags a group while that leaves 2^18 threads (lanes a
  // bag: D * size / 16, a power of two, at most 32), fewer otherwise; stages
  // of 6 rows for f16 and bf16 tables, 8 for f32 tables.
  int64_t bags8 = configNamed("t256_bags8");
  int64_t bags8r8 = configNamed("t256_bags8_r8");
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 20, 16384 * 32), bags8);
  EXPECT_EQ_INT(selectFor(EMBRT_F32, 128, 20, 16384 * 32), bags8r8);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 20, 16384 * 32), bags8);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 64, 4, 65536 * 64), bags8);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 8, 131072), bags8);
  EXPECT_EQ_INT(selectFor(EMBRT_BF16, 8, 1, 1 << 28), bags8);
  // FBGEMM's defaults (B=512, T=32, f32 D=128, 32 lanes a bag): 16384 bags
  // give 2^18 threads at 2 bags a group.
  EXPECT_EQ_INT(selectFor(EMBRT_F32, 128, 20, 512 * 32),
                configNamed("t256_bags2_r8"));
  EXPECT_EQ_INT(selectFor(EMBRT_F32, 128, 20, 8192 * 4),
                configNamed("t256_bags4_r8"));
  // bf16 rows of 128 take 16 lanes, not 32: half the threads a group.
  EXPECT_EQ_INT(selectFor(EMBRT_BF16, 128, 20, 8192 * 4),
                configNamed("t256_bags2"));
  // Few huge bags: one bag a group.
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 2048, 100000, 64),
                configNamed("t256_bags1"));
  EXPECT_EQ_INT(selectFor(EMBRT_F32, 2048, 100000, 64),
                configNamed("t256_bags1_r8"));
  // Every selection for f32 tables is an 8-row configuration, or a
  // latency-bound one; for the others a 6-row one.
  for (int d = 0; d < 3; ++d)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 6; ++j)
        for (int k = 0; k < 5; ++k) {
          int64_t id = selectFor(dtypes[d], dims[i], bags[j], counts[k]);
          int latencyBound = id == small || id == small1 || id == small2 ||
                             tbeGetConfig(id)->splitsPerBag > 1;
          EXPECT_EQ_INT(tbeGetConfig(id)->rowsPerStage,
                        dtypes[d] == EMBRT_F32 && !latencyBound ? 8 : 6);
        }

  // The byte count saturates instead of overflowing.
  EXPECT_EQ_INT(selectFor(EMBRT_F32, 2048, INT64_MAX / 2, INT64_MAX / 2),
                bags8r8);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 2048, INT64_MAX / 2, INT64_MAX / 2),
                bags8);
  // So do the lanes of a huge width and the groups of a huge bag count
  // (the selector is a public function of any int64): a huge D takes a
  // warp a bag, a width of 0 or less one lane.
  EXPECT_EQ_INT(selectFor(EMBRT_F16, INT64_MAX, 1, 1), small1);
  EXPECT_EQ_INT(selectFor(EMBRT_F32, INT64_MAX, 1, 1 << 20), bags8r8);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 0, 1, INT64_MAX), small);
  EXPECT_EQ_INT(selectFor(EMBRT_BF16, INT64_MIN, 0, INT64_MAX), small);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, -1, INT64_MIN, INT64_MIN), small1);
  // At the edge of two bags a group: an odd count rounds up.
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 1, 12673), small);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 1, 12671), small2);
}

/// Packed (quantized) rows: the rule over the bytes and lanes of the rows
/// as stored (an int4 row of D 128: 80 bytes, 5 lanes; int8: 144 bytes, 9).
static void testPacked(void) {
  TEST_CASE("packed");
  fprintf(stderr, "@packed\n");
  const int64_t small1 = configNamed("t256_bags1"),
                small = configNamed("t128_bags1"),
                bags4 = configNamed("t256_bags4"),
                bags8 = configNamed("t256_bags8");
  // The ranking model's candidate lookup (32 features, B 2048, L 4): the
  // dense f16 rows (256 bytes, 16 lanes) move 67 MB, a large launch of 4
  // bags a group; the same rows at int4 move 21 MB, past one wave of bags:
  // the small launches' 128-thread row, three times the CTAs.
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 4, 32 * 2048), bags4);
  EXPECT_EQ_INT(tbeSelectPackedConfig(80, 5, 4, 32 * 2048), small);
  // Its user lookup (B 32, L 20): one wave either way.
  EXPECT_EQ_INT(tbeSelectPackedConfig(80, 5, 20, 32 * 32), small1);
  // The bar shape (B 16384, T 32, L 20): 839 MB at int4, 1.5 GB at
  // int8, both large with 8 bags a group, as f16.
  EXPECT_EQ_INT(tbeSelectPackedConfig(80, 5, 20, 16384 * 32), bags8);
  EXPECT_EQ_INT(tbeSelectPackedConfig(144, 9, 20, 16384 * 32), bags8);
  EXPECT_EQ_INT(selectFor(EMBRT_F16, 128, 20, 16384 * 32), bags8);
  // The lanes a bag takes are 32 / (32 / chunks): 5 chunks, 6 groups a
  // warp, 5 lanes; at the edge of one wave (101376 threads) of single bags.
  EXPECT_EQ_INT(tbeSelectPackedConfig(80, 5, 1, 101376 / 5), small1);
  EXPECT_EQ_INT(tbeSelectPackedConfig(80, 5, 1, 101376 / 5 + 1),
                configNamed("t256_bags2"));
  // Out-of-range chunk counts clamp to 1..32 lanes, and the products
  // saturate.
  EXPECT_EQ_INT(tbeSelectPackedConfig(80, 0, 1, 1), small1);
  EXPECT_EQ_INT(
      tbeSelectPackedConfig(INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX), bags8);
}

static void testResolve(void) {
  TEST_CASE("resolve");
  fprintf(stderr, "@resolve\n");
  // A requested row is kept whatever the shape (every row runs every
  // shape); -1 is the selection.
  const TbeShape shape = {EMBRT_F16, 128, 20, 16384 * 32};
  for (int64_t id = 0; id < TBE_NUM_CONFIGS; ++id)
    EXPECT_EQ_INT(tbeResolveConfig(&shape, id), id);
  EXPECT_EQ_INT(tbeResolveConfig(&shape, -1), tbeSelectConfig(&shape));
  EXPECT_EQ_INT(tbeResolveConfig(&shape, -1), configNamed("t256_bags8"));
}

int main(void) {
  testTable();
  testSelection();
  testPacked();
  testResolve();
  return harnessFinish();
}
