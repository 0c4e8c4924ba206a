//===- kernels/attention_config.cuh - Attention launch table ------*- C -*-===//
//
// The launch configurations of emb.attention and emb.ikbo_attention as data,
// and the pure function that picks one. Plain C so that a CPU test can include
// it; kernels/attention.cu and kernels/attention_sm90a.cu instantiate one
// kernel per row.
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

#ifndef EMB_KERNELS_ATTENTION_CONFIG_CUH
#define EMB_KERNELS_ATTENTION_CONFIG_CUH

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
typedef struct attentionConfig {
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
} attentionConfig;

static const attentionConfig attentionConfigs[] = {
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
  ((int)(sizeof(attentionConfigs) / sizeof(attentionConfigs[0])))

/// The smallest blockM of the table: workspace is sized for it, so that any
/// row fits the same workspace.
#define ATTENTION_MIN_BLOCK_M 16

/// Whether row `id` can run a problem of this dtype and head dim on a device
/// of major compute capability `ccMajor`.
static inline int attentionConfigApplies(int id, int ccMajor, embrtDtype dtype,
                                         int64_t headDim, int aligned16) {
  if (id < 0 || id >= ATTENTION_NUM_CONFIGS)
    return 0;
  const attentionConfig *c = &attentionConfigs[id];
  if (ccMajor < c->minCc || ccMajor > c->maxCc)
    return 0;
  if ((unsigned)dtype >= 32u || !(c->dtypeMask & (1u << (unsigned)dtype)))
    return 0;
  if (c->headDim ? headDim != c->headDim
                 : headDim < 1 || headDim > c->maxHeadDim)
    return 0;
  return !c->needsAlign16 || aligned16;
}

/// The configuration to launch: `requested` (a configId chosen ahead of time)
/// when it applies, else the first applicable row, else -1 (unsupported).
static inline int attentionSelectConfig(int64_t requested, int ccMajor,
                                        embrtDtype dtype, int64_t headDim,
                                        int aligned16, int64_t lk) {
  if (requested >= 0 && requested < ATTENTION_NUM_CONFIGS &&
      attentionConfigApplies((int)requested, ccMajor, dtype, headDim,
                             aligned16))
    return (int)requested;
  for (int id = 0; id < ATTENTION_NUM_CONFIGS; ++id)
    if (attentionConfigApplies(id, ccMajor, dtype, headDim, aligned16) &&
        (!attentionConfigs[id].maxKeys || lk <= attentionConfigs[id].maxKeys))
      return id;
  return -1;
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

#endif // EMB_KERNELS_ATTENTION_CONFIG_CUH
