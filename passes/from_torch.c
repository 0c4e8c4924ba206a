//===- passes/from_torch.c - The emb-from-torch pipeline ------------------===//
//
// Takes the linalg-on-tensors that torch-mlir emits (or IREE's input, the
// same dialects) all the way through emb's rewrites:
//
//   emb-raise          the lookups, broadcasts, linear compressions and
//                      attentions become emb ops;
//   emb-ikbo{align}    user-only work moves to user batch size and the
//                      broadcasts fuse into the ops that read them
//                      (emb.ikbo_lce, emb.ikbo_attention, emb.broadcast_add),
//                      K padded;
//   emb-batch-tables   the lookups of one batch become one emb.tbe;
//   emb-erase-dead,    the cleanup: emb ops nobody reads (IRDL ops have no
//   canonicalize, cse  DCE), then what that leaves to fold and merge.
//
// What was not raised stays linalg (remarks say why) and runs as it was.
//
//===----------------------------------------------------------------------===//

#include "pass.h"

static MlirLogicalResult build(EmbPipelineBuilder *b, const void *options) {
  if (mlirLogicalResultIsFailure(
          embPipelineAdd(b, &embRaisePipelineDef, NULL)) ||
      mlirLogicalResultIsFailure(
          embPipelineAdd(b, &embIkboPipelineDef, options)) ||
      mlirLogicalResultIsFailure(
          embPipelineAdd(b, &embBatchTablesPassDef, NULL)) ||
      mlirLogicalResultIsFailure(
          embPipelineAdd(b, &embEraseDeadPassDef, NULL)) ||
      mlirLogicalResultIsFailure(embPipelineAddCleanup(b)))
    return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

const EmbPassDef embFromTorchPipelineDef = {
    .argument = "emb-from-torch",
    .summary = "torch-mlir's linalg-on-tensors through emb: raise, emb-ikbo, "
               "emb-batch-tables, clean up",
    .kind = EMB_PASS_KIND_PIPELINE,
    .anchor = "",
    .options = &embIkboOptions, // handed to emb-ikbo
    .build = build,
};
