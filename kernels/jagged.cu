//===- kernels/jagged.cu - Jagged rows to padded on CUDA -------*- CUDA -*-===//
//
// emb.jagged_to_padded: padded[u, l] = values[offsets[u] + l] for l below
// min(offsets[u+1] - offsets[u], Lk), the padding value after it; lengths[u]
// the rows kept. A byte copy: the dtype only sets the padding's bytes, which
// the backend passes already converted (one element, replicated here).
//
// A user whose offsets are out of order or outside 0..N is recorded as
// EMBRT_DEVERR_BAD_JAGGED_OFFSETS (reported by embrtSynchronize); its rows
// get padding and its length 0.
//
//===----------------------------------------------------------------------===//

#include "kernels/common/device_errors.cuh"
#include "kernels/common/index_load.cuh"
#include "kernels/launch.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

namespace {

using embrt::IndexLoad;
using embrt::loadIndex;

/*
 * jaggedToPaddedKernel<V>: one thread writes one unit V (1..16 bytes) of the
 * padded output per grid-stride step over the U * Lk * unitsPerRow units;
 * CTAs of EMBRT_CUDA_THREADS threads, grid embrtCudaGridSize. Each step reads
 * its user's two offsets (L1-resident across a user's units). The thread of
 * a user's first unit records a bad user and writes lengths[u]. Assumes
 * values and padded aligned to sizeof(V) and rows a whole number of units.
 * No shared memory.
 */
template <typename V>
__global__ void
jaggedToPaddedKernel(const V *__restrict__ values, long long numValues,
                     const void *__restrict__ offsets, bool is64,
                     long long numUsers, long long maxLength,
                     long long unitsPerRow, V padding, V *__restrict__ padded,
                     void *lengths, embrtDeviceErrors *errors) {
  // A row of zero bytes (D = 0): one step a user, for its length alone.
  long long perUser = unitsPerRow ? maxLength * unitsPerRow : 1;
  long long total = numUsers * perUser;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < total; i += (long long)gridDim.x * blockDim.x) {
    long long u = i / perUser, r = i - u * perUser;
    long long l = r / unitsPerRow, j = r - l * unitsPerRow;
    long long begin = loadIndex<IndexLoad::Plain>(offsets, is64, u);
    long long end = loadIndex<IndexLoad::Plain>(offsets, is64, u + 1);
    long long kept = 0;
    if (begin >= 0 && begin <= end && end <= numValues)
      kept = end - begin < maxLength ? end - begin : maxLength;
    else if (r == 0)
      embrtDeviceRecordError(errors, EMBRT_DEVERR_BAD_JAGGED_OFFSETS, -1, -1,
                             begin < 0 ? u : u + 1, begin < 0 ? begin : end,
                             numValues);
    if (r == 0 && lengths) {
      if (is64)
        static_cast<long long *>(lengths)[u] = kept;
      else
        static_cast<int *>(lengths)[u] = (int)kept;
    }
    if (unitsPerRow)
      padded[i] = l < kept ? values[(begin + l) * unitsPerRow + j] : padding;
  }
}

/// The widest power of two up to 16 dividing `bytes` and both addresses.
size_t widestUnit(size_t bytes, const void *a, const void *b) {
  size_t unit = 16;
  while (unit > 1 &&
         (bytes % unit || (uintptr_t)a % unit || (uintptr_t)b % unit))
    unit /= 2;
  return unit;
}

template <typename V>
void launch(embrtLaunchEnv *env, const embrtJaggedToPaddedArgs *a,
            size_t rowBytes, const unsigned char *pattern) {
  long long units = (long long)(rowBytes / sizeof(V));
  V padding;
  memcpy(&padding, pattern, sizeof(V));
  jaggedToPaddedKernel<V>
      <<<embrtCudaGridSize(env,
                           a->numUsers * (units ? a->maxLength * units : 1)),
         EMBRT_CUDA_THREADS, 0, (cudaStream_t)env->stream>>>(
          static_cast<const V *>(a->values), a->numValues, a->offsets,
          a->indexDtype == EMBRT_I64, a->numUsers, a->maxLength, units, padding,
          static_cast<V *>(a->padded), a->lengths, env->deviceErrors);
}

} // namespace

extern "C" embrtStatus
embrtCudaLaunchJaggedToPadded(embrtLaunchEnv *env,
                              const embrtJaggedToPaddedArgs *a,
                              const void *paddingElement) {
  size_t elementBytes = embrtDtypeSize(a->dtype);
  size_t rowBytes = (size_t)a->rowElements * elementBytes;
  if (elementBytes == 0 || 16 % elementBytes != 0)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "jagged_to_padded: dtype %d has no kernel",
                            (int)a->dtype);
  // The padding element replicated over the widest unit (16 bytes).
  unsigned char pattern[16];
  for (size_t k = 0; k < sizeof pattern; k += elementBytes)
    memcpy(pattern + k, paddingElement, elementBytes);
  switch (widestUnit(rowBytes, a->values, a->padded)) {
  case 16:
    launch<uint4>(env, a, rowBytes, pattern);
    break;
  case 8:
    launch<uint2>(env, a, rowBytes, pattern);
    break;
  case 4:
    launch<unsigned int>(env, a, rowBytes, pattern);
    break;
  default:
    launch<unsigned short>(env, a, rowBytes, pattern);
    break;
  }
  return embrtCudaCheck(env, cudaGetLastError(),
                        "jagged_to_padded: kernel launch");
}
