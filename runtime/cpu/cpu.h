//===- runtime/cpu/cpu.h - Helpers of the CPU reference backend ---*- C -*-===//
//
// Element loads and stores shared by the files of runtime/cpu/. Loads widen
// exactly to double; stores round once, to nearest even.
//
// Accumulation rule of the backend: f64 for f32 (and f64) data, f32 for f16
// and bf16 data (embrtCpuAccumulate), rounded once at the store.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_CPU_CPU_H
#define EMB_RUNTIME_CPU_CPU_H

#include "runtime/internal.h"

/// Element i of a float tensor (F32, F16, BF16 or F64), exactly.
static inline double embrtCpuLoad(const void *p, embrtDtype dtype, int64_t i) {
  switch (dtype) {
  case EMBRT_F16:
    return embrtF16ToF32(((const uint16_t *)p)[i]);
  case EMBRT_BF16:
    return embrtBF16ToF32(((const uint16_t *)p)[i]);
  case EMBRT_F64:
    return ((const double *)p)[i];
  default:
    return ((const float *)p)[i];
  }
}

/// Stores `value` rounded once to `dtype` (F32, F16, BF16 or F64).
static inline void embrtCpuStore(void *p, embrtDtype dtype, int64_t i,
                                 double value) {
  switch (dtype) {
  case EMBRT_F16:
    ((uint16_t *)p)[i] = embrtF64ToF16(value);
    break;
  case EMBRT_BF16:
    ((uint16_t *)p)[i] = embrtF64ToBF16(value);
    break;
  case EMBRT_F64:
    ((double *)p)[i] = value;
    break;
  default:
    ((float *)p)[i] = (float)value;
    break;
  }
}

/// Whether data of `dtype` accumulates in f32 (f16, bf16) rather than f64.
static inline int embrtCpuAccumulatesInF32(embrtDtype dtype) {
  return dtype == EMBRT_F16 || dtype == EMBRT_BF16;
}

/// acc + a * b in the accumulator precision: with an f32 accumulator the sum
/// is rounded to f32 once per step (the product of two f32 values is exact in
/// double, so this behaves like an f32 fused multiply-add).
static inline double embrtCpuAccumulate(double acc, double a, double b,
                                        int inF32) {
  double sum = acc + a * b;
  return inF32 ? (double)(float)sum : sum;
}

#endif // EMB_RUNTIME_CPU_CPU_H
