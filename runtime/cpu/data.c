//===- runtime/cpu/data.c - Data movement and elementwise ---------*- C -*-===//
//
// The reference concat, strided copy, elementwise ops, fill and convert.
//
// Elementwise ops compute f16 and bf16 in f32 (the f32 math functions), f32
// and f64 in f64, and round once to the dtype. max and min propagate NaN.
//
// Conversions: float to float rounds to nearest even (f64 to f16 once, not
// through f32); integer to float rounds to nearest even; float to integer
// truncates toward zero and saturates (NaN gives 0); integer to a narrower
// integer wraps (keeps the low bits), like arith.trunci.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"

#include <math.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Concat and strided copy
//===----------------------------------------------------------------------===//

embrtStatus embrtCpuConcat(embrtContext *ctx, const embrtConcatArgs *args) {
  size_t elementSize = embrtDtypeSize(args->dtype);
  size_t innerBytes = (size_t)args->innerSize * elementSize;
  int64_t outputDim = 0;
  for (int64_t i = 0; i < args->numInputs; ++i)
    outputDim += args->inputDimSizes[i];
  size_t outputRowBytes = (size_t)outputDim * innerBytes;
  size_t column = 0;
  for (int64_t i = 0; i < args->numInputs; ++i) {
    size_t inputRowBytes = (size_t)args->inputDimSizes[i] * innerBytes;
    if (inputRowBytes == 0)
      continue;
    for (int64_t o = 0; o < args->outerSize; ++o)
      memcpy((char *)args->output + (size_t)o * outputRowBytes + column,
             (const char *)args->inputs[i] + (size_t)o * inputRowBytes,
             inputRowBytes);
    column += inputRowBytes;
  }
  return EMBRT_OK;
}

embrtStatus embrtCpuStridedCopy(embrtContext *ctx,
                                const embrtStridedCopyArgs *args) {
  size_t elementSize = embrtDtypeSize(args->dtype);
  int64_t count = 1;
  for (int64_t d = 0; d < args->rank; ++d)
    count *= args->sizes[d];
  int64_t position[EMBRT_MAX_RANK] = {0};
  int64_t source = args->inputOffset;
  for (int64_t n = 0; n < count; ++n) {
    memcpy((char *)args->output + (size_t)n * elementSize,
           (const char *)args->input + (size_t)source * elementSize,
           elementSize);
    // Step the multi-index like an odometer, innermost dim fastest. The
    // source never leaves the window (a step past a dim's last element
    // could overflow where the window's end does not).
    for (int64_t d = args->rank - 1; d >= 0; --d) {
      if (++position[d] < args->sizes[d]) {
        source += args->inputStrides[d];
        break;
      }
      source -= (position[d] - 1) * args->inputStrides[d];
      position[d] = 0;
    }
  }
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static float binaryF32(embrtBinaryOp op, float a, float b) {
  switch (op) {
  case EMBRT_BINARY_ADD:
    return a + b;
  case EMBRT_BINARY_SUB:
    return a - b;
  case EMBRT_BINARY_MUL:
    return a * b;
  case EMBRT_BINARY_DIV:
    return a / b;
  case EMBRT_BINARY_MAX:
    return a > b || isnan(a) ? a : b;
  case EMBRT_BINARY_MIN:
    return a < b || isnan(a) ? a : b;
  }
  return NAN;
}

static double binaryF64(embrtBinaryOp op, double a, double b) {
  switch (op) {
  case EMBRT_BINARY_ADD:
    return a + b;
  case EMBRT_BINARY_SUB:
    return a - b;
  case EMBRT_BINARY_MUL:
    return a * b;
  case EMBRT_BINARY_DIV:
    return a / b;
  case EMBRT_BINARY_MAX:
    return a > b || isnan(a) ? a : b;
  case EMBRT_BINARY_MIN:
    return a < b || isnan(a) ? a : b;
  }
  return NAN;
}

static float unaryF32(embrtUnaryOp op, float x) {
  switch (op) {
  case EMBRT_UNARY_NEG:
    return -x;
  case EMBRT_UNARY_EXP:
    return expf(x);
  case EMBRT_UNARY_TANH:
    return tanhf(x);
  case EMBRT_UNARY_SIGMOID:
    return 1.0f / (1.0f + expf(-x));
  case EMBRT_UNARY_RELU:
    return x > 0.0f || isnan(x) ? x : 0.0f;
  case EMBRT_UNARY_SQRT:
    return sqrtf(x);
  case EMBRT_UNARY_RSQRT:
    return 1.0f / sqrtf(x);
  case EMBRT_UNARY_LOG:
    return logf(x);
  case EMBRT_UNARY_ABS:
    return fabsf(x);
  }
  return NAN;
}

static double unaryF64(embrtUnaryOp op, double x) {
  switch (op) {
  case EMBRT_UNARY_NEG:
    return -x;
  case EMBRT_UNARY_EXP:
    return exp(x);
  case EMBRT_UNARY_TANH:
    return tanh(x);
  case EMBRT_UNARY_SIGMOID:
    return 1.0 / (1.0 + exp(-x));
  case EMBRT_UNARY_RELU:
    return x > 0.0 || isnan(x) ? x : 0.0;
  case EMBRT_UNARY_SQRT:
    return sqrt(x);
  case EMBRT_UNARY_RSQRT:
    return 1.0 / sqrt(x);
  case EMBRT_UNARY_LOG:
    return log(x);
  case EMBRT_UNARY_ABS:
    return fabs(x);
  }
  return NAN;
}

/// Integer elementwise ops wrap on overflow, as MLIR's arith does.
static void integerElementwise(const embrtElementwiseArgs *args) {
  for (int64_t i = 0; i < args->numElements; ++i) {
    int64_t a = args->dtype == EMBRT_I32 ? ((const int32_t *)args->a)[i]
                                         : ((const int64_t *)args->a)[i];
    uint64_t x = (uint64_t)a, r;
    if (args->isUnary) {
      r = args->unaryOp == EMBRT_UNARY_NEG || a < 0 ? 0u - x : x;
    } else {
      int64_t b = args->dtype == EMBRT_I32 ? ((const int32_t *)args->b)[i]
                                           : ((const int64_t *)args->b)[i];
      uint64_t y = (uint64_t)b;
      switch (args->binaryOp) {
      case EMBRT_BINARY_ADD:
        r = x + y;
        break;
      case EMBRT_BINARY_SUB:
        r = x - y;
        break;
      case EMBRT_BINARY_MUL:
        r = x * y;
        break;
      case EMBRT_BINARY_MAX:
        r = a > b ? x : y;
        break;
      default:
        r = a < b ? x : y;
      }
    }
    if (args->dtype == EMBRT_I32)
      ((int32_t *)args->output)[i] = (int32_t)(uint32_t)r;
    else
      ((int64_t *)args->output)[i] = (int64_t)r;
  }
}

embrtStatus embrtCpuElementwise(embrtContext *ctx,
                                const embrtElementwiseArgs *args) {
  embrtDtype dtype = args->dtype;
  if (dtype == EMBRT_I32 || dtype == EMBRT_I64) {
    integerElementwise(args);
    return EMBRT_OK;
  }
  int inF32 = embrtCpuAccumulatesInF32(dtype);
  for (int64_t i = 0; i < args->numElements; ++i) {
    double a = embrtCpuLoad(args->a, dtype, i), result;
    if (args->isUnary) {
      result = inF32 ? unaryF32(args->unaryOp, (float)a)
                     : unaryF64(args->unaryOp, a);
    } else {
      double b = embrtCpuLoad(args->b, dtype, i);
      result = inF32 ? binaryF32(args->binaryOp, (float)a, (float)b)
                     : binaryF64(args->binaryOp, a, b);
    }
    embrtCpuStore(args->output, dtype, i, result);
  }
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Fill and convert
//===----------------------------------------------------------------------===//

embrtStatus embrtCpuFill(embrtContext *ctx, void *output, embrtDtype dtype,
                         int64_t numElements, const void *value) {
  size_t elementSize = embrtDtypeSize(dtype);
  for (int64_t i = 0; i < numElements; ++i)
    memcpy((char *)output + (size_t)i * elementSize, value, elementSize);
  return EMBRT_OK;
}

static int isIntegerDtype(embrtDtype dtype) {
  return dtype == EMBRT_I32 || dtype == EMBRT_I64 || dtype == EMBRT_I8;
}

static int64_t loadInteger(const void *p, embrtDtype dtype, int64_t i) {
  switch (dtype) {
  case EMBRT_I8:
    return ((const int8_t *)p)[i];
  case EMBRT_I32:
    return ((const int32_t *)p)[i];
  default:
    return ((const int64_t *)p)[i];
  }
}

/// An integer as a double that rounds correctly to any format of at most 51
/// significant bits: exact below 2^53; above, the dropped bits are ORed into
/// the lowest kept bit (round to odd) so no false tie appears.
static double integerForRounding(int64_t value) {
  uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
  int shift = 0;
  while ((magnitude >> shift) >= (UINT64_C(1) << 53))
    ++shift;
  uint64_t kept = magnitude >> shift;
  if (shift > 0 && (magnitude & ((UINT64_C(1) << shift) - 1)))
    kept |= 1;
  double result = ldexp((double)kept, shift);
  return value < 0 ? -result : result;
}

/// Truncates toward zero and saturates to [lo, hi]; NaN gives 0.
static int64_t truncateSaturating(double x, int64_t lo, int64_t hi) {
  if (isnan(x))
    return 0;
  if (x <= (double)lo)
    return lo;
  if (x >= (double)hi) // (double)INT64_MAX is 2^63
    return hi;
  return (int64_t)x;
}

static void storeFromInteger(void *p, embrtDtype dtype, int64_t i,
                             int64_t value) {
  switch (dtype) {
  case EMBRT_I8:
    ((uint8_t *)p)[i] = (uint8_t)(uint64_t)value;
    break;
  case EMBRT_I32:
    ((uint32_t *)p)[i] = (uint32_t)(uint64_t)value;
    break;
  case EMBRT_I64:
    ((int64_t *)p)[i] = value;
    break;
  case EMBRT_F32:
    ((float *)p)[i] = (float)value;
    break;
  case EMBRT_F64:
    ((double *)p)[i] = (double)value;
    break;
  default: // F16, BF16
    embrtCpuStore(p, dtype, i, integerForRounding(value));
    break;
  }
}

static void storeFromFloat(void *p, embrtDtype dtype, int64_t i, double x) {
  switch (dtype) {
  case EMBRT_I8:
    ((int8_t *)p)[i] = (int8_t)truncateSaturating(x, INT8_MIN, INT8_MAX);
    break;
  case EMBRT_I32:
    ((int32_t *)p)[i] = (int32_t)truncateSaturating(x, INT32_MIN, INT32_MAX);
    break;
  case EMBRT_I64:
    ((int64_t *)p)[i] = truncateSaturating(x, INT64_MIN, INT64_MAX);
    break;
  default:
    embrtCpuStore(p, dtype, i, x);
    break;
  }
}

embrtStatus embrtCpuConvert(embrtContext *ctx, const void *input,
                            embrtDtype inputDtype, void *output,
                            embrtDtype outputDtype, int64_t numElements) {
  for (int64_t i = 0; i < numElements; ++i) {
    if (isIntegerDtype(inputDtype))
      storeFromInteger(output, outputDtype, i,
                       loadInteger(input, inputDtype, i));
    else
      storeFromFloat(output, outputDtype, i,
                     embrtCpuLoad(input, inputDtype, i));
  }
  return EMBRT_OK;
}
