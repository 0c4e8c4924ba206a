// RUN: %runtime_test_dir/quantize
//
// Quantized tables on the CPU: the row sizes of every precision, packed
// rows checked byte by byte against rows worked out by hand (FBGEMM's
// IntNBit layout), every e4m3 code, the quantization error bounds on random
// rows, embrtTbeForward over int8/int4/int2/fp8 and dense tables in one
// lookup against a reference that decodes the rows itself, and the errors:
// bad precisions and widths, a quantized table in the backward, non-finite
// rows.

#include "harness.h"

static const char *dtypeName(embrtDtype dt) {
  return dt == EMBRT_F16 ? "f16" : dt == EMBRT_BF16 ? "bf16" : "f32";
}

//===----------------------------------------------------------------------===//
// A reference decoder, written apart from runtime/quantize.c
//===----------------------------------------------------------------------===//

static int bitsOf(embrtTablePrecision p) {
  return p == EMBRT_PRECISION_INT4 ? 4 : p == EMBRT_PRECISION_INT2 ? 2 : 8;
}

/// The e4m3 value of `code`: sign, 4 exponent bits (bias 7), 3 mantissa
/// bits; exponent 0 is subnormal (m/8 * 2^-6).
static double refE4M3(uint8_t code) {
  int e = (code >> 3) & 15, m = code & 7;
  double v =
      e == 0 ? m / 8.0 * ldexp(1.0, -6) : (1 + m / 8.0) * ldexp(1.0, e - 7);
  return (code & 0x80) ? -v : v;
}

/// Element d of packed row `row`, as the format defines it.
static double refElement(embrtTablePrecision p, const uint8_t *row, int64_t d) {
  if (p == EMBRT_PRECISION_FP8) {
    float scale;
    memcpy(&scale, row, 4);
    return (double)(float)(refE4M3(row[4 + d]) * scale);
  }
  int bits = bitsOf(p);
  uint16_t s, b;
  memcpy(&s, row, 2);
  memcpy(&b, row + 2, 2);
  int perByte = 8 / bits;
  unsigned q =
      (row[4 + d / perByte] >> ((d % perByte) * bits)) & ((1u << bits) - 1);
  // One rounding to f32 of scale * q + bias (fmaf).
  return (double)(float)(refF16ToDouble(s) * q + refF16ToDouble(b));
}

//===----------------------------------------------------------------------===//
// Row sizes and hand-made rows
//===----------------------------------------------------------------------===//

static void testRowBytes(void) {
  TEST_CASE("row bytes");
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_INT4, 128), 80); // 68
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_INT8, 128), 144);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_INT2, 8), 16);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_FP8, 12), 16);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_FP8, 13), 32);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_INT8, 2048), 2064);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_INT4, 3), -1);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_INT2, 6), -1);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_INT8, 0), -1);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_INT8, 2049), -1);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(EMBRT_PRECISION_DENSE, 8), -1);
  EXPECT_EQ_INT(embrtQuantizedRowBytes((embrtTablePrecision)9, 8), -1);
  EXPECT_TRUE(strcmp(embrtTablePrecisionName(EMBRT_PRECISION_INT4), "int4") ==
              0);
}

/// Quantizes `n` f32 values as one row and compares the bytes with `want`.
static void expectRow(embrtContext *ctx, embrtTablePrecision p, const float *x,
                      int64_t n, const uint8_t *want, int64_t wantBytes) {
  uint8_t row[64];
  memset(row, 0xAB, sizeof row);
  embrtQuantizeTableArgs a = {sizeof a, p, 1, n, x, EMBRT_F32, row};
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_OK, ctx);
  EXPECT_EQ_INT(embrtQuantizedRowBytes(p, n), wantBytes);
  for (int64_t i = 0; i < wantBytes; ++i)
    if (row[i] != want[i]) {
      HARNESS_FAIL("byte %lld is 0x%02x, expected 0x%02x", (long long)i, row[i],
                   want[i]);
      return;
    }
}

static void testHandRows(embrtContext *ctx) {
  // int4: 0, 0.5, ..., 7.5: bias 0, scale 7.5 / 15 = 0.5 (f16 0x3800), q =
  // d; element 2k in the low nibble of byte k.
  TEST_CASE("int4 row");
  float x4[16];
  for (int i = 0; i < 16; ++i)
    x4[i] = 0.5f * (float)i;
  uint8_t w4[16] = {0x00, 0x38, 0x00, 0x00, 0x10, 0x32, 0x54, 0x76,
                    0x98, 0xba, 0xdc, 0xfe, 0,    0,    0,    0};
  expectRow(ctx, EMBRT_PRECISION_INT4, x4, 16, w4, 16);

  // int2: 1, 2, 3, 4: bias 1 (0x3c00), scale 3 / 3 = 1 (0x3c00), q = 0..3.
  TEST_CASE("int2 row");
  float x2[4] = {1, 2, 3, 4};
  uint8_t w2[16] = {0x00, 0x3c, 0x00, 0x3c, 0xe4};
  expectRow(ctx, EMBRT_PRECISION_INT2, x2, 4, w2, 16);

  // int8: -1 .. 1.55 in steps of 0.01: bias -1 (0xbc00); scale 2.55 / 255 =
  // 0.01 rounds to f16 0x211f (0.0099945068...), so q = round((x + 1) /
  // 0.0099945) is d except where the rounding moves it: 0, 100, 255 pinned.
  TEST_CASE("int8 row");
  float x8[3] = {-1.0f, 0.0f, 1.55f};
  uint8_t row[32];
  embrtQuantizeTableArgs a = {
      sizeof a, EMBRT_PRECISION_INT8, 1, 3, x8, EMBRT_F32, row};
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_OK, ctx);
  uint16_t scale, bias;
  memcpy(&scale, row, 2);
  memcpy(&bias, row + 2, 2);
  EXPECT_EQ_INT(scale, 0x211f);
  EXPECT_EQ_INT(bias, 0xbc00);
  EXPECT_EQ_INT(row[4], 0);
  EXPECT_EQ_INT(row[5], 100); // 1 / 0.0099945 = 100.05
  EXPECT_EQ_INT(row[6], 255); // 2.55 / 0.0099945 = 255.14, clamped
  for (int i = 7; i < 16; ++i)
    EXPECT_EQ_INT(row[i], 0);

  // A constant row: scale 1, every q 0, the bias the value (f16-rounded).
  TEST_CASE("constant int8 row");
  float xc[2] = {3.0f, 3.0f};
  uint8_t wc[16] = {0x00, 0x3c, 0x00, 0x42};
  expectRow(ctx, EMBRT_PRECISION_INT8, xc, 2, wc, 16);

  // fp8: max |x| = 448 gives scale 1; 448, -448, 1, 0.5, 2^-9, 0.
  TEST_CASE("fp8 row");
  float xf[6] = {448.0f, -448.0f, 1.0f, 0.5f, 0x1p-9f, 0.0f};
  uint8_t wf[16] = {0x00, 0x00, 0x80, 0x3f, 0x7e, 0xfe, 0x38, 0x30, 0x01};
  expectRow(ctx, EMBRT_PRECISION_FP8, xf, 6, wf, 16);
}

/// Every finite e4m3 code decodes as the format says and encodes back to
/// itself; midpoints round to the even code; large values saturate.
static void testE4M3(embrtContext *ctx) {
  TEST_CASE("e4m3 codes");
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7f) == 0x7f)
      continue; // NaN
    // A one-row fp8 table whose scale is 1: put 448 in to pin the scale.
    float x[2] = {448.0f, (float)refE4M3((uint8_t)code)};
    uint8_t row[16];
    embrtQuantizeTableArgs a = {sizeof a, EMBRT_PRECISION_FP8, 1,  2,
                                x,        EMBRT_F32,           row};
    EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_OK, ctx);
    uint8_t want = (uint8_t)(code == 0x80 ? 0x80 : code);
    if (row[5] != want)
      HARNESS_FAIL("e4m3 %g encodes as 0x%02x, expected 0x%02x",
                   refE4M3((uint8_t)code), row[5], want);
    float back;
    embrtQuantizeTableArgs d = {sizeof d, EMBRT_PRECISION_FP8, 1, 2,
                                row,      EMBRT_F32,           x};
    EXPECT_STATUS(embrtDequantizeTable(ctx, &d), EMBRT_OK, ctx);
    back = x[1];
    if ((double)back != refE4M3((uint8_t)code))
      HARNESS_FAIL("e4m3 0x%02x decodes as %g, expected %g", code, back,
                   refE4M3((uint8_t)code));
  }
  TEST_CASE("e4m3 rounding");
  // Midpoints between neighbours: 1.0625 (1, 1.125) -> 1 (even), 1.1875
  // (1.125, 1.25) -> 1.25 (even); subnormal 1.5 * 2^-9 -> 2 * 2^-9; 460 ->
  // 448 (saturated).
  float x[5] = {448.0f, 1.0625f, 1.1875f, 1.5f * 0x1p-9f, 447.0f};
  uint8_t row[16];
  embrtQuantizeTableArgs a = {sizeof a, EMBRT_PRECISION_FP8, 1,  5,
                              x,        EMBRT_F32,           row};
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_OK, ctx);
  EXPECT_EQ_INT(row[5], 0x38);
  EXPECT_EQ_INT(row[6], 0x3a);
  EXPECT_EQ_INT(row[7], 0x02);
  EXPECT_EQ_INT(row[8], 0x7e); // 447 is nearer 448 than 416
}

//===----------------------------------------------------------------------===//
// Random rows: error bounds and the dequantized table
//===----------------------------------------------------------------------===//

static void testErrorBounds(embrtContext *ctx) {
  static const embrtTablePrecision precisions[] = {
      EMBRT_PRECISION_INT8, EMBRT_PRECISION_INT4, EMBRT_PRECISION_INT2,
      EMBRT_PRECISION_FP8};
  static const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  Rng rng = rngSeed(39);
  for (int pi = 0; pi < 4; ++pi)
    for (int di = 0; di < 3; ++di) {
      embrtTablePrecision p = precisions[pi];
      embrtDtype dt = dtypes[di];
      char name[64];
      snprintf(name, sizeof name, "error bound %s from %s",
               embrtTablePrecisionName(p), dtypeName(dt));
      TEST_CASE(name);
      int64_t rows = 37, D = 24, rb = embrtQuantizedRowBytes(p, D);
      void *x = randomTensor(&rng, dt, rows * D);
      for (int64_t i = 0; i < D; ++i) // a constant row and a zero row
        refStore(x, dt, 3 * D + i, 0.75), refStore(x, dt, 4 * D + i, 0.0);
      uint8_t *q = poisoned((size_t)(rows * rb));
      void *back = poisoned((size_t)(rows * D) * embrtDtypeSize(dt));
      embrtQuantizeTableArgs a = {sizeof a, p, rows, D, x, dt, q};
      EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_OK, ctx);
      embrtQuantizeTableArgs d = {sizeof d, p, rows, D, q, dt, back};
      EXPECT_STATUS(embrtDequantizeTable(ctx, &d), EMBRT_OK, ctx);
      for (int64_t r = 0; r < rows; ++r) {
        const uint8_t *row = q + r * rb;
        double lo = INFINITY, hi = -INFINITY, amax = 0;
        for (int64_t i = 0; i < D; ++i) {
          double v = refLoad(x, dt, r * D + i);
          lo = fmin(lo, v), hi = fmax(hi, v), amax = fmax(amax, fabs(v));
        }
        for (int64_t i = rb - 1; i >= 4 + D * bitsOf(p) / 8; --i)
          if (row[i] != 0)
            HARNESS_FAIL("row %lld padding byte %lld is 0x%02x", (long long)r,
                         (long long)i, row[i]);
        for (int64_t i = 0; i < D; ++i) {
          double v = refLoad(x, dt, r * D + i), got = refElement(p, row, i);
          // intN: half a step of (hi - lo) / levels, plus the f16 rounding
          // of scale and bias; fp8: half an e4m3 ulp (2^-4 relative) above
          // the subnormals, which step by amax/448 * 2^-9.
          double bound = p == EMBRT_PRECISION_FP8
                             ? fabs(v) * 0x1p-4 + amax / 448 * 0x1p-10 + 1e-12
                             : (hi - lo) / ((1 << bitsOf(p)) - 1) * 0.5 * 1.01 +
                                   (fabs(lo) + (hi - lo)) * 0x1p-10;
          if (fabs(got - v) > bound) {
            HARNESS_FAIL("row %lld col %lld: %g reads as %g (bound %g)",
                         (long long)r, (long long)i, v, got, bound);
            r = rows;
            break;
          }
          double dq = refLoad(back, dt, r * D + i);
          // The dequantized table rounds once to its dtype.
          double one[1];
          refStore(one, dt, 0, got);
          double want = refLoad(one, dt, 0);
          if (dq != want) {
            HARNESS_FAIL("dequantized row %lld col %lld is %g, expected %g",
                         (long long)r, (long long)i, dq, want);
            r = rows;
            break;
          }
        }
      }
      free(x);
      free(q);
      free(back);
    }
}

//===----------------------------------------------------------------------===//
// The lookup
//===----------------------------------------------------------------------===//

enum { T = 5, F = 6, B = 7 };

typedef struct Lookup {
  int64_t precisions[T];
  int64_t rows[T], dims[T], featureTables[F];
  void *tables[T];
  int64_t rowBytes[T];
  int64_t offsets[F * B + 1];
  int64_t *ids;
  float *psw;
  int64_t N;
} Lookup;

/// Tables: int8 D 16, int4 D 8, int2 D 12, fp8 D 5, dense f16 D 4; feature
/// 5 reads table 1 again. Random ids, some out of range, some padding,
/// empty bags.
static void makeLookup(Rng *rng, Lookup *lk) {
  static const int64_t ps[T] = {EMBRT_PRECISION_INT8, EMBRT_PRECISION_INT4,
                                EMBRT_PRECISION_INT2, EMBRT_PRECISION_FP8,
                                EMBRT_PRECISION_DENSE};
  static const int64_t dims[T] = {16, 8, 12, 5, 4};
  static const int64_t rows[T] = {11, 9, 13, 6, 8};
  static const int64_t ft[F] = {0, 1, 2, 3, 4, 1};
  memcpy(lk->precisions, ps, sizeof ps);
  memcpy(lk->dims, dims, sizeof dims);
  memcpy(lk->rows, rows, sizeof rows);
  memcpy(lk->featureTables, ft, sizeof ft);
  for (int t = 0; t < T; ++t) {
    void *dense = randomTensor(rng, EMBRT_F32, rows[t] * dims[t]);
    if (ps[t] == EMBRT_PRECISION_DENSE) {
      lk->tables[t] = randomTensor(rng, EMBRT_F16, rows[t] * dims[t]);
      lk->rowBytes[t] = dims[t] * 2;
      free(dense);
      continue;
    }
    lk->rowBytes[t] =
        embrtQuantizedRowBytes((embrtTablePrecision)ps[t], dims[t]);
    lk->tables[t] = malloc((size_t)(rows[t] * lk->rowBytes[t]));
    embrtContext *ctx = NULL;
    embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &ctx);
    embrtQuantizeTableArgs a = {sizeof a,     (embrtTablePrecision)ps[t],
                                rows[t],      dims[t],
                                dense,        EMBRT_F32,
                                lk->tables[t]};
    EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_OK, ctx);
    embrtContextDestroy(ctx);
    free(dense);
  }
  lk->N = 0;
  lk->offsets[0] = 0;
  lk->ids = malloc(sizeof(int64_t) * F * B * 6);
  lk->psw = malloc(sizeof(float) * F * B * 6);
  for (int f = 0; f < F; ++f)
    for (int b = 0; b < B; ++b) {
      int64_t len = b == 2 ? 0 : rngInt(rng, 1, 6);
      for (int64_t i = 0; i < len; ++i) {
        int64_t id = rngInt(rng, 0, rows[ft[f]]);
        if (rngInt(rng, 0, 10) == 0)
          id = rows[ft[f]] + 2; // out of range
        if (rngInt(rng, 0, 10) == 0)
          id = 1; // the padding id below
        lk->ids[lk->N] = id;
        lk->psw[lk->N++] = (float)rngValue(rng);
      }
      lk->offsets[f * B + b + 1] = lk->N;
    }
}

/// Row `id` of table t, element d, as the reference reads it.
static double refTable(const Lookup *lk, int t, int64_t id, int64_t d) {
  if (lk->precisions[t] == EMBRT_PRECISION_DENSE)
    return refLoad(lk->tables[t], EMBRT_F16, id * lk->dims[t] + d);
  return refElement((embrtTablePrecision)lk->precisions[t],
                    (const uint8_t *)lk->tables[t] + id * lk->rowBytes[t], d);
}

static embrtTbeArgs lookupArgs(Lookup *lk, embrtPooling pooling,
                               embrtBoundsCheck bounds, int weighted,
                               embrtDtype out, void *output) {
  embrtTbeArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.pooling = pooling;
  a.boundsCheck = bounds;
  a.numTables = T;
  a.tables = (const void *const *)lk->tables;
  a.tableRows = lk->rows;
  a.tableDims = lk->dims;
  a.tableDtype = EMBRT_F16;
  a.tablePrecisions = lk->precisions;
  a.numFeatures = F;
  a.featureTables = lk->featureTables;
  a.batchSize = B;
  a.numIndices = lk->N;
  a.indices = lk->ids;
  a.indexDtype = EMBRT_I64;
  a.offsets = lk->offsets;
  a.offsetDtype = EMBRT_I64;
  a.perSampleWeights = weighted ? lk->psw : NULL;
  a.perSampleWeightDtype = EMBRT_F32;
  a.hasPaddingIdx = 1;
  a.paddingIdx = 1;
  a.output = output;
  a.outputDtype = out;
  a.configId = -1;
  return a;
}

static void testLookup(embrtContext *ctx) {
  Rng rng = rngSeed(4);
  Lookup lk;
  makeLookup(&rng, &lk);
  static const embrtPooling poolings[] = {EMBRT_POOLING_SUM,
                                          EMBRT_POOLING_MEAN};
  static const embrtDtype outs[] = {EMBRT_F32, EMBRT_F16};
  int64_t width = 0;
  for (int f = 0; f < F; ++f)
    width += lk.dims[lk.featureTables[f]];
  for (int pi = 0; pi < 2; ++pi)
    for (int oi = 0; oi < 2; ++oi)
      for (int weighted = 0; weighted <= (pi == 0); ++weighted) {
        char name[64];
        snprintf(name, sizeof name, "lookup %s out %s%s", pi ? "mean" : "sum",
                 dtypeName(outs[oi]), weighted ? " weighted" : "");
        TEST_CASE(name);
        void *out = poisoned((size_t)(B * width) * 4);
        embrtTbeArgs a = lookupArgs(&lk, poolings[pi], EMBRT_BOUNDS_WARNING,
                                    weighted, outs[oi], out);
        EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
        int64_t column = 0;
        for (int f = 0; f < F; ++f) {
          int t = (int)lk.featureTables[f];
          for (int b = 0; b < B; ++b) {
            double acc[16] = {0}, scale[16] = {0};
            int64_t count = 0;
            for (int64_t i = lk.offsets[f * B + b];
                 i < lk.offsets[f * B + b + 1]; ++i) {
              int64_t id = lk.ids[i];
              if (id == 1 || id >= lk.rows[t])
                continue;
              double w = weighted ? lk.psw[i] : 1.0;
              for (int64_t d = 0; d < lk.dims[t]; ++d) {
                acc[d] += w * refTable(&lk, t, id, d);
                scale[d] += fabs(w * refTable(&lk, t, id, d));
              }
              ++count;
            }
            for (int64_t d = 0; d < lk.dims[t]; ++d) {
              double want = acc[d], s = scale[d];
              if (pi == 1)
                want = count ? want / count : 0, s = count ? s / count : 0;
              double got = refLoad(out, outs[oi], b * width + column + d);
              if (!EXPECT_NEAR("output", b * width + column + d, got, want, s,
                               harnessTolerance(outs[oi], EMBRT_F16)))
                goto next;
            }
          }
          column += lk.dims[t];
        }
      next:
        free(out);
      }

  TEST_CASE("lookup none");
  {
    // Pooling none needs one D: features 1 and 5 (int4, D 8) alone.
    int64_t ft[2] = {1, 1}, offs[2 * B + 1];
    int64_t n = lk.offsets[2 * B] - lk.offsets[B];
    for (int i = 0; i <= B; ++i)
      offs[i] = lk.offsets[B + i] - lk.offsets[B];
    for (int i = 1; i <= B; ++i)
      offs[B + i] = n + offs[i];
    int64_t *ids = malloc(sizeof(int64_t) * (size_t)(2 * n));
    memcpy(ids, lk.ids + lk.offsets[B], sizeof(int64_t) * (size_t)n);
    memcpy(ids + n, lk.ids + lk.offsets[B], sizeof(int64_t) * (size_t)n);
    float *out = poisoned((size_t)(2 * n * 8) * 4);
    embrtTbeArgs a = lookupArgs(&lk, EMBRT_POOLING_NONE, EMBRT_BOUNDS_IGNORE, 0,
                                EMBRT_F32, out);
    a.numFeatures = 2;
    a.featureTables = ft;
    a.offsets = offs;
    a.indices = ids;
    a.numIndices = 2 * n;
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
    int ok = 1;
    for (int64_t i = 0; ok && i < 2 * n; ++i)
      for (int64_t d = 0; ok && d < 8; ++d) {
        int64_t id = ids[i];
        double want =
            id == 1 || id >= lk.rows[1] ? 0.0 : refTable(&lk, 1, id, d);
        ok = EXPECT_NEAR("output", i * 8 + d, out[i * 8 + d], want, 0, 0);
      }
    free(ids);
    free(out);
  }

  TEST_CASE("lookup fatal bounds");
  {
    void *out = poisoned((size_t)(B * width) * 4);
    embrtTbeArgs a = lookupArgs(&lk, EMBRT_POOLING_SUM, EMBRT_BOUNDS_FATAL, 0,
                                EMBRT_F32, out);
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx), "is outside table");
    free(out);
  }

  TEST_CASE("bad precision");
  {
    void *out = poisoned((size_t)(B * width) * 4);
    embrtTbeArgs a = lookupArgs(&lk, EMBRT_POOLING_SUM, EMBRT_BOUNDS_IGNORE, 0,
                                EMBRT_F32, out);
    int64_t bad[T];
    memcpy(bad, lk.precisions, sizeof bad);
    bad[2] = 7;
    a.tablePrecisions = bad;
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                    "tablePrecisions[2] is 7, not an embrtTablePrecision");
    TEST_CASE("width int4 packs");
    int64_t dims[T];
    memcpy(dims, lk.dims, sizeof dims);
    dims[1] = 7;
    a.tablePrecisions = lk.precisions;
    a.tableDims = dims;
    EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                    "tableDims[1] is 7, not a multiple of 2, which one byte "
                    "of int4 packs");
    free(out);
  }

  TEST_CASE("backward refuses quantized tables");
  {
    float grad[B * 64];
    for (int i = 0; i < B * 64; ++i)
      grad[i] = 1.0f;
    float hyper[EMBRT_NUM_HYPER_PARAMS] = {0.1f};
    embrtTbeBackwardArgs g;
    memset(&g, 0, sizeof g);
    g.structSize = sizeof g;
    g.lookup = lookupArgs(&lk, EMBRT_POOLING_SUM, EMBRT_BOUNDS_IGNORE, 0,
                          EMBRT_F32, NULL);
    g.gradOutput = grad;
    g.gradDtype = EMBRT_F32;
    g.optimizer = EMBRT_OPTIMIZER_SGD;
    g.hyperParams = hyper;
    size_t bytes = 0;
    EXPECT_STATUS(embrtTbeBackwardWorkspaceSize(ctx, &g, &bytes),
                  EMBRT_UNSUPPORTED, ctx);
    EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                    "table 0 is int8; the backward updates dense tables only");
  }
  for (int t = 0; t < T; ++t)
    free(lk.tables[t]);
  free(lk.ids);
  free(lk.psw);
}

//===----------------------------------------------------------------------===//
// Bad quantize calls
//===----------------------------------------------------------------------===//

static void testBadQuantize(embrtContext *ctx) {
  float x[3 * 8];
  for (int i = 0; i < 24; ++i)
    x[i] = (float)i;
  x[1 * 8 + 5] = NAN;
  uint8_t q[3 * 16];
  memset(q, 0xEE, sizeof q);
  TEST_CASE("nan row");
  embrtQuantizeTableArgs a = {
      sizeof a, EMBRT_PRECISION_INT4, 3, 8, x, EMBRT_F32, q};
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "row 1 column 5 is nan; a quantized table's rows must be "
                  "finite");
  EXPECT_TRUE(q[0] != 0xEE && q[16] == 0xEE && q[32] == 0xEE);
  TEST_CASE("host rows: nan");
  {
    int64_t row = -1, column = -1;
    uint8_t q2[3 * 16];
    embrtQuantizeTableArgs h = {
        sizeof h, EMBRT_PRECISION_INT4, 3, 8, x, EMBRT_F32, q2};
    EXPECT_EQ_INT(embrtQuantizeRows(&h, &row, &column), EMBRT_OUT_OF_RANGE);
    EXPECT_EQ_INT(row, 1);
    EXPECT_EQ_INT(column, 5);
    EXPECT_EQ_INT(memcmp(q2, q, 16), 0); // row 0 as embrtQuantizeTable's
    h.dim = 7;                           // int4 needs an even dim
    EXPECT_EQ_INT(embrtQuantizeRows(&h, NULL, NULL), EMBRT_INVALID_ARGUMENT);
    EXPECT_EQ_INT(embrtDequantizeRows(NULL), EMBRT_INVALID_ARGUMENT);
  }
  TEST_CASE("inf row");
  x[1 * 8 + 5] = -INFINITY;
  a.precision = EMBRT_PRECISION_FP8;
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "row 1 column 5 is infinite");
  TEST_CASE("bad precision");
  a.precision = EMBRT_PRECISION_DENSE;
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "precision is 0, must be int8, int4, int2 or fp8");
  TEST_CASE("bad dim");
  a.precision = EMBRT_PRECISION_INT2;
  a.dim = 6;
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "dim is 6, must be in 1..2048 and a multiple of 4 for int2");
  TEST_CASE("bad dtype");
  a.dim = 8;
  a.denseDtype = EMBRT_I32;
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  TEST_CASE("null output");
  a.denseDtype = EMBRT_F32;
  a.output = NULL;
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  TEST_CASE("no rows");
  a.rows = 0;
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_OK, ctx);
  TEST_CASE("struct size");
  a.structSize = 8;
  EXPECT_STATUS(embrtQuantizeTable(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
}

/// A bag of int rows sums the products scale * q and, apart, the biases:
/// rows (scale 0x2e66 = 0.0999755859375, bias 3072, q 1) and (scale 1, bias
/// 0x3555 = 0.333251953125, q 1). Biases 3072.333251953125 (exact), plus
/// products 1.0999755859375 (exact): 3073.4332275390625, a tie between f32
/// neighbours, to even: 3073.43310546875. Adding each row's
/// fmaf(scale, q, bias) instead gives 3072.10009765625 + 1.333251953125 =
/// 3073.433349609375.
static void testBiasApart(embrtContext *ctx) {
  TEST_CASE("int rows: products and biases summed apart");
  uint8_t rows[2][16] = {{0x66, 0x2e, 0x00, 0x6a, 1},
                         {0x00, 0x3c, 0x55, 0x35, 1}};
  int64_t ids[2] = {0, 1};
  Lookup lk;
  memset(&lk, 0, sizeof lk);
  lk.precisions[0] = EMBRT_PRECISION_INT8;
  lk.rows[0] = 2;
  lk.dims[0] = 1;
  lk.tables[0] = rows;
  lk.offsets[1] = 2;
  lk.ids = ids;
  lk.N = 2;
  float out = -1.0f;
  embrtTbeArgs a = lookupArgs(&lk, EMBRT_POOLING_SUM, EMBRT_BOUNDS_FATAL, 0,
                              EMBRT_F32, &out);
  a.numTables = 1; // one table, one feature, one bag
  a.numFeatures = 1;
  a.batchSize = 1;
  a.hasPaddingIdx = 0;
  EXPECT_STATUS(embrtTbeForward(ctx, &a), EMBRT_OK, ctx);
  EXPECT_NEAR("output", 0, out, 3073.43310546875, 0, 0);
}

int main(void) {
  embrtContext *ctx = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &ctx) != EMBRT_OK)
    return 1;
  testRowBytes();
  testHandRows(ctx);
  testE4M3(ctx);
  testErrorBounds(ctx);
  testLookup(ctx);
  testBiasApart(ctx);
  testBadQuantize(ctx);
  embrtContextDestroy(ctx);
  return harnessFinish();
}
