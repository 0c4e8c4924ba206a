//===- kernels/attention_common.cuh - Attention device building blocks ----===//
//
// Types and device helpers shared by the attention kernels of
// kernels/attention.cu (plan, mma.sync and SIMT paths) and
// kernels/attention_sm90a.cu (the Hopper path).
//
// The work unit of every path is a query tile: up to blockM consecutive query
// rows of one group, for one head. A group is the set of candidates that read
// the same keys and values: one user for emb.ikbo_attention (its candidates,
// in candidate order, give C*Lq query rows: row r is query position r % Lq of
// the group's (r / Lq)-th candidate), one candidate for emb.attention. Tiles
// never straddle groups, so a tile reads one user's K/V.
//
// For ikbo the plan kernel (kernels/attention.cu) groups the candidates on the
// device: perm lists the candidates group by group, groupStart[g] is the first
// of group g in perm, and tiles[i] = {g, first row} lists the tiles; the
// number of tiles is in *numTiles. Candidates whose cand_to_user is out of
// range form an extra group U with no keys: their rows are written as zeros.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_ATTENTION_COMMON_CUH
#define EMB_KERNELS_ATTENTION_COMMON_CUH

#include "emb/runtime.h"
#include "kernels/attention_config.h"
#include "kernels/common/convert.cuh"
#include "kernels/common/device_errors.cuh"
#include "kernels/common/index_load.cuh"
#include "kernels/common/sm80_copy.cuh"
#include "kernels/launch.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

/// Everything a main attention kernel reads, passed by value.
struct AttentionParams {
  const void *q;       ///< [B, Lq, H, Dh]
  const void *k;       ///< [G, Lk, H, Dh], G = U (ikbo) or B (plain)
  const void *v;       ///< same as k
  void *out;           ///< [B, Lq, H, Dh]
  const void *lengths; ///< [G] or NULL
  int lengthsI64;      ///< lengths are int64 (else int32)
  int batch;           ///< B
  int numGroups;       ///< U for ikbo, B for plain (group U is the bad group)
  int lq, lk, heads, headDim;
  float scaleLog2; ///< scale * log2(e)
  int negScale;    ///< scale < 0: scores are negated before the softmax
  // Schedule. plain: tile i is group i / tilesPerGroup, rows from
  // (i % tilesPerGroup) * blockM; no perm.
  int plain;
  int tilesPerGroup;
  const int2 *tiles;      ///< ikbo: [numTiles] {group, first row}
  const int *perm;        ///< ikbo: [B] candidates grouped by user
  const int *groupStart;  ///< ikbo: [U + 2]
  const int *numTilesDev; ///< ikbo: the tile count written by the plan
  const int *sortedDev;   ///< ikbo: nonzero when perm is the identity
  int numTilesHost;       ///< plain: the tile count
  embrtDeviceErrors *errors;
};

/// Where one tile's rows come from.
struct AttentionTile {
  int group;    ///< user (ikbo) or candidate (plain); numGroups: bad group
  int rowStart; ///< first row of the tile within the group
  int rows;     ///< rows of the whole group (C * Lq)
  int first;    ///< ikbo: the group's first position in perm
  int keys;     ///< keys to attend to (0: the rows are zeros)
};

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

/// Records the first device-side data error (the atomicCAS winner): index
/// is the candidate (bad cand_to_user) or the user (bad length).
__device__ __forceinline__ void attentionRecordError(embrtDeviceErrors *errors,
                                                     int code, long long index,
                                                     long long value,
                                                     long long limit) {
  if (errors)
    embrtDeviceRecordError(errors, code, -1, -1, index, value, limit);
}

/// Whether every tile's rows are consecutive rows of the [B * Lq, H * Dh]
/// query and output matrices (plain attention, or ikbo with sorted
/// cand_to_user).
__device__ __forceinline__ bool attentionContiguous(const AttentionParams &p) {
  return p.plain || *p.sortedDev;
}

/// The number of tiles of this launch (read on the device for ikbo).
__device__ __forceinline__ int attentionNumTiles(const AttentionParams &p) {
  return p.plain ? p.numTilesHost : *p.numTilesDev;
}

/// Decodes tile `tile` (without the head) for a kernel of `blockM` rows.
/// Checks the group's length (a bad length is recorded and gives no keys).
/// Only a group with candidates has tiles, so only the lengths some
/// candidate reads are checked, as emb.ikbo_attention's rule says: the
/// length of a user no candidate maps to is never read.
__device__ __forceinline__ AttentionTile
attentionDecodeTile(const AttentionParams &p, int tile, int blockM) {
  AttentionTile t;
  if (p.plain) {
    t.group = tile / p.tilesPerGroup;
    t.rowStart = (tile - t.group * p.tilesPerGroup) * blockM;
    t.rows = p.lq;
    t.first = t.group;
  } else {
    int2 e = p.tiles[tile];
    t.group = e.x;
    t.rowStart = e.y;
    t.first = p.groupStart[e.x];
    t.rows = (p.groupStart[e.x + 1] - t.first) * p.lq;
  }
  t.keys = p.lk;
  if (t.group >= p.numGroups) {
    t.keys = 0;
  } else if (p.lengths) {
    long long n = embrt::loadIndex<embrt::IndexLoad::Plain>(
        p.lengths, p.lengthsI64, t.group);
    if (n < 0 || n > p.lk) {
      attentionRecordError(p.errors, EMBRT_DEVERR_BAD_USER_LENGTH, t.group, n,
                           p.lk);
      n = 0;
    }
    t.keys = (int)n;
  }
  return t;
}

/// Element offset of row `r` of the tile's group (query or output), head h.
__device__ __forceinline__ long long
attentionRowOffset(const AttentionParams &p, const AttentionTile &t, int r,
                   int h) {
  int cand, pos;
  if (p.plain) {
    cand = t.group;
    pos = r;
  } else {
    int c = r / p.lq;
    cand = p.perm[t.first + c];
    pos = r - c * p.lq;
  }
  return (((long long)cand * p.lq + pos) * p.heads + h) * p.headDim;
}

/// Element offset of key `j` of group g, head h, in k or v.
__device__ __forceinline__ long long
attentionKeyOffset(const AttentionParams &p, int g, int j, int h) {
  return (((long long)g * p.lk + j) * p.heads + h) * p.headDim;
}

/// The maximum and the sum of x over the warp, in every lane.
__device__ __forceinline__ float warpMax(float x) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, d));
  return x;
}

__device__ __forceinline__ float warpSum(float x) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    x += __shfl_xor_sync(0xffffffffu, x, d);
  return x;
}

/// Byte offset of 16-byte chunk `chunk` of row `row` in a tile whose rows are
/// `rowBytes` long, with the chunk index XORed by the row's low three bits
/// (conflict-free for ldmatrix and for row-per-lane 16-byte accesses).
__device__ __forceinline__ uint32_t attentionSwizzle(int row, int chunk,
                                                     int rowBytes) {
  return (uint32_t)(row * rowBytes + ((chunk ^ (row & 7)) << 4));
}

//===----------------------------------------------------------------------===//
// Host side: the Hopper launcher lives in kernels/attention_sm90a.cu
//===----------------------------------------------------------------------===//

/// Launches the WGMMA path (config row `configId`) on env->stream;
/// `grid` CTAs loop over the tiles. Defined in kernels/attention_sm90a.cu.
embrtStatus attentionLaunchSm90a(embrtLaunchEnv *env,
                                 const embrtAttentionArgs *args,
                                 const AttentionParams &params, int configId,
                                 int maxTiles);

/// The workspace bytes of the additive mask (embrtAttentionArgs::
/// additiveMask): a float per (user, head). Defined in
/// kernels/attention_additive_mask.cu.
size_t attentionAdditiveMaskBytes(const embrtAttentionArgs *args);

/// After the main kernels on env->stream: the rows whose masked keys or
/// queries are not finite, or whose scores may leave the data type's range,
/// in PyTorch's math form. `maskedMax` is attentionAdditiveMaskBytes of
/// workspace.
embrtStatus attentionLaunchAdditiveMask(embrtLaunchEnv *env,
                                        const embrtAttentionArgs *args,
                                        void *maskedMax);

#endif // EMB_KERNELS_ATTENTION_COMMON_CUH
