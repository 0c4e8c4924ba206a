//===- dialect/sharding.c - The sharding plan of an emb.tbe ---------------===//
//
// Reading, checking and writing the `sharding` and `world_size` attributes
// (dialect/sharding.h). The verifier reports what embReadShardingPlan
// writes; emb-shard reads a checked plan; emb-plan-sharding writes one.
//
//===----------------------------------------------------------------------===//

#include "sharding.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const kindNames[] = {"table_wise", "row_wise", "column_wise",
                                        "data_parallel"};

const char *embShardKindName(EmbShardKind kind) { return kindNames[kind]; }

int64_t embShardRank(const EmbTableShards *s, int64_t j) {
  return mlirDenseI64ArrayGetElement(s->ranks, (intptr_t)j);
}

int64_t embShardBound(const EmbTableShards *s, int64_t j) {
  return mlirDenseI64ArrayGetElement(s->ranges, (intptr_t)j);
}

int64_t embShardOfRank(const EmbTableShards *s, int64_t rank) {
  if (s->kind == EMB_SHARD_DATA_PARALLEL)
    return 0;
  for (int64_t j = 0; j < s->numShards; ++j)
    if (embShardRank(s, j) == rank)
      return j;
  return -1;
}

bool embHasShardingPlan(MlirOperation tbe) {
  return !mlirAttributeIsNull(
             mlirOperationGetAttributeByName(tbe, embStr("sharding"))) ||
         !mlirAttributeIsNull(
             mlirOperationGetAttributeByName(tbe, embStr("world_size")));
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool
failWith(char *err, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, size, fmt, ap);
  va_end(ap);
  return false;
}

/// Reads table `t`'s dictionary `d` into `out`.
static bool readTable(MlirAttribute d, int64_t t, int64_t world, int64_t rows,
                      int64_t cols, EmbTableShards *out, char *err,
                      size_t size) {
  char as[128];
  if (!mlirAttributeIsADictionary(d)) {
    embPrintAttribute(d, as, sizeof as);
    return failWith(err, size, "sharding[%lld] must be a dictionary, got %s",
                    (long long)t, as);
  }
  MlirAttribute kind = mlirDictionaryAttrGetElementByName(d, embStr("kind"));
  if (mlirAttributeIsNull(kind) || !mlirAttributeIsAString(kind))
    return failWith(err, size,
                    "sharding[%lld] needs a string 'kind' (table_wise, "
                    "row_wise, column_wise or data_parallel)",
                    (long long)t);
  MlirStringRef k = mlirStringAttrGetValue(kind);
  int found = -1;
  for (int i = 0; i < 4; ++i)
    if (k.length == strlen(kindNames[i]) &&
        memcmp(k.data, kindNames[i], k.length) == 0)
      found = i;
  if (found < 0)
    return failWith(err, size,
                    "sharding[%lld] kind must be table_wise, row_wise, "
                    "column_wise or data_parallel, got \"%.*s\"",
                    (long long)t, (int)k.length, k.data);
  out->kind = (EmbShardKind)found;
  const char *kn = kindNames[found];
  const char *rangesKey = out->kind == EMB_SHARD_ROW_WISE      ? "row_ranges"
                          : out->kind == EMB_SHARD_COLUMN_WISE ? "col_ranges"
                                                               : NULL;
  for (intptr_t i = 0, n = mlirDictionaryAttrGetNumElements(d); i < n; ++i) {
    MlirNamedAttribute e = mlirDictionaryAttrGetElement(d, i);
    MlirStringRef key = mlirIdentifierStr(e.name);
    bool known = (key.length == 4 && !memcmp(key.data, "kind", 4)) ||
                 (out->kind != EMB_SHARD_DATA_PARALLEL && key.length == 5 &&
                  !memcmp(key.data, "ranks", 5)) ||
                 (rangesKey && key.length == strlen(rangesKey) &&
                  !memcmp(key.data, rangesKey, key.length));
    if (!known)
      return failWith(err, size, "sharding[%lld] (%s) takes no '%.*s'",
                      (long long)t, kn, (int)key.length, key.data);
  }
  out->ranks = (MlirAttribute){NULL};
  out->ranges = (MlirAttribute){NULL};
  if (out->kind == EMB_SHARD_DATA_PARALLEL) {
    out->numShards = 0;
    return true;
  }

  MlirAttribute ranks = mlirDictionaryAttrGetElementByName(d, embStr("ranks"));
  if (mlirAttributeIsNull(ranks) || !mlirAttributeIsADenseI64Array(ranks))
    return failWith(err, size, "sharding[%lld] (%s) needs ranks = array<i64>",
                    (long long)t, kn);
  out->ranks = ranks;
  out->numShards = mlirDenseArrayGetNumElements(ranks);
  int64_t want = out->kind == EMB_SHARD_TABLE_WISE ? 1
                 : out->kind == EMB_SHARD_ROW_WISE ? world
                                                   : -1;
  if (want > 0 && out->numShards != want)
    return failWith(
        err, size, "sharding[%lld] (%s) needs %lld ranks (%s), got %lld",
        (long long)t, kn, (long long)want,
        want == 1 ? "the one that holds it" : "one row range on every rank",
        (long long)out->numShards);
  if (out->numShards < 1)
    return failWith(err, size, "sharding[%lld] (%s) needs at least one rank",
                    (long long)t, kn);
  for (int64_t j = 0; j < out->numShards; ++j) {
    int64_t r = embShardRank(out, j);
    if (r < 0 || r >= world)
      return failWith(err, size,
                      "sharding[%lld] ranks[%lld] is %lld, not a rank of "
                      "world_size %lld",
                      (long long)t, (long long)j, (long long)r,
                      (long long)world);
    for (int64_t i = 0; i < j; ++i)
      if (embShardRank(out, i) == r)
        return failWith(err, size,
                        "sharding[%lld] names rank %lld twice (a rank holds "
                        "one shard of a table)",
                        (long long)t, (long long)r);
  }
  if (!rangesKey)
    return true;

  MlirAttribute ranges =
      mlirDictionaryAttrGetElementByName(d, embStr(rangesKey));
  if (mlirAttributeIsNull(ranges) || !mlirAttributeIsADenseI64Array(ranges) ||
      mlirDenseArrayGetNumElements(ranges) != out->numShards + 1)
    return failWith(err, size,
                    "sharding[%lld] (%s) needs %s = array<i64> with %lld "
                    "entries (one more than ranks)",
                    (long long)t, kn, rangesKey,
                    (long long)(out->numShards + 1));
  out->ranges = ranges;
  bool rowWise = out->kind == EMB_SHARD_ROW_WISE;
  int64_t end = rowWise ? rows : cols;
  if (embShardBound(out, 0) != 0)
    return failWith(err, size, "sharding[%lld] (%s) %s must start at 0",
                    (long long)t, kn, rangesKey);
  for (int64_t j = 0; j < out->numShards; ++j) {
    int64_t a = embShardBound(out, j), b = embShardBound(out, j + 1);
    // Row shards may be empty (fewer rows than ranks); column shards not.
    if (rowWise ? b < a : b <= a)
      return failWith(
          err, size, "sharding[%lld] (%s) %s must %s, got %lld then %lld",
          (long long)t, kn, rangesKey, rowWise ? "not decrease" : "increase",
          (long long)a, (long long)b);
  }
  int64_t last = embShardBound(out, out->numShards);
  if (end >= 0 && last != end)
    return failWith(err, size,
                    "sharding[%lld] (%s) %s must end at the table's %lld %s, "
                    "got %lld",
                    (long long)t, kn, rangesKey, (long long)end,
                    rowWise ? "rows" : "columns", (long long)last);
  return true;
}

bool embReadShardingPlan(MlirOperation tbe, int64_t numTables,
                         const int64_t *rows, const int64_t *cols,
                         int64_t *worldSize, EmbTableShards *tables, char *err,
                         size_t errSize) {
  MlirAttribute plan = mlirOperationGetAttributeByName(tbe, embStr("sharding"));
  MlirAttribute ws = mlirOperationGetAttributeByName(tbe, embStr("world_size"));
  char as[128];
  if (mlirAttributeIsNull(plan))
    return failWith(err, errSize,
                    "attribute 'world_size' is only allowed with a "
                    "'sharding' plan");
  if (mlirAttributeIsNull(ws))
    return failWith(err, errSize,
                    "attribute 'sharding' needs attribute 'world_size'");
  if (!mlirAttributeIsAInteger(ws) || mlirIntegerAttrGetValueInt(ws) < 1 ||
      mlirIntegerAttrGetValueInt(ws) > EMB_MAX_WORLD_SIZE) {
    embPrintAttribute(ws, as, sizeof as);
    return failWith(err, errSize,
                    "world_size must be an integer in 1..%d, got %s",
                    EMB_MAX_WORLD_SIZE, as);
  }
  *worldSize = mlirIntegerAttrGetValueInt(ws);
  if (!mlirAttributeIsAArray(plan)) {
    embPrintAttribute(plan, as, sizeof as);
    return failWith(err, errSize,
                    "sharding must be an array of one dictionary per table, "
                    "got %s",
                    as);
  }
  if (mlirArrayAttrGetNumElements(plan) != numTables)
    return failWith(
        err, errSize, "sharding has %lld entries but there are %lld tables",
        (long long)mlirArrayAttrGetNumElements(plan), (long long)numTables);
  for (int64_t t = 0; t < numTables; ++t) {
    EmbTableShards one;
    if (!readTable(mlirArrayAttrGetElement(plan, t), t, *worldSize, rows[t],
                   cols[t], &one, err, errSize))
      return false;
    if (tables)
      tables[t] = one;
  }
  return true;
}

MlirAttribute embTableShardsAttr(MlirContext ctx, EmbShardKind kind,
                                 int64_t numShards, const int64_t *ranks,
                                 const int64_t *ranges) {
  MlirNamedAttribute e[3];
  intptr_t n = 0;
  e[n++] = embNamedAttr(ctx, "kind",
                        mlirStringAttrGet(ctx, embStr(kindNames[kind])));
  if (kind != EMB_SHARD_DATA_PARALLEL)
    e[n++] =
        embNamedAttr(ctx, "ranks", mlirDenseI64ArrayGet(ctx, numShards, ranks));
  if (kind == EMB_SHARD_ROW_WISE || kind == EMB_SHARD_COLUMN_WISE)
    e[n++] = embNamedAttr(
        ctx, kind == EMB_SHARD_ROW_WISE ? "row_ranges" : "col_ranges",
        mlirDenseI64ArrayGet(ctx, numShards + 1, ranges));
  return mlirDictionaryAttrGet(ctx, n, e);
}
