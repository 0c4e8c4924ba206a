//===- codegen/constants.c - Lowering constants and elementwise ops -------===//
//
// Values the model computes element by element rather than by an emb op:
//   - a splat tensor `arith.constant` and `tensor.splat` of a scalar become
//     one embrtCompiledFill with the element's bits;
//   - a non-splat dense `arith.constant` becomes a private constant global of
//     the module, which the runtime reads in place on the CPU and uploads
//     once a context on CUDA (embrtCompiledConstant);
//   - elementwise arith and math ops on tensors (the table below) become one
//     embrtCompiledElementwise call.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stdint.h>
#include <stdio.h>
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

/// A non-splat dense constant: its bytes become a private constant global of
/// the module (`__emb_constant_<n>`, 64-byte aligned), and the function asks
/// the runtime where its device reads them (embrtCompiledConstant: in place
/// on the CPU, uploaded once a context on CUDA).
static void lowerDenseConstant(EmbLowering *l, MlirOperation op,
                               MlirAttribute value) {
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(result);
  MlirType e = mlirShapedTypeGetElementType(t);
  if (embRuntimeDtype(e) < 0 ||
      (mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 1)) {
    embLowerFail(l, op, "the element type has no runtime dtype");
    return;
  }
  int64_t elements = mlirElementsAttrGetNumElements(value);
  int64_t bytes = elements * embTensorElementBytes(t);
  EmbDim dims[EMBRT_MAX_RANK];
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i)
    dims[i] = embConstDim(embDim(t, i));
  if (bytes == 0) {
    embDefineResult(l, result, dims);
    return;
  }
  const void *data = mlirDenseElementsAttrGetRawData(value);
  char name[64];
  int n = 0;
  do
    snprintf(name, sizeof name, "__emb_constant_%d", n++);
  while (embHasSymbol(l, name));

  MlirType i8 = mlirIntegerTypeGet(l->ctx, 8);
  int64_t shape[1] = {bytes};
  MlirAttribute raw = mlirDenseElementsAttrRawBufferGet(
      mlirRankedTensorTypeGet(1, shape, i8, mlirAttributeGetNull()),
      (size_t)bytes, data);
  MlirNamedAttribute attrs[7] = {
      embNamedAttr(l->ctx, "sym_name", mlirStringAttrGet(l->ctx, embStr(name))),
      embNamedAttr(l->ctx, "global_type",
                   mlirTypeAttrGet(mlirLLVMArrayTypeGet(i8, (unsigned)bytes))),
      embNamedAttr(l->ctx, "value", raw),
      embNamedAttr(
          l->ctx, "linkage",
          mlirAttributeParseGet(l->ctx, embStr("#llvm.linkage<private>"))),
      embNamedAttr(l->ctx, "constant", mlirUnitAttrGet(l->ctx)),
      embNamedAttr(l->ctx, "addr_space",
                   mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 32), 0)),
      embNamedAttr(l->ctx, "alignment",
                   mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 64), 64)),
  };
  MlirOperationState st = mlirOperationStateGet(embStr("llvm.mlir.global"),
                                                mlirOperationGetLocation(op));
  mlirOperationStateAddAttributes(&st, 7, attrs);
  MlirRegion init = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&st, 1, &init);
  mlirBlockInsertOwnedOperation(mlirModuleGetBody(l->module), 0,
                                mlirOperationCreate(&st));

  MlirType ptr = embPtrType(l->ctx);
  MlirNamedAttribute ref = embNamedAttr(
      l->ctx, "global_name", mlirFlatSymbolRefAttrGet(l->ctx, embStr(name)));
  MlirValue host = mlirOperationGetResult(
      embBuildOp(&l->b, "llvm.mlir.addressof", 0, NULL, 1, &ptr, 1, &ref), 0);
  MlirValue args[4] = {
      l->ctxArg, host, embBuildConstI64(&l->b, bytes),
      embBuildConstI64(&l->b,
                       (int64_t)fnv1a((const uint8_t *)data, (size_t)bytes))};
  EmbMapped m =
      embTensorMapping(embCallRuntime(l, EMB_RT_CONSTANT, 4, args, ptr),
                       (int)mlirShapedTypeGetRank(t), dims);
  embMapValue(l, result, &m);
}

static void lowerTensorConstant(EmbLowering *l, MlirOperation op) {
  MlirAttribute value = mlirOperationGetAttributeByName(op, embStr("value"));
  MlirValue result = mlirOperationGetResult(op, 0);
  if (mlirAttributeIsADenseElements(value) &&
      !mlirDenseElementsAttrIsSplat(value)) {
    lowerDenseConstant(l, op, value);
    return;
  }
  if (!mlirAttributeIsADenseElements(value)) {
    embLowerFail(
        l, op,
        "only dense tensor constants are supported (dense_resource blobs "
        "are not)");
    return;
  }
  MlirType t = mlirValueGetType(result);
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

/// tensor.splat of a scalar computed at run time: its bits as i64.
static void lowerSplat(EmbLowering *l, MlirOperation op) {
  EmbMapped *s = embLookupValue(l, mlirOperationGetOperand(op, 0));
  if (!s || s->isTensor) {
    embLowerFail(l, op, "the splat value was not lowered");
    return;
  }
  MlirValue v = s->value;
  MlirType t = mlirValueGetType(v);
  MlirType i64 = embI64Type(l->ctx);
  MlirValue bits;
  if (mlirTypeIsAIndex(t)) {
    bits = embBuildIndexToI64(&l->b, v);
  } else if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 64) {
    bits = v;
  } else {
    unsigned width = mlirTypeIsAInteger(t) ? mlirIntegerTypeGetWidth(t)
                     : mlirTypeIsAF64(t)   ? 64
                     : mlirTypeIsAF32(t)   ? 32
                     : mlirTypeIsAF16(t) || mlirTypeIsABF16(t) ? 16
                                                               : 0;
    if (width == 0) {
      embLowerFail(l, op, "the splat value's type has no runtime dtype");
      return;
    }
    MlirType iw = mlirIntegerTypeGet(l->ctx, width);
    MlirValue asInt = v;
    if (!mlirTypeIsAInteger(t))
      asInt = mlirOperationGetResult(
          embBuildOp(&l->b, "arith.bitcast", 1, &v, 1, &iw, 0, NULL), 0);
    bits = width == 64
               ? asInt
               : mlirOperationGetResult(embBuildOp(&l->b, "arith.extui", 1,
                                                   &asInt, 1, &i64, 0, NULL),
                                        0);
  }
  EmbDim dims[EMBRT_MAX_RANK];
  if (!embDynamicResultDims(l, op, 1, dims))
    return;
  fill(l, mlirOperationGetResult(op, 0), dims, (EmbDim){bits, -1});
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
  };
  EmbCallArrays arrays = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embCallRuntimeOp(l, EMB_RT_ELEMENTWISE, arrays);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool embLowerConstantOp(EmbLowering *l, MlirOperation op) {
  const ElementwiseOp *e;
  if (embOpIs(op, "tensor.splat"))
    lowerSplat(l, op);
  else if (embOpIs(op, "arith.constant") && embHasTensor(op))
    lowerTensorConstant(l, op);
  else if ((e = findElementwise(op)) && embHasTensor(op))
    lowerElementwise(l, op, e);
  else
    return false;
  return true;
}
