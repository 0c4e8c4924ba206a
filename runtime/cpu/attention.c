//===- runtime/cpu/attention.c - Attention on the CPU -------------*- C -*-===//
//
// The reference emb.attention and emb.ikbo_attention: for candidate b, query
// position i and head h,
//   out[b, i, h] = softmax_j(scale * q[b, i, h] . k[u, j, h]) @ v[u, :, h]
// over the keys j < len(u), with u = candToUser[b] (b for plain attention)
// and len(u) = userLengths[u] (Lk without lengths). A user with no keys
// gives a zero row. Everything is computed in f64, with the row maximum
// subtracted before exp, and rounded once at the store.
//
// With computeDtype f16 or bf16 (f32 data), q, k and v are read rounded to
// that type and the result is rounded to it before the f32 store, as the
// CUDA backend's conversion path does.
//
// The score row (Lk doubles) lives in the caller's workspace. cand_to_user
// and the lengths some candidate reads (user_lengths[cand_to_user[b]]) are
// checked before anything is written; the length of a user no candidate
// maps to is not read, so it may hold anything.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"

#include <math.h>

embrtStatus embrtCpuAttentionWorkspaceSize(embrtContext *ctx,
                                           const embrtAttentionArgs *args,
                                           size_t *bytes) {
  *bytes = (size_t)args->lk * sizeof(double);
  return EMBRT_OK;
}

static embrtStatus checkIndices(embrtContext *ctx,
                                const embrtAttentionArgs *args) {
  const char *op = args->candToUser ? "ikbo_attention" : "attention";
  const char *lengths = args->candToUser ? "user_lengths" : "key_lengths";
  if (args->candToUser)
    for (int64_t b = 0; b < args->batchSize; ++b) {
      int64_t u = embrtLoadIndex(args->candToUser, args->indexDtype, b);
      if (u < 0 || u >= args->numUsers)
        return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                             "%s: cand_to_user[%lld] is %lld, outside the %lld "
                             "users",
                             op, (long long)b, (long long)u,
                             (long long)args->numUsers);
    }
  // Only the lengths that some row reads: a user no candidate maps to is
  // never read, as in the broadcast form `attention(..., broadcast(len,
  // cand_to_user))` that emb-fuse-broadcast rewrites into this op.
  if (args->userLengths)
    for (int64_t b = 0; b < args->batchSize; ++b) {
      int64_t u = args->candToUser
                      ? embrtLoadIndex(args->candToUser, args->indexDtype, b)
                      : b;
      int64_t length = embrtLoadIndex(args->userLengths, args->indexDtype, u);
      if (length < 0 || length > args->lk)
        return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                             "%s: %s[%lld] is %lld, outside 0..%lld (lk)", op,
                             lengths, (long long)u, (long long)length,
                             (long long)args->lk);
    }
  return EMBRT_OK;
}

/// Element i of q, k or v as the products read it.
static double loadOperand(const embrtAttentionArgs *args, const void *p,
                          int64_t i) {
  return embrtCpuRoundTo(embrtCpuLoad(p, args->dtype, i), args->computeDtype);
}

embrtStatus embrtCpuAttention(embrtContext *ctx,
                              const embrtAttentionArgs *args) {
  embrtStatus status = checkIndices(ctx, args);
  if (status != EMBRT_OK)
    return status;
  int64_t Lq = args->lq, Lk = args->lk, H = args->heads, Dh = args->headDim;
  embrtDtype dtype = args->dtype;
  double *scores = args->workspace;
  for (int64_t b = 0; b < args->batchSize; ++b) {
    int64_t u = args->candToUser
                    ? embrtLoadIndex(args->candToUser, args->indexDtype, b)
                    : b;
    int64_t keys = args->userLengths
                       ? embrtLoadIndex(args->userLengths, args->indexDtype, u)
                       : Lk;
    for (int64_t i = 0; i < Lq; ++i)
      for (int64_t h = 0; h < H; ++h) {
        int64_t qBase = ((b * Lq + i) * H + h) * Dh;
        double maxScore = -INFINITY;
        for (int64_t j = 0; j < keys; ++j) {
          int64_t kBase = ((u * Lk + j) * H + h) * Dh;
          double dot = 0.0;
          for (int64_t d = 0; d < Dh; ++d)
            dot += loadOperand(args, args->q, qBase + d) *
                   loadOperand(args, args->k, kBase + d);
          scores[j] = dot * (double)args->scale;
          maxScore = fmax(maxScore, scores[j]);
        }
        double sum = 0.0;
        for (int64_t j = 0; j < keys; ++j) {
          scores[j] = exp(scores[j] - maxScore);
          sum += scores[j];
        }
        for (int64_t d = 0; d < Dh; ++d) {
          double acc = 0.0;
          for (int64_t j = 0; j < keys; ++j)
            acc += scores[j] *
                   loadOperand(args, args->v, ((u * Lk + j) * H + h) * Dh + d);
          embrtCpuStore(
              args->output, dtype, qBase + d,
              embrtCpuRoundTo(keys > 0 ? acc / sum : 0.0, args->computeDtype));
        }
      }
  }
  return EMBRT_OK;
}
