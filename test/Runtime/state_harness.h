//===- test/Runtime/state_harness.h - Optimizer states in tests -*- C -*-===//
//
// What the tests of optimizer states below f32 (embrtStatePrecision) share:
// the raw elements of a state at its precision, and the spacing of each
// format, against which a stochastically rounded state is held (one step).
// Runtime/tbe_backward_state.c and Kernels/tbe_backward_state.c include it
// after harness.h.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TEST_RUNTIME_STATE_HARNESS_H
#define EMB_TEST_RUNTIME_STATE_HARNESS_H

#include "emb/runtime.h"

#include <math.h>
#include <stdint.h>

static inline int stateIsFp8(embrtStatePrecision p) {
  return p == EMBRT_STATE_FP8_E4M3 || p == EMBRT_STATE_FP8_E5M2;
}

/// The bits of element i of a state of precision `p` at `base`.
static inline uint32_t stateLoadBits(const void *base, embrtStatePrecision p,
                                     int64_t i) {
  int64_t size = embrtStatePrecisionBytes(p);
  return size == 4   ? ((const uint32_t *)base)[i]
         : size == 2 ? ((const uint16_t *)base)[i]
                     : ((const uint8_t *)base)[i];
}

static inline void stateStoreBits(void *base, embrtStatePrecision p, int64_t i,
                                  uint32_t bits) {
  int64_t size = embrtStatePrecisionBytes(p);
  if (size == 4)
    ((uint32_t *)base)[i] = bits;
  else if (size == 2)
    ((uint16_t *)base)[i] = (uint16_t)bits;
  else
    ((uint8_t *)base)[i] = (uint8_t)bits;
}

/// One step of the format of `p` at |x| (before any scale): the spacing of
/// its values in x's binade, the subnormal spacing below its smallest
/// normal.
static inline double stateFormatStep(embrtStatePrecision p, double x) {
  int mantissa = 23, emin = -126, e = 0;
  if (p == EMBRT_STATE_BF16)
    mantissa = 7;
  else if (p == EMBRT_STATE_FP8_E4M3)
    mantissa = 3, emin = -6;
  else if (p == EMBRT_STATE_FP8_E5M2)
    mantissa = 2, emin = -14;
  frexp(fabs(x), &e);
  --e; // |x| in [2^e, 2^(e+1))
  return ldexp(1.0, (e < emin ? emin : e) - mantissa);
}

#endif // EMB_TEST_RUNTIME_STATE_HARNESS_H
