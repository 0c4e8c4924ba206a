//===- passes/verify.c - emb-verify ---------------------------------------===//
//
// The emb-verify pass: runs emb's op verifier (embVerify, in
// dialect/op_verifier.c) on the op it is given and fails the pipeline if any
// emb op is invalid. emb-opt runs it after parsing and after every pass,
// beside MLIR's structural verifier. It runs on any op, so it can be nested
// anywhere in a pipeline. It changes nothing.
//
//===----------------------------------------------------------------------===//

#include "pass.h"

static void run(MlirOperation op, MlirExternalPass pass, const void *options) {
  (void)options;
  if (mlirLogicalResultIsFailure(embVerify(op)))
    mlirExternalPassSignalFailure(pass);
}

const EmbPassDef embVerifyPassDef = {
    .argument = "emb-verify",
    .name = "EmbVerify",
    .summary = "Check emb ops' types, shapes and attributes",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .run = run,
};

MlirPass embCreateVerifyPass(void) {
  return embMakePass(&embVerifyPassDef, NULL);
}
