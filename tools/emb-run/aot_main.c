//===- tools/emb-run/aot_main.c - emb-run for models compiled ahead -------===//
//
// The runner for a model that emb-compile turned into an object file and a
// header, on a machine without MLIR: built with -DEMB_MODEL_HEADER="x.h"
// and linked with x.o, libembrun and libembrt. It runs the first entry (or
// --entry), and with --compare-unoptimized also `<entry>__reference` (the
// function as written, compiled with --with-reference) on the same inputs.
// It finds the entries through the header's EMB_MODEL_LIST and calls them
// by their prefixed C names (emb_<entry>): the object exports nothing named
// after a model, so a model named `main` links with the runner's main.
//
//===----------------------------------------------------------------------===//

#include "runner.h"

#include "../common/crash.h"

#include EMB_MODEL_HEADER

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const EmbModelSpec *const models[] = {EMB_MODEL_LIST};

static const EmbModelSpec *find(const char *name) {
  for (size_t i = 0; i < sizeof models / sizeof models[0]; ++i)
    if (!strcmp(models[i]->name, name))
      return models[i];
  return NULL;
}

int main(int argc, char **argv) {
  embCrashInstall("emb-run-aot", argc, argv);
  EmbRunOptions o;
  embRunOptionsInit(&o);
  const char *entry = models[0]->name;
  int compare = 0;
  for (int i = 1; i < argc; ++i) {
    int took = embRunParseOption(argc, argv, &i, &o, "emb-run-aot");
    if (took < 0)
      return 1;
    if (took)
      continue;
    if (!strcmp(argv[i], "--entry") && i + 1 < argc)
      entry = argv[++i];
    else if (!strcmp(argv[i], "--compare-unoptimized"))
      compare = 1;
    else if (!strcmp(argv[i], "--help")) {
      printf("USAGE: %s [--entry NAME] [--compare-unoptimized] [options]\n%s",
             argv[0], embRunOptionsHelp);
      return 0;
    } else {
      fprintf(stderr, "emb-run-aot: error: unknown option '%s'\n", argv[i]);
      return 1;
    }
  }
  const EmbModelSpec *m = find(entry);
  if (!m) {
    fprintf(stderr, "emb-run-aot: error: no entry @%s in this model\n", entry);
    return 1;
  }
  char what[512];
  snprintf(what, sizeof what, "@%s, compiled ahead of time", m->name);
  embCrashSetInput(what);
  const EmbModelSpec *ref = NULL;
  if (compare) {
    char name[512];
    snprintf(name, sizeof name, "%s__reference", entry);
    if (!(ref = find(name))) {
      fprintf(stderr,
              "emb-run-aot: error: --compare-unoptimized needs @%s: compile "
              "with emb-compile --with-reference\n",
              name);
      return 1;
    }
  }
  if (!o.random && o.numInputs == 0)
    o.random = true;
  int status = embRunModel(m, ref, &o);
  free((void *)o.inputs);
  return status;
}
