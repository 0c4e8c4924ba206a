// REQUIRES: cuda-gpu
// RUN: %kernel_test_dir/tbe
// RUN: %kernel_test_dir/tbe_pos64
// RUN: %kernel_test_dir/tbe_packed_data
// RUN: %kernel_test_dir/tbe_packed_vec8
//===- test/Kernels/tbe.c - GPU test of the TBE forward -------------------===//
//
// embrtTbeForward (and embrtEmbeddingBag) on a CUDA context against the CPU
// reference backend on a CPU context, on fresh random inputs (values never
// zero) for every case: pooling sum, mean and none; weighted (f32 and
// table-typed weights) and not; f32, f16 and bf16 tables with f32 or
// table-typed output; i32 and i64 ids and offsets; mixed D from 1 to 2048
// (16-byte, 8-, 4- and 2-byte row chunks, misaligned tables), shared tables,
// empty bags, bags of one and of thousands, padding ids, all four bounds-check
// modes, bad offsets, every launch configuration forced (with bf16 and f32
// tables), and more features than the kernel's parameter blocks hold
// (metadata in the workspace). Bags of one size, and bags of alternating
// sizes (4 and 2 ids with 8-row stages: stages that lie inside one bag, and
// stages that cross one or two bag ends).
//
// Quantized tables (embrtTbeArgs::tablePrecisions): int8, int4, int2 and
// fp8 x sum, mean and none x weighted and not, every bounds-check mode,
// f32, f16 and bf16 output, i32 and i64 ids, D from the least each
// precision packs, odd ones (int4 D 24, 40, 100), 128, 256 and rows wider
// than 512 bytes (int8 D 600, fp8 D 1000: several column passes), empty
// bags, feature ends, and every precision beside dense tables in one
// lookup. Tables are fresh random normal values packed on the host
// (embrtQuantizeRows). Tolerance of a quantized table's column: f32 output
// within 4 f32 ulps of the sum of |terms| of the bag (weighted terms, over
// the count for mean: the GPU fuses weighted adds and scales a mean by a
// reciprocal, the CPU divides in double); f16 and bf16 output within 1 ulp
// of the output dtype, plus that f32 margin for sums that cancel.
//
// Offsets read as a mask (embrtTbeArgs::maskedOffsets, kernels/tbe_masked.cu):
// valid ones (the usual kernels' lookup) and every kind of invalid ones
// (MaskKind: random, a first offset above or below 0, decreasing and
// overlapping, past the ids, the width's extremes, a last offset short of
// the ids), one feature and several with feature ends (each feature's own
// offsets shifted by where its ids start, wrapping in the offsets' width, as
// emb-batch-tables shifts them), sum and mean, weighted and not, padding
// ids, every table type, int4, fp8 and all precisions in one lookup, i32 and
// i64 ids and offsets, rows of several column passes, 40 and 1100 features,
// inside a graph capture; bounds fatal with one id out of range in no bag
// (an error on both backends) or in one (the device names the first bag
// that holds it, -1 for none), warning (each id out of range counted once,
// in a bag or not, however many bags hold it: the count must equal the
// CPU's and the number of such ids) and ignore. Tolerances as above, over
// each bag's clamped positions; a mean's divisor is max(hi - lo, 1).
//
// Built three times (test/Kernels/CMakeLists.txt): tbe against the
// library, tbe_pos64 against kernels/tbe.cu built with EMB_TBE_POS32=0, so
// that the 64-bit-position kernels, which only launches with N >= 2^31 take
// otherwise, pass the same cases; tbe_packed_data against
// kernels/tbe_quantized.cu with packed rows split among lanes by their
// elements (EMB_TBE_PACKED_LANES=1).
//
// The GPU output is poisoned with 0xFF bytes (NaN in every float type) before
// each run and every element is compared, so an unwritten element fails.
// Tolerance: the harness's per-dtype relative tolerance against
// max(|ref|, 2 * sum of |weight| over the bag's counted ids / divisor).
//
// Usage: tbe [--quick]   (--quick: small shapes, for compute-sanitizer)
//
//===----------------------------------------------------------------------===//

#include "../Runtime/harness.h"
#include "kernels/tbe_config.h"

#define MAX_TABLES 8

static int quick;

/// One test case: shapes and modes; inputs are drawn from `seed`.
typedef struct Case {
  const char *name;
  embrtDtype tableDtype, outputDtype, indexDtype, offsetDtype;
  embrtPooling pooling;
  embrtBoundsCheck bounds;
  int numTables;
  int64_t dims[MAX_TABLES];
  int64_t rows[MAX_TABLES];
  int64_t numFeatures; ///< feature f looks up table f % numTables
  int64_t batch;
  int64_t minBag, maxBag; ///< bag sizes, uniform; 0 allows empty bags
  int alternate;          ///< bag g holds maxBag ids if g is even, else minBag
  int weighted;           ///< 0 none, 1 f32 weights, 2 table-typed weights
  int paddingPercent;     ///< ids equal to paddingIdx (which is 1)
  int badPerMille;        ///< out-of-range ids (-1 for exactly one)
  int misalign;           ///< table pointers moved by this many elements
  int64_t configId;
  int badOffsets; ///< 1: one decreasing offset, 2: last offset != N
  int viaEmbeddingBag;
  /// Feature ends (embrtTbeArgs::featureEnds): 0 none, 1 valid, 2 feature
  /// 1's own offsets start at 1, 3 feature 0's own last offset is short of
  /// its ids (both in order as concatenated offsets; needs minBag >= 1), 4
  /// feature 0's ids end past N (out of order).
  int featureEnds;
  const char *wantDevice; ///< what the GPU's message must say, or NULL
  /// How each table is stored (embrtTablePrecision; all 0: dense, and
  /// tablePrecisions is NULL). A quantized table is packed rows, never
  /// misaligned.
  int64_t precisions[MAX_TABLES];
  /// Offsets read as a mask (embrtTbeArgs::maskedOffsets): MASK_NONE, or how
  /// the features' own offsets are drawn (maskOffsets).
  int masked;
  /// Masked: the one bad id (badPerMille -1) at a position no bag holds.
  int badInNoBag;
  /// The GPU's call captured into a graph (embrtContextBeginCapture), which
  /// then runs once.
  int capture;
} Case;

/// How maskOffsets draws a feature's own offsets own[0..B] (own[B] its
/// last) from the valid ones its ids were laid out with. The kinds past
/// MASK_VALID break the usual rules in the features of even number (all
/// features for MASK_RANDOM); the odd ones keep valid own offsets.
typedef enum MaskKind {
  MASK_NONE,
  MASK_VALID,       ///< as laid out: the usual kernels' lookup
  MASK_RANDOM,      ///< each drawn from [-2, n + 3): empty, overlapping bags
  MASK_FIRST_ABOVE, ///< own[0] in [1, n]: ids before the first bag
  MASK_FIRST_BELOW, ///< own[0] negative
  MASK_DECREASING,  ///< some moved down by 1..4: overlaps, hi < lo (B >= 2)
  MASK_PAST_END,    ///< some, and the last, past the feature's ids
  MASK_HUGE,        ///< some the width's extremes (and 2^32 - 1 for i64)
  MASK_LAST_SHORT,  ///< own[B] below n: ids after the last bag
  MASK_KINDS
} MaskKind;

static const char *const maskNames[MASK_KINDS] = {
    "",           "valid",        "random", "first above 0", "first below 0",
    "decreasing", "past the end", "huge",   "last short"};

typedef struct Inputs {
  int64_t N;
  void *tables[MAX_TABLES]; ///< host, each with `misalign` leading elements
  int64_t *ids, *offs;
  void *indices, *offsets, *weights;
  void *ends; ///< [2F] feature ends of offsetDtype, or NULL
  embrtDtype weightDtype;
  int64_t featureTables[2048];
  float *decoded[MAX_TABLES]; ///< a quantized table's values, else NULL
  /// Bag g pools the ids at [bagBegin[g], bagEnd[g]) (masked: its offsets
  /// clamped into its feature's positions); a mean divides by
  /// bagDivisor[g] (masked: max(hi - lo, 1) in the offsets' width), or where
  /// that is 0 by the ids it counts.
  int64_t *bagBegin, *bagEnd, *bagDivisor;
  /// Ids outside their feature's table (padding apart), every position.
  int64_t outOfRange;
  /// The one bad id (badPerMille -1): its position (-1: none), feature, the
  /// first bag that holds it (-1: none) and value.
  int64_t badPos, badFeature, badBag, badId;
} Inputs;

/// Whether any table of the case is quantized.
static int anyQuantized(const Case *c) {
  for (int t = 0; t < c->numTables; ++t)
    if (c->precisions[t] != EMBRT_PRECISION_DENSE)
      return 1;
  return 0;
}

/// Bytes of table t's buffer, and where its rows start in it.
static size_t tableBytes(const Case *c, int t) {
  if (c->precisions[t] != EMBRT_PRECISION_DENSE)
    return (size_t)(c->rows[t] *
                    embrtQuantizedRowBytes(
                        (embrtTablePrecision)c->precisions[t], c->dims[t]));
  return (size_t)(c->rows[t] * c->dims[t] + c->misalign) *
         embrtDtypeSize(c->tableDtype);
}
static size_t tableLead(const Case *c, int t) {
  return c->precisions[t] != EMBRT_PRECISION_DENSE
             ? 0
             : (size_t)c->misalign * embrtDtypeSize(c->tableDtype);
}

/// A standard normal value (Box-Muller).
static double rngNormal(Rng *rng) {
  double u = rngUniform(rng, 0x1p-53, 1.0), v = rngUniform(rng, 0.0, 1.0);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/// Quantized table t: random normal rows packed on the host, and the f32
/// values they read as.
static void makeQuantizedTable(const Case *c, Rng *rng, Inputs *in, int t) {
  int64_t n = c->rows[t] * c->dims[t];
  float *dense = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  for (int64_t i = 0; i < n; ++i)
    dense[i] = (float)rngNormal(rng);
  in->tables[t] = malloc(tableBytes(c, t) ? tableBytes(c, t) : 1);
  in->decoded[t] = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  embrtQuantizeTableArgs a = {
      sizeof a,     (embrtTablePrecision)c->precisions[t],
      c->rows[t],   c->dims[t],
      dense,        EMBRT_F32,
      in->tables[t]};
  if (embrtQuantizeRows(&a, NULL, NULL) != EMBRT_OK)
    HARNESS_FAIL("embrtQuantizeRows refused table %d", t);
  a.input = in->tables[t];
  a.output = in->decoded[t];
  if (embrtDequantizeRows(&a) != EMBRT_OK)
    HARNESS_FAIL("embrtDequantizeRows refused table %d", t);
  free(dense);
}

static int64_t outputWidth(const Case *c) {
  if (c->pooling == EMBRT_POOLING_NONE)
    return c->dims[0];
  int64_t w = 0;
  for (int64_t f = 0; f < c->numFeatures; ++f)
    w += c->dims[f % c->numTables];
  return w;
}

/// `v` in the offsets' width: wrapped to 32 bits and sign-extended for i32.
static int64_t inWidth(const Case *c, uint64_t v) {
  return c->offsetDtype == EMBRT_I32 ? (int64_t)(int32_t)(uint32_t)v
                                     : (int64_t)v;
}

/// Own offsets own[0..B] of a feature of n ids, redrawn by the case's kind.
static void drawMask(const Case *c, Rng *rng, int64_t *own, int64_t n) {
  int64_t B = c->batch;
  static const int64_t wide[] = {INT64_MAX, INT64_MIN, 4294967295ll,
                                 INT64_MIN + 1, -4294967296ll};
  static const int64_t narrow[] = {INT32_MAX, INT32_MIN, INT32_MIN + 1};
  int is64 = c->offsetDtype == EMBRT_I64;
  switch ((MaskKind)c->masked) {
  case MASK_RANDOM:
    for (int64_t b = 0; b <= B; ++b)
      own[b] = rngInt(rng, -2, n + 3);
    break;
  case MASK_FIRST_ABOVE:
    own[0] = n > 0 ? rngInt(rng, 1, n + 1) : 1;
    break;
  case MASK_FIRST_BELOW:
    own[0] = -rngInt(rng, 1, 4);
    break;
  case MASK_DECREASING: // own[B / 2] below own[B / 2 - 1] at least
    for (int64_t b = 1; b < B; ++b)
      if (b == B / 2)
        own[b] = own[b - 1] - rngInt(rng, 1, 4);
      else if (rngInt(rng, 0, 3) == 0)
        own[b] -= rngInt(rng, 1, 5);
    break;
  case MASK_PAST_END:
    for (int64_t b = 1; b <= B; ++b)
      if (b == B || rngInt(rng, 0, 4) == 0)
        own[b] = n + rngInt(rng, 1, 6);
    break;
  case MASK_HUGE:
    for (int64_t b = 0; b <= B; ++b)
      if (b == B / 2 || rngInt(rng, 0, 4) == 0)
        own[b] = is64 ? wide[rngInt(rng, 0, 5)] : narrow[rngInt(rng, 0, 3)];
    break;
  case MASK_LAST_SHORT:
    own[B] = n > 0 ? rngInt(rng, 0, n) : -1;
    break;
  default:
    break;
  }
}

/// Masked offsets (Case::masked): each feature's own offsets drawn by kind
/// from the valid ones in `in->offs`, then stored in `raw` (the offsets,
/// as their dtype holds them) shifted by the feature's start, wrapping in
/// the offsets' width as emb-batch-tables shifts them, its own last in
/// `ends[F + f]` (with feature ends; without, F is 1 and it is raw[B]).
/// Fills the bags' positions and divisors by the masked rules.
static void maskOffsets(const Case *c, Rng *rng, Inputs *in, int64_t *raw,
                        int64_t *ends) {
  int64_t F = c->numFeatures, B = c->batch;
  int64_t *own = malloc((size_t)(B + 1) * sizeof *own);
  for (int64_t f = 0; f < F; ++f) {
    int64_t start = in->offs[f * B], n = in->offs[(f + 1) * B] - start;
    for (int64_t b = 0; b <= B; ++b)
      own[b] = in->offs[f * B + b] - start;
    if (f % 2 == 0 || c->masked == MASK_RANDOM)
      drawMask(c, rng, own, n);
    for (int64_t b = 0; b < B; ++b)
      raw[f * B + b] = inWidth(c, (uint64_t)own[b] + (uint64_t)start);
    if (ends)
      ends[F + f] = own[B];
    else
      raw[B] = own[B];
    for (int64_t b = 0; b < B; ++b) {
      int64_t lo = own[b], hi = own[b + 1], g = f * B + b;
      int64_t first = lo < 0 ? 0 : lo > n ? n : lo;
      int64_t end = hi < first ? first : hi > n ? n : hi;
      int64_t divisor = inWidth(c, (uint64_t)hi - (uint64_t)lo);
      in->bagBegin[g] = start + first;
      in->bagEnd[g] = start + end;
      in->bagDivisor[g] = divisor > 1 ? divisor : 1;
    }
  }
  free(own);
}

/// The first bag of feature f that holds position p (-1: none).
static int64_t bagHolding(const Case *c, const Inputs *in, int64_t f,
                          int64_t p) {
  for (int64_t b = 0; b < c->batch; ++b) {
    int64_t g = f * c->batch + b;
    if (in->bagBegin[g] <= p && p < in->bagEnd[g])
      return b;
  }
  return -1;
}

static void makeInputs(const Case *c, Rng *rng, Inputs *in) {
  memset(in, 0, sizeof *in);
  size_t esz = embrtDtypeSize(c->tableDtype);
  for (int t = 0; t < c->numTables; ++t) {
    if (c->precisions[t] != EMBRT_PRECISION_DENSE) {
      makeQuantizedTable(c, rng, in, t);
      continue;
    }
    in->tables[t] =
        randomTensor(rng, c->tableDtype, c->rows[t] * c->dims[t] + c->misalign);
  }
  for (int64_t f = 0; f < c->numFeatures; ++f)
    in->featureTables[f] = f % c->numTables;
  (void)esz;

  int64_t numBags = c->numFeatures * c->batch;
  in->offs = malloc((size_t)(numBags + 1) * sizeof(int64_t));
  in->offs[0] = 0;
  for (int64_t g = 0; g < numBags; ++g)
    in->offs[g + 1] =
        in->offs[g] + (c->alternate ? (g % 2 ? c->minBag : c->maxBag)
                                    : rngInt(rng, c->minBag, c->maxBag + 1));
  in->N = in->offs[numBags];
  in->ids = malloc((size_t)(in->N > 0 ? in->N : 1) * sizeof(int64_t));
  for (int64_t g = 0; g < numBags; ++g) {
    int64_t rows = c->rows[in->featureTables[g / c->batch]];
    for (int64_t i = in->offs[g]; i < in->offs[g + 1]; ++i) {
      int64_t id = rngInt(rng, 0, rows);
      if (rngInt(rng, 0, 100) < c->paddingPercent)
        id = 1;
      if (c->badPerMille > 0 && rngInt(rng, 0, 1000) < c->badPerMille)
        id = (rngNext(rng) & 1) ? -1 - rngInt(rng, 0, 5)
                                : rows + rngInt(rng, 0, 5);
      in->ids[i] = id;
    }
  }
  int64_t F = c->numFeatures, B = c->batch;
  // The bags' positions as laid out; masked offsets redraw them.
  in->bagBegin = malloc((size_t)(numBags > 0 ? numBags : 1) * sizeof(int64_t));
  in->bagEnd = malloc((size_t)(numBags > 0 ? numBags : 1) * sizeof(int64_t));
  in->bagDivisor =
      malloc((size_t)(numBags > 0 ? numBags : 1) * sizeof(int64_t));
  for (int64_t g = 0; g < numBags; ++g) {
    in->bagBegin[g] = in->offs[g];
    in->bagEnd[g] = in->offs[g + 1];
    in->bagDivisor[g] = 0;
  }
  // The offsets as their tensor holds them, and the feature ends: where
  // each feature's ids end, then its own last offset.
  int64_t *raw = malloc((size_t)(numBags + 1) * sizeof *raw);
  memcpy(raw, in->offs, (size_t)(numBags + 1) * sizeof *raw);
  int64_t *ends = NULL;
  if (c->featureEnds) {
    ends = malloc((size_t)(2 * F) * sizeof *ends);
    for (int64_t f = 0; f < F; ++f) {
      ends[f] = in->offs[(f + 1) * B];
      ends[F + f] = in->offs[(f + 1) * B] - in->offs[f * B];
    }
  }
  if (c->masked)
    maskOffsets(c, rng, in, raw, ends);
  in->badPos = -1;
  if (c->badPerMille < 0 && in->N > 0) { // exactly one bad id
    int64_t i = rngInt(rng, 0, in->N), g = 0;
    if (c->badInNoBag) { // the first position from i on that no bag holds
      int64_t k = 0;
      for (; k < in->N; ++k, i = (i + 1) % in->N) {
        for (g = 0; in->offs[g + 1] <= i;)
          ++g;
        if (bagHolding(c, in, g / B, i) < 0)
          break;
      }
      if (k == in->N)
        HARNESS_FAIL("every position is in a bag; no place for the bad id");
    }
    for (g = 0; in->offs[g + 1] <= i;)
      ++g;
    in->ids[i] = c->rows[in->featureTables[g / c->batch]] + 3;
    in->badPos = i;
    in->badFeature = g / B;
    in->badBag = bagHolding(c, in, g / B, i);
    in->badId = in->ids[i];
  }
  if (c->badOffsets == 1 && numBags > 2) {
    int64_t g = rngInt(rng, 1, numBags);
    in->offs[g] = in->offs[g - 1] > 0 ? in->offs[g - 1] - 1 : in->N + 1;
    raw[g] = in->offs[g];
    for (int64_t f = 0; ends && f < F; ++f) { // as the offsets now say
      ends[f] = in->offs[(f + 1) * B];
      ends[F + f] = in->offs[(f + 1) * B] - in->offs[f * B];
    }
  }
  in->outOfRange = 0;
  for (int64_t g = 0; g < numBags; ++g) {
    int64_t rows = c->rows[in->featureTables[g / B]];
    for (int64_t i = in->offs[g]; i < in->offs[g + 1]; ++i) {
      int64_t id = in->ids[i];
      in->outOfRange +=
          !(c->paddingPercent > 0 && id == 1) && (id < 0 || id >= rows);
    }
  }
  in->indices = indexTensor(c->indexDtype, in->ids, in->N);
  in->offsets = indexTensor(c->offsetDtype, raw, numBags + 1);
  free(raw);
  if (c->badOffsets == 2) { // the last offset short of N
    if (c->offsetDtype == EMBRT_I32)
      ((int32_t *)in->offsets)[numBags] -= 1;
    else
      ((int64_t *)in->offsets)[numBags] -= 1;
  }
  if (ends) {
    // A bad case moves one end so that only that feature's own offsets are
    // wrong.
    if (c->featureEnds == 2)
      ends[0] -= 1, ends[F] -= 1;
    if (c->featureEnds == 3)
      ends[F] -= 1;
    if (c->featureEnds == 4)
      ends[0] = in->N + 1;
    in->ends = indexTensor(c->offsetDtype, ends, 2 * F);
    free(ends);
  }
  in->weightDtype = c->weighted == 2 ? c->tableDtype : EMBRT_F32;
  if (c->weighted)
    in->weights = randomTensor(rng, in->weightDtype, in->N);
}

static void freeInputs(const Case *c, Inputs *in) {
  for (int t = 0; t < c->numTables; ++t) {
    free(in->tables[t]);
    free(in->decoded[t]);
  }
  free(in->ids);
  free(in->offs);
  free(in->indices);
  free(in->offsets);
  free(in->weights);
  free(in->ends);
  free(in->bagBegin);
  free(in->bagEnd);
  free(in->bagDivisor);
}

/// The args of a lookup over `tables` (with misalignment applied).
static embrtTbeArgs makeArgs(const Case *c, const Inputs *in,
                             const void *const *tables, const void *indices,
                             const void *offsets, const void *weights,
                             void *output) {
  embrtTbeArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.pooling = c->pooling;
  a.boundsCheck = c->bounds;
  a.numTables = c->numTables;
  a.tables = tables;
  a.tableRows = c->rows;
  a.tableDims = c->dims;
  a.tableDtype = c->tableDtype;
  a.numFeatures = c->numFeatures;
  a.featureTables = in->featureTables;
  a.batchSize = c->batch;
  a.numIndices = in->N;
  a.indices = indices;
  a.indexDtype = c->indexDtype;
  a.offsets = offsets;
  a.offsetDtype = c->offsetDtype;
  a.perSampleWeights = weights;
  a.perSampleWeightDtype = in->weightDtype;
  a.paddingIdx = 1;
  a.hasPaddingIdx = c->paddingPercent > 0;
  a.output = output;
  a.outputDtype = c->outputDtype;
  a.configId = c->configId;
  a.tablePrecisions = anyQuantized(c) ? c->precisions : NULL;
  a.maskedOffsets = c->masked != MASK_NONE;
  return a;
}

/// Runs one lookup on `ctx`: through embrtEmbeddingBag when the case asks.
static embrtStatus lookup(embrtContext *ctx, const Case *c,
                          const embrtTbeArgs *a) {
  if (!c->viaEmbeddingBag)
    return embrtTbeForward(ctx, a);
  embrtEmbeddingBagArgs e;
  memset(&e, 0, sizeof e);
  e.structSize = sizeof e;
  e.mode = a->pooling;
  e.boundsCheck = a->boundsCheck;
  e.weight = a->tables[0];
  e.rows = a->tableRows[0];
  e.dim = a->tableDims[0];
  e.weightDtype = a->tableDtype;
  e.batchSize = a->batchSize;
  e.numIndices = a->numIndices;
  e.indices = a->indices;
  e.indexDtype = a->indexDtype;
  e.offsets = a->offsets;
  e.offsetDtype = a->offsetDtype;
  e.perSampleWeights = a->perSampleWeights;
  e.perSampleWeightDtype = a->perSampleWeightDtype;
  e.paddingIdx = a->paddingIdx;
  e.hasPaddingIdx = a->hasPaddingIdx;
  e.output = a->output;
  e.outputDtype = a->outputDtype;
  e.configId = a->configId;
  e.workspace = a->workspace;
  e.workspaceBytes = a->workspaceBytes;
  e.maskedOffsets = a->maskedOffsets;
  return embrtEmbeddingBag(ctx, &e);
}

static void *toDevice(embrtContext *gpu, const void *host, size_t bytes) {
  void *d = NULL;
  EXPECT_STATUS(embrtMalloc(gpu, bytes ? bytes : 16, &d), EMBRT_OK, gpu);
  if (d && host && bytes)
    EXPECT_STATUS(embrtMemcpy(gpu, d, host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
                  EMBRT_OK, gpu);
  return d;
}

/// The comparison scale of output element (row, col): 2 * sum of |weight|
/// over the counted ids of its bag (divided by the count for mean).
static double bagScale(const Case *c, const Inputs *in, int64_t g) {
  int64_t rows = c->rows[in->featureTables[g / c->batch]];
  double sum = 0;
  int64_t count = 0;
  for (int64_t i = in->bagBegin[g]; i < in->bagEnd[g]; ++i) {
    int64_t id = in->ids[i];
    if ((c->paddingPercent > 0 && id == 1) || id < 0 || id >= rows)
      continue;
    sum += c->weighted ? fabs(refLoad(in->weights, in->weightDtype, i)) : 1.0;
    ++count;
  }
  if (in->bagDivisor[g] > 0)
    count = in->bagDivisor[g];
  if (c->pooling == EMBRT_POOLING_MEAN && count > 0)
    sum /= (double)count;
  return 2 * sum;
}

/// One ulp of `x` in `dtype` (f32, f16 or bf16), subnormals included.
static double ulpOf(double x, embrtDtype dtype) {
  int mantissa = dtype == EMBRT_F16 ? 10 : dtype == EMBRT_BF16 ? 7 : 23;
  int least = dtype == EMBRT_F16 ? -14 : -126;
  int e = least;
  if (x != 0) {
    frexp(fabs(x), &e);
    e = e - 1 < least ? least : e - 1;
  }
  return ldexp(1.0, e - mantissa);
}

/// Output element i against the CPU's, if it comes from a quantized table:
/// pooled, output row r and column `fcol` of feature f; pooling none, the
/// id at position r and column `col`. Within 4 f32 ulps of the sum of
/// |terms| (weighted, over the count for mean), and for f16/bf16 output 1
/// ulp of the output dtype besides; the terms are the values the packed
/// rows read as. Returns 1 when it matches, 0 when not, -1 for an element
/// of a dense table.
static int expectQuantizedNear(const Case *c, const Inputs *in, int64_t i,
                               double got, double ref, int64_t r, int64_t f,
                               int64_t fcol, int64_t col) {
  int64_t begin = r, end = r + 1;
  if (c->pooling == EMBRT_POOLING_NONE) {
    int64_t g = 0; // the bag of position r
    while (in->offs[g + 1] <= r)
      ++g;
    f = g / c->batch;
    fcol = col;
  } else {
    begin = in->bagBegin[f * c->batch + r];
    end = in->bagEnd[f * c->batch + r];
  }
  int64_t t = in->featureTables[f], rows = c->rows[t], D = c->dims[t];
  if (c->precisions[t] == EMBRT_PRECISION_DENSE)
    return -1;
  double terms = 0;
  int64_t count = 0;
  for (int64_t k = begin; k < end; ++k) {
    int64_t id = in->ids[k];
    if ((c->paddingPercent > 0 && id == 1) || id < 0 || id >= rows)
      continue;
    double w =
        c->weighted ? fabs(refLoad(in->weights, in->weightDtype, k)) : 1.0;
    terms += w * fabs((double)in->decoded[t][id * D + fcol]);
    ++count;
  }
  if (c->pooling != EMBRT_POOLING_NONE && in->bagDivisor[f * c->batch + r])
    count = in->bagDivisor[f * c->batch + r];
  if (c->pooling == EMBRT_POOLING_MEAN && count > 0)
    terms /= (double)count;
  double bound = 4 * ulpOf(terms, EMBRT_F32);
  if (c->outputDtype != EMBRT_F32)
    bound += fmax(ulpOf(ref, c->outputDtype), ulpOf(got, c->outputDtype));
  if (fabs(got - ref) <= bound && !isnan(got) && !isnan(ref))
    return 1;
  HARNESS_FAIL("output[%lld] (table %lld, %s) is %.9g, the cpu's %.9g "
               "(|diff| %.3g > %.3g)",
               (long long)i, (long long)t,
               embrtTablePrecisionName((embrtTablePrecision)c->precisions[t]),
               got, ref, fabs(got - ref), bound);
  return 0;
}

/// Compares the GPU's run of a case (its synchronize status, its count of
/// skipped ids, its output in `dOut`) with the CPU's.
static void compareRuns(const Case *c, const Inputs *in, embrtStatus cpuStatus,
                        const char *cpuMessage, int64_t cpuInvalid,
                        embrtContext *gpu, embrtStatus gpuStatus,
                        int64_t gpuInvalid, const void *ref, const void *dOut,
                        int64_t outRows, int64_t outElems) {
  size_t osz = embrtDtypeSize(c->outputDtype);
  if (cpuStatus != EMBRT_OK) {
    // A data error: the GPU reports it at embrtSynchronize.
    if (gpuStatus != cpuStatus)
      HARNESS_FAIL("synchronize returned %s, the CPU %s (%s)",
                   embrtStatusName(gpuStatus), embrtStatusName(cpuStatus),
                   cpuMessage);
    const char *gpuMessage = embrtContextGetLastError(gpu);
    if (c->wantDevice)
      EXPECT_CONTAINS(gpuMessage, c->wantDevice);
    const char *where = strstr(cpuMessage, "feature");
    if (c->masked && in->badPos >= 0) {
      // Masked offsets: the first bag that holds the id, -1 for none, as the
      // rules say (the CPU's message may name it otherwise).
      int64_t t = in->featureTables[in->badFeature];
      char want[256];
      snprintf(want, sizeof want,
               "feature %lld bag %lld: id %lld is outside table %lld (%lld "
               "rows)",
               (long long)in->badFeature, (long long)in->badBag,
               (long long)in->badId, (long long)t, (long long)c->rows[t]);
      EXPECT_CONTAINS(gpuMessage, want);
    } else if (c->badPerMille < 0 && where) {
      // "feature F bag B: id I ... table"; the CPU also names the id's
      // position (", at indices[P]"), the device record does not.
      char want[256];
      snprintf(want, sizeof want, "%s", where);
      char *at = strstr(want, ", at indices[");
      if (at)
        *at = '\0';
      EXPECT_CONTAINS(gpuMessage, want);
    } // "feature F bag B: id I ... table"
    else
      EXPECT_CONTAINS(gpuMessage, "device: feature");
  } else {
    if (gpuStatus != EMBRT_OK)
      HARNESS_FAIL("synchronize returned %s: %s", embrtStatusName(gpuStatus),
                   embrtContextGetLastError(gpu));
    EXPECT_EQ_INT(gpuInvalid, cpuInvalid);
    // Masked offsets: every id outside its table counted once, in a bag or
    // not, however many bags hold it.
    if (c->masked)
      EXPECT_EQ_INT(gpuInvalid,
                    c->bounds == EMBRT_BOUNDS_WARNING ? in->outOfRange : 0);
    void *got = poisoned((size_t)outElems * osz);
    EXPECT_STATUS(embrtMemcpy(gpu, got, dOut, (size_t)outElems * osz,
                              EMBRT_COPY_DEVICE_TO_HOST),
                  EMBRT_OK, gpu);
    double tol = harnessTolerance(c->outputDtype, c->tableDtype);
    int64_t width = outputWidth(c), bad = 0;
    for (int64_t r = 0; r < outRows && bad < 10; ++r) {
      double scale = 0;
      for (int64_t col = 0, f = 0, fcol = 0; col < width && bad < 10; ++col) {
        if (c->pooling != EMBRT_POOLING_NONE) {
          while (fcol >= c->dims[f % c->numTables]) {
            fcol -= c->dims[f % c->numTables];
            ++f;
          }
          if (fcol == 0 || col == 0)
            scale = bagScale(c, in, f * c->batch + r);
          ++fcol;
        }
        int64_t i = r * width + col;
        double refValue = refLoad(ref, c->outputDtype, i);
        // A quantized table's column; a dense one's as in the dense cases.
        int near =
            anyQuantized(c)
                ? expectQuantizedNear(c, in, i, refLoad(got, c->outputDtype, i),
                                      refValue, r, f, fcol - 1, col)
                : -1;
        if (near >= 0) {
          bad += !near;
          continue;
        }
        if (!EXPECT_NEAR("output", i, refLoad(got, c->outputDtype, i), refValue,
                         scale, tol))
          ++bad;
      }
    }
    free(got);
  }
}

static void runCase(embrtContext *gpu, embrtContext *cpu, const Case *c,
                    uint64_t seed) {
  TEST_CASE(c->name);
  fprintf(stderr, "@%s\n", c->name);
  Rng rng = rngSeed(seed);
  Inputs in;
  makeInputs(c, &rng, &in);
  int64_t numBags = c->numFeatures * c->batch;
  int64_t outRows = c->pooling == EMBRT_POOLING_NONE ? in.N : c->batch;
  int64_t outElems = outRows * outputWidth(c);
  size_t osz = embrtDtypeSize(c->outputDtype);

  // The CPU reference.
  const void *hostTables[MAX_TABLES];
  for (int t = 0; t < c->numTables; ++t)
    hostTables[t] = (const char *)in.tables[t] + tableLead(c, t);
  void *ref = poisoned((size_t)outElems * osz);
  embrtTbeArgs ha =
      makeArgs(c, &in, hostTables, in.indices, in.offsets, in.weights, ref);
  ha.featureEnds = in.ends;
  int64_t cpuInvalid = embrtContextGetInvalidIdCount(cpu);
  embrtStatus cpuStatus = lookup(cpu, c, &ha);
  char cpuMessage[1024];
  snprintf(cpuMessage, sizeof cpuMessage, "%s", embrtContextGetLastError(cpu));
  cpuInvalid = embrtContextGetInvalidIdCount(cpu) - cpuInvalid;
  embrtContextClearError(cpu); // also zeroes the invalid-id count

  // The same on the GPU, into a poisoned output.
  void *dTables[MAX_TABLES];
  const void *devTables[MAX_TABLES];
  for (int t = 0; t < c->numTables; ++t) {
    dTables[t] = toDevice(gpu, in.tables[t], tableBytes(c, t));
    devTables[t] = (const char *)dTables[t] + tableLead(c, t);
  }
  void *dIndices =
      toDevice(gpu, in.indices, (size_t)in.N * embrtDtypeSize(c->indexDtype));
  void *dOffsets = toDevice(
      gpu, in.offsets, (size_t)(numBags + 1) * embrtDtypeSize(c->offsetDtype));
  void *dWeights = c->weighted
                       ? toDevice(gpu, in.weights,
                                  (size_t)in.N * embrtDtypeSize(in.weightDtype))
                       : NULL;
  void *dOut = toDevice(gpu, NULL, (size_t)outElems * osz);
  EXPECT_STATUS(embrtMemset(gpu, dOut, 0xFF, (size_t)outElems * osz), EMBRT_OK,
                gpu);
  void *dEnds = in.ends ? toDevice(gpu, in.ends,
                                   (size_t)(2 * c->numFeatures) *
                                       embrtDtypeSize(c->offsetDtype))
                        : NULL;
  embrtTbeArgs da =
      makeArgs(c, &in, devTables, dIndices, dOffsets, dWeights, dOut);
  da.featureEnds = dEnds;
  size_t wsBytes = 0;
  EXPECT_STATUS(embrtTbeWorkspaceSize(gpu, &da, &wsBytes), EMBRT_OK, gpu);
  void *dWs = NULL;
  if (wsBytes)
    EXPECT_STATUS(embrtMalloc(gpu, wsBytes, &dWs), EMBRT_OK, gpu);
  da.workspace = dWs;
  da.workspaceBytes = wsBytes;
  int64_t gpuInvalid = embrtContextGetInvalidIdCount(gpu);
  embrtGraph *graph = NULL;
  if (c->capture) // recorded, not run, then run once as a graph
    EXPECT_STATUS(embrtContextBeginCapture(gpu, NULL), EMBRT_OK, gpu);
  EXPECT_STATUS(lookup(gpu, c, &da), EMBRT_OK, gpu);
  if (c->capture) {
    EXPECT_STATUS(embrtContextEndCapture(gpu, &graph), EMBRT_OK, gpu);
    if (graph)
      EXPECT_STATUS(embrtGraphLaunch(gpu, graph), EMBRT_OK, gpu);
  }
  embrtStatus gpuStatus = embrtSynchronize(gpu);
  embrtGraphDestroy(gpu, graph);
  gpuInvalid = embrtContextGetInvalidIdCount(gpu) - gpuInvalid;
  compareRuns(c, &in, cpuStatus, cpuMessage, cpuInvalid, gpu, gpuStatus,
              gpuInvalid, ref, dOut, outRows, outElems);
  embrtContextClearError(gpu);

  for (int t = 0; t < c->numTables; ++t)
    embrtFree(gpu, dTables[t]);
  embrtFree(gpu, dIndices);
  embrtFree(gpu, dOffsets);
  embrtFree(gpu, dWeights);
  embrtFree(gpu, dOut);
  embrtFree(gpu, dWs);
  embrtFree(gpu, dEnds);
  free(ref);
  freeInputs(c, &in);
}

/// A case with the defaults filled in: f16 tables, f32 output, i64 ids and
/// offsets, sum pooling, fatal bounds checks, run-time configuration.
static Case base(const char *name) {
  Case c;
  memset(&c, 0, sizeof c);
  c.name = name;
  c.tableDtype = EMBRT_F16;
  c.outputDtype = EMBRT_F32;
  c.indexDtype = EMBRT_I64;
  c.offsetDtype = EMBRT_I64;
  c.pooling = EMBRT_POOLING_SUM;
  c.bounds = EMBRT_BOUNDS_FATAL;
  c.configId = -1;
  return c;
}

static void setTables(Case *c, int n, const int64_t *dims, int64_t rows) {
  c->numTables = n;
  for (int t = 0; t < n; ++t) {
    c->dims[t] = dims[t];
    c->rows[t] = rows + 37 * t;
  }
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    quick |= strcmp(argv[i], "--quick") == 0;
  embrtContext *gpu = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &gpu) != EMBRT_OK) {
    fprintf(stderr, "cannot create a CUDA context: %s\n",
            embrtGetCreateError());
    return 1;
  }
  embrtContext *cpu = newCpuContext();
  int64_t B = quick ? 40 : 300;
  uint64_t seed = 1;
  static const embrtDtype tableTypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  static const char *typeNames[] = {"f32", "f16", "bf16"};
  static const int64_t mixedDims[] = {128, 64, 8, 1, 3, 17, 100, 24};
  static const int64_t wideDims[] = {2048, 1000, 520};
  char names[256][96];
  int nameCount = 0;
#define NAME(...)                                                              \
  (snprintf(names[nameCount], 96, __VA_ARGS__), names[nameCount++])

  // Every table type x output type x pooling, mixed D, shared tables.
  for (int d = 0; d < 3; ++d) {
    for (int outTable = 0; outTable < 2; ++outTable) {
      for (int pool = 0; pool < 3; ++pool) {
        if (outTable && d == 0)
          continue; // f32 tables: the output is f32 either way
        Case c = base(NAME("%s tables, %s out, %s", typeNames[d],
                           outTable ? typeNames[d] : "f32",
                           pool == 0   ? "sum"
                           : pool == 1 ? "mean"
                                       : "none"));
        c.tableDtype = tableTypes[d];
        c.outputDtype = outTable ? tableTypes[d] : EMBRT_F32;
        c.pooling = (embrtPooling)pool;
        if (pool == 2) {
          static const int64_t same[] = {40, 40, 40};
          setTables(&c, 3, same, 500);
        } else {
          setTables(&c, 8, mixedDims, 500);
        }
        c.numFeatures = pool == 2 ? 4 : 11; // features share tables
        c.batch = B;
        c.minBag = 0;
        c.maxBag = 12;
        c.paddingPercent = pool == 1 ? 20 : 0;
        c.indexDtype = (d + pool) % 2 ? EMBRT_I32 : EMBRT_I64;
        c.offsetDtype = (d + outTable) % 2 ? EMBRT_I32 : EMBRT_I64;
        runCase(gpu, cpu, &c, seed++);
      }
    }
  }

  // Weighted sums: f32 and table-typed weights.
  for (int d = 0; d < 3; ++d) {
    for (int w = 1; w <= 2; ++w) {
      if (d == 0 && w == 2)
        continue;
      Case c = base(NAME("weighted (%s weights), %s tables",
                         w == 1 ? "f32" : typeNames[d], typeNames[d]));
      c.tableDtype = tableTypes[d];
      c.outputDtype = d == 2 ? EMBRT_BF16 : EMBRT_F32;
      setTables(&c, 4, mixedDims + 4, 300);
      c.numFeatures = 6;
      c.batch = B;
      c.minBag = 1;
      c.maxBag = 30;
      c.weighted = w;
      c.paddingPercent = 10;
      runCase(gpu, cpu, &c, seed++);
    }
  }

  // Wide rows: several column passes of 32 lanes.
  for (int d = 0; d < 3; ++d) {
    Case c = base(NAME("wide rows, %s", typeNames[d]));
    c.tableDtype = tableTypes[d];
    c.pooling = d == 1 ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
    setTables(&c, 3, wideDims, 200);
    c.numFeatures = 3;
    c.batch = quick ? 8 : 40;
    c.minBag = 0;
    c.maxBag = 9;
    runCase(gpu, cpu, &c, seed++);
  }

  // Misaligned tables: narrower row chunks than D allows.
  for (int d = 0; d < 3; ++d) {
    Case c = base(NAME("misaligned tables, %s", typeNames[d]));
    c.tableDtype = tableTypes[d];
    static const int64_t dims[] = {64, 8, 2};
    setTables(&c, 3, dims, 100);
    c.numFeatures = 3;
    c.batch = B;
    c.minBag = 0;
    c.maxBag = 10;
    c.misalign = 1;
    runCase(gpu, cpu, &c, seed++);
  }

  // Bag sizes: all ones, and bags of thousands.
  {
    Case c = base(NAME("bags of one"));
    static const int64_t dims[] = {32, 64};
    setTables(&c, 2, dims, 1000);
    c.numFeatures = 2;
    c.batch = quick ? 200 : 5000;
    c.minBag = c.maxBag = 1;
    runCase(gpu, cpu, &c, seed++);
  }
  {
    Case c = base(NAME("bags of thousands"));
    c.tableDtype = EMBRT_BF16;
    c.pooling = EMBRT_POOLING_MEAN;
    static const int64_t dims[] = {128, 16};
    setTables(&c, 2, dims, 5000);
    c.numFeatures = 2;
    c.batch = quick ? 3 : 6;
    c.minBag = 1000;
    c.maxBag = quick ? 1500 : 5000;
    c.paddingPercent = 5;
    runCase(gpu, cpu, &c, seed++);
  }
  {
    Case c = base(NAME("no ids at all"));
    static const int64_t dims[] = {16, 48};
    setTables(&c, 2, dims, 10);
    c.numFeatures = 2;
    c.batch = 17;
    runCase(gpu, cpu, &c, seed++);
  }

  // Single-table mean with padding id (the embedding_bag benchmark shape).
  for (int l = 1; l <= 8; l *= 2) {
    Case c = base(NAME("embedding_bag mean, padding, L=%d", l));
    c.pooling = EMBRT_POOLING_MEAN;
    c.outputDtype = EMBRT_F16;
    static const int64_t dims[] = {64};
    setTables(&c, 1, dims, quick ? 1000 : 100000);
    c.numFeatures = 1;
    c.batch = quick ? 64 : 4096;
    c.minBag = c.maxBag = l;
    c.paddingPercent = 25;
    c.viaEmbeddingBag = 1;
    runCase(gpu, cpu, &c, seed++);
  }

  // Bounds-check modes with bad ids; bad offsets.
  for (int mode = 0; mode < 4; ++mode) {
    static const char *modes[] = {"fatal", "warning", "ignore", "none"};
    Case c = base(NAME("bounds %s", modes[mode]));
    c.bounds = (embrtBoundsCheck)mode;
    setTables(&c, 3, mixedDims, 50);
    c.numFeatures = 3;
    c.batch = B;
    c.minBag = 0;
    c.maxBag = 8;
    c.badPerMille = mode == 0 ? -1 : 50;
    c.paddingPercent = 10;
    // Negative and too-large ids of both widths.
    c.indexDtype = mode % 2 ? EMBRT_I32 : EMBRT_I64;
    runCase(gpu, cpu, &c, seed++);
  }
  for (int kind = 1; kind <= 2; ++kind) {
    Case c =
        base(NAME("bad offsets (%s)", kind == 1 ? "decreasing" : "last != N"));
    c.bounds = EMBRT_BOUNDS_IGNORE;
    setTables(&c, 2, mixedDims, 50);
    c.numFeatures = 2;
    c.batch = B;
    c.minBag = 0;
    c.maxBag = 8;
    c.badOffsets = kind;
    c.offsetDtype = kind == 1 ? EMBRT_I32 : EMBRT_I64;
    runCase(gpu, cpu, &c, seed++);
  }

  // Feature ends (emb-batch-tables' batched bags): valid ones change
  // nothing; a feature whose own offsets start at 1, or whose own last
  // offset is short of its ids, is an error naming it, though the
  // concatenated offsets are in order; valid ends beside one decreasing
  // offset (in any group of a feature: the feature's check walks only its
  // first and last groups and a group the lookup's own check finds wrong).
  // Pooled (lookupBags) and pooling none (copyPositions).
  for (int kind = 1; kind <= 4; ++kind) {
    static const char *kinds[] = {"", "valid", "feature 1 starts at 1",
                                  "feature 0 ends short",
                                  "one offset decreasing"};
    static const char *want[] = {
        NULL, NULL, "device: feature 1: its offsets[0] is 1, must be 0",
        "device: feature 0: its offsets[", "device: feature"};
    for (int none = 0; none < 2; ++none) {
      Case c = base(NAME("feature ends, %s%s", kinds[kind],
                         none ? ", pooling none" : ""));
      static const int64_t dims[] = {24, 24};
      setTables(&c, 2, none ? dims : mixedDims, 50);
      c.pooling = none ? EMBRT_POOLING_NONE : EMBRT_POOLING_SUM;
      c.numFeatures = 3;
      c.batch = B;
      c.minBag = 1;
      c.maxBag = 8;
      c.offsetDtype = none ? EMBRT_I32 : EMBRT_I64;
      c.featureEnds = kind == 4 ? 1 : kind;
      c.badOffsets = kind == 4;
      c.wantDevice = want[kind];
      runCase(gpu, cpu, &c, seed++);
    }
  }

  // Pooling none over bags of one size.
  {
    Case c = base(NAME("pooling none, bags of 3"));
    c.pooling = EMBRT_POOLING_NONE;
    static const int64_t dims[] = {24, 24};
    setTables(&c, 2, dims, 400);
    c.numFeatures = 3;
    c.batch = B;
    c.minBag = c.maxBag = 3;
    c.paddingPercent = 10;
    runCase(gpu, cpu, &c, seed++);
  }
  // Pooling none is split by position: one bag of all the ids (what
  // F.embedding raises to), a few long bags beside empty ones with bad ids
  // counted, one bad id in a long bag (its bag found by bisection), many
  // short bags (the offsets checks set the groups), decreasing offsets.
  {
    Case c =
        base(NAME("pooling none, one bag of %d ids", quick ? 3000 : 20000));
    c.pooling = EMBRT_POOLING_NONE;
    c.outputDtype = EMBRT_F16;
    static const int64_t dims[] = {128};
    setTables(&c, 1, dims, 5000);
    c.numFeatures = 1;
    c.batch = 1;
    c.minBag = c.maxBag = quick ? 3000 : 20000;
    c.paddingPercent = 10;
    c.viaEmbeddingBag = 1;
    runCase(gpu, cpu, &c, seed++);
  }
  for (int mode = 0; mode < 2; ++mode) {
    Case c = base(NAME("pooling none, long and empty bags, bounds %s",
                       mode ? "warning" : "fatal (one bad id)"));
    c.pooling = EMBRT_POOLING_NONE;
    c.bounds = mode ? EMBRT_BOUNDS_WARNING : EMBRT_BOUNDS_FATAL;
    c.badPerMille = mode ? 20 : -1;
    static const int64_t dims[] = {40, 40};
    setTables(&c, 2, dims, 300);
    c.numFeatures = 3;
    c.batch = 5 + 60 * mode;
    c.minBag = 0;
    c.maxBag = 700;
    c.alternate = 1;
    runCase(gpu, cpu, &c, seed++);
  }
  for (int kind = 0; kind < 2; ++kind) {
    Case c = base(NAME("pooling none, %s", kind ? "decreasing offsets"
                                                : "3000 bags of 0 to 2 ids"));
    c.pooling = EMBRT_POOLING_NONE;
    c.bounds = EMBRT_BOUNDS_IGNORE;
    static const int64_t dims[] = {17, 17};
    setTables(&c, 2, dims, 100);
    c.numFeatures = 2;
    c.batch = kind ? 100 : 1500;
    c.minBag = 0;
    c.maxBag = kind ? 90 : 2;
    c.badOffsets = kind;
    c.offsetDtype = kind ? EMBRT_I32 : EMBRT_I64;
    runCase(gpu, cpu, &c, seed++);
  }

  // Every configuration, forced: bf16 tables and random bag sizes; f32
  // tables (the 8-row configurations are their default) and bags of 4 and 2
  // ids in turn, so that a stage holds whole bags, ends of bags and bags
  // that run on into the next stage.
  for (int64_t id = 0; id < TBE_NUM_CONFIGS; ++id) {
    Case c = base(NAME("config %s, bf16", tbeGetConfig(id)->name));
    c.tableDtype = EMBRT_BF16;
    setTables(&c, 4, mixedDims, 200);
    c.numFeatures = 5;
    c.batch = B + 3;
    c.minBag = 0;
    c.maxBag = 7;
    c.configId = id;
    runCase(gpu, cpu, &c, seed++);

    Case f =
        base(NAME("config %s, f32, bags of 4 and 2", tbeGetConfig(id)->name));
    f.tableDtype = EMBRT_F32;
    f.pooling = id % 2 ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
    setTables(&f, 4, mixedDims, 200);
    f.numFeatures = 5;
    f.batch = B + 2;
    f.minBag = 2;
    f.maxBag = 4;
    f.alternate = 1;
    f.paddingPercent = 10;
    f.configId = id;
    runCase(gpu, cpu, &f, seed++);

    // Bags of up to 150 ids (many stages; a split configuration's groups
    // each take some of them and add their sums at the bag's end): f16
    // tables summed with f16 weights, f32 tables averaged (f64 sums across
    // the groups), padding and bad ids counted, narrow and wide rows (G 1
    // to 32, so splits of 32 down to 1).
    Case l = base(NAME("config %s, bags of up to 150 ids, %s",
                       tbeGetConfig(id)->name, id % 2 ? "f32 mean" : "f16"));
    l.tableDtype = id % 2 ? EMBRT_F32 : EMBRT_F16;
    l.pooling = id % 2 ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
    l.weighted = id % 2 ? 0 : 2;
    setTables(&l, 8, mixedDims, 300);
    l.numFeatures = 8;
    l.batch = B + 5;
    l.minBag = 0;
    l.maxBag = 150;
    l.paddingPercent = 5;
    l.badPerMille = 2;
    l.bounds = EMBRT_BOUNDS_WARNING;
    l.configId = id;
    runCase(gpu, cpu, &l, seed++);

    // Packed rows under the row too (the runtime selects their launch's
    // row apart from the dense one's: tbeSelectPackedConfig).
    Case q = base(NAME("config %s, int4 and int8 tables, f16 out",
                       tbeGetConfig(id)->name));
    static const int64_t packedDims[4] = {128, 24, 256, 40};
    setTables(&q, 4, packedDims, 200);
    for (int t = 0; t < q.numTables; ++t)
      q.precisions[t] = t == 2 ? EMBRT_PRECISION_INT8 : EMBRT_PRECISION_INT4;
    q.numFeatures = 5;
    q.batch = B + 1;
    q.minBag = 0;
    q.maxBag = 9;
    q.outputDtype = EMBRT_F16;
    q.configId = id;
    runCase(gpu, cpu, &q, seed++);
  }

  // More features than the parameter blocks hold (33 > 32, 1100 > 1000).
  {
    Case c = base(NAME("40 features"));
    setTables(&c, 8, mixedDims, 64);
    c.numFeatures = 40;
    c.batch = 20;
    c.minBag = 0;
    c.maxBag = 5;
    runCase(gpu, cpu, &c, seed++);
  }
  if (!quick) {
    Case c = base(NAME("1100 features (metadata in the workspace)"));
    c.tableDtype = EMBRT_F32;
    setTables(&c, 8, mixedDims, 64);
    c.numFeatures = 1100;
    c.batch = 5;
    c.minBag = 0;
    c.maxBag = 4;
    runCase(gpu, cpu, &c, seed++);
  }

  // Quantized tables. Every precision x pooling x weighted and not, with
  // its D list (the least it packs, odd widths, 128, 256, rows wider than
  // 512 bytes), the output and id types in turn.
  static const embrtTablePrecision quantized[] = {
      EMBRT_PRECISION_INT8, EMBRT_PRECISION_INT4, EMBRT_PRECISION_INT2,
      EMBRT_PRECISION_FP8};
  static const int64_t quantizedDims[4][4] = {
      {1, 3, 256, 600}, {2, 24, 40, 100}, {4, 12, 128, 256}, {1, 5, 128, 1000}};
  static const embrtDtype outTypes[] = {EMBRT_F32, EMBRT_F16, EMBRT_BF16};
  for (int q = 0; q < 4; ++q) {
    const char *pn = embrtTablePrecisionName(quantized[q]);
    for (int mode = 0; mode < 4; ++mode) { // sum, weighted sum, mean, none
      static const char *modes[] = {"sum", "weighted sum", "mean", "none"};
      int o = (q + mode) % 3;
      Case c =
          base(NAME("%s tables, %s, %s out", pn, modes[mode], typeNames[o]));
      c.tableDtype = o == 0 ? EMBRT_F16 : outTypes[o];
      c.outputDtype = outTypes[o];
      c.pooling = mode == 3   ? EMBRT_POOLING_NONE
                  : mode == 2 ? EMBRT_POOLING_MEAN
                              : EMBRT_POOLING_SUM;
      c.weighted = mode == 1 ? 1 + q % 2 : 0;
      if (mode == 3) {
        int64_t same[2] = {quantizedDims[q][2], quantizedDims[q][2]};
        setTables(&c, 2, same, 300);
      } else {
        setTables(&c, 4, quantizedDims[q], 300);
      }
      for (int t = 0; t < c.numTables; ++t)
        c.precisions[t] = quantized[q];
      c.numFeatures = mode == 3 ? 3 : 6; // features share tables
      c.batch = B;
      c.minBag = 0;
      c.maxBag = 12;
      c.paddingPercent = mode == 2 ? 20 : 0;
      c.indexDtype = (q + mode) % 2 ? EMBRT_I32 : EMBRT_I64;
      c.offsetDtype = mode % 2 ? EMBRT_I64 : EMBRT_I32;
      runCase(gpu, cpu, &c, seed++);
    }
  }
  // Every precision x bounds-check mode: bad ids (exactly one under fatal;
  // none promised under none) and padding ids.
  for (int q = 0; q < 4; ++q) {
    for (int mode = 0; mode < 4; ++mode) {
      static const char *modes[] = {"fatal", "warning", "ignore", "none"};
      Case c = base(NAME("%s tables, bounds %s",
                         embrtTablePrecisionName(quantized[q]), modes[mode]));
      c.bounds = (embrtBoundsCheck)mode;
      c.pooling = mode == 2 ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
      c.weighted = mode == 1;
      setTables(&c, 3, quantizedDims[q], 50);
      for (int t = 0; t < 3; ++t)
        c.precisions[t] = quantized[q];
      c.numFeatures = 3;
      c.batch = B;
      c.minBag = 0;
      c.maxBag = 8;
      c.badPerMille = mode == 0 ? -1 : mode == 3 ? 0 : 50;
      c.paddingPercent = 10;
      c.indexDtype = mode % 2 ? EMBRT_I32 : EMBRT_I64;
      runCase(gpu, cpu, &c, seed++);
    }
  }
  // Every precision beside dense tables in one lookup, each output type;
  // with feature ends; pooling none over one precision of each D.
  {
    static const int64_t dims[] = {16, 24, 12, 5, 4, 100, 600, 1000};
    static const int64_t precisions[] = {
        EMBRT_PRECISION_INT8, EMBRT_PRECISION_INT4,  EMBRT_PRECISION_INT2,
        EMBRT_PRECISION_FP8,  EMBRT_PRECISION_DENSE, EMBRT_PRECISION_INT4,
        EMBRT_PRECISION_INT8, EMBRT_PRECISION_FP8};
    for (int o = 0; o < 3; ++o) {
      for (int ends = 0; ends < 2; ++ends) {
        Case c = base(NAME("mixed precisions and dense, %s out%s", typeNames[o],
                           ends ? ", feature ends" : ""));
        c.tableDtype = o == 0 ? EMBRT_F16 : outTypes[o];
        c.outputDtype = outTypes[o];
        c.pooling = ends ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
        c.weighted = ends ? 0 : 1 + o % 2;
        setTables(&c, 8, dims, 200);
        memcpy(c.precisions, precisions, sizeof precisions);
        c.numFeatures = 11; // features share tables
        c.batch = quick ? 16 : 64;
        c.minBag = ends;
        c.maxBag = 10;
        c.paddingPercent = 10;
        c.indexDtype = o % 2 ? EMBRT_I32 : EMBRT_I64;
        c.offsetDtype = ends ? EMBRT_I64 : EMBRT_I32;
        c.featureEnds = ends;
        runCase(gpu, cpu, &c, seed++);
      }
    }
    Case c = base(NAME("mixed precisions, f32 dense tables, f32 out"));
    c.tableDtype = EMBRT_F32;
    setTables(&c, 8, dims, 200);
    memcpy(c.precisions, precisions, sizeof precisions);
    c.numFeatures = 8;
    c.batch = quick ? 16 : 64;
    c.minBag = 0;
    c.maxBag = 10;
    runCase(gpu, cpu, &c, seed++);
  }

  // Offsets read as a mask (embrtTbeArgs::maskedOffsets): valid ones, which
  // the usual kernels look up (the masked kernel's CTAs return at once), and
  // every kind of invalid ones (maskOffsets: the masked kernel's lookup),
  // each for one feature and for three with feature ends (their own offsets
  // shifted by where their ids start, wrapping in the offsets' width; the
  // odd features keep valid own offsets), i32 and i64 offsets; the table
  // type, D, output type, ids, sum or mean, weights and padding ids (sum
  // only) vary from case to case.
  for (int kind = MASK_VALID; kind < MASK_KINDS; ++kind) {
    for (int ends = 0; ends < 2; ++ends) {
      for (int wide = 0; wide < 2; ++wide) {
        int v = kind * 4 + ends * 2 + wide;
        Case c =
            base(NAME("masked offsets, %s, %s, %s offsets", maskNames[kind],
                      ends ? "3 features with ends" : "one feature",
                      wide ? "i64" : "i32"));
        c.masked = kind;
        c.tableDtype = tableTypes[v / 3 % 3];
        c.outputDtype = v % 4 == 1 ? c.tableDtype : EMBRT_F32;
        c.pooling = v % 3 == 2 ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
        c.weighted = c.pooling == EMBRT_POOLING_SUM ? v / 2 % 3 : 0;
        c.paddingPercent = c.pooling == EMBRT_POOLING_SUM && v % 2 ? 10 : 0;
        static const int64_t oneDims[] = {17, 128, 3, 64, 1, 100, 8, 24};
        if (ends)
          setTables(&c, 2, mixedDims + v % 6, 60);
        else
          setTables(&c, 1, oneDims + v % 8, 60);
        c.numFeatures = ends ? 3 : 1;
        c.featureEnds = ends;
        c.batch = quick ? 12 : 60;
        c.minBag = 1; // so that a short last offset leaves ids out
        c.maxBag = 9;
        c.indexDtype = v % 5 < 2 ? EMBRT_I32 : EMBRT_I64;
        c.offsetDtype = wide ? EMBRT_I64 : EMBRT_I32;
        c.viaEmbeddingBag = !ends && kind % 2; // embrtEmbeddingBag's field
        runCase(gpu, cpu, &c, seed++);
      }
    }
  }
  // Masked offsets, rows of several column passes (a lane's 4 columns of
  // each 128), empty bags among the valid ones.
  for (int d = 0; d < 3; ++d) {
    Case c = base(NAME("masked offsets, random, wide rows, %s", typeNames[d]));
    c.masked = MASK_RANDOM;
    c.tableDtype = tableTypes[d];
    c.pooling = d == 1 ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
    c.weighted = d == 2;
    setTables(&c, 3, wideDims, 100);
    c.numFeatures = 3;
    c.featureEnds = 1;
    c.batch = quick ? 6 : 20;
    c.minBag = 0;
    c.maxBag = 6;
    runCase(gpu, cpu, &c, seed++);
  }
  // Masked offsets and bounds checks: under fatal one id outside its table,
  // in no bag (an error all the same) or in one; under warning ids outside
  // in bags and out of them, each counted once however many bags hold it;
  // under ignore skipped silently; valid masked offsets with a bad id (the
  // usual kernels report it); feature ends out of order (emb's own layout:
  // an error as ever). A mean takes bounds fatal or none only (its divisor
  // counts every id of the bag).
  for (int mode = 0; mode < 10; ++mode) {
    static const struct {
      const char *name;
      embrtBoundsCheck bounds;
      MaskKind kind;
      int ends, noBag, badPerMille, mean;
    } modes[] = {
        {"fatal, id in no bag", EMBRT_BOUNDS_FATAL, MASK_LAST_SHORT, 0, 1, -1,
         0},
        {"fatal, id in no bag, feature ends", EMBRT_BOUNDS_FATAL,
         MASK_LAST_SHORT, 1, 1, -1, 1},
        {"fatal, random", EMBRT_BOUNDS_FATAL, MASK_RANDOM, 1, 0, -1, 0},
        {"fatal, valid", EMBRT_BOUNDS_FATAL, MASK_VALID, 1, 0, -1, 0},
        {"warning, random", EMBRT_BOUNDS_WARNING, MASK_RANDOM, 1, 0, 60, 0},
        {"warning, last short", EMBRT_BOUNDS_WARNING, MASK_LAST_SHORT, 0, 0,
         100, 0},
        {"warning, valid", EMBRT_BOUNDS_WARNING, MASK_VALID, 1, 0, 60, 0},
        {"ignore, decreasing", EMBRT_BOUNDS_IGNORE, MASK_DECREASING, 1, 0, 60,
         0},
        {"none, random, mean", EMBRT_BOUNDS_NONE, MASK_RANDOM, 1, 0, 0, 1},
        {"fatal, feature ends out of order", EMBRT_BOUNDS_FATAL, MASK_RANDOM, 4,
         0, 0, 1},
    };
    Case c = base(NAME("masked offsets, bounds %s", modes[mode].name));
    c.masked = modes[mode].kind;
    c.bounds = modes[mode].bounds;
    c.badInNoBag = modes[mode].noBag;
    c.badPerMille = modes[mode].badPerMille;
    c.pooling = modes[mode].mean ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
    c.paddingPercent = modes[mode].mean ? 0 : 10;
    c.tableDtype = tableTypes[mode % 3];
    setTables(&c, 2, mixedDims + mode % 4, 50);
    c.numFeatures = modes[mode].ends ? 3 : 1;
    c.featureEnds = modes[mode].ends;
    if (modes[mode].ends == 4)
      c.wantDevice = "device: featureEnds[";
    c.batch = quick ? 10 : 40;
    c.minBag = 1;
    c.maxBag = 8;
    c.indexDtype = mode % 2 ? EMBRT_I32 : EMBRT_I64;
    c.offsetDtype = mode % 3 ? EMBRT_I64 : EMBRT_I32;
    runCase(gpu, cpu, &c, seed++);
  }
  // Masked offsets over quantized tables (int4 and fp8, the int rows'
  // biases apart and the fp8 rows' scale alone), and every precision beside
  // dense tables in one lookup: one launch of each kernel a row format.
  for (int q = 0; q < 2; ++q) {
    static const embrtTablePrecision precisions[] = {EMBRT_PRECISION_INT4,
                                                     EMBRT_PRECISION_FP8};
    static const MaskKind kinds[] = {MASK_VALID, MASK_RANDOM, MASK_HUGE,
                                     MASK_LAST_SHORT};
    for (int k = 0; k < 4; ++k) {
      int o = (q + k) % 3;
      Case c = base(NAME("masked offsets, %s, %s tables, %s out",
                         maskNames[kinds[k]],
                         embrtTablePrecisionName(precisions[q]), typeNames[o]));
      c.masked = kinds[k];
      c.tableDtype = o == 0 ? EMBRT_F16 : outTypes[o];
      c.outputDtype = outTypes[o];
      c.pooling = k == 2 ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
      c.weighted = k == 1 ? 1 + q : 0;
      c.paddingPercent = k == 3 ? 10 : 0;
      setTables(&c, 4, quantizedDims[q == 0 ? 1 : 3], 120);
      for (int t = 0; t < 4; ++t)
        c.precisions[t] = precisions[q];
      c.numFeatures = k == 0 ? 1 : 5;
      c.featureEnds = k != 0;
      c.batch = quick ? 8 : 40;
      c.minBag = 1;
      c.maxBag = 10;
      c.indexDtype = k % 2 ? EMBRT_I32 : EMBRT_I64;
      c.offsetDtype = (q + k) % 2 ? EMBRT_I32 : EMBRT_I64;
      runCase(gpu, cpu, &c, seed++);
    }
  }
  for (int o = 0; o < 3; ++o) {
    static const int64_t dims[] = {16, 24, 12, 5, 4, 100, 600, 1000};
    static const int64_t precisions[] = {
        EMBRT_PRECISION_INT8, EMBRT_PRECISION_INT4,  EMBRT_PRECISION_INT2,
        EMBRT_PRECISION_FP8,  EMBRT_PRECISION_DENSE, EMBRT_PRECISION_INT4,
        EMBRT_PRECISION_INT8, EMBRT_PRECISION_FP8};
    Case c = base(
        NAME("masked offsets, random, mixed precisions, %s out", typeNames[o]));
    c.masked = MASK_RANDOM;
    c.tableDtype = o == 0 ? EMBRT_F16 : outTypes[o];
    c.outputDtype = outTypes[o];
    c.pooling = o == 1 ? EMBRT_POOLING_MEAN : EMBRT_POOLING_SUM;
    c.weighted = o == 2;
    c.bounds = o == 0 ? EMBRT_BOUNDS_WARNING : EMBRT_BOUNDS_FATAL;
    c.badPerMille = o == 0 ? 40 : 0;
    setTables(&c, 8, dims, 150);
    memcpy(c.precisions, precisions, sizeof precisions);
    c.numFeatures = 11;
    c.featureEnds = 1;
    c.batch = quick ? 8 : 32;
    c.minBag = 0;
    c.maxBag = 8;
    c.offsetDtype = o % 2 ? EMBRT_I32 : EMBRT_I64;
    runCase(gpu, cpu, &c, seed++);
  }
  // Masked offsets beyond the small parameter block (40 features), and
  // beyond the large one (1100: the metadata in the workspace, the flag
  // after it); captured into a graph (the flag is the workspace's only
  // use), valid and not.
  for (int kind = 0; kind < 2; ++kind) {
    Case c = base(NAME("masked offsets, %s, 40 features",
                       maskNames[kind ? MASK_RANDOM : MASK_VALID]));
    c.masked = kind ? MASK_RANDOM : MASK_VALID;
    setTables(&c, 8, mixedDims, 64);
    c.numFeatures = 40;
    c.featureEnds = 1;
    c.batch = 20;
    c.minBag = 0;
    c.maxBag = 5;
    runCase(gpu, cpu, &c, seed++);
  }
  if (!quick) {
    Case c = base(NAME("masked offsets, random, 1100 features"));
    c.masked = MASK_RANDOM;
    c.tableDtype = EMBRT_F32;
    setTables(&c, 8, mixedDims, 64);
    c.numFeatures = 1100;
    c.featureEnds = 1;
    c.batch = 5;
    c.minBag = 0;
    c.maxBag = 4;
    runCase(gpu, cpu, &c, seed++);
  }
  for (int kind = 0; kind < 2; ++kind) {
    Case c = base(NAME("masked offsets, %s, captured",
                       maskNames[kind ? MASK_DECREASING : MASK_VALID]));
    c.masked = kind ? MASK_DECREASING : MASK_VALID;
    c.capture = 1;
    c.bounds = EMBRT_BOUNDS_WARNING;
    c.badPerMille = 30;
    setTables(&c, 3, mixedDims, 80);
    c.numFeatures = 4;
    c.featureEnds = 1;
    c.batch = B;
    c.minBag = 1;
    c.maxBag = 7;
    runCase(gpu, cpu, &c, seed++);
  }

  // A quantized table must start at a 16-byte boundary on CUDA (its rows
  // are copied 16 bytes at a time): refused, naming the table.
  {
    TEST_CASE("quantized table not at a 16-byte boundary");
    const int64_t ids[1] = {0}, offs[2] = {0, 1};
    void *table = toDevice(gpu, NULL, 1024);
    void *dIds = toDevice(gpu, ids, sizeof ids);
    void *dOffs = toDevice(gpu, offs, sizeof offs);
    void *out = toDevice(gpu, NULL, 16 * sizeof(float));
    const void *tables[1] = {(const char *)table + 4};
    const int64_t rows[1] = {8}, dims[1] = {16}, featureTables[1] = {0};
    const int64_t precisions[1] = {EMBRT_PRECISION_INT8};
    embrtTbeArgs a;
    memset(&a, 0, sizeof a);
    a.structSize = sizeof a;
    a.pooling = EMBRT_POOLING_SUM;
    a.boundsCheck = EMBRT_BOUNDS_FATAL;
    a.numTables = 1;
    a.tables = tables;
    a.tableRows = rows;
    a.tableDims = dims;
    a.tableDtype = EMBRT_F32;
    a.tablePrecisions = precisions;
    a.numFeatures = 1;
    a.featureTables = featureTables;
    a.batchSize = 1;
    a.numIndices = 1;
    a.indices = dIds;
    a.indexDtype = EMBRT_I64;
    a.offsets = dOffs;
    a.offsetDtype = EMBRT_I64;
    a.output = out;
    a.outputDtype = EMBRT_F32;
    a.configId = -1;
    EXPECT_STATUS(embrtTbeForward(gpu, &a), EMBRT_INVALID_ARGUMENT, gpu);
    EXPECT_CONTAINS(embrtContextGetLastError(gpu), "quantized table 0 is at");
    EXPECT_CONTAINS(embrtContextGetLastError(gpu),
                    "which is not a multiple of 16 bytes");
    // Aligned, the same lookup runs.
    tables[0] = table;
    EXPECT_STATUS(embrtTbeForward(gpu, &a), EMBRT_OK, gpu);
    EXPECT_STATUS(embrtSynchronize(gpu), EMBRT_OK, gpu);
    void *ptrs[4] = {table, dIds, dOffs, out};
    for (int i = 0; i < 4; ++i)
      EXPECT_STATUS(embrtFree(gpu, ptrs[i]), EMBRT_OK, gpu);
  }

  embrtContextDestroy(cpu);
  embrtContextDestroy(gpu);
  return harnessFinish();
}
