//===- test/CAPI/capi_test.h - What the C API tests share --------*- C -*-===//
//
// Each test prints to stderr what FileCheck reads: diagnostics as
// "diagnostic: ...", error callbacks as "error: ...".
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TEST_CAPI_CAPI_TEST_H
#define EMB_TEST_CAPI_CAPI_TEST_H

#include "emb/emb.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>

static inline MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static inline void printToStderr(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stderr);
}

/// A diagnostic handler: "diagnostic: <message>".
static inline MlirLogicalResult printDiagnostic(MlirDiagnostic d,
                                                void *userData) {
  (void)userData;
  fprintf(stderr, "diagnostic: ");
  mlirDiagnosticPrint(d, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

/// An EmbErrorCallback: "error: <message>".
static inline void printError(const char *message, void *userData) {
  (void)userData;
  fprintf(stderr, "error: %s\n", message);
}

/// Runs textual `pipeline` (emb and upstream passes) on `m`; 1 on success,
/// 0 after the errors are printed.
static inline int runPipelineOn(MlirModule m, const char *pipeline) {
  MlirContext ctx = mlirModuleGetContext(m);
  MlirPassManager pm =
      mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
  int ok = mlirLogicalResultIsSuccess(
      embAddPassPipeline(mlirPassManagerGetAsOpPassManager(pm), str(pipeline),
                         false, printError, NULL));
  if (ok)
    ok = mlirLogicalResultIsSuccess(
        mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m)));
  mlirPassManagerDestroy(pm);
  return ok;
}

#endif // EMB_TEST_CAPI_CAPI_TEST_H
