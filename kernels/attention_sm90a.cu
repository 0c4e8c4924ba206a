//===- kernels/attention_sm90a.cu - Hopper flash attention (wgmma, TMA) ---===//
//
// The WGMMA path of emb.attention and emb.ikbo_attention, for sm_90a only
// (build with -gencode=arch=compute_90a,code=sm_90a): a persistent,
// warp-specialised flash attention in the style of FlashAttention-3.
//
// One CTA = three warpgroups. Warpgroup 0 is the producer: its thread 0 loads
// the next tile's 128 query rows with the tensor memory accelerator (TMA) when
// they are consecutive rows of q (sorted cand_to_user, or plain attention),
// else its 128 threads gather them with cp.async through the plan's
// permutation; thread 0 then streams the user's keys and values into a
// two-stage ring with TMA. Warpgroups 1 and 2 are consumers, 64 query rows
// each: for every block of BN keys they issue S = Q K^T (wgmma, both operands
// in shared memory), then, while it runs, O += P V for the previous block (P
// from registers), then do the online softmax of S in registers. The user's
// K and V are read once per 128-row query tile, never copied per candidate.
// The output leaves through shared memory, by TMA stores for whole 64-row
// slabs of consecutive rows, else by 16-byte stores row by row.
//
//===----------------------------------------------------------------------===//

#include "kernels/attention_common.cuh"
#include "kernels/common/sm90_sync.cuh"
#include "kernels/common/sm90_wgmma.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <math.h>

namespace {

constexpr int kBlockM = 128; // query rows per tile (64 per consumer)
constexpr int kStages = 2;   // K and V ring depth
constexpr int kThreads = 384;
constexpr int kPanelRow = 128; // bytes of one swizzled row: 64 halves
// How far (log2 units) a row's maximum may pass the softmax's reference
// before O is rescaled: probabilities stay below 2^8 = 256.
constexpr float kStaleLog2 = 8.f;

// Named barrier ids: 0 is __syncthreads; 1 and 2 are the consumers' own
// (epilogue); 3 and 4 order the consumers' GEMM issue (pingpong).
constexpr int kEpilogueBarrier = 1;
constexpr int kScheduleBarrier = 3;

/// Shared memory of one CTA, from a 1024-byte aligned base. Every tile is
/// stored as 64-column panels (128-byte rows, 128-byte TMA swizzle: 16-byte
/// chunk c of row r at r * 128 + ((c ^ (r % 8)) * 16)):
///   Q      [DH/64 panels][128 rows][128 B]
///   K, V   [2 stages][DH/64 panels][BN keys][128 B]
///   O      [2 consumers][DH/64 panels][64 rows][128 B]
///   barriers: qFull, qEmpty, kFull[2], kEmpty[2], vFull[2], vEmpty[2],
///             vLoaded[2]
/// 224 KB for DH=128, BN=160; 192 KB for BN=128.
template <int DH, int BN> struct Sm90Layout {
  static constexpr int kPanels = DH / 64;
  static constexpr int kQBytes = kBlockM * DH * 2;
  static constexpr int kKVBytes = BN * DH * 2;
  static constexpr int kQ = 0;
  static constexpr int kK = kQ + kQBytes;
  static constexpr int kV = kK + kStages * kKVBytes;
  static constexpr int kO = kV + kStages * kKVBytes;
  static constexpr int kBar = kO + kBlockM * DH * 2;
  static constexpr int kBytes = kBar + 12 * 8 + 1024; // + alignment slack
};

//===----------------------------------------------------------------------===//
// PTX helpers
//===----------------------------------------------------------------------===//

__device__ __forceinline__ float fastExp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

/// A compile-time flag passed to the consumer's generic lambdas.
template <bool B> struct Flag { static constexpr bool value = B; };

/// The first N elements of a register array, as an array (a half-width
/// block works on the first half of S and of P).
template <int N, typename T, int M>
__device__ __forceinline__ T (&head(T (&a)[M]))[N] {
  static_assert(N <= M, "head longer than the array");
  return *reinterpret_cast<T(*)[N]>(&a[0]);
}

//===----------------------------------------------------------------------===//
// Consumer pieces
//===----------------------------------------------------------------------===//

/// S = Q K^T for one block: DH/16 wgmmas over 64-column panels; N keys (BN,
/// or BN / 2 for a tile's only block with at most BN / 2 valid keys).
template <typename T, int DH, int BN, int N = BN>
__device__ __forceinline__ void issueQK(float (&s)[N / 2], uint32_t qRows,
                                        uint32_t kTile) {
  wgmmaFence();
  // Each step's descriptors are the block's plus a constant offset.
  const uint64_t aBase = wgmmaDescSw128(qRows, 16, 8 * kPanelRow);
  const uint64_t bBase = wgmmaDescSw128(kTile, 16, 8 * kPanelRow);
#pragma unroll
  for (int kk = 0; kk < DH / 16; ++kk) {
    uint32_t panel = (uint32_t)(kk >> 2), inner = (uint32_t)(kk & 3) * 32;
    uint64_t a = aBase + ((panel * kBlockM * kPanelRow + inner) >> 4);
    uint64_t b = bBase + ((panel * BN * kPanelRow + inner) >> 4);
    wgmmaSS<T, N, 0, 0>(s, a, b, kk > 0);
  }
  wgmmaCommit();
}

/// O += P V for the first N keys of a block of BN: N/16 wgmmas, P from
/// registers.
template <typename T, int DH, int BN, int N = BN>
__device__ __forceinline__ void
issuePV(float (&o)[DH / 2], const uint32_t (&pf)[N / 4], uint32_t vTile) {
  wgmmaFence();
  const uint64_t vBase = wgmmaDescSw128(vTile, BN * kPanelRow, 8 * kPanelRow);
#pragma unroll
  for (int kk = 0; kk < N / 16; ++kk) {
    uint64_t b = vBase + (((uint32_t)kk * 16 * kPanelRow) >> 4);
    wgmmaRS<T, DH, 1>(o, pf[4 * kk], pf[4 * kk + 1], pf[4 * kk + 2],
                      pf[4 * kk + 3], b);
  }
  wgmmaCommit();
}

/// Scores of keys at or past `valid` (the last block) drop out of the
/// softmax: -inf, or +inf under a negative scale (NEG), where the extreme
/// taken is the minimum.
template <int BN, bool NEG>
__device__ __forceinline__ void maskTail(float (&s)[BN / 2], int valid,
                                         int tq) {
#pragma unroll
  for (int i = 0; i < BN / 2; ++i)
    if ((i >> 2) * 8 + 2 * tq + (i & 1) >= valid)
      s[i] = NEG ? INFINITY : -INFINITY;
}

/// Online softmax of one block of scores held as a wgmma accumulator (rows
/// g and g+8 of the thread's warp, two columns per 8-column group). Leaves
/// p = exp2(s' * sl2 - m * sl2) in s, where s' = s, or -s under a negative
/// scale (NEG: the maximum of -s is minus the minimum of s, so the scores
/// are never negated in place), updates the running maximum m of s' and the
/// thread's partial row sums l, and returns the factors c that rescale the
/// previous O. Masked scores give p = 0 because sl2 > 0. Straight-line
/// code: it runs while O += P V is in flight, and ptxas waits for every
/// wgmma at the join of a branch.
template <int BN, bool NEG>
__device__ __forceinline__ void softmaxBlock(float (&s)[BN / 2], float &m0,
                                             float &m1, float &l0, float &l1,
                                             float &c0, float &c1, float sl2) {
  // The running extreme in the scores' own sign.
  float x0 = NEG ? -m0 : m0, x1 = NEG ? -m1 : m1;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    if (NEG) {
      x0 = fminf(x0, fminf(s[4 * j], s[4 * j + 1]));
      x1 = fminf(x1, fminf(s[4 * j + 2], s[4 * j + 3]));
    } else {
      x0 = fmaxf(x0, fmaxf(s[4 * j], s[4 * j + 1]));
      x1 = fmaxf(x1, fmaxf(s[4 * j + 2], s[4 * j + 3]));
    }
  }
#pragma unroll
  for (int lanes = 1; lanes <= 2; lanes *= 2) {
    const float y0 = __shfl_xor_sync(0xffffffffu, x0, lanes);
    const float y1 = __shfl_xor_sync(0xffffffffu, x1, lanes);
    x0 = NEG ? fminf(x0, y0) : fmaxf(x0, y0);
    x1 = NEG ? fminf(x1, y1) : fmaxf(x1, y1);
  }
  if (NEG) {
    x0 = -x0;
    x1 = -x1;
  }
  // Every block has a valid key, so x is finite; m is -inf on the first.
  // The reference m moves only when the block's maximum passes it by more
  // than kStaleLog2 (in log2 units): p stays below 2^kStaleLog2, and most
  // blocks leave O alone (c = 1, the caller skips the rescale).
  const bool up0 = m0 == -INFINITY || (x0 - m0) * sl2 > kStaleLog2;
  const bool up1 = m1 == -INFINITY || (x1 - m1) * sl2 > kStaleLog2;
  c0 = m0 == -INFINITY ? 0.f : up0 ? fastExp2((m0 - x0) * sl2) : 1.f;
  c1 = m1 == -INFINITY ? 0.f : up1 ? fastExp2((m1 - x1) * sl2) : 1.f;
  m0 = up0 ? x0 : m0;
  m1 = up1 ? x1 : m1;
  const float f = NEG ? -sl2 : sl2;
  const float b0 = m0 * sl2, b1 = m1 * sl2;
  float r0 = 0.f, r1 = 0.f;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    s[4 * j] = fastExp2(fmaf(s[4 * j], f, -b0));
    s[4 * j + 1] = fastExp2(fmaf(s[4 * j + 1], f, -b0));
    s[4 * j + 2] = fastExp2(fmaf(s[4 * j + 2], f, -b1));
    s[4 * j + 3] = fastExp2(fmaf(s[4 * j + 3], f, -b1));
    r0 += s[4 * j] + s[4 * j + 1];
    r1 += s[4 * j + 2] + s[4 * j + 3];
  }
  l0 = l0 * c0 + r0;
  l1 = l1 * c1 + r1;
}

/// Packs probabilities into the A fragments of the P V product.
template <typename T, int BN>
__device__ __forceinline__ void toFragments(const float (&s)[BN / 2],
                                            uint32_t (&pf)[BN / 4]) {
#pragma unroll
  for (int i = 0; i < BN / 4; ++i)
    pf[i] = embrt::packCompute<T>(s[2 * i], s[2 * i + 1]);
}

template <int DH>
__device__ __forceinline__ void rescale(float (&o)[DH / 2], float c0,
                                        float c1) {
#pragma unroll
  for (int j = 0; j < DH / 8; ++j) {
    o[4 * j] *= c0;
    o[4 * j + 1] *= c0;
    o[4 * j + 2] *= c1;
    o[4 * j + 3] *= c1;
  }
}

/// Byte offset of 16-byte chunk c of row r in a 64-column panel tile of
/// `rows` rows (the TMA 128-byte swizzle).
__device__ __forceinline__ uint32_t panelOffset(int r, int c, int rows) {
  return (uint32_t)((c >> 3) * rows * kPanelRow + r * kPanelRow +
                    (((c & 7) ^ (r & 7)) << 4));
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

/// Persistent warp-specialised flash attention, f16/bf16, head dim DH (64 or
/// 128), blocks of 128 query rows x BN keys (128 or 160). PINGPONG: the two
/// consumers take turns issuing their GEMMs. KV_FIRST: the producer loads a
/// tile's first K block before its Q (shorter gap between tiles).
///
/// Grid: min(SMs, maxTiles * H) CTAs; CTA c takes work items c, c + grid, ...
/// of numTiles * H (item w: tile w / H, head w % H, so CTAs running together
/// share a user's K/V in L2). Block: 384 threads (3 warpgroups), one CTA per
/// SM, Sm90Layout<DH, BN>::kBytes of dynamic shared memory.
///
/// Producer (warpgroup 0, 40 registers; 24 for BN=160): loads the tile's
/// query rows into Q (TMA from tmQ when the rows are consecutive, else thread
/// i copies row i with 16-byte cp.async, zero-filled past the group's rows),
/// then thread 0 issues the TMA loads of K and V for every key block into the
/// ring (keys past Lk are zero-filled by TMA; keys past the user's length are
/// masked by the consumers, and warp 1 zeroes their values in the last
/// block before releasing it to them).
/// Consumer warpgroup c (1 + c, 232 registers; 240 for BN=160): rows
/// 64c..64c+63 of the tile; thread (warp w, lane 4g+t) owns rows 16w+g and
/// 16w+g+8, two columns of every 8 in S and O. f32 accumulation; exp2 with
/// the scale folded in. The epilogue divides by the row sums and stages the
/// 64 x DH result in shared memory; thread 0 of the warpgroup stores it with
/// TMA (tmO) when the 64 rows are consecutive and all valid, else every
/// thread stores 16-byte chunks of whole rows to their candidates.
/// Alignment: q, k, v, out 16-byte aligned (TMA, cp.async, 16-byte stores).
template <typename T, int DH, int BN, bool PINGPONG, bool KV_FIRST>
__global__ void __launch_bounds__(kThreads, 1)
    attentionWgmmaKernel(const __grid_constant__ CUtensorMap tmK,
                         const __grid_constant__ CUtensorMap tmV,
                         const __grid_constant__ CUtensorMap tmQ,
                         const __grid_constant__ CUtensorMap tmO,
                         const AttentionParams p) {
  using L = Sm90Layout<DH, BN>;
  // A last block with at most BN / 2 valid keys runs its softmax and P V at
  // half width where wgmma has that N (BN 128: N 64).
  constexpr bool kHalfBlock = kWgmmaN<BN / 2>;
  extern __shared__ uint8_t smemRaw[];
  const uint32_t raw = smemAddr(smemRaw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  const uint32_t qSmem = base + L::kQ, kSmem = base + L::kK,
                 vSmem = base + L::kV, oSmem = base + L::kO;
  const uint32_t qFull = base + L::kBar, qEmpty = qFull + 8;
  const uint32_t kFull = qFull + 16, kEmpty = qFull + 32;
  const uint32_t vFull = qFull + 48, vEmpty = qFull + 64;
  const uint32_t vLoaded = qFull + 80;
  if (threadIdx.x == 0) {
    tmaPrefetchMap(&tmK);
    tmaPrefetchMap(&tmV);
    tmaPrefetchMap(&tmQ);
    tmaPrefetchMap(&tmO);
  }
  // Launched as a programmatic dependent of the plan kernel (ikbo): nothing
  // the plan or earlier work wrote is read before this.
  gridDependencyWait();
  const bool contiguous = attentionContiguous(p);

  if (threadIdx.x == 0) {
    mbarInit(qFull, contiguous ? 1 : 128);
    mbarInit(qEmpty, 256);
    for (int s = 0; s < kStages; ++s) {
      mbarInit(kFull + 8 * s, 1);
      mbarInit(kEmpty + 8 * s, 256);
      mbarInit(vFull + 8 * s, 1);
      mbarInit(vEmpty + 8 * s, 256);
      mbarInit(vLoaded + 8 * s, 1);
    }
    fenceMbarInit();
  }
  __syncthreads();

  const int total = attentionNumTiles(p) * p.heads;
  const int wg = threadIdx.x / 128;
  const T *q = static_cast<const T *>(p.q);

  if (wg == 0) {
    //===--- Producer ---------------------------------------------------===//
    if (BN > 128)
      setmaxnregDec<24>();
    else
      setmaxnregDec<40>();
    // Thread 0 issues the TMA loads; warp 1 zeroes masked values (below);
    // every thread copies Q rows when they are not consecutive.
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    if (contiguous && warp > 1)
      return;
    uint32_t kv = 0, loadedPhase = 0;
    int it = 0;
    // K (or V) of key block j of tile t into ring slot `slot`, signalling
    // `full` (V of a masked last block: vLoaded, which warp 1 waits for).
    auto loadKV = [&](const CUtensorMap *map, uint32_t ring, uint32_t full,
                      uint32_t empty, uint32_t slot, int j, int h,
                      const AttentionTile &t) {
      const uint32_t s = slot % kStages, ph = (slot / kStages) & 1;
      mbarWait(empty + 8 * s, ph ^ 1);
      mbarArriveExpectTx(full + 8 * s, L::kKVBytes);
#pragma unroll
      for (int pn = 0; pn < L::kPanels; ++pn)
        tmaLoad3d(ring + s * L::kKVBytes + pn * BN * kPanelRow, map,
                  h * DH + 64 * pn, j * BN, t.group, full + 8 * s);
    };
    AttentionTile next;
    if (KV_FIRST && blockIdx.x < total)
      next = attentionDecodeTile(p, blockIdx.x / p.heads, kBlockM);
    for (int w = blockIdx.x; w < total; w += gridDim.x, ++it) {
      const int h = w % p.heads;
      const AttentionTile t =
          KV_FIRST ? next : attentionDecodeTile(p, w / p.heads, kBlockM);
      if (KV_FIRST && w + (int)gridDim.x < total) // used a tile later
        next = attentionDecodeTile(p, (w + gridDim.x) / p.heads, kBlockM);
      const int blocks = (t.keys + BN - 1) / BN;
      // Rows of the last block that hold keys past the group's length and
      // before Lk (TMA fills rows past Lk with zeros): the consumers weigh
      // them by a probability of 0, which a non-finite value there would
      // turn into NaN (0 x inf), so their values are zeroed first.
      const int tailValid = t.keys - (blocks - 1) * BN;
      const int tailRows = min(BN, p.lk - (blocks - 1) * BN);
      const bool maskedTail = blocks > 0 && tailValid < tailRows;
      // KV_FIRST: the first K block needs only a free slot (the last tile's
      // next-to-last block), so it goes before Q, which waits for the last
      // tile's final S = Q K^T.
      if (KV_FIRST && tid == 0 && blocks > 0)
        loadKV(&tmK, kSmem, kFull, kEmpty, kv, 0, h, t);
      if (warp == 0 || !contiguous)
        mbarWait(qEmpty, (it & 1) ^ 1);
      if (contiguous) {
        if (tid == 0) {
          mbarArriveExpectTx(qFull, L::kQBytes);
#pragma unroll
          for (int pn = 0; pn < L::kPanels; ++pn)
            tmaLoad2d(qSmem + pn * kBlockM * kPanelRow, &tmQ, h * DH + 64 * pn,
                      t.first * p.lq + t.rowStart, qFull);
        }
      } else {
        const int r = t.rowStart + tid;
        const bool valid = r < t.rows;
        const T *src = valid ? q + attentionRowOffset(p, t, r, h) : q;
#pragma unroll 2
        for (int c = 0; c < DH / 8; ++c)
          embrt::copyAsync<16, false>(qSmem + panelOffset(tid, c, kBlockM),
                                      src + 8 * c, valid);
        embrt::commitCopies();
        embrt::waitCopies<0>();
        // The consumers read Q through the async proxy (wgmma).
        fenceProxyAsync();
        mbarArrive(qFull);
      }
      if (tid == 0) {
        for (int j = 0; j < blocks; ++j) {
          if (!KV_FIRST || j > 0)
            loadKV(&tmK, kSmem, kFull, kEmpty, kv + j, j, h, t);
          const bool tail = maskedTail && j == blocks - 1;
          loadKV(&tmV, vSmem, tail ? vLoaded : vFull, vEmpty, kv + j, j, h, t);
        }
      }
      if (warp == 1 && maskedTail) {
        // Warp 1: once the block has landed, zero rows tailValid..tailRows-1
        // of every panel (whole 128-byte rows: the swizzle permutes 16-byte
        // chunks within a row), then release it to the consumers. Thread 0
        // meanwhile goes on to the next tile's loads.
        const uint32_t s = (kv + blocks - 1) % kStages;
        const uint32_t stage = vSmem + s * L::kKVBytes;
        mbarWait(vLoaded + 8 * s, (loadedPhase >> s) & 1);
        loadedPhase ^= 1u << s;
        for (int r = tailValid + (lane >> 3); r < tailRows; r += 4)
#pragma unroll
          for (int pn = 0; pn < L::kPanels; ++pn)
            stSharedZero16(stage + pn * BN * kPanelRow + r * kPanelRow +
                           (lane & 7) * 16);
        fenceProxyAsync(); // the consumers read V through wgmma
        __syncwarp();
        if (lane == 0)
          mbarArrive(vFull + 8 * s);
      }
      kv += blocks;
    }
    return;
  }

  //===--- Consumers ------------------------------------------------------===//
  if (BN > 128)
    setmaxnregInc<240>();
  else
    setmaxnregInc<232>();
  // Warp-uniform by construction; the shuffle lets the compiler keep what
  // derives from it (shared addresses, wgmma descriptors) in uniform
  // registers: no R2UR moves between the wgmma issues (7 % faster, NOTES v14).
  const int cw = __shfl_sync(0xffffffffu, wg - 1, 0);
  const int wt = threadIdx.x - 128 * wg;
  const int warp = wt >> 5, lane = wt & 31, g8 = lane >> 2, tq = lane & 3;
  const uint32_t qRows = qSmem + cw * 64 * kPanelRow;
  const uint32_t oTile = oSmem + cw * 64 * DH * 2;
  // A zero scale would make masked scores NaN (-inf * 0): any tiny positive
  // factor gives the same probabilities.
  const float sl2 = p.scaleLog2 > 0.f ? p.scaleLog2 : 1e-30f;
  const bool neg = p.negScale != 0;
  T *out = static_cast<T *>(p.out);

  float s[BN / 2];
  uint32_t pf[BN / 4];
  float o[DH / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i)
    s[i] = 0.f;

  if (PINGPONG && cw == 1)
    namedBarrierArrive(kScheduleBarrier, 256);

  uint32_t kv = 0;
  int it = 0;
  AttentionTile next;
  if (blockIdx.x < total)
    next = attentionDecodeTile(p, blockIdx.x / p.heads, kBlockM);
  for (int w = blockIdx.x; w < total; w += gridDim.x, ++it) {
    const int h = w % p.heads;
    const AttentionTile t = next;
    if (w + (int)gridDim.x < total) // decoded now, used a tile later
      next = attentionDecodeTile(p, (w + gridDim.x) / p.heads, kBlockM);
    const int blocks = (t.keys + BN - 1) / BN;
    const int tailValid = t.keys - (blocks - 1) * BN; // keys of the last
    float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f, c0, c1;
#pragma unroll
    for (int i = 0; i < DH / 2; ++i)
      o[i] = 0.f;

    mbarWait(qFull, it & 1);
    if (blocks > 0) {
      // The key blocks of one tile. NEG (negative scale) and the masking of
      // the last block are compile-time flags, so that no branch stands
      // between the issue of O += P V and its wait: at a branch's join
      // ptxas waits for every wgmma in flight (bench/attention/NOTES.md,
      // v7; it still waits for the product before the softmax, to pack the
      // new P into the product's registers early: v7-v10).
      auto keyBlocks = [&](auto negFlag) {
        constexpr bool NEG = decltype(negFlag)::value;
        // The tile's last block at half width when at most BN / 2 of its
        // keys are valid (user lengths, short Lk): half the exponentials and
        // half of P V (and of S when it is the only block).
        const bool halfLast = kHalfBlock && tailValid <= BN / 2;
        // Block 0: S only (nothing in flight during its softmax).
        auto first = [&](auto halfFlag) {
          constexpr int N = decltype(halfFlag)::value ? BN / 2 : BN;
          const uint32_t st = kv % kStages, ph = (kv / kStages) & 1;
          mbarWait(kFull + 8 * st, ph);
          if (PINGPONG)
            namedBarrierSync(kScheduleBarrier + cw, 256);
          issueQK<T, DH, BN, N>(head<N / 2>(s), qRows,
                                kSmem + st * L::kKVBytes);
          if (PINGPONG)
            namedBarrierArrive(kScheduleBarrier + 1 - cw, 256);
          wgmmaWait<0>();
          fenceOperands(head<N / 2>(s));
          mbarArrive(kEmpty + 8 * st);
          if (blocks == 1) {
            mbarArrive(qEmpty);
            if (tailValid < N)
              maskTail<N, NEG>(head<N / 2>(s), tailValid, tq);
          }
          // O is still zero: block 0's factors c are not applied.
          softmaxBlock<N, NEG>(head<N / 2>(s), m0, m1, l0, l1, c0, c1, sl2);
          toFragments<T, N>(head<N / 2>(s), head<N / 4>(pf));
        };
        if (blocks == 1 && halfLast)
          first(Flag<kHalfBlock>());
        else
          first(Flag<false>());
        // Block j >= 1: S_j overlaps O += P_{j-1} V_{j-1}; the other
        // consumer's products hide this one's softmax (pingpong). LAST: the
        // tile's last block when it is partly masked (past tailValid); HALF:
        // that block's softmax and P V for its first BN / 2 keys only.
        auto block = [&](int j, auto lastFlag, auto halfFlag) {
          constexpr bool LAST = decltype(lastFlag)::value;
          constexpr bool HALF = decltype(halfFlag)::value;
          constexpr int N = HALF ? BN / 2 : BN;
          const uint32_t cur = kv + j, prev = cur - 1;
          const uint32_t st = cur % kStages, ph = (cur / kStages) & 1;
          const uint32_t sp = prev % kStages, pp = (prev / kStages) & 1;
          mbarWait(kFull + 8 * st, ph);
          if (PINGPONG)
            namedBarrierSync(kScheduleBarrier + cw, 256);
          fenceOperands(s);
          if (HALF) {
            // O += P V and its wait first, then S at full width: a
            // half-width S, or S beside P V in flight, ahead of a
            // half-width softmax makes ptxas serialize every wgmma of the
            // kernel (C7511).
            mbarWait(vFull + 8 * sp, pp);
            fenceOperands(o);
            issuePV<T, DH, BN>(o, pf, vSmem + sp * L::kKVBytes);
            wgmmaWait<0>();
            fenceOperands(o);
            fenceOperands(pf);
            issueQK<T, DH, BN>(s, qRows, kSmem + st * L::kKVBytes);
            if (PINGPONG)
              namedBarrierArrive(kScheduleBarrier + 1 - cw, 256);
            wgmmaWait<0>();
          } else {
            issueQK<T, DH, BN>(s, qRows, kSmem + st * L::kKVBytes);
            mbarWait(vFull + 8 * sp, pp);
            fenceOperands(o);
            issuePV<T, DH, BN>(o, pf, vSmem + sp * L::kKVBytes);
            if (PINGPONG)
              namedBarrierArrive(kScheduleBarrier + 1 - cw, 256);
            wgmmaWait<1>();
          }
          fenceOperands(head<N / 2>(s));
          mbarArrive(kEmpty + 8 * st);
          mbarArriveIf(qEmpty, LAST || j == blocks - 1);
          if (LAST)
            maskTail<N, NEG>(head<N / 2>(s), tailValid, tq);
          softmaxBlock<N, NEG>(head<N / 2>(s), m0, m1, l0, l1, c0, c1, sl2);
          wgmmaWait<0>();
          fenceOperands(o);
          fenceOperands(pf);
          mbarArrive(vEmpty + 8 * sp);
          toFragments<T, N>(head<N / 2>(s), head<N / 4>(pf));
          // O (through P_{j-1}) to the new reference before P_j V_j; a
          // warp-uniform branch, after every wgmma of the warpgroup is done.
          if (__any_sync(0xffffffffu, c0 != 1.f || c1 != 1.f))
            rescale<DH>(o, c0, c1);
        };
        const int full = tailValid < BN ? blocks - 1 : blocks;
        for (int j = 1; j < full; ++j)
          block(j, Flag<false>(), Flag<false>());
        if (full < blocks && blocks > 1) {
          if (halfLast)
            block(blocks - 1, Flag<true>(), Flag<kHalfBlock>());
          else
            block(blocks - 1, Flag<true>(), Flag<false>());
        }
        // Tail: O += P_last V_last.
        auto tail = [&](auto halfFlag) {
          constexpr int N = decltype(halfFlag)::value ? BN / 2 : BN;
          const uint32_t last = kv + blocks - 1;
          const uint32_t sp = last % kStages, pp = (last / kStages) & 1;
          mbarWait(vFull + 8 * sp, pp);
          fenceOperands(o);
          issuePV<T, DH, BN, N>(o, head<N / 4>(pf), vSmem + sp * L::kKVBytes);
          wgmmaWait<0>();
          fenceOperands(o);
          fenceOperands(head<N / 4>(pf));
          mbarArrive(vEmpty + 8 * sp);
        };
        if (halfLast)
          tail(Flag<kHalfBlock>());
        else
          tail(Flag<false>());
      };
      if (neg)
        keyBlocks(Flag<true>());
      else
        keyBlocks(Flag<false>());
      kv += blocks;
    } else {
      mbarArrive(qEmpty);
    }

    //===--- Epilogue: O / l, staged through shared memory ---------------===//
    l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
    l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
    const float i0 = l0 > 0.f ? 1.f / l0 : 0.f;
    const float i1 = l1 > 0.f ? 1.f / l1 : 0.f;
    const int r0 = warp * 16 + g8, r1 = r0 + 8;
    const int slab = t.rowStart + 64 * cw; // first row of this warpgroup
    if (wt == 0)
      bulkWaitRead<0>(); // the last tile's TMA store has read the staging tile
    namedBarrierSync(kEpilogueBarrier + cw, 128);
#pragma unroll
    for (int j = 0; j < DH / 8; ++j) {
      asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(
                       oTile + panelOffset(r0, j, 64) + 4 * tq),
                   "r"(embrt::packCompute<T>(o[4 * j] * i0, o[4 * j + 1] * i0))
                   : "memory");
      asm volatile(
          "st.shared.b32 [%0], %1;\n" ::"r"(oTile + panelOffset(r1, j, 64) +
                                            4 * tq),
          "r"(embrt::packCompute<T>(o[4 * j + 2] * i1, o[4 * j + 3] * i1))
          : "memory");
    }
    if (contiguous && slab + 64 <= t.rows) {
      // The TMA engine reads the staging tile: async proxy.
      fenceProxyAsync();
      namedBarrierSync(kEpilogueBarrier + cw, 128);
      if (wt == 0) {
#pragma unroll
        for (int pn = 0; pn < DH / 64; ++pn)
          tmaStore2d(&tmO, oTile + pn * 64 * kPanelRow, h * DH + 64 * pn,
                     t.first * p.lq + slab);
        bulkCommit();
      }
    } else {
      namedBarrierSync(kEpilogueBarrier + cw, 128);
      constexpr int kChunks = DH / 8;
#pragma unroll 2
      for (int idx = wt; idx < 64 * kChunks; idx += 128) {
        const int row = idx / kChunks, c = idx % kChunks;
        const int r = slab + row;
        if (r < t.rows) {
          uint4 val;
          asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                       : "=r"(val.x), "=r"(val.y), "=r"(val.z), "=r"(val.w)
                       : "r"(oTile + panelOffset(row, c, 64))
                       : "memory");
          const long long off =
              contiguous ? ((long long)(t.first * p.lq + r) * p.heads + h) * DH
                         : attentionRowOffset(p, t, r, h);
          *reinterpret_cast<uint4 *>(out + off + 8 * c) = val;
        }
      }
    }
  }
  if (wt == 0)
    bulkWaitAll(); // this warpgroup's last TMA store is complete
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

PFN_cuTensorMapEncodeTiled_v12000 tensorMapEncoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void *f = nullptr;
    cudaDriverEntryPointQueryResult result;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000,
                                         cudaEnableDefault,
                                         &result) != cudaSuccess ||
        result != cudaDriverEntryPointSuccess)
      f = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

/// A 3-d map over k or v seen as [groups][Lk][H * DH] with boxes of 64
/// columns x BN keys, 128-byte swizzle, zero fill past Lk.
bool encodeKeyMap(CUtensorMap *map, const void *base, embrtDtype dtype,
                  const AttentionParams &p, int bn) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = tensorMapEncoder();
  if (!encode)
    return false;
  const uint64_t row = (uint64_t)p.heads * p.headDim;
  cuuint64_t dims[3] = {row, (cuuint64_t)p.lk, (cuuint64_t)p.numGroups};
  cuuint64_t strides[2] = {row * 2, (cuuint64_t)p.lk * row * 2};
  cuuint32_t box[3] = {64, (cuuint32_t)bn, 1};
  cuuint32_t elementStrides[3] = {1, 1, 1};
  CUresult r = encode(
      map,
      dtype == EMBRT_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                          : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      3, const_cast<void *>(base), dims, strides, box, elementStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS;
}

/// A 2-d map over q or out seen as [B * Lq][H * DH] with boxes of 64 columns
/// x `rows` rows, 128-byte swizzle (zero fill past the last row on loads,
/// clipping on stores).
bool encodeRowMap(CUtensorMap *map, const void *base, embrtDtype dtype,
                  const AttentionParams &p, int rows) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = tensorMapEncoder();
  if (!encode)
    return false;
  const uint64_t row = (uint64_t)p.heads * p.headDim;
  cuuint64_t dims[2] = {row, (cuuint64_t)p.batch * p.lq};
  cuuint64_t strides[1] = {row * 2};
  cuuint32_t box[2] = {64, (cuuint32_t)rows};
  cuuint32_t elementStrides[2] = {1, 1};
  CUresult r = encode(
      map,
      dtype == EMBRT_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                          : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      2, const_cast<void *>(base), dims, strides, box, elementStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS;
}

typedef void (*WgmmaKernel)(const CUtensorMap, const CUtensorMap,
                            const CUtensorMap, const CUtensorMap,
                            const AttentionParams);

/// The instantiation for (dtype, head dim, keys a block, pingpong).
struct WgmmaVariant {
  embrtDtype dtype;
  int headDim;
  int blockN;
  int pingpong;
  int kvFirst;
  WgmmaKernel kernel;
  int smemBytes;
};

#define WGMMA_VARIANT(dtype, T, DH, BN, PP, KF)                                \
  {                                                                            \
    dtype, DH, BN, PP, KF, attentionWgmmaKernel<T, DH, BN, PP, KF>,            \
        Sm90Layout<DH, BN>::kBytes                                             \
  }

const WgmmaVariant wgmmaVariants[] = {
    WGMMA_VARIANT(EMBRT_F16, __half, 128, 128, true, false),
    WGMMA_VARIANT(EMBRT_F16, __half, 128, 128, true, true),
    WGMMA_VARIANT(EMBRT_F16, __half, 128, 128, false, false),
    WGMMA_VARIANT(EMBRT_F16, __half, 128, 160, true, false),
    WGMMA_VARIANT(EMBRT_F16, __half, 64, 128, true, false),
    WGMMA_VARIANT(EMBRT_F16, __half, 64, 128, false, false),
    WGMMA_VARIANT(EMBRT_BF16, __nv_bfloat16, 128, 128, true, false),
    WGMMA_VARIANT(EMBRT_BF16, __nv_bfloat16, 128, 128, true, true),
    WGMMA_VARIANT(EMBRT_BF16, __nv_bfloat16, 128, 128, false, false),
    WGMMA_VARIANT(EMBRT_BF16, __nv_bfloat16, 128, 160, true, false),
    WGMMA_VARIANT(EMBRT_BF16, __nv_bfloat16, 64, 128, true, false),
    WGMMA_VARIANT(EMBRT_BF16, __nv_bfloat16, 64, 128, false, false),
};

} // namespace

embrtStatus attentionLaunchSm90a(embrtLaunchEnv *env,
                                 const embrtAttentionArgs *args,
                                 const AttentionParams &params, int configId,
                                 int maxTiles) {
  const AttentionConfig &config = kAttentionConfigs[configId];
  const WgmmaVariant *variant = nullptr;
  for (const WgmmaVariant &v : wgmmaVariants)
    if (v.dtype == args->dtype && v.headDim == config.headDim &&
        v.blockN == config.blockN && v.pingpong == config.pingpong &&
        v.kvFirst == config.kvFirst)
      variant = &v;
  if (!variant)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "attention: no wgmma kernel for config %s",
                            config.name);
  if (env->maxSharedPerBlockOptin > 0 &&
      env->maxSharedPerBlockOptin < variant->smemBytes)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "attention: config %s needs %d bytes of shared "
                            "memory, the device has %lld",
                            config.name, variant->smemBytes,
                            (long long)env->maxSharedPerBlockOptin);
  CUtensorMap mapK, mapV, mapQ, mapO;
  if (!encodeKeyMap(&mapK, args->k, args->dtype, params, config.blockN) ||
      !encodeKeyMap(&mapV, args->v, args->dtype, params, config.blockN) ||
      !encodeRowMap(&mapQ, args->q, args->dtype, params, kBlockM) ||
      !encodeRowMap(&mapO, args->output, args->dtype, params, 64))
    return embrtLaunchError(env, EMBRT_DEVICE_ERROR,
                            "attention: cuTensorMapEncodeTiled failed");
  embrtStatus st = embrtCudaCheck(
      env,
      cudaFuncSetAttribute(variant->kernel,
                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                           variant->smemBytes),
      "attention: wgmma shared memory attribute");
  if (st != EMBRT_OK)
    return st;
  int64_t items = (int64_t)maxTiles * params.heads;
  int sms = env->smCount > 0 ? env->smCount : 132;
  int grid = (int)(items < sms ? items : sms);
  if (grid == 0)
    return EMBRT_OK;
  // After the plan kernel (ikbo), a programmatic dependent launch: the CTAs
  // start while the plan runs and wait for it in the kernel
  // (gridDependencyWait), which hides the launch between the two.
  cudaLaunchConfig_t lc = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  lc.gridDim = dim3(grid, 1, 1);
  lc.blockDim = dim3(kThreads, 1, 1);
  lc.dynamicSmemBytes = variant->smemBytes;
  lc.stream = (cudaStream_t)env->stream;
  lc.attrs = attr;
  lc.numAttrs = params.plain ? 0 : 1;
  cudaError_t err =
      cudaLaunchKernelEx(&lc, variant->kernel, mapK, mapV, mapQ, mapO, params);
  if (err == cudaSuccess)
    err = cudaGetLastError();
  return embrtCudaCheck(env, err, "attention: wgmma launch");
}
