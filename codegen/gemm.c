//===- codegen/gemm.c - linalg matmuls as embrtGemm calls -----------------===//
//
// torch-mlir writes a linear layer as a chain of linalg ops:
//
//   %wt = linalg.transpose ins(%w : tensor<NxK>) ... permutation = [1, 0]
//   %z  = linalg.fill ins(%c0 : f32) outs(%e : tensor<MxN>)
//   %mm = linalg.matmul ins(%x, %wt) outs(%z)
//   %y  = linalg.generic {maps [id, (d0, d1) -> (d1), id]} ins(%mm, %bias)
//           { arith.addf }                    // the bias
//   %r  = linalg.generic {maps [id, id]} ins(%y) { relu or sigmoid }
//
// and torch.matmul of a weight and a batch as a broadcast copy generic of the
// weight into a linalg.batch_matmul. Each such chain becomes one call of
// embrtCompiledGemm (include/emb/compiled.h) that reads %w and %x where they
// are (transB, or a batch stride of 0 for the broadcast weight) and writes
// %r: cuBLASLt's epilogue on CUDA. A chain is matched when:
//   - the root is linalg.matmul or linalg.batch_matmul (its indexing_maps,
//     when given, are the default ones or transpose A or B, or drop the
//     batch dim of A or B: a broadcast) accumulating into a linalg.fill of
//     zero, on f32, f16 or bf16 operands of one type, with an f32 or
//     operand-typed result;
//   - an operand may be a linalg.transpose (or a permutation copy generic)
//     of its last two dims, and a batch_matmul operand a copy generic that
//     broadcasts a matrix to every batch;
//   - after an f32 accumulation of f16 or bf16 operands, a generic that
//     truncates the product to the operand type (torch-mlir's
//     convertTensorToElementType): the call writes that type;
//   - after it, a generic of all-parallel loops may add a bias along the last
//     dim and apply relu (maximumf with 0, or cmpf ugt/ogt and select) or
//     sigmoid (1 / (1 + exp(-x))), or an activation-only generic may follow
//     a bias-only one. After a truncation they run in f32 in the call's
//     epilogue and the result is rounded once, where the IR rounds after the
//     product and again after the bias (and the activation): the call's
//     result is the IR's within an f16 (bf16) rounding of the sum.
// An op of the chain other than its last is absorbed (not lowered, then
// erased) only when its one use is the next op of the chain; otherwise the
// chain stops there (a transpose used elsewhere stays, and the matmul reads
// its result). GELU is not matched (torch-mlir writes the erf form; the
// runtime's epilogue is the tanh form).
//
// Both paths of emb-lower-to-runtime use this: a function whose every op is
// a runtime call or part of a chain is lowered to calls alone (cpu and cuda),
// and a mixed function (cpu) lowers its chains like its emb ops, on buffers,
// among the ops MLIR compiles.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"
#include "linalg_match.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>
#include <string.h>

/// The ops a chain may absorb: fill, two per operand (transpose,
/// broadcast), the root, two epilogue generics, and the tensor.empty inits
/// of all of them and of the last op.
enum { kMaxParts = 16 };

/// One matched chain.
typedef struct EmbGemmPlan {
  MlirOperation root, last;
  MlirOperation parts[kMaxParts]; ///< absorbed ops, `last` not among them
  int numParts;
  MlirValue a, b, bias; ///< what the call reads (bias may be null)
  /// Where a, b and bias are read: operand srcIndex[i] of srcOp[i] (a
  /// mixed function replaces a chain's result, which another chain may
  /// read, once the first is lowered: refreshSources reads them again).
  MlirOperation srcOp[3];
  intptr_t srcIndex[3];
  int transA, transB, bcastA, bcastB, batched;
  embrtActivation act;
} EmbGemmPlan;

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

static bool isGemmFloat(MlirType t) {
  return mlirTypeIsAF32(t) || mlirTypeIsAF16(t) || mlirTypeIsABF16(t);
}

static MlirType elementOf(MlirValue v) {
  return mlirShapedTypeGetElementType(mlirValueGetType(v));
}

/// Whether `v` has exactly one use, by `user`.
static bool onlyUsedBy(MlirValue v, MlirOperation user) {
  MlirOperation u;
  return embSingleUser(v, &u) && mlirOperationEqual(u, user);
}

static void addPart(EmbGemmPlan *p, MlirOperation op) {
  if (p->numParts < kMaxParts)
    p->parts[p->numParts++] = op;
}

/// Looks through a transpose of the last two of `rank` dims and, for a
/// batched operand, a broadcast of a matrix to every batch, of operand `v`
/// of `user`; flips `*trans`, sets `*bcast`.
static MlirValue readOperand(EmbGemmPlan *p, int which, MlirOperation user,
                             intptr_t rank, int *trans, int *bcast) {
  MlirValue v = mlirOperationGetOperand(user, which);
  p->srcOp[which] = user;
  p->srcIndex[which] = which;
  for (int step = 0; step < 2; ++step) {
    MlirOperation producer = embProducer(v);
    if (mlirOperationIsNull(producer) || !onlyUsedBy(v, user) ||
        mlirOperationGetNumResults(producer) != 1)
      return v;
    MlirValue src;
    int64_t perm[EMB_MAX_LOOPS];
    MlirAffineMap map;
    bool viaCast = embOpIs(producer, "tensor.cast");
    if (!viaCast && embReadTranspose(v, &src, perm) &&
        mlirShapedTypeGetRank(mlirValueGetType(src)) == rank && rank >= 2) {
      bool swapLast = perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2;
      for (intptr_t i = 0; i + 2 < rank; ++i)
        swapLast &= perm[i] == i;
      if (!swapLast)
        return v;
      *trans ^= 1;
    } else if (!viaCast && rank == 3 && !*bcast && embReadCopy(v, &src, &map) &&
               mlirShapedTypeGetRank(mlirValueGetType(src)) == 2 &&
               embMapIs(map, 2, (const int64_t[]){1, 2})) {
      *bcast = 1;
      rank = 2;
    } else {
      return v;
    }
    addPart(p, producer);
    user = producer;
    v = src;
    p->srcOp[which] = producer;
    p->srcIndex[which] = 0;
  }
  return v;
}

/// Reads the chain's sources again where they are read (see srcOp).
static void refreshSources(EmbGemmPlan *p) {
  MlirValue *src[] = {&p->a, &p->b, &p->bias};
  for (int i = 0; i < 3; ++i)
    if (!mlirOperationIsNull(p->srcOp[i]))
      *src[i] = mlirOperationGetOperand(p->srcOp[i], p->srcIndex[i]);
}

/// Reads the root's indexing_maps (when it has them): which operand is
/// transposed or broadcast. False for any other form.
static bool readRootMaps(MlirOperation root, bool batched, int *transA,
                         int *transB, int *bcastA, int *bcastB) {
  MlirAttribute maps =
      mlirOperationGetAttributeByName(root, embStr("indexing_maps"));
  if (mlirAttributeIsNull(maps))
    return true;
  if (!mlirAttributeIsAArray(maps) || mlirArrayAttrGetNumElements(maps) != 3)
    return false;
  MlirAffineMap m[3];
  for (int i = 0; i < 3; ++i) {
    MlirAttribute e = mlirArrayAttrGetElement(maps, i);
    if (!mlirAttributeIsAAffineMap(e))
      return false;
    m[i] = mlirAffineMapAttrGetValue(e);
  }
  // Loops: (b,) i, j, p; A [b,] i, p; B [b,] p, j; C [b,] i, j.
  int64_t o = batched ? 1 : 0, i = o, j = o + 1, k = o + 2;
  int64_t c[3] = {0, i, j};
  if (!embMapIs(m[2], 2 + o, batched ? c : c + 1))
    return false;
  int64_t aN[3] = {0, i, k}, aT[3] = {0, k, i};
  int64_t bN[3] = {0, k, j}, bT[3] = {0, j, k};
  if (embMapIs(m[0], 2 + o, batched ? aN : aN + 1))
    *transA = 0;
  else if (embMapIs(m[0], 2 + o, batched ? aT : aT + 1))
    *transA = 1;
  else if (batched && embMapIs(m[0], 2, aN + 1))
    *transA = 0, *bcastA = 1;
  else if (batched && embMapIs(m[0], 2, aT + 1))
    *transA = 1, *bcastA = 1;
  else
    return false;
  if (embMapIs(m[1], 2 + o, batched ? bN : bN + 1))
    *transB = 0;
  else if (embMapIs(m[1], 2 + o, batched ? bT : bT + 1))
    *transB = 1;
  else if (batched && embMapIs(m[1], 2, bN + 1))
    *transB = 0, *bcastB = 1;
  else if (batched && embMapIs(m[1], 2, bT + 1))
    *transB = 1, *bcastB = 1;
  else
    return false;
  return true;
}

/// Whether `v` is the float constant `c` in the body of `g`.
static bool isConst(const EmbGeneric *g, MlirValue v, double c) {
  double value;
  return embConstFloatIn(g, v, &value) && value == c;
}

/// relu(x) or sigmoid(x) of `y`: the activation, and x in `*x`.
static embrtActivation readActivation(const EmbGeneric *g, MlirValue y,
                                      MlirValue *x) {
  MlirValue p, q, r;
  MlirOperation op;
  if ((embReadBinary(y, "arith.maximumf", &p, &q) ||
       embReadBinary(y, "arith.maxnumf", &p, &q)) &&
      (isConst(g, p, 0.0) || isConst(g, q, 0.0))) {
    *x = isConst(g, q, 0.0) ? p : q;
    return EMBRT_ACTIVATION_RELU;
  }
  int64_t pred;
  MlirOperation cmp;
  if (embMadeBy(y, "arith.select", &op) &&
      isConst(g, mlirOperationGetOperand(op, 2), 0.0) &&
      embMadeBy(mlirOperationGetOperand(op, 0), "arith.cmpf", &cmp) &&
      embGetIntAttr(cmp, "predicate", &pred) &&
      (pred == 2 /* ogt */ || pred == 9 /* ugt */) &&
      mlirValueEqual(mlirOperationGetOperand(cmp, 0),
                     mlirOperationGetOperand(op, 1)) &&
      isConst(g, mlirOperationGetOperand(cmp, 1), 0.0)) {
    *x = mlirOperationGetOperand(op, 1);
    return EMBRT_ACTIVATION_RELU;
  }
  // 1 / (1 + exp(-x)), the sum in either order.
  if (embReadBinary(y, "arith.divf", &p, &q) && isConst(g, p, 1.0) &&
      embReadBinary(q, "arith.addf", &p, &r)) {
    MlirValue e = isConst(g, r, 1.0) ? p : isConst(g, p, 1.0) ? r : p;
    if ((isConst(g, r, 1.0) || isConst(g, p, 1.0)) &&
        embMadeBy(e, "math.exp", &op) &&
        embMadeBy(mlirOperationGetOperand(op, 0), "arith.negf", &op)) {
      *x = mlirOperationGetOperand(op, 0);
      return EMBRT_ACTIVATION_SIGMOID;
    }
  }
  *x = y;
  return EMBRT_ACTIVATION_NONE;
}

/// Reads `user` as an epilogue generic of `v` (of `rank` dims): a bias
/// along the last dim (when `p` has none yet) and an activation (when `p`
/// has none yet). False if it is anything else, or does nothing.
static bool readEpilogue(EmbGemmPlan *p, MlirOperation user, MlirValue v,
                         intptr_t rank) {
  EmbGeneric g;
  if (!embReadGeneric(user, &g) || g.numInits != 1 || g.numInputs < 1 ||
      g.numInputs > 2 || g.numLoops != rank || !embGenericAllParallel(&g) ||
      mlirOperationGetNumResults(user) != 1 ||
      !embMapIsIdentityOf(embGenericMap(&g, g.numInputs), rank) ||
      !mlirTypeEqual(elementOf(mlirOperationGetResult(user, 0)), elementOf(v)))
    return false;
  intptr_t in = -1, biasIn = -1;
  for (intptr_t i = 0; i < g.numInputs; ++i) {
    MlirValue o = embGenericOperand(&g, i);
    if (mlirValueEqual(o, v) && in < 0 &&
        embMapIsIdentityOf(embGenericMap(&g, i), rank))
      in = i;
    else if (mlirShapedTypeGetRank(mlirValueGetType(o)) == 1 &&
             embMapIs(embGenericMap(&g, i), 1, (const int64_t[]){rank - 1}) &&
             mlirTypeEqual(elementOf(o), elementOf(v)))
      biasIn = i;
  }
  if (in < 0 || (g.numInputs == 2 && biasIn < 0))
    return false;
  MlirValue x;
  embrtActivation act = readActivation(&g, embGenericYielded(&g, 0), &x);
  bool bias = false;
  MlirValue s, t;
  if (biasIn >= 0) {
    if (p->bias.ptr || !embReadBinary(x, "arith.addf", &s, &t))
      return false;
    intptr_t si = embGenericArgOperand(&g, s), ti = embGenericArgOperand(&g, t);
    if (!((si == in && ti == biasIn) || (si == biasIn && ti == in)))
      return false;
    bias = true;
  } else if (embGenericArgOperand(&g, x) != in) {
    return false;
  }
  if (act != EMBRT_ACTIVATION_NONE && p->act != EMBRT_ACTIVATION_NONE)
    return false;
  if (!bias && act == EMBRT_ACTIVATION_NONE)
    return false;
  if (bias) {
    p->bias = embGenericOperand(&g, biasIn);
    p->srcOp[2] = user;
    p->srcIndex[2] = biasIn;
  }
  if (act != EMBRT_ACTIVATION_NONE)
    p->act = act;
  return true;
}

/// True if `user` is an elementwise generic of `v` (of `rank` dims) alone
/// that truncates it to `to`: arith.truncf, identity maps.
static bool isTruncation(MlirOperation user, MlirValue v, MlirType to,
                         intptr_t rank) {
  EmbGeneric g;
  MlirOperation trunc;
  return embReadGeneric(user, &g) && g.numInputs == 1 && g.numInits == 1 &&
         g.numLoops == rank && embGenericAllParallel(&g) &&
         mlirOperationGetNumResults(user) == 1 &&
         mlirValueEqual(embGenericOperand(&g, 0), v) &&
         embMapIsIdentityOf(embGenericMap(&g, 0), rank) &&
         embMapIsIdentityOf(embGenericMap(&g, 1), rank) &&
         mlirTypeEqual(elementOf(mlirOperationGetResult(user, 0)), to) &&
         embMadeBy(embGenericYielded(&g, 0), "arith.truncf", &trunc) &&
         embGenericArgOperand(&g, mlirOperationGetOperand(trunc, 0)) == 0;
}

/// Matches the chain rooted at `root`; false if `root` is not a root.
static bool matchChain(MlirOperation root, EmbGemmPlan *p) {
  memset(p, 0, sizeof *p);
  bool batched = embOpIs(root, "linalg.batch_matmul");
  if (!batched && !embOpIs(root, "linalg.matmul"))
    return false;
  if (mlirOperationGetNumOperands(root) != 3 ||
      mlirOperationGetNumResults(root) != 1)
    return false;
  intptr_t rank = batched ? 3 : 2;
  MlirValue a = mlirOperationGetOperand(root, 0),
            b = mlirOperationGetOperand(root, 1),
            init = mlirOperationGetOperand(root, 2),
            result = mlirOperationGetResult(root, 0);
  if (!mlirTypeIsARankedTensor(mlirValueGetType(a)) ||
      !mlirTypeIsARankedTensor(mlirValueGetType(b)) ||
      !mlirTypeIsARankedTensor(mlirValueGetType(result)))
    return false;
  MlirType in = elementOf(a);
  if (!isGemmFloat(in) || !mlirTypeEqual(in, elementOf(b)) ||
      (!mlirTypeIsAF32(elementOf(result)) &&
       !mlirTypeEqual(elementOf(result), in)))
    return false;
  if (!readRootMaps(root, batched, &p->transA, &p->transB, &p->bcastA,
                    &p->bcastB))
    return false;
  MlirOperation fill;
  double zero;
  if (!embMadeBy(init, "linalg.fill", &fill) || !embIsFilledWith(init, &zero) ||
      zero != 0.0)
    return false;
  p->root = root;
  p->batched = batched;
  if (onlyUsedBy(init, root))
    addPart(p, fill);
  p->a = readOperand(p, 0, root, p->bcastA ? 2 : rank, &p->transA, &p->bcastA);
  p->b = readOperand(p, 1, root, p->bcastB ? 2 : rank, &p->transB, &p->bcastB);
  // The truncation torch-mlir writes after an f32 accumulation of f16 or
  // bf16 operands: the call writes the operand type itself.
  p->last = root;
  MlirOperation user;
  if (mlirTypeIsAF32(elementOf(result)) && !mlirTypeIsAF32(in) &&
      embSingleUser(result, &user) &&
      mlirBlockEqual(mlirOperationGetBlock(user),
                     mlirOperationGetBlock(root)) &&
      isTruncation(user, result, in, rank)) {
    addPart(p, root);
    p->last = user;
  }
  // The epilogue: up to two generics, each the only user of the last.
  for (int step = 0; step < 2; ++step) {
    MlirValue v = mlirOperationGetResult(p->last, 0);
    MlirOperation user;
    if (!embSingleUser(v, &user) ||
        !mlirBlockEqual(mlirOperationGetBlock(user),
                        mlirOperationGetBlock(root)) ||
        !readEpilogue(p, user, v, rank))
      break;
    addPart(p, p->last);
    p->last = user;
  }
  // The tensor.empty inits that only the chain's ops use.
  int numOps = p->numParts;
  for (int i = 0; i <= numOps; ++i) {
    MlirOperation op = i < numOps ? p->parts[i] : p->last;
    for (intptr_t j = 0, n = mlirOperationGetNumOperands(op); j < n; ++j) {
      MlirValue v = mlirOperationGetOperand(op, j);
      MlirOperation empty;
      if (embMadeBy(v, "tensor.empty", &empty) && onlyUsedBy(v, op))
        addPart(p, empty);
    }
  }
  return true;
}

/// Every chain of `block`, in order (the caller frees the array).
static EmbGemmPlan *collectPlans(MlirBlock block, size_t *count) {
  size_t n = 0, cap = 4;
  EmbGemmPlan *plans = malloc(cap * sizeof(EmbGemmPlan));
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    EmbGemmPlan p;
    if (!matchChain(op, &p))
      continue;
    if (n == cap)
      plans = realloc(plans, (cap *= 2) * sizeof(EmbGemmPlan));
    plans[n++] = p;
  }
  *count = n;
  return plans;
}

//===----------------------------------------------------------------------===//
// The plans of a function
//===----------------------------------------------------------------------===//

/// Whether `op` is an op of a planned chain (absorbed, or its last), and
/// the index of the last such plan in `*plan`.
static bool inChain(const EmbGemmPlan *plans, size_t n, MlirOperation op,
                    size_t *plan) {
  bool found = false;
  for (size_t i = 0; i < n; ++i) {
    bool here = mlirOperationEqual(plans[i].last, op);
    for (int j = 0; !here && j < plans[i].numParts; ++j)
      here = mlirOperationEqual(plans[i].parts[j], op);
    if (here)
      *plan = i, found = true;
  }
  return found;
}

/// Whether `v` is what a planned chain's call reads (a, b or the bias).
static bool isSource(const EmbGemmPlan *plans, size_t n, MlirValue v) {
  for (size_t i = 0; i < n; ++i)
    if (mlirValueEqual(plans[i].a, v) || mlirValueEqual(plans[i].b, v) ||
        (plans[i].bias.ptr && mlirValueEqual(plans[i].bias, v)))
      return true;
  return false;
}

/// CSE merges the zero fills (and the tensor.empty inits) of equal shapes,
/// so one fill may feed the matmuls of several chains, none of which
/// absorbs it alone. Once every user of such a fill or empty is an op of
/// some chain, nothing reads it: it becomes a part of the last chain that
/// uses it (erased with that chain's parts in a mixed function, after the
/// chains before it), and so, in turn, may its own init. A value a call
/// reads (a zero fill as an operand) stays.
static void absorbShared(MlirBlock block, EmbGemmPlan *plans, size_t n) {
  for (bool changed = true; changed;) {
    changed = false;
    for (MlirOperation op = mlirBlockGetFirstOperation(block);
         !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
      size_t owner = 0, last = 0;
      if ((!embOpIs(op, "linalg.fill") && !embOpIs(op, "tensor.empty")) ||
          mlirOperationGetNumResults(op) != 1 || inChain(plans, n, op, &owner))
        continue;
      MlirValue v = mlirOperationGetResult(op, 0);
      if (isSource(plans, n, v))
        continue; // a call reads it
      bool used = false, onlyChains = true;
      for (MlirOpOperand u = mlirValueGetFirstUse(v);
           onlyChains && !mlirOpOperandIsNull(u);
           u = mlirOpOperandGetNextUse(u)) {
        size_t plan;
        used = true;
        onlyChains = inChain(plans, n, mlirOpOperandGetOwner(u), &plan);
        if (onlyChains && plan > last)
          last = plan;
      }
      if (used && onlyChains && plans[last].numParts < kMaxParts) {
        addPart(&plans[last], op);
        changed = true;
      }
    }
  }
}

void embPlanGemms(EmbLowering *l, MlirBlock block) {
  free(l->gemms);
  l->gemms = collectPlans(block, &l->numGemms);
  absorbShared(block, l->gemms, l->numGemms);
}

static EmbGemmPlan *planOfLast(EmbLowering *l, MlirOperation op) {
  EmbGemmPlan *plans = l->gemms;
  for (size_t i = 0; i < l->numGemms; ++i)
    if (mlirOperationEqual(plans[i].last, op))
      return &plans[i];
  return NULL;
}

bool embIsGemmLast(EmbLowering *l, MlirOperation op) {
  return planOfLast(l, op) != NULL;
}

bool embIsGemmAbsorbed(EmbLowering *l, MlirOperation op) {
  EmbGemmPlan *plans = l->gemms;
  for (size_t i = 0; i < l->numGemms; ++i)
    for (int j = 0; j < plans[i].numParts; ++j)
      if (mlirOperationEqual(plans[i].parts[j], op))
        return true;
  return false;
}

void embGemmSources(EmbLowering *l, MlirOperation last, MlirValue *values,
                    int *count) {
  EmbGemmPlan *p = planOfLast(l, last);
  *count = 0;
  if (!p)
    return;
  refreshSources(p);
  values[(*count)++] = p->a;
  values[(*count)++] = p->b;
  if (p->bias.ptr)
    values[(*count)++] = p->bias;
}

//===----------------------------------------------------------------------===//
// The call
//===----------------------------------------------------------------------===//

bool embLowerGemm(EmbLowering *l, MlirOperation op) {
  EmbGemmPlan *p = planOfLast(l, op);
  if (!p)
    return false;
  refreshSources(p);
  EmbMapped *a = embLookupValue(l, p->a), *b = embLookupValue(l, p->b);
  EmbMapped *bias = p->bias.ptr ? embLookupValue(l, p->bias) : NULL;
  if (!a || !b || !a->isTensor || !b->isTensor ||
      (p->bias.ptr && (!bias || !bias->isTensor))) {
    embLowerFail(l, p->root, "an operand of the matmul was not lowered");
    return true;
  }
  // As stored: A [.., M, K] or [.., K, M], B [.., K, N] or [.., N, K].
  EmbDim m = a->dims[a->rank - (p->transA ? 1 : 2)];
  EmbDim k = a->dims[a->rank - (p->transA ? 2 : 1)];
  EmbDim n = b->dims[b->rank - (p->transB ? 2 : 1)];
  EmbDim kB = b->dims[b->rank - (p->transB ? 1 : 2)];
  MlirValue result = mlirOperationGetResult(op, 0);
  // The call's batch is an operand's (the result's when both broadcast);
  // the other operand's and the result's are checked against it at run
  // time (a 0 dim passes MLIR's verifier against any other).
  EmbDim fallback[3], rdims[3];
  int r = 0;
  if (p->batched)
    fallback[r++] = !p->bcastA ? a->dims[0] : b->dims[0];
  fallback[r++] = m;
  fallback[r++] = n;
  embResultDims(l, result, rdims, fallback);
  EmbMapped *out = embDefineResult(l, result, rdims);
  const EmbDim *extents = embResultExtents(l, out);
  EmbDim batch = embConstDim(1);
  if (p->batched)
    batch = !p->bcastA ? a->dims[0] : !p->bcastB ? b->dims[0] : extents[0];
  EmbDim bBatch = p->batched && !p->bcastB ? b->dims[0] : batch;
  int batchFrom = !p->batched ? 0 : !p->bcastA ? 1 : !p->bcastB ? 2 : 3;
  EmbDim zero = embConstDim(0);
  EmbDim strideA = p->batched && !p->bcastA ? embMulDim(l, m, k) : zero;
  EmbDim strideB = p->batched && !p->bcastB ? embMulDim(l, k, n) : zero;
  EmbDim strideC = p->batched ? embMulDim(l, m, n) : zero;
  int64_t attrs[] = {
      [EMB_ABI_GEMM_DTYPE] = embValueDtype(p->a),
      [EMB_ABI_GEMM_OUTPUT_DTYPE] = embValueDtype(result),
      [EMB_ABI_GEMM_TRANS_A] = p->transA,
      [EMB_ABI_GEMM_TRANS_B] = p->transB,
      [EMB_ABI_GEMM_ACTIVATION] = p->act,
      [EMB_ABI_GEMM_ALPHA_BITS] = 0x3f800000, // 1.0f
      [EMB_ABI_GEMM_BETA_BITS] = 0,
      [EMB_ABI_GEMM_BATCHED] = batchFrom,
  };
  MlirValue bufs[] = {
      [EMB_ABI_GEMM_BUF_A] = a->value,
      [EMB_ABI_GEMM_BUF_B] = b->value,
      [EMB_ABI_GEMM_BUF_BIAS] = bias ? bias->value : (MlirValue){NULL},
      [EMB_ABI_GEMM_BUF_OUTPUT] = out->value,
  };
  EmbDim dims[] = {
      [EMB_ABI_GEMM_DIM_BATCH] = batch,
      [EMB_ABI_GEMM_DIM_M] = m,
      [EMB_ABI_GEMM_DIM_N] = n,
      [EMB_ABI_GEMM_DIM_K] = k,
      [EMB_ABI_GEMM_DIM_LDA] = zero,
      [EMB_ABI_GEMM_DIM_STRIDE_A] = strideA,
      [EMB_ABI_GEMM_DIM_LDB] = zero,
      [EMB_ABI_GEMM_DIM_STRIDE_B] = strideB,
      [EMB_ABI_GEMM_DIM_LDC] = zero,
      [EMB_ABI_GEMM_DIM_STRIDE_C] = strideC,
      [EMB_ABI_GEMM_DIM_B_BATCH] = bBatch,
      [EMB_ABI_GEMM_DIM_B_K] = kB,
      [EMB_ABI_GEMM_DIM_BIAS_N] = bias ? bias->dims[bias->rank - 1] : n,
      [EMB_ABI_GEMM_DIM_OUTPUT_BATCH] = p->batched ? extents[0] : batch,
      [EMB_ABI_GEMM_DIM_OUTPUT_M] = extents[p->batched ? 1 : 0],
      [EMB_ABI_GEMM_DIM_OUTPUT_N] = extents[p->batched ? 2 : 1],
  };
  embCallRuntimeOp(l, EMB_RT_GEMM, EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims));
  return true;
}

void embEraseGemmParts(EmbLowering *l, MlirOperation last) {
  EmbGemmPlan *p = planOfLast(l, last);
  if (!p)
    return;
  // Parts were recorded producers-first per operand, then the epilogue;
  // erase users before producers, each once nothing uses it.
  for (int round = 0; round < kMaxParts; ++round) {
    bool erased = false;
    for (int i = 0; i < p->numParts; ++i) {
      MlirOperation op = p->parts[i];
      if (mlirOperationIsNull(op))
        continue;
      bool used = false;
      for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r)
        used |= !mlirOpOperandIsNull(
            mlirValueGetFirstUse(mlirOperationGetResult(op, r)));
      if (used)
        continue;
      mlirOperationDestroy(op);
      p->parts[i] = (MlirOperation){NULL};
      erased = true;
    }
    if (!erased)
      break;
  }
}
