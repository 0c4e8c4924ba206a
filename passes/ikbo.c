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

#include <stdio.h>
#include <string.h>

#define SUMMARY                                                                \
  "In-kernel broadcast: sink, fuse, pad K, clean up (inference pipeline)"

/// Writes the pipeline for pad alignment `align` (0: per element type).
static bool expandText(int64_t align, char *buf, size_t size) {
  char pad[64] = "emb-pad-k";
  if (align > 0)
    snprintf(pad, sizeof pad, "emb-pad-k{align=%lld}", (long long)align);
  int n = snprintf(buf, size,
                   "emb-sink-broadcast,emb-fuse-broadcast,%s,canonicalize,cse",
                   pad);
  return n > 0 && (size_t)n < size;
}

static bool expand(MlirStringRef options, char *buf, size_t size,
                   EmbErrorCallback onError, void *userData) {
  long long align = 0;
  char key[64], value[64];
  int r;
  while ((r = embNextOption(&options, key, sizeof key, value, sizeof value,
                            "emb-ikbo", onError, userData)) > 0) {
    if (strcmp(key, "align") != 0) {
      embUnknownOption("emb-ikbo", key, "align", onError, userData);
      return false;
    }
    if (!embParseIntOption("emb-ikbo", key, value, 0, 1 << 16, &align, onError,
                           userData))
      return false;
  }
  if (r < 0)
    return false;
  if (!expandText(align, buf, size)) {
    embReportf(onError, userData, "emb-ikbo: pipeline text too long");
    return false;
  }
  return true;
}

const EmbRegistryEntry embIkboEntry = {
    .name = "emb-ikbo",
    .summary = SUMMARY,
    .optionsHelp = "align=<int>: as emb-pad-k's (default 0: 16 bytes' worth)",
    .kind = EMB_PASS_KIND_PIPELINE,
    .anchor = "",
    .create = NULL,
    .expand = expand,
};

EmbIkboOptions embIkboOptionsDefault(void) {
  EmbIkboOptions o = {sizeof(EmbIkboOptions), 0, false};
  return o;
}

MlirLogicalResult embAddIkboPipeline(MlirOpPassManager pm,
                                     const EmbIkboOptions *options,
                                     EmbErrorCallback onError, void *userData) {
  EmbIkboOptions o = embIkboOptionsDefault();
  if (options) {
    if (options->structSize != sizeof(EmbIkboOptions)) {
      embReportf(onError, userData,
                 "embAddIkboPipeline: options.structSize is %zu, expected "
                 "%zu (sizeof(EmbIkboOptions))",
                 options->structSize, sizeof(EmbIkboOptions));
      return mlirLogicalResultFailure();
    }
    o = *options;
  }
  if (o.align < 0 || o.align > (1 << 16)) {
    embReportf(onError, userData,
               "embAddIkboPipeline: align must be in 0..65536, got %lld",
               (long long)o.align);
    return mlirLogicalResultFailure();
  }
  char text[256];
  if (!expandText(o.align, text, sizeof text))
    return mlirLogicalResultFailure();
  return embAddPassPipeline(pm, mlirStringRefCreateFromCString(text),
                            o.verifyEach, onError, userData);
}
