//===- kernels/quantize.cu - Packed rows of quantized tables ---*- CUDA -*-===//
//
// embrtQuantizeTable and embrtDequantizeTable on CUDA: dense [rows, D] f32,
// f16 or bf16 to packed rows of int8, int4, int2 (an f16 scale and bias per
// row) or fp8 e4m3 (an f32 scale per row), and back (the row layout:
// embrtTablePrecision in emb/runtime.h).
//
// The bytes are those of the host codec (runtime/quantize_rows.c,
// embrtEncodeRow and embrtDecodeRow) for every finite input, so that a table
// quantized on either backend reads the same everywhere: the same f32
// operations in the same order, each rounded once. The host build targets
// baseline x86-64, which never contracts a * b + c into an FMA, so the
// device spells its arithmetic with __fmul_rn, __fsub_rn and __fdiv_rn
// (which nvcc does not contract) and decodes with the fmaf the host calls.
// The row's minimum is the host's left fold of fminf, which keeps the
// earlier of two equal values: that only shows for +0 against -0 (the
// bias's sign bit), so where the minimum is zero the warp takes the sign of
// the row's first zero.
//
// A row holding a non-finite element cannot be encoded. The kernel writes
// it as zeros (a row of zero bytes reads as zeros at every precision),
// records EMBRT_DEVERR_NON_FINITE naming the row, its first such column and
// the value, and encodes every other row as usual; embrtSynchronize reports
// it.
//
//===----------------------------------------------------------------------===//

#include "kernels/common/device_errors.cuh"
#include "kernels/launch.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>

namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

/// Element i of a dense table as f32 (exact for every dtype).
__device__ __forceinline__ float loadDense(const float *p, long long i) {
  return __ldg(p + i);
}
__device__ __forceinline__ float loadDense(const __half *p, long long i) {
  return __half2float(__ldg(p + i));
}
__device__ __forceinline__ float loadDense(const __nv_bfloat16 *p,
                                           long long i) {
  return __bfloat162float(__ldg(p + i));
}

/// An f32 rounded to an f16 and back, as embrtF16ToF32(embrtF32ToF16(x)):
/// to nearest even, overflowing to infinity.
__device__ __forceinline__ float roundThroughHalf(float x) {
  return __half2float(__float2half_rn(x));
}

/// The f16 bits of x, which is an f16 value already (exact).
__device__ __forceinline__ uint32_t halfBits(float x) {
  return __half_as_ushort(__float2half_rn(x));
}

/// embrtF32ToE4M3: to nearest even, saturated at 448 (given finite values).
/// Every scaling is by a power of two, so exact in f32 as in the host's f64.
__device__ __forceinline__ uint32_t f32ToE4M3(float value) {
  uint32_t sign = signbit(value) ? 0x80u : 0u;
  float a = fabsf(value);
  if (!(a < 448.0f))
    return sign | 0x7eu;
  if (a < 0.015625f) // 2^-6: subnormal, steps of 2^-9
    return sign | (uint32_t)rintf(__fmul_rn(a, 512.0f));
  int e;
  frexpf(a, &e);
  int exponent = e - 1;
  float q = rintf(ldexpf(a, 3 - exponent)); // 8..16 steps of 2^(e-4)
  if (q == 16.0f) {
    q = 8.0f;
    ++exponent;
  }
  int code = ((exponent + 7) << 3) | ((int)q - 8);
  return sign | (uint32_t)(code > 0x7e ? 0x7e : code);
}

/// embrtE4M3ToF32.
__device__ __forceinline__ float e4m3ToF32(uint32_t bits) {
  int exponent = (bits >> 3) & 0xf, mantissa = bits & 7;
  float magnitude;
  if ((bits & 0x7f) == 0x7f)
    magnitude = __int_as_float(0x7fc00000);
  else if (exponent == 0)
    magnitude = ldexpf((float)mantissa, -9);
  else
    magnitude = ldexpf((float)(8 + mantissa), exponent - 10);
  return (bits & 0x80) ? -magnitude : magnitude;
}

__device__ __forceinline__ float warpMin(float x) {
  for (int o = kWarp / 2; o > 0; o /= 2)
    x = fminf(x, __shfl_xor_sync(kFullMask, x, o));
  return x;
}
__device__ __forceinline__ float warpMax(float x) {
  for (int o = kWarp / 2; o > 0; o /= 2)
    x = fmaxf(x, __shfl_xor_sync(kFullMask, x, o));
  return x;
}
__device__ __forceinline__ int warpMin(int x) {
  for (int o = kWarp / 2; o > 0; o /= 2)
    x = min(x, __shfl_xor_sync(kFullMask, x, o));
  return x;
}

/// Word `w` of a row: one 32-bit store where the table is 4-byte aligned,
/// else four byte stores (little-endian, as the host lays the bytes).
template <bool Aligned>
__device__ __forceinline__ void storeWord(uint8_t *row, int w, uint32_t word) {
  if (Aligned) {
    reinterpret_cast<uint32_t *>(row)[w] = word;
  } else {
    for (int k = 0; k < 4; ++k)
      row[4 * w + k] = (uint8_t)(word >> (8 * k));
  }
}

/// Two bytes of a packed row as a little-endian 16-bit word (no alignment).
__device__ __forceinline__ uint32_t loadU16(const uint8_t *p) {
  return (uint32_t)__ldg(p) | (uint32_t)__ldg(p + 1) << 8;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/*
 * quantizeKernel<T, Bits, Fp8, Aligned>: one warp encodes one row per
 * grid-stride step over the rows; CTAs of EMBRT_CUDA_THREADS threads, grid
 * embrtCudaGridSize(rows * 32). The lanes read the row's elements d = lane,
 * lane + 32, ... (coalesced) for its minimum and maximum (int) or largest
 * magnitude (fp8), reduced over the warp with shuffles; every lane then
 * computes the header and writes the row's 32-bit words w = lane, lane +
 * 32, ...: word 0 the header, word w > 0 the 32 / Bits elements from
 * (w - 1) * 32 / Bits, re-read from L1 (zeros past D: the padding). Assumes
 * D packs into whole bytes and rowBytes is a multiple of 16; Aligned: the
 * packed table is 4-byte aligned. No shared memory.
 */
template <typename T, int Bits, bool Fp8, bool Aligned>
__global__ void quantizeKernel(const T *__restrict__ input, long long rows,
                               int dim, int rowBytes,
                               uint8_t *__restrict__ output,
                               embrtDeviceErrors *errors) {
  constexpr int kPerWord = 32 / Bits;
  constexpr int kLevels = (1 << Bits) - 1;
  int lane = threadIdx.x % kWarp;
  long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / kWarp;
  long long warps = (long long)gridDim.x * blockDim.x / kWarp;
  int words = rowBytes / 4;
  for (long long r = warp; r < rows; r += warps) {
    const T *x = input + r * dim;
    uint8_t *row = output + r * rowBytes;
    float lo = INFINITY, hi = -INFINITY, amax = 0.0f;
    int bad = INT_MAX, firstZero = INT_MAX;
    for (int d = lane; d < dim; d += kWarp) {
      float v = loadDense(x, d);
      if (!isfinite(v)) {
        bad = min(bad, d);
      } else if (Fp8) {
        amax = fmaxf(amax, fabsf(v));
      } else {
        lo = fminf(lo, v);
        hi = fmaxf(hi, v);
        if (v == 0.0f)
          firstZero = min(firstZero, d);
      }
    }
    bad = warpMin(bad);
    if (bad != INT_MAX) {
      for (int w = lane; w < words; w += kWarp)
        storeWord<Aligned>(row, w, 0u);
      if (lane == 0)
        embrtDeviceRecordError(errors, EMBRT_DEVERR_NON_FINITE, -1, -1, r,
                               (long long)__float_as_uint(loadDense(x, bad)),
                               bad);
      continue;
    }
    // The header and what an element is divided by, as the host has them.
    uint32_t header;
    float scale, bias = 0.0f, inverse = 1.0f;
    if (Fp8) {
      amax = warpMax(amax);
      scale = amax > 0.0f ? __fdiv_rn(amax, 448.0f) : 1.0f;
      if (!(scale > 0.0f)) // amax below 448 * the least float: underflow
        scale = 1.0f;
      header = __float_as_uint(scale);
    } else {
      lo = warpMin(lo);
      hi = warpMax(hi);
      if (lo == 0.0f) // +0 or -0: the first zero's, as the host's fold
        lo = loadDense(x, warpMin(firstZero));
      bias = roundThroughHalf(lo);
      float range = __fsub_rn(hi, bias);
      scale = range == 0.0f ? 1.0f : __fdiv_rn(range, (float)kLevels);
      scale = roundThroughHalf(scale);
      if (scale == 0.0f)
        scale = 1.0f;
      inverse = __fdiv_rn(1.0f, scale);
      if (isinf(inverse)) {
        scale = 1.0f;
        inverse = 1.0f;
      }
      header = halfBits(scale) | halfBits(bias) << 16;
    }
    for (int w = lane; w < words; w += kWarp) {
      uint32_t word = header;
      if (w > 0) {
        word = 0;
        int first = (w - 1) * kPerWord;
#pragma unroll
        for (int k = 0; k < kPerWord; ++k) {
          int d = first + k;
          if (d >= dim)
            break;
          float v = loadDense(x, d);
          uint32_t q;
          if (Fp8) {
            q = f32ToE4M3(__fdiv_rn(v, scale));
          } else {
            // lrintf: to nearest even; a NaN (an infinite scale's 0 * inf)
            // is 0 on both sides (lrintf's LONG_MIN clamps to 0).
            int n = __float2int_rn(__fmul_rn(__fsub_rn(v, bias), inverse));
            q = (uint32_t)(n < 0 ? 0 : n > kLevels ? kLevels : n);
          }
          word |= q << (k * Bits);
        }
      }
      storeWord<Aligned>(row, w, word);
    }
  }
}

/// Stores a decoded f32 as T, rounded once to nearest even.
__device__ __forceinline__ void storeDense(float *p, long long i, float v) {
  p[i] = v;
}
__device__ __forceinline__ void storeDense(__half *p, long long i, float v) {
  p[i] = __float2half_rn(v);
}
__device__ __forceinline__ void storeDense(__nv_bfloat16 *p, long long i,
                                           float v) {
  p[i] = __float2bfloat16_rn(v);
}

/*
 * dequantizeKernel<T, Bits, Fp8>: one thread decodes one element per
 * grid-stride step over the rows * D elements (coalesced writes of T); CTAs
 * of EMBRT_CUDA_THREADS threads, grid embrtCudaGridSize(rows * D). A row's
 * header and bytes are read by the neighbouring threads of its elements
 * (L1). Packed bytes are read one by one: no alignment is assumed. No
 * shared memory.
 */
template <typename T, int Bits, bool Fp8>
__global__ void dequantizeKernel(const uint8_t *__restrict__ input,
                                 long long rows, int dim, int rowBytes,
                                 T *__restrict__ output) {
  long long total = rows * dim;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < total; i += (long long)gridDim.x * blockDim.x) {
    long long r = i / dim;
    int d = (int)(i - r * dim);
    const uint8_t *row = input + r * rowBytes;
    float v;
    if (Fp8) {
      float scale = __uint_as_float(loadU16(row) | loadU16(row + 2) << 16);
      v = __fmul_rn(e4m3ToF32(__ldg(row + 4 + d)), scale);
    } else {
      float scale =
          __half2float(__ushort_as_half((unsigned short)loadU16(row)));
      float bias =
          __half2float(__ushort_as_half((unsigned short)loadU16(row + 2)));
      int bit = d * Bits;
      uint32_t q = (__ldg(row + 4 + bit / 8) >> (bit % 8)) & ((1u << Bits) - 1);
      v = fmaf(scale, (float)q, bias);
    }
    storeDense(output, i, v);
  }
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

template <typename T, int Bits, bool Fp8>
void launchQuantize(embrtLaunchEnv *env, const embrtQuantizeTableArgs *a,
                    int rowBytes) {
  unsigned grid = embrtCudaGridSize(env, a->rows * kWarp);
  cudaStream_t stream = (cudaStream_t)env->stream;
  const T *in = static_cast<const T *>(a->input);
  uint8_t *out = static_cast<uint8_t *>(a->output);
  if ((uintptr_t)a->output % 4 == 0)
    quantizeKernel<T, Bits, Fp8, true><<<grid, EMBRT_CUDA_THREADS, 0, stream>>>(
        in, a->rows, (int)a->dim, rowBytes, out, env->deviceErrors);
  else
    quantizeKernel<T, Bits, Fp8, false>
        <<<grid, EMBRT_CUDA_THREADS, 0, stream>>>(
            in, a->rows, (int)a->dim, rowBytes, out, env->deviceErrors);
}

template <typename T>
void launchQuantizeDtype(embrtLaunchEnv *env, const embrtQuantizeTableArgs *a,
                         int rowBytes) {
  switch (a->precision) {
  case EMBRT_PRECISION_INT8:
    return launchQuantize<T, 8, false>(env, a, rowBytes);
  case EMBRT_PRECISION_INT4:
    return launchQuantize<T, 4, false>(env, a, rowBytes);
  case EMBRT_PRECISION_INT2:
    return launchQuantize<T, 2, false>(env, a, rowBytes);
  default: // EMBRT_PRECISION_FP8: the only other one the runtime passes
    return launchQuantize<T, 8, true>(env, a, rowBytes);
  }
}

template <typename T, int Bits, bool Fp8>
void launchDequantize(embrtLaunchEnv *env, const embrtQuantizeTableArgs *a,
                      int rowBytes) {
  dequantizeKernel<T, Bits, Fp8>
      <<<embrtCudaGridSize(env, a->rows * a->dim), EMBRT_CUDA_THREADS, 0,
         (cudaStream_t)env->stream>>>(static_cast<const uint8_t *>(a->input),
                                      a->rows, (int)a->dim, rowBytes,
                                      static_cast<T *>(a->output));
}

template <typename T>
void launchDequantizeDtype(embrtLaunchEnv *env, const embrtQuantizeTableArgs *a,
                           int rowBytes) {
  switch (a->precision) {
  case EMBRT_PRECISION_INT8:
    return launchDequantize<T, 8, false>(env, a, rowBytes);
  case EMBRT_PRECISION_INT4:
    return launchDequantize<T, 4, false>(env, a, rowBytes);
  case EMBRT_PRECISION_INT2:
    return launchDequantize<T, 2, false>(env, a, rowBytes);
  default:
    return launchDequantize<T, 8, true>(env, a, rowBytes);
  }
}

/// The packed row's bytes, or an error for what the runtime's checks let
/// through only by mistake.
embrtStatus rowBytesOf(embrtLaunchEnv *env, const char *op,
                       const embrtQuantizeTableArgs *a, int *rowBytes) {
  int64_t bytes = embrtQuantizedRowBytes(a->precision, a->dim);
  if (bytes <= 0 || (a->denseDtype != EMBRT_F32 && a->denseDtype != EMBRT_F16 &&
                     a->denseDtype != EMBRT_BF16))
    return embrtLaunchError(env, EMBRT_INVALID_ARGUMENT,
                            "%s: precision %d, dim %lld and dense dtype %d "
                            "have no kernel",
                            op, (int)a->precision, (long long)a->dim,
                            (int)a->denseDtype);
  *rowBytes = (int)bytes;
  return EMBRT_OK;
}

} // namespace

extern "C" embrtStatus
embrtCudaLaunchQuantizeTable(embrtLaunchEnv *env,
                             const embrtQuantizeTableArgs *a) {
  int rowBytes = 0;
  embrtStatus status = rowBytesOf(env, "quantize_table", a, &rowBytes);
  if (status != EMBRT_OK)
    return status;
  switch (a->denseDtype) {
  case EMBRT_F16:
    launchQuantizeDtype<__half>(env, a, rowBytes);
    break;
  case EMBRT_BF16:
    launchQuantizeDtype<__nv_bfloat16>(env, a, rowBytes);
    break;
  default:
    launchQuantizeDtype<float>(env, a, rowBytes);
    break;
  }
  return embrtCudaCheck(env, cudaGetLastError(),
                        "quantize_table: kernel launch");
}

extern "C" embrtStatus
embrtCudaLaunchDequantizeTable(embrtLaunchEnv *env,
                               const embrtQuantizeTableArgs *a) {
  int rowBytes = 0;
  embrtStatus status = rowBytesOf(env, "dequantize_table", a, &rowBytes);
  if (status != EMBRT_OK)
    return status;
  switch (a->denseDtype) {
  case EMBRT_F16:
    launchDequantizeDtype<__half>(env, a, rowBytes);
    break;
  case EMBRT_BF16:
    launchDequantizeDtype<__nv_bfloat16>(env, a, rowBytes);
    break;
  default:
    launchDequantizeDtype<float>(env, a, rowBytes);
    break;
  }
  return embrtCudaCheck(env, cudaGetLastError(),
                        "dequantize_table: kernel launch");
}
