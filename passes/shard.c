//===- passes/shard.c - emb-shard -----------------------------------------===//
//
// Turns each emb.tbe and emb.tbe_backward that carries a sharding plan
// (`sharding`, `world_size`: dialect/sharding.h, docs/sharding.md) into the
// program of one rank of the plan: its local lookups (and fused steps) over
// the shards it holds plus the collectives of TorchRec's input and output
// dists.
//
// Every rank compiles the same source with its own `rank`; the plan is global
// and the same everywhere, so every rank issues the same collectives in the
// same order, with counts that agree. The global emb.tbe reads the rank's
// local batch (B bags per feature, all F features) and gives [B, sum of D]
// in KeyedTensor order; the rewrite keeps that result. Tables are grouped by
// how their pooled output comes back, as TorchRec's sharding types are:
//
//   - table_wise and column_wise (one group): emb.bucketize sends each
//     feature's bags to the ranks that hold its table or a column shard of
//     it; an all_to_all of the lengths (counts known from the plan), one of
//     the ids (counts from the lengths, computed locally: no third
//     all_to_all of counts), a local emb.tbe over every source rank's bags,
//     and an all_to_all of the pooled rows back to the batch's rank;
//   - row_wise: ids are bucketized by row range and shifted to the shard's
//     rows, the same two all_to_alls, a local emb.tbe of partial sums, and a
//     reduce_scatter that sums the partial sums on the batch's rank;
//   - data_parallel: the local lookup on the local batch, no collective.
//
// Per-sample weights travel with their ids: a third all_to_all with the
// ids' counts. The pieces are concatenated back in feature order (a
// column-wise feature's shards in column order).
//
// A sharded emb.tbe_backward (a training step's, with its forward's plan)
// reuses the input dist its forward made of the same batch in the block
// (the DistCache) and reverses each group's output dist: the owners' columns
// of grad_output go back by all_to_all (table_wise, column_wise), the
// row-wise features' by all_gather (the reduce_scatter's adjoint); each rank
// then runs the fused step on its shards of the tables and of their states,
// and the step's results become those shards (emb.table_value of them may
// only be returned).
//
// The tables' (and states') function arguments become the rank's shards:
// [rows of its range, D] (row_wise), [E, width] (column_wise), the whole
// table (table_wise on its rank, data_parallel) or [0, D] where the rank
// holds none of it. The function is marked `emb.rank` and `emb.world_size`,
// which the runtime checks against its communicator.
//
// Preconditions: the IR verifies; every sharded table (and state) is a
// function argument read only by its emb.table (emb.state), whose handle
// only sharded ops read; tables and the batch (the result's or gradient's
// rows) have static shapes; pooling is sum or mean (row_wise: sum; with
// per-sample weights, sum as emb.tbe requires); no padding_idx with a
// row_wise table; a backward has no data_parallel table and no column_wise
// one under rowwise_adagrad. A violation is an error at the op and the pass
// fails, before anything is rewritten. Postconditions: no op carries a plan.
// Running it again changes nothing.
//
//===----------------------------------------------------------------------===//

#include "linalg_match.h"
#include "pass.h"
#include "rewrite.h"

#include "ir.h"
#include "sharding.h"

#include "emb/runtime.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

typedef struct ShardOptions {
  int64_t rank;
} ShardOptions;

static const EmbPassOption optionRows[] = {
    {.name = "rank",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(ShardOptions, rank),
     .defaultValue = "0",
     .min = 0,
     .max = EMB_MAX_WORLD_SIZE - 1,
     .help = "the rank whose program to make (every rank compiles the same "
             "source with its own)"},
};
static const EmbOptionTable options = {optionRows, EMB_NUM_OPTIONS(optionRows),
                                       sizeof(ShardOptions)};

static const char *const passName = "emb-shard";

/// The most tables a sharded emb.tbe may have (the verifier's limit).
enum { maxTables = 64 };

//===----------------------------------------------------------------------===//
// The emb.tbe being sharded
//===----------------------------------------------------------------------===//

/// One feature's bags on one rank: rows [rowBegin, rowEnd) of its table
/// (shifted by rowBegin), columns [colBegin, colEnd) of it.
typedef struct Slot {
  int64_t rank, feature, table;
  int64_t rowBegin, rowEnd, colBegin, colEnd;
  /// Where the slot's pooled rows of this rank's batch are: columns
  /// [at, at + colEnd - colBegin) of `block` ([B, ...]); null if elsewhere.
  MlirValue block;
  int64_t at;
} Slot;

/// The input dists already made in the function (a training step's forward
/// and backward read the same batch: the backward takes the forward's ids
/// and offsets as they are, as TorchRec's backward does).
typedef struct DistEntry {
  MlirBlock block;
  MlirValue indices, offsets, psw;
  int64_t numSlots;
  int64_t *slots; ///< rank, feature, first row, end row of each slot
  MlirValue ids, offs, weights;
} DistEntry;

typedef struct DistCache {
  DistEntry *entries;
  size_t size;
} DistCache;

/// What an optimizer state group of a backward is: momentum1 or momentum2.
enum { maxStateGroups = 2 };

typedef struct Sharded {
  MlirOperation op;
  MlirLocation loc;
  MlirContext ctx;
  DistCache *cache;
  bool backward; ///< an emb.tbe_backward
  EmbBackwardOperands bwd;
  MlirValue grad; ///< the backward's grad_output, [B, sum of D]
  char optimizer[24];
  int numStateGroups; ///< 0 (sgd), 1 (rowwise_adagrad) or 2 (adam)
  MlirValue stateHandles[maxStateGroups][maxTables];
  MlirValue stateArgs[maxStateGroups][maxTables];
  /// The backward's results: each table's and state's handle after the
  /// step, the local backward's where this rank holds a shard.
  MlirValue newHandles[1 + maxStateGroups][maxTables];
  MlirValue indices, offsets;
  MlirValue psw; ///< per-sample weights, or null
  int64_t numTables, numFeatures, batch, world, rank;
  MlirAttribute featureTables; ///< array<i64>, numFeatures entries
  int64_t rows[maxTables], cols[maxTables];
  EmbTableShards shards[maxTables];
  MlirValue handles[maxTables]; ///< the emb.table results
  MlirValue args[maxTables];    ///< the tables' function arguments
  MlirType element;             ///< of the result
  char pooling[8];
  Slot *slots; ///< every slot of every group
  int64_t numSlots;
} Sharded;

static int64_t featureTable(const Sharded *s, int64_t f) {
  return mlirDenseI64ArrayGetElement(s->featureTables, (intptr_t)f);
}

//===----------------------------------------------------------------------===//
// Checks: what the rewrite needs of the op
//===----------------------------------------------------------------------===//

/// Whether `op` is an emb.tbe or emb.tbe_backward with a plan.
static bool isSharded(MlirOperation op) {
  return (embOpIs(op, EMB_OP_TBE) || embOpIs(op, EMB_OP_TBE_BACKWARD)) &&
         embHasShardingPlan(op);
}

/// The function argument behind table handle `h` (made by `maker`: emb.table
/// or emb.state; `what` names it, "weights_0"), or a null value with an
/// error when it is anything else or read by anything else.
static MlirValue handleArgument(const Sharded *s, MlirValue h,
                                const char *maker, const char *what) {
  MlirOperation table = embDefiningOp(h, maker);
  MlirValue none = {NULL};
  if (mlirOperationIsNull(table))
    return none;
  MlirValue arg = mlirOperationGetOperand(table, 0);
  bool ok = mlirValueIsABlockArgument(arg);
  if (ok) {
    MlirOperation parent =
        mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(arg));
    ok = embOpIs(parent, "func.func") &&
         mlirOperationEqual(parent, mlirBlockGetParentOperation(
                                        mlirOperationGetBlock(s->op))) &&
         mlirBlockEqual(
             mlirBlockArgumentGetOwner(arg),
             mlirRegionGetFirstBlock(mlirOperationGetRegion(parent, 0)));
  }
  if (!ok) {
    embEmitErrorf(s->loc,
                  "%s: %s must be an argument of the function around the "
                  "'%s' (the rank's shard of it is passed in its place)",
                  passName, what, s->backward ? "emb.tbe_backward" : "emb.tbe");
    return none;
  }
  // The argument feeds this emb.table (emb.state) only; the handle's
  // readers were checked before any rewrite (checkReaders).
  int uses = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(arg); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u))
    ++uses;
  if (uses != 1) {
    embEmitErrorf(s->loc,
                  "%s: %s's table is read by another op too; a sharded table "
                  "must be read only by its 'emb.tbe' (each rank holds a "
                  "shard of it)",
                  passName, what);
    return none;
  }
  return arg;
}

/// Every reader of a sharded op's table and state handles is a sharded op
/// (a step's forward and backward share them): checked before any rewrite,
/// whose local lookups read the handles too. False with an error.
static bool checkReaders(MlirOperation op) {
  EmbBackwardOperands b;
  bool backward = embOpIs(op, EMB_OP_TBE_BACKWARD);
  intptr_t first = 2, n = 0;
  if (backward) {
    if (!embGetBackwardOperands(op, &b))
      return true; // the verifier has said why
    first = b.firstTable;
    n = b.numTables;
  } else {
    n = mlirDenseI32ArrayGetElement(
        mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes")), 2);
  }
  intptr_t numHandles = n + (backward ? b.numMomentum1 + b.numMomentum2 : 0);
  for (intptr_t k = 0; k < numHandles; ++k) {
    MlirValue h = mlirOperationGetOperand(
        op, k < n ? first + k : embBackwardUpdatedOperand(&b, k));
    for (MlirOpOperand u = mlirValueGetFirstUse(h); !mlirOpOperandIsNull(u);
         u = mlirOpOperandGetNextUse(u)) {
      if (isSharded(mlirOpOperandGetOwner(u)))
        continue;
      char what[32];
      if (k < n)
        snprintf(what, sizeof what, "weights_%lld", (long long)k);
      else
        embBackwardUpdatedName(&b, k, what, sizeof what);
      embEmitErrorf(mlirOperationGetLocation(op),
                    "%s: %s's table is read by another op too; a sharded "
                    "table must be read only by its 'emb.tbe' (each rank "
                    "holds a shard of it)",
                    passName, what);
      return false;
    }
  }
  return true;
}

/// Reads the op into `s`; false with an error if it cannot be sharded.
static bool readSharded(MlirOperation op, int64_t rank, Sharded *s) {
  memset(s, 0, sizeof *s);
  s->op = op;
  s->loc = mlirOperationGetLocation(op);
  s->ctx = mlirOperationGetContext(op);
  s->rank = rank;
  s->backward = embOpIs(op, EMB_OP_TBE_BACKWARD);
  intptr_t firstTable = 2;
  if (s->backward) {
    if (!embGetBackwardOperands(op, &s->bwd)) {
      embEmitErrorf(s->loc, "%s: its operandSegmentSizes is malformed",
                    passName);
      return false;
    }
    s->numTables = s->bwd.numTables;
    firstTable = s->bwd.firstTable;
    if (s->bwd.psw >= 0)
      s->psw = mlirOperationGetOperand(op, s->bwd.psw);
    s->grad = mlirOperationGetOperand(op, s->bwd.grad);
    embGetStringAttr(op, "optimizer", s->optimizer, sizeof s->optimizer);
    s->numStateGroups = s->bwd.numMomentum2 ? 2 : s->bwd.numMomentum1 ? 1 : 0;
    if (s->bwd.momentum1Precision != EMBRT_STATE_F32 ||
        s->bwd.momentum2Precision != EMBRT_STATE_F32) {
      embEmitErrorf(s->loc,
                    "%s: an 'emb.tbe_backward' with bf16 or fp8 optimizer "
                    "states (momentum1_precision, momentum2_precision) is "
                    "not sharded yet; shard the step with f32 states",
                    passName);
      return false;
    }
  } else {
    MlirAttribute seg =
        mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
    s->numTables = mlirDenseI32ArrayGetElement(seg, 2);
    if (embTbeFeatureEndsEntries(op) > 0) {
      // The input dist re-buckets the offsets; it would drop the ends.
      embEmitErrorf(s->loc,
                    "%s: an 'emb.tbe' with feature_ends (made by "
                    "emb-batch-tables) is not sharded yet: its input dist "
                    "would drop the per-feature offset checks",
                    passName);
      return false;
    }
    if (!mlirAttributeIsNull(mlirOperationGetAttributeByName(
            op, embStr(EMB_ATTR_MASKED_OFFSETS)))) {
      // The input dist buckets bags by valid offsets; a mask has none.
      embEmitErrorf(s->loc,
                    "%s: an 'emb.tbe' with masked_offsets is not sharded: "
                    "its input dist needs offsets that start at 0 and never "
                    "decrease",
                    passName);
      return false;
    }
    if (mlirDenseI32ArrayGetElement(seg, 3) != 0)
      s->psw = mlirOperationGetOperand(op, mlirOperationGetNumOperands(op) - 1);
  }
  if (s->numTables > maxTables) {
    embEmitErrorf(s->loc, "%s: at most %d tables, got %lld", passName,
                  maxTables, (long long)s->numTables);
    return false;
  }
  s->indices = mlirOperationGetOperand(op, s->backward ? s->bwd.indices : 0);
  s->offsets = mlirOperationGetOperand(op, s->backward ? s->bwd.offsets : 1);
  embGetStringAttr(op, "pooling", s->pooling, sizeof s->pooling);
  if (strcmp(s->pooling, "none") == 0) {
    embEmitErrorf(s->loc,
                  "%s: pooling none is not sharded (the output dists move "
                  "pooled rows)",
                  passName);
    return false;
  }
  MlirAttribute ft =
      mlirOperationGetAttributeByName(op, embStr("feature_tables"));
  s->numFeatures = mlirDenseArrayGetNumElements(ft);
  s->featureTables = ft;
  // The batch: the result's rows, or the gradient's for a backward.
  MlirType res = s->backward ? mlirValueGetType(s->grad)
                             : mlirValueGetType(mlirOperationGetResult(op, 0));
  s->element = mlirShapedTypeGetElementType(res);
  s->batch = embDim(res, 0);
  if (s->batch < 0) {
    embEmitErrorf(s->loc,
                  "%s: the batch (the %s rows) must be static: the plan's "
                  "counts are compiled in",
                  passName, s->backward ? "gradient's" : "result's");
    return false;
  }
  for (int64_t t = 0; t < s->numTables; ++t) {
    char what[32];
    snprintf(what, sizeof what, "weights_%lld", (long long)t);
    s->handles[t] = mlirOperationGetOperand(op, firstTable + t);
    MlirType w = embHandleTensorType(s->handles[t]);
    s->rows[t] = embDim(w, 0);
    s->cols[t] = embDim(w, 1);
    if (s->rows[t] < 0 || s->cols[t] < 0) {
      embEmitErrorf(s->loc, "%s: weights_%lld must have a static shape",
                    passName, (long long)t);
      return false;
    }
    s->args[t] = handleArgument(s, s->handles[t], EMB_OP_TABLE, what);
    if (mlirValueIsNull(s->args[t]))
      return false;
  }
  for (int g = 0; g < s->numStateGroups; ++g)
    for (int64_t t = 0; t < s->numTables; ++t) {
      intptr_t r = s->numTables * (1 + g) + t;
      char what[32];
      embBackwardUpdatedName(&s->bwd, r, what, sizeof what);
      s->stateHandles[g][t] =
          mlirOperationGetOperand(op, embBackwardUpdatedOperand(&s->bwd, r));
      s->stateArgs[g][t] =
          handleArgument(s, s->stateHandles[g][t], EMB_OP_STATE, what);
      if (mlirValueIsNull(s->stateArgs[g][t]))
        return false;
    }
  char err[EMB_MAX_MESSAGE];
  if (!embReadShardingPlan(op, s->numTables, s->rows, s->cols, &s->world,
                           s->shards, err, sizeof err)) {
    embEmitErrorf(s->loc, "%s: %s", passName, err);
    return false;
  }
  if (rank >= s->world) {
    embEmitErrorf(s->loc, "%s: rank %lld is not a rank of world_size %lld",
                  passName, (long long)rank, (long long)s->world);
    return false;
  }
  bool padding = !mlirAttributeIsNull(
      mlirOperationGetAttributeByName(op, embStr("padding_idx")));
  for (int64_t t = 0; s->backward && t < s->numTables; ++t) {
    if (s->shards[t].kind == EMB_SHARD_DATA_PARALLEL) {
      embEmitErrorf(s->loc,
                    "%s: weights_%lld is data_parallel, whose replicas would "
                    "each take only their own batch's gradients (they need "
                    "an all-reduce of the gradients first, which the backward "
                    "does not shard yet)",
                    passName, (long long)t);
      return false;
    }
    if (s->shards[t].kind == EMB_SHARD_COLUMN_WISE &&
        !strcmp(s->optimizer, "rowwise_adagrad")) {
      embEmitErrorf(s->loc,
                    "%s: weights_%lld is column_wise, but rowwise_adagrad "
                    "keeps one state a row over all its columns, which no "
                    "column shard sees whole",
                    passName, (long long)t);
      return false;
    }
  }
  for (int64_t t = 0; t < s->numTables; ++t) {
    if (s->shards[t].kind != EMB_SHARD_ROW_WISE)
      continue;
    if (strcmp(s->pooling, "sum") != 0) {
      embEmitErrorf(s->loc,
                    "%s: weights_%lld is row_wise, which needs pooling sum "
                    "(its shards give partial sums), got %s",
                    passName, (long long)t, s->pooling);
      return false;
    }
    if (padding) {
      embEmitErrorf(s->loc,
                    "%s: weights_%lld is row_wise, whose shards renumber "
                    "rows, so padding_idx cannot be kept",
                    passName, (long long)t);
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Slots: who gets which feature's bags
//===----------------------------------------------------------------------===//

typedef enum { GROUP_ALL_TO_ALL, GROUP_ROW_WISE, GROUP_LOCAL } Group;

static Group groupOf(EmbShardKind k) {
  return k == EMB_SHARD_ROW_WISE        ? GROUP_ROW_WISE
         : k == EMB_SHARD_DATA_PARALLEL ? GROUP_LOCAL
                                        : GROUP_ALL_TO_ALL;
}

/// Appends the slots of `group`, rank by rank (each rank's in feature
/// order); for GROUP_LOCAL only this rank's. Returns how many.
static int64_t makeSlots(Sharded *s, Group group, Slot *out) {
  int64_t n = 0;
  for (int64_t d = 0; d < s->world; ++d) {
    if (group == GROUP_LOCAL && d != s->rank)
      continue;
    for (int64_t f = 0; f < s->numFeatures; ++f) {
      int64_t t = featureTable(s, f);
      const EmbTableShards *sh = &s->shards[t];
      if (groupOf(sh->kind) != group)
        continue;
      int64_t j = embShardOfRank(sh, d);
      if (j < 0)
        continue;
      Slot slot = {d, f, t, 0, s->rows[t], 0, s->cols[t], {NULL}, 0};
      if (sh->kind == EMB_SHARD_ROW_WISE) {
        slot.rowBegin = embShardBound(sh, j);
        slot.rowEnd = embShardBound(sh, j + 1);
      } else if (sh->kind == EMB_SHARD_COLUMN_WISE) {
        slot.colBegin = embShardBound(sh, j);
        slot.colEnd = embShardBound(sh, j + 1);
      }
      out[n++] = slot;
    }
  }
  return n;
}

/// The type of rank `s->rank`'s shard of table `t`.
static MlirType shardType(const Sharded *s, int64_t t) {
  const EmbTableShards *sh = &s->shards[t];
  int64_t shape[2] = {s->rows[t], s->cols[t]};
  int64_t j = embShardOfRank(sh, s->rank);
  if (j < 0)
    shape[0] = 0;
  else if (sh->kind == EMB_SHARD_ROW_WISE)
    shape[0] = embShardBound(sh, j + 1) - embShardBound(sh, j);
  else if (sh->kind == EMB_SHARD_COLUMN_WISE)
    shape[1] = embShardBound(sh, j + 1) - embShardBound(sh, j);
  MlirType w = embHandleTensorType(s->handles[t]);
  return embTensorType(2, shape, mlirShapedTypeGetElementType(w));
}

/// The type of rank `s->rank`'s shard of state `g` of table `t`: its rows
/// (and, for a state of an element a row, its columns) as the table's.
static MlirType shardStateType(const Sharded *s, int g, int64_t t) {
  MlirType whole = mlirValueGetType(s->stateArgs[g][t]);
  MlirType table = shardType(s, t);
  int64_t shape[2] = {embDim(table, 0), embDim(table, 1)};
  return embTensorType(mlirShapedTypeGetRank(whole), shape,
                       mlirShapedTypeGetElementType(whole));
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

static MlirAttribute i64Attr(MlirContext ctx, int64_t v) {
  return mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), v);
}

static MlirType vectorType(int64_t n, MlirType element) {
  return embTensorType(1, &n, element);
}

/// An op with several results, before `s->op`.
static MlirOperation createMulti(Sharded *s, const char *name, intptr_t nOps,
                                 const MlirValue *operands, intptr_t nRes,
                                 const MlirType *results, intptr_t nAttrs,
                                 const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(embStr(name), s->loc);
  mlirOperationStateAddOperands(&st, nOps, operands);
  mlirOperationStateAddResults(&st, nRes, results);
  mlirOperationStateAddAttributes(&st, nAttrs, attrs);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(s->op), s->op, op);
  return op;
}

/// emb.bucketize of the local batch by `slots` -> ids, lengths, counts.
static MlirOperation bucketize(Sharded *s, const Slot *slots, int64_t n) {
  int64_t *cols = malloc(sizeof(int64_t) * 4 * (size_t)n);
  if (!cols)
    return (MlirOperation){NULL};
  int64_t *ranks = cols, *feats = cols + n, *lo = cols + 2 * n,
          *hi = cols + 3 * n;
  for (int64_t i = 0; i < n; ++i) {
    ranks[i] = slots[i].rank;
    feats[i] = slots[i].feature;
    lo[i] = slots[i].rowBegin;
    hi[i] = slots[i].rowEnd;
  }
  MlirContext ctx = s->ctx;
  MlirNamedAttribute attrs[] = {
      embNamedAttr(ctx, "world_size", i64Attr(ctx, s->world)),
      embNamedAttr(ctx, "slot_ranks", mlirDenseI64ArrayGet(ctx, n, ranks)),
      embNamedAttr(ctx, "slot_features", mlirDenseI64ArrayGet(ctx, n, feats)),
      embNamedAttr(ctx, "slot_row_begin", mlirDenseI64ArrayGet(ctx, n, lo)),
      embNamedAttr(ctx, "slot_row_end", mlirDenseI64ArrayGet(ctx, n, hi)),
  };
  MlirType idxT = mlirShapedTypeGetElementType(mlirValueGetType(s->indices));
  bool weighted = !mlirValueIsNull(s->psw);
  MlirType results[] = {
      vectorType(-1, idxT),
      vectorType(n * s->batch, idxT),
      vectorType(s->world, mlirIntegerTypeGet(ctx, 64)),
      weighted ? vectorType(
                     -1, mlirShapedTypeGetElementType(mlirValueGetType(s->psw)))
               : (MlirType){NULL},
  };
  MlirValue operands[] = {s->indices, s->offsets, s->psw};
  MlirOperation op = createMulti(s, EMB_OP_BUCKETIZE, weighted ? 3 : 2,
                                 operands, weighted ? 4 : 3, results, 5, attrs);
  free(cols);
  return op;
}

/// emb.all_to_all with counts known here (`send` and `recv` rows per rank).
static MlirValue allToAllSplits(Sharded *s, MlirValue send,
                                const int64_t *sendSplits,
                                const int64_t *recvSplits) {
  int64_t total = 0;
  for (int64_t r = 0; r < s->world; ++r)
    total += recvSplits[r];
  MlirContext ctx = s->ctx;
  MlirNamedAttribute attrs[] = {
      embNamedAttr(ctx, "world_size", i64Attr(ctx, s->world)),
      embNamedAttr(ctx, "send_splits",
                   mlirDenseI64ArrayGet(ctx, s->world, sendSplits)),
      embNamedAttr(ctx, "recv_splits",
                   mlirDenseI64ArrayGet(ctx, s->world, recvSplits)),
  };
  MlirType st = mlirValueGetType(send);
  MlirType rt = embWithDim(st, 0, total);
  return mlirOperationGetResult(
      embCreateOp(s->op, s->loc, EMB_OP_ALL_TO_ALL, 1, &send, rt, 3, attrs), 0);
}

/// A reshape of `v` to the static `type` merging or splitting all dims.
static MlirValue reshape(Sharded *s, const char *name, MlirValue v,
                         MlirType type) {
  int64_t groups[1][EMB_MAX_LOOPS];
  for (int i = 0; i < EMB_MAX_LOOPS; ++i)
    groups[0][i] = -1;
  groups[0][0] = 0;
  groups[0][1] = 1;
  return embCreateReshape(s->op, s->loc, name, v, type, 1,
                          (const int64_t(*)[EMB_MAX_LOOPS])groups);
}

/// The local emb.tbe over `slots` (this rank's, F' = `sources` x n
/// features: source-rank-major, as the all_to_all delivers them) ->
/// [B, sources * sum of widths]; its tables are this rank's shards.
static MlirValue localLookup(Sharded *s, const Slot *slots, int64_t n,
                             int64_t sources, MlirValue ids, MlirValue offs,
                             MlirValue weights) {
  MlirValue operands[3 + maxTables];
  int64_t local[maxTables];
  int64_t numLocal = 0, width = 0;
  operands[0] = ids;
  operands[1] = offs;
  for (int64_t t = 0; t < s->numTables; ++t)
    local[t] = -1;
  for (int64_t k = 0; k < n; ++k) {
    int64_t t = slots[k].table;
    if (local[t] < 0) {
      local[t] = numLocal;
      operands[2 + numLocal++] = s->handles[t];
    }
    width += slots[k].colEnd - slots[k].colBegin;
  }
  int64_t *ft = malloc(sizeof(int64_t) * (size_t)(sources * n));
  if (!ft)
    return (MlirValue){NULL};
  for (int64_t src = 0; src < sources; ++src)
    for (int64_t k = 0; k < n; ++k)
      ft[src * n + k] = local[slots[k].table];
  MlirContext ctx = s->ctx;
  bool weighted = !mlirValueIsNull(weights);
  if (weighted)
    operands[2 + numLocal] = weights;
  int32_t seg[] = {1, 1, (int32_t)numLocal, weighted ? 1 : 0};
  MlirNamedAttribute attrs[5];
  intptr_t na = 0;
  attrs[na++] =
      embNamedAttr(ctx, "pooling", mlirStringAttrGet(ctx, embStr(s->pooling)));
  attrs[na++] = embNamedAttr(ctx, "feature_tables",
                             mlirDenseI64ArrayGet(ctx, sources * n, ft));
  attrs[na++] = embNamedAttr(ctx, "operandSegmentSizes",
                             mlirDenseI32ArrayGet(ctx, 4, seg));
  const char *keep[] = {"bounds_check", "padding_idx"};
  for (int i = 0; i < 2; ++i) {
    MlirAttribute a = mlirOperationGetAttributeByName(s->op, embStr(keep[i]));
    if (!mlirAttributeIsNull(a))
      attrs[na++] = embNamedAttr(ctx, keep[i], a);
  }
  free(ft);
  int64_t shape[2] = {s->batch, sources * width};
  MlirType rt = embTensorType(2, shape, s->element);
  return mlirOperationGetResult(embCreateOp(s->op, s->loc, EMB_OP_TBE,
                                            2 + numLocal + (weighted ? 1 : 0),
                                            operands, rt, na, attrs),
                                0);
}

/// Rows [B, sources * width] regrouped source-major: [sources * B, width]
/// (column block r of every row becomes row block r).
static MlirValue sourceMajor(Sharded *s, MlirValue pooled, int64_t sources,
                             int64_t width) {
  if (sources == 1)
    return pooled;
  MlirValue *parts = malloc(sizeof(MlirValue) * (size_t)sources);
  if (!parts)
    return (MlirValue){NULL};
  for (int64_t r = 0; r < sources; ++r)
    parts[r] = embCreateSliceAlong(s->op, s->loc, pooled, 1, r * width, width);
  MlirValue rows = embCreateConcat(s->op, s->loc, 0, sources, parts);
  free(parts);
  return rows;
}

/// Gives each slot of `slots` (n, of one column block layout) its columns
/// of `block` ([B, sum of widths]).
static void takeColumns(Slot *slots, int64_t n, MlirValue block) {
  int64_t at = 0;
  for (int64_t k = 0; k < n; ++k) {
    slots[k].block = block;
    slots[k].at = at;
    at += slots[k].colEnd - slots[k].colBegin;
  }
}

//===----------------------------------------------------------------------===//
// The groups
//===----------------------------------------------------------------------===//

/// The input dist of a group's `n` slots (all ranks'): bucketize, the
/// lengths all_to_all, the offsets, the ids all_to_all and, with per-sample
/// weights, theirs with the same counts. Gives the ids, offsets and weights
/// (null without) of this rank's slots for every source rank.
static bool inputDist(Sharded *s, const Slot *slots, int64_t n, MlirValue *ids,
                      MlirValue *offs, MlirValue *weights) {
  // The same batch by the same slots in this block already: take it.
  MlirBlock block = mlirOperationGetBlock(s->op);
  DistCache *c = s->cache;
  for (size_t i = 0; c && i < c->size; ++i) {
    DistEntry *e = &c->entries[i];
    bool same = mlirBlockEqual(e->block, block) &&
                mlirValueEqual(e->indices, s->indices) &&
                mlirValueEqual(e->offsets, s->offsets) &&
                mlirValueIsNull(e->psw) == mlirValueIsNull(s->psw) &&
                (mlirValueIsNull(s->psw) || mlirValueEqual(e->psw, s->psw)) &&
                e->numSlots == n;
    for (int64_t k = 0; same && k < n; ++k)
      same = e->slots[4 * k] == slots[k].rank &&
             e->slots[4 * k + 1] == slots[k].feature &&
             e->slots[4 * k + 2] == slots[k].rowBegin &&
             e->slots[4 * k + 3] == slots[k].rowEnd;
    if (same) {
      *ids = e->ids;
      *offs = e->offs;
      *weights = e->weights;
      return true;
    }
  }
  MlirOperation b = bucketize(s, slots, n);
  if (mlirOperationIsNull(b))
    return false;
  int64_t *splits = calloc(2 * (size_t)s->world, sizeof(int64_t));
  if (!splits)
    return false;
  int64_t *send = splits, *recv = splits + s->world, mine = 0;
  for (int64_t k = 0; k < n; ++k) {
    send[slots[k].rank] += s->batch;
    mine += slots[k].rank == s->rank;
  }
  for (int64_t r = 0; r < s->world; ++r)
    recv[r] = mine * s->batch;
  MlirValue lengths =
      allToAllSplits(s, mlirOperationGetResult(b, 1), send, recv);
  free(splits);

  MlirContext ctx = s->ctx;
  MlirType lt = mlirValueGetType(lengths);
  MlirType results[] = {
      embWithDim(lt, 0, embDim(lt, 0) + 1),
      vectorType(s->world, mlirIntegerTypeGet(ctx, 64)),
  };
  MlirNamedAttribute blocks =
      embNamedAttr(ctx, "blocks", i64Attr(ctx, s->world));
  MlirOperation l2o = createMulti(s, EMB_OP_LENGTHS_TO_OFFSETS, 1, &lengths, 2,
                                  results, 1, &blocks);
  *offs = mlirOperationGetResult(l2o, 0);

  MlirValue operands[] = {mlirOperationGetResult(b, 0),
                          mlirOperationGetResult(b, 2),
                          mlirOperationGetResult(l2o, 1)};
  MlirNamedAttribute ws =
      embNamedAttr(ctx, "world_size", i64Attr(ctx, s->world));
  *ids = mlirOperationGetResult(
      embCreateOp(s->op, s->loc, EMB_OP_ALL_TO_ALL, 3, operands,
                  mlirValueGetType(operands[0]), 1, &ws),
      0);
  *weights = (MlirValue){NULL};
  if (!mlirValueIsNull(s->psw)) {
    operands[0] = mlirOperationGetResult(b, 3);
    *weights = mlirOperationGetResult(
        embCreateOp(s->op, s->loc, EMB_OP_ALL_TO_ALL, 3, operands,
                    mlirValueGetType(operands[0]), 1, &ws),
        0);
  }
  // Remember it for a backward of the same batch.
  DistEntry *grown =
      c ? realloc(c->entries, (c->size + 1) * sizeof(DistEntry)) : NULL;
  int64_t *copy = grown ? malloc(sizeof(int64_t) * 4 * (size_t)n) : NULL;
  if (grown)
    c->entries = grown;
  if (copy) {
    for (int64_t k = 0; k < n; ++k) {
      copy[4 * k] = slots[k].rank;
      copy[4 * k + 1] = slots[k].feature;
      copy[4 * k + 2] = slots[k].rowBegin;
      copy[4 * k + 3] = slots[k].rowEnd;
    }
    c->entries[c->size++] = (DistEntry){
        block, s->indices, s->offsets, s->psw, n, copy, *ids, *offs, *weights};
  }
  return true;
}

/// The slots of rank `r` among `slots`: where they start and how many.
static int64_t rankSlots(const Slot *slots, int64_t n, int64_t r,
                         int64_t *first) {
  int64_t count = 0;
  *first = n;
  for (int64_t k = 0; k < n; ++k)
    if (slots[k].rank == r) {
      if (*first == n)
        *first = k;
      ++count;
    }
  return count;
}

static int64_t widthOf(const Slot *slots, int64_t n) {
  int64_t w = 0;
  for (int64_t k = 0; k < n; ++k)
    w += slots[k].colEnd - slots[k].colBegin;
  return w;
}

/// table_wise and column_wise: pooled rows go back by all_to_all.
static bool allToAllGroup(Sharded *s, Slot *slots, int64_t n) {
  MlirValue ids, offs, weights;
  if (!inputDist(s, slots, n, &ids, &offs, &weights))
    return false;
  int64_t first, mine = rankSlots(slots, n, s->rank, &first);
  int64_t width = widthOf(slots + first, mine);
  MlirValue send;
  if (mine > 0) {
    MlirValue pooled =
        localLookup(s, slots + first, mine, s->world, ids, offs, weights);
    if (mlirValueIsNull(pooled))
      return false;
    MlirValue rows = sourceMajor(s, pooled, s->world, width);
    if (mlirValueIsNull(rows))
      return false;
    send = reshape(s, "tensor.collapse_shape", rows,
                   vectorType(s->world * s->batch * width, s->element));
  } else {
    send = mlirOperationGetResult(embCreateOp(s->op, s->loc, "tensor.empty", 0,
                                              NULL, vectorType(0, s->element),
                                              0, NULL),
                                  0);
  }
  int64_t *splits = calloc(2 * (size_t)s->world, sizeof(int64_t));
  if (!splits)
    return false;
  for (int64_t r = 0; r < s->world; ++r) {
    int64_t f, c = rankSlots(slots, n, r, &f);
    splits[r] = s->batch * width;
    splits[s->world + r] = s->batch * widthOf(slots + f, c);
  }
  MlirValue recv = allToAllSplits(s, send, splits, splits + s->world);
  // Rank r's block: [B, its width], its slots' columns in order.
  int64_t at = 0;
  for (int64_t r = 0; r < s->world; ++r) {
    int64_t w = splits[s->world + r] / (s->batch ? s->batch : 1);
    int64_t f, c = rankSlots(slots, n, r, &f);
    if (c == 0)
      continue;
    MlirValue flat =
        at == 0 && s->batch * w == embDim(mlirValueGetType(recv), 0)
            ? recv
            : embCreateSliceAlong(s->op, s->loc, recv, 0, at, s->batch * w);
    int64_t shape[2] = {s->batch, w};
    MlirValue block = reshape(s, "tensor.expand_shape", flat,
                              embTensorType(2, shape, s->element));
    takeColumns(slots + f, c, block);
    at += s->batch * w;
  }
  free(splits);
  return true;
}

/// row_wise: every rank holds a row range of every row_wise table, so
/// every rank computes partial sums for every source's bags, summed by
/// reduce_scatter on the batch's rank.
static bool rowWiseGroup(Sharded *s, Slot *slots, int64_t n) {
  MlirValue ids, offs, weights;
  if (!inputDist(s, slots, n, &ids, &offs, &weights))
    return false;
  int64_t first, mine = rankSlots(slots, n, s->rank, &first);
  int64_t width = widthOf(slots + first, mine);
  MlirValue pooled =
      localLookup(s, slots + first, mine, s->world, ids, offs, weights);
  if (mlirValueIsNull(pooled))
    return false;
  MlirValue rows = sourceMajor(s, pooled, s->world, width);
  if (mlirValueIsNull(rows))
    return false;
  MlirContext ctx = s->ctx;
  MlirNamedAttribute ws =
      embNamedAttr(ctx, "world_size", i64Attr(ctx, s->world));
  int64_t shape[2] = {s->batch, width};
  MlirValue summed = mlirOperationGetResult(
      embCreateOp(s->op, s->loc, EMB_OP_REDUCE_SCATTER, 1, &rows,
                  embTensorType(2, shape, s->element), 1, &ws),
      0);
  takeColumns(slots + first, mine, summed);
  return true;
}

/// data_parallel: the lookup of this rank's own batch.
static bool localGroup(Sharded *s, Slot *slots, int64_t n) {
  MlirOperation b = bucketize(s, slots, n);
  if (mlirOperationIsNull(b))
    return false;
  MlirContext ctx = s->ctx;
  MlirValue lengths = mlirOperationGetResult(b, 1);
  MlirType lt = mlirValueGetType(lengths);
  MlirType results[] = {embWithDim(lt, 0, embDim(lt, 0) + 1),
                        vectorType(1, mlirIntegerTypeGet(ctx, 64))};
  MlirNamedAttribute blocks = embNamedAttr(ctx, "blocks", i64Attr(ctx, 1));
  MlirOperation l2o = createMulti(s, EMB_OP_LENGTHS_TO_OFFSETS, 1, &lengths, 2,
                                  results, 1, &blocks);
  MlirValue pooled =
      localLookup(s, slots, n, 1, mlirOperationGetResult(b, 0),
                  mlirOperationGetResult(l2o, 0),
                  mlirValueIsNull(s->psw) ? (MlirValue){NULL}
                                          : mlirOperationGetResult(b, 3));
  if (mlirValueIsNull(pooled))
    return false;
  takeColumns(slots, n, pooled);
  return true;
}

//===----------------------------------------------------------------------===//
// The backward: gradients back to the owners, then the local fused step
//===----------------------------------------------------------------------===//

/// The gradient's columns of `slot`'s feature and columns: [B, width].
static MlirValue gradColumns(Sharded *s, const Slot *slot) {
  int64_t at = 0;
  for (int64_t f = 0; f < slot->feature; ++f)
    at += s->cols[featureTable(s, f)];
  return embCreateSliceAlong(s->op, s->loc, s->grad, 1, at + slot->colBegin,
                             slot->colEnd - slot->colBegin);
}

/// The gradient columns of `n` slots side by side, [B, their widths] (as the
/// forward's blocks lay out their pooled rows).
static MlirValue gradBlock(Sharded *s, const Slot *slots, int64_t n) {
  MlirValue *parts = malloc(sizeof(MlirValue) * (size_t)n);
  if (!parts)
    return (MlirValue){NULL};
  for (int64_t k = 0; k < n; ++k)
    parts[k] = gradColumns(s, &slots[k]);
  MlirValue block =
      n == 1 ? parts[0] : embCreateConcat(s->op, s->loc, 1, n, parts);
  free(parts);
  return block;
}

/// Rows [sources * B, width] regrouped column-major: [B, sources * width]
/// (row block r becomes column block r), the inverse of sourceMajor: the
/// local lookup's layout, which its backward's gradient takes.
static MlirValue columnMajor(Sharded *s, MlirValue rows, int64_t sources) {
  if (sources == 1)
    return rows;
  MlirValue *parts = malloc(sizeof(MlirValue) * (size_t)sources);
  if (!parts)
    return (MlirValue){NULL};
  for (int64_t r = 0; r < sources; ++r)
    parts[r] =
        embCreateSliceAlong(s->op, s->loc, rows, 0, r * s->batch, s->batch);
  MlirValue cols = embCreateConcat(s->op, s->loc, 1, sources, parts);
  free(parts);
  return cols;
}

/// The local emb.tbe_backward over `slots` (this rank's, for `sources`
/// source ranks: source-major features, as the local lookup) with gradient
/// `grad` ([B, sources * widths]): the fused step on this rank's shards of
/// the tables and their states. Records the new handles in s->newHandles.
static bool localBackward(Sharded *s, const Slot *slots, int64_t n,
                          int64_t sources, MlirValue ids, MlirValue offs,
                          MlirValue weights, MlirValue grad) {
  int64_t local[maxTables], order[maxTables], numLocal = 0;
  for (int64_t t = 0; t < s->numTables; ++t)
    local[t] = -1;
  for (int64_t k = 0; k < n; ++k) {
    int64_t t = slots[k].table;
    if (local[t] < 0) {
      order[numLocal] = t;
      local[t] = numLocal++;
    }
  }
  int G = s->numStateGroups;
  bool weighted = !mlirValueIsNull(weights);
  bool step = s->bwd.step >= 0;
  MlirValue operands[2 + maxTables * (1 + maxStateGroups) + 4];
  MlirType results[maxTables * (1 + maxStateGroups)];
  intptr_t no = 0, nr = 0;
  operands[no++] = ids;
  operands[no++] = offs;
  for (int64_t k = 0; k < numLocal; ++k) {
    operands[no++] = s->handles[order[k]];
    results[nr++] = mlirValueGetType(s->handles[order[k]]);
  }
  if (weighted)
    operands[no++] = weights;
  operands[no++] = grad;
  for (int g = 0; g < G; ++g)
    for (int64_t k = 0; k < numLocal; ++k) {
      operands[no++] = s->stateHandles[g][order[k]];
      results[nr++] = mlirValueGetType(s->stateHandles[g][order[k]]);
    }
  operands[no++] = mlirOperationGetOperand(s->op, s->bwd.hyper);
  if (step)
    operands[no++] = mlirOperationGetOperand(s->op, s->bwd.step);
  int64_t *ft = malloc(sizeof(int64_t) * (size_t)(sources * n));
  if (!ft)
    return false;
  for (int64_t src = 0; src < sources; ++src)
    for (int64_t k = 0; k < n; ++k)
      ft[src * n + k] = local[slots[k].table];
  MlirContext ctx = s->ctx;
  int32_t T = (int32_t)numLocal;
  int32_t seg[] = {
      1, 1,           T, weighted ? 1 : 0, 1, G >= 1 ? T : 0, G >= 2 ? T : 0,
      1, step ? 1 : 0};
  int32_t rseg[] = {T, G >= 1 ? T : 0, G >= 2 ? T : 0};
  MlirNamedAttribute attrs[8];
  intptr_t na = 0;
  attrs[na++] = embNamedAttr(ctx, "optimizer",
                             mlirStringAttrGet(ctx, embStr(s->optimizer)));
  attrs[na++] =
      embNamedAttr(ctx, "pooling", mlirStringAttrGet(ctx, embStr(s->pooling)));
  attrs[na++] = embNamedAttr(ctx, "feature_tables",
                             mlirDenseI64ArrayGet(ctx, sources * n, ft));
  attrs[na++] = embNamedAttr(ctx, "operandSegmentSizes",
                             mlirDenseI32ArrayGet(ctx, 9, seg));
  attrs[na++] = embNamedAttr(ctx, "resultSegmentSizes",
                             mlirDenseI32ArrayGet(ctx, 3, rseg));
  free(ft);
  const char *keep[] = {"bounds_check", "padding_idx", "seed"};
  for (int i = 0; i < 3; ++i) {
    MlirAttribute a = mlirOperationGetAttributeByName(s->op, embStr(keep[i]));
    if (!mlirAttributeIsNull(a))
      attrs[na++] = embNamedAttr(ctx, keep[i], a);
  }
  MlirOperation op =
      createMulti(s, EMB_OP_TBE_BACKWARD, no, operands, nr, results, na, attrs);
  for (int64_t k = 0; k < numLocal; ++k)
    for (int g = 0; g <= G; ++g)
      s->newHandles[g][order[k]] = mlirOperationGetResult(op, g * numLocal + k);
  return true;
}

/// table_wise and column_wise: each owner's gradient columns of this
/// rank's batch go back to it by all_to_all (the reverse of the forward's
/// output dist), and each owner steps its shards with every source's.
static bool allToAllGroupBackward(Sharded *s, Slot *slots, int64_t n) {
  MlirValue ids, offs, weights;
  if (!inputDist(s, slots, n, &ids, &offs, &weights))
    return false;
  int64_t W = s->world, B = s->batch;
  int64_t *splits = calloc(2 * (size_t)W, sizeof(int64_t));
  MlirValue *flats = malloc(sizeof(MlirValue) * (size_t)W);
  if (!splits || !flats) {
    free(splits);
    free(flats);
    return false;
  }
  int64_t numFlats = 0, first, mine = rankSlots(slots, n, s->rank, &first);
  int64_t width = widthOf(slots + first, mine);
  for (int64_t d = 0; d < W; ++d) {
    int64_t f, c = rankSlots(slots, n, d, &f), w = widthOf(slots + f, c);
    splits[d] = B * w;
    splits[W + d] = B * width;
    if (c == 0 || w == 0)
      continue;
    MlirValue block = gradBlock(s, slots + f, c);
    if (mlirValueIsNull(block))
      break;
    flats[numFlats++] = reshape(s, "tensor.collapse_shape", block,
                                vectorType(B * w, s->element));
  }
  MlirValue send =
      numFlats == 0 ? mlirOperationGetResult(
                          embCreateOp(s->op, s->loc, "tensor.empty", 0, NULL,
                                      vectorType(0, s->element), 0, NULL),
                          0)
      : numFlats == 1 ? flats[0]
                      : embCreateConcat(s->op, s->loc, 0, numFlats, flats);
  free(flats);
  MlirValue recv = allToAllSplits(s, send, splits, splits + W);
  free(splits);
  if (mine == 0)
    return true; // it holds none of the group: it only sends
  int64_t shape[2] = {W * B, width};
  MlirValue rows = reshape(s, "tensor.expand_shape", recv,
                           embTensorType(2, shape, s->element));
  MlirValue grad = columnMajor(s, rows, W);
  return !mlirValueIsNull(grad) &&
         localBackward(s, slots + first, mine, W, ids, offs, weights, grad);
}

/// row_wise: the reverse of the reduce_scatter is an all_gather: every
/// rank gets every source's gradient of the row-wise features and steps the
/// rows it holds.
static bool rowWiseGroupBackward(Sharded *s, Slot *slots, int64_t n) {
  MlirValue ids, offs, weights;
  if (!inputDist(s, slots, n, &ids, &offs, &weights))
    return false;
  int64_t first, mine = rankSlots(slots, n, s->rank, &first);
  int64_t width = widthOf(slots + first, mine);
  MlirValue block = gradBlock(s, slots + first, mine);
  if (mlirValueIsNull(block))
    return false;
  MlirContext ctx = s->ctx;
  MlirNamedAttribute ws =
      embNamedAttr(ctx, "world_size", i64Attr(ctx, s->world));
  int64_t shape[2] = {s->world * s->batch, width};
  MlirValue gathered = mlirOperationGetResult(
      embCreateOp(s->op, s->loc, EMB_OP_ALL_GATHER, 1, &block,
                  embTensorType(2, shape, s->element), 1, &ws),
      0);
  MlirValue grad = columnMajor(s, gathered, s->world);
  return !mlirValueIsNull(grad) &&
         localBackward(s, slots + first, mine, s->world, ids, offs, weights,
                       grad);
}

/// The backward's results become the local step's (its operands where this
/// rank holds no shard), and each emb.table_value of them takes the
/// shard's type. False with an error when a result is read by anything but
/// an emb.table_value that is only returned. The op is left, unused, for the
/// caller to erase.
static bool replaceBackwardResults(Sharded *s) {
  MlirOperation op = s->op;
  for (intptr_t r = 0, nr = mlirOperationGetNumResults(op); r < nr; ++r) {
    int64_t t;
    int g = embBackwardGroup(&s->bwd, r, &t);
    MlirValue with = s->newHandles[g][t];
    if (mlirValueIsNull(with))
      with = g == 0 ? s->handles[t] : s->stateHandles[g - 1][t];
    MlirValue old = mlirOperationGetResult(op, r);
    for (MlirOpOperand u = mlirValueGetFirstUse(old); !mlirOpOperandIsNull(u);
         u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      bool ok = embOpIs(user, EMB_OP_TABLE_VALUE);
      MlirValue v = ok ? mlirOperationGetResult(user, 0) : (MlirValue){NULL};
      for (MlirOpOperand w = ok ? mlirValueGetFirstUse(v)
                                : (MlirOpOperand){NULL};
           ok && !mlirOpOperandIsNull(w); w = mlirOpOperandGetNextUse(w))
        ok = embOpIs(mlirOpOperandGetOwner(w), "func.return");
      if (!ok) {
        char what[32];
        embBackwardUpdatedName(&s->bwd, r, what, sizeof what);
        embEmitErrorf(s->loc,
                      "%s: the updated %s may only be returned (through "
                      "emb.table_value): each rank holds a shard of it",
                      passName, what);
        return false;
      }
      mlirValueSetType(v,
                       g == 0 ? shardType(s, t) : shardStateType(s, g - 1, t));
    }
    mlirValueReplaceAllUsesOfWith(old, with);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

/// Sets the function's argument types from its entry block and marks it
/// with the rank and world size.
static bool retypeFunction(Sharded *s) {
  MlirOperation func =
      mlirBlockGetParentOperation(mlirOperationGetBlock(s->op));
  for (int64_t t = 0; t < s->numTables; ++t) {
    mlirValueSetType(s->args[t], shardType(s, t));
    for (int g = 0; g < s->numStateGroups; ++g)
      mlirValueSetType(s->stateArgs[g][t], shardStateType(s, g, t));
  }
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  MlirOperation ret = mlirBlockGetTerminator(entry);
  MlirAttribute fta =
      mlirOperationGetAttributeByName(func, embStr("function_type"));
  MlirType fty = mlirTypeAttrGetValue(fta);
  intptr_t ni = mlirBlockGetNumArguments(entry);
  intptr_t nr = mlirFunctionTypeGetNumResults(fty);
  MlirType *types = malloc(sizeof(MlirType) * (size_t)(ni + nr + 1));
  if (!types)
    return false;
  for (intptr_t i = 0; i < ni; ++i)
    types[i] = mlirValueGetType(mlirBlockGetArgument(entry, i));
  // Results: what is returned (a sharded step returns its shards).
  for (intptr_t i = 0; i < nr; ++i)
    types[ni + i] = !mlirOperationIsNull(ret) && embOpIs(ret, "func.return") &&
                            mlirOperationGetNumOperands(ret) == nr
                        ? mlirValueGetType(mlirOperationGetOperand(ret, i))
                        : mlirFunctionTypeGetResult(fty, i);
  MlirType nt = mlirFunctionTypeGet(s->ctx, ni, types, nr, types + ni);
  free(types);
  mlirOperationSetAttributeByName(func, embStr("function_type"),
                                  mlirTypeAttrGet(nt));
  MlirAttribute old =
      mlirOperationGetAttributeByName(func, embStr("emb.world_size"));
  if (!mlirAttributeIsNull(old) &&
      mlirIntegerAttrGetValueInt(old) != s->world) {
    embEmitErrorf(s->loc,
                  "%s: world_size %lld differs from the %lld of another "
                  "sharded 'emb.tbe' of the function",
                  passName, (long long)s->world,
                  (long long)mlirIntegerAttrGetValueInt(old));
    return false;
  }
  mlirOperationSetAttributeByName(func, embStr("emb.rank"),
                                  i64Attr(s->ctx, s->rank));
  mlirOperationSetAttributeByName(func, embStr("emb.world_size"),
                                  i64Attr(s->ctx, s->world));
  return true;
}

/// Rewrites one sharded emb.tbe_backward (read into `s`): its groups'
/// steps, then its results.
static bool shardBackward(Sharded *s, bool *oom) {
  bool ok = true;
  int64_t at = 0;
  static const Group order[] = {GROUP_ALL_TO_ALL, GROUP_ROW_WISE};
  for (int g = 0; ok && g < 2; ++g) {
    Slot *slots = s->slots + at;
    int64_t n = makeSlots(s, order[g], slots);
    if (n == 0)
      continue;
    ok = order[g] == GROUP_ALL_TO_ALL ? allToAllGroupBackward(s, slots, n)
                                      : rowWiseGroupBackward(s, slots, n);
    at += n;
  }
  free(s->slots);
  if (!ok) {
    *oom = true;
    return false;
  }
  if (!replaceBackwardResults(s) || !retypeFunction(s))
    return false;
  mlirOperationDestroy(s->op);
  return true;
}

/// Rewrites one sharded emb.tbe or emb.tbe_backward, read into `sp` before
/// any rewrite (a step's forward retypes the tables its backward reads);
/// false (with an error) if it cannot.
static bool shardTbe(Sharded *sp, DistCache *cache, bool *oom) {
  Sharded s = *sp;
  MlirOperation op = s.op;
  s.cache = cache;
  // At most one slot per (rank, feature) per group: F * W slots in all.
  s.slots = malloc(sizeof(Slot) * (size_t)(s.numFeatures * s.world));
  if (!s.slots) {
    *oom = true;
    return false;
  }
  if (s.backward)
    return shardBackward(&s, oom);
  bool ok = true;
  int64_t at = 0;
  static const Group order[] = {GROUP_ALL_TO_ALL, GROUP_ROW_WISE, GROUP_LOCAL};
  for (int g = 0; ok && g < 3; ++g) {
    Slot *slots = s.slots + at;
    int64_t n = makeSlots(&s, order[g], slots);
    if (n == 0)
      continue;
    ok = order[g] == GROUP_ALL_TO_ALL ? allToAllGroup(&s, slots, n)
         : order[g] == GROUP_ROW_WISE ? rowWiseGroup(&s, slots, n)
                                      : localGroup(&s, slots, n);
    at += n;
  }
  s.numSlots = at;
  if (!ok) {
    *oom = true;
    free(s.slots);
    return false;
  }
  // Feature order; a feature's column shards in column order. Pieces that
  // are adjacent columns of one block are taken as one slice (or as the
  // block itself).
  MlirValue *parts = malloc(sizeof(MlirValue) * (size_t)(at ? at : 1));
  if (!parts) {
    *oom = true;
    free(s.slots);
    return false;
  }
  int64_t np = 0;
  MlirValue run = {NULL};
  int64_t runAt = 0, runWidth = 0;
  for (int64_t f = 0; f <= s.numFeatures; ++f) {
    int64_t cols = f < s.numFeatures ? s.cols[featureTable(&s, f)] : 1;
    for (int64_t col = 0; col < cols;) {
      int64_t k = 0;
      for (; f < s.numFeatures && k < at; ++k)
        if (s.slots[k].feature == f && s.slots[k].colBegin == col &&
            !mlirValueIsNull(s.slots[k].block))
          break;
      const Slot *slot = f < s.numFeatures && k < at ? &s.slots[k] : NULL;
      int64_t w = slot ? slot->colEnd - slot->colBegin : 0;
      if (slot && !mlirValueIsNull(run) && mlirValueEqual(run, slot->block) &&
          slot->at == runAt + runWidth) {
        runWidth += w;
      } else {
        if (!mlirValueIsNull(run))
          parts[np++] =
              runAt == 0 && runWidth == embDim(mlirValueGetType(run), 1)
                  ? run
                  : embCreateSliceAlong(op, s.loc, run, 1, runAt, runWidth);
        run = slot ? slot->block : (MlirValue){NULL};
        runAt = slot ? slot->at : 0;
        runWidth = w;
      }
      if (!slot) // the end, or a column no slot has (cannot happen)
        break;
      col = slot->colEnd;
    }
  }
  MlirValue result = embCreateConcat(op, s.loc, 1, np, parts);
  free(parts);
  free(s.slots);
  if (!retypeFunction(&s))
    return false;
  embReplaceOp(op, result);
  return true;
}

static void run(MlirOperation root, MlirExternalPass pass, const void *opts) {
  const ShardOptions *o = opts;
  EmbOpList ops = {NULL, 0, 0};
  DistCache cache = {NULL, 0};
  bool oom = !embCollectNestedOps(root, &ops), failed = false;
  size_t n = 0;
  for (size_t i = 0; !oom && i < ops.size; ++i)
    if (isSharded(ops.ops[i]))
      ops.ops[n++] = ops.ops[i];
  // Every op is read before any is rewritten: the rewrites retype the
  // tables and add readers of their own.
  Sharded *read = n ? malloc(sizeof(Sharded) * n) : NULL;
  oom |= n && !read;
  for (size_t i = 0; !oom && i < n; ++i)
    failed |= !checkReaders(ops.ops[i]) ||
              !readSharded(ops.ops[i], o->rank, &read[i]);
  for (size_t i = 0; !oom && !failed && i < n; ++i)
    failed |= !shardTbe(&read[i], &cache, &oom);
  for (size_t i = 0; i < cache.size; ++i)
    free(cache.entries[i].slots);
  free(cache.entries);
  free(read);
  embOpListFree(&ops);
  if (oom)
    embEmitErrorf(mlirOperationGetLocation(root), "%s: out of memory",
                  passName);
  if (oom || failed)
    mlirExternalPassSignalFailure(pass);
}

const EmbPassDef embShardPassDef = {
    .argument = "emb-shard",
    .name = "EmbShard",
    .summary = "Make one rank's program of each sharded emb.tbe and "
               "emb.tbe_backward: its local lookups and steps and the "
               "collectives of the input and output dists",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "builtin.module",
    .options = &options,
    .run = run,
};

//===----------------------------------------------------------------------===//
// Plan queries (emb/emb.h)
//===----------------------------------------------------------------------===//

/// Reads the plan of sharded emb.tbe `op` without diagnostics: the tables'
/// shapes and shards; false if it is malformed or too large.
static bool readPlanQuietly(MlirOperation op, int64_t *numTables, int64_t *rows,
                            int64_t *cols, int64_t *world,
                            EmbTableShards *shards) {
  MlirAttribute seg =
      mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
  if (mlirAttributeIsNull(seg))
    return false;
  *numTables = mlirDenseI32ArrayGetElement(seg, 2);
  if (*numTables > maxTables)
    return false;
  for (int64_t t = 0; t < *numTables; ++t) {
    MlirType w = embHandleTensorType(mlirOperationGetOperand(op, 2 + t));
    rows[t] = embDim(w, 0);
    cols[t] = embDim(w, 1);
  }
  char err[EMB_MAX_MESSAGE];
  return embReadShardingPlan(op, *numTables, rows, cols, world, shards, err,
                             sizeof err);
}

/// The sharded emb.tbe and emb.tbe_backward ops of `func`'s body (an empty list
/// when memory runs out).
static EmbOpList shardedTbes(MlirOperation func) {
  EmbOpList ops = {NULL, 0, 0};
  if (!embCollectNestedOps(func, &ops))
    ops.size = 0;
  size_t n = 0;
  for (size_t i = 0; i < ops.size; ++i)
    if (isSharded(ops.ops[i]))
      ops.ops[n++] = ops.ops[i];
  ops.size = n;
  return ops;
}

int64_t embShardingWorldSize(MlirOperation func) {
  EmbOpList ops = shardedTbes(func);
  int64_t world = 0;
  for (size_t i = 0; i < ops.size && world >= 0; ++i) {
    int64_t T, rows[maxTables], cols[maxTables], w;
    EmbTableShards shards[maxTables];
    if (!readPlanQuietly(ops.ops[i], &T, rows, cols, &w, shards))
      world = -1;
    else if (world == 0 || world == w)
      world = w;
    else
      world = -1;
  }
  embOpListFree(&ops);
  return world;
}

bool embShardArgumentWindow(MlirOperation func, int64_t rank, intptr_t arg,
                            int64_t offsets[2], int64_t sizes[2]) {
  MlirRegion body = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(body);
  if (mlirBlockIsNull(entry) || arg < 0 ||
      arg >= mlirBlockGetNumArguments(entry))
    return false;
  MlirValue a = mlirBlockGetArgument(entry, arg);
  EmbOpList ops = shardedTbes(func);
  bool found = false;
  for (size_t i = 0; i < ops.size && !found; ++i) {
    int64_t T, rows[maxTables], cols[maxTables], w;
    EmbTableShards shards[maxTables];
    if (!readPlanQuietly(ops.ops[i], &T, rows, cols, &w, shards) || rank < 0 ||
        rank >= w)
      continue;
    // The tables, and a backward's states (a state of an element a row is
    // cut like its table; one of one f32 a row by rows alone).
    EmbBackwardOperands b;
    bool backward = embOpIs(ops.ops[i], EMB_OP_TBE_BACKWARD) &&
                    embGetBackwardOperands(ops.ops[i], &b);
    intptr_t numHandles = T + (backward ? b.numMomentum1 + b.numMomentum2 : 0);
    for (intptr_t k = 0; k < numHandles && !found; ++k) {
      intptr_t t = k % T;
      MlirOperation maker = embDefiningOp(
          mlirOperationGetOperand(
              ops.ops[i], k < T ? 2 + k : embBackwardUpdatedOperand(&b, k)),
          k < T ? EMB_OP_TABLE : EMB_OP_STATE);
      if (mlirOperationIsNull(maker) ||
          !mlirValueEqual(mlirOperationGetOperand(maker, 0), a))
        continue;
      const EmbTableShards *sh = &shards[t];
      int64_t j = embShardOfRank(sh, rank);
      bool wide = mlirShapedTypeGetRank(mlirValueGetType(a)) == 2;
      offsets[0] = offsets[1] = 0;
      sizes[0] = rows[t];
      sizes[1] = wide ? cols[t] : 1;
      if (j < 0) {
        sizes[0] = 0;
      } else if (sh->kind == EMB_SHARD_ROW_WISE) {
        offsets[0] = embShardBound(sh, j);
        sizes[0] = embShardBound(sh, j + 1) - offsets[0];
      } else if (sh->kind == EMB_SHARD_COLUMN_WISE && wide) {
        offsets[1] = embShardBound(sh, j);
        sizes[1] = embShardBound(sh, j + 1) - offsets[1];
      }
      found = true;
    }
  }
  embOpListFree(&ops);
  return found;
}
