//===- codegen/mixed_functions.c - Functions that keep ops MLIR compiles --===//
//
// A model from torch-mlir is more than its emb ops: linalg.generic and named
// linalg ops, tensor ops, arith, math, scf and cf.assert around them. On the
// cpu target a function with an op the runtime has no call for is lowered
// here, in place, and stays at the tensor level: emb ops become opaque
// runtime calls on buffers, everything else is left to MLIR's own
// bufferization and lowering (emb-lower-to-llvm runs them next):
//
//   func.func @f(%a: tensor<8x4xf32>, %ids: tensor<6xi64>) -> tensor<2x4xf32>
// becomes
//   func.func @f(%ctx: !llvm.ptr, %a: memref<8x4xf32>, %ids: memref<6xi64>,
//                %out: memref<2x4xf32>)
//       attributes {llvm.emit_c_interface, emb.target = "cpu",
//                   emb.num_results = 1}
//   %at = bufferization.to_tensor %a restrict : ... to tensor<8x4xf32>
//   ...
//   %buf = bufferization.to_buffer %x read_only : tensor<...> to memref<...>
//   %res = memref.alloc() {alignment = 64} : memref<...>
//   call @embrtCompiledTbe(%ctx, ...)          // on %buf's and %res's address
//   %y = bufferization.to_tensor %res restrict writable : ...
//   ...
//   bufferization.materialize_in_destination %r in restrict writable %out
//   return
//
// The signature is the entry ABI of emb-lower-to-runtime's other path
// (include/emb/model.h), so runners, the JIT and the AOT header see no
// difference. Each emb op's operands are read through a fresh to_buffer
// right before its call (a buffer is only known to hold its tensor there);
// its result is a memref.alloc that MLIR's deallocation frees, and its
// workspaces are runtime allocations freed right after the call. The
// returned values are copied into the caller's buffers by
// materialize_in_destination (eliminate-empty-tensors lets a linalg op that
// computes a result write there directly). A tensor.empty that several ops
// write into gets a copy per use, which keeps bufferization's analysis
// linear. cf.assert is rewritten by asserts.c, the indices of the
// function's own tensor.extract and tensor.insert are checked by
// element_bounds.c, the extents its generics and concats rely on by
// extents.c, and its integer divisions by integer_division.c.
// Precondition: the function's ops
// are emb ops or ops of the dialects MLIR's CPU pipeline lowers (checked here,
// naming the first other op); emb ops sit in the function's own block.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/Linalg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// What the CPU pipeline takes
//===----------------------------------------------------------------------===//

/// The dialects whose ops emb-lower-to-llvm's upstream passes bufferize and
/// lower on the CPU.
static const char *const cpuDialects[] = {
    "arith",  "math",          "tensor", "linalg", "scf",  "cf",
    "affine", "bufferization", "memref", "index",  "func", "llvm"};

static bool inCpuDialect(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  const char *dot = memchr(name.data, '.', name.length);
  size_t len = dot ? (size_t)(dot - name.data) : name.length;
  for (size_t i = 0; i < sizeof cpuDialects / sizeof cpuDialects[0]; ++i)
    if (strlen(cpuDialects[i]) == len &&
        !memcmp(cpuDialects[i], name.data, len))
      return true;
  return false;
}

typedef struct {
  EmbLowering *l;
  MlirBlock body;
} Check;

/// The bytes an element of `e` takes in a buffer (an i1 takes one), or 0
/// for a type without a fixed size.
static int64_t elementBytes(MlirType e) {
  if (mlirTypeIsAInteger(e))
    return (mlirIntegerTypeGetWidth(e) + 7) / 8;
  if (mlirTypeIsAFloat(e))
    return (mlirFloatTypeGetWidth(e) + 7) / 8;
  if (mlirTypeIsAIndex(e))
    return 8;
  if (mlirTypeIsAComplex(e))
    return 2 * elementBytes(mlirComplexTypeGetElementType(e));
  return 0;
}

/// Whether a value of type `t` fits the 64-bit index arithmetic the
/// lowering computes its buffer's size with: a static shape whose bytes
/// pass INT64_MAX (tensor<4611686018427387904xi64>) is refused, where
/// memref.alloc's size would wrap and LLVM would abort on the constant.
static bool fitsIndexArithmetic(MlirType t) {
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasRank(t))
    return true;
  int64_t eb = elementBytes(mlirShapedTypeGetElementType(t));
  int64_t n = 1;
  for (intptr_t i = 0, e = mlirShapedTypeGetRank(t); i < e; ++i)
    if (embDim(t, i) == 0)
      return true;
  for (intptr_t i = 0, e = mlirShapedTypeGetRank(t); i < e; ++i) {
    int64_t d = embDim(t, i);
    if (d < 0)
      continue; // dynamic: checked by whoever makes the buffer at run time
    if (n > INT64_MAX / d)
      return false;
    n *= d;
  }
  return eb == 0 || n <= INT64_MAX / eb;
}

/// Fails at `op` when `v` (its `what` number `i`) does not fit the index
/// arithmetic.
static void checkSize(EmbLowering *l, MlirOperation op, MlirValue v,
                      const char *what, intptr_t i) {
  MlirType t = mlirValueGetType(v);
  if (l->failed || fitsIndexArithmetic(t))
    return;
  char type[160];
  embPrintType(t, type, sizeof type);
  char msg[320];
  snprintf(msg, sizeof msg,
           "its %s %ld, of type %s, holds more bytes than 64-bit sizes count "
           "(INT64_MAX); it is not lowered",
           what, (long)i, type);
  embLowerFail(l, op, msg);
}

static MlirWalkResult checkOp(MlirOperation op, void *userData) {
  Check *c = userData;
  EmbLowering *l = c->l;
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i)
    checkSize(l, op, mlirOperationGetResult(op, i), "result", i);
  for (intptr_t r = 0, nr = mlirOperationGetNumRegions(op); r < nr; ++r)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (intptr_t i = 0, n = mlirBlockGetNumArguments(b); i < n; ++i)
        checkSize(l, op, mlirBlockGetArgument(b, i),
                  embOpIs(op, "func.func") ? "argument" : "block argument", i);
  if (l->failed)
    return MlirWalkResultInterrupt;
  if (embIsEmbOp(op)) {
    if (!mlirBlockEqual(mlirOperationGetBlock(op), c->body))
      embLowerFail(l, op, "emb ops inside regions are not lowered");
  } else if (embOpIs(op, "func.call")) {
    embLowerFail(l, op, "calls between functions are not lowered");
  } else if (!inCpuDialect(op)) {
    embLowerFail(l, op,
                 "it has no runtime call, and MLIR's cpu pipeline lowers only "
                 "arith, math, tensor, linalg, scf, cf, affine, index, memref "
                 "and bufferization ops");
  } else if (embOpIs(op, "arith.constant")) {
    MlirAttribute v = mlirOperationGetAttributeByName(op, embStr("value"));
    if (mlirAttributeIsADenseResourceElements(v) && !embResourceHasData(op))
      embLowerFail(l, op,
                   "its dense_resource has no data (the module's "
                   "dialect_resources section has no blob of that name)");
  }
  return l->failed ? MlirWalkResultInterrupt : MlirWalkResultAdvance;
}

//===----------------------------------------------------------------------===//
// The signature
//===----------------------------------------------------------------------===//

/// Builds `name` (operands, at most one result, unit attributes `flags`)
/// before `before` in `block`.
static MlirOperation buildBefore(EmbLowering *l, MlirBlock block,
                                 MlirOperation before, const char *name,
                                 intptr_t nOperands, const MlirValue *operands,
                                 MlirType result, const char *const *flags,
                                 int nFlags) {
  l->b = (EmbBuilder){l->ctx, l->b.loc, block, before};
  MlirNamedAttribute attrs[2];
  for (int i = 0; i < nFlags && i < 2; ++i)
    attrs[i] = embNamedAttr(l->ctx, flags[i], mlirUnitAttrGet(l->ctx));
  return embBuildOp(&l->b, name, nOperands, operands,
                    mlirTypeIsNull(result) ? 0 : 1, &result, nFlags, attrs);
}

static const char *const restrictOnly[] = {"restrict"};
static const char *const restrictWritable[] = {"restrict", "writable"};

/// Whether ranked tensor type `t` has a `?` dim.
static bool hasDynamicDim(MlirType t) {
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i)
    if (mlirShapedTypeIsDynamicDim(t, i))
      return true;
  return false;
}

/// A result with a `?` dim, returned as `value` through the
/// embrtCompiledResult `record` (include/emb/compiled.h): a buffer of its
/// run-time size from embrtCompiledAlloc, seen as a memref (a descriptor
/// cast to the memref type, which the conversion to LLVM reconciles, so
/// MLIR's deallocation does not own it), with its address, rank and dims
/// stored into the record. Returns the memref to materialise `value` in.
static MlirValue dynamicResultBuffer(EmbLowering *l, MlirBlock block,
                                     MlirOperation ret, MlirValue value,
                                     MlirValue record) {
  l->b = (EmbBuilder){l->ctx, l->b.loc, block, ret};
  MlirContext ctx = l->ctx;
  MlirType type = mlirValueGetType(value);
  intptr_t rank = mlirShapedTypeGetRank(type);
  MlirType i64 = embI64Type(ctx), ptr = embPtrType(ctx);
  MlirValue dims[EMBRT_MAX_RANK], strides[EMBRT_MAX_RANK];
  for (intptr_t d = 0; d < rank; ++d) {
    if (!mlirShapedTypeIsDynamicDim(type, d)) {
      dims[d] = embBuildConstI64(&l->b, mlirShapedTypeGetDimSize(type, d));
      continue;
    }
    MlirValue operands[2] = {value, embBuildConstIndex(&l->b, d)};
    MlirType index = mlirIndexTypeGet(ctx);
    MlirValue dim = mlirOperationGetResult(
        embBuildOp(&l->b, "tensor.dim", 2, operands, 1, &index, 0, NULL), 0);
    dims[d] = embBuildIndexToI64(&l->b, dim);
  }
  MlirValue elements = embBuildConstI64(&l->b, 1);
  for (intptr_t d = rank - 1; d >= 0; --d) {
    strides[d] = elements;
    elements = embBuildMulI64(&l->b, elements, dims[d]);
  }
  MlirValue bytes = embBuildMulI64(
      &l->b, elements, embBuildConstI64(&l->b, embTensorElementBytes(type)));
  MlirValue allocArgs[2] = {l->ctxArg, bytes};
  MlirValue data = embCallRuntime(l, EMB_RT_ALLOC, 2, allocArgs, ptr);

  // {allocated, aligned, offset, sizes[rank], strides[rank]}
  MlirType array = mlirLLVMArrayTypeGet(i64, (unsigned)rank);
  MlirType fields[5] = {ptr, ptr, i64, array, array};
  MlirType desc = mlirLLVMStructTypeLiteralGet(ctx, 5, fields, false);
  MlirValue d = mlirOperationGetResult(
      embBuildOp(&l->b, "llvm.mlir.undef", 0, NULL, 1, &desc, 0, NULL), 0);
  for (intptr_t f = 0; f < 3 + 2 * rank; ++f) {
    int64_t pos[2] = {f < 3          ? f
                      : f < 3 + rank ? 3
                                     : 4,
                      f < 3 ? 0 : (f - 3) % rank};
    MlirValue field = f < 2          ? data
                      : f == 2       ? embBuildConstI64(&l->b, 0)
                      : f < 3 + rank ? dims[f - 3]
                                     : strides[f - 3 - rank];
    MlirNamedAttribute position = embNamedAttr(
        ctx, "position", mlirDenseI64ArrayGet(ctx, f < 3 ? 1 : 2, pos));
    MlirValue operands[2] = {d, field};
    d = mlirOperationGetResult(embBuildOp(&l->b, "llvm.insertvalue", 2,
                                          operands, 1, &desc, 1, &position),
                               0);
  }
  MlirType memref = embMemrefTypeOf(type);
  MlirValue buffer = mlirOperationGetResult(
      embBuildOp(&l->b, "builtin.unrealized_conversion_cast", 1, &d, 1, &memref,
                 0, NULL),
      0);
  embBuildStoreAt(&l->b, record, ptr, 0, data);
  embBuildStoreAt(&l->b, record, i64, 1, embBuildConstI64(&l->b, rank));
  for (intptr_t k = 0; k < rank; ++k)
    embBuildStoreAt(&l->b, record, i64, 2 + k, dims[k]);
  return buffer;
}

/// (ctx, memrefs of the inputs..., memrefs of the results...) -> (): the
/// inputs become tensors again at the top of the body, and every return
/// copies its values into the result buffers.
static void rewriteSignature(EmbLowering *l, MlirOperation func, MlirType ft) {
  intptr_t ni = mlirFunctionTypeGetNumInputs(ft);
  intptr_t no = mlirFunctionTypeGetNumResults(ft);
  MlirLocation loc = mlirOperationGetLocation(func);
  MlirRegion region = mlirOperationGetRegion(func, 0);
  MlirBlock entry = mlirRegionGetFirstBlock(region);
  MlirOperation first = mlirBlockGetFirstOperation(entry);
  l->b.loc = loc;
  l->ctxArg = mlirBlockInsertArgument(entry, 0, embPtrType(l->ctx), loc);
  for (intptr_t i = 0; i < ni; ++i) {
    MlirType t = mlirFunctionTypeGetInput(ft, i);
    MlirValue buffer = mlirBlockAddArgument(entry, embMemrefTypeOf(t), loc);
    // Not writable: bufferization copies before writing into an input.
    MlirOperation toTensor =
        buildBefore(l, entry, first, "bufferization.to_tensor", 1, &buffer, t,
                    restrictOnly, 1);
    mlirValueReplaceAllUsesOfWith(mlirBlockGetArgument(entry, 1 + i),
                                  mlirOperationGetResult(toTensor, 0));
  }
  for (intptr_t i = 0; i < ni; ++i)
    mlirBlockEraseArgument(entry, 1);
  for (intptr_t i = 0; i < no; ++i) {
    MlirType r = mlirFunctionTypeGetResult(ft, i);
    mlirBlockAddArgument(
        entry, hasDynamicDim(r) ? embPtrType(l->ctx) : embMemrefTypeOf(r), loc);
  }

  for (MlirBlock b = entry; !mlirBlockIsNull(b);
       b = mlirBlockGetNextInRegion(b)) {
    MlirOperation ret = mlirBlockGetTerminator(b);
    if (mlirOperationIsNull(ret) || !embOpIs(ret, "func.return"))
      continue;
    l->b.loc = mlirOperationGetLocation(ret);
    for (intptr_t i = 0; i < no; ++i) {
      MlirValue operands[2] = {mlirOperationGetOperand(ret, i),
                               mlirBlockGetArgument(entry, 1 + ni + i)};
      if (hasDynamicDim(mlirFunctionTypeGetResult(ft, i)))
        operands[1] = dynamicResultBuffer(l, b, ret, operands[0], operands[1]);
      buildBefore(l, b, ret, "bufferization.materialize_in_destination", 2,
                  operands, (MlirType){NULL}, restrictWritable, 2);
    }
    mlirOperationSetOperands(ret, 0, NULL);
  }

  intptr_t nargs = 1 + ni + no;
  MlirType *types = calloc((size_t)nargs, sizeof(MlirType));
  for (intptr_t i = 0; i < nargs; ++i)
    types[i] = mlirValueGetType(mlirBlockGetArgument(entry, i));
  mlirOperationSetAttributeByName(
      func, embStr("function_type"),
      mlirTypeAttrGet(mlirFunctionTypeGet(l->ctx, nargs, types, 0, NULL)));
  free(types);
  // Argument and result attributes described the old signature.
  mlirOperationRemoveAttributeByName(func, embStr("arg_attrs"));
  mlirOperationRemoveAttributeByName(func, embStr("res_attrs"));
}

//===----------------------------------------------------------------------===//
// Constants without elements
//===----------------------------------------------------------------------===//

/// The value of an arith.constant of a dense_resource, else null.
static MlirAttribute resourceValue(MlirOperation op) {
  if (!embOpIs(op, "arith.constant"))
    return (MlirAttribute){NULL};
  MlirAttribute v = mlirOperationGetAttributeByName(op, embStr("value"));
  return mlirAttributeIsADenseResourceElements(v) ? v : (MlirAttribute){NULL};
}

static bool isEmptyResource(MlirOperation op) {
  MlirAttribute v = resourceValue(op);
  return !mlirAttributeIsNull(v) &&
         embNumElements(mlirAttributeGetType(v)) == 0;
}

/// A dense_resource constant of a type without elements (tensor<2x0xf32>)
/// holds nothing: it becomes a tensor.empty of its type. (MLIR 22's LLVM
/// translation of the global bufferization makes of it divides by its
/// element count: SIGFPE.)
static void replaceEmptyResources(MlirOperation func) {
  size_t n = 0;
  MlirOperation *consts = embCollectOps(func, isEmptyResource, &n);
  for (size_t i = 0; i < n; ++i) {
    MlirValue old = mlirOperationGetResult(consts[i], 0);
    MlirType t = mlirValueGetType(old);
    MlirOperationState st = mlirOperationStateGet(
        embStr("tensor.empty"), mlirOperationGetLocation(consts[i]));
    mlirOperationStateAddResults(&st, 1, &t);
    MlirOperation empty = mlirOperationCreate(&st);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(consts[i]),
                                        consts[i], empty);
    mlirValueReplaceAllUsesOfWith(old, mlirOperationGetResult(empty, 0));
    mlirOperationDestroy(consts[i]);
  }
  free(consts);
}

static bool isScalarResource(MlirOperation op) {
  MlirAttribute v = resourceValue(op);
  return !mlirAttributeIsNull(v) &&
         mlirShapedTypeGetRank(mlirAttributeGetType(v)) == 0;
}

/// A dense_resource constant of rank 0 (tensor<f32>: a scalar weight kept
/// as a resource) becomes a dense one of its blob's value: MLIR 22's
/// memref-to-LLVM lowering takes the splat value of a rank-0 global's
/// initializer, which a dense_resource does not give (it aborts). The
/// checks above made sure the blob exists; its size was checked when the
/// module was read (tools/common/upstream.c). An element type the runtime
/// has no dtype for is refused here, naming the constant.
static void denseScalarResources(EmbLowering *l, MlirOperation func) {
  size_t n = 0;
  MlirOperation *consts = embCollectOps(func, isScalarResource, &n);
  for (size_t i = 0; i < n && !l->failed; ++i) {
    MlirAttribute v =
        mlirOperationGetAttributeByName(consts[i], embStr("value"));
    MlirType t = mlirAttributeGetType(v);
    MlirType e = mlirShapedTypeGetElementType(t);
    int64_t bytes = 0;
    uint8_t *data = embReadResource(v, t, &bytes);
    if (!data) {
      embLowerFail(l, consts[i],
                   "a dense_resource scalar of this element type is not "
                   "lowered (no runtime dtype)");
      break;
    }
    MlirAttribute dense;
    if (mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 1) {
      int bit = data[0] != 0;
      dense = mlirDenseElementsAttrBoolGet(t, 1, &bit);
    } else {
      dense = mlirDenseElementsAttrRawBufferGet(t, (size_t)bytes, data);
    }
    free(data);
    mlirOperationSetAttributeByName(consts[i], embStr("value"), dense);
  }
  free(consts);
}

//===----------------------------------------------------------------------===//
// Splat constants
//===----------------------------------------------------------------------===//

/// The most bytes a splat constant keeps as a global of the compiled object.
static const int64_t kMaxSplatGlobalBytes = 64 << 10;

static bool isLargeSplat(MlirOperation op) {
  if (!embOpIs(op, "arith.constant"))
    return false;
  MlirAttribute v = mlirOperationGetAttributeByName(op, embStr("value"));
  if (!mlirAttributeIsADenseElements(v) || !mlirDenseElementsAttrIsSplat(v))
    return false;
  MlirType t = mlirAttributeGetType(v);
  int64_t n = embNumElements(t);
  int64_t eb = elementBytes(mlirShapedTypeGetElementType(t));
  // A complex splat has no scalar arith.constant: it stays.
  return mlirTypeIsARankedTensor(t) && eb > 0 &&
         !mlirTypeIsAComplex(mlirShapedTypeGetElementType(t)) &&
         n > kMaxSplatGlobalBytes / eb;
}

/// A splat constant of more than kMaxSplatGlobalBytes (dense<0.0> :
/// tensor<16384x1024xf32>, which torch-mlir writes for a zero init) becomes
/// a linalg.fill of its value into a tensor.empty: bufferized as it is, it
/// would be a global of every element in the object file (64 MiB for that
/// one; LLVM aborts past 2^32 elements). Constants that elementwise ops
/// fold into their bodies never get here as operands; the rest are filled
/// at run time, at the cost of a write of their bytes.
static void fillLargeSplats(EmbLowering *l, MlirOperation func) {
  size_t n = 0;
  MlirOperation *consts = embCollectOps(func, isLargeSplat, &n);
  for (size_t i = 0; i < n; ++i) {
    MlirOperation c = consts[i];
    MlirValue old = mlirOperationGetResult(c, 0);
    MlirType t = mlirValueGetType(old);
    MlirType e = mlirShapedTypeGetElementType(t);
    MlirAttribute v = mlirOperationGetAttributeByName(c, embStr("value"));
    l->b = (EmbBuilder){l->ctx, mlirOperationGetLocation(c),
                        mlirOperationGetBlock(c), c};
    MlirNamedAttribute value =
        embNamedAttr(l->ctx, "value", mlirDenseElementsAttrGetSplatValue(v));
    MlirOperation scalar =
        embBuildOp(&l->b, "arith.constant", 0, NULL, 1, &e, 1, &value);
    MlirOperation empty =
        embBuildOp(&l->b, "tensor.empty", 0, NULL, 1, &t, 0, NULL);
    MlirValue operands[2] = {mlirOperationGetResult(scalar, 0),
                             mlirOperationGetResult(empty, 0)};
    int32_t segments[2] = {1, 1}; // ins, outs
    MlirOperationState st =
        mlirOperationStateGet(embStr("linalg.fill"), l->b.loc);
    mlirOperationStateAddOperands(&st, 2, operands);
    mlirOperationStateAddResults(&st, 1, &t);
    MlirNamedAttribute seg =
        embNamedAttr(l->ctx, "operandSegmentSizes",
                     mlirDenseI32ArrayGet(l->ctx, 2, segments));
    mlirOperationStateAddAttributes(&st, 1, &seg);
    MlirRegion body = mlirRegionCreate();
    mlirOperationStateAddOwnedRegions(&st, 1, &body);
    MlirOperation fill = mlirOperationCreate(&st);
    mlirLinalgFillBuiltinNamedOpRegion(fill);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(c), c, fill);
    mlirValueReplaceAllUsesOfWith(old, mlirOperationGetResult(fill, 0));
    mlirOperationDestroy(c);
  }
  free(consts);
}

//===----------------------------------------------------------------------===//
// tensor.empty
//===----------------------------------------------------------------------===//

static bool isEmpty(MlirOperation op) { return embOpIs(op, "tensor.empty"); }

/// torch-mlir's output, after its CSE, has one tensor.empty feed every op of
/// its shape; one-shot-bufferize and eliminate-empty-tensors then analyse
/// one alias set through all of them, in time quadratic in their number (10 s
/// each for 500 generics here). An empty tensor holds nothing, so each use
/// gets a copy of its own, made right before the user (its dynamic sizes
/// dominate the original, hence the user), and the original goes: the
/// analysis is linear again.
static void splitEmptyTensors(MlirOperation func) {
  size_t n = 0;
  MlirOperation *empties = embCollectOps(func, isEmpty, &n);
  for (size_t i = 0; i < n; ++i) {
    MlirValue v = mlirOperationGetResult(empties[i], 0);
    size_t numUses = 0;
    for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
         u = mlirOpOperandGetNextUse(u))
      ++numUses;
    if (numUses < 2)
      continue;
    MlirOpOperand *uses = calloc(numUses, sizeof(MlirOpOperand));
    numUses = 0;
    for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
         u = mlirOpOperandGetNextUse(u))
      uses[numUses++] = u;
    for (size_t k = 0; k < numUses; ++k) {
      MlirOperation user = mlirOpOperandGetOwner(uses[k]);
      MlirOperation copy = mlirOperationClone(empties[i]);
      mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(user), user,
                                          copy);
      mlirOperationSetOperand(user, mlirOpOperandGetOperandNumber(uses[k]),
                              mlirOperationGetResult(copy, 0));
    }
    free(uses);
    mlirOperationDestroy(empties[i]);
  }
  free(empties);
}

//===----------------------------------------------------------------------===//
// emb ops
//===----------------------------------------------------------------------===//

/// Maps tensor `v` to a fresh read-only buffer of it, made at the builder's
/// point (right before the op that reads it).
static void mapBuffer(EmbLowering *l, MlirValue v) {
  MlirType t = mlirValueGetType(v);
  MlirNamedAttribute readOnly =
      embNamedAttr(l->ctx, "read_only", mlirUnitAttrGet(l->ctx));
  MlirType mt = embMemrefTypeOf(t);
  MlirValue buffer = mlirOperationGetResult(
      embBuildOp(&l->b, "bufferization.to_buffer", 1, &v, 1, &mt, 1, &readOnly),
      0);
  EmbMapped m = embBufferMapping(l, buffer);
  embMapValue(l, v, &m);
}

/// Maps what `op` reads: its tensor operands and the tables behind its
/// table handles, or for an emb.ikbo_lce what its plan reads instead of its
/// weights and embeddings (ikbo_read_through.c), and its index.
static void mapOperands(EmbLowering *l, MlirOperation op) {
  if (embOwnerOf(l, op) == EMB_OWNER_GEMM) {
    MlirValue sources[3];
    int n = 0;
    embGemmSources(l, op, sources, &n);
    for (int i = 0; i < n; ++i)
      mapBuffer(l, sources[i]);
    return;
  }
  EmbIkboPlan *p = embFindIkboPlan(l, op);
  if (p) {
    for (int s = 0; s < 2; ++s) {
      mapBuffer(l, p->w[s]);
      if (s == 0 || !p->numPieces)
        mapBuffer(l, p->x[s]);
    }
    for (int q = 0; q < p->numPieces; ++q)
      if (!mlirValueIsNull(p->pieces[q]))
        mapBuffer(l, p->pieces[q]);
    mapBuffer(l, mlirOperationGetOperand(op, 4));
    return;
  }
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (mlirTypeIsATensor(mlirValueGetType(v))) {
      mapBuffer(l, v);
    } else if (mlirValueIsAOpResult(v) &&
               embOpIs(mlirOpResultGetOwner(v), EMB_OP_TABLE)) {
      MlirValue table = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
      mapBuffer(l, table);
      embMapValue(l, v, embLookupValue(l, table));
    }
  }
}

/// One emb op: its call on buffers, its workspaces freed after it, its
/// results back as tensors.
static void lowerEmbOp(EmbLowering *l, MlirOperation op) {
  MlirBlock block = mlirOperationGetBlock(op);
  l->b = (EmbBuilder){l->ctx, mlirOperationGetLocation(op), block, op};
  mapOperands(l, op);
  bool gemm = embOwnerOf(l, op) == EMB_OWNER_GEMM;
  if (!(gemm ? embLowerGemm(l, op) : embLowerEmbOp(l, op)) || l->failed)
    return;
  for (size_t i = 0; i < l->numOwned; ++i) {
    MlirValue args[2] = {l->ctxArg, l->owned[i]};
    embCallRuntime(l, EMB_RT_FREE, 2, args, (MlirType){NULL});
  }
  l->numOwned = 0;
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i) {
    MlirValue r = mlirOperationGetResult(op, i);
    EmbMapped *m = embLookupValue(l, r);
    if (!m || mlirValueIsNull(m->memref)) {
      embLowerFail(l, op, "a result was not lowered");
      return;
    }
    MlirOperation t =
        buildBefore(l, block, op, "bufferization.to_tensor", 1, &m->memref,
                    mlirValueGetType(r), restrictWritable, 2);
    // A plan that reads `r` (the op is destroyed below) reads its tensor.
    embReplaceInPlans(l, r, mlirOperationGetResult(t, 0));
    mlirValueReplaceAllUsesOfWith(r, mlirOperationGetResult(t, 0));
  }
  mlirOperationDestroy(op);
  if (gemm)
    embEraseGemmParts(l, op); // finds the chain by `op`'s address alone
}

/// Whether `op` is an emb op or the last op of a matmul chain (which the
/// classification gave runtime calls).
static bool isRuntimeCall(EmbLowering *l, MlirOperation op) {
  EmbOwner owner = embOwnerOf(l, op);
  return owner == EMB_OWNER_EMB_OPS || owner == EMB_OWNER_GEMM;
}

static void lowerEmbOps(EmbLowering *l, MlirBlock body) {
  size_t n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    n += isRuntimeCall(l, op);
  // emb.table names a table for its users; the tables go once they are
  // lowered, so they are listed after the ops.
  MlirOperation *ops = calloc(n + 1, sizeof(MlirOperation));
  size_t numOps = 0, numTables = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (embOpIs(op, EMB_OP_TABLE))
      ops[n - ++numTables] = op;
    else if (isRuntimeCall(l, op))
      ops[numOps++] = op;
  }
  for (size_t i = 0; i < numOps && !l->failed; ++i)
    lowerEmbOp(l, ops[i]);
  for (size_t i = numOps; i < n && !l->failed; ++i)
    mlirOperationDestroy(ops[i]);
  free(ops);
}

//===----------------------------------------------------------------------===//
// The function
//===----------------------------------------------------------------------===//

void embLowerMixedFunction(EmbLowering *l, MlirOperation func) {
  MlirType ft = mlirTypeAttrGetValue(
      mlirOperationGetAttributeByName(func, embStr("function_type")));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0));
  Check c = {l, body};
  mlirOperationWalk(func, checkOp, &c, MlirWalkPreOrder);
  if (l->failed)
    return;

  l->mixed = true;
  l->numResults = 0; // results are copied out: no op claims an out buffer
  l->numOwned = 0;
  l->mapCap = 1024;
  l->mapCount = 0;
  l->map = calloc(l->mapCap, sizeof(EmbMapped *));
  rewriteSignature(l, func, ft);
  replaceEmptyResources(func);
  denseScalarResources(l, func);
  if (l->failed)
    return;
  fillLargeSplats(l, func);
  splitEmptyTensors(func);
  // The model's divisions, before the lowering adds its own.
  embGuardIntegerDivisions(l, func);
  // emb ops first: a cf.assert of the function's own block moves the rest of
  // the block, emb ops and their calls with it, into its passing path.
  // Classified again: the rewrites above changed the ops the plans read.
  embClassifyFunction(l, func);
  lowerEmbOps(l, body);
  if (!l->failed)
    embGuardExtents(l, func);
  if (!l->failed)
    embGuardElementBounds(l, func);
  if (!l->failed)
    embGuardAsserts(l, func);
  MlirAttribute no = mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 64),
                                        mlirFunctionTypeGetNumResults(ft));
  mlirOperationSetAttributeByName(func, embStr("llvm.emit_c_interface"),
                                  mlirUnitAttrGet(l->ctx));
  mlirOperationSetAttributeByName(func, embStr("emb.target"),
                                  mlirStringAttrGet(l->ctx, embStr("cpu")));
  mlirOperationSetAttributeByName(func, embStr("emb.num_results"), no);
}
