//===- codegen/signature.c - Describing an entry function for runners -----===//
//
// Reads an entry function at the tensor level (before lowering) and says, for
// each argument, what it holds: ids and offsets of a lookup, a cand_to_user
// index, user lengths, per-sample weights, a training step's optimizer
// states, hyper-parameters and step, or plain data, with the ranges that
// make random inputs valid (ids below the smallest table a lookup uses,
// users below the user batch, steps from 1). Lookups are emb ops, or
// torch-mlir's gathers in linalg bodies (a row of a table read with
// tensor.extract at an id). Runners use it to make inputs and to size outputs;
// the AOT header carries it as data.
//
//===----------------------------------------------------------------------===//

#include "ir.h"
#include "linalg_match.h"
#include "runtime_abi.h"

#include "emb/emb.h"
#include "emb/runtime.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(EMB_MODEL_MAX_RANK == EMBRT_MAX_RANK,
               "an EmbArgSpec holds every rank the runtime takes");

static void fillSpec(EmbArgSpec *s, MlirType t) {
  memset(s, 0, sizeof *s);
  s->dtype = (int)embRuntimeDtype(mlirShapedTypeGetElementType(t));
  s->rank = (int)mlirShapedTypeGetRank(t);
  for (int i = 0; i < s->rank && i < EMB_MODEL_MAX_RANK; ++i)
    s->dims[i] = embDim(t, i);
  s->role =
      embIsFloat(mlirShapedTypeGetElementType(t)) ? EMB_ARG_DATA : EMB_ARG_IDS;
  s->lo = 0;
  s->hi = INT64_MAX;
  s->ref = -1;
}

typedef struct {
  MlirBlock block;
  EmbArgSpec *inputs;
  intptr_t numInputs;
} Describe;

/// The function argument `v` is, or -1.
static intptr_t argIndex(Describe *d, MlirValue v) {
  if (!mlirValueIsABlockArgument(v))
    return -1;
  if (!mlirBlockEqual(mlirBlockArgumentGetOwner(v), d->block))
    return -1;
  return mlirBlockArgumentGetArgNumber(v);
}

static intptr_t sourceArgument(Describe *d, MlirValue v);

static void setRole(Describe *d, MlirValue v, int role, int64_t lo,
                    int64_t hi) {
  intptr_t i = sourceArgument(d, v);
  if (i < 0)
    return;
  EmbArgSpec *s = &d->inputs[i];
  s->role = role;
  s->lo = lo > s->lo ? lo : s->lo;
  if (hi >= 0 && hi < s->hi)
    s->hi = hi;
}

//===----------------------------------------------------------------------===//
// Arguments seen through what passes their values on
//===----------------------------------------------------------------------===//

/// True if `op` is a clamp or a cast of the integer operand `*v` (a
/// bound that is a constant, or a value from outside the body of `g` when
/// `g` is set); then `*v` is what it clamps or casts.
static bool readClampOrCast(MlirOperation op, const EmbGeneric *g,
                            MlirValue *v) {
  static const char *const casts[] = {"arith.index_cast", "arith.extsi",
                                      "arith.extui", "arith.trunci"};
  static const char *const clamps[] = {"arith.maxsi", "arith.minsi",
                                       "arith.maxui", "arith.minui"};
  for (size_t i = 0; i < sizeof casts / sizeof casts[0]; ++i)
    if (embOpIs(op, casts[i])) {
      *v = mlirOperationGetOperand(op, 0);
      return true;
    }
  for (size_t i = 0; i < sizeof clamps / sizeof clamps[0]; ++i) {
    if (!embOpIs(op, clamps[i]))
      continue;
    for (int k = 0; k < 2; ++k) {
      MlirValue bound = mlirOperationGetOperand(op, 1 - k);
      int64_t c;
      MlirAttribute splat = {NULL};
      MlirOperation def = embProducer(bound);
      if (!mlirOperationIsNull(def) && embOpIs(def, "arith.constant"))
        splat = mlirOperationGetAttributeByName(def, embStr("value"));
      if (embConstInt(bound, &c) ||
          (!mlirAttributeIsNull(splat) &&
           mlirAttributeIsADenseElements(splat) &&
           mlirDenseElementsAttrIsSplat(splat)) ||
          (g && embDefinedAbove(g, bound))) {
        *v = mlirOperationGetOperand(op, k);
        return true;
      }
    }
  }
  return false;
}

/// The input of `g` whose elements it yields clamped or cast (an
/// elementwise generic of identity maps, as torch.clamp or .to(dtype)
/// become), or null.
static MlirValue clampedInput(const EmbGeneric *g) {
  MlirValue none = {NULL};
  if (g->numInits != 1 || !embGenericAllParallel(g) ||
      !embMapIsIdentityOf(embGenericMap(g, g->numInputs), g->numLoops))
    return none;
  MlirValue v = embGenericYielded(g, 0);
  for (int depth = 0; depth < 8 && mlirValueIsAOpResult(v); ++depth)
    if (!readClampOrCast(mlirOpResultGetOwner(v), g, &v))
      return none;
  intptr_t i = embGenericArgOperand(g, v);
  if (i < 0 || i >= g->numInputs ||
      !embMapIsIdentityOf(embGenericMap(g, i), g->numLoops))
    return none;
  return embGenericOperand(g, i);
}

/// The function argument whose values `v` holds, or -1: `v` itself, or seen
/// back through what passes values on unchanged or clamped (casts, clamps
/// with constant bounds, as tensor ops or elementwise generics, reshapes)
/// and through emb.broadcast (a candidate's row is its user's). Random
/// values in a role's range stay in it through all of these, so the role
/// of what an op reads is that of the argument it comes from: key lengths
/// that emb-raise-attention clamps to 0..Lk and broadcasts to the
/// candidates are the users' lengths.
static intptr_t sourceArgument(Describe *d, MlirValue v) {
  for (int depth = 0; depth < 32; ++depth) {
    intptr_t i = argIndex(d, v);
    if (i >= 0 || !mlirValueIsAOpResult(v))
      return i;
    MlirOperation def = mlirOpResultGetOwner(v);
    EmbGeneric g;
    if (embOpIs(def, "tensor.cast") || embOpIs(def, "tensor.expand_shape") ||
        embOpIs(def, "tensor.collapse_shape") ||
        embOpIs(def, EMB_OP_BROADCAST)) {
      v = mlirOperationGetOperand(def, 0);
    } else if (embReadGeneric(def, &g)) {
      v = clampedInput(&g);
      if (mlirValueIsNull(v))
        return -1;
    } else if (!readClampOrCast(def, NULL, &v)) {
      return -1;
    }
  }
  return -1;
}

/// If `v` is `arange(n)` (a generic of no inputs over one loop yielding its
/// index, through integer casts and an expand_shape), n; else -1.
static int64_t arangeLength(MlirValue v) {
  MlirOperation expand;
  if (embMadeBy(v, "tensor.expand_shape", &expand))
    v = mlirOperationGetOperand(expand, 0);
  EmbGeneric g;
  if (!embReadGenericOf(v, &g) || g.numInputs != 0 || g.numLoops != 1 ||
      !embIsLoopIndex(embStripIntCasts(embGenericYielded(&g, 0)), 0))
    return -1;
  return embDim(mlirValueGetType(v), 0);
}

/// torch's mask of key lengths, `arange(Lk) < lengths.unsqueeze(1)` (as
/// SDPA's attn_mask, before emb-raise-attention makes it emb.attention's
/// key_lengths): a generic yielding `pos < len` where pos is the key
/// position (linalg.index, or an input that is an arange) and len an
/// element of an input. The lengths are in 1..Lk, so that every row keeps
/// a key and none reads past the keys.
static void keyMaskRoles(Describe *d, MlirOperation op) {
  EmbGeneric g;
  int pred;
  MlirValue pos, len;
  if (!embReadGeneric(op, &g) || g.numInits != 1 ||
      !embReadCmpI(embGenericYielded(&g, 0), &pred, &pos, &len) ||
      pred != EMB_CMPI_SLT)
    return;
  pos = embStripIntCasts(pos);
  len = embStripIntCasts(len);
  intptr_t li = embGenericArgOperand(&g, len);
  intptr_t pi = embGenericArgOperand(&g, pos);
  if (li < 0 || li >= g.numInputs)
    return;
  int64_t lk = -1;
  if (pi >= 0 && pi < g.numInputs) {
    lk = arangeLength(embGenericOperand(&g, pi));
  } else if (pi < 0 && mlirValueIsAOpResult(pos) &&
             embOpIs(mlirOpResultGetOwner(pos), "linalg.index")) {
    MlirAttribute dim = mlirOperationGetAttributeByName(
        mlirOpResultGetOwner(pos), embStr("dim"));
    MlirAffineMap out = embGenericMap(&g, g.numInputs);
    if (!mlirAttributeIsNull(dim) && embMapIsIdentityOf(out, g.numLoops))
      lk = embDim(mlirValueGetType(embGenericOperand(&g, g.numInputs)),
                  mlirIntegerAttrGetValueInt(dim));
  }
  if (lk >= 1)
    setRole(d, embGenericOperand(&g, li), EMB_ARG_LENGTHS, 1, lk);
}

/// Rows of a table operand (through emb.table for handles), -1 if dynamic.
static int64_t tableRows(MlirValue v) {
  if (mlirValueIsAOpResult(v) && embOpIs(mlirOpResultGetOwner(v), EMB_OP_TABLE))
    v = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
  return embDim(mlirValueGetType(v), 0);
}

static void lookupRoles(Describe *d, MlirOperation op, intptr_t idx,
                        intptr_t off, intptr_t firstTable, intptr_t nTables,
                        intptr_t psw) {
  int64_t rows = -1;
  for (intptr_t t = 0; t < nTables; ++t) {
    MlirValue table = mlirOperationGetOperand(op, firstTable + t);
    int64_t r = tableRows(table);
    if (r >= 0 && (rows < 0 || r < rows))
      rows = r;
    // A quantized table's packed rows: random inputs pack valid rows.
    EmbTableInfo info;
    if (mlirValueIsAOpResult(table) &&
        embOpIs(mlirOpResultGetOwner(table), EMB_OP_TABLE) &&
        embGetTableInfo(table, &info) && embTableIsQuantized(&info))
      setRole(d, mlirOperationGetOperand(mlirOpResultGetOwner(table), 0),
              EMB_ARG_PACKED_TABLE, info.precision, info.dim);
  }
  MlirValue ids = mlirOperationGetOperand(op, idx);
  setRole(d, ids, EMB_ARG_IDS, 0, rows);
  setRole(d, mlirOperationGetOperand(op, off), EMB_ARG_OFFSETS, 0, -1);
  intptr_t o = sourceArgument(d, mlirOperationGetOperand(op, off));
  if (o >= 0)
    d->inputs[o].ref = (int)sourceArgument(d, ids);
  if (psw >= 0) {
    MlirValue w = mlirOperationGetOperand(op, psw);
    setRole(d, w, EMB_ARG_WEIGHTS, 0, -1);
    intptr_t wi = sourceArgument(d, w);
    if (wi >= 0)
      d->inputs[wi].ref = (int)sourceArgument(d, ids);
  }
}

/// torch-mlir's gathers (aten.embedding, index_select, x[idx]) read a row of
/// a table in a linalg body: `tensor.extract %table[%row, ...]` where %row is
/// an element of an input of the linalg op, cast to index (and, for x[idx],
/// wrapped when negative: select(%in < 0, %in + rows, %in)). Returns that
/// input, or null.
static MlirValue gatheredIds(MlirOperation extract) {
  MlirValue none = {NULL};
  if (mlirOperationGetNumOperands(extract) < 2)
    return none;
  MlirValue v = mlirOperationGetOperand(extract, 1);
  while (mlirValueIsAOpResult(v)) {
    MlirOperation def = mlirOpResultGetOwner(v);
    if (embOpIs(def, "arith.index_cast") || embOpIs(def, "arith.extsi") ||
        embOpIs(def, "arith.extui") || embOpIs(def, "arith.trunci"))
      v = mlirOperationGetOperand(def, 0);
    else if (embOpIs(def, "arith.select"))
      v = mlirOperationGetOperand(def, 2); // the id as it is, not wrapped
    else
      return none;
  }
  MlirBlock body = mlirBlockArgumentGetOwner(v);
  MlirOperation linalg = mlirBlockGetParentOperation(body);
  intptr_t k = mlirBlockArgumentGetArgNumber(v);
  if (mlirOperationIsNull(linalg) ||
      strncmp(mlirIdentifierStr(mlirOperationGetName(linalg)).data, "linalg.",
              7) ||
      k >= mlirOperationGetNumOperands(linalg))
    return none;
  return mlirOperationGetOperand(linalg, k);
}

/// The most steps random inputs start a backward's step at (t in [1, this]).
enum { maxRandomStep = 100 };

/// The argument whose buffer a backward op's updated operand `v` is, or
/// -1: through the ops that alias a buffer (emb.table, emb.state,
/// emb.table_value, reshapes) and the results of an earlier backward op
/// (each its updated operand's buffer).
static intptr_t updatedArgument(Describe *d, MlirValue v) {
  for (int depth = 0; depth < 32; ++depth) {
    v = embBufferRoot(v);
    if (!mlirValueIsAOpResult(v))
      return argIndex(d, v);
    MlirOperation def = mlirOpResultGetOwner(v);
    EmbBackwardOperands b;
    if ((!embOpIs(def, EMB_OP_TBE_BACKWARD) &&
         !embOpIs(def, EMB_OP_EMBEDDING_BAG_BACKWARD)) ||
        !embGetBackwardOperands(def, &b))
      return -1;
    intptr_t k = embBackwardUpdatedOperand(&b, mlirOpResultGetResultNumber(v));
    if (k < 0)
      return -1;
    v = mlirOperationGetOperand(def, k);
  }
  return -1;
}

/// The fp8 codes random states take: [0, fp8OneCode), the non-negative
/// values below 1 in e4m3 (0x38 is 1.0) and below 0.5 in e5m2.
enum { fp8OneCode = 0x38 };

/// A backward op: its lookup's ids, offsets and weights as for the forward;
/// optimizer states (behind emb.state for emb.tbe_backward), fp8 states'
/// scales and the hyper-parameters as per-sample weights are, uniform in
/// [0, 1), which every optimizer takes (states non-negative, positive rates
/// and eps, betas below 1), fp8 states as codes of values in [0, 1); the
/// step in [1, maxRandomStep].
static void backwardRoles(Describe *d, MlirOperation op,
                          const EmbBackwardOperands *b) {
  lookupRoles(d, op, b->indices, b->offsets, b->firstTable, b->numTables,
              b->psw);
  intptr_t numStates = b->numMomentum1 + b->numMomentum2;
  for (intptr_t r = b->numTables; r < b->numTables + numStates; ++r) {
    MlirValue v = mlirOperationGetOperand(op, embBackwardUpdatedOperand(b, r));
    if (mlirValueIsAOpResult(v) &&
        embOpIs(mlirOpResultGetOwner(v), EMB_OP_STATE))
      v = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
    int64_t t;
    int group = embBackwardGroup(b, r, &t);
    int precision = group == EMB_BACKWARD_MOMENTUM1   ? b->momentum1Precision
                    : group == EMB_BACKWARD_MOMENTUM2 ? b->momentum2Precision
                                                      : EMBRT_STATE_F32;
    if (precision == EMBRT_STATE_FP8_E4M3 || precision == EMBRT_STATE_FP8_E5M2)
      setRole(d, v, EMB_ARG_IDS, 0, fp8OneCode);
    else
      setRole(d, v, EMB_ARG_WEIGHTS, 0, -1);
  }
  setRole(d, mlirOperationGetOperand(op, b->hyper), EMB_ARG_WEIGHTS, 0, -1);
  // The tables and states it updates are written in the caller's buffers
  // (the aliasing contract): a loader tells its caller which.
  for (intptr_t r = 0; r < b->numTables + numStates; ++r) {
    intptr_t i = updatedArgument(
        d, mlirOperationGetOperand(op, embBackwardUpdatedOperand(b, r)));
    if (i >= 0)
      d->inputs[i].updated = 1;
  }
  if (b->step >= 0)
    setRole(d, mlirOperationGetOperand(op, b->step), EMB_ARG_IDS, 1,
            maxRandomStep + 1);
}

static MlirWalkResult visit(MlirOperation op, void *userData) {
  Describe *d = userData;
  intptr_t n = mlirOperationGetNumOperands(op);
  if (embOpIs(op, "tensor.extract")) {
    // Ids of a gather: below the rows of the table it reads. A 1-D gather
    // of anything but a 2-D float table is a user->candidate broadcast (as
    // emb-raise-gather reads it): its ids are a cand_to_user, drawn in
    // sorted groups like emb.broadcast's, so that the model as torch-mlir
    // writes it and as emb-raise makes it get the same random inputs.
    MlirValue ids = gatheredIds(op);
    MlirType table = mlirValueGetType(mlirOperationGetOperand(op, 0));
    if (!mlirValueIsNull(ids) && mlirShapedTypeGetRank(table) >= 1 &&
        embDim(table, 0) >= 0 &&
        !embIsFloat(mlirShapedTypeGetElementType(mlirValueGetType(ids)))) {
      bool tableLike = mlirShapedTypeGetRank(table) == 2 &&
                       embIsFloat(mlirShapedTypeGetElementType(table));
      bool broadcast =
          !tableLike && mlirShapedTypeGetRank(mlirValueGetType(ids)) == 1;
      setRole(d, ids, broadcast ? EMB_ARG_INDEX : EMB_ARG_IDS, 0,
              embDim(table, 0));
    }
  } else if (embOpIs(op, EMB_OP_EMBEDDING_BAG)) {
    lookupRoles(d, op, 1, 2, 0, 1, n == 4 ? 3 : -1);
  } else if (embOpIs(op, EMB_OP_TBE)) {
    MlirAttribute seg =
        mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
    if (!mlirAttributeIsNull(seg) && mlirDenseArrayGetNumElements(seg) == 4) {
      intptr_t t = mlirDenseI32ArrayGetElement(seg, 2);
      bool weighted = mlirDenseI32ArrayGetElement(seg, 3) == 1;
      lookupRoles(d, op, 0, 1, 2, t, weighted ? n - 1 : -1);
    }
  } else if (embOpIs(op, EMB_OP_BUCKETIZE)) {
    // A sharded program's batch: ids below the rows every feature's slots
    // cover together (the global table's), offsets of those ids.
    MlirAttribute feats =
        mlirOperationGetAttributeByName(op, embStr("slot_features"));
    MlirAttribute ends =
        mlirOperationGetAttributeByName(op, embStr("slot_row_end"));
    int64_t rows = -1;
    if (!mlirAttributeIsNull(feats) && !mlirAttributeIsNull(ends))
      for (intptr_t k = 0, ns = mlirDenseArrayGetNumElements(feats); k < ns;
           ++k) {
        int64_t f = mlirDenseI64ArrayGetElement(feats, k), end = 0;
        for (intptr_t j = 0; j < ns; ++j)
          if (mlirDenseI64ArrayGetElement(feats, j) == f &&
              mlirDenseI64ArrayGetElement(ends, j) > end)
            end = mlirDenseI64ArrayGetElement(ends, j);
        if (rows < 0 || end < rows)
          rows = end;
      }
    lookupRoles(d, op, 0, 1, 0, 0, n == 3 ? 2 : -1);
    setRole(d, mlirOperationGetOperand(op, 0), EMB_ARG_IDS, 0, rows);
  } else if (embOpIs(op, EMB_OP_TBE_BACKWARD) ||
             embOpIs(op, EMB_OP_EMBEDDING_BAG_BACKWARD)) {
    EmbBackwardOperands b;
    if (embGetBackwardOperands(op, &b))
      backwardRoles(d, op, &b);
  } else if (embOpIs(op, EMB_OP_JAGGED_TO_PADDED)) {
    // Offsets of the values' rows, from 0 to N, where the values are an
    // argument. Values made in the function (an unpooled lookup's rows)
    // leave the offsets the role their maker gave them.
    intptr_t v = sourceArgument(d, mlirOperationGetOperand(op, 0));
    MlirValue offsets = mlirOperationGetOperand(op, 1);
    intptr_t o = sourceArgument(d, offsets);
    if (v >= 0 && o >= 0) {
      setRole(d, offsets, EMB_ARG_ROW_OFFSETS, 0, -1);
      d->inputs[o].ref = (int)v;
    }
  } else if (embOpIs(op, EMB_OP_BROADCAST) ||
             embOpIs(op, EMB_OP_BROADCAST_ADD)) {
    int64_t users = embDim(mlirValueGetType(mlirOperationGetOperand(op, 0)), 0);
    setRole(d, mlirOperationGetOperand(op, 1), EMB_ARG_INDEX, 0, users);
  } else if (embOpIs(op, EMB_OP_IKBO_LCE)) {
    int64_t users = embDim(mlirValueGetType(mlirOperationGetOperand(op, 2)), 0);
    setRole(d, mlirOperationGetOperand(op, 4), EMB_ARG_INDEX, 0, users);
  } else if (embOpIs(op, "linalg.generic")) {
    keyMaskRoles(d, op);
  } else if (embOpIs(op, EMB_OP_ATTENTION)) {
    // Key lengths in 1..Lk: every row keeps a key.
    MlirType k = mlirValueGetType(mlirOperationGetOperand(op, 1));
    if (n == 4)
      setRole(d, mlirOperationGetOperand(op, 3), EMB_ARG_LENGTHS, 1,
              embDim(k, 1));
  } else if (embOpIs(op, EMB_OP_IKBO_ATTENTION)) {
    MlirType k = mlirValueGetType(mlirOperationGetOperand(op, 1));
    setRole(d, mlirOperationGetOperand(op, 3), EMB_ARG_INDEX, 0, embDim(k, 0));
    if (n == 5)
      setRole(d, mlirOperationGetOperand(op, 4), EMB_ARG_LENGTHS, 1,
              embDim(k, 1));
  }
  return MlirWalkResultAdvance;
}

MlirLogicalResult embDescribeEntry(MlirOperation func, EmbModelSpec *out) {
  memset(out, 0, sizeof *out);
  MlirAttribute fta =
      mlirOperationGetAttributeByName(func, embStr("function_type"));
  MlirAttribute name =
      mlirOperationGetAttributeByName(func, embStr("sym_name"));
  if (mlirAttributeIsNull(fta) || mlirAttributeIsNull(name))
    return mlirLogicalResultFailure();
  MlirType ft = mlirTypeAttrGetValue(fta);
  intptr_t ni = mlirFunctionTypeGetNumInputs(ft);
  intptr_t no = mlirFunctionTypeGetNumResults(ft);
  // What the lowering accepts, so that a described entry also compiles.
  if (embFindNonRuntimeTensor(ft) >= 0)
    return mlirLogicalResultFailure();
  EmbArgSpec *inputs = calloc((size_t)ni + 1, sizeof(EmbArgSpec));
  EmbArgSpec *results = calloc((size_t)no + 1, sizeof(EmbArgSpec));
  if (!inputs || !results) {
    free(inputs);
    free(results);
    return mlirLogicalResultFailure();
  }
  for (intptr_t i = 0; i < ni; ++i)
    fillSpec(&inputs[i], mlirFunctionTypeGetInput(ft, i));
  for (intptr_t i = 0; i < no; ++i)
    fillSpec(&results[i], mlirFunctionTypeGetResult(ft, i));
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  if (!mlirBlockIsNull(block)) {
    Describe d = {block, inputs, ni};
    mlirOperationWalk(func, visit, &d, MlirWalkPreOrder);
  }
  // Integer arguments no lookup explains: small non-negative values.
  for (intptr_t i = 0; i < ni; ++i)
    if (inputs[i].hi == INT64_MAX)
      inputs[i].hi = inputs[i].role == EMB_ARG_IDS ? 1 : 0;
  for (intptr_t i = 0; i < no; ++i)
    results[i].hi = 0;
  MlirStringRef s = mlirStringAttrGetValue(name);
  char *copy = malloc(s.length + 1);
  if (!copy) {
    free(inputs);
    free(results);
    return mlirLogicalResultFailure();
  }
  if (s.length) // sym_name = "" has a NULL data pointer
    memcpy(copy, s.data, s.length);
  copy[s.length] = '\0';
  out->name = copy;
  out->target = "cpu";
  out->numInputs = (int)ni;
  out->numResults = (int)no;
  out->inputs = inputs;
  out->results = results;
  return mlirLogicalResultSuccess();
}

void embModelSpecDestroy(EmbModelSpec *spec) {
  free((void *)spec->name);
  free((void *)spec->inputs);
  free((void *)spec->results);
  memset(spec, 0, sizeof *spec);
}
