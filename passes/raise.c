//===- passes/raise.c - The emb-raise pipeline ----------------------------===//
//
// Raises the linalg-on-tensors that torch-mlir emits into emb ops, one
// pattern family per pass, in an order where no pass hides a form from a
// later one:
//
//   emb-raise-embedding-bag  the masked-select sum generics (and a mean
//                            written as the sum over clamped lengths);
//   emb-raise-gather         row gathers: table lookups become
//                            emb.embedding_bag {mode = "none"}, the rest
//                            user->candidate emb.broadcast;
//   emb-raise-lce            matmul(W, X[B,K,N]) as a batch_matmul of W's
//                            copy to every row, or the folded form;
//                            first of the matmul readers, so that
//                            emb-raise-broadcast does not take W's copy for
//                            a one-user broadcast;
//   emb-raise-attention      decomposed SDPA and tm_tensor.attention;
//   emb-raise-broadcast      expand/broadcast_to copies of user rows with a
//                            generated cand_to_user;
//   canonicalize, cse        fold the transposes a raise left back to back
//                            (the one it adds after emb.attention and the
//                            model's own), and merge equal index tensors
//                            (a wrap of negative ids, a generated
//                            cand_to_user) so that the broadcasts of one
//                            request share one cand_to_user, as emb-ikbo's
//                            fusion needs.
//
// Running it twice changes nothing: a raised form is no longer linalg.
//
//===----------------------------------------------------------------------===//

#include "pass.h"

static MlirLogicalResult build(EmbPipelineBuilder *b, const void *options) {
  (void)options;
  const EmbPassDef *const passes[] = {
      &embRaiseEmbeddingBagPassDef, &embRaiseGatherPassDef,
      &embRaiseLcePassDef,          &embRaiseAttentionPassDef,
      &embRaiseBroadcastPassDef,
  };
  for (size_t i = 0; i < sizeof passes / sizeof passes[0]; ++i)
    if (mlirLogicalResultIsFailure(embPipelineAdd(b, passes[i], NULL)))
      return mlirLogicalResultFailure();
  return embPipelineAddCleanup(b);
}

const EmbPassDef embRaisePipelineDef = {
    .argument = "emb-raise",
    .summary = "Raise torch-mlir's linalg-on-tensors into emb ops (gathers, "
               "embedding bags, broadcasts, lce, attention)",
    .kind = EMB_PASS_KIND_PIPELINE,
    .anchor = "",
    .build = build,
};
