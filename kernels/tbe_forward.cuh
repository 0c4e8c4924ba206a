//===- kernels/tbe_forward.cuh - The TBE forward's kernel, in parts -*- C++
//-*-===//
//
// The forward of emb.tbe (and of emb.embedding_bag, a TBE of one feature) in
// one launch for all features: pooled sum or mean, weighted or not, or one
// output row per id (pooling NONE); f32, f16 and bf16 tables with f32 or
// table-typed output; i32 or i64 ids and offsets; any D from 1 to 2048 per
// table; padding ids and all four bounds-check modes.
//
// The work is a gather of random rows, so the design is about the memory
// system:
//   - A bag is pooled by a group of G lanes, G the fewest power of two that
//     covers a row with one 16-byte load per lane (8-, 4- or 2-byte loads when
//     D * size or the table's address is not a multiple of 16). Wider rows
//     take several groups of 32 lanes, one column pass each. G is per
//     feature, so narrow tables waste no lanes and one launch serves every D.
//   - A long bag is a chain of dependent stages (ids, then rows). Launches
//     of few bags (latency bound) may split each bag over S groups of a
//     warp (TbeConfig::splitsPerBag): group k takes stages k, k + S, ...
//     and the groups add their sums by shuffles at the bag's end, so the
//     longest bag walks S times fewer stages in sequence.
//   - Rows travel by cp.async into per-lane shared-memory slots, two stages
//     of kRows (6, or 8 where the configuration says so) rows: a lane has up
//     to 2 * kRows row loads in flight while it adds the previous stage, and
//     the loads in flight hold no registers, so occupancy stays high. A group
//     pools `bagsPerGroup` consecutive bags as one stream of ids, so short
//     bags still fill the stages. f32 tables' rows go through L1 (hot rows
//     of skewed ids hit there), 16-bit tables' bypass it.
//   - Few instructions a row, since with 16-byte rows a row costs more
//     issue than memory time: 32-bit positions where N < 2^31 (kernels per
//     id width, chosen at launch), one bag-end test a stage (a stage inside
//     one bag is added whole: its unused slots hold zeros), slots at
//     constant offsets, one multiply-add a row address.
//   - CTAs are laid out feature-major; each CTA finds its feature by a binary
//     search over per-feature CTA counts kept in the kernel parameters. No
//     host synchronisation and no allocation: metadata travels by value
//     (small and large parameter blocks), or through the caller's workspace
//     beyond kLargeCap features.
//   - Offsets are checked by the groups that read them (no extra pass) and
//     clamped, so bad offsets are reported and never read out of bounds.
//   - Pooling NONE is a gather: each id's row is its own output row, so the
//     work is split by position, not by bag (a lookup of N ids as one bag,
//     as F.embedding raises to, or a few long sequences, would otherwise
//     leave one group copying every row in turn). A feature's groups take
//     runs of kPositionsPerRun ids of its range, grid-stride, and check its
//     offsets a bag each in the same stride.
//   - Offsets read as a mask (embrtTbeArgs::maskedOffsets) run here when
//     they are valid by the usual rules; a flag in the workspace, set on the
//     stream by kernels/tbe_masked.cu's check, makes every CTA return at
//     once when they are not (Shared::maskFlag: one load a thread, the same
//     word for all), and kernels/tbe_masked.cu's kernel computes the lookup
//     instead.
// Accumulation is f32 for f16/bf16 tables and f64 for f32 tables.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_FORWARD_CUH
#define EMB_KERNELS_TBE_FORWARD_CUH

#include "kernels/common/convert.cuh"
#include "kernels/common/device_errors.cuh"
#include "kernels/launch.h"
#include "kernels/tbe_common.cuh"
#include "kernels/tbe_config.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

namespace {

//===----------------------------------------------------------------------===//
// Launch metadata, shared by host and device
//===----------------------------------------------------------------------===//

// Tuning knobs. The library is built with the defaults; kernels/variants.cmake
// declares variants of this file with other values: the benchmark links them
// with EMB_TBE_SUFFIX appended to the entry points' names to time them in one
// run, and the GPU test tbe_pos64 links the one with EMB_TBE_POS32=0. The
// rows of a stage come from the launch configuration (kernels/tbe_config.h).
#ifndef EMB_TBE_STAGES
#define EMB_TBE_STAGES 2
#endif
#ifndef EMB_TBE_POS32
#define EMB_TBE_POS32 1
#endif
#ifndef EMB_TBE_STREAM_HINTS
#define EMB_TBE_STREAM_HINTS 1
#endif
#ifndef EMB_TBE_ROWS_L1_F32
#define EMB_TBE_ROWS_L1_F32 1
#endif
#ifndef EMB_TBE_ROWS_L1_16
#define EMB_TBE_ROWS_L1_16 0
#endif
#ifndef EMB_TBE_SMALL_CAP
#define EMB_TBE_SMALL_CAP 32
#endif
#ifndef EMB_TBE_PREFETCH_PAGES
#define EMB_TBE_PREFETCH_PAGES 0
#endif
#ifndef EMB_TBE_PACKED_LANES
#define EMB_TBE_PACKED_LANES 0
#endif
#ifndef EMB_TBE_PACKED_ROWS
#define EMB_TBE_PACKED_ROWS 8
#endif
#ifndef EMB_TBE_PACKED_VEC
#define EMB_TBE_PACKED_VEC 16
#endif
#ifndef EMB_TBE_PACKED_MIN_BLOCKS
#define EMB_TBE_PACKED_MIN_BLOCKS 2
#endif
#ifdef EMB_TBE_SUFFIX
#define EMB_TBE_PASTE2(a, b) a##b
#define EMB_TBE_PASTE(a, b) EMB_TBE_PASTE2(a, b)
#define EMB_TBE_ENTRY(name) EMB_TBE_PASTE(name, EMB_TBE_SUFFIX)
#else
#define EMB_TBE_ENTRY(name) name
#endif

/// Pipeline stages of a lane: a lane has up to kRows * kStages row chunks in
/// flight (kRows * (kStages - 1) while it adds a stage), kRows the
/// configuration's rowsPerStage.
constexpr int kStages = EMB_TBE_STAGES;
/// 32-bit positions in the ids and 32-bit row numbers where N < 2^31 and
/// every table has fewer than 2^31 rows (the kernel's kIds 4 or 8); off, every
/// launch takes the 64-bit kernels (kIds 0), as launches beyond those limits
/// do.
constexpr bool kPos32 = EMB_TBE_POS32;
/// Ids and outputs are touched once: load and store them evict-first, so
/// that L2 keeps table rows (hot rows of skewed ids hit there).
constexpr bool kStreamHints = EMB_TBE_STREAM_HINTS;
/// 16-byte row chunks of f32 tables go through L1 (cp.async.ca), so that
/// hot rows of skewed ids hit there (measured on an H200, bench/tbe/NOTES.md
/// call 5: f32 Zipf 20% faster, uniform within 1%); those of 16-bit tables
/// bypass it (.cg), as all did before.
template <typename T>
constexpr bool kRowsL1 = sizeof(T) == 4 ? EMB_TBE_ROWS_L1_F32
                                        : EMB_TBE_ROWS_L1_16;
/// How packed rows are split among a group's lanes. 0: a lane a kVec-byte
/// chunk of the row as stored, so chunk 0 holds the 4-byte header and the
/// first elements, and the last chunk the last elements and the padding
/// (int4 at D = 128: 5 lanes, each decoding 32 values, 160 for 128
/// elements). 1: a lane a kVec-byte chunk of the row's elements, so that
/// every decoded value is an element (int4 at D = 128: 4 lanes, 8 groups a
/// warp); chunk c of the elements is the stored chunk c's last kVec - 4
/// bytes and the first 4 of the next stored chunk, which the next lane (for
/// the group's last lane, a 4-byte copy of the group's first lane) hands
/// over by a shuffle.
constexpr bool kDataLanes = EMB_TBE_PACKED_LANES;
static_assert(EMB_TBE_PACKED_VEC == 16 || EMB_TBE_PACKED_VEC == 8,
              "EMB_TBE_PACKED_VEC: a packed row's chunk is 16 or 8 bytes");
/// Shared memory of one thread: its row slots (16 bytes each, whatever the
/// chunk width). 6 rows: 192 bytes, a CTA of 256 threads takes 48 KB;
/// 8 rows: 256 bytes, 64 KB.
constexpr int kSlotBytes = 16;
/// Packed rows' kernels with kDataLanes also keep 4 bytes a slot: the word
/// a group's first lane copies past its last lane's chunk (extraSlot).
constexpr int smemPerThread(int rows, bool packed = false) {
  return rows * kStages * (kSlotBytes + (packed && kDataLanes ? 4 : 0));
}
/// The largest CTA (the configurations' threadsPerBlock are at most this),
/// and the CTAs of that size an SM should hold: 3 * 256 threads at 80
/// registers and 48 KB (64 KB with 8-row stages) of slots each.
constexpr int kMaxThreads = 256;
constexpr int kMinBlocks = 3;
/// Packed rows' kernels: 2 such CTAs, so that a lane's 32 accumulators,
/// its chunk and the decoded values fit registers (at 3, the int4 and int2
/// kernels spilled 2-3 KB a thread); 2 * 256 threads still keep 16 rows of
/// every group in flight.
constexpr int kMinBlocksPacked = EMB_TBE_PACKED_MIN_BLOCKS;
/// Features whose metadata fits the small and the large parameter block.
/// The large block is about 32 KB (CUDA 12.1+ allows 32764 bytes); the small
/// one keeps the launch cheap for the common few-feature case.
constexpr int kSmallCap = EMB_TBE_SMALL_CAP;
constexpr int kLargeCap = 1000;
/// Table prefetch of small launches, off by default (0): a grid of at most
/// kPrefetchGridCtas CTAs (one wave on an H200) first prefetches one line
/// of every 2^kPrefetchPageLog2 bytes of its feature's table into L2,
/// spread over the feature's CTAs, so that the table's address translations
/// (which an L2 flush makes cost: 8192 random rows of a 64 MB table took
/// 0.4-1.2 us more than 8192 rows of one 512 KB piece) start next to the
/// offsets load. Measured on an H200 with 64 KB (16) and 2 MB (21) pieces
/// (bench/tbe/NOTES.md, call 8): within noise of no prefetch at D=32 and
/// D=64, 0.1-0.6 us faster at D=128; translation misses after a flush are
/// served one after another (four loads to four buffers cost the same at
/// once as in a chain), so issuing them earlier buys little.
constexpr int kPrefetchPageLog2 = EMB_TBE_PREFETCH_PAGES;
constexpr int kPrefetchGridCtas = 3 * 132;

/// Pooling NONE: the ids a group copies before it strides on (a few stages:
/// short enough that a lookup of a few thousand ids spreads over the GPU),
/// and the most bags per group whose offsets it checks, which sets the
/// fewest groups of a feature.
constexpr int kPositionsPerRun = 32;
constexpr int kBagsPerCheck = 32;

/// log2 of the groups one bag of a feature is split over: the launch's
/// most (Shared::splitsLog2), within one warp of groups of 2^lanesLog2
/// lanes.
__host__ __device__ inline int splitsLog2Of(int launchLog2, int lanesLog2) {
  return launchLog2 < 5 - lanesLog2 ? launchLog2 : 5 - lanesLog2;
}

/// One feature: its table, its output columns and its share of the grid.
struct FeatureMeta {
  const char *table;    ///< row-major [rows, dim]
  long long rows;       ///< rows of the table
  int outCol;           ///< first output column (0 for pooling NONE)
  int firstCta;         ///< first CTA of this feature (prefix over features)
  int tableIndex;       ///< for error reports
  unsigned short dim;   ///< D, 1..2048
  unsigned char passes; ///< column passes (more than one only when G == 32)
  unsigned char flags;  ///< lanesLog2 (bits 0-2), vecLog2 (3-5), outVec (6)
};
static_assert(sizeof(FeatureMeta) == 32, "FeatureMeta is 32 bytes");

/// Arguments shared by all features.
struct Shared {
  const void *indices;
  const void *offsets;
  const void *weights;
  void *output;
  embrtDeviceErrors *errors;
  const FeatureMeta *metaGlobal; ///< metadata in the workspace, or NULL
  const void *featureEnds;       ///< [2F] of the offsets' type, or NULL
  long long batch;               ///< B
  long long numIndices;          ///< N
  long long outStride;           ///< elements per output row
  long long paddingIdx;
  long long positionRuns; ///< pooling NONE: groups a feature, else 0
  int numFeatures;
  int bagsPerGroup;
  unsigned char pooling;    ///< embrtPooling
  unsigned char bounds;     ///< embrtBoundsCheck
  unsigned char idx64;      ///< ids are i64
  unsigned char off64;      ///< offsets are i64
  unsigned char weightKind; ///< 0 none, 1 f32, 2 f16, 3 bf16
  unsigned char outF32;     ///< output is f32 (else the table dtype)
  unsigned char hasPadding;
  unsigned char outBf16; ///< packed rows: the 16-bit output is bf16, not f16
  /// log2 of the groups a bag is split over at most (TbeConfig::
  /// splitsPerBag; 0 for pooling NONE and packed rows): feature f's bags
  /// take splitsLog2Of(splitsLog2, lanesLog2) (one bag a group).
  unsigned char splitsLog2;
  /// Offsets read as a mask (embrtTbeArgs::maskedOffsets): a word of the
  /// workspace that is nonzero when they are not valid by the usual rules
  /// (kernels/tbe_masked.cu); NULL for the usual lookup.
  const unsigned *maskFlag;
};

/// A bag split over 2^log2 groups of a warp (Shared::splitsLog2; log2 0:
/// not split), from this thread's place: computed where it is used, not
/// held in registers through the stream.
struct SplitBag {
  int log2;      ///< the bag's groups, log2
  int lanesLog2; ///< lanes a group (G), log2
  int index;     ///< this thread's group among the bag's
  __device__ SplitBag(const Shared &s, const FeatureMeta &m)
      : log2(splitsLog2Of(s.splitsLog2, m.flags & 7)), lanesLog2(m.flags & 7),
        index(((int)(threadIdx.x & 31) >> lanesLog2) & ((1 << log2) - 1)) {}
};

template <int kCap> struct Params {
  Shared s;
  FeatureMeta meta[kCap];
};
static_assert(sizeof(Params<kLargeCap>) <= 32764, "parameter block too big");

//===----------------------------------------------------------------------===//
// Device helpers: loads, conversions, stores, error records
//===----------------------------------------------------------------------===//

/// kBytes of one row chunk, as 32-bit words (a 2-byte chunk in w[0]).
template <int kBytes> struct Chunk {
  unsigned w[kBytes >= 4 ? kBytes / 4 : 1];
};

/// Starts copying kBytes from `src` to shared address `dst`, or zeros when
/// `!pred` (src-size 0: nothing is read). 2-byte chunks, which cp.async
/// cannot copy, go through a register. kL1: 16-byte chunks through L1.
template <int kBytes, bool kL1>
__device__ __forceinline__ void copyChunkAsync(unsigned dst, const char *src,
                                               bool pred) {
  if constexpr (kBytes >= 4) {
    embrt::copyAsync<kBytes, kL1>(dst, src, pred);
  } else {
    static_assert(kBytes == 2, "row chunks are 2, 4, 8 or 16 bytes");
    unsigned short h = 0;
    if (pred)
      h = __ldg(reinterpret_cast<const unsigned short *>(src));
    asm volatile("st.shared.u16 [%0], %1;" ::"r"(dst), "h"(h) : "memory");
  }
}

template <int kBytes>
__device__ __forceinline__ Chunk<kBytes> loadSharedChunk(unsigned src) {
  Chunk<kBytes> c;
  if constexpr (kBytes == 16) {
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(c.w[0]), "=r"(c.w[1]), "=r"(c.w[2]), "=r"(c.w[3])
                 : "r"(src)
                 : "memory");
  } else if constexpr (kBytes == 8) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
                 : "=r"(c.w[0]), "=r"(c.w[1])
                 : "r"(src)
                 : "memory");
  } else if constexpr (kBytes == 4) {
    asm volatile("ld.shared.u32 %0, [%1];"
                 : "=r"(c.w[0])
                 : "r"(src)
                 : "memory");
  } else {
    unsigned short h;
    asm volatile("ld.shared.u16 %0, [%1];" : "=h"(h) : "r"(src) : "memory");
    c.w[0] = h;
  }
  return c;
}

/// Element i of a chunk of T, widened to the accumulator type.
template <typename T> struct Elem;
template <> struct Elem<float> {
  using Acc = double;
  __device__ static double get(const unsigned *w, int i) {
    return (double)__uint_as_float(w[i]);
  }
};
template <> struct Elem<__half> {
  using Acc = float;
  __device__ static float get(const unsigned *w, int i) {
    unsigned short bits = (unsigned short)(w[i / 2] >> (16 * (i % 2)));
    return __half2float(__ushort_as_half(bits));
  }
  __device__ static unsigned short round(float v) {
    return __half_as_ushort(__float2half_rn(v));
  }
};
template <> struct Elem<__nv_bfloat16> {
  using Acc = float;
  __device__ static float get(const unsigned *w, int i) {
    return __uint_as_float(i % 2 ? w[i / 2] & 0xffff0000u : w[i / 2] << 16);
  }
  __device__ static unsigned short round(float v) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  }
};

template <typename V> __device__ __forceinline__ V loadOnce(const V *p) {
  if constexpr (kStreamHints)
    return __ldcs(p);
  else
    return __ldg(p);
}

template <typename V> __device__ __forceinline__ void storeOnce(V *p, V v) {
  if constexpr (kStreamHints)
    __stcs(p, v);
  else
    *p = v;
}

/// Stores kBytes from words `w` at `dst`, in 16-byte (or smaller) pieces.
/// `dst` is aligned to min(16, kBytes).
template <int kBytes>
__device__ __forceinline__ void storeWords(char *dst, const unsigned *w) {
  if constexpr (kBytes >= 16) {
#pragma unroll
    for (int i = 0; i < kBytes / 16; ++i)
      storeOnce(reinterpret_cast<uint4 *>(dst) + i,
                make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]));
  } else if constexpr (kBytes == 8) {
    storeOnce(reinterpret_cast<uint2 *>(dst), make_uint2(w[0], w[1]));
  } else if constexpr (kBytes == 4) {
    storeOnce(reinterpret_cast<unsigned *>(dst), w[0]);
  } else {
    storeOnce(reinterpret_cast<unsigned short *>(dst), (unsigned short)w[0]);
  }
}

/// Writes kN accumulated values as f32 or as T. `vec`: dst is aligned for
/// whole-chunk vector stores; otherwise element by element.
template <typename T, int kN>
__device__ __forceinline__ void
storeChunk(char *dst, const typename Elem<T>::Acc *v, bool outF32, bool vec) {
  if (outF32 || sizeof(T) == 4) {
    unsigned w[kN];
#pragma unroll
    for (int i = 0; i < kN; ++i)
      w[i] = __float_as_uint((float)v[i]);
    if (vec) {
      storeWords<kN * 4>(dst, w);
    } else {
#pragma unroll
      for (int i = 0; i < kN; ++i)
        storeOnce(reinterpret_cast<unsigned *>(dst) + i, w[i]);
    }
    return;
  }
  if constexpr (sizeof(T) == 2) {
    unsigned short h[kN];
#pragma unroll
    for (int i = 0; i < kN; ++i)
      h[i] = Elem<T>::round((float)v[i]);
    if (vec) {
      unsigned w[(kN + 1) / 2];
#pragma unroll
      for (int i = 0; i < kN; i += 2)
        w[i / 2] = h[i] | (i + 1 < kN ? (unsigned)h[i + 1] << 16 : 0u);
      storeWords<kN * 2>(dst, w);
    } else {
#pragma unroll
      for (int i = 0; i < kN; ++i)
        storeOnce(reinterpret_cast<unsigned short *>(dst) + i, h[i]);
    }
  }
}

//===----------------------------------------------------------------------===//
// Row formats: dense rows of T, or packed rows of a quantized table
//===----------------------------------------------------------------------===//

/// Rows of a quantized table of precision P (embrtTablePrecision): a 4-byte
/// header, the elements, zeros up to a multiple of 16 bytes
/// (include/emb/runtime.h). A lane copies a kVec-byte chunk of such a row
/// as of any other, so chunk 0 holds the header and the first elements;
/// the group's other lanes read the header from chunk 0's slot.
template <int P> struct Packed {};

/// How the kernel reads rows of table type T: dense rows of T, the lane's
/// chunk kVec / sizeof(T) elements of the accumulator type.
template <typename T> struct Format {
  static constexpr bool kPacked = false;
  static constexpr bool kFp8 = false;
  using Acc = typename Elem<T>::Acc;
  /// Bytes of an output element that is not f32.
  static constexpr int kOutBytes = (int)sizeof(T);
  __host__ __device__ static constexpr int elems(int vec) {
    return vec / (int)sizeof(T);
  }
  __host__ __device__ static unsigned rowBytes(unsigned dim) {
    return dim * (unsigned)sizeof(T);
  }
};

/// Packed<P> rows, read as runtime/quantize.h reads them, so that both
/// backends compute the same f32 values: a copied row (pooling none) is
/// embrtDecodeRow's, element q of an int8, int4 or int2 row
/// fmaf(scale, q, bias), of an fp8 row e4m3(q) * scale; a pooled bag of int
/// rows sums embrtDecodeRowProducts' scale * q and, apart, the rows' biases
/// (poolBags). The output is f32, f16 or bf16 (Shared::outF32, outBf16).
template <int P> struct Format<Packed<P>> {
  static constexpr bool kPacked = true;
  static constexpr bool kFp8 = P == EMBRT_PRECISION_FP8;
  static constexpr int kBits = P == EMBRT_PRECISION_INT4   ? 4
                               : P == EMBRT_PRECISION_INT2 ? 2
                                                           : 8;
  /// A lane's chunk: EMB_TBE_PACKED_VEC bytes, 16 or 8 (8 for int2), so that
  /// a lane decodes at most 32 elements into its accumulators.
  static constexpr int kVec = kBits == 2 ? 8 : EMB_TBE_PACKED_VEC;
  /// The elements of a chunk's first byte are a multiple of kPiece apart
  /// (chunk c starts at element (c * kVec - 4) * 8 / kBits): the chunk is
  /// written in pieces of kPiece elements, each inside the row or outside.
  static constexpr int kPiece = kBits == 8 ? 4 : 32 / kBits;
  using Acc = float;
  static constexpr int kOutBytes = 2;
  __host__ __device__ static constexpr int elems(int vec) {
    return vec * 8 / kBits;
  }
  __host__ __device__ static unsigned rowBytes(unsigned dim) {
    return (4 + dataBytes(dim) + 15) / 16 * 16;
  }
  /// Bytes of a row's elements.
  __host__ __device__ static unsigned dataBytes(unsigned dim) {
    return dim * kBits / 8;
  }
  /// The chunks a row is split into among lanes (kDataLanes).
  __host__ __device__ static int chunks(unsigned dim) {
    return kDataLanes ? (int)((dataBytes(dim) + kVec - 1) / kVec)
                      : (int)(rowBytes(dim) / kVec);
  }
  /// The row element that the first value lane chunk `chunk` decodes is
  /// (negative in the header).
  __device__ static int firstElem(int chunk) {
    return kDataLanes ? chunk * elems(kVec) : (chunk * kVec - 4) * 8 / kBits;
  }
  struct Header {
    float scale, bias;
    /// -scale * 2^23 (exact): fmaf(scale, 2^23 + q, offset) is scale * q,
    /// exactly (at most 19 significant bits).
    float offset;
  };
  /// The header's 4 bytes as one word.
  __device__ static Header header(unsigned h) {
    if constexpr (kFp8) {
      return {__uint_as_float(h), 0.0f, 0.0f};
    } else {
      const float scale =
          __half2float(__ushort_as_half((unsigned short)(h & 0xffffu)));
      return {scale, __half2float(__ushort_as_half((unsigned short)(h >> 16))),
              -scale * 8388608.0f};
    }
  }
  /// The kN values of chunk `w` of a row with header `h`. The products are
  /// rounded on their own (no contraction into the caller's sums), as on
  /// the host. kApart (int8, int4, int2): scale * q, without the bias.
  template <int kN, bool kApart = false>
  __device__ static void decode(const unsigned *w, Header h, float *v) {
    if constexpr (kFp8) {
#pragma unroll
      for (int i = 0; i < kN; i += 2) {
        const __half2_raw r = __nv_cvt_fp8x2_to_halfraw2(
            (__nv_fp8x2_storage_t)(w[i / 4] >> (8 * (i % 4))), __NV_E4M3);
        v[i] = __fmul_rn(__half2float(__ushort_as_half(r.x)), h.scale);
        v[i + 1] = __fmul_rn(__half2float(__ushort_as_half(r.y)), h.scale);
      }
    } else {
      // Element k of a byte (of 8 / kBits) is bits [k * kBits, + kBits):
      // mask every byte's k-th element into place once a word, then each
      // element is one byte permute into 2^23 + q, as a float, less 2^23:
      // q, exactly.
      constexpr int kPerByte = 8 / kBits;
      constexpr unsigned kMask = ((1u << kBits) - 1) * 0x01010101u;
#pragma unroll
      for (int word = 0; word < kN / (4 * kPerByte); ++word) {
        unsigned part[kPerByte];
#pragma unroll
        for (int k = 0; k < kPerByte; ++k)
          part[k] = (w[word] >> (k * kBits)) & kMask;
#pragma unroll
        for (int j = 0; j < 4 * kPerByte; ++j) {
          const unsigned bits = __byte_perm(part[j % kPerByte], 0x4b000000u,
                                            0x7540u | (j / kPerByte));
          if constexpr (kApart) {
            v[word * 4 * kPerByte + j] =
                fmaf(h.scale, __uint_as_float(bits), h.offset);
          } else {
            const float x = __uint_as_float(bits) - 8388608.0f;
            v[word * 4 * kPerByte + j] = fmaf(h.scale, x, h.bias);
          }
        }
      }
    }
  }
  /// Writes the kN values of the chunk whose first byte is element e0 to
  /// output row `row` (element 0's column): the elements in [0, dim),
  /// kPiece at a time, as f32, f16 or bf16. `vec`: the output rows allow
  /// whole-piece vector stores.
  template <int kN>
  __device__ static void store(char *row, const float *v, int e0, int dim,
                               const Shared &s, bool vec) {
    const int outSize = s.outF32 ? 4 : 2;
#pragma unroll
    for (int p = 0; p < kN; p += kPiece) {
      const int e = e0 + p;
      if (e < 0 || e >= dim)
        continue; // the header, or the padding after the row
      char *dst = row + (long long)e * outSize;
      unsigned w[kPiece];
      if (s.outF32) {
#pragma unroll
        for (int i = 0; i < kPiece; ++i)
          w[i] = __float_as_uint(v[p + i]);
      } else {
#pragma unroll
        for (int i = 0; i < kPiece; ++i)
          w[i] = s.outBf16 ? Elem<__nv_bfloat16>::round(v[p + i])
                           : Elem<__half>::round(v[p + i]);
      }
      if (vec && e + kPiece <= dim) {
        if (s.outF32) {
          storeWords<kPiece * 4>(dst, w);
        } else {
          unsigned h[kPiece / 2];
#pragma unroll
          for (int i = 0; i < kPiece; i += 2)
            h[i / 2] = w[i] | w[i + 1] << 16;
          storeWords<kPiece * 2>(dst, h);
        }
      } else {
#pragma unroll
        for (int i = 0; i < kPiece; ++i) {
          if (e + i >= dim)
            break;
          if (s.outF32)
            storeOnce(reinterpret_cast<unsigned *>(dst) + i, w[i]);
          else
            storeOnce(reinterpret_cast<unsigned short *>(dst) + i,
                      (unsigned short)w[i]);
        }
      }
    }
  }
};

/// Ids are touched once: evict-first with the stream hints, as loadOnce.
__device__ __forceinline__ long long loadIndex(const Shared &s, long long i) {
  constexpr TbeIdLoad kLoad =
      kStreamHints ? TbeIdLoad::Streaming : TbeIdLoad::ReadOnly;
  return loadIndex<kLoad>(s, i);
}

__device__ __forceinline__ void prefetchL2(const void *p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/// Entry i of the feature ends (embrtTbeArgs::featureEnds).
__device__ __forceinline__ long long loadEnd(const Shared &s, long long i) {
  return s.off64
             ? __ldg(static_cast<const long long *>(s.featureEnds) + i)
             : (long long)__ldg(static_cast<const int *>(s.featureEnds) + i);
}

/// `raw` less `start` (>= 0), saturated at INT64_MIN: an offset in a
/// feature's own numbers.
__device__ __forceinline__ long long ownOffset(long long raw, long long start) {
  return raw < INT64_MIN + start ? (long long)INT64_MIN : raw - start;
}

/// With feature ends, the offsets of bags b0 .. b0 + nb - 1 of feature f,
/// in the feature's own numbers (less where its ids start), as its own bag
/// checked them: the first is 0, none decreases or passes the feature's id
/// count, its own last offset (featureEnds[F + f]) is that count; and the
/// ends themselves in order up to N. The first bad one goes to the error
/// record (EMBRT_DEVERR_BAD_FEATURE_OFFSETS). Out of the hot loop: one lane
/// calls it, only when the lookup has feature ends: for each bag it reads
/// in copyPositions, and in lookupBags only for a feature's first and last
/// groups and a group whose offsets are out of order.
__device__ __noinline__ void checkFeatureOffsets(const Shared &s, int f,
                                                 long long b0, long long nb) {
  const long long B = s.batch, N = s.numIndices;
  const long long start = f > 0 ? loadEnd(s, f - 1) : 0;
  const long long end = loadEnd(s, f), count = end - start;
  if (end < start || end > N || (f + 1 == s.numFeatures && end != N)) {
    embrtDeviceRecordError(s.errors, EMBRT_DEVERR_BAD_FEATURE_OFFSETS, f, -1,
                           -1, end, N);
    return;
  }
  // The feature's first offset before its own range, so that whichever of
  // its groups reports, a feature that starts wrong is named for that, as
  // its bag's check would (a start of 1 also leaves its last offset short).
  const long long first = (long long)f * B;
  const long long zero = ownOffset(loadOffset(s, first), start);
  if (zero != 0) {
    embrtDeviceRecordError(s.errors, EMBRT_DEVERR_BAD_FEATURE_OFFSETS, f, 0, 0,
                           zero, 0);
    return;
  }
  long long previous = ownOffset(loadOffset(s, first + b0), start);
  for (long long b = b0 + 1; b <= b0 + nb; ++b) {
    const long long v = b < B ? ownOffset(loadOffset(s, first + b), start)
                              : loadEnd(s, s.numFeatures + f);
    if (v < previous || v > count) {
      embrtDeviceRecordError(s.errors, EMBRT_DEVERR_BAD_FEATURE_OFFSETS, f,
                             b - 1, b, v, count);
      return;
    }
    previous = v;
  }
  if (b0 + nb < B)
    return;
  if (previous != count)
    embrtDeviceRecordError(s.errors, EMBRT_DEVERR_BAD_FEATURE_OFFSETS, f, -1, B,
                           previous, count);
  else if (f + 1 == s.numFeatures && loadOffset(s, first + B) != N)
    // The lookup's own last offset, which ends the last bag.
    embrtDeviceRecordError(s.errors, EMBRT_DEVERR_BAD_OFFSETS, f, B - 1,
                           first + B, loadOffset(s, first + B), N);
}

/// The end of bag g0 + k given the (sanitized) end of the bag before it:
/// offsets are clamped to be non-decreasing and within [0, N], so that a
/// group never reads outside the ids, whatever the offsets hold. Bad offsets
/// are reported by the group that reads them (lookupBags).
__device__ __forceinline__ long long bagEndAfter(const Shared &s, long long g,
                                                 long long previousEnd) {
  return min(max(loadOffset(s, g + 1), previousEnd), s.numIndices);
}

/// Reports the out-of-range ids of one batch (bit j of `bad`: position
/// pos + j) of the group that pools bags g0 .. g0 + nb - 1. Rare: the bag is
/// found again from the offsets.
__device__ __noinline__ void reportBadIds(const Shared &s, int feature,
                                          int table, long long rows,
                                          long long b0, long long g0, int nb,
                                          long long pos, unsigned bad) {
  if (s.bounds == EMBRT_BOUNDS_WARNING) {
    embrtDeviceCountInvalidIds(s.errors, (unsigned long long)__popc(bad));
    return;
  }
  const long long q = pos + __ffs(bad) - 1;
  int k = 0;
  if (nb > kBagsPerCheck) {
    // A whole feature's bags (pooling NONE): the first bag whose end is
    // past q, by bisection (offsets that decrease were reported already).
    int lo = 0, hi = nb - 1;
    while (lo < hi) {
      const int mid = (lo + hi) >> 1;
      if (loadOffset(s, g0 + mid + 1) > q)
        hi = mid;
      else
        lo = mid + 1;
    }
    k = lo;
  } else {
    long long end =
        bagEndAfter(s, g0, min(max(loadOffset(s, g0), 0ll), s.numIndices));
    while (k < nb - 1 && end <= q)
      end = bagEndAfter(s, g0 + ++k, end);
  }
  embrtDeviceRecordBadId(s.errors, feature, table, b0 + k, q, loadIndex(s, q),
                         rows);
}

//===----------------------------------------------------------------------===//
// Device building blocks: ids and positions
//===----------------------------------------------------------------------===//

/// How a kernel reads ids, its kIds argument (chosen at launch): 4 or 8 for
/// i32 or i64 ids with positions in the ids as int, where N < 2^31 and every
/// table has fewer than 2^31 rows (row offsets then take one 32 x 32-bit
/// multiply); 0 for either width (a run-time branch a load) with positions
/// as long long, for launches beyond those limits.
template <int kIds> struct Ids;

/// c + a * b with a 32 x 32-bit product: one wide multiply-add where `c` is
/// opaque (see streamIds). Written as PTX because the compiler widens b =
/// dim * sizeof(T) to 64 bits and then multiplies both halves.
__device__ __forceinline__ const char *madWide(unsigned a, unsigned b,
                                               const char *c) {
  unsigned long long p;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(a), "r"(b));
  return c + p;
}

template <> struct Ids<4> {
  using Pos = int;
  using Id = int;
  /// The id checks of one feature.
  struct Check {
    unsigned rows; ///< ids in [0, rows) are in the table (rows < 2^31)
    int pad;
    bool hasPad; ///< the padding id is set and fits an i32
    __device__ Check(const Shared &s, const FeatureMeta &m)
        : rows((unsigned)m.rows), pad((int)s.paddingIdx),
          hasPad(s.hasPadding && s.paddingIdx == (long long)(int)s.paddingIdx) {
    }
  };
  /// The ids from position `pos` on: load(j) is id pos + j.
  struct Cursor {
    const int *p;
    __device__ Cursor(const Shared &s, Pos pos)
        : p(static_cast<const int *>(s.indices) + pos) {}
    __device__ Id load(int j) const { return loadOnce(p + j); }
  };
  __device__ static bool inTable(Id id, const Check &c) {
    return (unsigned)id < c.rows; // negative ids wrap past rows
  }
  __device__ static bool isPad(Id id, const Check &c) {
    return c.hasPad && id == c.pad;
  }
  /// The address of row `id` (in the table) of `col`, `rowBytes` a row.
  __device__ static const char *row(const char *col, Id id, unsigned rowBytes) {
    return madWide((unsigned)id, rowBytes, col);
  }
};

template <> struct Ids<8> {
  using Pos = int;
  using Id = long long;
  struct Check {
    unsigned long long rows;
    long long pad;
    bool hasPad;
    __device__ Check(const Shared &s, const FeatureMeta &m)
        : rows((unsigned long long)m.rows), pad(s.paddingIdx),
          hasPad(s.hasPadding) {}
  };
  struct Cursor {
    const long long *p;
    __device__ Cursor(const Shared &s, Pos pos)
        : p(static_cast<const long long *>(s.indices) + pos) {}
    __device__ Id load(int j) const { return loadOnce(p + j); }
  };
  __device__ static bool inTable(Id id, const Check &c) {
    return (unsigned long long)id < c.rows;
  }
  __device__ static bool isPad(Id id, const Check &c) {
    return c.hasPad && id == c.pad;
  }
  /// In-table ids are below 2^31: their low word is the id.
  __device__ static const char *row(const char *col, Id id, unsigned rowBytes) {
    return madWide((unsigned)id, rowBytes, col);
  }
};

template <> struct Ids<0> {
  using Pos = long long;
  using Id = long long;
  using Check = Ids<8>::Check;
  struct Cursor {
    const Shared &s;
    Pos pos;
    __device__ Cursor(const Shared &s, Pos pos) : s(s), pos(pos) {}
    __device__ Id load(int j) const { return loadIndex(s, pos + j); }
  };
  __device__ static bool inTable(Id id, const Check &c) {
    return Ids<8>::inTable(id, c);
  }
  __device__ static bool isPad(Id id, const Check &c) {
    return Ids<8>::isPad(id, c);
  }
  __device__ static const char *row(const char *col, Id id, unsigned rowBytes) {
    return col + (unsigned long long)id * rowBytes;
  }
};

//===----------------------------------------------------------------------===//
// Device building blocks: one group of lanes pools bags
//===----------------------------------------------------------------------===//

/// What one group streams: bags b0 .. b0 + nb - 1 of `feature` (global bags
/// g0 ..), ids [segBeg, segEnd), column chunk `chunk` of each row (of a
/// split bag, every 2^SplitBag::log2-th stage from the group's own).
template <typename Pos> struct Segment {
  long long b0, g0;
  long long run; ///< this group's run (pooling NONE: of s.positionRuns)
  Pos segBeg, segEnd;
  int feature;
  int nb;
  int chunk;
  bool leader; ///< reports data errors (one lane per group)
  /// Table prefetch (kPrefetchPageLog2): this CTA's index among its
  /// feature's CTAs and their number (0: no prefetch).
  int prefetchFirst, prefetchStep;
  /// Packed rows: the lane (of the warp) that copies chunk 0, which holds
  /// the header, and the lanes of this group; headerLane is -1 for a group
  /// that copies other chunks (a column pass past the first, of rows wider
  /// than 32 chunks): its lanes then load the header themselves.
  int headerLane;
  unsigned groupMask;
  /// Packed rows, kDataLanes: the lane (of the warp) whose first word
  /// completes this lane's elements; whether this lane is its group's
  /// first; and for a first lane, the byte offset from its chunk of the
  /// chunk after the group's last, whose first word it copies (-1: the
  /// row has none).
  int nextLane;
  bool firstLane;
  int extraOffset;
};

/// Packed rows, kDataLanes: the 4-byte slot of the thread that owns `slot`
/// (a shared address of this block's row slots, which start at `base`, and
/// span kRows-row stages): after all row slots, 4 bytes for every 16-byte
/// slot, in the same order.
template <int kRows>
__device__ __forceinline__ unsigned extraSlot(unsigned base, unsigned slot) {
  return base + blockDim.x * (unsigned)(kRows * kStages * kSlotBytes) +
         (slot - base) / (kSlotBytes / 4);
}

/// Packed rows, kDataLanes: the word in the extra slot of `slot` (0
/// without kDataLanes).
template <int kRows>
__device__ __forceinline__ unsigned loadExtra(unsigned slot) {
  if constexpr (!kDataLanes)
    return 0;
  extern __shared__ __align__(16) unsigned char slots[];
  const unsigned base = (unsigned)__cvta_generic_to_shared(slots);
  unsigned w;
  asm volatile("ld.shared.u32 %0, [%1];"
               : "=r"(w)
               : "r"(extraSlot<kRows>(base, slot))
               : "memory");
  return w;
}

/// Packed rows: the kVec / 4 words of elements this lane decodes, from the
/// row chunk `w` it copied and `extra`, the word in its extra slot. With
/// kDataLanes, chunk c of the elements ends with the first word of stored
/// chunk c + 1, which the next lane copied (for the group's last lane, the
/// first lane's extra word: zero where the row has no such chunk, as
/// issueRows copies it).
template <int kVec, typename Pos>
__device__ __forceinline__ void packedWords(const Segment<Pos> &g,
                                            const unsigned *w, unsigned extra,
                                            unsigned *d) {
  constexpr int kW = kVec / 4;
  if constexpr (kDataLanes) {
    const unsigned next =
        __shfl_sync(g.groupMask, g.firstLane ? extra : w[0], g.nextLane);
#pragma unroll
    for (int i = 0; i + 1 < kW; ++i)
      d[i] = w[i + 1];
    d[kW - 1] = next;
  } else {
#pragma unroll
    for (int i = 0; i < kW; ++i)
      d[i] = w[i];
  }
}

/// Bytes between the slots of one lane: its warp's 32 lanes take 16 bytes
/// each, side by side, so a warp's 16-byte accesses of one slot are one
/// contiguous 512-byte run (no bank conflicts), and a lane's slots sit at
/// compile-time offsets from its first.
constexpr unsigned kSlotStride = 32 * kSlotBytes;

/// Issues the n ids at [pos, pos + n), 0 < n <= kRows (kFull: n == kRows):
/// loads them and starts copying their row chunks (`col`: the chunk's
/// column in row 0) into slots `slot + j * kSlotStride`, j < kRows.
/// Returns the use mask (bit j: the row of id pos + j contributes). Rows
/// that do not contribute (j >= n, padding ids, ids outside the table) copy
/// zeros and read nothing (src-size 0), in every bounds mode (BOUNDS_NONE
/// included: the compare is free next to the copy it guards), so a stage's
/// slots can be added whole; out-of-range ids are reported. kPad: the
/// launch may have a padding id (else the compare is left out).
template <typename T, int kVec, int kRows, int kIds, bool kFull, bool kPad>
__device__ __forceinline__ unsigned
issueRows(const Shared &s, const FeatureMeta &m,
          const Segment<typename Ids<kIds>::Pos> &g,
          const typename Ids<kIds>::Check &check, const char *col,
          typename Ids<kIds>::Pos pos, int n, unsigned slot) {
  using I = Ids<kIds>;
  const unsigned rowBytes = Format<T>::rowBytes(m.dim);
  const typename I::Cursor ids(s, pos);
  typename I::Id id[kRows];
#pragma unroll
  for (int j = 0; j < kRows; ++j) // a partial stage reads id pos + n - 1 again
    id[j] = ids.load(kFull ? j : min(j, n - 1));
  unsigned use = 0, live = 0;
  // Packed rows, kDataLanes: every lane also copies the extra word (a
  // group's first lane the word it hands to the group's last, the others
  // zeros: no branch, and every extra slot holds a defined word).
  [[maybe_unused]] unsigned base = 0;
  [[maybe_unused]] const int extraOffset = max(g.extraOffset, 0);
  [[maybe_unused]] const bool extra = g.extraOffset >= 0;
  if constexpr (Format<T>::kPacked && kDataLanes) {
    extern __shared__ __align__(16) unsigned char slots[];
    base = (unsigned)__cvta_generic_to_shared(slots);
  }
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    const bool l = (kFull || j < n) && !(kPad && I::isPad(id[j], check));
    const bool u = l && I::inTable(id[j], check);
    live |= (unsigned)l << j;
    use |= (unsigned)u << j;
    // Rows that do not contribute point at row 0: never read.
    const char *src = I::row(col, u ? id[j] : 0, rowBytes);
    copyChunkAsync<kVec, kRowsL1<T>>(slot + j * kSlotStride, src, u);
    if constexpr (Format<T>::kPacked && kDataLanes)
      copyChunkAsync<4, true>(extraSlot<kRows>(base, slot + j * kSlotStride),
                              src + extraOffset, u && extra);
  }
  const unsigned bad = live & ~use;
  if (bad && g.leader && s.bounds <= EMBRT_BOUNDS_WARNING)
    reportBadIds(s, g.feature, m.tableIndex, m.rows, g.b0, g.g0, g.nb, pos,
                 bad);
  return use;
}

/// Streams the ids of segment `g` through the kStages stages of this
/// thread's slots (a ring, kStages - 1 stages ahead), calling
/// consume(pos, n, use, slot) for each stage in order as it lands (ids
/// [pos, pos + n), use mask as issueRows returns it, the stage's first
/// slot). A stage's slots are refilled only after it was consumed: program
/// order, and the consumer's shared loads complete before their values are
/// used.
template <typename T, int kVec, int kRows, int kIds, bool kSplit,
          typename Consume>
__device__ __forceinline__ void
streamIds(const Shared &s, const FeatureMeta &m,
          const Segment<typename Ids<kIds>::Pos> &g, Consume consume) {
  using Pos = typename Ids<kIds>::Pos;
  static_assert(kRows * kStages <= 32, "use masks share one word");
  constexpr unsigned kMask = (1u << kRows) - 1;
  constexpr unsigned kStageBytes = kRows * kSlotStride;
  const typename Ids<kIds>::Check check(s, m);
  const char *col = m.table + (long long)g.chunk * kVec;
  // Opaque to the compiler, so that it adds each row's offset to it in one
  // multiply-add instead of reassociating the sum (Ids::row).
  asm("mov.b64 %0, %0;" : "+l"(col));
  extern __shared__ __align__(16) unsigned char slots[];
  // This warp's slots: kStages * kRows rows of 32 lanes.
  const unsigned stage0 = (unsigned)__cvta_generic_to_shared(slots) +
                          (threadIdx.x >> 5) * (kStages * kStageBytes) +
                          (threadIdx.x & 31) * kSlotBytes;

  // Per-sample weights are only prefetched into L1, a stage ahead.
  const char *weights = static_cast<const char *>(s.weights);
  const int weightBytes = !s.weightKind ? 0 : s.weightKind == 1 ? 4 : 2;

  unsigned useRing = 0; // stage k's use mask at bits k * kRows
  // A split bag's group takes every 2^log2-th stage from its own.
  Pos stride = kRows, first = g.segBeg;
  if constexpr (kSplit) {
    const SplitBag split(s, m);
    stride = (Pos)kRows << split.log2;
    first += (Pos)(split.index * kRows);
  }
  Pos issuePos = first;
  int issueStageIndex = 0;
  auto issueNext = [&]() {
    if (issuePos < g.segEnd) {
      const int n = (int)min((Pos)kRows, g.segEnd - issuePos);
      if (weightBytes)
        prefetchL1(weights + (long long)issuePos * weightBytes);
      const unsigned slot = stage0 + issueStageIndex * kStageBytes;
      unsigned use;
      if (n != kRows)
        use = issueRows<T, kVec, kRows, kIds, false, true>(s, m, g, check, col,
                                                           issuePos, n, slot);
      else if (check.hasPad)
        use = issueRows<T, kVec, kRows, kIds, true, true>(s, m, g, check, col,
                                                          issuePos, n, slot);
      else
        use = issueRows<T, kVec, kRows, kIds, true, false>(s, m, g, check, col,
                                                           issuePos, n, slot);
      useRing = (useRing & ~(kMask << (issueStageIndex * kRows))) |
                use << (issueStageIndex * kRows);
    }
    commitCopies();
    issuePos += stride;
    issueStageIndex = issueStageIndex + 1 == kStages ? 0 : issueStageIndex + 1;
  };

#pragma unroll
  for (int i = 0; i < kStages - 1; ++i)
    issueNext();
  Pos pos = first;
  int stage = 0;
  while (pos < g.segEnd) {
    issueNext();
    waitCopies<kStages - 1>();
    consume(pos, (int)min((Pos)kRows, g.segEnd - pos),
            (useRing >> (stage * kRows)) & kMask, stage0 + stage * kStageBytes);
    pos += stride;
    stage = stage + 1 == kStages ? 0 : stage + 1;
  }
  waitCopies<0>(); // only empty groups can be left: keep the ring drained
}

/// Packed rows: the header of a row (id position `pos`, `used`: it
/// contributes), given `w0`, the first word of the chunk this lane copied.
/// The lane of chunk 0 hands its word to its group, so that no lane reads
/// another's slots (which would need barriers around every stage); a group
/// without chunk 0 loads it from the table. Rows that do not contribute read as
/// zeros.
template <typename T, int kIds>
__device__ __forceinline__ typename Format<T>::Header
packedHeader(const Shared &s, const FeatureMeta &m,
             const Segment<typename Ids<kIds>::Pos> &g, unsigned w0,
             long long pos, bool used) {
  unsigned h;
  if (g.headerLane >= 0) {
    h = __shfl_sync(g.groupMask, w0, g.headerLane);
  } else {
    h = used ? __ldg(reinterpret_cast<const unsigned *>(
                   m.table + (unsigned long long)loadIndex(s, pos) *
                                 Format<T>::rowBytes(m.dim)))
             : 0u;
  }
  return Format<T>::header(h);
}

/// Pools the bags of segment `g` as one stream of ids. A stage that lies
/// inside one bag is added whole (its unused slots hold zeros); one that
/// crosses bag ends is added piece by piece, each bag written out (and any
/// empty bags after it) at its end. The end of the next bag is loaded one
/// bag ahead.
template <typename T, int kVec, int kRows, int kIds, bool kSplit>
__device__ __forceinline__ void
poolBags(const Shared &s, const FeatureMeta &m,
         const Segment<typename Ids<kIds>::Pos> &g) {
  using Pos = typename Ids<kIds>::Pos;
  using F = Format<T>;
  using Acc = typename F::Acc;
  constexpr int kN = F::elems(kVec);
  const int outSize = s.outF32 ? 4 : F::kOutBytes;
  // Dense rows: this lane's columns; packed rows: the feature's first
  // (F::store places the chunk's elements).
  const long long first = F::kPacked ? 0 : (long long)g.chunk * kN;
  char *out = static_cast<char *>(s.output) + (m.outCol + first) * outSize;

  Acc acc[kN];
#pragma unroll
  for (int i = 0; i < kN; ++i)
    acc[i] = 0;
  int count = 0;
  // Packed int8, int4 and int2 rows: a bag sums its rows' products
  // scale * q (exact, one fma of the permuted word: 3 instructions a value
  // with the add) and, apart, their biases, added to every element once,
  // when the bag is written (runtime/cpu/tbe.c's poolBag: the same sums).
  // Adding fmaf(scale, q, bias) a value took 4 (docs/kernels/
  // tbe_quantized.md: int4 5% faster).
  constexpr bool kApart = F::kPacked && !F::kFp8;
  // Rows a whole stage's loop decodes an iteration: packed rows one (at
  // short bags the packed kernel waits on instruction fetch, and one row's
  // decode in the code instead of eight is 10-14% less of it: the ranking
  // model's int4 users' lookup 1.16x faster on an H100; docs/kernels/
  // tbe_quantized.md, "Short bags"; the unrolled stage is at the tag
  // tbe-packed-stage-unrolled, EMB_TBE_PACKED_STAGE_UNROLL=0), dense rows
  // the whole stage.
  constexpr int kStageUnroll = F::kPacked ? 1 : kRows;
  float biasSum = 0;
  int bag = 0;
  Pos bagEnd = g.nb == 1 ? g.segEnd : (Pos)bagEndAfter(s, g.g0, g.segBeg);
  // offsets[g0 + bag + 2], the raw end of the next bag, where there is one.
  long long nextEnd = g.nb > 1 ? loadOffset(s, g.g0 + 2) : 0;

  // Writes bag `bag` out and starts the next one.
  auto flush = [&]() {
    Acc scale = 1;
    if (s.pooling == EMBRT_POOLING_MEAN)
      scale = count > 0 ? (Acc)__frcp_rn((float)count) : Acc(0);
    if constexpr (kApart) {
#pragma unroll
      for (int i = 0; i < kN; ++i)
        acc[i] += biasSum;
      biasSum = 0;
    }
#pragma unroll
    for (int i = 0; i < kN; ++i)
      acc[i] *= scale;
    char *row = out + (g.b0 + bag) * s.outStride * outSize;
    if constexpr (F::kPacked)
      F::template store<kN>(row, acc, F::firstElem(g.chunk), m.dim, s,
                            (m.flags >> 6) & 1);
    else
      storeChunk<T, kN>(row, acc, s.outF32, (m.flags >> 6) & 1);
#pragma unroll
    for (int i = 0; i < kN; ++i)
      acc[i] = 0;
    count = 0;
  };
  // Adds row j of a stage (weight w; the stage's ids from `pos`, use mask
  // `use`).
  auto addRow = [&](unsigned slot, int j, Acc w, bool weighted, Pos pos,
                    unsigned use) {
    const Chunk<kVec> r = loadSharedChunk<kVec>(slot + j * kSlotStride);
    if constexpr (F::kPacked) {
      unsigned d[kVec / 4];
      packedWords<kVec>(g, r.w, loadExtra<kRows>(slot + j * kSlotStride), d);
      float v[kN];
      const typename F::Header h =
          packedHeader<T, kIds>(s, m, g, r.w[0], pos + j, (use >> j) & 1);
      F::template decode<kN, kApart>(d, h, v);
#pragma unroll
      for (int i = 0; i < kN; ++i)
        acc[i] = weighted ? fmaf(w, v[i], acc[i]) : acc[i] + v[i];
      if constexpr (kApart)
        biasSum = weighted ? fmaf(w, h.bias, biasSum) : biasSum + h.bias;
    } else {
#pragma unroll
      for (int i = 0; i < kN; ++i)
        acc[i] = weighted ? fma(w, Elem<T>::get(r.w, i), acc[i])
                          : acc[i] + Elem<T>::get(r.w, i);
    }
  };

  streamIds<T, kVec, kRows, kIds, kSplit>(
      s, m, g, [&](Pos pos, int n, unsigned useMask, unsigned slot) {
        // Rows [j, k) of the stage belong to bag `bag`.
        int j = 0;
        for (;;) {
          const int k = (int)min((Pos)n, bagEnd - pos);
          if (k - j == kRows) { // the whole stage
            if (s.weightKind) {
#pragma unroll(kStageUnroll)
              for (int r = 0; r < kRows; ++r)
                addRow(slot, r,
                       (useMask >> r) & 1 ? (Acc)loadWeight(s, pos + r)
                                          : Acc(0),
                       true, pos, useMask);
            } else {
#pragma unroll(kStageUnroll)
              for (int r = 0; r < kRows; ++r)
                addRow(slot, r, Acc(1), false, pos, useMask);
            }
            count += __popc(useMask);
            break;
          }
          count += __popc(useMask & ((1u << k) - (1u << j)));
          if (s.weightKind) {
#pragma unroll 1
            for (int r = j; r < k; ++r)
              addRow(slot, r,
                     (useMask >> r) & 1 ? (Acc)loadWeight(s, pos + r) : Acc(0),
                     true, pos, useMask);
          } else {
#pragma unroll 1
            for (int r = j; r < k; ++r)
              addRow(slot, r, Acc(1), false, pos, useMask);
          }
          if (k == n)
            break;
          flush(); // bag `bag` ends at pos + k, and the stage goes on
          ++bag;
          bagEnd = (Pos)min(max(nextEnd, (long long)bagEnd), s.numIndices);
          if (bag + 1 < g.nb)
            nextEnd = loadOffset(s, g.g0 + bag + 2);
          j = k;
        }
      });
  if constexpr (kSplit) {
    const SplitBag split(s, m);
    // A split bag (nb 1): its groups' sums and counts, added in the same
    // order on every lane; the first group writes the bag. The lanes of
    // this chunk in the bag's groups: lane, lane + G, ... from the first
    // group's (a group's lanes past the row's end left together).
    const int lanes = 1 << split.lanesLog2;
    unsigned mask = 1;
    for (int i = 0; i < split.log2; ++i)
      mask |= mask << (lanes << i);
    const int laneInWarp = (int)threadIdx.x & 31;
    mask <<= (laneInWarp & ~((lanes << split.log2) - 1)) |
             (laneInWarp & (lanes - 1));
#pragma unroll 1
    for (int i = 0; i < split.log2; ++i) {
#pragma unroll
      for (int e = 0; e < kN; ++e)
        acc[e] += __shfl_xor_sync(mask, acc[e], lanes << i);
      count += __shfl_xor_sync(mask, count, lanes << i);
    }
    if (split.index)
      return;
  }
  for (; bag < g.nb; ++bag)
    flush();
}

/// Pooling NONE: copies the row chunk of every id of segment `g` to output
/// row (its position), zeros for padding and out-of-range ids.
template <typename T, int kVec, int kRows, int kIds>
__device__ __forceinline__ void
copyRows(const Shared &s, const FeatureMeta &m,
         const Segment<typename Ids<kIds>::Pos> &g) {
  using Pos = typename Ids<kIds>::Pos;
  using F = Format<T>;
  using Acc = typename F::Acc;
  constexpr int kN = F::elems(kVec);
  const int outSize = s.outF32 ? 4 : F::kOutBytes;
  const long long first = F::kPacked ? 0 : (long long)g.chunk * kN;
  char *out = static_cast<char *>(s.output) + first * outSize;
  streamIds<T, kVec, kRows, kIds, false>(
      s, m, g, [&](Pos pos, int n, unsigned useMask, unsigned slot) {
#pragma unroll
        for (int j = 0; j < kRows; ++j) {
          if (j < n) {
            const Chunk<kVec> r = loadSharedChunk<kVec>(slot + j * kSlotStride);
            char *row = out + ((long long)pos + j) * s.outStride * outSize;
            Acc v[kN];
            if constexpr (F::kPacked) {
              unsigned d[kVec / 4];
              packedWords<kVec>(g, r.w,
                                loadExtra<kRows>(slot + j * kSlotStride), d);
              F::template decode<kN>(d,
                                     packedHeader<T, kIds>(s, m, g, r.w[0],
                                                           pos + j,
                                                           (useMask >> j) & 1),
                                     v);
              F::template store<kN>(row, v, F::firstElem(g.chunk), m.dim, s,
                                    (m.flags >> 6) & 1);
            } else {
#pragma unroll
              for (int i = 0; i < kN; ++i)
                v[i] = Elem<T>::get(r.w, i);
              storeChunk<T, kN>(row, v, s.outF32, (m.flags >> 6) & 1);
            }
          }
        }
      });
}

/// Pooling NONE, group `g.run` of its feature's s.positionRuns: checks the
/// offsets of bags run, run + runs, ... of the feature, then copies the rows
/// of positions [begin + run * kPositionsPerRun, + kPositionsPerRun), and so
/// on in strides of runs * kPositionsPerRun, of the feature's ids [begin,
/// end) (its first and last offsets, clamped into [0, N] as bagEndAfter
/// does).
template <typename T, int kVec, int kRows, int kIds>
__device__ __forceinline__ void
copyPositions(const Shared &s, const FeatureMeta &m,
              Segment<typename Ids<kIds>::Pos> &g) {
  using Pos = typename Ids<kIds>::Pos;
  const long long N = s.numIndices, B = s.batch, runs = s.positionRuns;
  const long long numBags = (long long)s.numFeatures * B;
  g.g0 = (long long)g.feature * B; // the feature's first bag, whatever run
  for (long long k = g.run; k < B; k += runs) {
    // Bag k is [offsets[g0 + k], offsets[g0 + k + 1]); wrong as lookupBags
    // says. Only the first offset of the whole list is checked as a start.
    const long long i = g.g0 + k;
    const long long lo = loadOffset(s, i), hi = loadOffset(s, i + 1);
    long long index = -1, value = 0, limit = 0;
    if (i == 0 && lo != 0) {
      index = 0, value = lo, limit = 0;
    } else if (hi < lo || hi > N || hi < 0 || (i + 1 == numBags && hi != N)) {
      index = i + 1, value = hi, limit = hi < lo ? lo : N;
    }
    if (s.featureEnds) {
      if (g.leader)
        checkFeatureOffsets(s, g.feature, k, 1);
    } else if (index >= 0 && g.leader) {
      reportBadOffsets(s.errors, g.feature, k, index, value, limit);
    }
  }
  const long long begin = min(max(loadOffset(s, g.g0), 0ll), N);
  const long long end = min(max(loadOffset(s, g.g0 + B), begin), N);
  g.b0 = 0; // bad ids: the bag is found among all of the feature's
  g.nb = (int)B;
  for (long long p = begin + g.run * kPositionsPerRun; p < end;
       p += runs * kPositionsPerRun) {
    g.segBeg = (Pos)p;
    g.segEnd = (Pos)min(p + kPositionsPerRun, end);
    copyRows<T, kVec, kRows, kIds>(s, m, g);
  }
}

/// Group entry: loads the offsets of the segment's bags together, clamps
/// them into a non-decreasing range of [0, N] (every lane: no shuffles), has
/// the leader report the first bad one, then pools or copies.
template <typename T, int kVec, int kRows, int kIds, bool kSplit>
__device__ __forceinline__ void
lookupBags(const Shared &s, const FeatureMeta &m,
           Segment<typename Ids<kIds>::Pos> &g) {
  using Pos = typename Ids<kIds>::Pos;
  if (s.positionRuns) {
    copyPositions<T, kVec, kRows, kIds>(s, m, g);
    return;
  }
  const long long N = s.numIndices;
  const long long numBags = (long long)s.numFeatures * s.batch;
  // Bag g0 + k is [offsets[g0 + k], offsets[g0 + k + 1]). Wrong: offsets
  // that decrease or leave [0, N], offsets[0] != 0, offsets[F * B] != N.
  const long long first = loadOffset(s, g.g0);
  if (kPrefetchPageLog2 && g.prefetchStep > 0) {
    // Piece threadIdx.x * step + first of the table, after the first
    // offsets load (issued first, so its translation is not queued behind).
    const unsigned long long bytes =
        (unsigned long long)m.rows * Format<T>::rowBytes(m.dim);
    const unsigned long long piece =
        (unsigned long long)threadIdx.x * g.prefetchStep + g.prefetchFirst;
    if (piece << kPrefetchPageLog2 < bytes)
      prefetchL2(m.table + (piece << kPrefetchPageLog2));
  }
  int badBag = first < 0 || first > N || (g.g0 == 0 && first != 0) ? 0 : -1;
  long long badValue = first, badLimit = first < 0 || g.g0 == 0 ? 0 : N;
  long long badIndex = g.g0; // the offset that is wrong
  long long previous = first;
  const long long segBeg = min(max(first, 0ll), N);
  long long segEnd = segBeg;
  for (int k = 0; k < g.nb; ++k) {
    const long long e = loadOffset(s, g.g0 + k + 1);
    if (badBag < 0 &&
        (e < previous || e > N || (g.g0 + k + 1 == numBags && e != N))) {
      badBag = k;
      badValue = e;
      badLimit = e < previous ? previous : N;
      badIndex = g.g0 + k + 1;
    }
    previous = e;
    segEnd = min(max(e, segEnd), N); // as bagEndAfter
  }
  if (s.featureEnds) {
    // The check above holds the offsets in order across the whole lookup,
    // group to group. What only the feature's own numbers show is at its
    // ends: its first offset, its own last offset and the feature ends. So
    // the feature's check walks the offsets of its first and last groups,
    // and of a group the check above finds wrong (to name the feature's
    // bag): every other group is in order between them.
    if (g.leader && (badBag >= 0 || g.b0 == 0 || g.b0 + g.nb >= s.batch))
      checkFeatureOffsets(s, g.feature, g.b0, g.nb);
  } else if (badBag >= 0 && g.leader) {
    reportBadOffsets(s.errors, g.feature, g.b0 + badBag, badIndex, badValue,
                     badLimit);
  }
  g.segBeg = (Pos)segBeg;
  g.segEnd = (Pos)segEnd;
  if (s.pooling != EMBRT_POOLING_NONE)
    poolBags<T, kVec, kRows, kIds, kSplit>(s, m, g);
  else
    copyRows<T, kVec, kRows, kIds>(s, m, g);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// tbeForwardKernel<T, kCap, kRows, kIds, kSplit>: the whole TBE forward, T
/// the table type, kCap the features of the parameter block, kRows the rows
/// of a stage, kIds how ids are read (Ids: i32 or i64 with 32-bit
/// positions, or either with 64-bit ones), kSplit whether bags may be split
/// (Shared::splitsLog2; a kernel apart, so that the others keep their
/// registers: splitting in every kernel made the f32 and 16-bit ones spill).
///
/// Work unit: (run of bagsPerGroup consecutive bags, column pass, split) of
///   one feature, done by one group of G_f lanes; passes P_f > 1 only for
///   rows wider than 32 lanes * kVec bytes (then G_f = 32); splits S_f > 1
///   only for one bag a run (splitsLog2Of: S_f * G_f <= 32, the S_f groups
///   of a bag neighbours in a warp, each taking every S_f-th stage of it,
///   their sums added by shuffles). Pooling NONE: (run, column pass) with
///   runs_f = s.positionRuns, each run a stride of positions
///   (copyPositions).
/// Grid: feature-major; feature f has ceil(runs_f * P_f * S_f / (blockDim.x
///   / G_f)) CTAs from meta[f].firstCta, runs_f = ceil(B / bagsPerGroup).
/// Block: threadsPerBlock of the configuration (<= kMaxThreads), split into
///   groups of G_f lanes (a power of two <= 32, never across warps); the
///   passes of one run are neighbouring groups, so they share its ids in L1.
/// One thread: the kVec-byte column chunk pass * 32 + lane of every row of
///   its run's bags, kRows * kStages rows in flight, accumulated in
///   registers (kRows: the configuration's rowsPerStage).
/// Shared memory: smemPerThread(kRows) bytes a thread (dynamic), its private
///   row slots: warp w's kStages * kRows slots of 32 lanes from
///   w * kStages * kRows * 512 bytes, slot j of its lane l at j * 512 + l * 16,
///   so a warp's 16-byte reads are conflict-free and a lane's slots lie at
///   constant offsets; no thread reads another's slots.
/// Alignment: the host picks kVec so that every row chunk is kVec-aligned
///   (table address and D * sizeof(T)), and whole-chunk output stores only
///   where the output rows allow them.
template <typename T, int kCap, int kRows, int kIds, bool kSplit = false>
__global__ void __launch_bounds__(kMaxThreads, Format<T>::kPacked
                                                   ? kMinBlocksPacked
                                                   : kMinBlocks)
    tbeForwardKernel(const __grid_constant__ Params<kCap> p) {
  const Shared &s = p.s;
  // Masked offsets that are not valid: kernels/tbe_masked.cu's lookup.
  if (s.maskFlag && __ldg(s.maskFlag))
    return;
  const FeatureMeta *global = s.metaGlobal;
  const int cta = (int)blockIdx.x;

  // The feature of this CTA: the last one whose first CTA is <= cta.
  int lo = 0, hi = s.numFeatures - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) >> 1;
    int first = global ? global[mid].firstCta : p.meta[mid].firstCta;
    if (first <= cta)
      lo = mid;
    else
      hi = mid - 1;
  }
  const FeatureMeta m = global ? global[lo] : p.meta[lo];

  using F = Format<T>;
  int lane;
  long long unit;
  int packedLanes = 0, groupInWarp = 0; // packed rows: G and the group
  if constexpr (F::kPacked) {
    // Groups of G = min(chunks, 32) lanes, 32 / G of them a warp (its
    // other lanes idle): a packed row of 5 chunks (int4, D = 128) takes 5
    // lanes, not 8.
    const int chunks = F::chunks(m.dim);
    packedLanes = chunks < 32 ? chunks : 32;
    const int perWarp = 32 / packedLanes;
    const int laneInWarp = (int)threadIdx.x & 31;
    groupInWarp = laneInWarp / packedLanes;
    if (groupInWarp >= perWarp)
      return;
    lane = laneInWarp - groupInWarp * packedLanes;
    unit = (long long)(cta - m.firstCta) * (((int)blockDim.x >> 5) * perWarp) +
           ((int)threadIdx.x >> 5) * perWarp + groupInWarp;
  } else {
    const int lanesLog2 = m.flags & 7;
    lane = (int)threadIdx.x & ((1 << lanesLog2) - 1);
    unit = (long long)(cta - m.firstCta) * ((int)blockDim.x >> lanesLog2) +
           ((int)threadIdx.x >> lanesLog2);
    // A split bag's groups are neighbours in one warp (SplitBag).
    if constexpr (kSplit)
      unit >>= splitsLog2Of(s.splitsLog2, lanesLog2);
  }
  const long long run = m.passes == 1 ? unit : unit / m.passes;
  const int pass = (int)(unit - run * m.passes);
  const long long b0 = run * s.bagsPerGroup;
  if (s.positionRuns ? run >= s.positionRuns : b0 >= s.batch)
    return;
  Segment<typename Ids<kIds>::Pos> g;
  g.run = run;
  g.chunk = pass * 32 + lane;
  bool past; // lanes past the row's end (G rounded up to a power of two)
  if constexpr (F::kPacked)
    past = g.chunk >= F::chunks(m.dim);
  else
    past = g.chunk * (1 << ((m.flags >> 3) & 7)) >= (int)F::rowBytes(m.dim);
  if (past)
    return;
  g.leader = g.chunk == 0;
  g.headerLane = -1;
  g.groupMask = 0;
  g.nextLane = 0;
  g.firstLane = lane == 0;
  g.extraOffset = -1;
  if constexpr (F::kPacked) {
    // The group's lanes with a chunk in this pass (fewer than packedLanes
    // only in the last pass of rows wider than 32 chunks).
    const int active = min(packedLanes, F::chunks(m.dim) - pass * 32);
    if (pass == 0)
      g.headerLane = groupInWarp * packedLanes;
    g.groupMask = (active == 32 ? ~0u : (1u << active) - 1)
                  << (groupInWarp * packedLanes);
    g.nextLane =
        groupInWarp * packedLanes + (lane + 1 == active ? 0 : lane + 1);
    if (kDataLanes && lane == 0 &&
        (pass * 32 + active) * F::kVec < (int)F::rowBytes(m.dim))
      g.extraOffset = active * F::kVec;
  }
  g.feature = lo;
  g.nb = (int)min((long long)s.bagsPerGroup, s.batch - b0);
  g.b0 = b0;
  g.g0 = (long long)lo * s.batch + b0;
  g.prefetchFirst = cta - m.firstCta;
  g.prefetchStep = 0;
  if (kPrefetchPageLog2 && gridDim.x <= kPrefetchGridCtas && !s.positionRuns)
    g.prefetchStep = (lo + 1 < s.numFeatures ? global ? global[lo + 1].firstCta
                                                      : p.meta[lo + 1].firstCta
                                             : (int)gridDim.x) -
                     m.firstCta;

  if constexpr (F::kPacked) {
    lookupBags<T, F::kVec, kRows, kIds, kSplit>(s, m, g);
    return;
  }
  switch ((m.flags >> 3) & 7) {
  case 4:
    lookupBags<T, 16, kRows, kIds, kSplit>(s, m, g);
    break;
  case 3:
    lookupBags<T, 8, kRows, kIds, kSplit>(s, m, g);
    break;
  case 2:
    lookupBags<T, 4, kRows, kIds, kSplit>(s, m, g);
    break;
  default:
    if constexpr (sizeof(T) == 2)
      lookupBags<T, 2, kRows, kIds, kSplit>(s, m, g);
    break;
  }
}

//===----------------------------------------------------------------------===//
// Host side: metadata and launch
//===----------------------------------------------------------------------===//

/// The largest power of two, at most 16, that divides x (16 for 0).
int alignOf(uint64_t x) {
  int a = 16;
  while (a > 1 && x % (uint64_t)a)
    a >>= 1;
  return a;
}

int log2Of(int x) {
  int l = 0;
  while ((1 << l) < x)
    ++l;
  return l;
}

size_t dtypeBytes(embrtDtype d) { return d == EMBRT_F32 ? 4 : 2; }

/// How feature f's table is stored (embrtTablePrecision).
int precisionOf(const embrtTbeArgs *a, int64_t f) {
  return a->tablePrecisions ? (int)a->tablePrecisions[a->featureTables[f]]
                            : EMBRT_PRECISION_DENSE;
}

/// A lookup is one launch for the features of dense tables and one for
/// those of each precision of quantized tables it has (the kernel is
/// instantiated per row format); `which` (an embrtTablePrecision) names
/// one. Each launch's metadata holds every feature, those of other launches
/// with no CTAs, so that features keep their numbers (their offsets and
/// their errors). Returns how many launches before `which` there are (its
/// metadata's place in the workspace), or with `which` past the last
/// precision how many there are.
int launchesBefore(const embrtTbeArgs *a, int which) {
  unsigned seen = 0;
  for (int64_t f = 0; f < a->numFeatures; ++f)
    seen |= 1u << precisionOf(a, f);
  return __builtin_popcount(seen & ((1u << which) - 1));
}

/// The chunk a lane copies of a packed row (Format<Packed<P>>::kVec).
int packedVec(int precision) {
  return precision == EMBRT_PRECISION_INT2 ? 8 : EMB_TBE_PACKED_VEC;
}

/// The elements a lane writes at once of a packed row
/// (Format<Packed<P>>::kPiece).
int packedPiece(int precision) {
  return precision == EMBRT_PRECISION_INT4   ? 8
         : precision == EMBRT_PRECISION_INT2 ? 16
                                             : 4;
}

/// Stage rows of the packed rows' kernels.
constexpr int kPackedRows = EMB_TBE_PACKED_ROWS;

/// The chunks a packed row of precision `precision` and D `dim` is split
/// into among lanes (Format<Packed<P>>::chunks).
int packedChunks(int precision, int dim) {
  switch (precision) {
  case EMBRT_PRECISION_INT8:
    return Format<Packed<EMBRT_PRECISION_INT8>>::chunks((unsigned)dim);
  case EMBRT_PRECISION_INT4:
    return Format<Packed<EMBRT_PRECISION_INT4>>::chunks((unsigned)dim);
  case EMBRT_PRECISION_INT2:
    return Format<Packed<EMBRT_PRECISION_INT2>>::chunks((unsigned)dim);
  default:
    return Format<Packed<EMBRT_PRECISION_FP8>>::chunks((unsigned)dim);
  }
}

/// Pooling NONE: the groups of each feature (copyPositions), enough for a
/// feature's share of the ids in runs of kPositionsPerRun and for its bags'
/// offsets kBagsPerCheck a group; 0 for pooled lookups.
long long positionRuns(const embrtTbeArgs *a) {
  if (a->pooling != EMBRT_POOLING_NONE)
    return 0;
  long long share = (a->numIndices + a->numFeatures - 1) / a->numFeatures;
  long long byIds = (share + kPositionsPerRun - 1) / kPositionsPerRun;
  long long byBags = (a->batchSize + kBagsPerCheck - 1) / kBagsPerCheck;
  long long runs = byIds > byBags ? byIds : byBags;
  return runs > 0 ? runs : 1;
}

/// How the kernels read ids (their kIds): 4 or 8 (i32 or i64) with 32-bit
/// positions and row numbers where N and every table fit them, else 0.
/// (A stream's position runs up to kStages strides past N, a stride kRows
/// times the splits of a bag: at most kStages * 8 * 32 ids.)
int idsKind(const embrtTbeArgs *a) {
  int ids = 0;
  if (kPos32 && a->numIndices <= INT32_MAX - kStages * 8 * 32) {
    ids = a->indexDtype == EMBRT_I64 ? 8 : 4;
    for (int64_t t = 0; t < a->numTables; ++t)
      if (a->tableRows[t] > INT32_MAX)
        ids = 0;
  }
  return ids;
}

/// log2 of the groups a bag of launch `which` is split over at most
/// (Shared::splitsLog2): the configuration's splitsPerBag where one group
/// pools one bag of dense rows in 6-row stages, else 0. The split kernels
/// are those of the small parameter block and 32-bit positions (launches
/// of few features and ids, which are the ones latency bounds): others run
/// unsplit.
int launchSplitsLog2(const embrtTbeArgs *a, const TbeConfig *cfg, int which) {
  if (which != EMBRT_PRECISION_DENSE || a->pooling == EMBRT_POOLING_NONE ||
      cfg->bagsPerGroup != 1 || cfg->splitsPerBag <= 1 ||
      cfg->rowsPerStage != 6 || a->numFeatures > kSmallCap || !idsKind(a))
    return 0;
  int l = log2Of(cfg->splitsPerBag);
  return l > 5 ? 5 : l;
}

/// Fills meta[0 .. F-1] for the launch of `which` (launchesBefore);
/// returns the grid size, or -1 if it is too large.
long long buildMeta(const embrtTbeArgs *a, const TbeConfig *cfg,
                    long long outStride, int which, FeatureMeta *meta) {
  const int esz = (int)dtypeBytes(a->tableDtype);
  const int osz = (int)dtypeBytes(a->outputDtype);
  const int pooled = a->pooling != EMBRT_POOLING_NONE;
  long long outCol = 0, ctas = 0;
  const int splitsLog2 = launchSplitsLog2(a, cfg, which); // once a launch
  for (int64_t f = 0; f < a->numFeatures; ++f) {
    int64_t t = a->featureTables[f];
    int dim = (int)a->tableDims[t];
    FeatureMeta &m = meta[f];
    if (precisionOf(a, f) != which) {
      // Another launch's feature: no CTAs here (its row format's layout may
      // not even exist in this one's: a dense D that int4 cannot pack).
      memset(&m, 0, sizeof m);
      m.firstCta = (int)ctas;
      m.outCol = pooled ? (int)outCol : 0;
      m.tableIndex = (int)t;
      m.dim = (unsigned short)dim;
      outCol += dim;
      continue;
    }
    int vec, chunks, lanes, piece, groupsPerWarp;
    if (which == EMBRT_PRECISION_DENSE) {
      int rowBytes = dim * esz;
      vec = alignOf((uint64_t)rowBytes);
      int tableAlign = alignOf((uint64_t)(uintptr_t)a->tables[t]);
      if (tableAlign < vec)
        vec = tableAlign < esz ? esz : tableAlign;
      chunks = rowBytes / vec;
      lanes = chunks >= 32 ? 32 : 1 << log2Of(chunks);
      groupsPerWarp = 32 / lanes;
      piece = vec / esz * osz;
    } else {
      // Packed rows (the launcher checked the tables' alignment): groups
      // of min(chunks, 32) lanes, as the kernel lays them out.
      vec = packedVec(which);
      chunks = packedChunks(which, dim);
      lanes = chunks >= 32 ? 32 : chunks;
      groupsPerWarp = 32 / lanes;
      piece = packedPiece(which) * osz;
    }
    int passes = (chunks + 31) / 32;
    if (piece > 16)
      piece = 16;
    long long col = pooled ? outCol : 0;
    int outVec = (outStride * osz) % piece == 0 && (col * osz) % piece == 0 &&
                 (uintptr_t)a->output % (uintptr_t)piece == 0;
    long long runs =
        pooled ? (a->batchSize + cfg->bagsPerGroup - 1) / cfg->bagsPerGroup
               : positionRuns(a);
    long long groupsPerCta = cfg->threadsPerBlock / 32 * groupsPerWarp;
    const long long splits = 1ll << splitsLog2Of(splitsLog2, log2Of(lanes));
    m.table = static_cast<const char *>(a->tables[t]);
    m.rows = a->tableRows[t];
    m.outCol = (int)col;
    m.firstCta = (int)ctas;
    m.tableIndex = (int)t;
    m.dim = (unsigned short)dim;
    m.passes = (unsigned char)passes;
    m.flags = (unsigned char)(log2Of(lanes) | log2Of(vec) << 3 | outVec << 6);
    ctas += (runs * passes * splits + groupsPerCta - 1) / groupsPerCta;
    if (ctas > INT32_MAX)
      return -1;
    outCol += dim;
  }
  return ctas;
}

template <int kCap> using Kernel = void (*)(Params<kCap>);

/// Workspace bytes of the launches' metadata beyond kLargeCap features (each
/// launch's after the launches' before it), 0 within.
inline size_t stagedMetaBytes(const embrtTbeArgs *a) {
  return a->numFeatures > kLargeCap
             ? (size_t)launchesBefore(a, EMBRT_PRECISION_FP8 + 1) *
                   (size_t)a->numFeatures * sizeof(FeatureMeta)
             : 0;
}

/// Masked offsets (embrtTbeArgs::maskedOffsets): the workspace holds their
/// flag (Shared::maskFlag), 4 bytes in a slot of 16 after the metadata
/// (stagedMetaBytes, a multiple of 32).
constexpr size_t kMaskFlagBytes = 16;

/// The arguments that all features of a launch share; `maskFlag` as
/// Shared::maskFlag. The metadata is the caller's to place.
inline void fillShared(const embrtLaunchEnv *env, const embrtTbeArgs *a,
                       const TbeConfig *cfg, long long outStride,
                       const unsigned *maskFlag, Shared &s) {
  s.indices = a->indices;
  s.offsets = a->offsets;
  s.weights = a->perSampleWeights;
  s.output = a->output;
  s.errors = env->deviceErrors;
  s.metaGlobal = nullptr;
  s.featureEnds = a->featureEnds;
  s.batch = a->batchSize;
  s.numIndices = a->numIndices;
  s.outStride = outStride;
  s.paddingIdx = a->paddingIdx;
  s.numFeatures = (int)a->numFeatures;
  s.bagsPerGroup = cfg->bagsPerGroup;
  s.positionRuns = positionRuns(a);
  s.pooling = (unsigned char)a->pooling;
  s.bounds = (unsigned char)a->boundsCheck;
  s.idx64 = a->indexDtype == EMBRT_I64;
  s.off64 = a->offsetDtype == EMBRT_I64;
  s.weightKind = 0;
  if (a->perSampleWeights)
    s.weightKind = a->perSampleWeightDtype == EMBRT_F32   ? 1
                   : a->perSampleWeightDtype == EMBRT_F16 ? 2
                                                          : 3;
  s.outF32 = a->outputDtype == EMBRT_F32;
  s.outBf16 = a->outputDtype == EMBRT_BF16;
  s.hasPadding = a->hasPaddingIdx != 0;
  s.splitsLog2 = 0; // launch's, for its row format
  s.maskFlag = maskFlag;
}

/// Launches the kernel `choose` picks (from `which`, the stage rows, the
/// way ids are read and whether bags are split) for the features of launch
/// `which` (launchesBefore);
/// `maskFlag` as Shared::maskFlag.
template <int kCap>
embrtStatus launch(embrtLaunchEnv *env, const embrtTbeArgs *a,
                   const TbeConfig *cfg, long long outStride, int which,
                   Kernel<kCap> (*choose)(const embrtTbeArgs *a, int which,
                                          int rows, int ids, bool split),
                   const unsigned *maskFlag) {
  cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
  Params<kCap> p;
  Shared &s = p.s;
  fillShared(env, a, cfg, outStride, maskFlag, s);
  s.splitsLog2 = (unsigned char)launchSplitsLog2(a, cfg, which);

  long long ctas;
  if (a->numFeatures <= kCap) {
    ctas = buildMeta(a, cfg, outStride, which, p.meta);
  } else {
    // Beyond kLargeCap features the metadata goes through the workspace,
    // each launch's after the launches' before it.
    size_t bytes = (size_t)a->numFeatures * sizeof(FeatureMeta);
    size_t at = (size_t)launchesBefore(a, which) * bytes;
    if (!a->workspace || a->workspaceBytes < at + bytes)
      return embrtLaunchError(
          env, EMBRT_INVALID_ARGUMENT,
          "tbe: %lld features need %zu bytes of workspace, "
          "got %zu",
          (long long)a->numFeatures,
          (size_t)launchesBefore(a, EMBRT_PRECISION_FP8 + 1) * bytes,
          a->workspaceBytes);
    FeatureMeta *host = static_cast<FeatureMeta *>(malloc(bytes));
    if (!host)
      return embrtLaunchError(env, EMBRT_OUT_OF_MEMORY,
                              "tbe: no host memory for %zu bytes of metadata",
                              bytes);
    ctas = buildMeta(a, cfg, outStride, which, host);
    char *place = static_cast<char *>(a->workspace) + at;
    cudaError_t err = ctas < 0
                          ? cudaSuccess
                          : cudaMemcpyAsync(place, host, bytes,
                                            cudaMemcpyHostToDevice, stream);
    free(host); // pageable: staged before cudaMemcpyAsync returns
    embrtStatus status = embrtCudaCheck(env, err, "tbe: metadata copy");
    if (status != EMBRT_OK)
      return status;
    s.metaGlobal = reinterpret_cast<const FeatureMeta *>(place);
  }
  if (ctas < 0)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "tbe: %lld features of %lld bags need more than "
                            "2^31 CTAs",
                            (long long)a->numFeatures, (long long)a->batchSize);
  if (ctas == 0)
    return EMBRT_OK;

  const int rows = which != EMBRT_PRECISION_DENSE ? kPackedRows
                   : cfg->rowsPerStage == 8       ? 8
                                                  : 6;
  dim3 grid((unsigned)ctas), block((unsigned)cfg->threadsPerBlock);
  size_t smem = (size_t)cfg->threadsPerBlock *
                smemPerThread(rows, which != EMBRT_PRECISION_DENSE);
  // 32-bit positions and row numbers where they fit (Ids).
  Kernel<kCap> kernel = choose(a, which, rows, idsKind(a), s.splitsLog2 > 0);
  if (smem > 48 * 1024) { // 8-row stages at 256 threads: 64 KB
    embrtStatus status = embrtCudaCheck(
        env,
        cudaFuncSetAttribute(
            kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
        "tbe: cudaFuncSetAttribute");
    if (status != EMBRT_OK)
      return status;
  }
  kernel<<<grid, block, smem, stream>>>(p);
  return embrtCudaCheck(env, cudaGetLastError(), "tbe: kernel launch");
}

} // namespace

/// The launches of the features of `args` whose tables are quantized, one a
/// precision (kernels/tbe_quantized.cu; embrtCudaLaunchTbeForward calls it
/// after the dense features' launch, with its configuration, output stride
/// and mask flag, Shared::maskFlag).
embrtStatus tbeLaunchQuantized(embrtLaunchEnv *env, const embrtTbeArgs *args,
                               const TbeConfig *cfg, long long outStride,
                               const unsigned *maskFlag);

/// Masked offsets (kernels/tbe_masked.cu), around the usual launches: first
/// clears `maskFlag` (a word of the workspace) and launches the check that
/// sets it when the offsets are not valid by the usual rules...
embrtStatus tbeLaunchMaskCheck(embrtLaunchEnv *env, const embrtTbeArgs *args,
                               unsigned *maskFlag);

/// ... then, after the usual launches (whose CTAs return at once when it is
/// set), the masked lookup's, one a row format, whose CTAs return at once
/// when it is not. Beyond kLargeCap features each reads the metadata the
/// usual launch of its row format left in the workspace.
embrtStatus tbeLaunchMasked(embrtLaunchEnv *env, const embrtTbeArgs *args,
                            const TbeConfig *cfg, long long outStride,
                            const unsigned *maskFlag);

#endif // EMB_KERNELS_TBE_FORWARD_CUH
