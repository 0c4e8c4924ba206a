//===- runtime/compiled.c - The ABI compiled models call ------------------===//
//
// Decodes the flat attrs/buffers/dims arrays of include/emb/compiled.h into
// the runtime's args structs and calls the public entry points, which check
// everything again: a compiled model gets exactly the checks a hand-written
// caller gets. Statuses are left in the context (sticky), not returned.
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "runtime/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void *embrtCompiledAlloc(embrtContext *ctx, int64_t bytes) {
  void *p = NULL;
  if (bytes < 0)
    return NULL;
  // A zero-byte tensor still gets a unique, valid pointer.
  if (embrtMallocAsync(ctx, bytes ? (size_t)bytes : 1, &p) != EMBRT_OK)
    return NULL;
  return p;
}

void embrtCompiledFree(embrtContext *ctx, void *ptr) {
  embrtFreeAsync(ctx, ptr);
}

void embrtCompiledCopy(embrtContext *ctx, int64_t kind, void *dst,
                       const void *src, int64_t bytes) {
  if (bytes > 0)
    embrtMemcpy(ctx, dst, src, (size_t)bytes, (embrtCopyKind)kind);
}

void *embrtCompiledConstant(embrtContext *ctx, const void *host, int64_t bytes,
                            int64_t hash) {
  if (!ctx || bytes < 0 || (!host && bytes > 0)) {
    if (ctx)
      embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                    "constant: %lld bytes at %p is not a constant",
                    (long long)bytes, host);
    return NULL;
  }
  if (ctx->device != EMBRT_DEVICE_CUDA)
    return (void *)host;
  for (size_t i = 0; i < ctx->numConstants; ++i)
    if (ctx->constants[i].hash == (uint64_t)hash &&
        ctx->constants[i].bytes == bytes)
      return ctx->constants[i].device;
  if (ctx->numConstants == ctx->constantsCap) {
    size_t cap = ctx->constantsCap ? 2 * ctx->constantsCap : 8;
    embrtConstant *grown = realloc(ctx->constants, cap * sizeof *grown);
    if (!grown) {
      embrtSetError(ctx, EMBRT_OUT_OF_MEMORY,
                    "constant: no host memory to track %zu constants", cap);
      return NULL;
    }
    ctx->constants = grown;
    ctx->constantsCap = cap;
  }
  void *device = NULL;
  if (embrtMalloc(ctx, bytes ? (size_t)bytes : 1, &device) != EMBRT_OK)
    return NULL;
  if (embrtMemcpy(ctx, device, host, (size_t)bytes,
                  EMBRT_COPY_HOST_TO_DEVICE) != EMBRT_OK) {
    embrtFree(ctx, device);
    return NULL;
  }
  ctx->constants[ctx->numConstants++] =
      (embrtConstant){(uint64_t)hash, bytes, device};
  return device;
}

//===----------------------------------------------------------------------===//
// Table-batched lookup
//===----------------------------------------------------------------------===//

/// Decodes an emb.tbe call. The tables, their rows and their widths are read
/// in place: they are contiguous in `buffers` and `dims`.
static embrtTbeArgs decodeTbe(const int64_t *attrs, void *const *buffers,
                              const int64_t *dims) {
  embrtTbeArgs a;
  int64_t numTables = attrs[EMB_ABI_TBE_NUM_TABLES];
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.pooling = (embrtPooling)attrs[EMB_ABI_TBE_POOLING];
  a.boundsCheck = (embrtBoundsCheck)attrs[EMB_ABI_TBE_BOUNDS_CHECK];
  a.hasPaddingIdx = (int)attrs[EMB_ABI_TBE_HAS_PADDING];
  a.paddingIdx = attrs[EMB_ABI_TBE_PADDING_IDX];
  a.tableDtype = (embrtDtype)attrs[EMB_ABI_TBE_TABLE_DTYPE];
  a.indexDtype = (embrtDtype)attrs[EMB_ABI_TBE_INDEX_DTYPE];
  a.offsetDtype = a.indexDtype;
  a.outputDtype = (embrtDtype)attrs[EMB_ABI_TBE_OUTPUT_DTYPE];
  a.configId = attrs[EMB_ABI_TBE_CONFIG_ID];
  a.numTables = numTables;
  a.numFeatures = attrs[EMB_ABI_TBE_NUM_FEATURES];
  a.featureTables = attrs + EMB_ABI_TBE_FEATURE_TABLES;
  a.indices = buffers[EMB_ABI_TBE_BUF_INDICES];
  a.offsets = buffers[EMB_ABI_TBE_BUF_OFFSETS];
  if (attrs[EMB_ABI_TBE_PSW_DTYPE] >= 0) {
    a.perSampleWeights = buffers[EMB_ABI_TBE_BUF_PSW];
    a.perSampleWeightDtype = (embrtDtype)attrs[EMB_ABI_TBE_PSW_DTYPE];
  }
  a.output = buffers[EMB_ABI_TBE_BUF_OUTPUT];
  a.workspace = buffers[EMB_ABI_TBE_BUF_WORKSPACE];
  a.workspaceBytes = (size_t)dims[EMB_ABI_TBE_DIM_WORKSPACE];
  a.numIndices = dims[EMB_ABI_TBE_DIM_INDICES];
  a.batchSize = dims[EMB_ABI_TBE_DIM_BATCH];
  a.tables = (const void *const *)(buffers + EMB_ABI_TBE_BUF_TABLES);
  a.tableRows = dims + EMB_ABI_TBE_DIM_TABLES;
  a.tableDims = dims + EMB_ABI_TBE_DIM_TABLES + numTables;
  return a;
}

void embrtCompiledTbe(embrtContext *ctx, const int64_t *attrs,
                      void *const *buffers, const int64_t *dims) {
  embrtTbeArgs a = decodeTbe(attrs, buffers, dims);
  embrtTbeForward(ctx, &a);
}

int64_t embrtCompiledTbeWorkspace(embrtContext *ctx, const int64_t *attrs,
                                  void *const *buffers, const int64_t *dims) {
  embrtTbeArgs a = decodeTbe(attrs, buffers, dims);
  size_t bytes = 0;
  return embrtTbeWorkspaceSize(ctx, &a, &bytes) == EMBRT_OK ? (int64_t)bytes
                                                            : 0;
}

//===----------------------------------------------------------------------===//
// Broadcast
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

void embrtCompiledBroadcast(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims) {
  embrtBroadcastArgs a = decodeBroadcast(attrs, buffers, dims);
  a.nro = NULL;
  embrtBroadcast(ctx, &a);
}

void embrtCompiledBroadcastAdd(embrtContext *ctx, const int64_t *attrs,
                               void *const *buffers, const int64_t *dims) {
  embrtBroadcastArgs a = decodeBroadcast(attrs, buffers, dims);
  embrtBroadcastAdd(ctx, &a);
}

//===----------------------------------------------------------------------===//
// Linear compression
//===----------------------------------------------------------------------===//

static embrtLceArgs decodeLce(const int64_t *attrs, void *const *buffers,
                              const int64_t *dims) {
  embrtLceArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_LCE_DTYPE];
  a.configId = attrs[EMB_ABI_LCE_CONFIG_ID];
  a.w = buffers[EMB_ABI_LCE_BUF_W];
  a.x = buffers[EMB_ABI_LCE_BUF_X];
  a.output = buffers[EMB_ABI_LCE_BUF_OUTPUT];
  a.workspace = buffers[EMB_ABI_LCE_BUF_WORKSPACE];
  a.batchSize = dims[EMB_ABI_LCE_DIM_B];
  a.m = dims[EMB_ABI_LCE_DIM_M];
  a.k = dims[EMB_ABI_LCE_DIM_K];
  a.n = dims[EMB_ABI_LCE_DIM_N];
  a.workspaceBytes = (size_t)dims[EMB_ABI_LCE_DIM_WORKSPACE];
  return a;
}

void embrtCompiledLce(embrtContext *ctx, const int64_t *attrs,
                      void *const *buffers, const int64_t *dims) {
  embrtLceArgs a = decodeLce(attrs, buffers, dims);
  embrtLce(ctx, &a);
}

int64_t embrtCompiledLceWorkspace(embrtContext *ctx, const int64_t *attrs,
                                  void *const *buffers, const int64_t *dims) {
  embrtLceArgs a = decodeLce(attrs, buffers, dims);
  size_t bytes = 0;
  return embrtLceWorkspaceSize(ctx, &a, &bytes) == EMBRT_OK ? (int64_t)bytes
                                                            : 0;
}

static embrtIkboLceArgs
decodeIkboLce(const int64_t *attrs, void *const *buffers, const int64_t *dims) {
  embrtIkboLceArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_IKBO_LCE_DTYPE];
  a.indexDtype = (embrtDtype)attrs[EMB_ABI_IKBO_LCE_INDEX_DTYPE];
  a.configId = attrs[EMB_ABI_IKBO_LCE_CONFIG_ID];
  a.wUser = buffers[EMB_ABI_IKBO_LCE_BUF_W_USER];
  a.wCand = buffers[EMB_ABI_IKBO_LCE_BUF_W_CAND];
  a.user = buffers[EMB_ABI_IKBO_LCE_BUF_USER];
  a.cand = buffers[EMB_ABI_IKBO_LCE_BUF_CAND];
  a.candToUser = buffers[EMB_ABI_IKBO_LCE_BUF_INDEX];
  a.output = buffers[EMB_ABI_IKBO_LCE_BUF_OUTPUT];
  a.workspace = buffers[EMB_ABI_IKBO_LCE_BUF_WORKSPACE];
  a.batchSize = dims[EMB_ABI_IKBO_LCE_DIM_B];
  a.numUsers = dims[EMB_ABI_IKBO_LCE_DIM_U];
  a.m = dims[EMB_ABI_IKBO_LCE_DIM_M];
  a.kUser = dims[EMB_ABI_IKBO_LCE_DIM_K_USER];
  a.kCand = dims[EMB_ABI_IKBO_LCE_DIM_K_CAND];
  a.n = dims[EMB_ABI_IKBO_LCE_DIM_N];
  a.workspaceBytes = (size_t)dims[EMB_ABI_IKBO_LCE_DIM_WORKSPACE];
  a.wUserStride = dims[EMB_ABI_IKBO_LCE_DIM_W_USER_STRIDE];
  a.wCandStride = dims[EMB_ABI_IKBO_LCE_DIM_W_CAND_STRIDE];
  return a;
}

void embrtCompiledIkboLce(embrtContext *ctx, const int64_t *attrs,
                          void *const *buffers, const int64_t *dims) {
  embrtIkboLceArgs a = decodeIkboLce(attrs, buffers, dims);
  embrtIkboLce(ctx, &a);
}

int64_t embrtCompiledIkboLceWorkspace(embrtContext *ctx, const int64_t *attrs,
                                      void *const *buffers,
                                      const int64_t *dims) {
  embrtIkboLceArgs a = decodeIkboLce(attrs, buffers, dims);
  size_t bytes = 0;
  return embrtIkboLceWorkspaceSize(ctx, &a, &bytes) == EMBRT_OK ? (int64_t)bytes
                                                                : 0;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

static embrtAttentionArgs decodeAttention(const int64_t *attrs,
                                          void *const *buffers,
                                          const int64_t *dims) {
  embrtAttentionArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_ATTN_DTYPE];
  a.indexDtype = (embrtDtype)attrs[EMB_ABI_ATTN_INDEX_DTYPE];
  a.configId = attrs[EMB_ABI_ATTN_CONFIG_ID];
  uint32_t bits = (uint32_t)attrs[EMB_ABI_ATTN_SCALE_BITS];
  memcpy(&a.scale, &bits, sizeof a.scale);
  a.q = buffers[EMB_ABI_ATTN_BUF_Q];
  a.k = buffers[EMB_ABI_ATTN_BUF_K];
  a.v = buffers[EMB_ABI_ATTN_BUF_V];
  if (attrs[EMB_ABI_ATTN_HAS_INDEX])
    a.candToUser = buffers[EMB_ABI_ATTN_BUF_INDEX];
  if (attrs[EMB_ABI_ATTN_HAS_LENGTHS])
    a.userLengths = buffers[EMB_ABI_ATTN_BUF_LENGTHS];
  a.output = buffers[EMB_ABI_ATTN_BUF_OUTPUT];
  a.workspace = buffers[EMB_ABI_ATTN_BUF_WORKSPACE];
  a.batchSize = dims[EMB_ABI_ATTN_DIM_B];
  a.numUsers = dims[EMB_ABI_ATTN_DIM_U];
  a.lq = dims[EMB_ABI_ATTN_DIM_LQ];
  a.lk = dims[EMB_ABI_ATTN_DIM_LK];
  a.heads = dims[EMB_ABI_ATTN_DIM_HEADS];
  a.headDim = dims[EMB_ABI_ATTN_DIM_HEAD_DIM];
  a.workspaceBytes = (size_t)dims[EMB_ABI_ATTN_DIM_WORKSPACE];
  if (bits == 0 && a.headDim > 0)
    a.scale = 1.0f / sqrtf((float)a.headDim);
  return a;
}

void embrtCompiledAttention(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims) {
  embrtAttentionArgs a = decodeAttention(attrs, buffers, dims);
  if (a.candToUser)
    embrtIkboAttention(ctx, &a);
  else
    embrtAttention(ctx, &a);
}

int64_t embrtCompiledAttentionWorkspace(embrtContext *ctx, const int64_t *attrs,
                                        void *const *buffers,
                                        const int64_t *dims) {
  embrtAttentionArgs a = decodeAttention(attrs, buffers, dims);
  size_t bytes = 0;
  return embrtAttentionWorkspaceSize(ctx, &a, &bytes) == EMBRT_OK
             ? (int64_t)bytes
             : 0;
}

//===----------------------------------------------------------------------===//
// Data movement and elementwise
//===----------------------------------------------------------------------===//

void embrtCompiledConcat(embrtContext *ctx, const int64_t *attrs,
                         void *const *buffers, const int64_t *dims) {
  embrtConcatArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_CONCAT_DTYPE];
  a.numInputs = attrs[EMB_ABI_CONCAT_NUM_INPUTS];
  a.output = buffers[0];
  a.inputs = (const void *const *)(buffers + 1);
  a.outerSize = dims[0];
  a.innerSize = dims[1];
  a.inputDimSizes = dims + 2;
  embrtConcat(ctx, &a);
}

void embrtCompiledStridedCopy(embrtContext *ctx, const int64_t *attrs,
                              void *const *buffers, const int64_t *dims) {
  embrtStridedCopyArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_COPY_DTYPE];
  a.rank = attrs[EMB_ABI_COPY_RANK];
  a.input = buffers[0];
  a.output = buffers[1];
  if (a.rank < 0 || a.rank > EMBRT_MAX_RANK) {
    embrtStridedCopy(ctx, NULL);
    return;
  }
  a.inputOffset = dims[0];
  for (int64_t i = 0; i < a.rank; ++i) {
    a.sizes[i] = dims[1 + i];
    a.inputStrides[i] = dims[1 + a.rank + i];
  }
  embrtStridedCopy(ctx, &a);
}

void embrtCompiledElementwise(embrtContext *ctx, const int64_t *attrs,
                              void *const *buffers, const int64_t *dims) {
  embrtElementwiseArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_ELEMENTWISE_DTYPE];
  a.isUnary = (int)attrs[EMB_ABI_ELEMENTWISE_IS_UNARY];
  if (a.isUnary)
    a.unaryOp = (embrtUnaryOp)attrs[EMB_ABI_ELEMENTWISE_OP];
  else
    a.binaryOp = (embrtBinaryOp)attrs[EMB_ABI_ELEMENTWISE_OP];
  a.a = buffers[0];
  a.b = buffers[1];
  a.output = buffers[2];
  a.numElements = dims[0];
  embrtElementwise(ctx, &a);
}

void embrtCompiledFill(embrtContext *ctx, const int64_t *attrs,
                       void *const *buffers, const int64_t *dims) {
  int64_t bits = dims[EMB_ABI_FILL_DIM_BITS];
  unsigned char value[8];
  memcpy(value, &bits, sizeof value); // little-endian: low bytes first
  embrtFill(ctx, buffers[0], (embrtDtype)attrs[EMB_ABI_FILL_DTYPE],
            dims[EMB_ABI_FILL_DIM_ELEMENTS], value);
}
