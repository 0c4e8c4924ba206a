//===- test/CAPI/passes.c - emb's passes in a host compiler's pipeline ----===//
//
// A compiler that links libemb adds emb passes to its own pass manager, by
// constructor or by name, mixed with upstream passes.
//
//===----------------------------------------------------------------------===//

// RUN: %capi_test_dir/emb-capi-passes 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

#include "emb/emb.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <string.h>

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static void printToStderr(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stderr);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic d, void *userData) {
  (void)userData;
  fprintf(stderr, "diagnostic: ");
  mlirDiagnosticPrint(d, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

static void printError(const char *message, void *userData) {
  (void)userData;
  fprintf(stderr, "error: %s\n", message);
}

// A broadcast whose index has the wrong length: structurally fine, so only
// emb-verify rejects it.
static const char *const invalidModule =
    "func.func @f(%ro: tensor<4x8xf16>, %idx: tensor<15xi32>) -> "
    "tensor<16x8xf16> {\n"
    "  %0 = \"emb.broadcast\"(%ro, %idx) : (tensor<4x8xf16>, "
    "tensor<15xi32>) -> tensor<16x8xf16>\n"
    "  return %0 : tensor<16x8xf16>\n"
    "}\n";

static int runPipeline(MlirContext ctx, const char *pipeline,
                       const char *source) {
  MlirModule m = mlirModuleCreateParse(ctx, str(source));
  MlirPassManager pm =
      mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
  int ok = mlirLogicalResultIsSuccess(
      embAddPassPipeline(mlirPassManagerGetAsOpPassManager(pm), str(pipeline),
                         false, printError, NULL));
  if (ok)
    ok = mlirLogicalResultIsSuccess(
        mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m)));
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(m);
  return ok;
}

// The verify pass added by constructor to a host pass manager fails the run.
static void testConstructorInHostPipeline(MlirContext ctx) {
  fprintf(stderr, "@testConstructorInHostPipeline\n");
  MlirModule m = mlirModuleCreateParse(ctx, str(invalidModule));
  MlirPassManager pm =
      mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
  mlirPassManagerAddOwnedPass(pm, embCreateVerifyPass());
  // CHECK-LABEL: @testConstructorInHostPipeline
  // CHECK: diagnostic: 'emb.broadcast' op cand_to_user has 15 rows but the
  // result has 16 CHECK: run succeeded: 0
  fprintf(stderr, "run succeeded: %d\n",
          mlirLogicalResultIsSuccess(
              mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m))));
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(m);
}

// Names resolve to emb passes and upstream passes alike, nested too.
static void testPipelineByName(MlirContext ctx) {
  fprintf(stderr, "@testPipelineByName\n");
  // CHECK-LABEL: @testPipelineByName
  // CHECK: mixed: 0
  fprintf(stderr, "mixed: %d\n",
          runPipeline(ctx, "builtin.module(canonicalize,emb-verify)",
                      invalidModule));
  // CHECK: error: 'emb-nonexistent' is not an emb pass or pipeline
  // CHECK: unknown: 0
  fprintf(stderr, "unknown: %d\n",
          runPipeline(ctx, "emb-nonexistent", invalidModule));
  // CHECK: error: emb-verify: unknown option 'x' (it takes none)
  // CHECK: bad option: 0
  fprintf(stderr, "bad option: %d\n",
          runPipeline(ctx, "emb-verify{x=1}", invalidModule));
  // CHECK: nested upstream: 1
  fprintf(stderr, "nested upstream: %d\n",
          runPipeline(ctx, "func.func(cse,canonicalize)", invalidModule));
}

// embCreatePass makes a pass by name; pipelines are refused there.
static void testCreateByName(MlirContext ctx) {
  fprintf(stderr, "@testCreateByName\n");
  MlirPass p = embCreatePass("emb-verify", str(""), printError, NULL);
  // CHECK-LABEL: @testCreateByName
  // CHECK: made: 1
  fprintf(stderr, "made: %d\n", p.ptr != NULL);
  // The C API has no pass destructor: a pass manager takes ownership.
  MlirPassManager pm =
      mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
  mlirPassManagerAddOwnedPass(pm, p);
  mlirPassManagerDestroy(pm);
  // CHECK: error: 'emb-nope' is not an emb pass
  MlirPass q = embCreatePass("emb-nope", str(""), printError, NULL);
  // CHECK: made unknown: 0
  fprintf(stderr, "made unknown: %d\n", q.ptr != NULL);
}

// The registry lists every pass with a summary.
static void testRegistry(void) {
  fprintf(stderr, "@testRegistry\n");
  // CHECK-LABEL: @testRegistry
  // CHECK: emb-verify: Check emb ops' types, shapes and attributes
  for (intptr_t i = 0; i < embGetNumPasses(); ++i) {
    EmbPassInfo info = embGetPassInfo(i);
    fprintf(stderr, "%s: %s\n", info.name, info.summary);
  }
}

int main(void) {
  MlirContext ctx = embContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  testConstructorInHostPipeline(ctx);
  testPipelineByName(ctx);
  testCreateByName(ctx);
  testRegistry();
  mlirContextDestroy(ctx);
  return 0;
}
