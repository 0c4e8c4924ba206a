//===- codegen/lower_to_llvm.c - emb-lower-to-llvm ------------------------===//
//
// The pipeline from emb-level IR to the LLVM dialect: emb-lower-to-runtime
// (every op becomes a runtime call on buffers), then MLIR's own conversions
// of what remains (memref descriptors, func, arith, index) to LLVM. Our
// lowering assigns the buffers itself, so no bufferization pass is needed:
// every buffer comes from the runtime (device memory on CUDA).
//
//===----------------------------------------------------------------------===//

#include "codegen.h"

#include <stdio.h>
#include <string.h>

static bool expand(MlirStringRef options, char *buf, size_t size,
                   EmbErrorCallback onError, void *userData) {
  // Options pass through to emb-lower-to-runtime (it checks them).
  char opts[256];
  if (options.length >= sizeof opts) {
    embReportf(onError, userData, "emb-lower-to-llvm: options are too long");
    return false;
  }
  memcpy(opts, options.data, options.length);
  opts[options.length] = '\0';
  int n = snprintf(buf, size,
                   "emb-lower-to-runtime{%s},canonicalize,"
                   "expand-strided-metadata,finalize-memref-to-llvm,"
                   "convert-func-to-llvm,convert-arith-to-llvm,"
                   "convert-index-to-llvm,reconcile-unrealized-casts",
                   opts);
  return n > 0 && (size_t)n < size;
}

const EmbRegistryEntry embLowerToLlvmEntry = {
    .name = "emb-lower-to-llvm",
    .summary = "Lower emb-level IR to the LLVM dialect through the runtime",
    .optionsHelp = "target=cpu|cuda (default cpu)",
    .kind = EMB_PASS_KIND_PIPELINE,
    .anchor = "builtin.module",
    .create = NULL,
    .expand = expand,
};
