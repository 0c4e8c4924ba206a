//===- runtime/cuda/gemm.c - Dense matrix products on cuBLASLt ----*- C -*-===//
//
// embrtGemm on CUDA: one cublasLtMatmul on the context's stream, with the
// bias and relu or gelu in its epilogue. A context keeps one cuBLASLt handle
// and one workspace of kWorkspaceBytes, both made by its first GEMM and
// freed with it, and a small table of plans: the matmul and layout
// descriptors of a shape and the algorithm cuBLASLt's heuristic chose for
// it. A call whose shape, leading dimensions, strides, dtypes, epilogue and
// pointer alignments match a plan only sets the bias pointer and runs; the
// heuristic is asked once per such key (the table holds kPlans, replaced
// round-robin). Nothing here synchronises or allocates after the first call.
//
// Row-major to cuBLASLt's column-major: out [M, N] row-major is out^T [N, M]
// column-major, and out^T = op(B)^T op(A)^T, so cuBLASLt's A is our B and its
// B is our A, with m = N and n = M. A stored row-major matrix [r, c] with
// leading dimension ld is the column-major [c, r] with the same ld, so
// transB (B stored [N, K]) is cuBLASLt's transa and transA its transb. The
// bias vector runs along the rows of cuBLASLt's D, which are our columns:
// bias[N], one value per output column, as a linear layer adds it.
//
// Alignment: cuBLASLt takes any leading dimension and pointer that are
// aligned to the element size; the heuristic is told each pointer's actual
// alignment (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES), so odd sizes and
// unaligned views get an algorithm that supports them (slower ones: M, N, K
// multiples of 8 with 16-byte aligned pointers reach the tensor-core
// kernels). The alignments are part of the plan's key.
//
// Sigmoid is not a cuBLASLt epilogue: the product (with its bias) is
// written, then the elementwise kernel of kernels/data.cu applies sigmoid in
// place, on the same stream: one launch over a contiguous output, one a
// batch or one a row when the output is padded (a slow path: the lowering
// always writes contiguous outputs).
// The output is then rounded twice (after the bias, after the sigmoid).
//
//===----------------------------------------------------------------------===//

#include "runtime/check.h"
#include "runtime/cuda/cuda.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <stdlib.h>
#include <string.h>

enum {
  /// Plans a context keeps.
  kPlans = 32,
  /// Fields of a plan's key.
  kKeyFields = 20,
};

/// cuBLASLt's workspace per context: what NVIDIA recommends on Hopper.
static const size_t kWorkspaceBytes = (size_t)32 << 20;

/// One shape's descriptors and algorithm.
typedef struct Plan {
  int used;
  int64_t key[kKeyFields];
  cublasLtMatmulDescOpaque_t desc;
  cublasLtMatrixLayoutOpaque_t layoutA, layoutB, layoutC;
  cublasLtMatmulAlgo_t algo;
} Plan;

struct embrtCudaGemmState {
  cublasLtHandle_t handle;
  void *workspace;
  Plan plans[kPlans];
  int next; ///< the plan the next new key replaces
};

//===----------------------------------------------------------------------===//
// The context's handle, workspace and plans
//===----------------------------------------------------------------------===//

static embrtStatus failed(embrtContext *ctx, embrtStatus status) {
  return embrtSetError(ctx, status, "%s", embrtCudaStateOf(ctx)->env.message);
}

static embrtStatus ensureState(embrtContext *ctx,
                               struct embrtCudaGemmState **out) {
  embrtCudaState *state = embrtCudaStateOf(ctx);
  if (state->gemm) {
    *out = state->gemm;
    return EMBRT_OK;
  }
  // The handle and workspace are made on first use (cudaMalloc: not during a
  // capture).
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "gemm: the context's first gemm cannot be captured "
                         "(its cuBLASLt handle and workspace allocate); run "
                         "the call once before capturing it");
  struct embrtCudaGemmState *g = calloc(1, sizeof *g);
  if (!g)
    return embrtSetError(ctx, EMBRT_OUT_OF_MEMORY, "gemm: out of host memory");
  embrtStatus status = embrtCublasCheck(&state->env, cublasLtCreate(&g->handle),
                                        "gemm: cublasLtCreate");
  if (status != EMBRT_OK) {
    free(g);
    return failed(ctx, status);
  }
  status = embrtCudaRecord(ctx, cudaMalloc(&g->workspace, kWorkspaceBytes),
                           "gemm: cudaMalloc of the cuBLASLt workspace");
  if (status != EMBRT_OK) {
    cublasLtDestroy(g->handle);
    free(g);
    return status;
  }
  state->gemm = g;
  *out = g;
  return EMBRT_OK;
}

void embrtCudaGemmRelease(embrtContext *ctx) {
  embrtCudaState *state = embrtCudaStateOf(ctx);
  struct embrtCudaGemmState *g = state->gemm;
  if (!g)
    return;
  if (g->workspace)
    cudaFree(g->workspace); // waits for GEMMs that may still use it
  cublasLtDestroy(g->handle);
  free(g);
  state->gemm = NULL;
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

/// The largest power of two up to 256 that divides `p`'s address.
static int64_t alignmentOf(const void *p) {
  uintptr_t a = (uintptr_t)p;
  int64_t align = 256;
  while (align > 1 && (a & (uintptr_t)(align - 1)))
    align /= 2;
  return align;
}

static cudaDataType_t cudaTypeOf(embrtDtype dtype) {
  switch (dtype) {
  case EMBRT_F16:
    return CUDA_R_16F;
  case EMBRT_BF16:
    return CUDA_R_16BF;
  default:
    return CUDA_R_32F;
  }
}

static cublasLtEpilogue_t epilogueOf(const embrtGemmArgs *a) {
  int bias = a->bias != NULL;
  switch (a->activation) {
  case EMBRT_ACTIVATION_RELU:
    return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  case EMBRT_ACTIVATION_GELU_TANH:
    return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  default: // none, or sigmoid as a second pass
    return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
}

static void makeKey(const embrtGemmArgs *a, int64_t *key) {
  int64_t k[kKeyFields] = {a->dtype,
                           a->outputDtype,
                           a->transA,
                           a->transB,
                           (int64_t)epilogueOf(a),
                           a->beta != 0.0f,
                           a->batchSize,
                           a->m,
                           a->n,
                           a->k,
                           a->lda,
                           a->ldb,
                           a->ldc,
                           a->strideA,
                           a->strideB,
                           a->strideC,
                           alignmentOf(a->a),
                           alignmentOf(a->b),
                           alignmentOf(a->output),
                           a->bias ? alignmentOf(a->bias) : 0};
  memcpy(key, k, sizeof k);
}

/// A layout of `rows` x `cols` (column-major, leading dimension `ld`) with
/// `batch` matrices `stride` elements apart.
static cublasStatus_t initLayout(cublasLtMatrixLayoutOpaque_t *layout,
                                 cudaDataType_t type, int64_t rows,
                                 int64_t cols, int64_t ld, int64_t batch,
                                 int64_t stride) {
  cublasStatus_t s = cublasLtMatrixLayoutInit(layout, type, (uint64_t)rows,
                                              (uint64_t)cols, ld);
  if (s != CUBLAS_STATUS_SUCCESS || batch <= 1)
    return s;
  int32_t count = (int32_t)batch;
  s = cublasLtMatrixLayoutSetAttribute(
      layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
  if (s != CUBLAS_STATUS_SUCCESS)
    return s;
  return cublasLtMatrixLayoutSetAttribute(
      layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
      sizeof stride);
}

/// Fills `p` for `a`: its descriptors, then the heuristic's first choice.
static embrtStatus makePlan(embrtLaunchEnv *env, struct embrtCudaGemmState *g,
                            const embrtGemmArgs *a, Plan *p) {
  p->used = 0;
  cudaDataType_t in = cudaTypeOf(a->dtype), out = cudaTypeOf(a->outputDtype);
  EMBRT_TRY(embrtCublasCheck(
      env, cublasLtMatmulDescInit(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
      "gemm: cublasLtMatmulDescInit"));
  cublasOperation_t opA = a->transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = a->transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasLtEpilogue_t epilogue = epilogueOf(a);
  EMBRT_TRY(embrtCublasCheck(
      env,
      cublasLtMatmulDescSetAttribute(&p->desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                     &opA, sizeof opA),
      "gemm: setting transa"));
  EMBRT_TRY(embrtCublasCheck(
      env,
      cublasLtMatmulDescSetAttribute(&p->desc, CUBLASLT_MATMUL_DESC_TRANSB,
                                     &opB, sizeof opB),
      "gemm: setting transb"));
  EMBRT_TRY(embrtCublasCheck(
      env,
      cublasLtMatmulDescSetAttribute(&p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                     &epilogue, sizeof epilogue),
      "gemm: setting the epilogue"));
  if (a->bias) {
    // The heuristic reads the bias pointer's alignment.
    EMBRT_TRY(embrtCublasCheck(env,
                               cublasLtMatmulDescSetAttribute(
                                   &p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                   &a->bias, sizeof a->bias),
                               "gemm: setting the bias pointer"));
  }
  // cuBLASLt's A is our B, its B our A (see the banner).
  EMBRT_TRY(embrtCublasCheck(
      env,
      initLayout(&p->layoutA, in, a->transB ? a->k : a->n,
                 a->transB ? a->n : a->k, a->ldb, a->batchSize, a->strideB),
      "gemm: the layout of b"));
  EMBRT_TRY(embrtCublasCheck(
      env,
      initLayout(&p->layoutB, in, a->transA ? a->m : a->k,
                 a->transA ? a->k : a->m, a->lda, a->batchSize, a->strideA),
      "gemm: the layout of a"));
  EMBRT_TRY(embrtCublasCheck(env,
                             initLayout(&p->layoutC, out, a->n, a->m, a->ldc,
                                        a->batchSize, a->strideC),
                             "gemm: the layout of the output"));

  cublasLtMatmulPreferenceOpaque_t pref;
  EMBRT_TRY(embrtCublasCheck(env, cublasLtMatmulPreferenceInit(&pref),
                             "gemm: cublasLtMatmulPreferenceInit"));
  uint64_t workspace = kWorkspaceBytes;
  EMBRT_TRY(
      embrtCublasCheck(env,
                       cublasLtMatmulPreferenceSetAttribute(
                           &pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                           &workspace, sizeof workspace),
                       "gemm: setting the workspace limit"));
  const struct {
    cublasLtMatmulPreferenceAttributes_t attr;
    const void *ptr;
  } aligns[] = {{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, a->b},
                {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, a->a},
                {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, a->output},
                {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, a->output}};
  for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; ++i) {
    uint32_t bytes = (uint32_t)alignmentOf(aligns[i].ptr);
    EMBRT_TRY(embrtCublasCheck(env,
                               cublasLtMatmulPreferenceSetAttribute(
                                   &pref, aligns[i].attr, &bytes, sizeof bytes),
                               "gemm: setting an alignment"));
  }
  cublasLtMatmulHeuristicResult_t result;
  int found = 0;
  memset(&result, 0, sizeof result);
  EMBRT_TRY(embrtCublasCheck(
      env,
      cublasLtMatmulAlgoGetHeuristic(g->handle, &p->desc, &p->layoutA,
                                     &p->layoutB, &p->layoutC, &p->layoutC,
                                     &pref, 1, &result, &found),
      "gemm: cublasLtMatmulAlgoGetHeuristic"));
  if (found < 1)
    return embrtLaunchError(
        env, EMBRT_UNSUPPORTED,
        "gemm: cuBLASLt has no algorithm for %s inputs and %s output, "
        "batch %lld, m %lld n %lld k %lld, transA %d transB %d, epilogue %d",
        embrtDtypeName(a->dtype), embrtDtypeName(a->outputDtype),
        (long long)a->batchSize, (long long)a->m, (long long)a->n,
        (long long)a->k, a->transA, a->transB, (int)epilogue);
  p->algo = result.algo;
  p->used = 1;
  return EMBRT_OK;
}

/// The plan of `a`: a cached one, or a new one in the next slot.
static embrtStatus findPlan(embrtLaunchEnv *env, struct embrtCudaGemmState *g,
                            const embrtGemmArgs *a, Plan **out) {
  int64_t key[kKeyFields];
  makeKey(a, key);
  for (int i = 0; i < kPlans; ++i)
    if (g->plans[i].used && !memcmp(g->plans[i].key, key, sizeof key)) {
      *out = &g->plans[i];
      return EMBRT_OK;
    }
  Plan *p = &g->plans[g->next];
  g->next = (g->next + 1) % kPlans;
  EMBRT_TRY(makePlan(env, g, a, p));
  memcpy(p->key, key, sizeof key);
  *out = p;
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// The op
//===----------------------------------------------------------------------===//

embrtStatus embrtCudaGemm(embrtContext *ctx, const embrtGemmArgs *a) {
  embrtLaunchEnv *env = &embrtCudaStateOf(ctx)->env;
  EMBRT_TRY(
      embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal), "gemm: cudaSetDevice"));
  if (a->k == 0)
    return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                         "gemm: k is 0; cuBLASLt takes no empty reduction "
                         "(the CPU backend writes the epilogue of zero)");
  int sigmoid = a->activation == EMBRT_ACTIVATION_SIGMOID;
  struct embrtCudaGemmState *g = NULL;
  EMBRT_TRY(ensureState(ctx, &g));
  Plan *p = NULL;
  embrtStatus status = findPlan(env, g, a, &p);
  if (status != EMBRT_OK)
    return failed(ctx, status);
  if (a->bias) {
    status = embrtCublasCheck(env,
                              cublasLtMatmulDescSetAttribute(
                                  &p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                  &a->bias, sizeof a->bias),
                              "gemm: setting the bias pointer");
    if (status != EMBRT_OK)
      return failed(ctx, status);
  }
  status = embrtCublasCheck(
      env,
      cublasLtMatmul(g->handle, &p->desc, &a->alpha, a->b, &p->layoutA, a->a,
                     &p->layoutB, &a->beta, a->output, &p->layoutC, a->output,
                     &p->layoutC, &p->algo, g->workspace, kWorkspaceBytes,
                     (cudaStream_t)env->stream),
      "gemm: cublasLtMatmul");
  if (status != EMBRT_OK)
    return failed(ctx, status);
  if (!sigmoid)
    return EMBRT_OK;
  // The pass covers the output's elements and nothing between them: one
  // launch for a contiguous output, else one a batch (rows packed) or one a
  // row (a padded leading dimension).
  size_t os = embrtDtypeSize(a->outputDtype);
  int packedRows = a->ldc == a->n;
  int packed = packedRows && (a->batchSize == 1 || a->strideC == a->m * a->n);
  int64_t pieces = packed ? 1 : packedRows ? a->batchSize : a->batchSize * a->m;
  int64_t length = packed       ? a->batchSize * a->m * a->n
                   : packedRows ? a->m * a->n
                                : a->n;
  for (int64_t i = 0; i < pieces && status == EMBRT_OK; ++i) {
    int64_t b = packedRows ? i : i / a->m, r = packedRows ? 0 : i % a->m;
    char *first =
        (char *)a->output + (size_t)(b * a->strideC + r * a->ldc) * os;
    embrtElementwiseArgs e;
    memset(&e, 0, sizeof e);
    e.structSize = sizeof e;
    e.dtype = a->outputDtype;
    e.numElements = length;
    e.isUnary = 1;
    e.unaryOp = EMBRT_UNARY_SIGMOID;
    e.a = first;
    e.output = first;
    status = embrtCudaLaunchElementwise(env, &e);
  }
  return status == EMBRT_OK ? EMBRT_OK : failed(ctx, status);
}
