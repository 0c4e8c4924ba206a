//===- runtime/half.h - Single roundings to the 16-bit floats -----*- C -*-===//
//
// The host's conversions from double to IEEE half and bfloat16
// (runtime/half.c), beside the f32 ones of include/emb/runtime.h: the CPU
// backend's stores, and the CUDA backend's padding value of
// jagged_to_padded, which must round as the CPU does.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_HALF_H
#define EMB_RUNTIME_HALF_H

#include <stdint.h>

/// Rounds a double once to IEEE half / bfloat16 bits (nearest even, NaN kept,
/// overflow to infinity, subnormals exact).
uint16_t embrtF64ToF16(double value);
uint16_t embrtF64ToBF16(double value);

#endif // EMB_RUNTIME_HALF_H
