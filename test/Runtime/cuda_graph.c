// REQUIRES: cuda-gpu
// RUN: %runtime_test_dir/cuda_graph
//
// CUDA graphs of a context's work on a real GPU: a TBE call, several calls
// back to back, a compiled model's call (emb/compiled.h: a constant, stream-
// ordered intermediates and workspace, a lookup, an elementwise op, a copy
// into the result), an LCE through cuBLAS, an exact f32 IKBO LCE (portable in
// a capture before the context's first cuBLAS call, cuBLAS after), a training
// step (the fused TBE
// backward, tables updated in place) and a captured copy from page-locked
// host memory are captured once and replayed; each replay is compared with
// the direct call on the same inputs (bitwise where the op is deterministic)
// after its outputs were poisoned with 0xFF, and again after the inputs
// changed in place (a replay reads the buffers as they are then). Then what a
// capture refuses: waiting for the device, blocking allocation, pageable
// copies, first-use work (a constant's upload, the cuBLAS handle) before a
// warm-up, TBE metadata staged through host memory, nested captures, a
// launch on another context; a device-side bounds error of a replay surfacing
// at embrtSynchronize; the three capture modes; a context destroyed while it
// captures.

#include "harness.h"

#include "emb/compiled.h"

#include <cuda_runtime_api.h>

static embrtContext *gpu;

/// Fails the whole test: later cases would only repeat the cause.
static void require(embrtStatus status, const char *what) {
  if (status == EMBRT_OK)
    return;
  fprintf(stderr, "%s failed: %s: %s\n", what, embrtStatusName(status),
          embrtContextGetLastError(gpu));
  exit(1);
}

static void *deviceAlloc(size_t bytes) {
  void *p = NULL;
  require(embrtMalloc(gpu, bytes ? bytes : 1, &p), "embrtMalloc");
  return p;
}

static void upload(void *device, const void *host, size_t bytes) {
  require(embrtMemcpy(gpu, device, host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
          "embrtMemcpy");
}

static void poison(void *device, size_t bytes) {
  require(embrtMemset(gpu, device, 0xFF, bytes), "embrtMemset");
}

/// Synchronizes and copies a device buffer into `host`.
static void download(void *host, const void *device, size_t bytes) {
  require(embrtMemcpy(gpu, host, device, bytes, EMBRT_COPY_DEVICE_TO_HOST),
          "embrtMemcpy");
  require(embrtSynchronize(gpu), "embrtSynchronize");
}

/// Ends a capture that must succeed.
static embrtGraph *endCapture(const char *what) {
  embrtGraph *graph = NULL;
  require(embrtContextEndCapture(gpu, &graph), what);
  return graph;
}

static void launchAndWait(embrtGraph *graph) {
  require(embrtGraphLaunch(gpu, graph), "embrtGraphLaunch");
  require(embrtSynchronize(gpu), "embrtSynchronize after a replay");
}

/// Expects a capture ended now to be discarded with `status` and a message
/// containing `needle`, and the context usable again once cleared.
static void expectDiscarded(embrtStatus status, const char *needle) {
  embrtGraph *graph = (embrtGraph *)&graph;
  EXPECT_STATUS(embrtContextEndCapture(gpu, &graph), status, gpu);
  EXPECT_TRUE(graph == NULL);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu), needle);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu), "discarded");
  EXPECT_EQ_INT(embrtContextIsCapturing(gpu), 0);
  embrtContextClearError(gpu);
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
}

//===----------------------------------------------------------------------===//
// A single-table lookup: mean pooling with padding id 0, f16 (the TBE
// benchmark's small shapes, smaller)
//===----------------------------------------------------------------------===//

enum { kRows = 5000, kDim = 64, kBatch = 384, kPerBag = 4 };
enum { kIds = kBatch * kPerBag };

typedef struct Lookup {
  void *table, *ids, *offsets, *out;
  int64_t rows, dim;
  embrtTbeArgs args;
} Lookup;

static void randomIds(Rng *rng, int64_t *ids) {
  for (int i = 0; i < kIds; ++i)
    ids[i] = rngUniform(rng, 0, 1) < 0.25 ? 0 : rngInt(rng, 1, kRows);
}

/// Fills `*lp` (its args point into it).
static void makeLookup(Lookup *lp, Rng *rng) {
  Lookup l;
  memset(&l, 0, sizeof l);
  l.rows = kRows;
  l.dim = kDim;
  uint16_t *table = malloc(sizeof(uint16_t) * kRows * kDim);
  for (int i = 0; i < kRows * kDim; ++i)
    table[i] = embrtF32ToF16((float)rngValue(rng));
  int64_t ids[kIds], offsets[kBatch + 1];
  randomIds(rng, ids);
  for (int b = 0; b <= kBatch; ++b)
    offsets[b] = (int64_t)b * kPerBag;
  l.table = deviceAlloc(sizeof(uint16_t) * kRows * kDim);
  l.ids = deviceAlloc(sizeof ids);
  l.offsets = deviceAlloc(sizeof offsets);
  l.out = deviceAlloc(sizeof(uint16_t) * kBatch * kDim);
  upload(l.table, table, sizeof(uint16_t) * kRows * kDim);
  upload(l.ids, ids, sizeof ids);
  upload(l.offsets, offsets, sizeof offsets);
  free(table);

  static const int64_t featureTables[1] = {0};
  embrtTbeArgs *a = &l.args;
  a->structSize = sizeof *a;
  a->pooling = EMBRT_POOLING_MEAN;
  a->boundsCheck = EMBRT_BOUNDS_FATAL;
  a->numTables = 1;
  a->tableDtype = EMBRT_F16;
  a->numFeatures = 1;
  a->featureTables = featureTables;
  a->batchSize = kBatch;
  a->numIndices = kIds;
  a->indices = l.ids;
  a->indexDtype = EMBRT_I64;
  a->offsets = l.offsets;
  a->offsetDtype = EMBRT_I64;
  a->paddingIdx = 0;
  a->hasPaddingIdx = 1;
  a->output = l.out;
  a->outputDtype = EMBRT_F16;
  a->configId = -1;
  *lp = l;
  lp->args.tables = (const void *const *)&lp->table;
  lp->args.tableRows = &lp->rows;
  lp->args.tableDims = &lp->dim;
}

static void freeLookup(Lookup *l) {
  embrtFree(gpu, l->table);
  embrtFree(gpu, l->ids);
  embrtFree(gpu, l->offsets);
  embrtFree(gpu, l->out);
}

/// The lookup's output after a direct call.
static void directLookup(Lookup *l, void *host) {
  poison(l->out, sizeof(uint16_t) * kBatch * kDim);
  require(embrtTbeForward(gpu, &l->args), "embrtTbeForward");
  download(host, l->out, sizeof(uint16_t) * kBatch * kDim);
}

static void testTbe(Rng *rng) {
  TEST_CASE("a TBE call captured and replayed");
  Lookup l;
  makeLookup(&l, rng);
  size_t outBytes = sizeof(uint16_t) * kBatch * kDim;
  uint16_t *direct = malloc(outBytes), *replayed = malloc(outBytes);
  directLookup(&l, direct);

  poison(l.out, outBytes);
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  EXPECT_EQ_INT(embrtContextIsCapturing(gpu), 1);
  require(embrtTbeForward(gpu, &l.args), "embrtTbeForward (captured)");
  embrtGraph *graph = endCapture("capturing a TBE call");
  EXPECT_EQ_INT(embrtContextIsCapturing(gpu), 0);
  // The capture ran nothing: the output still holds the poison.
  download(replayed, l.out, outBytes);
  EXPECT_TRUE(replayed[0] == 0xFFFF && replayed[kBatch * kDim - 1] == 0xFFFF);
  launchAndWait(graph);
  download(replayed, l.out, outBytes);
  EXPECT_TRUE(memcmp(replayed, direct, outBytes) == 0);

  TEST_CASE("a replay reads the inputs as they are when it runs");
  int64_t ids[kIds];
  randomIds(rng, ids);
  upload(l.ids, ids, sizeof ids);
  uint16_t *direct2 = malloc(outBytes);
  directLookup(&l, direct2);
  EXPECT_TRUE(memcmp(direct2, direct, outBytes) != 0);
  poison(l.out, outBytes);
  launchAndWait(graph);
  download(replayed, l.out, outBytes);
  EXPECT_TRUE(memcmp(replayed, direct2, outBytes) == 0);

  TEST_CASE("a device error of a replay surfaces at embrtSynchronize");
  ids[7] = kRows + 3; // fatal bounds check
  upload(l.ids, ids, sizeof ids);
  require(embrtGraphLaunch(gpu, graph), "embrtGraphLaunch");
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OUT_OF_RANGE, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu), "is outside table 0");
  embrtContextClearError(gpu);
  ids[7] = 1;
  upload(l.ids, ids, sizeof ids);
  launchAndWait(graph);

  TEST_CASE("a graph launches only on the context that captured it");
  embrtContext *other = NULL;
  require(embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &other),
          "a second context");
  EXPECT_STATUS(embrtGraphLaunch(other, graph), EMBRT_INVALID_ARGUMENT, other);
  EXPECT_CONTAINS(embrtContextGetLastError(other), "another context");
  embrtContextDestroy(other);
  embrtGraphDestroy(gpu, graph);

  TEST_CASE("calls back to back in one graph");
  // Three lookups over three id buffers into three outputs.
  void *outs[3], *idBufs[3];
  uint16_t *want[3];
  for (int k = 0; k < 3; ++k) {
    randomIds(rng, ids);
    idBufs[k] = deviceAlloc(sizeof ids);
    outs[k] = deviceAlloc(outBytes);
    upload(idBufs[k], ids, sizeof ids);
    l.args.indices = idBufs[k];
    l.args.output = outs[k];
    want[k] = malloc(outBytes);
    require(embrtTbeForward(gpu, &l.args), "embrtTbeForward");
    download(want[k], outs[k], outBytes);
    poison(outs[k], outBytes);
  }
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  for (int k = 0; k < 3; ++k) {
    l.args.indices = idBufs[k];
    l.args.output = outs[k];
    require(embrtTbeForward(gpu, &l.args), "embrtTbeForward (captured)");
  }
  graph = endCapture("capturing three calls");
  launchAndWait(graph);
  for (int k = 0; k < 3; ++k) {
    download(replayed, outs[k], outBytes);
    EXPECT_TRUE(memcmp(replayed, want[k], outBytes) == 0);
    embrtFree(gpu, outs[k]);
    embrtFree(gpu, idBufs[k]);
    free(want[k]);
  }
  embrtGraphDestroy(gpu, graph);

  TEST_CASE("a TBE whose metadata goes through host memory is refused");
  // More features than the kernel's parameter block holds (1000).
  enum { kManyFeatures = 1001 };
  int64_t *featureTables = calloc(kManyFeatures, sizeof(int64_t));
  int64_t *offsets = malloc(sizeof(int64_t) * (kManyFeatures + 1));
  for (int f = 0; f <= kManyFeatures; ++f)
    offsets[f] = f < kIds ? f : kIds;
  void *manyOffsets = deviceAlloc(sizeof(int64_t) * (kManyFeatures + 1));
  void *manyOut = deviceAlloc(sizeof(uint16_t) * kManyFeatures * kDim);
  upload(manyOffsets, offsets, sizeof(int64_t) * (kManyFeatures + 1));
  embrtTbeArgs many = l.args;
  many.numFeatures = kManyFeatures;
  many.featureTables = featureTables;
  many.batchSize = 1;
  many.numIndices = kManyFeatures; // one id a bag: offsets[F] == N
  many.indices = l.ids;
  many.offsets = manyOffsets;
  many.output = manyOut;
  size_t staged = 0;
  require(embrtTbeWorkspaceSize(gpu, &many, &staged), "embrtTbeWorkspaceSize");
  EXPECT_TRUE(staged > 0);
  many.workspace = deviceAlloc(staged);
  many.workspaceBytes = staged;
  require(embrtTbeForward(gpu, &many), "embrtTbeForward (1001 features)");
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  EXPECT_STATUS(embrtTbeForward(gpu, &many), EMBRT_UNSUPPORTED, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu), "1001 features");
  expectDiscarded(EMBRT_UNSUPPORTED, "a graph cannot capture");
  embrtFree(gpu, many.workspace);
  embrtFree(gpu, manyOffsets);
  embrtFree(gpu, manyOut);
  free(featureTables);
  free(offsets);

  free(direct);
  free(direct2);
  free(replayed);
  freeLookup(&l);
}

//===----------------------------------------------------------------------===//
// A compiled model's call, as emb-lower-to-runtime{target=cuda} writes it:
//   out = tbe(ids, offsets, table) * scale      (scale a [B, D] constant)
//===----------------------------------------------------------------------===//

enum { kModelRows = 1000, kModelDim = 32, kModelBatch = 64, kModelPerBag = 3 };

typedef struct Model {
  float *scale; ///< the constant, in "read-only data"
  void *table, *ids, *offsets, *out;
} Model;

/// The compiled function's body (what the lowering emits, by hand).
static void modelCall(embrtContext *ctx, const Model *m) {
  const int64_t B = kModelBatch, D = kModelDim;
  const int64_t elements = B * D;
  void *scale = embrtCompiledConstant(
      ctx, m->scale, (int64_t)sizeof(float) * elements, 0x5ca1e);
  void *pooled = embrtCompiledAlloc(ctx, (int64_t)sizeof(float) * elements);
  void *product = embrtCompiledAlloc(ctx, (int64_t)sizeof(float) * elements);

  int64_t attrs[EMB_ABI_TBE_FEATURE_TABLES + 1] = {0};
  attrs[EMB_ABI_TBE_POOLING] = EMBRT_POOLING_SUM;
  attrs[EMB_ABI_TBE_BOUNDS_CHECK] = EMBRT_BOUNDS_FATAL;
  attrs[EMB_ABI_TBE_TABLE_DTYPE] = EMBRT_F32;
  attrs[EMB_ABI_TBE_INDEX_DTYPE] = EMBRT_I64;
  attrs[EMB_ABI_TBE_PSW_DTYPE] = -1;
  attrs[EMB_ABI_TBE_OUTPUT_DTYPE] = EMBRT_F32;
  attrs[EMB_ABI_TBE_CONFIG_ID] = -1;
  attrs[EMB_ABI_TBE_NUM_TABLES] = 1;
  attrs[EMB_ABI_TBE_NUM_FEATURES] = 1;
  attrs[EMB_ABI_TBE_FEATURE_TABLES] = 0;
  void *buffers[EMB_ABI_TBE_BUF_TABLES + 1] = {NULL};
  buffers[EMB_ABI_TBE_BUF_INDICES] = m->ids;
  buffers[EMB_ABI_TBE_BUF_OFFSETS] = m->offsets;
  buffers[EMB_ABI_TBE_BUF_OUTPUT] = pooled;
  buffers[EMB_ABI_TBE_BUF_TABLES] = m->table;
  int64_t dims[EMB_ABI_TBE_DIM_TABLES + 2] = {0};
  dims[EMB_ABI_TBE_DIM_INDICES] = B * kModelPerBag;
  dims[EMB_ABI_TBE_DIM_BATCH] = B;
  dims[EMB_ABI_TBE_DIM_OFFSETS] = B + 1;
  dims[EMB_ABI_TBE_DIM_OUTPUT_ROWS] = B;
  dims[EMB_ABI_TBE_DIM_OUTPUT_COLS] = D;
  dims[EMB_ABI_TBE_DIM_TABLES] = kModelRows;
  dims[EMB_ABI_TBE_DIM_TABLES + 1] = D;
  int64_t wsBytes = embrtCompiledTbeWorkspace(ctx, attrs, buffers, dims);
  void *workspace = embrtCompiledAlloc(ctx, wsBytes);
  buffers[EMB_ABI_TBE_BUF_WORKSPACE] = workspace;
  dims[EMB_ABI_TBE_DIM_WORKSPACE] = wsBytes;
  embrtCompiledTbe(ctx, attrs, buffers, dims);

  int64_t eAttrs[3] = {EMBRT_F32, 0, EMBRT_BINARY_MUL};
  void *eBuffers[3] = {pooled, scale, product};
  int64_t eDims[3] = {elements, elements, elements};
  embrtCompiledElementwise(ctx, eAttrs, eBuffers, eDims);
  embrtCompiledCopy(ctx, EMBRT_COPY_DEVICE_TO_DEVICE, m->out, product,
                    (int64_t)sizeof(float) * elements);
  embrtCompiledFree(ctx, pooled);
  embrtCompiledFree(ctx, product);
  embrtCompiledFree(ctx, workspace);
}

static void testCompiledModel(Rng *rng) {
  TEST_CASE("a compiled call: refused before its warm-up");
  const size_t outBytes = sizeof(float) * kModelBatch * kModelDim;
  Model m;
  m.scale = malloc(outBytes);
  for (int i = 0; i < kModelBatch * kModelDim; ++i)
    m.scale[i] = (float)rngValue(rng);
  float *table = malloc(sizeof(float) * kModelRows * kModelDim);
  for (int i = 0; i < kModelRows * kModelDim; ++i)
    table[i] = (float)rngValue(rng);
  int64_t ids[kModelBatch * kModelPerBag], offsets[kModelBatch + 1];
  for (int i = 0; i < kModelBatch * kModelPerBag; ++i)
    ids[i] = rngInt(rng, 0, kModelRows);
  for (int b = 0; b <= kModelBatch; ++b)
    offsets[b] = (int64_t)b * kModelPerBag;
  m.table = deviceAlloc(sizeof(float) * kModelRows * kModelDim);
  m.ids = deviceAlloc(sizeof ids);
  m.offsets = deviceAlloc(sizeof offsets);
  m.out = deviceAlloc(outBytes);
  upload(m.table, table, sizeof(float) * kModelRows * kModelDim);
  upload(m.ids, ids, sizeof ids);
  upload(m.offsets, offsets, sizeof offsets);
  require(embrtSynchronize(gpu), "embrtSynchronize");

  // A fresh context has not uploaded the constant yet.
  embrtContext *fresh = NULL;
  require(embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &fresh),
          "a fresh context");
  require(embrtContextBeginCapture(fresh, NULL), "embrtContextBeginCapture");
  modelCall(fresh, &m);
  embrtGraph *graph = (embrtGraph *)&graph;
  EXPECT_STATUS(embrtContextEndCapture(fresh, &graph), EMBRT_INVALID_ARGUMENT,
                fresh);
  EXPECT_TRUE(graph == NULL);
  EXPECT_CONTAINS(embrtContextGetLastError(fresh), "cannot upload a constant");
  embrtContextDestroy(fresh);

  TEST_CASE("a compiled call: warm-up, capture, replay");
  float *direct = malloc(outBytes), *replayed = malloc(outBytes);
  poison(m.out, outBytes);
  modelCall(gpu, &m); // the warm-up uploads the constant
  require(embrtContextGetStatus(gpu), "the direct compiled call");
  download(direct, m.out, outBytes);
  // The direct call is right: out = (sum of the bag's rows) * scale.
  for (int b = 0; b < kModelBatch; ++b) {
    for (int c = 0; c < kModelDim; ++c) {
      double sum = 0, mag = 0;
      for (int j = 0; j < kModelPerBag; ++j) {
        double v = table[ids[b * kModelPerBag + j] * kModelDim + c];
        sum += v;
        mag += fabs(v);
      }
      double s = m.scale[b * kModelDim + c];
      if (!EXPECT_NEAR("out", b * kModelDim + c, direct[b * kModelDim + c],
                       sum * s, mag * fabs(s), TOL_F32))
        b = kModelBatch, c = kModelDim;
    }
  }
  poison(m.out, outBytes);
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  modelCall(gpu, &m);
  graph = endCapture("capturing a compiled call");
  // Replays reuse the graph's memory for the intermediates.
  for (int r = 0; r < 3; ++r) {
    poison(m.out, outBytes);
    launchAndWait(graph);
    download(replayed, m.out, outBytes);
    EXPECT_TRUE(memcmp(replayed, direct, outBytes) == 0);
  }
  for (int i = 0; i < kModelBatch * kModelPerBag; ++i)
    ids[i] = rngInt(rng, 0, kModelRows);
  upload(m.ids, ids, sizeof ids);
  modelCall(gpu, &m);
  download(direct, m.out, outBytes);
  poison(m.out, outBytes);
  launchAndWait(graph);
  download(replayed, m.out, outBytes);
  EXPECT_TRUE(memcmp(replayed, direct, outBytes) == 0);
  embrtGraphDestroy(gpu, graph);

  free(direct);
  free(replayed);
  free(table);
  free(m.scale);
  embrtFree(gpu, m.table);
  embrtFree(gpu, m.ids);
  embrtFree(gpu, m.offsets);
  embrtFree(gpu, m.out);
}

//===----------------------------------------------------------------------===//
// cuBLAS (emb.lce) and a training step (emb.tbe_backward)
//===----------------------------------------------------------------------===//

static void testLce(Rng *rng) {
  TEST_CASE("lce: the first cuBLAS call is refused, a warm one captured");
  enum { B = 4, M = 16, K = 32, N = 8 };
  float w[M * K], x[B * K * N];
  for (int i = 0; i < M * K; ++i)
    w[i] = (float)rngValue(rng);
  for (int i = 0; i < B * K * N; ++i)
    x[i] = (float)rngValue(rng);
  embrtContext *fresh = NULL;
  require(embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &fresh),
          "a fresh context");
  embrtLceArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = EMBRT_F32;
  a.batchSize = B, a.m = M, a.k = K, a.n = N;
  a.configId = -1;
  void *dw = NULL, *dx = NULL, *dout = NULL;
  size_t wsBytes = 0;
  require(embrtMalloc(fresh, sizeof w, &dw), "embrtMalloc");
  require(embrtMalloc(fresh, sizeof x, &dx), "embrtMalloc");
  require(embrtMalloc(fresh, sizeof(float) * B * M * N, &dout), "embrtMalloc");
  require(embrtLceWorkspaceSize(fresh, &a, &wsBytes), "embrtLceWorkspaceSize");
  require(embrtMalloc(fresh, wsBytes, &a.workspace), "embrtMalloc");
  a.workspaceBytes = wsBytes;
  require(embrtMemcpy(fresh, dw, w, sizeof w, EMBRT_COPY_HOST_TO_DEVICE), "w");
  require(embrtMemcpy(fresh, dx, x, sizeof x, EMBRT_COPY_HOST_TO_DEVICE), "x");
  a.w = dw, a.x = dx, a.output = dout;
  require(embrtContextBeginCapture(fresh, NULL), "embrtContextBeginCapture");
  EXPECT_STATUS(embrtLce(fresh, &a), EMBRT_INVALID_ARGUMENT, fresh);
  EXPECT_CONTAINS(embrtContextGetLastError(fresh), "first cuBLAS call");
  embrtGraph *graph = NULL;
  EXPECT_STATUS(embrtContextEndCapture(fresh, &graph), EMBRT_INVALID_ARGUMENT,
                fresh);
  embrtContextClearError(fresh);

  float direct[B * M * N], replayed[B * M * N];
  require(embrtLce(fresh, &a), "embrtLce (warm-up)");
  require(embrtMemcpy(fresh, direct, dout, sizeof direct,
                      EMBRT_COPY_DEVICE_TO_HOST),
          "download");
  require(embrtMemset(fresh, dout, 0xFF, sizeof direct), "poison");
  require(embrtContextBeginCapture(fresh, NULL), "embrtContextBeginCapture");
  require(embrtLce(fresh, &a), "embrtLce (captured)");
  require(embrtContextEndCapture(fresh, &graph), "capturing an lce");
  require(embrtGraphLaunch(fresh, graph), "embrtGraphLaunch");
  require(embrtMemcpy(fresh, replayed, dout, sizeof replayed,
                      EMBRT_COPY_DEVICE_TO_HOST),
          "download");
  require(embrtSynchronize(fresh), "embrtSynchronize");
  // The same cuBLAS call on the same workspace; its reduction order is not
  // promised across launches, so within an f32 rounding of K terms.
  for (int i = 0; i < B * M * N; ++i)
    if (!EXPECT_NEAR("lce out", i, replayed[i], direct[i], 2.0 * K,
                     TOL_F32_ACC))
      break;
  embrtGraphDestroy(fresh, graph);
  embrtFree(fresh, dw);
  embrtFree(fresh, dx);
  embrtFree(fresh, dout);
  embrtFree(fresh, a.workspace);
  embrtContextDestroy(fresh);
}

/// Exact f32 ikbo_lce: on a fresh context a capture before any cuBLAS call
/// takes the portable kernel (no handle can be made while capturing); a
/// direct call then makes the handle and runs cuBLAS, and a capture after it
/// replays cuBLAS. Each result against an f64 product on the host.
static void testIkboLceF32(Rng *rng) {
  TEST_CASE("ikbo_lce f32: portable in a cold capture, cuBLAS once warm");
  enum { B = 6, U = 2, M = 16, KU = 24, KC = 20, N = 8 };
  static float wu[M * KU], wc[M * KC], user[U * KU * N], cand[B * KC * N];
  static int32_t c2u[B];
  static double want[B * M * N], mag[B * M * N];
  for (int i = 0; i < M * KU; ++i)
    wu[i] = (float)rngValue(rng);
  for (int i = 0; i < M * KC; ++i)
    wc[i] = (float)rngValue(rng);
  for (int i = 0; i < U * KU * N; ++i)
    user[i] = (float)rngValue(rng);
  for (int i = 0; i < B * KC * N; ++i)
    cand[i] = (float)rngValue(rng);
  for (int b = 0; b < B; ++b)
    c2u[b] = (int32_t)rngInt(rng, 0, U);
  for (int b = 0; b < B; ++b)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double acc = 0, a = 0;
        for (int k = 0; k < KC; ++k) {
          double t = (double)wc[m * KC + k] * cand[(b * KC + k) * N + n];
          acc += t, a += fabs(t);
        }
        for (int k = 0; k < KU; ++k) {
          double t = (double)wu[m * KU + k] * user[(c2u[b] * KU + k) * N + n];
          acc += t, a += fabs(t);
        }
        want[(b * M + m) * N + n] = acc, mag[(b * M + m) * N + n] = a;
      }
  embrtContext *fresh = NULL;
  require(embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &fresh),
          "a fresh context");
  embrtIkboLceArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = EMBRT_F32;
  a.batchSize = B, a.numUsers = U, a.m = M, a.kUser = KU, a.kCand = KC;
  a.n = N;
  a.indexDtype = EMBRT_I32;
  a.configId = -1;
  void *bufs[5] = {NULL};
  const void *host[5] = {wu, wc, user, cand, c2u};
  const size_t bytes[5] = {sizeof wu, sizeof wc, sizeof user, sizeof cand,
                           sizeof c2u};
  for (int i = 0; i < 5; ++i) {
    require(embrtMalloc(fresh, bytes[i], &bufs[i]), "embrtMalloc");
    require(embrtMemcpy(fresh, bufs[i], host[i], bytes[i],
                        EMBRT_COPY_HOST_TO_DEVICE),
            "upload");
  }
  a.wUser = bufs[0], a.wCand = bufs[1], a.user = bufs[2], a.cand = bufs[3];
  a.candToUser = bufs[4];
  void *dout = NULL;
  size_t wsBytes = 0;
  require(embrtMalloc(fresh, sizeof(float) * B * M * N, &dout), "embrtMalloc");
  a.output = dout;
  require(embrtIkboLceWorkspaceSize(fresh, &a, &wsBytes), "workspace size");
  require(embrtMalloc(fresh, wsBytes, &a.workspace), "embrtMalloc");
  a.workspaceBytes = wsBytes;
  float got[B * M * N];
  for (int round = 0; round < 3; ++round) {
    // 0: a cold capture (portable), 1: direct (makes the cuBLAS handle),
    // 2: a warm capture (cuBLAS).
    require(embrtMemset(fresh, dout, 0xFF, sizeof got), "poison");
    embrtGraph *graph = NULL;
    if (round != 1) {
      require(embrtContextBeginCapture(fresh, NULL), "begin capture");
      require(embrtIkboLce(fresh, &a), "embrtIkboLce (captured)");
      require(embrtContextEndCapture(fresh, &graph), "capturing ikbo_lce");
      require(embrtGraphLaunch(fresh, graph), "embrtGraphLaunch");
    } else {
      require(embrtIkboLce(fresh, &a), "embrtIkboLce");
    }
    require(
        embrtMemcpy(fresh, got, dout, sizeof got, EMBRT_COPY_DEVICE_TO_HOST),
        "download");
    require(embrtSynchronize(fresh), "embrtSynchronize");
    for (int i = 0; i < B * M * N; ++i)
      if (!EXPECT_NEAR("ikbo_lce out", i, got[i], want[i], mag[i], TOL_F32_ACC))
        break;
    if (graph)
      embrtGraphDestroy(fresh, graph);
  }
  for (int i = 0; i < 5; ++i)
    embrtFree(fresh, bufs[i]);
  embrtFree(fresh, dout);
  embrtFree(fresh, a.workspace);
  embrtContextDestroy(fresh);
}

static void testTrainingStep(Rng *rng) {
  TEST_CASE("a training step (TBE backward, SGD) replayed");
  enum { T = 2, F = 3, B = 96, L = 5, E = 700, D = 32 };
  const int64_t rows[T] = {E, E}, dimsOf[T] = {D, D};
  const int64_t featureTables[F] = {0, 1, 0};
  const size_t tableBytes = sizeof(float) * E * D;
  float *table = malloc(tableBytes * T);
  for (int i = 0; i < E * D * T; ++i)
    table[i] = (float)rngValue(rng);
  int64_t ids[F * B * L], offsets[F * B + 1];
  for (int i = 0; i < F * B * L; ++i)
    ids[i] = rngInt(rng, 0, E);
  for (int g = 0; g <= F * B; ++g)
    offsets[g] = (int64_t)g * L;
  float grad[B * F * D];
  for (int i = 0; i < B * F * D; ++i)
    grad[i] = (float)rngValue(rng);
  const float hyper[EMBRT_NUM_HYPER_PARAMS] = {0.05f, 1e-8f, 0.9f, 0.999f, 0};

  // Two copies of the tables: one stepped directly, one by the replay.
  void *direct[T], *viaGraph[T];
  for (int t = 0; t < T; ++t) {
    direct[t] = deviceAlloc(tableBytes);
    viaGraph[t] = deviceAlloc(tableBytes);
    upload(direct[t], table + (size_t)t * E * D, tableBytes);
    upload(viaGraph[t], table + (size_t)t * E * D, tableBytes);
  }
  void *dIds = deviceAlloc(sizeof ids), *dOffsets = deviceAlloc(sizeof offsets);
  void *dGrad = deviceAlloc(sizeof grad), *dHyper = deviceAlloc(sizeof hyper);
  upload(dIds, ids, sizeof ids);
  upload(dOffsets, offsets, sizeof offsets);
  upload(dGrad, grad, sizeof grad);
  upload(dHyper, hyper, sizeof hyper);

  embrtTbeBackwardArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  embrtTbeArgs *l = &a.lookup;
  l->structSize = sizeof *l;
  l->pooling = EMBRT_POOLING_SUM;
  l->boundsCheck = EMBRT_BOUNDS_FATAL;
  l->numTables = T;
  l->tables = (const void *const *)direct;
  l->tableRows = rows;
  l->tableDims = dimsOf;
  l->tableDtype = EMBRT_F32;
  l->numFeatures = F;
  l->featureTables = featureTables;
  l->batchSize = B;
  l->numIndices = F * B * L;
  l->indices = dIds;
  l->indexDtype = EMBRT_I64;
  l->offsets = dOffsets;
  l->offsetDtype = EMBRT_I64;
  l->configId = -1;
  a.gradOutput = dGrad;
  a.gradDtype = EMBRT_F32;
  a.optimizer = EMBRT_OPTIMIZER_SGD;
  a.hyperParams = dHyper;
  a.seed = 7;
  a.configId = -1;
  size_t wsBytes = 0;
  require(embrtTbeBackwardWorkspaceSize(gpu, &a, &wsBytes),
          "embrtTbeBackwardWorkspaceSize");
  a.workspace = deviceAlloc(wsBytes);
  a.workspaceBytes = wsBytes;
  require(embrtTbeBackward(gpu, &a), "embrtTbeBackward (direct)");

  l->tables = (const void *const *)viaGraph;
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  require(embrtTbeBackward(gpu, &a), "embrtTbeBackward (captured)");
  embrtGraph *graph = endCapture("capturing a training step");
  launchAndWait(graph);

  float *want = malloc(tableBytes), *got = malloc(tableBytes);
  int changed = 0;
  for (int t = 0; t < T; ++t) {
    download(want, direct[t], tableBytes);
    download(got, viaGraph[t], tableBytes);
    for (int i = 0; i < E * D; ++i) {
      changed += want[i] != table[(size_t)t * E * D + i];
      if (!EXPECT_NEAR("table", i, got[i], want[i], 1.0, TOL_F32))
        break;
    }
  }
  EXPECT_TRUE(changed > 0); // the step updated rows
  embrtGraphDestroy(gpu, graph);
  for (int t = 0; t < T; ++t) {
    embrtFree(gpu, direct[t]);
    embrtFree(gpu, viaGraph[t]);
  }
  embrtFree(gpu, dIds);
  embrtFree(gpu, dOffsets);
  embrtFree(gpu, dGrad);
  embrtFree(gpu, dHyper);
  embrtFree(gpu, a.workspace);
  free(table);
  free(want);
  free(got);
}

//===----------------------------------------------------------------------===//
// Memory, copies and what a capture refuses
//===----------------------------------------------------------------------===//

static void testMemoryAndRefusals(void) {
  TEST_CASE("stream-ordered memory and a page-locked copy in a graph");
  enum { kBytes = 4096 };
  unsigned char *pinned = NULL;
  EXPECT_TRUE(cudaMallocHost((void **)&pinned, kBytes) == cudaSuccess);
  void *out = deviceAlloc(kBytes);
  memset(pinned, 0x11, kBytes);
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  void *scratch = NULL;
  require(embrtMallocAsync(gpu, kBytes, &scratch), "embrtMallocAsync");
  require(embrtMemcpy(gpu, scratch, pinned, kBytes, EMBRT_COPY_HOST_TO_DEVICE),
          "a captured copy from page-locked memory");
  require(embrtMemset(gpu, scratch, 0x22, 16), "embrtMemset");
  require(embrtMemcpy(gpu, out, scratch, kBytes, EMBRT_COPY_DEVICE_TO_DEVICE),
          "a captured device copy");
  require(embrtFreeAsync(gpu, scratch), "embrtFreeAsync");
  embrtGraph *graph = endCapture("capturing memory work");
  unsigned char back[kBytes];
  for (int r = 0; r < 2; ++r) {
    memset(pinned, 0x33 + r, kBytes); // the replay reads it now
    poison(out, kBytes);
    launchAndWait(graph);
    download(back, out, kBytes);
    EXPECT_TRUE(back[0] == 0x22 && back[15] == 0x22);
    EXPECT_TRUE(back[16] == 0x33 + r && back[kBytes - 1] == 0x33 + r);
  }
  embrtGraphDestroy(gpu, graph);

  TEST_CASE("a capture refuses to wait for the device");
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_INVALID_ARGUMENT, gpu);
  EXPECT_CONTAINS(embrtContextGetLastError(gpu), "capturing a graph");
  expectDiscarded(EMBRT_INVALID_ARGUMENT, "synchronize");

  embrtEvent *start = NULL, *end = NULL;
  require(embrtEventCreate(gpu, &start), "embrtEventCreate");
  require(embrtEventCreate(gpu, &end), "embrtEventCreate");
  require(embrtEventRecord(gpu, start), "embrtEventRecord");
  require(embrtEventRecord(gpu, end), "embrtEventRecord");
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  float ms = 0;
  EXPECT_STATUS(embrtEventElapsedMs(gpu, start, end, &ms),
                EMBRT_INVALID_ARGUMENT, gpu);
  expectDiscarded(EMBRT_INVALID_ARGUMENT, "embrtGraphLaunch");
  embrtEventDestroy(gpu, start);
  embrtEventDestroy(gpu, end);

  TEST_CASE("a capture refuses blocking allocation");
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  void *p = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, 64, &p), EMBRT_INVALID_ARGUMENT, gpu);
  EXPECT_TRUE(p == NULL);
  expectDiscarded(EMBRT_INVALID_ARGUMENT, "embrtMallocAsync can");
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  EXPECT_STATUS(embrtFree(gpu, out), EMBRT_INVALID_ARGUMENT, gpu);
  expectDiscarded(EMBRT_INVALID_ARGUMENT, "embrtFreeAsync can");

  TEST_CASE("a capture refuses pageable host memory");
  unsigned char pageable[64] = {0};
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  EXPECT_STATUS(embrtMemcpy(gpu, out, pageable, sizeof pageable,
                            EMBRT_COPY_HOST_TO_DEVICE),
                EMBRT_INVALID_ARGUMENT, gpu);
  expectDiscarded(EMBRT_INVALID_ARGUMENT, "page-locked");
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  EXPECT_STATUS(embrtMemcpy(gpu, pageable, out, sizeof pageable,
                            EMBRT_COPY_DEVICE_TO_HOST),
                EMBRT_INVALID_ARGUMENT, gpu);
  expectDiscarded(EMBRT_INVALID_ARGUMENT, "is pageable");

  TEST_CASE("no nested capture, no launch while capturing");
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  EXPECT_STATUS(embrtContextBeginCapture(gpu, NULL), EMBRT_INVALID_ARGUMENT,
                gpu);
  expectDiscarded(EMBRT_INVALID_ARGUMENT, "capturing already");
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  require(embrtMemset(gpu, out, 1, 8), "embrtMemset");
  graph = endCapture("capturing a memset");
  require(embrtContextBeginCapture(gpu, NULL), "embrtContextBeginCapture");
  EXPECT_STATUS(embrtGraphLaunch(gpu, graph), EMBRT_INVALID_ARGUMENT, gpu);
  expectDiscarded(EMBRT_INVALID_ARGUMENT, "launch after the capture ends");
  launchAndWait(graph);
  embrtGraphDestroy(gpu, graph);

  TEST_CASE("every capture mode");
  const embrtCaptureMode modes[] = {
      EMBRT_CAPTURE_THREAD_LOCAL, EMBRT_CAPTURE_GLOBAL, EMBRT_CAPTURE_RELAXED};
  for (int i = 0; i < 3; ++i) {
    embrtCaptureOptions options = {sizeof options, modes[i]};
    require(embrtContextBeginCapture(gpu, &options),
            "embrtContextBeginCapture");
    require(embrtMemset(gpu, out, 0x40 + i, kBytes), "embrtMemset");
    graph = endCapture("capturing a memset");
    poison(out, kBytes);
    launchAndWait(graph);
    download(back, out, kBytes);
    EXPECT_TRUE(back[0] == 0x40 + i && back[kBytes - 1] == 0x40 + i);
    embrtGraphDestroy(gpu, graph);
  }

  TEST_CASE("a context destroyed while it captures");
  embrtContext *other = NULL;
  require(embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &other),
          "a second context");
  require(embrtContextBeginCapture(other, NULL), "embrtContextBeginCapture");
  EXPECT_EQ_INT(embrtContextIsCapturing(other), 1);
  embrtContextDestroy(other);
  // Nothing is left behind for this context's next launch check.
  require(embrtMemset(gpu, out, 0, kBytes), "embrtMemset");
  EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);

  embrtFree(gpu, out);
  cudaFreeHost(pinned);
}

int main(void) {
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "no CUDA context: %s\n", embrtGetCreateError());
    return 1;
  }
  Rng rng = rngSeed(0xC0DA6A);
  testTbe(&rng);
  testCompiledModel(&rng);
  testLce(&rng);
  testIkboLceF32(&rng);
  testTrainingStep(&rng);
  testMemoryAndRefusals();
  embrtContextDestroy(gpu);
  return harnessFinish();
}
