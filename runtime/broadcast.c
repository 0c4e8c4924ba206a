//===- runtime/broadcast.c - emb.broadcast and emb.broadcast_add --*- C -*-===//
//
// The backend-neutral side of the broadcast of user rows to candidates
// (out[b] = ro[candToUser[b]], plus nro[b] for broadcast_add): the argument
// checks, the public entry points and the compiled-ABI decoders.
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

/// `isAdd` selects broadcast_add (float dtypes, nro required).
static embrtStatus checkBroadcast(embrtContext *ctx,
                                  const embrtBroadcastArgs *args, int isAdd) {
  const char *op = isAdd ? "broadcast_add" : "broadcast";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtBroadcastArgs), "embrtBroadcastArgs"));
  if (isAdd && !embrtIsFloatDtype(args->dtype))
    return embrtInvalid(ctx, "%s: dtype is %s, must be f32, f16, bf16 or f64",
                        op, embrtDtypeName(args->dtype));
  EMBRT_TRY(embrtCheckKnownDtype(ctx, op, "dtype", args->dtype));
  EMBRT_TRY(embrtCheckIndexDtype(ctx, op, "indexDtype", args->indexDtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numUsers", args->numUsers));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "rowElements", args->rowElements));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "batchSize", args->batchSize));
  int64_t roElements = 0, outputElements = 0;
  EMBRT_TRY(embrtCheckCount(ctx, op, "ro", args->dtype, &roElements,
                            args->numUsers, args->rowElements, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "output", args->dtype, &outputElements,
                            args->batchSize, args->rowElements, 1, 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "ro", args->ro, roElements));
  EMBRT_TRY(
      embrtCheckData(ctx, op, "candToUser", args->candToUser, args->batchSize));
  if (isAdd)
    EMBRT_TRY(embrtCheckData(ctx, op, "nro", args->nro, outputElements));
  else if (args->nro)
    return embrtInvalid(
        ctx, "%s: nro must be NULL (it belongs to broadcast_add)", op);
  EMBRT_TRY(embrtCheckData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

embrtStatus embrtBroadcast(embrtContext *ctx, const embrtBroadcastArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkBroadcast(ctx, args, 0));
  return ctx->backend->broadcast(ctx, args);
}

embrtStatus embrtBroadcastAdd(embrtContext *ctx,
                              const embrtBroadcastArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkBroadcast(ctx, args, 1));
  return ctx->backend->broadcastAdd(ctx, args);
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
//===----------------------------------------------------------------------===//

static embrtBroadcastArgs decodeBroadcast(const int64_t *attrs,
                                          void *const *buffers,
                                          const int64_t *dims) {
  embrtBroadcastArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_BCAST_DTYPE];
  a.indexDtype = (embrtDtype)attrs[EMB_ABI_BCAST_INDEX_DTYPE];
  a.ro = buffers[EMB_ABI_BCAST_BUF_RO];
  a.candToUser = buffers[EMB_ABI_BCAST_BUF_INDEX];
  a.nro = buffers[EMB_ABI_BCAST_BUF_NRO];
  a.output = buffers[EMB_ABI_BCAST_BUF_OUTPUT];
  a.numUsers = dims[EMB_ABI_BCAST_DIM_USERS];
  a.rowElements = dims[EMB_ABI_BCAST_DIM_ROW];
  a.batchSize = dims[EMB_ABI_BCAST_DIM_BATCH];
  return a;
}

/// The checked extents: nro (broadcast_add) and the result have a row per
/// entry of cand_to_user, each as many elements as a row of ro.
static embrtStatus checkBroadcastExtents(embrtContext *ctx, const int64_t *dims,
                                         int isAdd) {
  const char *op = isAdd ? "emb.broadcast_add" : "emb.broadcast";
  int64_t batch = dims[EMB_ABI_BCAST_DIM_BATCH];
  int64_t row = dims[EMB_ABI_BCAST_DIM_ROW];
  if (isAdd) {
    EMBRT_TRY(embrtCheckExtent(ctx, op, "nro", dims[EMB_ABI_BCAST_DIM_NRO_ROWS],
                               "rows", "cand_to_user", batch, "entries"));
    EMBRT_TRY(embrtCheckExtent(ctx, op, "nro", dims[EMB_ABI_BCAST_DIM_NRO_ROW],
                               "elements a row", "ro", row, "elements a row"));
  }
  EMBRT_TRY(embrtCheckExtent(ctx, op, "the result",
                             dims[EMB_ABI_BCAST_DIM_OUTPUT_ROWS], "rows",
                             "cand_to_user", batch, "entries"));
  return embrtCheckExtent(ctx, op, "the result",
                          dims[EMB_ABI_BCAST_DIM_OUTPUT_ROW], "elements a row",
                          "ro", row, "elements a row");
}

void embrtCompiledBroadcast(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims) {
  embrtBroadcastArgs a = decodeBroadcast(attrs, buffers, dims);
  a.nro = NULL;
  if (checkBroadcastExtents(ctx, dims, 0) == EMBRT_OK)
    embrtBroadcast(ctx, &a);
}

void embrtCompiledBroadcastAdd(embrtContext *ctx, const int64_t *attrs,
                               void *const *buffers, const int64_t *dims) {
  embrtBroadcastArgs a = decodeBroadcast(attrs, buffers, dims);
  if (checkBroadcastExtents(ctx, dims, 1) == EMBRT_OK)
    embrtBroadcastAdd(ctx, &a);
}
