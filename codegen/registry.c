//===- codegen/registry.c - emb's passes and pipelines by name ------------===//
//
// The one list of what `--pass-pipeline`, the `--emb-<pass>` flags,
// `--list-passes` and embCreatePass know. A new pass adds its definition
// here. It lives in codegen/, the top of the compiler, because it names
// passes of passes/ and of codegen/ alike: passes/ knows nothing above it.
//
//===----------------------------------------------------------------------===//

#include "codegen.h"

#include <stdlib.h>
#include <string.h>
#include <threads.h>

// One entry per line, in listing order.
// clang-format off
static const EmbPassDef *const entries[] = {
    &embVerifyPassDef,
    &embSinkBroadcastPassDef,
    &embFuseBroadcastPassDef,
    &embPadKPassDef,
    &embIkboPipelineDef,
    &embBatchTablesPassDef,
    &embRaiseEmbeddingBagPassDef,
    &embRaiseGatherPassDef,
    &embRaiseLcePassDef,
    &embRaiseAttentionPassDef,
    &embComputeTypePassDef,
    &embQuantizeTablesPassDef,
    &embRaiseBroadcastPassDef,
    &embRaisePipelineDef,
    &embEraseDeadPassDef,
    &embFromTorchPipelineDef,
    &embPlanShardingPassDef,
    &embShardPassDef,
    &embLowerToRuntimePassDef,
    &embLowerToLlvmPipelineDef,
    &embLowerStridedCopiesPassDef,
    &embExpandF64ToBF16PassDef,
};
// clang-format on

enum { numEntries = sizeof entries / sizeof entries[0] };

/// The longest options help of one entry.
enum { maxOptionsHelp = 1024 };

/// Each entry's options help, written from its option table once: the
/// strings embGetPassInfo returns live as long as the library.
static char optionsHelp[numEntries][maxOptionsHelp];
static once_flag helpOnce = ONCE_FLAG_INIT;

static void writeOptionsHelp(void) {
  for (int i = 0; i < numEntries; ++i)
    embFormatPassOptionsHelp(entries[i], optionsHelp[i], maxOptionsHelp);
}

intptr_t embGetNumPasses(void) { return numEntries; }

EmbPassInfo embGetPassInfo(intptr_t i) {
  EmbPassInfo info = {"", "", "", EMB_PASS_KIND_PASS};
  if (i < 0 || i >= numEntries)
    return info;
  call_once(&helpOnce, writeOptionsHelp);
  info.name = entries[i]->argument;
  info.summary = entries[i]->summary;
  info.options = optionsHelp[i];
  info.kind = entries[i]->kind;
  return info;
}

const EmbPassDef *embLookupPass(const char *name, size_t len) {
  for (int i = 0; i < numEntries; ++i)
    if (strlen(entries[i]->argument) == len &&
        memcmp(entries[i]->argument, name, len) == 0)
      return entries[i];
  return NULL;
}

MlirPass embCreatePass(const char *name, MlirStringRef options,
                       EmbErrorCallback onError, void *userData) {
  const EmbPassDef *def = embLookupPass(name, strlen(name));
  if (!def) {
    embReportf(onError, userData, "'%s' is not an emb pass", name);
    return (MlirPass){NULL};
  }
  if (def->kind != EMB_PASS_KIND_PASS) {
    embReportf(onError, userData,
               "'%s' is a pipeline, not a single pass: add it with "
               "embAddPassPipeline",
               name);
    return (MlirPass){NULL};
  }
  size_t size = embPassOptionsSize(def);
  void *parsed = calloc(1, size ? size : 1);
  MlirPass pass = {NULL};
  if (!parsed)
    embReportf(onError, userData, "%s: out of memory", name);
  else if (embParsePassOptions(def, options, parsed, onError, userData))
    pass = embMakePass(def, parsed);
  free(parsed);
  return pass;
}
