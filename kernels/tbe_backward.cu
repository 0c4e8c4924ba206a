//===- kernels/tbe_backward.cu - The fused TBE backward on CUDA -*- C++ -*-===//
//
// The backward of emb.tbe with the optimizer fused (emb.tbe_backward, and
// emb.embedding_bag_backward as a TBE of one table): for every (table, row)
// that some bag position touched, the sum of the gradient rows of those
// positions (times the per-sample weight, or 1 / the bag's count for mean
// pooling; the position's own row for pooling NONE), then one SGD, exact
// rowwise Adagrad or Adam update of the row and its state, in place. No
// weight gradient is materialised. Tables f32, f16 or bf16 (rows written
// back with seeded stochastic rounding, kernels/stochastic_rounding.h),
// states f32, gradients f32 or the table dtype, i32 or i64 ids and offsets,
// pooling sum, mean or none, mixed D (1..2048), shared tables, padding ids,
// all four bounds-check modes.
//
// The step, all on the stream, no host synchronisation and no allocation
// (every scratch byte, CUB's temporary storage included, is the caller's
// workspace, sized from the shapes and N alone):
//
//   1. linearizeKernel: one warp per 32 consecutive bags. The warp reads the
//      33 offsets once, checks them (bad ones go to the device error record,
//      and are clamped so that every position is written exactly once by
//      some warp), then walks the bags' positions 32 at a time, coalesced:
//      each lane finds its position's bag among the 33 offsets with a
//      5-step shuffle search (no per-position search over all offsets, no
//      bag-id pass), and writes the position's key, (table, row) linearised
//      in the key order below, and its value: what the gradient gather
//      needs (the gradient row's first element for SUM, the bag for MEAN,
//      the position for weighted SUM and NONE). Padding ids and ids outside
//      their table get the sentinel key (the total row count), which sorts
//      last and is dropped. MEAN: per-bag counts in shared memory, then
//      1 / count per bag.
//   2. cub::DeviceRadixSort::SortPairs (key, value), keys of 32 bits when
//      the total row count fits (half the sort's work), only the key bits in
//      use (22 of them for 32 tables of 1e5 rows: 3 passes of 8 bits).
//      Stable, so each run's positions stay in position order: the sums are
//      deterministic.
//   3. cub::DeviceRunLengthEncode::Encode: unique keys and run lengths, the
//      run count in device memory; cub::DeviceScan::ExclusiveSum of the
//      lengths: run starts.
//   4. classifyKernel: persistent, over the runs the encode counted (read
//      from device memory). Each block finds where each D bucket's runs
//      begin and end (keys are ordered by bucket), and routes runs of at
//      least `threshold` positions (the routing table,
//      kernels/tbe_backward_config.cuh) as long: a descriptor and
//      max(1, n / chunk) chunk items per run, allocated with one 64-bit
//      atomic per block and bucket (descriptor and chunk counts packed, so
//      both come from one allocation) and a block prefix sum; the block
//      writes the chunk items together.
//   5. accumulateKernel, one launch per D bucket (gather width below),
//      persistent, counts read from device memory. A group of G lanes first
//      takes long chunks: it gathers the chunk's gradient rows, stores the
//      partial sum in its slot of the workspace, fences (device scope) and
//      counts the run's chunks down; the group that takes the count to zero
//      sums all partials of the run in chunk order and applies the update
//      (the same launch: no second kernel, no global barrier; the fence
//      before the count and the fence after it make every partial visible to
//      the last group). Then it takes units of 8 consecutive short runs: a
//      short run is owned whole by the group: gather, accumulate in f32
//      registers, optimizer, plain stores. The next run's descriptor and
//      table row are loaded while the current run's gradient rows are
//      gathered (a two-deep software pipeline), so the table row's DRAM
//      latency hides under the gather. EMB_TBE_BWD_MULTI instead has a
//      group own short runs R at a time (see "Short runs several at a
//      time"): one coalesced load of a batch's sort values, 8 gradient rows
//      in flight across run boundaries, the batch's table rows copied into
//      shared memory during the previous batch.
//      By default (EMB_TBE_BWD_OCC=1, since call 6) the short runs go to a
//      kernel of their own instead (see "Short runs by occupancy"): one run
//      a group, no pipeline, 6 CTAs an SM, launched after this one, which
//      then takes only the long chunks; the pipeline above is
//      EMB_TBE_BWD_OCC=0.
//
// Key order: tables sorted by D bucket (then by index), each table's rows
// contiguous. So each bucket's runs are one contiguous range of runs, found
// in step 4 without a search, and a launch per bucket needs no list of
// short runs at all.
//
// Gather width (kernels/tbe_backward_config.cuh): lane l of a group holds
// columns [l * E, l * E + E) of the row, E * sizeof(gradient) <= 16 bytes
// (32 for f32 rows wider than 1024), G = the power of two of lanes that
// covers D (up to 256: groups of several warps synchronise on named
// barriers). Per lane, 8 gradient rows (4 at 32 bytes) are in flight per
// batch: at most 32 registers of loads whatever D is.
//
//===----------------------------------------------------------------------===//

#include "kernels/device_errors.cuh"
#include "kernels/dtype.cuh"
#include "kernels/launch.h"
#include "kernels/stochastic_rounding.h"
#include "kernels/tbe_backward_config.cuh"

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>
#include <utility>

/// Returns the status of `expr` unless it is EMBRT_OK (kernels/ cannot
/// include runtime/status.h).
#define TRY(expr)                                                              \
  do {                                                                         \
    embrtStatus tryStatus_ = (expr);                                           \
    if (tryStatus_ != EMBRT_OK)                                                \
      return tryStatus_;                                                       \
  } while (0)

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
/// Short runs a group takes at a time: the pipelined path's unit, and the
/// stream's (a longer stream amortises its fill and drain).
constexpr int kUnitRuns = 8;
constexpr int kStreamUnitRuns = 32;
/// The short-run stream: stages of kStreamRows positions, kStreamStages in
/// flight (EMB_TBE_BWD_STREAM_ROWS sets the rows).
#ifndef EMB_TBE_BWD_STREAM_ROWS
#define EMB_TBE_BWD_STREAM_ROWS 4
#endif
constexpr int kStreamRows = EMB_TBE_BWD_STREAM_ROWS;
constexpr int kStreamStages = 2;
/// Short runs through the shared-memory stream (streamShortRuns) instead of
/// the per-run pipeline. Off: measured slower on an H200 (bench/tbe_train/
/// NOTES.md, call 2: 4.7 ms against 3.6 at B=16384 T=32 D=128 L=20; the
/// stream's issue side is a chain of dependent loads a position). Kept as
/// the benchmark's variant "stream".
#ifndef EMB_TBE_BWD_SHORT_STREAM
#define EMB_TBE_BWD_SHORT_STREAM 0
#endif
constexpr bool kShortStream = EMB_TBE_BWD_SHORT_STREAM;
/// Short runs owned several at a time by a group (section "Short runs
/// several at a time") instead of one at a time by the per-run pipeline; 2
/// accumulate CTAs an SM by default with it. Off: measured slower
/// (bench/tbe_train/NOTES.md, call 5).
#ifndef EMB_TBE_BWD_MULTI
#define EMB_TBE_BWD_MULTI 0
#endif
/// Short runs by a kernel of their own (shortRunsKernel, section "Short runs
/// by occupancy") with no software pipeline and few registers, 6 CTAs of 256
/// threads an SM (48 warps), a group owning one run at a time; the
/// accumulate kernel then takes only the long chunks. The default since
/// call 6 (bench/tbe_train/NOTES.md): occupancy, not per-group pipelining,
/// hides the latency. EMB_TBE_BWD_OCC=0 is the per-run pipeline before it
/// (bench variant "pipe", GPU test tbe_backward_pipe).
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
constexpr bool kOcc = EMB_TBE_BWD_OCC;
constexpr int kOccBlocks = EMB_TBE_BWD_OCC_BLOCKS;
[[maybe_unused]] constexpr int kOccLoadRegs = EMB_TBE_BWD_OCC_LOAD_REGS;
/// Accumulate CTAs an SM holds (the register cap follows: 2 CTAs of 256
/// threads, 128 registers; 3, 80). Measured on an H200 (bench/tbe_train/
/// NOTES.md, call 1): 3 CTAs 15-20% faster than 2 with the per-run
/// pipeline.
/// kernels/variants.cmake builds variants of this file with other values
/// (and EMB_TBE_BWD_SUFFIX appended to the entry points' names) to time them
/// in one run.
#ifndef EMB_TBE_BWD_MIN_BLOCKS
#define EMB_TBE_BWD_MIN_BLOCKS (EMB_TBE_BWD_MULTI ? 2 : 3)
#endif
constexpr int kAccumulateMinBlocks = EMB_TBE_BWD_MIN_BLOCKS;
#ifdef EMB_TBE_BWD_SUFFIX
#define EMB_TBE_BWD_PASTE2(a, b) a##b
#define EMB_TBE_BWD_PASTE(a, b) EMB_TBE_BWD_PASTE2(a, b)
#define EMB_TBE_BWD_ENTRY(name) EMB_TBE_BWD_PASTE(name, EMB_TBE_BWD_SUFFIX)
#else
#define EMB_TBE_BWD_ENTRY(name) name
#endif

/// What a position's sort value holds, and how its gradient row is found.
enum Mode : unsigned char {
  /// SUM, unweighted: the row's first gradient element (b * sumD + column).
  MODE_ROW = 0,
  /// SUM, unweighted, where B * sumD does not fit 32 bits: the bag.
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
  unsigned sumD; ///< gradient row width (D for pooling NONE)
  unsigned cap;  ///< long runs / chunks a bucket may hold
  unsigned partialStride;
  unsigned threshold, chunk, spacing;
  int numTables, numFeatures, numBuckets;
  FastDiv byBatch;
  unsigned char pooling, bounds, idx64, off64, weightKind, hasPadding, mode,
      optimizer, key64;
};

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

__device__ __forceinline__ unsigned fastDiv(const FastDiv &f, unsigned n) {
  return f.d == 1 ? n : __umulhi(n, f.mul) >> f.shr;
}

__device__ __forceinline__ long long loadIndex(const void *p, bool i64,
                                               long long i) {
  return i64 ? __ldg(static_cast<const long long *>(p) + i)
             : (long long)__ldg(static_cast<const int *>(p) + i);
}

__device__ __forceinline__ long long loadOffset(const Shared &s, long long i) {
  return loadIndex(s.offsets, s.off64, i);
}

__device__ __forceinline__ unsigned long long loadKey(const void *keys,
                                                      bool key64, long long i) {
  return key64 ? __ldg(static_cast<const unsigned long long *>(keys) + i)
               : (unsigned long long)__ldg(static_cast<const unsigned *>(keys) +
                                           i);
}

__device__ __forceinline__ float loadWeight(const Shared &s, long long i) {
  return embrt::loadPerSampleWeight(s.weightKind, s.weights, i);
}

__device__ __forceinline__ void prefetchL1(const void *p) {
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
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

__device__ __noinline__ void reportBadOffsets(embrtDeviceErrors *e, int feature,
                                              long long bag, long long index,
                                              long long value,
                                              long long limit) {
  embrtDeviceRecordError(e, EMBRT_DEVERR_BAD_OFFSETS, feature, bag, index,
                         value, limit);
}

__device__ __noinline__ void reportBadId(embrtDeviceErrors *e, int feature,
                                         int table, long long bag,
                                         long long index, long long id,
                                         long long rows) {
  embrtDeviceRecordBadId(e, feature, table, bag, index, id, rows);
}

//===----------------------------------------------------------------------===//
// Device building blocks: groups of lanes
//===----------------------------------------------------------------------===//

/// A group of `lanes` consecutive threads (a power of two up to kThreads)
/// owning one row at a time: within one warp (shuffles on the group's mask)
/// or over lanes / 32 warps (named barrier index + 1).
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

__device__ __forceinline__ void groupSync(const Group &g) {
  if (g.lanes > 32)
    asm volatile("bar.sync %0, %1;" ::"r"(g.index + 1), "r"(g.lanes)
                 : "memory");
  else
    __syncwarp(g.mask);
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

//===----------------------------------------------------------------------===//
// Kernel 1: linearize (key and value of every position)
//===----------------------------------------------------------------------===//

/// linearizeKernel<K>: K the key type (32 or 64 bits).
/// Work unit: 32 consecutive bags (global bag ids g0 .. g0 + 31), one warp.
/// Grid: persistent, grid-stride over the units; block kThreads (8 warps).
/// One thread: the offsets of bag g0 + lane (checked, clamped, made
///   non-decreasing across the warp by a max scan), then positions base +
///   lane for base = lo, lo + 32, .. < hi: the position's bag by a 5-step
///   shuffle search over the warp's 32 bag starts, its id, key and value.
///   [lo, hi) chains from warp to warp (the first unit from 0, the last to
///   N), so even bad offsets leave no position unwritten.
/// Shared memory: per warp 32 bag counts (MEAN). Block 0 zeroes Control.
template <typename K>
__global__ void __launch_bounds__(kThreads)
    linearizeKernel(const __grid_constant__ Params p) {
  const Shared &s = p.s;
  if (blockIdx.x == 0 && threadIdx.x < sizeof(Control) / 4)
    reinterpret_cast<unsigned *>(s.ctrl)[threadIdx.x] = 0;
  __shared__ unsigned bagCount[kWarps][32];
  const int lane = (int)threadIdx.x & 31, warp = (int)threadIdx.x >> 5;
  const long long N = s.numIndices, numBags = s.numBags;
  const long long numUnits = (numBags + 31) / 32;
  const bool mean = s.mode == MODE_BAG_MEAN;
  K *keys = static_cast<K *>(s.keys);
  for (long long unit = (long long)blockIdx.x * kWarps + warp; unit < numUnits;
       unit += (long long)gridDim.x * kWarps) {
    const long long g0 = unit * 32, g = g0 + lane;
    const bool bagValid = g < numBags;
    // Lanes past the last bag start where it ends.
    const long long rawStart = loadOffset(s, g < numBags ? g : numBags);
    const long long rawEnd = loadOffset(s, g < numBags ? g + 1 : numBags);
    const bool firstBad = g == 0 && rawStart != 0;
    const bool bad = bagValid && (firstBad || rawEnd < rawStart || rawEnd > N ||
                                  (g + 1 == numBags && rawEnd != N));
    const unsigned badMask = __ballot_sync(0xffffffffu, bad);
    if (badMask && lane == __ffs(badMask) - 1) {
      const unsigned f = fastDiv(s.byBatch, (unsigned)g);
      reportBadOffsets(s.errors, (int)f, g - (long long)f * s.batch,
                       firstBad ? g : g + 1, firstBad ? rawStart : rawEnd, N);
    }
    // Bag starts, clamped into [0, N] and made non-decreasing.
    long long m = min(max(rawStart, 0ll), N);
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const long long v = __shfl_up_sync(0xffffffffu, m, o);
      if (lane >= o)
        m = max(m, v);
    }
    const long long unitEnd = loadOffset(s, min(g0 + 32, numBags));
    const long long m0 = __shfl_sync(0xffffffffu, m, 0);
    const long long mEnd =
        max(__shfl_sync(0xffffffffu, m, 31), min(max(unitEnd, 0ll), N));
    const long long lo = unit == 0 ? 0 : m0;
    const long long hi = unit == numUnits - 1 ? N : mEnd;

    // This lane's bag: where its keys start, its rows, its value base.
    unsigned f = 0, b = 0, rows = 0, valBase = 0;
    unsigned long long keyBase = 0;
    int tableIndex = 0;
    if (bagValid) {
      f = fastDiv(s.byBatch, (unsigned)g);
      b = (unsigned)(g - (long long)f * s.batch);
      const FeatureMeta &fm = featureAt(p, (int)f);
      const TableMeta &tm = tableAt(p, (int)fm.slot);
      keyBase = tm.keyBase;
      rows = tm.rows;
      tableIndex = tm.index;
      valBase = s.mode == MODE_ROW ? b * s.sumD + fm.col : (unsigned)g;
    }
    if (mean) {
      bagCount[warp][lane] = 0;
      __syncwarp();
    }

    for (long long base = lo; base < hi; base += 32) {
      const long long q = base + lane;
      const bool inRange = q < hi;
      int j = 0;
#pragma unroll
      for (int step = 16; step; step >>= 1)
        if (__shfl_sync(0xffffffffu, m, j + step) <= q)
          j += step;
      const unsigned jRows = __shfl_sync(0xffffffffu, rows, j);
      const unsigned jVal = __shfl_sync(0xffffffffu, valBase, j);
      const unsigned long long jKey = __shfl_sync(0xffffffffu, keyBase, j);
      const bool jValid = __shfl_sync(0xffffffffu, (int)bagValid, j);
      const bool hasBag = inRange && jValid && q >= m0 && (j < 31 || q < mEnd);
      const long long id = inRange ? loadIndex(s.indices, s.idx64, q) : 0;
      const bool pad = s.hasPadding && id == s.paddingIdx;
      const bool inTable = (unsigned long long)id < jRows;
      const bool contributes = hasBag && !pad && inTable;
      if (s.bounds <= EMBRT_BOUNDS_WARNING) {
        const unsigned badIds =
            __ballot_sync(0xffffffffu, hasBag && !pad && !inTable);
        if (badIds) {
          const unsigned jf = __shfl_sync(0xffffffffu, f, j);
          const unsigned jb = __shfl_sync(0xffffffffu, b, j);
          const int jt = __shfl_sync(0xffffffffu, tableIndex, j);
          if (s.bounds == EMBRT_BOUNDS_WARNING) {
            if (lane == 0)
              embrtDeviceCountInvalidIds(s.errors, __popc(badIds));
          } else if (lane == __ffs(badIds) - 1) {
            reportBadId(s.errors, (int)jf, jt, jb, q, id, jRows);
          }
        }
      }
      if (inRange) {
        keys[q] =
            contributes ? (K)(jKey + (unsigned long long)id) : (K)s.sentinel;
        s.vals[q] = s.mode <= MODE_BAG_MEAN ? jVal : (unsigned)q;
        if (s.mode == MODE_POS_WEIGHTED)
          s.bagOf[q] = (unsigned)(g0 + j);
        if (mean && contributes)
          atomicAdd(&bagCount[warp][j], 1u);
      }
    }
    if (mean) {
      __syncwarp();
      const unsigned c = bagCount[warp][lane];
      if (bagValid)
        s.invCount[g] = c ? 1.0f / (float)c : 0.0f;
      __syncwarp();
    }
  }
}

//===----------------------------------------------------------------------===//
// Kernel 4: classify runs (bucket ranges, long runs and their chunks)
//===----------------------------------------------------------------------===//

__device__ __forceinline__ int bucketOfKey(const Params &p,
                                           unsigned long long key) {
  int b = 0;
  while (b < p.s.numBuckets && key >= p.buckets[b].keyEnd)
    ++b;
  return b;
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

/// classifyKernel<K>: K the key type.
/// Work unit: kThreads consecutive runs, one per thread, per block iteration
///   (grid-stride to the run count in Control).
/// One thread: its run's bucket (Control's bucket ranges where the bucket
///   changes), length, and, when long, its descriptor and countdown.
/// Block: the long runs of an iteration get their descriptors and chunks
///   with one atomic per bucket (a block prefix sum places each run), then
///   all threads write the chunk items.
template <typename K>
__global__ void __launch_bounds__(kThreads)
    classifyKernel(const __grid_constant__ Params p) {
  const Shared &s = p.s;
  using Scan = cub::BlockScan<unsigned long long, kThreads>;
  __shared__ typename Scan::TempStorage scanTemp;
  __shared__ unsigned long long allocBase;
  __shared__ uint4 longRuns[kThreads]; // {start, end, run index, first chunk}
  __shared__ unsigned char longBucket[kThreads];
  __shared__ int numLong;
  Control *ctrl = s.ctrl;
  const long long numRuns = ctrl->numRuns, N = s.numIndices;
  const int nb = s.numBuckets;
  for (long long base = (long long)blockIdx.x * kThreads; base < numRuns;
       base += (long long)gridDim.x * kThreads) {
    const long long r = base + threadIdx.x;
    const bool valid = r < numRuns;
    const unsigned long long key =
        valid ? loadKey(s.unique, s.key64, r) : s.sentinel;
    const int b = bucketOfKey(p, key);
    if (valid) {
      const int prev =
          r > 0 ? bucketOfKey(p, loadKey(s.unique, s.key64, r - 1)) : -1;
      if (b != prev) {
        if (b < nb)
          ctrl->runBegin[b] = (int)r;
        if (prev >= 0 && prev < nb)
          ctrl->runEnd[prev] = (int)r;
      }
      if (r == numRuns - 1 && b < nb)
        ctrl->runEnd[b] = (int)numRuns;
    }
    const unsigned start = valid ? __ldg(s.starts + r) : 0;
    const unsigned end =
        valid ? (r + 1 < numRuns ? __ldg(s.starts + r + 1) : (unsigned)N) : 0;
    const bool isLong = valid && b < nb && end - start >= s.threshold;
    if (!__syncthreads_or(isLong))
      continue;
    const unsigned nch = isLong ? max(1u, (end - start) / s.chunk) : 0u;
    if (threadIdx.x == 0)
      numLong = 0;
    for (int bb = 0; bb < nb; ++bb) {
      const bool mine = isLong && b == bb;
      unsigned long long prefix, total;
      Scan(scanTemp).ExclusiveSum(mine ? (1ull << 32) | nch : 0ull, prefix,
                                  total);
      if (threadIdx.x == 0 && total)
        allocBase = atomicAdd(&ctrl->longAlloc[bb], total);
      __syncthreads();
      if (mine) {
        const unsigned long long at = allocBase + prefix;
        const unsigned k = (unsigned)(at >> 32), c0 = (unsigned)at;
        const int slot = slotOfKey(p, bb, key);
        const unsigned row = (unsigned)(key - tableAt(p, slot).keyBase);
        s.desc[(size_t)bb * s.cap + k] = make_uint4(start, nch, slot, row);
        s.countdown[(size_t)bb * s.cap + k] = nch;
        const int e = atomicAdd(&numLong, 1);
        longRuns[e] = make_uint4(start, end, k, c0);
        longBucket[e] = (unsigned char)bb;
      }
      __syncthreads();
    }
    for (int e = 0; e < numLong; ++e) {
      const uint4 run = longRuns[e];
      const unsigned n = max(1u, (run.y - run.x) / s.chunk);
      uint4 *items = s.chunks + (size_t)longBucket[e] * s.cap + run.w;
      for (unsigned c = threadIdx.x; c < n; c += kThreads) {
        const unsigned cs = run.x + c * s.chunk;
        items[c] = make_uint4(cs, c + 1 == n ? run.y : cs + s.chunk, run.z, c);
      }
    }
    __syncthreads();
  }
}

//===----------------------------------------------------------------------===//
// Kernel 5: accumulate and update, per D bucket
//===----------------------------------------------------------------------===//

/// The hyper-parameters and the step, read once per thread.
struct Hyper {
  float lr, eps, b1, b2, wd, c1, c2;
  long long step;
};

/// Fills the CTA's copy of the hyper-parameters (thread 0), then waits.
__device__ __forceinline__ void loadHyper(const Shared &s, Hyper &h) {
  h.lr = __ldg(s.hyper + EMBRT_HYPER_LEARNING_RATE);
  h.eps = __ldg(s.hyper + EMBRT_HYPER_EPS);
  h.b1 = __ldg(s.hyper + EMBRT_HYPER_BETA1);
  h.b2 = __ldg(s.hyper + EMBRT_HYPER_BETA2);
  h.wd = __ldg(s.hyper + EMBRT_HYPER_WEIGHT_DECAY);
  h.step = s.step ? __ldg(s.step) : 0;
  h.c1 = 1.0f - powf(h.b1, (float)h.step);
  h.c2 = 1.0f - powf(h.b2, (float)h.step);
}

/// Adam counts steps from 1 (runtime/tbe_backward.c): at step 0 its bias
/// correction is 0. A step below 1 is recorded (embrtSynchronize reports
/// it) and the kernels that update rows return before touching any: the
/// CTA's Hyper is shared, so the whole CTA, and every CTA, leaves alike.
__device__ __forceinline__ bool badStep(const Shared &s, const Hyper &h) {
  if (s.optimizer != EMBRT_OPTIMIZER_ADAM || h.step >= 1)
    return false;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    embrtDeviceRecordError(s.errors, EMBRT_DEVERR_BAD_STEP, -1, -1, -1, h.step,
                           1);
  return true;
}

/// The first gradient element of the row of a position whose sort value is
/// v, and its scale (generic modes; MODE_ROW is inlined in gather).
__device__ __forceinline__ unsigned long long
gradRowOfValue(const Params &p, unsigned v, float &scale) {
  const Shared &s = p.s;
  unsigned bag = v;
  scale = 1.0f;
  switch (s.mode) {
  case MODE_POS_NONE:
    return (unsigned long long)v * s.sumD;
  case MODE_POS_WEIGHTED:
    bag = __ldg(s.bagOf + v);
    scale = loadWeight(s, v);
    break;
  case MODE_BAG_MEAN:
    scale = __ldg(s.invCount + v);
    break;
  default:
    break;
  }
  const unsigned f = fastDiv(s.byBatch, bag);
  const unsigned b = bag - f * (unsigned)s.batch;
  return (unsigned long long)b * s.sumD + featureAt(p, (int)f).col;
}

/// The same for sorted position q.
__device__ __forceinline__ unsigned long long
gradRowOf(const Params &p, unsigned q, float &scale) {
  return gradRowOfValue(p, __ldg(p.s.sortedVals + q), scale);
}

/// Sort values of a run's first positions, loaded a run ahead (with its
/// table row) so that the run's gradient rows are asked for at once. Off:
/// measured slower on an H200 (bench/tbe_train/NOTES.md, call 3: backward
/// 4.63 ms against 3.40 at B=16384 T=32 D=128 L=20, at 2 and 3 CTAs an SM
/// alike); kept behind EMB_TBE_BWD_PRE_VALS for the next measurement.
#ifndef EMB_TBE_BWD_PRE_VALS
#define EMB_TBE_BWD_PRE_VALS 0
#endif
constexpr bool kUsePreVals = EMB_TBE_BWD_PRE_VALS;
constexpr int kPreVals = 4;
struct PreVals {
  unsigned v[kPreVals];
};

/// The first kPreVals sort values of positions [start, end) (0 past end).
__device__ __forceinline__ PreVals loadPreVals(const Shared &s, unsigned start,
                                               unsigned end) {
  PreVals pv;
#pragma unroll
  for (int u = 0; u < kPreVals; ++u)
    pv.v[u] = start + u < end ? __ldg(s.sortedVals + start + u) : 0u;
  return pv;
}

/// Adds the gradient rows of sorted positions [start, end) (this lane's
/// columns col0 .., n of them valid) to acc, kBatch rows in flight: as many
/// as kLoadRegs registers hold, 2 to 8. The sums are the same bit for bit
/// whatever kBatch is: each row is added in position order.
template <typename GT, int E, bool kVec, bool kPre = false, int kLoadRegs = 32>
__device__ __forceinline__ void
gather(const Params &p, unsigned start, unsigned end, unsigned col0, int n,
       float *acc, const PreVals *pre = nullptr) {
  using C = Cols<GT, E, kVec>;
  constexpr int kRowRegs = C::kBytes >= 4 ? C::kBytes / 4 : 1;
  constexpr int kBatch = kLoadRegs / kRowRegs < 2   ? 2
                         : kLoadRegs / kRowRegs > 8 ? 8
                                                    : kLoadRegs / kRowRegs;
  const GT *grad = static_cast<const GT *>(p.s.grad) + col0;
  if (p.s.mode == MODE_ROW) {
    for (unsigned q0 = start; q0 < end; q0 += kBatch) {
      typename C::R r[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (q0 + u < end && n > 0) {
          // The first positions' values came a run ahead: their rows are
          // asked for at once.
          const unsigned v = kPre && u < kPreVals && q0 == start
                                 ? pre->v[u < kPreVals ? u : 0]
                                 : __ldg(p.s.sortedVals + q0 + u);
          r[u] = C::load(grad + v, n);
        } else {
#pragma unroll
          for (int i = 0; i < kRowRegs; ++i)
            r[u].w[i] = 0;
        }
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
#pragma unroll
        for (int i = 0; i < E; ++i)
          acc[i] += Elem<GT>::get(r[u].w, i);
    }
    return;
  }
  // Scaled rows hold a scale and a 64-bit row each: half the batch.
  constexpr int kHalf = kBatch / 2;
  for (unsigned q0 = start; q0 < end; q0 += kHalf) {
    typename C::R r[kHalf];
    float scale[kHalf];
#pragma unroll
    for (int u = 0; u < kHalf; ++u) {
      scale[u] = 0.0f;
      if (q0 + u < end && n > 0) {
        const unsigned long long row =
            kPre && u < kPreVals && q0 == start
                ? gradRowOfValue(p, pre->v[u < kPreVals ? u : 0], scale[u])
                : gradRowOf(p, q0 + u, scale[u]);
        r[u] = C::load(grad + row, n);
      } else {
#pragma unroll
        for (int i = 0; i < kRowRegs; ++i)
          r[u].w[i] = 0;
      }
    }
#pragma unroll
    for (int u = 0; u < kHalf; ++u)
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] = fmaf(scale[u], Elem<GT>::get(r[u].w, i), acc[i]);
  }
}

/// A run as the pipeline carries it.
struct Run {
  unsigned start, end;
  unsigned long long key;
  bool valid;
};

__device__ __forceinline__ Run loadRun(const Params &p, long long r,
                                       long long numRuns) {
  Run run;
  run.valid = r >= 0;
  run.start = run.end = 0;
  run.key = 0;
  if (run.valid) {
    run.start = __ldg(p.s.starts + r);
    run.end =
        r + 1 < numRuns ? __ldg(p.s.starts + r + 1) : (unsigned)p.s.numIndices;
    run.key = loadKey(p.s.unique, p.s.key64, r);
  }
  return run;
}

/// A table row as loaded ahead of its update: this lane's columns (raw) and
/// the row's state (rowwise Adagrad).
template <typename TT, int E> struct RowData {
  Raw<E *(int)sizeof(TT)> w;
  float state;
};

/// Where a row lives: its table's slot and the row, and the lane's columns.
struct RowRef {
  int slot;
  unsigned row;
  unsigned col0;
  int n; ///< valid columns of this lane (0: none)
};

template <typename TT, int E, bool kVec>
__device__ __forceinline__ RowRef rowRefOf(const Params &p, int bucket,
                                           unsigned long long key,
                                           const Group &g) {
  RowRef ref;
  ref.slot = slotOfKey(p, bucket, key);
  const TableMeta &tm = tableAt(p, ref.slot);
  ref.row = (unsigned)(key - tm.keyBase);
  ref.col0 = (unsigned)g.lane * E;
  const int left = (int)tm.dim - (int)ref.col0;
  ref.n = left <= 0 ? 0 : left < E ? left : E;
  return ref;
}

/// The optimizer (embrtOptimizer): kOpt when known at compile time, else (-1)
/// read from the parameters (loadRow and applyRow).
template <int kOpt>
__device__ __forceinline__ int optimizerOf(const Shared &s) {
  return kOpt >= 0 ? kOpt : s.optimizer;
}

template <typename TT, int E, bool kVec, int kOpt = -1>
__device__ __forceinline__ RowData<TT, E> loadRow(const Params &p,
                                                  const RowRef &ref) {
  const TableMeta &tm = tableAt(p, ref.slot);
  RowData<TT, E> d;
#pragma unroll
  for (int i = 0; i < (E * (int)sizeof(TT) >= 4 ? E * (int)sizeof(TT) / 4 : 1);
       ++i)
    d.w.w[i] = 0;
  const size_t at = (size_t)ref.row * tm.dim + ref.col0;
  if (ref.n > 0)
    d.w = Cols<TT, E, kVec>::load(reinterpret_cast<const TT *>(tm.table) + at,
                                  ref.n);
  d.state = 0.0f;
  if (optimizerOf<kOpt>(p.s) == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
    d.state = __ldcg(tm.m1 + ref.row);
  else if (optimizerOf<kOpt>(p.s) == EMBRT_OPTIMIZER_ADAM && ref.n > 0) {
    prefetchL1(tm.m1 + at);
    prefetchL1(tm.m2 + at);
  }
  return d;
}

/// Applies the optimizer to the row `ref` (loaded as `d`) with gradient g
/// (this lane's columns), and stores the row and its state. Called by the
/// whole group.
template <typename TT, int E, bool kVec, int kOpt = -1>
__device__ __forceinline__ void
applyRow(const Params &p, const Hyper &h, const Group &g, float *red,
         const RowRef &ref, const RowData<TT, E> &d, float *grad) {
  const Shared &s = p.s;
  const TableMeta &tm = tableAt(p, ref.slot);
  const size_t at = (size_t)ref.row * tm.dim + ref.col0;
  float w[E];
#pragma unroll
  for (int i = 0; i < E; ++i)
    w[i] = Elem<TT>::get(d.w.w, i);
  switch (optimizerOf<kOpt>(s)) {
  case EMBRT_OPTIMIZER_SGD:
#pragma unroll
    for (int i = 0; i < E; ++i)
      w[i] -= h.lr * (grad[i] + h.wd * w[i]);
    break;
  case EMBRT_OPTIMIZER_ROWWISE_ADAGRAD: {
    float part = 0.0f;
#pragma unroll
    for (int i = 0; i < E; ++i) {
      grad[i] = fmaf(h.wd, w[i], grad[i]);
      if (i < ref.n)
        part = fmaf(grad[i], grad[i], part);
    }
    const float sum = groupSum(part, g, red);
    const float state = d.state + sum / (float)tm.dim;
    const float scale = h.lr / (sqrtf(state) + h.eps);
#pragma unroll
    for (int i = 0; i < E; ++i)
      w[i] -= scale * grad[i];
    if (g.lane == 0)
      tm.m1[ref.row] = state;
    break;
  }
  default: { // Adam, with decoupled weight decay
    if (ref.n > 0) {
      using F = Cols<float, E, kVec>;
      typename F::R m = F::load(tm.m1 + at, ref.n),
                    v = F::load(tm.m2 + at, ref.n);
#pragma unroll
      for (int i = 0; i < E; ++i) {
        const float mi =
            h.b1 * __uint_as_float(m.w[i]) + (1.0f - h.b1) * grad[i];
        const float vi =
            h.b2 * __uint_as_float(v.w[i]) + (1.0f - h.b2) * grad[i] * grad[i];
        w[i] -= h.lr * ((mi / h.c1) / (sqrtf(vi / h.c2) + h.eps) + h.wd * w[i]);
        m.w[i] = __float_as_uint(mi);
        v.w[i] = __float_as_uint(vi);
      }
      F::store(tm.m1 + at, m, ref.n);
      F::store(tm.m2 + at, v, ref.n);
    }
    break;
  }
  }
  if (ref.n > 0) {
    Raw<E *(int)sizeof(TT)> out = d.w;
    const uint32_t rowSeed =
        sizeof(TT) == 4 ? 0u : embSrRowSeed(s.seed, h.step, tm.index, ref.row);
#pragma unroll
    for (int i = 0; i < E; ++i)
      Elem<TT>::set(out.w, i, roundElem<TT>(w[i], rowSeed, ref.col0 + i));
    Cols<TT, E, kVec>::store(reinterpret_cast<TT *>(tm.table) + at, out, ref.n);
  }
}

//===----------------------------------------------------------------------===//
// Short runs as one stream of gradient rows through shared memory
//===----------------------------------------------------------------------===//

/// The slots of the short-run stream in one warp's shared memory. Slot j of
/// a stage holds, for each lane, its piece of one position's gradient row,
/// and, where that position is the first of its run, the lane's piece of
/// the run's table row and the run's state (rowwise Adagrad). A warp's 32
/// lanes' pieces of one slot lie side by side (conflict-free), pieces wider
/// than 16 bytes in two planes.
template <typename TT, typename GT, int E> struct StreamSlots {
  static constexpr int kGradBytes = E * (int)sizeof(GT);
  static constexpr int kRowBytes = E * (int)sizeof(TT);
  static constexpr int kGradPiece = kGradBytes > 16 ? 16 : kGradBytes;
  static constexpr int kGradPlanes = kGradBytes / kGradPiece;
  static constexpr int kRowPiece = kRowBytes > 16 ? 16 : kRowBytes;
  static constexpr int kRowPlanes = kRowBytes / kRowPiece;
  /// cp.async copies 4, 8 or 16 bytes: 2-byte pieces take the pipelined path.
  static constexpr bool kStreamable = kGradBytes >= 4 && kRowBytes >= 4;
  static constexpr int kSlots = kStreamStages * kStreamRows;
  static constexpr int kGradRegion = kSlots * kGradPlanes * 32 * kGradPiece;
  static constexpr int kRowRegion = kSlots * kRowPlanes * 32 * kRowPiece;
  static constexpr int kWarpBytes = kGradRegion + kRowRegion + kSlots * 32 * 4;
  static constexpr int kCtaBytes = kStreamable ? kWarps * kWarpBytes : 0;

  __device__ static unsigned grad(unsigned warp, int slot, int plane,
                                  int lane) {
    return warp + ((slot * kGradPlanes + plane) * 32 + lane) * kGradPiece;
  }
  __device__ static unsigned row(unsigned warp, int slot, int plane, int lane) {
    return warp + kGradRegion +
           ((slot * kRowPlanes + plane) * 32 + lane) * kRowPiece;
  }
  __device__ static unsigned state(unsigned warp, int slot, int lane) {
    return warp + kGradRegion + kRowRegion + (slot * 32 + lane) * 4;
  }
};

/// Starts copying kBytes (4, 8 or 16) from `src` to shared address `dst`,
/// or zeros when `!pred` (src-size 0: nothing is read).
template <int kBytes>
__device__ __forceinline__ void copyAsync(unsigned dst, const void *src,
                                          bool pred) {
  if constexpr (kBytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst),
                 "l"(src), "r"(pred ? 16 : 0)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(dst),
                 "l"(src), "n"(kBytes), "r"(pred ? kBytes : 0)
                 : "memory");
}

[[maybe_unused]] __device__ __forceinline__ void commitCopies() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/// Waits until at most kPending groups of copies are in flight.
template <int kPending> __device__ __forceinline__ void waitCopies() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

/// kBytes (4, 8 or 16) of shared memory as words.
template <int kBytes>
__device__ __forceinline__ void loadShared(unsigned src, unsigned *w) {
  if constexpr (kBytes == 16)
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                 : "r"(src)
                 : "memory");
  else if constexpr (kBytes == 8)
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];"
                 : "=r"(w[0]), "=r"(w[1])
                 : "r"(src)
                 : "memory");
  else
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w[0]) : "r"(src) : "memory");
}

/// Where a stream stands in its unit's short runs: the run, the next
/// position of it, its end; `fresh` until its first position is taken.
struct Cursor {
  long long run;
  unsigned pos, end;
  bool fresh;
  bool cols; ///< the lane holds columns of the run's table (issue side)
};

/// Moves `c` to the first short run at or after `r` in [r, rb) (run = rb
/// when none is left); long runs are the chunks' work.
[[maybe_unused]] __device__ __forceinline__ void
seekShort(const Shared &s, Cursor &c, long long r, long long rb,
          long long numRuns) {
  for (; r < rb; ++r) {
    const unsigned st = __ldg(s.starts + r);
    const unsigned en =
        r + 1 < numRuns ? __ldg(s.starts + r + 1) : (unsigned)s.numIndices;
    if (en > st && en - st < s.threshold) {
      c.run = r;
      c.pos = st;
      c.end = en;
      c.fresh = true;
      return;
    }
  }
  c.run = rb;
}

/// Streams the short runs of [ra, rb) (consecutive runs, so their
/// positions lie in order) for one group: stages of kStreamRows positions
/// through shared memory, kStreamStages in flight; a stage may hold the
/// ends and starts of several runs. A run's table row (and state) is copied
/// with its first position; the consumer takes it into registers there,
/// accumulates the run's rows in f32, and updates the row when the next run
/// starts or the stream ends. Called by the whole group.
template <typename TT, typename GT, int E>
__device__ __forceinline__ void
streamShortRuns(const Params &p, const Hyper &h, const Group &g, float *red,
                int bucket, long long ra, long long rb, long long numRuns,
                unsigned warpBase) {
  using L = StreamSlots<TT, GT, E>;
  const Shared &s = p.s;
  const int lane = (int)threadIdx.x & 31;
  const unsigned col0 = (unsigned)g.lane * E;
  const GT *grad = static_cast<const GT *>(s.grad) + col0;

  // Issues the next kStreamRows positions into stage `stage`; returns how
  // many, and in `starts` which of them begin a run.
  Cursor ic;
  seekShort(s, ic, ra, rb, numRuns);
  auto issue = [&](int stage, unsigned &starts) {
    int n = 0;
    starts = 0;
    // Not unrolled: each position depends on the one before through the
    // cursor, and one copy of the run-start code keeps registers down.
#pragma unroll 1
    for (int j = 0; j < kStreamRows; ++j) {
      if (ic.run < rb) {
        const int slot = stage * kStreamRows + j;
        if (ic.fresh) {
          starts |= 1u << j;
          ic.fresh = false;
          const unsigned long long key = loadKey(s.unique, s.key64, ic.run);
          const RowRef ref = rowRefOf<TT, E, true>(p, bucket, key, g);
          const TableMeta &tm = tableAt(p, ref.slot);
          ic.cols = ref.n > 0;
          const char *src = reinterpret_cast<const char *>(
              reinterpret_cast<const TT *>(tm.table) +
              (size_t)ref.row * tm.dim + col0);
#pragma unroll
          for (int k = 0; k < L::kRowPlanes; ++k)
            copyAsync<L::kRowPiece>(L::row(warpBase, slot, k, lane),
                                    src + k * 16, ref.n > 0);
          if (s.optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
            copyAsync<4>(L::state(warpBase, slot, lane), tm.m1 + ref.row, true);
          else if (s.optimizer == EMBRT_OPTIMIZER_ADAM && ref.n > 0) {
            const size_t at = (size_t)ref.row * tm.dim + col0;
            prefetchL1(tm.m1 + at);
            prefetchL1(tm.m2 + at);
          }
        }
        unsigned long long rowOff;
        if (s.mode == MODE_ROW) {
          rowOff = __ldg(s.sortedVals + ic.pos);
        } else {
          float unused;
          rowOff = gradRowOf(p, ic.pos, unused);
        }
        const char *src = reinterpret_cast<const char *>(grad + rowOff);
#pragma unroll
        for (int k = 0; k < L::kGradPlanes; ++k)
          copyAsync<L::kGradPiece>(L::grad(warpBase, slot, k, lane),
                                   src + k * 16, ic.cols);
        ++n;
        if (++ic.pos == ic.end)
          seekShort(s, ic, ic.run + 1, rb, numRuns);
      }
    }
    commitCopies();
    return n;
  };

  // The consumer: its own cursor over the same runs, the current run's row.
  Cursor cc;
  cc.run = ra - 1;
  bool have = false;
  RowRef ref = {};
  RowData<TT, E> row = {};
  float acc[E];
#pragma unroll
  for (int i = 0; i < E; ++i)
    acc[i] = 0.0f;
  auto consume = [&](int stage, int n, unsigned starts) {
    for (int j = 0; j < n; ++j) {
      const int slot = stage * kStreamRows + j;
      if ((starts >> j) & 1) {
        if (have)
          applyRow<TT, E, true>(p, h, g, red, ref, row, acc);
        seekShort(s, cc, cc.run + 1, rb, numRuns);
        ref = rowRefOf<TT, E, true>(p, bucket,
                                    loadKey(s.unique, s.key64, cc.run), g);
#pragma unroll
        for (int k = 0; k < L::kRowPlanes; ++k)
          loadShared<L::kRowPiece>(L::row(warpBase, slot, k, lane),
                                   row.w.w + k * (L::kRowPiece / 4));
        if (s.optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD) {
          unsigned st;
          loadShared<4>(L::state(warpBase, slot, lane), &st);
          row.state = __uint_as_float(st);
        }
#pragma unroll
        for (int i = 0; i < E; ++i)
          acc[i] = 0.0f;
        have = true;
      }
      Raw<L::kGradBytes> r;
#pragma unroll
      for (int k = 0; k < L::kGradPlanes; ++k)
        loadShared<L::kGradPiece>(L::grad(warpBase, slot, k, lane),
                                  r.w + k * (L::kGradPiece / 4));
      float scale = 1.0f;
      if (s.mode != MODE_ROW)
        gradRowOf(p, cc.pos, scale);
      ++cc.pos;
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] = fmaf(scale, Elem<GT>::get(r.w, i), acc[i]);
    }
  };

  unsigned startsCur;
  int nCur = issue(0, startsCur);
  int stage = 0;
  while (nCur > 0) {
    unsigned startsNext;
    const int nNext = issue(stage ^ 1, startsNext);
    waitCopies<1>();
    consume(stage, nCur, startsCur);
    stage ^= 1;
    nCur = nNext;
    startsCur = startsNext;
  }
  waitCopies<0>();
  if (have)
    applyRow<TT, E, true>(p, h, g, red, ref, row, acc);
}

//===----------------------------------------------------------------------===//
// Short runs several at a time (EMB_TBE_BWD_MULTI)
//===----------------------------------------------------------------------===//

/// Short runs owned R at a time by one group ("batches" of R consecutive
/// runs) instead of one at a time. A batch's positions are consecutive in
/// key order, so its sort values come with one coalesced load (lane i of a
/// warp holds the batch's i-th value, shuffled to the group when its row is
/// asked for) and its gradient rows are asked for kBatch at a time across
/// run boundaries, each added to its run's accumulator (R rows of E floats
/// in registers). The batch's table rows and states are copied into shared
/// memory (cp.async) after the previous batch's update, so their DRAM
/// latency hides under this batch's gather; its run starts are loaded two
/// batches ahead, its keys and sort values one. Per batch: ceil(positions /
/// kBatch) gather round trips, where the per-run pipeline pays two a run
/// (the sort values, then the rows). 2 CTAs an SM (128 registers).
/// Off: measured correct but slower on an H200 (bench/tbe_train/NOTES.md,
/// call 5: backward 6.34 ms against 3.45 at B=16384 T=32 D=128 L=20, 11.7
/// against 7.9 at L=4; slower with larger R, likely its unrolled per-batch
/// code and serial per-run update chains). bench/CMakeLists.txt builds it
/// as the variants "multi" and "multi2" (R = 2); the GPU test runs it as
/// tbe_backward_multi.
constexpr bool kMulti = EMB_TBE_BWD_MULTI;
/// Consecutive runs a group takes at a time, a multiple of every batch's
/// R: units are dealt to groups in turn, so the groups walk the key order
/// together and the gradient columns of the tables being updated stay in L2.
constexpr int kMultiUnitRuns = 16;

/// Runs of a batch for E columns a lane (R * E accumulators): 4
/// (EMB_TBE_BWD_MULTI_RUNS), half that for 8 columns a lane.
#ifndef EMB_TBE_BWD_MULTI_RUNS
#define EMB_TBE_BWD_MULTI_RUNS 4
#endif
template <int E> struct MultiRuns {
  static constexpr int kRuns = EMB_TBE_BWD_MULTI_RUNS;
  static constexpr int value = E >= 8 ? (kRuns > 1 ? kRuns / 2 : 1) : kRuns;
  static_assert(kMultiUnitRuns % kRuns == 0, "a unit holds whole batches");
};

/// Calls f(std::integral_constant<int, i>) for i = 0 .. R - 1: a loop whose
/// index is a constant in every body, so that arrays indexed by it stay in
/// registers however large the body (applyRow) is.
template <typename F, int... Is>
__device__ __forceinline__ void forEachRun(std::integer_sequence<int, Is...>,
                                           F f) {
  (f(std::integral_constant<int, Is>{}), ...);
}

/// A batch: runs [r0, r0 + nr) (r0 is recomputed where needed: registers)
/// and their starts; st[nr..R] is the end of the last one.
template <int R> struct RunBatch {
  int nr; ///< 0: none (the group is done)
  unsigned st[R + 1];
};

template <int R>
__device__ __forceinline__ void loadStarts(const Shared &s, RunBatch<R> &b,
                                           long long r0, long long numRuns) {
#pragma unroll
  for (int i = 0; i <= R; ++i) {
    const long long r = r0 + (i < b.nr ? i : b.nr);
    b.st[i] = b.nr == 0     ? 0u
              : r < numRuns ? __ldg(s.starts + r)
                            : (unsigned)s.numIndices;
  }
}

template <int R>
__device__ __forceinline__ void loadKeys(const Shared &s, const RunBatch<R> &b,
                                         long long r0,
                                         unsigned long long (&key)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
    key[i] = i < b.nr ? loadKey(s.unique, s.key64, r0 + i) : 0ull;
}

/// Bit r: run r of the batch is short (long runs are the chunks' work).
template <int R>
__device__ __forceinline__ unsigned shortRunsOf(const Shared &s,
                                                const RunBatch<R> &b) {
  unsigned m = 0;
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const unsigned n = b.st[i + 1] - b.st[i];
    if (i < b.nr && n > 0 && n < s.threshold)
      m |= 1u << i;
  }
  return m;
}

/// This lane's sort value of the batch: position st[0] + vl.
template <int R>
__device__ __forceinline__ unsigned
loadBatchVals(const Shared &s, const RunBatch<R> &b, unsigned vl) {
  const unsigned q = b.st[0] + vl;
  return q < b.st[R] ? __ldg(s.sortedVals + q) : 0u;
}

/// Loads the table rows (and states) of the short runs of a batch; returns
/// each run's valid columns of this lane, 4 bits a run.
template <typename TT, int E, bool kVec, int R>
__device__ __forceinline__ unsigned
loadBatchRows(const Params &p, int bucket, const Group &g,
              const unsigned long long (&key)[R], unsigned shortMask,
              RowData<TT, E> (&rows)[R]) {
  unsigned cols = 0;
  forEachRun(std::make_integer_sequence<int, R>(), [&](auto rc) {
    constexpr int r = decltype(rc)::value;
    if ((shortMask >> r) & 1) {
      const RowRef ref = rowRefOf<TT, E, kVec>(p, bucket, key[r], g);
      rows[r] = loadRow<TT, E, kVec>(p, ref);
      cols |= (unsigned)ref.n << (4 * r);
    }
  });
  return cols;
}

/// Where a batch's table rows wait in shared memory between their copy
/// (cp.async, after the previous batch's update) and the batch's update:
/// registers stay free for the gather. Two buffers (batches k and k + 1).
/// Thread t's piece of run r's row: planes of 16 bytes (or the whole piece
/// when narrower), consecutive threads side by side (conflict-free); then
/// each run's state (rowwise Adagrad), a copy per thread.
template <typename TT, int E, int R> struct RowSlots {
  static constexpr int kBytes = E * (int)sizeof(TT);
  static constexpr int kPiece = kBytes > 16 ? 16 : kBytes;
  static constexpr int kPlanes = kBytes / kPiece;
  /// cp.async copies 4, 8 or 16 bytes: 2-byte pieces keep their rows in
  /// registers.
  static constexpr bool kUsable = kBytes >= 4;
  static constexpr int kRowRegion = R * kPlanes * kThreads * kPiece;
  static constexpr int kBufBytes = kRowRegion + R * kThreads * 4;

  __device__ static unsigned row(unsigned buf, int r, int plane) {
    return buf + ((r * kPlanes + plane) * kThreads + threadIdx.x) * kPiece;
  }
  __device__ static unsigned state(unsigned buf, int r) {
    return buf + kRowRegion + (r * kThreads + threadIdx.x) * 4;
  }
};

/// Copies the table rows (and states) of the short runs of a batch into the
/// shared-memory buffer `buf` (one group of copies; Adam's moments are
/// prefetched as loadRow does); returns each run's valid columns of this
/// lane, 4 bits a run.
template <typename TT, int E, bool kVec, int R>
__device__ __forceinline__ unsigned
copyBatchRows(const Params &p, int bucket, const Group &g,
              const unsigned long long (&key)[R], unsigned shortMask,
              unsigned buf) {
  using L = RowSlots<TT, E, R>;
  unsigned cols = 0;
#pragma unroll
  for (int r = 0; r < R; ++r)
    if ((shortMask >> r) & 1) {
      const RowRef ref = rowRefOf<TT, E, kVec>(p, bucket, key[r], g);
      const TableMeta &tm = tableAt(p, ref.slot);
      const size_t at = (size_t)ref.row * tm.dim + ref.col0;
      const char *src = reinterpret_cast<const char *>(
          reinterpret_cast<const TT *>(tm.table) + at);
#pragma unroll
      for (int k = 0; k < L::kPlanes; ++k)
        copyAsync<L::kPiece>(L::row(buf, r, k), src + k * 16, ref.n > 0);
      if (p.s.optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD)
        copyAsync<4>(L::state(buf, r), tm.m1 + ref.row, true);
      else if (p.s.optimizer == EMBRT_OPTIMIZER_ADAM && ref.n > 0) {
        prefetchL1(tm.m1 + at);
        prefetchL1(tm.m2 + at);
      }
      cols |= (unsigned)ref.n << (4 * r);
    }
  commitCopies();
  return cols;
}

/// Run r's table row (and state) from the buffer copyBatchRows filled (its
/// copies waited for).
template <typename TT, int E, int R>
__device__ __forceinline__ RowData<TT, E> takeRow(const Shared &s, unsigned buf,
                                                  int r) {
  using L = RowSlots<TT, E, R>;
  RowData<TT, E> d;
#pragma unroll
  for (int k = 0; k < L::kPlanes; ++k)
    loadShared<L::kPiece>(L::row(buf, r, k), d.w.w + k * (L::kPiece / 4));
  d.state = 0.0f;
  if (s.optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD) {
    unsigned st;
    loadShared<4>(L::state(buf, r), &st);
    d.state = __uint_as_float(st);
  }
  return d;
}

/// a + x where `hit`, else a, without a branch: the accumulators of a batch
/// stay registers (a branch on run == k lets the compiler index them by the
/// run, which puts them in local memory). Exact: a + 0 == a for every
/// accumulator, which starts at +0 and so never holds -0.
[[maybe_unused]] __device__ __forceinline__ float selectAdd(float a, float x,
                                                            unsigned hit) {
  return a + (hit ? x : 0.0f);
}

/// Adds the gradient rows of the batch's short runs to acc[run]: kBatch
/// positions at a time across run boundaries (long runs skipped). `vals`:
/// this lane's sort value (loadBatchVals), shuffled over `width` lanes
/// (`mask`); `cols`: each run's valid columns of this lane (loadBatchRows).
/// Sums in position order, as gather: the same results as the per-run path.
template <typename GT, int E, bool kVec, int R>
__device__ __forceinline__ void
gatherBatch(const Params &p, const RunBatch<R> &b, unsigned shortMask,
            unsigned vals, int width, unsigned mask, unsigned col0,
            unsigned cols, float (&acc)[R][E]) {
  using C = Cols<GT, E, kVec>;
  constexpr int kRowRegs = C::kBytes >= 4 ? C::kBytes / 4 : 1;
  constexpr int kBatch = 32 / kRowRegs < 2   ? 2
                         : 32 / kRowRegs > 8 ? 8
                                             : 32 / kRowRegs;
  // Scaled rows hold a scale and a 64-bit row each: half the batch.
  constexpr int kHalf = kBatch / 2;
  const Shared &s = p.s;
  const GT *grad = static_cast<const GT *>(s.grad) + col0;
  const unsigned s0 = b.st[0], end = b.st[R];
  auto runOf = [&](unsigned q) {
    int r = 0;
#pragma unroll
    for (int i = 1; i < R; ++i)
      r += q >= b.st[i];
    return r;
  };
  auto startOf = [&](int r) {
    unsigned v = b.st[R];
#pragma unroll
    for (int i = R - 1; i >= 0; --i)
      if (r == i)
        v = b.st[i];
    return v;
  };
  // The sort value of position q (group-uniform, below end): from the lane
  // that holds it, or loaded past the first `width` positions.
  auto valueAt = [&](unsigned q) {
    const unsigned o = q - s0;
    return o < (unsigned)width ? __shfl_sync(mask, vals, (int)o, width)
                               : __ldg(s.sortedVals + q);
  };
  for (unsigned q0 = s0; q0 < end;) {
    const int first = runOf(q0);
    if (!((shortMask >> first) & 1)) {
      q0 = startOf(first + 1);
      continue;
    }
    if (s.mode == MODE_ROW) {
      typename C::R r[kBatch];
      unsigned run[kBatch]; // one bit: the run of position q0 + u (none: 0)
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const unsigned q = q0 + u;
        run[u] = 0;
#pragma unroll
        for (int i = 0; i < kRowRegs; ++i)
          r[u].w[i] = 0;
        if (q < end) {
          const int ru = runOf(q);
          if ((shortMask >> ru) & 1) {
            run[u] = 1u << ru;
            const unsigned v = valueAt(q);
            const int n = (int)(cols >> (4 * ru)) & 15;
            if (n > 0)
              r[u] = C::load(grad + v, n);
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
#pragma unroll
        for (int k = 0; k < R; ++k)
#pragma unroll
          for (int i = 0; i < E; ++i)
            acc[k][i] = selectAdd(acc[k][i], Elem<GT>::get(r[u].w, i),
                                  (run[u] >> k) & 1);
      q0 += kBatch;
    } else {
      typename C::R r[kHalf];
      unsigned run[kHalf];
      float scale[kHalf];
#pragma unroll
      for (int u = 0; u < kHalf; ++u) {
        const unsigned q = q0 + u;
        run[u] = 0;
        scale[u] = 0.0f;
#pragma unroll
        for (int i = 0; i < kRowRegs; ++i)
          r[u].w[i] = 0;
        if (q < end) {
          const int ru = runOf(q);
          if ((shortMask >> ru) & 1) {
            run[u] = 1u << ru;
            const unsigned long long row =
                gradRowOfValue(p, valueAt(q), scale[u]);
            const int n = (int)(cols >> (4 * ru)) & 15;
            if (n > 0)
              r[u] = C::load(grad + row, n);
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kHalf; ++u)
#pragma unroll
        for (int k = 0; k < R; ++k)
#pragma unroll
          for (int i = 0; i < E; ++i)
            acc[k][i] =
                (run[u] >> k) & 1
                    ? fmaf(scale[u], Elem<GT>::get(r[u].w, i), acc[k][i])
                    : acc[k][i];
      q0 += kHalf;
    }
  }
}

/// accumulateKernel<TT, GT, E, kVec>: one D bucket's runs; TT the table's
/// storage type, GT the gradient's, E columns a lane (vectors when kVec).
///
/// Work: first the bucket's long chunks (one per group at a time), then its
///   short runs in units of kUnitRuns consecutive runs (one unit per group at
///   a time); both grid-stride over groups. Counts come from Control.
/// Grid: persistent, the CTAs that fit at once (or fewer when the work is
///   smaller); block kThreads, split into groups of G = bucket lanes.
/// One thread: columns [lane * E, lane * E + E) of every row its group
///   handles; f32 accumulators; kBatch gradient rows in flight.
/// Shared memory: the groups' reductions (G > 32). Alignment: the host picks
///   E so that every vector access is aligned (tbeBwdSelectBucket).
template <typename TT, typename GT, int E, bool kVec>
__global__ void __launch_bounds__(kThreads, kAccumulateMinBlocks)
    accumulateKernel(const __grid_constant__ Params p, int bucket) {
  const Shared &s = p.s;
  __shared__ float red[kWarps];
  __shared__ int flag[kWarps];
  // In shared memory, not registers: read once per row update.
  __shared__ Hyper h;
  if (threadIdx.x == 0)
    loadHyper(s, h);
  __syncthreads();
  if (badStep(s, h))
    return;
  const Group g = makeGroup(p.buckets[bucket].lanes);
  const int groupsPerCta = kThreads / g.lanes;
  const long long gid = (long long)blockIdx.x * groupsPerCta + g.index;
  const long long numGroups = (long long)gridDim.x * groupsPerCta;
  const Control *ctrl = s.ctrl;
  const long long numRuns = ctrl->numRuns;

  // Long runs: a chunk's partial sum to its slot; the last chunk of a run
  // sums the run's partials and updates the row.
  const unsigned numChunks = (unsigned)ctrl->longAlloc[bucket];
  const uint4 *chunks = s.chunks + (size_t)bucket * s.cap;
  const uint4 *desc = s.desc + (size_t)bucket * s.cap;
  unsigned *countdown = s.countdown + (size_t)bucket * s.cap;
  for (long long c = gid; c < numChunks; c += numGroups) {
    const uint4 item = __ldcg(chunks + c);
    const uint4 run = __ldcg(desc + item.z);
    const TableMeta &tm = tableAt(p, (int)run.z);
    RowRef ref;
    ref.slot = (int)run.z;
    ref.row = run.w;
    ref.col0 = (unsigned)g.lane * E;
    const int left = (int)tm.dim - (int)ref.col0;
    ref.n = left <= 0 ? 0 : left < E ? left : E;
    float acc[E];
#pragma unroll
    for (int i = 0; i < E; ++i)
      acc[i] = 0.0f;
    gather<GT, E, kVec>(p, item.x, item.y, ref.col0, ref.n, acc);
    using F = Cols<float, E, kVec>;
    const unsigned mySlot = (run.x + item.w * s.chunk) / s.spacing;
    if (ref.n > 0) {
      typename F::R out;
#pragma unroll
      for (int i = 0; i < E; ++i)
        out.w[i] = __float_as_uint(acc[i]);
      F::store(s.partial + (size_t)mySlot * s.partialStride + ref.col0, out,
               ref.n);
    }
    __threadfence();
    groupSync(g);
    int last = 0;
    if (g.lane == 0)
      last = atomicSub(countdown + item.z, 1u) == 1u;
    last = groupBroadcast(last, g, flag);
    if (last) {
      __threadfence();
      const RowData<TT, E> d = loadRow<TT, E, kVec>(p, ref);
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] = 0.0f;
      if (ref.n > 0) {
        for (unsigned k = 0; k < run.y; ++k) {
          const unsigned slot = (run.x + k * s.chunk) / s.spacing;
          const typename F::R part = F::load(
              s.partial + (size_t)slot * s.partialStride + ref.col0, ref.n);
#pragma unroll
          for (int i = 0; i < E; ++i)
            acc[i] += __uint_as_float(part.w[i]);
        }
      }
      applyRow<TT, E, kVec>(p, h, g, red, ref, d, acc);
    }
  }

  // Short runs are shortRunsKernel's (EMB_TBE_BWD_OCC).
  if constexpr (kOcc)
    return;
  const long long runBegin = ctrl->runBegin[bucket],
                  runEnd = ctrl->runEnd[bucket];
  if constexpr (kMulti) {
    // Short runs: batches of R consecutive runs, units of kMultiUnitRuns.
    constexpr int R = MultiRuns<E>::value;
    constexpr int kBatchesPerUnit = kMultiUnitRuns / R;
    using L = RowSlots<TT, E, R>;
    constexpr bool kSmemRows = kVec && L::kUsable;
    __shared__ __align__(
        16) unsigned char slots[kSmemRows ? 2 * L::kBufBytes : 16];
    const unsigned slotBase = (unsigned)__cvta_generic_to_shared(slots);
    const long long numUnits =
        (runEnd - runBegin + kMultiUnitRuns - 1) / kMultiUnitRuns;
    // The first run of the k-th batch this group takes, and the batch with
    // its starts asked for (nr = 0 past the group's last).
    auto firstRun = [&](long long k) {
      const long long u = gid + (k / kBatchesPerUnit) * numGroups;
      return u < numUnits
                 ? runBegin + u * kMultiUnitRuns + (k % kBatchesPerUnit) * R
                 : runEnd;
    };
    auto batchAt = [&](long long k) {
      RunBatch<R> b;
      const long long r0 = firstRun(k), left = runEnd - r0;
      b.nr = left <= 0 ? 0 : left < R ? (int)left : R;
      loadStarts(s, b, r0, numRuns);
      return b;
    };
    // Sort values are shuffled within a warp's part of the group.
    const int width = g.lanes < 32 ? g.lanes : 32;
    const unsigned vl = threadIdx.x & (unsigned)(width - 1);
    const unsigned col0 = (unsigned)g.lane * E;
    // Batch k's table rows: in shared memory (buffer k % 2), or registers.
    RowData<TT, E> rows[kSmemRows ? 1 : R] = {};
    unsigned long long key[R];
    auto issueRows = [&](unsigned shortMask, long long k) {
      if constexpr (kSmemRows)
        return copyBatchRows<TT, E, kVec, R>(p, bucket, g, key, shortMask,
                                             slotBase + (unsigned)(k & 1) *
                                                            L::kBufBytes);
      else
        return loadBatchRows<TT, E, kVec, R>(p, bucket, g, key, shortMask,
                                             rows);
    };
    // Batch k + 2's starts, k + 1's keys and sort values, and k's table rows
    // (asked for after k - 1's update) are in flight during k's gather.
    RunBatch<R> cur = batchAt(0), next = batchAt(1);
    loadKeys(s, cur, firstRun(0), key);
    unsigned curShort = shortRunsOf(s, cur);
    unsigned cols = issueRows(curShort, 0);
    loadKeys(s, next, firstRun(1), key);
    unsigned curVals = loadBatchVals(s, cur, vl);
    for (long long k = 0; cur.nr > 0; ++k) {
      const RunBatch<R> after = batchAt(k + 2);
      const unsigned nextVals = loadBatchVals(s, next, vl);
      if (curShort) {
        float acc[R][E];
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
          for (int i = 0; i < E; ++i)
            acc[r][i] = 0.0f;
        gatherBatch<GT, E, kVec, R>(p, cur, curShort, curVals, width, g.mask,
                                    col0, cols, acc);
        if constexpr (kSmemRows)
          waitCopies<0>();
        // The batch's keys again (L1 hits): registers for the gather.
        const long long r0 = firstRun(k);
        const unsigned buf = slotBase + (unsigned)(k & 1) * L::kBufBytes;
        forEachRun(std::make_integer_sequence<int, R>(), [&](auto rc) {
          constexpr int r = decltype(rc)::value;
          if ((curShort >> r) & 1) {
            RowData<TT, E> d;
            if constexpr (kSmemRows)
              d = takeRow<TT, E, R>(s, buf, r);
            else
              d = rows[kSmemRows ? 0 : r];
            applyRow<TT, E, kVec>(
                p, h, g, red,
                rowRefOf<TT, E, kVec>(p, bucket,
                                      loadKey(s.unique, s.key64, r0 + r), g),
                d, acc[r]);
          }
        });
      }
      curShort = shortRunsOf(s, next);
      cols = issueRows(curShort, k + 1);
      cur = next;
      next = after;
      curVals = nextVals;
      loadKeys(s, next, firstRun(k + 2), key);
    }
    if constexpr (kSmemRows)
      waitCopies<0>();
    return;
  }
  if constexpr (kShortStream && kVec && StreamSlots<TT, GT, E>::kStreamable) {
    // Short runs: units of kStreamUnitRuns consecutive runs, streamed.
    extern __shared__ __align__(16) unsigned char slots[];
    const unsigned warpBase =
        (unsigned)__cvta_generic_to_shared(slots) +
        (threadIdx.x >> 5) * StreamSlots<TT, GT, E>::kWarpBytes;
    const long long numUnits =
        (runEnd - runBegin + kStreamUnitRuns - 1) / kStreamUnitRuns;
    for (long long u = gid; u < numUnits; u += numGroups) {
      const long long ra = runBegin + u * kStreamUnitRuns;
      const long long rb =
          ra + kStreamUnitRuns < runEnd ? ra + kStreamUnitRuns : runEnd;
      streamShortRuns<TT, GT, E>(p, h, g, red, bucket, ra, rb, numRuns,
                                 warpBase);
    }
    return;
  }

  // Short runs: units of kUnitRuns consecutive runs, two-deep pipeline.
  const long long numUnits = (runEnd - runBegin + kUnitRuns - 1) / kUnitRuns;
  // The k-th run this group takes, or -1.
  auto runAt = [&](long long k) -> long long {
    const long long u = gid + (k / kUnitRuns) * numGroups;
    if (u >= numUnits)
      return -1;
    const long long r = runBegin + u * kUnitRuns + k % kUnitRuns;
    return r < runEnd ? r : -1;
  };
  auto isShort = [&](const Run &run) {
    return run.valid && run.end > run.start &&
           run.end - run.start < s.threshold;
  };
  // Run k + 2's descriptor, k + 1's table row (and, with kUsePreVals, its
  // first sort values), and k's gather and update are in flight together.
  Run cur = loadRun(p, runAt(0), numRuns), next = loadRun(p, runAt(1), numRuns);
  RowRef curRef = rowRefOf<TT, E, kVec>(p, bucket, cur.key, g);
  RowData<TT, E> curRow = {};
  PreVals curVals = {};
  if (isShort(cur)) {
    curRow = loadRow<TT, E, kVec>(p, curRef);
    if (kUsePreVals)
      curVals = loadPreVals(s, cur.start, cur.end);
  }
  for (long long k = 0; cur.valid; ++k) {
    const Run after = loadRun(p, runAt(k + 2), numRuns);
    RowRef nextRef = curRef;
    RowData<TT, E> nextRow = curRow;
    PreVals nextVals = curVals;
    if (isShort(next)) {
      nextRef = rowRefOf<TT, E, kVec>(p, bucket, next.key, g);
      nextRow = loadRow<TT, E, kVec>(p, nextRef);
      if (kUsePreVals)
        nextVals = loadPreVals(s, next.start, next.end);
    }
    if (isShort(cur)) {
      float acc[E];
#pragma unroll
      for (int i = 0; i < E; ++i)
        acc[i] = 0.0f;
      gather<GT, E, kVec, kUsePreVals>(p, cur.start, cur.end, curRef.col0,
                                       curRef.n, acc, &curVals);
      applyRow<TT, E, kVec>(p, h, g, red, curRef, curRow, acc);
    }
    cur = next;
    curRef = nextRef;
    curRow = nextRow;
    curVals = nextVals;
    next = after;
  }
}

//===----------------------------------------------------------------------===//
// Short runs by occupancy (EMB_TBE_BWD_OCC)
//===----------------------------------------------------------------------===//

/// The hypothesis (bench/tbe_train/NOTES.md, call 6): the short runs'
/// latency is hidden better by many groups each waiting on one run than by
/// fewer groups each pipelining three. So no software pipeline, few
/// registers (32 a thread at 8 CTAs of 256 an SM: 64 warps, against the
/// per-run pipeline's 24), and the optimizer a template parameter so that
/// the loop body is one run's code for one optimizer. The sums are the
/// per-run pipeline's bit for bit (each run's rows added in position order,
/// the same update and rounding), only fewer rows in flight a lane.
static_assert(!(kOcc && (kMulti || kShortStream)),
              "one short-run path at a time");

/// shortRunsKernel<TT, GT, E, kVec, kOpt>: the short runs (fewer than
/// `threshold` positions) of one D bucket; the long runs' chunks are the
/// accumulate kernel's, launched before it on the same stream (they touch
/// other rows: a run is one row).
/// Work: one short run per group at a time, runs runBegin + k * groups +
///   group (grid-stride over the bucket's runs, counts from Control), so the
///   groups of the grid walk the key order together and each table's
///   gradient columns are gathered from L2 while its runs are updated.
/// Grid: persistent, the CTAs that fit at once (8 an SM; fewer when N is
///   small). A grid sized from N (the only bound the host has on the run
///   count) would launch N / runs times the CTAs needed (3.4x at L = 20),
///   each of the extra ones paying a launch and a Control load to exit;
///   persistent CTAs also read the hyper-parameters once.
/// One thread: columns [lane * E, lane * E + E) of its group's row: the
///   run's start, end and key, then its table row and state (asked for
///   first, so that their DRAM latency runs under the gather), its gradient
///   rows (kOccLoadRegs registers of them in flight), the update, the stores.
/// Shared memory: the hyper-parameters, the groups' reductions (G > 32).
template <typename TT, typename GT, int E, bool kVec, int kOpt>
__global__ void __launch_bounds__(kThreads, kOccBlocks)
    shortRunsKernel(const __grid_constant__ Params p, int bucket) {
  const Shared &s = p.s;
  __shared__ float red[kWarps];
  __shared__ Hyper h;
  if (threadIdx.x == 0)
    loadHyper(s, h);
  __syncthreads();
  if (badStep(s, h))
    return;
  const Group g = makeGroup(p.buckets[bucket].lanes);
  // Runs and positions fit 31 bits (the entry points check N).
  const unsigned groupsPerCta = kThreads / (unsigned)g.lanes;
  const unsigned numGroups = gridDim.x * groupsPerCta;
  const Control *ctrl = s.ctrl;
  const unsigned numRuns = (unsigned)ctrl->numRuns;
  const unsigned runEnd = (unsigned)ctrl->runEnd[bucket];
  const unsigned N = (unsigned)s.numIndices;
  for (unsigned r = (unsigned)ctrl->runBegin[bucket] +
                    blockIdx.x * groupsPerCta + (unsigned)g.index;
       r < runEnd; r += numGroups) {
    // The key with the bounds, not after the length test: one round trip.
    const unsigned start = __ldg(s.starts + r);
    const unsigned end = r + 1 < numRuns ? __ldg(s.starts + r + 1) : N;
    const unsigned long long key = loadKey(s.unique, s.key64, r);
    if (end == start || end - start >= s.threshold)
      continue;
    const RowRef ref = rowRefOf<TT, E, kVec>(p, bucket, key, g);
    const RowData<TT, E> d = loadRow<TT, E, kVec, kOpt>(p, ref);
    float acc[E];
#pragma unroll
    for (int i = 0; i < E; ++i)
      acc[i] = 0.0f;
    gather<GT, E, kVec, false, kOccLoadRegs>(p, start, end, ref.col0, ref.n,
                                             acc);
    applyRow<TT, E, kVec, kOpt>(p, h, g, red, ref, d, acc);
  }
}

//===----------------------------------------------------------------------===//
// Instantiations: table type x gradient type x columns a lane x vector
//===----------------------------------------------------------------------===//

using AccumulateFn = void (*)(Params, int);

/// An accumulate kernel and the dynamic shared memory of its stream, and
/// with EMB_TBE_BWD_OCC the short-run kernel launched after it (else null).
struct Accumulate {
  AccumulateFn fn;
  int smem;
  AccumulateFn shortRuns;
};

/// The short-run kernel for `optimizer`; instantiated only with
/// EMB_TBE_BWD_OCC.
template <typename TT, typename GT, int E, bool kVec>
AccumulateFn shortRunsOf(int optimizer) {
  if constexpr (kOcc) {
    switch (optimizer) {
    case EMBRT_OPTIMIZER_SGD:
      return shortRunsKernel<TT, GT, E, kVec, EMBRT_OPTIMIZER_SGD>;
    case EMBRT_OPTIMIZER_ROWWISE_ADAGRAD:
      return shortRunsKernel<TT, GT, E, kVec, EMBRT_OPTIMIZER_ROWWISE_ADAGRAD>;
    default:
      return shortRunsKernel<TT, GT, E, kVec, EMBRT_OPTIMIZER_ADAM>;
    }
  }
  return nullptr;
}

template <typename TT, typename GT, int E, bool kVec>
Accumulate accumulateOf(int optimizer) {
  return {accumulateKernel<TT, GT, E, kVec>,
          kShortStream && kVec ? StreamSlots<TT, GT, E>::kCtaBytes : 0,
          shortRunsOf<TT, GT, E, kVec>(optimizer)};
}

template <typename TT, typename GT>
Accumulate accumulateFor(int elems, int vector, int optimizer) {
  if (!vector)
    return accumulateOf<TT, GT, 8, false>(optimizer);
  switch (elems) {
  case 1:
    return accumulateOf<TT, GT, 1, true>(optimizer);
  case 2:
    return accumulateOf<TT, GT, 2, true>(optimizer);
  case 4:
    return accumulateOf<TT, GT, 4, true>(optimizer);
  default:
    return accumulateOf<TT, GT, 8, true>(optimizer);
  }
}

Accumulate accumulateFor(embrtDtype table, embrtDtype grad, int elems,
                         int vector, int optimizer) {
  if (table == EMBRT_F32)
    return accumulateFor<float, float>(elems, vector, optimizer);
  if (table == EMBRT_F16)
    return grad == EMBRT_F32
               ? accumulateFor<__half, float>(elems, vector, optimizer)
               : accumulateFor<__half, __half>(elems, vector, optimizer);
  return grad == EMBRT_F32
             ? accumulateFor<__nv_bfloat16, float>(elems, vector, optimizer)
             : accumulateFor<__nv_bfloat16, __nv_bfloat16>(elems, vector,
                                                           optimizer);
}

//===----------------------------------------------------------------------===//
// Host side: the plan of a call
//===----------------------------------------------------------------------===//

size_t dtypeBytes(embrtDtype d) { return d == EMBRT_F32 ? 4 : 2; }

size_t alignUp(size_t x) { return (x + 255) & ~(size_t)255; }

int bitLength(unsigned long long x) {
  int n = 0;
  while (x) {
    ++n;
    x >>= 1;
  }
  return n;
}

FastDiv makeFastDiv(unsigned d) {
  FastDiv f;
  f.d = d ? d : 1;
  f.mul = 0;
  f.shr = 0;
  if (f.d != 1) {
    int l = 0;
    while ((1ull << l) < f.d)
      ++l;
    const int pw = 31 + l;
    f.mul = (unsigned)(((1ull << pw) + f.d - 1) / f.d);
    f.shr = (unsigned)(pw - 32);
  }
  return f;
}

/// Where everything of a call lives in the workspace: byte offsets, from the
/// shapes alone (no pointers), so that the query and the call agree.
struct Layout {
  int key64, endBit;
  unsigned long long totalRows;
  size_t ctrl, meta, keys0, keys1, vals0, vals1, bagOf, invCount, desc, chunks,
      countdown, partial, cub, cubBytes, total;
  unsigned cap, partialStride;
  int globalMeta;
  const TbeBwdConfig *cfg;
};

/// The CUB temporary storage of the sort, the encode and the scan of N
/// items (host queries: nothing runs).
template <typename K>
embrtStatus cubBytes(embrtLaunchEnv *env, int n, int endBit, size_t *bytes) {
  // The last answer of this thread (a training loop asks the same each step).
  static thread_local int lastN = -1, lastBits, lastSm;
  static thread_local size_t lastBytes;
  if (n == lastN && endBit == lastBits && env->smCount == lastSm) {
    *bytes = lastBytes;
    return EMBRT_OK;
  }
  size_t sort = 0, rle = 0, scan = 0;
  cub::DoubleBuffer<K> keys(nullptr, nullptr);
  cub::DoubleBuffer<unsigned> vals(nullptr, nullptr);
  cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
  TRY(embrtCudaCheck(env,
                     cub::DeviceRadixSort::SortPairs(nullptr, sort, keys, vals,
                                                     n, 0, endBit, stream),
                     "tbe_backward: cub::DeviceRadixSort size query"));
  TRY(embrtCudaCheck(env,
                     cub::DeviceRunLengthEncode::Encode(
                         nullptr, rle, (const K *)nullptr, (K *)nullptr,
                         (unsigned *)nullptr, (int *)nullptr, n, stream),
                     "tbe_backward: cub::DeviceRunLengthEncode size query"));
  TRY(embrtCudaCheck(
      env,
      cub::DeviceScan::ExclusiveSum(nullptr, scan, (const unsigned *)nullptr,
                                    (unsigned *)nullptr, n, stream),
      "tbe_backward: cub::DeviceScan size query"));
  *bytes = sort > rle ? (sort > scan ? sort : scan) : (rle > scan ? rle : scan);
  lastN = n;
  lastBits = endBit;
  lastSm = env->smCount;
  lastBytes = *bytes;
  return EMBRT_OK;
}

embrtStatus planLayout(embrtLaunchEnv *env, const embrtTbeBackwardArgs *a,
                       Layout *L) {
  const embrtTbeArgs *l = &a->lookup;
  const int64_t N = l->numIndices, numBags = l->numFeatures * l->batchSize;
  L->cfg = tbeBwdGetConfig(tbeBwdSelectConfig(a->configId));
  unsigned long long total = 0;
  int64_t maxDim = 1;
  for (int64_t t = 0; t < l->numTables; ++t) {
    total += (unsigned long long)l->tableRows[t];
    maxDim = l->tableDims[t] > maxDim ? l->tableDims[t] : maxDim;
  }
  L->totalRows = total;
  L->key64 = total >= 0xffffffffull || L->cfg->keyBits == 64;
  L->endBit = bitLength(total);
  if (L->endBit < 1)
    L->endBit = 1;
  L->globalMeta =
      l->numTables > kParamTables || l->numFeatures > kParamFeatures;
  const size_t keyBytes = L->key64 ? 8 : 4;
  const int64_t spacing = tbeBwdChunkSpacing(L->cfg);
  L->cap = (unsigned)(N / spacing + 1);
  L->partialStride = (unsigned)((maxDim + 7) & ~7ll);
  size_t at = 0;
  auto take = [&](size_t bytes) {
    size_t here = at;
    at += alignUp(bytes);
    return here;
  };
  L->ctrl = take(sizeof(Control));
  L->meta = L->globalMeta ? take((size_t)l->numTables * sizeof(TableMeta) +
                                 (size_t)l->numFeatures * sizeof(FeatureMeta))
                          : 0;
  L->keys0 = take((size_t)N * keyBytes);
  L->keys1 = take((size_t)N * keyBytes);
  L->vals0 = take((size_t)N * 4);
  L->vals1 = take((size_t)N * 4);
  // Weighted SUM keeps each position's bag. The query may not have the
  // weights' pointer yet: every SUM reserves it.
  L->bagOf = l->pooling == EMBRT_POOLING_SUM ? take((size_t)N * 4) : 0;
  L->invCount =
      l->pooling == EMBRT_POOLING_MEAN ? take((size_t)numBags * 4) : 0;
  L->desc = take((size_t)kMaxBuckets * L->cap * sizeof(uint4));
  L->chunks = take((size_t)kMaxBuckets * L->cap * sizeof(uint4));
  L->countdown = take((size_t)kMaxBuckets * L->cap * 4);
  L->partial = take((size_t)L->cap * L->partialStride * 4);
  size_t cb = 0;
  if (N > 0) {
    if (L->key64)
      TRY(cubBytes<unsigned long long>(env, (int)N, L->endBit, &cb));
    else
      TRY(cubBytes<unsigned>(env, (int)N, L->endBit, &cb));
  }
  L->cubBytes = cb;
  L->cub = take(cb);
  L->total = at;
  return EMBRT_OK;
}

/// The widest per-lane vector (power of two, at most 8 elements) for which
/// every access of table t is aligned: its gradient rows (every feature's
/// column, the row stride), table rows and (Adam) state rows.
int alignedElems(const embrtTbeBackwardArgs *a, int64_t t, int64_t sumDims) {
  const embrtTbeArgs *l = &a->lookup;
  const int64_t D = l->tableDims[t];
  const size_t tsz = dtypeBytes(l->tableDtype), gsz = dtypeBytes(a->gradDtype);
  const int none = l->pooling == EMBRT_POOLING_NONE;
  auto ok = [&](int e) {
    if (D % e)
      return false;
    auto aligned = [&](uintptr_t base, uint64_t stride, size_t sz) {
      const uint64_t need = (uint64_t)e * sz < 16 ? (uint64_t)e * sz : 16;
      return base % need == 0 && stride * sz % need == 0;
    };
    if (!aligned((uintptr_t)l->tables[t], (uint64_t)D, tsz))
      return false;
    if (a->optimizer == EMBRT_OPTIMIZER_ADAM &&
        (!aligned((uintptr_t)a->momentum1[t], (uint64_t)D, 4) ||
         !aligned((uintptr_t)a->momentum2[t], (uint64_t)D, 4)))
      return false;
    // Partial sums are f32 rows of a stride that is a multiple of 8.
    if (!aligned(0, 8, 4))
      return false;
    int64_t col = 0;
    for (int64_t f = 0; f < l->numFeatures; ++f) {
      const int64_t ft = l->featureTables[f];
      if (ft == t && !aligned((uintptr_t)a->gradOutput + (none ? 0 : col) * gsz,
                              (uint64_t)(none ? D : sumDims), gsz))
        return false;
      col += l->tableDims[ft];
    }
    return true;
  };
  for (int e = 8; e > 1; e >>= 1)
    if (ok(e))
      return e;
  return 1;
}

//===----------------------------------------------------------------------===//
// Host side: launch
//===----------------------------------------------------------------------===//

/// Buckets, slots and key bases: tables sorted by bucket, then index.
embrtStatus buildMeta(embrtLaunchEnv *env, const embrtTbeBackwardArgs *a,
                      Params *P, TableMeta *tables, FeatureMeta *features) {
  const embrtTbeArgs *l = &a->lookup;
  const int64_t T = l->numTables, F = l->numFeatures;
  const int none = l->pooling == EMBRT_POOLING_NONE;
  int64_t sumDims = 0;
  for (int64_t f = 0; f < F; ++f)
    sumDims += l->tableDims[l->featureTables[f]];
  const int gradBytes = (int)dtypeBytes(a->gradDtype);

  // Each table's bucket.
  TbeBwdBucket *tb =
      static_cast<TbeBwdBucket *>(malloc(sizeof(TbeBwdBucket) * (T + 1)));
  int *order = static_cast<int *>(malloc(sizeof(int) * (T + 1)));
  int *bucketId = static_cast<int *>(malloc(sizeof(int) * (T + 1)));
  if (!tb || !order || !bucketId) {
    free(tb);
    free(order);
    free(bucketId);
    return embrtLaunchError(env, EMBRT_OUT_OF_MEMORY,
                            "tbe_backward: no host memory for %lld tables",
                            (long long)T);
  }
  for (int64_t t = 0; t < T; ++t)
    tb[t] = tbeBwdSelectBucket(gradBytes, l->tableDims[t],
                               alignedElems(a, t, sumDims));
  // Distinct buckets; past kMaxBuckets, widen every bucket to 256 lanes
  // (always enough), which leaves at most 5.
  TbeBwdBucket distinct[32];
  int nb = 0;
  for (int pass = 0; pass < 2; ++pass) {
    nb = 0;
    for (int64_t t = 0; t < T; ++t) {
      if (pass)
        tb[t].lanes = TBE_BWD_MAX_LANES;
      int k = 0;
      while (k < nb && (distinct[k].lanes != tb[t].lanes ||
                        distinct[k].elems != tb[t].elems ||
                        distinct[k].vector != tb[t].vector))
        ++k;
      if (k == nb && nb < 32)
        distinct[nb++] = tb[t];
      bucketId[t] = k;
    }
    if (nb <= kMaxBuckets)
      break;
  }
  // Slot order: by bucket, then by table index.
  int n = 0;
  for (int b = 0; b < nb; ++b)
    for (int64_t t = 0; t < T; ++t)
      if (bucketId[t] == b)
        order[n++] = (int)t;
  int *slotOf = static_cast<int *>(malloc(sizeof(int) * (T + 1)));
  unsigned long long key = 0;
  for (int b = 0, slot = 0; b < nb; ++b) {
    BucketMeta &bm = P->buckets[b];
    bm.lanes = distinct[b].lanes;
    bm.elems = distinct[b].elems;
    bm.vector = distinct[b].vector;
    bm.firstSlot = slot;
    bm.pad = 0;
    while (slot < T && bucketId[order[slot]] == b) {
      const int t = order[slot];
      TableMeta &m = tables[slot];
      m.table = static_cast<char *>(const_cast<void *>(l->tables[t]));
      m.m1 = a->momentum1 ? static_cast<float *>(a->momentum1[t]) : nullptr;
      m.m2 = a->momentum2 ? static_cast<float *>(a->momentum2[t]) : nullptr;
      m.keyBase = key;
      m.rows = (unsigned)l->tableRows[t];
      m.dim = (unsigned)l->tableDims[t];
      m.index = t;
      m.bucket = b;
      key += (unsigned long long)l->tableRows[t];
      if (slotOf)
        slotOf[t] = slot;
      ++slot;
    }
    bm.endSlot = slot;
    bm.keyEnd = key;
  }
  int64_t col = 0;
  for (int64_t f = 0; f < F && slotOf; ++f) {
    const int64_t t = l->featureTables[f];
    features[f].slot = (unsigned)slotOf[t];
    features[f].col = none ? 0u : (unsigned)col;
    col += l->tableDims[t];
  }
  P->s.numBuckets = nb;
  const int ok = slotOf != nullptr;
  free(tb);
  free(order);
  free(bucketId);
  free(slotOf);
  if (!ok)
    return embrtLaunchError(env, EMBRT_OUT_OF_MEMORY,
                            "tbe_backward: no host memory for %lld tables",
                            (long long)T);
  return EMBRT_OK;
}

/// CTAs for a persistent grid of `kernel` (threads kThreads): as many as fit
/// at once, at most `needed`, at least 1. The occupancy query is made once
/// per kernel and thread (a step launches up to a dozen kernels; the host
/// time of small steps counts).
template <typename Kernel>
unsigned persistentGrid(embrtLaunchEnv *env, Kernel kernel, long long needed,
                        int smem = 0) {
  static thread_local const void *known[64];
  static thread_local int knownPerSm[64], numKnown;
  int perSm = 0;
  for (int i = 0; i < numKnown; ++i)
    if (known[i] == reinterpret_cast<const void *>(kernel))
      perSm = knownPerSm[i];
  if (perSm == 0) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kThreads,
                                                      smem) != cudaSuccess ||
        perSm < 1) {
      cudaGetLastError();
      perSm = 1;
    }
    if (numKnown < 64) {
      known[numKnown] = reinterpret_cast<const void *>(kernel);
      knownPerSm[numKnown++] = perSm;
    }
  }
  long long grid = (long long)perSm * (env->smCount > 0 ? env->smCount : 1);
  if (needed < grid)
    grid = needed;
  return (unsigned)(grid > 0 ? grid : 1);
}

template <typename K>
embrtStatus launchSteps(embrtLaunchEnv *env, const embrtTbeBackwardArgs *a,
                        const Layout &L, Params &P) {
  cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
  const embrtTbeArgs *l = &a->lookup;
  const long long N = l->numIndices, numBags = P.s.numBags;
  char *ws = static_cast<char *>(a->workspace);

  // 1. Keys and values.
  {
    const long long units = (numBags + 31) / 32;
    const long long blocks = (units + kWarps - 1) / kWarps;
    const unsigned grid = persistentGrid(env, linearizeKernel<K>, blocks);
    linearizeKernel<K><<<grid, kThreads, 0, stream>>>(P);
    TRY(embrtCudaCheck(env, cudaGetLastError(),
                       "tbe_backward: linearize kernel launch"));
  }
  if (N == 0)
    return EMBRT_OK;

  // 2-3. Sort, run-length encode, run starts.
  cub::DoubleBuffer<K> keys(reinterpret_cast<K *>(ws + L.keys0),
                            reinterpret_cast<K *>(ws + L.keys1));
  cub::DoubleBuffer<unsigned> vals(reinterpret_cast<unsigned *>(ws + L.vals0),
                                   reinterpret_cast<unsigned *>(ws + L.vals1));
  size_t cubBytes = L.cubBytes;
  void *cubTemp = ws + L.cub;
  TRY(embrtCudaCheck(env,
                     cub::DeviceRadixSort::SortPairs(cubTemp, cubBytes, keys,
                                                     vals, (int)N, 0, L.endBit,
                                                     stream),
                     "tbe_backward: cub::DeviceRadixSort::SortPairs"));
  K *unique = keys.Alternate();
  unsigned *counts = vals.Alternate();
  unsigned *starts = reinterpret_cast<unsigned *>(keys.Current());
  Control *ctrl = reinterpret_cast<Control *>(ws + L.ctrl);
  cubBytes = L.cubBytes;
  TRY(embrtCudaCheck(env,
                     cub::DeviceRunLengthEncode::Encode(
                         cubTemp, cubBytes, keys.Current(), unique, counts,
                         &ctrl->numRuns, (int)N, stream),
                     "tbe_backward: cub::DeviceRunLengthEncode::Encode"));
  cubBytes = L.cubBytes;
  TRY(embrtCudaCheck(env,
                     cub::DeviceScan::ExclusiveSum(cubTemp, cubBytes, counts,
                                                   starts, (int)N, stream),
                     "tbe_backward: cub::DeviceScan::ExclusiveSum"));
  P.s.unique = unique;
  P.s.starts = starts;
  P.s.sortedVals = vals.Current();

  // 4. Classify.
  {
    const unsigned grid =
        persistentGrid(env, classifyKernel<K>, (N + kThreads - 1) / kThreads);
    classifyKernel<K><<<grid, kThreads, 0, stream>>>(P);
    TRY(embrtCudaCheck(env, cudaGetLastError(),
                       "tbe_backward: classify kernel launch"));
  }

  // 5. Accumulate and update, one launch per bucket (with
  // EMB_TBE_BWD_OCC two: the long chunks, then the short runs).
  for (int b = 0; b < P.s.numBuckets; ++b) {
    const BucketMeta &bm = P.buckets[b];
    const Accumulate acc = accumulateFor(l->tableDtype, a->gradDtype, bm.elems,
                                         bm.vector, a->optimizer);
    if (acc.smem > 48 * 1024)
      TRY(embrtCudaCheck(
          env,
          cudaFuncSetAttribute(
              acc.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, acc.smem),
          "tbe_backward: cudaFuncSetAttribute"));
    const long long groupsPerCta = kThreads / bm.lanes;
    // Work items a group takes: at most N / spacing chunks plus the units
    // (none with the short-run kernel).
    const long long work =
        (long long)L.cap +
        (acc.shortRuns ? 0 : (N + kUnitRuns - 1) / kUnitRuns);
    const unsigned grid = persistentGrid(
        env, acc.fn, (work + groupsPerCta - 1) / groupsPerCta, acc.smem);
    acc.fn<<<grid, kThreads, acc.smem, stream>>>(P, b);
    TRY(embrtCudaCheck(env, cudaGetLastError(),
                       "tbe_backward: accumulate kernel launch"));
    if (acc.shortRuns) {
      // At most N runs, one a group at a time.
      const unsigned shortGrid = persistentGrid(
          env, acc.shortRuns, (N + groupsPerCta - 1) / groupsPerCta);
      acc.shortRuns<<<shortGrid, kThreads, 0, stream>>>(P, b);
      TRY(embrtCudaCheck(env, cudaGetLastError(),
                         "tbe_backward: short-run kernel launch"));
    }
  }
  return EMBRT_OK;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points (called by runtime/cuda/)
//===----------------------------------------------------------------------===//

extern "C" embrtStatus EMB_TBE_BWD_ENTRY(embrtCudaTbeBackwardWorkspaceSize)(
    embrtLaunchEnv *env, const embrtTbeBackwardArgs *args, size_t *bytes) {
  *bytes = 0;
  const embrtTbeArgs *l = &args->lookup;
  if (l->numIndices > INT32_MAX - 1)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "tbe_backward: %lld ids, the CUDA backward takes "
                            "at most 2^31 - 2",
                            (long long)l->numIndices);
  Layout L;
  TRY(planLayout(env, args, &L));
  *bytes = L.total;
  return EMBRT_OK;
}

extern "C" embrtStatus EMB_TBE_BWD_ENTRY(embrtCudaLaunchTbeBackward)(
    embrtLaunchEnv *env, const embrtTbeBackwardArgs *args) {
  const embrtTbeArgs *l = &args->lookup;
  const int64_t T = l->numTables, F = l->numFeatures, B = l->batchSize;
  const int64_t N = l->numIndices;
  if (F == 0 || B == 0)
    return EMBRT_OK;
  if (N > INT32_MAX - 1 || F * B > INT32_MAX - 1)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "tbe_backward: %lld ids in %lld bags, the CUDA "
                            "backward takes at most 2^31 - 2 of each",
                            (long long)N, (long long)(F * B));
  for (int64_t t = 0; t < T; ++t)
    if (l->tableRows[t] > 0xffffffffll)
      return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                              "tbe_backward: table %lld has %lld rows, the "
                              "CUDA backward takes at most 2^32 - 1",
                              (long long)t, (long long)l->tableRows[t]);
  Layout L;
  TRY(planLayout(env, args, &L));
  if (args->workspaceBytes < L.total)
    return embrtLaunchError(env, EMBRT_INVALID_ARGUMENT,
                            "tbe_backward: workspace has %zu bytes, needs %zu",
                            args->workspaceBytes, L.total);
  int64_t sumDims = 0;
  for (int64_t f = 0; f < F; ++f)
    sumDims += l->tableDims[l->featureTables[f]];
  const int none = l->pooling == EMBRT_POOLING_NONE;

  Params *P = static_cast<Params *>(calloc(1, sizeof(Params)));
  TableMeta *tables =
      static_cast<TableMeta *>(calloc((size_t)T + 1, sizeof(TableMeta)));
  FeatureMeta *features =
      static_cast<FeatureMeta *>(calloc((size_t)F + 1, sizeof(FeatureMeta)));
  embrtStatus status = EMBRT_OK;
  if (!P || !tables || !features)
    status = embrtLaunchError(env, EMBRT_OUT_OF_MEMORY,
                              "tbe_backward: no host memory for metadata");
  if (status == EMBRT_OK)
    status = buildMeta(env, args, P, tables, features);
  if (status == EMBRT_OK) {
    char *ws = static_cast<char *>(args->workspace);
    cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
    Shared &s = P->s;
    s.indices = l->indices;
    s.offsets = l->offsets;
    s.weights = l->perSampleWeights;
    s.grad = args->gradOutput;
    s.hyper = args->hyperParams;
    s.step = reinterpret_cast<const long long *>(args->step);
    s.errors = env->deviceErrors;
    s.ctrl = reinterpret_cast<Control *>(ws + L.ctrl);
    s.keys = ws + L.keys0;
    s.vals = reinterpret_cast<unsigned *>(ws + L.vals0);
    s.bagOf = L.bagOf ? reinterpret_cast<unsigned *>(ws + L.bagOf) : nullptr;
    s.invCount =
        L.invCount ? reinterpret_cast<float *>(ws + L.invCount) : nullptr;
    s.desc = reinterpret_cast<uint4 *>(ws + L.desc);
    s.chunks = reinterpret_cast<uint4 *>(ws + L.chunks);
    s.countdown = reinterpret_cast<unsigned *>(ws + L.countdown);
    s.partial = reinterpret_cast<float *>(ws + L.partial);
    s.batch = B;
    s.numIndices = N;
    s.numBags = F * B;
    s.paddingIdx = l->paddingIdx;
    s.sentinel = L.totalRows;
    s.seed = args->seed;
    s.sumD =
        none ? (unsigned)l->tableDims[l->featureTables[0]] : (unsigned)sumDims;
    s.cap = L.cap;
    s.partialStride = L.partialStride;
    s.threshold = (unsigned)(L.cfg->threshold < 0xffffffffll ? L.cfg->threshold
                                                             : 0xffffffffll);
    s.chunk = (unsigned)L.cfg->chunk;
    s.spacing = (unsigned)tbeBwdChunkSpacing(L.cfg);
    s.numTables = (int)T;
    s.numFeatures = (int)F;
    s.byBatch = makeFastDiv((unsigned)B);
    s.pooling = (unsigned char)l->pooling;
    s.bounds = (unsigned char)l->boundsCheck;
    s.idx64 = l->indexDtype == EMBRT_I64;
    s.off64 = l->offsetDtype == EMBRT_I64;
    s.weightKind = 0;
    if (l->perSampleWeights)
      s.weightKind = l->perSampleWeightDtype == EMBRT_F32   ? 1
                     : l->perSampleWeightDtype == EMBRT_F16 ? 2
                                                            : 3;
    s.hasPadding = l->hasPaddingIdx != 0;
    if (none)
      s.mode = MODE_POS_NONE;
    else if (l->perSampleWeights)
      s.mode = MODE_POS_WEIGHTED;
    else if (l->pooling == EMBRT_POOLING_MEAN)
      s.mode = MODE_BAG_MEAN;
    else if ((unsigned long long)B * (unsigned long long)sumDims <
             0xffffffffull)
      s.mode = MODE_ROW;
    else
      s.mode = MODE_BAG_SUM;
    s.optimizer = (unsigned char)args->optimizer;
    s.key64 = (unsigned char)L.key64;
    if (L.globalMeta) {
      char *meta = ws + L.meta;
      const size_t tableBytes = (size_t)T * sizeof(TableMeta);
      // Staged from pageable memory before cudaMemcpyAsync returns.
      status = embrtCudaCheck(env,
                              cudaMemcpyAsync(meta, tables, tableBytes,
                                              cudaMemcpyHostToDevice, stream),
                              "tbe_backward: metadata copy");
      if (status == EMBRT_OK)
        status = embrtCudaCheck(env,
                                cudaMemcpyAsync(meta + tableBytes, features,
                                                (size_t)F * sizeof(FeatureMeta),
                                                cudaMemcpyHostToDevice, stream),
                                "tbe_backward: metadata copy");
      s.tablesGlobal = reinterpret_cast<const TableMeta *>(meta);
      s.featuresGlobal =
          reinterpret_cast<const FeatureMeta *>(meta + tableBytes);
    } else {
      memcpy(P->tables, tables, (size_t)T * sizeof(TableMeta));
      memcpy(P->features, features, (size_t)F * sizeof(FeatureMeta));
    }
    if (status == EMBRT_OK)
      status = L.key64 ? launchSteps<unsigned long long>(env, args, L, *P)
                       : launchSteps<unsigned>(env, args, L, *P);
  }
  free(P);
  free(tables);
  free(features);
  return status;
}
