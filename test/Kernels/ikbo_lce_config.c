// RUN: %kernel_test_dir/ikbo_lce_config
//===- test/Kernels/ikbo_lce_config.c - IKBO LCE configuration selection --===//
//
// The launch-configuration table of emb.ikbo_lce and the pure functions over
// it (kernels/ikbo_lce_config.h), on the CPU: which row a problem gets on
// Hopper and elsewhere, the tile choice for M, configId overrides, shared
// memory of every row, and the workspace layouts (also of f32 data computed
// in f16 or bf16).
//
//===----------------------------------------------------------------------===//

#include "kernels/ikbo_lce_config.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);      \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static IkboLceShape hopper(embrtDtype dtype, long long m, long long n) {
  IkboLceShape s;
  memset(&s, 0, sizeof s);
  s.ccMajor = 9;
  s.ccMinor = 0;
  s.maxSharedPerBlock = 232448;
  s.dtype = dtype;
  s.batch = 1024;
  s.users = 15;
  s.m = m;
  s.n = n;
  s.kUser = 1184;
  s.kCand = 872;
  s.aligned = 1;
  return s;
}

static const char *selected(const IkboLceShape *s) {
  return kIkboLceConfigs[ikboLceSelectConfig(s)].name;
}

int main(void) {
  // Tile of M: as few 256-row tiles as needed, each share rounded up to a
  // built wgmma extent.
  EXPECT(ikboLceSm90aTileFor(433) == 224);
  EXPECT(ikboLceSm90aTileFor(128) == 128);
  EXPECT(ikboLceSm90aTileFor(1) == 64);
  EXPECT(ikboLceSm90aTileFor(64) == 64);
  EXPECT(ikboLceSm90aTileFor(65) == 128);
  EXPECT(ikboLceSm90aTileFor(256) == 256);
  EXPECT(ikboLceSm90aTileFor(257) == 192);
  EXPECT(ikboLceSm90aTileFor(1000) == 256);

  // Hopper, 16-bit, aligned: sm90a, CTA pairs multicasting W when the
  // column tiles pair up.
  IkboLceShape s = hopper(EMBRT_F16, 433, 256);
  EXPECT(!strcmp(selected(&s), "sm90a_m224_c2"));
  s = hopper(EMBRT_BF16, 128, 256); // one W-row tile
  EXPECT(!strcmp(selected(&s), "sm90a_m128_c2"));
  s = hopper(EMBRT_F16, 433, 384); // three column tiles
  EXPECT(!strcmp(selected(&s), "sm90a_m224_c1"));
  s = hopper(EMBRT_F16, 433, 64);
  EXPECT(!strcmp(selected(&s), "sm90a_m224_c1"));
  s = hopper(EMBRT_F16, 1000, 256); // four W-row tiles of 256
  EXPECT(!strcmp(selected(&s), "sm90a_m256_c2"));
  s = hopper(EMBRT_F16, 300, 256); // two W-row tiles, 150 rows -> 192
  EXPECT(!strcmp(selected(&s), "sm90a_m192_c2"));

  // Everything else is portable.
  s = hopper(EMBRT_F32, 433, 256);
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  s = hopper(EMBRT_F16, 433, 100); // rows not 16-byte multiples
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  s = hopper(EMBRT_F16, 433, 256);
  s.aligned = 0;
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  s = hopper(EMBRT_F16, 433, 256);
  s.ccMajor = 8;
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  s = hopper(EMBRT_F16, 433, 256);
  s.ccMajor = 10; // sm_90a code does not run on later GPUs
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  s = hopper(EMBRT_F16, 433, 256);
  s.maxSharedPerBlock = 100 * 1024;
  EXPECT(!strcmp(selected(&s), "portable_64x64"));

  // Small K (Kc + Ku at most 128, M at most 128, 16-bit, N a multiple of
  // 8, aligned) wherever it applies, from Ampere on: the ranking model's LCE
  // (M 64, N 128, Ku 32, Kc 40 or 34), contiguous or in pieces.
  s = hopper(EMBRT_F16, 64, 128);
  s.kUser = 32;
  s.kCand = 40;
  EXPECT(!strcmp(selected(&s), "smallk_mma"));
  s.pieces = 1;
  EXPECT(!strcmp(selected(&s), "smallk_mma"));
  s.kCand = 34;
  EXPECT(!strcmp(selected(&s), "smallk_mma"));
  s.dtype = EMBRT_BF16;
  EXPECT(!strcmp(selected(&s), "smallk_mma"));
  s.pieces = 0;
  s.ccMajor = 8;
  EXPECT(!strcmp(selected(&s), "smallk_mma"));
  s.ccMajor = 10;
  EXPECT(!strcmp(selected(&s), "smallk_mma"));
  s.ccMajor = 7;
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  s = hopper(EMBRT_F16, 128, 256);
  s.kUser = s.kCand = 64;
  s.pieces = 1;
  EXPECT(!strcmp(selected(&s), "smallk_mma"));
  s.kCand = 65; // Kc + Ku past eight mma k-steps
  EXPECT(!strcmp(selected(&s), "sm90a_m128_c2"));
  s.kUser = 28;
  s.kCand = 100; // one side past 64: the sum is what counts
  EXPECT(!strcmp(selected(&s), "smallk_mma"));
  s.kUser = INT64_MAX; // no overflow in the sum (nor 32-bit TMA coordinates)
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  s.kUser = s.kCand = 64;
  s.m = 129; // past eight warps of 16 rows
  EXPECT(!strcmp(selected(&s), "sm90a_m192_c2"));
  s.m = 128;
  s.n = 100;
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  s.n = 256;
  s.dtype = EMBRT_F32;
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  // configId: honoured when the row applies, else the selection.
  s = hopper(EMBRT_F16, 433, 256);
  for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i)
    EXPECT(ikboLceResolveConfig(&s, i) ==
           (ikboLceConfigApplies(&kIkboLceConfigs[i], &s)
                ? i
                : ikboLceSelectConfig(&s)));
  EXPECT(!ikboLceConfigApplies(&kIkboLceConfigs[IKBO_LCE_NUM_CONFIGS - 1], &s));
  EXPECT(ikboLceResolveConfig(&s, -1) == ikboLceSelectConfig(&s));
  EXPECT(ikboLceResolveConfig(&s, IKBO_LCE_NUM_CONFIGS) ==
         ikboLceSelectConfig(&s));
  s = hopper(EMBRT_F16, 433, 384);
  for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i)
    if (kIkboLceConfigs[i].clusterN == 2)
      EXPECT(ikboLceResolveConfig(&s, i) == ikboLceSelectConfig(&s));
  s = hopper(EMBRT_F32, 433, 256);
  EXPECT(ikboLceResolveConfig(&s, 3) == IKBO_LCE_CONFIG_PORTABLE);

  // f32 with a cuBLAS handle: the cuBLAS row, on any device, for any N or
  // alignment; configId can still force the portable row; the row never
  // takes 16-bit data or extents past int.
  s = hopper(EMBRT_F32, 433, 100);
  s.blas = 1;
  s.aligned = 0;
  EXPECT(!strcmp(selected(&s), "cublas_f32"));
  s.ccMajor = 7;
  EXPECT(!strcmp(selected(&s), "cublas_f32"));
  EXPECT(ikboLceResolveConfig(&s, IKBO_LCE_CONFIG_PORTABLE) ==
         IKBO_LCE_CONFIG_PORTABLE);
  s.batch = (int64_t)INT32_MAX + 1;
  EXPECT(!strcmp(selected(&s), "portable_64x64"));
  s = hopper(EMBRT_BF16, 433, 256);
  s.blas = 1;
  EXPECT(!strcmp(selected(&s), "sm90a_m224_c2"));
  for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i)
    if (kIkboLceConfigs[i].path == IKBO_LCE_PATH_CUBLAS)
      EXPECT(!ikboLceConfigApplies(&kIkboLceConfigs[i], &s));

  // Every sm90a row fits the H100/H200 opt-in limit, stores n8 blocks in
  // pairs, splits W into 8-row multicast slices and names a preference
  // entry or a deliberate variant.
  for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i) {
    const IkboLceConfig *c = &kIkboLceConfigs[i];
    if (c->path != IKBO_LCE_PATH_SM90A)
      continue;
    EXPECT(ikboLceSm90aSmemBytes(c) <= 232448);
    EXPECT(c->mTile / 8 % 2 == 0);
    EXPECT(c->mTile % (8 * c->clusterN) == 0);
    EXPECT(c->clusterM == 1 || c->clusterM == 2);
  }
  for (size_t p = 0; p < sizeof(kIkboLceSm90aPreference) / sizeof(char *);
       ++p) {
    int found = 0;
    for (int i = 0; i < IKBO_LCE_NUM_CONFIGS; ++i)
      found +=
          ikboLceNameIs(kIkboLceConfigs[i].name, kIkboLceSm90aPreference[p]);
    EXPECT(found == 1);
  }

  // Workspace: the user-result region, f32 [U][nPad][mPad] covering every
  // tile choice (the dtype [U][M][N] fits in it), then 16-byte-pitch W
  // copies only for 16-bit types whose K or row stride is not a multiple
  // of 8.
  embrtIkboLceArgs a;
  memset(&a, 0, sizeof a);
  a.dtype = EMBRT_F16;
  a.batchSize = 1024;
  a.numUsers = 15;
  a.m = 433;
  a.n = 256;
  a.kUser = 1184;
  a.kCand = 872;
  IkboLceLayout l;
  ikboLceLayout(&a, &l);
  EXPECT(l.nPad == 256);
  EXPECT(l.mPad == 576);
  EXPECT(l.kUserPitch == 0 && l.kCandPitch == 0);
  EXPECT(l.bytes == (size_t)15 * 256 * 576 * 4);
  EXPECT(l.blasBytes == 0); // 16-bit data never runs cuBLAS
  a.kUser = 1025;
  a.kCand = 1023;
  ikboLceLayout(&a, &l);
  EXPECT(l.kUserPitch == 1032 && l.kCandPitch == 1024);
  EXPECT(l.wUserOffset % 256 == 0 && l.wCandOffset % 256 == 0);
  EXPECT(l.wCandOffset >= l.wUserOffset + 433 * 1032 * 2);
  EXPECT(l.bytes >= l.wCandOffset + 433 * 1024 * 2);
  // Row strides: an aligned K read in place only when its stride is a
  // multiple of 8 too (the benchmark's weight, [433, 2044], is not).
  a.kUser = 1184;
  a.kCand = 872;
  a.wUserStride = a.wCandStride = 2056;
  ikboLceLayout(&a, &l);
  EXPECT(l.kUserPitch == 0 && l.kCandPitch == 0);
  a.wUserStride = a.wCandStride = 2044;
  ikboLceLayout(&a, &l);
  EXPECT(l.kUserPitch == 1184 && l.kCandPitch == 872);
  a.kUser = 1025;
  a.kCand = 1023;
  a.wUserStride = a.wCandStride = 0;
  a.dtype = EMBRT_F32;
  ikboLceLayout(&a, &l);
  EXPECT(l.kUserPitch == 0 && l.kCandPitch == 0);
  // f32: cuBLAS's workspace last, 256-byte aligned.
  EXPECT(l.blasBytes == IKBO_LCE_BLAS_WORKSPACE_BYTES);
  EXPECT(l.blasOffset % 256 == 0 && l.blasOffset >= l.candOffset);
  EXPECT(l.bytes == l.blasOffset + l.blasBytes);
  a.n = 100;
  a.m = 1;
  ikboLceLayout(&a, &l);
  EXPECT(l.nPad == 128 && l.mPad == 256);

  // f32 data computed in bf16: the rounded operands packed, the output in
  // bf16, then the workspace of the bf16 call (packed weights: a pitch copy
  // only for an odd K), whatever the f32 call's strides and pieces.
  memset(&a, 0, sizeof a);
  a.dtype = EMBRT_F32;
  a.computeDtype = EMBRT_BF16;
  a.batchSize = 1024;
  a.numUsers = 15;
  a.m = 433;
  a.n = 256;
  a.kUser = 1178;
  a.kCand = 866;
  a.wUserStride = a.wCandStride = 2044;
  a.numCandPieces = 2;
  a.candPieceK[0] = 800;
  a.candPieceK[1] = 66;
  EXPECT(ikboLceConverts(&a));
  IkboLceConvertLayout c;
  ikboLceConvertLayout(&a, &c);
  EXPECT(c.wUser == 0);
  EXPECT(c.wCand >= (size_t)433 * 1178 * 2 && c.wCand % 256 == 0);
  EXPECT(c.user >= c.wCand + (size_t)433 * 866 * 2 && c.user % 256 == 0);
  EXPECT(c.cand >= c.user + (size_t)15 * 1178 * 256 * 2 && c.cand % 256 == 0);
  EXPECT(c.out >= c.cand + (size_t)1024 * 866 * 256 * 2 && c.out % 256 == 0);
  EXPECT(c.inner >= c.out + (size_t)1024 * 433 * 256 * 2 && c.inner % 256 == 0);
  EXPECT(c.bytes == c.inner + c.innerLayout.bytes);
  EXPECT(c.innerLayout.kUserPitch == 1184 && c.innerLayout.kCandPitch == 872);
  EXPECT(c.innerLayout.candOffset == c.innerLayout.bytes); // no pieces
  embrtIkboLceArgs inner = ikboLceInnerArgs(&a);
  EXPECT(inner.dtype == EMBRT_BF16 && inner.computeDtype == EMBRT_F32);
  EXPECT(inner.wUserStride == 0 && inner.numCandPieces == 0);
  a.computeDtype = EMBRT_F32; // the exact path: no conversion
  EXPECT(!ikboLceConverts(&a));
  a.dtype = EMBRT_BF16;
  a.computeDtype = EMBRT_BF16; // rejected by the runtime's checks first
  EXPECT(!ikboLceConverts(&a));

  printf("%s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
