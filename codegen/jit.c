//===- codegen/jit.c - Running lowered modules in-process -----------------===//
//
// JIT-compiles a module in the LLVM dialect through MLIR's execution engine
// and binds the runtime ABI (include/emb/compiled.h) to this process's
// implementation, so a lowered model runs without being linked.
//
//===----------------------------------------------------------------------===//

#include "ir.h"

#include "emb/compiled.h"
#include "emb/emb.h"

#include "mlir-c/ExecutionEngine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct EmbJit {
  MlirExecutionEngine engine;
};

/// Every symbol compiled code may call, and its implementation.
static const struct {
  const char *name;
  void *fn;
} runtimeSymbols[] = {
#define SYMBOL(f)                                                              \
  { #f, (void *)f }
    SYMBOL(embrtCompiledAlloc),
    SYMBOL(embrtCompiledFree),
    SYMBOL(embrtCompiledCopy),
    SYMBOL(embrtCompiledTbe),
    SYMBOL(embrtCompiledTbeWorkspace),
    SYMBOL(embrtCompiledBroadcast),
    SYMBOL(embrtCompiledBroadcastAdd),
    SYMBOL(embrtCompiledLce),
    SYMBOL(embrtCompiledLceWorkspace),
    SYMBOL(embrtCompiledIkboLce),
    SYMBOL(embrtCompiledIkboLceWorkspace),
    SYMBOL(embrtCompiledAttention),
    SYMBOL(embrtCompiledAttentionWorkspace),
    SYMBOL(embrtCompiledConcat),
    SYMBOL(embrtCompiledStridedCopy),
    SYMBOL(embrtCompiledElementwise),
    SYMBOL(embrtCompiledFill),
#undef SYMBOL
};

EmbJit *embJitCreate(MlirModule module, int optLevel, EmbErrorCallback onError,
                     void *userData) {
  MlirExecutionEngine engine =
      mlirExecutionEngineCreate(module, optLevel, 0, NULL, false, false);
  if (mlirExecutionEngineIsNull(engine)) {
    if (onError)
      onError("the execution engine could not compile the module (is it "
              "fully lowered to the LLVM dialect?)",
              userData);
    return NULL;
  }
  for (size_t i = 0; i < sizeof runtimeSymbols / sizeof runtimeSymbols[0]; ++i)
    mlirExecutionEngineRegisterSymbol(engine, embStr(runtimeSymbols[i].name),
                                      runtimeSymbols[i].fn);
  EmbJit *jit = malloc(sizeof *jit);
  jit->engine = engine;
  return jit;
}

EmbPackedFn embJitLookup(EmbJit *jit, const char *function) {
  char name[512];
  snprintf(name, sizeof name, "_mlir_ciface_%s", function);
  void *fn = mlirExecutionEngineLookupPacked(jit->engine, embStr(name));
  EmbPackedFn packed;
  memcpy(&packed, &fn, sizeof packed);
  return packed;
}

void embJitDestroy(EmbJit *jit) {
  if (!jit)
    return;
  mlirExecutionEngineDestroy(jit->engine);
  free(jit);
}
