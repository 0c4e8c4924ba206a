//===- runtime/quantize.h - Packed rows of quantized tables -------*- C -*-===//
//
// One row of a quantized table (embrtTablePrecision in emb/runtime.h),
// encoded and decoded on the host. The CPU backend's lookup and its
// embrtQuantizeTable are these loops; the CUDA kernels decode the same
// bytes with the same arithmetic, so that both read one row as the same
// f32 values.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_QUANTIZE_H
#define EMB_RUNTIME_QUANTIZE_H

#include "emb/runtime.h"

#include <stdint.h>

/// The bits of one element of a quantized precision (8, 4, 2; 8 for FP8).
int embrtPrecisionBits(embrtTablePrecision precision);

/// Decodes packed row `row` of `dim` columns into `out` (f32, dim entries).
void embrtDecodeRow(embrtTablePrecision precision, const uint8_t *row,
                    int64_t dim, float *out);

/// The products scale * q of packed int8, int4 or int2 row `row` (`dim`
/// columns) into `out`, each exact in f32 (an f16 scale times an integer
/// below 256), and the row's bias into `*bias`: what a pooled lookup sums,
/// the biases apart from the products (embrtDecodeRow's values are
/// fmaf(scale, q, bias), the same numbers rounded once with the bias).
void embrtDecodeRowProducts(embrtTablePrecision precision, const uint8_t *row,
                            int64_t dim, float *out, float *bias);

/// Encodes `in` (dim finite f32 values) into packed row `row`
/// (embrtQuantizedRowBytes bytes, padding zeroed), as embrtQuantizeTable
/// documents.
void embrtEncodeRow(embrtTablePrecision precision, const float *in, int64_t dim,
                    uint8_t *row);

/// An OCP e4m3 byte and back: rounded to nearest even, saturated at 448.
uint8_t embrtF32ToE4M3(float value);
float embrtE4M3ToF32(uint8_t bits);

#endif // EMB_RUNTIME_QUANTIZE_H
