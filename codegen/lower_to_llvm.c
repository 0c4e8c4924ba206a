//===- codegen/lower_to_llvm.c - emb-lower-to-llvm ------------------------===//
//
// The pipeline from emb-level IR to the LLVM dialect: emb-lower-to-runtime
// (every op becomes a runtime call on buffers), then MLIR's own conversions
// of what remains (memref descriptors, func, arith, index) to LLVM. Our
// lowering assigns the buffers itself, so no bufferization pass is needed:
// every buffer comes from the runtime (device memory on CUDA). Its options
// are emb-lower-to-runtime's, handed on.
//
//===----------------------------------------------------------------------===//

#include "codegen.h"

/// What follows emb-lower-to-runtime, in order.
static const char *const upstreamPasses[] = {
    "canonicalize",
    "expand-strided-metadata",
    "finalize-memref-to-llvm",
    "convert-func-to-llvm",
    "convert-arith-to-llvm",
    "convert-index-to-llvm",
    "reconcile-unrealized-casts",
};

static MlirLogicalResult build(EmbPipelineBuilder *b, const void *options) {
  if (mlirLogicalResultIsFailure(
          embPipelineAdd(b, &embLowerToRuntimePassDef, options)))
    return mlirLogicalResultFailure();
  for (size_t i = 0; i < sizeof upstreamPasses / sizeof upstreamPasses[0]; ++i)
    if (mlirLogicalResultIsFailure(embPipelineAddUpstream(
            b, mlirStringRefCreateFromCString(upstreamPasses[i]))))
      return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

const EmbPassDef embLowerToLlvmPipelineDef = {
    .argument = "emb-lower-to-llvm",
    .summary = "Lower emb-level IR to the LLVM dialect through the runtime",
    .kind = EMB_PASS_KIND_PIPELINE,
    .anchor = "builtin.module",
    .options = &embLowerToRuntimeOptions,
    .build = build,
};
