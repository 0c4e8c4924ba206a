//===- passes/erase_dead.c - emb-erase-dead -------------------------------===//
//
// Erases the ops nobody reads: emb ops without uses (IRDL ops have no
// traits, so MLIR's dead-code elimination never removes them) and the
// effect-free ops (embIsPure: tensor, arith, math, linalg ops on tensors)
// that only they read. Most emb ops compute values from tensors and write
// nothing else; an unused lookup is erased with its possible bounds error,
// as MLIR erases an unused linalg.generic with its cf.assert. The ops with
// effects (embHasEffects) stay whether or not their results are read: a
// backward updates its tables and states in place (a step run in a loop
// keeps its arguments and leaves the results unused), and every rank must
// issue a collective.
//
// It visits the ops in reverse pre-order, users before their producers, so
// one sweep reaches the fixed point.
//
// Preconditions: none. Postconditions: no emb op without effects and no
// effect-free op has an unused result. The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "pass.h"
#include "rewrite.h"

#include "ir.h"

static bool isUnused(MlirOperation op) {
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i)
    if (embHasUses(mlirOperationGetResult(op, i)))
      return false;
  return mlirOperationGetNumResults(op) > 0;
}

static void run(MlirOperation root, MlirExternalPass pass,
                const void *options) {
  (void)options;
  EmbOpList ops = {NULL, 0, 0};
  if (!embCollectNestedOps(root, &ops)) {
    embOpListFree(&ops);
    embEmitErrorf(mlirOperationGetLocation(root),
                  "emb-erase-dead: out of memory");
    mlirExternalPassSignalFailure(pass);
    return;
  }
  // Nested ops come after their parent in pre-order, so in reverse they are
  // visited (and maybe erased) before it; erasing a parent only destroys
  // ops already visited.
  for (size_t i = ops.size; i-- > 0;) {
    MlirOperation op = ops.ops[i];
    if ((embIsEmbOp(op) || embIsPure(op)) && !embHasEffects(op) && isUnused(op))
      mlirOperationDestroy(op);
  }
  embOpListFree(&ops);
}

const EmbPassDef embEraseDeadPassDef = {
    .argument = "emb-erase-dead",
    .name = "EmbEraseDead",
    .summary = "Erase unused emb ops and the effect-free ops only they read",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};
