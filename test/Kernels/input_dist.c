// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/input_dist
//===- test/Kernels/input_dist.c - GPU test of the input dist -------------===//
//
// embrtBucketize and embrtLengthsToOffsets on a CUDA context
// (kernels/input_dist.cu) against the CPU reference backend on a CPU context,
// on fresh random inputs. Plans drawn at random over W ranks: each feature
// table-wise, row-wise (random cut points, ranks in a random order, empty
// shards included), column-wise (2 to W slots taking every id) or left out;
// ids in and out of the table (clamped to its first and last shard); empty
// bags and long ones (more than a warp's 32 ids); i32 and i64; with and
// without per-sample weights of f32, f16 and bf16; a batch of the ranking
// model's size (B = 2048, 26 features, 8 ranks, about 20 ids a bag). Both
// backends only move ids, so their outputs must be equal bit for bit; the
// GPU's outputs are poisoned (0xFF) first, so an unwritten entry fails.
// Lengths to offsets: random lengths, 1 to 8 blocks, up to 2^20 entries
// (many CTAs of CUB's scan), no lengths at all. Bad offsets and a negative
// length: the device records them and embrtSynchronize reports them as
// EMBRT_OUT_OF_RANGE naming the bag or the length.
//
// Usage: input_dist [--quick]   (--quick: no model-sized case, for
// compute-sanitizer)
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"

#include <stdbool.h>

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

/// A buffer of `bytes` on the GPU filled with 0xFF.
static void *poisonedDevice(size_t bytes) {
  void *host = poisoned(bytes);
  void *d = upload(host, bytes);
  free(host);
  return d;
}

static void expectSameBytes(const char *what, const void *got, const void *want,
                            size_t bytes) {
  if (memcmp(got, want, bytes) == 0)
    return;
  for (size_t i = 0; i < bytes; ++i)
    if (((const unsigned char *)got)[i] != ((const unsigned char *)want)[i]) {
      HARNESS_FAIL("%s: byte %zu of %zu differs", what, i, bytes);
      return;
    }
}

//===----------------------------------------------------------------------===//
// Random plans and batches
//===----------------------------------------------------------------------===//

typedef struct Plan {
  int64_t numSlots;
  int64_t *ranks, *features, *begin, *end; ///< rank-major
} Plan;

/// Each feature of `rows[f]` rows gets a random kind over `W` ranks; the
/// slots are then ordered by rank (stable), as emb-shard orders them.
static Plan randomPlan(Rng *rng, int64_t F, int64_t W, const int64_t *rows) {
  int64_t cap = F * W + 1, n = 0;
  int64_t *r = malloc(sizeof(int64_t) * (size_t)cap * 4);
  int64_t *f = r + cap, *b = r + 2 * cap, *e = r + 3 * cap;
  int64_t *perm = malloc(sizeof(int64_t) * (size_t)W);
  for (int64_t k = 0; k < F; ++k) {
    int64_t kind = rngInt(rng, 0, 4), E = rows[k];
    for (int64_t j = 0; j < W; ++j)
      perm[j] = j;
    for (int64_t j = W - 1; j > 0; --j) {
      int64_t t = rngInt(rng, 0, j + 1), x = perm[j];
      perm[j] = perm[t];
      perm[t] = x;
    }
    if (kind == 0) { // table-wise
      r[n] = perm[0], f[n] = k, b[n] = 0, e[n] = E, ++n;
    } else if (kind == 1) { // row-wise: W ranges from sorted cut points
      int64_t *cuts = malloc(sizeof(int64_t) * (size_t)(W + 1));
      cuts[0] = 0, cuts[W] = E;
      for (int64_t j = 1; j < W; ++j)
        cuts[j] = rngInt(rng, 0, E + 1);
      for (int64_t j = 1; j < W; ++j) // insertion sort: W is small
        for (int64_t t = j; t > 1 && cuts[t] < cuts[t - 1]; --t) {
          int64_t x = cuts[t];
          cuts[t] = cuts[t - 1];
          cuts[t - 1] = x;
        }
      for (int64_t j = 0; j < W; ++j)
        r[n] = perm[j], f[n] = k, b[n] = cuts[j], e[n] = cuts[j + 1], ++n;
      free(cuts);
    } else if (kind == 2) { // column-wise: 2..W slots, each every id
      int64_t c = W < 2 ? 1 : rngInt(rng, 2, W + 1);
      for (int64_t j = 0; j < c; ++j)
        r[n] = perm[j], f[n] = k, b[n] = 0, e[n] = E, ++n;
    } // kind 3: no slot (data-parallel, read elsewhere)
  }
  if (n == 0) // at least one slot
    r[n] = 0, f[n] = 0, b[n] = 0, e[n] = rows[0], ++n;
  Plan p = {n, malloc(sizeof(int64_t) * (size_t)n * 4), NULL, NULL, NULL};
  p.features = p.ranks + n, p.begin = p.ranks + 2 * n, p.end = p.ranks + 3 * n;
  int64_t at = 0;
  for (int64_t rank = 0; rank < W; ++rank)
    for (int64_t s = 0; s < n; ++s)
      if (r[s] == rank) {
        p.ranks[at] = r[s], p.features[at] = f[s], p.begin[at] = b[s];
        p.end[at++] = e[s];
      }
  free(r);
  free(perm);
  return p;
}

typedef struct Case {
  const char *name;
  embrtDtype indexDtype, weightDtype; ///< weightDtype -1: no weights
  int64_t features, batch, world, maxBag, maxRows;
} Case;

static void runBucketize(const Case *c, Rng *rng) {
  TEST_CASE(c->name);
  int64_t F = c->features, B = c->batch, W = c->world;
  int64_t *rows = malloc(sizeof(int64_t) * (size_t)F);
  for (int64_t k = 0; k < F; ++k)
    rows[k] = rngInt(rng, 1, c->maxRows + 1);
  Plan p = randomPlan(rng, F, W, rows);
  int64_t *off = malloc(sizeof(int64_t) * (size_t)(F * B + 1));
  off[0] = 0;
  for (int64_t i = 0; i < F * B; ++i) // some empty bags, some long ones
    off[i + 1] =
        off[i] + (rngInt(rng, 0, 9) == 0 ? 0 : rngInt(rng, 1, c->maxBag + 1));
  int64_t N = off[F * B];
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)(N + 1));
  for (int64_t k = 0; k < F; ++k)
    for (int64_t i = off[k * B]; i < off[(k + 1) * B]; ++i)
      // 1 in 16 outside the table, below or above.
      ids[i] = rngInt(rng, 0, 16) != 0 ? rngInt(rng, 0, rows[k])
               : rngInt(rng, 0, 2)     ? -1 - rngInt(rng, 0, 5)
                                       : rows[k] + rngInt(rng, 0, 5);
  int64_t depth = embrtBucketizeDepth(p.numSlots, p.features, p.begin, p.end);
  int64_t capacity = N * depth;
  embrtDtype dt = c->indexDtype;
  bool weighted = (int)c->weightDtype >= 0;
  size_t is = embrtDtypeSize(dt),
         ws = weighted ? embrtDtypeSize(c->weightDtype) : 0;
  void *idx = indexTensor(dt, ids, N),
       *offsets = indexTensor(dt, off, F * B + 1);
  void *psw = weighted ? randomTensor(rng, c->weightDtype, N) : NULL;
  size_t lengthsBytes = (size_t)(p.numSlots * B) * is;

  // The CPU reference.
  void *wantIds = poisoned((size_t)capacity * is),
       *wantLengths = poisoned(lengthsBytes);
  void *wantWeights = weighted ? poisoned((size_t)capacity * ws) : NULL;
  int64_t *wantCounts = calloc((size_t)W, sizeof(int64_t));
  embrtBucketizeArgs a = {.structSize = sizeof a,
                          .indexDtype = dt,
                          .indices = idx,
                          .numIndices = N,
                          .offsets = offsets,
                          .numFeatures = F,
                          .batchSize = B,
                          .perSampleWeights = psw,
                          .weightDtype = weighted ? c->weightDtype : EMBRT_F32,
                          .worldSize = W,
                          .numSlots = p.numSlots,
                          .slotRanks = p.ranks,
                          .slotFeatures = p.features,
                          .slotRowBegin = p.begin,
                          .slotRowEnd = p.end,
                          .ids = wantIds,
                          .idsCapacity = capacity,
                          .weights = wantWeights,
                          .lengths = wantLengths,
                          .counts = wantCounts};
  EXPECT_STATUS(embrtBucketize(cpu, &a), EMBRT_OK, cpu);
  int64_t total = 0;
  for (int64_t r = 0; r < W; ++r)
    total += wantCounts[r];

  // The GPU, outputs poisoned.
  void *dIdx = upload(idx, (size_t)N * is);
  void *dOff = upload(offsets, (size_t)(F * B + 1) * is);
  void *dPsw = weighted ? upload(psw, (size_t)N * ws) : NULL;
  void *dIds = poisonedDevice((size_t)capacity * is);
  void *dWeights = weighted ? poisonedDevice((size_t)capacity * ws) : NULL;
  void *dLengths = poisonedDevice(lengthsBytes);
  void *dCounts = poisonedDevice((size_t)W * sizeof(int64_t));
  a.indices = dIdx, a.offsets = dOff, a.perSampleWeights = dPsw;
  a.ids = dIds, a.weights = dWeights, a.lengths = dLengths;
  a.counts = dCounts;
  size_t wsBytes = 0;
  EXPECT_STATUS(embrtBucketizeWorkspaceSize(gpu, &a, &wsBytes), EMBRT_OK, gpu);
  void *dWs = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, wsBytes ? wsBytes : 1, &dWs), EMBRT_OK, gpu);
  a.workspace = dWs, a.workspaceBytes = wsBytes;
  EXPECT_STATUS(embrtBucketize(gpu, &a), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  int64_t *gotCounts = download(dCounts, (size_t)W * sizeof(int64_t));
  void *gotLengths = download(dLengths, lengthsBytes);
  void *gotIds = download(dIds, (size_t)capacity * is);
  expectSameBytes("counts", gotCounts, wantCounts, (size_t)W * sizeof(int64_t));
  expectSameBytes("lengths", gotLengths, wantLengths, lengthsBytes);
  expectSameBytes("ids", gotIds, wantIds, (size_t)total * is);
  if (weighted) {
    void *gotWeights = download(dWeights, (size_t)capacity * ws);
    expectSameBytes("weights", gotWeights, wantWeights, (size_t)total * ws);
    free(gotWeights);
  }
  embrtFree(gpu, dIdx), embrtFree(gpu, dOff), embrtFree(gpu, dPsw);
  embrtFree(gpu, dIds), embrtFree(gpu, dWeights), embrtFree(gpu, dLengths);
  embrtFree(gpu, dCounts), embrtFree(gpu, dWs);
  free(gotCounts), free(gotLengths), free(gotIds);
  free(wantIds), free(wantLengths), free(wantWeights), free(wantCounts);
  free(idx), free(offsets), free(psw), free(ids), free(off), free(rows);
  free(p.ranks);
}

static const Case kCases[] = {
    {"i64, 2 ranks", EMBRT_I64, (embrtDtype)-1, 5, 7, 2, 40, 60},
    {"i32, 4 ranks, f32 weights", EMBRT_I32, EMBRT_F32, 9, 13, 4, 70, 200},
    {"i64, 3 ranks, f16 weights", EMBRT_I64, EMBRT_F16, 4, 33, 3, 5, 9},
    {"i32, 8 ranks, bf16 weights", EMBRT_I32, EMBRT_BF16, 12, 5, 8, 100, 1000},
    {"one rank, one feature", EMBRT_I64, (embrtDtype)-1, 1, 64, 1, 3, 4},
};
static const Case kModel = {"ranking model batch (B 2048, F 26, W 8)",
                            EMBRT_I64,
                            EMBRT_F32,
                            26,
                            2048,
                            8,
                            40,
                            1000000};

//===----------------------------------------------------------------------===//
// Lengths to offsets
//===----------------------------------------------------------------------===//

static void runOffsets(const char *name, embrtDtype dt, int64_t L, int64_t K,
                       Rng *rng) {
  TEST_CASE(name);
  int64_t *lens = malloc(sizeof(int64_t) * (size_t)(L + 1));
  for (int64_t i = 0; i < L; ++i)
    lens[i] = rngInt(rng, 0, 9) == 0 ? 0 : rngInt(rng, 1, 50);
  size_t is = embrtDtypeSize(dt);
  void *lengths = indexTensor(dt, lens, L);
  void *want = poisoned((size_t)(L + 1) * is);
  int64_t *wantSums = calloc((size_t)K, sizeof(int64_t));
  embrtLengthsToOffsetsArgs a = {sizeof a, dt,       lengths, L, K,
                                 want,     wantSums, NULL,    0};
  EXPECT_STATUS(embrtLengthsToOffsets(cpu, &a), EMBRT_OK, cpu);
  void *dLengths = upload(lengths, (size_t)L * is);
  void *dOffsets = poisonedDevice((size_t)(L + 1) * is);
  void *dSums = poisonedDevice((size_t)K * sizeof(int64_t));
  a.lengths = dLengths, a.offsets = dOffsets, a.blockSums = dSums;
  size_t wsBytes = 0;
  EXPECT_STATUS(embrtLengthsToOffsetsWorkspaceSize(gpu, &a, &wsBytes), EMBRT_OK,
                gpu);
  void *dWs = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, wsBytes ? wsBytes : 1, &dWs), EMBRT_OK, gpu);
  a.workspace = dWs, a.workspaceBytes = wsBytes;
  EXPECT_STATUS(embrtLengthsToOffsets(gpu, &a), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
  void *got = download(dOffsets, (size_t)(L + 1) * is);
  int64_t *gotSums = download(dSums, (size_t)K * sizeof(int64_t));
  expectSameBytes("offsets", got, want, (size_t)(L + 1) * is);
  expectSameBytes("block_sums", gotSums, wantSums, (size_t)K * sizeof(int64_t));
  embrtFree(gpu, dLengths), embrtFree(gpu, dOffsets), embrtFree(gpu, dSums);
  embrtFree(gpu, dWs);
  free(lens), free(lengths), free(want), free(wantSums), free(got),
      free(gotSums);
}

//===----------------------------------------------------------------------===//
// Data errors on the device
//===----------------------------------------------------------------------===//

static void testBadData(void) {
  TEST_CASE("bad offsets and lengths");
  // Feature 0, B = 2: bag 1's offsets go backwards.
  int64_t ids[4] = {1, 2, 3, 4}, off[3] = {0, 3, 2};
  int64_t ranks[1] = {0}, feats[1] = {0}, begin[1] = {0}, end[1] = {9};
  void *dIds = upload(ids, sizeof ids), *dOff = upload(off, sizeof off);
  void *dOut = poisonedDevice(sizeof ids), *dLen = poisonedDevice(16);
  void *dCounts = poisonedDevice(8);
  embrtBucketizeArgs a = {.structSize = sizeof a,
                          .indexDtype = EMBRT_I64,
                          .indices = dIds,
                          .numIndices = 4,
                          .offsets = dOff,
                          .numFeatures = 1,
                          .batchSize = 2,
                          .weightDtype = EMBRT_F32,
                          .worldSize = 1,
                          .numSlots = 1,
                          .slotRanks = ranks,
                          .slotFeatures = feats,
                          .slotRowBegin = begin,
                          .slotRowEnd = end,
                          .ids = dOut,
                          .idsCapacity = 4,
                          .lengths = dLen,
                          .counts = dCounts};
  size_t wsBytes = 0;
  EXPECT_STATUS(embrtBucketizeWorkspaceSize(gpu, &a, &wsBytes), EMBRT_OK, gpu);
  void *dWs = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, wsBytes, &dWs), EMBRT_OK, gpu);
  a.workspace = dWs, a.workspaceBytes = wsBytes;
  EXPECT_STATUS(embrtBucketize(gpu, &a), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OUT_OF_RANGE, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "device: feature 0 bag 1: offset 2 is out of order or "
                  "outside 0..4");
  embrtContextClearError(gpu);
  int64_t *counts = download(dCounts, 8);
  EXPECT_EQ_INT(counts[0], 3); // bag 0's ids; bag 1 taken as empty
  free(counts);

  int64_t lens[3] = {2, -1, 4}, sums[1];
  void *dLens = upload(lens, sizeof lens), *dOffs = poisonedDevice(32);
  void *dSums = poisonedDevice(sizeof sums);
  embrtLengthsToOffsetsArgs l = {sizeof l, EMBRT_I64, dLens, 3, 1,
                                 dOffs,    dSums,     NULL,  0};
  EXPECT_STATUS(embrtLengthsToOffsetsWorkspaceSize(gpu, &l, &wsBytes), EMBRT_OK,
                gpu);
  void *dWs2 = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, wsBytes, &dWs2), EMBRT_OK, gpu);
  l.workspace = dWs2, l.workspaceBytes = wsBytes;
  EXPECT_STATUS(embrtLengthsToOffsets(gpu, &l), EMBRT_OK, gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OUT_OF_RANGE, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                  "device: lengths_to_offsets: lengths[1] is -1: a length "
                  "must not be negative");
  embrtContextClearError(gpu);
  int64_t *offs = download(dOffs, 32);
  EXPECT_EQ_INT(offs[3], 6); // the negative length counted as 0
  free(offs);
  embrtFree(gpu, dIds), embrtFree(gpu, dOff), embrtFree(gpu, dOut);
  embrtFree(gpu, dLen), embrtFree(gpu, dCounts), embrtFree(gpu, dWs);
  embrtFree(gpu, dLens), embrtFree(gpu, dOffs), embrtFree(gpu, dSums);
  embrtFree(gpu, dWs2);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && !strcmp(argv[1], "--quick");
  cpu = newCpuContext();
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }
  Rng rng = rngSeed(0x1D157);
  for (int rep = 0; rep < 3; ++rep) // fresh plans and batches each time
    for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i)
      runBucketize(&kCases[i], &rng);
  if (!quick)
    runBucketize(&kModel, &rng);
  runOffsets("offsets i64, 2 blocks", EMBRT_I64, 1000, 2, &rng);
  runOffsets("offsets i32, 8 blocks", EMBRT_I32, 8 * 37, 8, &rng);
  runOffsets("offsets i64, 2^20 lengths", EMBRT_I64, 1 << 20, 4, &rng);
  runOffsets("no lengths", EMBRT_I32, 0, 1, &rng);
  testBadData();
  embrtContextDestroy(gpu);
  embrtContextDestroy(cpu);
  return harnessFinish();
}
