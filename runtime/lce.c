//===- runtime/lce.c - emb.lce and emb.ikbo_lce -------------------*- C -*-===//
//
// The backend-neutral side of linear compression (out[b] = w @ x[b]) and of
// its IKBO form (out[b] = wCand @ cand[b] + wUser @ user[candToUser[b]]):
// the argument checks, the public entry points and the compiled-ABI
// decoders. Each call checks its arguments once, asks the backend for the
// workspace it needs and checks the caller's, then calls the backend.
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"

#include <stdio.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

static embrtStatus checkLce(embrtContext *ctx, const embrtLceArgs *args,
                            embrtCheckMode mode) {
  const char *op = "lce";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtLceArgs), "embrtLceArgs"));
  EMBRT_TRY(embrtCheckStorageFloat(ctx, op, "dtype", args->dtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "batchSize", args->batchSize));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "m", args->m));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "k", args->k));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "n", args->n));
  EMBRT_TRY(embrtCheckConfigId(ctx, op, args->configId));
  int64_t wElements = 0, xElements = 0, outputElements = 0;
  EMBRT_TRY(embrtCheckCount(ctx, op, "w", args->dtype, &wElements, args->m,
                            args->k, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "x", args->dtype, &xElements,
                            args->batchSize, args->k, args->n, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "output", args->dtype, &outputElements,
                            args->batchSize, args->m, args->n, 1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  EMBRT_TRY(embrtCheckData(ctx, op, "w", args->w, wElements));
  EMBRT_TRY(embrtCheckData(ctx, op, "x", args->x, xElements));
  EMBRT_TRY(embrtCheckData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

/// A row stride in elements: 0 (packed rows of `cols`) or at least `cols`.
static embrtStatus checkRowStride(embrtContext *ctx, const char *op,
                                  const char *name, int64_t stride,
                                  int64_t cols) {
  if (stride != 0 && stride < cols)
    return embrtInvalid(ctx, "%s: %s is %lld, must be 0 (packed) or >= %lld",
                        op, name, (long long)stride, (long long)cols);
  return EMBRT_OK;
}

/// The elements a [rows, cols] matrix with row stride `stride` (0: cols)
/// spans from its first element: (rows - 1) * stride + cols.
static embrtStatus checkStridedRows(embrtContext *ctx, const char *op,
                                    const char *name, embrtDtype dtype,
                                    int64_t *count, int64_t rows, int64_t cols,
                                    int64_t stride) {
  if (rows == 0 || cols == 0 || stride == 0 || stride == cols)
    return embrtCheckCount(ctx, op, name, dtype, count, rows, cols, 1, 1);
  int64_t n = 0;
  if (!embrtMulOk(rows - 1, stride, &n) || n > INT64_MAX - cols)
    return embrtInvalid(ctx, "%s: %s is too large to address", op, name);
  return embrtCheckCount(ctx, op, name, dtype, count, n + cols, 1, 1, 1);
}

static embrtStatus checkIkboLce(embrtContext *ctx, const embrtIkboLceArgs *args,
                                embrtCheckMode mode) {
  const char *op = "ikbo_lce";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtIkboLceArgs), "embrtIkboLceArgs"));
  EMBRT_TRY(embrtCheckStorageFloat(ctx, op, "dtype", args->dtype));
  EMBRT_TRY(embrtCheckIndexDtype(ctx, op, "indexDtype", args->indexDtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "batchSize", args->batchSize));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numUsers", args->numUsers));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "m", args->m));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "kUser", args->kUser));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "kCand", args->kCand));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "n", args->n));
  EMBRT_TRY(embrtCheckConfigId(ctx, op, args->configId));
  EMBRT_TRY(embrtCheckComputeDtype(ctx, op, args->dtype, args->computeDtype));
  EMBRT_TRY(
      checkRowStride(ctx, op, "wUserStride", args->wUserStride, args->kUser));
  EMBRT_TRY(
      checkRowStride(ctx, op, "wCandStride", args->wCandStride, args->kCand));
  int64_t wUser = 0, wCand = 0, user = 0, cand = 0, output = 0;
  EMBRT_TRY(checkStridedRows(ctx, op, "wUser", args->dtype, &wUser, args->m,
                             args->kUser, args->wUserStride));
  EMBRT_TRY(checkStridedRows(ctx, op, "wCand", args->dtype, &wCand, args->m,
                             args->kCand, args->wCandStride));
  EMBRT_TRY(embrtCheckCount(ctx, op, "user", args->dtype, &user, args->numUsers,
                            args->kUser, args->n, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "cand", args->dtype, &cand,
                            args->batchSize, args->kCand, args->n, 1));
  int64_t pieceCount[EMBRT_IKBO_LCE_MAX_PIECES] = {0};
  if (args->numCandPieces < 0 ||
      args->numCandPieces > EMBRT_IKBO_LCE_MAX_PIECES)
    return embrtInvalid(ctx, "%s: numCandPieces is %lld, outside 0..%d", op,
                        (long long)args->numCandPieces,
                        EMBRT_IKBO_LCE_MAX_PIECES);
  if (args->numCandPieces > 0) {
    int64_t k = 0;
    for (int64_t p = 0; p < args->numCandPieces; ++p) {
      EMBRT_TRY(
          embrtCheckNonNegative(ctx, op, "candPieceK", args->candPieceK[p]));
      EMBRT_TRY(embrtCheckCount(ctx, op, "a candidate piece", args->dtype,
                                &pieceCount[p], args->batchSize,
                                args->candPieceK[p], args->n, 1));
      // In an empty batch a piece holds no element whatever its K, so the
      // sum itself must be checked.
      if (args->candPieceK[p] > INT64_MAX - k)
        return embrtInvalid(ctx,
                            "%s: candPieceK[%lld] is %lld, which takes the "
                            "candidate pieces' K past int64",
                            op, (long long)p, (long long)args->candPieceK[p]);
      k += args->candPieceK[p];
    }
    if (k != args->kCand)
      return embrtInvalid(ctx,
                          "%s: the candidate pieces have %lld rows of K in "
                          "all but kCand is %lld",
                          op, (long long)k, (long long)args->kCand);
    if (args->cand)
      return embrtInvalid(ctx, "%s: cand and candPieces are both given", op);
  }
  EMBRT_TRY(embrtCheckCount(ctx, op, "output", args->dtype, &output,
                            args->batchSize, args->m, args->n, 1));
  if (mode == EMBRT_CHECK_SHAPES)
    return EMBRT_OK;
  EMBRT_TRY(embrtCheckData(ctx, op, "wUser", args->wUser, wUser));
  EMBRT_TRY(embrtCheckData(ctx, op, "wCand", args->wCand, wCand));
  EMBRT_TRY(embrtCheckData(ctx, op, "user", args->user, user));
  if (args->numCandPieces == 0)
    EMBRT_TRY(embrtCheckData(ctx, op, "cand", args->cand, cand));
  EMBRT_TRY(
      embrtCheckData(ctx, op, "candToUser", args->candToUser, args->batchSize));
  EMBRT_TRY(embrtCheckData(ctx, op, "output", args->output, output));
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

embrtStatus embrtLceWorkspaceSize(embrtContext *ctx, const embrtLceArgs *args,
                                  size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckBytesOut(ctx, "lce", bytes));
  EMBRT_TRY(checkLce(ctx, args, EMBRT_CHECK_SHAPES));
  return ctx->backend->lceWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtLce(embrtContext *ctx, const embrtLceArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkLce(ctx, args, EMBRT_CHECK_CALL));
  size_t needed = 0;
  EMBRT_TRY(ctx->backend->lceWorkspaceSize(ctx, args, &needed));
  EMBRT_TRY(embrtCheckWorkspace(ctx, "lce", args->workspace,
                                args->workspaceBytes, needed));
  return ctx->backend->lce(ctx, args);
}

embrtStatus embrtIkboLceWorkspaceSize(embrtContext *ctx,
                                      const embrtIkboLceArgs *args,
                                      size_t *bytes) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(embrtCheckBytesOut(ctx, "ikbo_lce", bytes));
  EMBRT_TRY(checkIkboLce(ctx, args, EMBRT_CHECK_SHAPES));
  return ctx->backend->ikboLceWorkspaceSize(ctx, args, bytes);
}

embrtStatus embrtIkboLce(embrtContext *ctx, const embrtIkboLceArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkIkboLce(ctx, args, EMBRT_CHECK_CALL));
  size_t needed = 0;
  EMBRT_TRY(ctx->backend->ikboLceWorkspaceSize(ctx, args, &needed));
  EMBRT_TRY(embrtCheckWorkspace(ctx, "ikbo_lce", args->workspace,
                                args->workspaceBytes, needed));
  return ctx->backend->ikboLce(ctx, args);
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
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

/// The checked extents of emb.lce(w[M,K], x[B,K,N]) -> [B,M,N].
static embrtStatus checkLceExtents(embrtContext *ctx, const int64_t *dims) {
  const char *op = "emb.lce";
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "K", "x", dims[EMB_ABI_LCE_DIM_X_K],
                                "w", dims[EMB_ABI_LCE_DIM_K]));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "B", "the result",
                                dims[EMB_ABI_LCE_DIM_OUTPUT_B], "x",
                                dims[EMB_ABI_LCE_DIM_B]));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "M", "the result",
                                dims[EMB_ABI_LCE_DIM_OUTPUT_M], "w",
                                dims[EMB_ABI_LCE_DIM_M]));
  return embrtCheckDimExtent(ctx, op, "N", "the result",
                             dims[EMB_ABI_LCE_DIM_OUTPUT_N], "x",
                             dims[EMB_ABI_LCE_DIM_N]);
}

void embrtCompiledLce(embrtContext *ctx, const int64_t *attrs,
                      void *const *buffers, const int64_t *dims) {
  embrtLceArgs a = decodeLce(attrs, buffers, dims);
  if (checkLceExtents(ctx, dims) == EMBRT_OK)
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
  a.numCandPieces = attrs[EMB_ABI_IKBO_LCE_NUM_CAND_PIECES];
  a.computeDtype = (embrtDtype)attrs[EMB_ABI_IKBO_LCE_COMPUTE_DTYPE];
  for (int64_t p = 0; p < a.numCandPieces && p < EMBRT_IKBO_LCE_MAX_PIECES;
       ++p) {
    a.candPieces[p] = buffers[EMB_ABI_IKBO_LCE_BUF_CAND_PIECE_0 + p];
    a.candPieceK[p] = dims[EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_K_0 + p];
  }
  if (a.numCandPieces > 0)
    a.cand = NULL;
  return a;
}

/// A weight's columns from its first read column on against the K the call
/// reads: equal when packed (`stride` 0), at least K for a column view.
static embrtStatus checkWeightColumns(embrtContext *ctx, const char *op,
                                      const char *weight, int64_t columns,
                                      const char *x, int64_t k,
                                      int64_t stride) {
  if (stride == 0 || columns < k)
    return embrtCheckDimExtent(ctx, op, "K", weight, columns, x, k);
  return EMBRT_OK;
}

/// The checked extents of emb.ikbo_lce(w_user[M,Ku], w_cand[M,Kc],
/// user[U,Ku,N], cand[B,Kc,N], cand_to_user[B]) -> [B,M,N].
static embrtStatus checkIkboLceExtents(embrtContext *ctx, const int64_t *attrs,
                                       const int64_t *dims) {
  const char *op = "emb.ikbo_lce";
  int64_t B = dims[EMB_ABI_IKBO_LCE_DIM_B], M = dims[EMB_ABI_IKBO_LCE_DIM_M];
  int64_t N = dims[EMB_ABI_IKBO_LCE_DIM_N];
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "B", "cand_to_user",
                                dims[EMB_ABI_IKBO_LCE_DIM_INDEX], "cand", B));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "M", "w_user",
                                dims[EMB_ABI_IKBO_LCE_DIM_W_USER_ROWS],
                                "w_cand", M));
  EMBRT_TRY(checkWeightColumns(ctx, op, "w_user",
                               dims[EMB_ABI_IKBO_LCE_DIM_W_USER_COLS], "user",
                               dims[EMB_ABI_IKBO_LCE_DIM_K_USER],
                               dims[EMB_ABI_IKBO_LCE_DIM_W_USER_STRIDE]));
  EMBRT_TRY(checkWeightColumns(ctx, op, "w_cand",
                               dims[EMB_ABI_IKBO_LCE_DIM_W_CAND_COLS], "cand",
                               dims[EMB_ABI_IKBO_LCE_DIM_K_CAND],
                               dims[EMB_ABI_IKBO_LCE_DIM_W_CAND_STRIDE]));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "N", "user",
                                dims[EMB_ABI_IKBO_LCE_DIM_USER_N], "cand", N));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "B", "the result",
                                dims[EMB_ABI_IKBO_LCE_DIM_OUTPUT_B], "cand",
                                B));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "M", "the result",
                                dims[EMB_ABI_IKBO_LCE_DIM_OUTPUT_M], "w_cand",
                                M));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "N", "the result",
                                dims[EMB_ABI_IKBO_LCE_DIM_OUTPUT_N], "cand",
                                N));
  // The pieces of cand (a concat the op reads in place): each has B rows
  // and N columns like the first.
  for (int64_t p = 1; p < attrs[EMB_ABI_IKBO_LCE_NUM_CAND_PIECES] &&
                      p < EMBRT_IKBO_LCE_MAX_PIECES;
       ++p) {
    char name[32];
    snprintf(name, sizeof name, "cand piece %lld", (long long)p);
    EMBRT_TRY(embrtCheckDimExtent(ctx, op, "B", name,
                                  dims[EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_B_0 + p],
                                  "cand piece 0", B));
    EMBRT_TRY(embrtCheckDimExtent(ctx, op, "N", name,
                                  dims[EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_N_0 + p],
                                  "cand piece 0", N));
  }
  return EMBRT_OK;
}

void embrtCompiledIkboLce(embrtContext *ctx, const int64_t *attrs,
                          void *const *buffers, const int64_t *dims) {
  embrtIkboLceArgs a = decodeIkboLce(attrs, buffers, dims);
  if (checkIkboLceExtents(ctx, attrs, dims) == EMBRT_OK)
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
