//===- passes/sink_broadcast.c - emb-sink-broadcast -----------------------===//
//
// Moves `emb.broadcast` below ops that act on each batch row alone and whose
// other operands do not depend on the batch row, so those ops run on the U
// user rows instead of the B candidate rows:
//
//   op(broadcast(u, idx), c)  ->  broadcast(op(u, c'), idx)
//
// where `op` is
//   - an elementwise arith or math op on tensors whose every tensor operand
//     is a broadcast by the same cand_to_user value or a splat (arith.constant
//     splat or static tensor.splat, re-made at the user shape); scalar
//     operands (arith.select's condition) are fine; not integer division or
//     remainder, which may trap on a row no candidate reads;
//   - emb.lce(w, broadcast(u, idx)) -> broadcast(emb.lce(w, u), idx);
//   - emb.attention whose q, k and v (and key lengths) are all broadcast by
//     one cand_to_user, the key lengths (if any) in 0..Lk whatever the
//     inputs;
//   - tensor.concat along a dim other than 0 of broadcasts by one
//     cand_to_user;
//   - tensor.collapse_shape and tensor.expand_shape that keep dim 0 alone;
//   - emb.broadcast itself: broadcast(broadcast(u, i1), i2) ->
//     broadcast(u, broadcast(i1, i2)), since broadcasting the rank-1 index
//     i1 by i2 gives i1[i2[b]], the composed map, when i1 is a constant of
//     rows of u;
//   - tensor.dim of a broadcast reads cand_to_user's length (dim 0) or the
//     user tensor's dim instead, so shape computations keep no broadcast
//     alive.
//
// A rewrite keeps the errors of the model as well as its numbers. On user
// rows an op reads every user row, where as written it reads only the rows
// some candidate selects; of the ops above only integer division (a zero
// divisor traps) and two checks could see the difference. Attention's key
// lengths: on user rows every user's length is checked against Lk, so the
// attention sinks only when no length can be out of range (a constant, or
// emb.jagged_to_padded's lengths of max_length <= Lk); otherwise
// emb-fuse-broadcast makes it an emb.ikbo_attention, which checks the lengths
// its candidates read. A broadcast of a broadcast: the inner broadcast checks
// every entry of i1 against U, the composed one only the entries i2 selects, so
// it composes only when i1 is provably in range (a constant of rows of a static
// U). The alternative, a check of all of i1 kept beside the composed broadcast,
// would be an op whose result nothing reads, which erasing dead ops drops; and
// composing an input i1 saves only the i1-sized copy of u, which
// emb-fuse-broadcast can fuse as it is.
//
// Preconditions: the IR verifies. Tensors broadcast by one cand_to_user value
// share the request's user count U; where two such counts are static and
// differ, the op is left alone.
// Postconditions: no op above has a broadcast operand it could be sunk
// through; broadcasts by different cand_to_user values are never merged; a
// broadcast or splat left without users is erased. The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "pass.h"
#include "rewrite.h"

#include "ir.h"

enum { maxOperands = 16 };

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// The broadcast operands of one op: every one is by `candToUser`, and its
/// users' tensors have type `userType` (the first one's).
typedef struct {
  MlirValue candToUser;
  MlirType userType;
} Batch;

/// Adds broadcast `b` to `batch`; false if it is by another cand_to_user or
/// its user count contradicts the others'.
static bool joinBatch(Batch *batch, MlirOperation b) {
  MlirValue ro = mlirOperationGetOperand(b, 0);
  MlirValue idx = mlirOperationGetOperand(b, 1);
  if (mlirValueIsNull(batch->candToUser)) {
    batch->candToUser = idx;
    batch->userType = mlirValueGetType(ro);
    return true;
  }
  if (!mlirValueEqual(batch->candToUser, idx))
    return false;
  int64_t u = embDim(mlirValueGetType(ro), 0);
  int64_t v = embDim(batch->userType, 0);
  return u < 0 || v < 0 || u == v;
}

/// The user tensor broadcast by `candToUser` into `v`, or a null value.
static MlirValue broadcastSource(MlirValue v, MlirValue candToUser) {
  MlirOperation b = embDefiningOp(v, EMB_OP_BROADCAST);
  if (mlirOperationIsNull(b) ||
      !mlirValueEqual(mlirOperationGetOperand(b, 1), candToUser))
    return (MlirValue){NULL};
  return mlirOperationGetOperand(b, 0);
}

/// True if `v` holds one value in every element: an arith.constant splat or
/// a tensor.splat of static shape.
static bool isSplat(MlirValue v) {
  MlirOperation c = embDefiningOp(v, "arith.constant");
  if (!mlirOperationIsNull(c)) {
    MlirAttribute value = mlirOperationGetAttributeByName(c, embStr("value"));
    return !mlirAttributeIsNull(value) &&
           mlirAttributeIsADenseElements(value) &&
           mlirDenseElementsAttrIsSplat(value);
  }
  MlirOperation s = embDefiningOp(v, "tensor.splat");
  return !mlirOperationIsNull(s) && mlirOperationGetNumOperands(s) == 1;
}

/// The splat `v` re-made at `type`, before `before`.
static MlirValue resplat(MlirOperation before, MlirValue v, MlirType type) {
  MlirOperation def = mlirOpResultGetOwner(v);
  MlirLocation loc = mlirOperationGetLocation(def);
  if (embOpIs(def, "tensor.splat")) {
    MlirValue scalar = mlirOperationGetOperand(def, 0);
    return mlirOperationGetResult(
        embCreateOp(before, loc, "tensor.splat", 1, &scalar, type, 0, NULL), 0);
  }
  MlirAttribute value = mlirOperationGetAttributeByName(def, embStr("value"));
  return embCreateSplatConstant(before, loc, type,
                                mlirDenseElementsAttrGetSplatValue(value));
}

/// True if every element of `v` is in lo..hi whatever the inputs: an
/// arith.constant of dense integers (a splat or not) whose entries all are.
static bool constantWithin(MlirValue v, int64_t lo, int64_t hi) {
  MlirOperation c = embDefiningOp(v, "arith.constant");
  if (mlirOperationIsNull(c))
    return false;
  MlirAttribute value = mlirOperationGetAttributeByName(c, embStr("value"));
  if (mlirAttributeIsNull(value) || !mlirAttributeIsADenseIntElements(value))
    return false;
  MlirType element = mlirShapedTypeGetElementType(mlirAttributeGetType(value));
  if (!embIsIndexInt(element))
    return false;
  bool i64 = mlirIntegerTypeGetWidth(element) == 64;
  intptr_t n = mlirDenseElementsAttrIsSplat(value)
                   ? 1
                   : mlirElementsAttrGetNumElements(value);
  for (intptr_t i = 0; i < n; ++i) {
    int64_t x = i64 ? mlirDenseElementsAttrGetInt64Value(value, i)
                    : mlirDenseElementsAttrGetInt32Value(value, i);
    if (x < lo || x > hi)
      return false;
  }
  return true;
}

/// True if the key lengths `len` (one per user) are in 0..lk whatever the
/// inputs: a constant whose entries are, or the lengths of an
/// emb.jagged_to_padded whose max_length is at most lk (it clamps them).
static bool lengthsWithin(MlirValue len, int64_t lk) {
  if (lk < 0)
    return false;
  MlirOperation j = embDefiningOp(len, EMB_OP_JAGGED_TO_PADDED);
  int64_t maxLength = 0;
  if (!mlirOperationIsNull(j))
    return mlirOpResultGetResultNumber(len) == 1 &&
           embGetIntAttr(j, "max_length", &maxLength) && maxLength <= lk;
  return constantWithin(len, 0, lk);
}

//===----------------------------------------------------------------------===//
// The rewrite: run a copy of the op on user rows, broadcast its result
//===----------------------------------------------------------------------===//

/// Replaces `op` by a copy of it on `operands` whose result has type
/// `userResult`, followed by a broadcast of that result by `candToUser` at
/// `op`'s result type. Erases what `op` kept alive.
static void sinkInto(MlirOperation op, intptr_t numOperands,
                     const MlirValue *operands, MlirType userResult,
                     MlirValue candToUser) {
  MlirValue old[maxOperands];
  intptr_t numOld = mlirOperationGetNumOperands(op);
  for (intptr_t i = 0; i < numOld; ++i)
    old[i] = mlirOperationGetOperand(op, i);
  MlirOperation user = mlirOperationClone(op);
  mlirOperationSetOperands(user, numOperands, operands);
  mlirValueSetType(mlirOperationGetResult(user, 0), userResult);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, user);
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirValue b = embCreateBroadcast(op, mlirOperationGetLocation(op),
                                   mlirOperationGetResult(user, 0), candToUser,
                                   mlirValueGetType(result));
  embReplaceOp(op, b);
  embEraseDeadProducers(numOld, old);
}

/// True if `op` has one ranked tensor result and at most maxOperands
/// operands (the ops this pass rewrites).
static bool isSmallTensorOp(MlirOperation op) {
  return mlirOperationGetNumResults(op) == 1 &&
         mlirOperationGetNumOperands(op) <= maxOperands &&
         mlirTypeIsARankedTensor(
             mlirValueGetType(mlirOperationGetResult(op, 0)));
}

//===----------------------------------------------------------------------===//
// Elementwise arith and math ops
//===----------------------------------------------------------------------===//

/// Integer division and remainder (and math.ipowi, which divides for a
/// negative exponent) trap or are undefined for some operands (a zero
/// divisor, INT_MIN / -1). On user rows they would also run on the rows of
/// users no candidate selects, which as written they never see.
static bool mayTrap(MlirOperation op) {
  static const char *const names[] = {
      "arith.divsi",     "arith.divui",     "arith.remsi",      "arith.remui",
      "arith.ceildivsi", "arith.ceildivui", "arith.floordivsi", "math.ipowi"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (embOpIs(op, names[i]))
      return true;
  return false;
}

static bool sinkElementwise(MlirOperation op) {
  if (mayTrap(op))
    return false;
  intptr_t n = mlirOperationGetNumOperands(op);
  Batch batch = {{NULL}, {NULL}};
  bool splat[maxOperands] = {false};
  for (intptr_t i = 0; i < n; ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    MlirType t = mlirValueGetType(v);
    if (!mlirTypeIsAShaped(t))
      continue;
    if (!mlirTypeIsARankedTensor(t))
      return false;
    MlirOperation b = embDefiningOp(v, EMB_OP_BROADCAST);
    if (!mlirOperationIsNull(b)) {
      if (!joinBatch(&batch, b))
        return false;
    } else if (isSplat(v)) {
      splat[i] = true;
    } else {
      return false;
    }
  }
  if (mlirValueIsNull(batch.candToUser))
    return false;
  // Every tensor operand takes the first user tensor's shape, so that ops
  // that require equal operand types stay valid; splats need it static.
  MlirValue operands[maxOperands];
  for (intptr_t i = 0; i < n; ++i) {
    operands[i] = mlirOperationGetOperand(op, i);
    if (splat[i] && !embIsStatic(batch.userType))
      return false;
    MlirValue u = broadcastSource(operands[i], batch.candToUser);
    if (!mlirValueIsNull(u) &&
        !embSameShape(mlirValueGetType(u), batch.userType))
      return false;
  }
  for (intptr_t i = 0; i < n; ++i) {
    MlirType t = mlirValueGetType(operands[i]);
    if (splat[i])
      operands[i] = resplat(
          op, operands[i],
          embWithElement(batch.userType, mlirShapedTypeGetElementType(t)));
    else if (mlirTypeIsARankedTensor(t))
      operands[i] = broadcastSource(operands[i], batch.candToUser);
  }
  MlirType result = mlirValueGetType(mlirOperationGetResult(op, 0));
  sinkInto(op, n, operands,
           embWithElement(batch.userType, mlirShapedTypeGetElementType(result)),
           batch.candToUser);
  return true;
}

//===----------------------------------------------------------------------===//
// emb.lce, emb.attention, tensor.concat
//===----------------------------------------------------------------------===//

/// Sinks through `op` when the operands in `batched` (a mask) are all
/// broadcasts by one cand_to_user and the others are left as they are. The
/// user-row result has the type of user operand `resultLike`, or, when it is
/// negative, the result's type with U rows.
static bool sinkBatchedOperands(MlirOperation op, unsigned batched,
                                int resultLike) {
  intptr_t n = mlirOperationGetNumOperands(op);
  Batch batch = {{NULL}, {NULL}};
  MlirValue operands[maxOperands];
  for (intptr_t i = 0; i < n; ++i) {
    operands[i] = mlirOperationGetOperand(op, i);
    if (!(batched & (1u << i)))
      continue;
    MlirOperation b = embDefiningOp(operands[i], EMB_OP_BROADCAST);
    if (mlirOperationIsNull(b) || !joinBatch(&batch, b))
      return false;
    operands[i] = mlirOperationGetOperand(b, 0);
  }
  if (mlirValueIsNull(batch.candToUser))
    return false;
  MlirType result = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirType userResult = resultLike >= 0
                            ? mlirValueGetType(operands[resultLike])
                            : embWithDim(result, 0, embDim(batch.userType, 0));
  sinkInto(op, n, operands, userResult, batch.candToUser);
  return true;
}

/// q, k, v and the key lengths are all per row; the result has q's type.
/// With key lengths, the attention on user rows would read (and check) the
/// length of every user, where the model as written reads only those of the
/// users some candidate maps to: a length outside 0..Lk of a user no
/// candidate reads would make a valid model fail. So it sinks only when the
/// lengths are in range whatever the inputs; otherwise it stays per
/// candidate, for emb-fuse-broadcast to make an emb.ikbo_attention (which
/// checks the lengths its candidates read).
static bool sinkAttention(MlirOperation op) {
  if (mlirOperationGetNumOperands(op) == 3)
    return sinkBatchedOperands(op, 7u, 0);
  MlirOperation k =
      embDefiningOp(mlirOperationGetOperand(op, 1), EMB_OP_BROADCAST);
  MlirOperation len =
      embDefiningOp(mlirOperationGetOperand(op, 3), EMB_OP_BROADCAST);
  if (mlirOperationIsNull(k) || mlirOperationIsNull(len) ||
      !lengthsWithin(
          mlirOperationGetOperand(len, 0),
          embDim(mlirValueGetType(mlirOperationGetOperand(k, 0)), 1)))
    return false;
  return sinkBatchedOperands(op, 15u, 0);
}

static bool sinkConcat(MlirOperation op) {
  int64_t dim = 0;
  if (!embGetIntAttr(op, "dim", &dim) || dim == 0)
    return false;
  intptr_t n = mlirOperationGetNumOperands(op);
  if (n > maxOperands)
    return false;
  Batch batch = {{NULL}, {NULL}};
  MlirValue operands[maxOperands];
  for (intptr_t i = 0; i < n; ++i) {
    MlirOperation b =
        embDefiningOp(mlirOperationGetOperand(op, i), EMB_OP_BROADCAST);
    if (mlirOperationIsNull(b) || !joinBatch(&batch, b))
      return false;
    operands[i] = mlirOperationGetOperand(b, 0);
  }
  // A fresh concat infers its own user-row type.
  MlirValue old[maxOperands];
  for (intptr_t i = 0; i < n; ++i)
    old[i] = mlirOperationGetOperand(op, i);
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue user = embCreateConcat(op, loc, dim, n, operands);
  MlirValue result = mlirOperationGetResult(op, 0);
  embReplaceOp(op, embCreateBroadcast(op, loc, user, batch.candToUser,
                                      mlirValueGetType(result)));
  embEraseDeadProducers(n, old);
  return true;
}

//===----------------------------------------------------------------------===//
// tensor.collapse_shape and tensor.expand_shape keeping dim 0 alone
//===----------------------------------------------------------------------===//

/// True if the op's first reassociation group is [0].
static bool keepsBatchDim(MlirOperation op) {
  MlirAttribute r =
      mlirOperationGetInherentAttributeByName(op, embStr("reassociation"));
  if (mlirAttributeIsNull(r) || !mlirAttributeIsAArray(r) ||
      mlirArrayAttrGetNumElements(r) == 0)
    return false;
  MlirAttribute first = mlirArrayAttrGetElement(r, 0);
  return mlirAttributeIsAArray(first) &&
         mlirArrayAttrGetNumElements(first) == 1 &&
         mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(first, 0)) == 0;
}

static bool sinkCollapse(MlirOperation op) {
  return keepsBatchDim(op) && sinkBatchedOperands(op, 1u, -1);
}

/// expand_shape also names its output shape: dim 0 becomes U, given as a
/// tensor.dim of the user tensor when U is dynamic.
static bool sinkExpand(MlirOperation op) {
  if (!keepsBatchDim(op))
    return false;
  MlirOperation b =
      embDefiningOp(mlirOperationGetOperand(op, 0), EMB_OP_BROADCAST);
  if (mlirOperationIsNull(b))
    return false;
  MlirAttribute shape = mlirOperationGetInherentAttributeByName(
      op, embStr("static_output_shape"));
  intptr_t rank = mlirDenseArrayGetNumElements(shape);
  intptr_t n = mlirOperationGetNumOperands(op);
  if (rank > maxOperands || n > maxOperands)
    return false;
  MlirValue u = mlirOperationGetOperand(b, 0);
  MlirValue idx = mlirOperationGetOperand(b, 1);
  int64_t users = embDim(mlirValueGetType(u), 0);
  int64_t dims[maxOperands];
  for (intptr_t i = 0; i < rank; ++i)
    dims[i] = mlirDenseI64ArrayGetElement(shape, i);
  bool wasDynamic = dims[0] == mlirShapedTypeGetDynamicSize();
  dims[0] = users < 0 ? mlirShapedTypeGetDynamicSize() : users;
  // Operands: the source, then one size per dynamic dim, dim 0's first.
  MlirValue operands[maxOperands + 1];
  intptr_t numOperands = 0;
  operands[numOperands++] = u;
  if (users < 0)
    operands[numOperands++] =
        embCreateDim(op, mlirOperationGetLocation(op), u, 0);
  for (intptr_t i = wasDynamic ? 2 : 1; i < n; ++i)
    operands[numOperands++] = mlirOperationGetOperand(op, i);
  MlirValue old[maxOperands];
  for (intptr_t i = 0; i < n; ++i)
    old[i] = mlirOperationGetOperand(op, i);
  MlirContext ctx = mlirOperationGetContext(op);
  MlirType result = mlirValueGetType(mlirOperationGetResult(op, 0));
  MlirOperation user = mlirOperationClone(op);
  mlirOperationSetOperands(user, numOperands, operands);
  mlirOperationSetInherentAttributeByName(
      user, embStr("static_output_shape"),
      mlirDenseI64ArrayGet(ctx, rank, dims));
  mlirValueSetType(mlirOperationGetResult(user, 0),
                   embWithDim(result, 0, users));
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(op), op, user);
  embReplaceOp(op, embCreateBroadcast(op, mlirOperationGetLocation(op),
                                      mlirOperationGetResult(user, 0), idx,
                                      result));
  embEraseDeadProducers(n, old);
  return true;
}

//===----------------------------------------------------------------------===//
// emb.broadcast of a broadcast
//===----------------------------------------------------------------------===//

/// broadcast(broadcast(u, i1), i2) -> broadcast(u, broadcast(i1, i2)) when
/// every entry of i1 is a row of u whatever the inputs (a constant i1 and a
/// static U). As written, the inner broadcast checks every entry of i1; the
/// composed form checks only the entries i2 selects (i1[i2[b]] against U),
/// so an out-of-range entry that i2 does not read would no longer be an
/// error. Keeping a check of all of i1 would need an op that only checks
/// (nothing else reads its result), which erasing dead ops would drop; a
/// provably valid i1 needs no check.
static bool composeBroadcasts(MlirOperation op) {
  MlirOperation inner =
      embDefiningOp(mlirOperationGetOperand(op, 0), EMB_OP_BROADCAST);
  if (mlirOperationIsNull(inner))
    return false;
  MlirValue u = mlirOperationGetOperand(inner, 0);
  MlirValue i1 = mlirOperationGetOperand(inner, 1);
  int64_t users = embDim(mlirValueGetType(u), 0);
  if (users < 0 || !constantWithin(i1, 0, users - 1))
    return false;
  MlirValue i2 = mlirOperationGetOperand(op, 1);
  MlirType i1Type = mlirValueGetType(i1);
  MlirType composedType =
      embWithDim(i1Type, 0, embDim(mlirValueGetType(i2), 0));
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirValue composed = embCreateBroadcast(op, loc, i1, i2, composedType);
  MlirValue result = mlirOperationGetResult(op, 0);
  embReplaceOp(
      op, embCreateBroadcast(op, loc, u, composed, mlirValueGetType(result)));
  embEraseDeadChain(inner);
  return true;
}

//===----------------------------------------------------------------------===//
// tensor.dim of a broadcast
//===----------------------------------------------------------------------===//

/// A broadcast's dim 0 is cand_to_user's length and its other dims are the
/// user tensor's: reading them there leaves a broadcast that only fed
/// shapes without users (exporters size reshapes with tensor.dim).
static bool readDimThrough(MlirOperation op) {
  MlirOperation b =
      embDefiningOp(mlirOperationGetOperand(op, 0), EMB_OP_BROADCAST);
  MlirOperation c =
      embDefiningOp(mlirOperationGetOperand(op, 1), "arith.constant");
  int64_t i = 0;
  if (mlirOperationIsNull(b) || mlirOperationIsNull(c) ||
      !embGetIntAttr(c, "value", &i))
    return false;
  mlirOperationSetOperand(op, 0, mlirOperationGetOperand(b, i == 0 ? 1 : 0));
  embEraseDeadChain(b);
  return true;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static bool sinkOne(MlirOperation op, const void *options) {
  (void)options;
  if (embOpIs(op, "tensor.dim")) {
    readDimThrough(op);
    return true;
  }
  if (!isSmallTensorOp(op))
    return true;
  if (embIsElementwise(op))
    sinkElementwise(op);
  else if (embOpIs(op, EMB_OP_LCE))
    sinkBatchedOperands(op, 1u << 1, -1);
  else if (embOpIs(op, EMB_OP_ATTENTION))
    sinkAttention(op);
  else if (embOpIs(op, "tensor.concat"))
    sinkConcat(op);
  else if (embOpIs(op, "tensor.collapse_shape"))
    sinkCollapse(op);
  else if (embOpIs(op, "tensor.expand_shape"))
    sinkExpand(op);
  else if (embOpIs(op, EMB_OP_BROADCAST))
    composeBroadcasts(op);
  return true;
}

// Producers come first, so a broadcast sunk below one op is seen again by
// that op's users further down the list.
static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  embRewriteNestedOps(root, pass, "emb-sink-broadcast", sinkOne, options);
}

const EmbPassDef embSinkBroadcastPassDef = {
    .argument = "emb-sink-broadcast",
    .name = "EmbSinkBroadcast",
    .summary = "Run per-row ops on user rows: move emb.broadcast below them",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};

MlirPass embCreateSinkBroadcastPass(void) {
  return embMakePass(&embSinkBroadcastPassDef, NULL);
}
