//===- kernels/common/device_errors.cuh - Device data errors ---*- CUDA -*-===//
//
// Device functions that write the embrtDeviceErrors record
// (kernels/common/device_errors.h), which embrtSynchronize reads back,
// reports and resets. Only the first fatal error is kept: the thread whose
// atomicCAS moves `code` from 0 fills the other fields; later ones return at
// once. The host reads the record only after the stream has drained, so the
// plain stores after the CAS need no fence. That thread also fills the
// record's host mirror (when it has one), `code` last after a system-scope
// fence, which embrtPollDeviceErrors reads while the stream runs.
//
// Kernels pass env->deviceErrors (device memory) as a kernel argument. A
// kernel that records an error still writes its whole output, with the bad
// input contributing nothing.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_COMMON_DEVICE_ERRORS_CUH
#define EMB_KERNELS_COMMON_DEVICE_ERRORS_CUH

#include "kernels/common/device_errors.h"

/// Writes where a recorded error happened into `r` (the record or its host
/// mirror); `code` is the caller's to write.
__device__ inline void embrtDeviceErrorWhere(embrtDeviceErrors *r, int feature,
                                             int table, long long bag,
                                             long long index, long long value,
                                             long long limit) {
  r->feature = feature;
  r->bag = bag;
  r->index = index;
  r->value = value;
  r->limit = limit;
  r->table = table;
}

/// Records a fatal data error (an embrtDeviceErrorCode) of table `table`
/// unless one is recorded already. See embrtDeviceErrorCode for the fields
/// each code uses; pass -1 for those it does not.
__device__ inline void
embrtDeviceRecordTableError(embrtDeviceErrors *errors, int code, int feature,
                            int table, long long bag, long long index,
                            long long value, long long limit) {
  if (atomicCAS(&errors->code, 0, code) != 0)
    return;
  embrtDeviceErrorWhere(errors, feature, table, bag, index, value, limit);
  embrtDeviceErrors *mirror = errors->hostMirror;
  if (mirror) {
    embrtDeviceErrorWhere(mirror, feature, table, bag, index, value, limit);
    __threadfence_system();
    *(volatile int *)&mirror->code = code;
  }
}

/// embrtDeviceRecordTableError for an error that names no table.
__device__ inline void embrtDeviceRecordError(embrtDeviceErrors *errors,
                                              int code, int feature,
                                              long long bag, long long index,
                                              long long value,
                                              long long limit) {
  embrtDeviceRecordTableError(errors, code, feature, -1, bag, index, value,
                              limit);
}

/// Records id `id` at position `index` of bag `bag` of feature `feature`,
/// outside table `table` of `rows` rows (EMBRT_BOUNDS_FATAL).
__device__ inline void embrtDeviceRecordBadId(embrtDeviceErrors *errors,
                                              int feature, int table,
                                              long long bag, long long index,
                                              long long id, long long rows) {
  embrtDeviceRecordTableError(errors, EMBRT_DEVERR_ID_OUT_OF_RANGE, feature,
                              table, bag, index, id, rows);
}

/// Counts `count` ids skipped under EMBRT_BOUNDS_WARNING. Aggregate per warp
/// or CTA before calling where many threads skip ids.
__device__ inline void embrtDeviceCountInvalidIds(embrtDeviceErrors *errors,
                                                  unsigned long long count) {
  if (count)
    atomicAdd(&errors->invalidIdCount, count);
}

#endif // EMB_KERNELS_COMMON_DEVICE_ERRORS_CUH
