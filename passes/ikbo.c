//===- passes/ikbo.c - The emb-ikbo pipeline ------------------------------===//
//
// In-kernel broadcast optimisation at inference time, as one pipeline:
//
//   emb-sink-broadcast   user-only work moves to user batch size, so the
//                        broadcasts reach the ops that mix user and candidate
//                        data (a user-only tanh before a concat would
//                        otherwise hide the broadcast from the lce);
//   emb-fuse-broadcast   those ops take the user tensors and cand_to_user
//                        (emb.ikbo_lce, emb.ikbo_attention,
//                        emb.broadcast_add);
//   emb-pad-k            the K splits that fusion made are padded to aligned
//                        sizes (padding before fusion would pad K as a whole
//                        and leave Ku and Kc unaligned);
//   canonicalize, cse    upstream cleanup of what the rewrites left: splat
//                        constants sinking replaced, duplicate tensor.dim and
//                        zero constants. Our own ops are erased by our passes
//                        (IRDL ops have no DCE).
//
// Fusion creates no broadcast and padding creates none either, so one round
// reaches the fixed point: running the pipeline twice changes nothing.
//
//===----------------------------------------------------------------------===//

#include "pass.h"

#include <stddef.h>

//===----------------------------------------------------------------------===//
// Options: the fields of EmbIkboOptions (include/emb/emb.h) it reads as text
//===----------------------------------------------------------------------===//

static const EmbPassOption optionRows[] = {
    {.name = "align",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(EmbIkboOptions, align),
     .defaultValue = "0",
     .min = 0,
     .max = EMB_PAD_K_MAX_ALIGN,
     .help = "emb-pad-k's align"},
};

const EmbOptionTable embIkboOptions = {optionRows, EMB_NUM_OPTIONS(optionRows),
                                       sizeof(EmbIkboOptions)};

//===----------------------------------------------------------------------===//
// The pipeline
//===----------------------------------------------------------------------===//

static MlirLogicalResult build(EmbPipelineBuilder *b, const void *options) {
  const EmbIkboOptions *o = options;
  EmbPadKOptions pad = embPadKOptionsDefault();
  pad.align = o->align;
  if (mlirLogicalResultIsFailure(
          embPipelineAdd(b, &embSinkBroadcastPassDef, NULL)) ||
      mlirLogicalResultIsFailure(
          embPipelineAdd(b, &embFuseBroadcastPassDef, NULL)) ||
      mlirLogicalResultIsFailure(embPipelineAdd(b, &embPadKPassDef, &pad)) ||
      mlirLogicalResultIsFailure(embPipelineAddCleanup(b)))
    return mlirLogicalResultFailure();
  return mlirLogicalResultSuccess();
}

const EmbPassDef embIkboPipelineDef = {
    .argument = "emb-ikbo",
    .summary =
        "In-kernel broadcast: sink, fuse, pad K, clean up (inference pipeline)",
    .kind = EMB_PASS_KIND_PIPELINE,
    .anchor = "",
    .options = &embIkboOptions,
    .build = build,
};

EmbIkboOptions embIkboOptionsDefault(void) {
  EmbIkboOptions o = {sizeof(EmbIkboOptions), 0, false};
  embDefaultPassOptions(&embIkboPipelineDef, &o);
  return o;
}

MlirLogicalResult embAddIkboPipeline(MlirOpPassManager pm,
                                     const EmbIkboOptions *options,
                                     EmbErrorCallback onError, void *userData) {
  EmbIkboOptions o = embIkboOptionsDefault();
  if (!embTakePassOptions(&embIkboPipelineDef, options, &o,
                          "embAddIkboPipeline", "EmbIkboOptions", onError,
                          userData))
    return mlirLogicalResultFailure();
  EmbPipelineBuilder b = {pm, "builtin.module", o.verifyEach, onError,
                          userData};
  return embPipelineAdd(&b, &embIkboPipelineDef, &o);
}
