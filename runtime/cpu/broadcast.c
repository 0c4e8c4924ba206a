//===- runtime/cpu/broadcast.c - User-row broadcast on the CPU ----*- C -*-===//
//
// The reference emb.broadcast and emb.broadcast_add: out[b] = ro[c2u[b]]
// (+ nro[b]). Every cand_to_user entry is checked before anything is
// written; on EMBRT_OUT_OF_RANGE the output is untouched.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"

#include <string.h>

/// Checks that every cand_to_user entry names a user.
static embrtStatus checkCandToUser(embrtContext *ctx, const char *op,
                                   const embrtBroadcastArgs *args) {
  for (int64_t b = 0; b < args->batchSize; ++b) {
    int64_t u = embrtLoadIndex(args->candToUser, args->indexDtype, b);
    if (u < 0 || u >= args->numUsers)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "%s: cand_to_user[%lld] is %lld, outside the %lld "
                           "users",
                           op, (long long)b, (long long)u,
                           (long long)args->numUsers);
  }
  return EMBRT_OK;
}

embrtStatus embrtCpuBroadcast(embrtContext *ctx,
                              const embrtBroadcastArgs *args) {
  embrtStatus status = checkCandToUser(ctx, "broadcast", args);
  if (status != EMBRT_OK)
    return status;
  size_t rowBytes = (size_t)args->rowElements * embrtDtypeSize(args->dtype);
  // Rows of no element may come with NULL buffers, which memcpy may not
  // be given even for 0 bytes.
  if (rowBytes == 0)
    return EMBRT_OK;
  for (int64_t b = 0; b < args->batchSize; ++b) {
    int64_t u = embrtLoadIndex(args->candToUser, args->indexDtype, b);
    memcpy((char *)args->output + (size_t)b * rowBytes,
           (const char *)args->ro + (size_t)u * rowBytes, rowBytes);
  }
  return EMBRT_OK;
}

embrtStatus embrtCpuBroadcastAdd(embrtContext *ctx,
                                 const embrtBroadcastArgs *args) {
  embrtStatus status = checkCandToUser(ctx, "broadcast_add", args);
  if (status != EMBRT_OK)
    return status;
  int inF32 = embrtCpuAccumulatesInF32(args->dtype);
  int64_t E = args->rowElements;
  for (int64_t b = 0; b < args->batchSize; ++b) {
    int64_t u = embrtLoadIndex(args->candToUser, args->indexDtype, b);
    for (int64_t e = 0; e < E; ++e) {
      double sum = embrtCpuAccumulate(
          embrtCpuLoad(args->ro, args->dtype, u * E + e), 1.0,
          embrtCpuLoad(args->nro, args->dtype, b * E + e), inF32);
      embrtCpuStore(args->output, args->dtype, b * E + e, sum);
    }
  }
  return EMBRT_OK;
}
