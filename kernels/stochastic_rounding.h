//===- kernels/stochastic_rounding.h - Seeded stochastic rounding -*- C -*-===//
//
// How the TBE backward writes f16 and bf16 table rows back: stochastic
// rounding (as FBGEMM's TBE does for 16-bit weights), so that updates smaller
// than half an ulp are not lost on average. A value x between two
// neighbouring 16-bit values a < x < b becomes b with probability
// (x - a) / (b - a), else a; the random bits come from a counter-based hash of
// (seed, step, table, row, column), so a step is reproducible and needs no
// random state.
//
//   bf16: 16 random bits are added to the low half of x's f32 bits, which are
//         then cut off (bf16 is the high half of f32: exact for normals and
//         subnormals alike).
//   f16:  x plus r / 2^13 of the f16 ulp at x's binade (2^-24 below 2^-14,
//         13 random bits r), rounded toward zero to f16. The sum is exact in
//         f32 where it matters; both sides compute it in f32.
//   NaN and infinity are kept; finite values past the f16 range round toward
//   zero to 65504, as the rounding toward zero does.
//
// Plain C with host and device qualifiers, so that the CPU reference
// (runtime/cpu/tbe_backward.c) and the kernels (kernels/tbe_backward.cu)
// round with the same bits: given the same f32 value, both produce the same
// 16-bit value. (Their f32 values may differ by the accumulation: the CPU
// sums in f64, the GPU in f32.)
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_STOCHASTIC_ROUNDING_H
#define EMB_KERNELS_STOCHASTIC_ROUNDING_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define EMB_SR_FN static inline __host__ __device__
#else
#define EMB_SR_FN static inline
#endif

/// The finaliser of splitmix64.
EMB_SR_FN uint64_t embSrMix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

/// The random stream of one step: (seed, step) mixed once per launch.
EMB_SR_FN uint32_t embSrStepSeed(uint64_t seed, int64_t step) {
  return (uint32_t)embSrMix64(
      seed ^ embSrMix64((uint64_t)step * 0x9e3779b97f4a7c15ull));
}

/// The 32-bit finaliser the row and column streams share (lowbias32's
/// constants).
EMB_SR_FN uint32_t embSrMix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/// The random stream of one row of one step: the step's stream
/// (embSrStepSeed), the table and the row through the 32-bit finaliser, a
/// few instructions a row. The rows of one table below 2^32 get distinct
/// inputs (an odd multiple of the row: a bijection).
EMB_SR_FN uint32_t embSrRowSeed(uint32_t stepSeed, int64_t table, int64_t row) {
  return embSrMix32(stepSeed ^ (uint32_t)table * 0x85ebca6bu ^
                    (uint32_t)row * 0x9e3779b9u ^
                    (uint32_t)((uint64_t)row >> 32) * 0xc2b2ae35u);
}

/// 32 random bits for column `col` of a row.
EMB_SR_FN uint32_t embSrColumnBits(uint32_t rowSeed, uint32_t col) {
  return embSrMix32(rowSeed ^ (col * 0x9e3779b9u));
}

EMB_SR_FN uint32_t embSrFloatBits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

EMB_SR_FN float embSrBitsFloat(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}

/// x rounded stochastically to bf16 bits with random bits `r`.
EMB_SR_FN uint16_t embSrToBF16(float x, uint32_t r) {
  uint32_t u = embSrFloatBits(x);
  if ((u & 0x7f800000u) == 0x7f800000u) // NaN (kept quiet) or infinity
    return (uint16_t)((u >> 16) | ((u & 0x7fffffu) ? 0x40u : 0u));
  return (uint16_t)((u + (r & 0xffffu)) >> 16);
}

/// x (no NaN) rounded toward zero to f16 bits.
EMB_SR_FN uint16_t embSrF32ToF16Rz(float x) {
  uint32_t u = embSrFloatBits(x);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) // infinity
    return (uint16_t)(sign | 0x7c00u);
  if (a >= 0x47800000u) // 2^16 and up: the largest finite f16
    return (uint16_t)(sign | 0x7bffu);
  int e = (int)(a >> 23) - 127;
  if (e >= -14) // normal f16: drop 13 mantissa bits
    return (uint16_t)(sign | (uint32_t)(e + 15) << 10 | ((a >> 13) & 0x3ffu));
  if (e >= -25) // subnormal f16: units of 2^-24
    return (uint16_t)(sign | ((a & 0x7fffffu) | 0x800000u) >> (-e - 1));
  return sign;
}

/// x rounded stochastically to f16 bits with random bits `r`.
EMB_SR_FN uint16_t embSrToF16(float x, uint32_t r) {
  uint32_t u = embSrFloatBits(x);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) // NaN, kept quiet
    return (uint16_t)(((u >> 16) & 0x8000u) | 0x7e00u);
  if (a >= 0x7f800000u)
    return embSrF32ToF16Rz(x);
  int e = (int)(a >> 23) - 127;
  // The f16 ulp at x's binade, as f32 bits: 2^(e - 10), at least 2^-24.
  int ulpExp = e >= -14 ? e - 10 : -24;
  float ulp = embSrBitsFloat((uint32_t)(ulpExp + 127) << 23);
  float noise = (float)(r & 0x1fffu) * (1.0f / 8192.0f) * ulp;
  return embSrF32ToF16Rz(x < 0 ? x - noise : x + noise);
}

//===----------------------------------------------------------------------===//
// Optimizer states (embrtStatePrecision): bf16 and OCP fp8
//===----------------------------------------------------------------------===//
//
// A state's random stream is the row stream of a seed of its own (the
// table's rows use `seed` itself), so that a row's weights and its states
// round with unrelated bits.
//
//   fp8: |x| plus r / 2^16 of the fp8 ulp at x's binade (the subnormal ulp
//        below the smallest normal), rounded toward zero to fp8; at and
//        above the largest finite value it saturates (e4m3 448, e5m2
//        57344). The sum is exact in f32 except for a carry into the next
//        binade, rounded the same on both sides. NaN stays NaN.

/// Which state a stream is for: momentum1 (1) or momentum2 (2).
EMB_SR_FN uint64_t embSrStateSeed(uint64_t seed, int which) {
  return seed ^ (which == 1 ? 0x6d6f6d656e743175ull : 0x6d6f6d656e743275ull);
}

/// The fp8 formats' parameters: explicit mantissa bits, exponent bias, code
/// and value of the largest finite magnitude.
EMB_SR_FN int embFp8MantissaBits(int e5m2) { return e5m2 ? 2 : 3; }
EMB_SR_FN int embFp8Bias(int e5m2) { return e5m2 ? 15 : 7; }
EMB_SR_FN float embFp8Max(int e5m2) { return e5m2 ? 57344.0f : 448.0f; }

/// An fp8 code (e4m3, or e5m2 when `e5m2`) as f32, exactly.
EMB_SR_FN float embFp8ToF32(uint8_t code, int e5m2) {
  const int M = embFp8MantissaBits(e5m2), bias = embFp8Bias(e5m2);
  const uint32_t sign = (uint32_t)(code & 0x80u) << 24;
  const uint32_t e = (uint32_t)(code & 0x7fu) >> M;
  const uint32_t m = code & ((1u << M) - 1u);
  const uint32_t eMax = e5m2 ? 31u : 15u;
  if (e == eMax && (e5m2 || m == 7u)) // e5m2: infinity and NaN; e4m3: NaN
    return embSrBitsFloat(sign | 0x7f800000u | (m ? 0x400000u : 0u));
  if (e == 0) { // subnormal: m units of 2^(1 - bias - M)
    float x = (float)m * embSrBitsFloat((uint32_t)(1 - bias - M + 127) << 23);
    return sign ? -x : x;
  }
  return embSrBitsFloat(sign | (e - (uint32_t)bias + 127u) << 23 |
                        m << (23 - M));
}

/// x rounded stochastically to an fp8 code with random bits `r`.
EMB_SR_FN uint8_t embSrToFp8(float x, uint32_t r, int e5m2) {
  const int M = embFp8MantissaBits(e5m2), bias = embFp8Bias(e5m2);
  const uint32_t u = embSrFloatBits(x);
  const uint8_t sign = (uint8_t)((u >> 24) & 0x80u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) // NaN
    return (uint8_t)(sign | 0x7fu);
  const uint8_t maxCode = e5m2 ? 0x7bu : 0x7eu;
  const float fmax = embFp8Max(e5m2);
  const float ax = embSrBitsFloat(a);
  if (ax >= fmax)
    return (uint8_t)(sign | maxCode);
  const int emin = 1 - bias;
  const int e = (int)(a >> 23) - 127;
  const int ulpExp = e >= emin ? e - M : emin - M;
  const float ulp = embSrBitsFloat((uint32_t)(ulpExp + 127) << 23);
  const float y = ax + (float)(r & 0xffffu) * (1.0f / 65536.0f) * ulp;
  if (y >= fmax)
    return (uint8_t)(sign | maxCode);
  const uint32_t yb = embSrFloatBits(y);
  const int ey = (int)(yb >> 23) - 127;
  if (ey >= emin)
    return (uint8_t)(sign | (uint32_t)(ey + bias) << M |
                     ((yb >> (23 - M)) & ((1u << M) - 1u)));
  // Subnormal: whole units of 2^(emin - M), toward zero.
  const float units = y * embSrBitsFloat((uint32_t)(M - emin + 127) << 23);
  return (uint8_t)(sign | (uint32_t)units);
}

/// One state element of precision `precision` (embrtStatePrecision: 0 f32,
/// 1 bf16, 2 e4m3, 3 e5m2) from its bits, as f32: times `scale` for fp8.
EMB_SR_FN float embStateDecode(int precision, uint32_t bits, float scale) {
  switch (precision) {
  case 1:
    return embSrBitsFloat(bits << 16);
  case 2:
  case 3:
    return embFp8ToF32((uint8_t)bits, precision == 3) * scale;
  default:
    return embSrBitsFloat(bits);
  }
}

/// f32 `x` stored at `precision`: f32 bits (nearest), or bf16 / fp8 of
/// x / scale rounded stochastically with random bits `r`.
EMB_SR_FN uint32_t embStateEncode(int precision, float x, float scale,
                                  uint32_t r) {
  switch (precision) {
  case 1:
    return embSrToBF16(x, r);
  case 2:
  case 3:
    return embSrToFp8(x / scale, r, precision == 3);
  default:
    return embSrFloatBits(x);
  }
}

/// The scale of an fp8 row whose largest magnitude is `amax`: amax over
/// the format's largest value, 1 for a zero row (or a non-finite amax,
/// whose codes then saturate).
EMB_SR_FN float embStateRowScale(int precision, float amax) {
  const float s = amax / embFp8Max(precision == 3);
  return s > 0.0f && s <= 3.4e38f ? s : 1.0f;
}

#undef EMB_SR_FN

#endif // EMB_KERNELS_STOCHASTIC_ROUNDING_H
