//===- runtime/cuda/collectives_no_nccl.c - Without NCCL ----------*- C -*-===//
//
// The CUDA backend's collectives in a runtime built without NCCL
// (EMB_ENABLE_NCCL=OFF, or AUTO where nccl.h or libnccl was not found):
// everything else of the CUDA backend works, and a context that asks for a
// communicator is told what is missing. embrtCommGetUniqueId has no context
// to carry a message and answers EMBRT_UNSUPPORTED alone. Nothing here
// touches the device. The collectives themselves are reached only through a
// communicator, which no context gets here; they answer the same.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/cuda.h"

/// Records on `ctx` that `op` needs NCCL.
static embrtStatus noNccl(embrtContext *ctx, const char *op) {
  return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                       "%s: this emb runtime was built without NCCL, which "
                       "the CUDA collectives run on (configure with "
                       "-DEMB_ENABLE_NCCL=ON where nccl.h and libnccl are)",
                       op);
}

embrtStatus embrtCudaCommGetUniqueId(embrtCommId *out) {
  return EMBRT_UNSUPPORTED;
}

embrtStatus embrtCudaCommInit(embrtContext *ctx, const embrtCommId *id) {
  return noNccl(ctx, "set communicator");
}

void embrtCudaCommRelease(embrtContext *ctx) {}

embrtStatus embrtCudaAllToAll(embrtContext *ctx,
                              const embrtAllToAllArgs *args) {
  return noNccl(ctx, "all_to_all");
}

embrtStatus embrtCudaReduceScatter(embrtContext *ctx, const void *send,
                                   void *recv, embrtDtype dtype,
                                   int64_t recvElements) {
  return noNccl(ctx, "reduce_scatter");
}

embrtStatus embrtCudaAllGather(embrtContext *ctx, const void *send, void *recv,
                               embrtDtype dtype, int64_t sendElements) {
  return noNccl(ctx, "all_gather");
}
