//===- tools/emb-run/npy.h - NumPy .npy files --------------------*- C -*-===//
//
// Reads and writes NumPy's .npy format (versions 1.0-3.0, little-endian,
// C order): the common currency of model tooling. Element types map to the
// runtime's dtypes: <f4 f32, <f2 f16, <f8 f64, <i4 i32, <i8 i64, |i1 and |b1
// i8. NumPy has no bfloat16: a bf16 tensor is written as <f4 and read from
// <f4 (rounded to nearest even) or <u2 (raw bits).
//
// Sizes come from untrusted headers and model signatures: every element
// count and byte size is formed with embCheckedMul, every host allocation
// goes through embArrayAllocate, and a size that overflows or does not fit
// in this machine's memory is a named error, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TOOLS_NPY_H
#define EMB_TOOLS_NPY_H

#include "emb/runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { EMB_NPY_MAX_RANK = 8 };

/// An array in host memory.
typedef struct EmbArray {
  embrtDtype dtype;
  int rank;
  int64_t dims[EMB_NPY_MAX_RANK];
  void *data; ///< malloc'd, dense, C order
} EmbArray;

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

/// Sets *out to a * b and returns true, or returns false (leaving *out
/// alone) when either is negative or the product overflows int64_t.
bool embCheckedMul(int64_t a, int64_t b, int64_t *out);

/// The elements and bytes of a's shape and dtype; false when a dim is
/// negative or either count overflows (bytes must fit int64_t and size_t).
bool embArraySize(const EmbArray *a, int64_t *elements, size_t *bytes);

/// Elements and bytes of an array whose size was checked when it was made
/// (every array embNpyRead or embArrayAllocate made).
int64_t embArrayElements(const EmbArray *a);
size_t embArrayBytes(const EmbArray *a);

/// Allocates a->data for a's shape and dtype (zeroed when `zero`), at least
/// one byte so that an empty array has a buffer. Returns 0, or -1 with a
/// message in `err` (without the shape, for the caller to name the array)
/// when the size overflows, exceeds this machine's physical memory or
/// malloc fails: "N elements of f32 (3.6 TiB) are too large to allocate:
/// ...".
int embArrayAllocate(EmbArray *a, bool zero, char *err, size_t errSize);

/// "tensor<2x3xf32>" for a's shape and dtype.
void embArrayShapeText(const EmbArray *a, char *buf, size_t size);

//===----------------------------------------------------------------------===//
// Reading and writing
//===----------------------------------------------------------------------===//

/// A .npy file whose header has been read and checked, before its data.
typedef struct EmbNpyReader {
  FILE *file;
  const char *path;
  EmbArray shape;      ///< dtype (the wanted one), rank and dims; no data
  size_t elementBytes; ///< bytes of one element in the file
  bool bf16FromF32;    ///< the file holds <f4 for a bf16 array
  int64_t dataBytes;   ///< bytes after the header; -1 if unknown (a pipe)
} EmbNpyReader;

/// Opens `path` and reads its header for an array of `want` dtype
/// (converting bf16 from <f4 or <u2, nothing else): the magic, a format
/// version NumPy reads (1.0, 2.0 or 3.0), C order, a shape of at most 8
/// dims that fit int64_t. Returns 0, or -1 with a message in `err` (the file
/// is then closed).
int embNpyOpen(const char *path, embrtDtype want, EmbNpyReader *r, char *err,
               size_t errSize);

/// Reads the data of an opened file into `out` (shape and dtype from the
/// header) and closes it: its size must not overflow or exceed memory, and
/// the file must hold exactly that many bytes after the header (fewer:
/// truncated; more: the header does not describe the file; NumPy itself
/// ignores such bytes). Returns 0, or -1 with a message in `err`.
int embNpyReadData(EmbNpyReader *r, EmbArray *out, char *err, size_t errSize);

/// Closes a file opened by embNpyOpen without reading its data.
void embNpyClose(EmbNpyReader *r);

/// embNpyOpen then embNpyReadData.
int embNpyRead(const char *path, embrtDtype want, EmbArray *out, char *err,
               size_t errSize);

/// Writes `a` to `path` (bf16 as <f4). Returns 0, or -1 with a message.
int embNpyWrite(const char *path, const EmbArray *a, char *err, size_t errSize);

#endif // EMB_TOOLS_NPY_H
