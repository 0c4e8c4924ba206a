//===- runtime/quantize_rows.c - Packed rows of quantized tables ---*- C
//-*-===//
//
// The row format of quantized tables (embrtTablePrecision in emb/runtime.h):
// sizes, names, e4m3, one row encoded and decoded (runtime/quantize.h), and
// embrtQuantizeRows / embrtDequantizeRows, whole tables on host memory
// without a context. Nothing here needs a context or a backend, so that the
// compiler (emb-quantize-tables, the verifier) links these functions alone;
// the CPU backend's embrtQuantizeTable runs the same loops
// (runtime/cpu/quantize.c). The layout is FBGEMM's IntNBit TBE row (header
// first, rows padded to EMBRT_QUANTIZED_ROW_ALIGNMENT), so that FBGEMM's
// inference weights are emb's tables byte for byte.
//
//===----------------------------------------------------------------------===//

#include "runtime/half.h"
#include "runtime/quantize.h"

#include <math.h>
#include <string.h>

int embrtPrecisionBits(embrtTablePrecision precision) {
  switch (precision) {
  case EMBRT_PRECISION_INT8:
  case EMBRT_PRECISION_FP8:
    return 8;
  case EMBRT_PRECISION_INT4:
    return 4;
  case EMBRT_PRECISION_INT2:
    return 2;
  case EMBRT_PRECISION_DENSE:
    break;
  }
  return 0;
}

const char *embrtTablePrecisionName(embrtTablePrecision precision) {
  switch (precision) {
  case EMBRT_PRECISION_DENSE:
    return "dense";
  case EMBRT_PRECISION_INT8:
    return "int8";
  case EMBRT_PRECISION_INT4:
    return "int4";
  case EMBRT_PRECISION_INT2:
    return "int2";
  case EMBRT_PRECISION_FP8:
    return "fp8";
  }
  return "unknown";
}

int64_t embrtQuantizedRowBytes(embrtTablePrecision precision, int64_t dim) {
  int bits = embrtPrecisionBits(precision);
  if (bits == 0 || dim < 1 || dim > EMBRT_MAX_TABLE_DIM ||
      (dim * bits) % 8 != 0)
    return -1;
  int64_t bytes = 4 + dim * bits / 8; // the header: scale and bias, or scale
  int64_t a = EMBRT_QUANTIZED_ROW_ALIGNMENT;
  return (bytes + a - 1) / a * a;
}

//===----------------------------------------------------------------------===//
// e4m3
//===----------------------------------------------------------------------===//

uint8_t embrtF32ToE4M3(float value) {
  uint8_t sign = signbit(value) ? 0x80 : 0;
  double a = fabs((double)value);
  if (!(a < 448.0)) // saturate (NaN too: encoders are given finite values)
    return sign | 0x7e;
  if (a < 0x1p-6) { // subnormal: steps of 2^-9; 8 steps is the least normal
    double m = nearbyint(a * 512.0);
    return sign | (uint8_t)m;
  }
  int e;
  frexp(a, &e); // a = f * 2^e, f in [0.5, 1): exponent e - 1
  int exponent = e - 1;
  double q = nearbyint(ldexp(a, 3 - exponent)); // 8..16 steps of 2^(e-4)
  if (q == 16.0) {
    q = 8.0;
    ++exponent;
  }
  int code = ((exponent + 7) << 3) | ((int)q - 8);
  return sign | (uint8_t)(code > 0x7e ? 0x7e : code);
}

float embrtE4M3ToF32(uint8_t bits) {
  int exponent = (bits >> 3) & 0xf, mantissa = bits & 7;
  float magnitude;
  if ((bits & 0x7f) == 0x7f)
    magnitude = NAN;
  else if (exponent == 0)
    magnitude = ldexpf((float)mantissa, -9);
  else
    magnitude = ldexpf((float)(8 + mantissa), exponent - 10);
  return (bits & 0x80) ? -magnitude : magnitude;
}

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

static float loadHalf(const uint8_t *p) {
  uint16_t bits;
  memcpy(&bits, p, sizeof bits);
  return embrtF16ToF32(bits);
}

static void storeHalf(uint8_t *p, float value) {
  uint16_t bits = embrtF32ToF16(value);
  memcpy(p, &bits, sizeof bits);
}

void embrtDecodeRow(embrtTablePrecision precision, const uint8_t *row,
                    int64_t dim, float *out) {
  if (precision == EMBRT_PRECISION_FP8) {
    float scale;
    memcpy(&scale, row, sizeof scale);
    for (int64_t d = 0; d < dim; ++d)
      out[d] = embrtE4M3ToF32(row[4 + d]) * scale;
    return;
  }
  int bits = embrtPrecisionBits(precision);
  float scale = loadHalf(row), bias = loadHalf(row + 2);
  unsigned mask = (1u << bits) - 1;
  for (int64_t d = 0; d < dim; ++d) {
    int64_t bit = d * bits;
    unsigned q = (row[4 + bit / 8] >> (bit % 8)) & mask;
    out[d] = fmaf(scale, (float)q, bias);
  }
}

void embrtDecodeRowProducts(embrtTablePrecision precision, const uint8_t *row,
                            int64_t dim, float *out, float *bias) {
  int bits = embrtPrecisionBits(precision);
  float scale = loadHalf(row);
  *bias = loadHalf(row + 2);
  unsigned mask = (1u << bits) - 1;
  for (int64_t d = 0; d < dim; ++d) {
    int64_t bit = d * bits;
    unsigned q = (row[4 + bit / 8] >> (bit % 8)) & mask;
    out[d] = scale * (float)q;
  }
}

void embrtEncodeRow(embrtTablePrecision precision, const float *in, int64_t dim,
                    uint8_t *row) {
  int64_t bytes = embrtQuantizedRowBytes(precision, dim);
  memset(row, 0, (size_t)bytes);
  if (precision == EMBRT_PRECISION_FP8) {
    float amax = 0.0f;
    for (int64_t d = 0; d < dim; ++d)
      amax = fmaxf(amax, fabsf(in[d]));
    float scale = amax > 0.0f ? amax / 448.0f : 1.0f;
    if (!(scale > 0.0f)) // amax below 448 * the least float: underflow
      scale = 1.0f;
    memcpy(row, &scale, sizeof scale);
    for (int64_t d = 0; d < dim; ++d)
      row[4 + d] = embrtF32ToE4M3(in[d] / scale);
    return;
  }
  int bits = embrtPrecisionBits(precision);
  float lo = in[0], hi = in[0];
  for (int64_t d = 1; d < dim; ++d) {
    lo = fminf(lo, in[d]);
    hi = fmaxf(hi, in[d]);
  }
  // The bias is stored as f16: quantize against the value it reads as.
  float bias = embrtF16ToF32(embrtF32ToF16(lo));
  float range = hi - bias;
  int levels = (1 << bits) - 1;
  float scale = range == 0.0f ? 1.0f : range / (float)levels;
  scale = embrtF16ToF32(embrtF32ToF16(scale));
  if (scale == 0.0f)
    scale = 1.0f;
  float inverse = 1.0f / scale;
  if (isinf(inverse)) {
    scale = 1.0f;
    inverse = 1.0f;
  }
  storeHalf(row, scale);
  storeHalf(row + 2, bias);
  for (int64_t d = 0; d < dim; ++d) {
    long q = lrintf((in[d] - bias) * inverse);
    q = q < 0 ? 0 : q > levels ? levels : q;
    int64_t bit = d * bits;
    row[4 + bit / 8] |= (uint8_t)(q << (bit % 8));
  }
}

//===----------------------------------------------------------------------===//
// Whole tables on host memory
//===----------------------------------------------------------------------===//

/// Element i of a dense table of `dtype` (F32, F16 or BF16) as f32, exactly.
static float loadDense(const void *p, embrtDtype dtype, int64_t i) {
  if (dtype == EMBRT_F16)
    return embrtF16ToF32(((const uint16_t *)p)[i]);
  if (dtype == EMBRT_BF16)
    return embrtBF16ToF32(((const uint16_t *)p)[i]);
  return ((const float *)p)[i];
}

/// Whether `args` names a table these loops take: a quantized precision, a
/// dim that packs, a dense float dtype, data when there are rows.
static int takes(const embrtQuantizeTableArgs *args) {
  return args && args->structSize == sizeof(embrtQuantizeTableArgs) &&
         embrtPrecisionBits(args->precision) != 0 &&
         embrtQuantizedRowBytes(args->precision, args->dim) > 0 &&
         (args->denseDtype == EMBRT_F32 || args->denseDtype == EMBRT_F16 ||
          args->denseDtype == EMBRT_BF16) &&
         args->rows >= 0 && (args->rows == 0 || (args->input && args->output));
}

embrtStatus embrtQuantizeRows(const embrtQuantizeTableArgs *args,
                              int64_t *badRow, int64_t *badColumn) {
  if (!takes(args))
    return EMBRT_INVALID_ARGUMENT;
  int64_t D = args->dim;
  int64_t rowBytes = embrtQuantizedRowBytes(args->precision, D);
  float row[EMBRT_MAX_TABLE_DIM];
  for (int64_t r = 0; r < args->rows; ++r) {
    for (int64_t d = 0; d < D; ++d) {
      row[d] = loadDense(args->input, args->denseDtype, r * D + d);
      if (!isfinite(row[d])) {
        if (badRow)
          *badRow = r;
        if (badColumn)
          *badColumn = d;
        return EMBRT_OUT_OF_RANGE;
      }
    }
    embrtEncodeRow(args->precision, row, D,
                   (uint8_t *)args->output + r * rowBytes);
  }
  return EMBRT_OK;
}

embrtStatus embrtDequantizeRows(const embrtQuantizeTableArgs *args) {
  if (!takes(args))
    return EMBRT_INVALID_ARGUMENT;
  int64_t D = args->dim;
  int64_t rowBytes = embrtQuantizedRowBytes(args->precision, D);
  float row[EMBRT_MAX_TABLE_DIM];
  for (int64_t r = 0; r < args->rows; ++r) {
    embrtDecodeRow(args->precision, (const uint8_t *)args->input + r * rowBytes,
                   D, row);
    for (int64_t d = 0; d < D; ++d) {
      int64_t i = r * D + d;
      if (args->denseDtype == EMBRT_F16)
        ((uint16_t *)args->output)[i] = embrtF64ToF16(row[d]);
      else if (args->denseDtype == EMBRT_BF16)
        ((uint16_t *)args->output)[i] = embrtF64ToBF16(row[d]);
      else
        ((float *)args->output)[i] = row[d];
    }
  }
  return EMBRT_OK;
}
