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

/// The inverse, for a TBE of one table and one feature (the compiled ABI
/// passes an embedding bag in the TBE's layout).
void embrtTbeToEmbeddingBag(const embrtTbeArgs *tbe,
                            embrtEmbeddingBagArgs *bag);

/// Checks the extents a compiled lookup call carries besides its sizes
/// (include/emb/compiled.h: offsets, per_sample_weights and the result's or
/// the gradient's rows and columns; the forward's and the backward's dims
/// share these entries) against the sizes in `a`. `op` is the IR op,
/// `hasPsw` whether it has per-sample weights, `out` what the output is
/// called ("the result", "grad_output"), `isBag` whether its one table is
/// named `weight` (else `weights_<t>`).
embrtStatus embrtCheckCompiledLookup(embrtContext *ctx, const char *op,
                                     int isBag, int hasPsw, const char *out,
                                     const embrtTbeArgs *a,
                                     const int64_t *dims);

#endif // EMB_RUNTIME_TBE_H
