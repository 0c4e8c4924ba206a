//===- codegen/gpu_kernels.c - GPU kernels for ops without a call --------===//
//
// On the cuda target, the ops of a function the runtime has no call for
// (linalg ops other than the matmul chains of gemm.c, and elementwise arith
// and math on tensors beyond the runtime's own) become GPU kernels that MLIR
// generates, launched through embrtCompiledLaunchKernel on the buffers the
// runtime path assigned:
//
//   %y = linalg.generic {... ["parallel", "reduction"]} ins(%x) outs(%fill)
// becomes, in the function on buffers,
//   %ptx = llvm.mlir.addressof @__emb_kernels_0      // PTX text, NUL-ended
//   %name = llvm.mlir.addressof @__emb_kernel_name_0  // "emb_kernel_0_kernel"
//   call @embrtCompiledLaunchKernel(%ctx, %ptx, %bytes, %hash, %name,
//                                   %launch, %args, %nargs)
//
// Ops are grouped first: a run of such ops in the function's block, with
// only ops that read no tensor (tensor.empty, constants, scalars) between
// them, is one group, whose operands from outside are its inputs and whose
// results used outside (or returned) are its outputs. Each group is copied
// into a module of its own, as a function of buffers:
//
//   func.func @emb_kernel_0(%in0: memref<...>, ..., %out0: memref<...>)
//     %t0 = bufferization.to_tensor %in0 restrict ...
//     <the group's ops, on tensors>
//     bufferization.materialize_in_destination %r0 in restrict writable %out0
//
// and MLIR's own passes compile it: elementwise ops become linalg, named ops
// generic, chains of elementwise generics are fused into one
// (linalg-fuse-elementwise-ops), and one-shot-bufferize writes the results
// into the output buffers (intermediates it allocates become runtime
// allocations of the function, freed at its end). Each linalg.generic on
// buffers then becomes a gpu.launch, built here:
//
//   - a thread per point of the parallel dims (256 threads a block, the grid
//     from the sizes, the tail guarded), the point found by dividing the
//     linear index by the static extents, every operand read through its
//     indexing map (affine.apply), the body copied in; reduction dims, if
//     any, are a loop in the thread;
//   - except for a reduction over at least 32 points whose body is a
//     combiner (addf, mulf, maximumf, minimumf, maxnumf, minnumf, addi, ...)
//     of the accumulator and a value that does not read it: a block per
//     output point, each thread accumulating a strided part of the reduction
//     (f16 and bf16 in f32), then gpu.all_reduce across the block (MLIR
//     lowers it to warp shuffles and shared memory), and thread 0 combines
//     the total with the output's initial value.
//
// gpu-kernel-outlining, convert-gpu-to-nvvm (bare-pointer memrefs: a kernel
// takes one pointer a buffer) and gpu-module-to-binary{format=isa} (PTX for
// sm_90 with +ptx80; libdevice, for the math functions, is linked from the
// CUDA toolkit's nvvm/libdevice, which is data, not a tool) finish it. The
// host side of that module is not kept: its gpu.launch_func ops, with
// constant grids, become the runtime calls above, its memref.alloc ops
// runtime allocations and its memref.copy ops runtime copies. Nothing of
// MLIR's GPU runtime (mgpu*) is called.
//
// Refused, at the group's first op: dynamic shapes, reads of scalars
// computed at run time, and what MLIR's passes cannot take.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Pass.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Threads a block of the elementwise shape, and the most of the reduction
/// shape.
enum { blockThreads = 256 };
/// Reductions over fewer points run in the thread of their output point.
enum { minTreeReduction = 32 };

/// The most blocks a launch's x dim takes (CUDA's gridDim.x limit).
enum { maxGridBlocks = 2147483647 };

/// What kernels are compiled for; %s is the nvvm target's libraries.
static const char *const gpuPipeline =
    "lower-affine, gpu-kernel-outlining, "
    "nvvm-attach-target{chip=sm_90 features=+ptx80 O=3%s}, "
    "gpu.module(convert-scf-to-cf, "
    "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}, canonicalize, "
    "cse, reconcile-unrealized-casts), "
    "gpu-module-to-binary{format=isa}";

/// libdevice (the __nv_* math functions convert-gpu-to-nvvm calls), as a
/// library option of the nvvm target, from the CUDA toolkit that
/// $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH names, else /usr/local/cuda: MLIR
/// looks only where its build was told to and in $PATH. Empty if none has
/// it (kernels that need it then fail, naming the function).
static void libdeviceOption(char *out, size_t n) {
  const char *const vars[] = {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH", NULL};
  out[0] = '\0';
  for (int i = 0; i < 4; ++i) {
    const char *root = vars[i] ? getenv(vars[i]) : "/usr/local/cuda";
    if (!root || !*root || strpbrk(root, " ,{}"))
      continue;
    char path[512];
    snprintf(path, sizeof path, "%s/nvvm/libdevice/libdevice.10.bc", root);
    FILE *f = fopen(path, "rb");
    if (!f)
      continue;
    fclose(f);
    snprintf(out, n, " l=%s", path);
    return;
  }
}

/// How a group's function on tensors becomes linalg.generic ops on tensors,
/// then (after duplicateElementwise) fused generics on buffers.
static const char *const generalizePipeline =
    "func.func(convert-elementwise-to-linalg), linalg-generalize-named-ops";
static const char *const tensorPipeline =
    "linalg-fuse-elementwise-ops, canonicalize, eliminate-empty-tensors, "
    "one-shot-bufferize, canonicalize, linalg-generalize-named-ops, cse";

//===----------------------------------------------------------------------===//
// Value maps (small: linear search)
//===----------------------------------------------------------------------===//

typedef struct ValueMap {
  const void **keys;
  MlirValue *values;
  size_t count, cap;
} ValueMap;

static void mapPut(ValueMap *m, MlirValue key, MlirValue value) {
  if (m->count == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 16;
    m->keys = realloc(m->keys, m->cap * sizeof *m->keys);
    m->values = realloc(m->values, m->cap * sizeof *m->values);
  }
  m->keys[m->count] = key.ptr;
  m->values[m->count++] = value;
}

static MlirValue mapGet(const ValueMap *m, MlirValue key) {
  for (size_t i = m->count; i-- > 0;)
    if (m->keys[i] == key.ptr)
      return m->values[i];
  return (MlirValue){NULL};
}

static void mapFree(ValueMap *m) {
  free(m->keys);
  free(m->values);
  memset(m, 0, sizeof *m);
}

/// Replaces every operand of `root` and the ops nested in it that `map` has.
static MlirWalkResult remapOperands(MlirOperation op, void *userData) {
  const ValueMap *m = userData;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    MlirValue v = mapGet(m, mlirOperationGetOperand(op, i));
    if (!mlirValueIsNull(v))
      mlirOperationSetOperand(op, i, v);
  }
  return MlirWalkResultAdvance;
}

/// A copy of `op` at the builder's point with its operands (and those of the
/// ops nested in it) remapped through `m`; its results are mapped.
static MlirOperation cloneMapped(EmbBuilder *b, MlirOperation op, ValueMap *m) {
  MlirOperation copy = mlirOperationClone(op);
  mlirOperationWalk(copy, remapOperands, m, MlirWalkPreOrder);
  embBuilderInsert(b, copy);
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i)
    mapPut(m, mlirOperationGetResult(op, i), mlirOperationGetResult(copy, i));
  return copy;
}

//===----------------------------------------------------------------------===//
// Which ops become kernels, and the groups
//===----------------------------------------------------------------------===//

/// One group: consecutive kernel ops of the function's block.
typedef struct EmbGpuKernelGroup {
  const void **ops;
  size_t numOps;
} EmbGpuKernelGroup;

static bool isDialect(MlirOperation op, const char *dialect) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  size_t n = strlen(dialect);
  return name.length > n && !strncmp(name.data, dialect, n) &&
         name.data[n] == '.';
}

/// Ops a kernel computes: linalg ops, and arith and math ops on tensors,
/// that no runtime call takes.
static bool isKernelOp(EmbLowering *l, MlirOperation op) {
  if (embIsEmbOp(op) || embIsRuntimeTensorOp(op) ||
      embIsRuntimeConstantOp(op) || embIsGemmLast(l, op) ||
      embIsGemmAbsorbed(l, op))
    return false;
  if (isDialect(op, "linalg"))
    return true;
  return (isDialect(op, "arith") || isDialect(op, "math")) && embHasTensor(op);
}

/// Ops that may sit between the ops of a group: they read no tensor, so
/// nothing they compute depends on the group.
static bool isTransparent(MlirOperation op) {
  if (embIsEmbOp(op) || mlirOperationGetNumRegions(op) > 0)
    return false;
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (mlirTypeIsATensor(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return false;
  return embOpIs(op, "tensor.empty") || isDialect(op, "arith") ||
         isDialect(op, "index");
}

/// A splat tensor constant (becomes a tensor.splat in the kernel).
static bool isSplatConstant(MlirOperation op) {
  if (!embOpIs(op, "arith.constant") || !embHasTensor(op))
    return false;
  MlirAttribute v = mlirOperationGetAttributeByName(op, embStr("value"));
  return mlirAttributeIsADenseElements(v) && mlirDenseElementsAttrIsSplat(v);
}

/// Ops copied into the kernel's function rather than read from a buffer.
static bool isCloned(MlirOperation op) {
  return embOpIs(op, "tensor.empty") || isSplatConstant(op) ||
         ((isDialect(op, "arith") || isDialect(op, "index")) &&
          !embHasTensor(op) && mlirOperationGetNumRegions(op) == 0);
}

/// The op of the function's block `body` that `op` is or is nested in.
static MlirOperation topLevelOp(MlirOperation op, MlirBlock body) {
  while (!mlirOperationIsNull(op) &&
         !mlirBlockEqual(mlirOperationGetBlock(op), body))
    op = mlirOperationGetParentOperation(op);
  return op;
}

static EmbGpuKernelGroup *groupOf(EmbLowering *l, MlirOperation op) {
  for (size_t g = 0; g < l->numKernelGroups; ++g)
    for (size_t i = 0; i < l->kernelGroups[g].numOps; ++i)
      if (l->kernelGroups[g].ops[i] == op.ptr)
        return &l->kernelGroups[g];
  return NULL;
}

bool embIsGpuKernelOp(EmbLowering *l, MlirOperation op) {
  return groupOf(l, op) != NULL;
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
    if (embIsSkipped(l, op))
      continue;
    if (isKernelOp(l, op)) {
      addToGroup(l, open, op);
      open = true;
    } else if (!isTransparent(op)) {
      open = false;
    }
  }
  // A tensor.empty, splat constant or scalar that only kernels read is
  // copied into them: the function need not allocate, fill or compute it. The
  // skipped list holds at most every op of the block once (embPlanReadThrough
  // sizes it so).
  if (!l->skipped) {
    size_t numOps = 0;
    for (MlirOperation op = mlirBlockGetFirstOperation(body);
         !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
      ++numOps;
    l->skipped = calloc(numOps + 1, sizeof(void *));
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op) && !mlirOperationEqual(op, ret);
       op = mlirOperationGetNextInBlock(op)) {
    if (!isCloned(op) || embIsSkipped(l, op))
      continue;
    MlirValue r = mlirOperationGetResult(op, 0);
    bool onlyKernels = !mlirOpOperandIsNull(mlirValueGetFirstUse(r));
    for (MlirOpOperand u = mlirValueGetFirstUse(r);
         !mlirOpOperandIsNull(u) && onlyKernels; u = mlirOpOperandGetNextUse(u))
      onlyKernels =
          embIsGpuKernelOp(l, topLevelOp(mlirOpOperandGetOwner(u), body));
    if (onlyKernels)
      l->skipped[l->numSkipped++] = op.ptr;
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
// Small builders
//===----------------------------------------------------------------------===//

static MlirType indexType(EmbBuilder *b) { return mlirIndexTypeGet(b->ctx); }

static MlirValue result0(MlirOperation op) {
  return mlirOperationGetResult(op, 0);
}

static MlirValue constIndex(EmbBuilder *b, int64_t v) {
  return embBuildConstIndex(b, v);
}

enum { cmpEq = 0, cmpUlt = 6 };

static MlirValue cast(EmbBuilder *b, const char *name, MlirValue v,
                      MlirType to) {
  return result0(embBuildOp(b, name, 1, &v, 1, &to, 0, NULL));
}

static MlirBlock newBlock(intptr_t n, const MlirType *types, MlirLocation loc) {
  MlirLocation locs[16];
  for (int i = 0; i < 16; ++i)
    locs[i] = loc;
  return mlirBlockCreate(n, types, locs);
}

/// scf.if %cond without results: the builder moves into its then block,
/// before its scf.yield.
static void buildIf(EmbBuilder *b, MlirValue cond) {
  MlirBlock then = newBlock(0, NULL, b->loc);
  MlirRegion thenRegion = mlirRegionCreate(), elseRegion = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(thenRegion, then);
  MlirRegion regions[2] = {thenRegion, elseRegion};
  MlirOperationState st = mlirOperationStateGet(embStr("scf.if"), b->loc);
  mlirOperationStateAddOperands(&st, 1, &cond);
  mlirOperationStateAddOwnedRegions(&st, 2, regions);
  MlirOperation op = mlirOperationCreate(&st);
  embBuilderInsert(b, op);
  EmbBuilder inner = {b->ctx, b->loc, then, {NULL}};
  MlirOperation yield =
      embBuildOp(&inner, "scf.yield", 0, NULL, 0, NULL, 0, NULL);
  *b = (EmbBuilder){b->ctx, b->loc, then, yield};
}

/// scf.for %iv = lb to ub step s iter_args(inits): returns the op; `body`
/// gets its block (iv, then the iteration values), which the caller ends
/// with an scf.yield.
static MlirOperation buildFor(EmbBuilder *b, MlirValue lb, MlirValue ub,
                              MlirValue step, intptr_t n,
                              const MlirValue *inits, MlirBlock *body) {
  MlirType types[16];
  MlirValue operands[16];
  types[0] = indexType(b);
  operands[0] = lb;
  operands[1] = ub;
  operands[2] = step;
  MlirType resultTypes[16];
  for (intptr_t i = 0; i < n; ++i) {
    types[1 + i] = resultTypes[i] = mlirValueGetType(inits[i]);
    operands[3 + i] = inits[i];
  }
  *body = newBlock(1 + n, types, b->loc);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, *body);
  MlirOperationState st = mlirOperationStateGet(embStr("scf.for"), b->loc);
  mlirOperationStateAddOperands(&st, 3 + n, operands);
  mlirOperationStateAddResults(&st, n, resultTypes);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation op = mlirOperationCreate(&st);
  embBuilderInsert(b, op);
  return op;
}

/// gpu.launch with a grid of `grid` x 1 x 1 blocks of `threads` x 1 x 1
/// threads, before `b`'s point; `body` gets its block (block ids, thread
/// ids, grid and block sizes), ended with gpu.terminator.
static MlirOperation buildLaunch(EmbBuilder *b, int64_t grid, int64_t threads,
                                 MlirBlock *body) {
  MlirValue one = constIndex(b, 1);
  MlirValue operands[6] = {constIndex(b, grid),    one, one,
                           constIndex(b, threads), one, one};
  MlirType types[12];
  for (int i = 0; i < 12; ++i)
    types[i] = indexType(b);
  *body = newBlock(12, types, b->loc);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, *body);
  MlirNamedAttribute attrs[2] = {
      embNamedAttr(b->ctx, "operandSegmentSizes",
                   mlirAttributeParseGet(
                       b->ctx, embStr("array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, "
                                      "0, 0>"))),
      embNamedAttr(b->ctx, "workgroup_attributions",
                   mlirIntegerAttrGet(mlirIntegerTypeGet(b->ctx, 64), 0)),
  };
  MlirOperationState st = mlirOperationStateGet(embStr("gpu.launch"), b->loc);
  mlirOperationStateAddOperands(&st, 6, operands);
  mlirOperationStateAddAttributes(&st, 2, attrs);
  mlirOperationStateAddOwnedRegions(&st, 1, &region);
  MlirOperation op = mlirOperationCreate(&st);
  embBuilderInsert(b, op);
  EmbBuilder inner = {b->ctx, b->loc, *body, {NULL}};
  embBuildOp(&inner, "gpu.terminator", 0, NULL, 0, NULL, 0, NULL);
  return op;
}

//===----------------------------------------------------------------------===//
// linalg.generic on buffers -> gpu.launch
//===----------------------------------------------------------------------===//

enum { maxLoops = 8 };

/// What the kernel of one generic needs to know of it.
typedef struct Generic {
  MlirOperation op;
  intptr_t numIns, numOuts, numLoops;
  MlirValue operands[32];
  MlirAffineMap maps[32];
  bool reduction[maxLoops];
  int64_t extent[maxLoops];
  MlirBlock body;
} Generic;

static bool readGeneric(MlirOperation op, Generic *g, char *why, size_t n) {
  memset(g, 0, sizeof *g);
  g->op = op;
  MlirAttribute seg =
      mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
  g->numIns = mlirDenseI32ArrayGetElement(seg, 0);
  g->numOuts = mlirDenseI32ArrayGetElement(seg, 1);
  if (g->numIns + g->numOuts > 32) {
    snprintf(why, n, "it has more than 32 operands");
    return false;
  }
  MlirAttribute maps =
      mlirOperationGetAttributeByName(op, embStr("indexing_maps"));
  MlirAttribute iters =
      mlirOperationGetAttributeByName(op, embStr("iterator_types"));
  g->numLoops = mlirArrayAttrGetNumElements(iters);
  if (g->numLoops > maxLoops) {
    snprintf(why, n, "it has more than %d loops", maxLoops);
    return false;
  }
  for (intptr_t i = 0; i < g->numLoops; ++i) {
    char text[64];
    embPrintAttribute(mlirArrayAttrGetElement(iters, i), text, sizeof text);
    g->reduction[i] = strstr(text, "reduction") != NULL;
    g->extent[i] = -1;
  }
  for (intptr_t i = 0; i < g->numIns + g->numOuts; ++i) {
    g->operands[i] = mlirOperationGetOperand(op, i);
    g->maps[i] = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    MlirType t = mlirValueGetType(g->operands[i]);
    if (!mlirTypeIsAMemRef(t)) {
      snprintf(why, n, "operand %ld is not a buffer", (long)i);
      return false;
    }
    if (!mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(t)) ||
        !mlirShapedTypeHasStaticShape(t)) {
      snprintf(why, n,
               "operand %ld is a view or has a dynamic shape after "
               "bufferization",
               (long)i);
      return false;
    }
    for (intptr_t r = 0, nr = mlirAffineMapGetNumResults(g->maps[i]); r < nr;
         ++r) {
      MlirAffineExpr e = mlirAffineMapGetResult(g->maps[i], r);
      if (mlirAffineExprIsADim(e))
        g->extent[mlirAffineDimExprGetPosition(e)] =
            mlirShapedTypeGetDimSize(t, r);
    }
  }
  // An output is read and written once per parallel point: its map may not
  // use a reduction loop (MLIR's verifier does not say so).
  for (intptr_t o = g->numIns; o < g->numIns + g->numOuts; ++o)
    for (intptr_t r = 0, nr = mlirAffineMapGetNumResults(g->maps[o]); r < nr;
         ++r)
      for (intptr_t d = 0; d < g->numLoops; ++d)
        if (g->reduction[d] && mlirAffineExprIsFunctionOfDim(
                                   mlirAffineMapGetResult(g->maps[o], r), d)) {
          snprintf(why, n,
                   "output %ld's indexing map uses loop %ld, a reduction",
                   (long)(o - g->numIns), (long)d);
          return false;
        }
  for (intptr_t i = 0; i < g->numLoops; ++i)
    if (g->extent[i] < 0) {
      snprintf(why, n, "the size of loop %ld is not an operand's dim", (long)i);
      return false;
    }
  // splitLoops multiplies the extents: their product must be an index.
  int64_t span = 1;
  for (intptr_t i = 0; i < g->numLoops; ++i)
    if (__builtin_mul_overflow(span, g->extent[i], &span)) {
      snprintf(why, n, "its loops span more than 2^63 points");
      return false;
    }
  g->body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  return true;
}

/// Splits `linear` into the loop indices of the dims `dims` (the last one
/// fastest) into `idx`.
static void delinearize(EmbBuilder *b, const Generic *g, MlirValue linear,
                        const int *dims, int n, MlirValue *idx) {
  MlirValue rest = linear;
  for (int k = n; k-- > 0;) {
    int d = dims[k];
    if (k == 0) {
      idx[d] = rest;
      break;
    }
    MlirValue e = constIndex(b, g->extent[d]);
    idx[d] = embBuildBinary(b, "arith.remui", rest, e);
    rest = embBuildBinary(b, "arith.divui", rest, e);
  }
}

/// The indices operand `i` reads at loop point `idx`. An output is read
/// and written outside the reduction loops, where their entries of `idx`
/// are null: its map does not use those dims (linalg's rule), so an
/// affine.apply gets 0 for them.
static void operandIndices(EmbBuilder *b, const Generic *g, intptr_t i,
                           const MlirValue *idx, MlirValue *out) {
  MlirAffineMap map = g->maps[i];
  intptr_t nd = mlirAffineMapGetNumDims(map);
  for (intptr_t r = 0, nr = mlirAffineMapGetNumResults(map); r < nr; ++r) {
    MlirAffineExpr e = mlirAffineMapGetResult(map, r);
    if (mlirAffineExprIsADim(e)) {
      out[r] = idx[mlirAffineDimExprGetPosition(e)];
      continue;
    }
    if (mlirAffineExprIsAConstant(e)) { // (d0, 0, d2): a broadcast dim
      out[r] = constIndex(b, mlirAffineConstantExprGetValue(e));
      continue;
    }
    MlirValue dims[maxLoops];
    for (intptr_t d = 0; d < nd; ++d)
      dims[d] = mlirValueIsNull(idx[d]) ? constIndex(b, 0) : idx[d];
    MlirAffineMap one = mlirAffineMapGet(b->ctx, nd, 0, 1, &e);
    MlirNamedAttribute attr =
        embNamedAttr(b->ctx, "map", mlirAffineMapAttrGet(one));
    MlirType it = indexType(b);
    out[r] = result0(embBuildOp(b, "affine.apply", nd, dims, 1, &it, 1, &attr));
  }
}

static MlirValue load(EmbBuilder *b, const Generic *g, intptr_t i,
                      const MlirValue *idx) {
  MlirValue operands[1 + maxLoops];
  operands[0] = g->operands[i];
  operandIndices(b, g, i, idx, operands + 1);
  MlirType t = mlirShapedTypeGetElementType(mlirValueGetType(g->operands[i]));
  intptr_t rank = mlirAffineMapGetNumResults(g->maps[i]);
  return result0(
      embBuildOp(b, "memref.load", 1 + rank, operands, 1, &t, 0, NULL));
}

static void store(EmbBuilder *b, const Generic *g, intptr_t i,
                  const MlirValue *idx, MlirValue v) {
  MlirValue operands[2 + maxLoops];
  operands[0] = v;
  operands[1] = g->operands[i];
  operandIndices(b, g, i, idx, operands + 2);
  intptr_t rank = mlirAffineMapGetNumResults(g->maps[i]);
  embBuildOp(b, "memref.store", 2 + rank, operands, 0, NULL, 0, NULL);
}

/// Copies the body's ops but `skip` (and the yield) at the builder's point,
/// with its arguments mapped in `m` and linalg.index as `idx`; the values
/// the yield returns go to `yielded`.
static void cloneBody(EmbBuilder *b, const Generic *g, ValueMap *m,
                      const MlirValue *idx, MlirOperation skip,
                      MlirValue *yielded) {
  for (MlirOperation op = mlirBlockGetFirstOperation(g->body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (embOpIs(op, "linalg.yield")) {
      for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
        MlirValue v = mlirOperationGetOperand(op, i);
        MlirValue mapped = mapGet(m, v);
        yielded[i] = mlirValueIsNull(mapped) ? v : mapped;
      }
      break;
    }
    if (!mlirOperationIsNull(skip) && mlirOperationEqual(op, skip))
      continue;
    if (embOpIs(op, "linalg.index")) {
      int64_t dim = 0;
      embGetIntAttr(op, "dim", &dim);
      mapPut(m, result0(op), idx[dim]);
      continue;
    }
    cloneMapped(b, op, m);
  }
}

//===----------------------------------------------------------------------===//
// The two kernel shapes
//===----------------------------------------------------------------------===//

/// The parallel and the reduction loops of `g`, in order, and how many
/// points each set spans.
typedef struct Loops {
  int par[maxLoops], red[maxLoops], np, nr;
  int64_t points, reduced;
} Loops;

static Loops splitLoops(const Generic *g) {
  Loops lp;
  memset(&lp, 0, sizeof lp);
  lp.points = lp.reduced = 1;
  for (int d = 0; d < g->numLoops; ++d) {
    if (g->reduction[d]) {
      lp.red[lp.nr++] = d;
      lp.reduced *= g->extent[d];
    } else {
      lp.par[lp.np++] = d;
      lp.points *= g->extent[d];
    }
  }
  return lp;
}

/// The start of the body of a loop over the reduction points (its
/// induction variable the linear reduction index): the loop indices `ridx`
/// (the parallel ones `idx`, the reduction ones from the variable) and every
/// input's element there, mapped to the body's arguments in `m`. Returns a
/// builder at the end of the loop's block.
static EmbBuilder enterReductionLoop(const EmbBuilder *outer, const Generic *g,
                                     MlirBlock loop, const MlirValue *idx,
                                     const Loops *lp, MlirValue *ridx,
                                     ValueMap *m) {
  EmbBuilder in = {outer->ctx, outer->loc, loop, {NULL}};
  memcpy(ridx, idx, maxLoops * sizeof(MlirValue));
  delinearize(&in, g, mlirBlockGetArgument(loop, 0), lp->red, lp->nr, ridx);
  for (intptr_t i = 0; i < g->numIns; ++i)
    mapPut(m, mlirBlockGetArgument(g->body, i), load(&in, g, i, ridx));
  return in;
}

/// A thread per point of the parallel dims; reduction dims loop in it.
static MlirOperation lowerPointwise(EmbBuilder *host, const Generic *g) {
  Loops lp = splitLoops(g);
  if (lp.points == 0)
    return (MlirOperation){NULL};
  MlirBlock body;
  MlirOperation launch = buildLaunch(
      host, (lp.points + blockThreads - 1) / blockThreads, blockThreads, &body);
  EmbBuilder b = {host->ctx, host->loc, body, mlirBlockGetTerminator(body)};
  MlirValue linear = embBuildBinary(
      &b, "arith.addi",
      embBuildBinary(&b, "arith.muli", mlirBlockGetArgument(body, 0),
                     constIndex(&b, blockThreads)),
      mlirBlockGetArgument(body, 3));
  buildIf(&b, embBuildCmpI(&b, cmpUlt, linear, constIndex(&b, lp.points)));
  MlirValue idx[maxLoops] = {{0}};
  delinearize(&b, g, linear, lp.par, lp.np, idx);
  // The outputs' current values, for bodies that read them.
  MlirValue acc[32];
  intptr_t ni = g->numIns, no = g->numOuts;
  for (intptr_t o = 0; o < no; ++o) {
    MlirValue arg = mlirBlockGetArgument(g->body, ni + o);
    acc[o] = mlirOpOperandIsNull(mlirValueGetFirstUse(arg))
                 ? (MlirValue){NULL}
                 : load(&b, g, ni + o, idx);
  }
  MlirValue results[32];
  if (lp.nr == 0 || lp.reduced == 0) {
    ValueMap m = {0};
    for (intptr_t i = 0; i < ni; ++i)
      mapPut(&m, mlirBlockGetArgument(g->body, i), load(&b, g, i, idx));
    for (intptr_t o = 0; o < no; ++o)
      if (!mlirValueIsNull(acc[o]))
        mapPut(&m, mlirBlockGetArgument(g->body, ni + o), acc[o]);
    if (lp.nr == 0)
      cloneBody(&b, g, &m, idx, (MlirOperation){NULL}, results);
    else
      for (intptr_t o = 0; o < no; ++o) // an empty reduction: the init
        results[o] = acc[o];
    mapFree(&m);
  } else {
    for (intptr_t o = 0; o < no; ++o)
      if (mlirValueIsNull(acc[o]))
        acc[o] = load(&b, g, ni + o, idx);
    MlirBlock loop;
    MlirOperation forOp =
        buildFor(&b, constIndex(&b, 0), constIndex(&b, lp.reduced),
                 constIndex(&b, 1), no, acc, &loop);
    MlirValue ridx[maxLoops] = {{0}};
    ValueMap m = {0};
    EmbBuilder in = enterReductionLoop(&b, g, loop, idx, &lp, ridx, &m);
    for (intptr_t o = 0; o < no; ++o)
      mapPut(&m, mlirBlockGetArgument(g->body, ni + o),
             mlirBlockGetArgument(loop, 1 + o));
    MlirValue next[32];
    cloneBody(&in, g, &m, ridx, (MlirOperation){NULL}, next);
    embBuildOp(&in, "scf.yield", no, next, 0, NULL, 0, NULL);
    mapFree(&m);
    for (intptr_t o = 0; o < no; ++o)
      results[o] = mlirOperationGetResult(forOp, o);
  }
  for (intptr_t o = 0; o < no; ++o)
    store(&b, g, ni + o, idx, results[o]);
  return launch;
}

/// A combiner the block reduction knows: its gpu.all_reduce kind and the
/// neutral element.
typedef struct Combiner {
  const char *op, *kind;
  bool isFloat;
  double neutral;
} Combiner;

static const Combiner combiners[] = {
    {"arith.addf", "add", true, 0.0},
    {"arith.mulf", "mul", true, 1.0},
    {"arith.maximumf", "maximumf", true, -INFINITY},
    {"arith.minimumf", "minimumf", true, INFINITY},
    {"arith.maxnumf", "maxnumf", true, -INFINITY},
    {"arith.minnumf", "minnumf", true, INFINITY},
    {"arith.addi", "add", false, 0},
    {"arith.muli", "mul", false, 1},
    {"arith.ori", "or", false, 0},
    {"arith.xori", "xor", false, 0},
};

/// Whether `g` is a reduction the block shape takes: one output, whose
/// body argument only the yielded combiner reads. Sets the combiner, its op
/// in the body and which operand is the accumulator.
static bool matchTree(const Generic *g, const Combiner **c, MlirOperation *op,
                      intptr_t *accPos) {
  if (g->numOuts != 1)
    return false;
  MlirOperation yield = mlirBlockGetTerminator(g->body);
  MlirValue y = mlirOperationGetOperand(yield, 0);
  if (!mlirValueIsAOpResult(y))
    return false;
  *op = mlirOpResultGetOwner(y);
  if (!mlirBlockEqual(mlirOperationGetBlock(*op), g->body) ||
      mlirOperationGetNumOperands(*op) != 2)
    return false;
  MlirValue acc = mlirBlockGetArgument(g->body, g->numIns);
  *c = NULL;
  for (size_t i = 0; i < sizeof combiners / sizeof combiners[0]; ++i)
    if (embOpIs(*op, combiners[i].op))
      *c = &combiners[i];
  if (!*c)
    return false;
  // The accumulator is read once, by the combiner.
  MlirOpOperand u = mlirValueGetFirstUse(acc);
  if (mlirOpOperandIsNull(u) ||
      !mlirOpOperandIsNull(mlirOpOperandGetNextUse(u)) ||
      !mlirOperationEqual(mlirOpOperandGetOwner(u), *op))
    return false;
  *accPos = mlirOpOperandGetOperandNumber(u);
  MlirType t = mlirValueGetType(acc);
  if ((*c)->isFloat)
    return mlirTypeIsAF32(t) || mlirTypeIsAF16(t) || mlirTypeIsABF16(t) ||
           mlirTypeIsAF64(t);
  return mlirTypeIsAInteger(t) &&
         (mlirIntegerTypeGetWidth(t) == 32 || mlirIntegerTypeGetWidth(t) == 64);
}

static MlirValue combine(EmbBuilder *b, const Combiner *c, MlirValue x,
                         MlirValue y) {
  return embBuildBinary(b, c->op, x, y);
}

/// A block per output point: each thread reduces a strided part, then the
/// block reduces the threads' parts (gpu.all_reduce).
static MlirOperation lowerTree(EmbBuilder *host, const Generic *g,
                               const Combiner *c, MlirOperation combinerOp,
                               intptr_t accPos) {
  Loops lp = splitLoops(g);
  if (lp.points == 0)
    return (MlirOperation){NULL};
  int64_t threads = (lp.reduced + 31) / 32 * 32;
  if (threads > blockThreads)
    threads = blockThreads;
  MlirBlock body;
  MlirOperation launch = buildLaunch(host, lp.points, threads, &body);
  EmbBuilder b = {host->ctx, host->loc, body, mlirBlockGetTerminator(body)};
  MlirValue idx[maxLoops] = {{0}};
  delinearize(&b, g, mlirBlockGetArgument(body, 0), lp.par, lp.np, idx);
  intptr_t ni = g->numIns;
  MlirType elem = mlirValueGetType(mlirBlockGetArgument(g->body, ni));
  bool widen = mlirTypeIsAF16(elem) || mlirTypeIsABF16(elem);
  MlirType accType = widen ? mlirF32TypeGet(b.ctx) : elem;
  MlirAttribute neutral =
      c->isFloat ? mlirFloatAttrDoubleGet(b.ctx, accType, c->neutral)
                 : mlirIntegerAttrGet(accType, (int64_t)c->neutral);
  MlirNamedAttribute value = embNamedAttr(b.ctx, "value", neutral);
  MlirValue init = result0(
      embBuildOp(&b, "arith.constant", 0, NULL, 1, &accType, 1, &value));
  MlirValue tid = mlirBlockGetArgument(body, 3);
  MlirBlock loop;
  MlirOperation forOp = buildFor(&b, tid, constIndex(&b, lp.reduced),
                                 constIndex(&b, threads), 1, &init, &loop);
  MlirValue ridx[maxLoops] = {{0}};
  ValueMap m = {0};
  EmbBuilder in = enterReductionLoop(&b, g, loop, idx, &lp, ridx, &m);
  MlirValue unused[1];
  cloneBody(&in, g, &m, ridx, combinerOp, unused);
  MlirValue v = mlirOperationGetOperand(combinerOp, 1 - accPos);
  MlirValue mapped = mapGet(&m, v);
  if (!mlirValueIsNull(mapped))
    v = mapped;
  mapFree(&m);
  if (widen)
    v = cast(&in, "arith.extf", v, accType);
  MlirValue next = combine(&in, c, mlirBlockGetArgument(loop, 1), v);
  embBuildOp(&in, "scf.yield", 1, &next, 0, NULL, 0, NULL);

  char kind[64];
  snprintf(kind, sizeof kind, "#gpu<all_reduce_op %s>", c->kind);
  MlirNamedAttribute attrs[2] = {
      embNamedAttr(b.ctx, "op", mlirAttributeParseGet(b.ctx, embStr(kind))),
      embNamedAttr(b.ctx, "uniform", mlirUnitAttrGet(b.ctx))};
  MlirValue partial = mlirOperationGetResult(forOp, 0);
  MlirOperationState st =
      mlirOperationStateGet(embStr("gpu.all_reduce"), b.loc);
  mlirOperationStateAddOperands(&st, 1, &partial);
  mlirOperationStateAddResults(&st, 1, &accType);
  mlirOperationStateAddAttributes(&st, 2, attrs);
  MlirRegion empty = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&st, 1, &empty);
  MlirOperation reduce = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(b.block, b.before, reduce);
  MlirValue total = result0(reduce);
  buildIf(&b, embBuildCmpI(&b, cmpEq, tid, constIndex(&b, 0)));
  if (widen)
    total = cast(&b, "arith.truncf", total, elem);
  MlirValue old = load(&b, g, ni, idx);
  // The combiner's operand order, as the body has it.
  MlirValue result =
      accPos == 0 ? combine(&b, c, old, total) : combine(&b, c, total, old);
  store(&b, g, ni, idx, result);
  return launch;
}

typedef struct Sink {
  MlirOperation launch;
  MlirBlock host, body;
  MlirOperation first;
  ValueMap copies;
} Sink;

/// Copies the constants of the host block that `op` reads to the start of
/// the launch body: a kernel takes buffers only.
static MlirWalkResult sinkConstant(MlirOperation op, void *userData) {
  Sink *s = userData;
  if (mlirOperationEqual(op, s->launch))
    return MlirWalkResultAdvance; // its grid stays on the host
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!mlirValueIsAOpResult(v))
      continue;
    MlirOperation def = mlirOpResultGetOwner(v);
    if (!embOpIs(def, "arith.constant") ||
        !mlirBlockEqual(mlirOperationGetBlock(def), s->host))
      continue;
    MlirValue copy = mapGet(&s->copies, v);
    if (mlirValueIsNull(copy)) {
      MlirOperation c = mlirOperationClone(def);
      mlirBlockInsertOwnedOperationBefore(s->body, s->first, c);
      copy = result0(c);
      mapPut(&s->copies, v, copy);
    }
    mlirOperationSetOperand(op, i, copy);
  }
  return MlirWalkResultAdvance;
}

static bool isGeneric(MlirOperation op) {
  return embOpIs(op, "linalg.generic");
}

/// Every linalg.generic of the module's functions becomes a gpu.launch.
static bool launchGenerics(MlirModule module, char *why, size_t n) {
  size_t count = 0;
  MlirOperation *ops =
      embCollectOps(mlirModuleGetOperation(module), isGeneric, &count);
  bool ok = true;
  for (size_t i = 0; i < count && ok; ++i) {
    Generic g;
    if (!readGeneric(ops[i], &g, why, n)) {
      ok = false;
      break;
    }
    EmbBuilder b = {mlirOperationGetContext(ops[i]),
                    mlirOperationGetLocation(ops[i]),
                    mlirOperationGetBlock(ops[i]), ops[i]};
    const Combiner *c = NULL;
    MlirOperation combinerOp = {NULL};
    intptr_t accPos = 0;
    Loops lp = splitLoops(&g);
    // A tree launches a block per point, a pointwise kernel a thread.
    bool tree = lp.nr > 0 && lp.reduced >= minTreeReduction &&
                lp.points <= maxGridBlocks &&
                matchTree(&g, &c, &combinerOp, &accPos);
    if (!tree &&
        (lp.points + blockThreads - 1) / blockThreads > maxGridBlocks) {
      snprintf(why, n,
               "its %lld parallel points need more than %d blocks of %d "
               "threads, a launch's most",
               (long long)lp.points, maxGridBlocks, blockThreads);
      ok = false;
      break;
    }
    MlirOperation launch = tree ? lowerTree(&b, &g, c, combinerOp, accPos)
                                : lowerPointwise(&b, &g);
    mlirOperationDestroy(ops[i]);
    if (!mlirOperationIsNull(launch)) {
      MlirBlock body =
          mlirRegionGetFirstBlock(mlirOperationGetRegion(launch, 0));
      Sink s = {launch, b.block, body, mlirBlockGetFirstOperation(body), {0}};
      mlirOperationWalk(launch, sinkConstant, &s, MlirWalkPreOrder);
      mapFree(&s.copies);
    }
  }
  free(ops);
  return ok;
}

//===----------------------------------------------------------------------===//
// Compiling a group's module
//===----------------------------------------------------------------------===//

typedef struct Diagnostics {
  char text[256];
} Diagnostics;

static void onPipelineError(MlirStringRef message, void *userData) {
  Diagnostics *d = userData;
  size_t used = strlen(d->text);
  if (used + 1 < sizeof d->text)
    snprintf(d->text + used, sizeof d->text - used, "%.*s", (int)message.length,
             message.data);
}

/// Runs `pipeline` (pass elements on builtin.module) on `module`; a
/// pipeline that does not parse says why in `why`.
static bool runPipeline(MlirContext ctx, MlirModule module,
                        const char *pipeline, char *why, size_t n) {
  MlirPassManager pm =
      mlirPassManagerCreateOnOperation(ctx, embStr("builtin.module"));
  Diagnostics d = {{0}};
  MlirLogicalResult r =
      mlirOpPassManagerAddPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                   embStr(pipeline), onPipelineError, &d);
  if (mlirLogicalResultIsFailure(r))
    snprintf(why, n, "the pipeline '%s' does not parse: %s", pipeline, d.text);
  else if (mlirLogicalResultIsFailure(
               r = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))))
    snprintf(why, n, "%s", "");
  mlirPassManagerDestroy(pm);
  return mlirLogicalResultIsSuccess(r);
}

/// Whether `op` is an elementwise linalg.generic of one result (every loop
/// parallel), which a consumer can recompute instead of reading.
static bool isElementwiseGeneric(MlirOperation op) {
  if (!embOpIs(op, "linalg.generic") || mlirOperationGetNumResults(op) != 1)
    return false;
  MlirAttribute iters =
      mlirOperationGetAttributeByName(op, embStr("iterator_types"));
  for (intptr_t i = 0, n = mlirArrayAttrGetNumElements(iters); i < n; ++i) {
    char text[64];
    embPrintAttribute(mlirArrayAttrGetElement(iters, i), text, sizeof text);
    if (!strstr(text, "parallel"))
      return false;
  }
  return true;
}

/// linalg-fuse-elementwise-ops fuses a producer into its consumer only when
/// the consumer is its one use. A softmax reads exp(x - max) twice (the sum
/// and the division) and x twice (the max and the exp): each use gets a copy
/// of its elementwise producer, so that every kernel recomputes it from the
/// inputs rather than reading an intermediate from memory (a kernel is
/// bound by memory, not arithmetic).
static void duplicateElementwise(MlirModule module) {
  size_t n = 0;
  MlirOperation *ops =
      embCollectOps(mlirModuleGetOperation(module), isElementwiseGeneric, &n);
  // Consumers first, so that a copy made for one is itself split later.
  for (size_t i = n; i-- > 0;) {
    MlirValue r = result0(ops[i]);
    MlirOpOperand u = mlirValueGetFirstUse(r);
    if (mlirOpOperandIsNull(u))
      continue;
    // Collect the uses first: rewriting them changes the list.
    size_t numUses = 0;
    for (MlirOpOperand v = u; !mlirOpOperandIsNull(v);
         v = mlirOpOperandGetNextUse(v))
      ++numUses;
    MlirOpOperand *uses = calloc(numUses, sizeof(MlirOpOperand));
    numUses = 0;
    for (MlirOpOperand v = u; !mlirOpOperandIsNull(v);
         v = mlirOpOperandGetNextUse(v))
      uses[numUses++] = v;
    for (size_t k = 1; k < numUses; ++k) {
      MlirOperation user = mlirOpOperandGetOwner(uses[k]);
      if (!mlirBlockEqual(mlirOperationGetBlock(user),
                          mlirOperationGetBlock(ops[i])))
        continue;
      MlirOperation copy = mlirOperationClone(ops[i]);
      mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(user), user,
                                          copy);
      mlirOperationSetOperand(user, mlirOpOperandGetOperandNumber(uses[k]),
                              result0(copy));
    }
    free(uses);
  }
  free(ops);
}

/// What a group reads and writes, and what it copies.
typedef struct Interface {
  MlirValue *inputs, *outputs;
  size_t numInputs, numOutputs;
} Interface;

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
  MlirOperation top = topLevelOp(owner, c->body);
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
static bool buildGroupFunction(EmbLowering *l, const EmbGpuKernelGroup *g,
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
    if (mlirValueIsAOpResult(v) && isCloned(mlirOpResultGetOwner(v))) {
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
        outside |= !inGroup(g, topLevelOp(mlirOpOperandGetOwner(u), fnBody));
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
    mapPut(&m, io->inputs[i],
           result0(embBuildOp(&b, "bufferization.to_tensor", 1, &arg, 1, &t, 1,
                              &restrictAttr)));
  }
  // Copied values, operands first (they were collected after their users).
  for (size_t i = numCloned; i-- > 0;) {
    MlirOperation def = mlirOpResultGetOwner(cloned[i]);
    if (!mlirValueIsNull(mapGet(&m, cloned[i])))
      continue;
    if (isSplatConstant(def)) {
      // A splat tensor would bufferize to a global in host memory: the
      // kernel fills it instead.
      MlirAttribute v = mlirOperationGetAttributeByName(def, embStr("value"));
      MlirType t = mlirValueGetType(cloned[i]);
      MlirType e = mlirShapedTypeGetElementType(t);
      MlirNamedAttribute sv =
          embNamedAttr(l->ctx, "value", mlirDenseElementsAttrGetSplatValue(v));
      MlirValue s =
          result0(embBuildOp(&b, "arith.constant", 0, NULL, 1, &e, 1, &sv));
      mapPut(&m, cloned[i],
             result0(embBuildOp(&b, "tensor.splat", 1, &s, 1, &t, 0, NULL)));
    } else {
      cloneMapped(&b, def, &m);
    }
  }
  free(cloned);
  for (size_t i = 0; i < g->numOps; ++i)
    cloneMapped(&b, (MlirOperation){(void *)g->ops[i]}, &m);
  MlirNamedAttribute rw[2] = {
      restrictAttr, embNamedAttr(l->ctx, "writable", mlirUnitAttrGet(l->ctx))};
  for (size_t i = 0; i < io->numOutputs; ++i) {
    MlirValue operands[2] = {
        mapGet(&m, io->outputs[i]),
        mlirBlockGetArgument(block, (intptr_t)(io->numInputs + i))};
    embBuildOp(&b, "bufferization.materialize_in_destination", 2, operands, 0,
               NULL, 2, rw);
  }
  embBuildOp(&b, "func.return", 0, NULL, 0, NULL, 0, NULL);
  mapFree(&m);
  return true;
}

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
static bool emitHost(EmbLowering *l, MlirModule module, MlirOperation fn,
                     const MlirValue *args, char *why, size_t n) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0));
  ValueMap buffers = {0};
  for (intptr_t i = 0, na = mlirBlockGetNumArguments(body); i < na; ++i)
    mapPut(&buffers, mlirBlockGetArgument(body, i), args[i]);
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
      mapPut(&buffers, result0(op), embAllocBytes(l, embConstDim(bytes)));
      continue;
    }
    if (embOpIs(op, "memref.copy")) {
      MlirValue src = mapGet(&buffers, mlirOperationGetOperand(op, 0));
      MlirValue dst = mapGet(&buffers, mlirOperationGetOperand(op, 1));
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
      kargs[a] = mapGet(&buffers, mlirOperationGetOperand(op, firstArg + a));
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
  mapFree(&buffers);
  return ok;
}

//===----------------------------------------------------------------------===//
// A group
//===----------------------------------------------------------------------===//

static void failGroup(EmbLowering *l, const EmbGpuKernelGroup *g,
                      const char *why) {
  char what[768];
  snprintf(what, sizeof what, "no GPU kernel for it: %s", why);
  embLowerFail(l, (MlirOperation){(void *)g->ops[0]}, what);
}

bool embLowerGpuKernel(EmbLowering *l, MlirOperation op) {
  EmbGpuKernelGroup *g = groupOf(l, op);
  if (!g)
    return false;
  if (g->ops[g->numOps - 1] != op.ptr)
    return true; // the group's last op compiles it
  MlirOperation first = {(void *)g->ops[0]};
  MlirBlock fnBody = mlirOperationGetBlock(first);
  MlirModule module = mlirModuleCreateEmpty(mlirOperationGetLocation(first));
  char name[64];
  snprintf(name, sizeof name, "emb_kernel_%zu", l->numKernelModules++);
  Interface io = {NULL, NULL, 0, 0};
  char why[512] = "";
  bool ok =
      buildGroupFunction(l, g, fnBody, module, name, &io, why, sizeof why);
  if (ok && !mlirOperationVerify(mlirModuleGetOperation(module))) {
    snprintf(why, sizeof why, "its ops do not verify on their own");
    ok = false;
  }
  if (ok && !runPipeline(l->ctx, module, generalizePipeline, why, sizeof why)) {
    if (!why[0])
      snprintf(why, sizeof why,
               "MLIR's generalization of its ops failed (see the errors "
               "above)");
    ok = false;
  }
  if (ok)
    duplicateElementwise(module);
  if (ok && !runPipeline(l->ctx, module, tensorPipeline, why, sizeof why)) {
    if (!why[0])
      snprintf(why, sizeof why,
               "MLIR's bufferization of its ops failed (see the errors "
               "above)");
    ok = false;
  }
  ok = ok && launchGenerics(module, why, sizeof why);
  char libdevice[600], pipeline[1600];
  libdeviceOption(libdevice, sizeof libdevice);
  snprintf(pipeline, sizeof pipeline, gpuPipeline, libdevice);
  if (ok && !runPipeline(l->ctx, module, pipeline, why, sizeof why)) {
    if (!why[0])
      snprintf(why, sizeof why,
               "MLIR's GPU pipeline failed on its kernels (see the errors "
               "above)");
    ok = false;
  }
  MlirOperation fn = {NULL};
  for (MlirOperation f = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       ok && !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f))
    if (embOpIs(f, "func.func"))
      fn = f;
  if (ok && mlirOperationIsNull(fn)) {
    snprintf(why, sizeof why, "its function was lost");
    ok = false;
  }
  if (ok) {
    // The buffers of its inputs and outputs in the lowered function.
    size_t nargs = io.numInputs + io.numOutputs;
    MlirValue *args = calloc(nargs + 1, sizeof(MlirValue));
    for (size_t i = 0; i < io.numInputs && ok; ++i) {
      EmbMapped *m = embLookupValue(l, io.inputs[i]);
      if (!m || !m->isTensor) {
        snprintf(why, sizeof why, "an input was not lowered");
        ok = false;
      } else {
        args[i] = m->value;
      }
    }
    for (size_t i = 0; i < io.numOutputs && ok; ++i) {
      MlirType t = mlirValueGetType(io.outputs[i]);
      EmbDim dims[EMBRT_MAX_RANK];
      intptr_t rank = mlirShapedTypeGetRank(t);
      if (rank > EMBRT_MAX_RANK) {
        snprintf(why, sizeof why, "a result has more than %d dims",
                 EMBRT_MAX_RANK);
        ok = false;
        break;
      }
      for (intptr_t d = 0; d < rank; ++d)
        dims[d] = embConstDim(mlirShapedTypeGetDimSize(t, d));
      args[io.numInputs + i] = embDefineResult(l, io.outputs[i], dims)->value;
    }
    ok = ok && emitHost(l, module, fn, args, why, sizeof why);
    free(args);
  }
  if (!ok && !l->failed)
    failGroup(l, g, why);
  free(io.inputs);
  free(io.outputs);
  mlirModuleDestroy(module);
  return true;
}
