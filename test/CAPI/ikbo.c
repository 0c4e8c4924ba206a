//===- test/CAPI/ikbo.c - The emb-ikbo pipeline from a host compiler ------===//
//
// A compiler that links libemb adds the in-kernel broadcast rewrite to its
// own pass manager: the whole pipeline by constructor or by name, or the
// passes one by one, and receives the remarks of a pass that declines.
//
//===----------------------------------------------------------------------===//

// RUN: %capi_test_dir/emb-capi-ikbo 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

#include "capi_test.h"

#include "emb/emb.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>

static void printRemark(MlirLocation loc, const char *message, void *userData) {
  (void)userData;
  char where[256];
  embFormatLocation(loc, where, sizeof where);
  fprintf(stderr, "remark at %s: %s\n", where, message);
}

// A ranking block: a user-only tanh on broadcast user embeddings, then an
// lce over user and candidate pieces along K (Ku = 3, Kc = 5, f16).
static const char *const rankingModule =
    "func.func @ranking(%u: tensor<4x3x16xf16>, %cand: tensor<16x5x16xf16>,\n"
    "                   %c2u: tensor<16xi32>, %w: tensor<8x8xf16>)\n"
    "    -> tensor<16x8x16xf16> {\n"
    "  %b = \"emb.broadcast\"(%u, %c2u) : (tensor<4x3x16xf16>, "
    "tensor<16xi32>) -> tensor<16x3x16xf16>\n"
    "  %t = math.tanh %b : tensor<16x3x16xf16>\n"
    "  %x = tensor.concat dim(1) %t, %cand : (tensor<16x3x16xf16>, "
    "tensor<16x5x16xf16>) -> tensor<16x8x16xf16>\n"
    "  %y = \"emb.lce\"(%w, %x) : (tensor<8x8xf16>, tensor<16x8x16xf16>) -> "
    "tensor<16x8x16xf16>\n"
    "  return %y : tensor<16x8x16xf16>\n"
    "}\n";

// An lce of dynamic K: emb-pad-k declines with a remark.
static const char *const dynamicKModule =
    "func.func @dynamic_k(%w: tensor<8x?xf16>, %x: tensor<16x?x32xf16>)\n"
    "    -> tensor<16x8x32xf16> {\n"
    "  %y = \"emb.lce\"(%w, %x) : (tensor<8x?xf16>, tensor<16x?x32xf16>) -> "
    "tensor<16x8x32xf16>\n"
    "  return %y : tensor<16x8x32xf16>\n"
    "}\n";

// An lce of static K = 12 (f16): padding to 8 copies the embedding x.
static const char *const staticKModule =
    "func.func @static_k(%w: tensor<8x12xf16>, %x: tensor<16x12x32xf16>)\n"
    "    -> tensor<16x8x32xf16> {\n"
    "  %y = \"emb.lce\"(%w, %x) : (tensor<8x12xf16>, tensor<16x12x32xf16>) "
    "-> tensor<16x8x32xf16>\n"
    "  return %y : tensor<16x8x32xf16>\n"
    "}\n";

// Two bags over one batch, concatenated in order.
static const char *const bagsModule =
    "func.func @bags(%t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>,\n"
    "                %i0: tensor<40xi64>, %o0: tensor<9xi64>,\n"
    "                %i1: tensor<24xi64>, %o1: tensor<9xi64>)\n"
    "    -> tensor<8x24xf32> {\n"
    "  %a = \"emb.embedding_bag\"(%t0, %i0, %o0) {mode = \"sum\"} : "
    "(tensor<100x16xf32>, tensor<40xi64>, tensor<9xi64>) -> "
    "tensor<8x16xf32>\n"
    "  %b = \"emb.embedding_bag\"(%t1, %i1, %o1) {mode = \"sum\"} : "
    "(tensor<50x8xf32>, tensor<24xi64>, tensor<9xi64>) -> tensor<8x8xf32>\n"
    "  %x = tensor.concat dim(1) %a, %b : (tensor<8x16xf32>, "
    "tensor<8x8xf32>) -> tensor<8x24xf32>\n"
    "  return %x : tensor<8x24xf32>\n"
    "}\n";

/// Parses `source`, runs `pm` on it and prints the result (or "failed").
static void runAndPrint(MlirContext ctx, MlirPassManager pm,
                        const char *source) {
  MlirModule m = mlirModuleCreateParse(ctx, str(source));
  MlirOperation op = mlirModuleGetOperation(m);
  if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op)))
    fprintf(stderr, "run failed\n");
  else
    mlirOperationPrint(op, printToStderr, NULL);
  fprintf(stderr, "\n");
  mlirModuleDestroy(m);
}

static MlirPassManager hostPassManager(MlirContext ctx) {
  return mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
}

// The pipeline by its constructor, with default options: tanh on user rows,
// an ikbo_lce, Ku and Kc padded to 8.
static void testPipelineByConstructor(MlirContext ctx) {
  fprintf(stderr, "@testPipelineByConstructor\n");
  MlirPassManager pm = hostPassManager(ctx);
  MlirLogicalResult added = embAddIkboPipeline(
      mlirPassManagerGetAsOpPassManager(pm), NULL, printError, NULL);
  // CHECK-LABEL: @testPipelineByConstructor
  // CHECK: added: 1
  fprintf(stderr, "added: %d\n", mlirLogicalResultIsSuccess(added));
  // CHECK-NOT: "emb.broadcast"
  // CHECK: math.tanh %{{.+}} : tensor<4x3x16xf16>
  // CHECK: "emb.ikbo_lce"({{.+}}) : (tensor<8x8xf16>, tensor<8x8xf16>,
  // CHECK-SAME: tensor<4x8x16xf16>, tensor<16x8x16xf16>, tensor<16xi32>)
  // CHECK-NOT: "emb.lce"
  runAndPrint(ctx, pm, rankingModule);
  mlirPassManagerDestroy(pm);
}

// Options: align=16 through the struct, and a struct of the wrong size.
static void testPipelineOptions(MlirContext ctx) {
  fprintf(stderr, "@testPipelineOptions\n");
  MlirPassManager pm = hostPassManager(ctx);
  EmbIkboOptions options = embIkboOptionsDefault();
  options.align = 16;
  options.verifyEach = true;
  embAddIkboPipeline(mlirPassManagerGetAsOpPassManager(pm), &options,
                     printError, NULL);
  // CHECK-LABEL: @testPipelineOptions
  // CHECK: "emb.ikbo_lce"({{.+}}) : (tensor<8x16xf16>, tensor<8x16xf16>,
  runAndPrint(ctx, pm, rankingModule);
  mlirPassManagerDestroy(pm);

  pm = hostPassManager(ctx);
  options.structSize = 8;
  // CHECK: error: embAddIkboPipeline: options.structSize is 8, expected
  // CHECK: bad size: 0
  fprintf(
      stderr, "bad size: %d\n",
      mlirLogicalResultIsSuccess(embAddIkboPipeline(
          mlirPassManagerGetAsOpPassManager(pm), &options, printError, NULL)));
  options = embIkboOptionsDefault();
  options.align = -4;
  // CHECK: error: embAddIkboPipeline: align must be in 0..65536, got -4
  // CHECK: bad align: 0
  fprintf(
      stderr, "bad align: %d\n",
      mlirLogicalResultIsSuccess(embAddIkboPipeline(
          mlirPassManagerGetAsOpPassManager(pm), &options, printError, NULL)));
  mlirPassManagerDestroy(pm);
}

// The pipeline by name, mixed with an upstream pass, nested in the host's
// textual pipeline.
static void testPipelineByName(MlirContext ctx) {
  fprintf(stderr, "@testPipelineByName\n");
  MlirPassManager pm = hostPassManager(ctx);
  MlirLogicalResult added = embAddPassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      str("builtin.module(canonicalize,emb-ikbo{align=8},cse)"), true,
      printError, NULL);
  // CHECK-LABEL: @testPipelineByName
  // CHECK: added: 1
  fprintf(stderr, "added: %d\n", mlirLogicalResultIsSuccess(added));
  // CHECK: "emb.ikbo_lce"
  runAndPrint(ctx, pm, rankingModule);
  mlirPassManagerDestroy(pm);
  // CHECK: error: emb-ikbo: unknown option 'x' (options: align)
  pm = hostPassManager(ctx);
  embAddPassPipeline(mlirPassManagerGetAsOpPassManager(pm),
                     str("emb-ikbo{x=1}"), false, printError, NULL);
  mlirPassManagerDestroy(pm);
}

// The passes one by one, by their constructors: without emb-pad-k the K
// split stays 3 + 5.
static void testPassConstructors(MlirContext ctx) {
  fprintf(stderr, "@testPassConstructors\n");
  MlirPassManager pm = hostPassManager(ctx);
  mlirPassManagerAddOwnedPass(pm, embCreateSinkBroadcastPass());
  mlirPassManagerAddOwnedPass(pm, embCreateFuseBroadcastPass());
  // CHECK-LABEL: @testPassConstructors
  // CHECK: "emb.ikbo_lce"({{.+}}) : (tensor<8x3xf16>, tensor<8x5xf16>,
  runAndPrint(ctx, pm, rankingModule);
  mlirPassManagerDestroy(pm);

  pm = hostPassManager(ctx);
  mlirPassManagerAddOwnedPass(pm, embCreateBatchTablesPass());
  // CHECK: "emb.tbe"
  // CHECK-SAME: -> tensor<8x24xf32>
  // CHECK-NOT: "emb.embedding_bag"
  runAndPrint(ctx, pm, bagsModule);
  mlirPassManagerDestroy(pm);
}

// A pass that declines says why through the remark handler; the run still
// succeeds.
static void testRemarks(MlirContext ctx) {
  fprintf(stderr, "@testRemarks\n");
  embSetRemarkHandler(printRemark, NULL);
  MlirPassManager pm = hostPassManager(ctx);
  mlirPassManagerAddOwnedPass(pm, embCreatePadKPass(NULL, printError, NULL));
  // CHECK-LABEL: @testRemarks
  // CHECK: remark at -:3:8: 'emb.lce' not padded: K is dynamic
  // CHECK: "emb.lce"
  runAndPrint(ctx, pm, dynamicKModule);
  mlirPassManagerDestroy(pm);
  embSetRemarkHandler(NULL, NULL);
}

// emb-pad-k's options through its C constructor: copy-limit 0 MiB leaves K
// of an embedding that would have to be copied as it is (with a remark);
// the default (64 MiB) pads it; align pads to its multiple.
static void testPadKOptions(MlirContext ctx) {
  fprintf(stderr, "@testPadKOptions\n");
  embSetRemarkHandler(printRemark, NULL);
  EmbPadKOptions options = embPadKOptionsDefault();
  // CHECK-LABEL: @testPadKOptions
  // CHECK: defaults: align 0, copy-limit 64
  fprintf(stderr, "defaults: align %lld, copy-limit %lld\n",
          (long long)options.align, (long long)options.copyLimit);

  options.copyLimit = 0;
  MlirPassManager pm = hostPassManager(ctx);
  mlirPassManagerAddOwnedPass(pm,
                              embCreatePadKPass(&options, printError, NULL));
  // CHECK: remark at -:3:8: 'emb.lce' not padded: K = 12 stays, padding it
  // CHECK-SAME: (copy-limit 0 MiB)
  // CHECK-NOT: tensor.concat
  // CHECK: "emb.lce"({{.+}}) : (tensor<8x12xf16>, tensor<16x12x32xf16>)
  runAndPrint(ctx, pm, staticKModule);
  mlirPassManagerDestroy(pm);

  pm = hostPassManager(ctx);
  mlirPassManagerAddOwnedPass(pm, embCreatePadKPass(NULL, printError, NULL));
  // CHECK: "emb.lce"({{.+}}) : (tensor<8x16xf16>, tensor<16x16x32xf16>)
  runAndPrint(ctx, pm, staticKModule);
  mlirPassManagerDestroy(pm);

  options = embPadKOptionsDefault();
  options.align = 32;
  pm = hostPassManager(ctx);
  mlirPassManagerAddOwnedPass(pm,
                              embCreatePadKPass(&options, printError, NULL));
  // CHECK: "emb.lce"({{.+}}) : (tensor<8x32xf16>, tensor<16x32x32xf16>)
  runAndPrint(ctx, pm, staticKModule);
  mlirPassManagerDestroy(pm);
  embSetRemarkHandler(NULL, NULL);

  // Bad options make no pass.
  options.align = -4;
  // CHECK: error: embCreatePadKPass: align must be in 0..65536, got -4
  // CHECK: bad align: 0
  fprintf(stderr, "bad align: %d\n",
          embCreatePadKPass(&options, printError, NULL).ptr != NULL);
  options = embPadKOptionsDefault();
  options.copyLimit = -1;
  // CHECK: error: embCreatePadKPass: copy-limit must be in 0..1073741824, got
  // CHECK-SAME: -1
  // CHECK: bad copy-limit: 0
  fprintf(stderr, "bad copy-limit: %d\n",
          embCreatePadKPass(&options, printError, NULL).ptr != NULL);
  options = embPadKOptionsDefault();
  options.structSize = 8;
  // CHECK: error: embCreatePadKPass: options.structSize is 8, expected
  // CHECK: bad size: 0
  fprintf(stderr, "bad size: %d\n",
          embCreatePadKPass(&options, printError, NULL).ptr != NULL);
}

// The registry lists the passes and the pipeline.
static void testRegistry(void) {
  fprintf(stderr, "@testRegistry\n");
  // CHECK-LABEL: @testRegistry
  // CHECK-DAG: emb-sink-broadcast (pass)
  // CHECK-DAG: emb-fuse-broadcast (pass)
  // CHECK-DAG: emb-pad-k (pass)
  // CHECK-DAG: emb-ikbo (pipeline)
  // CHECK-DAG: emb-batch-tables (pass)
  for (intptr_t i = 0; i < embGetNumPasses(); ++i) {
    EmbPassInfo info = embGetPassInfo(i);
    fprintf(stderr, "%s (%s)\n", info.name,
            info.kind == EMB_PASS_KIND_PIPELINE ? "pipeline" : "pass");
  }
}

int main(void) {
  MlirContext ctx = embContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  testPipelineByConstructor(ctx);
  testPipelineOptions(ctx);
  testPipelineByName(ctx);
  testPassConstructors(ctx);
  testRemarks(ctx);
  testPadKOptions(ctx);
  testRegistry();
  mlirContextDestroy(ctx);
  return 0;
}
