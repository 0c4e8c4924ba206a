//===- runtime/tbe_config.c - Launch configurations of the TBE kernel -*- C
//-*-===//
//
// The CUDA TBE forward (kernels/tbe.cu) takes its launch shape from this
// table. A configuration says how many threads a CTA has and how many
// consecutive bags one group of lanes pools as a single stream of rows; the
// lanes per bag follow from each table's row width inside the kernel, so a
// configuration serves every D of one launch.
//
// Selection is a pure function of the shape, so the compiler can make the
// same choice when shapes are static (embrtTbeArgs::configId) and this file's
// test (test/Runtime/tbe_config.c) can pin it down. The thresholds were tuned
// on an H200 (132 SMs, 60 MB of L2); bench/tbe/NOTES.md has the measurements.
//
//===----------------------------------------------------------------------===//

#include "emb/runtime.h"

#include <stdint.h>

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

static const embrtTbeConfig kConfigs[] = {
    // name          threadsPerBlock  bagsPerGroup
    {"t256_bags1", 256, 1}, {"t256_bags2", 256, 2}, {"t256_bags4", 256, 4},
    {"t256_bags8", 256, 8}, {"t128_bags1", 128, 1},
};

enum {
  NUM_CONFIGS = (int)(sizeof(kConfigs) / sizeof(kConfigs[0])),
  /// Used for launches too small to fill the GPU: the most CTAs.
  CONFIG_SMALL = 4,
};

/// Bags per group by mean bag size: enough rows in one stream to keep the
/// kernel's 8 row loads per lane busy.
static const struct {
  int64_t maxAvgBagSize;
  int64_t config;
} kByBagSize[] = {
    {1, 3},
    {2, 2},
    {7, 1},
    {INT64_MAX, 0},
};

/// Below this many gathered bytes a launch cannot fill the GPU's memory
/// pipeline: it is latency bound, and more, smaller CTAs finish first.
static const int64_t kSmallLaunchBytes = 64ll << 20;

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

int64_t embrtTbeNumConfigs(void) { return NUM_CONFIGS; }

const embrtTbeConfig *embrtTbeGetConfig(int64_t configId) {
  if (configId < 0 || configId >= NUM_CONFIGS)
    return NULL;
  return &kConfigs[configId];
}

static int64_t elementBytes(embrtDtype dtype) {
  return dtype == EMBRT_F32 ? 4 : 2;
}

/// Saturating a * b for non-negative values.
static int64_t mulSat(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0)
    return 0;
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

int64_t embrtTbeSelectConfig(embrtDtype tableDtype, int64_t maxDim,
                             int64_t avgBagSize, int64_t numBags) {
  int64_t bytes = mulSat(mulSat(numBags, avgBagSize < 1 ? 1 : avgBagSize),
                         mulSat(maxDim, elementBytes(tableDtype)));
  if (bytes < kSmallLaunchBytes)
    return CONFIG_SMALL;
  for (size_t i = 0; i < sizeof(kByBagSize) / sizeof(kByBagSize[0]); ++i)
    if (avgBagSize <= kByBagSize[i].maxAvgBagSize)
      return kByBagSize[i].config;
  return 0;
}
