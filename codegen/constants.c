//===- codegen/constants.c - Lowering constants and elementwise ops -------===//
//
// Values the model computes element by element rather than by an emb op:
//   - a splat tensor `arith.constant` and `tensor.splat` of a scalar become
//     one embrtCompiledFill with the element's bits, `tensor.from_elements`
//     one fill of one element per scalar;
//   - a non-splat dense `arith.constant`, or a dense_resource one (weights
//     frozen into a model, read from the module's dialect_resources blob),
//     becomes a private constant global of the module, which the runtime
//     reads in place on the CPU and uploads once a context on CUDA
//     (embrtCompiledConstant);
//   - elementwise arith and math ops on tensors (the table below) become one
//     embrtCompiledElementwise call.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// Fills a new buffer for `result` with the element whose bits are `bits`.
static void fill(EmbLowering *l, MlirValue result, const EmbDim *dims,
                 EmbDim bits) {
  EmbMapped *out = embDefineResult(l, result, dims);
  int64_t attrs[] = {[EMB_ABI_FILL_DTYPE] = embValueDtype(result)};
  MlirValue bufs[] = {[EMB_ABI_FILL_BUF_OUTPUT] = out->value};
  EmbDim sizes[] = {
      [EMB_ABI_FILL_DIM_ELEMENTS] = embDimProduct(l, out, 0, out->rank),
      [EMB_ABI_FILL_DIM_BITS] = bits,
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, sizes);
  embCallRuntimeOp(l, EMB_RT_FILL, a);
}

/// 64-bit FNV-1a: the content key of a constant (embrtCompiledConstant).
static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/// Whether constants of element type `e` lower to a global: a runtime dtype
/// whose bytes are the attribute's (a dense i1 attribute packs its bits).
static bool globalElementType(MlirType e) {
  return embRuntimeDtype(e) >= 0 &&
         !(mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 1);
}

/// A non-splat dense constant (`bytes` at `data`, laid out as the runtime
/// lays out the tensor): its bytes become a private constant global of the
/// module (`__emb_constant_<n>`, 64-byte aligned), and the function asks the
/// runtime where its device reads them (embrtCompiledConstant: in place on
/// the CPU, uploaded once a context on CUDA).
static void lowerDenseConstant(EmbLowering *l, MlirOperation op,
                               const void *data, int64_t bytes) {
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(result);
  EmbDim dims[EMBRT_MAX_RANK];
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i)
    dims[i] = embConstDim(embDim(t, i));
  if (bytes == 0) {
    embDefineResult(l, result, dims);
    return;
  }
  MlirType i8 = mlirIntegerTypeGet(l->ctx, 8);
  int64_t shape[1] = {bytes};
  MlirAttribute raw = mlirDenseElementsAttrRawBufferGet(
      mlirRankedTensorTypeGet(1, shape, i8, mlirAttributeGetNull()),
      (size_t)bytes, data);
  MlirValue host = embBuildConstantGlobal(l, "__emb_constant_", raw, bytes, 64);
  MlirValue args[4] = {
      l->ctxArg, host, embBuildConstI64(&l->b, bytes),
      embBuildConstI64(&l->b,
                       (int64_t)fnv1a((const uint8_t *)data, (size_t)bytes))};
  EmbMapped m = embTensorMapping(
      embCallRuntime(l, EMB_RT_CONSTANT, 4, args, embPtrType(l->ctx)),
      (int)mlirShapedTypeGetRank(t), dims);
  embMapValue(l, result, &m);
}

/// A dense_resource constant: its blob's bytes, as a dense one.
static void lowerResourceConstant(EmbLowering *l, MlirOperation op,
                                  MlirAttribute value) {
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  if (!embResourceHasData(op)) {
    embLowerFail(l, op,
                 "its dense_resource has no data (the module's "
                 "dialect_resources section has no blob of that name)");
    return;
  }
  int64_t bytes = 0;
  void *data = embReadResource(value, t, &bytes);
  if (!data) {
    embLowerFail(l, op, "the element type has no runtime dtype");
    return;
  }
  lowerDenseConstant(l, op, data, bytes);
  free(data);
}

static void lowerTensorConstant(EmbLowering *l, MlirOperation op) {
  MlirAttribute value = mlirOperationGetAttributeByName(op, embStr("value"));
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(result);
  if (mlirAttributeIsADenseResourceElements(value)) {
    lowerResourceConstant(l, op, value);
    return;
  }
  if (mlirAttributeIsADenseElements(value) &&
      !mlirDenseElementsAttrIsSplat(value)) {
    if (!globalElementType(mlirShapedTypeGetElementType(t))) {
      embLowerFail(l, op, "the element type has no runtime dtype");
      return;
    }
    lowerDenseConstant(l, op, mlirDenseElementsAttrGetRawData(value),
                       mlirElementsAttrGetNumElements(value) *
                           embTensorElementBytes(t));
    return;
  }
  if (!mlirAttributeIsADenseElements(value)) {
    embLowerFail(l, op,
                 "only dense and dense_resource tensor constants are "
                 "supported");
    return;
  }
  MlirType e = mlirShapedTypeGetElementType(t);
  int64_t dtype = embRuntimeDtype(e);
  MlirAttribute splat = mlirDenseElementsAttrGetSplatValue(value);
  int64_t bits = 0;
  if (mlirTypeIsAF32(e)) {
    float f = (float)mlirFloatAttrGetValueDouble(splat);
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    bits = u;
  } else if (mlirTypeIsAF16(e) || mlirTypeIsABF16(e)) {
    // Read as a double: the splat is stored in 2 bytes.
    float f = (float)mlirFloatAttrGetValueDouble(splat);
    bits = mlirTypeIsAF16(e) ? embrtF32ToF16(f) : embrtF32ToBF16(f);
  } else if (mlirTypeIsAF64(e)) {
    double d = mlirFloatAttrGetValueDouble(splat);
    memcpy(&bits, &d, sizeof bits);
  } else if (dtype == EMBRT_I32) {
    bits = (uint32_t)mlirIntegerAttrGetValueInt(splat);
  } else if (dtype == EMBRT_I64) {
    bits = mlirIntegerAttrGetValueInt(splat);
  } else if (dtype == EMBRT_I8) {
    bits = (uint8_t)mlirIntegerAttrGetValueInt(splat);
  } else {
    embLowerFail(l, op, "the element type has no runtime dtype");
    return;
  }
  EmbDim dims[EMBRT_MAX_RANK];
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i)
    dims[i] = embConstDim(embDim(t, i));
  // EmbDim constants are non-negative; a negative i64 splat is a value.
  EmbDim b = bits >= 0 ? embConstDim(bits)
                       : (EmbDim){embBuildConstI64(&l->b, bits), -1};
  fill(l, result, dims, b);
}

/// The bits, as i64, of scalar operand `i` of `op` (computed at run time),
/// as the fill call takes them; a null value after an error.
static MlirValue scalarBits(EmbLowering *l, MlirOperation op, intptr_t i,
                            const char *what) {
  EmbMapped *s = embLookupValue(l, mlirOperationGetOperand(op, i));
  char message[128];
  if (!s || s->isTensor) {
    snprintf(message, sizeof message, "the %s was not lowered", what);
    embLowerFail(l, op, message);
    return (MlirValue){NULL};
  }
  MlirValue v = s->value;
  MlirType t = mlirValueGetType(v);
  MlirType i64 = embI64Type(l->ctx);
  if (mlirTypeIsAIndex(t))
    return embBuildIndexToI64(&l->b, v);
  if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 64)
    return v;
  unsigned width = mlirTypeIsAInteger(t) ? mlirIntegerTypeGetWidth(t)
                   : mlirTypeIsAF64(t)   ? 64
                   : mlirTypeIsAF32(t)   ? 32
                   : mlirTypeIsAF16(t) || mlirTypeIsABF16(t) ? 16
                                                             : 0;
  if (width == 0) {
    snprintf(message, sizeof message, "the %s's type has no runtime dtype",
             what);
    embLowerFail(l, op, message);
    return (MlirValue){NULL};
  }
  MlirType iw = mlirIntegerTypeGet(l->ctx, width);
  MlirValue asInt = v;
  if (!mlirTypeIsAInteger(t))
    asInt = mlirOperationGetResult(
        embBuildOp(&l->b, "arith.bitcast", 1, &v, 1, &iw, 0, NULL), 0);
  if (width == 64)
    return asInt;
  return mlirOperationGetResult(
      embBuildOp(&l->b, "arith.extui", 1, &asInt, 1, &i64, 0, NULL), 0);
}

/// tensor.splat of a scalar computed at run time: its bits as i64.
static void lowerSplat(EmbLowering *l, MlirOperation op) {
  MlirValue bits = scalarBits(l, op, 0, "splat value");
  if (mlirValueIsNull(bits))
    return;
  EmbDim dims[EMBRT_MAX_RANK];
  if (!embDynamicResultDims(l, op, 1, dims))
    return;
  fill(l, mlirOperationGetResult(op, 0), dims, (EmbDim){bits, -1});
}

/// tensor.from_elements of scalars computed at run time (the offsets
/// [0, N] of a lookup over a dynamic number of ids): one fill of one
/// element per scalar, at its place in the result's buffer.
static void lowerFromElements(EmbLowering *l, MlirOperation op) {
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(result);
  int64_t bytes = embTensorElementBytes(t);
  intptr_t n = mlirOperationGetNumOperands(op);
  if (embValueDtype(result) < 0 || bytes <= 0 || n > INT32_MAX / bytes) {
    embLowerFail(l, op, "the element type has no runtime dtype");
    return;
  }
  EmbDim dims[EMBRT_MAX_RANK];
  for (intptr_t i = 0, r = mlirShapedTypeGetRank(t); i < r; ++i)
    dims[i] = embConstDim(embDim(t, i));
  EmbMapped *out = embDefineResult(l, result, dims);
  MlirType i8 = mlirIntegerTypeGet(l->ctx, 8);
  for (intptr_t i = 0; i < n; ++i) {
    MlirValue bits = scalarBits(l, op, i, "element");
    if (mlirValueIsNull(bits))
      return;
    int64_t attrs[] = {[EMB_ABI_FILL_DTYPE] = embValueDtype(result)};
    MlirValue bufs[] = {[EMB_ABI_FILL_BUF_OUTPUT] = embBuildGep(
                            &l->b, out->value, i8, (int32_t)(i * bytes))};
    EmbDim sizes[] = {
        [EMB_ABI_FILL_DIM_ELEMENTS] = embConstDim(1),
        [EMB_ABI_FILL_DIM_BITS] = {bits, -1},
    };
    embCallRuntimeOp(l, EMB_RT_FILL,
                     EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, sizes));
  }
}

//===----------------------------------------------------------------------===//
// dense_resource blobs
//===----------------------------------------------------------------------===//

/// Reads element by element through the typed readers of the C API (it has
/// no raw-data accessor for resources). f16 and bf16 have no reader of their
/// own: the unsigned 16-bit one reads their bits.
void *embReadResource(MlirAttribute value, MlirType type, int64_t *bytes) {
  MlirType e = mlirShapedTypeGetElementType(type);
  int64_t n = embNumElements(type);
  int64_t size = embTensorElementBytes(type);
  if (embRuntimeDtype(e) < 0 || n < 0 || (size > 0 && n > INT64_MAX / size))
    return NULL;
  uint8_t *out = malloc(n > 0 && size > 0 ? (size_t)(n * size) : 1);
  if (!out)
    return NULL;
  bool i1 = mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 1;
  for (intptr_t i = 0; i < n; ++i) {
    uint8_t *p = out + i * size;
    if (i1) {
      *p = mlirDenseBoolResourceElementsAttrGetValue(value, i);
    } else if (mlirTypeIsAF32(e)) {
      float v = mlirDenseFloatResourceElementsAttrGetValue(value, i);
      memcpy(p, &v, 4);
    } else if (mlirTypeIsAF64(e)) {
      double v = mlirDenseDoubleResourceElementsAttrGetValue(value, i);
      memcpy(p, &v, 8);
    } else if (size == 2) {
      uint16_t v = mlirDenseUInt16ResourceElementsAttrGetValue(value, i);
      memcpy(p, &v, 2);
    } else if (size == 1) {
      int8_t v = mlirDenseInt8ResourceElementsAttrGetValue(value, i);
      memcpy(p, &v, 1);
    } else if (size == 4) {
      int32_t v = mlirDenseInt32ResourceElementsAttrGetValue(value, i);
      memcpy(p, &v, 4);
    } else {
      int64_t v = mlirDenseInt64ResourceElementsAttrGetValue(value, i);
      memcpy(p, &v, 8);
    }
  }
  *bytes = n * size;
  return out;
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

typedef struct {
  const char *name;
  bool unary;
  int op;
} ElementwiseOp;

static const ElementwiseOp elementwiseOps[] = {
    {"arith.addf", false, EMBRT_BINARY_ADD},
    {"arith.subf", false, EMBRT_BINARY_SUB},
    {"arith.mulf", false, EMBRT_BINARY_MUL},
    {"arith.divf", false, EMBRT_BINARY_DIV},
    {"arith.maximumf", false, EMBRT_BINARY_MAX},
    {"arith.maxnumf", false, EMBRT_BINARY_MAX},
    {"arith.minimumf", false, EMBRT_BINARY_MIN},
    {"arith.minnumf", false, EMBRT_BINARY_MIN},
    {"arith.addi", false, EMBRT_BINARY_ADD},
    {"arith.subi", false, EMBRT_BINARY_SUB},
    {"arith.muli", false, EMBRT_BINARY_MUL},
    {"arith.negf", true, EMBRT_UNARY_NEG},
    {"math.exp", true, EMBRT_UNARY_EXP},
    {"math.tanh", true, EMBRT_UNARY_TANH},
    {"math.sqrt", true, EMBRT_UNARY_SQRT},
    {"math.rsqrt", true, EMBRT_UNARY_RSQRT},
    {"math.log", true, EMBRT_UNARY_LOG},
    {"math.absf", true, EMBRT_UNARY_ABS},
};

static const ElementwiseOp *findElementwise(MlirOperation op) {
  for (size_t i = 0; i < sizeof elementwiseOps / sizeof elementwiseOps[0]; ++i)
    if (embOpIs(op, elementwiseOps[i].name))
      return &elementwiseOps[i];
  return NULL;
}

static void lowerElementwise(EmbLowering *l, MlirOperation op,
                             const ElementwiseOp *e) {
  EmbMapped *a = embTensorOperand(l, op, 0);
  EmbMapped *b = e->unary ? NULL : embTensorOperand(l, op, 1);
  if (!a || (!e->unary && !b))
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  EmbDim rdims[EMBRT_MAX_RANK];
  embResultDims(l, result, rdims, a->dims);
  EmbMapped *out = embDefineResult(l, result, rdims);
  int64_t attrs[] = {
      [EMB_ABI_ELEMENTWISE_DTYPE] = embValueDtype(result),
      [EMB_ABI_ELEMENTWISE_IS_UNARY] = e->unary,
      [EMB_ABI_ELEMENTWISE_OP] = e->op,
  };
  MlirValue bufs[] = {
      [EMB_ABI_ELEMENTWISE_BUF_A] = a->value,
      [EMB_ABI_ELEMENTWISE_BUF_B] = b ? b->value : (MlirValue){NULL},
      [EMB_ABI_ELEMENTWISE_BUF_OUTPUT] = out->value,
  };
  EmbDim dims[] = {
      [EMB_ABI_ELEMENTWISE_DIM_ELEMENTS] = embDimProduct(l, out, 0, out->rank),
      [EMB_ABI_ELEMENTWISE_DIM_A_ELEMENTS] = embDimProduct(l, a, 0, a->rank),
      [EMB_ABI_ELEMENTWISE_DIM_B_ELEMENTS] =
          b ? embDimProduct(l, b, 0, b->rank) : embConstDim(0),
  };
  EmbCallArrays arrays = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embCallRuntimeOp(l, EMB_RT_ELEMENTWISE, arrays);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool embIsRuntimeConstantOp(MlirOperation op) {
  return embOpIs(op, "tensor.splat") || embOpIs(op, "tensor.from_elements") ||
         ((embOpIs(op, "arith.constant") || findElementwise(op)) &&
          embHasTensor(op));
}

bool embLowerConstantOp(EmbLowering *l, MlirOperation op) {
  const ElementwiseOp *e;
  if (embOpIs(op, "tensor.splat"))
    lowerSplat(l, op);
  else if (embOpIs(op, "tensor.from_elements"))
    lowerFromElements(l, op);
  else if (embOpIs(op, "arith.constant") && embHasTensor(op))
    lowerTensorConstant(l, op);
  else if ((e = findElementwise(op)) && embHasTensor(op))
    lowerElementwise(l, op, e);
  else
    return false;
  return true;
}
