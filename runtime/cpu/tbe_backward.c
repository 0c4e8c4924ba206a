//===- runtime/cpu/tbe_backward.c - The fused backward on the CPU -*- C -*-===//
//
// The reference emb.tbe_backward (and, through it, emb.embedding_bag_backward).
// Every bag position whose id is a row of its feature's table (not padding,
// not outside the table) contributes its gradient row, scaled by its
// per-sample weight (SUM) or by 1 / the bag's count of contributing ids
// (MEAN), to that (table, row); pooling NONE contributes the position's own
// gradient row. The positions are listed with their (table, row) key, sorted
// by key and position (the workspace holds the list), and each run of one
// key is summed in f64 in position order; the optimizer then updates the row
// once, in f64:
//
//   SGD              w -= lr * (g + wd * w)
//   rowwise Adagrad  g' = g + wd * w; s += mean(g'^2); w -= lr * g' / (sqrt(s)
//                    + eps)
//   Adam             m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
//                    w -= lr * ((m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
//                    + wd * w)
//
// Rows are stored rounded to f32 (nearest), then f16 and bf16 rows are
// rounded stochastically with the seeded hash the GPU uses
// (kernels/stochastic_rounding.h): the same f32 value gives the same bits on
// both; the f32 values themselves may differ by the GPU's f32 accumulation.
// States are stored at their precision (embrtStatePrecision): f32 rounded
// to nearest; bf16 and fp8 from their f32 value rounded stochastically with
// the same hash (a stream of their own per state, row and column). An fp8
// Adam row gets a new scale, its largest magnitude over the format's
// largest value; rowwise Adagrad's fp8 state divides by its table's scale.
//
// Data errors are found before anything is written, as in the forward:
// invalid offsets always, the first out-of-range id under
// EMBRT_BOUNDS_FATAL. On EMBRT_OUT_OF_RANGE tables and states are untouched.
//
//===----------------------------------------------------------------------===//

#include "kernels/stochastic_rounding.h"
#include "runtime/cpu/cpu.h"

#include <math.h>
#include <stdlib.h>

/// One contributing position: its (table, row) key, where it is, where its
/// gradient row starts and how it is scaled.
typedef struct Entry {
  int64_t key, pos, gradBase;
  double scale;
} Entry;

/// Workspace: the entries, the T key bases, three f64 rows (the gradient,
/// the weights, Adam's f32 m and v).
static size_t entriesBytes(const embrtTbeBackwardArgs *args) {
  return (size_t)args->lookup.numIndices * sizeof(Entry);
}

embrtStatus embrtCpuTbeBackwardWorkspaceSize(embrtContext *ctx,
                                             const embrtTbeBackwardArgs *args,
                                             size_t *bytes) {
  *bytes = entriesBytes(args) +
           (size_t)(args->lookup.numTables + 1) * sizeof(int64_t) +
           3 * EMBRT_MAX_TABLE_DIM * sizeof(double);
  return EMBRT_OK;
}

/// Whether id `id` of a table of `rows` rows contributes (0: padding or
/// outside the table), and whether it is outside the table.
static int contributes(const embrtTbeArgs *l, int64_t id, int64_t rows,
                       int *outside) {
  *outside = 0;
  if (l->hasPaddingIdx && id == l->paddingIdx)
    return 0;
  if (id < 0 || id >= rows) {
    *outside = 1;
    return 0;
  }
  return 1;
}

static int compareEntries(const void *a, const void *b) {
  const Entry *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/// Lists the contributing positions; counts and notes out-of-range ids.
/// Returns the number of entries.
static int64_t listEntries(const embrtTbeBackwardArgs *args,
                           const int64_t *keyBase, Entry *entries,
                           int64_t *badCount, int64_t bad[6]) {
  const embrtTbeArgs *l = &args->lookup;
  int64_t B = l->batchSize, n = 0, column = 0, sumDims = 0;
  for (int64_t f = 0; f < l->numFeatures; ++f)
    sumDims += l->tableDims[l->featureTables[f]];
  // Elements from one gradient row to the next (checked: 0 or the width
  // at least).
  const int none = l->pooling == EMBRT_POOLING_NONE;
  const int64_t pitch = args->gradRowStride ? args->gradRowStride
                        : none && l->numFeatures
                            ? l->tableDims[l->featureTables[0]]
                            : sumDims;
  for (int64_t f = 0; f < l->numFeatures; ++f) {
    int64_t t = l->featureTables[f], rows = l->tableRows[t];
    int64_t D = l->tableDims[t];
    for (int64_t b = 0; b < B; ++b) {
      int64_t begin = embrtLoadIndex(l->offsets, l->offsetDtype, f * B + b);
      int64_t end = embrtLoadIndex(l->offsets, l->offsetDtype, f * B + b + 1);
      int64_t count = 0;
      int outside;
      for (int64_t i = begin; i < end; ++i)
        count += contributes(l, embrtLoadIndex(l->indices, l->indexDtype, i),
                             rows, &outside);
      for (int64_t i = begin; i < end; ++i) {
        int64_t id = embrtLoadIndex(l->indices, l->indexDtype, i);
        if (!contributes(l, id, rows, &outside)) {
          if (outside && (*badCount)++ == 0) {
            bad[0] = f;
            bad[1] = b;
            bad[2] = id;
            bad[3] = t;
            bad[4] = rows;
            bad[5] = i;
          }
          continue;
        }
        Entry *e = &entries[n++];
        e->key = keyBase[t] + id;
        e->pos = i;
        e->gradBase = none ? i * pitch : b * pitch + column;
        e->scale = 1.0;
        if (l->perSampleWeights)
          e->scale =
              embrtCpuLoad(l->perSampleWeights, l->perSampleWeightDtype, i);
        else if (l->pooling == EMBRT_POOLING_MEAN)
          e->scale = 1.0 / (double)count;
      }
    }
    column += D;
  }
  return n;
}

/// Stores the updated row `w` (f64) as the table's dtype: f32 to nearest,
/// f16 and bf16 through f32 with stochastic rounding.
static void storeRow(const embrtTbeBackwardArgs *args, int64_t t, int64_t row,
                     const double *w, int64_t D) {
  const embrtTbeArgs *l = &args->lookup;
  void *table = (void *)l->tables[t];
  int64_t step = args->step ? *args->step : 0;
  uint32_t rowSeed = embSrRowSeed(embSrStepSeed(args->seed, step), t, row);
  for (int64_t d = 0; d < D; ++d) {
    float x = (float)w[d];
    switch (l->tableDtype) {
    case EMBRT_F16:
      ((uint16_t *)table)[row * D + d] =
          embSrToF16(x, embSrColumnBits(rowSeed, (uint32_t)d));
      break;
    case EMBRT_BF16:
      ((uint16_t *)table)[row * D + d] =
          embSrToBF16(x, embSrColumnBits(rowSeed, (uint32_t)d));
      break;
    default:
      ((float *)table)[row * D + d] = x;
      break;
    }
  }
}

/// Element i of a state of `precision` (embrtStatePrecision) as f32, times
/// `scale` for fp8.
static float loadState(embrtStatePrecision precision, const void *state,
                       int64_t i, float scale) {
  uint32_t bits;
  switch (precision) {
  case EMBRT_STATE_BF16:
    bits = ((const uint16_t *)state)[i];
    break;
  case EMBRT_STATE_FP8_E4M3:
  case EMBRT_STATE_FP8_E5M2:
    bits = ((const uint8_t *)state)[i];
    break;
  default:
    bits = ((const uint32_t *)state)[i];
    break;
  }
  return embStateDecode((int)precision, bits, scale);
}

/// Stores `x` as element i of a state of `precision`: f32 to nearest, bf16
/// and fp8 (of x / scale) stochastically with random bits `r`.
static void storeState(embrtStatePrecision precision, void *state, int64_t i,
                       float x, float scale, uint32_t r) {
  uint32_t bits = embStateEncode((int)precision, x, scale, r);
  switch (precision) {
  case EMBRT_STATE_BF16:
    ((uint16_t *)state)[i] = (uint16_t)bits;
    break;
  case EMBRT_STATE_FP8_E4M3:
  case EMBRT_STATE_FP8_E5M2:
    ((uint8_t *)state)[i] = (uint8_t)bits;
    break;
  default:
    ((uint32_t *)state)[i] = bits;
    break;
  }
}

static int isFp8(embrtStatePrecision precision) {
  return precision == EMBRT_STATE_FP8_E4M3 || precision == EMBRT_STATE_FP8_E5M2;
}

/// The random stream of state `which` (1 or 2) of row `row` of table `t`.
static uint32_t stateRowSeed(const embrtTbeBackwardArgs *args, int which,
                             int64_t t, int64_t row) {
  int64_t step = args->step ? *args->step : 0;
  return embSrRowSeed(embSrStepSeed(embSrStateSeed(args->seed, which), step), t,
                      row);
}

/// Stores Adam's updated state row `x` (D values, f32) of state `which`:
/// for fp8 first the row's new scale, its largest magnitude over the
/// format's largest value.
static void storeStateRow(const embrtTbeBackwardArgs *args, int which,
                          int64_t t, int64_t row, const float *x, int64_t D) {
  embrtStatePrecision precision =
      which == 1 ? args->momentum1Precision : args->momentum2Precision;
  void *state = which == 1 ? args->momentum1[t] : args->momentum2[t];
  float scale = 1.0f;
  if (isFp8(precision)) {
    float amax = 0.0f;
    for (int64_t d = 0; d < D; ++d)
      amax = fmaxf(amax, fabsf(x[d]));
    scale = embStateRowScale((int)precision, amax);
    float *scales = (float *)(which == 1 ? args->momentum1Scales
                                         : args->momentum2Scales)[t];
    scales[row] = scale;
  }
  uint32_t rowSeed = stateRowSeed(args, which, t, row);
  for (int64_t d = 0; d < D; ++d)
    storeState(precision, state, row * D + d, x[d], scale,
               embSrColumnBits(rowSeed, (uint32_t)d));
}

/// The scale of Adam's state `which` of row `row` of table `t` (1 unless
/// fp8).
static float adamRowScale(const embrtTbeBackwardArgs *args, int which,
                          int64_t t, int64_t row) {
  embrtStatePrecision precision =
      which == 1 ? args->momentum1Precision : args->momentum2Precision;
  if (!isFp8(precision))
    return 1.0f;
  return ((const float *)(which == 1 ? args->momentum1Scales
                                     : args->momentum2Scales)[t])[row];
}

/// Applies the optimizer to row `row` of table `t` with gradient `g`;
/// `w` is scratch for D values.
static void update(const embrtTbeBackwardArgs *args, int64_t t, int64_t row,
                   const double *g, double *w) {
  const embrtTbeArgs *l = &args->lookup;
  int64_t D = l->tableDims[t];
  const float *h = args->hyperParams;
  double lr = h[EMBRT_HYPER_LEARNING_RATE], eps = h[EMBRT_HYPER_EPS];
  double b1 = h[EMBRT_HYPER_BETA1], b2 = h[EMBRT_HYPER_BETA2];
  double wd = h[EMBRT_HYPER_WEIGHT_DECAY];
  for (int64_t d = 0; d < D; ++d)
    w[d] = embrtCpuLoad(l->tables[t], l->tableDtype, row * D + d);

  switch (args->optimizer) {
  case EMBRT_OPTIMIZER_SGD:
    for (int64_t d = 0; d < D; ++d)
      w[d] -= lr * (g[d] + wd * w[d]);
    break;
  case EMBRT_OPTIMIZER_ROWWISE_ADAGRAD: {
    embrtStatePrecision precision = args->momentum1Precision;
    float stateScale =
        isFp8(precision) ? *(const float *)args->momentum1Scales[t] : 1.0f;
    double sum = 0;
    for (int64_t d = 0; d < D; ++d) {
      double gd = g[d] + wd * w[d];
      sum += gd * gd;
    }
    double s =
        (double)loadState(precision, args->momentum1[t], row, stateScale) +
        sum / (double)D;
    double scale = lr / (sqrt(s) + eps);
    for (int64_t d = 0; d < D; ++d)
      w[d] -= scale * (g[d] + wd * w[d]);
    storeState(precision, args->momentum1[t], row, (float)s, stateScale,
               embSrColumnBits(stateRowSeed(args, 1, t, row), 0));
    break;
  }
  case EMBRT_OPTIMIZER_ADAM: {
    // m and v of the row as f32 (the values the states round from) live
    // in the f64 scratch beyond w's D entries.
    float *m = (float *)(w + D), *v = m + D;
    float mScale = adamRowScale(args, 1, t, row);
    float vScale = adamRowScale(args, 2, t, row);
    double step = (double)*args->step;
    double c1 = 1.0 - pow(b1, step), c2 = 1.0 - pow(b2, step);
    for (int64_t d = 0; d < D; ++d) {
      int64_t i = row * D + d;
      double md = b1 * loadState(args->momentum1Precision, args->momentum1[t],
                                 i, mScale) +
                  (1.0 - b1) * g[d];
      double vd = b2 * loadState(args->momentum2Precision, args->momentum2[t],
                                 i, vScale) +
                  (1.0 - b2) * g[d] * g[d];
      w[d] -= lr * ((md / c1) / (sqrt(vd / c2) + eps) + wd * w[d]);
      m[d] = (float)md;
      v[d] = (float)vd;
    }
    storeStateRow(args, 1, t, row, m, D);
    storeStateRow(args, 2, t, row, v, D);
    break;
  }
  }
  storeRow(args, t, row, w, D);
}

embrtStatus embrtCpuTbeBackward(embrtContext *ctx, const char *op,
                                const embrtTbeBackwardArgs *args) {
  const embrtTbeArgs *l = &args->lookup;
  if (l->numFeatures > 0 && l->batchSize > 0) {
    embrtStatus status = embrtCpuCheckTbeOffsets(ctx, op, l);
    if (status != EMBRT_OK)
      return status;
  }

  // The workspace: entries, key bases (table t's rows are keys
  // keyBase[t] .. keyBase[t + 1] - 1), then three rows of f64.
  Entry *entries = (Entry *)args->workspace;
  int64_t *keyBase = (int64_t *)((char *)args->workspace + entriesBytes(args));
  double *g = (double *)(keyBase + l->numTables + 1),
         *w = g + EMBRT_MAX_TABLE_DIM;
  keyBase[0] = 0;
  for (int64_t t = 0; t < l->numTables; ++t)
    keyBase[t + 1] = keyBase[t] + l->tableRows[t];

  int64_t badCount = 0, bad[6] = {0};
  int64_t n = listEntries(args, keyBase, entries, &badCount, bad);
  char where[160];
  if (badCount > 0)
    embrtCpuDescribeBadId(where, sizeof where, op, bad[0], bad[1], bad[2],
                          bad[3], bad[4], bad[5]);
  if (badCount > 0 && l->boundsCheck == EMBRT_BOUNDS_FATAL)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE, "%s: %s", op, where);

  qsort(entries, (size_t)n, sizeof(Entry), compareEntries);
  int64_t t = 0;
  for (int64_t begin = 0, end; begin < n; begin = end) {
    int64_t key = entries[begin].key;
    while (keyBase[t + 1] <= key)
      ++t;
    int64_t D = l->tableDims[t];
    for (int64_t d = 0; d < D; ++d)
      g[d] = 0.0;
    for (end = begin; end < n && entries[end].key == key; ++end)
      for (int64_t d = 0; d < D; ++d)
        g[d] +=
            entries[end].scale * embrtCpuLoad(args->gradOutput, args->gradDtype,
                                              entries[end].gradBase + d);
    update(args, t, key - keyBase[t], g, w);
  }

  if (badCount > 0 && l->boundsCheck == EMBRT_BOUNDS_WARNING) {
    embrtCpuNoteSkippedIds(ctx, op, badCount, where);
  }
  return EMBRT_OK;
}
