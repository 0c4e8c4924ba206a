//===- runtime/collectives.c - Communicators and collectives ------*- C -*-===//
//
// The backend-neutral side of emb's collectives (emb.all_to_all,
// emb.reduce_scatter, emb.all_gather): the communicator a context joins and
// the argument checks of the entry points. The CPU backend supports one
// rank (runtime/cpu/collectives.c: the collectives are copies); the CUDA
// backend runs them with NCCL on the context's stream
// (runtime/cuda/collectives.c). The compiled-ABI decoders of the three ops
// are at the end, with the one copy of device-computed counts to the host
// that an all-to-all of ids needs (docs/sharding.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"
#include "runtime/status.h"

#include "emb/compiled.h"

#include <stdbool.h>
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

//===----------------------------------------------------------------------===//
// Counts computed on the device
//===----------------------------------------------------------------------===//

embrtStatus embrtCopyCountsToHost(embrtContext *ctx, const char *op,
                                  int64_t *host, const int64_t *device,
                                  int64_t n) {
  memset(host, 0, (size_t)n * sizeof *host);
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                         "%s: its counts are computed on the device and read "
                         "on the host (NCCL takes them there), which a graph "
                         "cannot capture",
                         op);
  if (n == 0)
    return EMBRT_OK;
  if (!device)
    return embrtInvalid(ctx, "%s: counts is NULL", op);
  EMBRT_TRY(ctx->backend->deviceMemcpy(
      ctx, host, device, (size_t)n * sizeof *host, EMBRT_COPY_DEVICE_TO_HOST));
  embrtStatus status = ctx->backend->synchronize(ctx);
  if (status != EMBRT_OK)
    memset(host, 0, (size_t)n * sizeof *host);
  return status;
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
//===----------------------------------------------------------------------===//

/// The op's world_size is the communicator's.
static embrtStatus checkWorld(embrtContext *ctx, const char *op,
                              int64_t world) {
  if (!ctx->worldSize)
    return embrtInvalid(ctx,
                        "%s: the context has no communicator; a program of "
                        "emb-shard runs on a context joined to its world of "
                        "%lld (embrtContextSetCommunicator)",
                        op, (long long)world);
  if (ctx->worldSize != world)
    return embrtInvalid(ctx,
                        "%s: world_size is %lld but the context's "
                        "communicator has %d ranks",
                        op, (long long)world, ctx->worldSize);
  return EMBRT_OK;
}

/// Sums `n` counts, none negative; `what` names them in the message.
static embrtStatus sumCounts(embrtContext *ctx, const char *op,
                             const char *what, const int64_t *counts, int64_t n,
                             int64_t *sum) {
  *sum = 0;
  for (int64_t r = 0; r < n; ++r) {
    if (counts[r] < 0 || counts[r] > INT64_MAX - *sum)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "%s: %s[%lld] is %lld, not a count of rows", op,
                           what, (long long)r, (long long)counts[r]);
    *sum += counts[r];
  }
  return EMBRT_OK;
}

/// The send rows must hold what the counts send (at least their sum: a
/// bucketized send buffer is sized for the most ids it can get).
static embrtStatus checkSendRows(embrtContext *ctx, const char *op, int64_t sum,
                                 int64_t rows, bool exact) {
  if (exact ? sum == rows : sum <= rows)
    return EMBRT_OK;
  return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                       "%s: send has %lld rows but the send counts sum to "
                       "%lld",
                       op, (long long)rows, (long long)sum);
}

int64_t embrtCompiledAllToAllCounts(embrtContext *ctx, const int64_t *attrs,
                                    void *const *buffers, const int64_t *dims) {
  const char *op = "emb.all_to_all";
  int64_t W = attrs[EMB_ABI_A2A_WORLD_SIZE];
  int64_t *host = buffers[EMB_ABI_A2A_BUF_HOST_COUNTS];
  if (!host || !attrs[EMB_ABI_A2A_HAS_COUNTS]) {
    embrtInvalid(ctx, "%s: no host counts to fill", op);
    return 0;
  }
  memset(host, 0, 2 * (size_t)W * sizeof *host);
  if (checkWorld(ctx, op, W) != EMBRT_OK ||
      embrtCopyCountsToHost(ctx, op, host, buffers[EMB_ABI_A2A_BUF_SEND_COUNTS],
                            W) != EMBRT_OK ||
      embrtCopyCountsToHost(ctx, op, host + W,
                            buffers[EMB_ABI_A2A_BUF_RECV_COUNTS],
                            W) != EMBRT_OK)
    return 0;
  int64_t sent = 0, received = 0;
  if (sumCounts(ctx, op, "send_counts", host, W, &sent) != EMBRT_OK ||
      sumCounts(ctx, op, "recv_counts", host + W, W, &received) != EMBRT_OK ||
      checkSendRows(ctx, op, sent, dims[EMB_ABI_A2A_DIM_SEND_ROWS], false) !=
          EMBRT_OK) {
    memset(host, 0, 2 * (size_t)W * sizeof *host);
    return 0;
  }
  return received;
}

void embrtCompiledAllToAll(embrtContext *ctx, const int64_t *attrs,
                           void *const *buffers, const int64_t *dims) {
  const char *op = "emb.all_to_all";
  int64_t W = attrs[EMB_ABI_A2A_WORLD_SIZE];
  bool hasCounts = attrs[EMB_ABI_A2A_HAS_COUNTS] != 0;
  const int64_t *counts =
      hasCounts ? (const int64_t *)buffers[EMB_ABI_A2A_BUF_HOST_COUNTS]
                : attrs + EMB_ABI_A2A_SPLITS;
  if (checkWorld(ctx, op, W) != EMBRT_OK)
    return;
  if (!counts) {
    embrtInvalid(ctx, "%s: no host counts (embrtCompiledAllToAllCounts)", op);
    return;
  }
  int64_t sent = 0, received = 0;
  if (sumCounts(ctx, op, hasCounts ? "send_counts" : "send_splits", counts, W,
                &sent) != EMBRT_OK ||
      sumCounts(ctx, op, hasCounts ? "recv_counts" : "recv_splits", counts + W,
                W, &received) != EMBRT_OK ||
      checkSendRows(ctx, op, sent, dims[EMB_ABI_A2A_DIM_SEND_ROWS],
                    !hasCounts) != EMBRT_OK ||
      embrtCheckExtent(ctx, op, "the result", dims[EMB_ABI_A2A_DIM_RECV_ROWS],
                       "rows", hasCounts ? "recv_counts" : "recv_splits",
                       received, "rows in all") != EMBRT_OK)
    return;
  embrtAllToAllArgs a = {sizeof a,
                         buffers[EMB_ABI_A2A_BUF_SEND],
                         buffers[EMB_ABI_A2A_BUF_RECV],
                         (embrtDtype)attrs[EMB_ABI_A2A_DTYPE],
                         dims[EMB_ABI_A2A_DIM_ROW],
                         counts,
                         counts + W};
  embrtAllToAll(ctx, &a);
}

/// reduce_scatter (`gather` 0) and all_gather: one side world_size times the
/// other.
static void compiledEqualBlocks(embrtContext *ctx, const int64_t *attrs,
                                void *const *buffers, const int64_t *dims,
                                int gather) {
  const char *op = gather ? "emb.all_gather" : "emb.reduce_scatter";
  int64_t W = attrs[EMB_ABI_COLL_WORLD_SIZE];
  int64_t send = dims[EMB_ABI_COLL_DIM_SEND],
          recv = dims[EMB_ABI_COLL_DIM_RECV];
  if (checkWorld(ctx, op, W) != EMBRT_OK)
    return;
  int64_t small = gather ? send : recv, big = gather ? recv : send;
  if (small < 0 || small > INT64_MAX / W || big != small * W) {
    embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                  "%s: %s has %lld elements but %s has %lld: must be "
                  "world_size (%lld) times as many",
                  op, gather ? "the result" : "send", (long long)big,
                  gather ? "send" : "the result", (long long)small,
                  (long long)W);
    return;
  }
  embrtDtype dtype = (embrtDtype)attrs[EMB_ABI_COLL_DTYPE];
  if (gather)
    embrtAllGather(ctx, buffers[EMB_ABI_COLL_BUF_SEND],
                   buffers[EMB_ABI_COLL_BUF_RECV], dtype, send);
  else
    embrtReduceScatter(ctx, buffers[EMB_ABI_COLL_BUF_SEND],
                       buffers[EMB_ABI_COLL_BUF_RECV], dtype, recv);
}

void embrtCompiledReduceScatter(embrtContext *ctx, const int64_t *attrs,
                                void *const *buffers, const int64_t *dims) {
  compiledEqualBlocks(ctx, attrs, buffers, dims, 0);
}

void embrtCompiledAllGather(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims) {
  compiledEqualBlocks(ctx, attrs, buffers, dims, 1);
}
