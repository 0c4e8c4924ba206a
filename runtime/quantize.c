//===- runtime/quantize.c - Quantized tables ----------------------*- C -*-===//
//
// The packed rows of quantized tables (runtime/quantize.h) and the entry
// points embrtQuantizeTable and embrtDequantizeTable: the argument checks,
// then the context's backend. The row layout is FBGEMM's IntNBit TBE row
// (header first, rows padded to EMBRT_QUANTIZED_ROW_ALIGNMENT), so that
// FBGEMM's inference weights are emb's tables byte for byte.
//
//===----------------------------------------------------------------------===//

#include "runtime/quantize.h"
#include "emb/compiled.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"

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
// Entry points
//===----------------------------------------------------------------------===//

static embrtStatus checkQuantize(embrtContext *ctx, const char *op,
                                 const embrtQuantizeTableArgs *args) {
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtQuantizeTableArgs),
                             "embrtQuantizeTableArgs"));
  if (embrtPrecisionBits(args->precision) == 0)
    return embrtInvalid(ctx,
                        "%s: precision is %d, must be int8, int4, int2 or fp8",
                        op, (int)args->precision);
  EMBRT_TRY(embrtCheckStorageFloat(ctx, op, "denseDtype", args->denseDtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "rows", args->rows));
  int64_t rowBytes = embrtQuantizedRowBytes(args->precision, args->dim);
  if (rowBytes < 0)
    return embrtInvalid(ctx,
                        "%s: dim is %lld, must be in 1..%d and a multiple of "
                        "%d for %s",
                        op, (long long)args->dim, EMBRT_MAX_TABLE_DIM,
                        8 / embrtPrecisionBits(args->precision),
                        embrtTablePrecisionName(args->precision));
  int64_t denseElements = 0, packedBytes = 0;
  EMBRT_TRY(embrtCheckCount(ctx, op, "the dense table", args->denseDtype,
                            &denseElements, args->rows, args->dim, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "the packed table", EMBRT_I8, &packedBytes,
                            args->rows, rowBytes, 1, 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "input", args->input, args->rows));
  return embrtCheckData(ctx, op, "output", args->output, args->rows);
}

embrtStatus embrtQuantizeTable(embrtContext *ctx,
                               const embrtQuantizeTableArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkQuantize(ctx, "quantize_table", args));
  if (args->rows == 0)
    return EMBRT_OK;
  return ctx->backend->quantizeTable(ctx, args);
}

embrtStatus embrtDequantizeTable(embrtContext *ctx,
                                 const embrtQuantizeTableArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkQuantize(ctx, "dequantize_table", args));
  if (args->rows == 0)
    return EMBRT_OK;
  return ctx->backend->dequantizeTable(ctx, args);
}

void embrtCompiledQuantizeTable(embrtContext *ctx, const int64_t *attrs,
                                void *const *buffers, const int64_t *dims) {
  int64_t rows = dims[EMB_ABI_QUANTIZE_DIM_ROWS];
  if (embrtCheckExtent(ctx, "emb.quantize_table", "the result",
                       dims[EMB_ABI_QUANTIZE_DIM_OUTPUT_ROWS], "rows", "weight",
                       rows, "rows") != EMBRT_OK)
    return;
  embrtQuantizeTableArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.precision = (embrtTablePrecision)attrs[EMB_ABI_QUANTIZE_PRECISION];
  a.denseDtype = (embrtDtype)attrs[EMB_ABI_QUANTIZE_DENSE_DTYPE];
  a.rows = rows;
  a.dim = dims[EMB_ABI_QUANTIZE_DIM_COLS];
  a.input = buffers[EMB_ABI_QUANTIZE_BUF_INPUT];
  a.output = buffers[EMB_ABI_QUANTIZE_BUF_OUTPUT];
  embrtQuantizeTable(ctx, &a);
}
