// RUN: %runtime_test_dir/context
//
// Contexts, sticky errors, memory on the CPU, compiled models' constants
// (read in place), status names, dtype sizes and the f16/bf16 conversions (edge
// cases by bit pattern, every 16-bit pattern round trip, and nearest-even
// against an independent decoder).

#include "harness.h"

#include "emb/compiled.h"

#include <float.h>

static float floatFromBits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static uint32_t bitsOfFloat(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

#define EXPECT_BITS(got, want)                                                 \
  do {                                                                         \
    unsigned got_ = (unsigned)(got), want_ = (unsigned)(want);                 \
    if (got_ != want_)                                                         \
      HARNESS_FAIL("%s is 0x%04X, expected 0x%04X", #got, got_, want_);        \
  } while (0)

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

static void testNames(void) {
  TEST_CASE("status names");
  EXPECT_TRUE(strcmp(embrtStatusName(EMBRT_OK), "EMBRT_OK") == 0);
  EXPECT_TRUE(strcmp(embrtStatusName(EMBRT_INVALID_ARGUMENT),
                     "EMBRT_INVALID_ARGUMENT") == 0);
  EXPECT_TRUE(
      strcmp(embrtStatusName(EMBRT_OUT_OF_RANGE), "EMBRT_OUT_OF_RANGE") == 0);
  EXPECT_TRUE(strcmp(embrtStatusName(EMBRT_UNSUPPORTED), "EMBRT_UNSUPPORTED") ==
              0);
  EXPECT_TRUE(
      strcmp(embrtStatusName(EMBRT_OUT_OF_MEMORY), "EMBRT_OUT_OF_MEMORY") == 0);
  EXPECT_TRUE(
      strcmp(embrtStatusName(EMBRT_DEVICE_ERROR), "EMBRT_DEVICE_ERROR") == 0);
  EXPECT_TRUE(
      strcmp(embrtStatusName((embrtStatus)42), "EMBRT_UNKNOWN_STATUS") == 0);

  TEST_CASE("dtype sizes");
  EXPECT_EQ_INT(embrtDtypeSize(EMBRT_F32), 4);
  EXPECT_EQ_INT(embrtDtypeSize(EMBRT_F16), 2);
  EXPECT_EQ_INT(embrtDtypeSize(EMBRT_BF16), 2);
  EXPECT_EQ_INT(embrtDtypeSize(EMBRT_I32), 4);
  EXPECT_EQ_INT(embrtDtypeSize(EMBRT_I64), 8);
  EXPECT_EQ_INT(embrtDtypeSize(EMBRT_F64), 8);
  EXPECT_EQ_INT(embrtDtypeSize(EMBRT_I8), 1);
  EXPECT_EQ_INT(embrtDtypeSize((embrtDtype)99), 0);
}

//===----------------------------------------------------------------------===//
// Contexts and errors
//===----------------------------------------------------------------------===//

static void testContexts(void) {
  TEST_CASE("cpu context");
  embrtContext *ctx = NULL;
  EXPECT_STATUS(embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &ctx), EMBRT_OK,
                ctx);
  EXPECT_TRUE(ctx != NULL);
  EXPECT_EQ_INT(embrtContextGetDevice(ctx), EMBRT_DEVICE_CPU);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OK);
  EXPECT_TRUE(strcmp(embrtContextGetLastError(ctx), "") == 0);
  EXPECT_EQ_INT(embrtContextGetInvalidIdCount(ctx), 0);
  EXPECT_STATUS(embrtSynchronize(ctx), EMBRT_OK, ctx);
  embrtContextDestroy(ctx);
  embrtContextDestroy(NULL);

  TEST_CASE("bad create arguments");
  embrtContext *bad = (embrtContext *)&bad;
  EXPECT_STATUS(embrtContextCreate((embrtDevice)7, 0, NULL, &bad),
                EMBRT_INVALID_ARGUMENT, NULL);
  EXPECT_TRUE(bad == NULL);
  EXPECT_CONTAINS(embrtGetCreateError(), "device is 7");
  EXPECT_STATUS(embrtContextCreate(EMBRT_DEVICE_CPU, 1, NULL, &bad),
                EMBRT_INVALID_ARGUMENT, NULL);
  EXPECT_CONTAINS(embrtGetCreateError(), "ordinal 0");
  EXPECT_STATUS(embrtContextCreate(EMBRT_DEVICE_CUDA, -1, NULL, &bad),
                EMBRT_INVALID_ARGUMENT, NULL);
  EXPECT_CONTAINS(embrtGetCreateError(), "ordinal is -1");
  EXPECT_STATUS(embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, NULL),
                EMBRT_INVALID_ARGUMENT, NULL);

  TEST_CASE("cuda context");
  embrtStatus status = embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &ctx);
#ifdef EMBRT_TEST_HAVE_CUDA
  // With CUDA built in: a context where a GPU answers, else a device error.
  if (status == EMBRT_OK) {
    EXPECT_EQ_INT(embrtContextGetDevice(ctx), EMBRT_DEVICE_CUDA);
    embrtContextDestroy(ctx);
  } else {
    EXPECT_EQ_INT(status, EMBRT_DEVICE_ERROR);
    EXPECT_TRUE(ctx == NULL);
    EXPECT_CONTAINS(embrtGetCreateError(), "cuda");
  }
#else
  EXPECT_EQ_INT(status, EMBRT_UNSUPPORTED);
  EXPECT_TRUE(ctx == NULL);
  EXPECT_CONTAINS(embrtGetCreateError(), "built without CUDA");
#endif

  TEST_CASE("null context");
  EXPECT_EQ_INT(embrtSynchronize(NULL), EMBRT_INVALID_ARGUMENT);
  EXPECT_EQ_INT(embrtContextGetStatus(NULL), EMBRT_INVALID_ARGUMENT);
  EXPECT_TRUE(embrtContextGetLastError(NULL)[0] != '\0');
  EXPECT_EQ_INT(embrtContextGetInvalidIdCount(NULL), 0);
  embrtContextClearError(NULL);
  void *p = NULL;
  EXPECT_EQ_INT(embrtMalloc(NULL, 16, &p), EMBRT_INVALID_ARGUMENT);
  EXPECT_EQ_INT(embrtFill(NULL, &p, EMBRT_I8, 1, &p), EMBRT_INVALID_ARGUMENT);
}

/// The first failing status sticks until cleared; the message follows the
/// latest failure; calls keep running.
static void testStickyErrors(void) {
  TEST_CASE("sticky errors");
  embrtContext *ctx = newCpuContext();
  float out[4], value = 1.5f;
  EXPECT_STATUS(embrtFill(ctx, out, (embrtDtype)77, 4, &value),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "fill: dtype is 77");
  EXPECT_STATUS(embrtFill(ctx, out, EMBRT_F32, 4, &value), EMBRT_OK, ctx);
  EXPECT_TRUE(out[3] == 1.5f);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT);
  int32_t c2u = 3;
  embrtBroadcastArgs b = {sizeof b, out,       2, 1,    EMBRT_F32,
                          &c2u,     EMBRT_I32, 1, NULL, out + 2};
  EXPECT_STATUS(embrtBroadcast(ctx, &b), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "cand_to_user[0] is 3");
  embrtContextClearError(ctx);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OK);
  EXPECT_TRUE(embrtContextGetLastError(ctx)[0] == '\0');
  EXPECT_STATUS(embrtBroadcast(ctx, &b), EMBRT_OUT_OF_RANGE, ctx);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OUT_OF_RANGE);
  embrtContextDestroy(ctx);
}

static void testMemory(Rng *rng) {
  TEST_CASE("cpu memory");
  embrtContext *ctx = newCpuContext();
  void *a = NULL, *b = NULL;
  EXPECT_STATUS(embrtMalloc(ctx, 1000, &a), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtMalloc(ctx, 1000, &b), EMBRT_OK, ctx);
  unsigned char host[1000], back[1000];
  for (int i = 0; i < 1000; ++i)
    host[i] = (unsigned char)rngInt(rng, 1, 256);
  EXPECT_STATUS(embrtMemcpy(ctx, a, host, 1000, EMBRT_COPY_HOST_TO_DEVICE),
                EMBRT_OK, ctx);
  EXPECT_STATUS(embrtMemcpy(ctx, b, a, 1000, EMBRT_COPY_DEVICE_TO_DEVICE),
                EMBRT_OK, ctx);
  EXPECT_STATUS(embrtMemcpy(ctx, back, b, 1000, EMBRT_COPY_DEVICE_TO_HOST),
                EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(host, back, 1000) == 0);
  EXPECT_STATUS(embrtMemset(ctx, b, 0x5A, 10), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtMemcpy(ctx, back, b, 1000, EMBRT_COPY_DEVICE_TO_HOST),
                EMBRT_OK, ctx);
  EXPECT_TRUE(back[0] == 0x5A && back[9] == 0x5A && back[10] == host[10]);
  EXPECT_STATUS(embrtFree(ctx, a), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtFree(ctx, b), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtFree(ctx, NULL), EMBRT_OK, ctx);

  TEST_CASE("memory edge cases");
  void *empty = (void *)1;
  EXPECT_STATUS(embrtMalloc(ctx, 0, &empty), EMBRT_OK, ctx);
  EXPECT_TRUE(empty == NULL);
  EXPECT_STATUS(embrtMalloc(ctx, 8, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_STATUS(embrtMemcpy(ctx, back, NULL, 4, EMBRT_COPY_HOST_TO_DEVICE),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "memcpy: src is NULL");
  EXPECT_STATUS(embrtMemcpy(ctx, back, host, 4, (embrtCopyKind)3),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_STATUS(embrtMemset(ctx, NULL, 0, 4), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_STATUS(embrtMemcpy(ctx, NULL, NULL, 0, EMBRT_COPY_HOST_TO_DEVICE),
                EMBRT_OK, ctx);
  void *huge = NULL;
  EXPECT_STATUS(embrtMalloc(ctx, SIZE_MAX / 2, &huge), EMBRT_OUT_OF_MEMORY,
                ctx);
  EXPECT_TRUE(huge == NULL);
  embrtContextDestroy(ctx);
}

//===----------------------------------------------------------------------===//
// Half-precision conversions
//===----------------------------------------------------------------------===//

static void testF16EdgeCases(void) {
  TEST_CASE("f16 from f32");
  EXPECT_BITS(embrtF32ToF16(1.0f), 0x3C00);
  EXPECT_BITS(embrtF32ToF16(-2.0f), 0xC000);
  EXPECT_BITS(embrtF32ToF16(0.0f), 0x0000);
  EXPECT_BITS(embrtF32ToF16(-0.0f), 0x8000);
  EXPECT_BITS(embrtF32ToF16(65504.0f), 0x7BFF);
  // Ties round to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
  EXPECT_BITS(embrtF32ToF16(1.0f + 0x1p-11f), 0x3C00);
  EXPECT_BITS(embrtF32ToF16(1.0f + 3 * 0x1p-11f), 0x3C02);
  EXPECT_BITS(embrtF32ToF16(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01);
  // Overflow: 65519.99 rounds down, 65520 (the tie with 2^16) to infinity.
  EXPECT_BITS(embrtF32ToF16(65519.0f), 0x7BFF);
  EXPECT_BITS(embrtF32ToF16(65520.0f), 0x7C00);
  EXPECT_BITS(embrtF32ToF16(-1e6f), 0xFC00);
  EXPECT_BITS(embrtF32ToF16(FLT_MAX), 0x7C00);
  EXPECT_BITS(embrtF32ToF16(INFINITY), 0x7C00);
  EXPECT_BITS(embrtF32ToF16(-INFINITY), 0xFC00);
  // Subnormals: 2^-24 is the smallest; 2^-25 ties to 0; 3 * 2^-25 to 2.
  EXPECT_BITS(embrtF32ToF16(0x1p-24f), 0x0001);
  EXPECT_BITS(embrtF32ToF16(0x1p-25f), 0x0000);
  EXPECT_BITS(embrtF32ToF16(0x1.000002p-25f), 0x0001);
  EXPECT_BITS(embrtF32ToF16(3 * 0x1p-25f), 0x0002);
  EXPECT_BITS(embrtF32ToF16(-5 * 0x1p-25f), 0x8002);
  EXPECT_BITS(embrtF32ToF16(1023 * 0x1p-24f), 0x03FF);
  EXPECT_BITS(embrtF32ToF16(0x1p-14f), 0x0400);
  // The largest subnormal plus half an ulp rounds up to the smallest normal.
  EXPECT_BITS(embrtF32ToF16(1023.5f * 0x1p-24f), 0x0400);
  EXPECT_BITS(embrtF32ToF16(FLT_MIN), 0x0000);
  // NaN stays NaN, sign kept.
  uint16_t nan = embrtF32ToF16(NAN);
  EXPECT_TRUE((nan & 0x7C00) == 0x7C00 && (nan & 0x03FF) != 0);
  uint16_t negNan = embrtF32ToF16(floatFromBits(0xFF800001u)); // signalling
  EXPECT_TRUE((negNan & 0xFC00) == 0xFC00 && (negNan & 0x03FF) != 0);

  TEST_CASE("f32 from f16");
  EXPECT_TRUE(embrtF16ToF32(0x3C00) == 1.0f);
  EXPECT_TRUE(embrtF16ToF32(0x0001) == 0x1p-24f);
  EXPECT_TRUE(embrtF16ToF32(0x03FF) == 1023 * 0x1p-24f);
  EXPECT_TRUE(embrtF16ToF32(0x7BFF) == 65504.0f);
  EXPECT_TRUE(embrtF16ToF32(0x7C00) == INFINITY);
  EXPECT_TRUE(embrtF16ToF32(0xFC00) == -INFINITY);
  EXPECT_TRUE(isnan(embrtF16ToF32(0x7E00)));
  EXPECT_TRUE(isnan(embrtF16ToF32(0x7C01)));
  EXPECT_EQ_INT(bitsOfFloat(embrtF16ToF32(0x8000)), 0x80000000u);
}

static void testBF16EdgeCases(void) {
  TEST_CASE("bf16 from f32");
  EXPECT_BITS(embrtF32ToBF16(1.0f), 0x3F80);
  EXPECT_BITS(embrtF32ToBF16(-0.0f), 0x8000);
  EXPECT_BITS(embrtF32ToBF16(1.0f + 0x1p-8f), 0x3F80); // tie to even
  EXPECT_BITS(embrtF32ToBF16(1.0f + 3 * 0x1p-8f), 0x3F82);
  EXPECT_BITS(embrtF32ToBF16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);
  EXPECT_BITS(embrtF32ToBF16(floatFromBits(0x7F7F7FFFu)), 0x7F7F);
  EXPECT_BITS(embrtF32ToBF16(FLT_MAX), 0x7F80); // rounds past the largest
  EXPECT_BITS(embrtF32ToBF16(-INFINITY), 0xFF80);
  // Subnormals (bf16 shares f32's exponent range).
  EXPECT_BITS(embrtF32ToBF16(floatFromBits(0x00010000u)), 0x0001);
  EXPECT_BITS(embrtF32ToBF16(floatFromBits(0x00008000u)), 0x0000);
  EXPECT_BITS(embrtF32ToBF16(floatFromBits(0x00018000u)), 0x0002);
  EXPECT_BITS(embrtF32ToBF16(floatFromBits(0x00008001u)), 0x0001);
  EXPECT_BITS(embrtF32ToBF16(floatFromBits(0x007FFFFFu)), 0x0080);
  // NaN whose payload lives only in the dropped bits stays NaN.
  uint16_t nan = embrtF32ToBF16(floatFromBits(0x7F800001u));
  EXPECT_TRUE((nan & 0x7F80) == 0x7F80 && (nan & 0x007F) != 0);
  EXPECT_TRUE(isnan(embrtBF16ToF32(embrtF32ToBF16(NAN))));

  TEST_CASE("f32 from bf16");
  EXPECT_TRUE(embrtBF16ToF32(0x3F80) == 1.0f);
  EXPECT_TRUE(embrtBF16ToF32(0x0001) == floatFromBits(0x00010000u));
  EXPECT_TRUE(embrtBF16ToF32(0xFF80) == -INFINITY);
  EXPECT_TRUE(isnan(embrtBF16ToF32(0x7FC0)));
}

/// Every 16-bit pattern: decoding matches the reference decoder, and
/// encoding the decoded value gives the pattern back (NaN: some NaN).
static void checkRoundTrips(const char *name, float (*toF32)(uint16_t),
                            uint16_t (*fromF32)(float),
                            double (*reference)(uint16_t)) {
  TEST_CASE(name);
  int failures = 0;
  for (uint32_t bits = 0; bits <= 0xFFFF && failures < 5; ++bits) {
    double ref = reference((uint16_t)bits);
    float value = toF32((uint16_t)bits);
    int ok = isnan(ref) ? isnan(value) && isnan(toF32(fromF32(value)))
                        : (double)value == ref && fromF32(value) == bits;
    if (!ok) {
      HARNESS_FAIL("0x%04X decodes to %.9g (want %.9g), encodes to 0x%04X",
                   bits, value, ref, fromF32(value));
      ++failures;
    }
  }
}

/// Checks that `bits` is the nearest pattern to x (ties to even) among its
/// neighbours, with the reference decoder `decode`.
static int isNearestEven(float x, uint16_t bits, double (*decode)(uint16_t)) {
  double got = decode(bits);
  if (isinf(got)) // overflow: x must be past the largest finite + half ulp
    return 1;
  for (int step = -1; step <= 1; step += 2) {
    uint16_t neighbour = (uint16_t)(bits + step);
    double other = decode(neighbour);
    if (isnan(other) || ((neighbour ^ bits) & 0x8000))
      continue;
    double dGot = fabs((double)x - got), dOther = fabs((double)x - other);
    if (dOther < dGot || (dOther == dGot && (bits & 1)))
      return 0;
  }
  return 1;
}

static void testNearestEven(Rng *rng) {
  TEST_CASE("f16/bf16 nearest even on random floats");
  int failures = 0;
  for (int i = 0; i < 200000 && failures < 5; ++i) {
    // Random values over the whole f16 range, subnormals included.
    float x = (float)(rngValue(rng) * ldexp(1.0, (int)rngInt(rng, -26, 16)));
    uint16_t h = embrtF32ToF16(x);
    if (!isNearestEven(x, h, refF16ToDouble)) {
      HARNESS_FAIL("f16 of %.9g is 0x%04X, not the nearest even", x, h);
      ++failures;
    }
    float y = floatFromBits((uint32_t)rngNext(rng));
    if (isnan(y))
      continue;
    uint16_t b = embrtF32ToBF16(y);
    if (!isNearestEven(y, b, refBF16ToDouble)) {
      HARNESS_FAIL("bf16 of %.9g is 0x%04X, not the nearest even", y, b);
      ++failures;
    }
  }
}

// Events measure the time between two points of the stream; on the CPU the
// host clock, so work between them shows up.
static void testEvents(void) {
  TEST_CASE("events");
  embrtContext *ctx = NULL;
  EXPECT_STATUS(embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &ctx), EMBRT_OK,
                ctx);
  embrtEvent *start = NULL, *end = NULL;
  EXPECT_STATUS(embrtEventCreate(ctx, &start), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtEventCreate(ctx, &end), EMBRT_OK, ctx);
  float ms = -1;
  EXPECT_STATUS(embrtEventElapsedMs(ctx, start, end, &ms),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "event: both events must be recorded first");
  embrtContextClearError(ctx);
  EXPECT_STATUS(embrtEventRecord(ctx, start), EMBRT_OK, ctx);
  volatile double sink = 0;
  for (int i = 0; i < 20000000; ++i)
    sink += i * 1e-9;
  EXPECT_STATUS(embrtEventRecord(ctx, end), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtEventElapsedMs(ctx, start, end, &ms), EMBRT_OK, ctx);
  EXPECT_TRUE(ms > 0.0f && ms < 60000.0f);
  EXPECT_STATUS(embrtEventElapsedMs(ctx, start, NULL, &ms),
                EMBRT_INVALID_ARGUMENT, ctx);
  embrtEventDestroy(ctx, start);
  embrtEventDestroy(ctx, end);
  embrtEventDestroy(ctx, NULL);
  embrtContextDestroy(ctx);
}

static void testConstants(void) {
  TEST_CASE("compiled constants on the CPU");
  embrtContext *ctx = newCpuContext();
  static const float data[3] = {1, 2, 3};
  EXPECT_TRUE(embrtCompiledConstant(ctx, data, sizeof data, 5) == data);
  EXPECT_EQ_INT(embrtContextGetStatus(ctx), EMBRT_OK);
  EXPECT_TRUE(embrtCompiledConstant(ctx, data, -1, 5) == NULL);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "constant: -1 bytes at");
  embrtContextDestroy(ctx);
}

/// A kernel the compiler generated for the cuda target, launched on a CPU
/// context: a named error, and the arguments are checked first.
static void testLaunchKernelOnCpu(void) {
  TEST_CASE("generated GPU kernels on a CPU context");
  embrtContext *ctx = newCpuContext();
  static const char ptx[] = ".version 8.0\n.target sm_90\n";
  float buffer[4] = {0};
  void *args[1] = {buffer};
  int64_t launch[EMB_ABI_LAUNCH_COUNT] = {1, 1, 1, 256, 1, 1, 0};
  embrtCompiledLaunchKernel(ctx, ptx, sizeof ptx, 7, "k", launch, args, 1);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_UNSUPPORTED, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "launch_kernel: kernel 'k' is GPU code the compiler "
                  "generated for the cuda target");
  EXPECT_TRUE(buffer[0] == 0);
  // Checked before the device: a block past CUDA's 1024 threads, a null
  // buffer (a failed allocation before the call), too many arguments.
  embrtContextClearError(ctx);
  launch[EMB_ABI_LAUNCH_BLOCK_X] = 2048;
  embrtCompiledLaunchKernel(ctx, ptx, sizeof ptx, 7, "k", launch, args, 1);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "grid 1 or block 2048 in dimension 0 is out of range");
  launch[EMB_ABI_LAUNCH_BLOCK_X] = 256;
  embrtContextClearError(ctx);
  args[0] = NULL;
  embrtCompiledLaunchKernel(ctx, ptx, sizeof ptx, 7, "k", launch, args, 1);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "argument 0 is null");
  embrtContextClearError(ctx);
  embrtCompiledLaunchKernel(ctx, ptx, sizeof ptx, 7, "k", launch, args,
                            EMB_MAX_KERNEL_ARGS + 1);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "65 arguments (at most 64)");
  embrtContextDestroy(ctx);
}

int main(void) {
  Rng rng = rngSeed(0xC0 + 0x7E47);
  testEvents();
  testNames();
  testContexts();
  testStickyErrors();
  testMemory(&rng);
  testConstants();
  testLaunchKernelOnCpu();
  testF16EdgeCases();
  testBF16EdgeCases();
  checkRoundTrips("f16 round trip of every pattern", embrtF16ToF32,
                  embrtF32ToF16, refF16ToDouble);
  checkRoundTrips("bf16 round trip of every pattern", embrtBF16ToF32,
                  embrtF32ToBF16, refBF16ToDouble);
  testNearestEven(&rng);
  return harnessFinish();
}
