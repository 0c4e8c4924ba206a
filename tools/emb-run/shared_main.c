//===- tools/emb-run/shared_main.c - emb-run for shared objects -----------===//
//
// emb-run-shared: the runner for a model that `emb-compile --shared` linked
// into a shared object. It loads the object with dlopen, finds its entries
// through the descriptor the object exports (`<P>models`, an EmbSharedModel:
// no header, nothing built per model), checks the descriptor before
// trusting it, and runs an entry as emb-run does (embRunModel: random or
// .npy inputs, whose dtype and shape it checks against the entry's, results,
// timing, --compare-unoptimized against `<entry>__reference`).
//
// It links libembrt.so, not libembrt.a: the object names libembrt.so as a
// dependency, which the dynamic loader satisfies with the runtime already
// loaded (by soname), so that the model's calls reach the runtime whose
// contexts the runner creates.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "runner.h"

#include "../common/crash.h"
#include "emb/compiled.h"
#include "emb/version.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Where the descriptor of a loaded object is wrong, and how.
static int malformed(const char *path, const char *what, int entry) {
  if (entry < 0)
    fprintf(stderr,
            "emb-run-shared: error: '%s': the descriptor is malformed: "
            "%s\n",
            path, what);
  else
    fprintf(stderr,
            "emb-run-shared: error: '%s': entry #%d of the descriptor is "
            "malformed: %s\n",
            path, entry, what);
  return -1;
}

static const char *checkArgs(const EmbArgSpec *args, int n) {
  if (n > 0 && !args)
    return "its argument list is null";
  for (int i = 0; i < n; ++i) {
    const EmbArgSpec *a = &args[i];
    if (a->dtype < EMBRT_F32 || a->dtype > EMBRT_I8)
      return "an argument's dtype is not an embrtDtype";
    if (a->rank < 0 || a->rank > EMB_MODEL_MAX_RANK)
      return "an argument's rank is outside 0..8";
    for (int d = 0; d < a->rank; ++d)
      if (a->dims[d] < -1)
        return "an argument's dim is below -1";
    if (a->role < EMB_ARG_DATA || a->role > EMB_ARG_ROW_OFFSETS)
      return "an argument's role is not an EmbArgRole";
    if (a->ref < -1 || a->ref >= n)
      return "an argument's ref is not an input";
  }
  return NULL;
}

/// Why dlopen failed, in words: an object compiled for another version of
/// the compiled ABI needs an `embrtCompiledAbi<N>` this runtime lacks (it
/// defines only its own), which the dynamic loader reports as an undefined
/// symbol; that case is named with both versions.
static void reportLoadFailure(const char *path, const char *why) {
  static const char *const abi = "undefined symbol: embrtCompiledAbi";
  const char *at = why ? strstr(why, abi) : NULL;
  if (at) {
    char *end = NULL;
    long wanted = strtol(at + strlen(abi), &end, 10);
    if (end != at + strlen(abi)) {
      fprintf(stderr,
              "emb-run-shared: error: cannot load '%s': it was compiled for "
              "version %ld of the compiled ABI, but this runtime implements "
              "version %d (it has no embrtCompiledAbi%ld): run it with the "
              "emb it was compiled with, or compile it again with this one\n",
              path, wanted, (int)embrtCompiledAbiVersion(), wanted);
      return;
    }
  }
  fprintf(stderr, "emb-run-shared: error: cannot load '%s': %s\n", path,
          why ? why : "unknown error");
}

/// Compares the compiled ABI version that the object records
/// (`<prefix>abi_version`) with this runtime's. dlopen has already refused
/// an object whose code needs another version's symbol; this catches one
/// whose code reached another runtime (a copy linked into it), and objects
/// of an emb-compile that recorded no version. Returns false after
/// reporting.
static bool checkAbiVersion(void *handle, const char *path,
                            const char *prefix) {
  char name[512];
  snprintf(name, sizeof name, "%sabi_version", prefix);
  const uint32_t *v = dlsym(handle, name);
  int32_t ours = embrtCompiledAbiVersion();
  if (!v) {
    fprintf(stderr,
            "emb-run-shared: error: '%s' records no compiled ABI version (no "
            "symbol '%s'; this runtime implements version %d): it was "
            "compiled by an emb-compile older than the check, compile it "
            "again with this one\n",
            path, name, (int)ours);
    return false;
  }
  if (*v != (uint32_t)ours) {
    fprintf(stderr,
            "emb-run-shared: error: '%s' was compiled for version %u of the "
            "compiled ABI, but this runtime implements version %d: run it "
            "with the emb it was compiled with, or compile it again with "
            "this one\n",
            path, (unsigned)*v, (int)ours);
    return false;
  }
  return true;
}

/// Reads the descriptor `<prefix>models` of the object `handle` (loaded from
/// `path`), refusing one this loader cannot read. Returns it, or NULL after
/// reporting why.
static const EmbSharedModel *readDescriptor(void *handle, const char *path,
                                            const char *prefix) {
  char name[512];
  snprintf(name, sizeof name, "%smodels", prefix);
  const EmbSharedModel *m = dlsym(handle, name);
  if (!m) {
    fprintf(stderr,
            "emb-run-shared: error: '%s' has no symbol '%s': it is not a "
            "model of emb-compile --shared, or was compiled with another "
            "--symbol-prefix (pass it)\n",
            path, name);
    return NULL;
  }
  if (m->version > EMB_SHARED_MODEL_VERSION) {
    fprintf(stderr,
            "emb-run-shared: error: '%s' describes itself in version %u of "
            "the descriptor, newer than this loader's %d: run it with the "
            "emb it was compiled with, or compile it again with this one\n",
            path, (unsigned)m->version, EMB_SHARED_MODEL_VERSION);
    return NULL;
  }
  if (m->version < 1 || m->size < sizeof *m) {
    char what[128];
    snprintf(what, sizeof what, "version %u of %u bytes (version 1 has %zu)",
             (unsigned)m->version, (unsigned)m->size, sizeof *m);
    malformed(path, what, -1);
    return NULL;
  }
  // The entries' layout (EmbModelSpec) is the ABI's.
  if (!checkAbiVersion(handle, path, prefix))
    return NULL;
  if (m->numEntries < 1 || !m->entries) {
    malformed(path, "it lists no entries", -1);
    return NULL;
  }
  for (int i = 0; i < m->numEntries; ++i) {
    const EmbModelSpec *e = m->entries[i];
    const char *bad = NULL;
    if (!e)
      bad = "it is null";
    else if (!e->name || !e->target || !e->invoke)
      bad = "its name, target or invoke is null";
    else if (strcmp(e->target, "cpu") && strcmp(e->target, "cuda"))
      bad = "its target is neither cpu nor cuda";
    else if (e->numInputs < 0 || e->numResults < 0)
      bad = "its argument counts are negative";
    else
      bad = checkArgs(e->inputs, e->numInputs);
    if (!bad && e)
      bad = checkArgs(e->results, e->numResults);
    if (bad) {
      malformed(path, bad, i);
      return NULL;
    }
  }
  return m;
}

static const EmbModelSpec *find(const EmbSharedModel *m, const char *name) {
  for (int i = 0; i < m->numEntries; ++i)
    if (!strcmp(m->entries[i]->name, name))
      return m->entries[i];
  return NULL;
}

static void printArgs(const char *kind, const EmbArgSpec *args, int n) {
  static const char *const dtypes[] = {"f32", "f16", "bf16", "i32",
                                       "i64", "f64", "i8"};
  static const char *const roles[] = {"data",  "ids",     "offsets",
                                      "index", "lengths", "weights"};
  for (int i = 0; i < n; ++i) {
    const EmbArgSpec *a = &args[i];
    printf("  %s #%d: %s [", kind, i, dtypes[a->dtype]);
    for (int d = 0; d < a->rank; ++d)
      printf(a->dims[d] < 0 ? "%s?" : "%s%lld", d ? ", " : "",
             (long long)a->dims[d]);
    printf("]");
    if (kind[0] == 'i')
      printf(" %s%s", roles[a->role], a->updated ? ", updated in place" : "");
    printf("\n");
  }
}

/// --list: every entry the descriptor lists, as a loader reads it.
static void list(const EmbSharedModel *m) {
  printf("descriptor version %u, compiled ABI version %d, prefix %s, %d "
         "entries\n",
         (unsigned)m->version, (int)embrtCompiledAbiVersion(),
         m->prefix ? m->prefix : "?", m->numEntries);
  for (int i = 0; i < m->numEntries; ++i) {
    const EmbModelSpec *e = m->entries[i];
    printf("@%s (target %s): %d inputs, %d results\n", e->name, e->target,
           e->numInputs, e->numResults);
    printArgs("input", e->inputs, e->numInputs);
    printArgs("result", e->results, e->numResults);
  }
}

static const char *const usage =
    "USAGE: emb-run-shared <model.so> [--symbol-prefix P] [--entry NAME]\n"
    "                      [--list] [--compare-unoptimized] [options]\n"
    "\n"
    "Runs an entry (default: the first) of a model of emb-compile --shared.\n"
    "  --symbol-prefix P         The prefix it was compiled with (default "
    "emb_)\n"
    "  --list                    Print its entries and exit\n"
    "  --version                 Print emb's version and the compiled ABI\n"
    "                            version it runs\n"
    "  --compare-unoptimized     Also run <entry>__reference (emb-compile\n"
    "                            --with-reference) and compare\n";

int main(int argc, char **argv) {
  embCrashInstall("emb-run-shared", argc, argv);
  EmbRunOptions o;
  embRunOptionsInit(&o);
  const char *path = NULL, *entry = NULL, *prefix = "emb_";
  bool compare = false, listOnly = false, device = false;
  int status = 1;
  void *handle = NULL;
  const EmbSharedModel *model = NULL;
  const EmbModelSpec *m = NULL, *ref = NULL;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--device"))
      device = true;
    int took = embRunParseOption(argc, argv, &i, &o, "emb-run-shared");
    if (took < 0)
      goto done;
    if (took)
      continue;
    if (!strcmp(argv[i], "--entry") && i + 1 < argc)
      entry = argv[++i];
    else if (!strcmp(argv[i], "--symbol-prefix") && i + 1 < argc)
      prefix = argv[++i];
    else if (!strcmp(argv[i], "--compare-unoptimized"))
      compare = true;
    else if (!strcmp(argv[i], "--list"))
      listOnly = true;
    else if (!strcmp(argv[i], "--version")) {
      printf("emb-run-shared (emb %s), compiled ABI version %d\n",
             EMB_VERSION_STRING, (int)embrtCompiledAbiVersion());
      status = 0;
      goto done;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("%s\n%s", usage, embRunOptionsHelp);
      status = 0;
      goto done;
    } else if (argv[i][0] != '-' && !path) {
      path = argv[i];
    } else {
      fprintf(stderr, "emb-run-shared: error: unknown option '%s'\n", argv[i]);
      goto done;
    }
  }
  if (!path) {
    fprintf(stderr, "emb-run-shared: error: need a shared object (see "
                    "--help)\n");
    goto done;
  }
  // RTLD_NOW: a runtime without a function the model calls (an older
  // libembrt.so) fails here, naming it, not in the middle of a call.
  if (!(handle = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
    reportLoadFailure(path, dlerror());
    goto done;
  }
  if (!(model = readDescriptor(handle, path, prefix)))
    goto done;
  if (listOnly) {
    list(model);
    status = 0;
    goto done;
  }
  if (!entry)
    entry = model->entries[0]->name;
  if (!(m = find(model, entry))) {
    fprintf(stderr, "emb-run-shared: error: '%s' has no entry @%s\n", path,
            entry);
    goto done;
  }
  // A model compiled for one device reads its buffers there.
  bool cuda = !strcmp(m->target, "cuda");
  if (!device && cuda)
    o.device = EMBRT_DEVICE_CUDA;
  if (cuda != (o.device == EMBRT_DEVICE_CUDA)) {
    fprintf(stderr,
            "emb-run-shared: error: @%s was compiled for target %s: run it "
            "with --device %s\n",
            m->name, m->target, m->target);
    goto done;
  }
  char what[512];
  snprintf(what, sizeof what, "@%s, from %s", m->name, path);
  embCrashSetInput(what);
  if (compare) {
    char name[512];
    snprintf(name, sizeof name, "%s__reference", m->name);
    if (!(ref = find(model, name))) {
      fprintf(stderr,
              "emb-run-shared: error: --compare-unoptimized needs @%s: "
              "compile with emb-compile --with-reference\n",
              name);
      goto done;
    }
  }
  if (!o.random && o.numInputs == 0)
    o.random = true;
  status = embRunModel(m, ref, &o);

done:
  if (handle)
    dlclose(handle);
  free((void *)o.inputs);
  return status;
}
