//===- kernels/sm90_wgmma.cuh - Hopper warpgroup MMA bookkeeping -*- CUDA
//-*-===//
//
// The inline-PTX primitives around the warpgroup matrix products of the
// Hopper kernels (kernels/*_sm90a.cu, sm_90a only), one name each: the wgmma
// fence, commit and wait, the register fences that keep the compiler from
// moving accumulator and operand accesses across an asynchronous wgmma, the
// shared-memory matrix descriptor and the warpgroup register reallocation.
// The products themselves (one asm statement per shape and operand source)
// are in the families' headers, kernels/attention_wgmma.cuh and
// kernels/ikbo_lce_wgmma.cuh; barriers and TMA are in kernels/sm90_sync.cuh.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_SM90_WGMMA_CUH
#define EMB_KERNELS_SM90_WGMMA_CUH

#include <stdint.h>

//===----------------------------------------------------------------------===//
// Issue and completion
//===----------------------------------------------------------------------===//

/// Orders this warpgroup's earlier register and shared-memory accesses
/// before the wgmmas that follow (before the first wgmma of a group, and
/// whenever their accumulators or A registers were touched since).
__device__ __forceinline__ void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

/// Closes the group of this warpgroup's wgmmas issued so far.
__device__ __forceinline__ void wgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/// Waits until at most N of this warpgroup's committed wgmma groups are
/// still running.
template <int N> __device__ __forceinline__ void wgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

//===----------------------------------------------------------------------===//
// Register fences
//===----------------------------------------------------------------------===//

/// Keeps the compiler from moving reads or writes of `r` across the
/// surrounding asynchronous wgmma bookkeeping (an empty asm that reads and
/// writes it).
__device__ __forceinline__ void fenceOperand(float &r) {
  asm volatile("" : "+f"(r)::"memory");
}

/// fenceOperand for a packed A-operand register.
__device__ __forceinline__ void fenceOperand(uint32_t &r) {
  asm volatile("" : "+r"(r)::"memory");
}

/// fenceOperand on every register of an accumulator or fragment array.
template <typename T, int N>
__device__ __forceinline__ void fenceOperands(T (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    fenceOperand(r[i]);
}

//===----------------------------------------------------------------------===//
// Shared-memory matrix descriptors
//===----------------------------------------------------------------------===//

/// A wgmma shared-memory descriptor with the 128-byte swizzle (layout type
/// 1 in bits 62-63) for the operand at shared address `addr`. Offsets in
/// bytes, 16-byte units in 14-bit fields: `lbo` is the stride between MN
/// atoms (64-column panels) of an MN-major operand, unused for a K-major
/// one (pass 16); `sbo` the stride between groups of 8 rows (K-groups of an
/// MN-major operand, M/N-groups of a K-major one: 1024 for 128-byte rows).
__device__ __forceinline__ uint64_t wgmmaDescSw128(uint32_t addr, uint32_t lbo,
                                                   uint32_t sbo) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) |
         ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
         ((uint64_t)((sbo >> 4) & 0x3FFF) << 32) | (1ull << 62);
}

//===----------------------------------------------------------------------===//
// Warpgroup register reallocation
//===----------------------------------------------------------------------===//

/// Lowers this warpgroup's registers per thread to N (a producer's share).
/// Takes effect only in a kernel with a register cap at entry
/// (__launch_bounds__(threads, 1)) where each role is one branch.
template <int N> __device__ __forceinline__ void setmaxnregDec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N) : "memory");
}

/// Raises this warpgroup's registers per thread to N (a consumer's share).
template <int N> __device__ __forceinline__ void setmaxnregInc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N) : "memory");
}

#endif // EMB_KERNELS_SM90_WGMMA_CUH
