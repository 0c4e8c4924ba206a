// RUN: %runtime_test_dir/data
//
// embrtConcat, embrtStridedCopy, embrtElementwise, embrtFill and
// embrtConvert on the CPU against direct computations: every dtype, odd
// shapes and strides (negative and zero), every elementwise op, NaN
// propagation, conversion edge cases (single rounding from f64, integer
// rounding past 2^53, saturation, wrapping) and malformed arguments.

#include "harness.h"

static const embrtDtype kAllDtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16,
                                        EMBRT_I32, EMBRT_I64, EMBRT_F64,
                                        EMBRT_I8};
static const embrtDtype kFloatDtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16,
                                          EMBRT_F64};

static void *randomBytes(Rng *rng, size_t bytes) {
  unsigned char *p = malloc(bytes ? bytes : 1);
  for (size_t i = 0; i < bytes; ++i)
    p[i] = (unsigned char)rngNext(rng);
  return p;
}

//===----------------------------------------------------------------------===//
// Concat and strided copy
//===----------------------------------------------------------------------===//

static void testConcat(embrtContext *ctx, Rng *rng) {
  for (int round = 0; round < 60; ++round) {
    TEST_CASE("concat");
    embrtDtype dtype = kAllDtypes[round % 7];
    size_t es = embrtDtypeSize(dtype);
    int64_t numInputs = rngInt(rng, 1, 6);
    int64_t outer = rngInt(rng, 1, 5), inner = rngInt(rng, 1, 6);
    if (round % 10 == 9)
      outer = 0;
    int64_t sizes[6], total = 0;
    void *inputs[6];
    for (int64_t i = 0; i < numInputs; ++i) {
      sizes[i] = rngInt(rng, 0, 5); // zero-size inputs included
      total += sizes[i];
      inputs[i] = randomBytes(rng, (size_t)(outer * sizes[i] * inner) * es);
    }
    void *out = poisoned((size_t)(outer * total * inner) * es);
    embrtConcatArgs a = {
        sizeof a, dtype, numInputs, (const void *const *)inputs,
        sizes,    outer, inner,     out};
    EXPECT_STATUS(embrtConcat(ctx, &a), EMBRT_OK, ctx);
    for (int64_t o = 0; o < outer; ++o) {
      int64_t column = 0;
      for (int64_t i = 0; i < numInputs; ++i) {
        size_t bytes = (size_t)(sizes[i] * inner) * es;
        EXPECT_TRUE(memcmp((char *)out + ((o * total + column) * inner) * es,
                           (char *)inputs[i] + o * bytes, bytes) == 0);
        column += sizes[i];
      }
    }
    for (int64_t i = 0; i < numInputs; ++i)
      free(inputs[i]);
    free(out);
  }

  TEST_CASE("concat invalid");
  float x[4] = {1, 2, 3, 4}, out[8];
  const void *inputs[2] = {x, NULL};
  int64_t sizes[2] = {2, 2};
  embrtConcatArgs a = {sizeof a, EMBRT_F32, 2, inputs, sizes, 1, 2, out};
  EXPECT_STATUS(embrtConcat(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "concat: inputs[1] is NULL");
  sizes[1] = -1;
  EXPECT_STATUS(embrtConcat(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "concat: inputDimSizes[1] is -1, must be >= 0");
  sizes[1] = 0; // an empty input may be NULL
  EXPECT_STATUS(embrtConcat(ctx, &a), EMBRT_OK, ctx);
  a.inputDimSizes = NULL;
  EXPECT_STATUS(embrtConcat(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "concat: inputDimSizes is NULL");
  embrtContextClearError(ctx);
}

static void testStridedCopy(embrtContext *ctx, Rng *rng) {
  for (int round = 0; round < 80; ++round) {
    TEST_CASE("strided_copy");
    embrtDtype dtype = kAllDtypes[round % 7];
    size_t es = embrtDtypeSize(dtype);
    embrtStridedCopyArgs a;
    memset(&a, 0, sizeof a);
    a.structSize = sizeof a;
    a.dtype = dtype;
    a.rank = rngInt(rng, 0, 5);
    // Strides in -7..7 (zero broadcasts); the offset keeps the window in
    // range.
    int64_t low = 0, high = 0, count = 1;
    for (int64_t d = 0; d < a.rank; ++d) {
      a.sizes[d] = rngInt(rng, 1, 5);
      a.inputStrides[d] = rngInt(rng, -7, 8);
      int64_t reach = (a.sizes[d] - 1) * a.inputStrides[d];
      if (reach < 0)
        low += reach;
      else
        high += reach;
      count *= a.sizes[d];
    }
    a.inputOffset = -low + rngInt(rng, 0, 3);
    int64_t inputElements = a.inputOffset + high + 1;
    void *input = randomBytes(rng, (size_t)inputElements * es);
    void *out = poisoned((size_t)count * es);
    a.input = input;
    a.output = out;
    EXPECT_STATUS(embrtStridedCopy(ctx, &a), EMBRT_OK, ctx);
    for (int64_t n = 0; n < count; ++n) {
      int64_t rest = n, source = a.inputOffset;
      for (int64_t d = a.rank - 1; d >= 0; --d) {
        source += (rest % a.sizes[d]) * a.inputStrides[d];
        rest /= a.sizes[d];
      }
      if (memcmp((char *)out + n * es, (char *)input + source * es, es)) {
        HARNESS_FAIL("element %lld is not input element %lld", (long long)n,
                     (long long)source);
        break;
      }
    }
    free(input);
    free(out);
  }

  TEST_CASE("strided_copy invalid");
  float x[8], out[8];
  embrtStridedCopyArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a, a.dtype = EMBRT_F32, a.rank = 2;
  a.sizes[0] = 2, a.sizes[1] = 2;
  a.inputStrides[0] = -4, a.inputStrides[1] = 1;
  a.inputOffset = 3, a.input = x, a.output = out;
  EXPECT_STATUS(embrtStridedCopy(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "strided_copy: the window reaches before the start");
  a.inputOffset = 4;
  EXPECT_STATUS(embrtStridedCopy(ctx, &a), EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(out, x + 4, 2 * sizeof(float)) == 0);
  a.rank = 9;
  EXPECT_STATUS(embrtStridedCopy(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "strided_copy: rank is 9, must be in 0..8");
  a.rank = 1, a.sizes[0] = -1;
  EXPECT_STATUS(embrtStridedCopy(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "sizes[0] is -1");
  // INT64_MIN has no magnitude: refused, never negated.
  a.rank = 1, a.sizes[0] = 2, a.inputStrides[0] = INT64_MIN;
  EXPECT_STATUS(embrtStridedCopy(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "strided_copy: inputStrides[0] is too large");
  embrtContextClearError(ctx);

  // A dim of one element may have any stride (the window does not move
  // along it): the copy never steps past the window, where it would
  // overflow.
  TEST_CASE("strided_copy huge stride of a dim of one");
  for (int i = 0; i < 8; ++i)
    x[i] = (float)i + 0.5f, out[i] = -1.0f;
  a.rank = 2, a.sizes[0] = 3, a.sizes[1] = 1;
  a.inputStrides[0] = 2, a.inputStrides[1] = INT64_MAX;
  a.inputOffset = 1;
  EXPECT_STATUS(embrtStridedCopy(ctx, &a), EMBRT_OK, ctx);
  EXPECT_TRUE(out[0] == 1.5f && out[1] == 3.5f && out[2] == 5.5f);
  EXPECT_TRUE(out[3] == -1.0f);
  embrtContextClearError(ctx);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

static double refBinary(embrtBinaryOp op, double a, double b) {
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
    return isnan(a) || isnan(b) ? NAN : fmax(a, b);
  case EMBRT_BINARY_MIN:
    return isnan(a) || isnan(b) ? NAN : fmin(a, b);
  }
  return NAN;
}

static double refUnary(embrtUnaryOp op, double x) {
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
    return x > 0 ? x : 0.0;
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

/// Unary ops whose domain is the positive numbers.
static int needsPositive(embrtUnaryOp op) {
  return op == EMBRT_UNARY_SQRT || op == EMBRT_UNARY_RSQRT ||
         op == EMBRT_UNARY_LOG;
}

static void testElementwise(embrtContext *ctx, Rng *rng) {
  const int64_t n = 301;
  for (int d = 0; d < 4; ++d) {
    embrtDtype dtype = kFloatDtypes[d];
    size_t es = embrtDtypeSize(dtype);
    double tol = harnessTolerance(dtype, dtype);
    for (int op = 0; op <= EMBRT_BINARY_MIN + 1 + EMBRT_UNARY_ABS; ++op) {
      int isUnary = op > EMBRT_BINARY_MIN;
      embrtBinaryOp binaryOp = isUnary ? EMBRT_BINARY_ADD : (embrtBinaryOp)op;
      embrtUnaryOp unaryOp =
          isUnary ? (embrtUnaryOp)(op - EMBRT_BINARY_MIN - 1) : EMBRT_UNARY_NEG;
      TEST_CASE(isUnary ? "elementwise unary" : "elementwise binary");
      void *a = randomTensor(rng, dtype, n);
      void *b = isUnary ? NULL : randomTensor(rng, dtype, n);
      if (isUnary && needsPositive(unaryOp))
        for (int64_t i = 0; i < n; ++i)
          refStore(a, dtype, i, fabs(refLoad(a, dtype, i)));
      void *out = poisoned((size_t)n * es);
      embrtElementwiseArgs args = {sizeof args, dtype, n, isUnary, binaryOp,
                                   unaryOp,     a,     b, out};
      EXPECT_STATUS(embrtElementwise(ctx, &args), EMBRT_OK, ctx);
      for (int64_t i = 0; i < n; ++i) {
        double x = refLoad(a, dtype, i), y = b ? refLoad(b, dtype, i) : 0.0;
        double ref = isUnary ? refUnary(unaryOp, x) : refBinary(binaryOp, x, y);
        if (!EXPECT_NEAR("output", i, refLoad(out, dtype, i), ref, 0.0, tol))
          break;
      }
      // In place: the output may be `a`.
      TEST_CASE("elementwise in place");
      memcpy(out, a, (size_t)n * es);
      args.a = out;
      EXPECT_STATUS(embrtElementwise(ctx, &args), EMBRT_OK, ctx);
      for (int64_t i = 0; i < n; ++i) {
        double x = refLoad(a, dtype, i), y = b ? refLoad(b, dtype, i) : 0.0;
        double ref = isUnary ? refUnary(unaryOp, x) : refBinary(binaryOp, x, y);
        if (!EXPECT_NEAR("output", i, refLoad(out, dtype, i), ref, 0.0, tol))
          break;
      }
      free(a);
      free(b);
      free(out);
    }
  }

  TEST_CASE("max and min propagate NaN");
  float a[3] = {NAN, 1.0f, 2.0f}, b[3] = {1.0f, NAN, 3.0f}, out[3];
  embrtElementwiseArgs args = {sizeof args, EMBRT_F32, 3, 0,  EMBRT_BINARY_MAX,
                               0,           a,         b, out};
  EXPECT_STATUS(embrtElementwise(ctx, &args), EMBRT_OK, ctx);
  EXPECT_TRUE(isnan(out[0]) && isnan(out[1]) && out[2] == 3.0f);
  args.binaryOp = EMBRT_BINARY_MIN;
  EXPECT_STATUS(embrtElementwise(ctx, &args), EMBRT_OK, ctx);
  EXPECT_TRUE(isnan(out[0]) && isnan(out[1]) && out[2] == 2.0f);

  TEST_CASE("elementwise on integers wraps like arith");
  {
    int32_t ia[4] = {INT32_MAX, -7, 5, INT32_MIN};
    int32_t ib[4] = {1, 3, -9, 2};
    int32_t io[4];
    embrtElementwiseArgs ints = {
        sizeof ints, EMBRT_I32, 4, 0, EMBRT_BINARY_ADD, 0, ia, ib, io};
    EXPECT_STATUS(embrtElementwise(ctx, &ints), EMBRT_OK, ctx);
    EXPECT_TRUE(io[0] == INT32_MIN && io[1] == -4 && io[2] == -4 &&
                io[3] == INT32_MIN + 2);
    ints.binaryOp = EMBRT_BINARY_MUL;
    EXPECT_STATUS(embrtElementwise(ctx, &ints), EMBRT_OK, ctx);
    EXPECT_TRUE(io[0] == INT32_MAX && io[1] == -21 && io[2] == -45 &&
                io[3] == 0);
    ints.binaryOp = EMBRT_BINARY_MAX;
    EXPECT_STATUS(embrtElementwise(ctx, &ints), EMBRT_OK, ctx);
    EXPECT_TRUE(io[0] == INT32_MAX && io[1] == 3 && io[2] == 5 && io[3] == 2);
    int64_t la[3] = {INT64_MIN, -4, 9}, lo[3];
    embrtElementwiseArgs longs = {
        sizeof longs,    EMBRT_I64, 3,    1, EMBRT_BINARY_ADD,
        EMBRT_UNARY_ABS, la,        NULL, lo};
    EXPECT_STATUS(embrtElementwise(ctx, &longs), EMBRT_OK, ctx);
    EXPECT_TRUE(lo[0] == INT64_MIN && lo[1] == 4 && lo[2] == 9);
    longs.unaryOp = EMBRT_UNARY_EXP;
    EXPECT_STATUS(embrtElementwise(ctx, &longs), EMBRT_INVALID_ARGUMENT, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                    "elementwise: i64 takes add, sub, mul, max, min, neg and "
                    "abs only");
    ints.binaryOp = EMBRT_BINARY_DIV;
    EXPECT_STATUS(embrtElementwise(ctx, &ints), EMBRT_INVALID_ARGUMENT, ctx);
    embrtContextClearError(ctx);
  }

  TEST_CASE("elementwise invalid");
  args.dtype = EMBRT_I8;
  EXPECT_STATUS(embrtElementwise(ctx, &args), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(
      embrtContextGetLastError(ctx),
      "elementwise: dtype is i8, must be f32, f16, bf16, f64, i32 or i64");
  args.dtype = EMBRT_F32;
  args.binaryOp = (embrtBinaryOp)6;
  EXPECT_STATUS(embrtElementwise(ctx, &args), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "binaryOp is 6");
  args.isUnary = 1;
  args.unaryOp = EMBRT_UNARY_EXP;
  EXPECT_STATUS(embrtElementwise(ctx, &args), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "elementwise: b must be NULL for a unary op");
  args.isUnary = 0, args.binaryOp = EMBRT_BINARY_ADD, args.b = NULL;
  EXPECT_STATUS(embrtElementwise(ctx, &args), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "elementwise: b is NULL");
  embrtContextClearError(ctx);
}

//===----------------------------------------------------------------------===//
// Fill and convert
//===----------------------------------------------------------------------===//

static void testFill(embrtContext *ctx, Rng *rng) {
  for (int d = 0; d < 7; ++d) {
    TEST_CASE("fill");
    embrtDtype dtype = kAllDtypes[d];
    size_t es = embrtDtypeSize(dtype);
    unsigned char value[8];
    for (size_t i = 0; i < es; ++i)
      value[i] = (unsigned char)rngInt(rng, 1, 255);
    int64_t n = rngInt(rng, 1, 100);
    unsigned char *out = poisoned((size_t)n * es);
    EXPECT_STATUS(embrtFill(ctx, out, dtype, n, value), EMBRT_OK, ctx);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_TRUE(memcmp(out + i * es, value, es) == 0);
    free(out);
  }
  TEST_CASE("fill invalid");
  float out[2];
  EXPECT_STATUS(embrtFill(ctx, out, EMBRT_F32, 2, NULL), EMBRT_INVALID_ARGUMENT,
                ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "fill: value is NULL");
  EXPECT_STATUS(embrtFill(ctx, NULL, EMBRT_F32, 2, out), EMBRT_INVALID_ARGUMENT,
                ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "fill: output is NULL");
  EXPECT_STATUS(embrtFill(ctx, out, EMBRT_F32, -1, out), EMBRT_INVALID_ARGUMENT,
                ctx);
  EXPECT_STATUS(embrtFill(ctx, NULL, EMBRT_F32, 0, out), EMBRT_OK, ctx);
  embrtContextClearError(ctx);
}

static int isInteger(embrtDtype dtype) {
  return dtype == EMBRT_I32 || dtype == EMBRT_I64 || dtype == EMBRT_I8;
}

/// The largest finite value and the ulp-rounding check of a float target.
static int isNearestFloat(embrtDtype dtype, const void *out, double x) {
  double got = refLoad(out, dtype, 0);
  if (dtype == EMBRT_F64)
    return got == x;
  if (dtype == EMBRT_F32)
    return got == (double)(float)x; // one rounding from double in C
  uint16_t bits = ((const uint16_t *)out)[0];
  double (*decode)(uint16_t) =
      dtype == EMBRT_F16 ? refF16ToDouble : refBF16ToDouble;
  for (int step = -1; step <= 1; step += 2) {
    uint16_t neighbour = (uint16_t)(bits + step);
    double other = decode(neighbour);
    if (isnan(other) || isinf(other) || ((neighbour ^ bits) & 0x8000))
      continue;
    double dGot = fabs(x - got), dOther = fabs(x - other);
    if (dOther < dGot || (dOther == dGot && (bits & 1)))
      return 0;
  }
  return 1;
}

/// Truncation toward zero with saturation, NaN to 0.
static int64_t refToInteger(double x, embrtDtype dtype) {
  double lo = dtype == EMBRT_I8    ? -128.0
              : dtype == EMBRT_I32 ? -2147483648.0
                                   : -0x1p63;
  double hi = dtype == EMBRT_I8    ? 127.0
              : dtype == EMBRT_I32 ? 2147483647.0
                                   : 0x1p63;
  if (isnan(x))
    return 0;
  if (x <= lo)
    return (int64_t)lo;
  if (x >= hi)
    return dtype == EMBRT_I64 ? INT64_MAX : (int64_t)hi;
  return (int64_t)trunc(x);
}

/// An integer of `dtype` read back as int64.
static int64_t loadInt(const void *p, embrtDtype dtype) {
  return dtype == EMBRT_I8    ? ((const int8_t *)p)[0]
         : dtype == EMBRT_I32 ? ((const int32_t *)p)[0]
                              : ((const int64_t *)p)[0];
}

static void testConvertRandom(embrtContext *ctx, Rng *rng) {
  const int64_t n = 200;
  for (int from = 0; from < 7; ++from)
    for (int to = 0; to < 7; ++to) {
      TEST_CASE("convert");
      embrtDtype in = kAllDtypes[from], out = kAllDtypes[to];
      void *input = malloc((size_t)n * embrtDtypeSize(in));
      for (int64_t i = 0; i < n; ++i) {
        double value = rngValue(rng) * 60.0; // fractions, both signs
        if (isInteger(in))
          value = (double)rngInt(rng, -120, 121);
        refStore(input, in, i, value);
      }
      unsigned char *output = poisoned((size_t)n * embrtDtypeSize(out));
      EXPECT_STATUS(embrtConvert(ctx, input, in, output, out, n), EMBRT_OK,
                    ctx);
      size_t os = embrtDtypeSize(out);
      for (int64_t i = 0; i < n; ++i) {
        double x = refLoad(input, in, i);
        int ok = isInteger(out)
                     ? loadInt(output + i * os, out) == refToInteger(x, out)
                     : isNearestFloat(out, output + i * os, x);
        if (!ok) {
          HARNESS_FAIL("%s -> %s of %.9g gives %.9g", dtypeLabel(in),
                       dtypeLabel(out), x, refLoad(output, out, i));
          break;
        }
      }
      free(input);
      free(output);
    }
}

static void testConvertEdges(embrtContext *ctx) {
  TEST_CASE("convert f64 -> f16 rounds once");
  double justAboveTie = 1.0 + 0x1p-11 + 0x1p-40; // f32 would make it a tie
  uint16_t h;
  EXPECT_STATUS(embrtConvert(ctx, &justAboveTie, EMBRT_F64, &h, EMBRT_F16, 1),
                EMBRT_OK, ctx);
  EXPECT_EQ_INT(h, 0x3C01);
  EXPECT_STATUS(embrtConvert(ctx, &justAboveTie, EMBRT_F64, &h, EMBRT_BF16, 1),
                EMBRT_OK, ctx);
  EXPECT_EQ_INT(h, 0x3F80);

  TEST_CASE("convert i64 -> bf16 past 2^53");
  // 2^56 + 2^48 + 1: just above the tie between 2^56 and 2^56 + 2^49; a
  // conversion through f64 would drop the 1 and round the tie to even.
  int64_t big[3] = {((int64_t)1 << 56) + ((int64_t)1 << 48) + 1,
                    ((int64_t)1 << 56) + ((int64_t)1 << 48), INT64_MIN};
  uint16_t b[3];
  EXPECT_STATUS(embrtConvert(ctx, big, EMBRT_I64, b, EMBRT_BF16, 3), EMBRT_OK,
                ctx);
  EXPECT_EQ_INT(b[0], 0x5B81);
  EXPECT_EQ_INT(b[1], 0x5B80);
  EXPECT_EQ_INT(b[2], 0xDF00); // -2^63
  float f[3];
  EXPECT_STATUS(embrtConvert(ctx, big, EMBRT_I64, f, EMBRT_F32, 3), EMBRT_OK,
                ctx);
  EXPECT_TRUE(f[0] == 0x1.01p56f && f[1] == 0x1.01p56f && f[2] == -0x1p63f);

  TEST_CASE("convert integers to f16");
  int32_t ints[3] = {65519, 65520, -70000};
  uint16_t hs[3];
  EXPECT_STATUS(embrtConvert(ctx, ints, EMBRT_I32, hs, EMBRT_F16, 3), EMBRT_OK,
                ctx);
  EXPECT_EQ_INT(hs[0], 0x7BFF);
  EXPECT_EQ_INT(hs[1], 0x7C00);
  EXPECT_EQ_INT(hs[2], 0xFC00);

  TEST_CASE("convert floats to integers saturates");
  float fl[7] = {3.9f, -3.9f, 1e10f, -1e10f, NAN, 200.5f, -129.0f};
  int32_t i32[7];
  int8_t i8[7];
  int64_t i64[7];
  EXPECT_STATUS(embrtConvert(ctx, fl, EMBRT_F32, i32, EMBRT_I32, 7), EMBRT_OK,
                ctx);
  EXPECT_STATUS(embrtConvert(ctx, fl, EMBRT_F32, i8, EMBRT_I8, 7), EMBRT_OK,
                ctx);
  EXPECT_STATUS(embrtConvert(ctx, fl, EMBRT_F32, i64, EMBRT_I64, 7), EMBRT_OK,
                ctx);
  const int32_t want32[7] = {3, -3, INT32_MAX, INT32_MIN, 0, 200, -129};
  const int8_t want8[7] = {3, -3, 127, -128, 0, 127, -128};
  const int64_t want64[7] = {3, -3,  10000000000LL, -10000000000LL,
                             0, 200, -129};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ_INT(i32[i], want32[i]);
    EXPECT_EQ_INT(i8[i], want8[i]);
    EXPECT_EQ_INT(i64[i], want64[i]);
  }
  double huge[2] = {1e300, -1e300};
  EXPECT_STATUS(embrtConvert(ctx, huge, EMBRT_F64, i64, EMBRT_I64, 2), EMBRT_OK,
                ctx);
  EXPECT_TRUE(i64[0] == INT64_MAX && i64[1] == INT64_MIN);

  TEST_CASE("convert integers wrap");
  int64_t wide[3] = {0x100000005LL, -1, 300};
  int32_t narrow[3];
  int8_t bytes[3];
  EXPECT_STATUS(embrtConvert(ctx, wide, EMBRT_I64, narrow, EMBRT_I32, 3),
                EMBRT_OK, ctx);
  EXPECT_STATUS(embrtConvert(ctx, wide, EMBRT_I64, bytes, EMBRT_I8, 3),
                EMBRT_OK, ctx);
  EXPECT_TRUE(narrow[0] == 5 && narrow[1] == -1 && narrow[2] == 300);
  EXPECT_TRUE(bytes[0] == 5 && bytes[1] == -1 && bytes[2] == 44);

  TEST_CASE("convert NaN and infinity between floats");
  float special[3] = {NAN, INFINITY, -INFINITY};
  uint16_t sh[3];
  EXPECT_STATUS(embrtConvert(ctx, special, EMBRT_F32, sh, EMBRT_BF16, 3),
                EMBRT_OK, ctx);
  EXPECT_TRUE(isnan(refBF16ToDouble(sh[0])));
  EXPECT_EQ_INT(sh[1], 0x7F80);
  EXPECT_EQ_INT(sh[2], 0xFF80);

  TEST_CASE("convert invalid");
  EXPECT_STATUS(embrtConvert(ctx, fl, (embrtDtype)9, i32, EMBRT_I32, 1),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "convert: inputDtype is 9");
  EXPECT_STATUS(embrtConvert(ctx, fl, EMBRT_F32, NULL, EMBRT_I32, 1),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "convert: output is NULL");
  embrtContextClearError(ctx);
}

int main(void) {
  Rng rng = rngSeed(0xDA7A);
  embrtContext *ctx = newCpuContext();
  testConcat(ctx, &rng);
  testStridedCopy(ctx, &rng);
  testElementwise(ctx, &rng);
  testFill(ctx, &rng);
  testConvertRandom(ctx, &rng);
  testConvertEdges(ctx);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
