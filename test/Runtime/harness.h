//===- test/Runtime/harness.h - Shared by the runtime unit tests --*- C -*-===//
//
// A tiny self-checking harness: a seeded xorshift RNG, EXPECT macros that
// print file:line with the failing values and count failures, reference
// decoders of the 16-bit float formats (written apart from runtime/half.c),
// and the tolerances the tests compare with. A test's main ends with
// `return harnessFinish();`: exit code 1 on any failure.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TEST_RUNTIME_HARNESS_H
#define EMB_TEST_RUNTIME_HARNESS_H

#include "emb/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Tolerances: |got - ref| <= tol * max(|ref|, scale), where scale is the sum
// of the magnitudes of the terms that made ref (so cancellation is fair).
//===----------------------------------------------------------------------===//

/// f32 results of an f64 accumulation: one f32 rounding (2^-24) and margin.
#define TOL_F32 1e-6
/// f32 results of an f32 accumulation (f16/bf16 inputs, tens of terms).
#define TOL_F32_ACC 1e-5
/// f16 results: one f16 rounding is 2^-11 = 4.9e-4.
#define TOL_F16 1e-3
/// bf16 results: one bf16 rounding is 2^-8 = 3.9e-3.
#define TOL_BF16 1e-2

/// The tolerance for results stored as `out` from inputs of `data`.
static inline double harnessTolerance(embrtDtype out, embrtDtype data) {
  if (out == EMBRT_BF16)
    return TOL_BF16;
  if (out == EMBRT_F16)
    return TOL_F16;
  return data == EMBRT_F16 || data == EMBRT_BF16 ? TOL_F32_ACC : TOL_F32;
}

//===----------------------------------------------------------------------===//
// Failures
//===----------------------------------------------------------------------===//

static int harnessFailures;
static const char *harnessCaseName = "";

/// Names the case that later failures belong to.
#define TEST_CASE(name) (harnessCaseName = (name))

#define HARNESS_FAIL(...)                                                      \
  do {                                                                         \
    fprintf(stderr, "%s:%d: [%s] ", __FILE__, __LINE__, harnessCaseName);      \
    fprintf(stderr, __VA_ARGS__);                                              \
    fputc('\n', stderr);                                                       \
    ++harnessFailures;                                                         \
  } while (0)

#define EXPECT_TRUE(cond)                                                      \
  do {                                                                         \
    if (!(cond))                                                               \
      HARNESS_FAIL("expected %s", #cond);                                      \
  } while (0)

#define EXPECT_EQ_INT(got, want)                                               \
  do {                                                                         \
    long long got_ = (long long)(got), want_ = (long long)(want);              \
    if (got_ != want_)                                                         \
      HARNESS_FAIL("%s is %lld, expected %lld", #got, got_, want_);            \
  } while (0)

/// Expects `expr` (an embrtStatus) to be `want`; prints the context's last
/// message on failure.
#define EXPECT_STATUS(expr, want, ctx)                                         \
  do {                                                                         \
    embrtStatus got_ = (expr);                                                 \
    if (got_ != (want))                                                        \
      HARNESS_FAIL("%s returned %s, expected %s (last error: %s)", #expr,      \
                   embrtStatusName(got_), embrtStatusName(want),               \
                   embrtContextGetLastError(ctx));                             \
  } while (0)

#define EXPECT_CONTAINS(text, needle)                                          \
  do {                                                                         \
    const char *text_ = (text);                                                \
    if (!text_ || !strstr(text_, (needle)))                                    \
      HARNESS_FAIL("\"%s\" does not contain \"%s\"", text_ ? text_ : "(null)", \
                   (needle));                                                  \
  } while (0)

/// Expects got to match ref within tol relative to max(|ref|, scale); `what`
/// and `index` say which element for the message. Returns 1 when it matches
/// (callers stop after the first few mismatches of a tensor).
static inline int harnessNear(const char *file, int line, const char *what,
                              long long index, double got, double ref,
                              double scale, double tol) {
  double bound = tol * fmax(fabs(ref), scale);
  if (fabs(got - ref) <= bound && !isnan(got) == !isnan(ref))
    return 1;
  fprintf(stderr,
          "%s:%d: [%s] %s[%lld] is %.9g, expected %.9g (|diff| %.3g > %.3g)\n",
          file, line, harnessCaseName, what, index, got, ref, fabs(got - ref),
          bound);
  ++harnessFailures;
  return 0;
}

#define EXPECT_NEAR(what, index, got, ref, scale, tol)                         \
  harnessNear(__FILE__, __LINE__, (what), (long long)(index), (got), (ref),    \
              (scale), (tol))

static inline int harnessFinish(void) {
  if (harnessFailures) {
    fprintf(stderr, "FAILED: %d expectation(s)\n", harnessFailures);
    return 1;
  }
  fprintf(stderr, "PASSED\n");
  return 0;
}

//===----------------------------------------------------------------------===//
// Random numbers: xorshift64*, seeded per test so failures reproduce.
//===----------------------------------------------------------------------===//

typedef struct Rng {
  uint64_t state;
} Rng;

static inline Rng rngSeed(uint64_t seed) {
  Rng rng = {seed ? seed : 0x9E3779B97F4A7C15ull};
  return rng;
}

static inline uint64_t rngNext(Rng *rng) {
  uint64_t x = rng->state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng->state = x;
  return x * 0x2545F4914F6CDD1Dull;
}

/// Uniform in [lo, hi).
static inline double rngUniform(Rng *rng, double lo, double hi) {
  return lo + (hi - lo) * (double)(rngNext(rng) >> 11) * 0x1.0p-53;
}

/// Uniform integer in [lo, hi).
static inline int64_t rngInt(Rng *rng, int64_t lo, int64_t hi) {
  return lo + (int64_t)(rngNext(rng) % (uint64_t)(hi - lo));
}

/// A value in +-[0.25, 2): never zero, so a missed write or term shows.
static inline double rngValue(Rng *rng) {
  double magnitude = rngUniform(rng, 0.25, 2.0);
  return (rngNext(rng) & 1) ? magnitude : -magnitude;
}

//===----------------------------------------------------------------------===//
// Reference element access, independent of runtime/half.c for decoding.
//===----------------------------------------------------------------------===//

/// Decodes IEEE half bits with ldexp, the textbook way.
static inline double refF16ToDouble(uint16_t bits) {
  int sign = bits >> 15, exponent = (bits >> 10) & 0x1f,
      mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0x1f)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = ldexp((double)mantissa, -24);
  else
    magnitude = ldexp((double)(mantissa | 0x400), exponent - 25);
  return sign ? -magnitude : magnitude;
}

/// Decodes bfloat16 bits with ldexp.
static inline double refBF16ToDouble(uint16_t bits) {
  int sign = bits >> 15, exponent = (bits >> 7) & 0xff, mantissa = bits & 0x7f;
  double magnitude;
  if (exponent == 0xff)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = ldexp((double)mantissa, -133);
  else
    magnitude = ldexp((double)(mantissa | 0x80), exponent - 134);
  return sign ? -magnitude : magnitude;
}

/// Element i of a float tensor of `dtype`, as a double.
static inline double refLoad(const void *p, embrtDtype dtype, int64_t i) {
  switch (dtype) {
  case EMBRT_F16:
    return refF16ToDouble(((const uint16_t *)p)[i]);
  case EMBRT_BF16:
    return refBF16ToDouble(((const uint16_t *)p)[i]);
  case EMBRT_F64:
    return ((const double *)p)[i];
  case EMBRT_F32:
    return ((const float *)p)[i];
  case EMBRT_I32:
    return ((const int32_t *)p)[i];
  case EMBRT_I64:
    return (double)((const int64_t *)p)[i];
  case EMBRT_I8:
    return ((const int8_t *)p)[i];
  }
  return NAN;
}

/// Stores `value` as `dtype` (the runtime's rounding: inputs only).
static inline void refStore(void *p, embrtDtype dtype, int64_t i,
                            double value) {
  switch (dtype) {
  case EMBRT_F16:
    ((uint16_t *)p)[i] = embrtF32ToF16((float)value);
    break;
  case EMBRT_BF16:
    ((uint16_t *)p)[i] = embrtF32ToBF16((float)value);
    break;
  case EMBRT_F64:
    ((double *)p)[i] = value;
    break;
  case EMBRT_F32:
    ((float *)p)[i] = (float)value;
    break;
  case EMBRT_I32:
    ((int32_t *)p)[i] = (int32_t)value;
    break;
  case EMBRT_I64:
    ((int64_t *)p)[i] = (int64_t)value;
    break;
  case EMBRT_I8:
    ((int8_t *)p)[i] = (int8_t)value;
    break;
  }
}

/// A new host tensor of n elements of `dtype` holding random nonzero values.
static inline void *randomTensor(Rng *rng, embrtDtype dtype, int64_t n) {
  void *p = malloc((size_t)(n > 0 ? n : 1) * embrtDtypeSize(dtype));
  for (int64_t i = 0; i < n; ++i)
    refStore(p, dtype, i, rngValue(rng));
  return p;
}

/// A new host buffer of `bytes` filled with 0xFF (NaN for every float type),
/// so that an element the runtime forgets to write shows.
static inline void *poisoned(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  memset(p, 0xFF, bytes ? bytes : 1);
  return p;
}

/// A new index tensor of `dtype` (I32 or I64) holding `values`.
static inline void *indexTensor(embrtDtype dtype, const int64_t *values,
                                int64_t n) {
  void *p = malloc((size_t)(n > 0 ? n : 1) * embrtDtypeSize(dtype));
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == EMBRT_I32)
      ((int32_t *)p)[i] = (int32_t)values[i];
    else
      ((int64_t *)p)[i] = values[i];
  }
  return p;
}

/// A new device buffer of `ctx` holding `bytes` of `host` (at least one byte
/// allocated, so that an empty tensor still has an address).
static inline void *harnessUpload(embrtContext *ctx, const void *host,
                                  size_t bytes) {
  void *d = NULL;
  EXPECT_STATUS(embrtMalloc(ctx, bytes ? bytes : 1, &d), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtMemcpy(ctx, d, host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
                EMBRT_OK, ctx);
  return d;
}

static inline const char *dtypeLabel(embrtDtype dtype) {
  static const char *names[] = {"f32", "f16", "bf16", "i32",
                                "i64", "f64", "i8"};
  return (unsigned)dtype < 7 ? names[dtype] : "?";
}

static inline embrtContext *newCpuContext(void) {
  embrtContext *ctx = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &ctx) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CPU context: %s\n", embrtGetCreateError());
    exit(1);
  }
  return ctx;
}

#endif // EMB_TEST_RUNTIME_HARNESS_H
