//===- dialect/sharding.h - The sharding plan of an emb.tbe -------*- C -*-===//
//
// A sharding plan is two attributes of an emb.tbe: `world_size` (the ranks
// of the communicator) and `sharding`, one dictionary per table:
//
//   {kind = "table_wise", ranks = array<i64: r>}
//   {kind = "row_wise", ranks = array<i64: r0, ..., r{W-1}>,
//    row_ranges = array<i64: 0, e1, ..., E>}
//   {kind = "column_wise", ranks = array<i64: r0, ..., r{k-1}>,
//    col_ranges = array<i64: 0, c1, ..., D>}
//   {kind = "data_parallel"}
//
// Shard j of a table lives on ranks[j] and holds rows (row_wise) or columns
// (column_wise) [ranges[j], ranges[j+1]). A table-wise table is one shard of
// all rows on one rank; a data-parallel one is on every rank whole. A rank
// holds at most one shard of a table. docs/sharding.md describes the plan;
// the verifier, emb-shard and emb-plan-sharding read and write it here.
// Private to libemb.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_DIALECT_SHARDING_H
#define EMB_DIALECT_SHARDING_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How one table is distributed.
typedef enum EmbShardKind {
  EMB_SHARD_TABLE_WISE,
  EMB_SHARD_ROW_WISE,
  EMB_SHARD_COLUMN_WISE,
  EMB_SHARD_DATA_PARALLEL,
} EmbShardKind;

/// The spelling of `kind` in the plan: "table_wise", ...
const char *embShardKindName(EmbShardKind kind);

/// One table's entry of a plan, read by embReadTableShards.
typedef struct EmbTableShards {
  EmbShardKind kind;
  int64_t numShards;   ///< 1 (table_wise), W (row_wise), k (column_wise), 0
  MlirAttribute ranks; ///< array<i64>, numShards entries (null: none)
  /// row_ranges (row_wise) or col_ranges (column_wise), numShards + 1
  /// entries; null for the other kinds.
  MlirAttribute ranges;
} EmbTableShards;

/// The rank of shard `j`.
int64_t embShardRank(const EmbTableShards *s, int64_t j);

/// Where shard `j` starts (row or column); ranges[numShards] is the end.
int64_t embShardBound(const EmbTableShards *s, int64_t j);

/// The shard `rank` holds, or -1 (a data-parallel table: 0 on every rank).
int64_t embShardOfRank(const EmbTableShards *s, int64_t rank);

/// Whether `tbe` carries a plan (a `sharding` or a `world_size` attribute).
bool embHasShardingPlan(MlirOperation tbe);

/// Reads and checks the plan of `tbe` (T tables of `rows[t]` x `cols[t]`,
/// -1 where unknown): fills `*worldSize` and, when `tables` is not NULL,
/// `tables[0..T-1]`. On a violation writes a message that names the table
/// and the rule into `err` ("sharding[1] (row_wise) row_ranges must end at
/// the table's 100 rows, got 90") and returns false.
bool embReadShardingPlan(MlirOperation tbe, int64_t numTables,
                         const int64_t *rows, const int64_t *cols,
                         int64_t *worldSize, EmbTableShards *tables, char *err,
                         size_t errSize);

/// The plan entry of one table as an attribute; `ranks` has `numShards`
/// entries and `ranges` numShards + 1 (row_wise, column_wise) or is NULL.
MlirAttribute embTableShardsAttr(MlirContext ctx, EmbShardKind kind,
                                 int64_t numShards, const int64_t *ranks,
                                 const int64_t *ranges);

#ifdef __cplusplus
}
#endif

#endif // EMB_DIALECT_SHARDING_H
