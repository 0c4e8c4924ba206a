//===- passes/registry.c - emb's passes and pipelines by name -------------===//
//
// The one list of what `--pass-pipeline`, the `--emb-<pass>` flags,
// `--list-passes` and embCreatePass know. A new pass adds its entry here.
//
//===----------------------------------------------------------------------===//

#include "pass.h"

#include <string.h>

// One entry per line, in listing order.
// clang-format off
static const EmbRegistryEntry *const entries[] = {
    &embVerifyEntry,
    &embSinkBroadcastEntry,
    &embFuseBroadcastEntry,
    &embPadKEntry,
    &embIkboEntry,
    &embBatchTablesEntry,
    &embLowerToRuntimeEntry,
    &embLowerToLlvmEntry,
};
// clang-format on

enum { numEntries = sizeof entries / sizeof entries[0] };

intptr_t embGetNumPasses(void) { return numEntries; }

EmbPassInfo embGetPassInfo(intptr_t i) {
  EmbPassInfo info = {"", "", "", EMB_PASS_KIND_PASS};
  if (i < 0 || i >= numEntries)
    return info;
  info.name = entries[i]->name;
  info.summary = entries[i]->summary;
  info.options = entries[i]->optionsHelp;
  info.kind = entries[i]->kind;
  return info;
}

const EmbRegistryEntry *embLookupPass(const char *name, size_t len) {
  for (int i = 0; i < numEntries; ++i)
    if (strlen(entries[i]->name) == len &&
        memcmp(entries[i]->name, name, len) == 0)
      return entries[i];
  return NULL;
}

MlirPass embCreatePass(const char *name, MlirStringRef options,
                       EmbErrorCallback onError, void *userData) {
  const EmbRegistryEntry *e = embLookupPass(name, strlen(name));
  if (!e) {
    embReportf(onError, userData, "'%s' is not an emb pass", name);
    return (MlirPass){NULL};
  }
  if (e->kind != EMB_PASS_KIND_PASS) {
    embReportf(onError, userData,
               "'%s' is a pipeline, not a single pass: add it with "
               "embAddPassPipeline",
               name);
    return (MlirPass){NULL};
  }
  return e->create(options, onError, userData);
}
