//===- tools/emb-run/npy.h - NumPy .npy files --------------------*- C -*-===//
//
// Reads and writes NumPy's .npy format (versions 1.0-3.0, little-endian,
// C order): the common currency of model tooling. Element types map to the
// runtime's dtypes: <f4 f32, <f2 f16, <f8 f64, <i4 i32, <i8 i64, |i1 and |b1
// i8. NumPy has no bfloat16: a bf16 tensor is written as <f4 and read from
// <f4 (rounded to nearest even) or <u2 (raw bits).
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TOOLS_NPY_H
#define EMB_TOOLS_NPY_H

#include "emb/runtime.h"

#include <stddef.h>
#include <stdint.h>

enum { EMB_NPY_MAX_RANK = 8 };

/// An array in host memory.
typedef struct EmbArray {
  embrtDtype dtype;
  int rank;
  int64_t dims[EMB_NPY_MAX_RANK];
  void *data; ///< malloc'd, dense, C order
} EmbArray;

/// Elements and bytes of an array.
int64_t embArrayElements(const EmbArray *a);
size_t embArrayBytes(const EmbArray *a);

/// Reads `path` as an array of `want` dtype (converting bf16 from <f4 or
/// <u2, nothing else). Returns 0, or -1 with a message in `err`.
int embNpyRead(const char *path, embrtDtype want, EmbArray *out, char *err,
               size_t errSize);

/// Writes `a` to `path` (bf16 as <f4). Returns 0, or -1 with a message.
int embNpyWrite(const char *path, const EmbArray *a, char *err, size_t errSize);

#endif // EMB_TOOLS_NPY_H
