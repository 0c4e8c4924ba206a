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

/// How a product reads its operands: their storage dtype, the type each
/// element is rounded to first (F32: none), and whether it accumulates in f32.
typedef struct Operands {
  embrtDtype dtype, round;
  int inF32;
} Operands;

/// acc + w[m, :K] @ x[:K, n] for a row-major w [M, K] with rows `ldw`
/// elements apart and x [K, N] (x given by its first element's index `xBase`).
static double dotColumnFrom(double acc, const void *w, int64_t w0,
                            const void *x, Operands o, int64_t m, int64_t n,
                            int64_t K, int64_t ldw, int64_t N, int64_t xBase) {
  for (int64_t k = 0; k < K; ++k)
    acc = embrtCpuAccumulate(
        acc,
        embrtCpuRoundTo(embrtCpuLoad(w, o.dtype, m * ldw + w0 + k), o.round),
        x ? embrtCpuRoundTo(embrtCpuLoad(x, o.dtype, xBase + k * N + n),
                            o.round)
          : 0.0,
        o.inF32);
  return acc;
}

/// acc + sum over k < K of w[m * ldw + w0 + k] * x[xBase + k * N + n]; a
/// NULL x reads zeros (a zero piece of the candidate embeddings).
static double dotColumn(double acc, const void *w, const void *x, Operands o,
                        int64_t m, int64_t n, int64_t K, int64_t ldw, int64_t N,
                        int64_t xBase) {
  return dotColumnFrom(acc, w, 0, x, o, m, n, K, ldw, N, xBase);
}

embrtStatus embrtCpuLce(embrtContext *ctx, const embrtLceArgs *args) {
  int64_t M = args->m, K = args->k, N = args->n;
  Operands o = {args->dtype, EMBRT_F32, embrtCpuAccumulatesInF32(args->dtype)};
  for (int64_t b = 0; b < args->batchSize; ++b)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc =
            dotColumn(0.0, args->w, args->x, o, m, n, K, K, N, b * K * N);
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
  // With a computeDtype, every operand is read rounded to it, the sums run
  // in f32 as the f16/bf16 kernels' do, and the result is rounded to it once
  // before the f32 store.
  embrtDtype round = args->computeDtype;
  Operands o = {
      args->dtype, round,
      embrtCpuAccumulatesInF32(round != EMBRT_F32 ? round : args->dtype)};
  for (int64_t b = 0; b < args->batchSize; ++b) {
    int64_t u = embrtLoadIndex(args->candToUser, args->indexDtype, b);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double acc = 0.0;
        if (args->numCandPieces == 0) {
          acc = dotColumn(0.0, args->wCand, args->cand, o, m, n, Kc, ldwCand, N,
                          b * Kc * N);
        } else {
          // The pieces in K order: the same sums in the same order.
          for (int64_t p = 0, k0 = 0; p < args->numCandPieces; ++p) {
            int64_t kp = args->candPieceK[p];
            acc = dotColumnFrom(acc, args->wCand, k0, args->candPieces[p], o, m,
                                n, kp, ldwCand, N, b * kp * N);
            k0 += kp;
          }
        }
        acc = dotColumn(acc, args->wUser, args->user, o, m, n, Ku, ldwUser, N,
                        u * Ku * N);
        embrtCpuStore(args->output, args->dtype, (b * M + m) * N + n,
                      embrtCpuRoundTo(acc, round));
      }
  }
  return EMBRT_OK;
}
