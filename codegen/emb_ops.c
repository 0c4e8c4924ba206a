//===- codegen/emb_ops.c - Lowering emb ops to runtime calls --------------===//
//
// Each emb op becomes one call of its embrtCompiled<Op> entry
// (include/emb/compiled.h): emb.tbe and emb.embedding_bag share the TBE
// call, emb.broadcast and emb.broadcast_add the broadcast calls, emb.lce,
// emb.ikbo_lce and emb.attention / emb.ikbo_attention have their own. An op
// that needs scratch memory asks the runtime for its size first. For
// target=cuda with static shapes the TBE launch configuration is chosen here
// (embrtTbeSelectConfig), not at run time. emb.table is its operand's buffer.
// emb.ikbo_lce reads what ikbo_read_through.c planned for it.
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
// Lookups: emb.table, emb.tbe, emb.embedding_bag
//===----------------------------------------------------------------------===//

static void lowerTable(EmbLowering *l, MlirOperation op) {
  EmbMapped *t = embTensorOperand(l, op, 0);
  if (t)
    embMapValue(l, mlirOperationGetResult(op, 0), t);
}

/// The most features and tables of one emb.tbe: its call's arrays (one i64
/// a feature, a pointer and two i64 a table) are built on the compiled
/// code's stack, so their size is bounded.
enum { maxTbeFeatures = 4096 };

/// emb.tbe and emb.embedding_bag share one runtime call.
static void lowerLookup(EmbLowering *l, MlirOperation op, bool isTbe) {
  intptr_t n = mlirOperationGetNumOperands(op);
  int64_t numTables = 1, numFeatures = 1;
  bool weighted;
  intptr_t firstTable, pswIndex, idxIndex, offIndex;
  MlirAttribute featureTables = mlirAttributeGetNull();
  if (isTbe) {
    MlirAttribute seg =
        mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
    numTables = mlirDenseI32ArrayGetElement(seg, 2);
    weighted = mlirDenseI32ArrayGetElement(seg, 3) == 1;
    featureTables =
        mlirOperationGetAttributeByName(op, embStr("feature_tables"));
    numFeatures = mlirDenseArrayGetNumElements(featureTables);
    if (numFeatures > maxTbeFeatures || numTables > maxTbeFeatures) {
      char what[64];
      snprintf(what, sizeof what, "more than %d features or tables",
               maxTbeFeatures);
      embLowerFail(l, op, what);
      return;
    }
    idxIndex = 0;
    offIndex = 1;
    firstTable = 2;
    pswIndex = n - 1;
  } else {
    weighted = n == 4;
    firstTable = 0;
    idxIndex = 1;
    offIndex = 2;
    pswIndex = 3;
  }
  EmbMapped *idx = embTensorOperand(l, op, idxIndex);
  EmbMapped *off = embTensorOperand(l, op, offIndex);
  EmbMapped *psw = weighted ? embTensorOperand(l, op, pswIndex) : NULL;
  if (!idx || !off || (weighted && !psw))
    return;

  char mode[16] = "sum", bc[16] = "fatal";
  embGetStringAttr(op, isTbe ? "pooling" : "mode", mode, sizeof mode);
  embGetStringAttr(op, "bounds_check", bc, sizeof bc);
  int64_t padding = -1;
  bool hasPadding = embGetIntAttr(op, "padding_idx", &padding);
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirValue table0 = mlirOperationGetOperand(op, firstTable);
  EmbMapped *t0 = embTensorOperand(l, op, firstTable);
  if (!t0)
    return;

  int64_t numAttrs = EMB_ABI_TBE_FEATURE_TABLES + numFeatures;
  int64_t numBufs = EMB_ABI_TBE_BUF_TABLES + numTables;
  int64_t numDims = EMB_ABI_TBE_DIM_TABLES + 2 * numTables;
  int64_t *attrs = calloc((size_t)numAttrs, sizeof *attrs);
  MlirValue *bufs = calloc((size_t)numBufs, sizeof *bufs);
  EmbDim *dims = calloc((size_t)numDims, sizeof *dims);
  if (!attrs || !bufs || !dims) {
    embLowerFail(l, op, "out of memory");
    goto done;
  }
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
  // The table's element type: through its handle for emb.tbe.
  MlirType tableType = mlirValueGetType(table0);
  if (isTbe) {
    MlirOperation def = mlirOpResultGetOwner(table0);
    tableType = mlirValueGetType(mlirOperationGetOperand(def, 0));
  }
  attrs[EMB_ABI_TBE_TABLE_DTYPE] =
      embRuntimeDtype(mlirShapedTypeGetElementType(tableType));
  attrs[EMB_ABI_TBE_INDEX_DTYPE] =
      embValueDtype(mlirOperationGetOperand(op, idxIndex));
  attrs[EMB_ABI_TBE_PSW_DTYPE] =
      weighted ? embValueDtype(mlirOperationGetOperand(op, pswIndex)) : -1;
  attrs[EMB_ABI_TBE_OUTPUT_DTYPE] = embValueDtype(result);
  attrs[EMB_ABI_TBE_CONFIG_ID] = -1;
  attrs[EMB_ABI_TBE_NUM_TABLES] = numTables;
  attrs[EMB_ABI_TBE_NUM_FEATURES] = numFeatures;
  // emb.embedding_bag: one feature on table 0.
  for (int64_t f = 0; f < numFeatures; ++f)
    attrs[EMB_ABI_TBE_FEATURE_TABLES + f] =
        isTbe ? mlirDenseI64ArrayGetElement(featureTables, f) : 0;

  // Result sizes: [B, sum D] pooled or [N, D] unpooled.
  EmbDim rdims[2];
  bool pooled = attrs[EMB_ABI_TBE_POOLING] != EMBRT_POOLING_NONE;
  EmbDim batch = {{NULL}, -1};
  int64_t staticB = embDim(mlirValueGetType(result), 0);
  if (pooled && staticB >= 0)
    batch = embConstDim(staticB);
  else {
    // B = (offsets - 1) / F.
    EmbDim o = off->dims[0];
    if (o.c >= 0)
      batch = embConstDim((o.c - 1) / numFeatures);
    else {
      MlirValue minus = embBuildAddI64(&l->b, embDimValue(l, &o),
                                       embBuildConstI64(&l->b, -1));
      batch.v =
          embBuildDivI64(&l->b, minus, embBuildConstI64(&l->b, numFeatures));
    }
  }
  EmbDim fallback[2] = {pooled ? batch : idx->dims[0], t0->dims[1]};
  embResultDims(l, result, rdims, fallback);
  EmbMapped *out = embDefineResult(l, result, rdims);

  bufs[EMB_ABI_TBE_BUF_INDICES] = idx->value;
  bufs[EMB_ABI_TBE_BUF_OFFSETS] = off->value;
  bufs[EMB_ABI_TBE_BUF_PSW] = psw ? psw->value : (MlirValue){NULL};
  bufs[EMB_ABI_TBE_BUF_OUTPUT] = out->value;
  bufs[EMB_ABI_TBE_BUF_WORKSPACE] = (MlirValue){NULL};
  dims[EMB_ABI_TBE_DIM_INDICES] = idx->dims[0];
  dims[EMB_ABI_TBE_DIM_BATCH] = batch;
  dims[EMB_ABI_TBE_DIM_WORKSPACE] = embConstDim(0);
  for (int64_t t = 0; t < numTables; ++t) {
    EmbMapped *tm = embTensorOperand(l, op, firstTable + t);
    if (!tm)
      goto done;
    bufs[EMB_ABI_TBE_BUF_TABLES + t] = tm->value;
    dims[EMB_ABI_TBE_DIM_TABLES + t] = tm->dims[0];
    dims[EMB_ABI_TBE_DIM_TABLES + numTables + t] = tm->dims[1];
  }
  // With static shapes the CUDA launch configuration is chosen here.
  if (l->target == EMB_TARGET_CUDA && idx->dims[0].c >= 0 && batch.c > 0) {
    int64_t maxDim = 0;
    bool known = true;
    for (int64_t t = 0; t < numTables; ++t) {
      int64_t d = dims[EMB_ABI_TBE_DIM_TABLES + numTables + t].c;
      known &= d >= 0;
      maxDim = d > maxDim ? d : maxDim;
    }
    int64_t bags = numFeatures * batch.c;
    if (known && pooled)
      attrs[EMB_ABI_TBE_CONFIG_ID] =
          embrtTbeSelectConfig((embrtDtype)attrs[EMB_ABI_TBE_TABLE_DTYPE],
                               maxDim, idx->dims[0].c / bags, bags);
  }
  EmbCallArrays a =
      embBuildCallArrays(l, attrs, numAttrs, bufs, numBufs, dims, numDims);
  embAddWorkspace(l, EMB_RT_TBE_WORKSPACE, a, EMB_ABI_TBE_BUF_WORKSPACE,
                  EMB_ABI_TBE_DIM_WORKSPACE);
  embCallRuntimeOp(l, EMB_RT_TBE, a);
done:
  free(attrs);
  free(bufs);
  free(dims);
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
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embCallRuntimeOp(l, add ? EMB_RT_BROADCAST_ADD : EMB_RT_BROADCAST, a);
}

//===----------------------------------------------------------------------===//
// emb.lce and emb.ikbo_lce
//===----------------------------------------------------------------------===//

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
  for (int s = 0; s < 2; ++s) {
    w[s] = embLookupValue(l, p->w[s]);
    x[s] = embLookupValue(l, p->x[s]);
    if (!w[s] || !x[s] || !w[s]->isTensor || !x[s]->isTensor) {
      embLowerFail(l, op, "an operand was not lowered");
      return;
    }
  }
  // Bytes past the view's first column, and the weights' row strides (0:
  // packed).
  MlirValue wPtr[2];
  EmbDim stride[2];
  int64_t es = embTensorElementBytes(mlirValueGetType(p->w[0]));
  for (int s = 0; s < 2; ++s) {
    if (p->column[s] * es > INT32_MAX) {
      embLowerFail(l, op, "the weight's column offset does not fit a constant");
      return;
    }
    wPtr[s] = offsetPtr(l, w[s]->value, p->column[s] * es);
    stride[s] = p->view[s] ? w[s]->dims[1] : embConstDim(0);
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
  };
  MlirValue bufs[] = {
      [EMB_ABI_IKBO_LCE_BUF_W_USER] = wPtr[0],
      [EMB_ABI_IKBO_LCE_BUF_W_CAND] = wPtr[1],
      [EMB_ABI_IKBO_LCE_BUF_USER] = x[0]->value,
      [EMB_ABI_IKBO_LCE_BUF_CAND] = x[1]->value,
      [EMB_ABI_IKBO_LCE_BUF_INDEX] = index->value,
      [EMB_ABI_IKBO_LCE_BUF_OUTPUT] = out->value,
      [EMB_ABI_IKBO_LCE_BUF_WORKSPACE] = {NULL},
  };
  EmbDim dims[] = {
      [EMB_ABI_IKBO_LCE_DIM_B] = x[1]->dims[0],
      [EMB_ABI_IKBO_LCE_DIM_U] = x[0]->dims[0],
      [EMB_ABI_IKBO_LCE_DIM_M] = w[1]->dims[0],
      [EMB_ABI_IKBO_LCE_DIM_K_USER] = x[0]->dims[1],
      [EMB_ABI_IKBO_LCE_DIM_K_CAND] = x[1]->dims[1],
      [EMB_ABI_IKBO_LCE_DIM_N] = x[1]->dims[2],
      [EMB_ABI_IKBO_LCE_DIM_WORKSPACE] = embConstDim(0),
      [EMB_ABI_IKBO_LCE_DIM_W_USER_STRIDE] = stride[0],
      [EMB_ABI_IKBO_LCE_DIM_W_CAND_STRIDE] = stride[1],
  };
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
  EmbMapped *len = ikbo && n == 5 ? embTensorOperand(l, op, 4) : NULL;
  if (!q || !k || !v || (ikbo && !idx) || (ikbo && n == 5 && !len))
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
          ikbo ? embValueDtype(mlirOperationGetOperand(op, 3)) : EMBRT_I32,
      [EMB_ABI_ATTN_HAS_INDEX] = ikbo,
      [EMB_ABI_ATTN_HAS_LENGTHS] = len != NULL,
      [EMB_ABI_ATTN_CONFIG_ID] = -1,
      [EMB_ABI_ATTN_SCALE_BITS] = (int64_t)bits,
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
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embAddWorkspace(l, EMB_RT_ATTENTION_WORKSPACE, a, EMB_ABI_ATTN_BUF_WORKSPACE,
                  EMB_ABI_ATTN_DIM_WORKSPACE);
  embCallRuntimeOp(l, EMB_RT_ATTENTION, a);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool embLowerEmbOp(EmbLowering *l, MlirOperation op) {
  if (embOpIs(op, EMB_OP_TABLE))
    lowerTable(l, op);
  else if (embOpIs(op, EMB_OP_TBE))
    lowerLookup(l, op, true);
  else if (embOpIs(op, EMB_OP_EMBEDDING_BAG))
    lowerLookup(l, op, false);
  else if (embOpIs(op, EMB_OP_BROADCAST))
    lowerBroadcast(l, op, false);
  else if (embOpIs(op, EMB_OP_BROADCAST_ADD))
    lowerBroadcast(l, op, true);
  else if (embOpIs(op, EMB_OP_LCE))
    lowerLce(l, op);
  else if (embOpIs(op, EMB_OP_IKBO_LCE))
    lowerIkboLce(l, op);
  else if (embOpIs(op, EMB_OP_ATTENTION))
    lowerAttention(l, op, false);
  else if (embOpIs(op, EMB_OP_IKBO_ATTENTION))
    lowerAttention(l, op, true);
  else
    return false;
  return true;
}
