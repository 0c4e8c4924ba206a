//===- codegen/gpu/loops.c - linalg.generic as a gpu.launch ---------------===//
//
// Loop mapping: each linalg.generic on buffers of a group's module becomes a
// gpu.launch (MLIR's own mapping goes through scf.parallel; this one is
// direct), a thread per point of the parallel dims (256 threads a block, the
// grid from the sizes, the tail guarded), the point found by dividing the
// linear index by the static extents, every operand read through its
// indexing map (affine.apply), the body copied in; reduction dims, if any,
// are a loop in the thread. The builders and readers of a generic here serve
// the block reduction too (reductions.c).
//
//===----------------------------------------------------------------------===//

#include "gpu.h"

#include "ir.h"

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Small builders
//===----------------------------------------------------------------------===//

static MlirType indexType(EmbBuilder *b) { return mlirIndexTypeGet(b->ctx); }

static MlirBlock newBlock(intptr_t n, const MlirType *types, MlirLocation loc) {
  MlirLocation locs[16];
  for (int i = 0; i < 16; ++i)
    locs[i] = loc;
  return mlirBlockCreate(n, types, locs);
}

/// scf.if %cond without results: the builder moves into its then block,
/// before its scf.yield.
void embGpuBuildIf(EmbBuilder *b, MlirValue cond) {
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
MlirOperation embGpuBuildFor(EmbBuilder *b, MlirValue lb, MlirValue ub,
                             MlirValue step, intptr_t n, const MlirValue *inits,
                             MlirBlock *body) {
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
MlirOperation embGpuBuildLaunch(EmbBuilder *b, int64_t grid, int64_t threads,
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

bool embGpuReadGeneric(MlirOperation op, Generic *g, char *why, size_t n) {
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
  // embGpuSplitLoops multiplies the extents: their product must be an index.
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
void embGpuDelinearize(EmbBuilder *b, const Generic *g, MlirValue linear,
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

MlirValue embGpuLoad(EmbBuilder *b, const Generic *g, intptr_t i,
                     const MlirValue *idx) {
  MlirValue operands[1 + maxLoops];
  operands[0] = g->operands[i];
  operandIndices(b, g, i, idx, operands + 1);
  MlirType t = mlirShapedTypeGetElementType(mlirValueGetType(g->operands[i]));
  intptr_t rank = mlirAffineMapGetNumResults(g->maps[i]);
  return result0(
      embBuildOp(b, "memref.load", 1 + rank, operands, 1, &t, 0, NULL));
}

void embGpuStore(EmbBuilder *b, const Generic *g, intptr_t i,
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
void embGpuCloneBody(EmbBuilder *b, const Generic *g, ValueMap *m,
                     const MlirValue *idx, MlirOperation skip,
                     MlirValue *yielded) {
  for (MlirOperation op = mlirBlockGetFirstOperation(g->body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (embOpIs(op, "linalg.yield")) {
      for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
        MlirValue v = mlirOperationGetOperand(op, i);
        MlirValue mapped = embGpuMapGet(m, v);
        yielded[i] = mlirValueIsNull(mapped) ? v : mapped;
      }
      break;
    }
    if (!mlirOperationIsNull(skip) && mlirOperationEqual(op, skip))
      continue;
    if (embOpIs(op, "linalg.index")) {
      int64_t dim = 0;
      embGetIntAttr(op, "dim", &dim);
      embGpuMapPut(m, result0(op), idx[dim]);
      continue;
    }
    embGpuCloneMapped(b, op, m);
  }
}

//===----------------------------------------------------------------------===//
// The loops of a generic, and a thread per point
//===----------------------------------------------------------------------===//

Loops embGpuSplitLoops(const Generic *g) {
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
EmbBuilder embGpuEnterReductionLoop(const EmbBuilder *outer, const Generic *g,
                                    MlirBlock loop, const MlirValue *idx,
                                    const Loops *lp, MlirValue *ridx,
                                    ValueMap *m) {
  EmbBuilder in = {outer->ctx, outer->loc, loop, {NULL}};
  memcpy(ridx, idx, maxLoops * sizeof(MlirValue));
  embGpuDelinearize(&in, g, mlirBlockGetArgument(loop, 0), lp->red, lp->nr,
                    ridx);
  for (intptr_t i = 0; i < g->numIns; ++i)
    embGpuMapPut(m, mlirBlockGetArgument(g->body, i),
                 embGpuLoad(&in, g, i, ridx));
  return in;
}

/// A thread per point of the parallel dims; reduction dims loop in it.
MlirOperation embGpuLowerPointwise(EmbBuilder *host, const Generic *g) {
  Loops lp = embGpuSplitLoops(g);
  if (lp.points == 0)
    return (MlirOperation){NULL};
  MlirBlock body;
  MlirOperation launch = embGpuBuildLaunch(
      host, (lp.points + blockThreads - 1) / blockThreads, blockThreads, &body);
  EmbBuilder b = {host->ctx, host->loc, body, mlirBlockGetTerminator(body)};
  MlirValue linear = embBuildBinary(
      &b, "arith.addi",
      embBuildBinary(&b, "arith.muli", mlirBlockGetArgument(body, 0),
                     constIndex(&b, blockThreads)),
      mlirBlockGetArgument(body, 3));
  embGpuBuildIf(&b,
                embBuildCmpI(&b, cmpUlt, linear, constIndex(&b, lp.points)));
  MlirValue idx[maxLoops] = {{0}};
  embGpuDelinearize(&b, g, linear, lp.par, lp.np, idx);
  // The outputs' current values, for bodies that read them (zeroed past
  // `no`, which GCC cannot tell embGpuBuildFor does not read).
  MlirValue acc[32] = {{0}};
  intptr_t ni = g->numIns, no = g->numOuts;
  for (intptr_t o = 0; o < no; ++o) {
    MlirValue arg = mlirBlockGetArgument(g->body, ni + o);
    acc[o] = mlirOpOperandIsNull(mlirValueGetFirstUse(arg))
                 ? (MlirValue){NULL}
                 : embGpuLoad(&b, g, ni + o, idx);
  }
  MlirValue results[32];
  if (lp.nr == 0 || lp.reduced == 0) {
    ValueMap m = {0};
    for (intptr_t i = 0; i < ni; ++i)
      embGpuMapPut(&m, mlirBlockGetArgument(g->body, i),
                   embGpuLoad(&b, g, i, idx));
    for (intptr_t o = 0; o < no; ++o)
      if (!mlirValueIsNull(acc[o]))
        embGpuMapPut(&m, mlirBlockGetArgument(g->body, ni + o), acc[o]);
    if (lp.nr == 0)
      embGpuCloneBody(&b, g, &m, idx, (MlirOperation){NULL}, results);
    else
      for (intptr_t o = 0; o < no; ++o) // an empty reduction: the init
        results[o] = acc[o];
    embGpuMapFree(&m);
  } else {
    for (intptr_t o = 0; o < no; ++o)
      if (mlirValueIsNull(acc[o]))
        acc[o] = embGpuLoad(&b, g, ni + o, idx);
    MlirBlock loop;
    MlirOperation forOp =
        embGpuBuildFor(&b, constIndex(&b, 0), constIndex(&b, lp.reduced),
                       constIndex(&b, 1), no, acc, &loop);
    MlirValue ridx[maxLoops] = {{0}};
    ValueMap m = {0};
    EmbBuilder in = embGpuEnterReductionLoop(&b, g, loop, idx, &lp, ridx, &m);
    for (intptr_t o = 0; o < no; ++o)
      embGpuMapPut(&m, mlirBlockGetArgument(g->body, ni + o),
                   mlirBlockGetArgument(loop, 1 + o));
    MlirValue next[32];
    embGpuCloneBody(&in, g, &m, ridx, (MlirOperation){NULL}, next);
    embBuildOp(&in, "scf.yield", no, next, 0, NULL, 0, NULL);
    embGpuMapFree(&m);
    for (intptr_t o = 0; o < no; ++o)
      results[o] = mlirOperationGetResult(forOp, o);
  }
  for (intptr_t o = 0; o < no; ++o)
    embGpuStore(&b, g, ni + o, idx, results[o]);
  return launch;
}
