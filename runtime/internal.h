//===- runtime/internal.h - Shared by the runtime's backends ------*- C -*-===//
//
// The context's layout, error recording, and the interface between the
// backend-neutral entry points (runtime/*.c: argument checks, dispatch), the
// CPU reference backend (runtime/cpu/) and the CUDA backend (runtime/cuda/ on
// the host side, kernels/ on the device side).
//
// Flow of a call: the public entry point checks its arguments once
// (runtime/check.c), then calls the backend of the context's device. Backends
// trust their arguments and report only what they alone can see (data errors,
// device errors).
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_INTERNAL_H
#define EMB_RUNTIME_INTERNAL_H

#include "emb/runtime.h"

#include <stdarg.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Errors found by device code, kept in device memory and read back by
/// embrtSynchronize. Device code records only the first fatal error (the one
/// that wins an atomicCAS on `code`), and counts warning-mode bad ids.
/// kernels/device_errors.cuh has the device functions that write it.
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
} embrtDeviceErrors;

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
} embrtDeviceErrorCode;

struct embrtContext {
  embrtDevice device;
  int ordinal;
  /// cudaStream_t (CUDA only).
  void *stream;
  int ownsStream;
  /// First failing status since the context was created or last cleared.
  embrtStatus status;
  /// Message of the last failure (or warning note).
  char message[1024];
  int64_t invalidIdCount;
  // CUDA only: device properties read once at creation, and the device-side
  // error record (device memory).
  int smCount;
  int ccMajor, ccMinor;
  int64_t l2Bytes;
  int64_t maxSharedPerBlockOptin;
  embrtDeviceErrors *deviceErrors;
  /// cublasHandle_t, created on first use (embrtCudaBlasHandle).
  void *blasHandle;
  /// Device copies of compiled models' constants (embrtCompiledConstant),
  /// freed by embrtContextDestroy.
  struct embrtConstant *constants;
  size_t numConstants, constantsCap;
};

/// One uploaded constant: its content key and device copy.
typedef struct embrtConstant {
  uint64_t hash;
  int64_t bytes;
  void *device;
} embrtConstant;

/// Records `status` with a printf-style message on `ctx` and returns it.
/// EMBRT_OK is returned unchanged and records nothing.
embrtStatus embrtSetError(embrtContext *ctx, embrtStatus status,
                          const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// Writes a printf-style note into the last message without failing: used
/// for ids skipped under EMBRT_BOUNDS_WARNING. The sticky status is kept.
void embrtSetNote(embrtContext *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/// Rounds a double once to IEEE half / bfloat16 bits (nearest even, NaN kept,
/// overflow to infinity, subnormals exact): the stores of the CPU backend.
uint16_t embrtF64ToF16(double value);
uint16_t embrtF64ToBF16(double value);

/// Reads element i of an I32 or I64 array as int64.
static inline int64_t embrtLoadIndex(const void *p, embrtDtype dtype,
                                     int64_t i) {
  return dtype == EMBRT_I32 ? (int64_t)((const int32_t *)p)[i]
                            : ((const int64_t *)p)[i];
}

//===----------------------------------------------------------------------===//
// Backend interface: one function per entry point and device. Arguments have
// been checked by the caller.
//===----------------------------------------------------------------------===//

#define EMBRT_BACKEND_DECLS(prefix)                                            \
  embrtStatus prefix##TbeWorkspaceSize(                                        \
      embrtContext *ctx, const embrtTbeArgs *args, size_t *bytes);             \
  embrtStatus prefix##TbeForward(embrtContext *ctx, const embrtTbeArgs *args); \
  embrtStatus prefix##Broadcast(embrtContext *ctx,                             \
                                const embrtBroadcastArgs *args);               \
  embrtStatus prefix##BroadcastAdd(embrtContext *ctx,                          \
                                   const embrtBroadcastArgs *args);            \
  embrtStatus prefix##LceWorkspaceSize(                                        \
      embrtContext *ctx, const embrtLceArgs *args, size_t *bytes);             \
  embrtStatus prefix##Lce(embrtContext *ctx, const embrtLceArgs *args);        \
  embrtStatus prefix##IkboLceWorkspaceSize(                                    \
      embrtContext *ctx, const embrtIkboLceArgs *args, size_t *bytes);         \
  embrtStatus prefix##IkboLce(embrtContext *ctx,                               \
                              const embrtIkboLceArgs *args);                   \
  embrtStatus prefix##AttentionWorkspaceSize(                                  \
      embrtContext *ctx, const embrtAttentionArgs *args, size_t *bytes);       \
  embrtStatus prefix##Attention(embrtContext *ctx,                             \
                                const embrtAttentionArgs *args);               \
  embrtStatus prefix##Concat(embrtContext *ctx, const embrtConcatArgs *args);  \
  embrtStatus prefix##StridedCopy(embrtContext *ctx,                           \
                                  const embrtStridedCopyArgs *args);           \
  embrtStatus prefix##Elementwise(embrtContext *ctx,                           \
                                  const embrtElementwiseArgs *args);           \
  embrtStatus prefix##Fill(embrtContext *ctx, void *output, embrtDtype dtype,  \
                           int64_t numElements, const void *value);            \
  embrtStatus prefix##Convert(embrtContext *ctx, const void *input,            \
                              embrtDtype inputDtype, void *output,             \
                              embrtDtype outputDtype, int64_t numElements);

/// The CPU reference backend (runtime/cpu/).
EMBRT_BACKEND_DECLS(embrtCpu)

/// The CUDA backend (runtime/cuda/ and kernels/); present when built with
/// CUDA, otherwise the entry points answer EMBRT_UNSUPPORTED
/// (runtime/cuda/disabled.c).
EMBRT_BACKEND_DECLS(embrtCuda)

/// The CUDA backend's context and memory hooks (runtime/cuda/context.c,
/// runtime/cuda/memory.c). ContextInit fills the CUDA fields of a zeroed
/// context; ContextRelease frees what Init made, even after a partial Init.
embrtStatus embrtCudaContextInit(embrtContext *ctx, int ordinal, void *stream);
void embrtCudaContextRelease(embrtContext *ctx);
embrtStatus embrtCudaSynchronize(embrtContext *ctx);
embrtStatus embrtCudaMalloc(embrtContext *ctx, size_t bytes, void **out);
embrtStatus embrtCudaFree(embrtContext *ctx, void *ptr);
embrtStatus embrtCudaMallocAsync(embrtContext *ctx, size_t bytes, void **out);
embrtStatus embrtCudaEventCreate(embrtContext *ctx, void **event);
embrtStatus embrtCudaEventRecord(embrtContext *ctx, void *event);
embrtStatus embrtCudaEventElapsedMs(embrtContext *ctx, void *start, void *end,
                                    float *ms);
void embrtCudaEventDestroy(void *event);
embrtStatus embrtCudaFreeAsync(embrtContext *ctx, void *ptr);
embrtStatus embrtCudaMemcpy(embrtContext *ctx, void *dst, const void *src,
                            size_t bytes, embrtCopyKind kind);
embrtStatus embrtCudaMemset(embrtContext *ctx, void *dst, int value,
                            size_t bytes);

#ifdef __cplusplus
}
#endif

#endif // EMB_RUNTIME_INTERNAL_H
