//===- test/CAPI/jit.c - Running a mixed module from C --------------------===//
//
// A program that links libemb lowers a module that mixes emb ops with linalg
// (emb-lower-to-llvm through embAddPassPipeline), JIT-compiles it, and calls
// its entry on buffers of a CPU runtime context: memref descriptors, results
// written into the caller's buffers, errors in the context's sticky status.
//
//===----------------------------------------------------------------------===//

// RUN: %capi_test_dir/emb-capi-jit 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

#include "capi_test.h"

#include "emb/emb.h"
#include "emb/runtime.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdint.h>
#include <stdio.h>

/// torch-mlir's aten.embedding of a [5, 4] table (with its two bounds
/// checks), plus the sum bag of ids [0, 1] of the same table, then a relu.
static const char *const source =
    "#ids = affine_map<(d0, d1) -> (d0)>\n"
    "#rows = affine_map<(d0, d1) -> (d0, d1)>\n"
    "#row0 = affine_map<(d0, d1) -> (0, d1)>\n"
    "func.func @lookup(%table: tensor<5x4xf32>, %ids: tensor<3xi64>,\n"
    "                  %bag_ids: tensor<2xi64>, %offsets: tensor<2xi64>)\n"
    "    -> tensor<3x4xf32> {\n"
    "  %c5 = arith.constant 5 : index\n"
    "  %c0_i64 = arith.constant 0 : i64\n"
    "  %zero = arith.constant 0.0 : f32\n"
    "  %0 = tensor.empty() : tensor<3x4xf32>\n"
    "  %1 = linalg.generic {indexing_maps = [#ids, #rows],\n"
    "      iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%ids : tensor<3xi64>) outs(%0 : tensor<3x4xf32>) {\n"
    "  ^bb0(%in: i64, %out: f32):\n"
    "    %2 = arith.index_cast %in : i64 to index\n"
    "    %3 = linalg.index 1 : index\n"
    "    %4 = arith.cmpi slt, %2, %c5 : index\n"
    "    cf.assert %4, \"index must be smaller than dim size\"\n"
    "    %5 = arith.cmpi sge, %in, %c0_i64 : i64\n"
    "    cf.assert %5, \"index must be larger or equal to 0\"\n"
    "    %e = tensor.extract %table[%2, %3] : tensor<5x4xf32>\n"
    "    linalg.yield %e : f32\n"
    "  } -> tensor<3x4xf32>\n"
    "  %bag = \"emb.embedding_bag\"(%table, %bag_ids, %offsets)\n"
    "      {mode = \"sum\"} : (tensor<5x4xf32>, tensor<2xi64>,\n"
    "      tensor<2xi64>) -> tensor<1x4xf32>\n"
    "  %6 = linalg.generic {indexing_maps = [#rows, #row0, #rows],\n"
    "      iterator_types = [\"parallel\", \"parallel\"]}\n"
    "      ins(%1, %bag : tensor<3x4xf32>, tensor<1x4xf32>)\n"
    "      outs(%0 : tensor<3x4xf32>) {\n"
    "  ^bb0(%a: f32, %b: f32, %out: f32):\n"
    "    %s = arith.addf %a, %b : f32\n"
    "    %r = arith.maximumf %s, %zero : f32\n"
    "    linalg.yield %r : f32\n"
    "  } -> tensor<3x4xf32>\n"
    "  return %6 : tensor<3x4xf32>\n"
    "}\n";

/// A memref descriptor of rank 1 or 2 (sizes and strides past the rank are
/// unused: the callee reads only its own rank's).
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Desc1or2;

static Desc1or2 rowMajor(void *data, int64_t rows, int64_t cols) {
  Desc1or2 d = {data, data, 0, {rows, cols}, {cols, 1}};
  return d;
}

static Desc1or2 vector(void *data, int64_t n) {
  Desc1or2 d = {data, data, 0, {n, 1}, {1, 0}};
  return d;
}

static void testJitMixed(MlirContext ctx) {
  fprintf(stderr, "@testJitMixed\n");
  // CHECK-LABEL: @testJitMixed
  MlirModule m = mlirModuleCreateParse(ctx, str(source));
  int ok = runPipelineOn(m, "emb-lower-to-llvm");
  // CHECK-NEXT: lowered: 1
  fprintf(stderr, "lowered: %d\n", ok);
  EmbJit *jit = embJitCreate(m, 2, printError, NULL);
  EmbPackedFn fn = jit ? embJitLookup(jit, "lookup") : NULL;
  // CHECK-NEXT: entry: 1
  fprintf(stderr, "entry: %d\n", fn != NULL);
  if (!fn) {
    embJitDestroy(jit);
    mlirModuleDestroy(m);
    return;
  }

  // Row r of the table holds r; the bag of rows 0 and 1 holds 1.
  float table[5][4], out[3][4];
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 4; ++c)
      table[r][c] = (float)r;
  int64_t ids[3] = {4, 0, 3}, bagIds[2] = {0, 1}, offsets[2] = {0, 2};
  embrtContext *rt = NULL;
  embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &rt);
  Desc1or2 d[5] = {rowMajor(table, 5, 4), vector(ids, 3), vector(bagIds, 2),
                   vector(offsets, 2), rowMajor(out, 3, 4)};
  void *descs[5] = {&d[0], &d[1], &d[2], &d[3], &d[4]};
  void *args[6] = {&rt, &descs[0], &descs[1], &descs[2], &descs[3], &descs[4]};

  // relu(row + bag) of rows 4, 0 and 3.
  fn(args);
  // CHECK-NEXT: status EMBRT_OK: 5 1 4
  fprintf(stderr, "status %s: %g %g %g\n",
          embrtStatusName(embrtContextGetStatus(rt)), out[0][0], out[1][0],
          out[2][0]);
  ids[1] = 7;
  ids[2] = 5;
  fn(args);
  // An id past the table: the first failure is reported, nothing is read.
  // CHECK-NEXT: status EMBRT_OUT_OF_RANGE: assertion failed in @lookup
  // ({{.*}}): index must be smaller than dim size
  fprintf(stderr, "status %s: %s\n", embrtStatusName(embrtContextGetStatus(rt)),
          embrtContextGetLastError(rt));
  embrtContextDestroy(rt);
  embJitDestroy(jit);
  mlirModuleDestroy(m);
}

int main(void) {
  MlirContext ctx = embContextCreate();
  testJitMixed(ctx);
  mlirContextDestroy(ctx);
  return 0;
}
