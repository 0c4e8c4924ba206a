//===- passes/raise_embedding_bag.c - emb-raise-embedding-bag -------------===//
//
// Raises torch-mlir's embedding bags into emb.embedding_bag.
//
// Sum. `aten._embedding_bag` and `aten.embedding_bag.padding_idx` lower, in
// sum mode with include_last_offset=False only, to one masked-select
// linalg.generic over (bag b, id j, column d): inputs indices[N] read at j
// and offsets[B] read at b, init a zero fill [B,D], loops (parallel,
// reduction, parallel); its body reads `weight[indices[j], d]` from a
// weight captured from above, and adds it to the accumulator only where
// `offsets[b] <= j < next`, with next = offsets[b+1], or N for the last bag
// (`b + 1 == B`: the bag count and the id count are constants of the body,
// read from the shapes). Its meaning is in that body, which is checked op
// by op: the row read, the add, the mask's two bounds against the right
// loops, the last bag's end. It becomes
// `emb.embedding_bag(weight, indices, offsets ++ [N]) {mode = "sum"}` (emb's
// offsets have B+1 entries). TorchRec's offsets (include_last_offset=True,
// which torch-mlir does not lower) reach it as offsets[:-1], a slice that
// is raised like any other offsets tensor.
//
// torch-mlir drops padding_idx and per_sample_weights when it lowers, so
// its own body has neither; a body that keeps them is raised too. An extra
// `id != P` in the mask gives padding_idx = P, for a constant P that is a
// row of the table (the body reads the padding id's row before its mask
// drops it, so an id P outside the table fails there, where
// emb.embedding_bag would skip it). A third input read at j that multiplies
// the row before the add, `weight[indices[j], d] * psw[j]`, gives the
// per-sample weights.
//
// Mean. torch-mlir does not lower mean mode; a model writes it as the sum
// divided by the bag lengths clamped to at least 1:
// `sum / (offsets ++ [N]).diff().clamp(min=1).unsqueeze(1)`. A divf generic
// whose numerator is a raised sum and whose denominator is proven to be
// float(max(ext[b+1] - ext[b], 1)) for ext = offsets ++ [N] (the slices,
// subtraction, clamp and conversion read through the elementwise generics
// that compute them, in either order of clamp and conversion) becomes
// `emb.embedding_bag {mode = "mean"}`. A sum with padding_idx is not made a
// mean: its lengths would have to skip padding ids.
//
// Preconditions: none. Postconditions: the forms above are raised; a
// generic with the embedding bag's loops and maps whose body computes
// something else (a max, a third input that does not scale the row, a
// padding id that is not a constant row of the table) is left alone with a
// remark. The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "linalg_match.h"
#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <string.h>

static const char passName[] = "emb-raise-embedding-bag";

//===----------------------------------------------------------------------===//
// Sum: the masked-select generic
//===----------------------------------------------------------------------===//

/// A masked-select generic read into what it means.
typedef struct {
  EmbGeneric g;
  MlirValue weight, indices, offsets;
  MlirValue perSampleWeights; ///< null for an unweighted bag
  MlirValue numIds;           ///< N as the body reads it (the last bag's end)
  bool hasPadding;
  bool dynamicPadding; ///< the mask compares the id with a non-constant
  int64_t padding;
} Bag;

/// True if `v` is loop `dim`'s index, through casts.
static bool isLoop(MlirValue v, int64_t dim) {
  return embIsLoopIndex(embStripIntCasts(v), dim);
}

/// True if `v` is b + 1 (b the bag loop).
static bool isNextBag(MlirValue v) {
  MlirValue a, b;
  int64_t one;
  v = embStripIntCasts(v);
  if (!embReadBinary(v, "arith.addi", &a, &b))
    return false;
  return (isLoop(a, 0) && embConstInt(b, &one) && one == 1) ||
         (isLoop(b, 0) && embConstInt(a, &one) && one == 1);
}

/// True if `v` is `b + 1 == B`, B the number of bags.
static bool isLastBag(MlirValue v, MlirValue offsets) {
  int pred;
  MlirValue a, b;
  return embReadCmpI(v, &pred, &a, &b) && pred == EMB_CMPI_EQ &&
         ((isNextBag(a) && embIsDimSize(b, offsets, 0)) ||
          (isNextBag(b) && embIsDimSize(a, offsets, 0)));
}

/// True if `v` is where bag b ends: select(b + 1 == B, N, offsets[i]), where
/// the offset is read at the clamped index i = select(last, 0, b + 1).
/// Sets bag->numIds to the N it reads.
static bool isBagEnd(MlirValue v, Bag *bag) {
  MlirValue offsets = bag->offsets, indices = bag->indices;
  MlirOperation select, extract;
  if (!embMadeBy(v, "arith.select", &select) ||
      !isLastBag(mlirOperationGetOperand(select, 0), offsets) ||
      !embIsDimSize(mlirOperationGetOperand(select, 1), indices, 0) ||
      !embMadeBy(mlirOperationGetOperand(select, 2), "tensor.extract",
                 &extract) ||
      mlirOperationGetNumOperands(extract) != 2 ||
      !mlirValueEqual(mlirOperationGetOperand(extract, 0), offsets))
    return false;
  bag->numIds = mlirOperationGetOperand(select, 1);
  MlirValue at = embStripIntCasts(mlirOperationGetOperand(extract, 1));
  // The index torch-mlir clamps so that the last bag reads in bounds; the
  // read is then discarded by the select above. Only a clamp to 0 reads in
  // bounds for every offsets tensor a bag exists for. Unclamped (b + 1), or
  // clamped elsewhere, the last bag's read as written is out of bounds (an
  // error emb-run reports on every input with a bag) or may be, which the
  // lookup, never making it, would not report: not raised.
  MlirOperation clamp;
  int64_t first = -1;
  return embMadeBy(at, "arith.select", &clamp) &&
         isLastBag(mlirOperationGetOperand(clamp, 0), offsets) &&
         embConstInt(embStripIntCasts(mlirOperationGetOperand(clamp, 1)),
                     &first) &&
         first == 0 && isNextBag(mlirOperationGetOperand(clamp, 2));
}

/// The terms of a tree of arith.andi, at most `max`; -1 if more.
static int andTerms(MlirValue v, MlirValue *terms, int n, int max) {
  MlirValue a, b;
  if (embReadBinary(v, "arith.andi", &a, &b)) {
    n = andTerms(a, terms, n, max);
    return n < 0 ? n : andTerms(b, terms, n, max);
  }
  if (n >= max)
    return -1;
  terms[n] = v;
  return n + 1;
}

/// True if `v` is offsets[b] <= j: a sle, or torch-mlir's slt-or-eq.
static bool isBagStart(MlirValue v, MlirValue off) {
  int pred;
  MlirValue a, b, x, y;
  if (embReadCmpI(v, &pred, &a, &b))
    return pred == EMB_CMPI_SLE && mlirValueEqual(a, off) && isLoop(b, 1);
  if (!embReadBinary(v, "arith.ori", &x, &y))
    return false;
  bool lt = false, eq = false;
  MlirValue parts[] = {x, y};
  for (int i = 0; i < 2; ++i) {
    if (!embReadCmpI(parts[i], &pred, &a, &b))
      return false;
    if (pred == EMB_CMPI_SLT)
      lt |= mlirValueEqual(a, off) && isLoop(b, 1);
    else if (pred == EMB_CMPI_EQ)
      eq |= (mlirValueEqual(a, off) && isLoop(b, 1)) ||
            (mlirValueEqual(b, off) && isLoop(a, 1));
  }
  return lt && eq;
}

/// Reads the mask of bag b over id j into `bag`; false if it is not
/// offsets[b] <= j < end(b), possibly with id != padding.
static bool readMask(MlirValue mask, MlirValue id, MlirValue off, Bag *bag) {
  MlirValue terms[4];
  int n = andTerms(mask, terms, 0, 4);
  bool start = false, end = false;
  for (int i = 0; i < n; ++i) {
    int pred;
    MlirValue a, b;
    int64_t p;
    if (isBagStart(terms[i], off)) {
      start = true;
    } else if (embReadCmpI(terms[i], &pred, &a, &b) && pred == EMB_CMPI_SLT &&
               isLoop(a, 1) && isBagEnd(b, bag)) {
      end = true;
    } else if (embReadCmpI(terms[i], &pred, &a, &b) && pred == EMB_CMPI_NE &&
               (mlirValueEqual(a, id) || mlirValueEqual(b, id))) {
      // id != P: padding_idx, when P is a constant.
      if (!embConstInt(mlirValueEqual(a, id) ? b : a, &p)) {
        bag->dynamicPadding = true;
        return false;
      }
      bag->hasPadding = true;
      bag->padding = p;
    } else {
      return false;
    }
  }
  return n > 0 && start && end;
}

/// Whether `v` is `opName`(known, x) or `opName`(x, known); then *other is x.
static bool readBinaryWith(MlirValue v, const char *opName, MlirValue known,
                           MlirValue *other) {
  MlirValue a, b;
  if (!embReadBinary(v, opName, &a, &b))
    return false;
  if (mlirValueEqual(a, known) || mlirValueEqual(b, known)) {
    *other = mlirValueEqual(a, known) ? b : a;
    return true;
  }
  return false;
}

/// Reads `op` as an embedding bag's masked-select generic. False without a
/// word when its loops and maps are not the embedding bag's; after a remark
/// when they are but its body computes something else.
static bool readBag(MlirOperation op, Bag *bag) {
  EmbGeneric *g = &bag->g;
  static const int64_t byId[] = {1}, byBag[] = {0}, out[] = {0, 2};
  if (!embReadGeneric(op, g) || g->numInputs < 2 || g->numInits != 1 ||
      g->numLoops != 3 || strncmp(g->iterators, "prp", 3) != 0 ||
      !embMapIs(embGenericMap(g, 0), 1, byId) ||
      !embMapIs(embGenericMap(g, 1), 1, byBag) ||
      !embMapIs(embGenericMap(g, g->numInputs), 2, out))
    return false;
  MlirLocation loc = mlirOperationGetLocation(op);
  if (g->numInputs > 3 ||
      (g->numInputs == 3 && !embMapIs(embGenericMap(g, 2), 1, byId))) {
    // A third input read per id is the per-sample weights; anything else
    // is not a bag emb.embedding_bag computes.
    embEmitRemarkf(loc,
                   "%s: it has %lld inputs where a bag has ids and offsets, "
                   "and per-sample weights read per id",
                   passName, (long long)g->numInputs);
    return false;
  }
  bool weighted = g->numInputs == 3;
  bag->indices = embGenericOperand(g, 0);
  bag->offsets = embGenericOperand(g, 1);
  MlirValue id = mlirBlockGetArgument(g->body, 0);
  MlirValue off = mlirBlockGetArgument(g->body, 1);
  MlirValue psw = mlirBlockGetArgument(g->body, weighted ? 2 : 0);
  MlirValue acc = mlirBlockGetArgument(g->body, g->numInputs);

  // yield select(mask, weight[id, d] + acc, acc)
  MlirOperation select, extract;
  MlirValue row = (MlirValue){NULL};
  if (!embMadeBy(embGenericYielded(g, 0), "arith.select", &select) ||
      !mlirValueEqual(mlirOperationGetOperand(select, 2), acc) ||
      !readBinaryWith(mlirOperationGetOperand(select, 1), "arith.addf", acc,
                      &row)) {
    embEmitRemarkf(loc,
                   "%s: the body does not add a row to the bag's sum where "
                   "its mask holds",
                   passName);
    return false;
  }
  if (weighted) {
    // weight[indices[j], d] * per_sample_weights[j], in either order.
    if (!readBinaryWith(row, "arith.mulf", psw, &row)) {
      embEmitRemarkf(loc,
                     "%s: the row it adds is not multiplied by its "
                     "per-sample weight (the third input, at j)",
                     passName);
      return false;
    }
    bag->perSampleWeights = embGenericOperand(g, 2);
  }
  if (!embMadeBy(row, "tensor.extract", &extract) ||
      mlirOperationGetNumOperands(extract) != 3 ||
      !embDefinedAbove(g, mlirOperationGetOperand(extract, 0)) ||
      !mlirValueEqual(embStripIntCasts(mlirOperationGetOperand(extract, 1)),
                      id) ||
      !embIsLoopIndex(mlirOperationGetOperand(extract, 2), 2)) {
    embEmitRemarkf(loc,
                   "%s: what it adds is not weight[indices[j], d] of a "
                   "weight captured from above",
                   passName);
    return false;
  }
  bag->weight = mlirOperationGetOperand(extract, 0);
  if (!readMask(mlirOperationGetOperand(select, 0), id, off, bag)) {
    if (bag->dynamicPadding)
      embEmitRemarkf(loc,
                     "%s: the mask skips ids equal to a value that is not a "
                     "constant: padding_idx must be a constant",
                     passName);
    else
      embEmitRemarkf(loc,
                     "%s: the mask is not offsets[b] <= j < offsets[b+1] (N "
                     "for the last bag)",
                     passName);
    return false;
  }
  int64_t rows = embDim(mlirValueGetType(bag->weight), 0);
  if (bag->hasPadding &&
      (rows < 0 || bag->padding < 0 || bag->padding >= rows)) {
    // The body reads the padding id's row before its mask drops it, so a
    // padding id outside the table is an error there; emb.embedding_bag
    // skips padding ids before it checks them (and its verifier refuses a
    // padding_idx outside a static table).
    if (rows < 0)
      embEmitRemarkf(loc,
                     "%s: padding_idx %lld on a table of dynamic rows: the "
                     "body reads its row, emb.embedding_bag would skip it "
                     "where it is not a row",
                     passName, (long long)bag->padding);
    else
      embEmitRemarkf(loc,
                     "%s: padding_idx %lld is not a row of the table (%lld "
                     "rows): the body reads its row, emb.embedding_bag would "
                     "skip it",
                     passName, (long long)bag->padding, (long long)rows);
    return false;
  }
  if (!embIsZeroTensor(embGenericOperand(g, g->numInputs))) {
    embEmitRemarkf(loc, "%s: the sums do not start from zero", passName);
    return false;
  }
  MlirType it = mlirValueGetType(bag->indices);
  MlirType ot = mlirValueGetType(bag->offsets);
  MlirType wt = mlirValueGetType(bag->weight);
  if (!embIsIndexInt(mlirShapedTypeGetElementType(it)) ||
      !mlirTypeEqual(mlirShapedTypeGetElementType(it),
                     mlirShapedTypeGetElementType(ot)) ||
      mlirShapedTypeGetRank(wt) != 2 ||
      !embIsFloat(mlirShapedTypeGetElementType(wt))) {
    embEmitRemarkf(loc,
                   "%s: emb.embedding_bag takes a 2-D float weight and ids "
                   "and offsets of one type, i32 or i64",
                   passName);
    return false;
  }
  return true;
}

/// offsets ++ [N]: emb's B+1 offsets. A dynamic N is the count the body
/// read, where it is defined above and of the offsets' type, or read anew.
static MlirValue extendOffsets(MlirOperation before, MlirLocation loc,
                               const Bag *bag) {
  MlirValue offsets = bag->offsets, indices = bag->indices;
  MlirType e = mlirShapedTypeGetElementType(mlirValueGetType(offsets));
  int64_t n = embDim(mlirValueGetType(indices), 0), one = 1;
  MlirValue last;
  if (n >= 0) {
    last = embCreateIntVector(before, loc, e, 1, &n);
  } else {
    MlirValue cast = bag->numIds;
    if (!embDefinedAbove(&bag->g, cast) ||
        !mlirTypeEqual(mlirValueGetType(cast), e)) {
      MlirValue count = embCreateDim(before, loc, indices, 0);
      cast = mlirOperationGetResult(
          embCreateOp(before, loc, "arith.index_cast", 1, &count, e, 0, NULL),
          0);
    }
    last = mlirOperationGetResult(
        embCreateOp(before, loc, "tensor.from_elements", 1, &cast,
                    embTensorType(1, &one, e), 0, NULL),
        0);
  }
  MlirValue parts[] = {offsets, last};
  return embCreateConcat(before, loc, 0, 2, parts);
}

static void raiseSum(MlirOperation op) {
  Bag bag;
  memset(&bag, 0, sizeof bag);
  if (!readBag(op, &bag))
    return;
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirContext ctx = mlirOperationGetContext(op);
  MlirValue operands[] = {embSkipCasts(bag.weight), bag.indices,
                          extendOffsets(op, loc, &bag), bag.perSampleWeights};
  // The body masks ids by their offsets: any offsets are valid
  // (masked_offsets), as they are in the generic.
  MlirNamedAttribute attrs[] = {
      embNamedAttr(ctx, "mode", mlirStringAttrGet(ctx, embStr("sum"))),
      embNamedAttr(ctx, EMB_ATTR_MASKED_OFFSETS, mlirUnitAttrGet(ctx)),
      embNamedAttr(
          ctx, "padding_idx",
          mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), bag.padding)),
  };
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirValue sum = mlirOperationGetResult(
      embCreateOp(op, loc, EMB_OP_EMBEDDING_BAG,
                  mlirValueIsNull(bag.perSampleWeights) ? 3 : 4, operands,
                  mlirValueGetType(result), bag.hasPadding ? 3 : 2, attrs),
      0);
  embReplaceAndErase(op, 0, sum);
}

//===----------------------------------------------------------------------===//
// Mean: the raised sum divided by the clamped bag lengths
//===----------------------------------------------------------------------===//

/// What a count matcher has proven about the value it read.
typedef struct {
  MlirValue offsets; ///< B offsets of the sum (without its last entry)
  int64_t numIds;    ///< N, or -1 when dynamic
  MlirValue indices; ///< the sum's ids (for a dynamic N)
} Lengths;

/// One step into what computes `v`: a tensor is read through casts and
/// reshapes to the elementwise generic that makes it (every map the
/// identity), whose yielded scalar is returned, with `*g` set to it; a block
/// argument of `g` steps to its operand and on. Any other scalar is itself.
static MlirValue scalarOf(MlirValue v, EmbGeneric *g) {
  for (int depth = 0; depth < 16; ++depth) {
    intptr_t arg = g->op.ptr ? embGenericArgOperand(g, v) : -1;
    if (arg >= 0)
      v = embGenericOperand(g, arg);
    if (!mlirTypeIsARankedTensor(mlirValueGetType(v)))
      return v;
    MlirOperation op;
    while (embMadeBy(v, "tensor.cast", &op) ||
           embMadeBy(v, "tensor.expand_shape", &op) ||
           embMadeBy(v, "tensor.collapse_shape", &op))
      v = mlirOperationGetOperand(op, 0);
    EmbGeneric next;
    if (!embReadGenericOf(v, &next) || !embGenericAllParallel(&next) ||
        next.numInits != 1)
      return v;
    for (intptr_t i = 0; i < next.numInputs + next.numInits; ++i)
      if (!embMapIsIdentityOf(embGenericMap(&next, i), next.numLoops))
        return v;
    *g = next;
    v = embGenericYielded(g, 0);
  }
  return v;
}

/// True if `v` (in the context `g`) is ext[b + k] for ext = offsets ++ [N]:
/// an extract_slice of B entries at offset k of a concat of the offsets and
/// one constant N.
static bool isExtendedOffsetAt(MlirValue v, EmbGeneric g, int64_t k,
                               const Lengths *len) {
  MlirValue t = scalarOf(v, &g);
  MlirOperation slice, concat;
  int64_t dim = -1;
  if (!embMadeBy(t, "tensor.extract_slice", &slice) ||
      mlirOperationGetNumOperands(slice) != 1)
    return false;
  MlirAttribute offs =
      mlirOperationGetInherentAttributeByName(slice, embStr("static_offsets"));
  MlirAttribute strides =
      mlirOperationGetInherentAttributeByName(slice, embStr("static_strides"));
  int64_t b = embDim(mlirValueGetType(len->offsets), 0);
  if (mlirDenseArrayGetNumElements(offs) != 1 ||
      mlirDenseI64ArrayGetElement(offs, 0) != k ||
      mlirDenseI64ArrayGetElement(strides, 0) != 1 ||
      embDim(mlirValueGetType(t), 0) != b ||
      !embMadeBy(mlirOperationGetOperand(slice, 0), "tensor.concat", &concat) ||
      !embGetIntAttr(concat, "dim", &dim) || dim != 0 ||
      mlirOperationGetNumOperands(concat) != 2 ||
      !mlirValueEqual(mlirOperationGetOperand(concat, 0), len->offsets))
    return false;
  MlirValue last = mlirOperationGetOperand(concat, 1);
  MlirOperation c;
  if (embMadeBy(last, "arith.constant", &c)) {
    MlirAttribute a =
        mlirOperationGetInherentAttributeByName(c, embStr("value"));
    return len->numIds >= 0 && mlirAttributeIsADenseElements(a) &&
           mlirElementsAttrGetNumElements(a) == 1 &&
           mlirDenseElementsAttrGetInt64Value(a, 0) == len->numIds;
  }
  // A dynamic N: from_elements of the ids' count.
  MlirOperation from;
  return embMadeBy(last, "tensor.from_elements", &from) &&
         embIsDimSize(mlirOperationGetOperand(from, 0), len->indices, 0);
}

/// True if `v` (in the context `g`) is ext[b+1] - ext[b], the bag's length.
static bool isLengthDiff(MlirValue v, EmbGeneric g, const Lengths *len) {
  MlirValue s = scalarOf(v, &g), a, b, c;
  int64_t one;
  if (!embReadBinary(s, "arith.subi", &a, &b))
    return false;
  // torch's sub with alpha = 1, if not folded: a - b * 1.
  EmbGeneric h = g;
  MlirValue m = scalarOf(b, &h), x;
  if (embReadBinary(m, "arith.muli", &x, &c)) {
    if (!embConstInt(c, &one) || one != 1)
      return false;
    b = x;
    g = h;
  }
  return isExtendedOffsetAt(a, g, 1, len) && isExtendedOffsetAt(b, g, 0, len);
}

/// True if `v` (in the context `g`) is the constant `value`.
static bool isConstNumber(MlirValue v, EmbGeneric g, double value) {
  MlirValue s = scalarOf(v, &g);
  int64_t i;
  double f;
  return (embConstInt(s, &i) && (double)i == value) ||
         (embConstFloat(s, &f) && f == value);
}

/// If `s` (in the context `g`) clamps a value from below at `min` (maxsi,
/// maximumf, maxnumf, or torch-mlir's clamp select(x < min, min, x)), the
/// clamped value (in the same context).
static bool readClampMin(MlirValue s, EmbGeneric g, double min, MlirValue *x) {
  static const char *const maxOps[] = {"arith.maxsi", "arith.maximumf",
                                       "arith.maxnumf", NULL};
  MlirValue a, b;
  for (int k = 0; maxOps[k]; ++k)
    if (embReadBinary(s, maxOps[k], &a, &b)) {
      *x = isConstNumber(b, g, min) ? a : b;
      return isConstNumber(mlirValueEqual(*x, a) ? b : a, g, min);
    }
  MlirOperation select, cmp;
  if (!embMadeBy(s, "arith.select", &select))
    return false;
  MlirValue lo = mlirOperationGetOperand(select, 1);
  *x = mlirOperationGetOperand(select, 2);
  if (!isConstNumber(lo, g, min))
    return false;
  MlirValue cond = mlirOperationGetOperand(select, 0);
  int pred;
  if (embReadCmpI(cond, &pred, &a, &b))
    return pred == EMB_CMPI_SLT && mlirValueEqual(a, *x) &&
           mlirValueEqual(b, lo);
  // arith.cmpf olt (4) or ult (11): x < min.
  int64_t p;
  return embMadeBy(cond, "arith.cmpf", &cmp) &&
         embGetIntAttr(cmp, "predicate", &p) && (p == 4 || p == 11) &&
         mlirValueEqual(mlirOperationGetOperand(cmp, 0), *x) &&
         mlirValueEqual(mlirOperationGetOperand(cmp, 1), lo);
}

/// True if `v` is float(max(length, 1)) or max(float(length), 1.0).
static bool isClampedCount(MlirValue v, const Lengths *len) {
  EmbGeneric g;
  memset(&g, 0, sizeof g);
  MlirValue s = scalarOf(v, &g), x;
  MlirOperation conv;
  if (embMadeBy(s, "arith.sitofp", &conv)) {
    // float(max(length, 1))
    MlirValue i = scalarOf(mlirOperationGetOperand(conv, 0), &g);
    return readClampMin(i, g, 1.0, &x) && isLengthDiff(x, g, len);
  }
  // max(float(length), 1.0)
  if (!readClampMin(s, g, 1.0, &x))
    return false;
  MlirValue f = scalarOf(x, &g);
  return embMadeBy(f, "arith.sitofp", &conv) &&
         isLengthDiff(mlirOperationGetOperand(conv, 0), g, len);
}

/// Raises `op`, a divf generic of a raised sum by a count per bag.
static void raiseMean(MlirOperation op) {
  EmbGeneric g;
  static const int64_t perBag[] = {0, EMB_MAP_ZERO}, perBag1[] = {0};
  MlirValue num, den;
  MlirOperation sum;
  if (!embReadGeneric(op, &g) || g.numInputs != 2 || g.numInits != 1 ||
      g.numLoops != 2 || !embGenericAllParallel(&g) ||
      !embReadBinary(embGenericYielded(&g, 0), "arith.divf", &num, &den) ||
      embGenericArgOperand(&g, num) != 0 ||
      embGenericArgOperand(&g, den) != 1 ||
      !embMadeBy(embGenericOperand(&g, 0), EMB_OP_EMBEDDING_BAG, &sum))
    return;
  char mode[8];
  if (!embGetStringAttr(sum, "mode", mode, sizeof mode) || strcmp(mode, "sum"))
    return;
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirAffineMap dm = embGenericMap(&g, 1);
  if (!embMapIsIdentityOf(embGenericMap(&g, 0), 2) ||
      !embMapIsIdentityOf(embGenericMap(&g, 2), 2) ||
      !(embMapIs(dm, 2, perBag) || embMapIs(dm, 1, perBag1))) {
    embEmitRemarkf(loc, "%s: the sum is not divided by one value per bag",
                   passName);
    return;
  }
  if (!mlirAttributeIsNull(
          mlirOperationGetAttributeByName(sum, embStr("bounds_check")))) {
    // The mean's divisor counts every id; a sum that skips some is not it.
    embEmitRemarkf(loc,
                   "%s: a mean of a sum with bounds_check would skip ids "
                   "its divisor counts",
                   passName);
    return;
  }
  if (mlirOperationGetNumOperands(sum) != 3 ||
      !mlirAttributeIsNull(
          mlirOperationGetAttributeByName(sum, embStr("padding_idx")))) {
    embEmitRemarkf(loc,
                   "%s: a mean of a sum with padding_idx or per-sample "
                   "weights would need its own counts",
                   passName);
    return;
  }
  // The sum's offsets are offsets ++ [N], made by the sum's raise.
  MlirOperation ext;
  Lengths len;
  if (!embMadeBy(mlirOperationGetOperand(sum, 2), "tensor.concat", &ext) ||
      mlirOperationGetNumOperands(ext) != 2)
    return;
  len.offsets = mlirOperationGetOperand(ext, 0);
  len.indices = mlirOperationGetOperand(sum, 1);
  len.numIds = embDim(mlirValueGetType(len.indices), 0);
  if (!isClampedCount(embGenericOperand(&g, 1), &len)) {
    embEmitRemarkf(loc,
                   "%s: the divisor is not the bag lengths clamped to at "
                   "least 1 (offsets ++ [N], diff, clamp, to float)",
                   passName);
    return;
  }
  MlirContext ctx = mlirOperationGetContext(op);
  MlirValue operands[] = {mlirOperationGetOperand(sum, 0),
                          mlirOperationGetOperand(sum, 1),
                          mlirOperationGetOperand(sum, 2)};
  // The mean divides by max(hi - lo, 1) of the offsets as they are, which
  // is masked_offsets' mean; a sum without the mask checks its offsets, and
  // so does its mean.
  MlirAttribute masked =
      mlirOperationGetAttributeByName(sum, embStr(EMB_ATTR_MASKED_OFFSETS));
  MlirNamedAttribute attrs[] = {
      embNamedAttr(ctx, "mode", mlirStringAttrGet(ctx, embStr("mean"))),
      embNamedAttr(ctx, EMB_ATTR_MASKED_OFFSETS, mlirUnitAttrGet(ctx)),
  };
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirValue mean = mlirOperationGetResult(
      embCreateOp(op, loc, EMB_OP_EMBEDDING_BAG, 3, operands,
                  mlirValueGetType(result), mlirAttributeIsNull(masked) ? 1 : 2,
                  attrs),
      0);
  embReplaceAndErase(op, 0, mean);
  embEraseUnused(sum);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static bool raiseOne(MlirOperation op, const void *options) {
  (void)options;
  raiseSum(op);
  return true;
}

static bool raiseMeanOne(MlirOperation op, const void *options) {
  (void)options;
  raiseMean(op);
  return true;
}

static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  // Sums first: a mean reads a raised sum, and the divf that makes it may
  // come before the sum's generic in the walk only if it does not use it.
  embRaiseNestedOps(root, pass, passName, raiseOne, options);
  embRaiseNestedOps(root, pass, passName, raiseMeanOne, options);
}

const EmbPassDef embRaiseEmbeddingBagPassDef = {
    .argument = "emb-raise-embedding-bag",
    .name = "EmbRaiseEmbeddingBag",
    .summary = "Raise torch-mlir's sum embedding bags (and a hand-written "
               "mean) into emb.embedding_bag",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};
