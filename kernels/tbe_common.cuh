//===- kernels/tbe_common.cuh - TBE forward and backward loads -*- CUDA -*-===//
//
// What the CUDA TBE forward (kernels/tbe_forward.cuh) and backward
// (kernels/tbe_backward/) both read the same way: ids, offsets and
// per-sample weights, L1 prefetches of rows, the bad-offsets report, and the
// cp.async groups of kernels/common/sm80_copy.cuh under the names both use.
//
// The loads take the kernel's argument block (its Shared: indices, idx64,
// offsets, off64, weights, weightKind), whichever family's it is. Where the
// two read differently, the kernel says which it takes: the forward touches
// each id once and loads ids evict-first where its stream hints are on
// (TbeIdLoad::Streaming, __ldcs), the backward reads them through the
// read-only cache (TbeIdLoad::ReadOnly, __ldg).
//
// Like the parts that include it, its code is in the anonymous namespace of
// the one translation unit that includes it (kernels/tbe.cu,
// kernels/tbe_quantized.cu, kernels/tbe_backward.cu).
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_TBE_COMMON_CUH
#define EMB_KERNELS_TBE_COMMON_CUH

#include "kernels/common/convert.cuh"
#include "kernels/common/device_errors.cuh"
#include "kernels/common/index_load.cuh"
#include "kernels/common/sm80_copy.cuh"

namespace {

using embrt::commitCopies;
using embrt::waitCopies;

/// How a kernel loads its ids: through the read-only cache
/// (TbeIdLoad::ReadOnly), or once and evict-first (TbeIdLoad::Streaming), so
/// that L2 keeps table rows instead.
using TbeIdLoad = embrt::IndexLoad;

/// Id i of the lookup (s.indices, i64 where s.idx64). The flag is tested
/// before the pointer is read (kernels/common/index_load.cuh).
template <TbeIdLoad kLoad, typename S>
__device__ __forceinline__ long long loadIndex(const S &s, long long i) {
  return s.idx64
             ? embrt::loadIndex<kLoad>(
                   static_cast<const long long *>(s.indices), i)
             : embrt::loadIndex<kLoad>(static_cast<const int *>(s.indices), i);
}

/// Offset i of the lookup (s.offsets, i64 where s.off64), through the
/// read-only cache.
template <typename S>
__device__ __forceinline__ long long loadOffset(const S &s, long long i) {
  constexpr embrt::IndexLoad kLoad = embrt::IndexLoad::ReadOnly;
  return s.off64
             ? embrt::loadIndex<kLoad>(
                   static_cast<const long long *>(s.offsets), i)
             : embrt::loadIndex<kLoad>(static_cast<const int *>(s.offsets), i);
}

/// Per-sample weight i in f32 (s.weights of s.weightKind, not 0).
template <typename S>
__device__ __forceinline__ float loadWeight(const S &s, long long i) {
  return embrt::loadPerSampleWeight(s.weightKind, s.weights, i);
}

__device__ __forceinline__ void prefetchL1(const void *p) {
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
}

/// Out of the hot loop: records offsets that are not a bag's (see
/// EMBRT_DEVERR_BAD_OFFSETS for the fields).
__device__ __noinline__ void reportBadOffsets(embrtDeviceErrors *e, int feature,
                                              long long bag, long long index,
                                              long long value,
                                              long long limit) {
  embrtDeviceRecordError(e, EMBRT_DEVERR_BAD_OFFSETS, feature, bag, index,
                         value, limit);
}

} // namespace

#endif // EMB_KERNELS_TBE_COMMON_CUH
