//===- runtime/cpu/jagged.c - Jagged rows to padded on the CPU ----*- C -*-===//
//
// The reference emb.jagged_to_padded: padded[u, l] = values[offsets[u] + l]
// for l < min(offsets[u+1] - offsets[u], Lk), padding after; lengths[u] the
// rows kept. Every offset is checked before anything is written; on
// EMBRT_OUT_OF_RANGE the outputs are untouched.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"

#include <string.h>

/// Checks that the offsets start at >= 0, never decrease and end at <= N.
static embrtStatus checkOffsets(embrtContext *ctx,
                                const embrtJaggedToPaddedArgs *args) {
  int64_t prev = 0;
  for (int64_t u = 0; u <= args->numUsers; ++u) {
    int64_t o = embrtLoadIndex(args->offsets, args->indexDtype, u);
    if (o < prev || o > args->numValues)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "jagged_to_padded: offsets[%lld] is %lld, out of "
                           "order or outside 0..%lld (the values' rows)",
                           (long long)u, (long long)o,
                           (long long)args->numValues);
    prev = o;
  }
  return EMBRT_OK;
}

embrtStatus embrtCpuJaggedToPadded(embrtContext *ctx,
                                   const embrtJaggedToPaddedArgs *args) {
  embrtStatus status = checkOffsets(ctx, args);
  if (status != EMBRT_OK)
    return status;
  int64_t D = args->rowElements, Lk = args->maxLength;
  size_t rowBytes = (size_t)D * embrtDtypeSize(args->dtype);
  for (int64_t u = 0; u < args->numUsers; ++u) {
    int64_t begin = embrtLoadIndex(args->offsets, args->indexDtype, u);
    int64_t end = embrtLoadIndex(args->offsets, args->indexDtype, u + 1);
    int64_t kept = end - begin < Lk ? end - begin : Lk;
    // Rows of no element may come with NULL values and padded, which are
    // neither offset nor given to memcpy.
    if (rowBytes > 0) {
      char *out = (char *)args->padded + (size_t)(u * Lk) * rowBytes;
      if (kept > 0)
        memcpy(out, (const char *)args->values + (size_t)begin * rowBytes,
               (size_t)kept * rowBytes);
      for (int64_t i = kept * D; i < Lk * D; ++i)
        embrtCpuStore(out, args->dtype, i, args->paddingValue);
    }
    if (args->lengths) {
      if (args->indexDtype == EMBRT_I64)
        ((int64_t *)args->lengths)[u] = kept;
      else
        ((int32_t *)args->lengths)[u] = (int32_t)kept;
    }
  }
  return EMBRT_OK;
}
