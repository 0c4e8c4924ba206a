//===- test/CAPI/dialect.c - Loading and verifying emb from C -------------===//
//
// A compiler that links libemb loads the dialect into its own context,
// parses emb IR and runs emb's verifier.
//
//===----------------------------------------------------------------------===//

// RUN: %capi_test_dir/emb-capi-dialect 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

#include "capi_test.h"

#include "emb/emb.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <string.h>

static const char *const goodModule =
    "func.func @f(%ro: tensor<4x8xf16>, %idx: tensor<16xi32>) -> "
    "tensor<16x8xf16> {\n"
    "  %0 = \"emb.broadcast\"(%ro, %idx) : (tensor<4x8xf16>, "
    "tensor<16xi32>) -> tensor<16x8xf16>\n"
    "  return %0 : tensor<16x8xf16>\n"
    "}\n";

// Parses with the dialect loaded into a context the caller built itself.
static void testLoadIntoOwnContext(void) {
  fprintf(stderr, "@testLoadIntoOwnContext\n");
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  embRegisterDialects(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  // CHECK-LABEL: @testLoadIntoOwnContext
  // CHECK: registered before: 0
  fprintf(stderr, "registered before: %d\n",
          mlirContextIsRegisteredOperation(ctx, str("emb.broadcast")));
  // CHECK: load: 1, again: 1
  int first = mlirLogicalResultIsSuccess(embLoadDialect(ctx));
  int again = mlirLogicalResultIsSuccess(embLoadDialect(ctx));
  fprintf(stderr, "load: %d, again: %d\n", first, again);
  // CHECK: registered after: 1
  fprintf(stderr, "registered after: %d\n",
          mlirContextIsRegisteredOperation(ctx, str("emb.broadcast")));
  MlirModule m = mlirModuleCreateParse(ctx, str(goodModule));
  // CHECK: parsed: 1, verified: 1
  fprintf(stderr, "parsed: %d, verified: %d\n", !mlirModuleIsNull(m),
          mlirLogicalResultIsSuccess(embVerify(mlirModuleGetOperation(m))));
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
}

// embVerify reports a shape mismatch naming the operand, and fails.
static void testVerifyNamesOperand(void) {
  fprintf(stderr, "@testVerifyNamesOperand\n");
  MlirContext ctx = embContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  const char *bad =
      "func.func @f(%ro: tensor<4x8xf16>, %idx: tensor<15xi32>) -> "
      "tensor<16x8xf16> {\n"
      "  %0 = \"emb.broadcast\"(%ro, %idx) : (tensor<4x8xf16>, "
      "tensor<15xi32>) -> tensor<16x8xf16>\n"
      "  return %0 : tensor<16x8xf16>\n"
      "}\n";
  MlirModule m = mlirModuleCreateParse(ctx, str(bad));
  // CHECK-LABEL: @testVerifyNamesOperand
  // CHECK: diagnostic: 'emb.broadcast' op cand_to_user has 15 rows but the
  // result has 16 CHECK: verified: 0
  fprintf(stderr, "verified: %d\n",
          mlirLogicalResultIsSuccess(embVerify(mlirModuleGetOperation(m))));
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
}

// embIsEmbOp tells emb ops from others.
static void testIsEmbOp(void) {
  fprintf(stderr, "@testIsEmbOp\n");
  MlirContext ctx = embContextCreate();
  MlirModule m = mlirModuleCreateParse(ctx, str(goodModule));
  MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
  MlirOperation bcast = mlirBlockGetFirstOperation(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0)));
  // CHECK-LABEL: @testIsEmbOp
  // CHECK: func: 0, broadcast: 1
  fprintf(stderr, "func: %d, broadcast: %d\n", embIsEmbOp(func),
          embIsEmbOp(bcast));
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
}

/// Appends an SGD emb.tbe_backward of one table to `block`, before its
/// terminator, built without MLIR's verifier as a library user may build
/// one: `operands`, the segment sizes `operandSegments`, and `numResults`
/// table handles where resultSegmentSizes says one.
static void appendBackward(MlirContext ctx, MlirBlock block,
                           intptr_t numOperands, const MlirValue *operands,
                           const char *operandSegments, intptr_t numResults) {
  MlirOperationState st = mlirOperationStateGet(str("emb.tbe_backward"),
                                                mlirLocationUnknownGet(ctx));
  mlirOperationStateAddOperands(&st, numOperands, operands);
  MlirType handle = mlirTypeParseGet(ctx, str("!emb.table_handle"));
  mlirOperationStateAddResults(&st, numResults, &handle);
  const char *names[] = {"optimizer", "pooling", "feature_tables",
                         "operandSegmentSizes", "resultSegmentSizes"};
  const char *values[] = {"\"sgd\"", "\"sum\"", "array<i64: 0>",
                          operandSegments, "array<i32: 1, 0, 0>"};
  MlirNamedAttribute attrs[5];
  for (int i = 0; i < 5; ++i)
    attrs[i] =
        mlirNamedAttributeGet(mlirIdentifierGet(ctx, str(names[i])),
                              mlirAttributeParseGet(ctx, str(values[i])));
  mlirOperationStateAddAttributes(&st, 5, attrs);
  mlirBlockInsertOwnedOperationBefore(block, mlirBlockGetTerminator(block),
                                      mlirOperationCreate(&st));
}

// embVerify runs safely on a backward op MLIR's verifier has not seen: a
// malformed operandSegmentSizes and a result count that disagrees with
// resultSegmentSizes are errors, not reads past the operands or results.
static void testVerifyUnverifiedBackward(void) {
  fprintf(stderr, "@testVerifyUnverifiedBackward\n");
  MlirContext ctx = embContextCreate();
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  const char *text =
      "func.func @f(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t: "
      "tensor<100x16xf32>, %grad: tensor<4x16xf32>, %hyper: "
      "tensor<5xf32>) {\n"
      "  %h = \"emb.table\"(%t) : (tensor<100x16xf32>) -> "
      "!emb.table_handle\n"
      "  return\n"
      "}\n";
  // CHECK-LABEL: @testVerifyUnverifiedBackward
  // CHECK: diagnostic: 'emb.tbe_backward' op operandSegmentSizes must be
  // CHECK-SAME: array<i32: 1, 1, T, 0 or 1, 1, 0 or T, 0 or T, 1, 0 or 1>
  // CHECK-SAME: summing to the 5 operands
  // CHECK: verified: 0
  // CHECK: diagnostic: 'emb.tbe_backward' op expects 1 results (the updated
  // CHECK-SAME: tables and states), got 0
  // CHECK: verified: 0
  const char *segments[2] = {"array<i32: 1, 1, 1, 0, 1, 0, 0, 1>",
                             "array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>"};
  for (int i = 0; i < 2; ++i) {
    MlirModule m = mlirModuleCreateParse(ctx, str(text));
    MlirOperation func = mlirBlockGetFirstOperation(mlirModuleGetBody(m));
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
    MlirOperation table = mlirBlockGetFirstOperation(body);
    MlirValue operands[5] = {
        mlirBlockGetArgument(body, 0), mlirBlockGetArgument(body, 1),
        mlirOperationGetResult(table, 0), mlirBlockGetArgument(body, 3),
        mlirBlockGetArgument(body, 4)};
    appendBackward(ctx, body, 5, operands, segments[i], i == 0 ? 1 : 0);
    fprintf(stderr, "verified: %d\n",
            mlirLogicalResultIsSuccess(embVerify(mlirModuleGetOperation(m))));
    mlirModuleDestroy(m);
  }
  mlirContextDestroy(ctx);
}

int main(void) {
  testLoadIntoOwnContext();
  testVerifyNamesOperand();
  testIsEmbOp();
  testVerifyUnverifiedBackward();
  return 0;
}
