//===- kernels/ikbo_lce_config.h - IKBO LCE launch configurations -*- C -*-===//
//
// The launch-configuration table of emb.ikbo_lce, the pure function that picks
// a row for a problem, and the workspace layout. Plain C, as every family's
// kernels/<family>_config.h: an IkboLceShape in, the id of an IkboLceConfig
// row out (ikboLceSelectConfig, ikboLceResolveConfig), the row by id
// (ikboLceGetConfig); the CPU test (test/Kernels/ikbo_lce_config.c) checks
// the selection without a GPU, and the CUDA files include it too.
//
// Two paths:
//   - sm90a: Hopper (compute capability 9.0 exactly). The transposed product
//     out[b]^T[n, m] = cand[b]^T[n, k] wCand^T[k, m] runs on wgmma with the
//     candidate columns n as the wgmma M side (64 a consumer warpgroup, 128 a
//     CTA) and the W rows m as the wgmma N side (`mTile`, any multiple of 8 up
//     to 256, so M = 433 wastes 3% on two tiles of 224 instead of 18% on four
//     of 128). Tiles arrive by TMA; clusters of clusterN x clusterM CTAs
//     multicast the W tile they share (along n) and the cand tile they share
//     (along m). The user result is kept in the dtype unless userF32.
//   - small K: compute capability 8.0 and up, f16/bf16, Kc + Ku at most 128,
//     M at most 128, N a multiple of 8. The products are a few mma.sync steps
//     a candidate and the op is bound by reading the candidates and writing
//     the output, where the sm90a tiles spend their time in pipeline set-up
//     (the ranking model's LCE, Kc = 34 or 40, Ku = 32, M = 64). Both products
//     of a candidate run in one pass over [cand; user] rows, in one launch
//     and without a workspace. A warp keeps 16 W rows (for 64
//     columns) in registers; candidates stream through double-buffered shared
//     memory (kernels/ikbo_lce.cu).
//   - cuBLAS: f32 data (the exact path), any GPU, when the launch
//     environment has a cuBLAS handle: the user product and the candidate
//     product as strided-batched SGEMMs (W read through its row stride, the
//     candidate pieces in place), the gathered user result as the candidate
//     product's C (beta 1).
//   - portable: any GPU, any dtype, any alignment; a shared-memory tiled f32
//     FMA kernel. Slow but simple: the f32 path without a cuBLAS handle.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_IKBO_LCE_CONFIG_H
#define EMB_KERNELS_IKBO_LCE_CONFIG_H

#include "emb/runtime.h"
#include "kernels/launch.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Which kernel family a configuration runs.
enum {
  IKBO_LCE_PATH_PORTABLE = 0,
  IKBO_LCE_PATH_SM90A = 1,
  IKBO_LCE_PATH_SMALLK = 2,
  IKBO_LCE_PATH_CUBLAS = 3,
};

/// The cuBLAS workspace of the cuBLAS path: 32 MiB, the cuBLAS
/// documentation's recommendation on Hopper (and more than enough before).
#define IKBO_LCE_BLAS_WORKSPACE_BYTES ((size_t)32 << 20)

/// The limits of the small-K path (kernels/ikbo_lce.cu): Kc + Ku, M.
enum {
  IKBO_LCE_SMALLK_MAX_K = 128,
  IKBO_LCE_SMALLK_MAX_M = 128,
};

/// One launch configuration (a row of kIkboLceConfigs).
typedef struct IkboLceConfig {
  const char *name;
  int path;     ///< IKBO_LCE_PATH_*
  int mTile;    ///< W rows per tile (the wgmma N extent on sm90a)
  int nTile;    ///< candidate columns per CTA
  int stages;   ///< shared-memory pipeline depth (sm90a)
  int userF32;  ///< sm90a: user result kept in f32 (else in the dtype)
  int clusterN; ///< CTAs of a cluster along n, sharing (multicasting) W
  int clusterM; ///< CTAs of a cluster along m, sharing (multicasting) cand
  int pdl;      ///< candidate launch overlaps the user launch's tail (PDL)
} IkboLceConfig;

/// The configurations, ids stable (a configId may name a row): new rows go at
/// the end. sm90a shared memory: stages * (16 KB of cand + mTile
/// * 128 B of W) plus the output staging buffer 2 * mTile * 128 B, at most
/// the 227 KB a block may opt into.
static const IkboLceConfig kIkboLceConfigs[] = {
    /* name                 path                    mT   nT  st f32 cN cM pdl */
    {"portable_64x64", IKBO_LCE_PATH_PORTABLE, 64, 64, 1, 1, 1, 1, 0},
    {"sm90a_m64_c1", IKBO_LCE_PATH_SM90A, 64, 128, 8, 0, 1, 1, 1},
    {"sm90a_m64_c2", IKBO_LCE_PATH_SM90A, 64, 128, 8, 0, 2, 1, 1},
    {"sm90a_m128_c1", IKBO_LCE_PATH_SM90A, 128, 128, 6, 0, 1, 1, 1},
    {"sm90a_m128_c2", IKBO_LCE_PATH_SM90A, 128, 128, 6, 0, 2, 1, 1},
    {"sm90a_m192_c1", IKBO_LCE_PATH_SM90A, 192, 128, 4, 0, 1, 1, 1},
    {"sm90a_m192_c2", IKBO_LCE_PATH_SM90A, 192, 128, 4, 0, 2, 1, 1},
    {"sm90a_m224_c1", IKBO_LCE_PATH_SM90A, 224, 128, 3, 0, 1, 1, 1},
    {"sm90a_m224_c2", IKBO_LCE_PATH_SM90A, 224, 128, 3, 0, 2, 1, 1},
    {"sm90a_m224_c4", IKBO_LCE_PATH_SM90A, 224, 128, 3, 0, 2, 2, 1},
    {"sm90a_m224_c4_nopdl", IKBO_LCE_PATH_SM90A, 224, 128, 3, 0, 2, 2, 0},
    {"sm90a_m224_f32_c2", IKBO_LCE_PATH_SM90A, 224, 128, 3, 1, 2, 1, 1},
    {"sm90a_m224_f32_c4", IKBO_LCE_PATH_SM90A, 224, 128, 3, 1, 2, 2, 1},
    {"sm90a_m256_c1", IKBO_LCE_PATH_SM90A, 256, 128, 3, 0, 1, 1, 1},
    {"sm90a_m256_c2", IKBO_LCE_PATH_SM90A, 256, 128, 3, 0, 2, 1, 1},
    {"sm90a_m256_c4", IKBO_LCE_PATH_SM90A, 256, 128, 3, 0, 2, 2, 1},
    {"smallk_mma", IKBO_LCE_PATH_SMALLK, 128, 128, 2, 1, 1, 1, 0},
    {"cublas_f32", IKBO_LCE_PATH_CUBLAS, 0, 0, 0, 1, 1, 1, 0},
};

enum {
  IKBO_LCE_NUM_CONFIGS =
      (int)(sizeof(kIkboLceConfigs) / sizeof(kIkboLceConfigs[0])),
  IKBO_LCE_CONFIG_PORTABLE = 0,
};

/// The wgmma N extents the sm90a kernels are built for, ascending.
static const int kIkboLceSm90aTileM[] = {64, 128, 192, 224, 256};

/// What the selection depends on.
typedef struct IkboLceShape {
  int ccMajor, ccMinor;
  int64_t maxSharedPerBlock; ///< opt-in shared memory per block, bytes
  embrtDtype dtype;
  int64_t batch, users, m, n, kUser, kCand;
  int aligned; ///< every tensor and the workspace 16-byte aligned
  int pieces;  ///< the candidates come in pieces (candPieces)
  int blas;    ///< the launch environment has a cuBLAS handle
} IkboLceShape;

/// The configuration `configId`, or NULL when out of range.
static inline const IkboLceConfig *ikboLceGetConfig(int64_t configId) {
  if (configId < 0 || configId >= IKBO_LCE_NUM_CONFIGS)
    return 0;
  return &kIkboLceConfigs[configId];
}

static inline int64_t ikboLceCeilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

static inline int64_t ikboLceRoundUp(int64_t a, int64_t b) {
  return ikboLceCeilDiv(a, b) * b;
}

/// Shared memory of an sm90a configuration, 1 KB alignment slack included:
/// the stages, the staging buffer, the barriers and the dynamic schedule's
/// ring (4 slots: two barriers and an index each).
static inline int64_t ikboLceSm90aSmemBytes(const IkboLceConfig *c) {
  return 1024 + (int64_t)c->stages * (c->nTile * 64 * 2 + c->mTile * 128) +
         2 * (int64_t)c->mTile * 128 + 16 * c->stages + 16 + 4 * 20;
}

/// The wgmma N extent for M rows: as few tiles as 256-row tiles need, each
/// the smallest built extent that covers its share (433 -> 2 x 224).
static inline int ikboLceSm90aTileFor(int64_t m) {
  int64_t tiles = ikboLceCeilDiv(m, 256);
  int64_t share = ikboLceCeilDiv(m, tiles);
  for (size_t i = 0; i < sizeof(kIkboLceSm90aTileM) / sizeof(int); ++i)
    if (share <= kIkboLceSm90aTileM[i])
      return kIkboLceSm90aTileM[i];
  return 256;
}

static inline int ikboLceNameIs(const char *a, const char *b) {
  while (*a && *a == *b)
    ++a, ++b;
  return *a == *b;
}

/// Whether configuration `c` can run `s` (any row can run a shape its path
/// accepts; the workspace layout does not depend on the row).
static inline int ikboLceConfigApplies(const IkboLceConfig *c,
                                       const IkboLceShape *s) {
  if (c->path == IKBO_LCE_PATH_PORTABLE)
    return 1;
  if (c->path == IKBO_LCE_PATH_CUBLAS) // cuBLAS extents and batches are int
    return s->dtype == EMBRT_F32 && s->blas && s->batch <= INT32_MAX &&
           s->users <= INT32_MAX && s->m <= INT32_MAX && s->n <= INT32_MAX &&
           s->kUser <= INT32_MAX && s->kCand <= INT32_MAX;
  if (c->path == IKBO_LCE_PATH_SMALLK)
    return s->ccMajor >= 8 &&
           (s->dtype == EMBRT_F16 || s->dtype == EMBRT_BF16) && s->aligned &&
           s->n % 8 == 0 && s->m <= IKBO_LCE_SMALLK_MAX_M &&
           s->kUser <= IKBO_LCE_SMALLK_MAX_K &&
           s->kCand <= IKBO_LCE_SMALLK_MAX_K - s->kUser;
  if (s->ccMajor != 9 || s->ccMinor != 0)
    return 0;
  if (s->dtype != EMBRT_F16 && s->dtype != EMBRT_BF16)
    return 0;
  if (!s->aligned || s->n % 8 != 0)
    return 0;
  if (ikboLceSm90aSmemBytes(c) > s->maxSharedPerBlock)
    return 0;
  // TMA coordinates are 32-bit.
  if (s->batch > INT32_MAX || s->users > INT32_MAX || s->kUser > INT32_MAX ||
      s->kCand > INT32_MAX || s->m > INT32_MAX || s->n > INT32_MAX)
    return 0;
  if (ikboLceCeilDiv(s->n, c->nTile) % c->clusterN != 0 ||
      ikboLceCeilDiv(s->m, c->mTile) % c->clusterM != 0)
    return 0;
  return 1;
}

/// The order in which the runtime tries sm90a rows for a tile size. Measured
/// on the H200 (bench/ikbo_lce/NOTES.md, run 3): pairs of CTAs multicasting
/// W beat single CTAs (less L2 traffic) and 2 x 2 clusters (only 30 fit, so
/// 12 SMs idle), for every tile size. The f32-user-result and 2 x 2 rows are
/// reachable through configId.
static const char *const kIkboLceSm90aPreference[] = {
    "sm90a_m224_c2", "sm90a_m224_c1", "sm90a_m256_c2", "sm90a_m256_c1",
    "sm90a_m192_c2", "sm90a_m192_c1", "sm90a_m128_c2", "sm90a_m128_c1",
    "sm90a_m64_c2",  "sm90a_m64_c1",
};

/// The configuration the runtime picks for `s`: small K wherever it applies
/// (bound by memory, it reads the candidate pieces in place and needs no
/// workspace); else on Hopper the preferred sm90a row whose tile fits M
/// best; else for f32 the cuBLAS row (9.6 -> 4.6 ms on the benchmark shape,
/// bench/ikbo_lce/NOTES.md); else portable. On the H200 (bench/ikbo_lce, --set
/// ranking, f16, Kc 40) the small-K row runs the ranking model's LCE in 32.8
/// us, the sm90a row in 39.7 (Kc 34: 33.9 and 45.5).
static inline int64_t ikboLceSelectConfig(const IkboLceShape *s) {
  for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i)
    if (kIkboLceConfigs[i].path == IKBO_LCE_PATH_SMALLK &&
        ikboLceConfigApplies(&kIkboLceConfigs[i], s))
      return i;
  int mTile = ikboLceSm90aTileFor(s->m);
  for (size_t p = 0;
       p < sizeof(kIkboLceSm90aPreference) / sizeof(kIkboLceSm90aPreference[0]);
       ++p) {
    for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i) {
      const IkboLceConfig *c = &kIkboLceConfigs[i];
      if (c->path == IKBO_LCE_PATH_SM90A && c->mTile == mTile &&
          ikboLceNameIs(c->name, kIkboLceSm90aPreference[p]) &&
          ikboLceConfigApplies(c, s))
        return i;
    }
  }
  for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i)
    if (kIkboLceConfigs[i].path == IKBO_LCE_PATH_CUBLAS &&
        ikboLceConfigApplies(&kIkboLceConfigs[i], s))
      return i;
  return IKBO_LCE_CONFIG_PORTABLE;
}

/// `configId` when it names a row that can run `s`, else the selection.
static inline int64_t ikboLceResolveConfig(const IkboLceShape *s,
                                           int64_t configId) {
  const IkboLceConfig *c = ikboLceGetConfig(configId);
  if (c && ikboLceConfigApplies(c, s))
    return configId;
  return ikboLceSelectConfig(s);
}

/// Where things live in the caller's workspace. The user result is f32 and
/// transposed, userT[u][n][m] (m contiguous), so that one thread's pair of
/// accumulators (n, m..m+1) is one 8-byte load; it is padded to nPad rows of
/// mPad so that every tile of every configuration stays inside it. W copies
/// with a 16-byte row pitch exist only for a 16-bit dtype whose K or row
/// stride is not a multiple of 8 (TMA needs 16-byte row strides). The
/// cuBLAS path keeps its user result in the same region as [U][M][N] f32.
typedef struct IkboLceLayout {
  int64_t nPad, mPad;
  int64_t kUserPitch, kCandPitch; ///< 0: W is used in place
  size_t userResultOffset, wUserOffset, wCandOffset;
  /// The candidate pieces side by side ([B, Kc, N]) for the paths that read
  /// one tensor; no bytes without pieces.
  size_t candOffset;
  /// cuBLAS's workspace for the cuBLAS path: f32 data only.
  size_t blasOffset, blasBytes;
  size_t bytes;
} IkboLceLayout;

static inline size_t ikboLceAlign256(size_t x) {
  return (x + 255) & ~(size_t)255;
}

/// The workspace layout of `a`; it depends on the shapes and dtype only, so
/// that embrtIkboLceWorkspaceSize and the launch agree on any device.
static inline void ikboLceLayout(const embrtIkboLceArgs *a, IkboLceLayout *l) {
  int64_t mPad = ikboLceRoundUp(a->m, 64);
  for (size_t i = 0; i < sizeof(kIkboLceSm90aTileM) / sizeof(int); ++i) {
    int64_t t = ikboLceRoundUp(a->m, kIkboLceSm90aTileM[i]);
    if (t > mPad)
      mPad = t;
  }
  l->nPad = ikboLceRoundUp(a->n, 128);
  l->mPad = mPad;
  size_t off = 0;
  l->userResultOffset = off;
  off = ikboLceAlign256(off + (size_t)a->numUsers * (size_t)l->nPad *
                                  (size_t)l->mPad * sizeof(float));
  int half = a->dtype == EMBRT_F16 || a->dtype == EMBRT_BF16;
  int64_t ldwUser = a->wUserStride ? a->wUserStride : a->kUser;
  int64_t ldwCand = a->wCandStride ? a->wCandStride : a->kCand;
  l->kUserPitch =
      half && (a->kUser % 8 || ldwUser % 8) ? ikboLceRoundUp(a->kUser, 8) : 0;
  l->wUserOffset = off;
  off = ikboLceAlign256(off + (size_t)a->m * (size_t)l->kUserPitch * 2);
  l->kCandPitch =
      half && (a->kCand % 8 || ldwCand % 8) ? ikboLceRoundUp(a->kCand, 8) : 0;
  l->wCandOffset = off;
  off = ikboLceAlign256(off + (size_t)a->m * (size_t)l->kCandPitch * 2);
  l->candOffset = off;
  if (a->numCandPieces > 0)
    off = ikboLceAlign256(off + (size_t)a->batchSize * (size_t)a->kCand *
                                    (size_t)a->n * (half ? 2 : 4));
  l->blasOffset = off;
  l->blasBytes = a->dtype == EMBRT_F32 ? IKBO_LCE_BLAS_WORKSPACE_BYTES : 0;
  off += l->blasBytes;
  l->bytes = off;
}

/// Whether `a` is f32 data computed in f16 or bf16 (computeDtype).
static inline int ikboLceConverts(const embrtIkboLceArgs *a) {
  return a->dtype == EMBRT_F32 &&
         (a->computeDtype == EMBRT_F16 || a->computeDtype == EMBRT_BF16);
}

/// The call a converting `a` makes on its rounded operands: the compute
/// type, packed weights, the candidates as one tensor; no pointers set.
static inline embrtIkboLceArgs ikboLceInnerArgs(const embrtIkboLceArgs *a) {
  embrtIkboLceArgs inner = *a;
  inner.dtype = a->computeDtype;
  inner.computeDtype = EMBRT_F32;
  inner.wUserStride = 0;
  inner.wCandStride = 0;
  inner.numCandPieces = 0;
  for (int p = 0; p < EMBRT_IKBO_LCE_MAX_PIECES; ++p) {
    inner.candPieces[p] = 0;
    inner.candPieceK[p] = 0;
  }
  inner.wUser = inner.wCand = inner.user = inner.cand = 0;
  inner.output = 0;
  inner.workspace = 0;
  inner.workspaceBytes = 0;
  return inner;
}

/// The workspace of a converting call, in bytes from its start: the
/// operands rounded to the compute type and packed (wUser [M, Ku], wCand
/// [M, Kc], user [U, Ku, N], cand [B, Kc, N]), the output in the compute
/// type [B, M, N], then the workspace of the inner call (its layout).
typedef struct IkboLceConvertLayout {
  size_t wUser, wCand, user, cand, out, inner, bytes;
  IkboLceLayout innerLayout;
} IkboLceConvertLayout;

static inline void ikboLceConvertLayout(const embrtIkboLceArgs *a,
                                        IkboLceConvertLayout *l) {
  embrtIkboLceArgs inner = ikboLceInnerArgs(a);
  ikboLceLayout(&inner, &l->innerLayout);
  const size_t m = (size_t)a->m, n = (size_t)a->n;
  size_t off = 0;
  l->wUser = off;
  off = ikboLceAlign256(off + m * (size_t)a->kUser * 2);
  l->wCand = off;
  off = ikboLceAlign256(off + m * (size_t)a->kCand * 2);
  l->user = off;
  off = ikboLceAlign256(off + (size_t)a->numUsers * (size_t)a->kUser * n * 2);
  l->cand = off;
  off = ikboLceAlign256(off + (size_t)a->batchSize * (size_t)a->kCand * n * 2);
  l->out = off;
  off = ikboLceAlign256(off + (size_t)a->batchSize * m * n * 2);
  l->inner = off;
  l->bytes = off + l->innerLayout.bytes;
}

#ifdef __cplusplus
} // extern "C"

/// The sm90a half of the launcher (kernels/ikbo_lce_sm90a.cu): runs the user
/// and the candidate products of `args` with configuration `config`, which
/// must apply. Checks every CUDA status; writes failures into `env`.
embrtStatus ikboLceLaunchSm90a(embrtLaunchEnv *env,
                               const embrtIkboLceArgs *args,
                               const IkboLceLayout *layout, int config);
#endif

#endif // EMB_KERNELS_IKBO_LCE_CONFIG_H
