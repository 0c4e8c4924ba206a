//===- kernels/tbe_backward/common.cuh - TBE backward metadata --*- C++ -*-===//
//
// What every part of the CUDA TBE backward shares (kernels/tbe_backward.cu
// says how the parts fit): its tuning knobs, the launch metadata the host
// fills and every kernel reads (Params, in the parameter block), and the
// device helpers: metadata lookups, loads and stores of a lane's columns,
// element conversions, error reports, and groups of lanes. The loads it reads
// as the forward does (ids, offsets, weights) are kernels/tbe_common.cuh's.
//
// The parts under kernels/tbe_backward/ are included by kernels/tbe_backward.cu
// alone: their code is in the anonymous namespace of that one translation
// unit.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_BACKWARD_COMMON_CUH
#define EMB_KERNELS_TBE_BACKWARD_COMMON_CUH

#include "kernels/common/convert.cuh"
#include "kernels/common/device_errors.cuh"
#include "kernels/launch.h"
#include "kernels/stochastic_rounding.h"
#include "kernels/tbe_common.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdint.h>

#include <type_traits>

namespace {

//===----------------------------------------------------------------------===//
// Launch metadata, shared by host and device
//===----------------------------------------------------------------------===//

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
/// Distinct gather widths of one launch (more are merged: see planBuckets).
constexpr int kMaxBuckets = 8;
/// Tables and features whose metadata travels in the parameter block; more
/// go through the workspace.
constexpr int kParamTables = 64;
constexpr int kParamFeatures = 256;
/// Short runs a group takes at a time in the per-run pipeline.
constexpr int kUnitRuns = 8;
/// Short runs by a kernel of their own (shortRunsKernel,
/// kernels/tbe_backward/short_runs.cuh) with no software pipeline and few
/// registers, 6 CTAs of 256 threads an SM (48 warps), a group owning one run
/// at a time; the accumulate kernel then takes only the long chunks. The
/// default since call 6 (bench/tbe_train/NOTES.md): occupancy, not per-group
/// pipelining, hides the latency. EMB_TBE_BWD_OCC=0 is the per-run pipeline
/// before it (variant "pipe": bench and GPU test tbe_backward_pipe). The
/// short-run strategies measured slower and dropped (the shared-memory
/// stream, several runs a group at a time, sort values a run ahead) are in
/// bench/tbe_train/NOTES.md.
#ifndef EMB_TBE_BWD_OCC
#define EMB_TBE_BWD_OCC 1
#endif
/// The short-run kernel's CTAs an SM (8: 32 registers a thread; 6: 40, the
/// default: at 8 every hot instantiation spills and Adam's is slower than
/// the per-run pipeline; call 6).
#ifndef EMB_TBE_BWD_OCC_BLOCKS
#define EMB_TBE_BWD_OCC_BLOCKS 6
#endif
/// Registers a lane of the short-run kernel spends on gradient rows in
/// flight: 16 (4 rows of 16 bytes, 2 of 32; 8 at most).
#ifndef EMB_TBE_BWD_OCC_LOAD_REGS
#define EMB_TBE_BWD_OCC_LOAD_REGS 16
#endif
/// 1 (the default): the short-run kernel spends fewer instructions a run,
/// where it is issue-bound (Nsight Compute on DLRM-DCNv2's lookups, H100:
/// 0.69 instructions issued a cycle a scheduler at 55% of DRAM): a group
/// keeps its previous run's table slot and searches only when a run's key
/// leaves that table, and, where a group is a warp or more, a run of one
/// position loads its one gradient row without the batch's predicated
/// slots; not for Adam (slower with either: its update's registers spill
/// more). The same sums and updates: the same bits. 0: every run searched
/// for and gathered in batches (variant "plain"; bench/tbe_train/NOTES.md,
/// "Fewer instructions a short run").
#ifndef EMB_TBE_BWD_SHORT_LEAN
#define EMB_TBE_BWD_SHORT_LEAN 1
#endif
/// Rows of 32 positions whose ids a warp of the linearize kernel loads
/// before it uses any: a warp walks its units' positions 32 at a time, so
/// a unit of 32 long bags (DLRM-DCNv2's 100 ids a bag) is a chain of round
/// trips, one a row with 1. On DLRM-DCNv2's step (H100): 1 0.075 ms, 4
/// 0.055 (64 registers either way), 8 0.054 (80 registers);
/// bench/tbe_train/NOTES.md, "Loads ahead in linearize and classify".
#ifndef EMB_TBE_BWD_LINEARIZE_AHEAD
#define EMB_TBE_BWD_LINEARIZE_AHEAD 4
#endif
/// 1 (the default): rowwise Adagrad's short-run kernel instantiated for
/// each precision of its state below f32 (kState kStateM1 + precision,
/// update.cuh), so that the state's load, decode and encode carry no
/// run-time branch on it. The fp8 e4m3 state's step on tbe_train's uniform
/// case, over the f32 state's in the same process (H100, 15 processes a
/// library alternating): median 1.0077x against 1.0149x, lower in 13 of
/// 15 pairs. 0: one kernel reading the precision from the parameters
/// (variant `stateruntime`; bench/tbe_train/NOTES.md, "The state's
/// precision at compile time").
#ifndef EMB_TBE_BWD_STATE_FIXED
#define EMB_TBE_BWD_STATE_FIXED 1
#endif
constexpr bool kOcc = EMB_TBE_BWD_OCC;
constexpr bool kStateFixed = EMB_TBE_BWD_STATE_FIXED;
constexpr int kLinearizeAhead = EMB_TBE_BWD_LINEARIZE_AHEAD;
constexpr bool kShortLean = EMB_TBE_BWD_SHORT_LEAN;
constexpr int kOccBlocks = EMB_TBE_BWD_OCC_BLOCKS;
[[maybe_unused]] constexpr int kOccLoadRegs = EMB_TBE_BWD_OCC_LOAD_REGS;
/// Accumulate CTAs an SM holds (the register cap follows: 2 CTAs of 256
/// threads, 128 registers; 3, 80). Measured on an H200 (bench/tbe_train/
/// NOTES.md, call 1): 3 CTAs 15-20% faster than 2 with the per-run
/// pipeline.
/// kernels/variants.cmake builds variants of this family with other values
/// of these knobs (and EMB_TBE_BWD_SUFFIX appended to the entry points'
/// names, kernels/tbe_backward.cu) to time them in one run.
#ifndef EMB_TBE_BWD_MIN_BLOCKS
#define EMB_TBE_BWD_MIN_BLOCKS 3
#endif
constexpr int kAccumulateMinBlocks = EMB_TBE_BWD_MIN_BLOCKS;

/// What a position's sort value holds, and how its gradient row is found.
enum Mode : unsigned char {
  /// SUM, unweighted: the row's first gradient element (b * gradPitch +
  /// column).
  MODE_ROW = 0,
  /// SUM, unweighted, where B * gradPitch does not fit 32 bits: the bag.
  MODE_BAG_SUM = 1,
  /// MEAN: the bag; scaled by 1 / its count of contributing ids.
  MODE_BAG_MEAN = 2,
  /// Weighted SUM: the position; its bag in bagOf, scaled by its weight.
  MODE_POS_WEIGHTED = 3,
  /// Pooling NONE: the position, whose own gradient row it reads.
  MODE_POS_NONE = 4,
};

/// One table, in key order ("slot"): its rows are keys keyBase ..
/// keyBase + rows - 1.
struct TableMeta {
  char *table;
  float *m1, *m2;
  unsigned long long keyBase;
  unsigned rows;
  unsigned dim;
  int index; ///< in embrtTbeArgs (errors, rounding seed)
  int bucket;
};
static_assert(sizeof(TableMeta) == 48, "TableMeta is 48 bytes");

/// One feature: its table's slot and its first gradient column.
struct FeatureMeta {
  unsigned slot;
  unsigned col;
};

/// One gather width: its lanes and columns a lane, its tables' slots
/// [firstSlot, endSlot) and their keys (below keyEnd).
struct BucketMeta {
  int lanes, elems, vector, firstSlot, endSlot, pad;
  unsigned long long keyEnd;
};

/// Counters of one step, at the start of the workspace; zeroed by the first
/// kernel.
struct Control {
  int numRuns; ///< written by the run-length encode
  int pad[3];
  int runBegin[kMaxBuckets], runEnd[kMaxBuckets];
  /// Long runs (high 32 bits) and chunks (low 32 bits) of each bucket.
  unsigned long long longAlloc[kMaxBuckets];
};

/// The scales of one slot's fp8 states (embrtStatePrecision): rowwise
/// Adagrad's table scale (m1Scale[0]), Adam's row scales. They live in the
/// workspace right after Control (kStateMetaOffset), only in a call whose
/// states are not all f32: the parameter block and the f32 kernels stay as
/// they are.
struct StateMeta {
  float *m1Scale, *m2Scale;
};
constexpr size_t kStateMetaOffset = 256;
static_assert(sizeof(Control) <= kStateMetaOffset,
              "StateMeta follows Control's 256 bytes of workspace");

/// n / d for n < 2^31 with a multiply and a shift (d >= 1).
struct FastDiv {
  unsigned d, mul, shr;
};

struct Shared {
  const void *indices, *offsets, *weights, *grad;
  const float *hyper;
  const long long *step;
  embrtDeviceErrors *errors;
  Control *ctrl;
  void *keys;                 ///< linearized keys (the sort's input)
  unsigned *vals;             ///< their values
  const void *unique;         ///< a key per run
  const unsigned *starts;     ///< a first position per run
  const unsigned *sortedVals; ///< values in key order
  unsigned *bagOf;            ///< MODE_POS_WEIGHTED: the bag of a position
  float *invCount;            ///< MODE_BAG_MEAN: 1 / count of a bag
  uint4 *desc;         ///< long runs: {start, chunks, slot, row} per bucket
  uint4 *chunks;       ///< chunk items: {start, end, long run, chunk}
  unsigned *countdown; ///< chunks of each long run still to land
  float *partial;      ///< partial sums, one row per slot
  const TableMeta *tablesGlobal;     ///< or NULL: Params::tables
  const FeatureMeta *featuresGlobal; ///< or NULL: Params::features
  long long batch, numIndices, numBags, paddingIdx;
  unsigned long long sentinel; ///< the total row count
  unsigned long long seed;
  /// Elements from one gradient row to the next (gradRowStride, or the
  /// dense width: the sum of D, D for pooling NONE)
  unsigned gradPitch;
  unsigned cap; ///< long runs / chunks a bucket may hold
  unsigned partialStride;
  unsigned threshold, chunk, spacing;
  int numTables, numFeatures, numBuckets;
  FastDiv byBatch;
  unsigned char pooling, bounds, idx64, off64, weightKind, hasPadding, mode,
      optimizer, key64;
  /// embrtStatePrecision of momentum1 and momentum2, read by the kernels
  /// instantiated for states below f32 (kState); in the struct's padding.
  unsigned char m1Prec, m2Prec;
};
static_assert(sizeof(Shared) == 280, "Shared keeps its size");

struct Params {
  Shared s;
  BucketMeta buckets[kMaxBuckets];
  TableMeta tables[kParamTables];
  FeatureMeta features[kParamFeatures];
};
static_assert(sizeof(Params) <= 32764, "parameter block too big");

//===----------------------------------------------------------------------===//
// Device helpers: metadata, loads, conversions
//===----------------------------------------------------------------------===//

__device__ __forceinline__ const TableMeta &tableAt(const Params &p, int slot) {
  return p.s.tablesGlobal ? p.s.tablesGlobal[slot] : p.tables[slot];
}

__device__ __forceinline__ const FeatureMeta &featureAt(const Params &p,
                                                        int f) {
  return p.s.featuresGlobal ? p.s.featuresGlobal[f] : p.features[f];
}

__device__ __forceinline__ const StateMeta &stateMetaAt(const Params &p,
                                                        int slot) {
  return reinterpret_cast<const StateMeta *>(
      reinterpret_cast<const char *>(p.s.ctrl) + kStateMetaOffset)[slot];
}

__device__ __forceinline__ unsigned fastDiv(const FastDiv &f, unsigned n) {
  return f.d == 1 ? n : __umulhi(n, f.mul) >> f.shr;
}

__device__ __forceinline__ unsigned long long loadKey(const void *keys,
                                                      bool key64, long long i) {
  return key64 ? __ldg(static_cast<const unsigned long long *>(keys) + i)
               : (unsigned long long)__ldg(static_cast<const unsigned *>(keys) +
                                           i);
}

/// kBytes of a row as 32-bit words (a 2-byte piece in w[0]).
template <int kBytes> struct Raw { unsigned w[kBytes >= 4 ? kBytes / 4 : 1]; };

/// Loads kBytes at `p` (aligned to min(kBytes, 16)) through L2.
template <int kBytes>
__device__ __forceinline__ Raw<kBytes> loadRaw(const void *p) {
  Raw<kBytes> r;
  if constexpr (kBytes >= 16) {
#pragma unroll
    for (int i = 0; i < kBytes / 16; ++i) {
      uint4 v = __ldcg(static_cast<const uint4 *>(p) + i);
      r.w[4 * i] = v.x;
      r.w[4 * i + 1] = v.y;
      r.w[4 * i + 2] = v.z;
      r.w[4 * i + 3] = v.w;
    }
  } else if constexpr (kBytes == 8) {
    uint2 v = __ldcg(static_cast<const uint2 *>(p));
    r.w[0] = v.x;
    r.w[1] = v.y;
  } else if constexpr (kBytes == 4) {
    r.w[0] = __ldcg(static_cast<const unsigned *>(p));
  } else {
    r.w[0] = __ldcg(static_cast<const unsigned short *>(p));
  }
  return r;
}

/// Stores kBytes of words at `p`.
template <int kBytes>
__device__ __forceinline__ void storeRaw(void *p, const Raw<kBytes> &r) {
  if constexpr (kBytes >= 16) {
#pragma unroll
    for (int i = 0; i < kBytes / 16; ++i)
      static_cast<uint4 *>(p)[i] = make_uint4(r.w[4 * i], r.w[4 * i + 1],
                                              r.w[4 * i + 2], r.w[4 * i + 3]);
  } else if constexpr (kBytes == 8) {
    *static_cast<uint2 *>(p) = make_uint2(r.w[0], r.w[1]);
  } else if constexpr (kBytes == 4) {
    *static_cast<unsigned *>(p) = r.w[0];
  } else {
    *static_cast<unsigned short *>(p) = (unsigned short)r.w[0];
  }
}

/// Element types: bits to f32 and back.
template <typename T> struct Elem;
template <> struct Elem<float> {
  __device__ static float get(const unsigned *w, int i) {
    return __uint_as_float(w[i]);
  }
  __device__ static void set(unsigned *w, int i, unsigned bits) { w[i] = bits; }
};
template <> struct Elem<__half> {
  __device__ static float get(const unsigned *w, int i) {
    return __half2float(
        __ushort_as_half((unsigned short)(w[i / 2] >> (16 * (i % 2)))));
  }
  __device__ static void set(unsigned *w, int i, unsigned bits) {
    if (i % 2)
      w[i / 2] = (w[i / 2] & 0xffffu) | bits << 16;
    else
      w[i / 2] = (w[i / 2] & 0xffff0000u) | bits;
  }
};
template <> struct Elem<__nv_bfloat16> {
  __device__ static float get(const unsigned *w, int i) {
    return __uint_as_float(i % 2 ? w[i / 2] & 0xffff0000u : w[i / 2] << 16);
  }
  __device__ static void set(unsigned *w, int i, unsigned bits) {
    Elem<__half>::set(w, i, bits);
  }
};

/// E elements of T per lane: loads and stores of a lane's columns, as one
/// vector (kVec) or element by element (the first n).
template <typename T, int E, bool kVec> struct Cols {
  static constexpr int kBytes = E * (int)sizeof(T);
  using R = Raw<kBytes>;
  __device__ static R load(const T *p, int n) {
    if constexpr (kVec) {
      return loadRaw<kBytes>(p);
    } else {
      R r;
#pragma unroll
      for (int i = 0; i < (kBytes >= 4 ? kBytes / 4 : 1); ++i)
        r.w[i] = 0;
#pragma unroll
      for (int i = 0; i < E; ++i)
        if (i < n) {
          unsigned bits =
              sizeof(T) == 4
                  ? __ldcg(reinterpret_cast<const unsigned *>(p) + i)
                  : __ldcg(reinterpret_cast<const unsigned short *>(p) + i);
          Elem<T>::set(r.w, i, bits);
        }
      return r;
    }
  }
  __device__ static void store(T *p, const R &r, int n) {
    if constexpr (kVec) {
      storeRaw<kBytes>(p, r);
    } else {
#pragma unroll
      for (int i = 0; i < E; ++i)
        if (i < n) {
          if constexpr (sizeof(T) == 4)
            reinterpret_cast<unsigned *>(p)[i] = r.w[i];
          else
            reinterpret_cast<unsigned short *>(p)[i] =
                (unsigned short)(r.w[i / 2] >> (16 * (i % 2)));
        }
    }
  }
};

/// Rounds f32 values to table elements: nearest for f32, stochastic for f16
/// and bf16 (the random bits of column `col0 + i` of the row's stream).
template <typename T>
__device__ __forceinline__ unsigned roundElem(float x, uint32_t rowSeed,
                                              unsigned col) {
  if constexpr (sizeof(T) == 4) {
    return __float_as_uint(x);
  } else if constexpr (std::is_same<T, __half>::value) {
    return embSrToF16(x, embSrColumnBits(rowSeed, col));
  } else {
    return embSrToBF16(x, embSrColumnBits(rowSeed, col));
  }
}

__device__ __noinline__ void reportBadId(embrtDeviceErrors *e, int feature,
                                         int table, long long bag,
                                         long long index, long long id,
                                         long long rows) {
  embrtDeviceRecordBadId(e, feature, table, bag, index, id, rows);
}

/// The slot of the table of `key` among bucket b's tables.
__device__ __forceinline__ int slotOfKey(const Params &p, int b,
                                         unsigned long long key) {
  int lo = p.buckets[b].firstSlot, hi = p.buckets[b].endSlot - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (tableAt(p, mid).keyBase <= key)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// The slot of `key` in bucket b when `hint` (a slot of the bucket, or -1)
/// may hold it: the group's previous run's table, which a grid walking the
/// key order together mostly stays in; else slotOfKey's search.
__device__ __forceinline__ int slotOfKeyNear(const Params &p, int b,
                                             unsigned long long key, int hint) {
  if (hint >= 0 && key >= tableAt(p, hint).keyBase &&
      (hint + 1 >= p.buckets[b].endSlot || key < tableAt(p, hint + 1).keyBase))
    return hint;
  return slotOfKey(p, b, key);
}

//===----------------------------------------------------------------------===//
// Device building blocks: groups of lanes
//===----------------------------------------------------------------------===//

/// A group of `lanes` consecutive threads (a power of two up to kThreads)
/// owning one row at a time: within one warp (shuffles on the group's mask)
/// or over lanes / 32 warps (named barrier index + 1, groupSync).
struct Group {
  int lanes, lane, index;
  unsigned mask;
};

__device__ __forceinline__ Group makeGroup(int lanes) {
  Group g;
  g.lanes = lanes;
  g.lane = (int)threadIdx.x & (lanes - 1);
  g.index = (int)threadIdx.x / lanes;
  g.mask = lanes >= 32
               ? 0xffffffffu
               : ((1u << lanes) - 1) << ((threadIdx.x & 31) & ~(lanes - 1));
  return g;
}

/// Groups of more than a warp synchronise on named barrier index + 1, an
/// immediate: with the id in a register, ptxas reserves all 16 of a CTA's
/// barriers, and the SM's 64 then hold only 4 CTAs (Nsight Compute's "Block
/// Limit Barriers"), under what the registers allow the short-run kernel
/// (6). A CTA holds at most kThreads / 64 such groups: ids 1-4.
__device__ __forceinline__ void groupSync(const Group &g) {
  static_assert(kThreads / 64 <= 4, "groupSync names barriers 1-4");
  if (g.lanes <= 32) {
    __syncwarp(g.mask);
    return;
  }
  switch (g.index) {
  case 0:
    asm volatile("bar.sync 1, %0;" ::"r"(g.lanes) : "memory");
    break;
  case 1:
    asm volatile("bar.sync 2, %0;" ::"r"(g.lanes) : "memory");
    break;
  case 2:
    asm volatile("bar.sync 3, %0;" ::"r"(g.lanes) : "memory");
    break;
  default:
    asm volatile("bar.sync 4, %0;" ::"r"(g.lanes) : "memory");
    break;
  }
}

/// The sum of `v` over the group, in a fixed order. `red`: kWarps floats of
/// shared memory.
__device__ __forceinline__ float groupSum(float v, const Group &g, float *red) {
  if (g.lanes <= 32) {
    for (int o = g.lanes >> 1; o; o >>= 1)
      v += __shfl_xor_sync(g.mask, v, o);
    return v;
  }
#pragma unroll
  for (int o = 16; o; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0)
    red[threadIdx.x >> 5] = v;
  groupSync(g);
  const int first = (g.index * g.lanes) >> 5;
  float sum = 0;
  for (int w = 0; w < (g.lanes >> 5); ++w)
    sum += red[first + w];
  groupSync(g);
  return sum;
}

/// The largest `v` over the group (exact: the order does not matter).
/// `red`: kWarps floats of shared memory.
__device__ __forceinline__ float groupMax(float v, const Group &g, float *red) {
  if (g.lanes <= 32) {
    for (int o = g.lanes >> 1; o; o >>= 1)
      v = fmaxf(v, __shfl_xor_sync(g.mask, v, o));
    return v;
  }
#pragma unroll
  for (int o = 16; o; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  if ((threadIdx.x & 31) == 0)
    red[threadIdx.x >> 5] = v;
  groupSync(g);
  const int first = (g.index * g.lanes) >> 5;
  float m = 0.0f;
  for (int w = 0; w < (g.lanes >> 5); ++w)
    m = fmaxf(m, red[first + w]);
  groupSync(g);
  return m;
}

/// Lane 0's `v`, to the whole group. `flag`: kWarps ints of shared memory.
__device__ __forceinline__ int groupBroadcast(int v, const Group &g,
                                              int *flag) {
  if (g.lanes <= 32)
    return __shfl_sync(g.mask, v, 0, g.lanes);
  if (g.lane == 0)
    flag[g.index] = v;
  groupSync(g);
  v = flag[g.index];
  groupSync(g);
  return v;
}

} // namespace

#endif // EMB_KERNELS_TBE_BACKWARD_COMMON_CUH
