//===- runtime/cpu/tbe.c - Table-batched lookups on the CPU -------*- C -*-===//
//
// The reference emb.tbe (and, through it, emb.embedding_bag): for feature f
// and bag b, the rows indices[offsets[f*B+b] : offsets[f*B+b+1]] of table
// featureTables[f] are summed (weighted by perSampleWeights), averaged over
// the ids that contributed, or copied out one row per index (pooling NONE).
//
// Data errors are found before anything is written: invalid offsets always,
// and under EMBRT_BOUNDS_FATAL the first out-of-range id (lowest feature,
// bag, position). On EMBRT_OUT_OF_RANGE the output is untouched.
//
// With maskedOffsets, any offsets are valid: a bag is the positions its
// offsets mask (embrtTbeArgs::maskedOffsets), every id is checked, and a
// mean divides by the offsets' difference.
//
// An id equal to paddingIdx contributes nothing and is not counted (not an
// error, not part of a mean). An out-of-range id contributes nothing in
// every mode; under EMBRT_BOUNDS_NONE the caller promised there are none,
// and this backend still skips them to stay memory safe.
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"
#include "runtime/quantize.h"

#include <stdio.h>
#include <string.h>

embrtStatus embrtCpuTbeWorkspaceSize(embrtContext *ctx,
                                     const embrtTbeArgs *args, size_t *bytes) {
  *bytes = 0;
  return EMBRT_OK;
}

/// The offsets of a lookup with feature ends (embrtTbeArgs::featureEnds),
/// feature by feature as F separate bags check theirs, in each feature's
/// own numbers (offsets[f*B + b] less where its ids start): the first is
/// 0, none decreases, none is past the feature's ids, the last (its own,
/// featureEnds[F + f]) is its id count. The ends themselves must not
/// decrease and must end at numIndices; every offset then lies in
/// [0, numIndices] and none decreases, which the lookup relies on.
/// `raw` less `start` (>= 0), saturated at INT64_MIN: an offset in a
/// feature's own numbers.
static int64_t ownOffset(int64_t raw, int64_t start) {
  return raw < INT64_MIN + start ? INT64_MIN : raw - start;
}

static embrtStatus checkFeatureOffsets(embrtContext *ctx, const char *op,
                                       const embrtTbeArgs *args) {
  int64_t B = args->batchSize, F = args->numFeatures, N = args->numIndices;
  const void *ends = args->featureEnds;
  embrtDtype dt = args->offsetDtype;
  int64_t start = 0;
  for (int64_t f = 0; f < F; ++f) {
    int64_t end = embrtLoadIndex(ends, dt, f);
    if (end < start || end > N || (f + 1 == F && end != N))
      return embrtSetError(
          ctx, EMBRT_OUT_OF_RANGE,
          "%s: featureEnds[%lld] is %lld, outside %lld..%lld (the features' "
          "ids end in order, the last at numIndices %lld)",
          op, (long long)f, (long long)end, (long long)start, (long long)N,
          (long long)N);
    start = end;
  }
  start = 0;
  for (int64_t f = 0; f < F; ++f) {
    int64_t end = embrtLoadIndex(ends, dt, f), count = end - start;
    int64_t first = ownOffset(embrtLoadIndex(args->offsets, dt, f * B), start);
    if (first != 0)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "%s: feature %lld: its offsets[0] is %lld, must be "
                           "0",
                           op, (long long)f, (long long)first);
    int64_t previous = 0;
    for (int64_t b = 1; b <= B; ++b) {
      int64_t offset =
          b < B ? ownOffset(embrtLoadIndex(args->offsets, dt, f * B + b), start)
                : embrtLoadIndex(ends, dt, F + f);
      if (offset < previous)
        return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                             "%s: feature %lld bag %lld: its offsets[%lld] is "
                             "%lld, below its offsets[%lld] = %lld",
                             op, (long long)f, (long long)(b - 1), (long long)b,
                             (long long)offset, (long long)(b - 1),
                             (long long)previous);
      if (offset > count)
        return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                             "%s: feature %lld bag %lld: its offsets[%lld] is "
                             "%lld, past its %lld indices",
                             op, (long long)f, (long long)(b - 1), (long long)b,
                             (long long)offset, (long long)count);
      previous = offset;
    }
    if (previous != count)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "%s: feature %lld: its offsets[%lld] (the last) is "
                           "%lld, must equal its %lld indices",
                           op, (long long)f, (long long)B, (long long)previous,
                           (long long)count);
    start = end;
  }
  // The lookup's own last offset ends the last feature's last bag.
  int64_t last = embrtLoadIndex(args->offsets, dt, F * B);
  if (last != N)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: offsets[%lld] (the last) is %lld, must equal "
                         "numIndices %lld",
                         op, (long long)(F * B), (long long)last, (long long)N);
  return EMBRT_OK;
}

embrtStatus embrtCpuCheckTbeOffsets(embrtContext *ctx, const char *op,
                                    const embrtTbeArgs *args) {
  if (args->featureEnds && args->numFeatures > 0)
    return checkFeatureOffsets(ctx, op, args);
  int64_t B = args->batchSize, numBags = args->numFeatures * B;
  int64_t N = args->numIndices;
  int64_t previous = embrtLoadIndex(args->offsets, args->offsetDtype, 0);
  if (previous != 0)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: offsets[0] is %lld, must be 0", op,
                         (long long)previous);
  for (int64_t i = 1; i <= numBags; ++i) {
    int64_t offset = embrtLoadIndex(args->offsets, args->offsetDtype, i);
    long long feature = (long long)((i - 1) / B),
              bag = (long long)((i - 1) % B);
    if (offset < previous)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "%s: feature %lld bag %lld: offsets[%lld] is %lld, "
                           "below offsets[%lld] = %lld",
                           op, feature, bag, (long long)i, (long long)offset,
                           (long long)(i - 1), (long long)previous);
    if (offset > N)
      return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                           "%s: feature %lld bag %lld: offsets[%lld] is %lld, "
                           "past the %lld indices",
                           op, feature, bag, (long long)i, (long long)offset,
                           (long long)N);
    previous = offset;
  }
  if (previous != N)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                         "%s: offsets[%lld] (the last) is %lld, must equal "
                         "numIndices %lld",
                         op, (long long)numBags, (long long)previous,
                         (long long)N);
  return EMBRT_OK;
}

/// What one id does in a lookup.
typedef enum IdKind { ID_ROW, ID_PADDING, ID_OUT_OF_RANGE } IdKind;

static IdKind classify(const embrtTbeArgs *args, int64_t id, int64_t rows) {
  if (args->hasPaddingIdx && id == args->paddingIdx)
    return ID_PADDING;
  return id < 0 || id >= rows ? ID_OUT_OF_RANGE : ID_ROW;
}

/// The first out-of-range id of a lookup, for messages.
typedef struct BadId {
  int64_t count;
  int64_t feature, bag, id, table, rows, position;
} BadId;

static void noteBadId(BadId *bad, int64_t feature, int64_t bag, int64_t id,
                      int64_t table, int64_t rows, int64_t position) {
  if (bad->count++ > 0)
    return;
  bad->feature = feature;
  bad->bag = bag;
  bad->id = id;
  bad->table = table;
  bad->rows = rows;
  bad->position = position;
}

void embrtCpuDescribeBadId(char *buffer, size_t size, const char *op,
                           int64_t feature, int64_t bag, int64_t id,
                           int64_t table, int64_t rows, int64_t position) {
  if (strncmp(op, "embedding_bag", strlen("embedding_bag")) == 0)
    snprintf(buffer, size,
             "bag %lld: id %lld is outside weight (%lld rows), at "
             "indices[%lld]",
             (long long)bag, (long long)id, (long long)rows,
             (long long)position);
  else
    snprintf(buffer, size,
             "feature %lld bag %lld: id %lld is outside table %lld (%lld "
             "rows), at indices[%lld]",
             (long long)feature, (long long)bag, (long long)id,
             (long long)table, (long long)rows, (long long)position);
}

void embrtCpuNoteSkippedIds(embrtContext *ctx, const char *op, int64_t count,
                            const char *where) {
  ctx->invalidIdCount += count;
  embrtSetNote(ctx,
               "%s: skipped %lld ids outside their tables (bounds check "
               "warning); the first: %s",
               op, (long long)count, where);
}

/// Visits every id in feature/bag order and notes the out-of-range ones.
static void scanIds(const embrtTbeArgs *args, BadId *bad) {
  int64_t B = args->batchSize;
  for (int64_t f = 0; f < args->numFeatures; ++f) {
    int64_t t = args->featureTables[f], rows = args->tableRows[t];
    for (int64_t b = 0; b < B; ++b) {
      int64_t begin =
          embrtLoadIndex(args->offsets, args->offsetDtype, f * B + b);
      int64_t end =
          embrtLoadIndex(args->offsets, args->offsetDtype, f * B + b + 1);
      for (int64_t i = begin; i < end; ++i) {
        int64_t id = embrtLoadIndex(args->indices, args->indexDtype, i);
        if (classify(args, id, rows) == ID_OUT_OF_RANGE)
          noteBadId(bad, f, b, id, t, rows, i);
      }
    }
  }
}

/// Table t's storage precision.
static embrtTablePrecision precisionOf(const embrtTbeArgs *args, int64_t t) {
  return args->tablePrecisions ? (embrtTablePrecision)args->tablePrecisions[t]
                               : EMBRT_PRECISION_DENSE;
}

/// Whether table t's pooled bags sum their rows' products scale * q and,
/// apart, their biases (int8, int4, int2: embrtDecodeRowProducts), as the
/// CUDA kernels do.
static int biasApart(const embrtTbeArgs *args, int64_t t) {
  embrtTablePrecision p = precisionOf(args, t);
  return p != EMBRT_PRECISION_DENSE && p != EMBRT_PRECISION_FP8;
}

/// Row `id` of table t, D values: its elements, or a quantized row decoded
/// to f32 (runtime/quantize.h). With `bias`, a biasApart table's row reads
/// as its products and its bias.
static void readRow(const embrtTbeArgs *args, int64_t t, int64_t id,
                    double *row, double *bias) {
  int64_t D = args->tableDims[t];
  embrtTablePrecision p = precisionOf(args, t);
  if (p == EMBRT_PRECISION_DENSE) {
    for (int64_t d = 0; d < D; ++d)
      row[d] = embrtCpuLoad(args->tables[t], args->tableDtype, id * D + d);
    return;
  }
  float decoded[EMBRT_MAX_TABLE_DIM];
  const uint8_t *bytes =
      (const uint8_t *)args->tables[t] + id * embrtQuantizedRowBytes(p, D);
  if (bias) {
    float b;
    embrtDecodeRowProducts(p, bytes, D, decoded, &b);
    *bias = b;
  } else {
    embrtDecodeRow(p, bytes, D, decoded);
  }
  for (int64_t d = 0; d < D; ++d)
    row[d] = decoded[d];
}

/// Whether table t's rows are summed in f32: 16-bit and quantized tables.
static int summedInF32(const embrtTbeArgs *args, int64_t t) {
  if (precisionOf(args, t) != EMBRT_PRECISION_DENSE)
    return 1;
  return embrtCpuAccumulatesInF32(args->tableDtype);
}

/// Pools the ids at positions [begin, end) of feature f into
/// output[outputBase : outputBase + D]. The rows of a biasApart table add
/// their products to the elements and their biases to one sum, added to
/// every element at the end (each step rounded to f32). A mean divides by
/// `divisor`, or by the count of the ids that contributed when it is 0.
static void poolRange(const embrtTbeArgs *args, int64_t f, int64_t begin,
                      int64_t end, double divisor, void *output,
                      int64_t outputBase) {
  int64_t t = args->featureTables[f];
  int64_t rows = args->tableRows[t], D = args->tableDims[t];
  int inF32 = summedInF32(args, t), apart = biasApart(args, t);

  double acc[EMBRT_MAX_TABLE_DIM], row[EMBRT_MAX_TABLE_DIM];
  for (int64_t d = 0; d < D; ++d)
    acc[d] = 0.0;
  int64_t count = 0;
  double biasSum = 0.0, bias = 0.0;
  for (int64_t i = begin; i < end; ++i) {
    int64_t id = embrtLoadIndex(args->indices, args->indexDtype, i);
    if (classify(args, id, rows) != ID_ROW)
      continue;
    double weight = args->perSampleWeights
                        ? embrtCpuLoad(args->perSampleWeights,
                                       args->perSampleWeightDtype, i)
                        : 1.0;
    readRow(args, t, id, row, apart ? &bias : NULL);
    for (int64_t d = 0; d < D; ++d)
      acc[d] = embrtCpuAccumulate(acc[d], weight, row[d], inF32);
    if (apart)
      biasSum = embrtCpuAccumulate(biasSum, weight, bias, 1);
    ++count;
  }
  for (int64_t d = 0; d < D; ++d) {
    double value = apart ? embrtCpuAccumulate(acc[d], 1.0, biasSum, 1) : acc[d];
    if (args->pooling == EMBRT_POOLING_MEAN && divisor > 0.0)
      value /= divisor;
    else if (args->pooling == EMBRT_POOLING_MEAN) // no counted id: zeros
      value = count > 0 ? value / (double)count : 0.0;
    embrtCpuStore(output, args->outputDtype, outputBase + d, value);
  }
}

/// Pools bag b of feature f (its ids indices[offsets[f*B+b] :
/// offsets[f*B+b+1]]) into output[outputBase : outputBase + D].
static void poolBag(const embrtTbeArgs *args, int64_t f, int64_t b,
                    void *output, int64_t outputBase) {
  int64_t slot = f * args->batchSize + b;
  poolRange(args, f, embrtLoadIndex(args->offsets, args->offsetDtype, slot),
            embrtLoadIndex(args->offsets, args->offsetDtype, slot + 1), 0.0,
            output, outputBase);
}

//===----------------------------------------------------------------------===//
// Masked offsets (embrtTbeArgs::maskedOffsets)
//===----------------------------------------------------------------------===//

/// `a - b` wrapping in the offsets' width (`dt`): the difference of two
/// offsets as the model computed it.
static int64_t wrappingDifference(int64_t a, int64_t b, embrtDtype dt) {
  uint64_t d = (uint64_t)a - (uint64_t)b;
  return dt == EMBRT_I32 ? (int64_t)(int32_t)(uint32_t)d : (int64_t)d;
}

/// Where feature f's ids start in `indices` (0 without feature ends).
static int64_t featureStart(const embrtTbeArgs *args, int64_t f) {
  return args->featureEnds && f > 0
             ? embrtLoadIndex(args->featureEnds, args->offsetDtype, f - 1)
             : 0;
}

/// Where feature f's ids end in `indices`.
static int64_t featureEnd(const embrtTbeArgs *args, int64_t f) {
  return args->featureEnds
             ? embrtLoadIndex(args->featureEnds, args->offsetDtype, f)
             : args->numIndices;
}

/// Offset k (0..B) of feature f in its own numbers, as its bag had it.
static int64_t maskedOffset(const embrtTbeArgs *args, int64_t f, int64_t k) {
  int64_t B = args->batchSize;
  embrtDtype dt = args->offsetDtype;
  if (args->featureEnds && k == B)
    return embrtLoadIndex(args->featureEnds, dt, args->numFeatures + f);
  int64_t raw = embrtLoadIndex(args->offsets, dt, f * B + k);
  return wrappingDifference(raw, featureStart(args, f), dt);
}

/// The lookup under masked offsets: every id of every feature is checked
/// (in a bag or not), then bag b of feature f pools the feature's positions
/// j with lo <= j < hi, clamped to the feature's ids.
static embrtStatus maskedForward(embrtContext *ctx, const char *op,
                                 const embrtTbeArgs *args) {
  int64_t F = args->numFeatures, B = args->batchSize;
  if (args->featureEnds) {
    // Where the features' ids end is emb's own layout, not the model's
    // offsets: checked as ever.
    int64_t start = 0;
    for (int64_t f = 0; f < F; ++f) {
      int64_t end = featureEnd(args, f);
      if (end < start || end > args->numIndices ||
          (f + 1 == F && end != args->numIndices))
        return embrtSetError(
            ctx, EMBRT_OUT_OF_RANGE,
            "%s: featureEnds[%lld] is %lld, outside %lld..%lld (the "
            "features' ids end in order, the last at numIndices %lld)",
            op, (long long)f, (long long)end, (long long)start,
            (long long)args->numIndices, (long long)args->numIndices);
      start = end;
    }
  }
  int64_t badCount = 0;
  char where[160] = "";
  if (args->boundsCheck == EMBRT_BOUNDS_FATAL ||
      args->boundsCheck == EMBRT_BOUNDS_WARNING) {
    for (int64_t f = 0; f < F; ++f) {
      int64_t t = args->featureTables[f], rows = args->tableRows[t];
      for (int64_t i = featureStart(args, f); i < featureEnd(args, f); ++i) {
        int64_t id = embrtLoadIndex(args->indices, args->indexDtype, i);
        if (classify(args, id, rows) != ID_OUT_OF_RANGE || badCount++ > 0)
          continue;
        if (strncmp(op, "embedding_bag", strlen("embedding_bag")) == 0)
          snprintf(where, sizeof where,
                   "id %lld is outside weight (%lld rows), at indices[%lld]",
                   (long long)id, (long long)rows, (long long)i);
        else
          snprintf(where, sizeof where,
                   "feature %lld: id %lld is outside table %lld (%lld rows), "
                   "at indices[%lld]",
                   (long long)f, (long long)id, (long long)t, (long long)rows,
                   (long long)i);
      }
    }
  }
  if (badCount > 0 && args->boundsCheck == EMBRT_BOUNDS_FATAL)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE, "%s: %s", op, where);

  int64_t rowWidth = 0;
  for (int64_t f = 0; f < F; ++f)
    rowWidth += args->tableDims[args->featureTables[f]];
  int64_t column = 0;
  for (int64_t f = 0; f < F; ++f) {
    int64_t start = featureStart(args, f);
    int64_t count = featureEnd(args, f) - start;
    int64_t lo = maskedOffset(args, f, 0);
    for (int64_t b = 0; b < B; ++b) {
      int64_t hi = maskedOffset(args, f, b + 1);
      int64_t begin = lo < 0 ? 0 : lo > count ? count : lo;
      int64_t end = hi < begin ? begin : hi > count ? count : hi;
      int64_t length = wrappingDifference(hi, lo, args->offsetDtype);
      poolRange(args, f, start + begin, start + end,
                length > 1 ? (double)length : 1.0, args->output,
                b * rowWidth + column);
      lo = hi;
    }
    column += args->tableDims[args->featureTables[f]];
  }
  if (badCount > 0) { // EMBRT_BOUNDS_WARNING
    embrtCpuNoteSkippedIds(ctx, op, badCount, where);
  }
  return EMBRT_OK;
}

/// Copies the rows of the ids of feature f to their output rows (zeros for
/// padding and out-of-range ids).
static void copyRows(const embrtTbeArgs *args, int64_t f) {
  int64_t t = args->featureTables[f];
  int64_t rows = args->tableRows[t], D = args->tableDims[t];
  int64_t B = args->batchSize;
  int64_t begin = embrtLoadIndex(args->offsets, args->offsetDtype, f * B);
  int64_t end = embrtLoadIndex(args->offsets, args->offsetDtype, (f + 1) * B);
  for (int64_t i = begin; i < end; ++i) {
    int64_t id = embrtLoadIndex(args->indices, args->indexDtype, i);
    double row[EMBRT_MAX_TABLE_DIM];
    if (classify(args, id, rows) == ID_ROW)
      readRow(args, t, id, row, NULL);
    else
      for (int64_t d = 0; d < D; ++d)
        row[d] = 0.0;
    for (int64_t d = 0; d < D; ++d)
      embrtCpuStore(args->output, args->outputDtype, i * D + d, row[d]);
  }
}

embrtStatus embrtCpuTbeForward(embrtContext *ctx, const char *op,
                               const embrtTbeArgs *args) {
  if (args->maskedOffsets)
    return maskedForward(ctx, op, args);
  embrtStatus status = embrtCpuCheckTbeOffsets(ctx, op, args);
  if (status != EMBRT_OK)
    return status;

  BadId bad = {0};
  if (args->boundsCheck == EMBRT_BOUNDS_FATAL ||
      args->boundsCheck == EMBRT_BOUNDS_WARNING)
    scanIds(args, &bad);
  char where[160];
  if (bad.count > 0)
    embrtCpuDescribeBadId(where, sizeof where, op, bad.feature, bad.bag, bad.id,
                          bad.table, bad.rows, bad.position);
  if (bad.count > 0 && args->boundsCheck == EMBRT_BOUNDS_FATAL)
    return embrtSetError(ctx, EMBRT_OUT_OF_RANGE, "%s: %s", op, where);

  if (args->pooling == EMBRT_POOLING_NONE) {
    for (int64_t f = 0; f < args->numFeatures; ++f)
      copyRows(args, f);
  } else {
    int64_t rowWidth = 0;
    for (int64_t f = 0; f < args->numFeatures; ++f)
      rowWidth += args->tableDims[args->featureTables[f]];
    int64_t column = 0;
    for (int64_t f = 0; f < args->numFeatures; ++f) {
      for (int64_t b = 0; b < args->batchSize; ++b)
        poolBag(args, f, b, args->output, b * rowWidth + column);
      column += args->tableDims[args->featureTables[f]];
    }
  }

  if (bad.count > 0) { // EMBRT_BOUNDS_WARNING
    embrtCpuNoteSkippedIds(ctx, op, bad.count, where);
  }
  return EMBRT_OK;
}
