//===- codegen/element_bounds.c - The model's own element reads checked ---===//
//
// A model reads and writes single elements with tensor.extract and
// tensor.insert: torch-mlir's embedding_bag and index_select bodies read a
// table at an id from the model's inputs, and MLIR leaves an index outside
// the tensor undefined (on the CPU, a read or write past the buffer). In a
// mixed function (cpu target) each index the lowering cannot prove in range
// is checked where the element is accessed:
//
//   %x = tensor.extract %t[%i, %j] : tensor<?x8xf16>
// becomes
//   %ok = (0 <= %i < dim(%t, 0)) and (0 <= %j < 8)
//   %x = scf.if %ok -> (f16) {
//     %e = tensor.extract %t[%i, %j] : tensor<?x8xf16>
//     scf.yield %e
//   } else {
//     call @embrtCompiledCheckIndex(%ctx, %i, dim(%t, 0), @"tensor.extract in
//          @f (loc): dim 0")                    // and the same for %j
//     scf.yield 0.0 : f16
//   }
//
// so the first index out of range becomes the context's error (sticky:
// "tensor.extract in @f (m.mlir:3:8): dim 0: index 12 is outside 0..9"),
// the access does not happen, a read yields zero and a write leaves the
// tensor as it was. A constant index of a static dim is decided here: in
// range it costs nothing, outside it is an error at the op. The GPU kernels
// the cuda target generates do not check their reads (docs/reliability.md).
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// arith.cmpi's predicates used here.
enum { CMPI_SLT = 2, CMPI_SGE = 5 };

static bool isElementAccess(MlirOperation op) {
  return embOpIs(op, "tensor.extract") || embOpIs(op, "tensor.insert");
}

static MlirValue result0(MlirOperation op) {
  return mlirOperationGetResult(op, 0);
}

/// One index of an access: its value and the size of the dim it indexes.
typedef struct Checked {
  int dim;
  MlirValue index, size;
} Checked;

/// "tensor.extract in @f (loc): dim d", the start of the runtime's message.
static void describe(MlirOperation func, MlirOperation op, int dim, char *buf,
                     size_t size) {
  char name[64], fn[256] = "?", where[256];
  embOpName(op, name, sizeof name);
  embGetStringAttr(func, "sym_name", fn, sizeof fn);
  embFormatLocation(mlirOperationGetLocation(op), where, sizeof where);
  snprintf(buf, size, "%s in @%s (%s): dim %d", name, fn, where, dim);
}

static void guard(EmbLowering *l, MlirOperation func, MlirOperation op) {
  bool insert = embOpIs(op, "tensor.insert");
  intptr_t first = insert ? 2 : 1; // the first index operand
  MlirValue tensor = mlirOperationGetOperand(op, insert ? 1 : 0);
  MlirType tt = mlirValueGetType(tensor);
  if (!mlirTypeIsARankedTensor(tt))
    return;
  MlirLocation loc = mlirOperationGetLocation(op);
  l->b = (EmbBuilder){l->ctx, loc, mlirOperationGetBlock(op), op};
  int rank = (int)mlirShapedTypeGetRank(tt);
  Checked *checked = calloc((size_t)rank + 1, sizeof(Checked));
  int n = 0;
  for (int d = 0; d < rank; ++d) {
    MlirValue index = mlirOperationGetOperand(op, first + d);
    int64_t extent = mlirShapedTypeIsDynamicDim(tt, d)
                         ? -1
                         : mlirShapedTypeGetDimSize(tt, d);
    int64_t c = 0;
    if (extent >= 0 && mlirValueIsAOpResult(index) &&
        embOpIs(mlirOpResultGetOwner(index), "arith.constant") &&
        embGetIntAttr(mlirOpResultGetOwner(index), "value", &c)) {
      if (c >= 0 && c < extent)
        continue; // in range, known here
      char ts[128], why[256];
      embPrintType(tt, ts, sizeof ts);
      snprintf(why, sizeof why, "index %lld of dim %d is outside 0..%lld (%s)",
               (long long)c, d, (long long)extent - 1, ts);
      embLowerFail(l, op, why);
      free(checked);
      return;
    }
    MlirValue size;
    if (extent >= 0) {
      size = embBuildConstIndex(&l->b, extent);
    } else {
      MlirValue ops[2] = {tensor, embBuildConstIndex(&l->b, d)};
      MlirType it = mlirIndexTypeGet(l->ctx);
      size = result0(embBuildOp(&l->b, "tensor.dim", 2, ops, 1, &it, 0, NULL));
    }
    checked[n++] = (Checked){d, index, size};
  }
  if (n == 0) {
    free(checked);
    return;
  }

  // The failing path first, so that an element type without a zero is
  // refused before anything moves.
  MlirType rt = mlirValueGetType(result0(op));
  MlirBlock elseBlock = mlirBlockCreate(0, NULL, NULL);
  EmbBuilder outer = l->b;
  l->b = (EmbBuilder){l->ctx, loc, elseBlock, {NULL}};
  MlirValue fallback = insert ? tensor : embBuildZeroOf(l, rt);
  if (mlirValueIsNull(fallback)) {
    char ts[128], why[256];
    embPrintType(rt, ts, sizeof ts);
    snprintf(why, sizeof why,
             "its index cannot be checked: a failed read of %s has no value "
             "to yield",
             ts);
    mlirBlockDestroy(elseBlock);
    embLowerFail(l, op, why);
    free(checked);
    return;
  }
  for (int i = 0; i < n; ++i) {
    char what[EMB_MAX_MESSAGE];
    describe(func, op, checked[i].dim, what, sizeof what);
    size_t len = strlen(what) + 1;
    MlirValue args[4] = {
        l->ctxArg, embBuildIndexToI64(&l->b, checked[i].index),
        embBuildIndexToI64(&l->b, checked[i].size),
        embBuildConstantGlobal(
            l, "__emb_index_",
            mlirStringAttrGet(l->ctx, (MlirStringRef){what, len}), (int64_t)len,
            0)};
    embCallRuntime(l, EMB_RT_CHECK_INDEX, 4, args, embI64Type(l->ctx));
  }
  embBuildOp(&l->b, "scf.yield", 1, &fallback, 0, NULL, 0, NULL);

  // The condition, before the access.
  l->b = outer;
  MlirValue zero = embBuildConstIndex(&l->b, 0), ok = {NULL};
  for (int i = 0; i < n; ++i) {
    MlirValue low = embBuildCmpI(&l->b, CMPI_SGE, checked[i].index, zero);
    MlirValue high =
        embBuildCmpI(&l->b, CMPI_SLT, checked[i].index, checked[i].size);
    MlirValue in = embBuildBinary(&l->b, "arith.andi", low, high);
    ok = mlirValueIsNull(ok) ? in : embBuildBinary(&l->b, "arith.andi", ok, in);
  }
  free(checked);

  // The passing path: the access itself.
  embMoveIntoIf(l->ctx, op, ok, elseBlock);
}

void embGuardElementBounds(EmbLowering *l, MlirOperation func) {
  size_t n = 0;
  MlirOperation *ops = embCollectOps(func, isElementAccess, &n);
  for (size_t i = 0; i < n && !l->failed; ++i)
    guard(l, func, ops[i]);
  free(ops);
}
