//===- bench/jagged/jagged_bench.c - emb.jagged_to_padded on the GPU ------===//
//
// Times embrtJaggedToPadded through the public runtime API, as
// triton.testing.do_bench times the peer (bench/jagged/peers.py): an
// estimate from 5 calls, then 25 ms of warm-up calls and at least 100 ms of
// timed calls, each after a 256 MB memset that flushes L2 and between its
// own pair of events, with no host wait until the last; the median call.
// Three runs, each printed. Cases (f16
// rows, i64 offsets, lengths written):
//
//   model   the ranking model's user history: U = 32 users of 256-1024 rows
//           (uniform), D = 128, Lk = 1024
//   large   U = 2048 users of 0-1024 rows, D = 128, Lk = 1024 (a batch of
//           requests: 512 MB written)
//   short   U = 16384 users of 0-64 rows, D = 64, Lk = 64
//
// Bytes: the rows read (kept rows) + the padded output written + offsets
// and lengths; GB/s against the copy bandwidth of the same call (a 1 GB
// device-to-device embrtMemcpy, read + write). Check: the first call's
// output against a host computation, bit for bit. One JSON line per case
// and run on stdout (and --out).
//
// Usage: jagged_bench [--out FILE.jsonl]
//
//===----------------------------------------------------------------------===//

#include "emb/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kRuns = 3, kMaxCalls = 1000 };
static const size_t kFlushBytes = 256u << 20;

static embrtContext *ctx;
static void *flushBuffer;

static void require(embrtStatus s, const char *what) {
  if (s != EMBRT_OK) {
    fprintf(stderr, "jagged_bench: %s: %s\n", what,
            embrtContextGetLastError(ctx));
    exit(1);
  }
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/// The median of the timed calls, in ms, as do_bench's method: the count of
/// warm-up (25 ms) and timed (100 ms) calls from a 5-call estimate that
/// includes the flush; the warm-up calls back to back, the timed ones each
/// flushed and between its own events, with one host wait at the end.
static double timeSustained(const embrtJaggedToPaddedArgs *a) {
  static embrtEvent *starts[kMaxCalls], *ends[kMaxCalls];
  static double ms[kMaxCalls];
  for (int i = 0; i < kMaxCalls; ++i) {
    require(embrtEventCreate(ctx, &starts[i]), "event");
    require(embrtEventCreate(ctx, &ends[i]), "event");
  }
  require(embrtJaggedToPadded(ctx, a), "jagged_to_padded"); /* loads it */
  require(embrtSynchronize(ctx), "synchronize");
  require(embrtEventRecord(ctx, starts[0]), "record");
  for (int i = 0; i < 5; ++i) {
    require(embrtMemset(ctx, flushBuffer, 0, kFlushBytes), "flush");
    require(embrtJaggedToPadded(ctx, a), "jagged_to_padded");
  }
  require(embrtEventRecord(ctx, ends[0]), "record");
  float est = 0;
  require(embrtEventElapsedMs(ctx, starts[0], ends[0], &est), "elapsed");
  double perCall = est / 5 > 1e-4 ? est / 5 : 1e-4;
  int warm = (int)(25.0 / perCall), calls = (int)(100.0 / perCall);
  warm = warm < 1 ? 1 : warm > 100 * kMaxCalls ? 100 * kMaxCalls : warm;
  calls = calls < 1 ? 1 : calls > kMaxCalls ? kMaxCalls : calls;
  for (int i = 0; i < warm; ++i)
    require(embrtJaggedToPadded(ctx, a), "jagged_to_padded");
  for (int i = 0; i < calls; ++i) {
    require(embrtMemset(ctx, flushBuffer, 0, kFlushBytes), "flush");
    require(embrtEventRecord(ctx, starts[i]), "record");
    require(embrtJaggedToPadded(ctx, a), "jagged_to_padded");
    require(embrtEventRecord(ctx, ends[i]), "record");
  }
  require(embrtSynchronize(ctx), "synchronize");
  for (int i = 0; i < calls; ++i) {
    float t = 0;
    require(embrtEventElapsedMs(ctx, starts[i], ends[i], &t), "elapsed");
    ms[i] = t;
  }
  for (int i = 0; i < kMaxCalls; ++i) {
    embrtEventDestroy(ctx, starts[i]);
    embrtEventDestroy(ctx, ends[i]);
  }
  qsort(ms, (size_t)calls, sizeof ms[0], cmp);
  return calls % 2 ? ms[calls / 2] : 0.5 * (ms[calls / 2 - 1] + ms[calls / 2]);
}

/// Device-to-device copy bandwidth (read + write), GB/s.
static double copyGbps(void) {
  size_t bytes = (size_t)1 << 30;
  void *a, *b;
  require(embrtMalloc(ctx, bytes, &a), "malloc");
  require(embrtMalloc(ctx, bytes, &b), "malloc");
  embrtEvent *start, *end;
  require(embrtEventCreate(ctx, &start), "event");
  require(embrtEventCreate(ctx, &end), "event");
  double best = 1e30;
  for (int i = 0; i < 10; ++i) {
    require(embrtEventRecord(ctx, start), "record");
    require(embrtMemcpy(ctx, b, a, bytes, EMBRT_COPY_DEVICE_TO_DEVICE), "copy");
    require(embrtEventRecord(ctx, end), "record");
    float t = 0;
    require(embrtEventElapsedMs(ctx, start, end, &t), "elapsed");
    if (i >= 2 && t < best)
      best = t;
  }
  embrtEventDestroy(ctx, start), embrtEventDestroy(ctx, end);
  embrtFree(ctx, a), embrtFree(ctx, b);
  return 2.0 * (double)bytes / best / 1e6;
}

typedef struct Case {
  const char *name;
  int64_t users, minLen, maxLen, D, Lk;
} Case;

static const Case kCases[] = {
    {"model", 32, 256, 1024, 128, 1024},
    {"large", 2048, 0, 1024, 128, 1024},
    {"short", 16384, 0, 64, 64, 64},
};

int main(int argc, char **argv) {
  FILE *out = NULL;
  if (argc == 3 && !strcmp(argv[1], "--out"))
    out = fopen(argv[2], "w");
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &ctx) != EMBRT_OK) {
    fprintf(stderr, "jagged_bench: %s\n", embrtGetCreateError());
    return 1;
  }
  require(embrtMalloc(ctx, kFlushBytes, &flushBuffer), "malloc");
  double copy = copyGbps();
  for (size_t k = 0; k < sizeof kCases / sizeof kCases[0]; ++k) {
    const Case *c = &kCases[k];
    int64_t U = c->users, D = c->D, Lk = c->Lk;
    int64_t *off = malloc((size_t)(U + 1) * sizeof *off);
    off[0] = 0;
    int64_t kept = 0;
    for (int64_t u = 0; u < U; ++u) {
      int64_t len =
          c->minLen + (int64_t)(next() % (uint64_t)(c->maxLen - c->minLen + 1));
      off[u + 1] = off[u] + len;
      kept += len < Lk ? len : Lk;
    }
    int64_t N = off[U];
    size_t valueBytes = (size_t)(N * D) * 2,
           paddedBytes = (size_t)(U * Lk * D) * 2;
    uint16_t *values = malloc(valueBytes ? valueBytes : 2);
    for (int64_t i = 0; i < N * D; ++i)
      values[i] = (uint16_t)(0x3C00 + (next() & 0x3FF)); // 1.0 .. 2.0
    void *dValues, *dOff, *dPadded, *dLengths;
    require(embrtMalloc(ctx, valueBytes ? valueBytes : 2, &dValues), "malloc");
    require(embrtMalloc(ctx, (size_t)(U + 1) * 8, &dOff), "malloc");
    require(embrtMalloc(ctx, paddedBytes, &dPadded), "malloc");
    require(embrtMalloc(ctx, (size_t)U * 8, &dLengths), "malloc");
    require(embrtMemcpy(ctx, dValues, values, valueBytes,
                        EMBRT_COPY_HOST_TO_DEVICE),
            "copy");
    require(embrtMemcpy(ctx, dOff, off, (size_t)(U + 1) * 8,
                        EMBRT_COPY_HOST_TO_DEVICE),
            "copy");
    embrtJaggedToPaddedArgs a = {sizeof a,  dValues, N,         D,
                                 EMBRT_F16, dOff,    EMBRT_I64, U,
                                 Lk,        0.0,     dPadded,   dLengths};
    require(embrtJaggedToPadded(ctx, &a), "jagged_to_padded");
    require(embrtSynchronize(ctx), "synchronize");
    uint16_t *got = malloc(paddedBytes);
    require(
        embrtMemcpy(ctx, got, dPadded, paddedBytes, EMBRT_COPY_DEVICE_TO_HOST),
        "copy");
    const char *check = "ok";
    for (int64_t u = 0; u < U && !strcmp(check, "ok"); ++u) {
      int64_t len = off[u + 1] - off[u], n = len < Lk ? len : Lk;
      for (int64_t i = 0; i < Lk * D; ++i) {
        uint16_t want = i < n * D ? values[off[u] * D + i] : 0;
        if (got[u * Lk * D + i] != want) {
          check = "MISMATCH";
          break;
        }
      }
    }
    double bytes = (double)kept * D * 2 + (double)paddedBytes +
                   (double)(U + 1) * 8 + U * 8;
    for (int r = 1; r <= kRuns; ++r) {
      double ms = timeSustained(&a);
      char line[512];
      snprintf(
          line, sizeof line,
          "{\"case\": \"%s\", \"impl\": \"emb\", \"run\": %d, \"users\": %lld, "
          "\"D\": %lld, \"Lk\": %lld, \"rows\": %lld, \"ms\": %.5f, \"bytes\": "
          "%.0f, "
          "\"gbps\": %.1f, \"copy_gbps\": %.1f, \"check\": \"%s\"}",
          c->name, r, (long long)U, (long long)D, (long long)Lk, (long long)N,
          ms, bytes, bytes / ms / 1e6, copy, check);
      puts(line);
      if (out)
        fprintf(out, "%s\n", line);
    }
    embrtFree(ctx, dValues), embrtFree(ctx, dOff), embrtFree(ctx, dPadded);
    embrtFree(ctx, dLengths);
    free(off), free(values), free(got);
  }
  if (out)
    fclose(out);
  embrtFree(ctx, flushBuffer);
  embrtContextDestroy(ctx);
  return 0;
}
