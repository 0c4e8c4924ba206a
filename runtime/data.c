//===- runtime/data.c - Data movement and elementwise ops ---------*- C -*-===//
//
// The backend-neutral side of the helpers compiled models call between the
// big ops: concat, strided copy, elementwise unary and binary ops, fill and
// convert. The argument checks, the public entry points and the compiled-ABI
// decoders (convert has none: compiled models do not call it).
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"

#include <stdio.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

static embrtStatus checkConcat(embrtContext *ctx, const embrtConcatArgs *args) {
  const char *op = "concat";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtConcatArgs), "embrtConcatArgs"));
  EMBRT_TRY(embrtCheckKnownDtype(ctx, op, "dtype", args->dtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numInputs", args->numInputs));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "outerSize", args->outerSize));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "innerSize", args->innerSize));
  if (args->numInputs > 0 && !args->inputs)
    return embrtInvalid(ctx, "%s: inputs is NULL", op);
  if (args->numInputs > 0 && !args->inputDimSizes)
    return embrtInvalid(ctx, "%s: inputDimSizes is NULL", op);
  int64_t total = 0;
  for (int64_t i = 0; i < args->numInputs; ++i) {
    int64_t size = args->inputDimSizes[i], elements = 0;
    if (size < 0)
      return embrtInvalid(ctx, "%s: inputDimSizes[%lld] is %lld, must be >= 0",
                          op, (long long)i, (long long)size);
    if (size > INT64_MAX - total)
      return embrtInvalid(ctx, "%s: the output is too large to address", op);
    total += size;
    EMBRT_TRY(embrtCheckCount(ctx, op, "an input", args->dtype, &elements,
                              args->outerSize, size, args->innerSize, 1));
    if (elements > 0 && !args->inputs[i])
      return embrtInvalid(ctx, "%s: inputs[%lld] is NULL", op, (long long)i);
  }
  int64_t outputElements = 0;
  EMBRT_TRY(embrtCheckCount(ctx, op, "the output", args->dtype, &outputElements,
                            args->outerSize, total, args->innerSize, 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "output", args->output, outputElements));
  return EMBRT_OK;
}

static embrtStatus checkStridedCopy(embrtContext *ctx,
                                    const embrtStridedCopyArgs *args) {
  const char *op = "strided_copy";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtStridedCopyArgs),
                             "embrtStridedCopyArgs"));
  EMBRT_TRY(embrtCheckKnownDtype(ctx, op, "dtype", args->dtype));
  if (args->rank < 0 || args->rank > EMBRT_MAX_RANK)
    return embrtInvalid(ctx, "%s: rank is %lld, must be in 0..%d", op,
                        (long long)args->rank, EMBRT_MAX_RANK);
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "inputOffset", args->inputOffset));
  int64_t elements = 1;
  for (int64_t d = 0; d < args->rank; ++d) {
    if (args->sizes[d] < 0)
      return embrtInvalid(ctx, "%s: sizes[%lld] is %lld, must be >= 0", op,
                          (long long)d, (long long)args->sizes[d]);
    if (!embrtMulOk(elements, args->sizes[d], &elements))
      return embrtInvalid(ctx, "%s: the output is too large to address", op);
  }
  EMBRT_TRY(embrtCheckCount(ctx, op, "the output", args->dtype, NULL, elements,
                            1, 1, 1));
  if (elements > 0) {
    // The window's lowest and highest input elements must be addressable.
    int64_t low = args->inputOffset, high = args->inputOffset;
    for (int64_t d = 0; d < args->rank; ++d) {
      int64_t stride = args->inputStrides[d], reach;
      // INT64_MIN has no magnitude in int64: refused before it is negated.
      if (stride == INT64_MIN)
        return embrtInvalid(ctx, "%s: inputStrides[%lld] is too large", op,
                            (long long)d);
      int64_t magnitude = stride < 0 ? -stride : stride;
      if (!embrtMulOk(args->sizes[d] - 1, magnitude, &reach) ||
          (stride > 0 && reach > INT64_MAX - high))
        return embrtInvalid(ctx, "%s: inputStrides[%lld] is too large", op,
                            (long long)d);
      if (stride < 0 && reach > low)
        return embrtInvalid(
            ctx,
            "%s: the window reaches before the start of the input "
            "(inputOffset %lld, inputStrides[%lld] is %lld)",
            op, (long long)args->inputOffset, (long long)d, (long long)stride);
      if (stride < 0)
        low -= reach;
      else
        high += reach;
    }
    EMBRT_TRY(embrtCheckCount(ctx, op, "the input window", args->dtype, NULL,
                              high, 1, 1, 1));
  }
  EMBRT_TRY(embrtCheckData(ctx, op, "input", args->input, elements));
  EMBRT_TRY(embrtCheckData(ctx, op, "output", args->output, elements));
  return EMBRT_OK;
}

static embrtStatus checkElementwise(embrtContext *ctx,
                                    const embrtElementwiseArgs *args) {
  const char *op = "elementwise";
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtElementwiseArgs),
                             "embrtElementwiseArgs"));
  int integer = args->dtype == EMBRT_I32 || args->dtype == EMBRT_I64;
  if (!embrtIsFloatDtype(args->dtype) && !integer)
    return embrtInvalid(
        ctx, "%s: dtype is %s, must be f32, f16, bf16, f64, i32 or i64", op,
        embrtDtypeName(args->dtype));
  if (integer && ((args->isUnary && args->unaryOp != EMBRT_UNARY_NEG &&
                   args->unaryOp != EMBRT_UNARY_ABS) ||
                  (!args->isUnary && args->binaryOp == EMBRT_BINARY_DIV)))
    return embrtInvalid(
        ctx, "%s: %s takes add, sub, mul, max, min, neg and abs only", op,
        embrtDtypeName(args->dtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numElements", args->numElements));
  EMBRT_TRY(embrtCheckCount(ctx, op, "output", args->dtype, NULL,
                            args->numElements, 1, 1, 1));
  if (args->isUnary) {
    if ((int)args->unaryOp < EMBRT_UNARY_NEG ||
        (int)args->unaryOp > EMBRT_UNARY_ABS)
      return embrtInvalid(ctx, "%s: unaryOp is %d, not an embrtUnaryOp", op,
                          (int)args->unaryOp);
    if (args->b)
      return embrtInvalid(ctx, "%s: b must be NULL for a unary op", op);
  } else {
    if ((int)args->binaryOp < EMBRT_BINARY_ADD ||
        (int)args->binaryOp > EMBRT_BINARY_MIN)
      return embrtInvalid(ctx, "%s: binaryOp is %d, not an embrtBinaryOp", op,
                          (int)args->binaryOp);
    EMBRT_TRY(embrtCheckData(ctx, op, "b", args->b, args->numElements));
  }
  EMBRT_TRY(embrtCheckData(ctx, op, "a", args->a, args->numElements));
  EMBRT_TRY(embrtCheckData(ctx, op, "output", args->output, args->numElements));
  return EMBRT_OK;
}

static embrtStatus checkFill(embrtContext *ctx, const void *output,
                             embrtDtype dtype, int64_t numElements,
                             const void *value) {
  const char *op = "fill";
  EMBRT_TRY(embrtCheckKnownDtype(ctx, op, "dtype", dtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numElements", numElements));
  EMBRT_TRY(
      embrtCheckCount(ctx, op, "output", dtype, NULL, numElements, 1, 1, 1));
  if (!value)
    return embrtInvalid(ctx, "%s: value is NULL", op);
  return embrtCheckData(ctx, op, "output", output, numElements);
}

static embrtStatus checkConvert(embrtContext *ctx, const void *input,
                                embrtDtype inputDtype, const void *output,
                                embrtDtype outputDtype, int64_t numElements) {
  const char *op = "convert";
  EMBRT_TRY(embrtCheckKnownDtype(ctx, op, "inputDtype", inputDtype));
  EMBRT_TRY(embrtCheckKnownDtype(ctx, op, "outputDtype", outputDtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "numElements", numElements));
  EMBRT_TRY(embrtCheckCount(ctx, op, "input", inputDtype, NULL, numElements, 1,
                            1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "output", outputDtype, NULL, numElements,
                            1, 1, 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "input", input, numElements));
  return embrtCheckData(ctx, op, "output", output, numElements);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

embrtStatus embrtConcat(embrtContext *ctx, const embrtConcatArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkConcat(ctx, args));
  return ctx->backend->concat(ctx, args);
}

embrtStatus embrtStridedCopy(embrtContext *ctx,
                             const embrtStridedCopyArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkStridedCopy(ctx, args));
  return ctx->backend->stridedCopy(ctx, args);
}

embrtStatus embrtElementwise(embrtContext *ctx,
                             const embrtElementwiseArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkElementwise(ctx, args));
  return ctx->backend->elementwise(ctx, args);
}

embrtStatus embrtFill(embrtContext *ctx, void *output, embrtDtype dtype,
                      int64_t numElements, const void *value) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkFill(ctx, output, dtype, numElements, value));
  return ctx->backend->fill(ctx, output, dtype, numElements, value);
}

embrtStatus embrtConvert(embrtContext *ctx, const void *input,
                         embrtDtype inputDtype, void *output,
                         embrtDtype outputDtype, int64_t numElements) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(
      checkConvert(ctx, input, inputDtype, output, outputDtype, numElements));
  return ctx->backend->convert(ctx, input, inputDtype, output, outputDtype,
                               numElements);
}

//===----------------------------------------------------------------------===//
// Compiled ABI (include/emb/compiled.h)
//===----------------------------------------------------------------------===//

void embrtCompiledConcat(embrtContext *ctx, const int64_t *attrs,
                         void *const *buffers, const int64_t *dims) {
  // The checked extents: every input's dims other than the concatenated
  // one are input 0's, and so are the result's (compared as the products
  // before and after it); the result's concatenated dim is their sum.
  const char *op = "tensor.concat";
  const char *before = "elements before the concatenated dim";
  const char *after = "elements after the concatenated dim";
  int64_t n = attrs[EMB_ABI_CONCAT_NUM_INPUTS];
  int64_t outer = dims[EMB_ABI_CONCAT_DIM_OUTER];
  int64_t inner = dims[EMB_ABI_CONCAT_DIM_INNER];
  const int64_t *extents = dims + EMB_ABI_CONCAT_DIM_SIZES + (n > 0 ? n : 0);
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    char name[32];
    snprintf(name, sizeof name, "input %lld", (long long)i);
    if (embrtCheckExtent(ctx, op, name, extents[2 * i], before, "input 0",
                         outer, before) != EMBRT_OK ||
        embrtCheckExtent(ctx, op, name, extents[2 * i + 1], after, "input 0",
                         inner, after) != EMBRT_OK)
      return;
    int64_t size = dims[EMB_ABI_CONCAT_DIM_SIZES + i];
    total = size >= 0 && total >= 0 && total <= INT64_MAX - size ? total + size
                                                                 : -1;
  }
  const int64_t *result = extents + 2 * (n > 0 ? n : 0);
  if (embrtCheckExtent(ctx, op, "the result", result[0], before, "input 0",
                       outer, before) != EMBRT_OK ||
      embrtCheckExtent(ctx, op, "the result", result[1], after, "input 0",
                       inner, after) != EMBRT_OK)
    return;
  if (result[2] != total) {
    embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                  "%s: the result has %lld along the concatenated dim but the "
                  "inputs have %lld in all",
                  op, (long long)result[2], (long long)total);
    return;
  }
  embrtConcatArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_CONCAT_DTYPE];
  a.numInputs = attrs[EMB_ABI_CONCAT_NUM_INPUTS];
  a.output = buffers[EMB_ABI_CONCAT_BUF_OUTPUT];
  a.inputs = (const void *const *)(buffers + EMB_ABI_CONCAT_BUF_INPUTS);
  a.outerSize = dims[EMB_ABI_CONCAT_DIM_OUTER];
  a.innerSize = dims[EMB_ABI_CONCAT_DIM_INNER];
  a.inputDimSizes = dims + EMB_ABI_CONCAT_DIM_SIZES;
  embrtConcat(ctx, &a);
}

void embrtCompiledStridedCopy(embrtContext *ctx, const int64_t *attrs,
                              void *const *buffers, const int64_t *dims) {
  embrtStridedCopyArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_COPY_DTYPE];
  a.rank = attrs[EMB_ABI_COPY_RANK];
  a.input = buffers[EMB_ABI_COPY_BUF_INPUT];
  a.output = buffers[EMB_ABI_COPY_BUF_OUTPUT];
  if (a.rank < 0 || a.rank > EMBRT_MAX_RANK) {
    embrtStridedCopy(ctx, NULL);
    return;
  }
  // dims: the offset, then `rank` sizes, then `rank` input strides; then
  // the checked extents, `rank` offsets, slice strides and input dims.
  const int64_t *sizes = dims + EMB_ABI_COPY_DIM_SIZES;
  const int64_t *offsets = sizes + 2 * a.rank, *steps = offsets + a.rank;
  const int64_t *inputDims = steps + a.rank;
  a.inputOffset = dims[EMB_ABI_COPY_DIM_OFFSET];
  for (int64_t i = 0; i < a.rank; ++i) {
    a.sizes[i] = sizes[i];
    a.inputStrides[i] = sizes[a.rank + i];
    // The slice's first and last index along dim i lie in the input's dim
    // (an empty slice reads nothing).
    int64_t first = offsets[i], n = sizes[i], step = steps[i], span = 0;
    int inside = n == 0;
    if (n > 0 && first >= 0 && first < inputDims[i] && step > INT64_MIN &&
        embrtMulOk(n - 1, step < 0 ? -step : step, &span))
      inside = step >= 0 ? span < inputDims[i] - first : span <= first;
    if (n < 0 || !inside) {
      embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                    "tensor.extract_slice: dim %lld of the slice (offset "
                    "%lld, %lld elements, stride %lld) is outside the "
                    "operand's %lld",
                    (long long)i, (long long)first, (long long)n,
                    (long long)step, (long long)inputDims[i]);
      return;
    }
  }
  embrtStridedCopy(ctx, &a);
}

void embrtCompiledElementwise(embrtContext *ctx, const int64_t *attrs,
                              void *const *buffers, const int64_t *dims) {
  embrtElementwiseArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.dtype = (embrtDtype)attrs[EMB_ABI_ELEMENTWISE_DTYPE];
  a.isUnary = (int)attrs[EMB_ABI_ELEMENTWISE_IS_UNARY];
  if (a.isUnary)
    a.unaryOp = (embrtUnaryOp)attrs[EMB_ABI_ELEMENTWISE_OP];
  else
    a.binaryOp = (embrtBinaryOp)attrs[EMB_ABI_ELEMENTWISE_OP];
  a.a = buffers[EMB_ABI_ELEMENTWISE_BUF_A];
  a.b = buffers[EMB_ABI_ELEMENTWISE_BUF_B];
  a.output = buffers[EMB_ABI_ELEMENTWISE_BUF_OUTPUT];
  a.numElements = dims[EMB_ABI_ELEMENTWISE_DIM_ELEMENTS];
  // The checked extents: a and b have the result's elements.
  static const char *const binaryNames[] = {
      "elementwise add", "elementwise sub", "elementwise mul",
      "elementwise div", "elementwise max", "elementwise min"};
  int64_t code = attrs[EMB_ABI_ELEMENTWISE_OP];
  const char *op = a.isUnary               ? "elementwise (unary)"
                   : code >= 0 && code < 6 ? binaryNames[code]
                                           : "elementwise";
  if (embrtCheckExtent(ctx, op, "a", dims[EMB_ABI_ELEMENTWISE_DIM_A_ELEMENTS],
                       "elements", "the result", a.numElements,
                       "elements") != EMBRT_OK ||
      (!a.isUnary &&
       embrtCheckExtent(ctx, op, "b", dims[EMB_ABI_ELEMENTWISE_DIM_B_ELEMENTS],
                        "elements", "the result", a.numElements,
                        "elements") != EMBRT_OK))
    return;
  embrtElementwise(ctx, &a);
}

void embrtCompiledFill(embrtContext *ctx, const int64_t *attrs,
                       void *const *buffers, const int64_t *dims) {
  int64_t bits = dims[EMB_ABI_FILL_DIM_BITS];
  unsigned char value[8];
  memcpy(value, &bits, sizeof value); // little-endian: low bytes first
  embrtFill(ctx, buffers[EMB_ABI_FILL_BUF_OUTPUT],
            (embrtDtype)attrs[EMB_ABI_FILL_DTYPE],
            dims[EMB_ABI_FILL_DIM_ELEMENTS], value);
}
