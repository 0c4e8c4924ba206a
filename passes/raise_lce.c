//===- passes/raise_lce.c - emb-raise-lce ---------------------------------===//
//
// Raises the linear compression `torch.matmul(W[M,K], X[B,K,N])` into
// `emb.lce(W, X)` -> [B,M,N], in the two forms torch-mlir writes it:
//
//   - broadcast: W copied to [B,M,K] by a generic whose input map is
//     (b, m, k) -> (m, k), then `linalg.batch_matmul` of that copy and X into
//     a zero fill;
//   - folded (what PyTorch's matmul does when it folds the batch into the
//     rows): X transposed to [B,N,K] and collapsed to [B*N,K],
//     `linalg.matmul` by W transposed to [K,M] into a zero fill, the result
//     expanded to [B,N,M] and transposed to [B,M,N].
//
// f16 and bf16 accumulate in f32: the matmul's fill is f32 and an
// elementwise `arith.truncf` generic brings the result back, which the raise
// consumes (emb.lce has one float type throughout). Each rewrite is anchored
// on the last op of its form (the truncf, the final transpose), so what it
// erases comes before it.
//
// When X is a `tensor.concat` along K of broadcast user pieces and
// candidate pieces, emb-ikbo turns the raised lce into emb.ikbo_lce.
//
// Preconditions: none. Postconditions: these forms are emb.lce; a batched
// matmul by a broadcast 2-D matrix that does not compute W @ X[b] into zero
// in one float type is left alone with a remark. The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "linalg_match.h"
#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include "mlir-c/BuiltinTypes.h"

static const char passName[] = "emb-raise-lce";

//===----------------------------------------------------------------------===//
// The accumulation: a zero fill, and f16/bf16 brought back from f32
//===----------------------------------------------------------------------===//

/// True if the only user of `v` is an arith.truncf generic.
static bool truncatedLater(MlirValue v) {
  MlirOperation user;
  MlirValue src;
  return embSingleUser(v, &user) && mlirOperationGetNumResults(user) == 1 &&
         embReadUnaryElementwise(mlirOperationGetResult(user, 0),
                                 "arith.truncf", &src);
}

/// `result` (of a matmul whose inputs hold `element`) as the lce's result:
/// itself when it holds `element`, else the truncf generic that is its only
/// user (in `*tail`). False, after a remark at `loc`, if neither.
static bool readAccumulation(MlirValue result, MlirType element,
                             MlirOperation *tail, MlirLocation loc) {
  MlirType acc = mlirShapedTypeGetElementType(mlirValueGetType(result));
  *tail = mlirOpResultGetOwner(result);
  if (mlirTypeEqual(acc, element))
    return true;
  MlirOperation user;
  if (truncatedLater(result) && embSingleUser(result, &user) &&
      mlirTypeEqual(mlirShapedTypeGetElementType(
                        mlirValueGetType(mlirOperationGetResult(user, 0))),
                    element)) {
    *tail = user;
    return true;
  }
  char a[32], e[32];
  embPrintType(acc, a, sizeof a);
  embPrintType(element, e, sizeof e);
  embEmitRemarkf(loc,
                 "%s: accumulates in %s but its result is not truncated "
                 "back to %s",
                 passName, a, e);
  return false;
}

/// For the op `op` visited by the walk: if it is the truncf generic of a
/// matmul named `name`, that matmul; if it is such a matmul and no truncf
/// follows it (which the walk visits later), itself.
static MlirOperation matmulOfTail(MlirOperation op, const char *name) {
  // A matmul on memrefs has no result: it is no tensor program to raise.
  if (mlirOperationGetNumResults(op) != 1)
    return (MlirOperation){NULL};
  if (embOpIs(op, name))
    return truncatedLater(mlirOperationGetResult(op, 0)) ? (MlirOperation){NULL}
                                                         : op;
  MlirValue src;
  MlirOperation mm;
  if (mlirOperationGetNumResults(op) == 1 &&
      embReadUnaryElementwise(mlirOperationGetResult(op, 0), "arith.truncf",
                              &src) &&
      embMadeBy(src, name, &mm))
    return mm;
  return (MlirOperation){NULL};
}

/// Checks the product `mm` of `a` and `b` as an lce's: one float type, into
/// zeros, its result that type or truncated back to it (the truncf in
/// `*tail`). Remarks at the product when not.
static bool readProduct(MlirOperation mm, MlirValue a, MlirValue b,
                        MlirOperation *tail) {
  MlirLocation loc = mlirOperationGetLocation(mm);
  MlirType element = mlirShapedTypeGetElementType(mlirValueGetType(a));
  if (!embIsFloat(element) ||
      !mlirTypeEqual(element,
                     mlirShapedTypeGetElementType(mlirValueGetType(b)))) {
    embEmitRemarkf(loc, "%s: w and x are not one float type", passName);
    return false;
  }
  if (!embIsZeroTensor(mlirOperationGetOperand(mm, 2))) {
    embEmitRemarkf(loc, "%s: the product is not accumulated into zeros",
                   passName);
    return false;
  }
  return readAccumulation(mlirOperationGetResult(mm, 0), element, tail, loc);
}

/// Replaces `op`'s result by emb.lce(w, x) of its type.
static void replaceByLce(MlirOperation op, MlirLocation loc, MlirValue w,
                         MlirValue x) {
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirValue operands[] = {embSkipCasts(w), x};
  MlirValue lce =
      mlirOperationGetResult(embCreateOp(op, loc, EMB_OP_LCE, 2, operands,
                                         mlirValueGetType(result), 0, NULL),
                             0);
  embReplaceAndErase(op, 0, lce);
}

//===----------------------------------------------------------------------===//
// Broadcast form: batch_matmul(copy of W to [B,M,K], X)
//===----------------------------------------------------------------------===//

/// Raises the broadcast form whose last op is `op`; false if `op` ends no
/// such form.
static bool raiseBroadcastForm(MlirOperation op) {
  MlirOperation bmm = matmulOfTail(op, "linalg.batch_matmul");
  if (mlirOperationIsNull(bmm) || mlirOperationGetNumOperands(bmm) != 3)
    return false;
  MlirValue wb = mlirOperationGetOperand(bmm, 0);
  MlirValue x = mlirOperationGetOperand(bmm, 1);
  MlirValue w;
  MlirAffineMap map;
  static const int64_t mk[] = {1, 2};
  // Not W broadcast to the batch: a batched matmul of two batched tensors
  // (attention), which is not an lce.
  if (!embReadCopy(wb, &w, &map) || !embMapIs(map, 2, mk))
    return false;
  MlirOperation tail;
  if (!readProduct(bmm, w, x, &tail) || !mlirOperationEqual(tail, op))
    return false;
  replaceByLce(op, mlirOperationGetLocation(bmm), w, x);
  return true;
}

//===----------------------------------------------------------------------===//
// Folded form: transpose(expand(matmul(collapse(transpose(X)), W^T)))
//===----------------------------------------------------------------------===//

static const int64_t swapLast[] = {0, 2, 1};
static const int64_t mergeRows[][EMB_MAX_LOOPS] = {{0, 1, -1}, {2, -1}};

/// True if `perm` (of `n` dims) equals `want`.
static bool permIs(const int64_t *perm, intptr_t n, const int64_t *want) {
  for (intptr_t i = 0; i < n; ++i)
    if (perm[i] != want[i])
      return false;
  return true;
}

/// Raises the folded form whose last op, the transpose `op`, ends it.
static bool raiseFoldedForm(MlirOperation op) {
  int64_t perm[EMB_MAX_LOOPS];
  MlirValue expanded, y2, xRows, xt, wt;
  MlirValue result = mlirOperationGetNumResults(op) == 1
                         ? mlirOperationGetResult(op, 0)
                         : (MlirValue){NULL};
  if (mlirValueIsNull(result) ||
      !mlirTypeIsARankedTensor(mlirValueGetType(result)) ||
      mlirShapedTypeGetRank(mlirValueGetType(result)) != 3 ||
      !embReadTranspose(result, &expanded, perm) ||
      !permIs(perm, 3, swapLast) ||
      !embReadReshape(expanded, "tensor.expand_shape", 2, mergeRows, &y2))
    return false;
  MlirOperation mm = matmulOfTail(embProducer(y2), "linalg.matmul");
  if (mlirOperationIsNull(mm) || mlirOperationGetNumOperands(mm) != 3 ||
      !embReadReshape(mlirOperationGetOperand(mm, 0), "tensor.collapse_shape",
                      2, mergeRows, &xRows))
    return false;
  MlirLocation loc = mlirOperationGetLocation(mm);
  wt = mlirOperationGetOperand(mm, 1);
  MlirOperation tail;
  if (!readProduct(mm, xRows, wt, &tail) ||
      !mlirValueEqual(mlirOperationGetResult(tail, 0), y2))
    return false;
  // X[B,K,N] is the rows' source with its last two dims swapped back, W[M,K]
  // the right operand transposed back (a frozen W^T gets a transpose).
  static const int64_t swap2[] = {1, 0};
  int64_t p[EMB_MAX_LOOPS];
  MlirValue x = embReadTranspose(xRows, &xt, p) && permIs(p, 3, swapLast)
                    ? xt
                    : embCreateTranspose(op, loc, xRows, swapLast);
  MlirValue w = embReadTranspose(wt, &xt, p) && permIs(p, 2, swap2)
                    ? xt
                    : embCreateTranspose(op, loc, wt, swap2);
  replaceByLce(op, loc, w, x);
  return true;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static bool raiseOne(MlirOperation op, const void *options) {
  (void)options;
  if (!raiseBroadcastForm(op))
    raiseFoldedForm(op);
  return true;
}

static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  embRaiseNestedOps(root, pass, passName, raiseOne, options);
}

const EmbPassDef embRaiseLcePassDef = {
    .argument = "emb-raise-lce",
    .name = "EmbRaiseLce",
    .summary = "Raise torch-mlir's matmul(W[M,K], X[B,K,N]) into emb.lce",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};
