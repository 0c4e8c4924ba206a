//===- runtime/collectives.c - Communicators and collectives ------*- C -*-===//
//
// The backend-neutral side of emb's collectives (emb.all_to_all,
// emb.reduce_scatter, emb.all_gather): the communicator a context joins and
// the argument checks of the entry points. The CPU backend supports one
// rank (runtime/cpu/collectives.c: the collectives are copies); the CUDA
// backend runs them with NCCL on the context's stream
// (runtime/cuda/collectives.c).
//
//===----------------------------------------------------------------------===//

#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"
#include "runtime/status.h"

#include <string.h>

static const struct embrtBackend *backendOf(embrtDevice device) {
#ifdef EMB_HAVE_CUDA
  if (device == EMBRT_DEVICE_CUDA)
    return &embrtCudaBackend;
#endif
  return device == EMBRT_DEVICE_CPU ? &embrtCpuBackend : NULL;
}

embrtStatus embrtCommGetUniqueId(embrtDevice device, embrtCommId *out) {
  if (!out)
    return EMBRT_INVALID_ARGUMENT;
  memset(out, 0, sizeof *out);
  if (device != EMBRT_DEVICE_CPU && device != EMBRT_DEVICE_CUDA)
    return EMBRT_INVALID_ARGUMENT;
  const struct embrtBackend *b = backendOf(device);
  return b ? b->commGetUniqueId(out) : EMBRT_UNSUPPORTED;
}

embrtStatus embrtContextSetCommunicator(embrtContext *ctx, int worldSize,
                                        int rank, const embrtCommId *id) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  const char *op = "set communicator";
  if (ctx->worldSize)
    return embrtInvalid(ctx,
                        "%s: the context already has a communicator of %d "
                        "ranks (a context joins one, once)",
                        op, ctx->worldSize);
  if (worldSize < 1)
    return embrtInvalid(ctx, "%s: worldSize is %d, must be >= 1", op,
                        worldSize);
  if (rank < 0 || rank >= worldSize)
    return embrtInvalid(ctx, "%s: rank is %d, must be in 0..%d", op, rank,
                        worldSize - 1);
  if (!id)
    return embrtInvalid(ctx, "%s: id is NULL", op);
  ctx->worldSize = worldSize;
  ctx->rank = rank;
  embrtStatus status = ctx->backend->commInit(ctx, id);
  if (status != EMBRT_OK) {
    ctx->worldSize = 0;
    ctx->rank = 0;
    ctx->comm = NULL;
  }
  return status;
}

embrtStatus embrtContextGetCommunicator(embrtContext *ctx, int *worldSize,
                                        int *rank) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  if (!worldSize || !rank)
    return embrtInvalid(ctx, "get communicator: worldSize or rank is NULL");
  if (!ctx->worldSize)
    return embrtInvalid(ctx, "get communicator: the context has none "
                             "(embrtContextSetCommunicator)");
  *worldSize = ctx->worldSize;
  *rank = ctx->rank;
  return EMBRT_OK;
}

/// The context has a communicator.
static embrtStatus checkJoined(embrtContext *ctx, const char *op) {
  if (ctx->worldSize)
    return EMBRT_OK;
  return embrtInvalid(ctx,
                      "%s: the context has no communicator (call "
                      "embrtContextSetCommunicator first)",
                      op);
}

/// Checks `counts` (worldSize non-negative entries) and sums them.
static embrtStatus checkCounts(embrtContext *ctx, const char *op,
                               const char *name, const int64_t *counts,
                               int64_t *sum) {
  if (!counts)
    return embrtInvalid(ctx, "%s: %s is NULL", op, name);
  *sum = 0;
  for (int r = 0; r < ctx->worldSize; ++r) {
    if (counts[r] < 0)
      return embrtInvalid(ctx, "%s: %s[%d] is %lld, must be >= 0", op, name, r,
                          (long long)counts[r]);
    if (counts[r] > INT64_MAX - *sum)
      return embrtInvalid(ctx, "%s: %s overflow", op, name);
    *sum += counts[r];
  }
  return EMBRT_OK;
}

embrtStatus embrtAllToAll(embrtContext *ctx, const embrtAllToAllArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  const char *op = "all_to_all";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtAllToAllArgs), "embrtAllToAllArgs"));
  EMBRT_TRY(checkJoined(ctx, op));
  EMBRT_TRY(embrtCheckKnownDtype(ctx, op, "dtype", args->dtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "rowElements", args->rowElements));
  int64_t sendRows = 0, recvRows = 0, sendElements = 0, recvElements = 0;
  EMBRT_TRY(checkCounts(ctx, op, "sendCounts", args->sendCounts, &sendRows));
  EMBRT_TRY(checkCounts(ctx, op, "recvCounts", args->recvCounts, &recvRows));
  EMBRT_TRY(embrtCheckCount(ctx, op, "send", args->dtype, &sendElements,
                            sendRows, args->rowElements, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "recv", args->dtype, &recvElements,
                            recvRows, args->rowElements, 1, 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "send", args->send, sendElements));
  EMBRT_TRY(embrtCheckData(ctx, op, "recv", args->recv, recvElements));
  return ctx->backend->allToAll(ctx, args);
}

/// reduce_scatter (`gather` 0) and all_gather: `small` elements on one side,
/// worldSize times as many on the other.
static embrtStatus checkEqualBlocks(embrtContext *ctx, const char *op,
                                    const void *send, void *recv,
                                    embrtDtype dtype, int64_t small,
                                    int gather) {
  EMBRT_TRY(checkJoined(ctx, op));
  EMBRT_TRY(embrtCheckKnownDtype(ctx, op, "dtype", dtype));
  if (!gather && !embrtIsStorageFloat(dtype))
    return embrtInvalid(ctx, "%s: dtype is %s, must be f32, f16 or bf16", op,
                        embrtDtypeName(dtype));
  EMBRT_TRY(embrtCheckNonNegative(
      ctx, op, gather ? "sendElements" : "recvElements", small));
  int64_t big = 0;
  EMBRT_TRY(embrtCheckCount(ctx, op, gather ? "recv" : "send", dtype, &big,
                            small, ctx->worldSize, 1, 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "send", send, gather ? small : big));
  EMBRT_TRY(embrtCheckData(ctx, op, "recv", recv, gather ? big : small));
  return EMBRT_OK;
}

embrtStatus embrtReduceScatter(embrtContext *ctx, const void *send, void *recv,
                               embrtDtype dtype, int64_t recvElements) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkEqualBlocks(ctx, "reduce_scatter", send, recv, dtype,
                             recvElements, 0));
  return ctx->backend->reduceScatter(ctx, send, recv, dtype, recvElements);
}

embrtStatus embrtAllGather(embrtContext *ctx, const void *send, void *recv,
                           embrtDtype dtype, int64_t sendElements) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(
      checkEqualBlocks(ctx, "all_gather", send, recv, dtype, sendElements, 1));
  return ctx->backend->allGather(ctx, send, recv, dtype, sendElements);
}
