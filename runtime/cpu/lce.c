//===- runtime/cpu/lce.c - Linear compression on the CPU ----------*- C -*-===//
//
// The reference emb.lce (out[b] = w @ x[b]) and emb.ikbo_lce
// (out[b] = wCand @ cand[b] + wUser @ user[c2u[b]]). Both products of an
// output element go into one accumulator, rounded once at the store.
// cand_to_user is checked before anything is written.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"

embrtStatus embrtCpuLceWorkspaceSize(embrtContext *ctx,
                                     const embrtLceArgs *args, size_t *bytes) {
  *bytes = 0;
  return EMBRT_OK;
}

embrtStatus embrtCpuIkboLceWorkspaceSize(embrtContext *ctx,
                                         const embrtIkboLceArgs *args,
                                         size_t *bytes) {
  *bytes = 0;
  return EMBRT_OK;
}

/// acc + w[m, :K] @ x[:K, n] for a row-major w [M, K] with rows `ldw`
/// elements apart and x [K, N] (x given by its first element's index `xBase`).
static double dotColumnFrom(double acc, const void *w, int64_t w0,
                            const void *x, embrtDtype dtype, int64_t m,
                            int64_t n, int64_t K, int64_t ldw, int64_t N,
                            int64_t xBase, int inF32) {
  for (int64_t k = 0; k < K; ++k)
    acc = embrtCpuAccumulate(
        acc, embrtCpuLoad(w, dtype, m * ldw + w0 + k),
        x ? embrtCpuLoad(x, dtype, xBase + k * N + n) : 0.0, inF32);
  return acc;
}

/// acc + sum over k < K of w[m * ldw + w0 + k] * x[xBase + k * N + n]; a
/// NULL x reads zeros (a zero piece of the candidate embeddings).
static double dotColumn(double acc, const void *w, const void *x,
                        embrtDtype dtype, int64_t m, int64_t n, int64_t K,
                        int64_t ldw, int64_t N, int64_t xBase, int inF32) {
  return dotColumnFrom(acc, w, 0, x, dtype, m, n, K, ldw, N, xBase, inF32);
}

embrtStatus embrtCpuLce(embrtContext *ctx, const embrtLceArgs *args) {
  int64_t M = args->m, K = args->k, N = args->n;
  int inF32 = embrtCpuAccumulatesInF32(args->dtype);
  for (int64_t b = 0; b < args->batchSize; ++b)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = dotColumn(0.0, args->w, args->x, args->dtype, m, n, K, K,
                               N, b * K * N, inF32);
        embrtCpuStore(args->output, args->dtype, (b * M + m) * N + n, acc);
      }
  return EMBRT_OK;
}

embrtStatus embrtCpuIkboLce(embrtContext *ctx, const embrtIkboLceArgs *args) {
  for (int64_t b = 0; b < args->batchSize; ++b) {
    int64_t u = embrtLoadIndex(args->candToUser, args->indexDtype, b);
    if (u < 0 || u >= args->numUsers)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "ikbo_lce: cand_to_user[%lld] is %lld, outside the "
                           "%lld users",
                           (long long)b, (long long)u,
                           (long long)args->numUsers);
  }
  int64_t M = args->m, Ku = args->kUser, Kc = args->kCand, N = args->n;
  int64_t ldwUser = args->wUserStride ? args->wUserStride : Ku;
  int64_t ldwCand = args->wCandStride ? args->wCandStride : Kc;
  int inF32 = embrtCpuAccumulatesInF32(args->dtype);
  for (int64_t b = 0; b < args->batchSize; ++b) {
    int64_t u = embrtLoadIndex(args->candToUser, args->indexDtype, b);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0.0;
        if (args->numCandPieces == 0) {
          acc = dotColumn(0.0, args->wCand, args->cand, args->dtype, m, n, Kc,
                          ldwCand, N, b * Kc * N, inF32);
        } else {
          // The pieces in K order: the same sums in the same order.
          for (int64_t p = 0, k0 = 0; p < args->numCandPieces; ++p) {
            int64_t kp = args->candPieceK[p];
            acc = dotColumnFrom(acc, args->wCand, k0, args->candPieces[p],
                                args->dtype, m, n, kp, ldwCand, N, b * kp * N,
                                inF32);
            k0 += kp;
          }
        }
        acc = dotColumn(acc, args->wUser, args->user, args->dtype, m, n, Ku,
                        ldwUser, N, u * Ku * N, inF32);
        embrtCpuStore(args->output, args->dtype, (b * M + m) * N + n, acc);
      }
  }
  return EMBRT_OK;
}
