//===- kernels/tbe_config.h - TBE launch configurations -----------*- C -*-===//
//
// The launch-configuration table of the CUDA TBE forward (kernels/tbe.cu) and
// the pure function that picks a row for a shape. A configuration says how many
// threads a CTA has, how many consecutive bags one group of lanes pools as a
// single stream of ids, and how many rows one pipeline stage of a lane holds;
// the lanes per bag follow from each table's row width inside the kernel, so a
// configuration serves every D of one launch. Selection: launches of under
// 64 MB of rows are latency bound and get the fewest bags a group (one or
// two) whose grid is one wave of CTAs; larger ones the longest streams that
// still leave enough groups to fill the GPU, with 8-row stages for f32
// tables.
//
// Plain C, as every family's kernels/<family>_config.h: a TbeShape in, the
// id of a TbeConfig row out (tbeSelectConfig, tbeResolveConfig), the row by
// id (tbeGetConfig); test/Kernels/tbe_config.c pins the choice down. The
// runtime exports the selection as the public embrtTbeSelectConfig
// (runtime/tbe.c), so that the compiler makes the same choice when shapes
// are static (embrtTbeArgs::configId). The thresholds were tuned on an H200
// (132 SMs, 60 MB of L2); bench/tbe/NOTES.md has the measurements.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_CONFIG_H
#define EMB_KERNELS_TBE_CONFIG_H

#include "emb/runtime.h"

#include <stddef.h>
#include <stdint.h>

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

/// One launch configuration of the CUDA TBE forward. The kernel gives each
/// bag the fewest lanes that cover a row with 16-byte loads (narrower loads
/// where D * size is not a multiple of 16) and keeps two stages of row loads
/// in flight per lane; a configuration picks the CTA size, how many
/// consecutive bags one group of lanes pools as a single stream of ids, and
/// the rows of one stage.
typedef struct TbeConfig {
  /// A short name for logs and benchmarks ("t256_bags1", "t256_bags8_r8").
  const char *name;
  /// Threads of one CTA: a multiple of 32, at most 256.
  int32_t threadsPerBlock;
  /// Consecutive bags one group of lanes pools: longer streams keep the
  /// loads in flight; fewer groups fill the GPU less.
  int32_t bagsPerGroup;
  /// Rows of one pipeline stage of a lane, 6 or 8: a lane has up to twice
  /// this many row loads in flight, in threadsPerBlock * rowsPerStage * 32
  /// bytes of shared memory a CTA (48 KB or 64 KB at 256 threads).
  int32_t rowsPerStage;
  /// Groups one bag's ids are split over, a power of two (1: none): with
  /// one bag a group, S groups of a warp take every S-th stage of the bag
  /// and add their sums by shuffles at its end, so a long bag walks S
  /// times fewer stages in sequence. A feature whose group is G lanes gets
  /// min(S, 32 / G) (none where rows take a whole warp); pooled dense
  /// lookups only (pooling NONE and packed rows ignore it).
  int32_t splitsPerBag;
} TbeConfig;

/// What the choice depends on: the tables' dtype and widest row, the bags
/// (features * batch) and their average length (round down).
typedef struct TbeShape {
  embrtDtype tableDtype;
  int64_t maxDim;
  int64_t avgBagSize;
  int64_t numBags;
} TbeShape;

/// Ids are stable (the compiler stores them for static shapes): new entries
/// go at the end.
static const TbeConfig kTbeConfigs[] = {
    // name          threadsPerBlock  bagsPerGroup  rowsPerStage  splitsPerBag
    {"t256_bags1", 256, 1, 6, 1},    {"t256_bags2", 256, 2, 6, 1},
    {"t256_bags4", 256, 4, 6, 1},    {"t256_bags8", 256, 8, 6, 1},
    {"t256_bags16", 256, 16, 6, 1},  {"t128_bags1", 128, 1, 6, 1},
    {"t256_bags1_r8", 256, 1, 8, 1}, {"t256_bags2_r8", 256, 2, 8, 1},
    {"t256_bags4_r8", 256, 4, 8, 1}, {"t256_bags8_r8", 256, 8, 8, 1},
    {"t256_split2", 256, 1, 6, 2},   {"t256_split4", 256, 1, 6, 4},
    {"t256_split8", 256, 1, 6, 8},   {"t256_split32", 256, 1, 6, 32},
};

enum {
  TBE_NUM_CONFIGS = (int)(sizeof(kTbeConfigs) / sizeof(kTbeConfigs[0])),
  /// Latency-bound launches that fit one wave with one or two bags a group
  /// (t256_bags1, t256_bags2), and those that do not (t128_bags1).
  TBE_CONFIG_SMALL_BAGS1 = 0,
  TBE_CONFIG_SMALL_BAGS2 = 1,
  TBE_CONFIG_SMALL = 5,
};

/// Latency-bound launches of one bag a group whose bags hold more than 8
/// ids on average (kTbeSplitMinBagSize) wait on their longest bags: they
/// split each bag over the most groups (8, 4, 2) that a warp holds for the
/// widest rows and that keep the grid within kTbeSplitMaxThreads. Measured
/// on an H100 (bench/tbe_sweep/NOTES.md, forward_configs.py): heavy-tailed
/// bags of up to 300 ids 2.0-2.9x faster, bags of 20-50 ids 1.2-1.7x, bags
/// of 9 on average (up to 26) 1.34x; bags of exactly 8 ids (the
/// embedding_bag benchmark's L 8, B 8192) 5% slower split in two and 30%
/// in four (a second wave of groups that each wait on DRAM), bags of 1-2
/// ids 5-10% slower.
static const int64_t kTbeSplitMinBagSize = 9;
static const struct {
  int64_t splits;
  int64_t config;
} kTbeBySplits[] = {{8, 12}, {4, 11}, {2, 10}};

/// Large launches: the most bags a group that still leaves kTbeMinThreads
/// threads. Long streams keep each lane's stages full (measured on an H200:
/// t256_bags8 was 15-38% faster than t256_bags1 at L = 4, 8 and 20), but
/// too few groups leave SMs idle. f32 tables take 8-row stages (64 KB a
/// CTA): 7% faster than 6 rows at B=16384 T=32 D=128 L=20, where f16 tables
/// gain 3% at L=20 and lose 1% at L=4 (bench/tbe/NOTES.md).
static const struct {
  int64_t bagsPerGroup;
  int64_t config;    ///< 6-row stages (f16, bf16)
  int64_t configF32; ///< 8-row stages
} kTbeByBags[] = {
    {8, 3, 9},
    {4, 2, 8},
    {2, 1, 7},
    {1, 0, 6},
};

/// Below this many gathered bytes a launch cannot fill the GPU's memory
/// pipeline: it is latency bound.
static const int64_t kTbeSmallLaunchBytes = 64ll << 20;

/// Threads of one wave of 256-thread CTAs: 3 CTAs on each of an H200's 132
/// SMs. A latency-bound launch that needs a second wave pays its latency
/// twice (measured at B=8192, f16 D=128, L 1-8: t256_bags2, one wave, 7-13%
/// faster than t128_bags1, two).
static const int64_t kTbeOneWaveThreads = 132 * 3 * 256;

/// Threads of a split launch at most: two waves.
static const int64_t kTbeSplitMaxThreads = 2 * 132 * 3 * 256;

/// Threads (groups * lanes per bag) a large launch keeps at least: about
/// 2.5 times what the 132 SMs of an H200 hold at once (768 each).
static const int64_t kTbeMinThreads = 1ll << 18;

//===----------------------------------------------------------------------===//
// Queries
//===----------------------------------------------------------------------===//

/// The configuration `configId`, or NULL when out of range.
static inline const TbeConfig *tbeGetConfig(int64_t configId) {
  if (configId < 0 || configId >= TBE_NUM_CONFIGS)
    return NULL;
  return &kTbeConfigs[configId];
}

static inline int64_t tbeElementBytes(embrtDtype dtype) {
  return dtype == EMBRT_F32 ? 4 : 2;
}

/// Saturating a * b for non-negative values.
static inline int64_t tbeMulSat(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0)
    return 0;
  return a > INT64_MAX / b ? INT64_MAX : a * b;
}

/// Lanes the kernel gives one bag of `maxDim` columns: one 16-byte chunk a
/// lane, a power of two, at most a warp.
static inline int64_t tbeLanesPerBag(embrtDtype dtype, int64_t maxDim) {
  int64_t bytes = tbeMulSat(maxDim, tbeElementBytes(dtype)); // no overflow
  int64_t chunks = bytes / 16 + (bytes % 16 != 0), lanes = 1;
  while (lanes < chunks && lanes < 32)
    lanes *= 2;
  return lanes;
}

/// The selection over what a launch moves: `rowBytes` a row, `lanes` a bag
/// (the lanes one bag's group takes), f32 stages or not, split bags or not
/// (`split`: the kernels of the launch can split them); a pure function of
/// any int64 values (its products saturate).
static inline int64_t tbeSelectConfigFor(int64_t rowBytes, int64_t lanes,
                                         int f32, int split, int64_t avgBagSize,
                                         int64_t numBags) {
  int64_t bytes =
      tbeMulSat(tbeMulSat(numBags, avgBagSize < 1 ? 1 : avgBagSize), rowBytes);
  if (bytes < kTbeSmallLaunchBytes) {
    if (tbeMulSat(numBags, lanes) <= kTbeOneWaveThreads) {
      const size_t n = sizeof(kTbeBySplits) / sizeof(kTbeBySplits[0]);
      for (size_t i = 0; split && avgBagSize >= kTbeSplitMinBagSize && i < n;
           ++i)
        if (tbeMulSat(kTbeBySplits[i].splits, lanes) <= 32 &&
            tbeMulSat(tbeMulSat(numBags, lanes), kTbeBySplits[i].splits) <=
                kTbeSplitMaxThreads)
          return kTbeBySplits[i].config;
      return TBE_CONFIG_SMALL_BAGS1;
    }
    if (tbeMulSat(numBags / 2 + numBags % 2, lanes) <= kTbeOneWaveThreads)
      return TBE_CONFIG_SMALL_BAGS2;
    return TBE_CONFIG_SMALL;
  }
  const size_t n = sizeof(kTbeByBags) / sizeof(kTbeByBags[0]);
  for (size_t i = 0; i + 1 < n; ++i)
    if (tbeMulSat(numBags / kTbeByBags[i].bagsPerGroup, lanes) >=
        kTbeMinThreads)
      return f32 ? kTbeByBags[i].configF32 : kTbeByBags[i].config;
  return f32 ? kTbeByBags[n - 1].configF32 : kTbeByBags[n - 1].config;
}

/// The configuration the runtime picks for `shape` (dense rows of
/// `maxDim` elements of `tableDtype`): a pure function of any int64 values
/// (its products saturate).
static inline int64_t tbeSelectConfig(const TbeShape *shape) {
  return tbeSelectConfigFor(
      tbeMulSat(shape->maxDim, tbeElementBytes(shape->tableDtype)),
      tbeLanesPerBag(shape->tableDtype, shape->maxDim),
      shape->tableDtype == EMBRT_F32, 1, shape->avgBagSize, shape->numBags);
}

/// The configuration for a launch of packed (quantized) rows of
/// `rowBytes` bytes as stored, split into `chunks` lane chunks: the same
/// rule over the bytes the rows hold and the lanes a bag takes (groups of
/// min(chunks, 32) lanes, 32 / (32 / that) of a warp each), not over the
/// rows the tables would have unpacked (an int4 row of D 128 is 80 bytes
/// and 5 lanes, not 256 bytes and 16). Stage rows are the packed kernels'
/// own (the row's rowsPerStage is not read).
static inline int64_t tbeSelectPackedConfig(int64_t rowBytes, int64_t chunks,
                                            int64_t avgBagSize,
                                            int64_t numBags) {
  int64_t lanes = chunks < 1 ? 1 : chunks > 32 ? 32 : chunks;
  return tbeSelectConfigFor(rowBytes, 32 / (32 / lanes), 0, 0, avgBagSize,
                            numBags);
}

/// `requested` (an id chosen ahead of time, by the compiler or the caller)
/// when it names a row, else the selection: every row runs every shape.
static inline int64_t tbeResolveConfig(const TbeShape *shape,
                                       int64_t requested) {
  if (requested >= 0 && requested < TBE_NUM_CONFIGS)
    return requested;
  return tbeSelectConfig(shape);
}

#endif // EMB_KERNELS_TBE_CONFIG_H
