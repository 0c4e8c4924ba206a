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
// With additiveMask (emb.attention's additive_mask), each (row, head) whose
// masked keys (j >= len) are finite and whose scores provably stay in the
// data type's range (additiveMaskSafe) is computed as above; any other is
// computed in PyTorch's math form over all Lk keys (mathAttention): q and
// k each scaled by sqrt(|scale|) and rounded to the data type, scores
// accumulated in f32 and rounded, -inf added at the masked keys, an f32
// softmax that gives zeros where every score is -inf, probabilities rounded
// to the data type, the second product accumulated in f32. The CUDA backend
// decides and computes the same way (kernels/attention_additive_mask.cu).
//
// The score row (Lk doubles) lives in the caller's workspace. cand_to_user
// and the lengths some candidate reads (user_lengths[cand_to_user[b]]) are
// checked before anything is written; the length of a user no candidate
// maps to is not read, so it may hold anything.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

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

//===----------------------------------------------------------------------===//
// The additive mask (embrtAttentionArgs::additiveMask)
//===----------------------------------------------------------------------===//

/// `x` rounded to the data type `dtype` (f32 included), as a float.
static float roundData(double x, embrtDtype dtype) {
  return dtype == EMBRT_F32 ? (float)x : (float)embrtCpuRoundTo(x, dtype);
}

static double dataMax(embrtDtype dtype) {
  return dtype == EMBRT_F16    ? 65504.0
         : dtype == EMBRT_BF16 ? 3.3895e38
                               : FLT_MAX;
}

/// True when (row b of user u, head h) computes the same with the lengths
/// alone as in the math form: every masked key of k and v is finite, and
/// with qmax and kmax the largest magnitudes of b's queries and u's masked
/// keys, q and k scaled by sqrt(|scale|) and their products summed over Dh
/// stay below the data type's largest value (margins for its rounding).
static bool additiveMaskSafe(const embrtAttentionArgs *args, int64_t b,
                             int64_t u, int64_t keys, int64_t h) {
  int64_t Lq = args->lq, Lk = args->lk, H = args->heads, Dh = args->headDim;
  double qmax = 0.0, kmax = 0.0;
  for (int64_t j = keys; j < Lk; ++j)
    for (int64_t d = 0; d < Dh; ++d) {
      int64_t at = ((u * Lk + j) * H + h) * Dh + d;
      double kx = embrtCpuLoad(args->k, args->dtype, at);
      double vx = embrtCpuLoad(args->v, args->dtype, at);
      if (!isfinite(kx) || !isfinite(vx))
        return false;
      kmax = fmax(kmax, fabs(kx));
    }
  for (int64_t i = 0; i < Lq; ++i)
    for (int64_t d = 0; d < Dh; ++d) {
      double qx =
          embrtCpuLoad(args->q, args->dtype, ((b * Lq + i) * H + h) * Dh + d);
      if (!isfinite(qx))
        return false;
      qmax = fmax(qmax, fabs(qx));
    }
  double top = dataMax(args->dtype), scale = fabs((double)args->scale);
  double r = sqrt(scale) > 1.0 ? sqrt(scale) : 1.0;
  return qmax * r * 1.01 < top && kmax * r * 1.01 < top &&
         (double)Dh * qmax * kmax * (scale > 1.0 ? scale : 1.0) * 1.03 < top;
}

/// Score j of query i in the math form (before the mask).
static float mathScore(const embrtAttentionArgs *args, int64_t qBase,
                       int64_t kBase, float r) {
  float acc = 0.0f;
  for (int64_t d = 0; d < args->headDim; ++d)
    acc += roundData(embrtCpuLoad(args->q, args->dtype, qBase + d) * r,
                     args->dtype) *
           roundData(embrtCpuLoad(args->k, args->dtype, kBase + d) * r,
                     args->dtype);
  float s = roundData(acc, args->dtype);
  return args->scale < 0.0f ? -s : s;
}

/// Query rows of (b, h) in PyTorch's math form over all Lk keys, keys at or
/// past `keys` masked by an added -inf. `scores` holds Lk values.
static void mathAttention(const embrtAttentionArgs *args, int64_t b, int64_t u,
                          int64_t keys, int64_t h, double *scores) {
  int64_t Lq = args->lq, Lk = args->lk, H = args->heads, Dh = args->headDim;
  embrtDtype dtype = args->dtype;
  float r = sqrtf(fabsf(args->scale));
  for (int64_t i = 0; i < Lq; ++i) {
    int64_t qBase = ((b * Lq + i) * H + h) * Dh;
    bool allMasked = true, nan = false;
    float maxScore = -INFINITY;
    for (int64_t j = 0; j < Lk; ++j) {
      float s = mathScore(args, qBase, ((u * Lk + j) * H + h) * Dh, r);
      if (j >= keys)
        s += -INFINITY; // NaN where s is NaN or +inf
      scores[j] = s;
      allMasked &= s == -INFINITY;
      nan |= isnan(s);
      maxScore = fmaxf(maxScore, s);
    }
    float sum = 0.0f;
    for (int64_t j = 0; j < Lk && !allMasked; ++j)
      sum += expf((float)scores[j] - (nan ? NAN : maxScore));
    for (int64_t j = 0; j < Lk; ++j)
      scores[j] =
          allMasked
              ? 0.0f
              : roundData(expf((float)scores[j] - (nan ? NAN : maxScore)) / sum,
                          dtype);
    for (int64_t d = 0; d < Dh; ++d) {
      float acc = 0.0f;
      for (int64_t j = 0; j < Lk; ++j)
        acc += (float)scores[j] *
               (float)embrtCpuLoad(args->v, dtype,
                                   ((u * Lk + j) * H + h) * Dh + d);
      embrtCpuStore(args->output, dtype, qBase + d, roundData(acc, dtype));
    }
  }
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

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
    for (int64_t h = 0; h < H; ++h) {
      if (args->additiveMask && !additiveMaskSafe(args, b, u, keys, h)) {
        mathAttention(args, b, u, keys, h, scores);
        continue;
      }
      for (int64_t i = 0; i < Lq; ++i) {
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
  }
  return EMBRT_OK;
}
