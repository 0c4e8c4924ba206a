//===- kernels/common/device_errors.h - The device error record --*- C -*-===//
//
// Data errors that device code finds (an id outside its table under
// EMBRT_BOUNDS_FATAL, a bad offset, cand_to_user entry, user length or Adam
// step, a non-finite element of a table to quantize) cannot be returned from a
// kernel: kernels write them into this record, in device memory, through the
// functions of kernels/common/device_errors.cuh. The runtime's CUDA backend
// allocates one record a context (runtime/cuda/context.c), hands it to
// launchers in embrtLaunchEnv::deviceErrors (kernels/common/launch_env.h),
// and reads it back, reports and resets it in embrtSynchronize. The record
// points at a host mirror of its fatal part (page-locked, mapped), which the
// thread that records an error fills too, so that embrtPollDeviceErrors
// sees it by reading host memory: no copy, event or wait a poll.
//
// Plain C, so that the runtime's host code and CPU-side tests can include it.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_KERNELS_COMMON_DEVICE_ERRORS_H
#define EMB_KERNELS_COMMON_DEVICE_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

/// Errors found by device code. Device code records only the first fatal
/// error (the one that wins an atomicCAS on `code`), and counts warning-mode
/// bad ids.
typedef struct embrtDeviceErrors {
  /// Ids skipped under EMBRT_BOUNDS_WARNING.
  unsigned long long invalidIdCount;
  /// An embrtDeviceErrorCode, 0 if none.
  int code;
  /// Where it happened, as applicable (see embrtDeviceErrorCode).
  int feature;
  long long bag;
  long long index;
  /// The offending id / offset / user / length.
  long long value;
  /// The bound it broke.
  long long limit;
  /// The table of an out-of-range id, -1 if not known.
  int table;
  /// The host mirror (a device address of page-locked host memory) that the
  /// recording thread fills as well, `code` last, or NULL for none. Resets
  /// of the record stop before it (EMBRT_DEVICE_ERRORS_RESET_BYTES).
  struct embrtDeviceErrors *hostMirror;
} embrtDeviceErrors;

/// The bytes of a record from its start that a reset clears: every field but
/// hostMirror.
#define EMBRT_DEVICE_ERRORS_RESET_BYTES                                        \
  (sizeof(embrtDeviceErrors) - sizeof(struct embrtDeviceErrors *))

/// What device code found wrong, and which fields of embrtDeviceErrors say
/// where.
typedef enum embrtDeviceErrorCode {
  EMBRT_DEVERR_NONE = 0,
  /// feature, table, bag, index, value = id, limit = rows.
  EMBRT_DEVERR_ID_OUT_OF_RANGE = 1,
  /// feature, bag, value = offset, limit.
  EMBRT_DEVERR_BAD_OFFSETS = 2,
  /// index = b, value = user, limit = U.
  EMBRT_DEVERR_BAD_CAND_TO_USER = 3,
  /// index = u, value = length, limit = Lk.
  EMBRT_DEVERR_BAD_USER_LENGTH = 4,
  /// index = the offset's position, value = offset, limit = the values' rows
  /// (emb.jagged_to_padded).
  EMBRT_DEVERR_BAD_JAGGED_OFFSETS = 5,
  /// index = the length's position, value = the length (negative) or the
  /// offset it makes, limit = 0 or the largest offset the type holds
  /// (emb.lengths_to_offsets).
  EMBRT_DEVERR_BAD_LENGTHS = 6,
  /// value = the step, limit = 1 (an Adam step below 1: emb.tbe_backward).
  EMBRT_DEVERR_BAD_STEP = 7,
  /// A lookup with feature ends (embrtTbeArgs::featureEnds), in feature
  /// `feature`'s own numbers: index = the position in its own offsets
  /// (0..B), value = that offset, limit = its id count; bag = -1 when its
  /// last offset is not its id count; index = -1 when the feature end itself
  /// is out of order (value = the end, limit = N).
  EMBRT_DEVERR_BAD_FEATURE_OFFSETS = 8,
  /// A non-finite element of a dense table being quantized
  /// (embrtQuantizeTable): index = its row, limit = its column (the row's
  /// first non-finite one), value = its f32 bits.
  EMBRT_DEVERR_NON_FINITE = 9,
  /// A rowwise Adagrad fp8 state's table scale not positive and finite
  /// (emb.tbe_backward): index = the table, value = the scale's f32 bits.
  EMBRT_DEVERR_BAD_STATE_SCALE = 10,
} embrtDeviceErrorCode;

#ifdef __cplusplus
}
#endif

#endif // EMB_KERNELS_COMMON_DEVICE_ERRORS_H
