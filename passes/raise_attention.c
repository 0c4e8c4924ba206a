//===- passes/raise_attention.c - emb-raise-attention ---------------------===//
//
// Raises scaled dot-product attention into `emb.attention(q, k, v) {scale}`
// (q[B,Lq,H,D], k and v [B,Lk,H,D], full softmax over the keys), from the
// two forms torch-mlir gives it:
//
//   - decomposed, as the FX importer's SDPA arrives (PyTorch's math
//     decomposition, then torch-mlir's): q and k each scaled by sqrt(scale)
//     (or the scores by scale), k transposed, q and k^T collapsed to
//     [B*H,...] and multiplied by linalg.batch_matmul into a zero fill, the
//     scores expanded back; softmax over the last (key) dim as a two-result
//     max generic (the argmax result dead), a subtraction of the max, exp, a
//     keepdim sum and a division; optionally `_safe_softmax`'s guard, which
//     selects 0 where a whole row of scores is -inf; then the second
//     batch_matmul by v. f16 and bf16 scores are truncated from the f32
//     accumulator, and the softmax runs in f32 between an extf and a truncf.
//   - `tm_tensor.attention` (TorchToTMTensor), in generic form since emb does
//     not load the TMTensor dialect: q, k, v collapsed to [B*H, L, D], scale
//     an optional f64 attribute (default 1/sqrt(D)).
//
// Every step is checked for what it computes: the maps and iterators of
// each generic, which loop the reductions run over (the key dim, the last
// one), that the max and the sum read the scores they are subtracted from
// and divide, the scale constants (their product is the op's scale), that
// the two products accumulate into zeros. The transposes around q, k and v
// are read through: emb.attention gets q, k and v in its [B,L,H,D] layout,
// as the model's own [B,L,H,D] tensors where the SDPA input was their
// transpose (so an emb.broadcast of user keys stays visible to emb-ikbo,
// which makes emb.ikbo_attention of it), or through a new transpose. 3-D
// inputs [N,L,D] are one head. The result is transposed back to [B,H,Lq,D].
//
// The rewrite is anchored on the last op of the second product (the
// batch_matmul, its truncf, or the expand_shape after them), so everything
// it erases comes earlier.
//
// A boolean attn_mask of key lengths (`arange(Lk) < lengths.unsqueeze(1)`,
// per candidate or per user and gathered by cand_to_user), which the math
// decomposition adds to the scores as where(mask, 0, -inf), becomes
// emb.attention's key_lengths (clamped to 0..Lk unless they are
// emb.jagged_to_padded's, broadcast like the mask when it was the users').
//
// Preconditions: none. Postconditions: these forms are emb.attention; a
// softmax-times-v that does not compute attention as emb.attention defines
// it (a softmax over another dim, a scaled v, a mask other than key lengths,
// different head dims) is left alone with a remark. The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "linalg_match.h"
#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const char passName[] = "emb-raise-attention";

static const int64_t mergeHeads[][EMB_MAX_LOOPS] = {
    {0, 1, -1}, {2, -1}, {3, -1}};

//===----------------------------------------------------------------------===//
// q, k and v: views through transposes and constant scalings
//===----------------------------------------------------------------------===//

/// An operand of the attention seen through what was done to it: dim i of
/// the logical tensor is dim dimOf[i] of `source`, and `scale` is the product
/// of the constant factors applied on the way.
typedef struct {
  MlirValue source;
  int64_t dimOf[EMB_MAX_LOOPS];
  int rank;
  double scale;
} View;

/// If `v` is an elementwise generic multiplying its input by a constant (or
/// dividing by one), its input and the factor.
static bool readScaling(MlirValue v, MlirValue *src, double *factor) {
  EmbGeneric g;
  if (!embReadGenericOf(v, &g) || !embGenericAllParallel(&g) ||
      g.numInits != 1 || g.numInputs < 1 || g.numInputs > 2 ||
      !embMapIsIdentityOf(embGenericMap(&g, 0), g.numLoops) ||
      !embMapIsIdentityOf(embGenericMap(&g, g.numInputs), g.numLoops))
    return false;
  MlirValue a, b, y = embGenericYielded(&g, 0);
  bool mul = embReadBinary(y, "arith.mulf", &a, &b);
  if (!mul && !embReadBinary(y, "arith.divf", &a, &b))
    return false;
  if (embGenericArgOperand(&g, a) != 0) {
    if (!mul)
      return false; // c / x is not a scaling of x
    MlirValue t = a;
    a = b;
    b = t;
  }
  if (embGenericArgOperand(&g, a) != 0)
    return false;
  // The factor: a constant scalar, or a second input that is a splat.
  double value;
  if (embGenericArgOperand(&g, b) == 0 || !embConstFloatIn(&g, b, &value) ||
      value == 0.0)
    return false;
  *src = embGenericOperand(&g, 0);
  *factor = mul ? value : 1.0 / value;
  return true;
}

/// Peels transposes, constant scalings and casts off `v` into `view` (of
/// `rank` dims).
static void peelView(MlirValue v, int rank, View *view) {
  view->rank = rank;
  view->scale = 1.0;
  for (int i = 0; i < rank; ++i)
    view->dimOf[i] = i;
  for (;;) {
    MlirValue src;
    int64_t perm[EMB_MAX_LOOPS];
    double factor;
    v = embSkipCasts(v);
    if (embReadTranspose(v, &src, perm)) {
      for (int i = 0; i < rank; ++i)
        view->dimOf[i] = perm[view->dimOf[i]];
    } else if (readScaling(v, &src, &factor)) {
      view->scale *= factor;
    } else {
      break;
    }
    v = src;
  }
  view->source = v;
}

/// Reads a 3-D operand of a product: scalings, then a collapse of [B,H,..]
/// to [B*H,..] (4-D source) or none (3-D source), then the 4-D or 3-D
/// view below.
static void readOperand(MlirValue v3, View *view) {
  double scale = 1.0, factor;
  MlirValue src, v4;
  v3 = embSkipCasts(v3);
  while (readScaling(v3, &src, &factor)) {
    scale *= factor;
    v3 = embSkipCasts(src);
  }
  if (embReadReshape(v3, "tensor.collapse_shape", 3, mergeHeads, &v4))
    peelView(v4, 4, view);
  else
    peelView(v3, 3, view);
  view->scale *= scale;
}

/// The operand `view` in emb's [B,L,H,D] layout, where its logical dims
/// b, l, h and d are at `b`, `l`, `h`, `d` (h unused for a 3-D view, which
/// is one head).
static MlirValue toEmbLayout(MlirOperation before, MlirLocation loc,
                             const View *view, int b, int l, int h, int d) {
  if (view->rank == 4) {
    int64_t perm[] = {view->dimOf[b], view->dimOf[l], view->dimOf[h],
                      view->dimOf[d]};
    return embCreateTranspose(before, loc, view->source, perm);
  }
  int64_t perm[] = {view->dimOf[b], view->dimOf[l], view->dimOf[d]};
  MlirValue t = embCreateTranspose(before, loc, view->source, perm);
  MlirType tt = mlirValueGetType(t);
  int64_t shape[] = {embDim(tt, 0), embDim(tt, 1), 1, embDim(tt, 2)};
  static const int64_t oneHead[][EMB_MAX_LOOPS] = {
      {0, -1}, {1, -1}, {2, 3, -1}};
  return embCreateReshape(
      before, loc, "tensor.expand_shape", t,
      embTensorType(4, shape, mlirShapedTypeGetElementType(tt)), 3, oneHead);
}

//===----------------------------------------------------------------------===//
// The softmax over the last dim
//===----------------------------------------------------------------------===//

/// The map of a per-row value broadcast along the last of `n` loops:
/// (d0, ..., d(n-2), 0).
static bool isRowMap(MlirAffineMap m, intptr_t n) {
  int64_t dims[EMB_MAX_LOOPS];
  for (intptr_t i = 0; i + 1 < n; ++i)
    dims[i] = i;
  dims[n - 1] = EMB_MAP_ZERO;
  return embMapIs(m, n, dims);
}

/// If `g` reduces exactly one loop, that loop; -1 otherwise.
static int reducedLoop(const EmbGeneric *g) {
  int found = -1;
  for (intptr_t i = 0; i < g->numLoops; ++i)
    if (g->iterators[i] == 'r') {
      if (found >= 0)
        return -1;
      found = (int)i;
    }
  return found;
}

/// Checks that the reduction `g` runs over the last loop, with remark
/// `what` ("softmax", "the -inf guard") at `loc` when it does not.
static bool reducesKeyDim(const EmbGeneric *g, const char *what,
                          MlirLocation loc) {
  int r = reducedLoop(g);
  if (r == g->numLoops - 1)
    return true;
  if (r >= 0)
    embEmitRemarkf(loc, "%s: %s reduces over dim %d, not the key dim", passName,
                   what, r);
  else
    embEmitRemarkf(loc, "%s: %s does not reduce over one dim", passName, what);
  return false;
}

/// True if `v` is the row maximum of `x`, broadcast along the key dim: a
/// max reduction over the last loop (its argmax result unused), expanded
/// back to keep the dim, or a keepdim max.
static bool isRowMax(MlirValue v, MlirValue x, MlirLocation loc) {
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(x));
  MlirValue m = embSkipCasts(v), src;
  static const int64_t keep3[][EMB_MAX_LOOPS] = {{0, -1}, {1, 2, -1}};
  static const int64_t keep4[][EMB_MAX_LOOPS] = {{0, -1}, {1, -1}, {2, 3, -1}};
  bool dropped = embReadReshape(m, "tensor.expand_shape", rank - 1,
                                rank == 4 ? keep4 : keep3, &src);
  EmbGeneric g;
  if (!embReadGenericOf(dropped ? src : m, &g) || g.numInputs != 1 ||
      !mlirValueEqual(embGenericOperand(&g, 0), x) ||
      !embMapIsIdentityOf(embGenericMap(&g, 0), rank))
    return false;
  if (!reducesKeyDim(&g, "softmax", loc))
    return false;
  int64_t dims[EMB_MAX_LOOPS];
  for (intptr_t i = 0; i + 1 < rank; ++i)
    dims[i] = i;
  MlirAffineMap out = embGenericMap(&g, 1);
  if (!(dropped ? embMapIs(out, rank - 1, dims) : isRowMap(out, rank)))
    return false;
  // Result 0 is max(x, acc) from at most the lowest float up.
  MlirValue a, b, in = mlirBlockGetArgument(g.body, 0),
                  acc = mlirBlockGetArgument(g.body, 1);
  MlirValue y = embGenericYielded(&g, 0);
  double init;
  return (embReadBinary(y, "arith.maximumf", &a, &b) ||
          embReadBinary(y, "arith.maxnumf", &a, &b)) &&
         ((mlirValueEqual(a, in) && mlirValueEqual(b, acc)) ||
          (mlirValueEqual(a, acc) && mlirValueEqual(b, in))) &&
         embIsFilledWith(embGenericOperand(&g, 1), &init) && init <= -FLT_MAX;
}

/// True if `v` is the sum of `e` along the key dim, kept as a size-1 dim.
static bool isRowSum(MlirValue v, MlirValue e, MlirLocation loc) {
  EmbGeneric g;
  intptr_t rank = mlirShapedTypeGetRank(mlirValueGetType(e));
  if (!embReadGenericOf(v, &g) || g.numInputs != 1 || g.numInits != 1 ||
      !mlirValueEqual(embGenericOperand(&g, 0), e))
    return false;
  if (!reducesKeyDim(&g, "softmax", loc))
    return false;
  MlirValue a, b, in = mlirBlockGetArgument(g.body, 0),
                  acc = mlirBlockGetArgument(g.body, 1);
  return embMapIsIdentityOf(embGenericMap(&g, 0), rank) &&
         isRowMap(embGenericMap(&g, 1), rank) &&
         embIsZeroTensor(embGenericOperand(&g, 1)) &&
         embReadBinary(embGenericYielded(&g, 0), "arith.addf", &a, &b) &&
         ((mlirValueEqual(a, in) && mlirValueEqual(b, acc)) ||
          (mlirValueEqual(a, acc) && mlirValueEqual(b, in)));
}

/// If `v` is a generic of two inputs, the first read as is and the second
/// once per row, yielding `name(first, second)`: the two inputs.
static bool readRowBinary(MlirValue v, const char *name, MlirValue *first,
                          MlirValue *second) {
  EmbGeneric g;
  MlirValue a, b;
  if (!embReadGenericOf(v, &g) || g.numInputs != 2 || g.numInits != 1 ||
      !embGenericAllParallel(&g) ||
      !embMapIsIdentityOf(embGenericMap(&g, 0), g.numLoops) ||
      !isRowMap(embGenericMap(&g, 1), g.numLoops) ||
      !embMapIsIdentityOf(embGenericMap(&g, 2), g.numLoops) ||
      !embReadBinary(embGenericYielded(&g, 0), name, &a, &b) ||
      embGenericArgOperand(&g, a) != 0 || embGenericArgOperand(&g, b) != 1)
    return false;
  *first = embGenericOperand(&g, 0);
  *second = embGenericOperand(&g, 1);
  return true;
}

/// If `v` is exp(x - rowmax(x)), as an exp generic of a subtraction generic
/// (or one generic doing both), the scores x.
static bool readShiftedExp(MlirValue v, MlirValue *x, MlirLocation loc) {
  MlirValue z, m;
  if (embReadUnaryElementwise(v, "math.exp", &z) &&
      readRowBinary(z, "arith.subf", x, &m))
    return isRowMax(m, *x, loc);
  // Fused: exp(in0 - in1) in one generic.
  EmbGeneric g;
  MlirOperation exp;
  MlirValue a, b;
  if (!embReadGenericOf(v, &g) || g.numInputs != 2 ||
      !embGenericAllParallel(&g) ||
      !embMapIsIdentityOf(embGenericMap(&g, 0), g.numLoops) ||
      !isRowMap(embGenericMap(&g, 1), g.numLoops) ||
      !embMadeBy(embGenericYielded(&g, 0), "math.exp", &exp) ||
      !embReadBinary(mlirOperationGetOperand(exp, 0), "arith.subf", &a, &b) ||
      embGenericArgOperand(&g, a) != 0 || embGenericArgOperand(&g, b) != 1)
    return false;
  *x = embGenericOperand(&g, 0);
  return isRowMax(embGenericOperand(&g, 1), *x, loc);
}

/// If `v` is _safe_softmax's guard select(all(x == -inf along keys), 0, s),
/// `s`, with the guarded scores in `*x`.
static bool readGuard(MlirValue v, MlirValue *s, MlirValue *x) {
  EmbGeneric g, all, eq;
  MlirOperation select, cmp;
  double zero, inf;
  int64_t p;
  // where(mask, 0, s): the 0 is a constant, or a 0-d constant input.
  if (!embReadGenericOf(v, &g) || g.numInputs < 2 || g.numInputs > 3 ||
      g.numInits != 1 || !embGenericAllParallel(&g) ||
      !embMadeBy(embGenericYielded(&g, 0), "arith.select", &select))
    return false;
  intptr_t maskArg =
      embGenericArgOperand(&g, mlirOperationGetOperand(select, 0));
  intptr_t valueArg =
      embGenericArgOperand(&g, mlirOperationGetOperand(select, 2));
  if (maskArg < 0 || valueArg < 0 || maskArg == valueArg ||
      valueArg >= g.numInputs ||
      !embConstFloatIn(&g, mlirOperationGetOperand(select, 1), &zero) ||
      zero != 0 || !isRowMap(embGenericMap(&g, maskArg), g.numLoops) ||
      !embMapIsIdentityOf(embGenericMap(&g, valueArg), g.numLoops))
    return false;
  *s = embGenericOperand(&g, valueArg);
  // The mask: all(x == -inf) along the last dim, kept as a size-1 dim.
  MlirValue a, b;
  if (!embReadGenericOf(embGenericOperand(&g, maskArg), &all) ||
      all.numInputs != 1 || reducedLoop(&all) != all.numLoops - 1 ||
      !isRowMap(embGenericMap(&all, 1), all.numLoops) ||
      !embReadBinary(embGenericYielded(&all, 0), "arith.andi", &a, &b) ||
      !embReadGenericOf(embGenericOperand(&all, 0), &eq) || eq.numInputs != 1 ||
      !embGenericAllParallel(&eq) ||
      !embMadeBy(embGenericYielded(&eq, 0), "arith.cmpf", &cmp) ||
      !embGetIntAttr(cmp, "predicate", &p) || p != 1 /* oeq */ ||
      embGenericArgOperand(&eq, mlirOperationGetOperand(cmp, 0)) != 0 ||
      !embConstFloatIn(&eq, mlirOperationGetOperand(cmp, 1), &inf) ||
      !(isinf(inf) && inf < 0))
    return false;
  *x = embGenericOperand(&eq, 0);
  return true;
}

/// True if `p` could be attention probabilities: made by a division or a
/// select (worth a remark when it is not a softmax we can read).
static bool looksLikeSoftmax(MlirValue p) {
  EmbGeneric g;
  MlirValue src;
  if (embReadUnaryElementwise(p, "arith.truncf", &src))
    p = src;
  return embReadGenericOf(p, &g) &&
         (embMadeBy(embGenericYielded(&g, 0), "arith.divf", NULL) ||
          embMadeBy(embGenericYielded(&g, 0), "arith.select", NULL));
}

/// Reads `p` as softmax(x) along the last dim (with or without the -inf
/// guard, computed in f32 between an extf and a truncf or not) and returns
/// the scores x, and in `*hasGuard` whether the guard was there; a null
/// value after a remark if it is not.
static MlirValue readSoftmax(MlirValue p, MlirLocation loc, bool *hasGuard) {
  MlirValue s = p, guarded = {NULL}, src, e, sum, x;
  *hasGuard = readGuard(p, &src, &guarded);
  if (*hasGuard)
    s = src;
  if (embReadUnaryElementwise(s, "arith.truncf", &src))
    s = src;
  // The dim the normaliser is summed over, before anything that assumes it
  // is the last: a softmax over another dim is not attention over keys.
  EmbGeneric div, total;
  if (embReadGenericOf(s, &div) && div.numInputs == 2 &&
      embReadGenericOf(embGenericOperand(&div, 1), &total) &&
      total.numInputs == 1 && !reducesKeyDim(&total, "softmax", loc))
    return (MlirValue){NULL};
  if (!readRowBinary(s, "arith.divf", &e, &sum)) {
    embEmitRemarkf(loc,
                   "%s: the probabilities are not exp(x - max) divided by "
                   "their sum per row",
                   passName);
    return (MlirValue){NULL};
  }
  if (!readShiftedExp(e, &x, loc) || !isRowSum(sum, e, loc)) {
    embEmitRemarkf(loc,
                   "%s: the softmax is not exp(x - max(x)) / sum(exp(x - "
                   "max(x))) over the key dim",
                   passName);
    return (MlirValue){NULL};
  }
  if (embReadUnaryElementwise(x, "arith.extf", &src))
    x = src;
  if (!mlirValueIsNull(guarded) && !mlirValueEqual(guarded, x)) {
    embEmitRemarkf(loc,
                   "%s: the -inf guard tests other scores than the softmax "
                   "reads",
                   passName);
    return (MlirValue){NULL};
  }
  return x;
}

//===----------------------------------------------------------------------===//
// The key mask: SDPA's boolean attn_mask made additive
//===----------------------------------------------------------------------===//

// PyTorch's math SDPA turns a boolean attn_mask into where(mask, 0, -inf)
// (older versions where(!mask, -inf, 0)) of the query's type and adds it to
// the scores before _safe_softmax. A mask that keeps key j of row b while
// j < len[b] (`torch.arange(Lk) < lengths.unsqueeze(1)`, at the users'
// batch and gathered per candidate, or at the candidates') is
// emb.attention's key_lengths; any other mask is left alone.

/// What the mask added to the scores says: the lengths of the rows that
/// keep their first len keys (at the scores' batch when `candToUser` is
/// null, else at the users' batch, gathered by it), and the generics that
/// computed the mask (for the erase).
typedef struct {
  MlirValue lengths;    ///< [R] integers
  MlirValue candToUser; ///< the broadcast of a user-level mask, or null
} KeyMask;

/// True if result `r` of map `m` of an operand of type `t` does not vary
/// along loop `loop`: the constant 0, or the loop over a dim of size 1.
static bool fixedAlong(MlirAffineMap m, intptr_t r, MlirType t, int64_t loop) {
  int64_t e = embMapResult(m, r);
  return e == EMB_MAP_ZERO || (e == loop && embDim(t, r) == 1);
}

/// If `v` is `arange(n)` (a generic of no inputs over one loop yielding its
/// index, through integer casts), seen through an expand_shape to [1, n].
static bool isArange(MlirValue v, int64_t n) {
  static const int64_t row[][EMB_MAX_LOOPS] = {{0, 1, -1}};
  MlirValue src;
  EmbGeneric g;
  if (embReadReshape(v, "tensor.expand_shape", 1, row, &src))
    v = src;
  return embReadGenericOf(v, &g) && g.numInputs == 0 && g.numLoops == 1 &&
         embDim(mlirValueGetType(embGenericOperand(&g, 0)), 0) == n &&
         embIsLoopIndex(embStripIntCasts(embGenericYielded(&g, 0)), 0);
}

/// If `v` is `j < len[r]` over [R, Lk] (lk the key count), the 1-D lengths
/// [R]: a generic yielding arith.cmpi slt (or the same swapped) of the key
/// position (linalg.index 1, or an input that is an arange, read along the
/// keys) and an input read along the rows ([R], or [R, 1] expanded from
/// [R]).
static MlirValue readLengthCompare(MlirValue v, int64_t lk) {
  EmbGeneric g;
  MlirValue none = {NULL}, pos, len;
  int pred;
  if (!embReadGenericOf(v, &g) || g.numLoops != 2 || g.numInits != 1 ||
      !embGenericAllParallel(&g) ||
      !embMapIsIdentityOf(embGenericMap(&g, g.numInputs), 2) ||
      !embReadCmpI(embGenericYielded(&g, 0), &pred, &pos, &len) ||
      pred != EMB_CMPI_SLT)
    return none;
  pos = embStripIntCasts(pos);
  len = embStripIntCasts(len);
  // The key position.
  intptr_t pi = embGenericArgOperand(&g, pos);
  if (pi < 0) {
    if (!embIsLoopIndex(pos, 1))
      return none;
  } else {
    MlirAffineMap m = embGenericMap(&g, pi);
    intptr_t n = mlirAffineMapGetNumResults(m);
    if (pi >= g.numInputs || n < 1 || n > 2 || embMapResult(m, n - 1) != 1 ||
        (n == 2 && embMapResult(m, 0) != EMB_MAP_ZERO) ||
        !isArange(embGenericOperand(&g, pi), lk))
      return none;
  }
  // The length of the row.
  intptr_t li = embGenericArgOperand(&g, len);
  if (li < 0 || li >= g.numInputs)
    return none;
  MlirAffineMap m = embGenericMap(&g, li);
  MlirValue lengths = embGenericOperand(&g, li), src;
  static const int64_t column[][EMB_MAX_LOOPS] = {{0, 1, -1}};
  if (embMapIs(m, 1, (const int64_t[]){0}))
    return lengths;
  if (embMapIs(m, 2, (const int64_t[]){0, EMB_MAP_ZERO}) &&
      embReadReshape(lengths, "tensor.expand_shape", 1, column, &src))
    return src;
  return none;
}

/// If `v` is the boolean mask i1 [B, 1, 1, Lk] (an expand of [B, Lk]) of
/// key lengths, fills `mask`; `negated` reads it as !mask.
static bool readLengthMask(MlirValue v, bool negated, int64_t lk,
                           KeyMask *mask) {
  EmbGeneric inv;
  MlirValue a, b;
  int64_t one;
  // logical_not: xori with true.
  if (embReadGenericOf(v, &inv) && inv.numInputs == 1 &&
      embGenericAllParallel(&inv) &&
      embMapIsIdentityOf(embGenericMap(&inv, 0), inv.numLoops) &&
      embReadBinary(embGenericYielded(&inv, 0), "arith.xori", &a, &b) &&
      ((embGenericArgOperand(&inv, a) == 0 && embConstInt(b, &one)) ||
       (embGenericArgOperand(&inv, b) == 0 && embConstInt(a, &one))) &&
      one != 0)
    return readLengthMask(embGenericOperand(&inv, 0), !negated, lk, mask);
  if (negated)
    return false;
  MlirOperation expand, bcast;
  if (!embMadeBy(v, "tensor.expand_shape", &expand))
    return false;
  MlirValue m2 = mlirOperationGetOperand(expand, 0);
  MlirType t2 = mlirValueGetType(m2);
  if (mlirShapedTypeGetRank(t2) != 2 || embDim(t2, 1) != lk)
    return false;
  mask->candToUser = (MlirValue){NULL};
  if (embMadeBy(m2, EMB_OP_BROADCAST, &bcast)) {
    mask->candToUser = mlirOperationGetOperand(bcast, 1);
    m2 = mlirOperationGetOperand(bcast, 0);
  }
  mask->lengths = readLengthCompare(m2, lk);
  return !mlirValueIsNull(mask->lengths);
}

/// If the scores `x` [B, H, Lq, Lk] have a mask added (an addf generic of
/// the scores and a [B, 1, 1, Lk] bias read once per row and key), sets
/// `*scores` to the scores before it and returns 1 when the bias is a
/// key-length mask (filled in `mask`), -1 after a remark when it is a mask
/// emb.attention cannot take; 0 when nothing is added.
static int readKeyMask(MlirValue x, MlirLocation loc, MlirValue *scores,
                       KeyMask *mask) {
  EmbGeneric g;
  MlirValue a, b;
  if (!embReadGenericOf(x, &g) || g.numInputs != 2 || g.numInits != 1 ||
      g.numLoops != 4 || !embGenericAllParallel(&g) ||
      !embReadBinary(embGenericYielded(&g, 0), "arith.addf", &a, &b))
    return 0;
  intptr_t ai = embGenericArgOperand(&g, a), bi = embGenericArgOperand(&g, b);
  if (ai < 0 || bi < 0 || ai == bi || ai >= 2 || bi >= 2 ||
      !embMapIsIdentityOf(embGenericMap(&g, 2), 4))
    return 0;
  // The scores are read as they are, the bias once per row and key.
  intptr_t si = embMapIsIdentityOf(embGenericMap(&g, ai), 4) ? ai : bi;
  intptr_t mi = 1 - si;
  *scores = embGenericOperand(&g, si);
  MlirValue bias = embGenericOperand(&g, mi);
  MlirType bt = mlirValueGetType(bias);
  MlirAffineMap m = embGenericMap(&g, mi);
  int64_t lk = embDim(mlirValueGetType(*scores), 3);
  if (!embMapIsIdentityOf(embGenericMap(&g, si), 4) ||
      mlirShapedTypeGetRank(bt) != 4 || mlirAffineMapGetNumResults(m) != 4 ||
      embMapResult(m, 0) != 0 || embMapResult(m, 3) != 3 ||
      !fixedAlong(m, 1, bt, 1) || !fixedAlong(m, 2, bt, 2)) {
    embEmitRemarkf(loc,
                   "%s: the mask added to the scores is not one [B, 1, 1, "
                   "Lk] tensor read per row and key; emb.attention masks "
                   "keys per row",
                   passName);
    return -1;
  }
  // The bias: select(m, 0, -inf), or select(!m, -inf, 0), of a boolean m.
  EmbGeneric w;
  MlirOperation select;
  double t, f;
  bool ok = embReadGenericOf(bias, &w) && w.numInits == 1 &&
            embGenericAllParallel(&w) &&
            embMadeBy(embGenericYielded(&w, 0), "arith.select", &select) &&
            embConstFloatIn(&w, mlirOperationGetOperand(select, 1), &t) &&
            embConstFloatIn(&w, mlirOperationGetOperand(select, 2), &f);
  intptr_t ci =
      ok ? embGenericArgOperand(&w, mlirOperationGetOperand(select, 0)) : -1;
  ok = ok && ci >= 0 && ci < w.numInputs &&
       embMapIsIdentityOf(embGenericMap(&w, ci), w.numLoops);
  bool keep = ok && t == 0 && isinf(f) && f < 0;
  bool drop = ok && f == 0 && isinf(t) && t < 0;
  if ((!keep && !drop) ||
      !readLengthMask(embGenericOperand(&w, ci), drop, lk, mask)) {
    embEmitRemarkf(loc,
                   "%s: the attention mask is not `arange(Lk) < lengths` per "
                   "row; emb.attention masks by key lengths only",
                   passName);
    return -1;
  }
  return 1;
}

/// True if `len` is `emb.jagged_to_padded`'s lengths of at most `lk`:
/// min(length, max_length), never negative.
static bool boundedBy(MlirValue len, int64_t lk) {
  MlirOperation op;
  int64_t max;
  return embMadeBy(len, EMB_OP_JAGGED_TO_PADDED, &op) &&
         mlirOpResultGetResultNumber(len) == 1 &&
         embGetIntAttr(op, "max_length", &max) && max <= lk;
}

/// The lengths clamped to 0..lk, as the mask reads them (a length past Lk
/// keeps every key, a negative one none); emb.attention takes them in that
/// range. Lengths that are there already are used as they are.
static MlirValue clampLengths(MlirOperation before, MlirLocation loc,
                              MlirValue len, int64_t lk) {
  if (boundedBy(len, lk))
    return len;
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirType t = mlirValueGetType(len);
  MlirType e = mlirShapedTypeGetElementType(t);
  MlirValue init =
      embCreateEmptyLike(before, loc, t, len, (const int64_t[]){0});
  MlirType args[] = {e, e};
  MlirLocation locs[] = {loc, loc};
  MlirBlock body = mlirBlockCreate(2, args, locs);
  MlirOperation yield = embAppendOp(body, loc, "linalg.yield", 0, NULL,
                                    (MlirType){NULL}, 0, NULL);
  MlirValue lo[] = {mlirBlockGetArgument(body, 0),
                    embCreateIntConstant(yield, loc, e, 0)};
  MlirValue up = mlirOperationGetResult(
      embCreateOp(yield, loc, "arith.maxsi", 2, lo, e, 0, NULL), 0);
  MlirValue hi[] = {up, embCreateIntConstant(yield, loc, e, lk)};
  MlirValue clamped = mlirOperationGetResult(
      embCreateOp(yield, loc, "arith.minsi", 2, hi, e, 0, NULL), 0);
  mlirOperationSetOperands(yield, 1, &clamped);
  MlirAffineMap identity = mlirAffineMapMultiDimIdentityGet(ctx, 1);
  MlirAffineMap maps[] = {identity, identity};
  MlirValue operands[] = {len, init};
  return mlirOperationGetResult(
      embCreateGeneric(before, loc, 1, 1, operands, maps, "p", t, body), 0);
}

/// The key lengths emb.attention takes for `mask`, at the batch of `q`
/// (`b` rows): a broadcast of the users' clamped lengths, or the rows'.
static MlirValue keyLengths(MlirOperation before, MlirLocation loc,
                            const KeyMask *mask, int64_t lk, int64_t b) {
  MlirValue len = clampLengths(before, loc, mask->lengths, lk);
  if (mlirValueIsNull(mask->candToUser))
    return len;
  MlirType t = embWithDim(mlirValueGetType(len), 0, b);
  return embCreateBroadcast(before, loc, len, mask->candToUser, t);
}

//===----------------------------------------------------------------------===//
// The products
//===----------------------------------------------------------------------===//

/// The end of a batched product: bmm, its truncf back to `element` and its
/// expand from [B*H,..] to [B,H,..], whichever are there.
typedef struct {
  MlirOperation bmm, last;
  bool expanded;
} Product;

/// Reads `v` as the end of a product of `element` inputs into zeros.
static bool readProductEnd(MlirValue v, Product *p) {
  MlirValue src;
  v = embSkipCasts(v);
  p->expanded = embReadReshape(v, "tensor.expand_shape", 3, mergeHeads, &src);
  if (p->expanded)
    v = src;
  if (embReadUnaryElementwise(v, "arith.truncf", &src))
    v = src;
  return embMadeBy(v, "linalg.batch_matmul", &p->bmm) &&
         mlirOperationGetNumOperands(p->bmm) == 3 &&
         embIsZeroTensor(mlirOperationGetOperand(p->bmm, 2));
}

/// True if `op` (visited by the walk) ends a product no later op extends:
/// a batch_matmul, its truncf generic or the expand_shape after them.
static bool isProductEnd(MlirOperation op) {
  if (mlirOperationGetNumResults(op) != 1)
    return false;
  MlirValue r = mlirOperationGetResult(op, 0);
  Product p;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(r)) || !readProductEnd(r, &p))
    return false;
  MlirOperation user;
  MlirValue src;
  if (!embSingleUser(r, &user) || mlirOperationGetNumResults(user) != 1)
    return true;
  MlirValue next = mlirOperationGetResult(user, 0);
  bool extends = (!p.expanded && embReadReshape(next, "tensor.expand_shape", 3,
                                                mergeHeads, &src)) ||
                 (embOpIs(op, "linalg.batch_matmul") &&
                  embReadUnaryElementwise(next, "arith.truncf", &src));
  return !extends;
}

//===----------------------------------------------------------------------===//
// Building emb.attention
//===----------------------------------------------------------------------===//

/// Creates emb.attention of the three views (q logical [B,H,Lq,D], k
/// logical `kLayout`, v logical [B,H,Lk,D]), masked by `mask`'s key lengths
/// when it is not null, and returns its result in the layout of `like`:
/// [B,H,Lq,D], or [B*H,Lq,D] / [N,Lq,D] for a 3-D `like`.
static MlirValue buildAttention(MlirOperation before, MlirLocation loc,
                                const View *q, const View *k, bool kTransposed,
                                const View *v, double scale,
                                const KeyMask *mask, MlirType like) {
  MlirContext ctx = mlirLocationGetContext(loc);
  // Logical dims: 4-D (b, h, l, d); 3-D (n, l, d). k^T has l and d swapped.
  bool four = q->rank == 4;
  int b = 0, h = four ? 1 : -1, l = four ? 2 : 1, d = four ? 3 : 2;
  MlirValue eq = toEmbLayout(before, loc, q, b, l, h, d);
  MlirValue ek = kTransposed ? toEmbLayout(before, loc, k, b, d, h, l)
                             : toEmbLayout(before, loc, k, b, l, h, d);
  MlirValue ev = toEmbLayout(before, loc, v, b, l, h, d);
  // A key mask is the model's additive -inf: the masked keys' non-finite
  // scores and values reach the result (additive_mask).
  MlirNamedAttribute attrs[] = {
      embNamedAttr(ctx, "scale",
                   mlirFloatAttrDoubleGet(ctx, mlirF32TypeGet(ctx), scale)),
      embNamedAttr(ctx, EMB_ATTR_ADDITIVE_MASK, mlirUnitAttrGet(ctx))};
  MlirValue operands[] = {eq, ek, ev, {NULL}};
  if (mask)
    operands[3] = keyLengths(before, loc, mask, embDim(mlirValueGetType(ek), 1),
                             embDim(mlirValueGetType(eq), 0));
  MlirValue r = mlirOperationGetResult(
      embCreateOp(before, loc, EMB_OP_ATTENTION, mask ? 4 : 3, operands,
                  mlirValueGetType(eq), mask ? 2 : 1, attrs),
      0);
  MlirType rt = mlirValueGetType(r);
  MlirType element = mlirShapedTypeGetElementType(rt);
  if (four) {
    static const int64_t back[] = {0, 2, 1, 3};
    MlirValue t = embCreateTranspose(before, loc, r, back);
    if (mlirShapedTypeGetRank(like) == 4)
      return t;
    MlirType tt = mlirValueGetType(t);
    // B*H: like's own rows (a product past int64_t is no type's dim).
    int64_t b0 = embDim(tt, 0), h0 = embDim(tt, 1);
    int64_t bh = b0 < 0 || h0 < 0                 ? -1
                 : h0 != 0 && b0 > INT64_MAX / h0 ? embDim(like, 0)
                                                  : b0 * h0;
    int64_t shape[] = {bh, embDim(tt, 2), embDim(tt, 3)};
    return embCreateReshape(before, loc, "tensor.collapse_shape", t,
                            embTensorType(3, shape, element), 3, mergeHeads);
  }
  static const int64_t oneHead[][EMB_MAX_LOOPS] = {
      {0, -1}, {1, -1}, {2, 3, -1}};
  int64_t shape[] = {embDim(rt, 0), embDim(rt, 1), embDim(rt, 3)};
  return embCreateReshape(before, loc, "tensor.collapse_shape", r,
                          embTensorType(3, shape, element), 3, oneHead);
}

/// Checks what emb.attention needs of the views: one float type, q and v of
/// one head dim, v unscaled. Remarks at `loc` when not.
static bool viewsFit(const View *q, const View *k, const View *v,
                     MlirLocation loc) {
  MlirType qt = mlirValueGetType(q->source);
  MlirType e = mlirShapedTypeGetElementType(qt);
  if (q->rank != k->rank || q->rank != v->rank) {
    embEmitRemarkf(loc,
                   "%s: q, k and v do not all have heads (some are 4-D, "
                   "some 3-D)",
                   passName);
    return false;
  }
  if (!embIsFloat(e) ||
      !mlirTypeEqual(
          e, mlirShapedTypeGetElementType(mlirValueGetType(k->source))) ||
      !mlirTypeEqual(
          e, mlirShapedTypeGetElementType(mlirValueGetType(v->source)))) {
    embEmitRemarkf(loc, "%s: q, k and v are not one float type", passName);
    return false;
  }
  if (v->scale != 1.0) {
    embEmitRemarkf(loc, "%s: v is scaled by %g", passName, v->scale);
    return false;
  }
  int64_t dq = embDim(qt, q->dimOf[q->rank - 1]);
  int64_t dv = embDim(mlirValueGetType(v->source), v->dimOf[v->rank - 1]);
  if (dq != dv) {
    embEmitRemarkf(loc,
                   "%s: v has head dim %lld and q %lld; emb.attention takes "
                   "one head dim",
                   passName, (long long)dv, (long long)dq);
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The decomposed form
//===----------------------------------------------------------------------===//

static void raiseDecomposed(MlirOperation op) {
  if (!isProductEnd(op))
    return;
  Product out;
  MlirValue result = mlirOperationGetResult(op, 0);
  readProductEnd(result, &out);
  MlirValue p3 = mlirOperationGetOperand(out.bmm, 0), p = embSkipCasts(p3), src;
  if (embReadReshape(p, "tensor.collapse_shape", 3, mergeHeads, &src))
    p = src;
  if (!looksLikeSoftmax(p))
    return;
  MlirLocation loc = mlirOperationGetLocation(out.bmm);
  bool guarded;
  MlirValue x = readSoftmax(p, loc, &guarded);
  if (mlirValueIsNull(x))
    return;
  // A boolean attn_mask added to the scores: key lengths. A row with no
  // keys is all -inf, which the guard makes zeros, as emb.attention does.
  KeyMask mask;
  MlirValue unmasked;
  int masked = readKeyMask(x, loc, &unmasked, &mask);
  if (masked < 0)
    return;
  if (masked && !guarded) {
    embEmitRemarkf(loc,
                   "%s: a masked softmax without _safe_softmax's guard gives "
                   "NaN for a row with no keys, where emb.attention gives "
                   "zeros",
                   passName);
    return;
  }
  if (masked)
    x = unmasked;
  // The scores: q @ k^T into zeros, maybe scaled.
  View scores;
  peelView(x, (int)mlirShapedTypeGetRank(mlirValueGetType(x)), &scores);
  Product qk;
  bool plain = true;
  for (int i = 0; i < scores.rank; ++i)
    plain &= scores.dimOf[i] == i;
  if (!plain || !readProductEnd(scores.source, &qk) ||
      qk.expanded != (scores.rank == 4) || out.expanded != qk.expanded) {
    embEmitRemarkf(loc, "%s: the scores are not q @ k^T accumulated into zeros",
                   passName);
    return;
  }
  View q, k, v;
  readOperand(mlirOperationGetOperand(qk.bmm, 0), &q);
  readOperand(mlirOperationGetOperand(qk.bmm, 1), &k);
  readOperand(mlirOperationGetOperand(out.bmm, 1), &v);
  if (!viewsFit(&q, &k, &v, loc))
    return;
  double scale = scores.scale * q.scale * k.scale;
  MlirValue raised =
      buildAttention(op, loc, &q, &k, true, &v, scale, masked ? &mask : NULL,
                     mlirValueGetType(result));
  embReplaceAndErase(op, 0, raised);
}

//===----------------------------------------------------------------------===//
// tm_tensor.attention
//===----------------------------------------------------------------------===//

static void raiseTmTensor(MlirOperation op) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirAttribute seg = mlirOperationGetInherentAttributeByName(
      op, embStr("operandSegmentSizes"));
  if (mlirAttributeIsNull(seg))
    seg = mlirOperationGetDiscardableAttributeByName(
        op, embStr("operandSegmentSizes"));
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) != 2 ||
      mlirOperationGetNumResults(op) != 1)
    return;
  int32_t numInputs = mlirDenseI32ArrayGetElement(seg, 0);
  if (numInputs != 3) {
    embEmitRemarkf(loc,
                   "%s: tm_tensor.attention with a mask; emb.attention has "
                   "none",
                   passName);
    return;
  }
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType rt = mlirValueGetType(result);
  if (!mlirTypeIsARankedTensor(rt) || mlirShapedTypeGetRank(rt) != 3) {
    embEmitRemarkf(loc, "%s: tm_tensor.attention not on 3-D tensors", passName);
    return;
  }
  View q, k, v;
  readOperand(mlirOperationGetOperand(op, 0), &q);
  readOperand(mlirOperationGetOperand(op, 1), &k);
  readOperand(mlirOperationGetOperand(op, 2), &v);
  if (!viewsFit(&q, &k, &v, loc))
    return;
  MlirAttribute a =
      mlirOperationGetInherentAttributeByName(op, embStr("scale"));
  if (mlirAttributeIsNull(a))
    a = mlirOperationGetDiscardableAttributeByName(op, embStr("scale"));
  double scale;
  if (!mlirAttributeIsNull(a) && mlirAttributeIsAFloat(a)) {
    scale = mlirFloatAttrGetValueDouble(a);
  } else {
    int64_t d = embDim(mlirValueGetType(mlirOperationGetOperand(op, 0)), 2);
    if (d <= 0) {
      embEmitRemarkf(loc,
                     "%s: the default scale 1/sqrt(D) of a dynamic head dim",
                     passName);
      return;
    }
    scale = 1.0 / sqrt((double)d);
  }
  scale *= q.scale * k.scale;
  MlirValue raised =
      buildAttention(op, loc, &q, &k, false, &v, scale, NULL, rt);
  embReplaceAndErase(op, 0, raised);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static bool raiseOne(MlirOperation op, const void *options) {
  (void)options;
  if (embOpIs(op, "tm_tensor.attention"))
    raiseTmTensor(op);
  else
    raiseDecomposed(op);
  return true;
}

static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  embRaiseNestedOps(root, pass, passName, raiseOne, options);
}

const EmbPassDef embRaiseAttentionPassDef = {
    .argument = "emb-raise-attention",
    .name = "EmbRaiseAttention",
    .summary = "Raise torch-mlir's scaled dot-product attention (decomposed, "
               "or tm_tensor.attention) into emb.attention",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};
