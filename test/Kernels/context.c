// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/context
//===- test/Kernels/context.c - GPU test of a CUDA context's settings -----===//
//
// The settings of the device an embrtContextCreate on CUDA makes
// (docs/runtime.md, "Contexts"): L2's fetch granularity limit at 32 bytes,
// so that gathers of rows that are not a multiple of 64 bytes fetch only the
// sectors they read, and the default memory pool keeping all it caches.
// Both hold for every context made, and no CUDA error is left behind for a
// later launch check to read.
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"

#include <cuda_runtime_api.h>

int main(void) {
  // The device's own limit, before any context of emb exists.
  size_t before = 0;
  if (cudaSetDevice(0) != cudaSuccess ||
      cudaDeviceGetLimit(&before, cudaLimitMaxL2FetchGranularity) !=
          cudaSuccess) {
    fprintf(stderr, "cannot read device 0's L2 fetch granularity limit\n");
    return 1;
  }
  embrtContext *gpu = NULL, *second = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }

  TEST_CASE("the L2 fetch granularity limit is 32 bytes");
  size_t limit = 0;
  EXPECT_EQ_INT(cudaDeviceGetLimit(&limit, cudaLimitMaxL2FetchGranularity),
                cudaSuccess);
  EXPECT_EQ_INT((long long)limit, 32);
  fprintf(stderr, "L2 fetch granularity limit: %zu bytes before, %zu after\n",
          before, limit);

  TEST_CASE("the default memory pool keeps what it caches");
  cudaMemPool_t pool;
  uint64_t threshold = 0;
  EXPECT_EQ_INT(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
  EXPECT_EQ_INT(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold,
                                        &threshold),
                cudaSuccess);
  EXPECT_TRUE(threshold == UINT64_MAX);

  TEST_CASE("a second context: the same, and no error left behind");
  EXPECT_EQ_INT(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, 64),
                cudaSuccess);
  EXPECT_EQ_INT(embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &second),
                EMBRT_OK);
  EXPECT_EQ_INT(cudaDeviceGetLimit(&limit, cudaLimitMaxL2FetchGranularity),
                cudaSuccess);
  EXPECT_EQ_INT((long long)limit, 32);
  EXPECT_EQ_INT(cudaGetLastError(), cudaSuccess);

  embrtContextDestroy(second);
  embrtContextDestroy(gpu);
  return harnessFinish();
}
