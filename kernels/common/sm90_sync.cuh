//===- kernels/common/sm90_sync.cuh - Hopper barriers and TMA -*- CUDA -*-===//
//
// The inline-PTX synchronisation and data-movement primitives of the Hopper
// kernels (kernels/*_sm90a.cu), one name each: shared-memory addresses,
// mbarriers, named barriers, thread-block clusters, the tensor memory
// accelerator (TMA: tensor loads, multicast loads, stores), bulk async-groups,
// proxy fences and programmatic dependent launch. The warpgroup matrix
// products and their bookkeeping are in kernels/common/sm90_wgmma.cuh.
//
// Everything but smemAddr needs sm_90 (griddepcontrol, cluster and TMA
// instructions) and is only emitted when called, so the header may be
// included by files built for older targets that use smemAddr alone.
//
// Conventions: shared-memory operands are 32-bit shared-window addresses
// (smemAddr), barriers are 8-byte mbarriers at such addresses, tensor maps
// are __grid_constant__ kernel parameters passed by address. Every asm
// statement that orders memory carries a "memory" clobber, so the compiler
// keeps ordinary loads and stores on their side of it.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_COMMON_SM90_SYNC_CUH
#define EMB_KERNELS_COMMON_SM90_SYNC_CUH

#include <cuda.h>
#include <stdint.h>

//===----------------------------------------------------------------------===//
// Shared-memory addresses
//===----------------------------------------------------------------------===//

/// The shared-window address of a pointer to shared memory (any target).
__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

/// Initialises the barrier for `count` arrivals per phase.
__device__ __forceinline__ void mbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count)
               : "memory");
}

/// Makes the barriers this thread initialised visible to the other threads
/// of the cluster and to the async proxy (TMA) before they are used.
__device__ __forceinline__ void fenceMbarInit() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/// One arrival on the barrier of this CTA.
__device__ __forceinline__ void mbarArrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar)
               : "memory");
}

/// One arrival when `pred` holds, as one predicated instruction: no branch
/// (code that runs while a wgmma is in flight must not branch).
__device__ __forceinline__ void mbarArriveIf(uint32_t bar, bool pred) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %1, 0;\n"
               "@p mbarrier.arrive.shared::cta.b64 _, [%0];\n}" ::"r"(bar),
               "r"((uint32_t)pred)
               : "memory");
}

/// One arrival that also expects `bytes` more transaction bytes (TMA loads
/// completing on the barrier) before the phase completes.
__device__ __forceinline__ void mbarArriveExpectTx(uint32_t bar,
                                                   uint32_t bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
      "r"(bytes)
      : "memory");
}

/// Arrives on the barrier at the same shared-memory offset in CTA `rank` of
/// the cluster. Default (CTA-scope release) semantics: suited to releasing a
/// stage whose readers are wgmma operations already retired by
/// wgmma.wait_group and whose writer is TMA, so no generic-proxy writes need
/// publishing; the .release.cluster form would cost a GPU-scope MEMBAR per
/// call.
__device__ __forceinline__ void mbarArriveCluster(uint32_t bar, uint32_t rank) {
  asm volatile("{\n.reg .b32 r;\n"
               "mapa.shared::cluster.u32 r, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [r];\n"
               "}\n" ::"r"(bar),
               "r"(rank)
               : "memory");
}

/// Stores `v` at shared-memory offset `addr` of CTA `rank` of the cluster
/// and completes 4 transaction bytes on the barrier at offset `bar` there
/// (st.async): the reader waits on that barrier (mbarWait), having expected
/// the bytes.
__device__ __forceinline__ void stAsyncCluster(uint32_t addr, uint32_t v,
                                               uint32_t bar, uint32_t rank) {
  asm volatile("{\n.reg .b32 a, b;\n"
               "mapa.shared::cluster.u32 a, %0, %3;\n"
               "mapa.shared::cluster.u32 b, %2, %3;\n"
               "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 "
               "[a], %1, [b];\n"
               "}\n" ::"r"(addr),
               "r"(v), "r"(bar), "r"(rank)
               : "memory");
}

/// A 32-bit store into this CTA's shared memory.
__device__ __forceinline__ void stShared(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

/// A 16-byte store of zeros into this CTA's shared memory (addr 16-byte
/// aligned).
__device__ __forceinline__ void stSharedZero16(uint32_t addr) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(addr), "r"(0u)
               : "memory");
}

/// A 32-bit load from this CTA's shared memory, never cached in a register
/// across barriers.
__device__ __forceinline__ uint32_t ldShared(uint32_t addr) {
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

/// Waits until the phase of parity `parity` of the barrier has completed:
/// try_wait (no suspend-time hint) in a loop.
__device__ __forceinline__ void mbarWait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  do {
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}

//===----------------------------------------------------------------------===//
// Named barriers (0 is __syncthreads)
//===----------------------------------------------------------------------===//

/// Waits until `threads` threads (a multiple of 32) arrived on barrier `id`.
__device__ __forceinline__ void namedBarrierSync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/// Arrives on barrier `id` (of `threads` threads) without waiting.
__device__ __forceinline__ void namedBarrierArrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

//===----------------------------------------------------------------------===//
// Thread-block clusters
//===----------------------------------------------------------------------===//

/// This CTA's rank in its cluster.
__device__ __forceinline__ uint32_t clusterCtaRank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/// All threads of all CTAs of the cluster; divergence allowed.
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release;\n"
               "barrier.cluster.wait.acquire;\n" ::
                   : "memory");
}

//===----------------------------------------------------------------------===//
// TMA: tensor loads and stores
//===----------------------------------------------------------------------===//

/// The generic address of a tensor map (a __grid_constant__ parameter).
__device__ __forceinline__ uint64_t tensorMapAddr(const CUtensorMap *map) {
  return reinterpret_cast<uint64_t>(map);
}

/// Brings the tensor map into the TMA unit's cache ahead of its first use.
__device__ __forceinline__ void tmaPrefetchMap(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(tensorMapAddr(map)) : "memory");
}

/// Loads the box at coordinates (c0, c1) of a 2-d tensor map into shared
/// memory at `dst`, completing its bytes on the barrier `bar`.
__device__ __forceinline__ void tmaLoad2d(uint32_t dst, const CUtensorMap *map,
                                          int c0, int c1, uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
               "l"(tensorMapAddr(map)), "r"(c0), "r"(c1), "r"(bar)
               : "memory");
}

/// tmaLoad2d for a 3-d tensor map.
__device__ __forceinline__ void tmaLoad3d(uint32_t dst, const CUtensorMap *map,
                                          int c0, int c1, int c2,
                                          uint32_t bar) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
               "l"(tensorMapAddr(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
               : "memory");
}

/// Loads a box into the same shared-memory offset of every CTA of the
/// cluster in `mask`, completing bytes on each one's barrier at `bar`'s
/// offset.
__device__ __forceinline__ void tmaLoad2dMulticast(uint32_t dst,
                                                   const CUtensorMap *map,
                                                   int c0, int c1, uint32_t bar,
                                                   uint16_t mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], "
               "[%4], %5;" ::"r"(dst),
               "l"(tensorMapAddr(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
               : "memory");
}

/// tmaLoad2dMulticast for a 3-d tensor map.
__device__ __forceinline__ void
tmaLoad3dMulticast(uint32_t dst, const CUtensorMap *map, int c0, int c1, int c2,
                   uint32_t bar, uint16_t mask) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3, "
               "%4}], [%5], %6;" ::"r"(dst),
               "l"(tensorMapAddr(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar),
               "h"(mask)
               : "memory");
}

/// Stores the shared-memory box at `src` to coordinates (c0, c1) of a 2-d
/// tensor map, in the current bulk async-group (bulkCommit closes it).
__device__ __forceinline__ void tmaStore2d(const CUtensorMap *map, uint32_t src,
                                           int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
               "[%0, {%2, %3}], [%1];" ::"l"(tensorMapAddr(map)),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}

/// tmaStore2d for a 3-d tensor map.
__device__ __forceinline__ void tmaStore3d(const CUtensorMap *map, uint32_t src,
                                           int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group "
               "[%0, {%2, %3, %4}], [%1];" ::"l"(tensorMapAddr(map)),
               "r"(src), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}

//===----------------------------------------------------------------------===//
// Bulk async-groups (TMA stores)
//===----------------------------------------------------------------------===//

/// Closes the bulk async-group of this thread's stores issued so far.
__device__ __forceinline__ void bulkCommit() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/// Waits until at most N of this thread's committed bulk groups are still
/// reading their shared-memory source (the source may then be rewritten).
template <int N> __device__ __forceinline__ void bulkWaitRead() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/// Waits until all of this thread's committed bulk groups are complete (their
/// writes done).
__device__ __forceinline__ void bulkWaitAll() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

//===----------------------------------------------------------------------===//
// Proxy fences
//===----------------------------------------------------------------------===//

/// Orders this thread's generic-proxy shared-memory writes (st.shared,
/// stmatrix, cp.async) before later async-proxy reads (TMA stores, wgmma
/// operands); put it in each writing thread before the barrier.
__device__ __forceinline__ void fenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

//===----------------------------------------------------------------------===//
// Programmatic dependent launch
//===----------------------------------------------------------------------===//

/// Waits until the grids this one depends on have completed and their
/// memory is visible (returns at once for a launch without the attribute).
__device__ __forceinline__ void gridDependencyWait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

/// Lets the dependent grid start launching (its gridDependencyWait still
/// waits for all of this grid).
__device__ __forceinline__ void gridLaunchDependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

#endif // EMB_KERNELS_COMMON_SM90_SYNC_CUH
