// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/jagged
//===- test/Kernels/jagged.c - GPU test of embrtJaggedToPadded ------------===//
//
// embrtJaggedToPadded on a CUDA context (kernels/jagged.cu) against the CPU
// reference backend on a CPU context, on fresh random inputs (values never
// zero): f32, f16, bf16 and f64 rows whose widths take every copy unit (16,
// 8, 4 and 2 bytes: 64 f16 elements, 4 f16, 2 f16, 1 f16; 3 f32), values
// one element off alignment, i32 and i64 offsets, empty users, users longer
// than max_length, a padding value, without a lengths buffer; a sequence
// feature of the ranking model's size (32 users of 256-1024 rows, D = 128,
// Lk = 1024, f16). The copy is exact, so the outputs must be equal bit for
// bit; both outputs are poisoned with 0xFF bytes first, so an unwritten
// element fails. Bad offsets: the device records the first one, reported by
// embrtSynchronize as EMBRT_OUT_OF_RANGE naming it; the bad user's rows are
// padding and its length 0.
//
// Usage: jagged [--quick]   (--quick: no model-sized case, for
// compute-sanitizer)
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"

static embrtContext *cpu, *gpu;

static void *upload(const void *host, size_t bytes) {
  return harnessUpload(gpu, host, bytes);
}

static void *download(const void *dev, size_t bytes) {
  void *h = malloc(bytes ? bytes : 1);
  EXPECT_STATUS(embrtMemcpy(gpu, h, dev, bytes, EMBRT_COPY_DEVICE_TO_HOST),
                EMBRT_OK, gpu);
  return h;
}

typedef struct Case {
  const char *name;
  embrtDtype dtype, indexDtype;
  int64_t numUsers, rowElements, maxLength, minLength, maxUserLength;
  double padding;
  int withLengths, misalign;
} Case;

static void runCase(const Case *c, Rng *rng) {
  TEST_CASE(c->name);
  int64_t U = c->numUsers, D = c->rowElements, Lk = c->maxLength;
  int64_t *off = malloc((size_t)(U + 1) * sizeof(int64_t));
  off[0] = rngInt(rng, 0, 3);
  for (int64_t u = 0; u < U; ++u)
    off[u + 1] = off[u] + rngInt(rng, c->minLength, c->maxUserLength + 1);
  int64_t N = off[U] + 2;
  size_t es = embrtDtypeSize(c->dtype);
  size_t valueBytes = (size_t)(N * D) * es,
         paddedBytes = (size_t)(U * Lk * D) * es;
  size_t lengthBytes = (size_t)U * embrtDtypeSize(c->indexDtype);
  void *values = randomTensor(rng, c->dtype, N * D + 1);
  void *offsets = indexTensor(c->indexDtype, off, U + 1);
  // The CPU reference.
  void *want = poisoned(paddedBytes), *wantLengths = poisoned(lengthBytes);
  embrtJaggedToPaddedArgs a = {sizeof a,
                               (char *)values + (c->misalign ? es : 0),
                               N,
                               D,
                               c->dtype,
                               offsets,
                               c->indexDtype,
                               U,
                               Lk,
                               c->padding,
                               want,
                               c->withLengths ? wantLengths : NULL};
  EXPECT_STATUS(embrtJaggedToPadded(cpu, &a), EMBRT_OK, cpu);
  // The GPU, values one element off alignment when asked.
  char *dValues = upload(values, valueBytes + es);
  void *dOffsets =
      upload(offsets, (size_t)(U + 1) * embrtDtypeSize(c->indexDtype));
  void *poison =
      poisoned(paddedBytes > lengthBytes ? paddedBytes : lengthBytes);
  void *dPadded = upload(poison, paddedBytes),
       *dLengths = upload(poison, lengthBytes);
  a.values = dValues + (c->misalign ? es : 0);
  a.offsets = dOffsets;
  a.padded = dPadded;
  a.lengths = c->withLengths ? dLengths : NULL;
  EXPECT_STATUS(embrtJaggedToPadded(gpu, &a), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  void *got = download(dPadded, paddedBytes);
  void *gotLengths = download(dLengths, lengthBytes);
  if (memcmp(got, want, paddedBytes) != 0) {
    for (size_t i = 0; i < paddedBytes; ++i)
      if (((unsigned char *)got)[i] != ((unsigned char *)want)[i]) {
        HARNESS_FAIL("padded byte %zu (element %zu) differs", i, i / es);
        break;
      }
  }
  if (c->withLengths && memcmp(gotLengths, wantLengths, lengthBytes) != 0)
    HARNESS_FAIL("lengths differ");
  if (!c->withLengths && memcmp(gotLengths, poison, lengthBytes) != 0)
    HARNESS_FAIL("lengths written without a lengths buffer");
  embrtFree(gpu, dValues), embrtFree(gpu, dOffsets), embrtFree(gpu, dPadded);
  embrtFree(gpu, dLengths);
  free(off), free(values), free(offsets), free(want), free(wantLengths);
  free(poison), free(got), free(gotLengths);
}

static const Case kCases[] = {
    {"f16 D64 (16-byte units)", EMBRT_F16, EMBRT_I64, 9, 64, 8, 0, 16, 0.0, 1,
     0},
    {"f16 D4 (8-byte units)", EMBRT_F16, EMBRT_I32, 17, 4, 5, 0, 9, -1.0, 1, 0},
    {"f16 D2 (4-byte units)", EMBRT_F16, EMBRT_I64, 6, 2, 7, 0, 12, 0.5, 1, 0},
    {"f16 D1 (2-byte units)", EMBRT_F16, EMBRT_I32, 11, 1, 3, 0, 6, 2.0, 1, 0},
    {"f32 D3", EMBRT_F32, EMBRT_I32, 13, 3, 4, 0, 8, -3.25, 1, 0},
    {"f32 D128 misaligned", EMBRT_F32, EMBRT_I64, 7, 128, 6, 0, 10, 0.0, 1, 1},
    {"bf16 D128", EMBRT_BF16, EMBRT_I64, 10, 128, 12, 0, 20, 1.5, 1, 0},
    {"f64 D5", EMBRT_F64, EMBRT_I32, 8, 5, 4, 0, 7, -0.125, 0, 0},
    {"max_length 1", EMBRT_F32, EMBRT_I64, 20, 16, 1, 0, 3, 0.0, 1, 0},
    {"rows of zero elements", EMBRT_F32, EMBRT_I32, 6, 0, 4, 0, 6, 0.0, 1, 0},
};
static const Case kModel = {"sequence feature (32 users, 256-1024 rows)",
                            EMBRT_F16,
                            EMBRT_I64,
                            32,
                            128,
                            1024,
                            256,
                            1024,
                            0.0,
                            1,
                            0};

/// Offsets out of order on the device: the error names the first bad one,
/// the bad user's rows are padding and its length 0, the others are right.
static void testBadOffsets(void) {
  TEST_CASE("bad offsets");
  float values[6 * 2];
  for (int i = 0; i < 12; ++i)
    values[i] = (float)(i + 1);
  int64_t off[4] = {0, 3, 2, 6};
  float padded[3 * 2 * 2];
  int64_t lengths[3];
  void *dValues = upload(values, sizeof values),
       *dOff = upload(off, sizeof off);
  void *dPadded = upload(padded, sizeof padded),
       *dLengths = upload(lengths, sizeof lengths);
  embrtJaggedToPaddedArgs a = {sizeof a,  dValues, 6,         2,
                               EMBRT_F32, dOff,    EMBRT_I64, 3,
                               2,         -7.0,    dPadded,   dLengths};
  EXPECT_STATUS(embrtJaggedToPadded(gpu, &a), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OUT_OF_RANGE, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "jagged_to_padded: offsets[2] is 2, out of order or outside "
                  "0..6");
  embrtContextClearError(gpu);
  float *got = download(dPadded, sizeof padded);
  int64_t *gotLengths = download(dLengths, sizeof lengths);
  const float want[12] = {1, 2, 3, 4, -7, -7, -7, -7, 5, 6, 7, 8};
  for (int i = 0; i < 12; ++i)
    if (got[i] != want[i]) {
      HARNESS_FAIL("padded[%d] is %g, want %g", i, got[i], want[i]);
      break;
    }
  EXPECT_EQ_INT(gotLengths[0], 2);
  EXPECT_EQ_INT(gotLengths[1], 0);
  EXPECT_EQ_INT(gotLengths[2], 2);
  embrtFree(gpu, dValues), embrtFree(gpu, dOff), embrtFree(gpu, dPadded);
  embrtFree(gpu, dLengths);
  free(got), free(gotLengths);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  cpu = newCpuContext();
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }
  Rng rng = rngSeed(0x5E9F);
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i)
    runCase(&kCases[i], &rng);
  if (!quick)
    runCase(&kModel, &rng);
  testBadOffsets();
  embrtContextDestroy(gpu);
  embrtContextDestroy(cpu);
  return harnessFinish();
}
