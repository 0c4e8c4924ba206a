//===- test/CAPI/capi_test.h - What the C API tests share --------*- C -*-===//
//
// Each test prints to stderr what FileCheck reads: diagnostics as
// "diagnostic: ...", error callbacks as "error: ...".
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TEST_CAPI_CAPI_TEST_H
#define EMB_TEST_CAPI_CAPI_TEST_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

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

#endif // EMB_TEST_CAPI_CAPI_TEST_H
