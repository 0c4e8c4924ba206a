//===- runtime/tbe_config.c - Launch configurations of the TBE ----*- C -*-===//
//
// The CUDA TBE forward (kernels/tbe.cu) takes its launch shape from this
// table. A configuration says how many threads a CTA has and how many
// consecutive bags one group of lanes pools as a single stream of ids; the
// lanes per bag follow from each table's row width inside the kernel, so a
// configuration serves every D of one launch. Selection: launches of under
// 64 MB of rows are latency bound and get the most CTAs; larger ones the
// longest streams that still leave enough groups to fill the GPU.
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
    {"t256_bags1", 256, 1}, {"t256_bags2", 256, 2},   {"t256_bags4", 256, 4},
    {"t256_bags8", 256, 8}, {"t256_bags16", 256, 16}, {"t128_bags1", 128, 1},
};

enum {
  NUM_CONFIGS = (int)(sizeof(kConfigs) / sizeof(kConfigs[0])),
  /// For launches too small to fill the GPU: the most CTAs.
  CONFIG_SMALL = 5,
};

/// Large launches: the most bags a group that still leaves kMinThreads
/// threads. Long streams keep each lane's stages full (measured on an H200:
/// t256_bags8 was 15-38% faster than t256_bags1 at L = 4, 8 and 20), but
/// too few groups leave SMs idle.
static const struct {
  int64_t bagsPerGroup;
  int64_t config;
} kByBags[] = {
    {8, 3},
    {4, 2},
    {2, 1},
    {1, 0},
};

/// Below this many gathered bytes a launch cannot fill the GPU's memory
/// pipeline: it is latency bound, and more, smaller CTAs finish first.
static const int64_t kSmallLaunchBytes = 64ll << 20;

/// Threads (groups * lanes per bag) a large launch keeps at least: about
/// 2.5 times what the 132 SMs of an H200 hold at once (768 each).
static const int64_t kMinThreads = 1ll << 18;

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

/// Lanes the kernel gives one bag of `maxDim` columns: one 16-byte chunk a
/// lane, a power of two, at most a warp.
static int64_t lanesPerBag(embrtDtype dtype, int64_t maxDim) {
  int64_t chunks = (maxDim * elementBytes(dtype) + 15) / 16, lanes = 1;
  while (lanes < chunks && lanes < 32)
    lanes *= 2;
  return lanes;
}

int64_t embrtTbeSelectConfig(embrtDtype tableDtype, int64_t maxDim,
                             int64_t avgBagSize, int64_t numBags) {
  int64_t bytes = mulSat(mulSat(numBags, avgBagSize < 1 ? 1 : avgBagSize),
                         mulSat(maxDim, elementBytes(tableDtype)));
  if (bytes < kSmallLaunchBytes)
    return CONFIG_SMALL;
  int64_t lanes = lanesPerBag(tableDtype, maxDim);
  for (size_t i = 0; i < sizeof(kByBags) / sizeof(kByBags[0]); ++i)
    if (mulSat(numBags / kByBags[i].bagsPerGroup, lanes) >= kMinThreads)
      return kByBags[i].config;
  return 0;
}
