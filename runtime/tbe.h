//===- runtime/tbe.h - What the lookup's files share --------------*- C -*-===//
//
// The forward (runtime/tbe.c) and the backward (runtime/tbe_backward.c) of a
// lookup check the same lookup fields and run an embedding bag as a TBE of
// one table and one feature; these are the pieces they share.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_TBE_H
#define EMB_RUNTIME_TBE_H

#include "runtime/check.h"

/// Checks the lookup fields of `args` for op `op` ("tbe", "tbe_backward"):
/// the struct, enums, dtypes, per-sample weights, tables, features, offsets
/// and indices, and with `withOutput` the output, its dtype and configId
/// (the backward reads none of them).
embrtStatus embrtCheckTbeLookup(embrtContext *ctx, const char *op,
                                const embrtTbeArgs *args, embrtCheckMode mode,
                                int withOutput);

/// The same for an embedding bag (`op` "embedding_bag" or
/// "embedding_bag_backward").
embrtStatus embrtCheckEmbeddingBagLookup(embrtContext *ctx, const char *op,
                                         const embrtEmbeddingBagArgs *args,
                                         embrtCheckMode mode, int withOutput);

/// An embedding bag as a TBE with one table and one feature; the arrays the
/// TBE arguments point to live beside them.
typedef struct embrtSingleTableTbe {
  embrtTbeArgs args;
  const void *tables[1];
  int64_t tableRows[1], tableDims[1], featureTables[1];
} embrtSingleTableTbe;

/// Fills `tbe` from `bag` (its arrays point into `tbe`).
void embrtEmbeddingBagToTbe(const embrtEmbeddingBagArgs *bag,
                            embrtSingleTableTbe *tbe);

#endif // EMB_RUNTIME_TBE_H
