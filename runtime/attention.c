//===- runtime/attention.c - emb.attention and emb.ikbo_attention -*- C -*-===//
//
// The backend-neutral side of softmax attention, plain (every candidate its
// own keys and values) and IKBO (candidates read their user's, through
// candToUser, optionally cut to userLengths): the argument checks, the
// public entry points and the compiled-ABI decoders.
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"

#include <math.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

/// `isIkbo` selects ikbo_attention (candToUser required, userLengths
/// allowed); plain attention needs U == B and no candToUser, and its
/// userLengths (optional) are one per row: emb.attention's key_lengths.
static embrtStatus checkAttention(embrtContext *ctx,
                                  const embrtAttentionArgs *args, int isIkbo,
                                  embrtCheckMode mode) {
  const char *op = isIkbo ? "ikbo_attention" : "attention";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtAttentionArgs), "embrtAttentionArgs"));
  EMBRT_TRY(embrtCheckStorageFloat(ctx, op, "dtype", args->dtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "batchSize", args->batchSize));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numUsers", args->numUsers));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "lq", args->lq));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "lk", args->lk));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "heads", args->heads));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "headDim", args->headDim));
  EMBRT_TRY(embrtCheckConfigId(ctx, op, args->configId));
  EMBRT_TRY(embrtCheckComputeDtype(ctx, op, args->dtype, args->computeDtype));
  // indexDtype types candToUser and userLengths: read whenever either is
  // given (plain attention without key lengths reads no index).
  if (isIkbo || args->userLengths)
    EMBRT_TRY(embrtCheckIndexDtype(ctx, op, "indexDtype", args->indexDtype));
  if (!isIkbo) {
    if (args->numUsers != args->batchSize)
      return embrtInvalid(
          ctx, "%s: numUsers is %lld, must equal batchSize %lld", op,
          (long long)args->numUsers, (long long)args->batchSize);
    if (args->candToUser)
      return embrtInvalid(ctx,
                          "%s: candToUser must be NULL (it belongs to "
                          "ikbo_attention)",
                          op);
  }
  int64_t q = 0, kv = 0, scores = 0;
  EMBRT_TRY(embrtCheckCount(ctx, op, "q", args->dtype, &q, args->batchSize,
                            args->lq, args->heads, args->headDim));
  EMBRT_TRY(embrtCheckCount(ctx, op, "k", args->dtype, &kv, args->numUsers,
                            args->lk, args->heads, args->headDim));
  EMBRT_TRY(embrtCheckCount(ctx, op, "the score row", EMBRT_F64, &scores,
                            args->lk, 1, 1, 1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  EMBRT_TRY(embrtCheckData(ctx, op, "q", args->q, q));
  EMBRT_TRY(embrtCheckData(ctx, op, "k", args->k, kv));
  EMBRT_TRY(embrtCheckData(ctx, op, "v", args->v, kv));
  if (isIkbo)
    EMBRT_TRY(embrtCheckData(ctx, op, "candToUser", args->candToUser,
                             args->batchSize));
  if (args->userLengths)
    EMBRT_TRY(embrtCheckData(ctx, op, "userLengths", args->userLengths,
                             args->numUsers));
  else if (args->additiveMask)
    return embrtInvalid(ctx,
                        "%s: additiveMask needs userLengths (the mask it "
                        "makes additive)",
                        op);
  EMBRT_TRY(embrtCheckData(ctx, op, "output", args->output, q));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

embrtStatus embrtAttentionWorkspaceSize(embrtContext *ctx,
                                        const embrtAttentionArgs *args,
                                        size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckBytesOut(ctx, "attention", bytes));
  // One query serves both ops. Only ikbo_attention has a cand_to_user or a
  // user batch other than the candidate batch; anything else is checked as
  // plain attention (the two need the same workspace for the same shapes).
  int isIkbo = args && (args->candToUser || args->numUsers != args->batchSize);
  EMBRT_TRY(checkAttention(ctx, args, isIkbo, EMBRT_CHECK_SHAPES));
  return ctx->backend->attentionWorkspaceSize(ctx, args, bytes);
}

static embrtStatus runAttention(embrtContext *ctx,
                                const embrtAttentionArgs *args, int isIkbo) {
  const char *op = isIkbo ? "ikbo_attention" : "attention";
  EMBRT_TRY(checkAttention(ctx, args, isIkbo, EMBRT_CHECK_CALL));
  size_t needed = 0;
  EMBRT_TRY(ctx->backend->attentionWorkspaceSize(ctx, args, &needed));
  EMBRT_TRY(embrtCheckWorkspace(ctx, op, args->workspace, args->workspaceBytes,
                                needed));
  return ctx->backend->attention(ctx, args);
}

embrtStatus embrtAttention(embrtContext *ctx, const embrtAttentionArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  return runAttention(ctx, args, 0);
}

embrtStatus embrtIkboAttention(embrtContext *ctx,
                               const embrtAttentionArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  return runAttention(ctx, args, 1);
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
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
  a.computeDtype = (embrtDtype)attrs[EMB_ABI_ATTN_COMPUTE_DTYPE];
  a.additiveMask = attrs[EMB_ABI_ATTN_ADDITIVE_MASK] != 0;
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

/// The checked extents of emb.attention(q[B,Lq,H,Dh], k[B,Lk,H,Dh],
/// v[B,Lk,H,Dh], key_lengths[B]?) and emb.ikbo_attention(q[B,Lq,H,Dh],
/// k_user[U,Lk,H,Dh], v_user[U,Lk,H,Dh], cand_to_user[B], user_lengths[U]?),
/// both -> [B,Lq,H,Dh]: k's heads and head dim against q's, v against k, the
/// index arrays against B and U, the result against q.
static embrtStatus checkAttentionExtents(embrtContext *ctx,
                                         const int64_t *attrs,
                                         const int64_t *dims) {
  int ikbo = attrs[EMB_ABI_ATTN_HAS_INDEX] != 0;
  const char *op = ikbo ? "emb.ikbo_attention" : "emb.attention";
  const char *k = ikbo ? "k_user" : "k", *v = ikbo ? "v_user" : "v";
  int64_t B = dims[EMB_ABI_ATTN_DIM_B], U = dims[EMB_ABI_ATTN_DIM_U];
  int64_t Lq = dims[EMB_ABI_ATTN_DIM_LQ], Lk = dims[EMB_ABI_ATTN_DIM_LK];
  int64_t H = dims[EMB_ABI_ATTN_DIM_HEADS];
  int64_t Dh = dims[EMB_ABI_ATTN_DIM_HEAD_DIM];
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "H", k, dims[EMB_ABI_ATTN_DIM_K_HEADS],
                                "q", H));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "Dh", k,
                                dims[EMB_ABI_ATTN_DIM_K_HEAD_DIM], "q", Dh));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, ikbo ? "U" : "B", v,
                                dims[EMB_ABI_ATTN_DIM_V_USERS], k, U));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "Lk", v, dims[EMB_ABI_ATTN_DIM_V_LK],
                                k, Lk));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "H", v, dims[EMB_ABI_ATTN_DIM_V_HEADS],
                                k, H));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "Dh", v,
                                dims[EMB_ABI_ATTN_DIM_V_HEAD_DIM], k, Dh));
  if (ikbo)
    EMBRT_TRY(embrtCheckDimExtent(ctx, op, "B", "cand_to_user",
                                  dims[EMB_ABI_ATTN_DIM_INDEX], "q", B));
  if (ikbo && attrs[EMB_ABI_ATTN_HAS_LENGTHS])
    EMBRT_TRY(embrtCheckDimExtent(ctx, op, "U", "user_lengths",
                                  dims[EMB_ABI_ATTN_DIM_LENGTHS], k, U));
  if (!ikbo && attrs[EMB_ABI_ATTN_HAS_LENGTHS])
    EMBRT_TRY(embrtCheckDimExtent(ctx, op, "B", "key_lengths",
                                  dims[EMB_ABI_ATTN_DIM_LENGTHS], "q", B));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "B", "the result",
                                dims[EMB_ABI_ATTN_DIM_OUTPUT_B], "q", B));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "Lq", "the result",
                                dims[EMB_ABI_ATTN_DIM_OUTPUT_LQ], "q", Lq));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "H", "the result",
                                dims[EMB_ABI_ATTN_DIM_OUTPUT_HEADS], "q", H));
  return embrtCheckDimExtent(ctx, op, "Dh", "the result",
                             dims[EMB_ABI_ATTN_DIM_OUTPUT_HEAD_DIM], "q", Dh);
}

void embrtCompiledAttention(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims) {
  embrtAttentionArgs a = decodeAttention(attrs, buffers, dims);
  if (checkAttentionExtents(ctx, attrs, dims) != EMBRT_OK)
    return;
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
