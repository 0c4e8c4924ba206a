// REQUIRES: cuda-gpu
// RUN: %runtime_test_dir/cuda_plumbing
//
// The CUDA backend's plumbing on a real GPU, against the CPU backend on the
// same random inputs: contexts (owned and adopted streams), memory round
// trips, broadcast and broadcast_add (vector and scalar paths), concat,
// strided copy, elementwise, fill, convert, lce through cuBLAS, and the
// device error record of a bad cand_to_user surfacing at embrtSynchronize,
// ikbo_lce through the public API with strided weights, and compiled models'
// constants (uploaded once a context, by content).
// Every device output is poisoned with 0xFF bytes first.

#include "harness.h"

#include "emb/compiled.h"

#include <cuda_runtime_api.h>

static embrtContext *cpu, *gpu;

/// Fails the whole test: later cases would only repeat the cause.
static void require(embrtStatus status, const char *what) {
  if (status == EMBRT_OK)
    return;
  fprintf(stderr, "%s failed: %s: %s\n", what, embrtStatusName(status),
          embrtContextGetLastError(gpu));
  exit(1);
}

/// A device copy of `bytes` of host memory.
static void *upload(const void *host, size_t bytes) {
  void *device = NULL;
  require(embrtMalloc(gpu, bytes ? bytes : 1, &device), "embrtMalloc");
  if (bytes)
    require(embrtMemcpy(gpu, device, host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
            "embrtMemcpy");
  return device;
}

/// A device buffer of `bytes` filled with 0xFF.
static void *poisonedDevice(size_t bytes) {
  void *device = NULL;
  require(embrtMalloc(gpu, bytes ? bytes : 1, &device), "embrtMalloc");
  require(embrtMemset(gpu, device, 0xFF, bytes ? bytes : 1), "embrtMemset");
  return device;
}

/// Synchronizes and copies a device buffer to a new host buffer.
static void *download(const void *device, size_t bytes) {
  void *host = malloc(bytes ? bytes : 1);
  require(embrtMemcpy(gpu, host, device, bytes, EMBRT_COPY_DEVICE_TO_HOST),
          "embrtMemcpy");
  require(embrtSynchronize(gpu), "embrtSynchronize");
  return host;
}

static void release(void *device) { require(embrtFree(gpu, device), "free"); }

static void *randomBytes(Rng *rng, size_t bytes) {
  unsigned char *p = malloc(bytes ? bytes : 1);
  for (size_t i = 0; i < bytes; ++i)
    p[i] = (unsigned char)rngNext(rng);
  return p;
}

/// Compares float tensors of `dtype` element by element.
static void expectClose(const char *what, const void *got, const void *want,
                        embrtDtype dtype, int64_t n, double tol) {
  for (int64_t i = 0; i < n; ++i) {
    double w = refLoad(want, dtype, i);
    if (!EXPECT_NEAR(what, i, refLoad(got, dtype, i), w, 0.0, tol))
      return;
  }
}

//===----------------------------------------------------------------------===//
// Contexts and memory
//===----------------------------------------------------------------------===//

static void testContextAndMemory(Rng *rng) {
  TEST_CASE("memory round trip");
  size_t bytes = 1 << 20;
  unsigned char *host = randomBytes(rng, bytes);
  void *a = upload(host, bytes), *b = poisonedDevice(bytes);
  EXPECT_STATUS(embrtMemcpy(gpu, b, a, bytes, EMBRT_COPY_DEVICE_TO_DEVICE),
                EMBRT_OK, gpu);
  EXPECT_STATUS(embrtMemset(gpu, b, 0x3C, 100), EMBRT_OK, gpu);
  unsigned char *back = download(b, bytes);
  EXPECT_TRUE(back[0] == 0x3C && back[99] == 0x3C);
  EXPECT_TRUE(memcmp(back + 100, host + 100, bytes - 100) == 0);
  free(back);
  release(a);
  release(b);
  free(host);

  TEST_CASE("adopted stream");
  cudaStream_t stream = NULL;
  EXPECT_TRUE(cudaStreamCreate(&stream) == cudaSuccess);
  embrtContext *adopted = NULL;
  EXPECT_STATUS(embrtContextCreate(EMBRT_DEVICE_CUDA, 0, stream, &adopted),
                EMBRT_OK, adopted);
  if (adopted) {
    void *p = NULL;
    int value = 0x12345678, got = 0;
    EXPECT_STATUS(embrtMalloc(adopted, sizeof value, &p), EMBRT_OK, adopted);
    EXPECT_STATUS(embrtMemcpy(adopted, p, &value, sizeof value,
                              EMBRT_COPY_HOST_TO_DEVICE),
                  EMBRT_OK, adopted);
    EXPECT_STATUS(
        embrtMemcpy(adopted, &got, p, sizeof got, EMBRT_COPY_DEVICE_TO_HOST),
        EMBRT_OK, adopted);
    EXPECT_STATUS(embrtSynchronize(adopted), EMBRT_OK, adopted);
    EXPECT_TRUE(got == value);
    EXPECT_STATUS(embrtFree(adopted, p), EMBRT_OK, adopted);
    embrtContextDestroy(adopted);
  }
  // The context did not own the stream: it is still usable.
  EXPECT_TRUE(cudaStreamSynchronize(stream) == cudaSuccess);
  EXPECT_TRUE(cudaStreamDestroy(stream) == cudaSuccess);

  TEST_CASE("bad ordinal");
  embrtContext *none = NULL;
  EXPECT_TRUE(embrtContextCreate(EMBRT_DEVICE_CUDA, 4096, NULL, &none) !=
              EMBRT_OK);
  EXPECT_TRUE(none == NULL);
  EXPECT_CONTAINS(embrtGetCreateError(), "cudaSetDevice");
}

//===----------------------------------------------------------------------===//
// Broadcast
//===----------------------------------------------------------------------===//

/// Runs broadcast (or broadcast_add) on both backends; `shift` offsets the
/// device pointers by one element to force the scalar paths.
static void compareBroadcast(Rng *rng, embrtDtype dtype, int64_t width, int add,
                             int shift) {
  size_t es = embrtDtypeSize(dtype);
  int64_t U = rngInt(rng, 1, 7), B = rngInt(rng, 1, 50);
  size_t roBytes = (size_t)(U * width) * es,
         outBytes = (size_t)(B * width) * es;
  void *ro =
      add ? randomTensor(rng, dtype, U * width) : randomBytes(rng, roBytes);
  void *nro = add ? randomTensor(rng, dtype, B * width) : NULL;
  int64_t *users = malloc((size_t)B * sizeof(int64_t));
  for (int64_t b = 0; b < B; ++b)
    users[b] = rngInt(rng, 0, U);
  embrtDtype indexDtype = (B & 1) ? EMBRT_I64 : EMBRT_I32;
  void *c2u = indexTensor(indexDtype, users, B);

  void *want = poisoned(outBytes);
  embrtBroadcastArgs a = {sizeof a, ro,         U, width, dtype,
                          c2u,      indexDtype, B, nro,   want};
  EXPECT_STATUS(add ? embrtBroadcastAdd(cpu, &a) : embrtBroadcast(cpu, &a),
                EMBRT_OK, cpu);

  size_t pad = shift ? es : 0;
  char *dRo = poisonedDevice(roBytes + pad), *dNro = NULL, *dOut;
  require(embrtMemcpy(gpu, dRo + pad, ro, roBytes, EMBRT_COPY_HOST_TO_DEVICE),
          "embrtMemcpy");
  if (add) {
    dNro = poisonedDevice(outBytes + pad);
    require(
        embrtMemcpy(gpu, dNro + pad, nro, outBytes, EMBRT_COPY_HOST_TO_DEVICE),
        "embrtMemcpy");
  }
  dOut = poisonedDevice(outBytes + pad);
  void *dC2u = upload(c2u, (size_t)B * embrtDtypeSize(indexDtype));
  embrtBroadcastArgs d = {sizeof d,   dRo + pad, U,
                          width,      dtype,     dC2u,
                          indexDtype, B,         add ? dNro + pad : NULL,
                          dOut + pad};
  EXPECT_STATUS(add ? embrtBroadcastAdd(gpu, &d) : embrtBroadcast(gpu, &d),
                EMBRT_OK, gpu);
  char *got = download(dOut, outBytes + pad);
  if (add)
    expectClose("broadcast_add", got + pad, want, dtype, B * width,
                harnessTolerance(dtype, dtype));
  else
    EXPECT_TRUE(memcmp(got + pad, want, outBytes) == 0);
  free(got);
  release(dRo);
  release(dOut);
  release(dC2u);
  if (dNro)
    release(dNro);
  free(ro);
  free(nro);
  free(users);
  free(c2u);
  free(want);
}

static void testBroadcast(Rng *rng) {
  const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16,
                               EMBRT_F64, EMBRT_I8,  EMBRT_I64};
  const int64_t widths[] = {1, 3, 8, 64, 257};
  for (int d = 0; d < 6; ++d)
    for (int w = 0; w < 5; ++w)
      for (int shift = 0; shift < 2; ++shift) {
        TEST_CASE("broadcast");
        compareBroadcast(rng, dtypes[d], widths[w], 0, shift);
        if (d < 4) {
          TEST_CASE("broadcast_add");
          compareBroadcast(rng, dtypes[d], widths[w], 1, shift);
        }
      }
}

/// A bad cand_to_user entry is recorded on the device and reported by the
/// next embrtSynchronize; its row is zeros (broadcast) or nro alone
/// (broadcast_add); the record is reset afterwards.
static void testDeviceErrors(Rng *rng) {
  for (int add = 0; add < 2; ++add) {
    TEST_CASE(add ? "bad cand_to_user at synchronize (add)"
                  : "bad cand_to_user at synchronize");
    const int64_t U = 4, B = 8, E = 16;
    float ro[4 * 16], nro[8 * 16];
    for (int i = 0; i < U * E; ++i)
      ro[i] = (float)rngValue(rng);
    for (int i = 0; i < B * E; ++i)
      nro[i] = (float)rngValue(rng);
    int32_t users[8] = {0, 1, 2, 3, 0, 9, 2, 1};
    void *dRo = upload(ro, sizeof ro), *dNro = upload(nro, sizeof nro);
    void *dC2u = upload(users, sizeof users);
    void *dOut = poisonedDevice(sizeof nro);
    embrtBroadcastArgs a = {sizeof a,          dRo,  U,         E,
                            EMBRT_F32,         dC2u, EMBRT_I32, B,
                            add ? dNro : NULL, dOut};
    EXPECT_STATUS(add ? embrtBroadcastAdd(gpu, &a) : embrtBroadcast(gpu, &a),
                  EMBRT_OK, gpu); // enqueued: the error shows at synchronize
    EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OUT_OF_RANGE, gpu);
    EXPECT_CONTAINS(embrtContextGetLastError(gpu), "cand_to_user[5] is 9");
    EXPECT_CONTAINS(embrtContextGetLastError(gpu), "the 4 users");
    EXPECT_EQ_INT(embrtContextGetStatus(gpu), EMBRT_OUT_OF_RANGE);
    float out[8 * 16];
    EXPECT_STATUS(
        embrtMemcpy(gpu, out, dOut, sizeof out, EMBRT_COPY_DEVICE_TO_HOST),
        EMBRT_OK, gpu);
    EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu); // record was reset
    for (int64_t b = 0; b < B; ++b)
      for (int64_t e = 0; e < E; ++e) {
        float want = b == 5 ? (add ? nro[b * E + e] : 0.0f)
                            : ro[users[b] * E + e] + (add ? nro[b * E + e] : 0);
        EXPECT_TRUE(out[b * E + e] == want);
      }
    embrtContextClearError(gpu);
    release(dRo);
    release(dNro);
    release(dC2u);
    release(dOut);
  }
}

//===----------------------------------------------------------------------===//
// Data movement, elementwise, fill, convert
//===----------------------------------------------------------------------===//

static void testConcat(Rng *rng) {
  const int64_t inputCounts[] = {1, 3, 40}; // 40: more than one launch chunk
  for (int k = 0; k < 3; ++k)
    for (int d = 0; d < 3; ++d) {
      TEST_CASE("concat");
      embrtDtype dtype = d == 0 ? EMBRT_F32 : d == 1 ? EMBRT_F16 : EMBRT_I8;
      size_t es = embrtDtypeSize(dtype);
      int64_t n = inputCounts[k], outer = rngInt(rng, 1, 6);
      int64_t inner = k == 1 ? 8 : rngInt(rng, 1, 4), total = 0;
      int64_t *sizes = malloc((size_t)n * sizeof(int64_t));
      void **inputs = malloc((size_t)n * sizeof(void *));
      void **dInputs = malloc((size_t)n * sizeof(void *));
      for (int64_t i = 0; i < n; ++i) {
        sizes[i] = rngInt(rng, 0, 5);
        total += sizes[i];
        size_t bytes = (size_t)(outer * sizes[i] * inner) * es;
        inputs[i] = randomBytes(rng, bytes);
        dInputs[i] = upload(inputs[i], bytes);
      }
      size_t outBytes = (size_t)(outer * total * inner) * es;
      void *want = poisoned(outBytes), *dOut = poisonedDevice(outBytes);
      embrtConcatArgs a = {sizeof a, dtype, n,     (const void *const *)inputs,
                           sizes,    outer, inner, want};
      EXPECT_STATUS(embrtConcat(cpu, &a), EMBRT_OK, cpu);
      a.inputs = (const void *const *)dInputs;
      a.output = dOut;
      EXPECT_STATUS(embrtConcat(gpu, &a), EMBRT_OK, gpu);
      void *got = download(dOut, outBytes);
      EXPECT_TRUE(memcmp(got, want, outBytes) == 0);
      for (int64_t i = 0; i < n; ++i) {
        free(inputs[i]);
        release(dInputs[i]);
      }
      free(got);
      free(want);
      release(dOut);
      free(sizes);
      free(inputs);
      free(dInputs);
    }
}

static void testStridedCopy(Rng *rng) {
  for (int round = 0; round < 12; ++round) {
    TEST_CASE("strided_copy");
    embrtDtype dtype = round % 4 == 0   ? EMBRT_F64
                       : round % 4 == 1 ? EMBRT_F32
                       : round % 4 == 2 ? EMBRT_BF16
                                        : EMBRT_I8;
    size_t es = embrtDtypeSize(dtype);
    embrtStridedCopyArgs a;
    memset(&a, 0, sizeof a);
    a.structSize = sizeof a;
    a.dtype = dtype;
    a.rank = rngInt(rng, 1, 5);
    int64_t low = 0, high = 0, count = 1;
    for (int64_t d = 0; d < a.rank; ++d) {
      a.sizes[d] = rngInt(rng, 1, 6);
      a.inputStrides[d] = rngInt(rng, -9, 10);
      int64_t reach = (a.sizes[d] - 1) * a.inputStrides[d];
      low += reach < 0 ? reach : 0;
      high += reach > 0 ? reach : 0;
      count *= a.sizes[d];
    }
    a.inputOffset = -low;
    size_t inBytes = (size_t)(a.inputOffset + high + 1) * es;
    void *input = randomBytes(rng, inBytes), *want = poisoned(count * es);
    a.input = input;
    a.output = want;
    EXPECT_STATUS(embrtStridedCopy(cpu, &a), EMBRT_OK, cpu);
    void *dIn = upload(input, inBytes), *dOut = poisonedDevice(count * es);
    a.input = dIn;
    a.output = dOut;
    EXPECT_STATUS(embrtStridedCopy(gpu, &a), EMBRT_OK, gpu);
    void *got = download(dOut, count * es);
    EXPECT_TRUE(memcmp(got, want, count * es) == 0);
    free(input);
    free(want);
    free(got);
    release(dIn);
    release(dOut);
  }
}

static void testElementwise(Rng *rng) {
  const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16, EMBRT_F64};
  const int64_t n = 1000;
  for (int d = 0; d < 4; ++d)
    for (int op = 0; op < 6 + 9; ++op) {
      int isUnary = op >= 6;
      TEST_CASE(isUnary ? "elementwise unary" : "elementwise binary");
      embrtDtype dtype = dtypes[d];
      size_t bytes = (size_t)n * embrtDtypeSize(dtype);
      void *a = randomTensor(rng, dtype, n);
      void *b = isUnary ? NULL : randomTensor(rng, dtype, n);
      if (isUnary) // positive inputs keep sqrt, rsqrt and log finite
        for (int64_t i = 0; i < n; ++i)
          refStore(a, dtype, i, fabs(refLoad(a, dtype, i)));
      void *want = poisoned(bytes);
      embrtElementwiseArgs args = {
          sizeof args,
          dtype,
          n,
          isUnary,
          isUnary ? EMBRT_BINARY_ADD : (embrtBinaryOp)op,
          isUnary ? (embrtUnaryOp)(op - 6) : EMBRT_UNARY_NEG,
          a,
          b,
          want};
      EXPECT_STATUS(embrtElementwise(cpu, &args), EMBRT_OK, cpu);
      void *dA = upload(a, bytes), *dB = b ? upload(b, bytes) : NULL;
      void *dOut = poisonedDevice(bytes);
      args.a = dA;
      args.b = dB;
      args.output = dOut;
      EXPECT_STATUS(embrtElementwise(gpu, &args), EMBRT_OK, gpu);
      void *got = download(dOut, bytes);
      expectClose("elementwise", got, want, dtype, n,
                  harnessTolerance(dtype, dtype));
      free(a);
      free(b);
      free(want);
      free(got);
      release(dA);
      if (dB)
        release(dB);
      release(dOut);
    }
}

static void testFillAndConvert(Rng *rng) {
  const embrtDtype all[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16, EMBRT_I32,
                            EMBRT_I64, EMBRT_F64, EMBRT_I8};
  for (int d = 0; d < 7; ++d) {
    TEST_CASE("fill");
    size_t es = embrtDtypeSize(all[d]);
    int64_t n = 777;
    unsigned char value[8];
    for (size_t i = 0; i < es; ++i)
      value[i] = (unsigned char)rngInt(rng, 0, 255);
    void *dOut = poisonedDevice((size_t)n * es);
    EXPECT_STATUS(embrtFill(gpu, dOut, all[d], n, value), EMBRT_OK, gpu);
    unsigned char *got = download(dOut, (size_t)n * es);
    for (int64_t i = 0; i < n; ++i)
      if (memcmp(got + i * es, value, es)) {
        HARNESS_FAIL("fill element %lld differs", (long long)i);
        break;
      }
    free(got);
    release(dOut);
  }

  const int64_t n = 512;
  for (int from = 0; from < 7; ++from)
    for (int to = 0; to < 7; ++to) {
      TEST_CASE("convert");
      embrtDtype in = all[from], out = all[to];
      size_t inBytes = (size_t)n * embrtDtypeSize(in);
      size_t outBytes = (size_t)n * embrtDtypeSize(out);
      void *input = malloc(inBytes);
      for (int64_t i = 0; i < n; ++i) {
        int integer = in == EMBRT_I32 || in == EMBRT_I64 || in == EMBRT_I8;
        refStore(input, in, i,
                 integer ? (double)rngInt(rng, -120, 121)
                         : rngValue(rng) * 70.0);
      }
      if (in == EMBRT_I64) { // past 2^53: rounding needs every bit
        ((int64_t *)input)[0] = ((int64_t)1 << 56) + ((int64_t)1 << 48) + 1;
        ((int64_t *)input)[1] = INT64_MIN;
      }
      if (in == EMBRT_F64) { // an f16 tie only after rounding to f32
        ((double *)input)[0] = 1.0 + 0x1p-11 + 0x1p-40;
        ((double *)input)[1] = 1e300;
      }
      void *want = poisoned(outBytes);
      EXPECT_STATUS(embrtConvert(cpu, input, in, want, out, n), EMBRT_OK, cpu);
      void *dIn = upload(input, inBytes), *dOut = poisonedDevice(outBytes);
      EXPECT_STATUS(embrtConvert(gpu, dIn, in, dOut, out, n), EMBRT_OK, gpu);
      unsigned char *got = download(dOut, outBytes);
      if (memcmp(got, want, outBytes) != 0)
        for (int64_t i = 0; i < n; ++i)
          if (refLoad(got, out, i) != refLoad(want, out, i)) {
            HARNESS_FAIL("%s -> %s element %lld: gpu %.17g, cpu %.17g",
                         dtypeLabel(in), dtypeLabel(out), (long long)i,
                         refLoad(got, out, i), refLoad(want, out, i));
            break;
          }
      free(input);
      free(want);
      free(got);
      release(dIn);
      release(dOut);
    }
}

//===----------------------------------------------------------------------===//
// lce through cuBLAS
//===----------------------------------------------------------------------===//

static void testLce(Rng *rng) {
  const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  const int64_t shapes[][4] = {
      {3, 4, 5, 6}, {7, 16, 64, 33}, {2, 1, 1, 1}, {2, 3, 0, 4}};
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 4; ++s) {
      TEST_CASE("lce");
      embrtDtype dtype = dtypes[d];
      size_t es = embrtDtypeSize(dtype);
      int64_t B = shapes[s][0], M = shapes[s][1], K = shapes[s][2],
              N = shapes[s][3];
      void *w = randomTensor(rng, dtype, M * K);
      void *x = randomTensor(rng, dtype, B * K * N);
      size_t outBytes = (size_t)(B * M * N) * es;
      void *want = poisoned(outBytes);
      embrtLceArgs a = {sizeof a, dtype, B, M, K, N, w, x, want, -1, NULL, 0};
      EXPECT_STATUS(embrtLce(cpu, &a), EMBRT_OK, cpu);

      void *dW = upload(w, (size_t)(M * K) * es);
      void *dX = upload(x, (size_t)(B * K * N) * es);
      void *dOut = poisonedDevice(outBytes);
      a.w = dW, a.x = dX, a.output = dOut;
      size_t bytes = 0;
      EXPECT_STATUS(embrtLceWorkspaceSize(gpu, &a, &bytes), EMBRT_OK, gpu);
      EXPECT_TRUE(bytes >= (size_t)4 << 20);
      void *dWork = NULL;
      require(embrtMalloc(gpu, bytes, &dWork), "embrtMalloc");
      a.workspace = dWork;
      a.workspaceBytes = bytes - 1;
      EXPECT_STATUS(embrtLce(gpu, &a), EMBRT_INVALID_ARGUMENT, gpu);
      EXPECT_CONTAINS(embrtContextGetLastError(gpu), "lce: workspace has");
      embrtContextClearError(gpu);
      a.workspaceBytes = bytes;
      EXPECT_STATUS(embrtLce(gpu, &a), EMBRT_OK, gpu);
      void *got = download(dOut, outBytes);
      // Tolerance against the magnitude of each element's terms.
      double tol = harnessTolerance(dtype, dtype);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            double magnitude = 0.0;
            for (int64_t k = 0; k < K; ++k)
              magnitude += fabs(refLoad(w, dtype, m * K + k) *
                                refLoad(x, dtype, (b * K + k) * N + n));
            int64_t at = (b * M + m) * N + n;
            if (!EXPECT_NEAR("lce", at, refLoad(got, dtype, at),
                             refLoad(want, dtype, at), magnitude, tol))
              b = B, m = M, n = N;
          }
      free(w);
      free(x);
      free(want);
      free(got);
      release(dW);
      release(dX);
      release(dOut);
      release(dWork);
    }
}

/// embrtIkboLce through the public API on the GPU against the CPU backend,
/// the weights passed as column blocks of one [M, Ku + Kc + extra] matrix:
/// copied with a 16-byte pitch (odd K), read in place (aligned stride and
/// offset), and the portable path (N = 7); f32 on the cuBLAS path (the
/// context's handle) and computed in bf16 and f16 (computeDtype, against
/// the CPU's same roundings, at that type's tolerance).
static void testIkboLce(Rng *rng) {
  const embrtDtype dtypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  const embrtDtype computes[] = {EMBRT_F32, EMBRT_BF16, EMBRT_F16};
  const int64_t shapes[][7] = {// B, U, M, Ku, Kc, N, extra columns
                               {24, 3, 40, 70, 37, 64, 5},
                               {16, 2, 33, 64, 64, 48, 0},
                               {5, 2, 3, 4, 5, 7, 1}};
  for (int d = 0; d < 3; ++d)
    for (int c = 0; c < (d == 0 ? 3 : 1); ++c)
      for (int s = 0; s < 3; ++s) {
        TEST_CASE(c ? "ikbo_lce computeDtype" : "ikbo_lce");
        embrtDtype dtype = dtypes[d];
        size_t es = embrtDtypeSize(dtype);
        int64_t B = shapes[s][0], U = shapes[s][1], M = shapes[s][2],
                Ku = shapes[s][3], Kc = shapes[s][4], N = shapes[s][5];
        int64_t S = Ku + Kc + shapes[s][6];
        void *w = randomTensor(rng, dtype, M * S);
        void *user = randomTensor(rng, dtype, U * Ku * N);
        void *cand = randomTensor(rng, dtype, B * Kc * N);
        int64_t *users = malloc((size_t)B * sizeof(int64_t));
        for (int64_t b = 0; b < B; ++b)
          users[b] = rngInt(rng, 0, U);
        size_t outBytes = (size_t)(B * M * N) * es;
        void *want = poisoned(outBytes);
        embrtIkboLceArgs a;
        memset(&a, 0, sizeof a);
        a.structSize = sizeof a;
        a.dtype = dtype;
        a.batchSize = B;
        a.numUsers = U;
        a.m = M;
        a.kUser = Ku;
        a.kCand = Kc;
        a.n = N;
        a.wUser = w;
        a.wCand = (char *)w + Ku * es;
        a.wUserStride = a.wCandStride = S;
        a.user = user;
        a.cand = cand;
        a.candToUser = users;
        a.indexDtype = EMBRT_I64;
        a.output = want;
        a.configId = -1;
        a.computeDtype = computes[c];
        EXPECT_STATUS(embrtIkboLce(cpu, &a), EMBRT_OK, cpu);

        void *dW = upload(w, (size_t)(M * S) * es);
        void *dUser = upload(user, (size_t)(U * Ku * N) * es);
        void *dCand = upload(cand, (size_t)(B * Kc * N) * es);
        void *dIdx = upload(users, (size_t)B * sizeof(int64_t));
        void *dOut = poisonedDevice(outBytes);
        a.wUser = dW;
        a.wCand = (char *)dW + Ku * es;
        a.user = dUser, a.cand = dCand, a.candToUser = dIdx, a.output = dOut;
        size_t bytes = 0;
        EXPECT_STATUS(embrtIkboLceWorkspaceSize(gpu, &a, &bytes), EMBRT_OK,
                      gpu);
        void *dWork = NULL;
        require(embrtMalloc(gpu, bytes ? bytes : 1, &dWork), "embrtMalloc");
        a.workspace = dWork;
        a.workspaceBytes = bytes;
        EXPECT_STATUS(embrtIkboLce(gpu, &a), EMBRT_OK, gpu);
        void *got = download(dOut, outBytes);
        // Tolerance against the magnitude of each element's terms (the
        // compute type's when the call rounds to one).
        embrtDtype read = c ? computes[c] : dtype;
        double tol = harnessTolerance(read, read);
        for (int64_t b = 0; b < B; ++b)
          for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < N; ++n) {
              double magnitude = 0.0;
              for (int64_t k = 0; k < Kc; ++k)
                magnitude += fabs(refLoad(w, dtype, m * S + Ku + k) *
                                  refLoad(cand, dtype, (b * Kc + k) * N + n));
              for (int64_t k = 0; k < Ku; ++k)
                magnitude +=
                    fabs(refLoad(w, dtype, m * S + k) *
                         refLoad(user, dtype, (users[b] * Ku + k) * N + n));
              int64_t at = (b * M + m) * N + n;
              if (!EXPECT_NEAR("ikbo_lce", at, refLoad(got, dtype, at),
                               refLoad(want, dtype, at), magnitude, tol))
                b = B, m = M, n = N;
            }
        free(w);
        free(user);
        free(cand);
        free(users);
        free(want);
        free(got);
        release(dW);
        release(dUser);
        release(dCand);
        release(dIdx);
        release(dOut);
        release(dWork);
      }
}

static void testConstants(Rng *rng) {
  TEST_CASE("compiled constants");
  size_t bytes = 3000;
  unsigned char *host = randomBytes(rng, bytes);
  unsigned char *other = malloc(bytes);
  memcpy(other, host, bytes);
  embrtContext *ctx = NULL;
  require(embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &ctx), "context");
  void *a = embrtCompiledConstant(ctx, host, (int64_t)bytes, 77);
  EXPECT_TRUE(a != NULL && a != (void *)host);
  // The same content (key) at another address: the same device copy.
  EXPECT_TRUE(embrtCompiledConstant(ctx, other, (int64_t)bytes, 77) == a);
  // Another key: another copy.
  other[5] ^= 1;
  void *b = embrtCompiledConstant(ctx, other, (int64_t)bytes, 78);
  EXPECT_TRUE(b != NULL && b != a);
  void *c = embrtCompiledConstant(ctx, host, (int64_t)bytes - 1, 77);
  EXPECT_TRUE(c != NULL && c != a);
  EXPECT_STATUS(embrtSynchronize(ctx), EMBRT_OK, ctx);
  unsigned char *back = malloc(bytes);
  EXPECT_TRUE(cudaMemcpy(back, a, bytes, cudaMemcpyDeviceToHost) ==
              cudaSuccess);
  EXPECT_TRUE(memcmp(back, host, bytes) == 0);
  EXPECT_TRUE(cudaMemcpy(back, b, bytes, cudaMemcpyDeviceToHost) ==
              cudaSuccess);
  EXPECT_TRUE(memcmp(back, other, bytes) == 0);
  EXPECT_TRUE(embrtCompiledConstant(ctx, NULL, 4, 1) == NULL);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "constant: 4 bytes at");
  embrtContextDestroy(ctx); // frees the copies
  free(back);
  free(other);
  free(host);
}

int main(void) {
  Rng rng = rngSeed(0x6B0);
  cpu = newCpuContext();
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "no CUDA context: %s\n", embrtGetCreateError());
    return 1;
  }
  testContextAndMemory(&rng);
  testBroadcast(&rng);
  testDeviceErrors(&rng);
  testConcat(&rng);
  testStridedCopy(&rng);
  testElementwise(&rng);
  testFillAndConvert(&rng);
  testLce(&rng);
  testIkboLce(&rng);
  testConstants(&rng);
  EXPECT_EQ_INT(embrtContextGetStatus(gpu), EMBRT_OK);
  embrtContextDestroy(gpu);
  embrtContextDestroy(cpu);
  return harnessFinish();
}
