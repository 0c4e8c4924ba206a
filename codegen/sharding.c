//===- codegen/sharding.c - Lowering a sharded program's ops --------------===//
//
// The ops emb-shard makes of a sharded lookup (docs/sharding.md) as calls of
// the runtime (include/emb/compiled.h): emb.bucketize and
// emb.lengths_to_offsets (runtime/input_dist.c, with their workspaces) and
// the collectives emb.all_to_all, emb.reduce_scatter and emb.all_gather
// (runtime/collectives.c), on the context's communicator.
//
// Two sizes are known only on the device, and the lowering says where each
// is read:
//   - emb.bucketize's ids (and weights): how many ids each slot gets depends
//     on the data. Their buffer holds the most there can be, N times the
//     depth of the slots (embrtBucketizeDepth), and only the counts say how
//     many were written. An emb.all_to_all with counts operands sends from
//     such a buffer as it is (it reads the counts, not the length); any other
//     use (a data-parallel lookup reads the ids directly, and emb.tbe's
//     offsets must end at its N) gets the exact length through
//     embrtCompiledBucketizeCount, a copy of the counts to the host;
//   - the result of an emb.all_to_all with counts operands: its rows are the
//     sum of the receive counts, so embrtCompiledAllToAllCounts copies both
//     counts to host memory on the compiled code's stack (NCCL takes them
//     there), the function allocates the result at that size, and
//     embrtCompiledAllToAll sends. A later all-to-all with the same counts
//     operands (the per-sample weights beside the ids) reuses what was read.
// Each is one copy to the host and one wait for the stream: the host
// synchronisation of an input dist (docs/sharding.md says why there is no
// way around it with NCCL's all-to-all-v, and what it costs).
//
//===----------------------------------------------------------------------===//

#include "lowering.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The most slots of one emb.bucketize (its attrs are built on the compiled
/// code's stack: four i64 a slot).
enum { maxSlots = 65536 };

/// The largest world whose counts an all-to-all keeps on the compiled code's
/// stack (2 * W i64: 64 KiB).
enum { maxStackWorld = 4096 };

static int64_t i64ArrayAt(MlirAttribute a, intptr_t i) {
  return mlirDenseI64ArrayGetElement(a, i);
}

static MlirAttribute attrOf(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, embStr(name));
}

/// Whether every use of `v` is the send operand of an emb.all_to_all that
/// takes counts operands (which reads as many rows as its counts say).
static bool onlySentByCounts(MlirValue v) {
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    if (!embOpIs(user, EMB_OP_ALL_TO_ALL) ||
        mlirOperationGetNumOperands(user) != 3 ||
        mlirOpOperandGetOperandNumber(u) != 0)
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// emb.bucketize
//===----------------------------------------------------------------------===//

/// Maps bucketized result `r` (ids or weights) to `buffer` with
/// `exact` entries: the buffer itself on the runtime path (its first
/// entries); in a mixed function a new allocation of that size with them
/// copied in (the capacity buffer is freed after the op).
static void mapExact(EmbLowering *l, MlirValue r, MlirValue buffer,
                     EmbDim exact) {
  int64_t es = embTensorElementBytes(mlirValueGetType(r));
  if (!l->mixed) {
    EmbMapped m = embTensorMapping(buffer, 1, &exact);
    embMapValue(l, r, &m);
    return;
  }
  EmbMapped *m = embDefineResult(l, r, &exact);
  EmbDim bytes = embMulDim(l, exact, embConstDim(es));
  MlirValue args[5] = {l->ctxArg,
                       embBuildConstI64(&l->b, EMBRT_COPY_DEVICE_TO_DEVICE),
                       m->value, buffer, embDimValue(l, &bytes)};
  embCallRuntime(l, EMB_RT_COPY, 5, args, (MlirType){NULL});
}

static void lowerBucketize(EmbLowering *l, MlirOperation op) {
  bool weighted = mlirOperationGetNumOperands(op) == 3;
  EmbMapped *idx = embTensorOperand(l, op, 0);
  EmbMapped *off = embTensorOperand(l, op, 1);
  EmbMapped *psw = weighted ? embTensorOperand(l, op, 2) : NULL;
  if (!idx || !off || (weighted && !psw))
    return;
  MlirAttribute ranks = attrOf(op, "slot_ranks"),
                feats = attrOf(op, "slot_features"),
                begin = attrOf(op, "slot_row_begin"),
                end = attrOf(op, "slot_row_end");
  int64_t S = mlirDenseArrayGetNumElements(ranks), W = 0;
  embGetIntAttr(op, "world_size", &W);
  MlirValue ids = mlirOperationGetResult(op, 0),
            lengths = mlirOperationGetResult(op, 1),
            counts = mlirOperationGetResult(op, 2),
            weights =
                weighted ? mlirOperationGetResult(op, 3) : (MlirValue){NULL};
  int64_t L = embDim(mlirValueGetType(lengths), 0);
  if (S > maxSlots) {
    char what[64];
    snprintf(what, sizeof what, "more than %d slots", maxSlots);
    embLowerFail(l, op, what);
    return;
  }
  if (L < 0) {
    embLowerFail(l, op,
                 "lengths must have a static size (S*B): the batch is "
                 "compiled in");
    return;
  }
  if (embDim(mlirValueGetType(ids), 0) >= 0 ||
      (weighted && embDim(mlirValueGetType(weights), 0) >= 0)) {
    embLowerFail(l, op,
                 "ids must have a dynamic size: how many ids each slot gets "
                 "depends on the data");
    return;
  }
  int64_t numAttrs = EMB_ABI_BUCKETIZE_SLOTS + 4 * S;
  int64_t *attrs = calloc((size_t)numAttrs, sizeof *attrs);
  if (!attrs) {
    embLowerFail(l, op, "out of memory");
    return;
  }
  attrs[EMB_ABI_BUCKETIZE_INDEX_DTYPE] = embValueDtype(ids);
  attrs[EMB_ABI_BUCKETIZE_PSW_DTYPE] = weighted ? embValueDtype(weights) : -1;
  attrs[EMB_ABI_BUCKETIZE_WORLD_SIZE] = W;
  attrs[EMB_ABI_BUCKETIZE_NUM_SLOTS] = S;
  int64_t *slots = attrs + EMB_ABI_BUCKETIZE_SLOTS;
  for (int64_t s = 0; s < S; ++s) {
    slots[s] = i64ArrayAt(ranks, s);
    slots[S + s] = i64ArrayAt(feats, s);
    slots[2 * S + s] = i64ArrayAt(begin, s);
    slots[3 * S + s] = i64ArrayAt(end, s);
  }
  // The most ids there can be: N times the most slots one id falls in.
  int64_t depth =
      embrtBucketizeDepth(S, slots + S, slots + 2 * S, slots + 3 * S);
  EmbDim capacity = embMulDim(l, idx->dims[0], embConstDim(depth));
  bool exact =
      !onlySentByCounts(ids) || (weighted && !onlySentByCounts(weights));
  MlirValue idsBuf, weightsBuf = {NULL};
  if (exact) {
    // Filled, then viewed (or copied) at the length the counts give.
    idsBuf = embAllocBytes(
        l,
        embMulDim(l, capacity,
                  embConstDim(embTensorElementBytes(mlirValueGetType(ids)))));
    if (weighted)
      weightsBuf = embAllocBytes(l, embMulDim(l, capacity,
                                              embConstDim(embTensorElementBytes(
                                                  mlirValueGetType(weights)))));
  } else {
    idsBuf = embDefineResult(l, ids, &capacity)->value;
    if (weighted)
      weightsBuf = embDefineResult(l, weights, &capacity)->value;
  }
  EmbDim ldims[1] = {embConstDim(L)}, cdims[1] = {embConstDim(W)};
  EmbMapped *len = embDefineResult(l, lengths, ldims);
  MlirValue lenBuf = len->value;
  EmbDim lenRows = embResultExtents(l, len)[0];
  EmbMapped *cnt = embDefineResult(l, counts, cdims);
  MlirValue cntBuf = cnt->value;
  EmbDim cntRows = embResultExtents(l, cnt)[0];
  MlirValue bufs[] = {
      [EMB_ABI_BUCKETIZE_BUF_INDICES] = idx->value,
      [EMB_ABI_BUCKETIZE_BUF_OFFSETS] = off->value,
      [EMB_ABI_BUCKETIZE_BUF_PSW] = psw ? psw->value : (MlirValue){NULL},
      [EMB_ABI_BUCKETIZE_BUF_IDS] = idsBuf,
      [EMB_ABI_BUCKETIZE_BUF_WEIGHTS] = weightsBuf,
      [EMB_ABI_BUCKETIZE_BUF_LENGTHS] = lenBuf,
      [EMB_ABI_BUCKETIZE_BUF_COUNTS] = cntBuf,
      [EMB_ABI_BUCKETIZE_BUF_WORKSPACE] = {NULL},
  };
  EmbDim dims[] = {
      [EMB_ABI_BUCKETIZE_DIM_INDICES] = idx->dims[0],
      [EMB_ABI_BUCKETIZE_DIM_BATCH] = embConstDim(S > 0 ? L / S : 0),
      [EMB_ABI_BUCKETIZE_DIM_IDS_CAPACITY] = capacity,
      [EMB_ABI_BUCKETIZE_DIM_WORKSPACE] = embConstDim(0),
      [EMB_ABI_BUCKETIZE_DIM_OFFSETS] = off->dims[0],
      [EMB_ABI_BUCKETIZE_DIM_PSW] = psw ? psw->dims[0] : embConstDim(0),
      [EMB_ABI_BUCKETIZE_DIM_LENGTHS] = lenRows,
      [EMB_ABI_BUCKETIZE_DIM_COUNTS] = cntRows,
  };
  EmbCallArrays a = embBuildCallArrays(l, attrs, numAttrs, bufs,
                                       EMB_COUNT(bufs), dims, EMB_COUNT(dims));
  free(attrs);
  embAddWorkspace(l, EMB_RT_BUCKETIZE_WORKSPACE, a,
                  EMB_ABI_BUCKETIZE_BUF_WORKSPACE,
                  EMB_ABI_BUCKETIZE_DIM_WORKSPACE);
  embCallRuntimeOp(l, EMB_RT_BUCKETIZE, a);
  if (!exact)
    return;
  MlirValue args[4] = {l->ctxArg, a.attrs, a.buffers, a.dims};
  EmbDim total = {
      embCallRuntime(l, EMB_RT_BUCKETIZE_COUNT, 4, args, embI64Type(l->ctx)),
      -1};
  mapExact(l, ids, idsBuf, total);
  if (weighted)
    mapExact(l, weights, weightsBuf, total);
}

//===----------------------------------------------------------------------===//
// emb.lengths_to_offsets
//===----------------------------------------------------------------------===//

static void lowerLengthsToOffsets(EmbLowering *l, MlirOperation op) {
  EmbMapped *len = embTensorOperand(l, op, 0);
  if (!len)
    return;
  int64_t K = 0;
  embGetIntAttr(op, "blocks", &K);
  MlirValue offsets = mlirOperationGetResult(op, 0),
            sums = mlirOperationGetResult(op, 1);
  EmbDim one = embConstDim(1), L = len->dims[0];
  EmbDim odims[1] = {embAddDim(l, &L, &one)}, sdims[1] = {embConstDim(K)};
  embResultDims(l, offsets, odims, odims);
  EmbMapped *off = embDefineResult(l, offsets, odims);
  MlirValue offBuf = off->value;
  EmbDim offRows = embResultExtents(l, off)[0];
  EmbMapped *sum = embDefineResult(l, sums, sdims);
  int64_t attrs[] = {
      [EMB_ABI_L2O_DTYPE] = embValueDtype(mlirOperationGetOperand(op, 0)),
      [EMB_ABI_L2O_BLOCKS] = K,
  };
  MlirValue bufs[] = {
      [EMB_ABI_L2O_BUF_LENGTHS] = len->value,
      [EMB_ABI_L2O_BUF_OFFSETS] = offBuf,
      [EMB_ABI_L2O_BUF_BLOCK_SUMS] = sum->value,
      [EMB_ABI_L2O_BUF_WORKSPACE] = {NULL},
  };
  EmbDim dims[] = {
      [EMB_ABI_L2O_DIM_LENGTHS] = len->dims[0],
      [EMB_ABI_L2O_DIM_WORKSPACE] = embConstDim(0),
      [EMB_ABI_L2O_DIM_OFFSETS] = offRows,
      [EMB_ABI_L2O_DIM_BLOCK_SUMS] = embResultExtents(l, sum)[0],
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embAddWorkspace(l, EMB_RT_LENGTHS_TO_OFFSETS_WORKSPACE, a,
                  EMB_ABI_L2O_BUF_WORKSPACE, EMB_ABI_L2O_DIM_WORKSPACE);
  embCallRuntimeOp(l, EMB_RT_LENGTHS_TO_OFFSETS, a);
}

//===----------------------------------------------------------------------===//
// emb.all_to_all
//===----------------------------------------------------------------------===//

/// Counts an all-to-all read on the host: its counts operands, where they
/// went (2W i64 on the stack) and the rows to receive.
typedef struct EmbHostCounts {
  const void *send, *recv;
  MlirValue host, rows;
} EmbHostCounts;

static EmbHostCounts *findHostCounts(EmbLowering *l, MlirOperation op) {
  const void *send = mlirOperationGetOperand(op, 1).ptr,
             *recv = mlirOperationGetOperand(op, 2).ptr;
  for (size_t i = 0; i < l->numHostCounts; ++i)
    if (l->hostCounts[i].send == send && l->hostCounts[i].recv == recv)
      return &l->hostCounts[i];
  return NULL;
}

static void rememberHostCounts(EmbLowering *l, MlirOperation op, MlirValue host,
                               MlirValue rows) {
  EmbHostCounts *grown =
      realloc(l->hostCounts, (l->numHostCounts + 1) * sizeof(EmbHostCounts));
  if (!grown)
    return; // the next all-to-all with these counts reads them again
  l->hostCounts = grown;
  l->hostCounts[l->numHostCounts++] =
      (EmbHostCounts){mlirOperationGetOperand(op, 1).ptr,
                      mlirOperationGetOperand(op, 2).ptr, host, rows};
}

static void lowerAllToAll(EmbLowering *l, MlirOperation op) {
  bool hasCounts = mlirOperationGetNumOperands(op) == 3;
  EmbMapped *send = embTensorOperand(l, op, 0);
  EmbMapped *sendCounts = hasCounts ? embTensorOperand(l, op, 1) : NULL;
  EmbMapped *recvCounts = hasCounts ? embTensorOperand(l, op, 2) : NULL;
  if (!send || (hasCounts && (!sendCounts || !recvCounts)))
    return;
  int64_t W = 0;
  embGetIntAttr(op, "world_size", &W);
  if (hasCounts && W > maxStackWorld) {
    char what[160];
    snprintf(what, sizeof what,
             "world_size %lld: an all-to-all with counts operands keeps them "
             "on the compiled code's stack, for at most %d ranks",
             (long long)W, maxStackWorld);
    embLowerFail(l, op, what);
    return;
  }
  MlirValue result = mlirOperationGetResult(op, 0);
  int64_t numAttrs = EMB_ABI_A2A_SPLITS + (hasCounts ? 0 : 2 * W);
  int64_t *attrs = calloc((size_t)numAttrs, sizeof *attrs);
  if (!attrs) {
    embLowerFail(l, op, "out of memory");
    return;
  }
  attrs[EMB_ABI_A2A_DTYPE] = embValueDtype(result);
  attrs[EMB_ABI_A2A_WORLD_SIZE] = W;
  attrs[EMB_ABI_A2A_HAS_COUNTS] = hasCounts;
  int64_t recvRows = 0;
  if (!hasCounts) {
    MlirAttribute ss = attrOf(op, "send_splits"),
                  rs = attrOf(op, "recv_splits");
    for (int64_t r = 0; r < W; ++r) {
      attrs[EMB_ABI_A2A_SPLITS + r] = i64ArrayAt(ss, r);
      attrs[EMB_ABI_A2A_SPLITS + W + r] = i64ArrayAt(rs, r);
      recvRows += i64ArrayAt(rs, r);
    }
  }
  // Counts already read for an earlier all-to-all are used as they are.
  EmbHostCounts *known = hasCounts ? findHostCounts(l, op) : NULL;
  MlirValue host = known ? known->host
                   : hasCounts
                       ? embBuildAlloca(&l->b, embI64Type(l->ctx), 2 * W)
                       : (MlirValue){NULL};
  MlirValue bufs[] = {
      [EMB_ABI_A2A_BUF_SEND] = send->value,
      [EMB_ABI_A2A_BUF_RECV] = {NULL}, // set below, once allocated
      [EMB_ABI_A2A_BUF_SEND_COUNTS] =
          hasCounts ? sendCounts->value : (MlirValue){NULL},
      [EMB_ABI_A2A_BUF_RECV_COUNTS] =
          hasCounts ? recvCounts->value : (MlirValue){NULL},
      [EMB_ABI_A2A_BUF_HOST_COUNTS] = host,
  };
  EmbDim dims[] = {
      [EMB_ABI_A2A_DIM_ROW] = embDimProduct(l, send, 1, send->rank),
      [EMB_ABI_A2A_DIM_SEND_ROWS] = send->dims[0],
      [EMB_ABI_A2A_DIM_RECV_ROWS] = embConstDim(0), // set below
  };
  EmbCallArrays a = embBuildCallArrays(l, attrs, numAttrs, bufs,
                                       EMB_COUNT(bufs), dims, EMB_COUNT(dims));
  free(attrs);
  // Rows to receive: the splits' sum, or what the counts say (read on the
  // host).
  EmbDim rows = embConstDim(recvRows);
  if (known) {
    rows = (EmbDim){known->rows, -1};
  } else if (hasCounts) {
    MlirValue args[4] = {l->ctxArg, a.attrs, a.buffers, a.dims};
    rows = (EmbDim){embCallRuntime(l, EMB_RT_ALL_TO_ALL_COUNTS, 4, args,
                                   embI64Type(l->ctx)),
                    -1};
    rememberHostCounts(l, op, host, rows.v);
  }
  EmbDim fallback[EMBRT_MAX_RANK], rdims[EMBRT_MAX_RANK];
  fallback[0] = rows;
  for (int i = 1; i < send->rank; ++i)
    fallback[i] = send->dims[i];
  embResultDims(l, result, rdims, fallback);
  EmbMapped *out = embDefineResult(l, result, rdims);
  EmbDim extent = embResultExtents(l, out)[0];
  embBuildStoreAt(&l->b, a.buffers, embPtrType(l->ctx), EMB_ABI_A2A_BUF_RECV,
                  out->value);
  embBuildStoreAt(&l->b, a.dims, embI64Type(l->ctx), EMB_ABI_A2A_DIM_RECV_ROWS,
                  embDimValue(l, &extent));
  embCallRuntimeOp(l, EMB_RT_ALL_TO_ALL, a);
}

//===----------------------------------------------------------------------===//
// emb.reduce_scatter and emb.all_gather
//===----------------------------------------------------------------------===//

static void lowerEqualBlocks(EmbLowering *l, MlirOperation op, bool gather) {
  EmbMapped *send = embTensorOperand(l, op, 0);
  if (!send)
    return;
  int64_t W = 0;
  embGetIntAttr(op, "world_size", &W);
  MlirValue result = mlirOperationGetResult(op, 0);
  EmbDim fallback[EMBRT_MAX_RANK], rdims[EMBRT_MAX_RANK];
  fallback[0] = gather ? embMulDim(l, send->dims[0], embConstDim(W))
                       : send->dims[0]; // a `?` result: checked at run time
  for (int i = 1; i < send->rank; ++i)
    fallback[i] = send->dims[i];
  embResultDims(l, result, rdims, fallback);
  if (!gather && mlirShapedTypeIsDynamicDim(mlirValueGetType(result), 0)) {
    if (send->dims[0].c >= 0)
      rdims[0] = embConstDim(send->dims[0].c / W);
    else
      rdims[0] = (EmbDim){embBuildDivI64(&l->b, embDimValue(l, &send->dims[0]),
                                         embBuildConstI64(&l->b, W)),
                          -1};
  }
  EmbMapped *out = embDefineResult(l, result, rdims);
  EmbMapped checked = *out;
  memcpy(checked.dims, embResultExtents(l, out), sizeof checked.dims);
  int64_t attrs[] = {
      [EMB_ABI_COLL_DTYPE] = embValueDtype(result),
      [EMB_ABI_COLL_WORLD_SIZE] = W,
  };
  MlirValue bufs[] = {
      [EMB_ABI_COLL_BUF_SEND] = send->value,
      [EMB_ABI_COLL_BUF_RECV] = out->value,
  };
  EmbDim dims[] = {
      [EMB_ABI_COLL_DIM_SEND] = embDimProduct(l, send, 0, send->rank),
      [EMB_ABI_COLL_DIM_RECV] = embDimProduct(l, &checked, 0, checked.rank),
  };
  EmbCallArrays a = EMB_BUILD_CALL_ARRAYS(l, attrs, bufs, dims);
  embCallRuntimeOp(l, gather ? EMB_RT_ALL_GATHER : EMB_RT_REDUCE_SCATTER, a);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool embLowerShardingOp(EmbLowering *l, MlirOperation op) {
  if (embOpIs(op, EMB_OP_BUCKETIZE))
    lowerBucketize(l, op);
  else if (embOpIs(op, EMB_OP_LENGTHS_TO_OFFSETS))
    lowerLengthsToOffsets(l, op);
  else if (embOpIs(op, EMB_OP_ALL_TO_ALL))
    lowerAllToAll(l, op);
  else if (embOpIs(op, EMB_OP_REDUCE_SCATTER))
    lowerEqualBlocks(l, op, false);
  else if (embOpIs(op, EMB_OP_ALL_GATHER))
    lowerEqualBlocks(l, op, true);
  else
    return false;
  return true;
}
