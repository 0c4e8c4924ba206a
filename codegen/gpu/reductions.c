//===- codegen/gpu/reductions.c - Reductions across a block ---------------===//
//
// A reduction over at least 32 points whose body is a combiner (addf, mulf,
// maximumf, minimumf, maxnumf, minnumf, addi, ...) of the accumulator and a
// value that does not read it: a block per output point, each thread
// accumulating a strided part of the reduction (f16 and bf16 in f32), then
// gpu.all_reduce across the block (MLIR lowers it to warp shuffles and
// shared memory), and thread 0 combines the total with the output's initial
// value.
//
//===----------------------------------------------------------------------===//

#include "gpu.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdio.h>

static MlirValue cast(EmbBuilder *b, const char *name, MlirValue v,
                      MlirType to) {
  return result0(embBuildOp(b, name, 1, &v, 1, &to, 0, NULL));
}

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
bool embGpuMatchTree(const Generic *g, const Combiner **c, MlirOperation *op,
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
MlirOperation embGpuLowerTree(EmbBuilder *host, const Generic *g,
                              const Combiner *c, MlirOperation combinerOp,
                              intptr_t accPos) {
  Loops lp = embGpuSplitLoops(g);
  if (lp.points == 0)
    return (MlirOperation){NULL};
  int64_t threads = (lp.reduced + 31) / 32 * 32;
  if (threads > blockThreads)
    threads = blockThreads;
  MlirBlock body;
  MlirOperation launch = embGpuBuildLaunch(host, lp.points, threads, &body);
  EmbBuilder b = {host->ctx, host->loc, body, mlirBlockGetTerminator(body)};
  MlirValue idx[maxLoops] = {{0}};
  embGpuDelinearize(&b, g, mlirBlockGetArgument(body, 0), lp.par, lp.np, idx);
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
  MlirOperation forOp =
      embGpuBuildFor(&b, tid, constIndex(&b, lp.reduced),
                     constIndex(&b, threads), 1, &init, &loop);
  MlirValue ridx[maxLoops] = {{0}};
  ValueMap m = {0};
  EmbBuilder in = embGpuEnterReductionLoop(&b, g, loop, idx, &lp, ridx, &m);
  MlirValue unused[1];
  embGpuCloneBody(&in, g, &m, ridx, combinerOp, unused);
  MlirValue v = mlirOperationGetOperand(combinerOp, 1 - accPos);
  MlirValue mapped = embGpuMapGet(&m, v);
  if (!mlirValueIsNull(mapped))
    v = mapped;
  embGpuMapFree(&m);
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
  embGpuBuildIf(&b, embBuildCmpI(&b, cmpEq, tid, constIndex(&b, 0)));
  if (widen)
    total = cast(&b, "arith.truncf", total, elem);
  MlirValue old = embGpuLoad(&b, g, ni, idx);
  // The combiner's operand order, as the body has it.
  MlirValue result =
      accPos == 0 ? combine(&b, c, old, total) : combine(&b, c, total, old);
  embGpuStore(&b, g, ni, idx, result);
  return launch;
}
