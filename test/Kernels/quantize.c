// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/quantize
//===- test/Kernels/quantize.c - GPU test of quantized-table packing ------===//
//
// embrtQuantizeTable and embrtDequantizeTable on a CUDA context
// (kernels/quantize.cu) against the CPU reference backend on a CPU context,
// on fresh random tables: every precision (int8, int4, int2, fp8) from f32,
// f16 and bf16, D from the least the precision packs to 2048 with odd
// multiples between (int4 D 24, 40, 100), rows of every kind the codec
// treats apart (normal values, all equal, a tiny range, magnitudes past
// f16's range, zeros of both signs as the minimum, f16-subnormal scales).
// The packed bytes must be equal to the CPU's byte for byte (padding
// included), and so must the dense tables both backends decode from them
// (NaNs compared as NaNs: a row whose bias overflowed f16 decodes to
// NaNs); the GPU's output is poisoned first, so an unwritten byte fails.
// Packed tables whose output or input is off 4-byte alignment take the
// byte-wise path. Random bytes decode alike too. A non-finite element
// (nan, inf, -inf) is EMBRT_OUT_OF_RANGE at embrtSynchronize naming its row,
// column and value, its row written as zeros and the others as the CPU
// writes them. Zero rows, and the arguments both backends refuse.
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"

static embrtContext *cpu, *gpu;

static void *upload(const void *host, size_t bytes) {
  void *d = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, bytes ? bytes : 1, &d), EMBRT_OK, gpu);
  if (bytes)
    EXPECT_STATUS(embrtMemcpy(gpu, d, host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
                  EMBRT_OK, gpu);
  return d;
}

static void *download(const void *dev, size_t bytes) {
  void *h = malloc(bytes ? bytes : 1);
  if (bytes)
    EXPECT_STATUS(embrtMemcpy(gpu, h, dev, bytes, EMBRT_COPY_DEVICE_TO_HOST),
                  EMBRT_OK, gpu);
  return h;
}

static const char *precisionName(embrtTablePrecision p) {
  return embrtTablePrecisionName(p);
}

/// A standard normal value (Box-Muller).
static double rngNormal(Rng *rng) {
  double u = rngUniform(rng, 0x1p-53, 1.0), v = rngUniform(rng, 0.0, 1.0);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

//===----------------------------------------------------------------------===//
// Random tables
//===----------------------------------------------------------------------===//

/// The kinds of rows a table cycles through.
enum {
  ROW_NORMAL,   // N(0, 1)
  ROW_EQUAL,    // one random value D times: a zero range, scale 1
  ROW_TINY,     // c + 1e-6 * N(0, 1): a range far below c's f16 step
  ROW_LARGE,    // 1e5 * N(0, 1): a bias past f16 (f16 tables: 1e4, finite)
  ROW_ZEROS,    // +0 and -0 as the minimum, the first zero of either sign
  ROW_SUBSCALE, // 1e-5 * N(0, 1): an f16-subnormal scale
  ROW_KINDS
};

static double rowValue(Rng *rng, int kind, embrtDtype dtype, double equal,
                       int64_t r, int64_t d) {
  switch (kind) {
  case ROW_EQUAL:
    return equal;
  case ROW_TINY:
    return equal + 1e-6 * rngNormal(rng);
  case ROW_LARGE:
    return (dtype == EMBRT_F16 ? 1e4 : 1e5) * rngNormal(rng);
  case ROW_ZEROS: {
    // Positive values and zeros; the row's first zero is -0 on odd rows.
    if (d % 3 == 1)
      return ((d / 3 + r) % 2) ? -0.0 : 0.0;
    if (d == 0 && (r / ROW_KINDS) % 2)
      return 0.0;
    return fabs(rngNormal(rng)) + 0.25;
  }
  case ROW_SUBSCALE:
    return 1e-5 * rngNormal(rng);
  default:
    return rngNormal(rng);
  }
}

/// A dense [rows, dim] table of `dtype` cycling through the row kinds.
static void *randomTable(Rng *rng, embrtDtype dtype, int64_t rows,
                         int64_t dim) {
  void *p =
      malloc((size_t)(rows * dim > 0 ? rows * dim : 1) * embrtDtypeSize(dtype));
  for (int64_t r = 0; r < rows; ++r) {
    int kind = (int)(r % ROW_KINDS);
    double equal = rngNormal(rng) * 4.0;
    for (int64_t d = 0; d < dim; ++d) {
      double v = rowValue(rng, kind, dtype, equal, r, d);
      // refStore rounds through f32; keep the sign of a zero.
      if (v == 0.0 && signbit(v) && dtype != EMBRT_F32)
        ((uint16_t *)p)[r * dim + d] = 0x8000;
      else
        refStore(p, dtype, r * dim + d, v);
    }
  }
  return p;
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

/// Packed tables byte for byte; names the first differing byte's row.
static void expectSameBytes(const char *what, const uint8_t *got,
                            const uint8_t *want, int64_t rows,
                            int64_t rowBytes) {
  for (int64_t i = 0; i < rows * rowBytes; ++i)
    if (got[i] != want[i]) {
      HARNESS_FAIL("%s: row %lld byte %lld is 0x%02x, the cpu's 0x%02x", what,
                   (long long)(i / rowBytes), (long long)(i % rowBytes), got[i],
                   want[i]);
      return;
    }
}

/// Dense tables bit for bit, a NaN matching any NaN.
static void expectSameDense(const char *what, const void *got, const void *want,
                            embrtDtype dtype, int64_t n) {
  size_t es = embrtDtypeSize(dtype);
  for (int64_t i = 0; i < n; ++i) {
    const char *g = (const char *)got + i * es,
               *w = (const char *)want + i * es;
    if (memcmp(g, w, es) == 0)
      continue;
    double gv = refLoad(got, dtype, i), wv = refLoad(want, dtype, i);
    if (isnan(gv) && isnan(wv))
      continue;
    HARNESS_FAIL("%s: element %lld is %.9g, the cpu's %.9g", what, (long long)i,
                 gv, wv);
    return;
  }
}

//===----------------------------------------------------------------------===//
// Quantize and dequantize against the CPU
//===----------------------------------------------------------------------===//

/// Quantizes a random table on both backends and compares the bytes, then
/// dequantizes the CPU's packed rows on both to every dense dtype.
/// `misalign`: the GPU's packed table starts 1 byte off 4-byte alignment
/// (the packed input of the dequantize too).
static void runCase(Rng *rng, embrtTablePrecision p, embrtDtype dtype,
                    int64_t rows, int64_t dim, int misalign) {
  char name[128];
  snprintf(name, sizeof name, "%s from %s, %lld rows of D %lld%s",
           precisionName(p), dtypeLabel(dtype), (long long)rows, (long long)dim,
           misalign ? ", packed rows misaligned" : "");
  TEST_CASE(name);
  int64_t rowBytes = embrtQuantizedRowBytes(p, dim);
  if (rowBytes <= 0) {
    HARNESS_FAIL("D %lld does not pack", (long long)dim);
    return;
  }
  size_t denseBytes = (size_t)(rows * dim) * embrtDtypeSize(dtype);
  size_t packedBytes = (size_t)(rows * rowBytes);
  void *dense = randomTable(rng, dtype, rows, dim);
  uint8_t *want = poisoned(packedBytes);
  embrtQuantizeTableArgs a = {sizeof a, p, rows, dim, dense, dtype, want};
  EXPECT_STATUS(embrtQuantizeTable(cpu, &a), EMBRT_OK, cpu);

  size_t off = misalign ? 1 : 0;
  void *dDense = upload(dense, denseBytes);
  uint8_t *poison = poisoned(packedBytes + off);
  uint8_t *dPacked = upload(poison, packedBytes + off);
  a.input = dDense;
  a.output = dPacked + off;
  EXPECT_STATUS(embrtQuantizeTable(gpu, &a), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  uint8_t *got = download(dPacked, packedBytes + off);
  expectSameBytes("quantize", got + off, want, rows, rowBytes);
  free(got);

  // Dequantize the CPU's rows (uploaded at the same offset) to each dtype.
  EXPECT_STATUS(embrtMemcpy(gpu, dPacked + off, want, packedBytes,
                            EMBRT_COPY_HOST_TO_DEVICE),
                EMBRT_OK, gpu);
  static const embrtDtype kDense[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  for (int k = 0; k < 3; ++k) {
    size_t bytes = (size_t)(rows * dim) * embrtDtypeSize(kDense[k]);
    void *ref = poisoned(bytes);
    embrtQuantizeTableArgs dq = {sizeof dq, p, rows, dim, want, kDense[k], ref};
    EXPECT_STATUS(embrtDequantizeTable(cpu, &dq), EMBRT_OK, cpu);
    void *dPoison = poisoned(bytes);
    void *dOut = upload(dPoison, bytes);
    dq.input = dPacked + off;
    dq.output = dOut;
    EXPECT_STATUS(embrtDequantizeTable(gpu, &dq), EMBRT_OK, gpu);
    EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
    void *out = download(dOut, bytes);
    char what[64];
    snprintf(what, sizeof what, "dequantize to %s", dtypeLabel(kDense[k]));
    expectSameDense(what, out, ref, kDense[k], rows * dim);
    embrtFree(gpu, dOut);
    free(ref), free(dPoison), free(out);
  }
  embrtFree(gpu, dDense), embrtFree(gpu, dPacked);
  free(dense), free(want), free(poison);
}

/// Random bytes as packed rows (headers of any value, e4m3 NaN bytes)
/// decode the same on both backends.
static void testRandomBytes(Rng *rng) {
  static const embrtTablePrecision kPrecisions[] = {
      EMBRT_PRECISION_INT8, EMBRT_PRECISION_INT4, EMBRT_PRECISION_INT2,
      EMBRT_PRECISION_FP8};
  for (int k = 0; k < 4; ++k) {
    embrtTablePrecision p = kPrecisions[k];
    char name[64];
    snprintf(name, sizeof name, "random bytes as %s rows", precisionName(p));
    TEST_CASE(name);
    int64_t rows = 97, dim = 64;
    int64_t rowBytes = embrtQuantizedRowBytes(p, dim);
    size_t packedBytes = (size_t)(rows * rowBytes);
    uint8_t *packed = malloc(packedBytes);
    for (size_t i = 0; i < packedBytes; ++i)
      packed[i] = (uint8_t)rngNext(rng);
    void *dPacked = upload(packed, packedBytes);
    for (int t = 0; t < 3; ++t) {
      embrtDtype dtype = t == 0 ? EMBRT_F32 : t == 1 ? EMBRT_F16 : EMBRT_BF16;
      size_t bytes = (size_t)(rows * dim) * embrtDtypeSize(dtype);
      void *ref = poisoned(bytes);
      embrtQuantizeTableArgs dq = {sizeof dq, p, rows, dim, packed, dtype, ref};
      EXPECT_STATUS(embrtDequantizeTable(cpu, &dq), EMBRT_OK, cpu);
      void *dOut = NULL;
      EXPECT_STATUS(embrtMalloc(gpu, bytes, &dOut), EMBRT_OK, gpu);
      EXPECT_STATUS(embrtMemset(gpu, dOut, 0xFF, bytes), EMBRT_OK, gpu);
      dq.input = dPacked;
      dq.output = dOut;
      EXPECT_STATUS(embrtDequantizeTable(gpu, &dq), EMBRT_OK, gpu);
      EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
      void *out = download(dOut, bytes);
      expectSameDense(dtypeLabel(dtype), out, ref, dtype, rows * dim);
      embrtFree(gpu, dOut);
      free(ref), free(out);
    }
    embrtFree(gpu, dPacked);
    free(packed);
  }
}

//===----------------------------------------------------------------------===//
// Non-finite elements
//===----------------------------------------------------------------------===//

/// One non-finite element at (badRow, badColumn): the call enqueues,
/// embrtSynchronize names it; its row is zeros, the others are the CPU's
/// encoding of the same rows.
static void runNonFinite(Rng *rng, embrtTablePrecision p, embrtDtype dtype,
                         double bad, const char *badName) {
  char name[96];
  snprintf(name, sizeof name, "%s in a %s table to %s", badName,
           dtypeLabel(dtype), precisionName(p));
  TEST_CASE(name);
  int64_t rows = 41, dim = 48, badRow = 23, badColumn = 37;
  int64_t rowBytes = embrtQuantizedRowBytes(p, dim);
  size_t packedBytes = (size_t)(rows * rowBytes);
  void *dense = randomTable(rng, dtype, rows, dim);
  // The CPU's rows, the bad row's element left finite.
  uint8_t *want = poisoned(packedBytes);
  embrtQuantizeTableArgs a = {sizeof a, p, rows, dim, dense, dtype, want};
  EXPECT_STATUS(embrtQuantizeTable(cpu, &a), EMBRT_OK, cpu);
  memset(want + badRow * rowBytes, 0, (size_t)rowBytes);
  if (dtype == EMBRT_F32)
    ((float *)dense)[badRow * dim + badColumn] = (float)bad;
  else
    refStore(dense, dtype, badRow * dim + badColumn, bad);
  void *dDense = upload(dense, (size_t)(rows * dim) * embrtDtypeSize(dtype));
  uint8_t *poison = poisoned(packedBytes);
  uint8_t *dPacked = upload(poison, packedBytes);
  a.input = dDense;
  a.output = dPacked;
  EXPECT_STATUS(embrtQuantizeTable(gpu, &a), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OUT_OF_RANGE, gpu);
  char message[128];
  snprintf(message, sizeof message,
           "quantize_table: row %lld column %lld is %s; a quantized table's "
           "rows must be finite",
           (long long)badRow, (long long)badColumn, badName);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu), message);
  embrtContextClearError(gpu);
  uint8_t *got = download(dPacked, packedBytes);
  expectSameBytes("rows around the bad one", got, want, rows, rowBytes);
  // The record was reset: the next synchronize is clean.
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  embrtFree(gpu, dDense), embrtFree(gpu, dPacked);
  free(dense), free(want), free(poison), free(got);
}

//===----------------------------------------------------------------------===//
// Zero rows and bad arguments
//===----------------------------------------------------------------------===//

static void testEdges(void) {
  TEST_CASE("zero rows");
  embrtQuantizeTableArgs a = {
      sizeof a, EMBRT_PRECISION_INT4, 0, 8, NULL, EMBRT_F16, NULL};
  EXPECT_STATUS(embrtQuantizeTable(gpu, &a), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtDequantizeTable(gpu, &a), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);

  float x[2 * 8] = {0};
  void *dIn = upload(x, sizeof x), *dOut = upload(x, sizeof x);
  a.rows = 2;
  a.input = dIn;
  a.output = dOut;
  a.denseDtype = EMBRT_F32;
  TEST_CASE("bad precision");
  a.precision = EMBRT_PRECISION_DENSE;
  EXPECT_STATUS(embrtQuantizeTable(gpu, &a), EMBRT_INVALID_ARGUMENT, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "quantize_table: precision is 0, must be int8, int4, int2 "
                  "or fp8");
  TEST_CASE("bad dim");
  a.precision = EMBRT_PRECISION_INT4;
  a.dim = 7;
  EXPECT_STATUS(embrtDequantizeTable(gpu, &a), EMBRT_INVALID_ARGUMENT, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "dequantize_table: dim is 7, must be in 1..2048 and a "
                  "multiple of 2 for int4");
  TEST_CASE("bad dense dtype");
  a.dim = 8;
  a.denseDtype = EMBRT_I32;
  EXPECT_STATUS(embrtQuantizeTable(gpu, &a), EMBRT_INVALID_ARGUMENT, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "quantize_table: denseDtype is");
  TEST_CASE("null input");
  a.denseDtype = EMBRT_F32;
  a.input = NULL;
  EXPECT_STATUS(embrtQuantizeTable(gpu, &a), EMBRT_INVALID_ARGUMENT, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "quantize_table: input is NULL");
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  embrtFree(gpu, dIn), embrtFree(gpu, dOut);
}

int main(void) {
  cpu = newCpuContext();
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }
  Rng rng = rngSeed(0x0A39);
  // D per precision: the least that packs, odd multiples of it, 128, 1024
  // and the widest row.
  static const struct {
    embrtTablePrecision p;
    int64_t dims[9];
  } kDims[] = {
      {EMBRT_PRECISION_INT8, {1, 3, 7, 33, 128, 129, 600, 1024, 2048}},
      {EMBRT_PRECISION_INT4, {2, 6, 24, 40, 100, 128, 258, 1024, 2048}},
      {EMBRT_PRECISION_INT2, {4, 12, 20, 36, 100, 128, 516, 1024, 2048}},
      {EMBRT_PRECISION_FP8, {1, 5, 17, 33, 128, 255, 1000, 1024, 2048}},
  };
  static const embrtDtype kDtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  for (int k = 0; k < 4; ++k)
    for (int t = 0; t < 3; ++t)
      for (int i = 0; i < 9; ++i) {
        int64_t dim = kDims[k].dims[i];
        // Many rows for small D, so every row kind shows at every offset
        // of the grid-stride loop.
        int64_t rows = dim <= 40 ? 1000 + i : dim <= 600 ? 197 : 61;
        runCase(&rng, kDims[k].p, kDtypes[t], rows, dim, 0);
      }
  for (int k = 0; k < 4; ++k) {
    runCase(&rng, kDims[k].p, EMBRT_F32, 53, kDims[k].dims[2], 1);
    runCase(&rng, kDims[k].p, EMBRT_BF16, 29, kDims[k].dims[5], 1);
  }
  // A table larger than one wave of warps (the grid-stride loop wraps).
  runCase(&rng, EMBRT_PRECISION_INT4, EMBRT_F16, 300000, 64, 0);
  testRandomBytes(&rng);
  runNonFinite(&rng, EMBRT_PRECISION_INT4, EMBRT_F32, NAN, "nan");
  runNonFinite(&rng, EMBRT_PRECISION_INT8, EMBRT_F16, INFINITY, "inf");
  runNonFinite(&rng, EMBRT_PRECISION_FP8, EMBRT_BF16, -INFINITY, "-inf");
  runNonFinite(&rng, EMBRT_PRECISION_INT2, EMBRT_F32, -INFINITY, "-inf");
  testEdges();
  embrtContextDestroy(gpu);
  embrtContextDestroy(cpu);
  return harnessFinish();
}
