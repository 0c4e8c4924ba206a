//===- codegen/gpu/outline.c - Kernel groups and their functions ----------===//
//
// Grouping and outlining, as MLIR's gpu-kernel-outlining does for one launch:
// the ops classify.c gives to GPU kernels are grouped (a run of them in the
// function's block, with only ops that read no tensor between them), and
// each group is copied into a module of its own as a function of buffers:
//
//   func.func @emb_kernel_0(%in0: memref<...>, ..., %out0: memref<...>)
//     %t0 = bufferization.to_tensor %in0 restrict ...
//     <the group's ops, on tensors>
//     bufferization.materialize_in_destination %r0 in restrict writable %out0
//
// whose operands from outside are its inputs and whose results used outside
// (or returned) are its outputs; a tensor.empty, splat constant or scalar it
// reads is copied in. Also the small value maps the other parts of gpu/ use.
//
//===----------------------------------------------------------------------===//

#include "gpu.h"

#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Value maps (small: linear search)
//===----------------------------------------------------------------------===//

void embGpuMapPut(ValueMap *m, MlirValue key, MlirValue value) {
  if (m->count == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 16;
    m->keys = realloc(m->keys, m->cap * sizeof *m->keys);
    m->values = realloc(m->values, m->cap * sizeof *m->values);
  }
  m->keys[m->count] = key.ptr;
  m->values[m->count++] = value;
}

MlirValue embGpuMapGet(const ValueMap *m, MlirValue key) {
  for (size_t i = m->count; i-- > 0;)
    if (m->keys[i] == key.ptr)
      return m->values[i];
  return (MlirValue){NULL};
}

void embGpuMapFree(ValueMap *m) {
  free(m->keys);
  free(m->values);
  memset(m, 0, sizeof *m);
}

/// Replaces every operand of `root` and the ops nested in it that `map` has.
static MlirWalkResult remapOperands(MlirOperation op, void *userData) {
  const ValueMap *m = userData;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    MlirValue v = embGpuMapGet(m, mlirOperationGetOperand(op, i));
    if (!mlirValueIsNull(v))
      mlirOperationSetOperand(op, i, v);
  }
  return MlirWalkResultAdvance;
}

/// A copy of `op` at the builder's point with its operands (and those of the
/// ops nested in it) remapped through `m`; its results are mapped.
MlirOperation embGpuCloneMapped(EmbBuilder *b, MlirOperation op, ValueMap *m) {
  MlirOperation copy = mlirOperationClone(op);
  mlirOperationWalk(copy, remapOperands, m, MlirWalkPreOrder);
  embBuilderInsert(b, copy);
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i)
    embGpuMapPut(m, mlirOperationGetResult(op, i),
                 mlirOperationGetResult(copy, i));
  return copy;
}

//===----------------------------------------------------------------------===//
// The groups
//===----------------------------------------------------------------------===//

/// Ops that may sit between the ops of a group: they read no tensor, so
/// nothing they compute depends on the group.
static bool isTransparent(MlirOperation op) {
  if (embIsEmbOp(op) || mlirOperationGetNumRegions(op) > 0)
    return false;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (mlirTypeIsATensor(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return false;
  return embOpIs(op, "tensor.empty") || embIsOpInDialect(op, "arith") ||
         embIsOpInDialect(op, "index");
}

EmbGpuKernelGroup *embGpuGroupOf(EmbLowering *l, MlirOperation op) {
  for (size_t g = 0; g < l->numKernelGroups; ++g)
    for (size_t i = 0; i < l->kernelGroups[g].numOps; ++i)
      if (l->kernelGroups[g].ops[i] == op.ptr)
        return &l->kernelGroups[g];
  return NULL;
}

static void addToGroup(EmbLowering *l, bool open, MlirOperation op) {
  if (!open) {
    l->kernelGroups = realloc(l->kernelGroups, (l->numKernelGroups + 1) *
                                                   sizeof(EmbGpuKernelGroup));
    l->kernelGroups[l->numKernelGroups++] = (EmbGpuKernelGroup){NULL, 0};
  }
  EmbGpuKernelGroup *g = &l->kernelGroups[l->numKernelGroups - 1];
  g->ops = realloc(g->ops, (g->numOps + 1) * sizeof(void *));
  g->ops[g->numOps++] = op.ptr;
}

static bool inGroup(const EmbGpuKernelGroup *g, MlirOperation op) {
  for (size_t i = 0; i < g->numOps; ++i)
    if (g->ops[i] == op.ptr)
      return true;
  return false;
}

void embPlanGpuKernels(EmbLowering *l, MlirBlock body) {
  l->numKernelGroups = 0;
  l->kernelGroups = NULL;
  if (l->target != EMB_TARGET_CUDA)
    return;
  MlirOperation ret = mlirBlockGetTerminator(body);
  bool open = false;
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op) && !mlirOperationEqual(op, ret);
       op = mlirOperationGetNextInBlock(op)) {
    EmbOwner owner = embOwnerOf(l, op);
    if (owner == EMB_OWNER_SKIPPED)
      continue;
    if (owner == EMB_OWNER_GPU_KERNEL) {
      addToGroup(l, open, op);
      open = true;
    } else if (!isTransparent(op)) {
      open = false;
    }
  }
}

void embFreeGpuKernelPlans(EmbLowering *l) {
  for (size_t g = 0; g < l->numKernelGroups; ++g)
    free(l->kernelGroups[g].ops);
  free(l->kernelGroups);
  l->kernelGroups = NULL;
  l->numKernelGroups = 0;
}

//===----------------------------------------------------------------------===//
// A group's function
//===----------------------------------------------------------------------===//

static void addValue(MlirValue **list, size_t *n, MlirValue v) {
  for (size_t i = 0; i < *n; ++i)
    if (mlirValueEqual((*list)[i], v))
      return;
  *list = realloc(*list, (*n + 1) * sizeof(MlirValue));
  (*list)[(*n)++] = v;
}

typedef struct Collect {
  const EmbGpuKernelGroup *g;
  MlirBlock body;
  MlirValue *external;
  size_t numExternal;
  MlirOperation assertOp; ///< a cf.assert inside, which kernels cannot check
} Collect;

/// Whether `v` is defined inside the group (by one of its ops or in one).
static bool definedInside(const Collect *c, MlirValue v) {
  MlirOperation owner;
  if (mlirValueIsAOpResult(v))
    owner = mlirOpResultGetOwner(v);
  else
    owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  if (mlirOperationIsNull(owner))
    return false;
  MlirOperation top = embTopLevelOp(owner, c->body);
  return !mlirOperationIsNull(top) && inGroup(c->g, top);
}

static MlirWalkResult collectExternal(MlirOperation op, void *userData) {
  Collect *c = userData;
  if (embOpIs(op, "cf.assert")) {
    c->assertOp = op;
    return MlirWalkResultInterrupt;
  }
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!definedInside(c, v))
      addValue(&c->external, &c->numExternal, v);
  }
  return MlirWalkResultAdvance;
}

/// The function of a group's kernels, in `module`: its inputs, then its
/// outputs, as buffers. False (with `why`) when a value it reads cannot be
/// passed or copied.
bool embGpuBuildGroupFunction(EmbLowering *l, const EmbGpuKernelGroup *g,
                              MlirBlock fnBody, MlirModule module,
                              const char *name, Interface *io, char *why,
                              size_t n) {
  Collect c = {g, fnBody, NULL, 0, {NULL}};
  for (size_t i = 0; i < g->numOps && mlirOperationIsNull(c.assertOp); ++i)
    mlirOperationWalk((MlirOperation){(void *)g->ops[i]}, collectExternal, &c,
                      MlirWalkPreOrder);
  if (!mlirOperationIsNull(c.assertOp)) {
    // torch-mlir's bounds checks: a kernel has no way yet to record a
    // failure, and dropping the check would read out of bounds.
    embLowerFail(l, c.assertOp,
                 "a GPU kernel cannot check a cf.assert yet (the cpu target "
                 "compiles it)");
    free(c.external);
    return false;
  }
  // Values to copy in (and what they read, first), and buffers to pass.
  MlirValue *cloned = NULL;
  size_t numCloned = 0;
  bool ok = true;
  for (size_t i = 0; i < c.numExternal && ok; ++i) {
    MlirValue v = c.external[i];
    MlirType t = mlirValueGetType(v);
    if (mlirValueIsAOpResult(v) &&
        embIsCopiedIntoKernel(mlirOpResultGetOwner(v))) {
      // Its operands are scalars: collect them too (they follow in the list).
      MlirOperation def = mlirOpResultGetOwner(v);
      for (intptr_t k = 0, nk = mlirOperationGetNumOperands(def); k < nk; ++k)
        addValue(&c.external, &c.numExternal, mlirOperationGetOperand(def, k));
      addValue(&cloned, &numCloned, v);
    } else if (mlirTypeIsATensor(t)) {
      if (!mlirShapedTypeHasStaticShape(t)) {
        snprintf(why, n,
                 "a GPU kernel needs static shapes, and it reads a "
                 "tensor of dynamic shape");
        ok = false;
      }
      addValue(&io->inputs, &io->numInputs, v);
    } else {
      snprintf(why, n,
               "a GPU kernel reads only tensors and constants, and it reads "
               "a scalar computed at run time");
      ok = false;
    }
  }
  free(c.external);
  // Outputs: results used outside the group.
  for (size_t i = 0; i < g->numOps && ok; ++i) {
    MlirOperation op = {(void *)g->ops[i]};
    for (intptr_t r = 0, nr = mlirOperationGetNumResults(op); r < nr; ++r) {
      MlirValue v = mlirOperationGetResult(op, r);
      bool outside = false;
      for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
           u = mlirOpOperandGetNextUse(u))
        outside |= !inGroup(g, embTopLevelOp(mlirOpOperandGetOwner(u), fnBody));
      if (!outside)
        continue;
      MlirType t = mlirValueGetType(v);
      if (!mlirTypeIsATensor(t) || !mlirShapedTypeHasStaticShape(t) ||
          embTensorElementBytes(t) == 0) {
        snprintf(why, n,
                 "a GPU kernel writes tensors of static shape and a runtime "
                 "element type, and result %ld is not one",
                 (long)r);
        ok = false;
        break;
      }
      addValue(&io->outputs, &io->numOutputs, v);
    }
  }
  for (size_t i = 0; i < g->numOps && ok; ++i)
    for (intptr_t r = 0, nr = mlirOperationGetNumResults(
                             (MlirOperation){(void *)g->ops[i]});
         r < nr && ok; ++r) {
      MlirType t = mlirValueGetType(
          mlirOperationGetResult((MlirOperation){(void *)g->ops[i]}, r));
      if (mlirTypeIsATensor(t) && !mlirShapedTypeHasStaticShape(t)) {
        snprintf(why, n,
                 "a GPU kernel needs static shapes, and it computes "
                 "a tensor of dynamic shape");
        ok = false;
      }
    }
  if (ok && io->numInputs + io->numOutputs > EMB_MAX_KERNEL_ARGS) {
    snprintf(why, n, "its kernels would take more than %d buffers",
             EMB_MAX_KERNEL_ARGS);
    ok = false;
  }
  if (!ok) {
    free(cloned);
    return false;
  }

  // func.func @name(inputs..., outputs...) on buffers.
  size_t nargs = io->numInputs + io->numOutputs;
  MlirType *types = calloc(nargs + 1, sizeof(MlirType));
  MlirLocation *locs = calloc(nargs + 1, sizeof(MlirLocation));
  for (size_t i = 0; i < nargs; ++i) {
    MlirValue v =
        i < io->numInputs ? io->inputs[i] : io->outputs[i - io->numInputs];
    types[i] = embMemrefTypeOf(mlirValueGetType(v));
    locs[i] = mlirValueIsAOpResult(v)
                  ? mlirOperationGetLocation(mlirOpResultGetOwner(v))
                  : l->b.loc;
  }
  MlirBlock block = mlirBlockCreate((intptr_t)nargs, types, locs);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, block);
  MlirNamedAttribute attrs[2] = {
      embNamedAttr(l->ctx, "sym_name", mlirStringAttrGet(l->ctx, embStr(name))),
      embNamedAttr(l->ctx, "function_type",
                   mlirTypeAttrGet(mlirFunctionTypeGet(l->ctx, (intptr_t)nargs,
                                                       types, 0, NULL))),
  };
  free(types);
  free(locs);
  MlirOperationState st = mlirOperationStateGet(embStr("func.func"), l->b.loc);
  mlirOperationStateAddAttributes(&st, 2, attrs);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(module),
                                mlirOperationCreate(&st));

  EmbBuilder b = {l->ctx, l->b.loc, block, {NULL}};
  ValueMap m = {0};
  MlirNamedAttribute restrictAttr =
      embNamedAttr(l->ctx, "restrict", mlirUnitAttrGet(l->ctx));
  for (size_t i = 0; i < io->numInputs; ++i) {
    MlirValue arg = mlirBlockGetArgument(block, (intptr_t)i);
    MlirType t = mlirValueGetType(io->inputs[i]);
    embGpuMapPut(&m, io->inputs[i],
                 result0(embBuildOp(&b, "bufferization.to_tensor", 1, &arg, 1,
                                    &t, 1, &restrictAttr)));
  }
  // Copied values, operands first (they were collected after their users).
  for (size_t i = numCloned; i-- > 0;) {
    MlirOperation def = mlirOpResultGetOwner(cloned[i]);
    if (!mlirValueIsNull(embGpuMapGet(&m, cloned[i])))
      continue;
    if (embIsSplatConstant(def)) {
      // A splat tensor would bufferize to a global in host memory: the
      // kernel fills it instead.
      MlirAttribute v = mlirOperationGetAttributeByName(def, embStr("value"));
      MlirType t = mlirValueGetType(cloned[i]);
      MlirType e = mlirShapedTypeGetElementType(t);
      MlirNamedAttribute sv =
          embNamedAttr(l->ctx, "value", mlirDenseElementsAttrGetSplatValue(v));
      MlirValue s =
          result0(embBuildOp(&b, "arith.constant", 0, NULL, 1, &e, 1, &sv));
      embGpuMapPut(
          &m, cloned[i],
          result0(embBuildOp(&b, "tensor.splat", 1, &s, 1, &t, 0, NULL)));
    } else {
      embGpuCloneMapped(&b, def, &m);
    }
  }
  free(cloned);
  for (size_t i = 0; i < g->numOps; ++i)
    embGpuCloneMapped(&b, (MlirOperation){(void *)g->ops[i]}, &m);
  MlirNamedAttribute rw[2] = {
      restrictAttr, embNamedAttr(l->ctx, "writable", mlirUnitAttrGet(l->ctx))};
  for (size_t i = 0; i < io->numOutputs; ++i) {
    MlirValue operands[2] = {
        embGpuMapGet(&m, io->outputs[i]),
        mlirBlockGetArgument(block, (intptr_t)(io->numInputs + i))};
    embBuildOp(&b, "bufferization.materialize_in_destination", 2, operands, 0,
               NULL, 2, rw);
  }
  embBuildOp(&b, "func.return", 0, NULL, 0, NULL, 0, NULL);
  embGpuMapFree(&m);
  return true;
}
