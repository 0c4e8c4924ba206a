//===- kernels/common/index_load.cuh - Index operand loads -----*- CUDA -*-===//
//
// The one load of an element of an index operand (ids, offsets, lengths,
// cand_to_user): the runtime takes each as i32 or i64 (embrtDtype), and every
// kernel computes on it as a long long. Each call names how it loads, since
// the families read differently: the TBE forward touches each id once and
// streams it evict-first (L2 keeps table rows instead), the TBE backward and
// the Hopper IKBO LCE read through the read-only cache, the others load
// plainly and leave the choice of cache path to the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_COMMON_INDEX_LOAD_CUH
#define EMB_KERNELS_COMMON_INDEX_LOAD_CUH

#include <cuda_runtime.h>

namespace embrt {

/// How a kernel loads an index operand.
enum class IndexLoad {
  /// An ordinary global load (ld.global); the compiler may still take the
  /// read-only path where it proves the data unwritten.
  Plain,
  /// Through the read-only cache (__ldg, ld.global.nc).
  ReadOnly,
  /// Once and evict-first (__ldcs, ld.global.cs).
  Streaming,
};

/// Element i of an index array of T (int or long long), widened.
template <IndexLoad kLoad, typename T>
__device__ __forceinline__ long long loadIndex(const T *p, long long i) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "an i32 or i64 index");
  if constexpr (kLoad == IndexLoad::Streaming)
    return __ldcs(p + i);
  else if constexpr (kLoad == IndexLoad::ReadOnly)
    return __ldg(p + i);
  else
    return p[i];
}

/// Element i of the index operand at p: i64 where is64, else i32 widened.
/// The flag keeps the caller's type (bool, int) and is tested here, beside
/// the load (a conversion to bool at the call would be computed earlier and
/// move the kernels' instructions). A kernel that reads the pointer and the
/// flag from a struct it holds by reference (the TBE's argument block) tests
/// the flag and calls the typed load itself, so that the pointer is read
/// after the test.
template <IndexLoad kLoad, typename Flag>
__device__ __forceinline__ long long loadIndex(const void *p, Flag is64,
                                               long long i) {
  return is64 ? loadIndex<kLoad>(static_cast<const long long *>(p), i)
              : loadIndex<kLoad>(static_cast<const int *>(p), i);
}

} // namespace embrt

#endif // EMB_KERNELS_COMMON_INDEX_LOAD_CUH
