//===- runtime/jagged.c - emb.jagged_to_padded -------------------*- C -*-===//
//
// The backend-neutral side of a sequence feature's jagged rows into the
// padded [U, Lk, D] form (padded[u, l] = values[offsets[u] + l] for l below
// the user's length, padding after it): the argument checks, the public
// entry point and the compiled-ABI decoder. The offsets' values are checked
// by the backends (they may live on the device).
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"

#include <string.h>

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

static embrtStatus checkJaggedToPadded(embrtContext *ctx,
                                       const embrtJaggedToPaddedArgs *args) {
  const char *op = "jagged_to_padded";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtJaggedToPaddedArgs),
                             "embrtJaggedToPaddedArgs"));
  if (!embrtIsFloatDtype(args->dtype))
    return embrtInvalid(ctx, "%s: dtype is %s, must be f32, f16, bf16 or f64",
                        op, embrtDtypeName(args->dtype));
  EMBRT_TRY(embrtCheckIndexDtype(ctx, op, "indexDtype", args->indexDtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numValues", args->numValues));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "rowElements", args->rowElements));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numUsers", args->numUsers));
  if (args->maxLength < 1)
    return embrtInvalid(ctx, "%s: maxLength is %lld, must be >= 1", op,
                        (long long)args->maxLength);
  if (args->paddingValue != args->paddingValue)
    return embrtInvalid(ctx, "%s: paddingValue is NaN", op);
  int64_t valueElements = 0, paddedElements = 0, offsetElements = 0;
  EMBRT_TRY(embrtCheckCount(ctx, op, "values", args->dtype, &valueElements,
                            args->numValues, args->rowElements, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "padded", args->dtype, &paddedElements,
                            args->numUsers, args->maxLength, args->rowElements,
                            1));
  if (args->numUsers == INT64_MAX)
    return embrtInvalid(ctx, "%s: offsets is too large to address", op);
  offsetElements = args->numUsers + 1;
  EMBRT_TRY(embrtCheckData(ctx, op, "values", args->values, valueElements));
  EMBRT_TRY(embrtCheckData(ctx, op, "offsets", args->offsets, offsetElements));
  EMBRT_TRY(embrtCheckData(ctx, op, "padded", args->padded, paddedElements));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

embrtStatus embrtJaggedToPadded(embrtContext *ctx,
                                const embrtJaggedToPaddedArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkJaggedToPadded(ctx, args));
  return ctx->backend->jaggedToPadded(ctx, args);
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
//===----------------------------------------------------------------------===//

/// The checked extents: offsets has one entry more than padded has users,
/// padded's rows are max_length long and as wide as values', lengths has a
/// user's entry.
static embrtStatus checkJaggedExtents(embrtContext *ctx, const int64_t *attrs,
                                      const int64_t *dims) {
  const char *op = "emb.jagged_to_padded";
  int64_t users = dims[EMB_ABI_JAGGED_DIM_USERS];
  int64_t numOffsets = dims[EMB_ABI_JAGGED_DIM_OFFSETS];
  if (users < 0 || numOffsets != users + 1)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: offsets has %lld entries but padded has %lld "
                         "users, which need %lld",
                         op, (long long)numOffsets, (long long)users,
                         (long long)users + 1);
  EMBRT_TRY(embrtCheckExtent(
      ctx, op, "padded", dims[EMB_ABI_JAGGED_DIM_PADDED_LENGTH], "rows a user",
      "max_length", attrs[EMB_ABI_JAGGED_MAX_LENGTH], "rows"));
  EMBRT_TRY(embrtCheckExtent(
      ctx, op, "padded", dims[EMB_ABI_JAGGED_DIM_PADDED_ROW], "elements a row",
      "values", dims[EMB_ABI_JAGGED_DIM_ROW], "elements a row"));
  return embrtCheckExtent(ctx, op, "lengths", dims[EMB_ABI_JAGGED_DIM_LENGTHS],
                          "entries", "padded", users, "users");
}

void embrtCompiledJaggedToPadded(embrtContext *ctx, const int64_t *attrs,
                                 void *const *buffers, const int64_t *dims) {
  if (checkJaggedExtents(ctx, attrs, dims) != EMBRT_OK)
    return;
  embrtJaggedToPaddedArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_JAGGED_DTYPE];
  a.indexDtype = (embrtDtype)attrs[EMB_ABI_JAGGED_INDEX_DTYPE];
  a.maxLength = attrs[EMB_ABI_JAGGED_MAX_LENGTH];
  uint64_t bits = (uint64_t)attrs[EMB_ABI_JAGGED_PADDING_BITS];
  memcpy(&a.paddingValue, &bits, sizeof a.paddingValue);
  a.values = buffers[EMB_ABI_JAGGED_BUF_VALUES];
  a.offsets = buffers[EMB_ABI_JAGGED_BUF_OFFSETS];
  a.padded = buffers[EMB_ABI_JAGGED_BUF_PADDED];
  a.lengths = buffers[EMB_ABI_JAGGED_BUF_LENGTHS];
  a.numValues = dims[EMB_ABI_JAGGED_DIM_VALUES];
  a.rowElements = dims[EMB_ABI_JAGGED_DIM_ROW];
  a.numUsers = dims[EMB_ABI_JAGGED_DIM_USERS];
  embrtJaggedToPadded(ctx, &a);
}
