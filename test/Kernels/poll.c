// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/poll
//===- test/Kernels/poll.c - GPU test of embrtPollDeviceErrors ------------===//
//
// embrtPollDeviceErrors on a CUDA context: a lookup with an id outside its
// table under the fatal bounds check is reported by a later poll, without
// embrtSynchronize, naming the feature, bag, id and table; once reported it
// is cleared on the device, so embrtSynchronize does not report it again;
// one that embrtSynchronize reported is not reported again by a poll; the
// first poll after the device ran the bad lookup reports it (the recording
// kernel fills the record's host mirror, which a poll reads).
// Good lookups never make a poll fail; a CPU context's poll answers OK (its
// calls report their errors themselves); NULL is an invalid argument.
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"

#include <time.h>

static embrtContext *gpu;

static void *upload(const void *host, size_t bytes) {
  void *d = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, bytes, &d), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtMemcpy(gpu, d, host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
                EMBRT_OK, gpu);
  return d;
}

/// One table of 10 rows and D = 4, two features over it, two bags each;
/// `badId` (when nonzero) replaces the id of feature 1, bag 0.
static void lookup(embrtContext *ctx, void *table, void *output, int64_t badId,
                   void **ids, void **offsets) {
  int64_t hostIds[] = {1, 2, 3, 4, 5, 6};
  int64_t hostOffsets[] = {0, 2, 3, 5, 6};
  if (badId)
    hostIds[3] = badId;
  *ids = upload(hostIds, sizeof hostIds);
  *offsets = upload(hostOffsets, sizeof hostOffsets);
  static const int64_t rows[] = {10}, dims[] = {4}, featureTables[] = {0, 0};
  const void *tables[] = {table};
  embrtTbeArgs a = {0};
  a.structSize = sizeof a;
  a.pooling = EMBRT_POOLING_SUM;
  a.boundsCheck = EMBRT_BOUNDS_FATAL;
  a.numTables = 1;
  a.tables = tables;
  a.tableRows = rows;
  a.tableDims = dims;
  a.tableDtype = EMBRT_F32;
  a.numFeatures = 2;
  a.featureTables = featureTables;
  a.batchSize = 2;
  a.numIndices = 6;
  a.indices = *ids;
  a.indexDtype = EMBRT_I64;
  a.offsets = *offsets;
  a.offsetDtype = EMBRT_I64;
  a.output = output;
  a.outputDtype = EMBRT_F32;
  a.configId = -1;
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
}

/// Polls until a poll fails or 20 s pass; returns the last status.
static embrtStatus pollUntilError(void) {
  time_t start = time(NULL);
  embrtStatus status = EMBRT_OK;
  while (status == EMBRT_OK && time(NULL) - start < 20)
    status = embrtPollDeviceErrors(gpu);
  return status;
}

int main(void) {
  embrtContext *cpu = newCpuContext();
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }
  Rng rng = rngSeed(0x9011);
  float *hostTable = randomTensor(&rng, EMBRT_F32, 40);
  void *table = upload(hostTable, 40 * sizeof(float));
  void *output = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, 2 * 8 * sizeof(float), &output), EMBRT_OK,
                gpu);
  void *ids, *offsets;

  TEST_CASE("a bad id, reported by a poll without synchronize");
  lookup(gpu, table, output, 12, &ids, &offsets);
  EXPECT_STATUS(pollUntilError(), EMBRT_OUT_OF_RANGE, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "feature 1 bag 0: id 12 is outside table 0 (10 rows)");
  embrtContextClearError(gpu);
  // Reported once: cleared on the device.
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  embrtFree(gpu, ids), embrtFree(gpu, offsets);

  TEST_CASE("the first poll after the device ran the bad lookup reports it");
  // A copy to pageable host memory returns once the stream has run it, so
  // the lookup before it has run; no emb call waited or polled since.
  lookup(gpu, table, output, 11, &ids, &offsets);
  float hostOut[2 * 8];
  EXPECT_STATUS(embrtMemcpy(gpu, hostOut, output, sizeof hostOut,
                            EMBRT_COPY_DEVICE_TO_HOST),
                EMBRT_OK, gpu);
  EXPECT_STATUS(embrtPollDeviceErrors(gpu), EMBRT_OUT_OF_RANGE, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "feature 1 bag 0: id 11 is outside table 0 (10 rows)");
  embrtContextClearError(gpu);
  EXPECT_STATUS(embrtPollDeviceErrors(gpu), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  embrtFree(gpu, ids), embrtFree(gpu, offsets);

  TEST_CASE("good lookups: no poll fails");
  for (int i = 0; i < 3; ++i) {
    lookup(gpu, table, output, 0, &ids, &offsets);
    EXPECT_STATUS(embrtPollDeviceErrors(gpu), EMBRT_OK, gpu);
    EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
    EXPECT_STATUS(embrtPollDeviceErrors(gpu), EMBRT_OK, gpu);
    embrtFree(gpu, ids), embrtFree(gpu, offsets);
  }

  TEST_CASE("a second bad id after the first was reported");
  lookup(gpu, table, output, -3, &ids, &offsets);
  EXPECT_STATUS(pollUntilError(), EMBRT_OUT_OF_RANGE, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu), "id -3 is outside table 0");
  embrtContextClearError(gpu);
  embrtFree(gpu, ids), embrtFree(gpu, offsets);

  TEST_CASE("reported by synchronize: not again by a poll");
  lookup(gpu, table, output, 15, &ids, &offsets);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OUT_OF_RANGE, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu), "id 15 is outside table 0");
  embrtContextClearError(gpu);
  EXPECT_STATUS(embrtPollDeviceErrors(gpu), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtPollDeviceErrors(gpu), EMBRT_OK, gpu);
  embrtFree(gpu, ids), embrtFree(gpu, offsets);

  TEST_CASE("cpu and NULL contexts");
  EXPECT_STATUS(embrtPollDeviceErrors(cpu), EMBRT_OK, cpu);
  EXPECT_EQ_INT(embrtPollDeviceErrors(NULL), EMBRT_INVALID_ARGUMENT);

  embrtFree(gpu, table), embrtFree(gpu, output);
  free(hostTable);
  embrtContextDestroy(gpu);
  embrtContextDestroy(cpu);
  return harnessFinish();
}
