//===- runtime/cpu/input_dist.c - The input dist on the CPU -------*- C -*-===//
//
// The reference emb.bucketize and emb.lengths_to_offsets (runtime.h gives
// their contracts). Every offset or length is checked before anything is
// written; on EMBRT_OUT_OF_RANGE the outputs are untouched.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"

#include <stdlib.h>
#include <string.h>

embrtStatus embrtCpuBucketizeWorkspaceSize(embrtContext *ctx,
                                           const embrtBucketizeArgs *args,
                                           size_t *bytes) {
  *bytes = 0;
  return EMBRT_OK;
}

/// offsets[0] == 0, never decreasing, offsets[F*B] == N (as emb.tbe's).
static embrtStatus checkOffsets(embrtContext *ctx,
                                const embrtBucketizeArgs *args) {
  int64_t B = args->batchSize, numBags = args->numFeatures * B;
  int64_t N = args->numIndices;
  int64_t previous = embrtLoadIndex(args->offsets, args->indexDtype, 0);
  if (previous != 0)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "bucketize: offsets[0] is %lld, must be 0",
                         (long long)previous);
  for (int64_t i = 1; i <= numBags; ++i) {
    int64_t offset = embrtLoadIndex(args->offsets, args->indexDtype, i);
    if (offset < previous || offset > N)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "bucketize: feature %lld bag %lld: offsets[%lld] is "
                           "%lld, out of order or outside 0..%lld",
                           (long long)((i - 1) / B), (long long)((i - 1) % B),
                           (long long)i, (long long)offset, (long long)N);
    previous = offset;
  }
  if (previous != N)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "bucketize: offsets[%lld] (the last) is %lld, must "
                         "equal numIndices %lld",
                         (long long)numBags, (long long)previous, (long long)N);
  return EMBRT_OK;
}

/// Id `id` of a slot whose rows start at `begin`, as the slot's shard
/// numbers it: id - begin, saturated at the least value of `dtype` (an id
/// below the table, clamped into its first shard, stays below the shard).
/// Compared before subtracting: id - begin overflows for ids near INT64_MIN.
static int64_t localId(int64_t id, int64_t begin, embrtDtype dtype) {
  int64_t least = dtype == EMBRT_I32 ? INT32_MIN : INT64_MIN;
  return id < least + begin ? least : id - begin;
}

static void storeIndex(void *p, embrtDtype dtype, int64_t i, int64_t v) {
  if (dtype == EMBRT_I32)
    ((int32_t *)p)[i] = (int32_t)v;
  else
    ((int64_t *)p)[i] = v;
}

embrtStatus embrtCpuBucketize(embrtContext *ctx,
                              const embrtBucketizeArgs *args) {
  EMBRT_TRY(checkOffsets(ctx, args));
  int64_t S = args->numSlots, B = args->batchSize;
  embrtDtype dt = args->indexDtype;
  size_t weightBytes =
      args->perSampleWeights ? embrtDtypeSize(args->weightDtype) : 0;
  for (int64_t r = 0; r < args->worldSize; ++r)
    args->counts[r] = 0;
  int64_t at = 0;
  for (int64_t s = 0; s < S; ++s) {
    int64_t f = args->slotFeatures[s];
    int64_t begin = args->slotRowBegin[s], end = args->slotRowEnd[s];
    // The rows the feature's slots cover: ids outside go to the first or
    // last of them.
    int64_t lo = begin, hi = end;
    for (int64_t k = 0; k < S; ++k)
      if (args->slotFeatures[k] == f) {
        lo = args->slotRowBegin[k] < lo ? args->slotRowBegin[k] : lo;
        hi = args->slotRowEnd[k] > hi ? args->slotRowEnd[k] : hi;
      }
    for (int64_t b = 0; b < B; ++b) {
      int64_t first = embrtLoadIndex(args->offsets, dt, f * B + b);
      int64_t last = embrtLoadIndex(args->offsets, dt, f * B + b + 1);
      int64_t n = 0;
      for (int64_t i = first; i < last; ++i) {
        int64_t id = embrtLoadIndex(args->indices, dt, i);
        int64_t c = id < lo ? lo : id > hi - 1 ? hi - 1 : id;
        if (c < begin || c >= end)
          continue;
        storeIndex(args->ids, dt, at + n, localId(id, begin, dt));
        if (weightBytes)
          memcpy((char *)args->weights + (size_t)(at + n) * weightBytes,
                 (const char *)args->perSampleWeights + (size_t)i * weightBytes,
                 weightBytes);
        ++n;
      }
      storeIndex(args->lengths, dt, s * B + b, n);
      args->counts[args->slotRanks[s]] += n;
      at += n;
    }
  }
  return EMBRT_OK;
}

embrtStatus embrtCpuLengthsToOffsetsWorkspaceSize(
    embrtContext *ctx, const embrtLengthsToOffsetsArgs *args, size_t *bytes) {
  *bytes = 0;
  return EMBRT_OK;
}

embrtStatus embrtCpuLengthsToOffsets(embrtContext *ctx,
                                     const embrtLengthsToOffsetsArgs *args) {
  int64_t L = args->numLengths, K = args->numBlocks;
  int64_t limit = args->dtype == EMBRT_I32 ? INT32_MAX : INT64_MAX;
  int64_t total = 0;
  for (int64_t i = 0; i < L; ++i) {
    int64_t n = embrtLoadIndex(args->lengths, args->dtype, i);
    if (n < 0 || n > limit - total)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "lengths_to_offsets: lengths[%lld] is %lld: %s",
                           (long long)i, (long long)n,
                           n < 0 ? "a length must not be negative"
                                 : "the offsets pass the largest value of "
                                   "their type");
    total += n;
  }
  int64_t at = 0, per = L / K;
  for (int64_t k = 0; k < K; ++k)
    args->blockSums[k] = 0;
  for (int64_t i = 0; i < L; ++i) {
    storeIndex(args->offsets, args->dtype, i, at);
    int64_t n = embrtLoadIndex(args->lengths, args->dtype, i);
    args->blockSums[i / per] += n;
    at += n;
  }
  storeIndex(args->offsets, args->dtype, L, at);
  return EMBRT_OK;
}
