//===- codegen/emb_ops.c - Lowering emb ops to runtime calls --------------===//
//
// Each emb op becomes one call of its embrtCompiled<Op> entry
// (include/emb/compiled.h): emb.tbe and emb.embedding_bag share the TBE
// call, emb.tbe_backward and emb.embedding_bag_backward the TBE backward
// call, emb.broadcast and emb.broadcast_add the broadcast calls, emb.lce,
// emb.ikbo_lce and emb.attention / emb.ikbo_attention have their own. An op
// that needs scratch memory asks the runtime for its size first. For
// target=cuda with static shapes the TBE launch configuration is chosen here
// (embrtTbeSelectConfig), not at run time. emb.table and emb.state are their
// operand's buffer, emb.table_value its handle's, and a backward op's results
// the buffers of the tables and states it updates in place (the aliasing
// contract of docs/dialect.md, which the verifier checks). emb.ikbo_lce
// reads what ikbo_read_through.c planned for it.
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Lookups: emb.table, emb.state, emb.table_value, emb.tbe, emb.embedding_bag
//===----------------------------------------------------------------------===//

/// emb.table and emb.state are their operand's buffer, emb.table_value its
/// handle's.
static void lowerAlias(EmbLowering *l, MlirOperation op) {
  EmbMapped *t = embTensorOperand(l, op, 0);
  if (t)
    embMapValue(l, mlirOperationGetResult(op, 0), t);
}

/// The most features and tables of one emb.tbe: its call's arrays (one i64
/// a feature, a pointer and two i64 a table) are built on the compiled
/// code's stack, so their size is bounded.
enum { maxTbeFeatures = 4096 };

/// Where a lookup's operands are: emb.tbe, emb.embedding_bag and their
/// backward ops.
typedef struct {
  bool isTbe;
  intptr_t indices, offsets, firstTable;
  intptr_t psw; ///< -1 without per-sample weights
  int64_t numTables, numFeatures;
  MlirAttribute featureTables; ///< null: one feature on table 0
} LookupOperands;

/// Where the call's layout puts what differs between the forward and the
/// backward call (their first attrs, buffers and all dims are one layout).
typedef struct {
  int64_t numTablesAttr, numFeaturesAttr, isBagAttr, featureTablesAttr;
  int64_t tablesBuf;
  int64_t buffersPerTable; ///< the table, and for the backward its states
  int64_t dimsPerTable;    ///< rows and width, and the states' extents
} LookupAbi;

static const LookupAbi forwardAbi = {EMB_ABI_TBE_NUM_TABLES,
                                     EMB_ABI_TBE_NUM_FEATURES,
                                     EMB_ABI_TBE_IS_BAG,
                                     EMB_ABI_TBE_FEATURE_TABLES,
                                     EMB_ABI_TBE_BUF_TABLES,
                                     1,
                                     2};
static const LookupAbi backwardAbi = {EMB_ABI_TBE_BWD_NUM_TABLES,
                                      EMB_ABI_TBE_BWD_NUM_FEATURES,
                                      EMB_ABI_TBE_BWD_IS_BAG,
                                      EMB_ABI_TBE_BWD_FEATURE_TABLES,
                                      EMB_ABI_TBE_BWD_BUF_TABLES,
                                      5,
                                      8};

/// The layouts are distinct enums; compare their values.
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(EMB_ABI_TBE_BWD_POOLING, EMB_ABI_TBE_POOLING) &&
                   SAME(EMB_ABI_TBE_BWD_BOUNDS_CHECK,
                        EMB_ABI_TBE_BOUNDS_CHECK) &&
                   SAME(EMB_ABI_TBE_BWD_HAS_PADDING, EMB_ABI_TBE_HAS_PADDING) &&
                   SAME(EMB_ABI_TBE_BWD_PADDING_IDX, EMB_ABI_TBE_PADDING_IDX) &&
                   SAME(EMB_ABI_TBE_BWD_TABLE_DTYPE, EMB_ABI_TBE_TABLE_DTYPE) &&
                   SAME(EMB_ABI_TBE_BWD_INDEX_DTYPE, EMB_ABI_TBE_INDEX_DTYPE) &&
                   SAME(EMB_ABI_TBE_BWD_PSW_DTYPE, EMB_ABI_TBE_PSW_DTYPE),
               "the backward's attrs begin with the lookup's");
_Static_assert(SAME(EMB_ABI_TBE_BWD_BUF_INDICES, EMB_ABI_TBE_BUF_INDICES) &&
                   SAME(EMB_ABI_TBE_BWD_BUF_OFFSETS, EMB_ABI_TBE_BUF_OFFSETS) &&
                   SAME(EMB_ABI_TBE_BWD_BUF_PSW, EMB_ABI_TBE_BUF_PSW),
               "the backward's buffers begin with the lookup's");
_Static_assert(
    SAME(EMB_ABI_TBE_BWD_DIM_INDICES, EMB_ABI_TBE_DIM_INDICES) &&
        SAME(EMB_ABI_TBE_BWD_DIM_BATCH, EMB_ABI_TBE_DIM_BATCH) &&
        SAME(EMB_ABI_TBE_BWD_DIM_WORKSPACE, EMB_ABI_TBE_DIM_WORKSPACE) &&
        SAME(EMB_ABI_TBE_BWD_DIM_OFFSETS, EMB_ABI_TBE_DIM_OFFSETS) &&
        SAME(EMB_ABI_TBE_BWD_DIM_PSW, EMB_ABI_TBE_DIM_PSW) &&
        SAME(EMB_ABI_TBE_BWD_DIM_GRAD_ROWS, EMB_ABI_TBE_DIM_OUTPUT_ROWS) &&
        SAME(EMB_ABI_TBE_BWD_DIM_GRAD_COLS, EMB_ABI_TBE_DIM_OUTPUT_COLS) &&
        SAME(EMB_ABI_TBE_BWD_DIM_TABLES, EMB_ABI_TBE_DIM_TABLES),
    "the backward's dims are the lookup's");
_Static_assert(EMB_BACKWARD_TABLES == 0 && EMB_BACKWARD_MOMENTUM1 == 1 &&
                   EMB_BACKWARD_MOMENTUM2 == 2 &&
                   EMB_BACKWARD_MOMENTUM1_SCALES == 3 &&
                   EMB_BACKWARD_MOMENTUM2_SCALES == 4,
               "the backward's buffers follow the EMB_BACKWARD_* groups");
_Static_assert(SAME(EMB_NUM_HYPER_PARAMS, EMBRT_NUM_HYPER_PARAMS),
               "the verifier checks the runtime's count of hyper-parameters");
#undef SAME

/// Reads where `op`'s lookup operands are; fails the lowering if it has
/// more features or tables than a call takes.
static bool lookupOperands(EmbLowering *l, MlirOperation op,
                           LookupOperands *lo) {
  intptr_t n = mlirOperationGetNumOperands(op);
  EmbBackwardOperands bwd;
  memset(lo, 0, sizeof *lo);
  lo->isTbe = embOpIs(op, EMB_OP_TBE) || embOpIs(op, EMB_OP_TBE_BACKWARD);
  if (embOpIs(op, EMB_OP_TBE)) {
    MlirAttribute seg =
        mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
    *lo = (LookupOperands){
        .isTbe = true,
        .indices = 0,
        .offsets = 1,
        .firstTable = 2,
        .psw = mlirDenseI32ArrayGetElement(seg, 3) == 1 ? n - 1 : -1,
        .numTables = mlirDenseI32ArrayGetElement(seg, 2)};
  } else if (embOpIs(op, EMB_OP_EMBEDDING_BAG)) {
    *lo = (LookupOperands){.indices = 1,
                           .offsets = 2,
                           .firstTable = 0,
                           .psw = n == 4 ? 3 : -1,
                           .numTables = 1};
  } else if (embGetBackwardOperands(op, &bwd)) {
    *lo = (LookupOperands){.isTbe = bwd.isTbe,
                           .indices = bwd.indices,
                           .offsets = bwd.offsets,
                           .firstTable = bwd.firstTable,
                           .psw = bwd.psw,
                           .numTables = bwd.numTables};
  }
  lo->numFeatures = 1;
  lo->featureTables = mlirAttributeGetNull();
  if (lo->isTbe) {
    lo->featureTables =
        mlirOperationGetAttributeByName(op, embStr("feature_tables"));
    lo->numFeatures = mlirDenseArrayGetNumElements(lo->featureTables);
  }
  if (lo->numFeatures > maxTbeFeatures || lo->numTables > maxTbeFeatures) {
    char what[64];
    snprintf(what, sizeof what, "more than %d features or tables",
             maxTbeFeatures);
    embLowerFail(l, op, what);
    return false;
  }
  return true;
}

/// A forward or backward call's arrays (on the heap while they are built:
/// they grow with the features and tables), the lowered operands they share
/// and the batch.
typedef struct {
  int64_t *attrs;
  MlirValue *bufs;
  EmbDim *dims;
  int64_t numAttrs, numBufs, numDims;
  EmbMapped *idx, *off, *psw, *t0;
  EmbDim batch;
  bool pooled;
  bool quantized; ///< some table is quantized (emb.tbe forward only)
} LookupArgs;

static void freeLookupArgs(LookupArgs *a) {
  free(a->attrs);
  free(a->bufs);
  free(a->dims);
}

/// Allocates the call's arrays and fills what the forward and the backward
/// call share: the lookup's attrs (pooling to psw dtype, counts, feature ->
/// table), the indices, offsets, per-sample weights and table buffers, and
/// every dim. `out` is the forward's output or its gradient, whose static
/// rows give B when pooled. The caller frees the arrays (freeLookupArgs),
/// also when this fails.
static bool lowerLookupArgs(EmbLowering *l, MlirOperation op,
                            const LookupOperands *lo, const LookupAbi *abi,
                            MlirType out, LookupArgs *a) {
  memset(a, 0, sizeof *a);
  // Quantized tables (emb.tbe only, verified): their precisions follow the
  // feature tables, and their widths are their `dim`s, not their bytes.
  EmbTableInfo *tables = calloc((size_t)lo->numTables, sizeof *tables);
  if (!tables) {
    embLowerFail(l, op, "out of memory");
    return false;
  }
  int64_t firstDense = -1;
  for (int64_t t = 0; t < lo->numTables; ++t) {
    MlirValue v = mlirOperationGetOperand(op, lo->firstTable + t);
    if (lo->isTbe)
      embGetTableInfo(v, &tables[t]);
    else
      tables[t].tensor = mlirValueGetType(v);
    if (firstDense < 0 && !embTableIsQuantized(&tables[t]))
      firstDense = t;
    a->quantized |= embTableIsQuantized(&tables[t]);
  }
  a->numAttrs = abi->featureTablesAttr + lo->numFeatures +
                (a->quantized ? lo->numTables : 0);
  a->numBufs = abi->tablesBuf + abi->buffersPerTable * lo->numTables;
  a->numDims = EMB_ABI_TBE_DIM_TABLES + abi->dimsPerTable * lo->numTables;
  int64_t *attrs = a->attrs = calloc((size_t)a->numAttrs, sizeof *attrs);
  MlirValue *bufs = a->bufs = calloc((size_t)a->numBufs, sizeof *bufs);
  EmbDim *dims = a->dims = calloc((size_t)a->numDims, sizeof *dims);
  if (!attrs || !bufs || !dims) {
    free(tables);
    embLowerFail(l, op, "out of memory");
    return false;
  }
  a->idx = embTensorOperand(l, op, lo->indices);
  a->off = embTensorOperand(l, op, lo->offsets);
  a->psw = lo->psw >= 0 ? embTensorOperand(l, op, lo->psw) : NULL;
  a->t0 = embTensorOperand(l, op, lo->firstTable);
  if (!a->idx || !a->off || (lo->psw >= 0 && !a->psw) || !a->t0) {
    free(tables);
    return false;
  }

  char mode[16] = "sum", bc[16] = "fatal";
  embGetStringAttr(op, lo->isTbe ? "pooling" : "mode", mode, sizeof mode);
  embGetStringAttr(op, "bounds_check", bc, sizeof bc);
  int64_t padding = -1;
  bool hasPadding = embGetIntAttr(op, "padding_idx", &padding);
  attrs[EMB_ABI_TBE_POOLING] = !strcmp(mode, "mean")   ? EMBRT_POOLING_MEAN
                               : !strcmp(mode, "none") ? EMBRT_POOLING_NONE
                                                       : EMBRT_POOLING_SUM;
  attrs[EMB_ABI_TBE_BOUNDS_CHECK] =
      !strcmp(bc, "warning")  ? EMBRT_BOUNDS_WARNING
      : !strcmp(bc, "ignore") ? EMBRT_BOUNDS_IGNORE
      : !strcmp(bc, "none")   ? EMBRT_BOUNDS_NONE
                              : EMBRT_BOUNDS_FATAL;
  attrs[EMB_ABI_TBE_HAS_PADDING] = hasPadding;
  attrs[EMB_ABI_TBE_PADDING_IDX] = hasPadding ? padding : 0;
  // The dense tables' element type (through the handles for emb.tbe); a
  // lookup of quantized tables only takes its output's (lowerLookup).
  attrs[EMB_ABI_TBE_TABLE_DTYPE] =
      firstDense >= 0 ? embRuntimeDtype(mlirShapedTypeGetElementType(
                            tables[firstDense].tensor))
                      : -1;
  attrs[EMB_ABI_TBE_INDEX_DTYPE] =
      embValueDtype(mlirOperationGetOperand(op, lo->indices));
  attrs[EMB_ABI_TBE_PSW_DTYPE] =
      a->psw ? embValueDtype(mlirOperationGetOperand(op, lo->psw)) : -1;
  int64_t numEnds = embTbeFeatureEndsEntries(op);
  if (abi == &forwardAbi)
    attrs[EMB_ABI_TBE_FEATURE_ENDS] = numEnds > 0;
  attrs[abi->numTablesAttr] = lo->numTables;
  attrs[abi->numFeaturesAttr] = lo->numFeatures;
  attrs[abi->isBagAttr] = !lo->isTbe;
  // emb.embedding_bag: one feature on table 0.
  for (int64_t f = 0; f < lo->numFeatures; ++f)
    attrs[abi->featureTablesAttr + f] =
        lo->isTbe ? mlirDenseI64ArrayGetElement(lo->featureTables, f) : 0;
  if (abi == &forwardAbi) {
    attrs[EMB_ABI_TBE_PRECISIONS] = a->quantized;
    attrs[EMB_ABI_TBE_MASKED_OFFSETS] =
        !mlirAttributeIsNull(mlirOperationGetAttributeByName(
            op, mlirStringRefCreateFromCString(EMB_ATTR_MASKED_OFFSETS)));
  }
  for (int64_t t = 0; a->quantized && t < lo->numTables; ++t)
    attrs[abi->featureTablesAttr + lo->numFeatures + t] = tables[t].precision;

  // B: from the output's rows when pooled and static, else (offsets - 1)
  // / F, never negative (no offsets at all is the call's error).
  a->pooled = attrs[EMB_ABI_TBE_POOLING] != EMBRT_POOLING_NONE;
  int64_t staticB = embDim(out, 0);
  // The bags' offsets: all but the trailing feature ends.
  EmbDim offsets = a->off->dims[0];
  if (numEnds > 0)
    offsets = offsets.c >= 0
                  ? embConstDim(offsets.c > numEnds ? offsets.c - numEnds : 0)
                  : (EmbDim){embBuildAddI64(&l->b, embDimValue(l, &offsets),
                                            embBuildConstI64(&l->b, -numEnds)),
                             -1};
  EmbDim segments = embSegmentsOf(l, offsets);
  if (a->pooled && staticB >= 0)
    a->batch = embConstDim(staticB);
  else if (segments.c >= 0)
    a->batch = embConstDim(segments.c / lo->numFeatures);
  else
    a->batch =
        (EmbDim){embBuildDivI64(&l->b, segments.v,
                                embBuildConstI64(&l->b, lo->numFeatures)),
                 -1};

  bufs[EMB_ABI_TBE_BUF_INDICES] = a->idx->value;
  bufs[EMB_ABI_TBE_BUF_OFFSETS] = a->off->value;
  bufs[EMB_ABI_TBE_BUF_PSW] = a->psw ? a->psw->value : (MlirValue){NULL};
  dims[EMB_ABI_TBE_DIM_INDICES] = a->idx->dims[0];
  dims[EMB_ABI_TBE_DIM_BATCH] = a->batch;
  dims[EMB_ABI_TBE_DIM_WORKSPACE] = embConstDim(0);
  // Checked extents (the caller sets the output's).
  dims[EMB_ABI_TBE_DIM_OFFSETS] = a->off->dims[0];
  dims[EMB_ABI_TBE_DIM_PSW] = a->psw ? a->psw->dims[0] : embConstDim(0);
  for (int64_t t = 0; t < lo->numTables; ++t) {
    EmbMapped *tm = embTensorOperand(l, op, lo->firstTable + t);
    if (!tm) {
      free(tables);
      return false;
    }
    bufs[abi->tablesBuf + t] = tm->value;
    dims[EMB_ABI_TBE_DIM_TABLES + t] = tm->dims[0];
    dims[EMB_ABI_TBE_DIM_TABLES + lo->numTables + t] =
        embTableIsQuantized(&tables[t]) ? embConstDim(tables[t].dim)
                                        : tm->dims[1];
  }
  free(tables);
  return true;
}

/// emb.tbe and emb.embedding_bag share one runtime call.
static void lowerLookup(EmbLowering *l, MlirOperation op) {
  LookupOperands lo;
  LookupArgs a;
  MlirValue result = mlirOperationGetResult(op, 0);
  if (!lookupOperands(l, op, &lo))
    return;
  if (!lowerLookupArgs(l, op, &lo, &forwardAbi, mlirValueGetType(result), &a)) {
    freeLookupArgs(&a);
    return;
  }
  a.attrs[EMB_ABI_TBE_OUTPUT_DTYPE] = embValueDtype(result);
  // Quantized tables only: tableDtype is the 16-bit type of the output or
  // of the per-sample weights (the verifier allows one at most), else f32.
  if (a.attrs[EMB_ABI_TBE_TABLE_DTYPE] < 0)
    a.attrs[EMB_ABI_TBE_TABLE_DTYPE] =
        a.attrs[EMB_ABI_TBE_OUTPUT_DTYPE] != EMBRT_F32
            ? a.attrs[EMB_ABI_TBE_OUTPUT_DTYPE]
        : a.attrs[EMB_ABI_TBE_PSW_DTYPE] >= 0 ? a.attrs[EMB_ABI_TBE_PSW_DTYPE]
                                              : EMBRT_F32;
  a.attrs[EMB_ABI_TBE_CONFIG_ID] = -1;

  // Result sizes: [B, sum D] pooled or [N, D] unpooled (every feature's D
  // is the first feature's table's).
  EmbDim rdims[2];
  int64_t t0 = a.attrs[forwardAbi.featureTablesAttr];
  EmbDim fallback[2] = {a.pooled ? a.batch : a.idx->dims[0],
                        a.dims[EMB_ABI_TBE_DIM_TABLES + lo.numTables + t0]};
  embResultDims(l, result, rdims, fallback);
  EmbMapped *out = embDefineResult(l, result, rdims);
  const EmbDim *extents = embResultExtents(l, out);
  a.dims[EMB_ABI_TBE_DIM_OUTPUT_ROWS] = extents[0];
  a.dims[EMB_ABI_TBE_DIM_OUTPUT_COLS] = extents[1];
  a.bufs[EMB_ABI_TBE_BUF_OUTPUT] = out->value;
  a.bufs[EMB_ABI_TBE_BUF_WORKSPACE] = (MlirValue){NULL};
  // With static shapes the CUDA launch configuration is chosen here.
  int64_t numTables = lo.numTables;
  if (l->target == EMB_TARGET_CUDA && !a.quantized && a.idx->dims[0].c >= 0 &&
      a.batch.c > 0) {
    int64_t maxDim = 0;
    bool known = true;
    for (int64_t t = 0; t < numTables; ++t) {
      int64_t d = a.dims[EMB_ABI_TBE_DIM_TABLES + numTables + t].c;
      known &= d >= 0;
      maxDim = d > maxDim ? d : maxDim;
    }
    int64_t bags = lo.numFeatures * a.batch.c;
    if (known && a.pooled)
      a.attrs[EMB_ABI_TBE_CONFIG_ID] =
          embrtTbeSelectConfig((embrtDtype)a.attrs[EMB_ABI_TBE_TABLE_DTYPE],
                               maxDim, a.idx->dims[0].c / bags, bags);
  }
  EmbCallArrays arrays = embBuildCallArrays(l, a.attrs, a.numAttrs, a.bufs,
                                            a.numBufs, a.dims, a.numDims);
  embAddWorkspace(l, EMB_RT_TBE_WORKSPACE, arrays, EMB_ABI_TBE_BUF_WORKSPACE,
                  EMB_ABI_TBE_DIM_WORKSPACE);
  embCallRuntimeOp(l, EMB_RT_TBE, arrays);
  freeLookupArgs(&a);
}

//===----------------------------------------------------------------------===//
// Training: emb.tbe_backward and emb.embedding_bag_backward
//===----------------------------------------------------------------------===//

/// The runtime's optimizer for the op's `optimizer` attribute.
static int64_t runtimeOptimizer(MlirOperation op) {
  char name[24] = "sgd";
  embGetStringAttr(op, "optimizer", name, sizeof name);
  return !strcmp(name, "adam")              ? EMBRT_OPTIMIZER_ADAM
         : !strcmp(name, "rowwise_adagrad") ? EMBRT_OPTIMIZER_ROWWISE_ADAGRAD
                                            : EMBRT_OPTIMIZER_SGD;
}

/// Fails if an updated table or state is a dense constant: compiled code
/// reads those where the module holds them (read-only) and never writes
/// them. (A splat constant is a filled buffer of its own: it may be.)
static bool checkWritable(EmbLowering *l, MlirOperation op,
                          const EmbBackwardOperands *ops) {
  intptr_t n = ops->numTables + ops->numMomentum1 + ops->numMomentum2;
  for (intptr_t r = 0; r < n; ++r) {
    MlirValue root = embBufferRoot(
        mlirOperationGetOperand(op, embBackwardUpdatedOperand(ops, r)));
    if (!mlirValueIsAOpResult(root) ||
        !embOpIs(mlirOpResultGetOwner(root), "arith.constant"))
      continue;
    MlirAttribute value = mlirOperationGetAttributeByName(
        mlirOpResultGetOwner(root), embStr("value"));
    if (mlirAttributeIsADenseElements(value) &&
        mlirDenseElementsAttrIsSplat(value))
      continue;
    char name[32], what[256];
    embBackwardUpdatedName(ops, r, name, sizeof name);
    snprintf(what, sizeof what,
             "%s is a dense constant, which compiled code reads in place and "
             "never writes; pass it as an argument",
             name);
    embLowerFail(l, op, what);
    return false;
  }
  return true;
}

/// One call of embrtCompiledTbeBackward (emb.embedding_bag_backward: one
/// table, one feature) that updates the tables and states in place: each
/// result is its operand's buffer, so nothing is allocated or copied for
/// them.
static void lowerBackward(EmbLowering *l, MlirOperation op) {
  EmbBackwardOperands ops;
  LookupOperands lo;
  LookupArgs a;
  if (!embGetBackwardOperands(op, &ops)) {
    embLowerFail(l, op, "its operandSegmentSizes is malformed");
    return;
  }
  if (!lookupOperands(l, op, &lo) || !checkWritable(l, op, &ops))
    return;
  MlirValue grad = mlirOperationGetOperand(op, ops.grad);
  if (!lowerLookupArgs(l, op, &lo, &backwardAbi, mlirValueGetType(grad), &a))
    goto done;
  EmbMapped *g = embTensorOperand(l, op, ops.grad);
  EmbMapped *hyper = embTensorOperand(l, op, ops.hyper);
  EmbMapped *step = ops.step >= 0 ? embTensorOperand(l, op, ops.step) : NULL;
  if (!g || !hyper || (ops.step >= 0 && !step))
    goto done;
  int64_t seed = 0;
  embGetIntAttr(op, "seed", &seed);
  a.attrs[EMB_ABI_TBE_BWD_GRAD_DTYPE] = embValueDtype(grad);
  a.attrs[EMB_ABI_TBE_BWD_OPTIMIZER] = runtimeOptimizer(op);
  a.attrs[EMB_ABI_TBE_BWD_SEED] = seed;
  a.attrs[EMB_ABI_TBE_BWD_CONFIG_ID] = -1;
  a.attrs[EMB_ABI_TBE_BWD_MOMENTUM1_PRECISION] = ops.momentum1Precision;
  a.attrs[EMB_ABI_TBE_BWD_MOMENTUM2_PRECISION] = ops.momentum2Precision;
  a.dims[EMB_ABI_TBE_BWD_DIM_GRAD_ROWS] = g->dims[0];
  a.dims[EMB_ABI_TBE_BWD_DIM_GRAD_COLS] = g->dims[1];
  a.bufs[EMB_ABI_TBE_BWD_BUF_GRAD] = g->value;
  a.bufs[EMB_ABI_TBE_BWD_BUF_HYPER] = hyper->value;
  a.bufs[EMB_ABI_TBE_BWD_BUF_STEP] = step ? step->value : (MlirValue){NULL};
  a.bufs[EMB_ABI_TBE_BWD_BUF_WORKSPACE] = (MlirValue){NULL};
  // Tables, then T pointers for each of momentum1, momentum2 and their
  // scales (null where the optimizer keeps no such state, and the scales
  // where it is not fp8): the EMB_BACKWARD_* groups in order. Each result is
  // its operand's buffer. The states' rows and columns, then the scales'
  // entries, follow the tables' rows and widths in dims.
  int64_t T = lo.numTables;
  for (intptr_t r = 0, n = mlirOperationGetNumResults(op); r < n; ++r) {
    EmbMapped *m = embTensorOperand(l, op, embBackwardUpdatedOperand(&ops, r));
    if (!m)
      goto done;
    int64_t t;
    int group = embBackwardGroup(&ops, r, &t);
    a.bufs[EMB_ABI_TBE_BWD_BUF_TABLES + group * T + t] = m->value;
    EmbDim *extents = a.dims + EMB_ABI_TBE_BWD_DIM_TABLES + 2 * T;
    if (group == EMB_BACKWARD_MOMENTUM1 || group == EMB_BACKWARD_MOMENTUM2) {
      extents[2 * (group - 1) * T + t] = m->dims[0];
      extents[(2 * (group - 1) + 1) * T + t] =
          m->rank > 1 ? m->dims[1] : embConstDim(1);
    } else if (group != EMB_BACKWARD_TABLES) {
      extents[(4 + group - EMB_BACKWARD_MOMENTUM1_SCALES) * T + t] = m->dims[0];
    }
    embMapValue(l, mlirOperationGetResult(op, r), m);
  }
  EmbCallArrays arrays = embBuildCallArrays(l, a.attrs, a.numAttrs, a.bufs,
                                            a.numBufs, a.dims, a.numDims);
  embAddWorkspace(l, EMB_RT_TBE_BACKWARD_WORKSPACE, arrays,
                  EMB_ABI_TBE_BWD_BUF_WORKSPACE, EMB_ABI_TBE_BWD_DIM_WORKSPACE);
  embCallRuntimeOp(l, EMB_RT_TBE_BACKWARD, arrays);
done:
  freeLookupArgs(&a);
}

//===----------------------------------------------------------------------===//
// emb.broadcast and emb.broadcast_add
//===----------------------------------------------------------------------===//

static void lowerBroadcast(EmbLowering *l, MlirOperation op, bool add) {
  EmbMapped *ro = embTensorOperand(l, op, 0), *idx = embTensorOperand(l, op, 1);
  EmbMapped *nro = add ? embTensorOperand(l, op, 2) : NULL;
  if (!ro || !idx || (add && !nro))
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  EmbDim fallback[EMBRT_MAX_RANK];
  fallback[0] = idx->dims[0];
  for (int i = 1; i < ro->rank; ++i)
    fallback[i] = ro->dims[i];
  EmbDim rdims[EMBRT_MAX_RANK];
  embResultDims(l, result, rdims, fallback);
  EmbDim rowElements = embDimProduct(l, ro, 1, ro->rank);
  EmbDim users = ro->dims[0], batch = idx->dims[0];
  EmbMapped *out = embDefineResult(l, result, rdims);
  EmbMapped checked = *out; // the extents the runtime checks
  memcpy(checked.dims, embResultExtents(l, out), sizeof checked.dims);
  int64_t attrs[] = {
      [EMB_ABI_BCAST_DTYPE] = embValueDtype(result),
      [EMB_ABI_BCAST_INDEX_DTYPE] =
          embValueDtype(mlirOperationGetOperand(op, 1)),
  };
  MlirValue bufs[] = {
      [EMB_ABI_BCAST_BUF_RO] = ro->value,
      [EMB_ABI_BCAST_BUF_INDEX] = idx->value,
      [EMB_ABI_BCAST_BUF_NRO] = add ? nro->value : (MlirValue){NULL},
      [EMB_ABI_BCAST_BUF_OUTPUT] = out->value,
  };
  EmbDim dims[] = {
      [EMB_ABI_BCAST_DIM_USERS] = users,
      [EMB_ABI_BCAST_DIM_ROW] = rowElements,
      [EMB_ABI_BCAST_DIM_BATCH] = batch,
      [EMB_ABI_BCAST_DIM_OUTPUT_ROWS] = checked.dims[0],
      [EMB_ABI_BCAST_DIM_OUTPUT_ROW] =
          embDimProduct(l, &checked, 1, checked.rank),
      [EMB_ABI_BCAST_DIM_NRO_ROWS] = add ? nro->dims[0] : embConstDim(0),
      [EMB_ABI_BCAST_DIM_NRO_ROW] =
          add ? embDimProduct(l, nro, 1, nro->rank) : embConstDim(0),
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embCallRuntimeOp(l, add ? EMB_RT_BROADCAST_ADD : EMB_RT_BROADCAST, a);
}

//===----------------------------------------------------------------------===//
// emb.jagged_to_padded
//===----------------------------------------------------------------------===//

static void lowerJaggedToPadded(EmbLowering *l, MlirOperation op) {
  EmbMapped *values = embTensorOperand(l, op, 0);
  EmbMapped *offsets = embTensorOperand(l, op, 1);
  if (!values || !offsets)
    return;
  int64_t maxLength = 0;
  embGetIntAttr(op, "max_length", &maxLength);
  double padding = 0.0;
  MlirAttribute pad = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("padding_value"));
  if (!mlirAttributeIsNull(pad) && mlirAttributeIsAFloat(pad))
    padding = mlirFloatAttrGetValueDouble(pad);
  uint64_t paddingBits;
  memcpy(&paddingBits, &padding, sizeof paddingBits);
  // U: one fewer than the offsets (padded's dim 0 when static).
  MlirValue paddedValue = mlirOperationGetResult(op, 0);
  MlirValue lengthsValue = mlirOperationGetResult(op, 1);
  EmbDim users = embSegmentsOf(l, offsets->dims[0]);
  EmbDim fallback[EMBRT_MAX_RANK] = {users, embConstDim(maxLength),
                                     values->dims[1]};
  EmbDim pdims[EMBRT_MAX_RANK], ldims[EMBRT_MAX_RANK];
  embResultDims(l, paddedValue, pdims, fallback);
  embResultDims(l, lengthsValue, ldims, fallback);
  EmbMapped *padded = embDefineResult(l, paddedValue, pdims);
  EmbMapped *lengths = embDefineResult(l, lengthsValue, ldims);
  EmbMapped checked = *padded, checkedLengths = *lengths;
  memcpy(checked.dims, embResultExtents(l, padded), sizeof checked.dims);
  memcpy(checkedLengths.dims, embResultExtents(l, lengths),
         sizeof checkedLengths.dims);
  int64_t attrs[] = {
      [EMB_ABI_JAGGED_DTYPE] = embValueDtype(paddedValue),
      [EMB_ABI_JAGGED_INDEX_DTYPE] =
          embValueDtype(mlirOperationGetOperand(op, 1)),
      [EMB_ABI_JAGGED_MAX_LENGTH] = maxLength,
      [EMB_ABI_JAGGED_PADDING_BITS] = (int64_t)paddingBits,
  };
  MlirValue bufs[] = {
      [EMB_ABI_JAGGED_BUF_VALUES] = values->value,
      [EMB_ABI_JAGGED_BUF_OFFSETS] = offsets->value,
      [EMB_ABI_JAGGED_BUF_PADDED] = padded->value,
      [EMB_ABI_JAGGED_BUF_LENGTHS] = lengths->value,
  };
  EmbDim dims[] = {
      [EMB_ABI_JAGGED_DIM_VALUES] = values->dims[0],
      [EMB_ABI_JAGGED_DIM_ROW] = values->dims[1],
      [EMB_ABI_JAGGED_DIM_USERS] = checked.dims[0],
      [EMB_ABI_JAGGED_DIM_OFFSETS] = offsets->dims[0],
      [EMB_ABI_JAGGED_DIM_PADDED_LENGTH] = checked.dims[1],
      [EMB_ABI_JAGGED_DIM_PADDED_ROW] = checked.dims[2],
      [EMB_ABI_JAGGED_DIM_LENGTHS] = checkedLengths.dims[0],
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embCallRuntimeOp(l, EMB_RT_JAGGED_TO_PADDED, a);
}

//===----------------------------------------------------------------------===//
// emb.lce and emb.ikbo_lce
//===----------------------------------------------------------------------===//

/// The runtime dtype of `op`'s `compute_type` (emb.ikbo_lce, emb.attention,
/// emb.ikbo_attention; verified: f16 or bf16 with f32 data), or EMBRT_F32
/// (the data as it is) without one.
static int64_t computeDtypeOf(MlirOperation op) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, embStr("compute_type"));
  return mlirAttributeIsNull(a) ? EMBRT_F32
                                : embRuntimeDtype(mlirTypeAttrGetValue(a));
}

static void lowerLce(EmbLowering *l, MlirOperation op) {
  EmbMapped *w = embTensorOperand(l, op, 0), *x = embTensorOperand(l, op, 1);
  if (!w || !x)
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  EmbDim fallback[3] = {x->dims[0], w->dims[0], x->dims[2]};
  EmbDim rdims[3];
  embResultDims(l, result, rdims, fallback);
  EmbMapped *out = embDefineResult(l, result, rdims);
  int64_t attrs[] = {
      [EMB_ABI_LCE_DTYPE] = embValueDtype(result),
      [EMB_ABI_LCE_CONFIG_ID] = -1,
  };
  MlirValue bufs[] = {
      [EMB_ABI_LCE_BUF_W] = w->value,
      [EMB_ABI_LCE_BUF_X] = x->value,
      [EMB_ABI_LCE_BUF_OUTPUT] = out->value,
      [EMB_ABI_LCE_BUF_WORKSPACE] = {NULL},
  };
  EmbDim dims[] = {
      [EMB_ABI_LCE_DIM_B] = x->dims[0],
      [EMB_ABI_LCE_DIM_M] = w->dims[0],
      [EMB_ABI_LCE_DIM_K] = w->dims[1],
      [EMB_ABI_LCE_DIM_N] = x->dims[2],
      [EMB_ABI_LCE_DIM_WORKSPACE] = embConstDim(0),
      [EMB_ABI_LCE_DIM_X_K] = x->dims[1],
      [EMB_ABI_LCE_DIM_OUTPUT_B] = embResultExtents(l, out)[0],
      [EMB_ABI_LCE_DIM_OUTPUT_M] = embResultExtents(l, out)[1],
      [EMB_ABI_LCE_DIM_OUTPUT_N] = embResultExtents(l, out)[2],
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embAddWorkspace(l, EMB_RT_LCE_WORKSPACE, a, EMB_ABI_LCE_BUF_WORKSPACE,
                  EMB_ABI_LCE_DIM_WORKSPACE);
  embCallRuntimeOp(l, EMB_RT_LCE, a);
}

/// `base` advanced by `bytes` (a constant).
static MlirValue offsetPtr(EmbLowering *l, MlirValue base, int64_t bytes) {
  if (!bytes)
    return base;
  return embBuildGep(&l->b, base, mlirIntegerTypeGet(l->ctx, 8),
                     (int32_t)bytes);
}

static void lowerIkboLce(EmbLowering *l, MlirOperation op) {
  EmbIkboPlan *p = embFindIkboPlan(l, op);
  EmbMapped *w[2], *x[2], *index = embTensorOperand(l, op, 4);
  if (!index)
    return;
  if (!p) {
    embLowerFail(l, op, "the op was not planned");
    return;
  }
  // The candidate side in pieces (a concat read in place): x[1] is the
  // first real piece, for B and N; zero pieces pass NULL.
  EmbMapped *piece[EMBRT_IKBO_LCE_MAX_PIECES] = {NULL};
  for (int q = 0; q < p->numPieces; ++q) {
    if (mlirValueIsNull(p->pieces[q]))
      continue;
    piece[q] = embLookupValue(l, p->pieces[q]);
    if (!piece[q] || !piece[q]->isTensor) {
      embLowerFail(l, op,
                   "a piece of the candidate embeddings was not lowered");
      return;
    }
  }
  for (int s = 0; s < 2; ++s) {
    w[s] = embLookupValue(l, p->w[s]);
    x[s] = NULL;
    if (s == 1 && p->numPieces)
      for (int q = 0; q < p->numPieces && !x[s]; ++q)
        x[s] = piece[q];
    else
      x[s] = embLookupValue(l, p->x[s]);
    if (!w[s] || !x[s] || !w[s]->isTensor || !x[s]->isTensor) {
      embLowerFail(l, op, "an operand was not lowered");
      return;
    }
  }
  // Each piece's K (static, ikbo_read_through.c), and their sum.
  int64_t pieceK[EMBRT_IKBO_LCE_MAX_PIECES] = {0}, kSum = 0;
  for (int q = 0; q < p->numPieces; ++q) {
    MlirValue v =
        mlirOperationGetOperand(mlirOpResultGetOwner(p->x[1]), (intptr_t)q);
    pieceK[q] = embDim(mlirValueGetType(v), 1);
    kSum += pieceK[q];
  }
  EmbDim kCand = p->numPieces ? embConstDim(kSum) : x[1]->dims[1];
  // Bytes past the view's first column, and the weights' row strides (0:
  // packed).
  MlirValue wPtr[2];
  EmbDim stride[2], columns[2];
  int64_t es = embTensorElementBytes(mlirValueGetType(p->w[0]));
  for (int s = 0; s < 2; ++s) {
    if (p->column[s] * es > INT32_MAX) {
      embLowerFail(l, op, "the weight's column offset does not fit a constant");
      return;
    }
    wPtr[s] = offsetPtr(l, w[s]->value, p->column[s] * es);
    stride[s] = p->view[s] ? w[s]->dims[1] : embConstDim(0);
    // The columns from the first one read on, which the runtime checks.
    columns[s] = w[s]->dims[1];
    if (p->column[s] > 0 && columns[s].c >= 0)
      columns[s] = embConstDim(columns[s].c - p->column[s]);
    else if (p->column[s] > 0)
      columns[s] =
          (EmbDim){embBuildAddI64(&l->b, embDimValue(l, &columns[s]),
                                  embBuildConstI64(&l->b, -p->column[s])),
                   -1};
  }
  MlirValue result = mlirOperationGetResult(op, 0);
  EmbDim fallback[3] = {x[1]->dims[0], w[1]->dims[0], x[1]->dims[2]};
  EmbDim rdims[3];
  embResultDims(l, result, rdims, fallback);
  EmbMapped *out = embDefineResult(l, result, rdims);
  int64_t attrs[] = {
      [EMB_ABI_IKBO_LCE_DTYPE] = embValueDtype(result),
      [EMB_ABI_IKBO_LCE_INDEX_DTYPE] =
          embValueDtype(mlirOperationGetOperand(op, 4)),
      [EMB_ABI_IKBO_LCE_CONFIG_ID] = -1,
      [EMB_ABI_IKBO_LCE_NUM_CAND_PIECES] = p->numPieces,
      [EMB_ABI_IKBO_LCE_COMPUTE_DTYPE] = computeDtypeOf(op),
  };
  MlirValue bufs[] = {
      [EMB_ABI_IKBO_LCE_BUF_W_USER] = wPtr[0],
      [EMB_ABI_IKBO_LCE_BUF_W_CAND] = wPtr[1],
      [EMB_ABI_IKBO_LCE_BUF_USER] = x[0]->value,
      [EMB_ABI_IKBO_LCE_BUF_CAND] =
          p->numPieces ? (MlirValue){NULL} : x[1]->value,
      [EMB_ABI_IKBO_LCE_BUF_INDEX] = index->value,
      [EMB_ABI_IKBO_LCE_BUF_OUTPUT] = out->value,
      [EMB_ABI_IKBO_LCE_BUF_WORKSPACE] = {NULL},
      [EMB_ABI_IKBO_LCE_NUM_BUFFERS - 1] = {NULL}, // pieces: NULL (zeros)
  };
  for (int q = 0; q < p->numPieces; ++q)
    if (piece[q])
      bufs[EMB_ABI_IKBO_LCE_BUF_CAND_PIECE_0 + q] = piece[q]->value;
  EmbDim dims[] = {
      [EMB_ABI_IKBO_LCE_DIM_B] = x[1]->dims[0],
      [EMB_ABI_IKBO_LCE_DIM_U] = x[0]->dims[0],
      [EMB_ABI_IKBO_LCE_DIM_M] = w[1]->dims[0],
      [EMB_ABI_IKBO_LCE_DIM_K_USER] = x[0]->dims[1],
      [EMB_ABI_IKBO_LCE_DIM_K_CAND] = kCand,
      [EMB_ABI_IKBO_LCE_DIM_N] = x[1]->dims[2],
      [EMB_ABI_IKBO_LCE_DIM_WORKSPACE] = embConstDim(0),
      [EMB_ABI_IKBO_LCE_DIM_W_USER_STRIDE] = stride[0],
      [EMB_ABI_IKBO_LCE_DIM_W_CAND_STRIDE] = stride[1],
      [EMB_ABI_IKBO_LCE_DIM_INDEX] = index->dims[0],
      [EMB_ABI_IKBO_LCE_DIM_W_USER_ROWS] = w[0]->dims[0],
      [EMB_ABI_IKBO_LCE_DIM_W_USER_COLS] = columns[0],
      [EMB_ABI_IKBO_LCE_DIM_W_CAND_COLS] = columns[1],
      [EMB_ABI_IKBO_LCE_DIM_USER_N] = x[0]->dims[2],
      [EMB_ABI_IKBO_LCE_DIM_OUTPUT_B] = embResultExtents(l, out)[0],
      [EMB_ABI_IKBO_LCE_DIM_OUTPUT_M] = embResultExtents(l, out)[1],
      [EMB_ABI_IKBO_LCE_DIM_OUTPUT_N] = embResultExtents(l, out)[2],
      [EMB_ABI_IKBO_LCE_NUM_DIMS - 1] = embConstDim(0),
  };
  for (int q = 0; q < EMBRT_IKBO_LCE_MAX_PIECES; ++q) {
    // Unused entries: K 0 and the first piece's B and N (they pass).
    EmbDim *k = &dims[EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_K_0 + q];
    EmbDim *b = &dims[EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_B_0 + q];
    EmbDim *n = &dims[EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_N_0 + q];
    *k = embConstDim(0);
    *b = x[1]->dims[0];
    *n = x[1]->dims[2];
    if (q >= p->numPieces)
      continue;
    *k = embConstDim(pieceK[q]);
    if (piece[q]) {
      *b = piece[q]->dims[0];
      *n = piece[q]->dims[2];
    }
  }
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embAddWorkspace(l, EMB_RT_IKBO_LCE_WORKSPACE, a,
                  EMB_ABI_IKBO_LCE_BUF_WORKSPACE,
                  EMB_ABI_IKBO_LCE_DIM_WORKSPACE);
  embCallRuntimeOp(l, EMB_RT_IKBO_LCE, a);
}

//===----------------------------------------------------------------------===//
// emb.attention and emb.ikbo_attention
//===----------------------------------------------------------------------===//

static void lowerAttention(EmbLowering *l, MlirOperation op, bool ikbo) {
  intptr_t n = mlirOperationGetNumOperands(op);
  EmbMapped *q = embTensorOperand(l, op, 0), *k = embTensorOperand(l, op, 1),
            *v = embTensorOperand(l, op, 2);
  EmbMapped *idx = ikbo ? embTensorOperand(l, op, 3) : NULL;
  // ikbo_attention's user_lengths (operand 4), attention's key_lengths (3).
  intptr_t lenAt = ikbo ? 4 : 3;
  bool hasLen = n == lenAt + 1;
  EmbMapped *len = hasLen ? embTensorOperand(l, op, lenAt) : NULL;
  if (!q || !k || !v || (ikbo && !idx) || (hasLen && !len))
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  EmbDim rdims[4];
  embResultDims(l, result, rdims, q->dims);
  EmbMapped *out = embDefineResult(l, result, rdims);
  double scale = 0;
  uint32_t bits = 0;
  if (embGetFloatAttr(op, "scale", &scale)) {
    float f = (float)scale;
    memcpy(&bits, &f, sizeof bits);
  }
  int64_t attrs[] = {
      [EMB_ABI_ATTN_DTYPE] = embValueDtype(result),
      [EMB_ABI_ATTN_INDEX_DTYPE] =
          ikbo     ? embValueDtype(mlirOperationGetOperand(op, 3))
          : hasLen ? embValueDtype(mlirOperationGetOperand(op, lenAt))
                   : EMBRT_I32,
      [EMB_ABI_ATTN_HAS_INDEX] = ikbo,
      [EMB_ABI_ATTN_HAS_LENGTHS] = len != NULL,
      [EMB_ABI_ATTN_CONFIG_ID] = -1,
      [EMB_ABI_ATTN_SCALE_BITS] = (int64_t)bits,
      [EMB_ABI_ATTN_COMPUTE_DTYPE] = computeDtypeOf(op),
      [EMB_ABI_ATTN_ADDITIVE_MASK] = !mlirAttributeIsNull(
          mlirOperationGetAttributeByName(op, embStr(EMB_ATTR_ADDITIVE_MASK))),
  };
  MlirValue bufs[] = {
      [EMB_ABI_ATTN_BUF_Q] = q->value,
      [EMB_ABI_ATTN_BUF_K] = k->value,
      [EMB_ABI_ATTN_BUF_V] = v->value,
      [EMB_ABI_ATTN_BUF_INDEX] = idx ? idx->value : (MlirValue){NULL},
      [EMB_ABI_ATTN_BUF_LENGTHS] = len ? len->value : (MlirValue){NULL},
      [EMB_ABI_ATTN_BUF_OUTPUT] = out->value,
      [EMB_ABI_ATTN_BUF_WORKSPACE] = {NULL},
  };
  if (ikbo && len &&
      embValueDtype(mlirOperationGetOperand(op, 4)) !=
          embValueDtype(mlirOperationGetOperand(op, 3))) {
    embLowerFail(l, op,
                 "user_lengths and cand_to_user must share one integer type");
    return;
  }
  EmbDim dims[] = {
      [EMB_ABI_ATTN_DIM_B] = q->dims[0],
      [EMB_ABI_ATTN_DIM_U] = k->dims[0],
      [EMB_ABI_ATTN_DIM_LQ] = q->dims[1],
      [EMB_ABI_ATTN_DIM_LK] = k->dims[1],
      [EMB_ABI_ATTN_DIM_HEADS] = q->dims[2],
      [EMB_ABI_ATTN_DIM_HEAD_DIM] = q->dims[3],
      [EMB_ABI_ATTN_DIM_WORKSPACE] = embConstDim(0),
      [EMB_ABI_ATTN_DIM_K_HEADS] = k->dims[2],
      [EMB_ABI_ATTN_DIM_K_HEAD_DIM] = k->dims[3],
      [EMB_ABI_ATTN_DIM_V_USERS] = v->dims[0],
      [EMB_ABI_ATTN_DIM_V_LK] = v->dims[1],
      [EMB_ABI_ATTN_DIM_V_HEADS] = v->dims[2],
      [EMB_ABI_ATTN_DIM_V_HEAD_DIM] = v->dims[3],
      [EMB_ABI_ATTN_DIM_INDEX] = idx ? idx->dims[0] : embConstDim(0),
      [EMB_ABI_ATTN_DIM_LENGTHS] = len ? len->dims[0] : embConstDim(0),
      [EMB_ABI_ATTN_DIM_OUTPUT_B] = embResultExtents(l, out)[0],
      [EMB_ABI_ATTN_DIM_OUTPUT_LQ] = embResultExtents(l, out)[1],
      [EMB_ABI_ATTN_DIM_OUTPUT_HEADS] = embResultExtents(l, out)[2],
      [EMB_ABI_ATTN_DIM_OUTPUT_HEAD_DIM] = embResultExtents(l, out)[3],
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embAddWorkspace(l, EMB_RT_ATTENTION_WORKSPACE, a, EMB_ABI_ATTN_BUF_WORKSPACE,
                  EMB_ABI_ATTN_DIM_WORKSPACE);
  embCallRuntimeOp(l, EMB_RT_ATTENTION, a);
}

//===----------------------------------------------------------------------===//
// emb.quantize_table
//===----------------------------------------------------------------------===//

static void lowerQuantizeTable(EmbLowering *l, MlirOperation op) {
  EmbMapped *w = embTensorOperand(l, op, 0);
  if (!w)
    return;
  char precision[16] = "";
  int p = 0;
  embGetStringAttr(op, EMB_ATTR_PRECISION, precision, sizeof precision);
  embParsePrecision(precision, &p); // verified
  MlirValue result = mlirOperationGetResult(op, 0);
  EmbDim rdims[2],
      fallback[2] = {w->dims[0],
                     embConstDim(embDim(mlirValueGetType(result), 1))};
  embResultDims(l, result, rdims, fallback);
  EmbMapped *out = embDefineResult(l, result, rdims);
  int64_t attrs[] = {
      [EMB_ABI_QUANTIZE_PRECISION] = p,
      [EMB_ABI_QUANTIZE_DENSE_DTYPE] =
          embValueDtype(mlirOperationGetOperand(op, 0)),
  };
  MlirValue bufs[] = {
      [EMB_ABI_QUANTIZE_BUF_INPUT] = w->value,
      [EMB_ABI_QUANTIZE_BUF_OUTPUT] = out->value,
  };
  EmbDim dims[] = {
      [EMB_ABI_QUANTIZE_DIM_ROWS] = w->dims[0],
      [EMB_ABI_QUANTIZE_DIM_COLS] = w->dims[1],
      [EMB_ABI_QUANTIZE_DIM_OUTPUT_ROWS] = embResultExtents(l, out)[0],
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embCallRuntimeOp(l, EMB_RT_QUANTIZE_TABLE, a);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool embLowerEmbOp(EmbLowering *l, MlirOperation op) {
  if (embOpIs(op, EMB_OP_TABLE) || embOpIs(op, EMB_OP_STATE) ||
      embOpIs(op, EMB_OP_TABLE_VALUE))
    lowerAlias(l, op);
  else if (embOpIs(op, EMB_OP_TBE) || embOpIs(op, EMB_OP_EMBEDDING_BAG))
    lowerLookup(l, op);
  else if (embOpIs(op, EMB_OP_QUANTIZE_TABLE))
    lowerQuantizeTable(l, op);
  else if (embOpIs(op, EMB_OP_TBE_BACKWARD) ||
           embOpIs(op, EMB_OP_EMBEDDING_BAG_BACKWARD))
    lowerBackward(l, op);
  else if (embOpIs(op, EMB_OP_BROADCAST))
    lowerBroadcast(l, op, false);
  else if (embOpIs(op, EMB_OP_BROADCAST_ADD))
    lowerBroadcast(l, op, true);
  else if (embOpIs(op, EMB_OP_JAGGED_TO_PADDED))
    lowerJaggedToPadded(l, op);
  else if (embOpIs(op, EMB_OP_LCE))
    lowerLce(l, op);
  else if (embOpIs(op, EMB_OP_IKBO_LCE))
    lowerIkboLce(l, op);
  else if (embOpIs(op, EMB_OP_ATTENTION))
    lowerAttention(l, op, false);
  else if (embOpIs(op, EMB_OP_IKBO_ATTENTION))
    lowerAttention(l, op, true);
  else
    return embLowerShardingOp(l, op);
  return true;
}
