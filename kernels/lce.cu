//===- kernels/lce.cu - Linear compression through cuBLAS ------*- CUDA -*-===//
//
// emb.lce: out[b] = w[M, K] @ x[b][K, N] for every b, as one cuBLAS
// strided-batched GEMM (cublasGemmStridedBatchedEx) with f32 compute and
// f32, f16 or bf16 operands. No kernel of its own.
//
// cuBLAS is column-major. A row-major [R, C] matrix is the column-major
// [C, R] matrix, so the row-major product out[b] = w @ x[b] is computed as
// the column-major out[b]^T (N x M) = x[b]^T (N x K) @ w^T (K x M): A = x[b]
// with lda = N and stride K * N, B = w with ldb = K and stride 0, C = out[b]
// with ldc = N and stride M * N.
//
// cuBLAS runs on the launch environment's handle (env->blasHandle, bound to
// env->stream; the runtime's CUDA backend creates it on a context's first
// lce call) with the caller's workspace (cublasSetWorkspace): the launcher
// allocates nothing. CUBLAS_COMPUTE_32F keeps f32 operands in full
// f32 (no TF32) unless NVIDIA_TF32_OVERRIDE says otherwise.
//
//===----------------------------------------------------------------------===//

#include "kernels/launch.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <limits.h>

namespace {

/// Workspace cuBLAS asks for on the device: 32 MiB on Hopper, 4 MiB before
/// (the cuBLAS documentation's recommendation).
size_t blasWorkspaceBytes(const embrtLaunchEnv *env) {
  return env->ccMajor >= 9 ? (size_t)32 << 20 : (size_t)4 << 20;
}

cudaDataType_t cudaTypeOf(embrtDtype dtype) {
  switch (dtype) {
  case EMBRT_F16:
    return CUDA_R_16F;
  case EMBRT_BF16:
    return CUDA_R_16BF;
  default:
    return CUDA_R_32F;
  }
}

} // namespace

extern "C" embrtStatus embrtCudaLceWorkspaceSize(embrtLaunchEnv *env,
                                                 const embrtLceArgs *args,
                                                 size_t *bytes) {
  *bytes = blasWorkspaceBytes(env);
  return EMBRT_OK;
}

extern "C" embrtStatus embrtCudaLaunchLce(embrtLaunchEnv *env,
                                          const embrtLceArgs *a) {
  if (a->m > INT_MAX || a->n > INT_MAX || a->k > INT_MAX ||
      a->batchSize > INT_MAX)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "lce: batchSize, m, k and n must fit in int for "
                            "cuBLAS, got %lld, %lld, %lld and %lld",
                            (long long)a->batchSize, (long long)a->m,
                            (long long)a->k, (long long)a->n);
  size_t outBytes =
      (size_t)(a->batchSize * a->m * a->n) * embrtDtypeSize(a->dtype);
  if (a->k == 0) // an empty sum: zeros, without asking cuBLAS
    return embrtCudaCheck(
        env, cudaMemsetAsync(a->output, 0, outBytes, (cudaStream_t)env->stream),
        "lce: cudaMemsetAsync");

  if (!env->blasHandle)
    return embrtLaunchError(env, EMBRT_INVALID_ARGUMENT,
                            "lce: the launch environment has no cuBLAS "
                            "handle");
  cublasHandle_t blas = static_cast<cublasHandle_t>(env->blasHandle);
  embrtStatus status = embrtCublasCheck(
      env, cublasSetWorkspace(blas, a->workspace, a->workspaceBytes),
      "lce: cublasSetWorkspace");
  if (status != EMBRT_OK)
    return status;

  const float alpha = 1.0f, beta = 0.0f;
  cudaDataType_t type = cudaTypeOf(a->dtype);
  int M = (int)a->m, N = (int)a->n, K = (int)a->k;
  return embrtCublasCheck(
      env,
      cublasGemmStridedBatchedEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K,
                                 &alpha, a->x, type, N, (long long)K * N, a->w,
                                 type, K, 0, &beta, a->output, type, N,
                                 (long long)M * N, (int)a->batchSize,
                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
      "lce: cublasGemmStridedBatchedEx");
}
