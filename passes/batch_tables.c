//===- passes/batch_tables.c - emb-batch-tables ---------------------------===//
//
// Turns several emb.embedding_bag ops over the same batch into one emb.tbe:
// one launch for all features instead of one per feature. Bags are grouped
// within one block when they agree on everything the TBE holds once:
// B (offsets has B+1 entries, static), mode, weighted or not, the id type,
// the table element type, the result element type, the per-sample weight
// type, padding_idx, bounds_check (absent means "fatal") and masked_offsets;
// mode "none" also needs one D and static index counts.
//
// For a group of F bags (in block order, feature f = the f-th bag) it emits,
// before the group's last bag:
//   - one emb.table per distinct weight (features may share a table) and
//     feature_tables mapping feature -> table;
//   - indices (and per-sample weights) concatenated with tensor.concat;
//   - feature-major offsets: each bag's offsets[0:B] shifted by the number of
//     indices of the bags before it, the last bag's offsets[0:B+1] likewise,
//     concatenated, then the 2F feature ends (the emb.tbe gets the unit
//     attribute feature_ends): where each feature's ids end in the
//     concatenated indices (the counts summed), then each bag's own last
//     offset. With static index counts the pieces are one concat shifted by
//     one dense arith.constant (two ops for any F; the ends are one more
//     constant piece, or its counts half and a one-entry slice per bag when
//     the last offsets are not constants); a bag's offsets[0:B] and its last
//     offset are read through the concat that appended the id count to
//     torch's offsets. With dynamic counts each shift is tensor.dim +
//     arith.addi + arith.index_cast + tensor.splat, and the ends a
//     tensor.from_elements of the summed counts;
//   - the emb.tbe, whose result gives each bag's result back as its column
//     slice (rows, for mode none) with tensor.extract_slice. A run of the
//     group's results, in order, along that dim in a tensor.concat becomes
//     the TBE result or one slice of it, and so does a run of their stacked
//     forms ([B, 1, D] expands along dim 1, one D), reshaped to [B, k, D].
//
// A bag joins a group only if no bag already in the group is used before it,
// so that the TBE, placed at the last bag, dominates every use, and no op
// that updates operands in place (embUpdatesInPlace: emb.tbe_backward,
// emb.embedding_bag_backward) lies between them: it may update a table of
// the group, which the TBE would then read after the update.
//
// Why the feature ends. Each bag checks its own offsets: the first is 0,
// none decreases, the last is its id count (EMBRT_OUT_OF_RANGE otherwise).
// The concatenated offsets alone cannot say the same: a feature's last
// offset is dropped (the next feature's first takes its slot), and an
// offsets[0] of 1 only shifts where the feature starts, so a feature whose
// offsets are wrong would pool another feature's ids without an error. The
// check needs, per feature, two numbers the concatenation does not hold:
// where its ids truly end (from the shapes, which the data cannot fake) and
// its own last offset (the data). They travel in the same offsets tensor,
// behind the F*B+1 offsets, so the TBE keeps its operands and its one
// launch, and the runtime checks each feature as its bag did, on both
// targets, in the lookup itself (the GPU through the device error record,
// with no host sync). Checking in IR instead would need a host read of the
// offsets or a kernel for the GPU's cf.assert, which it has not; keeping
// the bags apart would give up batching, since offsets[0] is always data.
//
// Preconditions: the IR verifies. Postconditions: the grouped bags and the
// concats of their results are gone; other bags are left alone (a group of
// one stays a bag). The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "linalg_match.h"
#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Bags and groups
//===----------------------------------------------------------------------===//

/// What must agree for bags to share one emb.tbe.
typedef struct {
  int64_t batch; ///< B
  char mode[8];
  char boundsCheck[16]; ///< "fatal" when absent
  MlirType indexElement, tableElement, resultElement;
  MlirType weightElement; ///< per-sample weights' type; null if unweighted
  bool hasPadding;
  int64_t padding;
  int64_t noneDim; ///< mode none: the common D; -1 otherwise
  bool masked;     ///< masked_offsets
} Key;

/// One bag of a group.
typedef struct {
  MlirOperation op;
  int64_t dim;        ///< D, static
  int64_t numIndices; ///< N, -1 if dynamic
} Bag;

typedef struct {
  Key key;
  Bag *bags;
  size_t size, capacity;
  bool explicitBoundsCheck; ///< some bag spelled bounds_check
  MlirOperation firstUse;   ///< the earliest op of the block using a bag
  bool closed;
} Group;

static bool sameKey(const Key *a, const Key *b) {
  return a->batch == b->batch && strcmp(a->mode, b->mode) == 0 &&
         strcmp(a->boundsCheck, b->boundsCheck) == 0 &&
         mlirTypeEqual(a->indexElement, b->indexElement) &&
         mlirTypeEqual(a->tableElement, b->tableElement) &&
         mlirTypeEqual(a->resultElement, b->resultElement) &&
         mlirTypeIsNull(a->weightElement) == mlirTypeIsNull(b->weightElement) &&
         (mlirTypeIsNull(a->weightElement) ||
          mlirTypeEqual(a->weightElement, b->weightElement)) &&
         a->hasPadding == b->hasPadding &&
         (!a->hasPadding || a->padding == b->padding) &&
         a->noneDim == b->noneDim && a->masked == b->masked;
}

static MlirType elementOf(MlirValue v) {
  return mlirShapedTypeGetElementType(mlirValueGetType(v));
}

/// Fills `key` and `bag` for `op`; false if the bag cannot join a TBE.
static bool describe(MlirOperation op, Key *key, Bag *bag) {
  intptr_t n = mlirOperationGetNumOperands(op);
  if (n < 3 || n > 4 || mlirOperationGetNumResults(op) != 1)
    return false;
  MlirType w = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirType idx = mlirValueGetType(mlirOperationGetOperand(op, 1));
  MlirType off = mlirValueGetType(mlirOperationGetOperand(op, 2));
  MlirType res = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (!mlirTypeIsARankedTensor(w) || !mlirTypeIsARankedTensor(idx) ||
      !mlirTypeIsARankedTensor(off) || !mlirTypeIsARankedTensor(res) ||
      !embIsStatic(res))
    return false;
  *bag = (Bag){op, embDim(w, 1), embDim(idx, 0)};
  if (bag->dim < 1 || bag->dim > EMB_MAX_TABLE_DIM || embDim(off, 0) < 2)
    return false;
  memset(key, 0, sizeof *key);
  key->batch = embDim(off, 0) - 1;
  if (!embGetStringAttr(op, "mode", key->mode, sizeof key->mode))
    return false;
  if (!embGetStringAttr(op, "bounds_check", key->boundsCheck,
                        sizeof key->boundsCheck))
    strcpy(key->boundsCheck, "fatal");
  key->indexElement = mlirShapedTypeGetElementType(idx);
  key->tableElement = mlirShapedTypeGetElementType(w);
  key->resultElement = mlirShapedTypeGetElementType(res);
  key->weightElement =
      n == 4 ? elementOf(mlirOperationGetOperand(op, 3)) : (MlirType){NULL};
  key->hasPadding = embGetIntAttr(op, "padding_idx", &key->padding);
  key->masked = !mlirAttributeIsNull(
      mlirOperationGetAttributeByName(op, embStr(EMB_ATTR_MASKED_OFFSETS)));
  key->noneDim = -1;
  if (strcmp(key->mode, "none") == 0) {
    if (bag->numIndices < 0)
      return false;
    key->noneDim = bag->dim;
  }
  return true;
}

/// The ancestor of `op` that lies in `block`, or a null op.
static MlirOperation ancestorIn(MlirOperation op, MlirBlock block) {
  while (!mlirOperationIsNull(op) &&
         !mlirBlockEqual(mlirOperationGetBlock(op), block))
    op = mlirOperationGetParentOperation(op);
  return op;
}

/// Lowers `*first` to the earliest op of the block that uses `op`'s result.
/// A use outside the block (impossible in valid IR) counts as `op` itself,
/// which closes any group.
static void noteFirstUse(MlirOperation op, MlirBlock block,
                         MlirOperation *first) {
  MlirValue v = mlirOperationGetResult(op, 0);
  for (MlirOpOperand use = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = ancestorIn(mlirOpOperandGetOwner(use), block);
    if (mlirOperationIsNull(user))
      user = op;
    if (mlirOperationIsNull(*first) ||
        mlirOperationIsBeforeInBlock(user, *first))
      *first = user;
  }
}

static bool pushBag(Group *g, Bag bag) {
  if (g->size == g->capacity) {
    size_t capacity = g->capacity ? g->capacity * 2 : 8;
    Bag *grown = realloc(g->bags, capacity * sizeof *grown);
    if (!grown)
      return false;
    g->bags = grown;
    g->capacity = capacity;
  }
  g->bags[g->size++] = bag;
  return true;
}

//===----------------------------------------------------------------------===//
// Emitting one group's emb.tbe
//===----------------------------------------------------------------------===//

/// Where and for which group new IR is made: before the group's last bag,
/// at the bags' fused location.
typedef struct {
  MlirOperation before;
  MlirLocation loc;
  MlirContext ctx;
  const Group *g;
} Emitter;

static MlirValue createBinary(Emitter *e, const char *name, MlirValue a,
                              MlirValue b) {
  MlirValue operands[] = {a, b};
  return mlirOperationGetResult(embCreateOp(e->before, e->loc, name, 2,
                                            operands, mlirValueGetType(a), 0,
                                            NULL),
                                0);
}

/// `tensor<len x iT>` holding `staticPart` + `dynamicPart` (an index, or a
/// null value) in every element.
static MlirValue createShift(Emitter *e, int64_t len, int64_t staticPart,
                             MlirValue dynamicPart) {
  MlirType it = e->g->key.indexElement;
  MlirType type = embTensorType(1, &len, it);
  if (mlirValueIsNull(dynamicPart))
    return embCreateSplatConstant(e->before, e->loc, type,
                                  mlirIntegerAttrGet(it, staticPart));
  MlirValue total = dynamicPart;
  if (staticPart != 0)
    total = createBinary(e, "arith.addi", total,
                         embCreateIndexConstant(e->before, e->loc, staticPart));
  MlirValue scalar =
      mlirOperationGetResult(embCreateOp(e->before, e->loc, "arith.index_cast",
                                         1, &total, it, 0, NULL),
                             0);
  return mlirOperationGetResult(
      embCreateOp(e->before, e->loc, "tensor.splat", 1, &scalar, type, 0, NULL),
      0);
}

/// offsets[0:B] of a bag: the first operand itself when the offsets are a
/// concat along dim 0 that starts with exactly those B entries (torch's
/// offsets with the id count appended, as emb-raise-embedding-bag makes
/// them), else a slice.
static MlirValue firstOffsets(Emitter *e, MlirValue off, int64_t batch) {
  MlirOperation concat;
  int64_t dim;
  if (embMadeBy(off, "tensor.concat", &concat) &&
      embGetIntAttr(concat, "dim", &dim) && dim == 0) {
    MlirValue first = mlirOperationGetOperand(concat, 0);
    if (embDim(mlirValueGetType(first), 0) == batch)
      return first;
  }
  return embCreateSliceAlong(e->before, e->loc, off, 0, 0, batch);
}

/// The integer `*value` of a one-element integer constant `v`; false
/// otherwise.
static bool constantScalar(MlirValue v, int64_t *value) {
  MlirOperation def;
  if (!embMadeBy(v, "arith.constant", &def) ||
      embDim(mlirValueGetType(v), 0) != 1)
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(def, embStr("value"));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseIntElements(a))
    return false;
  if (mlirDenseElementsAttrIsSplat(a)) {
    MlirAttribute x = mlirDenseElementsAttrGetSplatValue(a);
    if (!mlirAttributeIsAInteger(x))
      return false;
    *value = mlirIntegerAttrGetValueInt(x);
    return true;
  }
  MlirType e = mlirShapedTypeGetElementType(mlirValueGetType(v));
  if (!mlirTypeIsAInteger(e))
    return false;
  *value = mlirIntegerTypeGetWidth(e) == 32
               ? mlirDenseElementsAttrGetInt32Value(a, 0)
               : mlirDenseElementsAttrGetInt64Value(a, 0);
  return true;
}

/// A bag's own last offset, offsets[B:B+1]: the piece that ends its
/// offsets when they are a concat along dim 0 (torch's offsets with the id
/// count appended, as emb-raise-embedding-bag makes them), else a slice.
static MlirValue lastOffset(Emitter *e, MlirValue off, int64_t batch) {
  MlirOperation concat;
  int64_t dim;
  if (embMadeBy(off, "tensor.concat", &concat) &&
      embGetIntAttr(concat, "dim", &dim) && dim == 0) {
    MlirValue last = mlirOperationGetOperand(
        concat, mlirOperationGetNumOperands(concat) - 1);
    if (embDim(mlirValueGetType(last), 0) == 1)
      return last;
  }
  return embCreateSliceAlong(e->before, e->loc, off, 0, batch, 1);
}

/// Appends to `pieces` (room for F + 1 more) the group's 2F feature ends
/// (EMB_ATTR_FEATURE_ENDS): where each feature's ids end in the
/// concatenated indices (the id counts summed, static or through
/// tensor.dim), then each bag's own last offset. When all of them are
/// constants (static counts, torch's offsets with the count appended) they
/// are one dense constant. The lookup checks each feature's offsets against
/// them: its first is 0 and its last is its id count, as its bag checked.
/// False if memory ran out.
static bool appendFeatureEnds(Emitter *e, MlirValue *pieces,
                              intptr_t *numPieces) {
  const Group *g = e->g;
  size_t n = g->size;
  MlirType it = g->key.indexElement;
  int64_t *values = malloc(2 * n * sizeof *values);
  MlirValue *lasts = malloc(n * sizeof *lasts);
  MlirValue *scalars = malloc(n * sizeof *scalars);
  if (!values || !lasts || !scalars) {
    free(values);
    free(lasts);
    free(scalars);
    return false;
  }
  bool countsStatic = true, lastsConstant = true;
  int64_t staticEnd = 0;
  for (size_t f = 0; f < n; ++f) {
    lasts[f] =
        lastOffset(e, mlirOperationGetOperand(g->bags[f].op, 2), g->key.batch);
    lastsConstant &= constantScalar(lasts[f], &values[n + f]);
    countsStatic &= g->bags[f].numIndices >= 0;
    staticEnd += g->bags[f].numIndices >= 0 ? g->bags[f].numIndices : 0;
    values[f] = staticEnd;
  }
  int64_t len = (int64_t)n;
  if (countsStatic) {
    pieces[(*numPieces)++] = embCreateIntVector(
        e->before, e->loc, it, lastsConstant ? 2 * len : len, values);
  } else {
    // The ends as index values, cast and gathered by tensor.from_elements.
    MlirValue dynamicEnd = {NULL};
    staticEnd = 0;
    for (size_t f = 0; f < n; ++f) {
      int64_t count = g->bags[f].numIndices;
      if (count >= 0) {
        staticEnd += count;
      } else {
        MlirValue dim = embCreateDim(
            e->before, e->loc, mlirOperationGetOperand(g->bags[f].op, 1), 0);
        dynamicEnd = mlirValueIsNull(dynamicEnd)
                         ? dim
                         : createBinary(e, "arith.addi", dynamicEnd, dim);
      }
      MlirValue end = dynamicEnd;
      if (mlirValueIsNull(end) || staticEnd != 0) {
        end = embCreateIndexConstant(e->before, e->loc, staticEnd);
        if (!mlirValueIsNull(dynamicEnd))
          end = createBinary(e, "arith.addi", dynamicEnd, end);
      }
      scalars[f] = mlirOperationGetResult(embCreateOp(e->before, e->loc,
                                                      "arith.index_cast", 1,
                                                      &end, it, 0, NULL),
                                          0);
    }
    pieces[(*numPieces)++] = mlirOperationGetResult(
        embCreateOp(e->before, e->loc, "tensor.from_elements", (intptr_t)n,
                    scalars, embTensorType(1, &len, it), 0, NULL),
        0);
  }
  if (!countsStatic || !lastsConstant)
    for (size_t f = 0; f < n; ++f)
      pieces[(*numPieces)++] = lasts[f];
  free(values);
  free(lasts);
  free(scalars);
  return true;
}

/// The feature-major offsets of the group, [F*B+1], followed by its 2F
/// feature ends (appendFeatureEnds). With every count static, the pieces
/// (each bag's offsets[0:B], the last bag's [0:B+1], the ends) concatenated
/// and shifted by one dense constant (bag f's entries by the ids of the bags
/// before it, the ends by 0): two ops whatever F is, three with a
/// tensor.from_elements of the ends when a count is dynamic. Null if memory
/// ran out.
static MlirValue createOffsets(Emitter *e) {
  const Group *g = e->g;
  int64_t batch = g->key.batch, staticBase = 0;
  int64_t numEnds = 2 * (int64_t)g->size;
  // Each bag's piece, the last bag's (up to 4), the ends (up to F + 1).
  MlirValue *pieces = malloc((2 * g->size + 5) * sizeof *pieces);
  if (!pieces)
    return (MlirValue){NULL};
  intptr_t numPieces = 0;
  bool allStatic = true;
  for (size_t f = 0; f + 1 < g->size; ++f)
    allStatic &= g->bags[f].numIndices >= 0;
  int64_t n = (int64_t)g->size * batch + 1 + numEnds;
  int64_t *shifts = allStatic ? calloc((size_t)n, sizeof(int64_t)) : NULL;
  if (shifts) {
    for (size_t f = 0; f < g->size; ++f) {
      MlirValue off = mlirOperationGetOperand(g->bags[f].op, 2);
      bool last = f + 1 == g->size;
      MlirOperation concat;
      int64_t dim = -1;
      if (!last) {
        pieces[numPieces++] = firstOffsets(e, off, batch);
      } else if (embMadeBy(off, "tensor.concat", &concat) &&
                 embGetIntAttr(concat, "dim", &dim) && dim == 0 &&
                 mlirOperationGetNumOperands(concat) <= 4) {
        // The last offsets' own pieces (torch's offsets and the count), in
        // one concat with the others (`pieces` has room for 4).
        for (intptr_t i = 0, m = mlirOperationGetNumOperands(concat); i < m;
             ++i)
          pieces[numPieces++] = mlirOperationGetOperand(concat, i);
      } else {
        pieces[numPieces++] = off;
      }
      for (int64_t b = 0; b < (last ? batch + 1 : batch); ++b)
        shifts[(int64_t)f * batch + b] = staticBase;
      staticBase += g->bags[f].numIndices;
    }
    MlirValue result = {NULL};
    if (appendFeatureEnds(e, pieces, &numPieces)) {
      MlirValue all = embCreateConcat(e->before, e->loc, 0, numPieces, pieces);
      MlirValue shift =
          embCreateIntVector(e->before, e->loc, g->key.indexElement, n, shifts);
      result = createBinary(e, "arith.addi", all, shift);
    }
    free(shifts);
    free(pieces);
    return result;
  }
  MlirValue dynamicBase = {NULL};
  staticBase = 0;
  for (size_t f = 0; f < g->size; ++f) {
    MlirOperation bag = g->bags[f].op;
    MlirValue off = mlirOperationGetOperand(bag, 2);
    bool last = f + 1 == g->size;
    int64_t len = last ? batch + 1 : batch;
    MlirValue piece = last ? off : firstOffsets(e, off, batch);
    if (staticBase != 0 || !mlirValueIsNull(dynamicBase))
      piece = createBinary(e, "arith.addi", piece,
                           createShift(e, len, staticBase, dynamicBase));
    pieces[numPieces++] = piece;
    if (last)
      break;
    if (g->bags[f].numIndices >= 0) {
      staticBase += g->bags[f].numIndices;
      continue;
    }
    MlirValue count =
        embCreateDim(e->before, e->loc, mlirOperationGetOperand(bag, 1), 0);
    dynamicBase = mlirValueIsNull(dynamicBase)
                      ? count
                      : createBinary(e, "arith.addi", dynamicBase, count);
  }
  MlirValue result = {NULL};
  if (appendFeatureEnds(e, pieces, &numPieces))
    result = embCreateConcat(e->before, e->loc, 0, numPieces, pieces);
  free(pieces);
  return result;
}

/// The operand `i` of every bag, concatenated along dim 0.
static MlirValue concatOperands(Emitter *e, intptr_t i, MlirValue *scratch) {
  for (size_t f = 0; f < e->g->size; ++f)
    scratch[f] = mlirOperationGetOperand(e->g->bags[f].op, i);
  return embCreateConcat(e->before, e->loc, 0, (intptr_t)e->g->size, scratch);
}

/// An emb.table of `weight` in the block of `before` and before it (made by
/// the user or for an earlier group), or a null op. Handles cannot be CSE'd
/// (IRDL ops have no traits), so they are reused here.
static MlirOperation existingTable(MlirValue weight, MlirOperation before) {
  MlirBlock block = mlirOperationGetBlock(before);
  for (MlirOpOperand use = mlirValueGetFirstUse(weight);
       !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (embOpIs(user, EMB_OP_TABLE) &&
        mlirBlockEqual(mlirOperationGetBlock(user), block) &&
        mlirOperationIsBeforeInBlock(user, before))
      return user;
  }
  return (MlirOperation){NULL};
}

/// Creates the emb.table handles and the emb.tbe; returns its result.
static MlirValue createTbe(Emitter *e, MlirValue *scratch,
                           int64_t *featureTables) {
  const Group *g = e->g;
  MlirType handleType = mlirTypeParseGet(e->ctx, embStr("!emb.table_handle"));
  // Operands: indices, offsets, handles..., per-sample weights?
  MlirValue *operands = scratch;
  intptr_t numTables = 0;
  MlirValue *tables = scratch + g->size + 3;
  for (size_t f = 0; f < g->size; ++f) {
    MlirValue w = mlirOperationGetOperand(g->bags[f].op, 0);
    intptr_t t = 0;
    while (t < numTables && !mlirValueEqual(tables[t], w))
      ++t;
    if (t == numTables)
      tables[numTables++] = w;
    featureTables[f] = t;
  }
  for (intptr_t t = 0; t < numTables; ++t) {
    MlirOperation table = existingTable(tables[t], e->before);
    if (mlirOperationIsNull(table))
      table = embCreateOp(e->before, e->loc, EMB_OP_TABLE, 1, &tables[t],
                          handleType, 0, NULL);
    operands[2 + t] = mlirOperationGetResult(table, 0);
  }
  MlirValue *tmp = scratch + 2 * (g->size + 3);
  operands[0] = concatOperands(e, 1, tmp);
  operands[1] = createOffsets(e);
  if (mlirValueIsNull(operands[1]))
    return operands[1];
  bool weighted = !mlirTypeIsNull(g->key.weightElement);
  if (weighted)
    operands[2 + numTables] = concatOperands(e, 3, tmp);

  int64_t shape[2] = {g->key.batch, 0};
  for (size_t f = 0; f < g->size; ++f)
    shape[1] += g->bags[f].dim;
  if (g->key.noneDim >= 0) {
    shape[0] = 0;
    for (size_t f = 0; f < g->size; ++f)
      shape[0] += g->bags[f].numIndices;
    shape[1] = g->key.noneDim;
  }
  int32_t segments[] = {1, 1, (int32_t)numTables, weighted ? 1 : 0};
  MlirNamedAttribute attrs[7];
  intptr_t numAttrs = 0;
  attrs[numAttrs++] = embNamedAttr(
      e->ctx, "pooling", mlirStringAttrGet(e->ctx, embStr(g->key.mode)));
  attrs[numAttrs++] = embNamedAttr(
      e->ctx, "feature_tables",
      mlirDenseI64ArrayGet(e->ctx, (intptr_t)g->size, featureTables));
  attrs[numAttrs++] = embNamedAttr(e->ctx, "operandSegmentSizes",
                                   mlirDenseI32ArrayGet(e->ctx, 4, segments));
  attrs[numAttrs++] =
      embNamedAttr(e->ctx, EMB_ATTR_FEATURE_ENDS, mlirUnitAttrGet(e->ctx));
  if (g->key.hasPadding)
    attrs[numAttrs++] = embNamedAttr(
        e->ctx, "padding_idx",
        mlirIntegerAttrGet(mlirIntegerTypeGet(e->ctx, 64), g->key.padding));
  if (g->explicitBoundsCheck)
    attrs[numAttrs++] =
        embNamedAttr(e->ctx, "bounds_check",
                     mlirStringAttrGet(e->ctx, embStr(g->key.boundsCheck)));
  if (g->key.masked)
    attrs[numAttrs++] =
        embNamedAttr(e->ctx, EMB_ATTR_MASKED_OFFSETS, mlirUnitAttrGet(e->ctx));
  MlirType type = embTensorType(2, shape, g->key.resultElement);
  MlirOperation tbe =
      embCreateOp(e->before, e->loc, EMB_OP_TBE, 2 + numTables + weighted,
                  operands, type, numAttrs, attrs);
  return mlirOperationGetResult(tbe, 0);
}

//===----------------------------------------------------------------------===//
// Giving the results back
//===----------------------------------------------------------------------===//

/// Bag f's part of the TBE result along `sliceDim`: [start, start + size).
static void partOf(const Group *g, size_t f, int64_t *start, int64_t *size) {
  bool none = g->key.noneDim >= 0;
  *start = 0;
  for (size_t i = 0; i < f; ++i)
    *start += none ? g->bags[i].numIndices : g->bags[i].dim;
  *size = none ? g->bags[f].numIndices : g->bags[f].dim;
}

/// The index of the bag whose result is `v`, or -1.
static intptr_t bagOf(const Group *g, MlirValue v) {
  if (!mlirValueIsAOpResult(v))
    return -1;
  MlirOperation def = mlirOpResultGetOwner(v);
  for (size_t f = 0; f < g->size; ++f)
    if (mlirOperationEqual(g->bags[f].op, def))
      return (intptr_t)f;
  return -1;
}

/// If `v` is bag f's result (`*stacked` false) or, for pooled bags, a
/// tensor.expand_shape of it that adds a unit dim after the batch ([B, D]
/// to [B, 1, D]: `*stacked` true, a feature of torch.stack(bags, 1)), f;
/// else -1.
static intptr_t pieceOf(const Group *g, MlirValue v, bool *stacked) {
  static const int64_t unit[][EMB_MAX_LOOPS] = {{0, -1}, {1, 2, -1}};
  MlirValue src;
  *stacked = g->key.noneDim < 0 &&
             embReadReshape(v, "tensor.expand_shape", 2, unit, &src) &&
             embDim(mlirValueGetType(v), 1) == 1;
  return bagOf(g, *stacked ? src : v);
}

/// Replaces, in `concat`, every run of two or more of the group's results
/// in order (along the TBE's slice dim), or of their stacked forms (along
/// dim 1, one D), by one slice of the TBE result (the result itself for
/// all of them), reshaped to [B, k, D] for a stacked run; the concat goes
/// when one run is all it joins.
static void replaceConcat(Emitter *e, MlirOperation concat, MlirValue tbe) {
  const Group *g = e->g;
  int64_t sliceDim = g->key.noneDim >= 0 ? 0 : 1, dim = -1;
  if (!embGetIntAttr(concat, "dim", &dim))
    return;
  intptr_t m = mlirOperationGetNumOperands(concat);
  MlirValue *operands = malloc((size_t)m * sizeof(MlirValue));
  if (!operands)
    return;
  intptr_t n = 0;
  bool changed = false;
  for (intptr_t j = 0; j < m;) {
    bool stacked, next;
    intptr_t r = pieceOf(g, mlirOperationGetOperand(concat, j), &stacked);
    intptr_t k = 1;
    if (r >= 0 && dim == (stacked ? 1 : sliceDim))
      while (
          j + k < m && r + k < (intptr_t)g->size &&
          pieceOf(g, mlirOperationGetOperand(concat, j + k), &next) == r + k &&
          next == stacked && (!stacked || g->bags[r + k].dim == g->bags[r].dim))
        ++k;
    if (k < 2) {
      operands[n++] = mlirOperationGetOperand(concat, j++);
      continue;
    }
    int64_t start, size, lastStart, lastSize;
    partOf(g, (size_t)r, &start, &size);
    partOf(g, (size_t)(r + k - 1), &lastStart, &lastSize);
    MlirValue run =
        (r == 0 && k == (intptr_t)g->size)
            ? tbe
            : embCreateSliceAlong(e->before, e->loc, tbe, sliceDim, start,
                                  lastStart + lastSize - start);
    if (stacked) {
      static const int64_t split[][EMB_MAX_LOOPS] = {{0, -1}, {1, 2, -1}};
      int64_t shape[] = {g->key.batch, k, g->bags[r].dim};
      run = embCreateReshape(e->before, e->loc, "tensor.expand_shape", run,
                             embTensorType(3, shape, g->key.resultElement), 2,
                             split);
    }
    operands[n++] = run;
    changed = true;
    j += k;
  }
  if (changed) {
    MlirValue result = mlirOperationGetResult(concat, 0);
    MlirValue joined =
        n == 1 ? operands[0]
               : embCreateConcat(e->before, e->loc, dim, n, operands);
    if (mlirTypeEqual(mlirValueGetType(joined), mlirValueGetType(result))) {
      MlirValue *old = malloc((size_t)m * sizeof(MlirValue));
      for (intptr_t j = 0; old && j < m; ++j)
        old[j] = mlirOperationGetOperand(concat, j);
      embReplaceOp(concat, joined);
      if (old)
        embEraseDeadProducers(m, old); // the stacked pieces' reshapes
      free(old);
    } else if (!mlirValueEqual(joined, tbe)) {
      embEraseDeadChain(mlirOpResultGetOwner(joined));
    }
  }
  free(operands);
}

/// Replaces the concats of the group's results, then every other use of a
/// bag by its slice, and erases the bags.
static bool giveBack(Emitter *e, MlirValue tbe) {
  const Group *g = e->g;
  EmbOpList concats = {NULL, 0, 0};
  for (size_t f = 0; f < g->size; ++f) {
    MlirValue v = mlirOperationGetResult(g->bags[f].op, 0);
    for (MlirOpOperand use = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(use);
         use = mlirOpOperandGetNextUse(use)) {
      MlirOperation user = mlirOpOperandGetOwner(use);
      // A stacked feature: its reshape's one user.
      MlirOperation stacker;
      if (embOpIs(user, "tensor.expand_shape") &&
          embSingleUser(mlirOperationGetResult(user, 0), &stacker))
        user = stacker;
      if (!embOpIs(user, "tensor.concat"))
        continue;
      bool seen = false;
      for (size_t i = 0; i < concats.size && !seen; ++i)
        seen = mlirOperationEqual(concats.ops[i], user);
      if (!seen && !embOpListPush(&concats, user)) {
        embOpListFree(&concats);
        return false;
      }
    }
  }
  for (size_t i = 0; i < concats.size; ++i)
    replaceConcat(e, concats.ops[i], tbe);
  embOpListFree(&concats);

  int64_t sliceDim = g->key.noneDim >= 0 ? 0 : 1;
  for (size_t f = 0; f < g->size; ++f) {
    MlirOperation bag = g->bags[f].op;
    // What only the bag read (its offsets with the count appended, which
    // the TBE's offsets read through) goes with it.
    MlirValue operands[4];
    intptr_t n = mlirOperationGetNumOperands(bag);
    for (intptr_t i = 0; i < n && i < 4; ++i)
      operands[i] = mlirOperationGetOperand(bag, i);
    if (embHasUses(mlirOperationGetResult(bag, 0))) {
      int64_t start, size;
      partOf(g, f, &start, &size);
      embReplaceOp(bag, embCreateSliceAlong(e->before, e->loc, tbe, sliceDim,
                                            start, size));
    } else {
      mlirOperationDestroy(bag);
    }
    embEraseDeadProducers(n < 4 ? n : 4, operands);
  }
  return true;
}

/// True if the group's offsets fit its id type: the static counts sum to at
/// most 2^31-1 indices for i32 ids, 2^63-1 for i64 (a sum past that, found
/// by emb-fuzz, overflowed; such bags stay as they are).
static bool offsetsFit(const Group *g) {
  int64_t limit = mlirIntegerTypeGetWidth(g->key.indexElement) == 32
                      ? INT32_MAX
                      : INT64_MAX;
  int64_t total = 0;
  for (size_t f = 0; f < g->size; ++f) {
    int64_t n = g->bags[f].numIndices;
    if (n <= 0)
      continue;
    if (n > limit - total)
      return false;
    total += n;
  }
  return true;
}

/// Emits the group's emb.tbe and replaces its bags; false if memory ran
/// out.
static bool emitGroup(MlirContext ctx, const Group *g) {
  if (g->size < 2 || !offsetsFit(g))
    return true;
  size_t n = g->size;
  MlirValue *scratch = malloc((3 * (n + 3)) * sizeof *scratch);
  int64_t *featureTables = malloc(n * sizeof *featureTables);
  MlirLocation *locs = malloc(n * sizeof *locs);
  bool ok = scratch && featureTables && locs;
  if (ok) {
    for (size_t f = 0; f < n; ++f)
      locs[f] = mlirOperationGetLocation(g->bags[f].op);
    Emitter e = {
        g->bags[n - 1].op,
        mlirLocationFusedGet(ctx, (intptr_t)n, locs, mlirAttributeGetNull()),
        ctx, g};
    MlirValue tbe = createTbe(&e, scratch, featureTables);
    ok = !mlirValueIsNull(tbe) && giveBack(&e, tbe);
  }
  free(scratch);
  free(featureTables);
  free(locs);
  return ok;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

typedef struct {
  Group *groups;
  size_t size, capacity;
} Groups;

static void freeGroups(Groups *gs) {
  for (size_t i = 0; i < gs->size; ++i)
    free(gs->groups[i].bags);
  free(gs->groups);
}

/// Adds the bag `op` to its open group, or opens a new one; false if memory
/// ran out.
static bool addBag(Groups *gs, MlirBlock block, MlirOperation op) {
  Key key;
  Bag bag;
  if (!describe(op, &key, &bag))
    return true;
  Group *g = NULL;
  for (size_t i = 0; i < gs->size && !g; ++i)
    if (!gs->groups[i].closed && sameKey(&gs->groups[i].key, &key))
      g = &gs->groups[i];
  // The TBE goes where the last bag is: no bag of the group may be used
  // before that.
  if (g && !mlirOperationIsNull(g->firstUse) &&
      !mlirOperationIsBeforeInBlock(op, g->firstUse)) {
    g->closed = true;
    g = NULL;
  }
  if (!g) {
    if (gs->size == gs->capacity) {
      size_t capacity = gs->capacity ? gs->capacity * 2 : 8;
      Group *grown = realloc(gs->groups, capacity * sizeof *grown);
      if (!grown)
        return false;
      gs->groups = grown;
      gs->capacity = capacity;
    }
    g = &gs->groups[gs->size++];
    *g = (Group){.key = key};
  }
  g->explicitBoundsCheck |= !mlirAttributeIsNull(
      mlirOperationGetAttributeByName(op, embStr("bounds_check")));
  noteFirstUse(op, block, &g->firstUse);
  return pushBag(g, bag);
}

static bool batchBlock(MlirContext ctx, MlirBlock block) {
  Groups gs = {NULL, 0, 0};
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       ok && !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    if (embOpIs(op, EMB_OP_EMBEDDING_BAG))
      ok = addBag(&gs, block, op);
    else if (embUpdatesInPlace(op))
      for (size_t i = 0; i < gs.size; ++i)
        gs.groups[i].closed = true;
  for (size_t i = 0; ok && i < gs.size; ++i)
    ok = emitGroup(ctx, &gs.groups[i]);
  freeGroups(&gs);
  return ok;
}

/// The distinct blocks that hold an emb.embedding_bag, in pre-order.
typedef struct {
  MlirBlock *blocks;
  size_t size, capacity;
  bool failed;
} Blocks;

static MlirWalkResult collectBlock(MlirOperation op, void *userData) {
  Blocks *bs = userData;
  if (!embOpIs(op, EMB_OP_EMBEDDING_BAG))
    return MlirWalkResultAdvance;
  MlirBlock block = mlirOperationGetBlock(op);
  for (size_t i = bs->size; i > 0; --i)
    if (mlirBlockEqual(bs->blocks[i - 1], block))
      return MlirWalkResultAdvance;
  if (bs->size == bs->capacity) {
    size_t capacity = bs->capacity ? bs->capacity * 2 : 16;
    MlirBlock *grown = realloc(bs->blocks, capacity * sizeof *grown);
    if (!grown) {
      bs->failed = true;
      return MlirWalkResultInterrupt;
    }
    bs->blocks = grown;
    bs->capacity = capacity;
  }
  bs->blocks[bs->size++] = block;
  return MlirWalkResultAdvance;
}

static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  (void)options;
  // Blocks first: batching a block erases its bags.
  Blocks bs = {NULL, 0, 0, false};
  mlirOperationWalk(root, collectBlock, &bs, MlirWalkPreOrder);
  MlirContext ctx = mlirOperationGetContext(root);
  bool ok = !bs.failed;
  for (size_t i = 0; ok && i < bs.size; ++i)
    ok = batchBlock(ctx, bs.blocks[i]);
  free(bs.blocks);
  if (!ok) {
    embEmitErrorf(mlirOperationGetLocation(root),
                  "emb-batch-tables: out of memory");
    mlirExternalPassSignalFailure(pass);
  }
}

const EmbPassDef embBatchTablesPassDef = {
    .argument = "emb-batch-tables",
    .name = "EmbBatchTables",
    .summary = "Batch emb.embedding_bag ops over one batch into one emb.tbe",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};

MlirPass embCreateBatchTablesPass(void) {
  return embMakePass(&embBatchTablesPassDef, NULL);
}
