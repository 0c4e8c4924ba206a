//===- kernels/attention_config.h - Attention launch table --------*- C -*-===//
//
// The launch configurations of emb.attention and emb.ikbo_attention as data,
// and the pure function that picks one for a shape. Plain C, as every
// family's kernels/<family>_config.h: an AttentionShape in, the id of an
// AttentionConfig row out (attentionSelectConfig, attentionResolveConfig),
// the row by id (attentionGetConfig); test/Kernels/attention_config.c pins
// the choice down on the CPU. kernels/attention.cu and
// kernels/attention_sm90a.cu instantiate one kernel per row.
//
// Paths, fastest first:
//   WGMMA  sm_90a only: warp-specialised flash attention (TMA for Q/K/V/O,
//          wgmma for both products), f16/bf16, head dim 64 or 128. Rows
//          differ in the keys a block (128 or 160), whether the two consumer
//          warpgroups take turns (pingpong) and whether a tile's first K
//          block is loaded before its Q (kvfirst); the first row of each head
//          dim that applies to the keys (maxKeys) is the fastest measured on
//          an H200 (bench/attention/NOTES.md).
//   MMA    sm_80 and later: flash attention on mma.sync m16n8k16, f16/bf16,
//          head dim 64 or 128.
//   SIMT   any GPU, any float dtype, head dim up to 256: f32 FMA arithmetic
//          (the exact path for f32 data).
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_ATTENTION_CONFIG_H
#define EMB_KERNELS_ATTENTION_CONFIG_H

#include "emb/runtime.h"

#include <stdint.h>

typedef enum attentionPath {
  ATTENTION_PATH_WGMMA = 0,
  ATTENTION_PATH_MMA = 1,
  ATTENTION_PATH_SIMT = 2,
} attentionPath;

#define ATTENTION_HALVES ((1u << EMBRT_F16) | (1u << EMBRT_BF16))
#define ATTENTION_FLOATS (ATTENTION_HALVES | (1u << EMBRT_F32))

/// One launch configuration. A row applies when the device's major compute
/// capability is in [minCc, maxCc], the dtype is in dtypeMask, the head dim
/// equals headDim (or is at most maxHeadDim when headDim is 0), and, for rows
/// with needsAlign16, every tensor base is 16-byte aligned.
typedef struct AttentionConfig {
  const char *name;
  attentionPath path;
  int minCc, maxCc;
  unsigned dtypeMask;
  int headDim;    ///< the head dim the kernel is built for; 0: any
  int maxHeadDim; ///< with headDim 0: the largest supported
  int needsAlign16;
  int pingpong; ///< WGMMA: the two consumer warpgroups alternate their GEMMs
  int kvFirst;  ///< WGMMA: a tile's first K block is loaded before its Q
  int blockM;   ///< query rows of one tile (one CTA's work unit)
  int blockN;   ///< keys per main-loop step
  int threads;  ///< threads per CTA
  int maxKeys;  ///< the automatic choice takes the row only for Lk <= maxKeys
                ///< (0: any Lk); a requested row ignores it
} AttentionConfig;

/// What the choice depends on: the device's major compute capability, the
/// dtype, the head dim, whether every tensor base is 16-byte aligned, and
/// the keys (Lk).
typedef struct AttentionShape {
  int ccMajor;
  embrtDtype dtype;
  int64_t headDim;
  int aligned16;
  int64_t lk;
} AttentionShape;

/// Ids are stable (a configId may name a row): new rows go at the end.
static const AttentionConfig kAttentionConfigs[] = {
    // name, path, minCc, maxCc, dtypes, headDim, maxHeadDim, needsAlign16,
    // pingpong, kvFirst, blockM, blockN, threads, maxKeys
    // kvfirst up to Lk 4096, pingpong alone past it: timed as the peers
    // time (sustained, do_bench's method), kvfirst is 1-8 % faster up to
    // Lk 2048 and pingpong 1-3 % faster from 8192 on an H200, at 4096 the
    // two trade places from call to call (bench/attention/NOTES.md, v15).
    {"wgmma_d128_pp_kvfirst", ATTENTION_PATH_WGMMA, 9, 9, ATTENTION_HALVES, 128,
     128, 1, 1, 1, 128, 128, 384, 4096},
    {"wgmma_d128_pp", ATTENTION_PATH_WGMMA, 9, 9, ATTENTION_HALVES, 128, 128, 1,
     1, 0, 128, 128, 384, 0},
    {"wgmma_d64_pp", ATTENTION_PATH_WGMMA, 9, 9, ATTENTION_HALVES, 64, 64, 1, 1,
     0, 128, 128, 384, 0},
    {"wgmma_d128_n160_pp", ATTENTION_PATH_WGMMA, 9, 9, ATTENTION_HALVES, 128,
     128, 1, 1, 0, 128, 160, 384, 0},
    {"wgmma_d128", ATTENTION_PATH_WGMMA, 9, 9, ATTENTION_HALVES, 128, 128, 1, 0,
     0, 128, 128, 384, 0},
    {"wgmma_d64", ATTENTION_PATH_WGMMA, 9, 9, ATTENTION_HALVES, 64, 64, 1, 0, 0,
     128, 128, 384, 0},
    {"mma_d128", ATTENTION_PATH_MMA, 8, 1000, ATTENTION_HALVES, 128, 128, 1, 0,
     0, 64, 64, 128, 0},
    {"mma_d64", ATTENTION_PATH_MMA, 8, 1000, ATTENTION_HALVES, 64, 64, 1, 0, 0,
     64, 64, 128, 0},
    {"simt", ATTENTION_PATH_SIMT, 0, 1000, ATTENTION_FLOATS, 0, 256, 0, 0, 0,
     16, 32, 128, 0},
};

#define ATTENTION_NUM_CONFIGS                                                  \
  ((int)(sizeof(kAttentionConfigs) / sizeof(kAttentionConfigs[0])))

/// The smallest blockM of the table: workspace is sized for it, so that any
/// row fits the same workspace.
#define ATTENTION_MIN_BLOCK_M 16

/// The configuration `configId`, or NULL when out of range.
static inline const AttentionConfig *attentionGetConfig(int64_t configId) {
  if (configId < 0 || configId >= ATTENTION_NUM_CONFIGS)
    return 0;
  return &kAttentionConfigs[configId];
}

/// Whether row `c` can run shape `s` (its keys aside: see maxKeys).
static inline int attentionConfigApplies(const AttentionConfig *c,
                                         const AttentionShape *s) {
  if (s->ccMajor < c->minCc || s->ccMajor > c->maxCc)
    return 0;
  if ((unsigned)s->dtype >= 32u || !(c->dtypeMask & (1u << (unsigned)s->dtype)))
    return 0;
  if (c->headDim ? s->headDim != c->headDim
                 : s->headDim < 1 || s->headDim > c->maxHeadDim)
    return 0;
  return !c->needsAlign16 || s->aligned16;
}

/// The configuration the runtime picks for `s`: the first row that applies
/// and whose maxKeys admits s->lk, else -1 (unsupported).
static inline int64_t attentionSelectConfig(const AttentionShape *s) {
  for (int id = 0; id < ATTENTION_NUM_CONFIGS; ++id)
    if (attentionConfigApplies(&kAttentionConfigs[id], s) &&
        (!kAttentionConfigs[id].maxKeys ||
         s->lk <= kAttentionConfigs[id].maxKeys))
      return id;
  return -1;
}

/// `requested` (a configId chosen ahead of time) when it names a row that
/// can run `s`, whatever its maxKeys, else the selection.
static inline int64_t attentionResolveConfig(const AttentionShape *s,
                                             int64_t requested) {
  const AttentionConfig *c = attentionGetConfig(requested);
  if (c && attentionConfigApplies(c, s))
    return requested;
  return attentionSelectConfig(s);
}

static inline int64_t attentionMaxTiles(int64_t batch, int64_t groups,
                                        int64_t lq, int64_t blockM) {
  if (batch <= 0 || lq <= 0)
    return 0;
  int64_t nonEmpty = groups < batch ? groups : batch;
  int64_t a = (batch * lq + blockM - 1) / blockM + nonEmpty;
  int64_t b = batch * ((lq + blockM - 1) / blockM);
  return a < b ? a : b;
}

#endif // EMB_KERNELS_ATTENTION_CONFIG_H
