//===- passes/raise_gather.c - emb-raise-gather ---------------------------===//
//
// Raises the row gathers torch-mlir writes for `aten.index_select(x, 0,
// idx)`, `aten.embedding(w, idx)` and `x[idx]` (`aten.index.Tensor`): a
// linalg.generic whose only input is the integer index tensor and whose body
// reads `tensor.extract %x[index_cast(id), linalg.index ...]` of a tensor
// captured from above. `aten.embedding` adds two `cf.assert`s (id < rows,
// id >= 0); `x[idx]` wraps a negative id by adding the row count first.
//
// What the gather means decides what it becomes:
//   - a table lookup: the embedding form (its asserts say the source is an
//     nn.Embedding table) or a gather from a 2-D float `arith.constant` (a
//     frozen weight) -> emb.embedding_bag {mode = "none"}, the ids
//     flattened to 1-D and the result reshaped back, offsets [0, N] (one
//     bag of every id). The asserts become bounds_check = "fatal", which
//     like them fails the call on an id outside the table;
//   - otherwise the rows of a per-request tensor picked per candidate, a
//     user->candidate broadcast -> emb.broadcast(x, idx), which emb-ikbo
//     then fuses into the ops that read it. It needs a 1-D index.
// A negative-id wrap is kept: the index goes through an elementwise generic
// that adds the row count to negative ids, as the original body did.
//
// Preconditions: none. Postconditions: every gather of rows of a tensor
// captured from above is raised, or left as it was with a remark saying
// why (another gathered dim, several index tensors, an unknown assert, a
// body that does more).
// The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "linalg_match.h"
#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

static const char passName[] = "emb-raise-gather";

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// A gather generic read into what it means.
typedef struct {
  EmbGeneric g;
  MlirValue source;  ///< the tensor whose rows are read
  MlirValue indices; ///< the index tensor (the generic's input)
  int64_t indexRank; ///< k: the leading k loops walk the index tensor
  bool wraps;        ///< x[idx]: a negative id counts from the end
  bool asserts;      ///< aten.embedding: the id is asserted in bounds
} Gather;

/// Reads the row index of the extract: `id` itself, or the wrap
/// select(id < 0, id + rows, id). Sets `*wraps`.
static bool readRowIndex(MlirValue v, MlirValue id, MlirValue source,
                         bool *wraps) {
  v = embStripIntCasts(v);
  *wraps = false;
  if (mlirValueEqual(v, id))
    return true;
  MlirOperation select;
  if (!embMadeBy(v, "arith.select", &select))
    return false;
  int pred;
  MlirValue lhs, rhs, a, b;
  int64_t zero;
  if (!embReadCmpI(mlirOperationGetOperand(select, 0), &pred, &lhs, &rhs) ||
      pred != EMB_CMPI_SLT || !mlirValueEqual(lhs, id) ||
      !embConstInt(rhs, &zero) || zero != 0 ||
      !mlirValueEqual(mlirOperationGetOperand(select, 2), id) ||
      !embReadBinary(mlirOperationGetOperand(select, 1), "arith.addi", &a, &b))
    return false;
  *wraps = (mlirValueEqual(a, id) && embIsDimSize(b, source, 0)) ||
           (mlirValueEqual(b, id) && embIsDimSize(a, source, 0));
  return *wraps;
}

/// True if the condition of a cf.assert is one of aten.embedding's bounds
/// checks on `id`: id < rows, or 0 <= id.
static bool isBoundsCheck(MlirValue cond, MlirValue id, MlirValue source) {
  int pred;
  MlirValue lhs, rhs;
  int64_t zero;
  if (!embReadCmpI(cond, &pred, &lhs, &rhs))
    return false;
  if (pred == EMB_CMPI_SLT)
    return mlirValueEqual(embStripIntCasts(lhs), id) &&
           embIsDimSize(rhs, source, 0);
  return pred == EMB_CMPI_SLE && embConstInt(lhs, &zero) && zero == 0 &&
         mlirValueEqual(embStripIntCasts(rhs), id);
}

/// The ops a gather's body may hold besides its extract.
static bool isGatherBodyOp(MlirOperation op) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return (n.length > 6 && !memcmp(n.data, "arith.", 6)) ||
         embOpIs(op, "linalg.index") || embOpIs(op, "linalg.yield") ||
         embOpIs(op, "tensor.extract") || embOpIs(op, "tensor.dim") ||
         embOpIs(op, "cf.assert");
}

/// True if `v`, an index of the extract, is an element of one of `g`'s
/// inputs: the block argument through casts, or its wrap select(id < 0,
/// id + n, id).
static bool readsIndexInput(const EmbGeneric *g, MlirValue v) {
  v = embStripIntCasts(v);
  MlirOperation select;
  if (embMadeBy(v, "arith.select", &select))
    v = embStripIntCasts(mlirOperationGetOperand(select, 2));
  intptr_t operand = embGenericArgOperand(g, v);
  return operand >= 0 && operand < g->numInputs;
}

/// Reads `op` as a gather into `*out`. Returns false without a word when it
/// is no gather of rows of a captured tensor, and after a remark when it is
/// one that cannot be raised.
static bool readGather(MlirOperation op, Gather *out) {
  EmbGeneric *g = &out->g;
  MlirOperation extract;
  if (!embReadGeneric(op, g) || g->numInputs < 1 || g->numInits != 1 ||
      !embMadeBy(embGenericYielded(g, 0), "tensor.extract", &extract))
    return false;
  MlirValue source = mlirOperationGetOperand(extract, 0);
  if (!embDefinedAbove(g, source))
    return false;
  MlirLocation loc = mlirOperationGetLocation(op);
  if (g->numInputs != 1) {
    // x[i, j] (aten.index.Tensor with several index tensors): each picks
    // one dim of the element, so no input is a row id.
    int indexed = 0;
    for (intptr_t j = 1; j < mlirOperationGetNumOperands(extract); ++j)
      indexed += readsIndexInput(g, mlirOperationGetOperand(extract, j));
    if (indexed > 1)
      embEmitRemarkf(loc,
                     "%s: %d index tensors pick the element together (x[i, "
                     "j]): not a row gather",
                     passName, indexed);
    return false;
  }
  MlirValue id = mlirBlockGetArgument(g->body, 0);
  MlirType sourceType = mlirValueGetType(source);
  intptr_t rank = mlirShapedTypeGetRank(sourceType);
  out->source = source;
  out->indices = embGenericOperand(g, 0);
  MlirType indexType = mlirValueGetType(out->indices);
  int64_t k = mlirShapedTypeGetRank(indexType);
  out->indexRank = k;

  // Where the id is used: it must pick the row, and every other dim of the
  // source must follow a loop after the index loops, in order.
  intptr_t idAt = -1;
  for (intptr_t j = 0; j < rank; ++j) {
    bool wraps;
    if (readRowIndex(mlirOperationGetOperand(extract, 1 + j), id, source,
                     &wraps)) {
      idAt = j;
      out->wraps = wraps;
    }
  }
  if (idAt > 0) {
    embEmitRemarkf(loc,
                   "%s: gathers along dim %lld of its source, not rows "
                   "(dim 0)",
                   passName, (long long)idAt);
    return false;
  }
  if (idAt < 0) {
    // Rows read at something other than a loop: a computed row index.
    MlirValue row = embStripIntCasts(mlirOperationGetOperand(extract, 1));
    if (!embMadeBy(row, "linalg.index", NULL))
      embEmitRemarkf(loc,
                     "%s: the row index is neither the id nor its wrap by "
                     "the row count",
                     passName);
    return false;
  }
  if (!embGenericAllParallel(g)) {
    embEmitRemarkf(loc, "%s: the gather has a reduction loop", passName);
    return false;
  }
  int64_t dims[EMB_MAX_LOOPS];
  for (int64_t i = 0; i < k && i < EMB_MAX_LOOPS; ++i)
    dims[i] = i;
  if (!embIsIndexInt(mlirShapedTypeGetElementType(indexType)) || k < 1 ||
      g->numLoops != k + rank - 1 || !embMapIs(embGenericMap(g, 0), k, dims) ||
      !embMapIsIdentityOf(embGenericMap(g, 1), g->numLoops)) {
    embEmitRemarkf(loc,
                   "%s: the ids are not an i32 or i64 tensor read at the "
                   "leading loops of a result that appends the source's "
                   "row dims",
                   passName);
    return false;
  }
  for (intptr_t j = 1; j < rank; ++j)
    if (!embIsLoopIndex(mlirOperationGetOperand(extract, 1 + j), k - 1 + j)) {
      embEmitRemarkf(loc,
                     "%s: dim %lld of the source is not read at its own "
                     "loop (a transposed or strided gather)",
                     passName, (long long)j);
      return false;
    }

  int numAsserts = 0;
  for (MlirOperation b = mlirBlockGetFirstOperation(g->body);
       !mlirOperationIsNull(b); b = mlirOperationGetNextInBlock(b)) {
    if (!isGatherBodyOp(b)) {
      char name[64];
      embOpName(b, name, sizeof name);
      embEmitRemarkf(loc, "%s: its body does more than read a row ('%s')",
                     passName, name);
      return false;
    }
    if (!embOpIs(b, "cf.assert"))
      continue;
    if (!isBoundsCheck(mlirOperationGetOperand(b, 0), id, source)) {
      embEmitRemarkf(loc, "%s: it asserts something other than the id's bounds",
                     passName);
      return false;
    }
    ++numAsserts;
  }
  out->asserts = numAsserts > 0;
  return true;
}

//===----------------------------------------------------------------------===//
// Building the raised form
//===----------------------------------------------------------------------===//

/// The index tensor with negative ids wrapped by `rows`, as x[idx] does:
/// an elementwise generic select(id < 0, id + rows, id).
static MlirValue wrapNegative(MlirOperation before, MlirLocation loc,
                              MlirValue indices, int64_t rows) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType t = mlirValueGetType(indices);
  MlirType e = mlirShapedTypeGetElementType(t);
  intptr_t rank = mlirShapedTypeGetRank(t);
  int64_t same[EMB_MAX_LOOPS];
  for (intptr_t i = 0; i < rank; ++i)
    same[i] = i;
  MlirValue init = embCreateEmptyLike(before, loc, t, indices, same);

  MlirType args[] = {e, e};
  MlirLocation locs[] = {loc, loc};
  MlirBlock body = mlirBlockCreate(2, args, locs);
  MlirValue id = mlirBlockGetArgument(body, 0);
  MlirOperation yield = embAppendOp(body, loc, "linalg.yield", 0, NULL,
                                    (MlirType){NULL}, 0, NULL);
  MlirValue zero = embCreateIntConstant(yield, loc, e, 0);
  MlirValue count = embCreateIntConstant(yield, loc, e, rows);
  MlirNamedAttribute slt = embNamedAttr(
      ctx, "predicate",
      mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), EMB_CMPI_SLT));
  MlirValue cmpOperands[] = {id, zero};
  MlirValue negative = mlirOperationGetResult(
      embCreateOp(yield, loc, "arith.cmpi", 2, cmpOperands,
                  mlirIntegerTypeGet(ctx, 1), 1, &slt),
      0);
  MlirValue addOperands[] = {id, count};
  MlirValue shifted = mlirOperationGetResult(
      embCreateOp(yield, loc, "arith.addi", 2, addOperands, e, 0, NULL), 0);
  MlirValue selOperands[] = {negative, shifted, id};
  MlirValue wrapped = mlirOperationGetResult(
      embCreateOp(yield, loc, "arith.select", 3, selOperands, e, 0, NULL), 0);
  mlirOperationSetOperands(yield, 1, &wrapped);

  MlirAffineMap identity = mlirAffineMapMultiDimIdentityGet(ctx, rank);
  MlirAffineMap maps[] = {identity, identity};
  char iterators[EMB_MAX_LOOPS];
  memset(iterators, 'p', sizeof iterators);
  MlirValue operands[] = {indices, init};
  return mlirOperationGetResult(
      embCreateGeneric(before, loc, 1, 1, operands, maps, iterators, t, body),
      0);
}

/// emb.embedding_bag {mode = "none"} of the table lookup `x`.
static MlirValue lookup(MlirOperation before, MlirLocation loc, const Gather *x,
                        MlirValue indices, MlirType resultType) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType t = mlirValueGetType(indices);
  MlirType e = mlirShapedTypeGetElementType(t);
  int64_t k = x->indexRank;
  int64_t n = embNumElements(t);
  MlirValue flat = indices;
  if (k > 1) {
    int64_t group[1][EMB_MAX_LOOPS];
    for (int64_t i = 0; i < k; ++i)
      group[0][i] = i;
    group[0][k] = -1;
    flat = embCreateReshape(before, loc, "tensor.collapse_shape", indices,
                            embTensorType(1, &n, e), 1, group);
  }
  // One bag holding every id: its offsets are [0, N].
  MlirValue offsets;
  if (n >= 0) {
    int64_t values[] = {0, n};
    offsets = embCreateIntVector(before, loc, e, 2, values);
  } else {
    MlirValue count = embCreateDim(before, loc, flat, 0);
    MlirValue castOperand[] = {count};
    MlirValue parts[] = {
        embCreateIntConstant(before, loc, e, 0),
        mlirOperationGetResult(embCreateOp(before, loc, "arith.index_cast", 1,
                                           castOperand, e, 0, NULL),
                               0)};
    int64_t two = 2;
    offsets = mlirOperationGetResult(
        embCreateOp(before, loc, "tensor.from_elements", 2, parts,
                    embTensorType(1, &two, e), 0, NULL),
        0);
  }
  MlirType table = mlirValueGetType(x->source);
  int64_t shape[] = {n, embDim(table, 1)};
  MlirType flatResult =
      embTensorType(2, shape, mlirShapedTypeGetElementType(resultType));
  MlirNamedAttribute attrs[] = {
      embNamedAttr(ctx, "mode", mlirStringAttrGet(ctx, embStr("none"))),
      embNamedAttr(ctx, "bounds_check",
                   mlirStringAttrGet(ctx, embStr("fatal"))),
  };
  MlirValue operands[] = {x->source, flat, offsets};
  MlirValue rows = mlirOperationGetResult(
      embCreateOp(before, loc, EMB_OP_EMBEDDING_BAG, 3, operands, flatResult,
                  x->asserts ? 2 : 1, attrs),
      0);
  if (k == 1)
    return rows;
  int64_t groups[2][EMB_MAX_LOOPS];
  for (int64_t i = 0; i < k; ++i)
    groups[0][i] = i;
  groups[0][k] = -1;
  groups[1][0] = k;
  groups[1][1] = -1;
  return embCreateReshape(before, loc, "tensor.expand_shape", rows, resultType,
                          2, groups);
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

static bool raiseOne(MlirOperation op, const void *options) {
  (void)options;
  Gather x;
  memset(&x, 0, sizeof x);
  if (!readGather(op, &x))
    return true;
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirType sourceType = mlirValueGetType(x.source);
  MlirType resultType = mlirValueGetType(mlirOperationGetResult(op, 0));
  bool table = (x.asserts || embIsConstantTensor(x.source)) &&
               mlirShapedTypeGetRank(sourceType) == 2 &&
               embIsFloat(mlirShapedTypeGetElementType(sourceType));
  if (!table && x.indexRank != 1) {
    embEmitRemarkf(loc,
                   "%s: a broadcast takes a 1-D cand_to_user, the ids have "
                   "rank %lld",
                   passName, (long long)x.indexRank);
    return true;
  }
  int64_t rows = embDim(sourceType, 0);
  if (x.wraps && rows < 0) {
    embEmitRemarkf(loc,
                   "%s: negative ids wrap by a dynamic row count, which "
                   "the raised form cannot keep",
                   passName);
    return true;
  }
  MlirValue indices =
      x.wraps ? wrapNegative(op, loc, x.indices, rows) : x.indices;
  MlirValue raised =
      table ? lookup(op, loc, &x, indices, resultType)
            : embCreateBroadcast(op, loc, x.source, indices, resultType);
  embReplaceAndErase(op, 0, raised);
  return true;
}

static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  embRaiseNestedOps(root, pass, passName, raiseOne, options);
}

const EmbPassDef embRaiseGatherPassDef = {
    .argument = "emb-raise-gather",
    .name = "EmbRaiseGather",
    .summary = "Raise torch-mlir's row gathers into emb.embedding_bag "
               "(table lookups) or emb.broadcast",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};
