//===- codegen/lower_to_runtime.c - emb-lower-to-runtime ------------------===//
//
// Lowers every function of a module from tensors to calls into the emb
// runtime (include/emb/compiled.h), buffer by buffer:
//
//   func.func @f(%a: tensor<...>, ...) -> (tensor<...>, ...)
// becomes
//   func.func @f(%ctx: !llvm.ptr, %a: memref<...>, ..., %r0: memref<...>, ...)
//       attributes {llvm.emit_c_interface, emb.target = "cuda",
//                   emb.num_results = N}
//
// Results are written into caller-provided buffers (the trailing memrefs);
// the op that computes a returned value writes straight into its buffer.
// Every other tensor is a buffer allocated through the runtime
// (embrtCompiledAlloc: device memory on CUDA, never managed memory) and freed
// before the function returns; expand_shape, collapse_shape and cast alias
// their operand's buffer. Each op becomes one call whose attrs array carries
// what is known at compile time (dtypes, enums, the launch configuration) and
// whose dims array carries sizes, constant where the shape is static.
//
// Functions whose every op maps to the runtime (emb ops, tensor.concat/
// extract_slice/expand_shape/collapse_shape/cast/empty/dim, splat, dense and
// dense_resource constants, elementwise arith and math on tensors, linalg
// matmul chains (gemm.c: embrtGemm), and scalar arith, which is copied) are
// lowered the same way for both targets:
// the compiled code runs on the device of the runtime context it is given.
// `target` selects the launch configurations and is recorded for the runner.
// emb.ikbo_lce reads its weights as strided views and through zero padding of
// K, so the copies that would feed it are not made (ikbo_read_through.c).
//
// A function with any other op (linalg, scf, cf.assert, tensor.pad, ...) is
// a mixed function: on the cpu target it keeps those ops at the tensor level
// for MLIR's bufferization and lowering, with emb ops as runtime calls on
// buffers among them (mixed_functions.c); on the cuda target its linalg ops
// and arith and math ops on tensors become GPU kernels that MLIR generates,
// launched on the runtime path's buffers (gpu/), and any other op
// is an error naming it. A function that carries an emb.target attribute
// is lowered for that target (emb-compile --reference-target).
//
// Precondition: the module verifies. Postcondition: no emb op remains; a
// function of the first kind has no tensor values left and uses only func,
// arith, memref and llvm ops; a mixed one keeps tensors inside a signature of
// buffers.
//
// This file is the pass: its options, the walk over functions and ops, the
// new signatures and the copies and frees at the return. Which path a
// function takes and which lowering owns each op are decided once, by
// classify.c; each op is handed to its owner (emb_ops.c, tensor_ops.c,
// constants.c, gemm.c, gpu/), which lowers it on the value map and call
// helpers of buffers.c (lowering.h), and every plan is freed here once the
// function is done.
//
//===----------------------------------------------------------------------===//

#include "codegen.h"
#include "lowering.h"

#include "ir.h"
#include "pass.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Slots of a function's value map to begin with (a power of two: the map
/// is open addressing on the value's pointer); it doubles when half full.
enum { initialMapCapacity = 1024 };

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static const EmbPassOption optionRows[] = {
    {.name = "target",
     .kind = EMB_OPTION_ENUM,
     .offset = offsetof(EmbLowerToRuntimeOptions, target),
     .defaultValue = "cpu",
     .choices = "cpu|cuda", // in EmbTarget's order
     .help = "the device whose launch configurations are chosen"},
};

const EmbOptionTable embLowerToRuntimeOptions = {
    optionRows, EMB_NUM_OPTIONS(optionRows), sizeof(EmbLowerToRuntimeOptions)};

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// Scalar ops (index arithmetic, scalar constants) are copied with their
/// operands remapped.
static void copyScalarOp(EmbLowering *l, MlirOperation op) {
  MlirOperation copy = mlirOperationClone(op);
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    EmbMapped *m = embLookupValue(l, mlirOperationGetOperand(op, i));
    if (!m || m->isTensor) {
      mlirOperationDestroy(copy);
      embLowerFail(l, op, "a scalar operand was not lowered");
      return;
    }
    mlirOperationSetOperand(copy, i, m->value);
  }
  if (!mlirOperationIsNull(l->b.before))
    mlirBlockInsertOwnedOperationBefore(l->b.block, l->b.before, copy);
  else
    mlirBlockAppendOwnedOperation(l->b.block, copy);
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i) {
    EmbMapped m;
    memset(&m, 0, sizeof m);
    m.value = mlirOperationGetResult(copy, i);
    embMapValue(l, mlirOperationGetResult(op, i), &m);
  }
}

/// Hands `op` to the lowering that owns it (classify.c).
static void lowerOp(EmbLowering *l, MlirOperation op) {
  EmbOwner owner = embOwnerOf(l, op);
  if (owner == EMB_OWNER_SKIPPED)
    return;
  l->b.loc = mlirOperationGetLocation(op);
  switch (owner) {
  case EMB_OWNER_GEMM_PART:
    return; // the chain's last op makes the call (gemm.c)
  case EMB_OWNER_GPU_KERNEL:
    embLowerGpuKernel(l, op); // the group's last op compiles its kernels
    return;
  case EMB_OWNER_GEMM:
    embLowerGemm(l, op);
    return;
  case EMB_OWNER_EMB_OPS:
    if (embLowerEmbOp(l, op))
      return;
    break; // an emb op without a runtime call
  case EMB_OWNER_TENSOR_OPS:
    embLowerTensorOp(l, op);
    return;
  case EMB_OWNER_CONSTANTS:
    embLowerConstantOp(l, op);
    return;
  case EMB_OWNER_SCALAR_COPY:
    copyScalarOp(l, op);
    return;
  case EMB_OWNER_NONE:
  case EMB_OWNER_SKIPPED:
  case EMB_OWNER_MLIR:
    break;
  }
  if (l->target == EMB_TARGET_CUDA)
    // linalg ops and arith and math on tensors are GPU kernels
    // (gpu/); the cpu target compiles the rest with MLIR
    // (mixed_functions.c).
    embLowerFail(l, op,
                 "every op must map to a runtime call or a GPU kernel (linalg "
                 "ops and arith and math on tensors), and emb has no GPU "
                 "lowering for this one (the cpu target compiles it)");
  else
    embLowerFail(l, op, "every op must map to a runtime call");
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

static bool checkSignature(EmbLowering *l, MlirOperation func, MlirType ft) {
  intptr_t i = embFindNonRuntimeTensor(ft);
  if (i < 0)
    return true;
  intptr_t ni = mlirFunctionTypeGetNumInputs(ft);
  MlirType t = i < ni ? mlirFunctionTypeGetInput(ft, i)
                      : mlirFunctionTypeGetResult(ft, i - ni);
  char ts[128];
  embPrintType(t, ts, sizeof ts);
  embEmitErrorf(mlirOperationGetLocation(func),
                "emb-lower-to-runtime: %s #%lld of the function is %s; "
                "entry functions take and return ranked tensors of at "
                "most %d dims with a runtime element type",
                i < ni ? "argument" : "result",
                (long long)(i < ni ? i : i - ni), ts, EMBRT_MAX_RANK);
  l->failed = true;
  return false;
}

/// Whether ranked tensor type `t` has a `?` dim.
/// The value whose producer writes the out buffer of a returned value `v`:
/// `v` itself, or the operand of the expand_shape and collapse_shape chain
/// (of static shapes: the same elements in the same order) that makes it.
/// Through such a chain the producer writes the out buffer and the reshapes
/// alias it, where a copy of the whole result would follow otherwise.
static MlirValue writerOfResult(MlirValue v) {
  MlirOperation op;
  while (mlirValueIsAOpResult(v) &&
         (op = mlirOpResultGetOwner(v),
          embOpIs(op, "tensor.expand_shape") ||
              embOpIs(op, "tensor.collapse_shape"))) {
    MlirValue src = mlirOperationGetOperand(op, 0);
    if (!mlirShapedTypeHasStaticShape(mlirValueGetType(src)) ||
        !mlirShapedTypeHasStaticShape(mlirValueGetType(v)))
      break;
    v = src;
  }
  return v;
}

static bool hasDynamicDim(MlirType t) {
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i)
    if (mlirShapedTypeIsDynamicDim(t, i))
      return true;
  return false;
}

/// Fills the embrtCompiledResult `record` of a result with a `?` dim from
/// its lowered value `m`: a buffer this function allocated is handed over
/// (not freed at the return); any other (an input, an out buffer, a value
/// returned twice) is copied into a new allocation the caller will own.
static void fillDynamicResult(EmbLowering *l, MlirValue record, EmbMapped *m,
                              MlirType type) {
  MlirValue data = {NULL};
  for (size_t k = 0; k < l->numOwned; ++k) {
    if (l->owned[k].ptr != m->value.ptr)
      continue;
    data = l->owned[k];
    l->owned[k] = l->owned[--l->numOwned];
    break;
  }
  if (mlirValueIsNull(data)) {
    EmbDim bytes = embMulDim(l, embDimProduct(l, m, 0, m->rank),
                             embConstDim(embTensorElementBytes(type)));
    MlirValue allocArgs[2] = {l->ctxArg, embDimValue(l, &bytes)};
    data = embCallRuntime(l, EMB_RT_ALLOC, 2, allocArgs, embPtrType(l->ctx));
    MlirValue copyArgs[5] = {
        l->ctxArg, embBuildConstI64(&l->b, EMBRT_COPY_DEVICE_TO_DEVICE), data,
        m->value, embDimValue(l, &bytes)};
    embCallRuntime(l, EMB_RT_COPY, 5, copyArgs, (MlirType){NULL});
  }
  MlirType i64 = embI64Type(l->ctx);
  // { void *data; int64_t rank; int64_t dims[EMBRT_MAX_RANK]; }: 8-byte
  // fields, addressed as i64 slots.
  embBuildStoreAt(&l->b, record, embPtrType(l->ctx), 0, data);
  embBuildStoreAt(&l->b, record, i64, 1, embBuildConstI64(&l->b, m->rank));
  for (int d = 0; d < m->rank; ++d)
    embBuildStoreAt(&l->b, record, i64, 2 + d, embDimValue(l, &m->dims[d]));
}

/// Lowers one function; replaces it in the module on success.
static void lowerFunction(EmbLowering *l, MlirOperation func) {
  MlirType ft = mlirTypeAttrGetValue(
      mlirOperationGetAttributeByName(func, embStr("function_type")));
  intptr_t ni = mlirFunctionTypeGetNumInputs(ft);
  intptr_t no = mlirFunctionTypeGetNumResults(ft);
  MlirRegion oldRegion = mlirOperationGetRegion(func, 0);
  MlirBlock oldBlock = mlirRegionGetFirstBlock(oldRegion);
  if (mlirBlockIsNull(oldBlock))
    return; // a declaration
  if (!mlirBlockIsNull(mlirBlockGetNextInRegion(oldBlock))) {
    embEmitErrorf(mlirOperationGetLocation(func),
                  "emb-lower-to-runtime: functions with more than one block "
                  "are not supported");
    l->failed = true;
    return;
  }

  // The new signature: (ctx, inputs..., outputs...) -> ().
  MlirLocation loc = mlirOperationGetLocation(func);
  intptr_t nargs = 1 + ni + no;
  MlirType *types = calloc((size_t)nargs, sizeof(MlirType));
  MlirLocation *locs = calloc((size_t)nargs, sizeof(MlirLocation));
  types[0] = embPtrType(l->ctx);
  for (intptr_t i = 0; i < ni; ++i)
    types[1 + i] = embMemrefTypeOf(mlirFunctionTypeGetInput(ft, i));
  for (intptr_t i = 0; i < no; ++i) {
    MlirType r = mlirFunctionTypeGetResult(ft, i);
    types[1 + ni + i] =
        hasDynamicDim(r) ? embPtrType(l->ctx) : embMemrefTypeOf(r);
  }
  for (intptr_t i = 0; i < nargs; ++i)
    locs[i] = loc;
  MlirBlock block = mlirBlockCreate(nargs, types, locs);
  MlirType newType = mlirFunctionTypeGet(l->ctx, nargs, types, 0, NULL);
  free(types);
  free(locs);

  l->b = (EmbBuilder){l->ctx, loc, block, {NULL}};
  l->ctxArg = mlirBlockGetArgument(block, 0);
  l->numOwned = 0;
  l->mapCap = initialMapCapacity;
  l->mapCount = 0;
  l->map = calloc(l->mapCap, sizeof(EmbMapped *));
  for (intptr_t i = 0; i < ni; ++i) {
    EmbMapped m = embBufferMapping(l, mlirBlockGetArgument(block, 1 + i));
    embMapValue(l, mlirBlockGetArgument(oldBlock, i), &m);
  }

  // Out buffers, and which values the function returns.
  MlirOperation ret = mlirBlockGetTerminator(oldBlock);
  l->numResults = no;
  l->returned = calloc((size_t)no + 1, sizeof(void *));
  l->outs = calloc((size_t)no + 1, sizeof(EmbMapped));
  l->claimed = calloc((size_t)no + 1, sizeof(bool));
  l->dynamicResult = calloc((size_t)no + 1, sizeof(bool));
  l->reshapedResult = calloc((size_t)no + 1, sizeof(bool));
  for (intptr_t i = 0; i < no; ++i) {
    MlirValue v = mlirOperationGetOperand(ret, i);
    if (hasDynamicDim(mlirFunctionTypeGetResult(ft, i))) {
      // Filled at the return (fillDynamicResult); no op writes into it.
      l->dynamicResult[i] = true;
      continue;
    }
    l->outs[i] = embBufferMapping(l, mlirBlockGetArgument(block, 1 + ni + i));
    MlirValue writer = writerOfResult(v);
    l->reshapedResult[i] = !mlirValueEqual(writer, v);
    v = writer;
    // An argument returned as is, or a value returned twice, is copied.
    bool seen = false;
    for (intptr_t j = 0; j < i; ++j)
      seen |= l->returned[j] == v.ptr;
    l->returned[i] = seen || mlirValueIsABlockArgument(v) ? NULL : v.ptr;
  }

  embPlanGpuKernels(l, oldBlock);
  for (MlirOperation op = mlirBlockGetFirstOperation(oldBlock);
       !mlirOperationIsNull(op) && !l->failed;
       op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationEqual(op, ret))
      break;
    lowerOp(l, op);
  }

  if (!l->failed) {
    // Returned values that did not write into their out buffer are copied.
    l->b.loc = mlirOperationGetLocation(ret);
    for (intptr_t i = 0; i < no; ++i) {
      MlirValue v = mlirOperationGetOperand(ret, i);
      EmbMapped *m = embLookupValue(l, v);
      if (!m || !m->isTensor) {
        embLowerFail(l, ret, "a returned value was not lowered");
        break;
      }
      if (l->dynamicResult[i]) {
        fillDynamicResult(l, mlirBlockGetArgument(block, 1 + ni + i), m,
                          mlirValueGetType(v));
        continue;
      }
      if (m->value.ptr == l->outs[i].value.ptr)
        continue;
      EmbDim bytes =
          embMulDim(l, embDimProduct(l, m, 0, m->rank),
                    embConstDim(embTensorElementBytes(mlirValueGetType(v))));
      MlirValue args[5] = {l->ctxArg,
                           embBuildConstI64(&l->b, EMBRT_COPY_DEVICE_TO_DEVICE),
                           l->outs[i].value, m->value, embDimValue(l, &bytes)};
      embCallRuntime(l, EMB_RT_COPY, 5, args, (MlirType){NULL});
    }
    embDeclareRuntime(l, EMB_RT_FREE);
    for (size_t i = 0; i < l->numOwned; ++i) {
      MlirValue args[2] = {l->ctxArg, l->owned[i]};
      embCallRuntime(l, EMB_RT_FREE, 2, args, (MlirType){NULL});
    }
    embBuildOp(&l->b, "func.return", 0, NULL, 0, NULL, 0, NULL);
  }

  if (l->failed) {
    mlirBlockDestroy(block);
  } else {
    // The new function takes the old one's place and name.
    MlirRegion region = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(region, block);
    MlirNamedAttribute attrs[5];
    int n = 0;
    attrs[n++] =
        embNamedAttr(l->ctx, "sym_name",
                     mlirOperationGetAttributeByName(func, embStr("sym_name")));
    attrs[n++] =
        embNamedAttr(l->ctx, "function_type", mlirTypeAttrGet(newType));
    attrs[n++] =
        embNamedAttr(l->ctx, "llvm.emit_c_interface", mlirUnitAttrGet(l->ctx));
    attrs[n++] = embNamedAttr(
        l->ctx, "emb.target",
        mlirStringAttrGet(
            l->ctx, embStr(l->target == EMB_TARGET_CUDA ? "cuda" : "cpu")));
    attrs[n++] =
        embNamedAttr(l->ctx, "emb.num_results",
                     mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 64), no));
    MlirOperationState st = mlirOperationStateGet(embStr("func.func"), loc);
    mlirOperationStateAddAttributes(&st, n, attrs);
    mlirOperationStateAddOwnedRegions(&st, 1, &region);
    MlirOperation newFunc = mlirOperationCreate(&st);
    MlirAttribute vis =
        mlirOperationGetAttributeByName(func, embStr("sym_visibility"));
    if (!mlirAttributeIsNull(vis))
      mlirOperationSetAttributeByName(newFunc, embStr("sym_visibility"), vis);
    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(func), func,
                                       newFunc);
    mlirOperationDestroy(func);
  }
  free(l->returned);
  free(l->outs);
  free(l->claimed);
  free(l->reshapedResult);
  free(l->dynamicResult);
  l->dynamicResult = NULL;
}

//===----------------------------------------------------------------------===//
// The ABI's version
//===----------------------------------------------------------------------===//

/// Makes the module reference embrtCompiledAbi<EMB_ABI_VERSION>
/// (emb/compiled.h): an internal constant holds its address and @llvm.used
/// keeps that constant through LLVM's optimizations, so every object and JIT
/// module of a lowered model needs the symbol, and one compiled for another
/// ABI version fails to link (or dlopen to load it) naming the version it
/// wants. No code calls it: the check costs nothing at run time.
static void referenceAbiVersion(EmbLowering *l) {
  const EmbRuntimeSymbol *abi = &embRuntimeSymbols[EMB_RT_ABI];
  static const char *const global = "emb_compiled_abi";
  if (embHasSymbol(l, global))
    return;
  MlirBlock body = mlirModuleGetBody(l->module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    char name[16];
    if (embGetStringAttr(op, "sym_name", name, sizeof name) &&
        !strcmp(name, "llvm.used")) {
      embEmitErrorf(mlirOperationGetLocation(op),
                    "emb-lower-to-runtime: the module defines @llvm.used, "
                    "which the lowering needs to record the runtime ABI "
                    "version it was compiled for (%s)",
                    abi->name);
      l->failed = true;
      return;
    }
  }
  // Parsed as one module (an address is verified against its symbol's
  // definition), then moved into this one.
  char text[1024];
  snprintf(text, sizeof text,
           "llvm.func @%s%s\n"
           "llvm.mlir.global internal constant @%s() : !llvm.ptr {\n"
           "  %%0 = llvm.mlir.addressof @%s : !llvm.ptr\n"
           "  llvm.return %%0 : !llvm.ptr\n}\n"
           "llvm.mlir.global appending @llvm.used() "
           "{section = \"llvm.metadata\"} : !llvm.array<1 x ptr> {\n"
           "  %%0 = llvm.mlir.addressof @%s : !llvm.ptr\n"
           "  %%1 = llvm.mlir.undef : !llvm.array<1 x ptr>\n"
           "  %%2 = llvm.insertvalue %%0, %%1[0] : !llvm.array<1 x ptr>\n"
           "  llvm.return %%2 : !llvm.array<1 x ptr>\n}\n",
           abi->name, abi->signature, global, abi->name, global);
  bool declared = embHasSymbol(l, abi->name);
  MlirModule parsed = mlirModuleCreateParse(l->ctx, embStr(text));
  MlirBlock from = mlirModuleGetBody(parsed);
  MlirOperation op = mlirBlockGetFirstOperation(from);
  while (!mlirOperationIsNull(op)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    if (!declared || !embOpIs(op, "llvm.func")) {
      mlirOperationRemoveFromParent(op);
      mlirBlockAppendOwnedOperation(body, op);
    }
    op = next;
  }
  mlirModuleDestroy(parsed);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Frees every plan the lowering of one function made (the classification
/// and the plans it read, the GPU kernel groups, the counts read on the
/// host) and its value map, once the function is done.
static void endFunction(EmbLowering *l) {
  l->mixed = false;
  embFreeValueMap(l);
  embFreeClassification(l);
  embFreeGpuKernelPlans(l);
  free(l->hostCounts);
  l->hostCounts = NULL;
  l->numHostCounts = 0;
}

static void run(MlirOperation op, MlirExternalPass pass, const void *options) {
  EmbLowering l;
  memset(&l, 0, sizeof l);
  l.target = (EmbTarget)((const EmbLowerToRuntimeOptions *)options)->target;
  l.ctx = mlirOperationGetContext(op);
  l.module = mlirModuleFromOperation(op);
  MlirBlock body = mlirModuleGetBody(l.module);
  // Collect the functions first: lowering replaces them in the block.
  size_t n = 0, cap = 16;
  MlirOperation *funcs = malloc(cap * sizeof(MlirOperation));
  for (MlirOperation f = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f)) {
    if (!embOpIs(f, "func.func"))
      continue;
    if (n == cap)
      funcs = realloc(funcs, (cap *= 2) * sizeof(MlirOperation));
    funcs[n++] = f;
  }
  EmbTarget target = l.target;
  size_t lowered = 0;
  for (size_t i = 0; i < n && !l.failed; ++i) {
    MlirRegion r = mlirOperationGetRegion(funcs[i], 0);
    if (mlirBlockIsNull(mlirRegionGetFirstBlock(r)))
      continue; // a declaration
    ++lowered;
    // A function that names its target (emb-compile --reference-target)
    // is lowered for it.
    char named[8];
    l.target = target;
    if (embGetStringAttr(funcs[i], "emb.target", named, sizeof named))
      l.target = !strcmp(named, "cuda") ? EMB_TARGET_CUDA : EMB_TARGET_CPU;
    MlirType ft = mlirTypeAttrGetValue(
        mlirOperationGetAttributeByName(funcs[i], embStr("function_type")));
    if (!checkSignature(&l, funcs[i], ft))
      break;
    if (embClassifyFunction(&l, funcs[i]))
      embLowerMixedFunction(&l, funcs[i]);
    else if (!l.failed)
      lowerFunction(&l, funcs[i]);
    endFunction(&l);
  }
  free(funcs);
  if (lowered && !l.failed)
    referenceAbiVersion(&l);
  free(l.owned);
  if (l.failed)
    mlirExternalPassSignalFailure(pass);
}

const EmbPassDef embLowerToRuntimePassDef = {
    .argument = "emb-lower-to-runtime",
    .name = "EmbLowerToRuntime",
    .summary = "Lower emb ops and tensors to calls into the emb runtime",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "builtin.module",
    .options = &embLowerToRuntimeOptions,
    .run = run,
};

MlirPass embCreateLowerToRuntimePass(EmbTarget target) {
  EmbLowerToRuntimeOptions o = {target};
  return embMakePass(&embLowerToRuntimePassDef, &o);
}
