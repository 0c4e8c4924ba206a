//===- kernels/tbe_quantized.cu - The TBE forward over quantized tables -*- C++
//-*-===//
//
// The forward of emb.tbe for the features whose tables are quantized
// (embrtTablePrecision int8, int4, int2, fp8): the kernel of
// kernels/tbe_forward.cuh over Packed<P> rows, one launch a precision, each
// after the dense features' launch (kernels/tbe.cu) on the same stream. The
// rows are dequantised in registers as they are summed, in f32, exactly as
// the CPU backend reads them (runtime/quantize.h); no dequantised copy of a
// table is made. A translation unit of its own so that the build compiles
// it beside the dense kernels.
//
//===----------------------------------------------------------------------===//

#include "kernels/tbe_forward.cuh"

namespace {

template <int P, int kCap> Kernel<kCap> packedKernelForIds(int ids) {
  return ids == 4   ? tbeForwardKernel<Packed<P>, kCap, kPackedRows, 4>
         : ids == 8 ? tbeForwardKernel<Packed<P>, kCap, kPackedRows, 8>
                    : tbeForwardKernel<Packed<P>, kCap, kPackedRows, 0>;
}

/// The kernel for precision `which` and ids (Ids: 4, 8, 0); the stage rows
/// are kPackedRows and bags are not split (launch's chooser; Shared::
/// splitsLog2 is 0 for packed rows).
template <int kCap>
Kernel<kCap> packedKernelFor(const embrtTbeArgs *a, int which, int rows,
                             int ids, bool split) {
  switch (which) {
  case EMBRT_PRECISION_INT8:
    return packedKernelForIds<EMBRT_PRECISION_INT8, kCap>(ids);
  case EMBRT_PRECISION_INT4:
    return packedKernelForIds<EMBRT_PRECISION_INT4, kCap>(ids);
  case EMBRT_PRECISION_INT2:
    return packedKernelForIds<EMBRT_PRECISION_INT2, kCap>(ids);
  default:
    return packedKernelForIds<EMBRT_PRECISION_FP8, kCap>(ids);
  }
}

/// The launch configuration of precision `which`'s features: the caller's
/// row when it asked for one, else the selection over the packed rows of
/// the widest such feature (tbeSelectPackedConfig), not the dense rows
/// `cfg` was chosen for.
const TbeConfig *packedConfig(const embrtTbeArgs *a, const TbeConfig *cfg,
                              int which) {
  if (a->configId >= 0 || a->batchSize <= 0)
    return cfg;
  int64_t features = 0, chunks = 0;
  for (int64_t f = 0; f < a->numFeatures; ++f) {
    if (precisionOf(a, f) != which)
      continue;
    ++features;
    int c = packedChunks(which, (int)a->tableDims[a->featureTables[f]]);
    chunks = c > chunks ? c : chunks;
  }
  const int64_t bags = features * a->batchSize;
  const int64_t avgBagSize = a->numIndices / (a->numFeatures * a->batchSize);
  return tbeGetConfig(tbeSelectPackedConfig(chunks * packedVec(which), chunks,
                                            avgBagSize, bags));
}

} // namespace

embrtStatus tbeLaunchQuantized(embrtLaunchEnv *env, const embrtTbeArgs *a,
                               const TbeConfig *cfg, long long outStride,
                               const unsigned *maskFlag) {
  // A lane copies 16-byte (int2: 8-byte) chunks of the rows, which are
  // padded to EMBRT_QUANTIZED_ROW_ALIGNMENT bytes: the tables must start
  // at such a boundary too.
  for (int64_t f = 0; f < a->numFeatures; ++f) {
    int64_t t = a->featureTables[f];
    if (precisionOf(a, f) != EMBRT_PRECISION_DENSE &&
        (uintptr_t)a->tables[t] % EMBRT_QUANTIZED_ROW_ALIGNMENT != 0)
      return embrtLaunchError(
          env, EMBRT_INVALID_ARGUMENT,
          "tbe: quantized table %lld is at %p, which is not a multiple of "
          "%d bytes",
          (long long)t, a->tables[t], EMBRT_QUANTIZED_ROW_ALIGNMENT);
  }
  for (int which = EMBRT_PRECISION_INT8; which <= EMBRT_PRECISION_FP8;
       ++which) {
    if (launchesBefore(a, which + 1) == launchesBefore(a, which))
      continue; // no feature of this precision
    const TbeConfig *c = packedConfig(a, cfg, which);
    embrtStatus status =
        a->numFeatures <= kSmallCap
            ? launch<kSmallCap>(env, a, c, outStride, which,
                                packedKernelFor<kSmallCap>, maskFlag)
            : launch<kLargeCap>(env, a, c, outStride, which,
                                packedKernelFor<kLargeCap>, maskFlag);
    if (status != EMBRT_OK)
      return status;
  }
  return EMBRT_OK;
}
