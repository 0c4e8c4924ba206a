//===- tools/emb-run/runner.c - Running a compiled model ------------------===//

#define _POSIX_C_SOURCE 200809L

#include "runner.h"

#include "../common/crash.h"
#include "../common/flags.h"
#include "npy.h"

#include "emb/compiled.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

const char *const embRunOptionsHelp =
    "  --device cpu|cuda         Where the model runs (default: cpu)\n"
    "  --inputs a.npy,b.npy,...  Inputs, one .npy file per argument, in order\n"
    "  --input a.npy             The next input (repeatable)\n"
    "  --random-inputs           Make valid random inputs (ids in range,\n"
    "                            offsets valid, users in the user batch)\n"
    "  --seed S                  Seed of the random inputs (default 1)\n"
    "  --dynamic-size N          Ids per bag where a length is dynamic "
    "(default 4;\n"
    "                            0 makes every bag empty)\n"
    "  --output-dir DIR          Write the results there as .npy\n"
    "  --repeat N                Time N runs after a warm-up (median, "
    "spread);\n"
    "                            on a GPU as do_bench times: L2 flushed, "
    "25 ms of\n"
    "                            warm-up, at least N runs and 100 ms, no "
    "host sync\n"
    "  --atol X, --rtol X        Comparison tolerance (default: per dtype)\n"
    "  --print                   Print a summary of each result on stdout\n"
    "  --cuda-graph              Also capture one call into a CUDA graph,\n"
    "                            check its replay against a direct call and\n"
    "                            time --repeat replays (--device cuda)\n";

void embRunOptionsInit(EmbRunOptions *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  o->dynamicSize = 4;
  o->atol = o->rtol = -1;
}

static int badValue(const char *tool, const char *flag, const char *value) {
  fprintf(stderr, "%s: error: %s: bad value '%s'\n", tool, flag,
          value ? value : "(missing)");
  return -1;
}

static int outOfMemory(const char *tool) {
  fprintf(stderr, "%s: error: out of memory\n", tool);
  return -1;
}

static int addInput(EmbRunOptions *o, const char *path) {
  const char **list =
      realloc((void *)o->inputs, (size_t)(o->numInputs + 1) * sizeof(char *));
  if (!list)
    return -1;
  list[o->numInputs++] = path;
  o->inputs = list;
  return 0;
}

int embRunParseOption(int argc, char **argv, int *i, EmbRunOptions *o,
                      const char *tool) {
  const char *a = argv[*i];
  const char *eq = strchr(a, '=');
  size_t flagLen = eq ? (size_t)(eq - a) : strlen(a);
#define IS(flag) (flagLen == strlen(flag) && !strncmp(a, flag, flagLen))
  bool takesValue = IS("--device") || IS("--inputs") || IS("--input") ||
                    IS("--seed") || IS("--output-dir") || IS("--repeat") ||
                    IS("--atol") || IS("--rtol") || IS("--dynamic-size");
  if (!takesValue && !IS("--random-inputs") && !IS("--print") &&
      !IS("--cuda-graph"))
    return 0;
  const char *v = NULL;
  if (takesValue) {
    if (eq)
      v = eq + 1;
    else if (*i + 1 < argc)
      v = argv[++*i];
    else
      return badValue(tool, a, NULL);
  }
  char *end = NULL;
  if (IS("--device")) {
    if (!strcmp(v, "cpu"))
      o->device = EMBRT_DEVICE_CPU;
    else if (!strcmp(v, "cuda"))
      o->device = EMBRT_DEVICE_CUDA;
    else
      return badValue(tool, "--device", v);
  } else if (IS("--inputs")) {
    // Split the comma-separated list; the strings live as long as argv.
    char *copy = strdup(v);
    if (!copy)
      return outOfMemory(tool);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
      if (addInput(o, tok))
        return outOfMemory(tool);
  } else if (IS("--input")) {
    if (addInput(o, v))
      return outOfMemory(tool);
  } else if (IS("--random-inputs")) {
    o->random = true;
  } else if (IS("--print")) {
    o->print = true;
  } else if (IS("--cuda-graph")) {
    o->cudaGraph = true;
  } else if (IS("--seed")) {
    if (!embParseFlagUnsigned(v, UINT64_MAX, &o->seed))
      return badValue(tool, "--seed", v);
  } else if (IS("--output-dir")) {
    o->outputDir = v;
  } else if (IS("--repeat")) {
    int64_t r;
    if (!embParseFlagInt(v, 0, 1000000, &r))
      return badValue(tool, "--repeat", v);
    o->repeat = (int)r;
  } else if (IS("--dynamic-size")) {
    int64_t r;
    if (!embParseFlagInt(v, 0, 1 << 20, &r))
      return badValue(tool, "--dynamic-size", v);
    o->dynamicSize = r;
  } else if (IS("--atol") || IS("--rtol")) {
    double x = strtod(v, &end);
    if (*end || !(x >= 0))
      return badValue(tool, IS("--atol") ? "--atol" : "--rtol", v);
    if (IS("--atol"))
      o->atol = x;
    else
      o->rtol = x;
  }
#undef IS
  return 1;
}

//===----------------------------------------------------------------------===//
// Host arrays
//===----------------------------------------------------------------------===//

static uint64_t nextRandom(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1DULL;
}

static double uniform(uint64_t *s) {
  return (double)(nextRandom(s) >> 11) * (1.0 / 9007199254740992.0);
}

static double loadElement(const void *p, embrtDtype d, int64_t i) {
  switch (d) {
  case EMBRT_F32:
    return ((const float *)p)[i];
  case EMBRT_F16:
    return embrtF16ToF32(((const uint16_t *)p)[i]);
  case EMBRT_BF16:
    return embrtBF16ToF32(((const uint16_t *)p)[i]);
  case EMBRT_F64:
    return ((const double *)p)[i];
  case EMBRT_I32:
    return ((const int32_t *)p)[i];
  case EMBRT_I64:
    return (double)((const int64_t *)p)[i];
  case EMBRT_I8:
    return ((const int8_t *)p)[i];
  }
  return 0;
}

static void storeElement(void *p, embrtDtype d, int64_t i, double v) {
  switch (d) {
  case EMBRT_F32:
    ((float *)p)[i] = (float)v;
    break;
  case EMBRT_F16:
    ((uint16_t *)p)[i] = embrtF32ToF16((float)v);
    break;
  case EMBRT_BF16:
    ((uint16_t *)p)[i] = embrtF32ToBF16((float)v);
    break;
  case EMBRT_F64:
    ((double *)p)[i] = v;
    break;
  case EMBRT_I32:
    ((int32_t *)p)[i] = (int32_t)v;
    break;
  case EMBRT_I64:
    ((int64_t *)p)[i] = (int64_t)v;
    break;
  case EMBRT_I8:
    ((int8_t *)p)[i] = (int8_t)v;
    break;
  }
}

static const char *dtypeName(int d) {
  static const char *const names[] = {"f32", "f16", "bf16", "i32",
                                      "i64", "f64", "i8"};
  return d >= 0 && d <= EMBRT_I8 ? names[d] : "?";
}

static void specText(const EmbArgSpec *s, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "tensor<");
  for (int i = 0; i < s->rank && n < size; ++i) {
    if (s->dims[i] < 0)
      n += (size_t)snprintf(buf + n, size - n, "?x");
    else
      n += (size_t)snprintf(buf + n, size - n, "%lldx", (long long)s->dims[i]);
  }
  if (n < size)
    snprintf(buf + n, size - n, "%s>", dtypeName(s->dtype));
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

static int loadInputs(const EmbModelSpec *m, const EmbRunOptions *o,
                      EmbArray *in) {
  if (o->numInputs != m->numInputs) {
    fprintf(stderr,
            "emb-run: error: @%s takes %d inputs but %d .npy files were "
            "given\n",
            m->name, m->numInputs, o->numInputs);
    return -1;
  }
  for (int i = 0; i < m->numInputs; ++i) {
    char err[768], want[128];
    const EmbArgSpec *s = &m->inputs[i];
    specText(s, want, sizeof want);
    // The header first: a file of the wrong shape is named as such before
    // its data is read (or found too large to read).
    EmbNpyReader r;
    if (embNpyOpen(o->inputs[i], (embrtDtype)s->dtype, &r, err, sizeof err)) {
      fprintf(stderr, "emb-run: error: input #%d (%s): %s\n", i, want, err);
      return -1;
    }
    bool ok = r.shape.rank == s->rank;
    for (int d = 0; ok && d < s->rank; ++d)
      ok = s->dims[d] < 0 || s->dims[d] == r.shape.dims[d];
    if (!ok) {
      char got[256];
      embArrayShapeText(&r.shape, got, sizeof got);
      fprintf(stderr,
              "emb-run: error: input #%d: '%s' is %s but @%s takes %s\n", i,
              o->inputs[i], got, m->name, want);
      embNpyClose(&r);
      return -1;
    }
    if (embNpyReadData(&r, &in[i], err, sizeof err)) {
      fprintf(stderr, "emb-run: error: input #%d (%s): %s\n", i, want, err);
      return -1;
    }
  }
  return 0;
}

static int compareCuts(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/// A random integer in [lo, hi] (hi >= lo), over the full int64_t range too.
static int64_t randomInRange(uint64_t *state, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1; // 0: all 2^64 values
  uint64_t r = nextRandom(state);
  return (int64_t)((uint64_t)lo + (span ? r % span : r));
}

static int randomInputs(const EmbModelSpec *m, const EmbRunOptions *o,
                        EmbArray *in) {
  uint64_t state = o->seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL;
  int64_t perBag = o->dynamicSize; // 0: every bag is empty
  // Shapes first: a dynamic length of ids comes from the bags of the offsets
  // that index them; per-sample weights follow their ids.
  for (int i = 0; i < m->numInputs; ++i) {
    const EmbArgSpec *s = &m->inputs[i];
    in[i].dtype = (embrtDtype)s->dtype;
    in[i].rank = s->rank;
    for (int d = 0; d < s->rank; ++d)
      in[i].dims[d] = s->dims[d];
  }
  for (int i = 0; i < m->numInputs; ++i) {
    const EmbArgSpec *s = &m->inputs[i];
    if ((s->role != EMB_ARG_OFFSETS && s->role != EMB_ARG_ROW_OFFSETS) ||
        s->ref < 0 || s->ref >= m->numInputs || s->rank < 1 || s->dims[0] < 1)
      continue;
    EmbArray *ids = &in[s->ref];
    bool rows = s->role == EMB_ARG_ROW_OFFSETS;
    if ((rows ? ids->rank >= 1 : ids->rank == 1) && ids->dims[0] < 0 &&
        !embCheckedMul(s->dims[0] - 1, perBag, &ids->dims[0])) {
      char want[128];
      specText(&m->inputs[s->ref], want, sizeof want);
      fprintf(stderr,
              "emb-run: error: input #%d (%s): %lld bags of %lld ids "
              "(--dynamic-size) overflow a 64-bit count\n",
              s->ref, want, (long long)(s->dims[0] - 1), (long long)perBag);
      return -1;
    }
  }
  for (int i = 0; i < m->numInputs; ++i) {
    const EmbArgSpec *s = &m->inputs[i];
    if (s->role == EMB_ARG_WEIGHTS && s->ref >= 0 && s->ref < m->numInputs &&
        s->rank >= 1 && in[s->ref].rank >= 1 && in[i].dims[0] < 0)
      in[i].dims[0] = in[s->ref].dims[0];
    for (int d = 0; d < s->rank; ++d) {
      if (in[i].dims[d] < 0) {
        char want[128];
        specText(s, want, sizeof want);
        fprintf(stderr,
                "emb-run: error: input #%d (%s) has a dynamic size that "
                "nothing determines; give the inputs as .npy files\n",
                i, want);
        return -1;
      }
    }
  }
  for (int i = 0; i < m->numInputs; ++i) {
    char err[256], want[128];
    if (embArrayAllocate(&in[i], false, err, sizeof err)) {
      embArrayShapeText(&in[i], want, sizeof want);
      fprintf(stderr, "emb-run: error: input #%d (%s): %s\n", i, want, err);
      return -1;
    }
  }
  for (int i = 0; i < m->numInputs; ++i) {
    const EmbArgSpec *s = &m->inputs[i];
    EmbArray *a = &in[i];
    int64_t n = embArrayElements(a);
    if (s->role == EMB_ARG_OFFSETS || s->role == EMB_ARG_ROW_OFFSETS) {
      // Random cut points of the ids (or the jagged values' rows) into
      // bags: sorted, from 0 to N.
      int64_t total = 0;
      if (s->ref >= 0 && s->ref < m->numInputs)
        total = s->role == EMB_ARG_OFFSETS ? embArrayElements(&in[s->ref])
                : in[s->ref].rank >= 1     ? in[s->ref].dims[0]
                                           : 0;
      double *cuts = malloc((size_t)n * sizeof(double) + 8);
      if (!cuts) {
        fprintf(stderr, "emb-run: error: input #%d: out of memory\n", i);
        return -1;
      }
      for (int64_t k = 0; k < n; ++k)
        cuts[k] = uniform(&state) * (double)total;
      qsort(cuts, (size_t)n, sizeof(double), compareCuts);
      for (int64_t k = 0; k < n; ++k)
        storeElement(a->data, a->dtype, k,
                     k == 0       ? 0
                     : k == n - 1 ? (double)total
                                  : floor(cuts[k]));
      free(cuts);
      continue;
    }
    if (s->role == EMB_ARG_PACKED_TABLE && a->rank == 2) {
      // Rows uniform in [-1, 1), packed as the table stores them.
      int64_t rows = a->dims[0], dim = s->hi;
      float *dense =
          malloc((size_t)(rows > 0 ? rows * dim : 1) * sizeof *dense);
      if (!dense) {
        fprintf(stderr, "emb-run: error: input #%d: out of memory\n", i);
        return -1;
      }
      for (int64_t k = 0; k < rows * dim; ++k)
        dense[k] = (float)(2.0 * uniform(&state) - 1.0);
      embrtQuantizeTableArgs q = {
          sizeof q, (embrtTablePrecision)s->lo, rows, dim, dense, EMBRT_F32,
          a->data};
      embrtStatus status = embrtQuantizeRows(&q, NULL, NULL);
      free(dense);
      if (status != EMBRT_OK) {
        fprintf(stderr,
                "emb-run: error: input #%d: cannot pack %s rows of %lld "
                "columns into [%lld, %lld] bytes\n",
                i, embrtTablePrecisionName(q.precision), (long long)dim,
                (long long)a->dims[0], (long long)a->dims[1]);
        return -1;
      }
      continue;
    }
    for (int64_t k = 0; k < n; ++k) {
      double v;
      switch (s->role) {
      case EMB_ARG_IDS:
        v = s->hi > s->lo ? (double)randomInRange(&state, s->lo, s->hi - 1)
                          : (double)s->lo;
        break;
      case EMB_ARG_INDEX: // sorted groups covering every user
        v = s->hi > 0 ? floor((double)k * (double)s->hi / (double)n) : 0;
        break;
      case EMB_ARG_LENGTHS:
        v = s->hi >= s->lo ? (double)randomInRange(&state, s->lo, s->hi)
                           : (double)s->lo;
        break;
      case EMB_ARG_WEIGHTS:
        v = uniform(&state);
        break;
      default:
        v = 2.0 * uniform(&state) - 1.0;
      }
      storeElement(a->data, a->dtype, k, v);
    }
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

typedef struct {
  embrtContext *ctx;
  int numArgs;
  void **device;   ///< device buffers: inputs, then results
  bool *dynamic;   ///< results filled through an embrtCompiledResult
  int64_t **descs; ///< memref descriptors
  void **descPtrs; ///< what args[1 + i] points at
  void **args;     ///< packed arguments
} Call;

static int64_t *makeDescriptor(void *data, int rank, const int64_t *dims) {
  int64_t *d = calloc((size_t)(3 + 2 * rank), sizeof(int64_t));
  if (!d)
    return NULL;
  memcpy(&d[0], &data, sizeof data);
  memcpy(&d[1], &data, sizeof data);
  d[2] = 0;
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    d[3 + i] = dims[i];
    d[3 + rank + i] = stride;
    stride *= dims[i];
  }
  return d;
}

/// The last error checkStatus reported (status and message), which
/// --compare-unoptimized prints as the outcome of a side that failed.
static char lastFailure[1024];

static int checkStatus(embrtContext *ctx, const char *what) {
  embrtStatus st = embrtSynchronize(ctx);
  if (st == EMBRT_OK)
    st = embrtContextGetStatus(ctx);
  if (st != EMBRT_OK) {
    snprintf(lastFailure, sizeof lastFailure, "%s: %s", embrtStatusName(st),
             embrtContextGetLastError(ctx));
    fprintf(stderr, "emb-run: error: %s: %s\n", what, lastFailure);
    return -1;
  }
  return 0;
}

/// Whether result `i` of `m` has a `?` dim: the call allocates its buffer
/// and reports its shape (embrtCompiledResult).
static bool isDynamicResult(const EmbModelSpec *m, int i) {
  for (int d = 0; d < m->results[i].rank; ++d)
    if (m->results[i].dims[d] < 0)
      return true;
  return false;
}

/// After a call: takes the buffers of its dynamic results (freeing the
/// previous call's), and sizes their host arrays in `out` by the shapes the
/// call reported.
static int takeDynamicResults(Call *c, const EmbModelSpec *m, EmbArray *out) {
  for (int k = 0; k < m->numResults; ++k) {
    int i = m->numInputs + k;
    if (!c->dynamic[i])
      continue;
    embrtCompiledResult *r = (embrtCompiledResult *)c->descs[i];
    if (!r->data)
      continue; // the call failed before its return: its status says why
    if (c->device[i])
      embrtCompiledFree(c->ctx, c->device[i]);
    c->device[i] = r->data;
    r->data = NULL;
    const EmbArgSpec *s = &m->results[k];
    bool same = r->rank == s->rank;
    for (int d = 0; same && d < s->rank; ++d)
      same = r->dims[d] >= 0 && (s->dims[d] < 0 || r->dims[d] == s->dims[d]);
    if (!same) {
      fprintf(stderr,
              "emb-run: error: result #%d of @%s: the call reported a shape "
              "of rank %lld that does not fit its type\n",
              k, m->name, (long long)r->rank);
      return -1;
    }
    bool resized = !out[k].data;
    for (int d = 0; d < s->rank; ++d) {
      resized |= out[k].dims[d] != r->dims[d];
      out[k].dims[d] = r->dims[d];
    }
    if (resized) {
      char err[256], shape[128];
      free(out[k].data);
      out[k].data = NULL;
      if (embArrayAllocate(&out[k], true, err, sizeof err)) {
        embArrayShapeText(&out[k], shape, sizeof shape);
        fprintf(stderr, "emb-run: error: result #%d of @%s (%s): %s\n", k,
                m->name, shape, err);
        return -1;
      }
    }
  }
  return 0;
}

/// After a failed call: frees the buffers it allocated for its dynamic
/// results anyway (a compiled function runs on to its return after a failed
/// call, and hands over what it allocated).
static void dropDynamicResults(Call *c, const EmbModelSpec *m) {
  for (int k = 0; k < m->numResults; ++k) {
    int i = m->numInputs + k;
    if (!c->dynamic[i])
      continue;
    embrtCompiledResult *r = (embrtCompiledResult *)c->descs[i];
    embrtCompiledFree(c->ctx, r->data);
    r->data = NULL;
  }
}

static int prepareCall(Call *c, embrtContext *ctx, const EmbModelSpec *m,
                       EmbArray *in, void **inputBuffers, EmbArray *out) {
  c->ctx = ctx;
  c->numArgs = m->numInputs + m->numResults;
  c->device = calloc((size_t)c->numArgs + 1, sizeof(void *));
  c->descs = calloc((size_t)c->numArgs + 1, sizeof(int64_t *));
  c->descPtrs = calloc((size_t)c->numArgs + 1, sizeof(void *));
  c->args = calloc((size_t)c->numArgs + 2, sizeof(void *));
  c->dynamic = calloc((size_t)c->numArgs + 1, sizeof(bool));
  if (!c->device || !c->descs || !c->descPtrs || !c->args || !c->dynamic) {
    fprintf(stderr, "emb-run: error: out of memory\n");
    return -1;
  }
  c->args[0] = &c->ctx;
  for (int i = 0; i < c->numArgs; ++i) {
    bool isInput = i < m->numInputs;
    EmbArray *a = isInput ? &in[i] : &out[i - m->numInputs];
    if (!isInput && isDynamicResult(m, i - m->numInputs)) {
      // The call fills an embrtCompiledResult (include/emb/compiled.h).
      c->dynamic[i] = true;
      c->descs[i] = calloc(1, sizeof(embrtCompiledResult));
      if (!c->descs[i]) {
        fprintf(stderr, "emb-run: error: out of memory\n");
        return -1;
      }
      c->descPtrs[i] = c->descs[i];
      c->args[1 + i] = &c->descPtrs[i];
      continue;
    }
    if (isInput) {
      c->device[i] = inputBuffers[i];
    } else if (embrtMalloc(ctx, embArrayBytes(a) + 1, &c->device[i]) !=
               EMBRT_OK) {
      fprintf(stderr, "emb-run: error: %s\n", embrtContextGetLastError(ctx));
      return -1;
    }
    c->descs[i] = makeDescriptor(c->device[i], a->rank, a->dims);
    if (!c->descs[i]) {
      fprintf(stderr, "emb-run: error: out of memory\n");
      return -1;
    }
    c->descPtrs[i] = c->descs[i];
    c->args[1 + i] = &c->descPtrs[i];
  }
  return 0;
}

static void releaseCall(Call *c, int numInputs) {
  for (int i = 0; i < c->numArgs; ++i) {
    // A dynamic result's buffer came from the call (embrtCompiledAlloc).
    if (i >= numInputs && c->device && c->dynamic && c->dynamic[i])
      embrtCompiledFree(c->ctx, c->device[i]);
    else if (i >= numInputs && c->device)
      embrtFree(c->ctx, c->device[i]);
    if (c->descs)
      free(c->descs[i]);
  }
  free(c->device);
  free(c->dynamic);
  free(c->descs);
  free(c->descPtrs);
  free(c->args);
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/// One timed step: a call of the model or a replay of its graph.
typedef struct TimedStep {
  Call *c;
  const EmbModelSpec *m;
  EmbArray *out;     ///< a call's results (dynamic ones are taken each call)
  embrtGraph *graph; ///< a replay: the graph; else NULL
} TimedStep;

static int takeStep(TimedStep *s) {
  if (s->graph)
    return embrtGraphLaunch(s->c->ctx, s->graph) == EMBRT_OK ? 0 : -1;
  s->m->invoke(s->c->args);
  return takeDynamicResults(s->c, s->m, s->out);
}

enum { kMaxTimedSteps = 4096 };

/// Times steps as triton's do_bench times the torch peers, so that both sides
/// of a comparison run under the same conditions. On a GPU: the L2 flushed (a
/// 256 MiB memset, outside the timed region) before each step, 25 ms of
/// warm-up steps, then at least `repeat` steps and 100 ms (at most
/// kMaxTimedSteps), each between its own pair of events, with no host
/// synchronisation between steps. (A few synchronised steps finish before the
/// card's power cap lowers its clocks; do_bench's sustained steps do not.)
/// On the CPU: `repeat` steps. The times, sorted, go to *msOut (*nOut of
/// them); returns 0, or -1 after printing why.
static int timeSteps(TimedStep *s, int repeat, double **msOut, int *nOut) {
  embrtContext *ctx = s->c->ctx;
  const bool gpu = embrtContextGetDevice(ctx) == EMBRT_DEVICE_CUDA;
  void *flush = NULL;
  const size_t flushBytes = (size_t)256 << 20;
  embrtEvent **ev = NULL;
  double *ms = NULL;
  int n = repeat, made = 0, status = -1;
  if (gpu && embrtMalloc(ctx, flushBytes, &flush) != EMBRT_OK) {
    checkStatus(ctx, "allocating the L2 flush buffer");
    return -1;
  }
  if (gpu) {
    // The time of one flush and step, from 5 of them.
    embrtEvent *e0 = NULL, *e1 = NULL;
    float t = 0;
    bool ok = embrtEventCreate(ctx, &e0) == EMBRT_OK &&
              embrtEventCreate(ctx, &e1) == EMBRT_OK &&
              embrtEventRecord(ctx, e0) == EMBRT_OK;
    for (int r = 0; ok && r < 5; ++r)
      ok = embrtMemset(ctx, flush, r & 0xff, flushBytes) == EMBRT_OK &&
           takeStep(s) == 0;
    ok = ok && embrtEventRecord(ctx, e1) == EMBRT_OK &&
         embrtEventElapsedMs(ctx, e0, e1, &t) == EMBRT_OK;
    embrtEventDestroy(ctx, e0);
    embrtEventDestroy(ctx, e1);
    if (!ok) {
      checkStatus(ctx, s->m->name);
      goto done;
    }
    const double each = t / 5 > 1e-3 ? t / 5 : 1e-3;
    for (int r = 0; r < (int)ceil(25.0 / each); ++r)
      if (embrtMemset(ctx, flush, r & 0xff, flushBytes) != EMBRT_OK ||
          takeStep(s)) {
        checkStatus(ctx, s->m->name);
        goto done;
      }
    if (n < (int)ceil(100.0 / each))
      n = (int)ceil(100.0 / each);
    if (n > kMaxTimedSteps)
      n = repeat > kMaxTimedSteps ? repeat : kMaxTimedSteps;
  }
  ms = malloc((size_t)n * sizeof(double));
  ev = calloc(2 * (size_t)n, sizeof *ev);
  if (!ms || !ev) {
    fprintf(stderr, "emb-run: error: out of memory\n");
    goto done;
  }
  for (; made < 2 * n; ++made)
    if (embrtEventCreate(ctx, &ev[made]) != EMBRT_OK) {
      checkStatus(ctx, "creating timing events");
      goto done;
    }
  for (int r = 0; r < n; ++r) {
    if ((flush && embrtMemset(ctx, flush, r & 0xff, flushBytes) != EMBRT_OK) ||
        embrtEventRecord(ctx, ev[2 * r]) != EMBRT_OK || takeStep(s) ||
        embrtEventRecord(ctx, ev[2 * r + 1]) != EMBRT_OK) {
      checkStatus(ctx, s->m->name);
      goto done;
    }
    // On the CPU an event is read at once; on a GPU after the last step.
    if (!gpu) {
      float t = 0;
      if (embrtEventElapsedMs(ctx, ev[2 * r], ev[2 * r + 1], &t) != EMBRT_OK) {
        checkStatus(ctx, s->m->name);
        goto done;
      }
      ms[r] = t;
    }
  }
  for (int r = 0; gpu && r < n; ++r) {
    float t = 0;
    if (embrtEventElapsedMs(ctx, ev[2 * r], ev[2 * r + 1], &t) != EMBRT_OK) {
      checkStatus(ctx, s->m->name);
      goto done;
    }
    ms[r] = t;
  }
  qsort(ms, (size_t)n, sizeof(double), compareDoubles);
  *msOut = ms;
  *nOut = n;
  ms = NULL;
  status = 0;
done:
  for (int i = 0; i < made; ++i)
    embrtEventDestroy(ctx, ev[i]);
  free(ev);
  free(ms);
  embrtFree(ctx, flush);
  return status;
}

/// Runs the call once, then `repeat` timed times; copies results back.
static int runCall(Call *c, const EmbModelSpec *m, EmbArray *out, int repeat) {
  char stage[512];
  snprintf(stage, sizeof stage,
           "running @%s (the compiled model and emb's "
           "runtime)",
           m->name);
  embCrashSetStage(stage, NULL);
  embCrashTestPoint("run");
  m->invoke(c->args);
  if (checkStatus(c->ctx, m->name)) {
    dropDynamicResults(c, m);
    return -1;
  }
  if (takeDynamicResults(c, m, out))
    return -1;
  if (repeat > 0) {
    TimedStep step = {c, m, out, NULL};
    double *ms = NULL;
    int n = 0;
    if (timeSteps(&step, repeat, &ms, &n)) {
      dropDynamicResults(c, m);
      return -1;
    }
    const bool gpu = embrtContextGetDevice(c->ctx) == EMBRT_DEVICE_CUDA;
    fprintf(stderr,
            "emb-run: @%s: median %.4f ms over %d runs (min %.4f, max "
            "%.4f), events around each call on the stream%s\n",
            m->name, ms[n / 2], n, ms[0], ms[n - 1],
            gpu ? ", L2 flushed before each, after 25 ms of warm-up, no "
                  "host sync between runs"
                : "");
    free(ms);
  }
  for (int i = 0; i < m->numResults; ++i) {
    EmbArray *a = &out[i];
    if (embrtMemcpy(c->ctx, a->data, c->device[m->numInputs + i],
                    embArrayBytes(a), EMBRT_COPY_DEVICE_TO_HOST) != EMBRT_OK ||
        checkStatus(c->ctx, "copying results back"))
      return -1;
  }
  return 0;
}

static int allocResults(const EmbModelSpec *m, EmbArray *out) {
  for (int i = 0; i < m->numResults; ++i) {
    const EmbArgSpec *s = &m->results[i];
    out[i].dtype = (embrtDtype)s->dtype;
    out[i].rank = s->rank;
    if (isDynamicResult(m, i))
      continue; // sized by the shape the call reports (takeDynamicResults)
    for (int d = 0; d < s->rank; ++d)
      out[i].dims[d] = s->dims[d];
    char err[256], shape[128];
    if (embArrayAllocate(&out[i], true, err, sizeof err)) {
      embArrayShapeText(&out[i], shape, sizeof shape);
      fprintf(stderr, "emb-run: error: result #%d of @%s (%s): %s\n", i,
              m->name, shape, err);
      return -1;
    }
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

static void defaultTolerance(embrtDtype d, double *atol, double *rtol) {
  switch (d) {
  case EMBRT_F16:
    *atol = 1e-2, *rtol = 1e-2;
    break;
  case EMBRT_BF16:
    *atol = 5e-2, *rtol = 5e-2;
    break;
  case EMBRT_F32:
    *atol = 1e-4, *rtol = 1e-4;
    break;
  default:
    *atol = 0, *rtol = 0;
  }
}

/// The difference between an array and the reference's under the
/// comparison's tolerance, taken a piece at a time: a result is one piece,
/// an argument is read back from both sides' buffers in chunks (a table
/// may be most of the machine's memory).
typedef struct Diff {
  embrtDtype dtype;
  double atol, rtol;
  double scale; ///< the largest |reference value|, at least 1
  double maxAbs, maxRel;
  int64_t worst; ///< the first element over the tolerance, or -1
  double worstA, worstB;
  int64_t nanAt; ///< the first NaN of one side and not the other, or -1
} Diff;

static void diffInit(Diff *d, embrtDtype dtype, const EmbRunOptions *o) {
  memset(d, 0, sizeof *d);
  d->dtype = dtype;
  defaultTolerance(dtype, &d->atol, &d->rtol);
  if (o->atol >= 0)
    d->atol = o->atol;
  if (o->rtol >= 0)
    d->rtol = o->rtol;
  d->scale = 1;
  d->worst = d->nanAt = -1;
}

/// Takes `n` elements of the reference into the scale. The tolerance
/// scales with the array: an element may differ by rtol of itself plus
/// atol of the array's largest magnitude (at least 1), since two correct
/// computations that round in different places differ by ulps of the
/// values they rounded, not of each element.
static void diffScale(Diff *d, const void *b, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    double y = fabs(loadElement(b, d->dtype, k));
    if (y > d->scale && isfinite(y))
      d->scale = y;
  }
}

static bool isInteger(embrtDtype t) {
  return t == EMBRT_I32 || t == EMBRT_I64 || t == EMBRT_I8;
}

/// Compares elements [first, first + n), which `a` and `b` point at.
static void diffAdd(Diff *d, const void *a, const void *b, int64_t first,
                    int64_t n) {
  size_t es = embrtDtypeSize(d->dtype);
  for (int64_t k = 0; k < n; ++k) {
    double x = loadElement(a, d->dtype, k);
    double y = loadElement(b, d->dtype, k);
    double e = fabs(x - y);
    if (x != x || y != y) {
      if ((x != x) != (y != y) && d->nanAt < 0)
        d->nanAt = first + k;
      continue;
    }
    if (e > d->maxAbs)
      d->maxAbs = e;
    if (fabs(y) > d->atol * d->scale && e / fabs(y) > d->maxRel)
      d->maxRel = e / fabs(y);
    // Integers without a tolerance are compared exactly (an i64 past 2^53
    // has no exact double).
    bool over = isInteger(d->dtype) && d->atol == 0 && d->rtol == 0
                    ? memcmp((const char *)a + (size_t)k * es,
                             (const char *)b + (size_t)k * es, es) != 0
                    : e > d->atol * d->scale + d->rtol * fabs(y);
    if (over && d->worst < 0) {
      d->worst = first + k;
      d->worstA = x;
      d->worstB = y;
    }
  }
}

static bool diffOk(const Diff *d) { return d->worst < 0 && d->nanAt < 0; }

/// "(%name)" of input `i`, or "" where its name is not known.
static void argumentName(const EmbRunOptions *o, int i, char *buf,
                         size_t size) {
  const char *name = o->inputNames ? o->inputNames[i] : NULL;
  if (name && *name)
    snprintf(buf, size, " (%s)", name);
  else
    buf[0] = '\0';
}

/// "[i, j]": element `flat` of `a` by its index in each dim.
static void indexText(const EmbArray *a, int64_t flat, char *buf, size_t size) {
  int64_t idx[EMB_NPY_MAX_RANK];
  for (int d = a->rank - 1; d >= 0; --d) {
    idx[d] = a->dims[d] > 0 ? flat % a->dims[d] : 0;
    flat = a->dims[d] > 0 ? flat / a->dims[d] : 0;
  }
  size_t n = (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < a->rank && n < size; ++d)
    n += (size_t)snprintf(buf + n, size - n, "%s%lld", d ? ", " : "",
                          (long long)idx[d]);
  if (n < size)
    snprintf(buf + n, size - n, "]");
}

static int compareResults(const EmbModelSpec *m, const EmbModelSpec *ref,
                          const EmbArray *a, const EmbArray *b,
                          const EmbRunOptions *o) {
  int bad = 0;
  for (int i = 0; i < m->numResults; ++i) {
    char shapeA[128], shapeB[128];
    embArrayShapeText(&a[i], shapeA, sizeof shapeA);
    embArrayShapeText(&b[i], shapeB, sizeof shapeB);
    if (strcmp(shapeA, shapeB) != 0) {
      printf("result #%d: shape %s but @%s's is %s: MISMATCH\n", i, shapeA,
             ref->name, shapeB);
      bad = 1;
      continue;
    }
    int64_t n = embArrayElements(&a[i]);
    Diff d;
    diffInit(&d, a[i].dtype, o);
    diffScale(&d, b[i].data, n);
    diffAdd(&d, a[i].data, b[i].data, 0, n);
    bool ok = diffOk(&d);
    printf("result #%d %s: max abs diff %.3g, max rel diff %.3g against "
           "@%s (atol %.3g x max |value| %.3g, rtol %.3g): %s\n",
           i, shapeA, d.maxAbs, d.maxRel, ref->name, d.atol, d.scale, d.rtol,
           ok ? "ok" : "MISMATCH");
    if (!ok) {
      if (d.nanAt >= 0)
        printf("  a NaN appears in one result and not the other\n");
      else
        printf("  first mismatch at element %lld: %g vs %g\n",
               (long long)d.worst, d.worstA, d.worstB);
      bad = 1;
    }
  }
  return bad;
}

/// The elements of an argument read back at a time.
enum { kCompareChunk = 1 << 20 };

/// Copies elements [first, first + n) of a buffer of `ctx` into `host`.
static int readBack(embrtContext *ctx, const void *buffer, size_t es,
                    int64_t first, int64_t n, void *host) {
  if (embrtMemcpy(ctx, host, (const char *)buffer + (size_t)first * es,
                  (size_t)n * es, EMBRT_COPY_DEVICE_TO_HOST) != EMBRT_OK)
    return checkStatus(ctx, "copying an argument back");
  return checkStatus(ctx, "copying an argument back");
}

/// Compares input `i` as the two calls left it in their own buffers (`bufA`
/// on `ctxA`: the model's; `bufB` on `ctxB`: the reference's), both started
/// from `start`: an argument a function updates in place (a table and its
/// optimizer states under emb.tbe_backward) is as much what it computes as
/// a result. Prints a line for an argument either side changed; sets *bad
/// on a difference over the tolerance. Returns -1 if a copy failed.
static int compareArgument(const EmbModelSpec *m, const EmbModelSpec *ref,
                           int i, const EmbArray *start, embrtContext *ctxA,
                           const void *bufA, embrtContext *ctxB,
                           const void *bufB, const EmbRunOptions *o,
                           bool *bad) {
  int64_t n = embArrayElements(start);
  size_t es = embrtDtypeSize(start->dtype);
  int64_t chunk = n < kCompareChunk ? n : kCompareChunk;
  char *a = malloc((size_t)chunk * es + 1), *b = malloc((size_t)chunk * es + 1);
  int status = -1;
  if (!a || !b) {
    fprintf(stderr, "emb-run: error: out of memory\n");
    goto done;
  }
  // Bit for bit first (and the reference's largest value): most arguments
  // are read only, and left as they were on both sides.
  bool same = true, changed = false;
  Diff d;
  diffInit(&d, start->dtype, o);
  for (int64_t first = 0; first < n; first += chunk) {
    int64_t k = n - first < chunk ? n - first : chunk;
    const char *from = (const char *)start->data + (size_t)first * es;
    if (readBack(ctxA, bufA, es, first, k, a) ||
        readBack(ctxB, bufB, es, first, k, b))
      goto done;
    same = same && !memcmp(a, b, (size_t)k * es);
    changed = changed || memcmp(a, from, (size_t)k * es) ||
              memcmp(b, from, (size_t)k * es);
    diffScale(&d, b, k);
  }
  status = 0;
  if (!changed)
    goto done;
  for (int64_t first = 0; !same && first < n; first += chunk) {
    int64_t k = n - first < chunk ? n - first : chunk;
    if (readBack(ctxA, bufA, es, first, k, a) ||
        readBack(ctxB, bufB, es, first, k, b)) {
      status = -1;
      goto done;
    }
    diffAdd(&d, a, b, first, k);
  }
  char name[256], shape[128], at[256];
  argumentName(o, i, name, sizeof name);
  embArrayShapeText(start, shape, sizeof shape);
  bool ok = diffOk(&d);
  printf("argument #%d%s %s, updated in place: max abs diff %.3g, max rel "
         "diff %.3g against @%s (atol %.3g x max |value| %.3g, rtol %.3g): "
         "%s\n",
         i, name, shape, d.maxAbs, d.maxRel, ref->name, d.atol, d.scale, d.rtol,
         ok ? "ok" : "MISMATCH");
  if (ok)
    goto done;
  *bad = true;
  int64_t at1 = d.nanAt >= 0 ? d.nanAt : d.worst;
  indexText(start, at1, at, sizeof at);
  if (d.nanAt >= 0) {
    printf("  argument #%d%s: a NaN at %s on one side and not the other\n", i,
           name, at);
    goto done;
  }
  double was = loadElement(start->data, start->dtype, at1);
  printf("  argument #%d%s differs at %s: %g vs %g; it started at %g", i, name,
         at, d.worstA, d.worstB, was);
  if (d.worstA == was || d.worstB == was)
    printf(" (@%s left it as it was)", d.worstA == was ? m->name : ref->name);
  printf("\n");
done:
  free(a);
  free(b);
  return status;
}

/// Warns when every result of a comparison on random inputs is zero on
/// both sides: then it checks next to nothing (random inputs that mask
/// every key, say, where an input's role was not recognised).
static void warnAllZero(const EmbModelSpec *m, const EmbArray *a,
                        const EmbArray *b, const EmbRunOptions *o) {
  int64_t total = 0;
  for (int i = 0; i < m->numResults; ++i) {
    int64_t n = embArrayElements(&a[i]);
    total += n;
    for (int64_t k = 0; k < n; ++k)
      if (loadElement(a[i].data, a[i].dtype, k) != 0 ||
          loadElement(b[i].data, b[i].dtype, k) != 0)
        return;
  }
  if (o->random && total > 0)
    fprintf(stderr,
            "emb-run: warning: every compared result is zero on both sides: "
            "the comparison checks next to nothing on these random inputs "
            "(an input whose role emb-run did not recognise, such as key "
            "lengths of 0 that mask every key?); give inputs with "
            "--inputs\n");
}

/// What --compare-unoptimized prints when a side failed: both outcomes,
/// and whether they agree. A rewrite may not make a valid model fail nor
/// an invalid one succeed; an error on both sides agrees whatever each
/// message says. Returns 1 (the model did not run to the end).
static int reportOutcomes(const EmbModelSpec *m, const EmbModelSpec *ref,
                          const char *failure, const char *refFailure) {
  printf("outcome of @%s: %s%s\n", m->name, failure ? "error: " : "",
         failure ? failure : "succeeded");
  printf("outcome of @%s: %s%s\n", ref->name, refFailure ? "error: " : "",
         refFailure ? refFailure : "succeeded");
  if (failure && refFailure)
    printf("outcomes: both sides report an error: they agree (errors on "
           "both sides agree, whatever each message says)\n");
  else
    printf("outcomes: only @%s reports an error: MISMATCH (a rewrite may not "
           "make a valid model fail, nor an invalid one succeed)\n",
           failure ? m->name : ref->name);
  return 1;
}

static void printResults(const EmbModelSpec *m, const EmbArray *out) {
  for (int i = 0; i < m->numResults; ++i) {
    int64_t n = embArrayElements(&out[i]);
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    for (int64_t k = 0; k < n; ++k) {
      double v = loadElement(out[i].data, out[i].dtype, k);
      sum += v;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    char shape[128];
    embArrayShapeText(&out[i], shape, sizeof shape);
    printf("result #%d %s: sum %.6g, min %.6g, max %.6g, first [", i, shape,
           sum, n ? lo : 0, n ? hi : 0);
    for (int64_t k = 0; k < n && k < 4; ++k)
      printf("%s%.6g", k ? ", " : "",
             loadElement(out[i].data, out[i].dtype, k));
    printf("%s]\n", n > 4 ? ", ..." : "");
  }
}

static int writeResults(const EmbModelSpec *m, const EmbArray *out,
                        const char *dir) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "emb-run: error: cannot create '%s': %s\n", dir,
            strerror(errno));
    return -1;
  }
  for (int i = 0; i < m->numResults; ++i) {
    size_t size = strlen(dir) + strlen(m->name) + sizeof "/.result.npy" + 12;
    char *path = malloc(size), err[512];
    if (!path) {
      fprintf(stderr, "emb-run: error: out of memory\n");
      return -1;
    }
    snprintf(path, size, "%s/%s.result%d.npy", dir, m->name, i);
    if (embNpyWrite(path, &out[i], err, sizeof err)) {
      fprintf(stderr, "emb-run: error: %s\n", err);
      free(path);
      return -1;
    }
    fprintf(stderr, "emb-run: wrote %s\n", path);
    free(path);
  }
  return 0;
}

/// Copies the inputs to their device buffers.
static int uploadInputs(embrtContext *ctx, const EmbModelSpec *m,
                        const EmbArray *in, void **inputBuffers) {
  for (int i = 0; i < m->numInputs; ++i) {
    if (embrtMemcpy(ctx, inputBuffers[i], in[i].data, embArrayBytes(&in[i]),
                    EMBRT_COPY_HOST_TO_DEVICE) != EMBRT_OK) {
      fprintf(stderr, "emb-run: error: input #%d: %s\n", i,
              embrtContextGetLastError(ctx));
      return -1;
    }
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// CUDA graphs (--cuda-graph)
//===----------------------------------------------------------------------===//

/// Copies the call's results into `host` (shaped like the results).
static int downloadResults(Call *c, const EmbModelSpec *m, EmbArray *host) {
  for (int i = 0; i < m->numResults; ++i)
    if (embrtMemcpy(c->ctx, host[i].data, c->device[m->numInputs + i],
                    embArrayBytes(&host[i]),
                    EMBRT_COPY_DEVICE_TO_HOST) != EMBRT_OK)
      return checkStatus(c->ctx, "copying results back");
  return checkStatus(c->ctx, "copying results back");
}

/// Times `repeat` launches of `graph` like runCall times calls.
static int timeReplays(Call *c, const EmbModelSpec *m, embrtGraph *graph,
                       int repeat) {
  TimedStep step = {c, m, NULL, graph};
  double *ms = NULL;
  int n = 0;
  if (timeSteps(&step, repeat, &ms, &n))
    return -1;
  fprintf(stderr,
          "emb-run: @%s: graph replay: median %.4f ms over %d replays (min "
          "%.4f, max %.4f), events around each replay on the stream, L2 "
          "flushed before each, after 25 ms of warm-up, no host sync "
          "between replays\n",
          m->name, ms[n / 2], n, ms[0], ms[n - 1]);
  free(ms);
  return 0;
}

/// Captures one call of `m` into a CUDA graph (after runCall's warm-up),
/// checks that a replay writes what a direct call on the same inputs writes
/// (both from freshly uploaded inputs: a training step updates its own), and
/// times `repeat` replays.
static int runGraph(Call *c, const EmbModelSpec *m, const EmbArray *in,
                    void **inputBuffers, const EmbArray *out,
                    const EmbRunOptions *o) {
  embrtContext *ctx = c->ctx;
  for (int i = 0; i < m->numResults; ++i)
    if (isDynamicResult(m, i)) {
      fprintf(stderr,
              "emb-run: error: @%s cannot be captured into a CUDA graph: "
              "result #%d has a dynamic shape, so each call allocates its "
              "buffer (embrtCompiledResult), which a replay cannot repeat\n",
              m->name, i);
      return -1;
    }
  int status = -1;
  embrtGraph *graph = NULL;
  EmbArray *direct = calloc((size_t)m->numResults + 1, sizeof(EmbArray));
  EmbArray *replayed = calloc((size_t)m->numResults + 1, sizeof(EmbArray));
  for (int i = 0; i < m->numResults; ++i) {
    direct[i] = replayed[i] = out[i];
    direct[i].data = calloc(embArrayBytes(&out[i]) + 1, 1);
    replayed[i].data = calloc(embArrayBytes(&out[i]) + 1, 1);
  }
  if (uploadInputs(ctx, m, in, inputBuffers))
    goto done;
  m->invoke(c->args);
  if (checkStatus(ctx, m->name) || downloadResults(c, m, direct) ||
      uploadInputs(ctx, m, in, inputBuffers))
    goto done;
  embrtStatus st = embrtContextBeginCapture(ctx, NULL);
  if (st == EMBRT_OK) {
    m->invoke(c->args);
    st = embrtContextEndCapture(ctx, &graph);
  }
  if (st != EMBRT_OK) {
    fprintf(stderr, "emb-run: error: capturing @%s into a CUDA graph: %s: %s\n",
            m->name, embrtStatusName(st), embrtContextGetLastError(ctx));
    goto done;
  }
  // The replay must write every result: poison them first.
  for (int i = 0; i < m->numResults; ++i)
    embrtMemset(ctx, c->device[m->numInputs + i], 0xFF, embArrayBytes(&out[i]));
  embrtGraphLaunch(ctx, graph);
  if (checkStatus(ctx, "graph replay") || downloadResults(c, m, replayed))
    goto done;
  bool same = true;
  for (int i = 0; i < m->numResults; ++i)
    same = same &&
           !memcmp(direct[i].data, replayed[i].data, embArrayBytes(&out[i]));
  if (same) {
    fprintf(stderr,
            "emb-run: @%s: captured into a CUDA graph; its replay wrote the "
            "direct call's %d results bit for bit\n",
            m->name, m->numResults);
  } else {
    // Reductions whose order varies between launches: within tolerance.
    char name[512];
    snprintf(name, sizeof name, "%s (direct call)", m->name);
    EmbModelSpec directSpec = *m;
    directSpec.name = name;
    printf("graph replay of @%s:\n", m->name);
    if (compareResults(m, &directSpec, replayed, direct, o)) {
      fprintf(stderr,
              "emb-run: error: @%s: the graph replay's results differ from "
              "the direct call's\n",
              m->name);
      goto done;
    }
  }
  if (o->repeat > 0 && timeReplays(c, m, graph, o->repeat))
    goto done;
  status = 0;
done:
  embrtGraphDestroy(ctx, graph);
  for (int i = 0; i < m->numResults; ++i) {
    free(direct[i].data);
    free(replayed[i].data);
  }
  free(direct);
  free(replayed);
  return status;
}

/// Joins `ctx` to the sharded program's world, if it has one.
static int joinWorld(embrtContext *ctx, const EmbRunOptions *o) {
  if (o->worldSize < 1)
    return 0;
  embrtCommId id;
  memset(&id, 0, sizeof id);
  if (embrtContextSetCommunicator(ctx, o->worldSize, o->rank,
                                  o->commId ? o->commId : &id) != EMBRT_OK) {
    fprintf(stderr,
            "emb-run: error: joining a world of %d ranks as rank %d: %s\n",
            o->worldSize, o->rank, embrtContextGetLastError(ctx));
    return -1;
  }
  return 0;
}

/// Input buffers of `ctx` for `m`'s inputs `in`, into `buffers`.
static int allocInputs(embrtContext *ctx, const EmbModelSpec *m,
                       const EmbArray *in, void **buffers) {
  for (int i = 0; i < m->numInputs; ++i) {
    if (embrtMalloc(ctx, embArrayBytes(&in[i]) + 1, &buffers[i]) != EMBRT_OK) {
      fprintf(stderr, "emb-run: error: input #%d: %s\n", i,
              embrtContextGetLastError(ctx));
      return -1;
    }
  }
  return 0;
}

int embRunModel(const EmbModelSpec *m, const EmbModelSpec *ref,
                const EmbRunOptions *o) {
  int status = 1;
  EmbArray *in = calloc((size_t)m->numInputs + 1, sizeof(EmbArray));
  EmbArray *out = calloc((size_t)m->numResults + 1, sizeof(EmbArray));
  EmbArray *refOut = calloc((size_t)m->numResults + 1, sizeof(EmbArray));
  void **inputBuffers = calloc((size_t)m->numInputs + 1, sizeof(void *));
  void **refInputBuffers = calloc((size_t)m->numInputs + 1, sizeof(void *));
  embrtContext *ctx = NULL, *cpuCtx = NULL, *refCtx = NULL;
  Call call, refCall;
  bool haveCall = false, haveRef = false;
  char failure[sizeof lastFailure], refFailure[sizeof lastFailure];
  memset(&call, 0, sizeof call);
  memset(&refCall, 0, sizeof refCall);
  if (!in || !out || !refOut || !inputBuffers || !refInputBuffers) {
    fprintf(stderr, "emb-run: error: out of memory\n");
    goto done;
  }

  if (o->cudaGraph && o->device != EMBRT_DEVICE_CUDA) {
    fprintf(stderr, "emb-run: error: --cuda-graph needs --device cuda (a CUDA "
                    "graph replays GPU work; on the CPU every call runs when "
                    "it is made)\n");
    goto done;
  }
  embCrashSetStage(o->random ? "making random inputs" : "reading the inputs",
                   NULL);
  if ((o->random ? randomInputs(m, o, in) : loadInputs(m, o, in)) ||
      allocResults(m, out) || (ref && allocResults(ref, refOut)))
    goto done;
  if (embrtContextCreate(o->device, o->ordinal, NULL, &ctx) != EMBRT_OK) {
    fprintf(stderr, "emb-run: error: %s\n", embrtGetCreateError());
    goto done;
  }
  if (joinWorld(ctx, o))
    goto done;
  fprintf(stderr, "emb-run: @%s on %s, %d inputs (%s)\n", m->name,
          o->device == EMBRT_DEVICE_CUDA ? "cuda" : "cpu", m->numInputs,
          o->random ? "random" : "from files");
  if (allocInputs(ctx, m, in, inputBuffers))
    goto done;
  haveCall = true; // released even when half prepared
  if (uploadInputs(ctx, m, in, inputBuffers) ||
      prepareCall(&call, ctx, m, in, inputBuffers, out))
    goto done;
  // With a reference, a failed call is an outcome to compare, not the end.
  lastFailure[0] = '\0';
  bool failed = runCall(&call, m, out, o->repeat) != 0;
  snprintf(failure, sizeof failure, "%s",
           lastFailure[0] ? lastFailure : "(the error above)");
  if (failed && !ref)
    goto done;
  bool refFailed = false;
  if (ref) {
    // The model as written starts from its own copies of the inputs, so
    // that what each side updates in place (a training step's tables and
    // states) can be compared after the calls. A reference compiled for
    // the cpu target (emb-compile --reference-target cpu) runs on a CPU
    // context of its own.
    refCtx = ctx;
    if (o->device != EMBRT_DEVICE_CPU && ref->target &&
        !strcmp(ref->target, "cpu")) {
      if (embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &cpuCtx) != EMBRT_OK) {
        fprintf(stderr, "emb-run: error: %s\n", embrtGetCreateError());
        goto done;
      }
      refCtx = cpuCtx;
      if (joinWorld(cpuCtx, o))
        goto done;
    }
    // The model's failure is sticky on a shared context.
    if (failed && refCtx == ctx)
      embrtContextClearError(ctx);
    if (allocInputs(refCtx, m, in, refInputBuffers))
      goto done;
    haveRef = true;
    if (uploadInputs(refCtx, m, in, refInputBuffers) ||
        prepareCall(&refCall, refCtx, ref, in, refInputBuffers, refOut))
      goto done;
    lastFailure[0] = '\0';
    refFailed = runCall(&refCall, ref, refOut, o->repeat) != 0;
    snprintf(refFailure, sizeof refFailure, "%s",
             lastFailure[0] ? lastFailure : "(the error above)");
  }
  // Ids skipped under bounds_check "warning": the count over all calls,
  // and the runtime's note of the last skip, which names the op (tbe or
  // embedding_bag), the feature and bag, the id and its table.
  if (embrtContextGetInvalidIdCount(ctx) > 0)
    fprintf(stderr,
            "emb-run: warning: %lld ids were out of range over all calls; "
            "the last: %s\n",
            (long long)embrtContextGetInvalidIdCount(ctx),
            embrtContextGetLastError(ctx));
  if (ref && (failed || refFailed)) {
    status = reportOutcomes(m, ref, failed ? failure : NULL,
                            refFailed ? refFailure : NULL);
    goto done;
  }
  status = 0;
  if (o->print || !ref)
    printResults(m, out);
  if (ref) {
    // Every result, then every argument as each call left it.
    bool bad = compareResults(m, ref, out, refOut, o) != 0;
    for (int i = 0; i < m->numInputs; ++i)
      if (compareArgument(m, ref, i, &in[i], ctx, inputBuffers[i], refCtx,
                          refInputBuffers[i], o, &bad))
        goto done;
    warnAllZero(m, out, refOut, o);
    status = bad ? 1 : 0;
  }
  // After the comparison: the graph's check uploads the inputs again.
  if (o->cudaGraph && runGraph(&call, m, in, inputBuffers, out, o))
    status = 1;
  if (o->outputDir && writeResults(m, out, o->outputDir))
    status = 1;

done:
  if (haveCall)
    releaseCall(&call, m->numInputs);
  if (haveRef)
    releaseCall(&refCall, m->numInputs);
  for (int i = 0; in && inputBuffers && i < m->numInputs; ++i) {
    if (ctx)
      embrtFree(ctx, inputBuffers[i]);
    if (refCtx && refInputBuffers[i])
      embrtFree(refCtx, refInputBuffers[i]);
    free(in[i].data);
  }
  for (int i = 0; out && refOut && i < m->numResults; ++i) {
    free(out[i].data);
    free(refOut[i].data);
  }
  embrtContextDestroy(ctx);
  embrtContextDestroy(cpuCtx);
  free(in);
  free(out);
  free(refOut);
  free(inputBuffers);
  free(refInputBuffers);
  return status;
}

//===----------------------------------------------------------------------===//
// One rank of a sharded program (emb-run --ranks)
//===----------------------------------------------------------------------===//

/// Copies the window `w` of `from` (a 2-D table or state, or a 1-D state
/// of one value a row: sizes[1] 1) into `to` (allocated here).
static int cutWindow(const EmbArray *from, const EmbShardWindow *w,
                     EmbArray *to) {
  memset(to, 0, sizeof *to);
  to->dtype = from->dtype;
  to->rank = from->rank;
  to->dims[0] = w->sizes[0];
  to->dims[1] = w->sizes[1];
  int64_t fromCols = from->rank == 2 ? from->dims[1] : 1;
  char err[256];
  if (from->rank < 1 || from->rank > 2 ||
      w->offsets[0] + w->sizes[0] > from->dims[0] ||
      w->offsets[1] + w->sizes[1] > fromCols) {
    fprintf(stderr, "emb-run: error: a table's shard lies outside it\n");
    return -1;
  }
  if (embArrayAllocate(to, false, err, sizeof err)) {
    fprintf(stderr, "emb-run: error: a table's shard: %s\n", err);
    return -1;
  }
  size_t es = embrtDtypeSize(from->dtype);
  for (int64_t r = 0; r < w->sizes[0]; ++r)
    memcpy((char *)to->data + (size_t)(r * w->sizes[1]) * es,
           (const char *)from->data +
               (size_t)((w->offsets[0] + r) * fromCols + w->offsets[1]) * es,
           (size_t)w->sizes[1] * es);
  return 0;
}

/// Uploads `in` to new buffers of `ctx` and runs `m` on them once (plus
/// `repeat` timed runs) into `out`; the buffers are freed after.
static int runOn(embrtContext *ctx, const EmbModelSpec *m, EmbArray *in,
                 EmbArray *out, int repeat) {
  void **buffers = calloc((size_t)m->numInputs + 1, sizeof(void *));
  Call call;
  memset(&call, 0, sizeof call);
  int status = -1;
  if (!buffers) {
    fprintf(stderr, "emb-run: error: out of memory\n");
    return -1;
  }
  for (int i = 0; i < m->numInputs; ++i)
    if (embrtMalloc(ctx, embArrayBytes(&in[i]) + 1, &buffers[i]) != EMBRT_OK) {
      fprintf(stderr, "emb-run: error: input #%d: %s\n", i,
              embrtContextGetLastError(ctx));
      goto done;
    }
  if (uploadInputs(ctx, m, in, buffers) ||
      prepareCall(&call, ctx, m, in, buffers, out) ||
      runCall(&call, m, out, repeat))
    goto done;
  status = 0;
done:
  releaseCall(&call, m->numInputs);
  for (int i = 0; i < m->numInputs; ++i)
    embrtFree(ctx, buffers[i]);
  free(buffers);
  return status;
}

int embRunRank(const EmbModelSpec *m, const EmbModelSpec *ref,
               const EmbShardWindow *windows, const EmbRunOptions *o) {
  int status = 1, n = ref->numInputs;
  EmbArray *common = calloc((size_t)n + 1, sizeof(EmbArray));
  EmbArray *batch = calloc((size_t)n + 1, sizeof(EmbArray));
  EmbArray *in = calloc((size_t)n + 1, sizeof(EmbArray));
  EmbArray *out = calloc((size_t)m->numResults + 1, sizeof(EmbArray));
  EmbArray *refOut = calloc((size_t)m->numResults + 1, sizeof(EmbArray));
  embrtContext *ctx = NULL, *cpu = NULL;
  if (!common || !batch || !in || !out || !refOut) {
    fprintf(stderr, "emb-run: error: out of memory\n");
    goto done;
  }
  if (m->numInputs != n || m->numResults != ref->numResults) {
    fprintf(stderr,
            "emb-run: error: rank %d's program of @%s takes %d inputs and "
            "gives %d results, the unsharded function %d and %d\n",
            o->rank, ref->name, m->numInputs, m->numResults, n,
            ref->numResults);
    goto done;
  }
  // The tables from the seed alone, the batch from the seed and the rank:
  // the ranks share the tables and differ in their batches.
  embCrashSetStage("making random inputs", NULL);
  EmbRunOptions tables = *o, mine = *o;
  mine.seed = o->seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(o->rank + 1));
  if (randomInputs(ref, &tables, common) || randomInputs(ref, &mine, batch))
    goto done;
  for (int i = 0; i < n; ++i) {
    EmbArray *pick = windows[i].cut ? &common[i] : &batch[i];
    EmbArray *other = windows[i].cut ? &batch[i] : &common[i];
    free(other->data);
    other->data = NULL;
    if (windows[i].cut ? cutWindow(pick, &windows[i], &in[i]) : 0)
      goto done;
    if (!windows[i].cut) {
      in[i] = *pick;
      in[i].data = malloc(embArrayBytes(pick) + 1);
      if (!in[i].data) {
        fprintf(stderr, "emb-run: error: out of memory\n");
        goto done;
      }
      memcpy(in[i].data, pick->data, embArrayBytes(pick));
    }
    common[i] = *pick; // the reference's input
    batch[i].data = NULL;
  }
  for (int i = 0; i < n; ++i) {
    const EmbArgSpec *s = &m->inputs[i];
    bool fits = in[i].rank == s->rank;
    for (int d = 0; fits && d < s->rank; ++d)
      fits = s->dims[d] < 0 || s->dims[d] == in[i].dims[d];
    if (!fits) {
      char got[128], want[128];
      embArrayShapeText(&in[i], got, sizeof got);
      specText(s, want, sizeof want);
      fprintf(stderr,
              "emb-run: error: input #%d of rank %d's program is %s, but the "
              "plan cuts %s from the unsharded input\n",
              i, o->rank, want, got);
      goto done;
    }
  }
  if (allocResults(m, out) || allocResults(ref, refOut))
    goto done;
  if (embrtContextCreate(o->device, o->ordinal, NULL, &ctx) != EMBRT_OK) {
    fprintf(stderr, "emb-run: error: rank %d: %s%s\n", o->rank,
            embrtGetCreateError(),
            o->device == EMBRT_DEVICE_CUDA && o->worldSize > 1
                ? " (--ranks runs one rank a GPU, rank r on GPU r: NCCL "
                  "refuses two ranks of one communicator on one GPU)"
                : "");
    goto done;
  }
  if (joinWorld(ctx, o))
    goto done;
  if (o->device == EMBRT_DEVICE_CUDA)
    fprintf(stderr, "emb-run: rank %d of %d: @%s on cuda device %d\n", o->rank,
            o->worldSize, m->name, o->ordinal);
  else
    fprintf(stderr, "emb-run: rank %d of %d: @%s on cpu\n", o->rank,
            o->worldSize, m->name);
  if (runOn(ctx, m, in, out, o->repeat))
    goto done;
  if (embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &cpu) != EMBRT_OK) {
    fprintf(stderr, "emb-run: error: %s\n", embrtGetCreateError());
    goto done;
  }
  if (runOn(cpu, ref, common, refOut, 0))
    goto done;
  if (o->print)
    printResults(m, out);
  status = compareResults(m, ref, out, refOut, o);
  warnAllZero(m, out, refOut, o);
done:
  embrtContextDestroy(ctx);
  embrtContextDestroy(cpu);
  for (int i = 0; i < n && common && batch && in; ++i) {
    free(common[i].data);
    free(batch[i].data);
    free(in[i].data);
  }
  for (int i = 0; out && refOut && i < m->numResults; ++i) {
    free(out[i].data);
    free(refOut[i].data);
  }
  free(common);
  free(batch);
  free(in);
  free(out);
  free(refOut);
  return status;
}
