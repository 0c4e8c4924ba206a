//===- kernels/common/sm80_copy.cuh - cp.async copies ----------*- CUDA -*-===//
//
// The inline-PTX asynchronous copies from global to shared memory (cp.async,
// sm_80 and later) of every kernel that pipelines its loads through shared
// memory (the TBE forward's row stages, the portable attention's K/V tiles,
// the IKBO LCE small-K tiles), one name each: start a copy, close a group of
// copies, wait for all but the newest groups. The Hopper paths' TMA and
// barriers are in kernels/common/sm90_sync.cuh.
//
// Conventions: the destination is a 32-bit shared-window address
// (__cvta_generic_to_shared), the source a global address aligned to the
// copy's size. Every statement carries a "memory" clobber, so that the
// compiler keeps ordinary shared-memory accesses on their side of a wait.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_COMMON_SM80_COPY_CUH
#define EMB_KERNELS_COMMON_SM80_COPY_CUH

namespace embrt {

/// Starts copying kBytes (4, 8 or 16) from `src` to shared address `dst`, or
/// zeros when `!pred` (src-size 0: nothing is read). kL1: 16-byte copies go
/// through L1 (.ca), else they bypass it (.cg); cp.async.cg only copies 16
/// bytes, so 4- and 8-byte copies always go through L1.
template <int kBytes, bool kL1>
__device__ __forceinline__ void copyAsync(unsigned dst, const void *src,
                                          bool pred) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16,
                "cp.async copies 4, 8 or 16 bytes");
  if constexpr (kBytes == 16 && kL1) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(dst),
                 "l"(src), "r"(pred ? 16 : 0)
                 : "memory");
  } else if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst),
                 "l"(src), "r"(pred ? 16 : 0)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(dst),
                 "l"(src), "n"(kBytes), "r"(pred ? kBytes : 0)
                 : "memory");
  }
}

/// Starts copying kBytes from `src` to shared address `dst` (see the
/// predicated form).
template <int kBytes, bool kL1>
__device__ __forceinline__ void copyAsync(unsigned dst, const void *src) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16,
                "cp.async copies 4, 8 or 16 bytes");
  if constexpr (kBytes == 16 && !kL1) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst),
                 "l"(src)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(dst),
                 "l"(src), "n"(kBytes)
                 : "memory");
  }
}

/// Closes the group of the copies this thread started since the last one.
__device__ __forceinline__ void commitCopies() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/// Waits until at most `kPending` of this thread's groups of copies are
/// still in flight (0: all landed). Other threads' copies need a barrier
/// after it.
template <int kPending> __device__ __forceinline__ void waitCopies() {
  asm volatile("cp.async.wait_group %0;" ::"n"(kPending) : "memory");
}

} // namespace embrt

#endif // EMB_KERNELS_COMMON_SM80_COPY_CUH
