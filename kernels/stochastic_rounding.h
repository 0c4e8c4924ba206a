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

/// The random stream of one row of one step: mixed once per row.
EMB_SR_FN uint32_t embSrRowSeed(uint64_t seed, int64_t step, int64_t table,
                                int64_t row) {
  uint64_t counter = (uint64_t)step * 0x9e3779b97f4a7c15ull ^
                     (uint64_t)table * 0xd1b54a32d192ed03ull ^ (uint64_t)row;
  return (uint32_t)embSrMix64(seed ^ embSrMix64(counter));
}

/// 32 random bits for column `col` of a row (a 32-bit finaliser).
EMB_SR_FN uint32_t embSrColumnBits(uint32_t rowSeed, uint32_t col) {
  uint32_t x = rowSeed ^ (col * 0x9e3779b9u);
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
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

#undef EMB_SR_FN

#endif // EMB_KERNELS_STOCHASTIC_ROUNDING_H
