//===- codegen/lower_strided_copies.c - emb-lower-strided-copies ----------===//
//
// MLIR lowers a memref.copy between two contiguous buffers to a memcpy, and
// any other (a copy into a column block of a tensor.concat's result, an
// insert_slice, a pad) to a call of `memrefCopy` from MLIR's runner-utils
// library, which neither emb's JIT nor a program linking a compiled model
// has. This pass turns each such copy into linalg.copy, which
// convert-linalg-to-loops makes into loops, so compiled code calls nothing
// but the emb runtime, libc and libm:
//
//   memref.copy %a, %b : memref<4x3xf32> to memref<4x3xf32, strided<[6, 1]>>
// becomes
//   linalg.copy ins(%a : memref<4x3xf32>)
//               outs(%b : memref<4x3xf32, strided<[6, 1]>>)
//
// Copies between contiguous buffers stay memref.copy. Runs after
// bufferization (emb-lower-to-llvm places it).
//
//===----------------------------------------------------------------------===//

#include "builder.h"
#include "codegen.h"

#include "ir.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

/// Whether MLIR lowers a copy of `t` to a memcpy: an identity layout, or a
/// static shape with row-major strides.
static bool contiguous(MlirType t) {
  if (!mlirTypeIsAMemRef(t))
    return false;
  if (mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(t)))
    return true;
  intptr_t rank = mlirShapedTypeGetRank(t);
  int64_t *strides = calloc((size_t)rank + 1, sizeof(int64_t)), offset = 0;
  bool ok = mlirLogicalResultIsSuccess(
      mlirMemRefTypeGetStridesAndOffset(t, strides, &offset));
  int64_t expected = 1;
  for (intptr_t i = rank - 1; i >= 0 && ok; --i) {
    int64_t d = mlirShapedTypeGetDimSize(t, i);
    ok = !mlirShapedTypeIsDynamicSize(d) && strides[i] == expected;
    expected *= d;
  }
  free(strides);
  return ok;
}

static void toLinalgCopy(MlirOperation copy) {
  MlirContext ctx = mlirOperationGetContext(copy);
  MlirLocation loc = mlirOperationGetLocation(copy);
  MlirValue operands[2] = {mlirOperationGetOperand(copy, 0),
                           mlirOperationGetOperand(copy, 1)};
  MlirType e = mlirShapedTypeGetElementType(mlirValueGetType(operands[0]));
  MlirType argTypes[2] = {e, e};
  MlirLocation argLocs[2] = {loc, loc};
  MlirBlock body = mlirBlockCreate(2, argTypes, argLocs);
  MlirValue in = mlirBlockGetArgument(body, 0);
  EmbBuilder b = {ctx, loc, body, {NULL}};
  embBuildOp(&b, "linalg.yield", 1, &in, 0, NULL, 0, NULL);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  int32_t segments[2] = {1, 1}; // ins, outs
  MlirNamedAttribute seg = embNamedAttr(ctx, "operandSegmentSizes",
                                        mlirDenseI32ArrayGet(ctx, 2, segments));
  MlirOperationState st = mlirOperationStateGet(embStr("linalg.copy"), loc);
  mlirOperationStateAddOperands(&st, 2, operands);
  mlirOperationStateAddAttributes(&st, 1, &seg);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation linalgCopy = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(copy), copy,
                                      linalgCopy);
  mlirOperationDestroy(copy);
}

static bool isStridedCopy(MlirOperation op) {
  return embOpIs(op, "memref.copy") &&
         !(contiguous(mlirValueGetType(mlirOperationGetOperand(op, 0))) &&
           contiguous(mlirValueGetType(mlirOperationGetOperand(op, 1))));
}

static void run(MlirOperation op, MlirExternalPass pass, const void *options) {
  (void)pass;
  (void)options;
  size_t n = 0;
  MlirOperation *copies = embCollectOps(op, isStridedCopy, &n);
  for (size_t i = 0; i < n; ++i)
    toLinalgCopy(copies[i]);
  free(copies);
}

const EmbPassDef embLowerStridedCopiesPassDef = {
    .argument = "emb-lower-strided-copies",
    .name = "EmbLowerStridedCopies",
    .summary = "Make memref.copy between non-contiguous buffers a linalg.copy "
               "(no call into MLIR's runner library)",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "builtin.module",
    .run = run,
};
