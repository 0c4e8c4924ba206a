// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/attention_additive_mask
//===- test/Kernels/attention_additive_mask.c - GPU test of additiveMask --===//
//
// embrtAttention and embrtIkboAttention with additiveMask (SDPA's additive
// key mask, kernels/attention_additive_mask.cu) on a CUDA context against
// the CPU reference backend on a CPU context, on fresh random inputs:
// f32, f16 and bf16, f32 data computed in f16, i32 and i64 indices, head
// dims 8 (the SIMT path), 64 and 128 (the tensor-core paths) and 5 (f32:
// rows the check reads an element at a time), lengths from 0 to Lk (up to
// 300 keys: several of the check's 128-key slices). Each case runs on finite
// inputs first, where the result must be the one without the mask bit for bit
// (the check reads and writes nothing else), then with values planted where the
// mask hides them: a NaN key and an inf value past a row's length, a NaN query
// of a row that keeps no key, an inf query element, and (f16) a query and a
// masked key of 200, whose score is past 65504. The CUDA result must have NaN
// exactly where the CPU's has it and agree elsewhere within the data type's
// tolerance; without the mask bit the same inputs must give the CPU's finite
// result (the op reads no masked key).
//
// Usage: attention_additive_mask [--quick]   (--quick: the small cases, for
// compute-sanitizer)
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"

static embrtContext *cpu, *gpu;

static void *upload(const void *host, size_t bytes) {
  return harnessUpload(gpu, host, bytes);
}

static void download(void *host, const void *dev, size_t bytes) {
  EXPECT_STATUS(embrtMemcpy(gpu, host, dev, bytes, EMBRT_COPY_DEVICE_TO_HOST),
                EMBRT_OK, gpu);
}

typedef struct Case {
  embrtDtype dtype, compute, indexDtype;
  int ikbo;
  int64_t B, U, Lq, Lk, H, Dh;
} Case;

/// Runs `a` on the GPU (inputs uploaded, output and workspace poisoned) and
/// returns the output on the host.
static void *runGpu(const embrtAttentionArgs *host, size_t qBytes,
                    size_t kvBytes, size_t idxBytes, size_t lenBytes) {
  embrtAttentionArgs a = *host;
  a.q = upload(host->q, qBytes);
  a.k = upload(host->k, kvBytes);
  a.v = upload(host->v, kvBytes);
  a.candToUser = host->candToUser ? upload(host->candToUser, idxBytes) : NULL;
  a.userLengths = upload(host->userLengths, lenBytes);
  void *poison = poisoned(qBytes);
  a.output = upload(poison, qBytes);
  size_t wsBytes = 0;
  EXPECT_STATUS(embrtAttentionWorkspaceSize(gpu, &a, &wsBytes), EMBRT_OK, gpu);
  void *wsPoison = poisoned(wsBytes);
  a.workspace = wsBytes ? upload(wsPoison, wsBytes) : NULL;
  a.workspaceBytes = wsBytes;
  EXPECT_STATUS(host->candToUser ? embrtIkboAttention(gpu, &a)
                                 : embrtAttention(gpu, &a),
                EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  download(poison, a.output, qBytes);
  embrtFree(gpu, (void *)a.q);
  embrtFree(gpu, (void *)a.k);
  embrtFree(gpu, (void *)a.v);
  embrtFree(gpu, (void *)a.candToUser);
  embrtFree(gpu, (void *)a.userLengths);
  embrtFree(gpu, a.output);
  embrtFree(gpu, a.workspace);
  free(wsPoison);
  return poison;
}

static void *runCpu(const embrtAttentionArgs *host, size_t qBytes) {
  embrtAttentionArgs a = *host;
  a.output = poisoned(qBytes);
  size_t wsBytes = 0;
  EXPECT_STATUS(embrtAttentionWorkspaceSize(cpu, &a, &wsBytes), EMBRT_OK, cpu);
  a.workspace = malloc(wsBytes ? wsBytes : 1);
  a.workspaceBytes = wsBytes;
  EXPECT_STATUS(host->candToUser ? embrtIkboAttention(cpu, &a)
                                 : embrtAttention(cpu, &a),
                EMBRT_OK, cpu);
  free(a.workspace);
  return a.output;
}

/// Tolerance of the output: the compute type's rounding (f32 data
/// computed in f16 carries f16's), times a few ulps of O(1) values.
static double tolerance(const Case *c) {
  embrtDtype t = c->compute != EMBRT_F32 ? c->compute : c->dtype;
  return t == EMBRT_BF16 ? 3e-2 : t == EMBRT_F16 ? 4e-3 : 1e-4;
}

/// The GPU's output against the CPU's: NaN at the same elements, the rest
/// within tolerance. Returns the number of NaN elements.
static int64_t compare(const Case *c, const void *got, const void *want,
                       int64_t n) {
  double tol = tolerance(c);
  int64_t nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    double g = refLoad(got, c->dtype, i), w = refLoad(want, c->dtype, i);
    if (isnan(w)) {
      ++nans;
      if (!isnan(g)) {
        HARNESS_FAIL("output[%lld] is %g, the CPU's NaN", (long long)i, g);
        return nans;
      }
      continue;
    }
    if (!EXPECT_NEAR("output", i, g, w, 1.0, tol))
      return nans;
  }
  return nans;
}

static void runCase(const Case *c, Rng *rng) {
  char name[160];
  snprintf(name, sizeof name,
           "%s %s%s B %lld U %lld Lq %lld Lk %lld H %lld "
           "Dh %lld %s",
           c->ikbo ? "ikbo_attention" : "attention", dtypeLabel(c->dtype),
           c->compute != EMBRT_F32 ? " in f16" : "", (long long)c->B,
           (long long)c->U, (long long)c->Lq, (long long)c->Lk, (long long)c->H,
           (long long)c->Dh, dtypeLabel(c->indexDtype));
  TEST_CASE(name);
  int64_t B = c->B, U = c->ikbo ? c->U : c->B, Lq = c->Lq, Lk = c->Lk, H = c->H,
          Dh = c->Dh;
  int64_t nq = B * Lq * H * Dh, nkv = U * Lk * H * Dh;
  size_t es = embrtDtypeSize(c->dtype), is = embrtDtypeSize(c->indexDtype);
  void *q = randomTensor(rng, c->dtype, nq);
  void *k = randomTensor(rng, c->dtype, nkv);
  void *v = randomTensor(rng, c->dtype, nkv);
  int64_t *users = malloc((size_t)B * sizeof(int64_t));
  int64_t *lens = malloc((size_t)U * sizeof(int64_t));
  for (int64_t b = 0; b < B; ++b)
    users[b] = c->ikbo ? rngInt(rng, 0, U) : b;
  for (int64_t u = 0; u < U; ++u)
    lens[u] = u == 0 ? 0 : u == 1 ? Lk : rngInt(rng, 0, Lk + 1);
  void *c2u = c->ikbo ? indexTensor(c->indexDtype, users, B) : NULL;
  void *lengths = indexTensor(c->indexDtype, lens, U);
  embrtAttentionArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = c->dtype;
  a.computeDtype = c->compute;
  a.batchSize = B;
  a.numUsers = U;
  a.lq = Lq, a.lk = Lk, a.heads = H, a.headDim = Dh;
  a.scale = (float)(1.0 / sqrt((double)Dh));
  a.q = q, a.k = k, a.v = v;
  a.candToUser = c2u;
  a.userLengths = lengths;
  a.indexDtype = c->indexDtype;
  a.configId = -1;
  size_t qBytes = (size_t)nq * es, kvBytes = (size_t)nkv * es;
  size_t idxBytes = (size_t)B * is, lenBytes = (size_t)U * is;

  // Finite inputs: the lengths' result, bit for bit.
  void *plain = runGpu(&a, qBytes, kvBytes, idxBytes, lenBytes);
  a.additiveMask = 1;
  void *masked = runGpu(&a, qBytes, kvBytes, idxBytes, lenBytes);
  EXPECT_TRUE(memcmp(plain, masked, qBytes) == 0);
  free(plain);
  free(masked);

  // Values the mask hides. A row whose user keeps some keys but not all
  // (the first such b), and one whose user keeps none (user 0).
  int64_t partial = -1, none = -1;
  for (int64_t b = 0; b < B; ++b) {
    int64_t n = lens[users[b]];
    if (n > 0 && n < Lk && partial < 0)
      partial = b;
    if (n == 0 && none < 0)
      none = b;
  }
#define KV(u, j, h, d) ((((u)*Lk + (j)) * H + (h)) * Dh + (d))
#define QO(b, i, h, d) ((((b)*Lq + (i)) * H + (h)) * Dh + (d))
  if (partial >= 0) {
    int64_t u = users[partial], n = lens[u];
    refStore(k, c->dtype, KV(u, n, 0, Dh - 1), NAN);
    refStore(v, c->dtype, KV(u, Lk - 1, H - 1, 0), INFINITY);
    // The first masked key's value: in the key block of the row's last kept
    // key unless the length ends a block.
    refStore(v, c->dtype, KV(u, n, H - 1, 1), INFINITY);
    // q 200 and a masked key 200 in head H - 1: 200^2 * sqrt(Dh) >= 113137.
    for (int64_t d = 0; d < Dh; ++d) {
      refStore(q, c->dtype, QO(partial, Lq - 1, H - 1, d), 200.0);
      refStore(k, c->dtype, KV(u, Lk - 1, H - 1, d), 200.0);
    }
  }
  if (none >= 0) {
    refStore(q, c->dtype, QO(none, 0, 0, 0), NAN);
    refStore(q, c->dtype, QO(none, Lq - 1, H - 1, Dh / 2), INFINITY);
  }
#undef KV
#undef QO
  void *got = runGpu(&a, qBytes, kvBytes, idxBytes, lenBytes);
  void *want = runCpu(&a, qBytes);
  int64_t nans = compare(c, got, want, nq);
  // The planted values make NaNs, so the case cannot pass by having none.
  EXPECT_TRUE(nans > 0 || (partial < 0 && none < 0));
  free(got);
  free(want);

  // Without the mask bit the op never reads a masked key, its value or the
  // query of a row that keeps none: the same planted inputs give finite
  // results on both backends (the tensor-core kernels load whole key blocks
  // and must not let a masked inf value through as 0 x inf).
  a.additiveMask = 0;
  got = runGpu(&a, qBytes, kvBytes, idxBytes, lenBytes);
  want = runCpu(&a, qBytes);
  EXPECT_TRUE(compare(c, got, want, nq) == 0);
  free(got);
  free(want);
  free(q);
  free(k);
  free(v);
  free(users);
  free(lens);
  free(c2u);
  free(lengths);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }
  cpu = newCpuContext();
  Rng rng = rngSeed(0xADD17E);
  static const embrtDtype types[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  static const int64_t dims[] = {8, 64, 128};
  for (int t = 0; t < 3; ++t)
    for (int d = 0; d < 3; ++d)
      for (int ikbo = 0; ikbo < 2; ++ikbo) {
        if (types[t] == EMBRT_F32 && dims[d] != 8 && quick)
          continue;
        Case c = {types[t],
                  EMBRT_F32,
                  ikbo ? EMBRT_I32 : EMBRT_I64,
                  ikbo,
                  ikbo ? 24 : 12,
                  5,
                  2,
                  37,
                  2,
                  dims[d]};
        runCase(&c, &rng);
        if (!quick) { // longer histories, one query a candidate
          Case l = {types[t], EMBRT_F32, EMBRT_I64, ikbo, 64,
                    8,        1,         300,       2,    dims[d]};
          runCase(&l, &rng);
        }
      }
  // f32 rows of 5 elements: the check's loads one element at a time.
  for (int ikbo = 0; ikbo < 2; ++ikbo) {
    Case c = {EMBRT_F32, EMBRT_F32, EMBRT_I64, ikbo, 24, 5, 3, 200, 2, 5};
    runCase(&c, &rng);
  }
  // f32 data computed in f16: the check reads the f32 data.
  for (int ikbo = 0; ikbo < 2; ++ikbo) {
    Case c = {EMBRT_F32, EMBRT_F16, EMBRT_I32, ikbo, 24, 5, 2, 37, 2, 128};
    runCase(&c, &rng);
  }
  embrtContextDestroy(gpu);
  embrtContextDestroy(cpu);
  return harnessFinish();
}
