//===- runtime/cpu/collectives.c - Collectives of one rank --------*- C -*-===//
//
// The CPU backend's communicator has one rank: it exists so that a sharded
// program compiled for a world of 1 runs on the CPU reference, and each
// collective is then a copy (all_to_all sends rank 0's rows to itself,
// reduce_scatter sums one block, all_gather gathers one). A larger world
// answers EMBRT_UNSUPPORTED: the CPU has no transport, and emb builds none.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"

#include "runtime/check.h"
#include "runtime/context.h"
#include "runtime/status.h"

#include <string.h>

embrtStatus embrtCpuCommGetUniqueId(embrtCommId *out) {
  memset(out, 0, sizeof *out);
  return EMBRT_OK;
}

embrtStatus embrtCpuCommInit(embrtContext *ctx, const embrtCommId *id) {
  if (ctx->worldSize != 1)
    return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                         "set communicator: the CPU backend runs one rank, "
                         "got worldSize %d (use CUDA contexts and NCCL for "
                         "more)",
                         ctx->worldSize);
  ctx->comm = ctx; // any non-null value: the one rank is the context
  return EMBRT_OK;
}

void embrtCpuCommRelease(embrtContext *ctx) { ctx->comm = NULL; }

embrtStatus embrtCpuAllToAll(embrtContext *ctx, const embrtAllToAllArgs *args) {
  if (args->sendCounts[0] != args->recvCounts[0])
    return embrtInvalid(ctx,
                        "all_to_all: rank 0 sends itself %lld rows but "
                        "expects %lld",
                        (long long)args->sendCounts[0],
                        (long long)args->recvCounts[0]);
  size_t bytes = (size_t)args->sendCounts[0] * (size_t)args->rowElements *
                 embrtDtypeSize(args->dtype);
  if (bytes)
    memmove(args->recv, args->send, bytes);
  return EMBRT_OK;
}

embrtStatus embrtCpuReduceScatter(embrtContext *ctx, const void *send,
                                  void *recv, embrtDtype dtype,
                                  int64_t recvElements) {
  size_t bytes = (size_t)recvElements * embrtDtypeSize(dtype);
  if (bytes)
    memmove(recv, send, bytes);
  return EMBRT_OK;
}

embrtStatus embrtCpuAllGather(embrtContext *ctx, const void *send, void *recv,
                              embrtDtype dtype, int64_t sendElements) {
  size_t bytes = (size_t)sendElements * embrtDtypeSize(dtype);
  if (bytes)
    memmove(recv, send, bytes);
  return EMBRT_OK;
}
