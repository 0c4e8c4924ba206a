//===- passes/plan_sharding.c - emb-plan-sharding -------------------------===//
//
// Writes a sharding plan (`sharding`, `world_size`: dialect/sharding.h) on
// every emb.tbe that has none, for emb-shard to apply. It places tables as
// TorchRec's default planner does, greedily: tables in order of decreasing
// estimated cost, each on the rank with the least cost so far among those
// with room for it.
//
//   - memory of a table: E * D * element bytes, plus its optimizer state
//     (rowwise_adagrad: 4 bytes a row; adam: 8 bytes an element);
//   - cost of a table (bytes a step moves for it, over the whole world's
//     batch): W * B * (features reading it) * (pf * (D * element bytes + 8)
//     + 4 * D): the rows read and the ids sent (pf ids a bag) plus the
//     pooled row sent back. pf, the pooling factor, is N / (F * B) when the
//     indices have a static size, else the `pooling-factor` option.
//
// A table at most `replicate-kb` KiB is data_parallel (every rank holds it,
// no communication). A table that fits on no rank whole is split: row_wise
// (rows evenly over all ranks) under sum pooling, else column_wise (columns
// evenly over the ranks with the most room). A table that fits nowhere even
// split is an error naming it and the memory it needs.
//
// With `explain=1` the plan is also a remark at the emb.tbe: one line a
// table (its size, cost, kind and ranks) and one a rank (memory and cost).
//
// Preconditions: the IR verifies; tables have static shapes and the result
// a static batch. Postconditions: every emb.tbe has a plan that verifies.
// Running it again changes nothing (a plan is never replaced).
//
//===----------------------------------------------------------------------===//

#include "pass.h"
#include "rewrite.h"

#include "ir.h"
#include "sharding.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

typedef struct PlanOptions {
  int64_t worldSize;
  int64_t hbmGb;
  int64_t hbmMb;
  int64_t optimizer;
  int64_t poolingFactor;
  int64_t replicateKb;
  int64_t explain;
} PlanOptions;

enum { OPT_SGD, OPT_ROWWISE_ADAGRAD, OPT_ADAM };

static const EmbPassOption optionRows[] = {
    {.name = "world-size",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(PlanOptions, worldSize),
     .defaultValue = "1",
     .min = 1,
     .max = EMB_MAX_WORLD_SIZE,
     .help = "the ranks to place tables on"},
    {.name = "hbm-gb",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(PlanOptions, hbmGb),
     .defaultValue = "80",
     .min = 1,
     .max = 1 << 20,
     .help = "the memory of one rank for tables and their optimizer state, "
             "in GiB"},
    {.name = "hbm-mb",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(PlanOptions, hbmMb),
     .defaultValue = "0",
     .min = 0,
     .max = 1 << 30,
     .help = "the same in MiB, in place of hbm-gb when not 0"},
    {.name = "optimizer",
     .kind = EMB_OPTION_ENUM,
     .offset = offsetof(PlanOptions, optimizer),
     .defaultValue = "sgd",
     .choices = "sgd|rowwise_adagrad|adam",
     .help = "the optimizer whose state the tables carry (inference: sgd, "
             "none)"},
    {.name = "pooling-factor",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(PlanOptions, poolingFactor),
     .defaultValue = "1",
     .min = 1,
     .max = 1 << 20,
     .help = "ids a bag, where the indices' size is dynamic"},
    {.name = "replicate-kb",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(PlanOptions, replicateKb),
     .defaultValue = "0",
     .min = 0,
     .max = 1 << 30,
     .help = "tables of at most this many KiB are data_parallel"},
    {.name = "explain",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(PlanOptions, explain),
     .defaultValue = "0",
     .min = 0,
     .max = 1,
     .help = "1: print the plan as a table (a remark at each emb.tbe)"},
};
static const EmbOptionTable options = {optionRows, EMB_NUM_OPTIONS(optionRows),
                                       sizeof(PlanOptions)};

static const char *const passName = "emb-plan-sharding";

enum { maxTables = 64 };

//===----------------------------------------------------------------------===//
// The estimates
//===----------------------------------------------------------------------===//

typedef struct Table {
  int64_t rows, cols, elementBytes, features;
  double bytes, cost;
  EmbShardKind kind;
  int64_t numShards;
  int64_t *ranks, *ranges; ///< W and W + 1 entries
} Table;

static double stateBytes(int64_t optimizer, int64_t rows, int64_t cols) {
  return optimizer == OPT_ADAM              ? 8.0 * (double)rows * (double)cols
         : optimizer == OPT_ROWWISE_ADAGRAD ? 4.0 * (double)rows
                                            : 0.0;
}

/// "244.1 MiB"
static void formatBytes(double b, char *buf, size_t size) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024.0 && u < 4) {
    b /= 1024.0;
    ++u;
  }
  snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", b, units[u]);
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

typedef struct Ranks {
  int64_t n;
  double capacity;
  double *memory, *cost;
} Ranks;

/// The rank with the least cost among those with `bytes` free, or -1.
static int64_t leastLoaded(const Ranks *r, double bytes) {
  int64_t best = -1;
  for (int64_t i = 0; i < r->n; ++i)
    if (r->memory[i] + bytes <= r->capacity &&
        (best < 0 || r->cost[i] < r->cost[best]))
      best = i;
  return best;
}

/// Splits `total` into `n` near-equal parts as boundaries 0..total.
static void evenBounds(int64_t total, int64_t n, int64_t *bounds) {
  for (int64_t j = 0; j <= n; ++j)
    bounds[j] = total * j / n;
}

/// Places table `t`; false (with an error at `loc`) if it fits nowhere.
static bool place(Table *t, int64_t index, Ranks *r, const PlanOptions *o,
                  bool sumPooling, MlirLocation loc) {
  double perRow = t->bytes / (double)(t->rows ? t->rows : 1);
  if (t->bytes <= (double)o->replicateKb * 1024.0) {
    bool room = true;
    for (int64_t i = 0; i < r->n; ++i)
      room &= r->memory[i] + t->bytes <= r->capacity;
    if (room) {
      t->kind = EMB_SHARD_DATA_PARALLEL;
      t->numShards = 0;
      for (int64_t i = 0; i < r->n; ++i) {
        r->memory[i] += t->bytes;
        r->cost[i] += t->cost / (double)r->n; // its own batch only
      }
      return true;
    }
  }
  int64_t best = leastLoaded(r, t->bytes);
  if (best >= 0) {
    t->kind = EMB_SHARD_TABLE_WISE;
    t->numShards = 1;
    t->ranks[0] = best;
    r->memory[best] += t->bytes;
    r->cost[best] += t->cost;
    return true;
  }
  if (sumPooling) {
    // Rows evenly over every rank, rank i holding range i.
    evenBounds(t->rows, r->n, t->ranges);
    bool room = true;
    for (int64_t i = 0; i < r->n; ++i)
      room &=
          r->memory[i] + perRow * (double)(t->ranges[i + 1] - t->ranges[i]) <=
          r->capacity;
    if (room) {
      t->kind = EMB_SHARD_ROW_WISE;
      t->numShards = r->n;
      for (int64_t i = 0; i < r->n; ++i) {
        t->ranks[i] = i;
        r->memory[i] += perRow * (double)(t->ranges[i + 1] - t->ranges[i]);
        r->cost[i] += t->cost / (double)r->n;
      }
      return true;
    }
  } else {
    // Columns evenly over as many ranks as it needs, the emptiest first.
    int64_t k = r->n < t->cols ? r->n : t->cols;
    for (int64_t shards = 2; shards <= k; ++shards) {
      double share = t->bytes / (double)shards * 1.0001;
      int64_t chosen = 0;
      for (int64_t j = 0; j < shards; ++j) {
        int64_t best = -1;
        for (int64_t i = 0; i < r->n; ++i) {
          bool taken = false;
          for (int64_t q = 0; q < chosen; ++q)
            taken |= t->ranks[q] == i;
          if (!taken && r->memory[i] + share <= r->capacity &&
              (best < 0 || r->memory[i] < r->memory[best]))
            best = i;
        }
        if (best < 0)
          break;
        t->ranks[chosen++] = best;
      }
      if (chosen < shards)
        continue;
      evenBounds(t->cols, shards, t->ranges);
      t->kind = EMB_SHARD_COLUMN_WISE;
      t->numShards = shards;
      for (int64_t j = 0; j < shards; ++j) {
        double part = t->bytes * (double)(t->ranges[j + 1] - t->ranges[j]) /
                      (double)t->cols;
        r->memory[t->ranks[j]] += part;
        r->cost[t->ranks[j]] += t->cost / (double)shards;
      }
      return true;
    }
  }
  char need[32], have[32];
  formatBytes(t->bytes, need, sizeof need);
  formatBytes(r->capacity, have, sizeof have);
  embEmitErrorf(loc,
                "%s: table %lld needs %s (with its optimizer state) and fits "
                "on no rank of %s, whole or %s-wise split over %lld ranks",
                passName, (long long)index, need, have,
                sumPooling ? "row" : "column", (long long)r->n);
  return false;
}

//===----------------------------------------------------------------------===//
// The explanation
//===----------------------------------------------------------------------===//

static void explain(MlirOperation op, const Table *tables, int64_t n,
                    const Ranks *r, const PlanOptions *o, double pf) {
  static const char *const optimizers[] = {"sgd", "rowwise_adagrad", "adam"};
  enum { size = 8192 };
  char *buf = malloc(size);
  if (!buf)
    return;
  char cap[32];
  formatBytes(r->capacity, cap, sizeof cap);
  int used = snprintf(buf, size,
                      "%s: %lld tables over %lld ranks of %s (optimizer %s, "
                      "pooling factor %.2f)\n"
                      "  table       rows   dim      memory   cost/step  kind  "
                      "         ranks\n",
                      passName, (long long)n, (long long)r->n, cap,
                      optimizers[o->optimizer], pf);
  for (int64_t t = 0; t < n && used < size; ++t) {
    char mem[32], cost[32], ranks[96] = "all";
    formatBytes(tables[t].bytes, mem, sizeof mem);
    formatBytes(tables[t].cost, cost, sizeof cost);
    if (tables[t].kind != EMB_SHARD_DATA_PARALLEL) {
      int at = 0;
      for (int64_t j = 0; j < tables[t].numShards && at < 80; ++j)
        at += snprintf(ranks + at, sizeof ranks - (size_t)at, "%s%lld",
                       j ? "," : "", (long long)tables[t].ranks[j]);
    }
    used += snprintf(buf + used, size - (size_t)used,
                     "  %5lld %10lld %5lld %11s %11s  %-13s %s\n", (long long)t,
                     (long long)tables[t].rows, (long long)tables[t].cols, mem,
                     cost, embShardKindName(tables[t].kind), ranks);
  }
  if (used < size)
    used += snprintf(buf + used, size - (size_t)used,
                     "  rank      memory   cost/step\n");
  for (int64_t i = 0; i < r->n && used < size; ++i) {
    char mem[32], cost[32];
    formatBytes(r->memory[i], mem, sizeof mem);
    formatBytes(r->cost[i], cost, sizeof cost);
    used += snprintf(buf + used, size - (size_t)used, "  %4lld %11s %11s%s",
                     (long long)i, mem, cost, i + 1 < r->n ? "\n" : "");
  }
  embEmitRemarkf(mlirOperationGetLocation(op), "%s", buf);
  free(buf);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Plans one emb.tbe; false (with an error) if it cannot, `*oom` when
/// memory ran out.
static bool planTbe(MlirOperation op, const PlanOptions *o, bool *oom) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirContext ctx = mlirOperationGetContext(op);
  MlirAttribute seg =
      mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
  int64_t n = mlirDenseI32ArrayGetElement(seg, 2);
  if (n > maxTables) {
    embEmitErrorf(loc, "%s: at most %d tables, got %lld", passName, maxTables,
                  (long long)n);
    return false;
  }
  // Quantized tables are served whole: a plan slices dense tables (the
  // verifier refuses one over packed rows). Shard first, then quantize the
  // shards' tables (emb-quantize-tables after emb-shard).
  for (int64_t t = 0; t < n; ++t) {
    EmbTableInfo info;
    if (embGetTableInfo(mlirOperationGetOperand(op, 2 + t), &info) &&
        embTableIsQuantized(&info)) {
      embEmitRemarkf(loc,
                     "%s: this emb.tbe stays unsharded: weights_%lld is an "
                     "%s table, and a plan slices dense tables (run "
                     "emb-quantize-tables after emb-shard)",
                     passName, (long long)t, info.precisionName);
      return true;
    }
  }
  MlirAttribute ft =
      mlirOperationGetAttributeByName(op, embStr("feature_tables"));
  int64_t numFeatures = mlirDenseArrayGetNumElements(ft);
  MlirType res = mlirValueGetType(mlirOperationGetResult(op, 0));
  int64_t batch = embDim(res, 0);
  if (batch < 0) {
    embEmitErrorf(loc, "%s: the batch (the result's rows) must be static",
                  passName);
    return false;
  }
  char pooling[8];
  embGetStringAttr(op, "pooling", pooling, sizeof pooling);
  int64_t numIds = embDim(mlirValueGetType(mlirOperationGetOperand(op, 0)), 0);
  double pf = numIds >= 0 && batch > 0
                  ? (double)numIds / (double)(numFeatures * batch)
                  : (double)o->poolingFactor;
  int64_t world = o->worldSize;

  Table tables[maxTables];
  int64_t *store = calloc((size_t)(n * (2 * world + 1)), sizeof(int64_t));
  double *loads = calloc(2 * (size_t)world, sizeof(double));
  if (!store || !loads) {
    free(store);
    free(loads);
    *oom = true;
    return false;
  }
  Ranks ranks = {world,
                 o->hbmMb ? (double)o->hbmMb * 1048576.0
                          : (double)o->hbmGb * 1073741824.0,
                 loads, loads + world};
  int64_t order[maxTables];
  for (int64_t t = 0; t < n; ++t) {
    MlirType w = embHandleTensorType(mlirOperationGetOperand(op, 2 + t));
    Table *tb = &tables[t];
    memset(tb, 0, sizeof *tb);
    tb->rows = embDim(w, 0);
    tb->cols = embDim(w, 1);
    if (tb->rows < 0 || tb->cols < 0) {
      embEmitErrorf(loc, "%s: weights_%lld must have a static shape", passName,
                    (long long)t);
      free(store);
      free(loads);
      return false;
    }
    tb->elementBytes = embElementBytes(mlirShapedTypeGetElementType(w));
    for (int64_t f = 0; f < numFeatures; ++f)
      tb->features += mlirDenseI64ArrayGetElement(ft, f) == t;
    tb->bytes = (double)tb->rows * (double)tb->cols * (double)tb->elementBytes +
                stateBytes(o->optimizer, tb->rows, tb->cols);
    tb->cost = (double)world * (double)batch * (double)tb->features *
               (pf * ((double)tb->cols * (double)tb->elementBytes + 8.0) +
                4.0 * (double)tb->cols);
    tb->ranks = store + t * (2 * world + 1);
    tb->ranges = tb->ranks + world;
    order[t] = t;
  }
  // Decreasing cost, then memory, then index: a stable, total order.
  for (int64_t i = 1; i < n; ++i)
    for (int64_t j = i; j > 0; --j) {
      const Table *a = &tables[order[j - 1]], *b = &tables[order[j]];
      bool swap =
          b->cost > a->cost || (b->cost == a->cost && b->bytes > a->bytes);
      if (!swap)
        break;
      int64_t tmp = order[j];
      order[j] = order[j - 1];
      order[j - 1] = tmp;
    }
  bool ok = true;
  for (int64_t i = 0; ok && i < n; ++i)
    ok = place(&tables[order[i]], order[i], &ranks, o, !strcmp(pooling, "sum"),
               loc);
  if (ok) {
    MlirAttribute entries[maxTables];
    for (int64_t t = 0; t < n; ++t)
      entries[t] = embTableShardsAttr(ctx, tables[t].kind, tables[t].numShards,
                                      tables[t].ranks, tables[t].ranges);
    mlirOperationSetAttributeByName(op, embStr("sharding"),
                                    mlirArrayAttrGet(ctx, n, entries));
    mlirOperationSetAttributeByName(
        op, embStr("world_size"),
        mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), world));
    if (o->explain)
      explain(op, tables, n, &ranks, o, pf);
  }
  free(store);
  free(loads);
  return ok;
}

static void run(MlirOperation root, MlirExternalPass pass, const void *opts) {
  const PlanOptions *o = opts;
  EmbOpList ops = {NULL, 0, 0};
  bool oom = !embCollectNestedOps(root, &ops), failed = false;
  for (size_t i = 0; !oom && i < ops.size; ++i) {
    MlirOperation op = ops.ops[i];
    if (embOpIs(op, EMB_OP_TBE) && !embHasShardingPlan(op))
      failed |= !planTbe(op, o, &oom);
  }
  embOpListFree(&ops);
  if (oom)
    embEmitErrorf(mlirOperationGetLocation(root), "%s: out of memory",
                  passName);
  if (oom || failed)
    mlirExternalPassSignalFailure(pass);
}

const EmbPassDef embPlanShardingPassDef = {
    .argument = "emb-plan-sharding",
    .name = "EmbPlanSharding",
    .summary = "Write a sharding plan on each emb.tbe: tables placed greedily "
               "by memory and estimated cost",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .options = &options,
    .run = run,
};
