//===- passes/pad_k.c - emb-pad-k -----------------------------------------===//
//
// Pads the contraction dimension K of emb.lce (K) and emb.ikbo_lce (Ku and
// Kc, each on its own) to a multiple of `align` elements, with zero columns
// in the weights and zero rows in the embeddings:
//
//   lce(w[M,K], x[B,K,N])  ->  lce(concat(w, 0[M,P]), concat(x, 0[B,P,N]))
//
// A product over K gains P terms that are each exactly zero, so the result
// is unchanged (bit for bit: adding +0.0 to a sum changes nothing), while
// rows of the weights start on `align`-element boundaries, which the GEMM
// kernels need for wide (16-byte) loads. Where an operand is already made by
// a tensor.concat along K, that concat is extended with the zero piece
// rather than concatenated again. Zeros are `arith.constant dense<0.0>`
// splats; a zero piece with a dynamic dim (a dynamic batch or N) is a
// `tensor.splat` sized by `tensor.dim`.
//
// An embedding not made by a concat along K is copied to pad it. That copy
// is worth it for a small operand (the weights, the user side at user batch
// size) but not for a candidate-sized one: emb's GEMM kernels read unpadded
// K correctly and pad the small weights themselves, while copying a
// 1024x866x256 f16 operand costs more than the padding gains. So a K is left
// unpadded, with a remark, when padding it would copy more than copy-limit
// MiB; its weight is then left alone too (their K must agree).
//
// Options (the table below, EmbPadKOptions from C): align, in elements (0,
// the default, is 16 bytes' worth of the element type), and copy-limit, in
// MiB (default 64).
//
// Preconditions: the IR verifies. Postconditions: every emb.lce and
// emb.ikbo_lce with a static K has K a multiple of align; one whose K is
// dynamic is left alone with a remark. Running it again changes nothing.
// The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Options: the fields of EmbPadKOptions (include/emb/emb.h)
//===----------------------------------------------------------------------===//

static const EmbPassOption optionRows[] = {
    {.name = "align",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(EmbPadKOptions, align),
     .defaultValue = "0",
     .min = 0,
     .max = EMB_PAD_K_MAX_ALIGN,
     .help = "pad K to a multiple of this many elements, or of 16 bytes' "
             "worth when 0 (8 for f16/bf16, 4 for f32)"},
    {.name = "copy-limit",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(EmbPadKOptions, copyLimit),
     .defaultValue = "64",
     .min = 0,
     .max = 1 << 30,
     .help = "the largest operand copied to pad it, in MiB"},
};

static const EmbOptionTable options = {optionRows, EMB_NUM_OPTIONS(optionRows),
                                       sizeof(EmbPadKOptions)};

//===----------------------------------------------------------------------===//
// Padding one operand
//===----------------------------------------------------------------------===//

/// `v` with `pad` zero entries appended along `dim`, extending the concat
/// that makes `v` if there is one along `dim` (the caller erases the old one
/// once nothing uses it). Returns a null value when memory runs out.
static MlirValue padAlong(MlirOperation before, MlirLocation loc, MlirValue v,
                          intptr_t dim, int64_t pad) {
  MlirType t = mlirValueGetType(v);
  MlirOperation concat = embDefiningOp(v, "tensor.concat");
  int64_t concatDim = -1;
  if (!mlirOperationIsNull(concat) &&
      (!embGetIntAttr(concat, "dim", &concatDim) || concatDim != dim))
    concat = (MlirOperation){NULL};
  intptr_t n =
      mlirOperationIsNull(concat) ? 1 : mlirOperationGetNumOperands(concat);
  MlirValue *parts = malloc((size_t)(n + 1) * sizeof *parts);
  if (!parts)
    return (MlirValue){NULL};
  for (intptr_t i = 0; i < n; ++i)
    parts[i] =
        mlirOperationIsNull(concat) ? v : mlirOperationGetOperand(concat, i);
  parts[n] = embCreateFilled(before, loc, embWithDim(t, dim, pad),
                             embZeroAttr(mlirShapedTypeGetElementType(t)), v);
  MlirValue padded = embCreateConcat(before, loc, dim, n + 1, parts);
  free(parts);
  return padded;
}

/// Pads operands `wIndex` (a weight [M,K], K along dim 1) and `xIndex` (an
/// embedding [batch,K,N], K along dim 1) of `op` to a multiple of `align`.
/// `what` names K in a remark ("K", "Ku", "Kc"). False if memory ran out.
/// True if padding `v` along `dim` extends a concat along `dim` (no copy).
static bool padIsFree(MlirValue v, intptr_t dim) {
  MlirOperation concat = embDefiningOp(v, "tensor.concat");
  int64_t concatDim = -1;
  return !mlirOperationIsNull(concat) &&
         embGetIntAttr(concat, "dim", &concatDim) && concatDim == dim;
}

/// Bytes of a statically shaped tensor, -1 if a dim is dynamic, INT64_MAX
/// if the count overflows (too large to copy).
static int64_t tensorBytes(MlirValue v) {
  MlirType t = mlirValueGetType(v);
  if (!embIsStatic(t))
    return mlirShapedTypeHasStaticShape(t) ? INT64_MAX : -1;
  int64_t n = embNumElements(t);
  int64_t size = embElementBytes(mlirShapedTypeGetElementType(t));
  return size > 0 && n > INT64_MAX / size ? INT64_MAX : n * size;
}

static bool padPair(MlirOperation op, intptr_t wIndex, intptr_t xIndex,
                    int64_t align, int64_t copyLimitMiB, const char *what) {
  MlirValue w = mlirOperationGetOperand(op, wIndex);
  MlirValue x = mlirOperationGetOperand(op, xIndex);
  int64_t k = embDim(mlirValueGetType(w), 1);
  if (k < 0)
    k = embDim(mlirValueGetType(x), 1);
  MlirLocation loc = mlirOperationGetLocation(op);
  char name[64];
  embOpName(op, name, sizeof name);
  if (k < 0) {
    embEmitRemarkf(loc,
                   "'%s' not padded: %s is dynamic (it must be static to pad "
                   "to a multiple of %lld)",
                   name, what, (long long)align);
    return true;
  }
  int64_t pad = (align - k % align) % align;
  if (pad == 0)
    return true;
  int64_t bytes = tensorBytes(x);
  if (!padIsFree(x, 1) &&
      (bytes < 0 || bytes > copyLimitMiB * (int64_t)1048576)) {
    char size[32];
    if (bytes < 0)
      snprintf(size, sizeof size, "a dynamically sized operand");
    else
      snprintf(size, sizeof size, "%lld MiB", (long long)(bytes >> 20));
    embEmitRemarkf(loc,
                   "'%s' not padded: %s = %lld stays, padding it would copy "
                   "%s (copy-limit %lld MiB); the kernels read unpadded K",
                   name, what, (long long)k, size, (long long)copyLimitMiB);
    return true;
  }
  MlirValue paddedW = padAlong(op, loc, w, 1, pad);
  if (mlirValueIsNull(paddedW))
    return false;
  MlirValue paddedX = padAlong(op, loc, x, 1, pad);
  if (mlirValueIsNull(paddedX))
    return false;
  mlirOperationSetOperand(op, wIndex, paddedW);
  mlirOperationSetOperand(op, xIndex, paddedX);
  MlirValue old[] = {w, x};
  embEraseDeadProducers(2, old);
  return true;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The alignment for `op`, whose operand 0 is a weight.
static int64_t alignFor(MlirOperation op, const EmbPadKOptions *o) {
  if (o->align > 0)
    return o->align;
  MlirType element = mlirShapedTypeGetElementType(
      mlirValueGetType(mlirOperationGetOperand(op, 0)));
  int bytes = embElementBytes(element);
  return bytes ? 16 / bytes : 1;
}

static bool padOne(MlirOperation op, const void *options) {
  const EmbPadKOptions *o = options;
  if (embOpIs(op, EMB_OP_LCE))
    return padPair(op, 0, 1, alignFor(op, o), o->copyLimit, "K");
  if (embOpIs(op, EMB_OP_IKBO_LCE))
    return padPair(op, 0, 2, alignFor(op, o), o->copyLimit, "Ku") &&
           padPair(op, 1, 3, alignFor(op, o), o->copyLimit, "Kc");
  return true;
}

static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  embRewriteNestedOps(root, pass, "emb-pad-k", padOne, options);
}

const EmbPassDef embPadKPassDef = {
    .argument = "emb-pad-k",
    .name = "EmbPadK",
    .summary = "Pad K of emb.lce and emb.ikbo_lce with zeros to an alignment",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .options = &options,
    .run = run,
};

EmbPadKOptions embPadKOptionsDefault(void) {
  EmbPadKOptions o = {sizeof(EmbPadKOptions), 0, 0};
  embDefaultPassOptions(&embPadKPassDef, &o);
  return o;
}

MlirPass embCreatePadKPass(const EmbPadKOptions *options,
                           EmbErrorCallback onError, void *userData) {
  EmbPadKOptions o = embPadKOptionsDefault();
  if (!embTakePassOptions(&embPadKPassDef, options, &o, "embCreatePadKPass",
                          "EmbPadKOptions", onError, userData))
    return (MlirPass){NULL};
  return embMakePass(&embPadKPassDef, &o);
}
