// RUN: %kernel_test_dir/attention_config
//===- test/Kernels/attention_config.c - The attention launch table ------===//
//
// The pure selection function of kernels/attention_config.h, on the CPU:
// which row each (compute capability, dtype, head dim, alignment) gets, that a
// requested configId is kept only where it applies, and the tile bound the
// workspace is sized with. Needs no GPU.
//
//===----------------------------------------------------------------------===//

#include "kernels/attention_config.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void expectConfig(const char *what, int id, const char *name) {
  const char *got = id >= 0 ? kAttentionConfigs[id].name : "(none)";
  if (strcmp(got, name)) {
    printf("FAIL %s: got %s, expected %s\n", what, got, name);
    ++failures;
  }
}

static void expectInt(const char *what, long long got, long long want) {
  if (got != want) {
    printf("FAIL %s: got %lld, expected %lld\n", what, got, want);
    ++failures;
  }
}

/// The row a launch takes for `requested` (-1: the runtime's choice) on this
/// shape.
static int pick(int64_t requested, int ccMajor, embrtDtype dtype,
                int64_t headDim, int aligned16, int64_t lk) {
  const AttentionShape shape = {ccMajor, dtype, headDim, aligned16, lk};
  int64_t id = attentionResolveConfig(&shape, requested);
  if (requested < 0 && id != attentionSelectConfig(&shape)) {
    printf("FAIL resolve(-1) differs from select\n");
    ++failures;
  }
  return (int)id;
}

static int byName(const char *name) {
  for (int i = 0; i < ATTENTION_NUM_CONFIGS; ++i)
    if (!strcmp(kAttentionConfigs[i].name, name))
      return i;
  return -1;
}

int main(void) {
  // Hopper: the wgmma rows for 16-bit data, head dims 64 and 128.
  // f16/bf16 head dim 128: kvfirst up to Lk 4096 (its maxKeys), pingpong
  // alone past it.
  expectConfig("sm90 f16 d128 Lk 1024", pick(-1, 9, EMBRT_F16, 128, 1, 1024),
               "wgmma_d128_pp_kvfirst");
  expectConfig("sm90 f16 d128 Lk 4096", pick(-1, 9, EMBRT_F16, 128, 1, 4096),
               "wgmma_d128_pp_kvfirst");
  expectConfig("sm90 f16 d128 Lk 4097", pick(-1, 9, EMBRT_F16, 128, 1, 4097),
               "wgmma_d128_pp");
  expectConfig("sm90 bf16 d128 Lk 16384",
               pick(-1, 9, EMBRT_BF16, 128, 1, 16384), "wgmma_d128_pp");
  // A requested row ignores maxKeys.
  expectConfig(
      "requested kvfirst at Lk 16384",
      pick(byName("wgmma_d128_pp_kvfirst"), 9, EMBRT_F16, 128, 1, 16384),
      "wgmma_d128_pp_kvfirst");
  // A requested row is taken as it is.
  expectConfig("requested pingpong at Lk 1024",
               pick(byName("wgmma_d128_pp"), 9, EMBRT_F16, 128, 1, 1024),
               "wgmma_d128_pp");
  expectConfig("sm90 bf16 d64", pick(-1, 9, EMBRT_BF16, 64, 1, 1024),
               "wgmma_d64_pp");
  // Unaligned tensors cannot use TMA or 16-byte copies: SIMT.
  expectConfig("sm90 f16 d128 unaligned", pick(-1, 9, EMBRT_F16, 128, 0, 1024),
               "simt");
  // Other GPUs: mma.sync from sm_80, SIMT before; f32 always SIMT.
  expectConfig("sm80 f16 d128", pick(-1, 8, EMBRT_F16, 128, 1, 1024),
               "mma_d128");
  expectConfig("sm100 bf16 d64", pick(-1, 10, EMBRT_BF16, 64, 1, 1024),
               "mma_d64");
  expectConfig("sm75 f16 d128", pick(-1, 7, EMBRT_F16, 128, 1, 1024), "simt");
  expectConfig("sm90 f32 d128", pick(-1, 9, EMBRT_F32, 128, 1, 1024), "simt");
  expectConfig("sm90 f16 d96", pick(-1, 9, EMBRT_F16, 96, 1, 1024), "simt");
  expectConfig("sm90 f16 d512", pick(-1, 9, EMBRT_F16, 512, 1, 1024), "(none)");
  expectConfig("sm90 i32", pick(-1, 9, EMBRT_I32, 128, 1, 1024), "(none)");
  // A requested row is kept where it applies, else the automatic choice.
  expectConfig("requested mma on sm90",
               pick(byName("mma_d128"), 9, EMBRT_F16, 128, 1, 1024),
               "mma_d128");
  expectConfig("requested wgmma on sm80",
               pick(byName("wgmma_d128_pp"), 8, EMBRT_F16, 128, 1, 1024),
               "mma_d128");
  expectConfig("requested d64 row for d128",
               pick(byName("wgmma_d64_pp"), 9, EMBRT_F16, 128, 1, 4096),
               "wgmma_d128_pp_kvfirst");
  expectConfig("requested past the table",
               pick(ATTENTION_NUM_CONFIGS, 9, EMBRT_F16, 128, 1, 1024),
               "wgmma_d128_pp_kvfirst");
  // Every row's blockM is at least the workspace's ATTENTION_MIN_BLOCK_M.
  for (int i = 0; i < ATTENTION_NUM_CONFIGS; ++i)
    if (kAttentionConfigs[i].blockM < ATTENTION_MIN_BLOCK_M) {
      printf("FAIL row %s: blockM %d below ATTENTION_MIN_BLOCK_M\n",
             kAttentionConfigs[i].name, kAttentionConfigs[i].blockM);
      ++failures;
    }
  // Tile bound: 2048 candidates x 64 rows in 32 groups, 128-row tiles: 1024
  // full tiles + one partial per group at most.
  expectInt("max tiles uniform", attentionMaxTiles(2048, 33, 64, 128),
            1024 + 33);
  // Never more than one tile per candidate when Lq <= blockM.
  expectInt("max tiles Lq 1", attentionMaxTiles(100, 200, 1, 16), 100);
  expectInt("max tiles empty", attentionMaxTiles(0, 4, 8, 16), 0);
  printf("%s\n",
         failures ? "attention_config: FAILED" : "attention_config: ok");
  return failures ? 1 : 0;
}
