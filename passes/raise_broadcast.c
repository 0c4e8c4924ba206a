//===- passes/raise_broadcast.c - emb-raise-broadcast ---------------------===//
//
// Raises the user->candidate broadcasts that torch-mlir writes without an
// index tensor into `emb.broadcast` with a generated cand_to_user. torch-mlir
// never emits linalg.broadcast: `expand`/`broadcast_to` collapse the size-1
// dims they broadcast (tensor.collapse_shape) and copy with a linalg.generic
// whose input map leaves the broadcast loops out.
//
//   - one user: `u[1,...].expand(B, ...)` copies the collapsed u to every
//     row: a copy generic whose input map leaves out loop 0, reading a
//     tensor collapsed from [1,...] -> emb.broadcast(u, zeros[B]);
//   - a fixed number of candidates per user:
//     `u.unsqueeze(1).expand(U, R, ...).reshape(U*R, ...)` is a copy generic
//     [U,R,...] leaving out loop 1, then a collapse of dims 0 and 1 ->
//     emb.broadcast(u, c2u) with c2u[b] = b / R; the tile
//     `u.expand(R, U, ...).reshape(R*U, ...)` (loop 0 left out) gives
//     c2u[b] = b % U.
//
// The generated cand_to_user is a dense `arith.constant` (i32), which
// emb's lowering reads like any constant; CSE merges equal ones, so the
// broadcasts of one ratio share one cand_to_user and fuse together.
//
// Copies that broadcast another loop (a size-1 feature dim), or a tensor
// with no batch dim at all (a weight copied to every row, as the matmul
// lowering does), are not user->candidate broadcasts: they are left alone
// with a remark. Run emb-raise-lce first, which consumes the weight copies of
// its matmuls.
//
// Preconditions: none. Postconditions: the forms above are emb.broadcast
// (static batch only: the generated map is a constant). The pass never
// fails.
//
//===----------------------------------------------------------------------===//

#include "linalg_match.h"
#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>

static const char passName[] = "emb-raise-broadcast";

/// The loops a copy's input map leaves out, as a bit mask; -1 if the map
/// reads a loop twice, out of order or by an expression (not a broadcast).
static int64_t missingLoops(MlirAffineMap map, intptr_t loops) {
  int64_t seen = 0, last = -1;
  for (intptr_t i = 0, n = mlirAffineMapGetNumResults(map); i < n; ++i) {
    int64_t d = embMapResult(map, i);
    if (d == EMB_MAP_ZERO)
      continue;
    if (d < 0 || d <= last)
      return -1;
    seen |= (int64_t)1 << d;
    last = d;
  }
  return (((int64_t)1 << loops) - 1) & ~seen;
}

/// Creates the i32 cand_to_user of `rows` candidates, c2u[b] = b / per % of.
static MlirValue generatedMap(MlirOperation before, MlirLocation loc,
                              int64_t rows, int64_t per, int64_t of) {
  int64_t *values = malloc((size_t)rows * sizeof *values);
  if (!values)
    return (MlirValue){NULL};
  for (int64_t b = 0; b < rows; ++b)
    values[b] = b / per % of;
  MlirValue v = embCreateIntVector(
      before, loc, mlirIntegerTypeGet(mlirLocationGetContext(loc), 32), rows,
      values);
  free(values);
  return v;
}

//===----------------------------------------------------------------------===//
// One user: a copy generic that leaves out loop 0
//===----------------------------------------------------------------------===//

/// Raises the copy `op` of one user's row to every row.
static void raiseOneUser(MlirOperation op, MlirValue src) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType type = mlirValueGetType(result);
  intptr_t rank = mlirShapedTypeGetRank(type);
  // The user tensor is what was collapsed: [1, rest...].
  MlirOperation collapse;
  MlirValue user = (MlirValue){NULL};
  if (embMadeBy(src, "tensor.collapse_shape", &collapse)) {
    MlirValue before = mlirOperationGetOperand(collapse, 0);
    MlirType bt = mlirValueGetType(before);
    bool same = mlirShapedTypeGetRank(bt) == rank && embDim(bt, 0) == 1;
    for (intptr_t i = 1; same && i < rank; ++i)
      same = embDim(bt, i) == embDim(type, i);
    if (same)
      user = before;
  }
  if (mlirValueIsNull(user)) {
    embEmitRemarkf(loc,
                   "%s: copies a tensor with no batch dim to every row (a "
                   "weight, not a user tensor of one row)",
                   passName);
    return;
  }
  int64_t rows = embDim(type, 0);
  if (rows < 0) {
    embEmitRemarkf(loc,
                   "%s: a dynamic batch: the generated cand_to_user needs a "
                   "static one",
                   passName);
    return;
  }
  MlirValue map = generatedMap(op, loc, rows, 1, 1);
  if (mlirValueIsNull(map))
    return;
  embReplaceAndErase(op, 0, embCreateBroadcast(op, loc, user, map, type));
}

//===----------------------------------------------------------------------===//
// A fixed ratio: a copy [U,R,...] or [R,U,...] collapsed to [U*R,...]
//===----------------------------------------------------------------------===//

/// Raises the collapse `op` of a copy that leaves out loop 0 or 1 of the
/// two it merges; false if `op` is no such collapse.
static bool raiseRatio(MlirOperation op) {
  MlirValue copy;
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  intptr_t rank = mlirShapedTypeGetRank(type);
  if (rank + 1 > EMB_MAX_LOOPS)
    return false;
  int64_t groups[EMB_MAX_LOOPS][EMB_MAX_LOOPS];
  groups[0][0] = 0;
  groups[0][1] = 1;
  groups[0][2] = -1;
  for (intptr_t i = 1; i < rank; ++i) {
    groups[i][0] = i + 1;
    groups[i][1] = -1;
  }
  MlirValue src;
  MlirAffineMap map;
  if (rank < 1 ||
      !embReadReshape(mlirOperationGetResult(op, 0), "tensor.collapse_shape",
                      rank, (const int64_t(*)[EMB_MAX_LOOPS])groups, &copy) ||
      !embReadCopy(copy, &src, &map) ||
      mlirAffineMapGetNumDims(map) != rank + 1)
    return false;
  int64_t missing = missingLoops(map, rank + 1);
  if (missing != 1 && missing != 2)
    return false;
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirType copyType = mlirValueGetType(copy);
  int64_t d0 = embDim(copyType, 0), d1 = embDim(copyType, 1);
  if (d0 < 0 || d1 < 0) {
    embEmitRemarkf(loc,
                   "%s: a dynamic batch: the generated cand_to_user needs a "
                   "static one",
                   passName);
    return true;
  }
  // Loop 1 left out: row b is user b / R. Loop 0 left out: the users are
  // repeated R times, row b is user b % U.
  MlirValue c2u = missing == 2 ? generatedMap(op, loc, d0 * d1, d1, d0)
                               : generatedMap(op, loc, d0 * d1, 1, d1);
  if (mlirValueIsNull(c2u))
    return true;
  embReplaceAndErase(op, 0, embCreateBroadcast(op, loc, src, c2u, type));
  return true;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static bool raiseOne(MlirOperation op, const void *options) {
  (void)options;
  if (embOpIs(op, "tensor.collapse_shape")) {
    raiseRatio(op);
    return true;
  }
  MlirValue src;
  MlirAffineMap map;
  if (mlirOperationGetNumResults(op) != 1 ||
      !embReadCopy(mlirOperationGetResult(op, 0), &src, &map))
    return true;
  intptr_t loops = mlirAffineMapGetNumDims(map);
  int64_t missing = missingLoops(map, loops);
  if (missing <= 0)
    return true;
  // A ratio copy is raised at its collapse, which comes later.
  MlirOperation user;
  if ((missing == 1 || missing == 2) &&
      embSingleUser(mlirOperationGetResult(op, 0), &user) &&
      embOpIs(user, "tensor.collapse_shape"))
    return true;
  if (missing == 1) {
    raiseOneUser(op, src);
    return true;
  }
  int64_t first = 0;
  while (!(missing & ((int64_t)1 << first)))
    ++first;
  embEmitRemarkf(mlirOperationGetLocation(op),
                 "%s: broadcasts along dim %lld, not the batch dim", passName,
                 (long long)first);
  return true;
}

static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  embRaiseNestedOps(root, pass, passName, raiseOne, options);
}

const EmbPassDef embRaiseBroadcastPassDef = {
    .argument = "emb-raise-broadcast",
    .name = "EmbRaiseBroadcast",
    .summary = "Raise torch-mlir's expand/broadcast_to copies of user rows "
               "into emb.broadcast",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};
