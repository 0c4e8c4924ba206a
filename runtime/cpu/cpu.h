//===- runtime/cpu/cpu.h - The CPU reference backend --------------*- C -*-===//
//
// The op functions of the CPU backend, one file per family
// (runtime/cpu/<family>.c; the table is runtime/cpu/backend.c), and the
// element loads and stores they share. Loads widen exactly to double; stores
// round once, to nearest even (runtime/half.h).
//
// Accumulation rule of the backend: f64 for f32 (and f64) data, f32 for f16
// and bf16 data (embrtCpuAccumulate), rounded once at the store.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_CPU_CPU_H
#define EMB_RUNTIME_CPU_CPU_H

#include "runtime/context.h"
#include "runtime/half.h"
#include "runtime/status.h"

#include <stddef.h>
#include <stdint.h>

//===----------------------------------------------------------------------===//
// Ops: embrtCpu<Op> for every row of kernels/ops.def (arguments checked by
// runtime/<family>.c)
//===----------------------------------------------------------------------===//

#define EMBRT_OP(op, Op, Args, takes)                                          \
  embrtStatus embrtCpu##Op EMBRT_OP_PARAMS(takes, Args);
#include "kernels/ops.def"

/// The offsets of a lookup on the host: offsets[0] == 0, never decreasing,
/// offsets[F*B] == N; a named EMBRT_OUT_OF_RANGE (feature, bag, position)
/// otherwise. Shared by the forward and the backward.
embrtStatus embrtCpuCheckTbeOffsets(embrtContext *ctx, const char *op,
                                    const embrtTbeArgs *args);

/// Where an id outside its table is, for the messages of the lookups and
/// their backward: "feature f bag b: id x is outside table t (r rows), at
/// indices[i]"; for an embedding bag (`op` "embedding_bag...") "bag b: id x
/// is outside weight (r rows), at indices[i]".
void embrtCpuDescribeBadId(char *buffer, size_t size, const char *op,
                           int64_t feature, int64_t bag, int64_t id,
                           int64_t table, int64_t rows, int64_t position);

/// Adds `count` ids skipped under EMBRT_BOUNDS_WARNING to the context's
/// count and notes them, `where` describing the first.
void embrtCpuNoteSkippedIds(embrtContext *ctx, const char *op, int64_t count,
                            const char *where);

// Communicators of one rank (cpu/collectives.c).
embrtStatus embrtCpuCommGetUniqueId(embrtCommId *out);
embrtStatus embrtCpuCommInit(embrtContext *ctx, const embrtCommId *id);
void embrtCpuCommRelease(embrtContext *ctx);

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

/// Reads element i of an I32 or I64 array as int64.
static inline int64_t embrtLoadIndex(const void *p, embrtDtype dtype,
                                     int64_t i) {
  return dtype == EMBRT_I32 ? (int64_t)((const int32_t *)p)[i]
                            : ((const int64_t *)p)[i];
}

/// Element i of a float tensor (F32, F16, BF16 or F64), exactly.
static inline double embrtCpuLoad(const void *p, embrtDtype dtype, int64_t i) {
  switch (dtype) {
  case EMBRT_F16:
    return embrtF16ToF32(((const uint16_t *)p)[i]);
  case EMBRT_BF16:
    return embrtBF16ToF32(((const uint16_t *)p)[i]);
  case EMBRT_F64:
    return ((const double *)p)[i];
  default:
    return ((const float *)p)[i];
  }
}

/// Stores `value` rounded once to `dtype` (F32, F16, BF16 or F64).
static inline void embrtCpuStore(void *p, embrtDtype dtype, int64_t i,
                                 double value) {
  switch (dtype) {
  case EMBRT_F16:
    ((uint16_t *)p)[i] = embrtF64ToF16(value);
    break;
  case EMBRT_BF16:
    ((uint16_t *)p)[i] = embrtF64ToBF16(value);
    break;
  case EMBRT_F64:
    ((double *)p)[i] = value;
    break;
  default:
    ((float *)p)[i] = (float)value;
    break;
  }
}

/// Whether data of `dtype` accumulates in f32 (f16, bf16) rather than f64.
static inline int embrtCpuAccumulatesInF32(embrtDtype dtype) {
  return dtype == EMBRT_F16 || dtype == EMBRT_BF16;
}

/// acc + a * b in the accumulator precision: with an f32 accumulator the sum
/// is rounded to f32 once per step (the product of two f32 values is exact in
/// double, so this behaves like an f32 fused multiply-add).
static inline double embrtCpuAccumulate(double acc, double a, double b,
                                        int inF32) {
  double sum = acc + a * b;
  return inF32 ? (double)(float)sum : sum;
}

/// `x` rounded to `type` (F16 or BF16; any other type leaves it as it is):
/// an operand or a result of a computeDtype product.
static inline double embrtCpuRoundTo(double x, embrtDtype type) {
  if (type == EMBRT_F16)
    return embrtF16ToF32(embrtF64ToF16(x));
  if (type == EMBRT_BF16)
    return embrtBF16ToF32(embrtF64ToBF16(x));
  return x;
}

#endif // EMB_RUNTIME_CPU_CPU_H
