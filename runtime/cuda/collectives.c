//===- runtime/cuda/collectives.c - Collectives on NCCL -----------*- C -*-===//
//
// The CUDA backend's communicator is an ncclComm_t made by ncclCommInitRank
// from the id the caller distributed; the collectives are NCCL calls on the
// context's stream (no host synchronisation): all_to_all with variable
// counts as a group of ncclSend/ncclRecv, one pair per peer (NCCL's own
// all-to-all-v idiom), reduce_scatter and all_gather as themselves. NCCL
// refuses two ranks of one communicator on one GPU ("Duplicate GPU
// detected"), so test/Runtime/collectives_nccl.c runs one rank a GPU.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/cuda.h"

#include "runtime/check.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string.h>

_Static_assert(EMBRT_COMM_ID_BYTES == NCCL_UNIQUE_ID_BYTES,
               "embrtCommId holds an ncclUniqueId");

/// Records a failed NCCL call on the context; EMBRT_OK for ncclSuccess.
static embrtStatus record(embrtContext *ctx, ncclResult_t result,
                          const char *what) {
  if (result == ncclSuccess)
    return EMBRT_OK;
  embrtStatus status =
      result == ncclInvalidArgument || result == ncclInvalidUsage
          ? EMBRT_INVALID_ARGUMENT
          : EMBRT_DEVICE_ERROR;
  const char *last = ncclGetLastError((ncclComm_t)ctx->comm);
  return embrtSetError(ctx, status, "%s: %s (nccl error %d)%s%s", what,
                       ncclGetErrorString(result), (int)result,
                       last && *last ? ": " : "", last ? last : "");
}

static cudaStream_t streamOf(const embrtContext *ctx) {
  return (cudaStream_t)embrtCudaStateOf(ctx)->env.stream;
}

/// NCCL's type of `dtype`; false for one it has none of.
static int ncclTypeOf(embrtDtype dtype, ncclDataType_t *out) {
  switch (dtype) {
  case EMBRT_F32:
    *out = ncclFloat32;
    return 1;
  case EMBRT_F16:
    *out = ncclFloat16;
    return 1;
  case EMBRT_BF16:
    *out = ncclBfloat16;
    return 1;
  case EMBRT_I32:
    *out = ncclInt32;
    return 1;
  case EMBRT_I64:
    *out = ncclInt64;
    return 1;
  case EMBRT_F64:
    *out = ncclFloat64;
    return 1;
  case EMBRT_I8:
    *out = ncclInt8;
    return 1;
  }
  return 0;
}

embrtStatus embrtCudaCommGetUniqueId(embrtCommId *out) {
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != ncclSuccess)
    return EMBRT_DEVICE_ERROR;
  memcpy(out->bytes, id.internal, sizeof out->bytes);
  return EMBRT_OK;
}

embrtStatus embrtCudaCommInit(embrtContext *ctx, const embrtCommId *id) {
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "set communicator: cudaSetDevice"));
  ncclUniqueId nid;
  memcpy(nid.internal, id->bytes, sizeof nid.internal);
  ncclComm_t comm = NULL;
  embrtStatus status =
      record(ctx, ncclCommInitRank(&comm, ctx->worldSize, nid, ctx->rank),
             "set communicator: ncclCommInitRank");
  if (status == EMBRT_OK)
    ctx->comm = comm;
  return status;
}

void embrtCudaCommRelease(embrtContext *ctx) {
  ncclCommDestroy((ncclComm_t)ctx->comm);
  ctx->comm = NULL;
}

embrtStatus embrtCudaAllToAll(embrtContext *ctx,
                              const embrtAllToAllArgs *args) {
  ncclDataType_t type;
  if (!ncclTypeOf(args->dtype, &type))
    return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                         "all_to_all: NCCL has no type for dtype %s",
                         embrtDtypeName(args->dtype));
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "all_to_all: cudaSetDevice"));
  ncclComm_t comm = (ncclComm_t)ctx->comm;
  cudaStream_t stream = streamOf(ctx);
  size_t elem = embrtDtypeSize(args->dtype);
  const char *send = args->send;
  char *recv = args->recv;
  size_t sendAt = 0, recvAt = 0; // elements
  EMBRT_TRY(record(ctx, ncclGroupStart(), "all_to_all: ncclGroupStart"));
  embrtStatus status = EMBRT_OK;
  for (int p = 0; p < ctx->worldSize && status == EMBRT_OK; ++p) {
    size_t ns = (size_t)args->sendCounts[p] * (size_t)args->rowElements;
    size_t nr = (size_t)args->recvCounts[p] * (size_t)args->rowElements;
    if (ns)
      status =
          record(ctx, ncclSend(send + sendAt * elem, ns, type, p, comm, stream),
                 "all_to_all: ncclSend");
    if (status == EMBRT_OK && nr)
      status =
          record(ctx, ncclRecv(recv + recvAt * elem, nr, type, p, comm, stream),
                 "all_to_all: ncclRecv");
    sendAt += ns;
    recvAt += nr;
  }
  embrtStatus ended = record(ctx, ncclGroupEnd(), "all_to_all: ncclGroupEnd");
  return status != EMBRT_OK ? status : ended;
}

embrtStatus embrtCudaReduceScatter(embrtContext *ctx, const void *send,
                                   void *recv, embrtDtype dtype,
                                   int64_t recvElements) {
  ncclDataType_t type;
  if (!ncclTypeOf(dtype, &type))
    return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                         "reduce_scatter: NCCL has no type for dtype %s",
                         embrtDtypeName(dtype));
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "reduce_scatter: cudaSetDevice"));
  if (recvElements == 0)
    return EMBRT_OK;
  return record(ctx,
                ncclReduceScatter(send, recv, (size_t)recvElements, type,
                                  ncclSum, (ncclComm_t)ctx->comm,
                                  streamOf(ctx)),
                "reduce_scatter: ncclReduceScatter");
}

embrtStatus embrtCudaAllGather(embrtContext *ctx, const void *send, void *recv,
                               embrtDtype dtype, int64_t sendElements) {
  ncclDataType_t type;
  if (!ncclTypeOf(dtype, &type))
    return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                         "all_gather: NCCL has no type for dtype %s",
                         embrtDtypeName(dtype));
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "all_gather: cudaSetDevice"));
  if (sendElements == 0)
    return EMBRT_OK;
  return record(ctx,
                ncclAllGather(send, recv, (size_t)sendElements, type,
                              (ncclComm_t)ctx->comm, streamOf(ctx)),
                "all_gather: ncclAllGather");
}
