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
#define EMB_OP_TBE "emb.tbe"
#define EMB_OP_BROADCAST "emb.broadcast"
#define EMB_OP_LCE "emb.lce"
#define EMB_OP_IKBO_LCE "emb.ikbo_lce"
#define EMB_OP_ATTENTION "emb.attention"
#define EMB_OP_IKBO_ATTENTION "emb.ikbo_attention"
#define EMB_OP_BROADCAST_ADD "emb.broadcast_add"

/// The longest message emb formats for a diagnostic or an error callback,
/// with its NUL; longer ones are truncated.
enum { EMB_MAX_MESSAGE = 1024 };

/// The most columns an embedding table may have: what the runtime's TBE
/// takes (embrtTbeArgs.tableDims in emb/runtime.h).
enum { EMB_MAX_TABLE_DIM = 2048 };

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

/// Size of dim `i` of a ranked shaped type, or -1 when dynamic.
int64_t embDim(MlirType shaped, intptr_t i);

/// Number of elements of a statically shaped type, -1 if any dim is dynamic.
int64_t embNumElements(MlirType shaped);

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
