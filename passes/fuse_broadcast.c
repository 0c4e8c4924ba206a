//===- passes/fuse_broadcast.c - emb-fuse-broadcast -----------------------===//
//
// Folds `emb.broadcast` into the ops that mix user and candidate data, so no
// candidate-sized copy of a user tensor is made:
//
//   - emb.lce(w, tensor.concat dim(1) (pieces...)) where some pieces are
//     emb.broadcast(u_i, idx) of one idx and the others are candidate
//     tensors -> emb.ikbo_lce(w_user, w_cand, user, cand, idx) (Type I,
//     decomposable). `user` concatenates the u_i at user batch size, `cand`
//     the other pieces, and w's columns are sliced and regrouped to match
//     (tensor.extract_slice + tensor.concat), also when user and candidate
//     pieces are interleaved. By linearity over the K split,
//     w @ x[b] = w_cand @ cand[b] + w_user @ user[idx[b]].
//   - emb.attention(q, broadcast(k, idx), broadcast(v, idx)) ->
//     emb.ikbo_attention(q, k, v, idx) (Type II, memory only), keeping scale;
//     with key lengths broadcast(len, idx) too, -> ikbo_attention(q, k, v,
//     idx, len), which reads and checks the same lengths as the broadcast
//     (len[idx[b]] per candidate, not the lengths of users no candidate
//     selects).
//   - arith.addf of a broadcast and a candidate tensor, either order ->
//     emb.broadcast_add(u, idx, cand).
//
// A broadcast with several users is folded into each and is erased once no
// user is left; so is a concat the lce was the last user of.
//
// Preconditions: the IR verifies; emb-sink-broadcast has run if user-only
// work should not block fusion. Tensors broadcast by one cand_to_user value
// share the request's user count U.
// Postconditions: the ops above no longer read a broadcast they could fold.
// Where an lce's concat holds broadcasts but cannot be fused (a piece of
// dynamic K), or attention's k and v (and key lengths) are not broadcast by
// one cand_to_user, the op is left alone with a remark. The pass never
// fails.
//
//===----------------------------------------------------------------------===//

#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include <stdlib.h>

//===----------------------------------------------------------------------===//
// emb.lce of a concat of user and candidate pieces -> emb.ikbo_lce
//===----------------------------------------------------------------------===//

/// One piece of the lce's concat: its K and, for a user piece, the tensor
/// broadcast into it.
typedef struct {
  MlirValue value;
  MlirOperation broadcast; ///< null for a candidate piece
  int64_t k;
  int64_t offset; ///< first column of w it multiplies
  bool user;      ///< a broadcast by the chosen cand_to_user
} Piece;

/// Picks the cand_to_user whose broadcasts cover the most K; null if no
/// piece is a broadcast.
static MlirValue chooseCandToUser(const Piece *pieces, intptr_t n) {
  MlirValue best = {NULL};
  int64_t bestK = -1;
  for (intptr_t i = 0; i < n; ++i) {
    if (mlirOperationIsNull(pieces[i].broadcast))
      continue;
    MlirValue idx = mlirOperationGetOperand(pieces[i].broadcast, 1);
    int64_t k = 0;
    for (intptr_t j = 0; j < n; ++j)
      if (!mlirOperationIsNull(pieces[j].broadcast) &&
          mlirValueEqual(mlirOperationGetOperand(pieces[j].broadcast, 1), idx))
        k += pieces[j].k;
    if (k > bestK) {
      best = idx;
      bestK = k;
    }
  }
  return best;
}

/// The columns of `w` that multiply the pieces with `user == which`: one
/// extract_slice per run of adjacent such pieces, concatenated.
static MlirValue regroupColumns(MlirOperation before, MlirLocation loc,
                                MlirValue w, const Piece *pieces, intptr_t n,
                                bool which, MlirValue *slices) {
  intptr_t numSlices = 0;
  for (intptr_t i = 0; i < n;) {
    if (pieces[i].user != which) {
      ++i;
      continue;
    }
    int64_t begin = pieces[i].offset, size = 0;
    while (i < n && pieces[i].user == which)
      size += pieces[i++].k;
    slices[numSlices++] = embCreateSliceAlong(before, loc, w, 1, begin, size);
  }
  return embCreateConcat(before, loc, 1, numSlices, slices);
}

/// The pieces with `user == which`, concatenated along K (dim 1).
static MlirValue concatPieces(MlirOperation before, MlirLocation loc,
                              const Piece *pieces, intptr_t n, bool which,
                              MlirValue *values) {
  intptr_t m = 0;
  for (intptr_t i = 0; i < n; ++i)
    if (pieces[i].user == which)
      values[m++] = which ? mlirOperationGetOperand(pieces[i].broadcast, 0)
                          : pieces[i].value;
  return embCreateConcat(before, loc, 1, m, values);
}

/// Checks that the user pieces can be concatenated at user batch size: their
/// static user counts agree.
static bool userCountsAgree(const Piece *pieces, intptr_t n) {
  int64_t users = -1;
  for (intptr_t i = 0; i < n; ++i) {
    if (!pieces[i].user)
      continue;
    int64_t u = embDim(
        mlirValueGetType(mlirOperationGetOperand(pieces[i].broadcast, 0)), 0);
    if (u >= 0 && users >= 0 && u != users)
      return false;
    if (u >= 0)
      users = u;
  }
  return true;
}

/// Rewrites `lce` given its concat's pieces; false (after a remark where
/// useful) if it does not apply.
static bool fuseLcePieces(MlirOperation lce, MlirOperation concat,
                          Piece *pieces, intptr_t n, MlirValue *scratch) {
  MlirLocation loc = mlirOperationGetLocation(lce);
  int64_t offset = 0;
  bool anyBroadcast = false;
  for (intptr_t i = 0; i < n; ++i) {
    pieces[i].value = mlirOperationGetOperand(concat, i);
    pieces[i].broadcast = embDefiningOp(pieces[i].value, EMB_OP_BROADCAST);
    pieces[i].k = embDim(mlirValueGetType(pieces[i].value), 1);
    pieces[i].offset = offset;
    anyBroadcast |= !mlirOperationIsNull(pieces[i].broadcast);
    if (pieces[i].k >= 0)
      offset += pieces[i].k;
  }
  if (!anyBroadcast)
    return false;
  for (intptr_t i = 0; i < n; ++i) {
    if (pieces[i].k < 0) {
      embEmitRemarkf(loc,
                     "'emb.lce' not fused with its broadcast inputs: concat "
                     "piece %lld has a dynamic K",
                     (long long)i);
      return false;
    }
  }
  MlirValue idx = chooseCandToUser(pieces, n);
  intptr_t numUser = 0;
  for (intptr_t i = 0; i < n; ++i) {
    pieces[i].user =
        !mlirOperationIsNull(pieces[i].broadcast) &&
        mlirValueEqual(mlirOperationGetOperand(pieces[i].broadcast, 1), idx);
    numUser += pieces[i].user;
  }
  // All user pieces: emb-sink-broadcast's case (the whole lce runs on users).
  if (numUser == n)
    return false;
  if (!userCountsAgree(pieces, n)) {
    embEmitRemarkf(loc, "'emb.lce' not fused with its broadcast inputs: the "
                        "broadcast user tensors have different user counts");
    return false;
  }

  MlirValue w = mlirOperationGetOperand(lce, 0);
  MlirValue wUser = regroupColumns(lce, loc, w, pieces, n, true, scratch);
  MlirValue wCand = regroupColumns(lce, loc, w, pieces, n, false, scratch);
  MlirValue user = concatPieces(lce, loc, pieces, n, true, scratch);
  MlirValue cand = concatPieces(lce, loc, pieces, n, false, scratch);
  MlirValue operands[] = {wUser, wCand, user, cand, idx};
  MlirValue result = mlirOperationGetResult(lce, 0);
  MlirOperation ikbo = embCreateOp(lce, loc, EMB_OP_IKBO_LCE, 5, operands,
                                   mlirValueGetType(result), 0, NULL);
  embReplaceOp(lce, mlirOperationGetResult(ikbo, 0));
  embEraseDeadChain(concat);
  return true;
}

static bool fuseLce(MlirOperation lce) {
  MlirOperation concat =
      embDefiningOp(mlirOperationGetOperand(lce, 1), "tensor.concat");
  int64_t dim = 0;
  if (mlirOperationIsNull(concat) || !embGetIntAttr(concat, "dim", &dim) ||
      dim != 1)
    return false;
  intptr_t n = mlirOperationGetNumOperands(concat);
  Piece *pieces = malloc((size_t)n * sizeof *pieces);
  MlirValue *scratch = malloc((size_t)n * sizeof *scratch);
  bool fused =
      pieces && scratch && fuseLcePieces(lce, concat, pieces, n, scratch);
  free(pieces);
  free(scratch);
  return fused;
}

//===----------------------------------------------------------------------===//
// emb.attention on broadcast keys and values -> emb.ikbo_attention
//===----------------------------------------------------------------------===//

static bool fuseAttention(MlirOperation op) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirOperation bk =
      embDefiningOp(mlirOperationGetOperand(op, 1), EMB_OP_BROADCAST);
  MlirOperation bv =
      embDefiningOp(mlirOperationGetOperand(op, 2), EMB_OP_BROADCAST);
  if (mlirOperationIsNull(bk) && mlirOperationIsNull(bv))
    return false;
  if (mlirOperationIsNull(bk) || mlirOperationIsNull(bv)) {
    embEmitRemarkf(loc,
                   "'emb.attention' not fused: only its %s is a "
                   "broadcast (k and v must both be)",
                   mlirOperationIsNull(bk) ? "v" : "k");
    return false;
  }
  MlirValue idx = mlirOperationGetOperand(bk, 1);
  if (!mlirValueEqual(idx, mlirOperationGetOperand(bv, 1))) {
    embEmitRemarkf(loc, "'emb.attention' not fused: k and v are broadcast by "
                        "different cand_to_user values");
    return false;
  }
  MlirValue k = mlirOperationGetOperand(bk, 0);
  MlirValue v = mlirOperationGetOperand(bv, 0);
  int64_t ku = embDim(mlirValueGetType(k), 0);
  int64_t vu = embDim(mlirValueGetType(v), 0);
  if (ku >= 0 && vu >= 0 && ku != vu)
    return false;
  // Key lengths per row become the users' lengths when they are the users'
  // broadcast by the same cand_to_user; cand_to_user and user_lengths
  // share one integer type.
  bool masked = mlirOperationGetNumOperands(op) == 4;
  MlirValue len = {NULL};
  if (masked) {
    MlirOperation bl =
        embDefiningOp(mlirOperationGetOperand(op, 3), EMB_OP_BROADCAST);
    if (mlirOperationIsNull(bl) ||
        !mlirValueEqual(mlirOperationGetOperand(bl, 1), idx)) {
      embEmitRemarkf(loc, "'emb.attention' not fused: its key_lengths are not "
                          "broadcast by the cand_to_user of k and v");
      return false;
    }
    len = mlirOperationGetOperand(bl, 0);
    MlirType lt = mlirShapedTypeGetElementType(mlirValueGetType(len));
    MlirType it = mlirShapedTypeGetElementType(mlirValueGetType(idx));
    if (!mlirTypeEqual(lt, it)) {
      embEmitRemarkf(loc, "'emb.attention' not fused: its key_lengths and "
                          "cand_to_user hold different integer types");
      return false;
    }
  }
  MlirValue operands[] = {mlirOperationGetOperand(op, 0), k, v, idx, len};
  // The op's own attributes carry over: scale, compute_type and
  // additive_mask.
  const char *names[] = {"scale", "compute_type", EMB_ATTR_ADDITIVE_MASK};
  MlirNamedAttribute attrs[3];
  intptr_t numAttrs = 0;
  for (int i = 0; i < 3; ++i) {
    MlirAttribute a = mlirOperationGetAttributeByName(op, embStr(names[i]));
    if (!mlirAttributeIsNull(a))
      attrs[numAttrs++] =
          embNamedAttr(mlirOperationGetContext(op), names[i], a);
  }
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirOperation ikbo =
      embCreateOp(op, loc, EMB_OP_IKBO_ATTENTION, masked ? 5 : 4, operands,
                  mlirValueGetType(result), numAttrs, attrs);
  MlirValue old[] = {
      mlirOperationGetOperand(op, 1), mlirOperationGetOperand(op, 2),
      masked ? mlirOperationGetOperand(op, 3) : (MlirValue){NULL}};
  embReplaceOp(op, mlirOperationGetResult(ikbo, 0));
  embEraseDeadProducers(masked ? 3 : 2, old);
  return true;
}

//===----------------------------------------------------------------------===//
// arith.addf of a broadcast and a candidate tensor -> emb.broadcast_add
//===----------------------------------------------------------------------===//

static bool fuseAdd(MlirOperation op) {
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(result);
  if (!mlirTypeIsARankedTensor(t) ||
      !embIsFloat(mlirShapedTypeGetElementType(t)))
    return false;
  int side = 0;
  MlirOperation b =
      embDefiningOp(mlirOperationGetOperand(op, side), EMB_OP_BROADCAST);
  if (mlirOperationIsNull(b)) {
    side = 1;
    b = embDefiningOp(mlirOperationGetOperand(op, side), EMB_OP_BROADCAST);
  }
  if (mlirOperationIsNull(b))
    return false;
  MlirValue operands[] = {mlirOperationGetOperand(b, 0),
                          mlirOperationGetOperand(b, 1),
                          mlirOperationGetOperand(op, 1 - side)};
  MlirOperation add =
      embCreateOp(op, mlirOperationGetLocation(op), EMB_OP_BROADCAST_ADD, 3,
                  operands, t, 0, NULL);
  embReplaceOp(op, mlirOperationGetResult(add, 0));
  embEraseDeadChain(b);
  return true;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static bool fuseOne(MlirOperation op, const void *options) {
  (void)options;
  if (embOpIs(op, EMB_OP_LCE))
    fuseLce(op);
  else if (embOpIs(op, EMB_OP_ATTENTION))
    fuseAttention(op);
  else if (embOpIs(op, "arith.addf"))
    fuseAdd(op);
  return true;
}

static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  embRewriteNestedOps(root, pass, "emb-fuse-broadcast", fuseOne, options);
}

const EmbPassDef embFuseBroadcastPassDef = {
    .argument = "emb-fuse-broadcast",
    .name = "EmbFuseBroadcast",
    .summary =
        "Fold emb.broadcast into the ops that mix user and candidate data",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};

MlirPass embCreateFuseBroadcastPass(void) {
  return embMakePass(&embFuseBroadcastPassDef, NULL);
}
