//===- test/CAPI/codegen.c - Describing entry functions from C ------------===//
//
// A runner that links libemb asks embDescribeEntry what an entry function
// takes and returns: each tensor's runtime dtype (embrtDtype), shape and
// role. The dtypes are the ones the lowering gives the same element types.
//
//===----------------------------------------------------------------------===//

// RUN: %capi_test_dir/emb-capi-codegen 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

#include "capi_test.h"

#include "emb/emb.h"
#include "emb/runtime.h"

#include "mlir-c/IR.h"

#include <stdio.h>

/// Parses `source` and describes its first function.
static void describe(MlirContext ctx, const char *source) {
  MlirModule m = mlirModuleCreateParse(ctx, str(source));
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
  EmbModelSpec spec;
  if (mlirLogicalResultIsFailure(embDescribeEntry(func, &spec))) {
    fprintf(stderr, "no description\n");
  } else {
    fprintf(stderr, "@%s:", spec.name);
    for (int i = 0; i < spec.numInputs; ++i)
      fprintf(stderr, " %d", spec.inputs[i].dtype);
    fprintf(stderr, " ->");
    for (int i = 0; i < spec.numResults; ++i)
      fprintf(stderr, " %d", spec.results[i].dtype);
    fprintf(stderr, "\n");
    embModelSpecDestroy(&spec);
  }
  mlirModuleDestroy(m);
}

// Every element type with a runtime dtype; i1 is stored one byte an element,
// as i8.
static void testDtypes(MlirContext ctx) {
  fprintf(stderr, "@testDtypes\n");
  // CHECK-LABEL: @testDtypes
  // CHECK: EMBRT: f32 0 f16 1 bf16 2 i32 3 i64 4 f64 5 i8 6
  fprintf(stderr, "EMBRT: f32 %d f16 %d bf16 %d i32 %d i64 %d f64 %d i8 %d\n",
          EMBRT_F32, EMBRT_F16, EMBRT_BF16, EMBRT_I32, EMBRT_I64, EMBRT_F64,
          EMBRT_I8);
  // CHECK: @all: 0 1 2 5 3 4 6 6 -> 0
  describe(ctx,
           "func.func @all(%a: tensor<2xf32>, %b: tensor<2xf16>,\n"
           "    %c: tensor<2xbf16>, %d: tensor<2xf64>, %e: tensor<2xi32>,\n"
           "    %f: tensor<2xi64>, %g: tensor<2xi8>, %h: tensor<2xi1>)\n"
           "    -> tensor<2xf32> {\n"
           "  return %a : tensor<2xf32>\n"
           "}\n");
}

// i16 has no runtime dtype (the runtime has no 16-bit integer; described as
// i8 its buffers would hold half its bytes), as in the lowering, which
// refuses it: no description.
static void testNoDtype(MlirContext ctx) {
  fprintf(stderr, "@testNoDtype\n");
  // CHECK-LABEL: @testNoDtype
  // CHECK-NEXT: no description
  describe(ctx, "func.func @i16(%a: tensor<2xi16>) -> tensor<2xi16> {\n"
                "  return %a : tensor<2xi16>\n"
                "}\n");
  // CHECK-NEXT: no description
  describe(ctx, "func.func @i4(%a: tensor<2xf32>) -> tensor<2xi4> {\n"
                "  %c = arith.constant dense<1> : tensor<2xi4>\n"
                "  return %c : tensor<2xi4>\n"
                "}\n");
}

int main(void) {
  MlirContext ctx = embContextCreate();
  testDtypes(ctx);
  testNoDtype(ctx);
  mlirContextDestroy(ctx);
  return 0;
}
