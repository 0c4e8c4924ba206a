//===- kernels/tbe.cu - Table-batched embedding forward on CUDA -*- C++ -*-===//
//
// The forward of emb.tbe over dense tables (f32, f16, bf16): the kernel of
// kernels/tbe_forward.cuh instantiated per table type, and the entry points,
// which hand the features of quantized tables to kernels/tbe_quantized.cu
// and offsets read as a mask to kernels/tbe_masked.cu.
//
//===----------------------------------------------------------------------===//

#include "kernels/tbe_forward.cuh"

namespace {

//===----------------------------------------------------------------------===//
// Instantiations: three table types, two parameter-block sizes, stages of 6
// and 8 rows, three ways of reading ids; and split bags (6-row stages,
// small block, 32-bit positions)
//===----------------------------------------------------------------------===//

template <typename T, int kCap, int kRows> Kernel<kCap> kernelForIds(int ids) {
  return ids == 4   ? tbeForwardKernel<T, kCap, kRows, 4>
         : ids == 8 ? tbeForwardKernel<T, kCap, kRows, 8>
                    : tbeForwardKernel<T, kCap, kRows, 0>;
}

template <typename T, int kCap>
Kernel<kCap> kernelForRows(int rows, int ids, bool split) {
  // Split bags: the small parameter block, 6-row stages, 32-bit positions
  // (launchSplitsLog2 asks for no others).
  if constexpr (kCap == kSmallCap)
    if (split)
      return ids == 8 ? tbeForwardKernel<T, kCap, 6, 8, true>
                      : tbeForwardKernel<T, kCap, 6, 4, true>;
  return rows == 8 ? kernelForIds<T, kCap, 8>(ids)
                   : kernelForIds<T, kCap, 6>(ids);
}

/// The kernel for the lookup's table type, stage rows (6 or 8, the
/// configuration table's only values: test/Kernels/tbe_config.c), ids
/// (Ids: 4, 8, 0) and split bags or not; `which` is EMBRT_PRECISION_DENSE
/// (launch's chooser).
template <int kCap>
Kernel<kCap> kernelFor(const embrtTbeArgs *a, int which, int rows, int ids,
                       bool split) {
  if (a->tableDtype == EMBRT_F32)
    return kernelForRows<float, kCap>(rows, ids, split);
  if (a->tableDtype == EMBRT_F16)
    return kernelForRows<__half, kCap>(rows, ids, split);
  return kernelForRows<__nv_bfloat16, kCap>(rows, ids, split);
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points (called by runtime/cuda/)
//===----------------------------------------------------------------------===//

extern "C" embrtStatus EMB_TBE_ENTRY(embrtCudaTbeWorkspaceSize)(
    embrtLaunchEnv *env, const embrtTbeArgs *args, size_t *bytes) {
  // Each launch's metadata (launchesBefore), beyond kLargeCap features; then
  // the flag of masked offsets.
  *bytes = stagedMetaBytes(args) + (args->maskedOffsets ? kMaskFlagBytes : 0);
  return EMBRT_OK;
}

extern "C" embrtStatus
EMB_TBE_ENTRY(embrtCudaLaunchTbeForward)(embrtLaunchEnv *env,
                                         const embrtTbeArgs *args) {
  const int64_t F = args->numFeatures, B = args->batchSize;
  // Masked offsets check every id of a feature, in a bag or not: even a
  // lookup of no bags (kernels/tbe_masked.cu).
  const bool masked = args->maskedOffsets != 0;
  if (F == 0 || (B == 0 && !(masked && args->numIndices > 0)))
    return EMBRT_OK;

  int64_t maxDim = 0, sumDims = 0;
  for (int64_t f = 0; f < F; ++f) {
    int64_t d = args->tableDims[args->featureTables[f]];
    maxDim = d > maxDim ? d : maxDim;
    sumDims += d;
  }
  if (args->configId >= TBE_NUM_CONFIGS)
    return embrtLaunchError(env, EMBRT_INVALID_ARGUMENT,
                            "tbe: configId is %lld, must be -1 or below %lld",
                            (long long)args->configId,
                            (long long)TBE_NUM_CONFIGS);
  const TbeShape shape = {args->tableDtype, maxDim,
                          B > 0 ? args->numIndices / (F * B) : 0, F * B};
  const TbeConfig *cfg = tbeGetConfig(tbeResolveConfig(&shape, args->configId));
  if (sumDims > INT32_MAX)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "tbe: %lld output columns do not fit 32 bits",
                            (long long)sumDims);

  long long outStride =
      args->pooling == EMBRT_POOLING_NONE ? (long long)maxDim : sumDims;
  // Masked offsets: the check sets the flag before the usual launches read
  // it, and the masked lookup runs after them (kernels/tbe_masked.cu).
  unsigned *flag = nullptr;
  if (masked) {
    const size_t at = stagedMetaBytes(args);
    if (!args->workspace || args->workspaceBytes < at + kMaskFlagBytes)
      return embrtLaunchError(env, EMBRT_INVALID_ARGUMENT,
                              "tbe: masked offsets need %zu bytes of "
                              "workspace, got %zu",
                              at + kMaskFlagBytes, args->workspaceBytes);
    flag =
        reinterpret_cast<unsigned *>(static_cast<char *>(args->workspace) + at);
    embrtStatus status = tbeLaunchMaskCheck(env, args, flag);
    if (status != EMBRT_OK)
      return status;
  }
  const int launches = launchesBefore(args, EMBRT_PRECISION_FP8 + 1);
  if (launchesBefore(args, EMBRT_PRECISION_INT8) == 1) { // dense features
    embrtStatus status =
        F <= kSmallCap
            ? launch<kSmallCap>(env, args, cfg, outStride,
                                EMBRT_PRECISION_DENSE, kernelFor, flag)
            : launch<kLargeCap>(env, args, cfg, outStride,
                                EMBRT_PRECISION_DENSE, kernelFor, flag);
    if (status != EMBRT_OK)
      return status;
  }
  if (launches > launchesBefore(args, EMBRT_PRECISION_INT8)) {
    embrtStatus status = tbeLaunchQuantized(env, args, cfg, outStride, flag);
    if (status != EMBRT_OK)
      return status;
  }
  return flag ? tbeLaunchMasked(env, args, cfg, outStride, flag) : EMBRT_OK;
}
