//===- runtime/check.c - Argument checks the families share -------*- C -*-===//
//
// The field checks every family's argument check is made of (see check.h),
// and the workspace checks of the entry points that take one.
//
//===----------------------------------------------------------------------===//

#include "runtime/check.h"
#include "runtime/backend.h"
#include "runtime/context.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// Byte counts are computed in int64 and must fit a size_t.
_Static_assert(sizeof(size_t) >= sizeof(int64_t), "the runtime needs 64 bits");

embrtStatus embrtInvalid(embrtContext *ctx, const char *fmt, ...) {
  char buffer[sizeof ctx->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buffer, sizeof buffer, fmt, ap);
  va_end(ap);
  return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT, "%s", buffer);
}

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

const char *embrtDtypeName(embrtDtype dtype) {
  switch (dtype) {
  case EMBRT_F32:
    return "f32";
  case EMBRT_F16:
    return "f16";
  case EMBRT_BF16:
    return "bf16";
  case EMBRT_I32:
    return "i32";
  case EMBRT_I64:
    return "i64";
  case EMBRT_F64:
    return "f64";
  case EMBRT_I8:
    return "i8";
  }
  return "an unknown dtype";
}

embrtStatus embrtCheckKnownDtype(embrtContext *ctx, const char *op,
                                 const char *name, embrtDtype dtype) {
  if (embrtDtypeSize(dtype) == 0)
    return embrtInvalid(ctx, "%s: %s is %d, not an embrtDtype", op, name,
                        (int)dtype);
  return EMBRT_OK;
}

embrtStatus embrtCheckIndexDtype(embrtContext *ctx, const char *op,
                                 const char *name, embrtDtype dtype) {
  if (!embrtIsIndexDtype(dtype))
    return embrtInvalid(ctx, "%s: %s is %s, must be i32 or i64", op, name,
                        embrtDtypeName(dtype));
  return EMBRT_OK;
}

embrtStatus embrtCheckStorageFloat(embrtContext *ctx, const char *op,
                                   const char *name, embrtDtype dtype) {
  if (!embrtIsStorageFloat(dtype))
    return embrtInvalid(ctx, "%s: %s is %s, must be f32, f16 or bf16", op, name,
                        embrtDtypeName(dtype));
  return EMBRT_OK;
}

embrtStatus embrtCheckComputeDtype(embrtContext *ctx, const char *op,
                                   embrtDtype dtype, embrtDtype computeDtype) {
  if (computeDtype != EMBRT_F32 &&
      (dtype != EMBRT_F32 ||
       (computeDtype != EMBRT_F16 && computeDtype != EMBRT_BF16)))
    return embrtInvalid(ctx,
                        "%s: computeDtype is %s, must be f32 (the data as it "
                        "is), or f16 or bf16 with f32 data (dtype is %s)",
                        op, embrtDtypeName(computeDtype),
                        embrtDtypeName(dtype));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Structs, shapes and pointers
//===----------------------------------------------------------------------===//

embrtStatus embrtCheckStruct(embrtContext *ctx, const char *op,
                             const void *args, size_t structSize,
                             size_t expected, const char *typeName) {
  if (!args)
    return embrtInvalid(ctx, "%s: args is NULL", op);
  if (structSize != expected)
    return embrtInvalid(ctx,
                        "%s: structSize is %zu, this runtime knows %zu "
                        "(sizeof(%s))",
                        op, structSize, expected, typeName);
  return EMBRT_OK;
}

embrtStatus embrtCheckNonNegative(embrtContext *ctx, const char *op,
                                  const char *name, int64_t value) {
  if (value < 0)
    return embrtInvalid(ctx, "%s: %s is %lld, must be >= 0", op, name,
                        (long long)value);
  return EMBRT_OK;
}

embrtStatus embrtCheckConfigId(embrtContext *ctx, const char *op,
                               int64_t configId) {
  if (configId < -1)
    return embrtInvalid(ctx, "%s: configId is %lld, must be >= -1", op,
                        (long long)configId);
  return EMBRT_OK;
}

embrtStatus embrtCheckCount(embrtContext *ctx, const char *op, const char *name,
                            embrtDtype dtype, int64_t *count, int64_t a,
                            int64_t b, int64_t c, int64_t d) {
  int64_t n = 1, bytes;
  if (!embrtMulOk(n, a, &n) || !embrtMulOk(n, b, &n) || !embrtMulOk(n, c, &n) ||
      !embrtMulOk(n, d, &n) ||
      !embrtMulOk(n, (int64_t)embrtDtypeSize(dtype), &bytes))
    return embrtInvalid(ctx, "%s: %s is too large to address", op, name);
  if (count)
    *count = n;
  return EMBRT_OK;
}

embrtStatus embrtCheckData(embrtContext *ctx, const char *op, const char *name,
                           const void *ptr, int64_t elements) {
  if (!ptr && elements > 0)
    return embrtInvalid(ctx, "%s: %s is NULL", op, name);
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Extents of compiled calls
//===----------------------------------------------------------------------===//

embrtStatus embrtCheckExtent(embrtContext *ctx, const char *op,
                             const char *nameA, int64_t a, const char *unitA,
                             const char *nameB, int64_t b, const char *unitB) {
  if (a == b)
    return EMBRT_OK;
  int sameUnit = strcmp(unitA, unitB) == 0;
  return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                       "%s: %s has %lld %s but %s has %lld%s%s", op, nameA,
                       (long long)a, unitA, nameB, (long long)b,
                       sameUnit ? "" : " ", sameUnit ? "" : unitB);
}

embrtStatus embrtCheckDimExtent(embrtContext *ctx, const char *op,
                                const char *sym, const char *nameA, int64_t a,
                                const char *nameB, int64_t b) {
  if (a == b)
    return EMBRT_OK;
  return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                       "%s: %s has %s = %lld but %s has %s = %lld", op, nameA,
                       sym, (long long)a, nameB, sym, (long long)b);
}

//===----------------------------------------------------------------------===//
// Workspaces
//===----------------------------------------------------------------------===//

embrtStatus embrtCheckBytesOut(embrtContext *ctx, const char *op,
                               size_t *bytes) {
  if (!bytes)
    return embrtInvalid(ctx, "%s: bytes is NULL", op);
  *bytes = 0;
  return EMBRT_OK;
}

embrtStatus embrtCheckWorkspace(embrtContext *ctx, const char *op,
                                const void *workspace, size_t bytes,
                                size_t needed) {
  if (needed == 0)
    return EMBRT_OK;
  if (!workspace)
    return embrtInvalid(ctx, "%s: workspace is NULL, needs %zu bytes", op,
                        needed);
  if (bytes < needed)
    return embrtInvalid(ctx, "%s: workspace has %zu bytes, needs %zu", op,
                        bytes, needed);
  size_t alignment = ctx->backend->workspaceAlignment;
  if ((uintptr_t)workspace % alignment != 0)
    return embrtInvalid(ctx, "%s: workspace must be %zu-byte aligned", op,
                        alignment);
  return EMBRT_OK;
}
