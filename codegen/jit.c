//===- codegen/jit.c - Running lowered modules in-process -----------------===//
//
// JIT-compiles a module in the LLVM dialect through MLIR's execution engine
// and binds the runtime ABI (include/emb/compiled.h) to this process's
// implementation, so a lowered model runs without being linked.
//
//===----------------------------------------------------------------------===//

#include "ir.h"
#include "runtime_abi.h"

#include "emb/emb.h"

#include "mlir-c/ExecutionEngine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct EmbJit {
  MlirExecutionEngine engine;
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
  // Every function compiled code may call (runtime_symbols.def), bound to
  // this process's runtime; one this runtime lacks (a null address) stays
  // unbound, so that a call of it is a missing symbol, not a jump to null.
  for (int i = 0; i < EMB_RT_NUM_SYMBOLS; ++i)
    if (embRuntimeSymbols[i].address)
      mlirExecutionEngineRegisterSymbol(engine,
                                        embStr(embRuntimeSymbols[i].name),
                                        embRuntimeSymbols[i].address);
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
