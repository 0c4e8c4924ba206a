//===- codegen/gpu/host.c - Kernel launches as runtime calls --------------===//
//
// Host calls: the host side of a compiled group's module is not kept. Its
// gpu.launch_func ops, with constant grids, become calls of
// embrtCompiledLaunchKernel on the lowered function's buffers:
//
//   %ptx = llvm.mlir.addressof @__emb_kernels_0      // PTX text, NUL-ended
//   %name = llvm.mlir.addressof @__emb_kernel_name_0  // "emb_kernel_0_kernel"
//   call @embrtCompiledLaunchKernel(%ctx, %ptx, %bytes, %hash, %name,
//                                   %launch, %args, %nargs)
//
// its memref.alloc ops runtime allocations and its memref.copy ops runtime
// copies. Nothing of MLIR's GPU runtime (mgpu*) is called.
//
//===----------------------------------------------------------------------===//

#include "gpu.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// The host side, as runtime calls
//===----------------------------------------------------------------------===//

/// 64-bit FNV-1a of the PTX, its key in a context's module cache.
static uint64_t fnv1a(const char *p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ (uint8_t)p[i]) * 1099511628211ull;
  return h;
}

/// A NUL-terminated string as a private constant global; its address.
static MlirValue stringGlobal(EmbLowering *l, const char *prefix,
                              MlirStringRef s, int64_t *bytes) {
  char *text = malloc(s.length + 1);
  memcpy(text, s.data, s.length);
  text[s.length] = '\0';
  MlirAttribute value =
      mlirStringAttrGet(l->ctx, mlirStringRefCreate(text, s.length + 1));
  MlirValue p =
      embBuildConstantGlobal(l, prefix, value, (int64_t)s.length + 1, 0);
  free(text);
  if (bytes)
    *bytes = (int64_t)s.length + 1;
  return p;
}

static int64_t constantIndexOf(MlirValue v) {
  if (!mlirValueIsAOpResult(v))
    return -1;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!embOpIs(def, "arith.constant"))
    return -1;
  return mlirIntegerAttrGetValueInt(
      mlirOperationGetAttributeByName(def, embStr("value")));
}

/// Bytes of a static buffer of a runtime element type; 0 for another.
static int64_t bufferBytes(MlirType memref) {
  int64_t n = embNumElements(memref);
  int64_t size = embTensorElementBytes(mlirRankedTensorTypeGet(
      0, NULL, mlirShapedTypeGetElementType(memref), mlirAttributeGetNull()));
  if (!mlirShapedTypeHasStaticShape(memref) || n < 0 ||
      (size > 0 && n > INT64_MAX / size))
    return 0;
  return n * size;
}

/// The PTX of gpu.binary @name in `module`.
static bool binaryPtx(MlirModule module, MlirStringRef name,
                      MlirStringRef *ptx) {
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!embOpIs(op, "gpu.binary"))
      continue;
    MlirStringRef sym = mlirStringAttrGetValue(
        mlirOperationGetAttributeByName(op, embStr("sym_name")));
    if (!mlirStringRefEqual(sym, name))
      continue;
    MlirAttribute objects =
        mlirOperationGetAttributeByName(op, embStr("objects"));
    if (mlirArrayAttrGetNumElements(objects) != 1)
      return false;
    MlirAttribute object = mlirArrayAttrGetElement(objects, 0);
    if (!mlirAttributeIsAGPUObjectAttr(object))
      return false;
    *ptx = mlirGPUObjectAttrGetObject(object);
    return true;
  }
  return false;
}

/// The PTX global of each binary, made once a group.
typedef struct Emitted {
  MlirStringRef name;
  MlirValue ptx;
  int64_t bytes;
  uint64_t hash;
} Emitted;

/// Emits the host function of the compiled module `module` (function
/// `fn`) as runtime calls in the lowered function, its arguments being the
/// buffers `args`.
bool embGpuEmitHost(EmbLowering *l, MlirModule module, MlirOperation fn,
                    const MlirValue *args, char *why, size_t n) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0));
  ValueMap buffers = {0};
  for (intptr_t i = 0, na = mlirBlockGetNumArguments(body); i < na; ++i)
    embGpuMapPut(&buffers, mlirBlockGetArgument(body, i), args[i]);
  Emitted emitted[64];
  size_t numEmitted = 0;
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op) && ok; op = mlirOperationGetNextInBlock(op)) {
    if (embOpIs(op, "arith.constant") || embOpIs(op, "func.return"))
      continue;
    if (embOpIs(op, "memref.alloc")) {
      MlirType t = mlirValueGetType(result0(op));
      if (!mlirShapedTypeHasStaticShape(t)) {
        snprintf(why, n, "an intermediate buffer has a dynamic shape");
        ok = false;
        break;
      }
      int64_t bytes = bufferBytes(t);
      if (bytes <= 0) {
        snprintf(why, n, "an intermediate buffer has no runtime element type");
        ok = false;
        break;
      }
      embGpuMapPut(&buffers, result0(op), embAllocBytes(l, embConstDim(bytes)));
      continue;
    }
    if (embOpIs(op, "memref.copy")) {
      MlirValue src = embGpuMapGet(&buffers, mlirOperationGetOperand(op, 0));
      MlirValue dst = embGpuMapGet(&buffers, mlirOperationGetOperand(op, 1));
      MlirType t = mlirValueGetType(mlirOperationGetOperand(op, 0));
      int64_t bytes = bufferBytes(t);
      if (mlirValueIsNull(src) || mlirValueIsNull(dst) || bytes <= 0) {
        snprintf(why, n, "a copy between views is left on the host");
        ok = false;
        break;
      }
      MlirValue a[5] = {l->ctxArg,
                        embBuildConstI64(&l->b, EMBRT_COPY_DEVICE_TO_DEVICE),
                        dst, src, embBuildConstI64(&l->b, bytes)};
      embCallRuntime(l, EMB_RT_COPY, 5, a, (MlirType){NULL});
      continue;
    }
    if (!embOpIs(op, "gpu.launch_func")) {
      char name[64];
      embOpName(op, name, sizeof name);
      snprintf(why, n, "MLIR's GPU pipeline left '%s' on the host", name);
      ok = false;
      break;
    }
    MlirAttribute kernel =
        mlirOperationGetAttributeByName(op, embStr("kernel"));
    MlirStringRef moduleName = mlirSymbolRefAttrGetRootReference(kernel);
    MlirStringRef kernelName = mlirFlatSymbolRefAttrGetValue(
        mlirSymbolRefAttrGetNestedReference(kernel, 0));
    MlirAttribute seg =
        mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
    int32_t sizes[16];
    intptr_t numSeg = mlirDenseArrayGetNumElements(seg);
    intptr_t firstArg = 0;
    for (intptr_t s = 0; s < numSeg && s < 16; ++s)
      sizes[s] = mlirDenseI32ArrayGetElement(seg, s);
    // async deps, grid x y z, block x y z, cluster x y z, dynamic shared
    // memory, kernel operands, async object.
    if (numSeg != 13 || sizes[0] != 0 || sizes[7] + sizes[8] + sizes[9] != 0) {
      snprintf(why, n, "a kernel launch is asynchronous or has clusters");
      ok = false;
      break;
    }
    int64_t launch[EMB_ABI_LAUNCH_COUNT];
    for (int k = 0; k < 6; ++k) {
      launch[EMB_ABI_LAUNCH_GRID_X + k] =
          constantIndexOf(mlirOperationGetOperand(op, k));
      if (launch[EMB_ABI_LAUNCH_GRID_X + k] < 1) {
        snprintf(why, n, "a kernel's grid is not a constant");
        ok = false;
      }
    }
    launch[EMB_ABI_LAUNCH_SHARED_BYTES] = 0;
    if (sizes[10] == 1) {
      launch[EMB_ABI_LAUNCH_SHARED_BYTES] =
          constantIndexOf(mlirOperationGetOperand(op, 6));
      firstArg = 1;
    }
    firstArg += 6;
    intptr_t numArgs = sizes[11];
    if (!ok || numArgs > EMB_MAX_KERNEL_ARGS) {
      if (ok)
        snprintf(why, n, "a kernel takes more than %d arguments",
                 EMB_MAX_KERNEL_ARGS);
      ok = false;
      break;
    }
    MlirValue kargs[EMB_MAX_KERNEL_ARGS];
    for (intptr_t a = 0; a < numArgs && ok; ++a) {
      kargs[a] =
          embGpuMapGet(&buffers, mlirOperationGetOperand(op, firstArg + a));
      if (mlirValueIsNull(kargs[a])) {
        snprintf(why, n, "a kernel argument is not a buffer of the function");
        ok = false;
      }
    }
    if (!ok)
      break;
    // The module's PTX, once.
    Emitted *e = NULL;
    for (size_t k = 0; k < numEmitted; ++k)
      if (mlirStringRefEqual(emitted[k].name, moduleName))
        e = &emitted[k];
    if (!e) {
      MlirStringRef ptx;
      if (numEmitted == 64 || !binaryPtx(module, moduleName, &ptx)) {
        snprintf(why, n, "its kernel module has no PTX");
        ok = false;
        break;
      }
      const char *external = strstr(ptx.data, ".extern .func");
      if (external) {
        // `.extern .func (.param ...) name(`: name the first one.
        const char *p = external + strlen(".extern .func");
        while (*p == ' ')
          ++p;
        if (*p == '(')
          p = strchr(p, ')') ? strchr(p, ')') + 1 : p;
        while (*p == ' ')
          ++p;
        int len = 0;
        while (p[len] && p[len] != '(' && p[len] != ' ' && p[len] != ';' &&
               p[len] != '\n' && len < 64)
          ++len;
        snprintf(why, n,
                 "its PTX calls '%.*s', which it does not define (libdevice's "
                 "__nv_* functions come from the CUDA toolkit's "
                 "nvvm/libdevice, which MLIR did not find)",
                 len, p);
        ok = false;
        break;
      }
      e = &emitted[numEmitted++];
      e->name = moduleName;
      e->hash = fnv1a(ptx.data, ptx.length);
      e->ptx = stringGlobal(l, "__emb_kernels_", ptx, &e->bytes);
    }
    MlirValue nameValue =
        stringGlobal(l, "__emb_kernel_name_", kernelName, NULL);
    MlirType i64 = embI64Type(l->ctx), ptr = embPtrType(l->ctx);
    MlirValue launchArray = embBuildAlloca(&l->b, i64, EMB_ABI_LAUNCH_COUNT);
    for (int k = 0; k < EMB_ABI_LAUNCH_COUNT; ++k)
      embBuildStoreAt(&l->b, launchArray, i64, k,
                      embBuildConstI64(&l->b, launch[k]));
    MlirValue argArray = embBuildAlloca(&l->b, ptr, numArgs);
    for (intptr_t k = 0; k < numArgs; ++k)
      embBuildStoreAt(&l->b, argArray, ptr, k, kargs[k]);
    MlirValue callArgs[8] = {l->ctxArg,
                             e->ptx,
                             embBuildConstI64(&l->b, e->bytes),
                             embBuildConstI64(&l->b, (int64_t)e->hash),
                             nameValue,
                             launchArray,
                             argArray,
                             embBuildConstI64(&l->b, numArgs)};
    embCallRuntime(l, EMB_RT_LAUNCH_KERNEL, 8, callArgs, (MlirType){NULL});
  }
  embGpuMapFree(&buffers);
  return ok;
}
