//===- dialect/dialect.c - Loading the emb dialect ------------------------===//
//
// The ops are defined once, in dialect/emb.irdl.mlir, which the build embeds
// as the string embIrdlSource. Loading parses it in the target context and
// hands it to IRDL, which registers the ops as dynamic ops.
//
//===----------------------------------------------------------------------===//

#include "ir.h"

#include "emb/emb.h"

#include "mlir-c/Dialect/IRDL.h"
#include "mlir-c/RegisterEverything.h"

#include <pthread.h>

extern const char embIrdlSource[];

static pthread_once_t passesOnce = PTHREAD_ONCE_INIT;

static void registerUpstreamPasses(void) { mlirRegisterAllPasses(); }

void embRegisterDialects(MlirDialectRegistry registry) {
  mlirRegisterAllDialects(registry);
  pthread_once(&passesOnce, registerUpstreamPasses);
}

MlirLogicalResult embLoadDialect(MlirContext ctx) {
  if (mlirContextIsRegisteredOperation(ctx, embStr(EMB_OP_BROADCAST)))
    return mlirLogicalResultSuccess();
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__irdl__(), ctx);
  MlirModule defs = mlirModuleCreateParse(ctx, embStr(embIrdlSource));
  if (mlirModuleIsNull(defs))
    return mlirLogicalResultFailure();
  MlirLogicalResult result = mlirLoadIRDLDialects(defs);
  mlirModuleDestroy(defs);
  return result;
}

MlirContext embContextCreate(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  embRegisterDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirRegisterAllLLVMTranslations(ctx);
  if (mlirLogicalResultIsFailure(embLoadDialect(ctx))) {
    mlirContextDestroy(ctx);
    return (MlirContext){NULL};
  }
  return ctx;
}
