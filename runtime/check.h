//===- runtime/check.h - Argument checks the families share -------*- C -*-===//
//
// Every public entry point checks its arguments once, in its family's file
// (runtime/tbe.c, broadcast.c, lce.c, attention.c, data.c), before it calls
// a backend; backends then trust them. The pieces those checks share are
// here (runtime/check.c). A failed check records EMBRT_INVALID_ARGUMENT with
// a message that names the op and the field ("tbe: tableDims[2] is 0, must
// be in 1..2048") and returns it.
//
// Order inside a family's check: the struct itself, enums and dtypes,
// shapes, host arrays, then (for calls) the data pointers. Sizes are checked
// for overflow so that backends can compute element counts and byte offsets
// in int64 without care.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_CHECK_H
#define EMB_RUNTIME_CHECK_H

#include "runtime/status.h"

#include <stddef.h>
#include <stdint.h>

/// How much of an argument struct a check covers.
typedef enum embrtCheckMode {
  /// A *WorkspaceSize query: struct size, enums, shapes and host arrays; the
  /// data pointers may still be unset.
  EMBRT_CHECK_SHAPES = 0,
  /// A call: everything, data pointers included. The workspace is checked by
  /// embrtCheckWorkspace once the backend has said how much it needs.
  EMBRT_CHECK_CALL = 1,
} embrtCheckMode;

/// Records EMBRT_INVALID_ARGUMENT with a printf-style message and returns it.
embrtStatus embrtInvalid(embrtContext *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

//===----------------------------------------------------------------------===//
// Dtypes and sizes
//===----------------------------------------------------------------------===//

/// "f32", "bf16", ...: the dtype as messages spell it.
const char *embrtDtypeName(embrtDtype dtype);

static inline int embrtIsIndexDtype(embrtDtype d) {
  return d == EMBRT_I32 || d == EMBRT_I64;
}

/// The dtypes of tables and matrix operands.
static inline int embrtIsStorageFloat(embrtDtype d) {
  return d == EMBRT_F32 || d == EMBRT_F16 || d == EMBRT_BF16;
}

/// The dtypes elementwise arithmetic accepts.
static inline int embrtIsFloatDtype(embrtDtype d) {
  return embrtIsStorageFloat(d) || d == EMBRT_F64;
}

/// a * b for non-negative a and b; 0 on overflow.
static inline int embrtMulOk(int64_t a, int64_t b, int64_t *out) {
  if (a != 0 && b > INT64_MAX / a)
    return 0;
  *out = a * b;
  return 1;
}

//===----------------------------------------------------------------------===//
// Checks of one field
//===----------------------------------------------------------------------===//

/// `args` is set and its structSize is `expected` (sizeof(typeName)).
embrtStatus embrtCheckStruct(embrtContext *ctx, const char *op,
                             const void *args, size_t structSize,
                             size_t expected, const char *typeName);
embrtStatus embrtCheckNonNegative(embrtContext *ctx, const char *op,
                                  const char *name, int64_t value);
/// `dtype` is one of embrtDtype's values.
embrtStatus embrtCheckKnownDtype(embrtContext *ctx, const char *op,
                                 const char *name, embrtDtype dtype);
/// I32 or I64.
embrtStatus embrtCheckIndexDtype(embrtContext *ctx, const char *op,
                                 const char *name, embrtDtype dtype);
/// F32, F16 or BF16.
embrtStatus embrtCheckStorageFloat(embrtContext *ctx, const char *op,
                                   const char *name, embrtDtype dtype);
/// What a product computes in (embrtAttentionArgs::computeDtype,
/// embrtIkboLceArgs::computeDtype): f32 (the data as it is), or f16 or bf16
/// with f32 data.
embrtStatus embrtCheckComputeDtype(embrtContext *ctx, const char *op,
                                   embrtDtype dtype, embrtDtype computeDtype);
/// -1 (the backend chooses) or a table row; the backend checks the row.
embrtStatus embrtCheckConfigId(embrtContext *ctx, const char *op,
                               int64_t configId);
/// Checks that `count` elements of `dtype` (count itself the product of up
/// to four non-negative factors) are addressable; stores the count when
/// `count` is not NULL.
embrtStatus embrtCheckCount(embrtContext *ctx, const char *op, const char *name,
                            embrtDtype dtype, int64_t *count, int64_t a,
                            int64_t b, int64_t c, int64_t d);
/// A data pointer that must be set when its tensor holds any element.
embrtStatus embrtCheckData(embrtContext *ctx, const char *op, const char *name,
                           const void *ptr, int64_t elements);

//===----------------------------------------------------------------------===//
// Extents of compiled calls
//===----------------------------------------------------------------------===//

/// A checked extent of a compiled call (include/emb/compiled.h): operand
/// `nameA` has `a` `unitA` ("entries", "rows", ...) and must match `b` of
/// `nameB`. Records EMBRT_OUT_OF_RANGE "op: nameA has a unitA but nameB has
/// b unitB" (unitB left out when it is unitA), `op` being the IR op
/// ("emb.embedding_bag"), and returns it.
embrtStatus embrtCheckExtent(embrtContext *ctx, const char *op,
                             const char *nameA, int64_t a, const char *unitA,
                             const char *nameB, int64_t b, const char *unitB);

/// The same for a dim the op's signature names (docs/dialect.md): "op: nameA
/// has sym = a but nameB has sym = b" ("emb.lce: x has K = 30 but w has K =
/// 32").
embrtStatus embrtCheckDimExtent(embrtContext *ctx, const char *op,
                                const char *sym, const char *nameA, int64_t a,
                                const char *nameB, int64_t b);

//===----------------------------------------------------------------------===//
// Workspaces
//===----------------------------------------------------------------------===//

/// Checks that a *WorkspaceSize query has somewhere to write its answer, and
/// writes 0 there.
embrtStatus embrtCheckBytesOut(embrtContext *ctx, const char *op,
                               size_t *bytes);

/// Checks a caller's workspace against the `needed` bytes a backend asked
/// for: present, large enough, and aligned as the context's backend needs.
embrtStatus embrtCheckWorkspace(embrtContext *ctx, const char *op,
                                const void *workspace, size_t bytes,
                                size_t needed);

#endif // EMB_RUNTIME_CHECK_H
