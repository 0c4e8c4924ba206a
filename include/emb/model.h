//===- emb/model.h - What a compiled model's entry takes and gives -*- C
//-*-===//
//
// The compiler describes an entry function with this plain C struct (no MLIR
// types), so that a runner with no MLIR (the AOT runner on a GPU machine) can
// make valid inputs, allocate outputs and call the model. emb-compile writes
// it into the header of a compiled model; emb-run builds it from the module.
//
// Calling convention of a lowered entry `f` (see emb-lower-to-runtime):
//   void _mlir_ciface_f(embrtContext *ctx, Memref *in0, ..., Memref *out0, ...)
// (an object of emb-compile exports it as `emb_f`, see --symbol-prefix),
// where each Memref is a descriptor {allocated, aligned, offset, sizes[rank],
// strides[rank]} of a dense row-major buffer on the context's device.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_MODEL_H
#define EMB_MODEL_H

#include "emb/export.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

EMB_EXPORTS_BEGIN

enum { EMB_MODEL_MAX_RANK = 8 };

/// What an argument holds, so that random inputs are valid.
typedef enum EmbArgRole {
  EMB_ARG_DATA = 0,    ///< floats, uniform in [-1, 1)
  EMB_ARG_IDS = 1,     ///< ids in [lo, hi)
  EMB_ARG_OFFSETS = 2, ///< CSR offsets from 0 to the length of input `ref`
  EMB_ARG_INDEX = 3,   ///< cand_to_user: users in [0, hi), in sorted groups
  EMB_ARG_LENGTHS = 4, ///< user lengths in [lo, hi]
  EMB_ARG_WEIGHTS = 5, ///< per-sample weights, uniform in [0, 1)
  /// the packed rows of a quantized table (emb.table {precision, dim}):
  /// lo = its embrtTablePrecision, hi = its columns D; random inputs pack
  /// rows uniform in [-1, 1) (embrtQuantizeRows)
  EMB_ARG_PACKED_TABLE = 6,
  /// CSR offsets from 0 to the rows (dim 0) of input `ref`: the offsets of
  /// a jagged tensor's values [N, D] (emb.jagged_to_padded)
  EMB_ARG_ROW_OFFSETS = 7,
} EmbArgRole;

/// One input or result of an entry function.
typedef struct EmbArgSpec {
  int dtype; ///< an embrtDtype
  int rank;
  int64_t dims[EMB_MODEL_MAX_RANK]; ///< -1 where dynamic
  int role;                         ///< an EmbArgRole
  int64_t lo, hi;                   ///< ranges, see EmbArgRole
  /// OFFSETS and WEIGHTS: the input holding their ids; ROW_OFFSETS: the
  /// jagged values; or -1
  int ref;
  /// 1: the call writes this input's buffer (a table or optimizer state that
  /// a backward op updates in place, docs/dialect.md); 0 for results.
  int updated;
} EmbArgSpec;

/// Invokes the entry with packed arguments: args[0] points to the context
/// pointer, args[1 + i] to the descriptor pointer of input i, then results.
typedef void (*EmbPackedFn)(void **args);

/// An entry function of a compiled model.
typedef struct EmbModelSpec {
  const char *name;
  const char *target; ///< "cpu" or "cuda": where its buffers live
  int numInputs;
  int numResults;
  const EmbArgSpec *inputs;
  const EmbArgSpec *results;
  EmbPackedFn invoke; ///< NULL when the runner invokes it another way
} EmbModelSpec;

/// The layout version of what a shared object of `emb-compile --shared`
/// describes itself with: EmbSharedModel and everything it points to
/// (EmbModelSpec, EmbArgSpec). A loader refuses a version above its own
/// (written by a newer emb-compile) instead of misreading it.
#define EMB_SHARED_MODEL_VERSION 1

/// What a shared object of `emb-compile --shared` exports as `<P>models`
/// (P: --symbol-prefix, emb_ by default), so that a program that dlopens it
/// needs no header: every entry's description, each also exported as
/// `<P>model_<entry>`, whose `invoke` calls the entry (exported as
/// `<P><entry>`, see the calling convention above). Read `version` and
/// `size` first; fields are only ever appended. Beside it the object
/// exports `const uint32_t <P>abi_version`, the EMB_ABI_VERSION
/// (emb/compiled.h) it was compiled for, which a loader compares with
/// embrtCompiledAbiVersion() before reading the entries.
typedef struct EmbSharedModel {
  uint32_t version; ///< EMB_SHARED_MODEL_VERSION of the compiler that wrote it
  uint32_t size;    ///< sizeof(EmbSharedModel) as written
  const char *prefix; ///< the symbol prefix of its names
  int32_t numEntries;
  const EmbModelSpec *const *entries;
} EmbSharedModel;

EMB_EXPORTS_END

#ifdef __cplusplus
}
#endif

#endif // EMB_MODEL_H
