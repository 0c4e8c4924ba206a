//===- runtime/input_dist.c - emb.bucketize, emb.lengths_to_offsets -*- C
//-*-===//
//
// The backend-neutral side of the local ops of a sharded lookup's input
// dist (docs/sharding.md): emb.bucketize splits a batch by the slots of a
// plan into the send buffer of an all-to-all, emb.lengths_to_offsets turns
// received lengths into offsets and per-source id counts. The argument
// checks, the public entry points and the compiled-ABI decoders. The
// offsets' and lengths' values are checked by the backends (they may live
// on the device): runtime/cpu/input_dist.c, kernels/input_dist.cu.
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// emb.bucketize
//===----------------------------------------------------------------------===//

int64_t embrtBucketizeDepth(int64_t numSlots, const int64_t *slotFeatures,
                            const int64_t *slotRowBegin,
                            const int64_t *slotRowEnd) {
  // The deepest point of a feature's ranges is the start of one of them.
  int64_t depth = 0;
  for (int64_t s = 0; s < numSlots; ++s) {
    if (slotRowBegin[s] >= slotRowEnd[s])
      continue;
    int64_t here = 0;
    for (int64_t k = 0; k < numSlots; ++k)
      here += slotFeatures[k] == slotFeatures[s] &&
              slotRowBegin[k] <= slotRowBegin[s] &&
              slotRowBegin[s] < slotRowEnd[k];
    depth = here > depth ? here : depth;
  }
  // A feature whose slots are all empty still routes its ids: clamped to
  // [lo, hi - 1] they fall in no slot, so nothing is written for them.
  return depth;
}

static embrtStatus checkBucketize(embrtContext *ctx,
                                  const embrtBucketizeArgs *args,
                                  embrtCheckMode mode) {
  const char *op = "bucketize";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtBucketizeArgs), "embrtBucketizeArgs"));
  EMBRT_TRY(embrtCheckIndexDtype(ctx, op, "indexDtype", args->indexDtype));
  if (args->perSampleWeights)
    EMBRT_TRY(
        embrtCheckStorageFloat(ctx, op, "weightDtype", args->weightDtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numIndices", args->numIndices));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numFeatures", args->numFeatures));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "batchSize", args->batchSize));
  if (args->indexDtype == EMBRT_I32 && args->numIndices > INT32_MAX)
    return embrtInvalid(ctx, "%s: numIndices is %lld, too many for i32 offsets",
                        op, (long long)args->numIndices);
  if (args->worldSize < 1 || args->worldSize > 65536)
    return embrtInvalid(ctx, "%s: worldSize is %lld, must be in 1..65536", op,
                        (long long)args->worldSize);
  if (args->numSlots < 1)
    return embrtInvalid(ctx, "%s: numSlots is %lld, must be >= 1", op,
                        (long long)args->numSlots);
  if (!args->slotRanks || !args->slotFeatures || !args->slotRowBegin ||
      !args->slotRowEnd)
    return embrtInvalid(ctx, "%s: a slot array is NULL", op);
  int64_t S = args->numSlots;
  for (int64_t s = 0; s < S; ++s) {
    int64_t r = args->slotRanks[s], f = args->slotFeatures[s];
    if (r < 0 || r >= args->worldSize)
      return embrtInvalid(ctx,
                          "%s: slotRanks[%lld] is %lld, not a rank of "
                          "worldSize %lld",
                          op, (long long)s, (long long)r,
                          (long long)args->worldSize);
    if (s > 0 && r < args->slotRanks[s - 1])
      return embrtInvalid(ctx,
                          "%s: slotRanks must not decrease (each rank's slots "
                          "are one block), got %lld after %lld",
                          op, (long long)r, (long long)args->slotRanks[s - 1]);
    if (f < 0 || f >= args->numFeatures)
      return embrtInvalid(ctx,
                          "%s: slotFeatures[%lld] is %lld but there are %lld "
                          "features",
                          op, (long long)s, (long long)f,
                          (long long)args->numFeatures);
    if (args->slotRowBegin[s] < 0 ||
        args->slotRowEnd[s] < args->slotRowBegin[s])
      return embrtInvalid(ctx,
                          "%s: slot %lld has rows [%lld, %lld): a range must "
                          "start at 0 or more and not end before it starts",
                          op, (long long)s, (long long)args->slotRowBegin[s],
                          (long long)args->slotRowEnd[s]);
  }
  int64_t depth = embrtBucketizeDepth(S, args->slotFeatures, args->slotRowBegin,
                                      args->slotRowEnd);
  int64_t need = 0, offsets = 0, lengths = 0;
  if (!embrtMulOk(args->numIndices, depth, &need))
    return embrtInvalid(ctx, "%s: numIndices * depth overflows", op);
  if (args->idsCapacity < need)
    return embrtInvalid(ctx,
                        "%s: idsCapacity is %lld but %lld ids can fall in up "
                        "to %lld slots each: %lld entries are needed",
                        op, (long long)args->idsCapacity,
                        (long long)args->numIndices, (long long)depth,
                        (long long)need);
  EMBRT_TRY(embrtCheckCount(ctx, op, "offsets", args->indexDtype, &offsets,
                            args->numFeatures, args->batchSize, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "lengths", args->indexDtype, &lengths, S,
                            args->batchSize, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "ids", args->indexDtype, NULL,
                            args->idsCapacity, 1, 1, 1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  EMBRT_TRY(
      embrtCheckData(ctx, op, "indices", args->indices, args->numIndices));
  EMBRT_TRY(embrtCheckData(ctx, op, "offsets", args->offsets, offsets + 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "ids", args->ids, args->idsCapacity));
  EMBRT_TRY(embrtCheckData(ctx, op, "lengths", args->lengths, lengths));
  EMBRT_TRY(embrtCheckData(ctx, op, "counts", args->counts, args->worldSize));
  if (args->perSampleWeights)
    EMBRT_TRY(
        embrtCheckData(ctx, op, "weights", args->weights, args->idsCapacity));
  return EMBRT_OK;
}

embrtStatus embrtBucketizeWorkspaceSize(embrtContext *ctx,
                                        const embrtBucketizeArgs *args,
                                        size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckBytesOut(ctx, "bucketize", bytes));
  EMBRT_TRY(checkBucketize(ctx, args, EMBRT_CHECK_SHAPES));
  return ctx->backend->bucketizeWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtBucketize(embrtContext *ctx, const embrtBucketizeArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkBucketize(ctx, args, EMBRT_CHECK_CALL));
  size_t needed = 0;
  EMBRT_TRY(ctx->backend->bucketizeWorkspaceSize(ctx, args, &needed));
  EMBRT_TRY(embrtCheckWorkspace(ctx, "bucketize", args->workspace,
                                args->workspaceBytes, needed));
  return ctx->backend->bucketize(ctx, args);
}

//===----------------------------------------------------------------------===//
// emb.lengths_to_offsets
//===----------------------------------------------------------------------===//

static embrtStatus checkLengthsToOffsets(embrtContext *ctx,
                                         const embrtLengthsToOffsetsArgs *args,
                                         embrtCheckMode mode) {
  const char *op = "lengths_to_offsets";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtLengthsToOffsetsArgs),
                             "embrtLengthsToOffsetsArgs"));
  EMBRT_TRY(embrtCheckIndexDtype(ctx, op, "dtype", args->dtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numLengths", args->numLengths));
  if (args->numBlocks < 1)
    return embrtInvalid(ctx, "%s: numBlocks is %lld, must be >= 1", op,
                        (long long)args->numBlocks);
  if (args->numLengths % args->numBlocks != 0)
    return embrtInvalid(ctx,
                        "%s: numLengths is %lld, which %lld blocks do not "
                        "divide",
                        op, (long long)args->numLengths,
                        (long long)args->numBlocks);
  if (args->numLengths == INT64_MAX)
    return embrtInvalid(ctx, "%s: offsets is too large to address", op);
  EMBRT_TRY(embrtCheckCount(ctx, op, "offsets", args->dtype, NULL,
                            args->numLengths + 1, 1, 1, 1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  EMBRT_TRY(
      embrtCheckData(ctx, op, "lengths", args->lengths, args->numLengths));
  EMBRT_TRY(
      embrtCheckData(ctx, op, "offsets", args->offsets, args->numLengths + 1));
  EMBRT_TRY(
      embrtCheckData(ctx, op, "blockSums", args->blockSums, args->numBlocks));
  return EMBRT_OK;
}

embrtStatus embrtLengthsToOffsetsWorkspaceSize(
    embrtContext *ctx, const embrtLengthsToOffsetsArgs *args, size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckBytesOut(ctx, "lengths_to_offsets", bytes));
  EMBRT_TRY(checkLengthsToOffsets(ctx, args, EMBRT_CHECK_SHAPES));
  return ctx->backend->lengthsToOffsetsWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtLengthsToOffsets(embrtContext *ctx,
                                  const embrtLengthsToOffsetsArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkLengthsToOffsets(ctx, args, EMBRT_CHECK_CALL));
  size_t needed = 0;
  EMBRT_TRY(ctx->backend->lengthsToOffsetsWorkspaceSize(ctx, args, &needed));
  EMBRT_TRY(embrtCheckWorkspace(ctx, "lengths_to_offsets", args->workspace,
                                args->workspaceBytes, needed));
  return ctx->backend->lengthsToOffsets(ctx, args);
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
//===----------------------------------------------------------------------===//

/// Decodes an emb.bucketize call into `a`, after its checked extents:
/// offsets has F * B + 1 entries, per_sample_weights N, lengths S * B and
/// counts W. Fails with EMBRT_OUT_OF_RANGE naming the operands.
static embrtStatus decodeBucketize(embrtContext *ctx, const int64_t *attrs,
                                   void *const *buffers, const int64_t *dims,
                                   embrtBucketizeArgs *a) {
  const char *op = "emb.bucketize";
  int64_t S = attrs[EMB_ABI_BUCKETIZE_NUM_SLOTS];
  int64_t B = dims[EMB_ABI_BUCKETIZE_DIM_BATCH];
  int64_t N = dims[EMB_ABI_BUCKETIZE_DIM_INDICES];
  int64_t numOffsets = dims[EMB_ABI_BUCKETIZE_DIM_OFFSETS];
  if (B < 1 || numOffsets < 1 || (numOffsets - 1) % B != 0)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: offsets has %lld entries, which is not F*B+1 "
                         "for the batch of %lld bags the lengths give",
                         op, (long long)numOffsets, (long long)B);
  if (attrs[EMB_ABI_BUCKETIZE_PSW_DTYPE] >= 0)
    EMBRT_TRY(embrtCheckExtent(ctx, op, "per_sample_weights",
                               dims[EMB_ABI_BUCKETIZE_DIM_PSW], "entries",
                               "indices", N, "entries"));
  int64_t slotBags = 0;
  if (!embrtMulOk(S, B, &slotBags))
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: lengths has %lld entries but %lld slots of %lld "
                         "bags need more than int64 counts",
                         op, (long long)dims[EMB_ABI_BUCKETIZE_DIM_LENGTHS],
                         (long long)S, (long long)B);
  if (dims[EMB_ABI_BUCKETIZE_DIM_LENGTHS] != slotBags)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: lengths has %lld entries but %lld slots of %lld "
                         "bags need %lld",
                         op, (long long)dims[EMB_ABI_BUCKETIZE_DIM_LENGTHS],
                         (long long)S, (long long)B, (long long)slotBags);
  if (dims[EMB_ABI_BUCKETIZE_DIM_COUNTS] != attrs[EMB_ABI_BUCKETIZE_WORLD_SIZE])
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: counts has %lld entries but world_size is %lld",
                         op, (long long)dims[EMB_ABI_BUCKETIZE_DIM_COUNTS],
                         (long long)attrs[EMB_ABI_BUCKETIZE_WORLD_SIZE]);
  memset(a, 0, sizeof *a);
  a->structSize = sizeof *a;
  a->indexDtype = (embrtDtype)attrs[EMB_ABI_BUCKETIZE_INDEX_DTYPE];
  a->indices = buffers[EMB_ABI_BUCKETIZE_BUF_INDICES];
  a->numIndices = N;
  a->offsets = buffers[EMB_ABI_BUCKETIZE_BUF_OFFSETS];
  a->numFeatures = (numOffsets - 1) / B;
  a->batchSize = B;
  if (attrs[EMB_ABI_BUCKETIZE_PSW_DTYPE] >= 0) {
    a->perSampleWeights = buffers[EMB_ABI_BUCKETIZE_BUF_PSW];
    a->weightDtype = (embrtDtype)attrs[EMB_ABI_BUCKETIZE_PSW_DTYPE];
    a->weights = buffers[EMB_ABI_BUCKETIZE_BUF_WEIGHTS];
  }
  a->worldSize = attrs[EMB_ABI_BUCKETIZE_WORLD_SIZE];
  a->numSlots = S;
  const int64_t *slots = attrs + EMB_ABI_BUCKETIZE_SLOTS;
  a->slotRanks = slots;
  a->slotFeatures = slots + S;
  a->slotRowBegin = slots + 2 * S;
  a->slotRowEnd = slots + 3 * S;
  a->ids = buffers[EMB_ABI_BUCKETIZE_BUF_IDS];
  a->idsCapacity = dims[EMB_ABI_BUCKETIZE_DIM_IDS_CAPACITY];
  a->lengths = buffers[EMB_ABI_BUCKETIZE_BUF_LENGTHS];
  a->counts = buffers[EMB_ABI_BUCKETIZE_BUF_COUNTS];
  a->workspace = buffers[EMB_ABI_BUCKETIZE_BUF_WORKSPACE];
  a->workspaceBytes = (size_t)dims[EMB_ABI_BUCKETIZE_DIM_WORKSPACE];
  return EMBRT_OK;
}

void embrtCompiledBucketize(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims) {
  embrtBucketizeArgs a;
  if (decodeBucketize(ctx, attrs, buffers, dims, &a) == EMBRT_OK)
    embrtBucketize(ctx, &a);
}

int64_t embrtCompiledBucketizeWorkspace(embrtContext *ctx, const int64_t *attrs,
                                        void *const *buffers,
                                        const int64_t *dims) {
  embrtBucketizeArgs a;
  size_t bytes = 0;
  if (decodeBucketize(ctx, attrs, buffers, dims, &a) != EMBRT_OK ||
      embrtBucketizeWorkspaceSize(ctx, &a, &bytes) != EMBRT_OK)
    return 0;
  return (int64_t)bytes;
}

int64_t embrtCompiledBucketizeCount(embrtContext *ctx, const int64_t *attrs,
                                    void *const *buffers, const int64_t *dims) {
  int64_t W = attrs[EMB_ABI_BUCKETIZE_WORLD_SIZE];
  const int64_t *counts = buffers[EMB_ABI_BUCKETIZE_BUF_COUNTS];
  int64_t *host = malloc((size_t)W * sizeof *host);
  if (!host) {
    embrtSetError(ctx, EMBRT_OUT_OF_MEMORY,
                  "emb.bucketize: out of host memory for %lld counts",
                  (long long)W);
    return 0;
  }
  // After a failed call (bad ids or offsets: the bucketize wrote nothing)
  // the counts are not read; read ones are checked, so that a size is never
  // formed from garbage (found by emb-fuzz under UBSan).
  int64_t total = 0;
  if (ctx->status == EMBRT_OK &&
      embrtCopyCountsToHost(ctx, "emb.bucketize", host, counts, W) == EMBRT_OK)
    for (int64_t r = 0; r < W; ++r) {
      if (host[r] < 0 || host[r] > INT64_MAX - total) {
        embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                      "emb.bucketize: rank %lld's count is %lld, after %lld "
                      "ids to the ranks before it",
                      (long long)r, (long long)host[r], (long long)total);
        total = 0;
        break;
      }
      total += host[r];
    }
  free(host);
  return total;
}

static embrtStatus decodeLengthsToOffsets(embrtContext *ctx,
                                          const int64_t *attrs,
                                          void *const *buffers,
                                          const int64_t *dims,
                                          embrtLengthsToOffsetsArgs *a) {
  const char *op = "emb.lengths_to_offsets";
  int64_t L = dims[EMB_ABI_L2O_DIM_LENGTHS];
  if (dims[EMB_ABI_L2O_DIM_OFFSETS] != L + 1)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: offsets has %lld entries but lengths has %lld "
                         "(offsets must have one more)",
                         op, (long long)dims[EMB_ABI_L2O_DIM_OFFSETS],
                         (long long)L);
  if (dims[EMB_ABI_L2O_DIM_BLOCK_SUMS] != attrs[EMB_ABI_L2O_BLOCKS])
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: block_sums has %lld entries but blocks is %lld",
                         op, (long long)dims[EMB_ABI_L2O_DIM_BLOCK_SUMS],
                         (long long)attrs[EMB_ABI_L2O_BLOCKS]);
  memset(a, 0, sizeof *a);
  a->structSize = sizeof *a;
  a->dtype = (embrtDtype)attrs[EMB_ABI_L2O_DTYPE];
  a->lengths = buffers[EMB_ABI_L2O_BUF_LENGTHS];
  a->numLengths = L;
  a->numBlocks = attrs[EMB_ABI_L2O_BLOCKS];
  a->offsets = buffers[EMB_ABI_L2O_BUF_OFFSETS];
  a->blockSums = buffers[EMB_ABI_L2O_BUF_BLOCK_SUMS];
  a->workspace = buffers[EMB_ABI_L2O_BUF_WORKSPACE];
  a->workspaceBytes = (size_t)dims[EMB_ABI_L2O_DIM_WORKSPACE];
  return EMBRT_OK;
}

void embrtCompiledLengthsToOffsets(embrtContext *ctx, const int64_t *attrs,
                                   void *const *buffers, const int64_t *dims) {
  embrtLengthsToOffsetsArgs a;
  if (decodeLengthsToOffsets(ctx, attrs, buffers, dims, &a) == EMBRT_OK)
    embrtLengthsToOffsets(ctx, &a);
}

int64_t embrtCompiledLengthsToOffsetsWorkspace(embrtContext *ctx,
                                               const int64_t *attrs,
                                               void *const *buffers,
                                               const int64_t *dims) {
  embrtLengthsToOffsetsArgs a;
  size_t bytes = 0;
  if (decodeLengthsToOffsets(ctx, attrs, buffers, dims, &a) != EMBRT_OK ||
      embrtLengthsToOffsetsWorkspaceSize(ctx, &a, &bytes) != EMBRT_OK)
    return 0;
  return (int64_t)bytes;
}
