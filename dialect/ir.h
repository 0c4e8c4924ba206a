//===- dialect/ir.h - Small IR helpers shared by emb's C code ----*- C -*-===//
//
// Thin conveniences over the MLIR C API used by the verifier, the passes and
// the lowering: op-name tests, attribute getters, type classification,
// printing into buffers and formatted diagnostics. Private to libemb.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_DIALECT_IR_H
#define EMB_DIALECT_IR_H

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The emb ops' names.
#define EMB_OP_EMBEDDING_BAG "emb.embedding_bag"
#define EMB_OP_TABLE "emb.table"
#define EMB_OP_QUANTIZE_TABLE "emb.quantize_table"
#define EMB_OP_TBE "emb.tbe"
#define EMB_OP_BROADCAST "emb.broadcast"
#define EMB_OP_LCE "emb.lce"
#define EMB_OP_IKBO_LCE "emb.ikbo_lce"
#define EMB_OP_ATTENTION "emb.attention"
#define EMB_OP_IKBO_ATTENTION "emb.ikbo_attention"
#define EMB_OP_BROADCAST_ADD "emb.broadcast_add"
#define EMB_OP_STATE "emb.state"
#define EMB_OP_TABLE_VALUE "emb.table_value"
#define EMB_OP_TBE_BACKWARD "emb.tbe_backward"
#define EMB_OP_EMBEDDING_BAG_BACKWARD "emb.embedding_bag_backward"
#define EMB_OP_BUCKETIZE "emb.bucketize"
#define EMB_OP_LENGTHS_TO_OFFSETS "emb.lengths_to_offsets"
#define EMB_OP_ALL_TO_ALL "emb.all_to_all"
#define EMB_OP_REDUCE_SCATTER "emb.reduce_scatter"
#define EMB_OP_ALL_GATHER "emb.all_gather"
#define EMB_OP_JAGGED_TO_PADDED "emb.jagged_to_padded"

/// The unit attribute of an emb.tbe whose offsets carry, after their F*B+1
/// entries, 2F feature ends: where each feature's ids end in indices (F
/// cumulative counts), then each feature's own last offset. The lookup
/// checks every feature's offsets against them as F separate bags would
/// (emb-batch-tables makes them; docs/dialect.md).
#define EMB_ATTR_FEATURE_ENDS "feature_ends"
#define EMB_ATTR_MASKED_OFFSETS "masked_offsets"
/// The unit attribute of an emb.attention or emb.ikbo_attention whose key
/// lengths stand for SDPA's additive mask: -inf added to the scores of the
/// keys past a row's length, so that those keys' non-finite scores and
/// values reach the result as they do in PyTorch's math attention
/// (docs/dialect.md).
#define EMB_ATTR_ADDITIVE_MASK "additive_mask"

/// The trailing feature ends in `op`'s offsets: 2F for an emb.tbe with
/// feature_ends, else 0.
int64_t embTbeFeatureEndsEntries(MlirOperation op);

/// True for the collective ops (emb.all_to_all, emb.reduce_scatter,
/// emb.all_gather): every rank must issue them in the same order, so no
/// pass erases or reorders one, even when its result is unused.
bool embIsCollective(MlirOperation op);

/// True for the ops that update operands in place once lowered
/// (emb.tbe_backward, emb.embedding_bag_backward: the tables and optimizer
/// states they take, which the aliasing contract of docs/dialect.md makes
/// the caller's buffers). Their results may go unused (a step run in a loop
/// keeps its arguments) and the update still happens.
bool embUpdatesInPlace(MlirOperation op);

/// True for the emb ops with an effect besides their results: the in-place
/// updates (embUpdatesInPlace) and the collectives (embIsCollective). Such
/// an op is never dead, and no pass erases it, duplicates it or moves
/// another op across it that reads what it writes. Every pass that erases
/// or moves emb ops asks this, so a new op with effects is named here once.
bool embHasEffects(MlirOperation op);

/// The most ranks a sharding plan or a collective may name.
enum { EMB_MAX_WORLD_SIZE = 65536 };

/// The longest message emb formats for a diagnostic or an error callback,
/// with its NUL; longer ones are truncated.
enum { EMB_MAX_MESSAGE = 1024 };

/// The most columns an embedding table may have: what the runtime's TBE
/// takes (embrtTbeArgs.tableDims in emb/runtime.h).
enum { EMB_MAX_TABLE_DIM = 2048 };

/// The hyper-parameters of a backward op's optimizer (learning rate, eps,
/// beta1, beta2, weight decay): EMBRT_NUM_HYPER_PARAMS of emb/runtime.h,
/// which the lowering asserts it equals.
enum { EMB_NUM_HYPER_PARAMS = 5 };

/// Makes a string ref of a C string.
static inline MlirStringRef embStr(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/// The named attribute `name = attr`, for building ops through
/// MlirOperationState.
MlirNamedAttribute embNamedAttr(MlirContext ctx, const char *name,
                                MlirAttribute attr);

/// True if `op`'s name is exactly `name`.
bool embOpIs(MlirOperation op, const char *name);

/// Writes `op`'s name into `buf` (NUL-terminated, truncated to `size`).
void embOpName(MlirOperation op, char *buf, size_t size);

/// The string value of attribute `name` of `op` into `buf`; false if absent or
/// not a string.
bool embGetStringAttr(MlirOperation op, const char *name, char *buf,
                      size_t size);

/// The integer value of attribute `name`; false if absent or not an integer.
bool embGetIntAttr(MlirOperation op, const char *name, int64_t *value);

/// The float value of attribute `name`; false if absent or not a float.
bool embGetFloatAttr(MlirOperation op, const char *name, double *value);

/// Prints a type, attribute or location into `buf` (truncated).
void embPrintType(MlirType type, char *buf, size_t size);
void embPrintAttribute(MlirAttribute attr, char *buf, size_t size);

/// True for f32, f16 and bf16 (the float types emb tensors hold).
bool embIsFloat(MlirType type);

/// True for signless i32 and i64 (ids, offsets and indices).
bool embIsIndexInt(MlirType type);

/// Size of dim `i` of a ranked shaped type, or -1 when dynamic, and -1 when
/// the type has no dim `i` (a verifier's rank check reports that; an
/// operand of the wrong rank must not crash the checks before it).
int64_t embDim(MlirType shaped, intptr_t i);

/// Number of elements of a statically shaped type; -1 if any dim is dynamic
/// or the count does not fit an int64_t (tensor<4611686018427387904x4xf32>).
int64_t embNumElements(MlirType shaped);

//===----------------------------------------------------------------------===//
// Training: the backward ops' operands, handles and the buffers they update
//===----------------------------------------------------------------------===//

/// The attributes of a backward op that say how its optimizer states are
/// stored: an embrtStatePrecision name ("f32", the default, "bf16",
/// "fp8_e4m3", "fp8_e5m2"). An fp8 state group holds T states of i8 codes,
/// then T f32 scales.
#define EMB_ATTR_MOMENTUM1_PRECISION "momentum1_precision"
#define EMB_ATTR_MOMENTUM2_PRECISION "momentum2_precision"

/// Where the operand groups of an emb.tbe_backward or an
/// emb.embedding_bag_backward are, read from its operandSegmentSizes
/// (array<i32: 1, 1, T, 0 or 1, 1, M1, M2, 1, 0 or 1>, M1 and M2 each 0, T,
/// or 2T for an fp8 state's codes and scales; the first three are indices,
/// offsets, tables for emb.tbe_backward and weight, indices, offsets for
/// emb.embedding_bag_backward).
typedef struct EmbBackwardOperands {
  bool isTbe; ///< emb.tbe_backward (tables through handles, F features)
  intptr_t indices, offsets;
  intptr_t firstTable, numTables; ///< one table for the bag
  intptr_t psw;                   ///< -1 without per-sample weights
  intptr_t grad;
  /// First operand and count (0, T, or 2T: the states, then their scales)
  intptr_t momentum1, numMomentum1;
  intptr_t momentum2, numMomentum2;
  intptr_t hyper;
  intptr_t step; ///< -1 without a step
  /// embrtStatePrecision of each group, from its attribute (F32 without
  /// one); -1 for a name that is none (the verifier reports it).
  int momentum1Precision, momentum2Precision;
} EmbBackwardOperands;

/// Reads the operand groups of backward op `op`; false if its
/// operandSegmentSizes is missing or does not have the form above with
/// every single operand present, optional ones at most once, and sizes
/// that sum to the operands (the verifier says which).
bool embGetBackwardOperands(MlirOperation op, EmbBackwardOperands *out);

/// The operand whose buffer result `r` of a backward op is once lowered:
/// the updated tables, then momentum1, then momentum2, in operand order (an
/// fp8 state's scales are updated with it: Adam writes a new scale per row,
/// rowwise Adagrad's per-table scale is returned as it came).
intptr_t embBackwardUpdatedOperand(const EmbBackwardOperands *ops, intptr_t r);

/// The operand groups a backward op updates, in the order of its results
/// (the scales of an fp8 state group follow its states).
enum {
  EMB_BACKWARD_TABLES,
  EMB_BACKWARD_MOMENTUM1,
  EMB_BACKWARD_MOMENTUM2,
  EMB_BACKWARD_MOMENTUM1_SCALES,
  EMB_BACKWARD_MOMENTUM2_SCALES,
};

/// The group (EMB_BACKWARD_*) of result `r` of a backward op, and in
/// `*index` its place in the group (its table).
int embBackwardGroup(const EmbBackwardOperands *ops, intptr_t r,
                     int64_t *index);

/// How messages name the operand result `r` updates: weights_0, momentum1
/// #0, momentum1_scales #0 (emb.tbe_backward); weight, momentum1,
/// momentum1_scales (emb.embedding_bag_backward).
void embBackwardUpdatedName(const EmbBackwardOperands *ops, intptr_t r,
                            char *buf, size_t size);

/// The runtime's state precision (embrtStatePrecision) named `name`; false
/// for any other name.
bool embParseStatePrecision(const char *name, int *precision);

/// The tensor type a table or state handle names: the operand of the
/// emb.table or emb.state that made it, or, for a result of
/// emb.tbe_backward, that of the operand it updates. Null if `handle` is
/// none of these.
MlirType embHandleTensorType(MlirValue handle);

//===----------------------------------------------------------------------===//
// Quantized tables: emb.table {precision, dim}
//===----------------------------------------------------------------------===//

/// The attributes of an emb.table whose rows are packed (embrtTablePrecision
/// in emb/runtime.h): `precision` ("int8", "int4", "int2", "fp8") and `dim`,
/// the columns D (the tensor's second dimension is the row's bytes).
#define EMB_ATTR_PRECISION "precision"
#define EMB_ATTR_DIM "dim"

/// The runtime's precision named `name` ("dense" included); false for any
/// other name.
bool embParsePrecision(const char *name, int *precision);

/// What a table handle names (see embHandleTensorType): its tensor, rows,
/// columns (-1 if dynamic) and how its rows are stored.
typedef struct EmbTableInfo {
  MlirType tensor;
  int64_t rows, dim;
  int precision;          ///< an embrtTablePrecision; 0 (dense) for a state
  char precisionName[16]; ///< "dense", "int8", ...
} EmbTableInfo;

/// Fills `info` for `handle`; false if embHandleTensorType finds no tensor.
/// The precision is read from the emb.table that made the handle, and is
/// left as the verifier found it: callers on verified IR trust it.
bool embGetTableInfo(MlirValue handle, EmbTableInfo *info);

/// Whether `info` is a quantized table.
static inline bool embTableIsQuantized(const EmbTableInfo *info) {
  return info->precision != 0;
}

/// Whether the dense_resource value of constant `op` has its blob (the C
/// API's element readers dereference a missing one).
bool embResourceHasData(MlirOperation op);

/// Whether `op`'s result is its first operand's buffer once lowered
/// (emb-lower-to-runtime): emb.table, emb.state, emb.table_value,
/// tensor.cast, tensor.expand_shape and tensor.collapse_shape. A backward
/// op's results are also its operands' buffers, but new values of them.
bool embIsBufferAlias(MlirOperation op);

/// The value whose buffer `v` is once lowered: `v` followed up through the
/// ops of embIsBufferAlias.
MlirValue embBufferRoot(MlirValue v);

/// Emits an error at `loc` with a printf-style message.
void embEmitErrorf(MlirLocation loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/// Emits a remark (a diagnostic that does not fail) at `loc`.
void embEmitRemarkf(MlirLocation loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif // EMB_DIALECT_IR_H
