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
//     op reads %w from column c, rows S elements apart;
//   - candidate embeddings concatenated along K (a model's features beside
//     its attention output, then zero padding): where the candidate side is
//     `tensor.concat dim(1)` of up to EMBRT_IKBO_LCE_MAX_PIECES tensors of
//     static K, the op reads each piece where it is, a zero splat as zeros
//     (dropped at the end when the weight's padding matches, as above).
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

/// The operands of `v` = `tensor.concat dim(1)` of 2 .. max + 1 operands
/// of rank 3 and static K, into `parts`; their count, or 0.
static int concatAlongK(MlirValue v, MlirValue *parts, int max) {
  if (!mlirValueIsAOpResult(v))
    return 0;
  MlirOperation def = mlirOpResultGetOwner(v);
  int64_t dim = -1;
  intptr_t n = mlirOperationGetNumOperands(def);
  if (!embOpIs(def, "tensor.concat") || !embGetIntAttr(def, "dim", &dim) ||
      dim != 1 || n < 2 || n > max)
    return 0;
  for (intptr_t i = 0; i < n; ++i) {
    parts[i] = mlirOperationGetOperand(def, i);
    MlirType t = mlirValueGetType(parts[i]);
    if (mlirShapedTypeGetRank(t) != 3 || embDim(t, 1) < 0)
      return 0;
  }
  return (int)n;
}

/// Plans the candidate side of `p` in pieces when its embeddings are a
/// concat along K (see the file comment); a trailing zero splat goes when
/// the weight is padded with as many zero columns.
static void planPieces(EmbIkboPlan *p) {
  MlirValue parts[EMBRT_IKBO_LCE_MAX_PIECES + 1];
  int n = concatAlongK(p->x[1], parts, EMBRT_IKBO_LCE_MAX_PIECES + 1);
  if (n == 0)
    return;
  MlirValue w = unpadded(p->w[1]);
  if (isZeroSplat(parts[n - 1]) && !mlirValueIsNull(w)) {
    int64_t kept = 0;
    for (int i = 0; i < n - 1; ++i)
      kept += embDim(mlirValueGetType(parts[i]), 1);
    if (embDim(mlirValueGetType(w), 1) == kept) {
      p->w[1] = w;
      --n;
    }
  }
  if (n > EMBRT_IKBO_LCE_MAX_PIECES)
    return;
  bool real = false;
  for (int i = 0; i < n; ++i)
    real |= !isZeroSplat(parts[i]);
  if (!real)
    return;
  p->numPieces = n;
  for (int i = 0; i < n; ++i)
    p->pieces[i] = isZeroSplat(parts[i]) ? (MlirValue){NULL} : parts[i];
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

void embReplaceInPlans(EmbLowering *l, MlirValue from, MlirValue to) {
  for (size_t i = 0; i < l->numPlans; ++i) {
    EmbIkboPlan *p = &l->plans[i];
    for (int s = 0; s < 2; ++s) {
      if (mlirValueEqual(p->w[s], from))
        p->w[s] = to;
      if (mlirValueEqual(p->x[s], from))
        p->x[s] = to;
    }
    for (int q = 0; q < p->numPieces; ++q)
      if (mlirValueEqual(p->pieces[q], from))
        p->pieces[q] = to;
  }
}

/// Whether a plan reads `v` itself (then its producer must be lowered).
static bool readByPlan(EmbLowering *l, MlirValue v) {
  for (size_t i = 0; i < l->numPlans; ++i) {
    const EmbIkboPlan *p = &l->plans[i];
    for (int s = 0; s < 2; ++s)
      if (mlirValueEqual(p->w[s], v) ||
          (mlirValueEqual(p->x[s], v) && !(s == 1 && p->numPieces)))
        return true;
    for (int q = 0; q < p->numPieces; ++q)
      if (!mlirValueIsNull(p->pieces[q]) && mlirValueEqual(p->pieces[q], v))
        return true;
  }
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
  if (n == 3 && p->numPieces)
    return false; // read in pieces
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
      if (s == 1)
        planPieces(&p);
      MlirValue w = unpadded(p.w[s]), x = unpadded(p.x[s]);
      if (p.numPieces == 0 && !mlirValueIsNull(w) && !mlirValueIsNull(x)) {
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
