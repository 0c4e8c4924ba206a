//===- bench/tbe/tbe_graphs.c - The TBE forward replayed from CUDA graphs -===//
//
// Times emb's single-table mean-pooling lookups (the launch-bound points of
// the TBE benchmark: B = 8192 bags, a 1e6 x D f16 table, D in {32, 64, 128},
// L in {1, 2, 4, 8} ids a bag, 25% of them the padding id 0, i64 ids and
// offsets, f16 output) two ways, through the public runtime API alone:
//
//   graph    N back-to-back embrtTbeForward calls on the context's stream,
//            captured into one CUDA graph (embrtContextBeginCapture) and
//            replayed: one run is R launches of the graph between two events,
//            its time divided by N * R; the median of three runs. L2 is not
//            flushed between the calls (as torch.cuda.graphs replays them in
//            bench/tbe/graphs_peers.py, the same way).
//   flushed  one call at a time, as triton.testing.do_bench times the peer
//            and bench/tbe/tbe_bench.cu times ours: 5 calls estimate the
//            time, then 25 ms of warm-up calls and 100 ms of measured calls
//            (at most 2000), each after a 256 MB memset that flushes L2,
//            timed alone with events; the median.
//
// Inputs as tbe_bench.cu makes them (the same table values, the same ids).
// Checks: 256 sampled bags of a direct call against a host reference, and
// the first replay of the graph (into a poisoned output) against the direct
// call, bit for bit. One JSON record a line per case and mode on stdout
// (and --out), read by bench/tbe/graphs_report.py.
//
// Usage: tbe_graphs [--out FILE.jsonl] [--only CASE,...] [--calls N]
//                   [--replays R]
//
//===----------------------------------------------------------------------===//

#include "emb/runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kBatch = 8192, kRuns = 3 };
static const int64_t kRows = 1000000;
static const double kPadFrac = 0.25;

static embrtContext *ctx;

static void require(embrtStatus status, const char *what) {
  if (status == EMBRT_OK)
    return;
  fprintf(stderr, "tbe_graphs: %s: %s: %s\n", what, embrtStatusName(status),
          embrtContextGetLastError(ctx));
  exit(2);
}

//===----------------------------------------------------------------------===//
// Inputs: as bench/tbe/tbe_bench.cu (tableValue, Rng)
//===----------------------------------------------------------------------===//

static float tableValue(uint64_t t, uint64_t r, uint64_t c) {
  uint64_t x = (t * 0x9E3779B97F4A7C15ull) ^ (r * 0xC2B2AE3D27D4EB4Full) ^
               (c * 0x165667B19E3779F9ull);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  float m = 0.25f + (float)((x >> 40) & 0xFFFF) / 65536.0f;
  return (x & 1) ? m : -m;
}

typedef struct Rng {
  uint64_t s;
} Rng;

static uint64_t rngNext(Rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1Dull;
}

static double rngUniform(Rng *r) {
  return (double)(rngNext(r) >> 11) * 0x1.0p-53;
}

/// The f16 table of width `dim` on the host and the device, made once a
/// width.
typedef struct Table {
  int64_t dim;
  uint16_t *host;
  void *device;
} Table;

static Table makeTable(int64_t dim) {
  Table t = {dim, malloc(sizeof(uint16_t) * kRows * dim), NULL};
  if (!t.host) {
    fprintf(stderr, "tbe_graphs: out of host memory\n");
    exit(2);
  }
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < dim; ++c)
      t.host[r * dim + c] = embrtF32ToF16(tableValue(0, r, c));
  size_t bytes = sizeof(uint16_t) * kRows * dim;
  require(embrtMalloc(ctx, bytes, &t.device), "table");
  require(embrtMemcpy(ctx, t.device, t.host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
          "table upload");
  return t;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, compareDoubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void *flushBuffer;
static const size_t kFlushBytes = (size_t)256 << 20;

static void call(const embrtTbeArgs *a) {
  require(embrtTbeForward(ctx, a), "embrtTbeForward");
}

/// Milliseconds between two new events around `reps` calls (after a flush
/// each when `flush`), waiting for the second.
static double timeCalls(const embrtTbeArgs *a, int reps, int flush) {
  embrtEvent *start = NULL, *end = NULL;
  require(embrtEventCreate(ctx, &start), "event");
  require(embrtEventCreate(ctx, &end), "event");
  require(embrtEventRecord(ctx, start), "event");
  for (int i = 0; i < reps; ++i) {
    if (flush)
      require(embrtMemset(ctx, flushBuffer, 0, kFlushBytes), "flush");
    call(a);
  }
  require(embrtEventRecord(ctx, end), "event");
  float ms = 0;
  require(embrtEventElapsedMs(ctx, start, end, &ms), "event");
  embrtEventDestroy(ctx, start);
  embrtEventDestroy(ctx, end);
  return ms;
}

/// do_bench's method: the median of single flushed calls, each timed alone.
static double flushedMs(const embrtTbeArgs *a) {
  call(a);
  require(embrtSynchronize(ctx), "synchronize");
  double est = timeCalls(a, 5, 1) / 5;
  int warm = (int)(25.0 / est), reps = (int)(100.0 / est);
  warm = warm < 1 ? 1 : warm;
  reps = reps < 1 ? 1 : reps > 2000 ? 2000 : reps;
  for (int i = 0; i < warm; ++i)
    call(a);
  embrtEvent **ev = calloc(2 * (size_t)reps, sizeof *ev);
  for (int i = 0; i < 2 * reps; ++i)
    require(embrtEventCreate(ctx, &ev[i]), "event");
  for (int i = 0; i < reps; ++i) {
    require(embrtMemset(ctx, flushBuffer, 0, kFlushBytes), "flush");
    require(embrtEventRecord(ctx, ev[2 * i]), "event");
    call(a);
    require(embrtEventRecord(ctx, ev[2 * i + 1]), "event");
  }
  require(embrtSynchronize(ctx), "synchronize");
  double *ms = malloc(sizeof(double) * (size_t)reps);
  for (int i = 0; i < reps; ++i) {
    float t = 0;
    require(embrtEventElapsedMs(ctx, ev[2 * i], ev[2 * i + 1], &t), "event");
    ms[i] = t;
  }
  for (int i = 0; i < 2 * reps; ++i)
    embrtEventDestroy(ctx, ev[i]);
  double m = median(ms, reps);
  free(ms);
  free(ev);
  return m;
}

//===----------------------------------------------------------------------===//
// One case
//===----------------------------------------------------------------------===//

/// 256 sampled bags of `out` against the host reference; "ok" or why not.
static void checkSampled(const Table *t, const int64_t *ids, int64_t L,
                         const uint16_t *out, char *why, size_t size) {
  Rng pick = {12345};
  const int64_t D = t->dim;
  snprintf(why, size, "ok");
  for (int k = 0; k < 256; ++k) {
    int64_t b = (int64_t)(rngNext(&pick) % kBatch);
    for (int64_t c = 0; c < D; ++c) {
      double ref = 0, mag = 0;
      int64_t count = 0;
      for (int64_t i = b * L; i < (b + 1) * L; ++i) {
        if (ids[i] == 0)
          continue;
        double v = embrtF16ToF32(t->host[ids[i] * D + c]);
        ref += v;
        mag += fabs(v);
        ++count;
      }
      if (count) {
        ref /= (double)count;
        mag /= (double)count;
      }
      double got = embrtF16ToF32(out[b * D + c]);
      double tol = 8e-3 * fmax(fabs(ref), mag) + 1e-6;
      if (!(fabs(got - ref) <= tol)) {
        snprintf(why, size, "bag %lld col %lld: %g vs %g", (long long)b,
                 (long long)c, got, ref);
        return;
      }
    }
  }
}

static void emit(FILE *out, const char *name, int64_t D, int64_t L,
                 const char *mode, double ms, const double *runs, int calls,
                 int replays, const char *check) {
  char line[1024];
  int n = snprintf(line, sizeof line,
                   "{\"case\": \"%s\", \"B\": %d, \"T\": 1, \"E\": %lld, "
                   "\"D\": %lld, \"L\": %lld, \"dtype\": \"float16\", "
                   "\"impl\": \"emb\", \"mode\": \"%s\", \"ms\": %.6f",
                   name, kBatch, (long long)kRows, (long long)D, (long long)L,
                   mode, ms);
  if (runs)
    n += snprintf(line + n, sizeof line - (size_t)n,
                  ", \"ms_runs\": [%.6f, %.6f, %.6f], \"calls_per_graph\": "
                  "%d, \"replays\": %d",
                  runs[0], runs[1], runs[2], calls, replays);
  snprintf(line + n, sizeof line - (size_t)n, ", \"check\": \"%s\"}", check);
  printf("%s\n", line);
  fflush(stdout);
  if (out) {
    fprintf(out, "%s\n", line);
    fflush(out);
  }
}

static void runCase(const Table *t, int64_t L, int calls, int replays,
                    FILE *out) {
  const int64_t D = t->dim, N = (int64_t)kBatch * L;
  char name[64];
  snprintf(name, sizeof name, "ebag_mean_d%lld_l%lld", (long long)D,
           (long long)L);
  Rng rng = {0x5EEDull + (uint64_t)kBatch * 131 + (uint64_t)D * 7 +
             (uint64_t)L};
  int64_t *ids = malloc(sizeof(int64_t) * (size_t)N);
  int64_t *offsets = malloc(sizeof(int64_t) * (kBatch + 1));
  for (int64_t i = 0; i < N; ++i)
    ids[i] = rngUniform(&rng) < kPadFrac
                 ? 0
                 : 1 + (int64_t)(rngNext(&rng) % (uint64_t)(kRows - 1));
  for (int64_t b = 0; b <= kBatch; ++b)
    offsets[b] = b * L;
  void *dIds = NULL, *dOffsets = NULL, *dOut = NULL;
  const size_t outBytes = sizeof(uint16_t) * kBatch * (size_t)D;
  require(embrtMalloc(ctx, sizeof(int64_t) * (size_t)N, &dIds), "ids");
  require(embrtMalloc(ctx, sizeof(int64_t) * (kBatch + 1), &dOffsets),
          "offsets");
  require(embrtMalloc(ctx, outBytes, &dOut), "output");
  require(embrtMemcpy(ctx, dIds, ids, sizeof(int64_t) * (size_t)N,
                      EMBRT_COPY_HOST_TO_DEVICE),
          "ids upload");
  require(embrtMemcpy(ctx, dOffsets, offsets, sizeof(int64_t) * (kBatch + 1),
                      EMBRT_COPY_HOST_TO_DEVICE),
          "offsets upload");

  const int64_t rows = kRows, featureTables[1] = {0};
  const void *tables[1] = {t->device};
  embrtTbeArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.pooling = EMBRT_POOLING_MEAN;
  a.boundsCheck = EMBRT_BOUNDS_FATAL;
  a.numTables = 1;
  a.tables = tables;
  a.tableRows = &rows;
  a.tableDims = &D;
  a.tableDtype = EMBRT_F16;
  a.numFeatures = 1;
  a.featureTables = featureTables;
  a.batchSize = kBatch;
  a.numIndices = N;
  a.indices = dIds;
  a.indexDtype = EMBRT_I64;
  a.offsets = dOffsets;
  a.offsetDtype = EMBRT_I64;
  a.paddingIdx = 0;
  a.hasPaddingIdx = 1;
  a.output = dOut;
  a.outputDtype = EMBRT_F16;
  a.configId = -1;

  // The direct call, checked.
  uint16_t *direct = malloc(outBytes), *replayed = malloc(outBytes);
  char check[256];
  require(embrtMemset(ctx, dOut, 0xFF, outBytes), "poison");
  call(&a);
  require(embrtMemcpy(ctx, direct, dOut, outBytes, EMBRT_COPY_DEVICE_TO_HOST),
          "download");
  require(embrtSynchronize(ctx), "the direct call");
  checkSampled(t, ids, L, direct, check, sizeof check);

  // Per call, L2 flushed.
  double flushed = flushedMs(&a);
  emit(out, name, D, L, "flushed", flushed, NULL, 0, 0, check);

  // N calls in one graph; its first replay checked against the direct call.
  embrtGraph *graph = NULL;
  require(embrtContextBeginCapture(ctx, NULL), "embrtContextBeginCapture");
  for (int i = 0; i < calls; ++i)
    call(&a);
  require(embrtContextEndCapture(ctx, &graph), "embrtContextEndCapture");
  require(embrtMemset(ctx, dOut, 0xFF, outBytes), "poison");
  require(embrtGraphLaunch(ctx, graph), "embrtGraphLaunch");
  require(embrtMemcpy(ctx, replayed, dOut, outBytes, EMBRT_COPY_DEVICE_TO_HOST),
          "download");
  require(embrtSynchronize(ctx), "the graph's first replay");
  if (!strcmp(check, "ok") && memcmp(replayed, direct, outBytes))
    snprintf(check, sizeof check, "the replay differs from the direct call");
  for (int i = 0; i < 3; ++i) // warm
    require(embrtGraphLaunch(ctx, graph), "embrtGraphLaunch");
  double runs[kRuns], sorted[kRuns];
  for (int r = 0; r < kRuns; ++r) {
    embrtEvent *start = NULL, *end = NULL;
    require(embrtEventCreate(ctx, &start), "event");
    require(embrtEventCreate(ctx, &end), "event");
    require(embrtEventRecord(ctx, start), "event");
    for (int i = 0; i < replays; ++i)
      require(embrtGraphLaunch(ctx, graph), "embrtGraphLaunch");
    require(embrtEventRecord(ctx, end), "event");
    float ms = 0;
    require(embrtEventElapsedMs(ctx, start, end, &ms), "event");
    runs[r] = sorted[r] = ms / ((double)calls * replays);
    embrtEventDestroy(ctx, start);
    embrtEventDestroy(ctx, end);
  }
  require(embrtSynchronize(ctx), "graph replays");
  emit(out, name, D, L, "graph", median(sorted, kRuns), runs, calls, replays,
       check);

  embrtGraphDestroy(ctx, graph);
  embrtFree(ctx, dIds);
  embrtFree(ctx, dOffsets);
  embrtFree(ctx, dOut);
  free(ids);
  free(offsets);
  free(direct);
  free(replayed);
}

int main(int argc, char **argv) {
  const char *outPath = NULL, *only = NULL;
  int calls = 100, replays = 10;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc)
      outPath = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
      calls = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--replays") && i + 1 < argc)
      replays = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: tbe_graphs [--out FILE.jsonl] [--only CASE,...] "
                      "[--calls N] [--replays R]\n");
      return 2;
    }
  }
  if (calls < 1 || replays < 1) {
    fprintf(stderr, "tbe_graphs: --calls and --replays must be >= 1\n");
    return 2;
  }
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &ctx) != EMBRT_OK) {
    fprintf(stderr, "tbe_graphs: no CUDA context: %s\n", embrtGetCreateError());
    return 1;
  }
  FILE *out = outPath ? fopen(outPath, "w") : NULL;
  require(embrtMalloc(ctx, kFlushBytes, &flushBuffer), "flush buffer");
  static const int64_t dims[] = {32, 64, 128}, lengths[] = {1, 2, 4, 8};
  for (int d = 0; d < 3; ++d) {
    Table t = {0, NULL, NULL};
    for (int l = 0; l < 4; ++l) {
      char name[64], needle[80], list[1024];
      snprintf(name, sizeof name, "ebag_mean_d%lld_l%lld", (long long)dims[d],
               (long long)lengths[l]);
      snprintf(needle, sizeof needle, ",%s,", name);
      snprintf(list, sizeof list, ",%s,", only ? only : "");
      if (only && !strstr(list, needle))
        continue;
      if (!t.host)
        t = makeTable(dims[d]);
      runCase(&t, lengths[l], calls, replays, out);
    }
    if (t.host) {
      embrtFree(ctx, t.device);
      free(t.host);
    }
  }
  embrtFree(ctx, flushBuffer);
  if (out)
    fclose(out);
  embrtContextDestroy(ctx);
  return 0;
}
