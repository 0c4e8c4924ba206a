//===- kernels/common/sm90_wgmma.cuh - Hopper warpgroup products ---------===//
//
// The inline-PTX warpgroup matrix primitives of the Hopper kernels
// (kernels/*_sm90a.cu, sm_90a only), one name each: the wgmma fence, commit
// and wait, the products themselves (wgmmaSS, wgmmaRS: every shape and
// operand source the kernels use), the register fences that keep the
// compiler from moving accumulator and operand accesses across an
// asynchronous wgmma, the shared-memory matrix descriptor and the warpgroup
// register reallocation. Barriers and TMA are in
// kernels/common/sm90_sync.cuh.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_COMMON_SM90_WGMMA_CUH
#define EMB_KERNELS_COMMON_SM90_WGMMA_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include <type_traits>

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
// Matrix products
//===----------------------------------------------------------------------===//
//
// One warpgroup-wide wgmma.mma_async m64nNk16: D[64 x N] (f32, in registers)
// (+)= A[64 x 16] * B[16 x N], f16 or bf16 operands (T), N in {64, 128, 160,
// 192, 224, 256}, B in shared memory named by a descriptor:
//   wgmmaSS<T, N, kTransA, kTransB>(d, descA, descB, scaleD): A in shared
//     memory too; scaleD == 0 overwrites D instead of accumulating;
//   wgmmaRS<T, N, kTransB>(d, a0, a1, a2, a3, descB): A from four registers
//     of packed pairs, laid out like an mma.sync m16n8k16 A fragment of the
//     warp's 16 rows; always accumulates.
// kTransA, kTransB: 0 for a K-major operand, 1 for an MN-major one (the
// instruction's imm-trans-a and imm-trans-b).
//
// Accumulator layout, thread t of the warpgroup (warp w = t / 32, lane
// l = t % 32), n8 block j:
//   d[4j + 0], d[4j + 1]: row 16w + l/4,     columns 8j + 2(l%4) + {0, 1}
//   d[4j + 2], d[4j + 3]: row 16w + l/4 + 8, same columns
//
// Inline asm cannot loop, so every accumulator is an operand of its own:
// EMB_WGMMA_D<n> spells the first n operand references, EMB_WGMMA_F<n> the
// n "+f" constraints, and each shape names the numbers of the operands that
// follow its accumulators.

#define EMB_WGMMA_F8(i)                                                        \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]),  \
      "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define EMB_WGMMA_D32                                                          \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "     \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "     \
  "%30, %31"
#define EMB_WGMMA_D64                                                          \
  EMB_WGMMA_D32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, "    \
                "%43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, " \
                "%55, %56, %57, %58, %59, %60, %61, %62, %63"
#define EMB_WGMMA_D80                                                          \
  EMB_WGMMA_D64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, "    \
                "%75, %76, %77, %78, %79"
#define EMB_WGMMA_D96                                                          \
  EMB_WGMMA_D80 ", %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, "    \
                "%91, %92, %93, %94, %95"
#define EMB_WGMMA_D112                                                         \
  EMB_WGMMA_D96 ", %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, "   \
                "%106, %107, %108, %109, %110, %111"
#define EMB_WGMMA_D128                                                         \
  EMB_WGMMA_D112 ", %112, %113, %114, %115, %116, %117, %118, %119, %120, "    \
                 "%121, %122, %123, %124, %125, %126, %127"
#define EMB_WGMMA_F32                                                          \
  EMB_WGMMA_F8(0), EMB_WGMMA_F8(8), EMB_WGMMA_F8(16), EMB_WGMMA_F8(24)
#define EMB_WGMMA_F64                                                          \
  EMB_WGMMA_F32, EMB_WGMMA_F8(32), EMB_WGMMA_F8(40), EMB_WGMMA_F8(48),         \
      EMB_WGMMA_F8(56)
#define EMB_WGMMA_F80 EMB_WGMMA_F64, EMB_WGMMA_F8(64), EMB_WGMMA_F8(72)
#define EMB_WGMMA_F96 EMB_WGMMA_F80, EMB_WGMMA_F8(80), EMB_WGMMA_F8(88)
#define EMB_WGMMA_F112 EMB_WGMMA_F96, EMB_WGMMA_F8(96), EMB_WGMMA_F8(104)
#define EMB_WGMMA_F128 EMB_WGMMA_F112, EMB_WGMMA_F8(112), EMB_WGMMA_F8(120)

// One product of shape N on T = TYPE ("f16" or "bf16") with n = N/2
// accumulators (EMB_WGMMA_Dn, EMB_WGMMA_Fn); A, B, S: the numbers of the
// descA, descB and scaleD operands; TA, TB: the transposes, written into the
// instruction (immediate "n" operands would be the same instruction, but
// they move the compiler's scheduling of the code around it).
#define EMB_WGMMA_SS_ASM(N, TYPE, n, A, B, S, TA, TB)                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #S ", 0;\n"                \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE \
               " {" EMB_WGMMA_D##n "}, %" #A ", %" #B ", p, 1, 1, " #TA        \
                                   ", " #TB ";\n}\n"                           \
               : EMB_WGMMA_F##n                                                \
               : "l"(descA), "l"(descB), "r"(scaleD)                           \
               : "memory")
#define EMB_WGMMA_SS_TRANS(N, n, A, B, S, TA, TB)                              \
  if constexpr (kTransA == TA && kTransB == TB) {                              \
    if constexpr (kBf16)                                                       \
      EMB_WGMMA_SS_ASM(N, "bf16", n, A, B, S, TA, TB);                         \
    else                                                                       \
      EMB_WGMMA_SS_ASM(N, "f16", n, A, B, S, TA, TB);                          \
  }
#define EMB_WGMMA_SS_CASE(N, n, A, B, S)                                       \
  if constexpr (kN == N) {                                                     \
    EMB_WGMMA_SS_TRANS(N, n, A, B, S, 0, 0)                                    \
    EMB_WGMMA_SS_TRANS(N, n, A, B, S, 0, 1)                                    \
    EMB_WGMMA_SS_TRANS(N, n, A, B, S, 1, 0)                                    \
    EMB_WGMMA_SS_TRANS(N, n, A, B, S, 1, 1)                                    \
  }
// The register-A form: R0-R3 the numbers of a0-a3, B of descB, S of the
// scale operand (always 1).
#define EMB_WGMMA_RS_ASM(N, TYPE, n, R0, R1, R2, R3, B, S, TB)                 \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #S ", 0;\n"                \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE \
               " {" EMB_WGMMA_D##n "}, {%" #R0 ", %" #R1 ", %" #R2 ", %" #R3   \
                                   "}, %" #B ", p, 1, 1, " #TB ";\n}\n"        \
               : EMB_WGMMA_F##n                                                \
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(descB), "r"(1)        \
               : "memory")
#define EMB_WGMMA_RS_TRANS(N, n, R0, R1, R2, R3, B, S, TB)                     \
  if constexpr (kTransB == TB) {                                               \
    if constexpr (kBf16)                                                       \
      EMB_WGMMA_RS_ASM(N, "bf16", n, R0, R1, R2, R3, B, S, TB);                \
    else                                                                       \
      EMB_WGMMA_RS_ASM(N, "f16", n, R0, R1, R2, R3, B, S, TB);                 \
  }
#define EMB_WGMMA_RS_CASE(N, n, R0, R1, R2, R3, B, S)                          \
  if constexpr (kN == N) {                                                     \
    EMB_WGMMA_RS_TRANS(N, n, R0, R1, R2, R3, B, S, 0)                          \
    EMB_WGMMA_RS_TRANS(N, n, R0, R1, R2, R3, B, S, 1)                          \
  }

/// The supported N of wgmmaSS and wgmmaRS.
template <int kN>
constexpr bool kWgmmaN =
    kN == 64 || kN == 128 || kN == 160 || kN == 192 || kN == 224 || kN == 256;

template <typename T, int kN, int kTransA, int kTransB>
__device__ __forceinline__ void wgmmaSS(float (&d)[kN / 2], uint64_t descA,
                                        uint64_t descB, int scaleD) {
  static_assert(std::is_same<T, __half>::value ||
                    std::is_same<T, __nv_bfloat16>::value,
                "wgmma operands are f16 or bf16");
  static_assert(kWgmmaN<kN>, "unsupported wgmma N");
  static_assert((kTransA == 0 || kTransA == 1) &&
                    (kTransB == 0 || kTransB == 1),
                "a transpose is 0 (K-major) or 1 (MN-major)");
  constexpr bool kBf16 = std::is_same<T, __nv_bfloat16>::value;
  EMB_WGMMA_SS_CASE(64, 32, 32, 33, 34);
  EMB_WGMMA_SS_CASE(128, 64, 64, 65, 66);
  EMB_WGMMA_SS_CASE(160, 80, 80, 81, 82);
  EMB_WGMMA_SS_CASE(192, 96, 96, 97, 98);
  EMB_WGMMA_SS_CASE(224, 112, 112, 113, 114);
  EMB_WGMMA_SS_CASE(256, 128, 128, 129, 130);
}

template <typename T, int kN, int kTransB>
__device__ __forceinline__ void wgmmaRS(float (&d)[kN / 2], uint32_t a0,
                                        uint32_t a1, uint32_t a2, uint32_t a3,
                                        uint64_t descB) {
  static_assert(std::is_same<T, __half>::value ||
                    std::is_same<T, __nv_bfloat16>::value,
                "wgmma operands are f16 or bf16");
  static_assert(kWgmmaN<kN>, "unsupported wgmma N");
  static_assert(kTransB == 0 || kTransB == 1,
                "a transpose is 0 (K-major) or 1 (MN-major)");
  constexpr bool kBf16 = std::is_same<T, __nv_bfloat16>::value;
  EMB_WGMMA_RS_CASE(64, 32, 32, 33, 34, 35, 36, 37);
  EMB_WGMMA_RS_CASE(128, 64, 64, 65, 66, 67, 68, 69);
  EMB_WGMMA_RS_CASE(160, 80, 80, 81, 82, 83, 84, 85);
  EMB_WGMMA_RS_CASE(192, 96, 96, 97, 98, 99, 100, 101);
  EMB_WGMMA_RS_CASE(224, 112, 112, 113, 114, 115, 116, 117);
  EMB_WGMMA_RS_CASE(256, 128, 128, 129, 130, 131, 132, 133);
}

#undef EMB_WGMMA_RS_CASE
#undef EMB_WGMMA_RS_TRANS
#undef EMB_WGMMA_RS_ASM
#undef EMB_WGMMA_SS_CASE
#undef EMB_WGMMA_SS_TRANS
#undef EMB_WGMMA_SS_ASM
#undef EMB_WGMMA_F128
#undef EMB_WGMMA_F112
#undef EMB_WGMMA_F96
#undef EMB_WGMMA_F80
#undef EMB_WGMMA_F64
#undef EMB_WGMMA_F32
#undef EMB_WGMMA_F8
#undef EMB_WGMMA_D128
#undef EMB_WGMMA_D112
#undef EMB_WGMMA_D96
#undef EMB_WGMMA_D80
#undef EMB_WGMMA_D64
#undef EMB_WGMMA_D32

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

#endif // EMB_KERNELS_COMMON_SM90_WGMMA_CUH
