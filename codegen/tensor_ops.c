//===- codegen/tensor_ops.c - Lowering tensor ops to runtime calls --------===//
//
// The tensor dialect ops a model uses around emb ops: tensor.concat (one
// embrtCompiledConcat call), tensor.extract_slice (a strided copy; a
// rank-reducing slice drops unit sizes), tensor.empty (a new buffer), and
// tensor.expand_shape, collapse_shape and cast, whose result aliases the
// operand's buffer with the sizes recomputed, so a reshape costs nothing
// (but a check, where it claims static sizes of dynamic ones).
// tensor.dim reads a lowered size.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Buffers and aliases: tensor.empty, reshapes
//===----------------------------------------------------------------------===//

static void lowerEmpty(EmbLowering *l, MlirOperation op) {
  EmbDim dims[EMBRT_MAX_RANK];
  if (embDynamicResultDims(l, op, 0, dims))
    embDefineResult(l, mlirOperationGetResult(op, 0), dims);
}

/// A size the result's shape claims of a dynamically shaped operand:
/// checked at run time (embrtCompiledCheckExtent) where either side is
/// dynamic; `ok` collects the checks' outcomes (1 while all held).
typedef struct ExtentChecks {
  EmbLowering *l;
  MlirOperation op;
  EmbDim ok;
} ExtentChecks;

static void checkExtent(ExtentChecks *c, EmbDim actual, EmbDim expected,
                        const char *subjectFmt, int index) {
  EmbLowering *l = c->l;
  if (actual.c >= 0 && expected.c >= 0)
    return; // static: the op's verifier compared them
  char name[64], fn[256] = "?", where[256], what[EMB_MAX_MESSAGE];
  embOpName(c->op, name, sizeof name);
  for (MlirOperation p = mlirOperationGetParentOperation(c->op);
       !mlirOperationIsNull(p); p = mlirOperationGetParentOperation(p))
    if (embOpIs(p, "func.func")) {
      embGetStringAttr(p, "sym_name", fn, sizeof fn);
      break;
    }
  embFormatLocation(mlirOperationGetLocation(c->op), where, sizeof where);
  int n = snprintf(what, sizeof what, "%s in @%s (%s): ", name, fn, where);
  snprintf(what + n, sizeof what - (size_t)n, subjectFmt, index);
  size_t len = strlen(what) + 1;
  MlirValue args[4] = {
      l->ctxArg, embDimValue(l, &actual), embDimValue(l, &expected),
      embBuildConstantGlobal(
          l, "__emb_extent_",
          mlirStringAttrGet(l->ctx, (MlirStringRef){what, len}), (int64_t)len,
          0)};
  EmbDim held = {
      embCallRuntime(l, EMB_RT_CHECK_EXTENT, 4, args, embI64Type(l->ctx)), -1};
  c->ok = embMulDim(l, c->ok, held);
}

/// Every index of a reshape's reassociation names a dim of the side it
/// groups (the expanded one), in order: MLIR 22's verifier takes a negative
/// index (found by emb-fuzz: [[-9007199254740992, 1]]), which would index
/// outside the dims here.
static bool reassociationInRange(EmbLowering *l, MlirOperation op, int srcRank,
                                 int resultRank) {
  MlirAttribute groups =
      mlirOperationGetAttributeByName(op, embStr("reassociation"));
  if (mlirAttributeIsNull(groups))
    return true; // tensor.cast
  int expanded = embOpIs(op, "tensor.expand_shape") ? resultRank : srcRank;
  int64_t next = 0;
  for (intptr_t i = 0, n = mlirArrayAttrGetNumElements(groups); i < n; ++i) {
    MlirAttribute g = mlirArrayAttrGetElement(groups, i);
    for (intptr_t j = 0, e = mlirArrayAttrGetNumElements(g); j < e; ++j) {
      int64_t d = mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(g, j));
      if (d != next || d >= expanded) {
        char why[160];
        snprintf(why, sizeof why,
                 "reassociation index %lld is not dim %lld of the %d dims "
                 "it groups",
                 (long long)d, (long long)next, expanded);
        embLowerFail(l, op, why);
        return false;
      }
      ++next;
    }
  }
  return true;
}

/// expand_shape, collapse_shape and cast: the result aliases the operand.
/// Where a cast claims static sizes of dynamic ones, or an expand_shape's
/// output_shape (values of the model) may not cover the operand's dim,
/// they are checked when the function runs: a failed check is the
/// context's error and leaves the result no elements, so no later call
/// reads or writes past the operand's buffer (a later call may report the
/// empty result in turn). MLIR's verifier already makes collapse_shape's
/// static sizes those of static groups.
static void lowerReshape(EmbLowering *l, MlirOperation op) {
  EmbMapped *src = embTensorOperand(l, op, 0);
  if (!src)
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType rt = mlirValueGetType(result);
  EmbMapped m;
  memset(&m, 0, sizeof m);
  m.isTensor = true;
  m.value = src->value;
  m.rank = (int)mlirShapedTypeGetRank(rt);
  ExtentChecks c = {l, op, embConstDim(1)};
  if (!reassociationInRange(l, op, src->rank, m.rank))
    return;
  if (embOpIs(op, "tensor.expand_shape")) {
    if (!embDynamicResultDims(l, op, 1, m.dims))
      return;
    MlirAttribute groups =
        mlirOperationGetAttributeByName(op, embStr("reassociation"));
    for (int i = 0; i < src->rank; ++i) {
      MlirAttribute g = mlirArrayAttrGetElement(groups, i);
      EmbDim p = embConstDim(1);
      for (intptr_t j = 0, e = mlirArrayAttrGetNumElements(g); j < e; ++j)
        p = embMulDim(
            l, p,
            m.dims[mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(g, j))]);
      checkExtent(&c, src->dims[i], p, "dim %d of the operand", i);
    }
  } else if (embOpIs(op, "tensor.collapse_shape")) {
    MlirAttribute groups =
        mlirOperationGetAttributeByName(op, embStr("reassociation"));
    for (int i = 0; i < m.rank; ++i) {
      MlirAttribute g = mlirArrayAttrGetElement(groups, i);
      EmbDim p = embConstDim(1);
      for (intptr_t j = 0, e = mlirArrayAttrGetNumElements(g); j < e; ++j)
        p = embMulDim(l, p,
                      src->dims[mlirIntegerAttrGetValueInt(
                          mlirArrayAttrGetElement(g, j))]);
      int64_t d = embDim(rt, i); // static only where the group is
      m.dims[i] = d >= 0 ? embConstDim(d) : p;
    }
  } else {
    embResultDims(l, result, m.dims, src->dims);
    for (int i = 0; i < m.rank; ++i)
      checkExtent(&c, src->dims[i], m.dims[i], "dim %d of the operand", i);
  }
  if (m.rank > 0 && c.ok.c != 1)
    m.dims[0] = embMulDim(l, m.dims[0], c.ok);
  // A returned alias is copied at the end: it does not claim an out buffer.
  embMapValue(l, result, &m);
}

//===----------------------------------------------------------------------===//
// Copies: tensor.concat, tensor.extract_slice
//===----------------------------------------------------------------------===//

static void lowerConcat(EmbLowering *l, MlirOperation op) {
  int64_t dim = 0;
  embGetIntAttr(op, "dim", &dim);
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirValue result = mlirOperationGetResult(op, 0);
  EmbMapped *first = embTensorOperand(l, op, 0);
  if (!first)
    return;
  EmbDim fallback[EMBRT_MAX_RANK];
  for (int i = 0; i < first->rank; ++i)
    fallback[i] = first->dims[i];
  EmbDim total = embConstDim(0);
  // Buffers [output, inputs...], dims [outer, inner, sizes along dim...,
  // each input's outer and inner size, the result's outer, inner and
  // concatenated size (checked by the runtime)].
  MlirValue *bufs = calloc((size_t)n + EMB_ABI_CONCAT_BUF_INPUTS, sizeof *bufs);
  EmbDim *dims =
      calloc((size_t)(3 * n + 3) + EMB_ABI_CONCAT_DIM_SIZES, sizeof *dims);
  for (intptr_t i = 0; i < n; ++i) {
    EmbMapped *in = embTensorOperand(l, op, i);
    if (!in) {
      free(bufs);
      free(dims);
      return;
    }
    bufs[EMB_ABI_CONCAT_BUF_INPUTS + i] = in->value;
    dims[EMB_ABI_CONCAT_DIM_SIZES + i] = in->dims[dim];
    dims[EMB_ABI_CONCAT_DIM_SIZES + n + 2 * i] =
        embDimProduct(l, in, 0, (int)dim);
    dims[EMB_ABI_CONCAT_DIM_SIZES + n + 2 * i + 1] =
        embDimProduct(l, in, (int)dim + 1, in->rank);
    total = embAddDim(l, &total, &in->dims[dim]);
  }
  fallback[dim] = total;
  EmbDim rdims[EMBRT_MAX_RANK];
  embResultDims(l, result, rdims, fallback);
  EmbMapped *out = embDefineResult(l, result, rdims);
  bufs[EMB_ABI_CONCAT_BUF_OUTPUT] = out->value;
  dims[EMB_ABI_CONCAT_DIM_OUTER] = embDimProduct(l, first, 0, (int)dim);
  dims[EMB_ABI_CONCAT_DIM_INNER] =
      embDimProduct(l, first, (int)dim + 1, first->rank);
  EmbDim *resultExtents = dims + EMB_ABI_CONCAT_DIM_SIZES + 3 * n;
  resultExtents[0] = embDimProduct(l, out, 0, (int)dim);
  resultExtents[1] = embDimProduct(l, out, (int)dim + 1, out->rank);
  resultExtents[2] = out->dims[dim];
  int64_t attrs[] = {
      [EMB_ABI_CONCAT_DTYPE] = embValueDtype(result),
      [EMB_ABI_CONCAT_NUM_INPUTS] = n,
  };
  EmbCallArrays a = embBuildCallArrays(l, attrs, EMB_COUNT(attrs), bufs,
                                       n + EMB_ABI_CONCAT_BUF_INPUTS, dims,
                                       3 * n + 3 + EMB_ABI_CONCAT_DIM_SIZES);
  embCallRuntimeOp(l, EMB_RT_CONCAT, a);
  free(bufs);
  free(dims);
}

/// Reads a mixed static/dynamic list (static_offsets with dynamic operands
/// where the static value is the dynamic marker).
static bool mixedList(EmbLowering *l, MlirOperation op, const char *attr,
                      intptr_t *nextOperand, int rank, EmbDim *out) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, embStr(attr));
  for (int i = 0; i < rank; ++i) {
    int64_t v = mlirDenseI64ArrayGetElement(a, i);
    if (!mlirShapedTypeIsDynamicSize(v) &&
        !mlirShapedTypeIsDynamicStrideOrOffset(v)) {
      out[i] = embConstDim(v);
      continue;
    }
    EmbMapped *s =
        embLookupValue(l, mlirOperationGetOperand(op, (*nextOperand)++));
    if (!s || s->isTensor) {
      embLowerFail(l, op, "a dynamic offset, size or stride was not lowered");
      return false;
    }
    out[i] = (EmbDim){embBuildIndexToI64(&l->b, s->value), -1};
  }
  return true;
}

static void lowerExtractSlice(EmbLowering *l, MlirOperation op) {
  EmbMapped *src = embTensorOperand(l, op, 0);
  if (!src)
    return;
  int rank = src->rank;
  EmbDim offsets[EMBRT_MAX_RANK], sizes[EMBRT_MAX_RANK], steps[EMBRT_MAX_RANK];
  intptr_t next = 1;
  if (!mixedList(l, op, "static_offsets", &next, rank, offsets) ||
      !mixedList(l, op, "static_sizes", &next, rank, sizes) ||
      !mixedList(l, op, "static_strides", &next, rank, steps))
    return;
  // Row-major strides of the source, in elements.
  EmbDim strides[EMBRT_MAX_RANK];
  EmbDim s = embConstDim(1);
  for (int i = rank - 1; i >= 0; --i) {
    strides[i] = s;
    s = embMulDim(l, s, src->dims[i]);
  }
  EmbDim offset = embConstDim(0);
  // Dims [offset, rank sizes, rank input strides], in elements, then the
  // checked extents: rank offsets, rank slice strides, rank input dims.
  EmbDim dims[EMB_ABI_COPY_DIM_SIZES + 5 * EMBRT_MAX_RANK];
  for (int i = 0; i < rank; ++i) {
    EmbDim term = embMulDim(l, offsets[i], strides[i]);
    offset = embAddDim(l, &offset, &term);
    dims[EMB_ABI_COPY_DIM_SIZES + i] = sizes[i];
    dims[EMB_ABI_COPY_DIM_SIZES + rank + i] =
        embMulDim(l, strides[i], steps[i]);
    dims[EMB_ABI_COPY_DIM_SIZES + 2 * rank + i] = offsets[i];
    dims[EMB_ABI_COPY_DIM_SIZES + 3 * rank + i] = steps[i];
    dims[EMB_ABI_COPY_DIM_SIZES + 4 * rank + i] = src->dims[i];
  }
  dims[EMB_ABI_COPY_DIM_OFFSET] = offset;
  // The result may drop unit dims (a rank-reducing slice); its buffer holds
  // the same elements, so drop sizes of 1 while there are more left than the
  // result has dims.
  MlirValue result = mlirOperationGetResult(op, 0);
  int resultRank = (int)mlirShapedTypeGetRank(mlirValueGetType(result));
  EmbDim rdims[EMBRT_MAX_RANK];
  int r = 0;
  for (int i = 0; i < rank; ++i) {
    if (sizes[i].c == 1 && rank - i > resultRank - r)
      continue;
    if (r < resultRank)
      rdims[r] = sizes[i];
    ++r;
  }
  if (r != resultRank) {
    embLowerFail(l, op, "cannot match the rank-reduced result to the slice");
    return;
  }
  EmbMapped *out = embDefineResult(l, result, rdims);
  int64_t attrs[] = {
      [EMB_ABI_COPY_DTYPE] = embValueDtype(result),
      [EMB_ABI_COPY_RANK] = rank,
  };
  MlirValue bufs[] = {
      [EMB_ABI_COPY_BUF_INPUT] = src->value,
      [EMB_ABI_COPY_BUF_OUTPUT] = out->value,
  };
  EmbCallArrays a =
      embBuildCallArrays(l, attrs, EMB_COUNT(attrs), bufs, EMB_COUNT(bufs),
                         dims, EMB_ABI_COPY_DIM_SIZES + 5 * rank);
  embCallRuntimeOp(l, EMB_RT_STRIDED_COPY, a);
}

//===----------------------------------------------------------------------===//
// Sizes: tensor.dim
//===----------------------------------------------------------------------===//

static void lowerDim(EmbLowering *l, MlirOperation op) {
  EmbMapped *src = embTensorOperand(l, op, 0);
  EmbMapped *index = embLookupValue(l, mlirOperationGetOperand(op, 1));
  if (!src)
    return;
  // tensor.dim's index must be a constant here.
  MlirValue old = mlirOperationGetOperand(op, 1);
  if (!index || !mlirValueIsAOpResult(old) ||
      !embOpIs(mlirOpResultGetOwner(old), "arith.constant")) {
    embLowerFail(l, op, "the dim index must be an arith.constant");
    return;
  }
  int64_t i = 0;
  embGetIntAttr(mlirOpResultGetOwner(old), "value", &i);
  if (i < 0 || i >= src->rank) {
    embLowerFail(l, op, "the dim index is out of range");
    return;
  }
  EmbMapped m;
  memset(&m, 0, sizeof m);
  m.value = embBuildI64ToIndex(&l->b, embDimValue(l, &src->dims[i]));
  embMapValue(l, mlirOperationGetResult(op, 0), &m);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool embIsRuntimeTensorOp(MlirOperation op) {
  static const char *const names[] = {
      "tensor.concat",       "tensor.extract_slice",
      "tensor.expand_shape", "tensor.collapse_shape",
      "tensor.cast",         "tensor.empty",
      "tensor.dim"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (embOpIs(op, names[i]))
      return true;
  return false;
}

bool embLowerTensorOp(EmbLowering *l, MlirOperation op) {
  if (embOpIs(op, "tensor.concat"))
    lowerConcat(l, op);
  else if (embOpIs(op, "tensor.extract_slice"))
    lowerExtractSlice(l, op);
  else if (embOpIs(op, "tensor.expand_shape") ||
           embOpIs(op, "tensor.collapse_shape") || embOpIs(op, "tensor.cast"))
    lowerReshape(l, op);
  else if (embOpIs(op, "tensor.empty"))
    lowerEmpty(l, op);
  else if (embOpIs(op, "tensor.dim"))
    lowerDim(l, op);
  else
    return false;
  return true;
}
