//===- kernels/tbe_backward_config.h - TBE backward routing -------*- C -*-===//
//
// The launch data of the CUDA TBE backward (kernels/tbe_backward.cu) and the
// pure functions that choose from it. Plain C, as every family's
// kernels/<family>_config.h (a TbeBwdShape in, the id of a TbeBwdConfig row
// out: tbeBwdSelectConfig, tbeBwdResolveConfig; the row by id:
// tbeBwdGetConfig), so that CPU tests pin them down
// (test/Kernels/tbe_backward_config.c):
//
//   - the routing table (kTbeBwdConfigs): from which segment length a run of
//     one (table, row) is long (split into chunks whose partial sums land in
//     the workspace) rather than short (owned whole by one group of lanes),
//     and the chunk length. The seed's measurement (threshold 256, chunks of
//     256) routes large launches, seg64 (64, chunks of 64) small ones
//     (tbeBwdSelectConfig); two rows force every run short or every run
//     long, so that tests can compare both routings on the same data.
//   - the gather width of a table (tbeBwdSelectBucket): how many lanes own a
//     row and how many columns each lane holds, from D, the gradient's
//     element size and the widest aligned vector the table's arrays allow.
//     Runs are launched per bucket of equal width, so narrow tables waste no
//     lanes and each lane keeps at most 16 bytes of a row per gathered
//     position (32 for f32 rows wider than 1024), which bounds the registers
//     that the loads in flight hold (the seed's register cliff).
//
// The runtime's CPU backend and checks (runtime/tbe_backward.c) read the
// table to validate embrtTbeBackwardArgs::configId.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_BACKWARD_CONFIG_H
#define EMB_KERNELS_TBE_BACKWARD_CONFIG_H

#include "emb/runtime.h"

#include <stdint.h>

//===----------------------------------------------------------------------===//
// Routing
//===----------------------------------------------------------------------===//

/// One routing of runs by segment length.
typedef struct TbeBwdConfig {
  const char *name;
  /// Runs of at least this many positions are long.
  int64_t threshold;
  /// Positions of a chunk of a long run: a run of n positions is split into
  /// max(1, n / chunk) chunks, the last one taking the remainder.
  int64_t chunk;
  /// 64: sort 64-bit keys even where the rows fit 32 bits (a test row: the
  /// 64-bit path otherwise needs 2^32 rows); 0: the narrowest that fits.
  int keyBits;
} TbeBwdConfig;

/// Ids are stable (compiled models store them): new rows go at the end.
// clang-format off
static const TbeBwdConfig kTbeBwdConfigs[] = {
    // name            threshold  chunk  keyBits
    {"seg256",         256,       256,   0},
    {"all_short",      INT32_MAX, 256,   0},
    {"all_long",       1,         32,    0},
    {"seg64",          64,        64,    0},
    {"seg1024",        1024,      512,   0},
    {"seg256_key64",   256,       256,   64},
};
// clang-format on

enum {
  TBE_BWD_NUM_CONFIGS =
      (int)(sizeof(kTbeBwdConfigs) / sizeof(kTbeBwdConfigs[0])),
  /// The seed's routing, the default from EMB_TBE_BWD_SMALL_LAUNCH ids on.
  TBE_BWD_CONFIG_DEFAULT = 0,
  /// Every run short: one group gathers all of a run, however long.
  TBE_BWD_CONFIG_ALL_SHORT = 1,
  /// Every run long: even a run of one position goes through a partial sum
  /// and the last-chunk update.
  TBE_BWD_CONFIG_ALL_LONG = 2,
  /// Runs of 64 or more long, in chunks of 64: the default below
  /// EMB_TBE_BWD_SMALL_LAUNCH ids.
  TBE_BWD_CONFIG_SEG64 = 3,
  /// The default routing with 64-bit keys.
  TBE_BWD_CONFIG_KEY64 = 5,
};

/// The configuration `configId`, or NULL when out of range.
static inline const TbeBwdConfig *tbeBwdGetConfig(int64_t configId) {
  if (configId < 0 || configId >= TBE_BWD_NUM_CONFIGS)
    return 0;
  return &kTbeBwdConfigs[configId];
}

/// What the routing may depend on: the launch's positions and bags.
typedef struct TbeBwdShape {
  int64_t numIndices;
  int64_t numBags;
} TbeBwdShape;

/// Launches of fewer ids than this route as seg64, larger ones as the
/// default (seg256). With few ids a step with hot rows waits on its longest
/// chain: a run of 64-255 positions gathered by one group, or a long run's
/// 256-position chunks; chunks of 64 spread those over four times the
/// groups. With many ids every group has work, and seg64's extra partial
/// sums (every run of 64 or more positions goes through them) cost more than
/// the shorter chain saves. Measured on the sweep's steps (H100,
/// docs/kernels/tbe_sweep.md, "Routing"): below 2^20 ids, emb's step 1.21x
/// faster (geometric mean of 96 configurations; up to 2.5x on Zipf ids, 8
/// of them 6-19% slower: uniform ids in small tables, many runs of 64-255
/// positions); from 2^20 to 3 * 2^20 ids a mix, up to 1.75x slower on Zipf
/// ids where most positions are in long runs.
#ifndef EMB_TBE_BWD_SMALL_LAUNCH
#define EMB_TBE_BWD_SMALL_LAUNCH 1048576 // 2^20
#endif

/// The configuration the runtime picks for `shape`: seg64 for launches of
/// fewer than EMB_TBE_BWD_SMALL_LAUNCH ids, the seed's routing from there on
/// (no other row measured faster there, bench/tbe_train/NOTES.md).
static inline int64_t tbeBwdSelectConfig(const TbeBwdShape *shape) {
  if (shape->numIndices < (int64_t)(EMB_TBE_BWD_SMALL_LAUNCH))
    return TBE_BWD_CONFIG_SEG64;
  return TBE_BWD_CONFIG_DEFAULT;
}

/// `requested` (a configId chosen ahead of time) when it names a row, else
/// the selection: every row runs every shape.
static inline int64_t tbeBwdResolveConfig(const TbeBwdShape *shape,
                                          int64_t requested) {
  if (requested >= 0 && requested < TBE_BWD_NUM_CONFIGS)
    return requested;
  return tbeBwdSelectConfig(shape);
}

/// The fewest positions any chunk of `cfg` holds: chunks start at least this
/// far apart, so chunk start / tbeBwdChunkSpacing is a unique partial-sum
/// slot, and a launch has at most N / spacing chunks.
static inline int64_t tbeBwdChunkSpacing(const TbeBwdConfig *cfg) {
  return cfg->threshold < cfg->chunk ? cfg->threshold : cfg->chunk;
}

//===----------------------------------------------------------------------===//
// Gather width per D bucket
//===----------------------------------------------------------------------===//

/// How one table's rows are gathered and updated: `lanes` consecutive lanes
/// (a power of two, at most 256: up to 8 warps, a CTA's threads) own a row,
/// lane l holding columns [l * elems, l * elems + elems). `vector`: each
/// lane's columns are loaded as vectors (in pieces of at most 16 bytes);
/// otherwise one element at a time, for tables whose arrays are not aligned
/// for a vector wide enough.
typedef struct TbeBwdBucket {
  int lanes;
  int elems;
  int vector;
} TbeBwdBucket;

/// Lanes per row a launch may use: the threads of one CTA.
enum { TBE_BWD_MAX_LANES = 256 };

static inline int tbeBwdPow2Ceil(int64_t x) {
  int p = 1;
  while (p < x)
    p *= 2;
  return p;
}

/// The widest columns a lane holds for a gradient of `gradBytes`-byte
/// elements and rows of `dim`: 16 bytes (4 f32, 8 f16/bf16), or 8 f32 for
/// rows wider than 1024 so that 256 lanes cover 2048.
static inline int tbeBwdMaxElems(int gradBytes, int64_t dim) {
  return gradBytes == 4 ? (dim > 1024 ? 8 : 4) : 8;
}

/// The bucket of a table of `dim` columns whose gradient elements are
/// `gradBytes` wide, where `alignedElems` (a power of two) is the widest
/// per-lane vector of columns that every array of the table allows (its
/// gradient rows, table rows and optimizer state rows are aligned for it and
/// it divides `dim`). Vectors as wide as the maximum, or any aligned vector
/// whose lanes fit one warp; otherwise 8 columns a lane loaded one at a time
/// (a misaligned wide row would need more than a warp of lanes).
static inline TbeBwdBucket tbeBwdSelectBucket(int gradBytes, int64_t dim,
                                              int alignedElems) {
  TbeBwdBucket b;
  int cap = tbeBwdMaxElems(gradBytes, dim);
  int v = alignedElems < cap ? alignedElems : cap;
  if (v < 1)
    v = 1;
  int64_t lanes = (dim + v - 1) / v;
  if (v == cap || lanes <= 32) {
    b.lanes = tbeBwdPow2Ceil(lanes);
    b.elems = v;
    b.vector = 1;
  } else {
    b.lanes = tbeBwdPow2Ceil((dim + 7) / 8);
    b.elems = 8;
    b.vector = 0;
  }
  return b;
}

#endif // EMB_KERNELS_TBE_BACKWARD_CONFIG_H
