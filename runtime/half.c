//===- runtime/half.c - IEEE half and bfloat16 conversions --------*- C -*-===//
//
// Host-side conversions between f32/f64 and the 16-bit float formats. One
// rounding routine serves both formats: it rounds a double to nearest even at
// the target's precision, handling subnormals, overflow to infinity and NaN.
// Rounding from the double (not through f32) keeps f64 -> f16 a single
// rounding; f32 -> f16 goes through it exactly since every f32 is a double.
//
//===----------------------------------------------------------------------===//

#include "runtime/half.h"
#include "emb/runtime.h"

#include <string.h>

/// Rounds `value` to a binary format with `expBits` exponent bits and
/// `manBits` stored mantissa bits (IEEE layout, sign bit on top).
static uint16_t roundToSmallFloat(double value, int expBits, int manBits) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  uint16_t sign = (uint16_t)((bits >> 63) << (expBits + manBits));
  int exponentField = (int)((bits >> 52) & 0x7ff);
  uint64_t mantissa = bits & ((UINT64_C(1) << 52) - 1);
  uint16_t expAllOnes = (uint16_t)(((1u << expBits) - 1) << manBits);

  if (exponentField == 0x7ff) {
    if (mantissa == 0)
      return sign | expAllOnes; // infinity
    // NaN: keep the top payload bits and force the quiet bit, so the result
    // is a NaN even when the kept payload bits are zero.
    uint16_t payload = (uint16_t)(mantissa >> (52 - manBits));
    return sign | expAllOnes | (uint16_t)(1u << (manBits - 1)) | payload;
  }
  // Zeros and double subnormals (far below the smallest 16-bit subnormal).
  if (exponentField == 0)
    return sign;

  int bias = (1 << (expBits - 1)) - 1;
  int minExponent = 1 - bias;
  int exponent = exponentField - 1023;
  // value = significand * 2^(exponent - 52) with a 53-bit significand.
  uint64_t significand = mantissa | (UINT64_C(1) << 52);
  int shift = 52 - manBits;
  if (exponent < minExponent)
    shift += minExponent - exponent; // subnormal in the target
  if (shift > 54)
    return sign; // below half the smallest subnormal
  uint64_t kept = significand >> shift;
  uint64_t rest = significand & ((UINT64_C(1) << shift) - 1);
  uint64_t half = UINT64_C(1) << (shift - 1);
  if (rest > half || (rest == half && (kept & 1)))
    ++kept;

  if (exponent < minExponent)
    return sign | (uint16_t)kept; // a carry into bit manBits gives the
                                  // smallest normal, encoded the same way
  // Normal: a carry out of the significand bumps the exponent by itself.
  uint64_t encoded = ((uint64_t)(exponent + bias) << manBits) +
                     (kept - (UINT64_C(1) << manBits));
  if (encoded >= expAllOnes)
    return sign | expAllOnes; // overflow
  return sign | (uint16_t)encoded;
}

uint16_t embrtF64ToF16(double value) { return roundToSmallFloat(value, 5, 10); }

uint16_t embrtF64ToBF16(double value) { return roundToSmallFloat(value, 8, 7); }

uint16_t embrtF32ToF16(float value) { return embrtF64ToF16(value); }

uint16_t embrtF32ToBF16(float value) { return embrtF64ToBF16(value); }

float embrtF16ToF32(uint16_t bits) {
  uint32_t sign = (uint32_t)(bits >> 15) << 31;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13); // inf or NaN, payload kept
  } else if (exponent != 0) {
    out = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {
    // Subnormal: normalise; every f16 subnormal is an f32 normal.
    int e = -14;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --e;
    }
    out = sign | ((uint32_t)(e + 127) << 23) | ((mantissa & 0x3ff) << 13);
  }
  float value;
  memcpy(&value, &out, sizeof value);
  return value;
}

float embrtBF16ToF32(uint16_t bits) {
  uint32_t out = (uint32_t)bits << 16;
  float value;
  memcpy(&value, &out, sizeof value);
  return value;
}
