// RUN: %kernel_test_dir/tbe_backward_config_small64
//===- test/Kernels/tbe_backward_config_small64.c - small64's routing -----===//
//
// The routing of the variant small64 (kernels/variants.cmake), which builds
// kernels/tbe_backward.cu with EMB_TBE_BWD_SMALL_LAUNCH=1048576: seg64 for
// launches of fewer ids than that, the default routing from there on, and a
// configId chosen ahead of time kept either way. On the CPU; the default
// build's routing is tbe_backward_config.c's.
//
//===----------------------------------------------------------------------===//

#define EMB_TBE_BWD_SMALL_LAUNCH 1048576 // the variant's value
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

int main(void) {
  const TbeBwdShape tiny = {1000, 100};
  const TbeBwdShape below = {(1 << 20) - 1, 4096};
  const TbeBwdShape at = {1 << 20, 4096};
  const TbeBwdShape large = {(int64_t)1 << 26, 65536};
  expectInt("1000 ids", tbeBwdSelectConfig(&tiny), TBE_BWD_CONFIG_SEG64);
  expectInt("2^20 - 1 ids", tbeBwdSelectConfig(&below), TBE_BWD_CONFIG_SEG64);
  expectInt("2^20 ids", tbeBwdSelectConfig(&at), TBE_BWD_CONFIG_DEFAULT);
  expectInt("2^26 ids", tbeBwdSelectConfig(&large), TBE_BWD_CONFIG_DEFAULT);
  expectInt("resolve -1 below", tbeBwdResolveConfig(&tiny, -1),
            TBE_BWD_CONFIG_SEG64);
  expectInt("a chosen row kept below", tbeBwdResolveConfig(&tiny, 0), 0);
  expectInt("seg64 threshold", tbeBwdGetConfig(TBE_BWD_CONFIG_SEG64)->threshold,
            64);
  expectInt("seg64 chunk", tbeBwdGetConfig(TBE_BWD_CONFIG_SEG64)->chunk, 64);
  if (strcmp(tbeBwdGetConfig(TBE_BWD_CONFIG_SEG64)->name, "seg64")) {
    printf("FAIL the seg64 row moved\n");
    ++failures;
  }
  if (failures) {
    printf("FAILED: %d\n", failures);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}
