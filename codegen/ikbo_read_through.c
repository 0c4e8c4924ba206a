//===- codegen/ikbo_read_through.c - What emb.ikbo_lce reads through -----===//
//
// The runtime's ikbo_lce takes each weight as a strided view and reads zeros
// past K by itself, so two producers that emb-ikbo leaves in front of it are
// not materialised:
//   - zero padding of K: where the weight and the embeddings of one side are
//     both `tensor.concat dim(1) (%a, %zeros)` of a zero splat constant with
//     the same unpadded K, the op reads %a and %b with that K (the padding
//     only adds products of zeros);
//   - a column block of a wider weight: where the weight is
//     `tensor.extract_slice %w[0, c] [M, K] [1, 1]` of an [M, S] tensor, the
//     op reads %w from column c, rows S elements apart.
// A concat, extract_slice or tensor constant is then skipped when nothing
// else uses its result. This file plans, before a function is lowered, what
// each emb.ikbo_lce reads and which producers are skipped; emb_ops.c lowers
// the op from its plan.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Matching the producers
//===----------------------------------------------------------------------===//

static bool isZeroSplat(MlirValue v) {
  if (!mlirValueIsAOpResult(v))
    return false;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!embOpIs(def, "arith.constant"))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(def, embStr("value"));
  if (!mlirAttributeIsADenseElements(a) || !mlirDenseElementsAttrIsSplat(a))
    return false;
  MlirAttribute e = mlirDenseElementsAttrGetSplatValue(a);
  return mlirAttributeIsAFloat(e) && mlirFloatAttrGetValueDouble(e) == 0.0;
}

/// %a when `v` is `tensor.concat dim(1) (%a, %zeros)`, else null.
static MlirValue unpadded(MlirValue v) {
  MlirValue none = {NULL};
  if (!mlirValueIsAOpResult(v))
    return none;
  MlirOperation def = mlirOpResultGetOwner(v);
  int64_t dim = -1;
  if (!embOpIs(def, "tensor.concat") || !embGetIntAttr(def, "dim", &dim) ||
      dim != 1 || mlirOperationGetNumOperands(def) != 2 ||
      !isZeroSplat(mlirOperationGetOperand(def, 1)))
    return none;
  return mlirOperationGetOperand(def, 0);
}

/// Whether `v` is a column block [0, column] [M, K] [1, 1] of a rank-2
/// tensor with static offsets; sets *source and *column.
static bool columnView(MlirValue v, MlirValue *source, int64_t *column) {
  if (!mlirValueIsAOpResult(v))
    return false;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!embOpIs(def, "tensor.extract_slice") ||
      mlirOperationGetNumOperands(def) != 1)
    return false; // dynamic offsets, sizes or strides
  MlirValue src = mlirOperationGetOperand(def, 0);
  MlirType st = mlirValueGetType(src), rt = mlirValueGetType(v);
  if (mlirShapedTypeGetRank(st) != 2 || mlirShapedTypeGetRank(rt) != 2)
    return false;
  MlirAttribute offsets =
      mlirOperationGetAttributeByName(def, embStr("static_offsets"));
  MlirAttribute sizes =
      mlirOperationGetAttributeByName(def, embStr("static_sizes"));
  MlirAttribute strides =
      mlirOperationGetAttributeByName(def, embStr("static_strides"));
  if (mlirDenseI64ArrayGetElement(offsets, 0) != 0 ||
      mlirDenseI64ArrayGetElement(strides, 0) != 1 ||
      mlirDenseI64ArrayGetElement(strides, 1) != 1 || embDim(st, 0) < 0 ||
      mlirDenseI64ArrayGetElement(sizes, 0) != embDim(st, 0))
    return false;
  *source = src;
  *column = mlirDenseI64ArrayGetElement(offsets, 1);
  return true;
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

EmbIkboPlan *embFindIkboPlan(EmbLowering *l, MlirOperation op) {
  for (size_t i = 0; i < l->numPlans; ++i)
    if (l->plans[i].op == op.ptr)
      return &l->plans[i];
  return NULL;
}

bool embIsSkipped(EmbLowering *l, MlirOperation op) {
  for (size_t i = 0; i < l->numSkipped; ++i)
    if (l->skipped[i] == op.ptr)
      return true;
  return false;
}

/// Whether a plan reads `v` itself (then its producer must be lowered).
static bool readByPlan(EmbLowering *l, MlirValue v) {
  for (size_t i = 0; i < l->numPlans; ++i)
    for (int s = 0; s < 2; ++s)
      if (mlirValueEqual(l->plans[i].w[s], v) ||
          mlirValueEqual(l->plans[i].x[s], v))
        return true;
  return false;
}

/// Whether the use `u` still needs its value: not when it is a skipped op or
/// an emb.ikbo_lce operand that the op's plan replaced.
static bool useNeedsValue(EmbLowering *l, MlirOpOperand u) {
  MlirOperation owner = mlirOpOperandGetOwner(u);
  if (embIsSkipped(l, owner))
    return false;
  EmbIkboPlan *p = embFindIkboPlan(l, owner);
  if (!p)
    return true;
  intptr_t n = (intptr_t)mlirOpOperandGetOperandNumber(u);
  if (n > 3)
    return true;
  MlirValue planned = n < 2 ? p->w[n] : p->x[n - 2];
  return mlirValueEqual(planned, mlirOperationGetOperand(owner, n));
}

/// Plans every emb.ikbo_lce of `block`, then marks the producers nothing else
/// needs (in reverse order, so that chains go together).
void embPlanReadThrough(EmbLowering *l, MlirBlock block) {
  size_t cap = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!embOpIs(op, EMB_OP_IKBO_LCE))
      continue;
    EmbIkboPlan p;
    memset(&p, 0, sizeof p);
    p.op = op.ptr;
    for (int s = 0; s < 2; ++s) {
      p.w[s] = mlirOperationGetOperand(op, s);
      p.x[s] = mlirOperationGetOperand(op, 2 + s);
      MlirValue w = unpadded(p.w[s]), x = unpadded(p.x[s]);
      if (!mlirValueIsNull(w) && !mlirValueIsNull(x)) {
        int64_t kw = embDim(mlirValueGetType(w), 1);
        int64_t kx = embDim(mlirValueGetType(x), 1);
        if (kw >= 0 && kw == kx) {
          p.w[s] = w;
          p.x[s] = x;
        }
      }
      MlirValue source;
      int64_t column;
      if (columnView(p.w[s], &source, &column)) {
        p.w[s] = source;
        p.column[s] = column;
        p.view[s] = true;
      }
    }
    if (l->numPlans == cap) {
      cap = cap ? 2 * cap : 4;
      l->plans = realloc(l->plans, cap * sizeof(EmbIkboPlan));
    }
    l->plans[l->numPlans++] = p;
  }
  if (!l->numPlans)
    return;
  size_t numOps = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    ++numOps;
  MlirOperation *ops = calloc(numOps, sizeof(MlirOperation));
  numOps = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    ops[numOps++] = op;
  l->skipped = calloc(numOps, sizeof(void *));
  for (size_t i = numOps; i-- > 0;) {
    MlirOperation op = ops[i];
    if (!embOpIs(op, "tensor.concat") && !embOpIs(op, "tensor.extract_slice") &&
        !(embOpIs(op, "arith.constant") && embHasTensor(op)))
      continue;
    MlirValue r = mlirOperationGetResult(op, 0);
    if (readByPlan(l, r))
      continue;
    bool needed = false;
    for (MlirOpOperand u = mlirValueGetFirstUse(r);
         !mlirOpOperandIsNull(u) && !needed; u = mlirOpOperandGetNextUse(u))
      needed = useNeedsValue(l, u);
    if (!needed && !mlirOpOperandIsNull(mlirValueGetFirstUse(r)))
      l->skipped[l->numSkipped++] = op.ptr;
  }
  free(ops);
}
