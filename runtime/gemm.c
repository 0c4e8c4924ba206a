//===- runtime/gemm.c - Dense matrix products -----------------------*- C
//-*-===//
//
// The backend-neutral side of embrtGemm (linalg.matmul and
// linalg.batch_matmul with an optional bias and activation): the argument
// checks, the public entry point and the compiled-ABI decoder. The checks
// resolve packed leading dimensions (0) to the stored row length, so a
// backend always sees lda, ldb and ldc set; every matrix is checked to be
// addressable over the span its batch stride and leading dimension cover,
// and the output's batches must not overlap (a broadcast A or B, stride 0,
// is fine: it is only read).
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"

#include <string.h>

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

/// Resolves a leading dimension (0: packed, `cols`) and checks it.
static embrtStatus checkLd(embrtContext *ctx, const char *name, int64_t *ld,
                           int64_t cols) {
  if (*ld == 0)
    *ld = cols > 0 ? cols : 1;
  if (*ld < 0 || *ld < cols)
    return embrtInvalid(ctx, "gemm: %s is %lld, must be 0 (packed) or >= %lld",
                        name, (long long)*ld, (long long)cols);
  return EMBRT_OK;
}

/// The elements matrix `name` spans from its first element: (batch - 1) *
/// stride + (rows - 1) * ld + cols, or 0 when it is empty.
static embrtStatus checkSpan(embrtContext *ctx, const char *name,
                             embrtDtype dtype, int64_t batch, int64_t rows,
                             int64_t cols, int64_t ld, int64_t stride,
                             int64_t *span) {
  *span = 0;
  if (batch == 0 || rows == 0 || cols == 0)
    return EMBRT_OK;
  int64_t inBatch = 0, across = 0;
  if (!embrtMulOk(rows - 1, ld, &inBatch) || inBatch > INT64_MAX - cols ||
      !embrtMulOk(batch - 1, stride, &across) ||
      across > INT64_MAX - (inBatch + cols))
    return embrtInvalid(ctx, "gemm: %s is too large to address", name);
  return embrtCheckCount(ctx, "gemm", name, dtype, span,
                         across + inBatch + cols, 1, 1, 1);
}

static embrtStatus checkFlag(embrtContext *ctx, const char *name, int value) {
  if (value != 0 && value != 1)
    return embrtInvalid(ctx, "gemm: %s is %d, must be 0 or 1", name, value);
  return EMBRT_OK;
}

/// Checks `args` and writes them, leading dimensions resolved, to `out`.
static embrtStatus checkGemm(embrtContext *ctx, const embrtGemmArgs *args,
                             embrtGemmArgs *out) {
  const char *op = "gemm";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtGemmArgs), "embrtGemmArgs"));
  embrtGemmArgs a = *args;
  EMBRT_TRY(embrtCheckStorageFloat(ctx, op, "dtype", a.dtype));
  if (a.outputDtype != EMBRT_F32 && a.outputDtype != a.dtype)
    return embrtInvalid(ctx,
                        "gemm: outputDtype is %s, must be f32 or dtype (%s)",
                        embrtDtypeName(a.outputDtype), embrtDtypeName(a.dtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "batchSize", a.batchSize));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "m", a.m));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "n", a.n));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "k", a.k));
  EMBRT_TRY(checkFlag(ctx, "transA", a.transA));
  EMBRT_TRY(checkFlag(ctx, "transB", a.transB));
  if ((unsigned)a.activation > (unsigned)EMBRT_ACTIVATION_SIGMOID)
    return embrtInvalid(ctx, "gemm: activation is %d, not an embrtActivation",
                        (int)a.activation);
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "strideA", a.strideA));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "strideB", a.strideB));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "strideC", a.strideC));
  // As stored: A is [M, K] or [K, M], B is [K, N] or [N, K].
  int64_t aRows = a.transA ? a.k : a.m, aCols = a.transA ? a.m : a.k;
  int64_t bRows = a.transB ? a.n : a.k, bCols = a.transB ? a.k : a.n;
  EMBRT_TRY(checkLd(ctx, "lda", &a.lda, aCols));
  EMBRT_TRY(checkLd(ctx, "ldb", &a.ldb, bCols));
  EMBRT_TRY(checkLd(ctx, "ldc", &a.ldc, a.n));
  int64_t spanA = 0, spanB = 0, spanC = 0;
  EMBRT_TRY(checkSpan(ctx, "a", a.dtype, a.batchSize, aRows, aCols, a.lda,
                      a.strideA, &spanA));
  EMBRT_TRY(checkSpan(ctx, "b", a.dtype, a.batchSize, bRows, bCols, a.ldb,
                      a.strideB, &spanB));
  EMBRT_TRY(checkSpan(ctx, "output", a.outputDtype, a.batchSize, a.m, a.n,
                      a.ldc, a.strideC, &spanC));
  if (a.batchSize > 1 && a.m > 0 && a.n > 0 &&
      a.strideC < (a.m - 1) * a.ldc + a.n)
    return embrtInvalid(ctx,
                        "gemm: strideC is %lld, so the output's batches "
                        "overlap (one spans %lld elements)",
                        (long long)a.strideC,
                        (long long)((a.m - 1) * a.ldc + a.n));
  if (spanC == 0)
    spanA = spanB = 0; // nothing is computed, nothing is read
  EMBRT_TRY(embrtCheckData(ctx, op, "a", a.a, a.k > 0 ? spanA : 0));
  EMBRT_TRY(embrtCheckData(ctx, op, "b", a.b, a.k > 0 ? spanB : 0));
  EMBRT_TRY(embrtCheckData(ctx, op, "output", a.output, spanC));
  *out = a;
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

embrtStatus embrtGemm(embrtContext *ctx, const embrtGemmArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  embrtGemmArgs a;
  EMBRT_TRY(checkGemm(ctx, args, &a));
  if (a.batchSize == 0 || a.m == 0 || a.n == 0)
    return EMBRT_OK;
  return ctx->backend->gemm(ctx, &a);
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
//===----------------------------------------------------------------------===//

static float floatOfBits(int64_t bits) {
  uint32_t u = (uint32_t)bits;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/// The checked extents of linalg.(batch_)matmul(a[.., M, K], b[.., K, N])
/// -> [.., M, N] (either operand transposed) and its bias [N].
static embrtStatus checkGemmExtents(embrtContext *ctx, const int64_t *attrs,
                                    const int64_t *dims) {
  const char *op =
      attrs[EMB_ABI_GEMM_BATCHED] ? "linalg.batch_matmul" : "linalg.matmul";
  int64_t batch = dims[EMB_ABI_GEMM_DIM_BATCH];
  const char *batchOf = attrs[EMB_ABI_GEMM_BATCHED] == 2 ? "b" : "a";
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "batch", "b",
                                dims[EMB_ABI_GEMM_DIM_B_BATCH], "a", batch));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "K", "b", dims[EMB_ABI_GEMM_DIM_B_K],
                                "a", dims[EMB_ABI_GEMM_DIM_K]));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "N", "the bias",
                                dims[EMB_ABI_GEMM_DIM_BIAS_N], "b",
                                dims[EMB_ABI_GEMM_DIM_N]));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "batch", "the result",
                                dims[EMB_ABI_GEMM_DIM_OUTPUT_BATCH], batchOf,
                                batch));
  EMBRT_TRY(embrtCheckDimExtent(ctx, op, "M", "the result",
                                dims[EMB_ABI_GEMM_DIM_OUTPUT_M], "a",
                                dims[EMB_ABI_GEMM_DIM_M]));
  return embrtCheckDimExtent(ctx, op, "N", "the result",
                             dims[EMB_ABI_GEMM_DIM_OUTPUT_N], "b",
                             dims[EMB_ABI_GEMM_DIM_N]);
}

void embrtCompiledGemm(embrtContext *ctx, const int64_t *attrs,
                       void *const *buffers, const int64_t *dims) {
  embrtGemmArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_GEMM_DTYPE];
  a.outputDtype = (embrtDtype)attrs[EMB_ABI_GEMM_OUTPUT_DTYPE];
  a.transA = (int)attrs[EMB_ABI_GEMM_TRANS_A];
  a.transB = (int)attrs[EMB_ABI_GEMM_TRANS_B];
  a.activation = (embrtActivation)attrs[EMB_ABI_GEMM_ACTIVATION];
  a.alpha = floatOfBits(attrs[EMB_ABI_GEMM_ALPHA_BITS]);
  a.beta = floatOfBits(attrs[EMB_ABI_GEMM_BETA_BITS]);
  a.a = buffers[EMB_ABI_GEMM_BUF_A];
  a.b = buffers[EMB_ABI_GEMM_BUF_B];
  a.bias = buffers[EMB_ABI_GEMM_BUF_BIAS];
  a.output = buffers[EMB_ABI_GEMM_BUF_OUTPUT];
  a.batchSize = dims[EMB_ABI_GEMM_DIM_BATCH];
  a.m = dims[EMB_ABI_GEMM_DIM_M];
  a.n = dims[EMB_ABI_GEMM_DIM_N];
  a.k = dims[EMB_ABI_GEMM_DIM_K];
  a.lda = dims[EMB_ABI_GEMM_DIM_LDA];
  a.strideA = dims[EMB_ABI_GEMM_DIM_STRIDE_A];
  a.ldb = dims[EMB_ABI_GEMM_DIM_LDB];
  a.strideB = dims[EMB_ABI_GEMM_DIM_STRIDE_B];
  a.ldc = dims[EMB_ABI_GEMM_DIM_LDC];
  a.strideC = dims[EMB_ABI_GEMM_DIM_STRIDE_C];
  if (checkGemmExtents(ctx, attrs, dims) == EMBRT_OK)
    embrtGemm(ctx, &a);
}
