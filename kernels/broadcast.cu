//===- kernels/broadcast.cu - Broadcast of user rows on CUDA ---*- CUDA -*-===//
//
// emb.broadcast (out[b] = ro[c2u[b]], any dtype, a byte copy) and
// emb.broadcast_add (out[b] = ro[c2u[b]] + nro[b] for float dtypes, added in
// the compute type of kernels/common/convert.cuh and rounded once).
//
// Both are grid-stride loops over the output in the widest unit the rows and
// pointers allow: 16-byte vectors when every row is a multiple of 16 bytes
// and the buffers are 16-byte aligned, else 8, 4, 2 or 1 bytes (broadcast)
// or single elements (broadcast_add).
//
// A cand_to_user entry outside [0, U) is recorded as
// EMBRT_DEVERR_BAD_CAND_TO_USER (reported by embrtSynchronize); its row gets
// zeros (broadcast) or nro alone (broadcast_add): the bad user contributes
// nothing.
//
//===----------------------------------------------------------------------===//

#include "kernels/common/convert.cuh"
#include "kernels/common/device_errors.cuh"
#include "kernels/common/index_load.cuh"
#include "kernels/launch.h"

#include <cuda_runtime.h>
#include <stdint.h>

namespace {

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

using embrt::IndexLoad;
using embrt::loadIndex;

/// The user of candidate b, or -1 after recording a bad one (the thread of
/// the row's first unit records, so each bad row is offered once).
__device__ __forceinline__ long long userOf(const void *candToUser, bool is64,
                                            long long b, long long numUsers,
                                            bool firstOfRow,
                                            embrtDeviceErrors *errors) {
  long long u = loadIndex<IndexLoad::Plain>(candToUser, is64, b);
  if (u >= 0 && u < numUsers)
    return u;
  if (firstOfRow)
    embrtDeviceRecordError(errors, EMBRT_DEVERR_BAD_CAND_TO_USER, -1, -1, b, u,
                           numUsers);
  return -1;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/*
 * broadcastKernel<V>: out[b, j] = ro[c2u[b], j] in units V of 1..16 bytes.
 * One thread moves one unit per grid-stride step over the B * unitsPerRow
 * units; CTAs of EMBRT_CUDA_THREADS threads, grid embrtCudaGridSize. Assumes
 * ro and out aligned to sizeof(V) and rows a whole number of units. No
 * shared memory.
 */
template <typename V>
__global__ void broadcastKernel(const V *__restrict__ ro,
                                const void *__restrict__ candToUser, bool is64,
                                long long numUsers, long long unitsPerRow,
                                long long batch, V *__restrict__ out,
                                embrtDeviceErrors *errors) {
  long long total = batch * unitsPerRow;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < total; i += (long long)gridDim.x * blockDim.x) {
    long long b = i / unitsPerRow, j = i - b * unitsPerRow;
    long long u = userOf(candToUser, is64, b, numUsers, j == 0, errors);
    out[i] = u >= 0 ? ro[u * unitsPerRow + j] : V{};
  }
}

/*
 * broadcastAddKernel<T, N>: out[b, j] = ro[c2u[b], j] + nro[b, j] on packs of
 * N elements of T (16 bytes when the rows and buffers allow, else N = 1).
 * One thread adds one pack per grid-stride step over the B * packsPerRow
 * packs, in the compute type, rounding once; CTAs and grid as above.
 */
template <typename T, int N>
__global__ void broadcastAddKernel(const embrt::Pack<T, N> *__restrict__ ro,
                                   const void *__restrict__ candToUser,
                                   bool is64, long long numUsers,
                                   long long packsPerRow, long long batch,
                                   const embrt::Pack<T, N> *__restrict__ nro,
                                   embrt::Pack<T, N> *__restrict__ out,
                                   embrtDeviceErrors *errors) {
  long long total = batch * packsPerRow;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       i < total; i += (long long)gridDim.x * blockDim.x) {
    long long b = i / packsPerRow, j = i - b * packsPerRow;
    long long u = userOf(candToUser, is64, b, numUsers, j == 0, errors);
    embrt::Pack<T, N> y = nro[i];
    if (u < 0) { // the bad user contributes nothing
      out[i] = y;
      continue;
    }
    embrt::Pack<T, N> x = ro[u * packsPerRow + j], r;
#pragma unroll
    for (int k = 0; k < N; ++k)
      r.v[k] = embrt::fromCompute<T>(embrt::toCompute(x.v[k]) +
                                     embrt::toCompute(y.v[k]));
    out[i] = r;
  }
}

//===----------------------------------------------------------------------===//
// Instantiations and host helpers
//===----------------------------------------------------------------------===//

/// The widest power of two up to 16 dividing `bytes` and every address.
size_t widestUnit(size_t bytes, const void *a, const void *b, const void *c) {
  size_t unit = 16;
  while (unit > 1 && (bytes % unit || (uintptr_t)a % unit ||
                      (uintptr_t)b % unit || (uintptr_t)c % unit))
    unit /= 2;
  return unit;
}

template <typename V>
void launchBroadcast(embrtLaunchEnv *env, const embrtBroadcastArgs *a,
                     size_t rowBytes) {
  long long units = (long long)(rowBytes / sizeof(V));
  broadcastKernel<V><<<embrtCudaGridSize(env, a->batchSize * units),
                       EMBRT_CUDA_THREADS, 0, (cudaStream_t)env->stream>>>(
      static_cast<const V *>(a->ro), a->candToUser, a->indexDtype == EMBRT_I64,
      a->numUsers, units, a->batchSize, static_cast<V *>(a->output),
      env->deviceErrors);
}

template <typename T, int N>
void launchAdd(embrtLaunchEnv *env, const embrtBroadcastArgs *a) {
  using P = embrt::Pack<T, N>;
  long long packs = a->rowElements / N;
  broadcastAddKernel<T, N>
      <<<embrtCudaGridSize(env, a->batchSize * packs), EMBRT_CUDA_THREADS, 0,
         (cudaStream_t)env->stream>>>(
          static_cast<const P *>(a->ro), a->candToUser,
          a->indexDtype == EMBRT_I64, a->numUsers, packs, a->batchSize,
          static_cast<const P *>(a->nro), static_cast<P *>(a->output),
          env->deviceErrors);
}

/// broadcast_add of one dtype: 16-byte packs when possible.
template <typename T>
void launchAddOf(embrtLaunchEnv *env, const embrtBroadcastArgs *a) {
  constexpr int kWide = 16 / sizeof(T);
  size_t rowBytes = (size_t)a->rowElements * sizeof(T);
  if (widestUnit(rowBytes, a->ro, a->nro, a->output) == 16)
    launchAdd<T, kWide>(env, a);
  else
    launchAdd<T, 1>(env, a);
}

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

extern "C" embrtStatus embrtCudaLaunchBroadcast(embrtLaunchEnv *env,
                                                const embrtBroadcastArgs *a) {
  size_t rowBytes = (size_t)a->rowElements * embrtDtypeSize(a->dtype);
  switch (widestUnit(rowBytes, a->ro, a->output, a->output)) {
  case 16:
    launchBroadcast<uint4>(env, a, rowBytes);
    break;
  case 8:
    launchBroadcast<uint2>(env, a, rowBytes);
    break;
  case 4:
    launchBroadcast<unsigned int>(env, a, rowBytes);
    break;
  case 2:
    launchBroadcast<unsigned short>(env, a, rowBytes);
    break;
  default:
    launchBroadcast<unsigned char>(env, a, rowBytes);
    break;
  }
  return embrtCudaCheck(env, cudaGetLastError(), "broadcast: kernel launch");
}

extern "C" embrtStatus
embrtCudaLaunchBroadcastAdd(embrtLaunchEnv *env, const embrtBroadcastArgs *a) {
  switch (a->dtype) {
  case EMBRT_F32:
    launchAddOf<float>(env, a);
    break;
  case EMBRT_F16:
    launchAddOf<__half>(env, a);
    break;
  case EMBRT_BF16:
    launchAddOf<__nv_bfloat16>(env, a);
    break;
  case EMBRT_F64:
    launchAddOf<double>(env, a);
    break;
  default:
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "broadcast_add: dtype %d has no kernel",
                            (int)a->dtype);
  }
  return embrtCudaCheck(env, cudaGetLastError(),
                        "broadcast_add: kernel launch");
}
