//===- test/CAPI/passes.c - emb's passes in a host compiler's pipeline ----===//
//
// A compiler that links libemb adds emb passes to its own pass manager, by
// constructor or by name, mixed with upstream passes.
//
//===----------------------------------------------------------------------===//

// RUN: %capi_test_dir/emb-capi-passes 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

#include "capi_test.h"

#include "emb/emb.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <string.h>

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
  int ok = runPipelineOn(m, pipeline);
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
  // CHECK-SAME: result has 16
  // CHECK: run succeeded: 0
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

// The registry lists every pass with a summary, and its options' help,
// written from the pass's option table.
static void testRegistry(void) {
  fprintf(stderr, "@testRegistry\n");
  // CHECK-LABEL: @testRegistry
  // CHECK: emb-verify: Check emb ops' types, shapes and attributes
  // CHECK-NEXT: emb-sink-broadcast:
  // CHECK: emb-pad-k: Pad K of emb.lce and emb.ikbo_lce
  // CHECK-NEXT: align=<int>: pad K to a multiple of this many elements
  // CHECK-SAME: (default 0)
  // CHECK-NEXT: copy-limit=<int>: the largest operand copied to pad it, in
  // CHECK-SAME: MiB (default 64)
  // CHECK: emb-lower-to-runtime:
  // CHECK-NEXT: target=cpu|cuda: {{.+}} (default cpu)
  for (intptr_t i = 0; i < embGetNumPasses(); ++i) {
    EmbPassInfo info = embGetPassInfo(i);
    fprintf(stderr, "%s: %s\n", info.name, info.summary);
    if (*info.options)
      fprintf(stderr, "%s\n", info.options);
  }
}

// Every option's default, as the help states it, is a value the option
// takes: each pass is made by name and each pipeline added with it spelled
// out.
static void testDefaultsParse(MlirContext ctx) {
  fprintf(stderr, "@testDefaultsParse\n");
  int options = 0, accepted = 0;
  for (intptr_t i = 0; i < embGetNumPasses(); ++i) {
    EmbPassInfo info = embGetPassInfo(i);
    for (const char *line = info.options; *line;) {
      size_t len = strcspn(line, "\n");
      const char *eq = memchr(line, '=', len);
      const char *def = strstr(line, "(default ");
      char text[256];
      snprintf(text, sizeof text, "%.*s=%.*s", (int)(eq - line), line,
               (int)(line + len - 1 - (def + 9)), def + 9);
      ++options;
      if (info.kind == EMB_PASS_KIND_PASS) {
        MlirPass p = embCreatePass(info.name, str(text), printError, NULL);
        if (p.ptr) {
          ++accepted;
          MlirPassManager pm =
              mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
          mlirPassManagerAddOwnedPass(pm, p);
          mlirPassManagerDestroy(pm);
        }
      } else {
        char pipeline[512];
        snprintf(pipeline, sizeof pipeline, "%s{%s}", info.name, text);
        MlirPassManager pm =
            mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
        accepted += mlirLogicalResultIsSuccess(
            embAddPassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                               str(pipeline), false, printError, NULL));
        mlirPassManagerDestroy(pm);
      }
      line += len + (line[len] == '\n');
    }
  }
  // CHECK-LABEL: @testDefaultsParse
  // CHECK-NOT: error:
  // CHECK: options 19, defaults accepted 19
  fprintf(stderr, "options %d, defaults accepted %d\n", options, accepted);
}

// A host compiler parses with the C API, so emb's tools' check of the
// input (tools/common/upstream.c) is not in the way: emb's lowering itself
// must refuse a reassociation index outside the dims it groups, which MLIR
// 22's verifier takes.
static void testLoweringReassociation(MlirContext ctx) {
  fprintf(stderr, "@testLoweringReassociation\n");
  static const char *const source =
      "func.func @f(%x: tensor<4x8xf32>) -> tensor<32xf32> {\n"
      "  %0 = tensor.collapse_shape %x [[-9007199254740992, 1]] : "
      "tensor<4x8xf32> into tensor<32xf32>\n"
      "  return %0 : tensor<32xf32>\n"
      "}\n";
  // CHECK-LABEL: @testLoweringReassociation
  // CHECK: diagnostic: 'tensor.collapse_shape' op cannot be lowered to the
  // CHECK-SAME: emb runtime (target cuda): reassociation index
  // CHECK-SAME: -9007199254740992 is not dim 0 of the 2 dims it groups
  // CHECK: run succeeded: 0
  fprintf(stderr, "run succeeded: %d\n",
          runPipeline(ctx, "emb-lower-to-runtime{target=cuda}", source));
}

int main(void) {
  MlirContext ctx = embContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  testConstructorInHostPipeline(ctx);
  testPipelineByName(ctx);
  testCreateByName(ctx);
  testRegistry();
  testDefaultsParse(ctx);
  testLoweringReassociation(ctx);
  mlirContextDestroy(ctx);
  return 0;
}
