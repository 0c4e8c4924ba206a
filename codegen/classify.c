//===- codegen/classify.c - Which lowering owns each op ------------------===//
//
// Before a function is lowered, each op of its block is given to one
// lowering, once, as an MLIR ConversionTarget marks each op legal for one
// conversion; the driver (lower_to_runtime.c) and the lowerings read the
// answer (embOwnerOf) rather than each asking again:
//
//   skipped       a producer nothing needs: what an emb.ikbo_lce reads
//                 through (ikbo_read_through.c), or on the cuda target a
//                 tensor.empty, splat constant or scalar that only GPU
//                 kernels read, which they copy in
//   GEMM part     absorbed by a linalg matmul chain (gemm.c), not lowered
//   GEMM          the last op of a chain: embrtCompiledGemm (gemm.c)
//   emb ops       a runtime call (emb_ops.c, sharding.c)
//   tensor ops    a runtime call (tensor_ops.c)
//   constants     tensor constants, splats and elementwise arith and math on
//                 tensors: a runtime call (constants.c)
//   scalar copy   scalar arith and index ops, copied
//   GPU kernel    on the cuda target, linalg ops and arith and math on
//                 tensors that no runtime call takes (gpu/)
//   none          no lowering takes it: an error naming it
//
// in that order of precedence. On the cpu target a function with an op no
// lowering takes (or with more than one block) is mixed instead
// (mixed_functions.c): its emb ops and matmul chains are runtime calls and
// every other op is left to MLIR. This file plans what that needs (the
// read-through plans, the chains), then classifies; a mixed function, whose
// rewrites change its ops before its emb ops are lowered, is classified again
// then.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdlib.h>
#include <string.h>

/// One op's owner; open addressing on the op's pointer.
typedef struct EmbOwnerSlot {
  const void *op;
  EmbOwner owner;
} EmbOwnerSlot;

/// The slot of `op`: its entry or the free slot it would take.
static EmbOwnerSlot *slotOf(EmbLowering *l, const void *op) {
  size_t i = embHashPointer(op, l->ownersCap);
  while (l->owners[i].op && l->owners[i].op != op)
    i = (i + 1) & (l->ownersCap - 1);
  return &l->owners[i];
}

static void setOwner(EmbLowering *l, MlirOperation op, EmbOwner owner) {
  EmbOwnerSlot *s = slotOf(l, op.ptr);
  s->op = op.ptr;
  s->owner = owner;
}

EmbOwner embOwnerOf(EmbLowering *l, MlirOperation op) {
  if (!l->owners || mlirOperationIsNull(op))
    return EMB_OWNER_NONE;
  return slotOf(l, op.ptr)->owner; // a free slot's is EMB_OWNER_NONE
}

//===----------------------------------------------------------------------===//
// What each lowering takes
//===----------------------------------------------------------------------===//

/// Scalar arith and index ops (sizes, scalar constants) are copied.
static bool isScalarCopy(MlirOperation op) {
  const char *name = mlirIdentifierStr(mlirOperationGetName(op)).data;
  return !embHasTensor(op) && mlirOperationGetNumRegions(op) == 0 &&
         (!strncmp(name, "arith.", 6) || !strncmp(name, "index.", 6));
}

/// Ops a GPU kernel computes, of those no runtime call takes: linalg ops,
/// and arith and math ops on tensors.
static bool isKernelOp(MlirOperation op) {
  if (embIsOpInDialect(op, "linalg"))
    return true;
  return (embIsOpInDialect(op, "arith") || embIsOpInDialect(op, "math")) &&
         embHasTensor(op);
}

bool embIsSplatConstant(MlirOperation op) {
  if (!embOpIs(op, "arith.constant") || !embHasTensor(op))
    return false;
  MlirAttribute v = mlirOperationGetAttributeByName(op, embStr("value"));
  return mlirAttributeIsADenseElements(v) && mlirDenseElementsAttrIsSplat(v);
}

bool embIsCopiedIntoKernel(MlirOperation op) {
  return embOpIs(op, "tensor.empty") || embIsSplatConstant(op) ||
         isScalarCopy(op);
}

/// The owner of `op` in a function lowered to runtime calls alone.
static EmbOwner ownerOf(EmbLowering *l, MlirOperation op) {
  if (embIsSkipped(l, op))
    return EMB_OWNER_SKIPPED;
  if (embIsGemmAbsorbed(l, op))
    return EMB_OWNER_GEMM_PART;
  if (embIsGemmLast(l, op))
    return EMB_OWNER_GEMM;
  if (embIsEmbOp(op))
    return EMB_OWNER_EMB_OPS;
  if (embIsRuntimeTensorOp(op))
    return EMB_OWNER_TENSOR_OPS;
  if (embIsRuntimeConstantOp(op))
    return EMB_OWNER_CONSTANTS;
  if (isScalarCopy(op))
    return EMB_OWNER_SCALAR_COPY;
  if (l->target == EMB_TARGET_CUDA && isKernelOp(op))
    return EMB_OWNER_GPU_KERNEL;
  return EMB_OWNER_NONE;
}

//===----------------------------------------------------------------------===//
// A function
//===----------------------------------------------------------------------===//

void embFreeClassification(EmbLowering *l) {
  free(l->owners);
  l->owners = NULL;
  l->ownersCap = 0;
  free(l->plans);
  l->plans = NULL;
  l->numPlans = 0;
  free(l->skipped);
  l->skipped = NULL;
  l->numSkipped = 0;
  free(l->gemms);
  l->gemms = NULL;
  l->numGemms = 0;
}

bool embClassifyFunction(EmbLowering *l, MlirOperation func) {
  embFreeClassification(l);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation ret = mlirBlockGetTerminator(body);
  size_t numOps = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    ++numOps;
  l->ownersCap = 16;
  while (l->ownersCap < 2 * numOps)
    l->ownersCap *= 2;
  l->owners = calloc(l->ownersCap, sizeof(EmbOwnerSlot));
  if (!l->owners) {
    l->ownersCap = 0;
    l->failed = true; // out of memory
    return false;
  }
  embPlanReadThrough(l, body);
  embPlanGemms(l, body);
  bool unowned = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op) && !mlirOperationEqual(op, ret);
       op = mlirOperationGetNextInBlock(op)) {
    EmbOwner owner = ownerOf(l, op);
    unowned |= owner == EMB_OWNER_NONE;
    setOwner(l, op, owner);
  }

  // A tensor.empty, splat constant or scalar that only kernels read is
  // copied into them: the function need not allocate, fill or compute it.
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       l->target == EMB_TARGET_CUDA && !mlirOperationIsNull(op) &&
       !mlirOperationEqual(op, ret);
       op = mlirOperationGetNextInBlock(op)) {
    if (!embIsCopiedIntoKernel(op) || embOwnerOf(l, op) == EMB_OWNER_SKIPPED)
      continue;
    MlirValue r = mlirOperationGetResult(op, 0);
    bool onlyKernels = !mlirOpOperandIsNull(mlirValueGetFirstUse(r));
    for (MlirOpOperand u = mlirValueGetFirstUse(r);
         !mlirOpOperandIsNull(u) && onlyKernels; u = mlirOpOperandGetNextUse(u))
      onlyKernels = embOwnerOf(l, embTopLevelOp(mlirOpOperandGetOwner(u),
                                                body)) == EMB_OWNER_GPU_KERNEL;
    if (onlyKernels)
      setOwner(l, op, EMB_OWNER_SKIPPED);
  }

  bool mixed = l->target == EMB_TARGET_CPU &&
               (unowned || !mlirBlockIsNull(mlirBlockGetNextInRegion(body)));
  if (!mixed)
    return false;
  // Only emb ops and the chains are runtime calls among the ops MLIR
  // compiles.
  for (size_t i = 0; i < l->ownersCap; ++i) {
    EmbOwner o = l->owners[i].owner;
    if (l->owners[i].op && o != EMB_OWNER_EMB_OPS && o != EMB_OWNER_GEMM &&
        o != EMB_OWNER_GEMM_PART)
      l->owners[i].owner = EMB_OWNER_MLIR;
  }
  return true;
}
