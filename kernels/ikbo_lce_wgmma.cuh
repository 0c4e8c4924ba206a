//===- ikbo_lce_wgmma.cuh - wgmma m64nNk16 wrappers for IKBO LCE -*- CUDA
//-*-===//
//
// One warpgroup-wide matrix product per supported N: D[64 x N] (f32, in
// registers) += A[64 x 16] * B[16 x N], both operands in shared memory and
// named by descriptors. A is MN-major (imm-trans-a = 1), B is K-major
// (imm-trans-b = 0); `scaleD` == 0 overwrites D instead of accumulating.
// The register lists are spelled out because inline asm cannot loop; each
// wrapper is the same statement with N/2 accumulator operands.
//
// Fragment layout of d[] for thread t of the warpgroup (warp w = t / 32,
// lane l = t % 32), n8 block j = i / 4:
//   d[4j + 0], d[4j + 1]: row 16w + l/4,     columns 8j + 2(l%4) + {0, 1}
//   d[4j + 2], d[4j + 3]: row 16w + l/4 + 8, same columns
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_IKBO_LCE_WGMMA_CUH
#define EMB_KERNELS_IKBO_LCE_WGMMA_CUH

#include <stdint.h>

template <bool kBf16>
__device__ __forceinline__ void ikboWgmmaN64(float (&d)[32], uint64_t descA,
                                             uint64_t descB, int scaleD) {
#define IKBO_WGMMA_REGS                                                        \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "               \
  "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "               \
  "%26, %27, %28, %29, %30, %31"
#define IKBO_WGMMA_OUTS                                                        \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),      \
      "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),             \
      "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),         \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),         \
      "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),         \
      "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),         \
      "+f"(d[31])
  if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" IKBO_WGMMA_REGS
        "}, %32, %33, p, 1, 1, 1, 0;\n}\n"
        : IKBO_WGMMA_OUTS
        : "l"(descA), "l"(descB), "r"(scaleD)
        : "memory");
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {" IKBO_WGMMA_REGS
        "}, %32, %33, p, 1, 1, 1, 0;\n}\n"
        : IKBO_WGMMA_OUTS
        : "l"(descA), "l"(descB), "r"(scaleD)
        : "memory");
  }
#undef IKBO_WGMMA_REGS
#undef IKBO_WGMMA_OUTS
}

template <bool kBf16>
__device__ __forceinline__ void ikboWgmmaN128(float (&d)[64], uint64_t descA,
                                              uint64_t descB, int scaleD) {
#define IKBO_WGMMA_REGS                                                        \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "               \
  "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "               \
  "%26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "               \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "               \
  "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "               \
  "%62, %63"
#define IKBO_WGMMA_OUTS                                                        \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),      \
      "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),             \
      "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),         \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),         \
      "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),         \
      "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),         \
      "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),         \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),         \
      "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),         \
      "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),         \
      "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),         \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),         \
      "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
  if constexpr (kBf16) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                 "{" IKBO_WGMMA_REGS "}, %64, %65, p, 1, 1, 1, 0;\n}\n"
                 : IKBO_WGMMA_OUTS
                 : "l"(descA), "l"(descB), "r"(scaleD)
                 : "memory");
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {" IKBO_WGMMA_REGS
        "}, %64, %65, p, 1, 1, 1, 0;\n}\n"
        : IKBO_WGMMA_OUTS
        : "l"(descA), "l"(descB), "r"(scaleD)
        : "memory");
  }
#undef IKBO_WGMMA_REGS
#undef IKBO_WGMMA_OUTS
}

template <bool kBf16>
__device__ __forceinline__ void ikboWgmmaN192(float (&d)[96], uint64_t descA,
                                              uint64_t descB, int scaleD) {
#define IKBO_WGMMA_REGS                                                        \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "               \
  "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "               \
  "%26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "               \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "               \
  "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "               \
  "%62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "               \
  "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "               \
  "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define IKBO_WGMMA_OUTS                                                        \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),      \
      "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),             \
      "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),         \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),         \
      "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),         \
      "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),         \
      "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),         \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),         \
      "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),         \
      "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),         \
      "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),         \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),         \
      "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),         \
      "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]),         \
      "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),         \
      "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),         \
      "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),         \
      "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),         \
      "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
  if constexpr (kBf16) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 "
                 "{" IKBO_WGMMA_REGS "}, %96, %97, p, 1, 1, 1, 0;\n}\n"
                 : IKBO_WGMMA_OUTS
                 : "l"(descA), "l"(descB), "r"(scaleD)
                 : "memory");
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {" IKBO_WGMMA_REGS
        "}, %96, %97, p, 1, 1, 1, 0;\n}\n"
        : IKBO_WGMMA_OUTS
        : "l"(descA), "l"(descB), "r"(scaleD)
        : "memory");
  }
#undef IKBO_WGMMA_REGS
#undef IKBO_WGMMA_OUTS
}

template <bool kBf16>
__device__ __forceinline__ void ikboWgmmaN224(float (&d)[112], uint64_t descA,
                                              uint64_t descB, int scaleD) {
#define IKBO_WGMMA_REGS                                                        \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "               \
  "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "               \
  "%26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "               \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "               \
  "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "               \
  "%62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "               \
  "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "               \
  "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, "               \
  "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "                 \
  "%108, %109, %110, %111"
#define IKBO_WGMMA_OUTS                                                        \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),      \
      "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),             \
      "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),         \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),         \
      "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),         \
      "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),         \
      "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),         \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),         \
      "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),         \
      "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),         \
      "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),         \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),         \
      "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),         \
      "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]),         \
      "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),         \
      "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),         \
      "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),         \
      "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),         \
      "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),         \
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]),        \
      "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]),    \
      "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]),    \
      "+f"(d[111])
  if constexpr (kBf16) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %114, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n224k16.f32.bf16.bf16 "
                 "{" IKBO_WGMMA_REGS "}, %112, %113, p, 1, 1, 1, 0;\n}\n"
                 : IKBO_WGMMA_OUTS
                 : "l"(descA), "l"(descB), "r"(scaleD)
                 : "memory");
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %114, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n224k16.f32.f16.f16 {" IKBO_WGMMA_REGS
        "}, %112, %113, p, 1, 1, 1, 0;\n}\n"
        : IKBO_WGMMA_OUTS
        : "l"(descA), "l"(descB), "r"(scaleD)
        : "memory");
  }
#undef IKBO_WGMMA_REGS
#undef IKBO_WGMMA_OUTS
}

template <bool kBf16>
__device__ __forceinline__ void ikboWgmmaN256(float (&d)[128], uint64_t descA,
                                              uint64_t descB, int scaleD) {
#define IKBO_WGMMA_REGS                                                        \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "               \
  "%14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "               \
  "%26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, "               \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, "               \
  "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "               \
  "%62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, "               \
  "%74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "               \
  "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, "               \
  "%98, %99, %100, %101, %102, %103, %104, %105, %106, %107, "                 \
  "%108, %109, %110, %111, %112, %113, %114, %115, %116, %117, "               \
  "%118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define IKBO_WGMMA_OUTS                                                        \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),      \
      "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]),             \
      "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),         \
      "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),         \
      "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]),         \
      "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),         \
      "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),         \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),         \
      "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]),         \
      "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),         \
      "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),         \
      "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),         \
      "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),         \
      "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]),         \
      "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),         \
      "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),         \
      "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]),         \
      "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),         \
      "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),         \
      "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]),        \
      "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]),    \
      "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]),    \
      "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),    \
      "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),    \
      "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]),    \
      "+f"(d[126]), "+f"(d[127])
  if constexpr (kBf16) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                 "{" IKBO_WGMMA_REGS "}, %128, %129, p, 1, 1, 1, 0;\n}\n"
                 : IKBO_WGMMA_OUTS
                 : "l"(descA), "l"(descB), "r"(scaleD)
                 : "memory");
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {" IKBO_WGMMA_REGS
        "}, %128, %129, p, 1, 1, 1, 0;\n}\n"
        : IKBO_WGMMA_OUTS
        : "l"(descA), "l"(descB), "r"(scaleD)
        : "memory");
  }
#undef IKBO_WGMMA_REGS
#undef IKBO_WGMMA_OUTS
}

/// D[64 x N] (+)= A * B for the N of the tile; see the file comment.
template <int N, bool kBf16>
__device__ __forceinline__ void ikboWgmma(float (&d)[N / 2], uint64_t descA,
                                          uint64_t descB, int scaleD) {
  if constexpr (N == 64) {
    ikboWgmmaN64<kBf16>(d, descA, descB, scaleD);
  } else if constexpr (N == 128) {
    ikboWgmmaN128<kBf16>(d, descA, descB, scaleD);
  } else if constexpr (N == 192) {
    ikboWgmmaN192<kBf16>(d, descA, descB, scaleD);
  } else if constexpr (N == 224) {
    ikboWgmmaN224<kBf16>(d, descA, descB, scaleD);
  } else if constexpr (N == 256) {
    ikboWgmmaN256<kBf16>(d, descA, descB, scaleD);
  } else {
    static_assert(N == 64, "unsupported wgmma N");
  }
}

#endif // EMB_KERNELS_IKBO_LCE_WGMMA_CUH
