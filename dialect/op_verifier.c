//===- dialect/op_verifier.c - emb's own op verifier ----------------------===//
//
// IRDL (dialect/emb.irdl.mlir) checks the ops' structure: operand and result
// counts, that every value is a ranked tensor, that required attributes are
// present with the right kind. This file checks everything else, with
// messages that name the operand: element types, ranks, dims that must agree
// (compared only where both are static), attribute values and the optional
// attributes IRDL cannot declare.
//
// Every check is written so that it also runs safely on IR that MLIR's own
// verifier has not seen (a library user may call embVerify first): operand
// counts are checked before operands are read.
//
// This is the verifier itself (embVerify); passes/verify.c is the emb-verify
// pass that runs it in a pipeline.
//
//===----------------------------------------------------------------------===//

#include "ir.h"
#include "sharding.h"

#include "emb/emb.h"
#include "emb/runtime.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Checker: one op under verification
//===----------------------------------------------------------------------===//

typedef struct {
  MlirOperation op;
  char opName[64];
  bool failed;
} Checker;

/// Emits "'emb.x' op <message>" at the op and marks the op invalid.
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
fail(Checker *c, const char *fmt, ...) {
  char msg[EMB_MAX_MESSAGE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  embEmitErrorf(mlirOperationGetLocation(c->op), "'%s' op %s", c->opName, msg);
  c->failed = true;
}

static MlirType operandType(Checker *c, intptr_t i) {
  return mlirValueGetType(mlirOperationGetOperand(c->op, i));
}

static MlirType resultType(Checker *c) {
  return mlirValueGetType(mlirOperationGetResult(c->op, 0));
}

/// Checks that `t` (named `name`) is a ranked tensor of rank `rank`
/// (`rank` < 0: at least `-rank`).
static bool checkRank(Checker *c, MlirType t, const char *name, int rank) {
  char ts[128];
  if (!mlirTypeIsARankedTensor(t)) {
    embPrintType(t, ts, sizeof ts);
    fail(c, "%s must be a ranked tensor, got %s", name, ts);
    return false;
  }
  int64_t r = mlirShapedTypeGetRank(t);
  if (rank >= 0 && r != rank) {
    fail(c, "%s must have rank %d, got rank %lld", name, rank, (long long)r);
    return false;
  }
  if (rank < 0 && r < -rank) {
    fail(c, "%s must have rank %d or more, got rank %lld", name, -rank,
         (long long)r);
    return false;
  }
  return true;
}

/// Checks that `t` holds f32, f16 or bf16.
static bool checkFloat(Checker *c, MlirType t, const char *name) {
  MlirType e = mlirShapedTypeGetElementType(t);
  if (embIsFloat(e))
    return true;
  char es[64];
  embPrintType(e, es, sizeof es);
  fail(c, "%s must hold f32, f16 or bf16, got %s", name, es);
  return false;
}

/// Checks that `t` holds signless i32 or i64.
static bool checkIndexInt(Checker *c, MlirType t, const char *name) {
  MlirType e = mlirShapedTypeGetElementType(t);
  if (embIsIndexInt(e))
    return true;
  char es[64];
  embPrintType(e, es, sizeof es);
  fail(c, "%s must hold i32 or i64, got %s", name, es);
  return false;
}

/// Checks that `a` and `b` hold the same element type.
static bool checkSameElement(Checker *c, MlirType a, const char *aName,
                             MlirType b, const char *bName) {
  MlirType ea = mlirShapedTypeGetElementType(a);
  MlirType eb = mlirShapedTypeGetElementType(b);
  if (mlirTypeEqual(ea, eb))
    return true;
  char as[64], bs[64];
  embPrintType(ea, as, sizeof as);
  embPrintType(eb, bs, sizeof bs);
  fail(c, "%s holds %s but %s holds %s", aName, as, bName, bs);
  return false;
}

/// Checks that `t` holds f32 or the same element type as `ref`.
static bool checkF32OrSame(Checker *c, MlirType t, const char *name,
                           MlirType ref, const char *refName) {
  MlirType e = mlirShapedTypeGetElementType(t);
  MlirType r = mlirShapedTypeGetElementType(ref);
  if (mlirTypeIsAF32(e) || mlirTypeEqual(e, r))
    return true;
  char es[64], rs[64];
  embPrintType(e, es, sizeof es);
  embPrintType(r, rs, sizeof rs);
  fail(c, "%s must hold f32 or %s's type %s, got %s", name, refName, rs, es);
  return false;
}

/// Checks that dim `ia` of `a` equals dim `ib` of `b` when both are static.
/// `aWhat` and `bWhat` are printf formats with one %lld for the size, e.g.
/// "cand_to_user has %lld rows" and "the result has %lld".
static bool checkDimsAgree(Checker *c, MlirType a, intptr_t ia,
                           const char *aWhat, MlirType b, intptr_t ib,
                           const char *bWhat) {
  int64_t da = embDim(a, ia), db = embDim(b, ib);
  if (da < 0 || db < 0 || da == db)
    return true;
  char as[200], bs[200];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  snprintf(as, sizeof as, aWhat, (long long)da);
  snprintf(bs, sizeof bs, bWhat, (long long)db);
#pragma GCC diagnostic pop
  fail(c, "%s but %s", as, bs);
  return false;
}

/// Checks that a string attribute `name` is one of the NULL-terminated
/// `allowed` values. `required`: whether it must be present. The value found
/// goes to `out` (the first allowed value if absent).
static bool checkEnumAttr(Checker *c, const char *name, bool required,
                          const char *const *allowed, char *out, size_t size) {
  MlirAttribute a = mlirOperationGetAttributeByName(c->op, embStr(name));
  snprintf(out, size, "%s", allowed[0]);
  if (mlirAttributeIsNull(a)) {
    if (required)
      fail(c, "requires attribute '%s'", name);
    return !required;
  }
  char list[128] = "";
  for (int i = 0; allowed[i]; ++i) {
    strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
    strncat(list, allowed[i], sizeof list - strlen(list) - 1);
  }
  if (!mlirAttributeIsAString(a)) {
    char as[128];
    embPrintAttribute(a, as, sizeof as);
    fail(c, "attribute '%s' must be a string (one of %s), got %s", name, list,
         as);
    return false;
  }
  char v[64];
  embGetStringAttr(c->op, name, v, sizeof v);
  for (int i = 0; allowed[i]; ++i) {
    if (strcmp(v, allowed[i]) == 0) {
      snprintf(out, size, "%s", allowed[i]);
      return true;
    }
  }
  fail(c, "attribute '%s' must be one of %s, got \"%s\"", name, list, v);
  return false;
}

static const char *const poolingModes[] = {"sum", "mean", "none", NULL};
static const char *const boundsCheckModes[] = {"fatal", "warning", "ignore",
                                               "none", NULL};

/// Checks the optional integer attribute `padding_idx` against `rows` rows
/// (-1: unknown).
static void checkPaddingIdx(Checker *c, int64_t rows, const char *tableName) {
  MlirAttribute a =
      mlirOperationGetAttributeByName(c->op, embStr("padding_idx"));
  if (mlirAttributeIsNull(a))
    return;
  if (!mlirAttributeIsAInteger(a)) {
    char as[128];
    embPrintAttribute(a, as, sizeof as);
    fail(c, "attribute 'padding_idx' must be an integer, got %s", as);
    return;
  }
  int64_t p = mlirIntegerAttrGetValueInt(a);
  if (p < 0)
    fail(c, "padding_idx must be non-negative, got %lld", (long long)p);
  else if (rows >= 0 && p >= rows)
    fail(c, "padding_idx %lld is outside %s (%lld rows)", (long long)p,
         tableName, (long long)rows);
}

/// Checks the optional float attribute `scale` (finite and nonzero).
static void checkScale(Checker *c) {
  MlirAttribute a = mlirOperationGetAttributeByName(c->op, embStr("scale"));
  if (mlirAttributeIsNull(a))
    return;
  if (!mlirAttributeIsAFloat(a)) {
    char as[128];
    embPrintAttribute(a, as, sizeof as);
    fail(c, "attribute 'scale' must be a float, got %s", as);
    return;
  }
  double s = mlirFloatAttrGetValueDouble(a);
  if (!(s == s) || s == 0.0 || s > 1e300 || s < -1e300)
    fail(c, "scale must be finite and nonzero, got %g", s);
}

/// Checks the optional `compute_type` of emb.attention, emb.ikbo_attention
/// and emb.ikbo_lce: f16 or bf16, what the products read, their f32 data
/// operands (`operands`, all of operand 0's element type, which the caller
/// has checked) rounded once to it.
static void checkComputeType(Checker *c, const char *operands) {
  MlirAttribute a =
      mlirOperationGetAttributeByName(c->op, embStr("compute_type"));
  if (mlirAttributeIsNull(a))
    return;
  char as[128];
  embPrintAttribute(a, as, sizeof as);
  if (!mlirAttributeIsAType(a) || (!mlirTypeIsAF16(mlirTypeAttrGetValue(a)) &&
                                   !mlirTypeIsABF16(mlirTypeAttrGetValue(a)))) {
    fail(c, "attribute 'compute_type' must be f16 or bf16, got %s", as);
    return;
  }
  MlirType data = mlirShapedTypeGetElementType(operandType(c, 0));
  if (!mlirTypeIsAF32(data)) {
    char ds[64];
    embPrintType(data, ds, sizeof ds);
    fail(c, "compute_type %s needs f32 %s, got %s", as, operands, ds);
  }
}

/// Checks that the op has between `lo` and `hi` operands and one result.
static bool checkCounts(Checker *c, intptr_t lo, intptr_t hi) {
  intptr_t n = mlirOperationGetNumOperands(c->op);
  if (n < lo || n > hi) {
    if (lo == hi)
      fail(c, "expects %lld operands, got %lld", (long long)lo, (long long)n);
    else
      fail(c, "expects %lld to %lld operands, got %lld", (long long)lo,
           (long long)hi, (long long)n);
    return false;
  }
  if (mlirOperationGetNumResults(c->op) != 1) {
    fail(c, "expects one result, got %lld",
         (long long)mlirOperationGetNumResults(c->op));
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Lookups: what emb.embedding_bag, emb.tbe and their backward ops share
//===----------------------------------------------------------------------===//

/// A lookup's operands (where its op has them) and what checking them
/// learned, for the check of the lookup's output or of the output's
/// gradient: the backward ops check the same rules on the same operands.
typedef struct {
  intptr_t indices, offsets, firstTable, numTables;
  intptr_t psw; ///< -1 without per-sample weights
  // Learned by checkBagLookup / checkTbeLookup.
  char pooling[16];
  MlirType table0;     ///< the first dense table's tensor type; null if none
  char table0Name[32]; ///< its name in messages: weights_<t>, weight
  int64_t numFeatures;
  int64_t sumD;        ///< the pooled output's width; -1 if a D is dynamic
  int64_t commonD;     ///< every feature's D; -1 if they differ, -2 if unknown
  int64_t endsEntries; ///< offsets' trailing feature ends: 2F or 0
} Lookup;

/// Per-sample weights: [N] floats, f32 or the table's type, only with sum
/// pooling (`poolingAttr` names the attribute that says the pooling).
static void checkPerSampleWeights(Checker *c, const Lookup *lk,
                                  const char *poolingAttr,
                                  const char *table0Name) {
  MlirType psw = operandType(c, lk->psw), idx = operandType(c, lk->indices);
  if (!checkRank(c, psw, "per_sample_weights", 1) ||
      !checkFloat(c, psw, "per_sample_weights"))
    return;
  if (strcmp(lk->pooling, "sum") != 0)
    fail(c, "per_sample_weights are only allowed with %s sum, got %s %s",
         poolingAttr, poolingAttr, lk->pooling);
  if (!mlirTypeIsNull(lk->table0))
    checkF32OrSame(c, psw, "per_sample_weights", lk->table0,
                   lk->table0Name[0] ? lk->table0Name : table0Name);
  checkDimsAgree(c, psw, 0, "per_sample_weights has %lld elements", idx, 0,
                 "indices has %lld");
}

/// masked_offsets (emb.embedding_bag and emb.tbe): the offsets are a mask,
/// any offsets valid (docs/dialect.md). Only sum and mean pooling; a mean
/// takes no padding_idx and bounds_check "fatal" or "none" (its divisor
/// counts every id); an emb.tbe of several features needs feature_ends, so
/// that each position has a feature. `bc` is bounds_check ("" if absent).
static void checkMaskedOffsets(Checker *c, const Lookup *lk, const char *bc) {
  MlirAttribute a =
      mlirOperationGetAttributeByName(c->op, embStr(EMB_ATTR_MASKED_OFFSETS));
  if (mlirAttributeIsNull(a))
    return;
  if (!embOpIs(c->op, EMB_OP_TBE) && !embOpIs(c->op, EMB_OP_EMBEDDING_BAG)) {
    fail(c, "masked_offsets is an attribute of 'emb.embedding_bag' and "
            "'emb.tbe' only");
    return;
  }
  if (!mlirAttributeIsAUnit(a)) {
    char as[128];
    embPrintAttribute(a, as, sizeof as);
    fail(c, "attribute 'masked_offsets' must be a unit attribute, got %s", as);
    return;
  }
  const char *poolingAttr = embOpIs(c->op, EMB_OP_TBE) ? "pooling" : "mode";
  if (strcmp(lk->pooling, "sum") != 0 && strcmp(lk->pooling, "mean") != 0) {
    fail(c, "masked_offsets needs %s sum or mean, got %s %s", poolingAttr,
         poolingAttr, lk->pooling);
    return;
  }
  if (strcmp(lk->pooling, "mean") == 0) {
    if (!mlirAttributeIsNull(
            mlirOperationGetAttributeByName(c->op, embStr("padding_idx"))))
      fail(c,
           "masked_offsets with %s mean takes no padding_idx (the mean "
           "divides by the offsets' difference)",
           poolingAttr);
    if (bc[0] && strcmp(bc, "fatal") != 0 && strcmp(bc, "none") != 0)
      fail(c,
           "masked_offsets with %s mean needs bounds_check \"fatal\" or "
           "\"none\", got \"%s\" (the mean divides by the offsets' "
           "difference, which counts every id)",
           poolingAttr, bc);
  }
  if (embOpIs(c->op, EMB_OP_TBE) && lk->numFeatures > 1 && lk->endsEntries == 0)
    fail(c,
         "masked_offsets with %lld features needs feature_ends (where "
         "each feature's ids are)",
         (long long)lk->numFeatures);
}

//===----------------------------------------------------------------------===//
// emb.embedding_bag
//===----------------------------------------------------------------------===//

/// emb.embedding_bag's operands and attributes: weight, indices, offsets,
/// per-sample weights, mode, bounds_check, padding_idx. False if the
/// operands are too malformed for the output to be checked.
static bool checkBagLookup(Checker *c, Lookup *lk) {
  MlirType w = operandType(c, lk->firstTable),
           idx = operandType(c, lk->indices), off = operandType(c, lk->offsets);
  if (!checkRank(c, w, "weight", 2) || !checkRank(c, idx, "indices", 1) ||
      !checkRank(c, off, "offsets", 1))
    return false;
  if (!checkFloat(c, w, "weight") || !checkIndexInt(c, idx, "indices") ||
      !checkIndexInt(c, off, "offsets"))
    return false;
  checkSameElement(c, idx, "indices", off, "offsets");
  checkEnumAttr(c, "mode", true, poolingModes, lk->pooling, sizeof lk->pooling);
  char bc[16];
  checkEnumAttr(c, "bounds_check", false, boundsCheckModes, bc, sizeof bc);
  checkPaddingIdx(c, embDim(w, 0), "weight");
  if (embDim(off, 0) == 0)
    fail(c, "offsets must have at least one element (B+1)");
  lk->table0 = w;
  lk->numFeatures = 1;
  lk->sumD = lk->commonD = embDim(w, 1);
  if (lk->psw >= 0)
    checkPerSampleWeights(c, lk, "mode", "weight");
  checkMaskedOffsets(c, lk, bc);
  return true;
}

/// The output of an emb.embedding_bag, [B,D] ([N,D] for mode none), or its
/// gradient: `name` in "must" messages, `the` in sentences ("result", "the
/// result").
static void checkBagOutput(Checker *c, const Lookup *lk, MlirType out,
                           const char *name, const char *the) {
  MlirType w = lk->table0, idx = operandType(c, lk->indices);
  if (!checkRank(c, out, name, 2) || !checkFloat(c, out, name))
    return;
  checkF32OrSame(c, out, the, w, "weight");
  char what[96];
  snprintf(what, sizeof what, "%s has %%lld columns", the);
  checkDimsAgree(c, out, 1, what, w, 1, "weight has %lld (D)");
  if (strcmp(lk->pooling, "none") == 0) {
    snprintf(what, sizeof what, "%s has %%lld rows", the);
    checkDimsAgree(c, out, 0, what, idx, 0,
                   "indices has %lld (mode none gives one row per index)");
    return;
  }
  int64_t o = embDim(operandType(c, lk->offsets), 0), b = embDim(out, 0);
  if (o > 0 && b >= 0 && o - 1 != b) // (b + 1 overflows at INT64_MAX rows)
    fail(c,
         "offsets has %lld elements but %s has %lld rows (offsets must "
         "have B+1)",
         (long long)o, the, (long long)b);
}

static void verifyEmbeddingBag(Checker *c) {
  if (!checkCounts(c, 3, 4))
    return;
  bool weighted = mlirOperationGetNumOperands(c->op) == 4;
  Lookup lk = {.indices = 1,
               .offsets = 2,
               .firstTable = 0,
               .numTables = 1,
               .psw = weighted ? 3 : -1};
  if (checkBagLookup(c, &lk))
    checkBagOutput(c, &lk, resultType(c), "result", "the result");
}

//===----------------------------------------------------------------------===//
// emb.table, emb.state and emb.tbe
//===----------------------------------------------------------------------===//

/// What makes a handle: its type and the op that names a tensor with it.
typedef struct {
  const char *type;  ///< "!emb.table_handle"
  const char *maker; ///< EMB_OP_TABLE
  const char *what;  ///< "table"
} HandleKind;

static const HandleKind tableHandle = {"!emb.table_handle", EMB_OP_TABLE,
                                       "table"};
static const HandleKind stateHandle = {"!emb.state_handle", EMB_OP_STATE,
                                       "state"};

/// True if `t` is the handle type of `k`.
static bool isHandle(MlirType t, const HandleKind *k) {
  MlirType handle = mlirTypeParseGet(mlirTypeGetContext(t), embStr(k->type));
  return !mlirTypeIsNull(handle) && mlirTypeEqual(t, handle);
}

/// Checks a table tensor: rank 2, float, 1 to EMB_MAX_TABLE_DIM columns.
static bool checkTableTensor(Checker *c, MlirType w, const char *name) {
  if (!checkRank(c, w, name, 2) || !checkFloat(c, w, name))
    return false;
  int64_t d = embDim(w, 1);
  if (d == 0 || d > EMB_MAX_TABLE_DIM) {
    fail(c, "%s has %lld columns, must be 1 to %d", name, (long long)d,
         EMB_MAX_TABLE_DIM);
    return false;
  }
  return true;
}

/// Checks that the result is the handle type of `k`.
static void checkHandleResult(Checker *c, const HandleKind *k) {
  MlirType res = resultType(c);
  if (isHandle(res, k))
    return;
  char ts[128];
  embPrintType(res, ts, sizeof ts);
  fail(c, "the result must be %s, got %s", k->type, ts);
}

/// A quantized table (precision, dim): weight is [E, row bytes] of i8, the
/// packed rows of embrtQuantizedRowBytes(precision, dim) bytes.
static void checkQuantizedTable(Checker *c, const char *precisionName) {
  int precision;
  if (!embParsePrecision(precisionName, &precision) || precision == 0) {
    fail(c,
         "precision must be \"int8\", \"int4\", \"int2\" or \"fp8\", got "
         "\"%s\"",
         precisionName);
    return;
  }
  int64_t dim;
  if (!embGetIntAttr(c->op, EMB_ATTR_DIM, &dim)) {
    fail(c, "an %s table requires an integer attribute 'dim' (its columns)",
         precisionName);
    return;
  }
  int64_t rowBytes =
      embrtQuantizedRowBytes((embrtTablePrecision)precision, dim);
  if (rowBytes < 0) {
    int bits = precision == EMBRT_PRECISION_INT4   ? 4
               : precision == EMBRT_PRECISION_INT2 ? 2
                                                   : 8;
    fail(c, "dim is %lld, must be 1 to %d and a multiple of %d for %s",
         (long long)dim, EMB_MAX_TABLE_DIM, 8 / bits, precisionName);
    return;
  }
  MlirType w = operandType(c, 0);
  if (!checkRank(c, w, "weight", 2))
    return;
  MlirType e = mlirShapedTypeGetElementType(w);
  if (!mlirTypeIsAInteger(e) || mlirIntegerTypeGetWidth(e) != 8 ||
      !mlirIntegerTypeIsSignless(e)) {
    char es[64];
    embPrintType(e, es, sizeof es);
    fail(c, "an %s table's weight holds its packed rows as i8, got %s",
         precisionName, es);
    return;
  }
  int64_t bytes = embDim(w, 1);
  if (bytes < 0)
    fail(c,
         "weight's second dimension (the bytes of a row) must be static: "
         "an %s row of %lld columns takes %lld",
         precisionName, (long long)dim, (long long)rowBytes);
  else if (bytes != rowBytes)
    fail(c,
         "weight has %lld bytes a row but an %s row of %lld columns takes "
         "%lld (a 4-byte header and the packed columns, padded to %d)",
         (long long)bytes, precisionName, (long long)dim, (long long)rowBytes,
         EMBRT_QUANTIZED_ROW_ALIGNMENT);
}

/// emb.quantize_table(weight[E,D]) {precision, dim = D} -> [E, row bytes]
/// of i8: a dense table and the packed rows an emb.table {precision, dim}
/// reads.
static void verifyQuantizeTable(Checker *c) {
  if (!checkCounts(c, 1, 1))
    return;
  MlirType w = operandType(c, 0);
  if (!checkTableTensor(c, w, "weight"))
    return;
  char precision[16];
  if (!embGetStringAttr(c->op, EMB_ATTR_PRECISION, precision,
                        sizeof precision)) {
    fail(c, "requires a string attribute 'precision'");
    return;
  }
  int p;
  if (!embParsePrecision(precision, &p) || p == 0) {
    fail(c,
         "precision must be \"int8\", \"int4\", \"int2\" or \"fp8\", got "
         "\"%s\"",
         precision);
    return;
  }
  int64_t dim, d = embDim(w, 1);
  if (!embGetIntAttr(c->op, EMB_ATTR_DIM, &dim)) {
    fail(c, "requires an integer attribute 'dim' (the weight's columns)");
    return;
  }
  if (d < 0 || dim != d) {
    fail(c, "dim is %lld but weight has %s%lld columns", (long long)dim,
         d < 0 ? "a dynamic number of " : "", (long long)d);
    return;
  }
  int64_t rowBytes = embrtQuantizedRowBytes((embrtTablePrecision)p, dim);
  if (rowBytes < 0) {
    fail(c, "weight's %lld columns do not pack into whole bytes of %s",
         (long long)dim, precision);
    return;
  }
  MlirType out = resultType(c);
  if (!checkRank(c, out, "the result", 2))
    return;
  MlirType e = mlirShapedTypeGetElementType(out);
  int64_t rows = embDim(w, 0), outRows = embDim(out, 0);
  if (!mlirTypeIsAInteger(e) || mlirIntegerTypeGetWidth(e) != 8 ||
      !mlirIntegerTypeIsSignless(e) || embDim(out, 1) != rowBytes ||
      (rows >= 0 && outRows >= 0 && rows != outRows)) {
    char ts[128];
    embPrintType(out, ts, sizeof ts);
    fail(c,
         "the result must be the packed rows tensor<%sx%lldxi8> (an %s row "
         "of %lld columns takes %lld bytes), got %s",
         rows >= 0 ? "E" : "?", (long long)rowBytes, precision, (long long)dim,
         (long long)rowBytes, ts);
  }
}

static void verifyTable(Checker *c) {
  if (!checkCounts(c, 1, 1))
    return;
  char precision[16];
  MlirAttribute p =
      mlirOperationGetAttributeByName(c->op, embStr(EMB_ATTR_PRECISION));
  if (!mlirAttributeIsNull(p) && !mlirAttributeIsAString(p)) {
    char as[128];
    embPrintAttribute(p, as, sizeof as);
    fail(c, "precision must be a string, got %s", as);
  } else if (!mlirAttributeIsNull(p) &&
             (embGetStringAttr(c->op, EMB_ATTR_PRECISION, precision,
                               sizeof precision),
              strcmp(precision, "dense") != 0)) {
    checkQuantizedTable(c, precision);
  } else {
    if (!mlirAttributeIsNull(
            mlirOperationGetAttributeByName(c->op, embStr(EMB_ATTR_DIM))))
      fail(c, "'dim' is an attribute of a quantized table (precision) only");
    checkTableTensor(c, operandType(c, 0), "weight");
  }
  checkHandleResult(c, &tableHandle);
}

/// emb.state: an optimizer state, f32, [E] (one a row) or [E,D] (one an
/// element); which one an optimizer needs is checked where it is used.
static void verifyState(Checker *c) {
  if (!checkCounts(c, 1, 1))
    return;
  MlirType s = operandType(c, 0);
  if (checkRank(c, s, "state", -1)) {
    MlirType e = mlirShapedTypeGetElementType(s);
    char es[64];
    embPrintType(e, es, sizeof es);
    if (mlirShapedTypeGetRank(s) > 2)
      fail(c,
           "state must have rank 1 (one value a row, or an fp8 state's "
           "scales) or 2 (one value an element), got rank %lld",
           (long long)mlirShapedTypeGetRank(s));
    else if (!mlirTypeIsAF32(e) && !mlirTypeIsABF16(e) &&
             !(mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 8))
      fail(c, "state must hold f32, bf16 or i8 (fp8 codes), got %s", es);
  }
  checkHandleResult(c, &stateHandle);
}

/// The tensor type behind a handle made by `k`'s op (its operand), or a
/// null type if `v` is not such a handle.
static MlirType handleTensor(MlirValue v, const HandleKind *k) {
  if (!mlirValueIsAOpResult(v))
    return (MlirType){NULL};
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!embOpIs(def, k->maker) || mlirOperationGetNumOperands(def) != 1)
    return (MlirType){NULL};
  return mlirValueGetType(mlirOperationGetOperand(def, 0));
}

/// The tensor type of handle operand `i`; reports and returns a null type
/// if the operand is not a handle made by `k`'s op.
static MlirType handleOperand(Checker *c, intptr_t i, const char *name,
                              const HandleKind *k) {
  MlirValue v = mlirOperationGetOperand(c->op, i);
  char ts[128];
  if (!isHandle(mlirValueGetType(v), k)) {
    embPrintType(mlirValueGetType(v), ts, sizeof ts);
    fail(c, "%s must be an %s made by '%s', got %s", name, k->type, k->maker,
         ts);
    return (MlirType){NULL};
  }
  MlirType tensor = handleTensor(v, k);
  if (mlirTypeIsNull(tensor))
    fail(c,
         "%s must be made by '%s' (the %s's shape is read from it), not "
         "passed in",
         name, k->maker, k->what);
  return tensor;
}

/// emb.tbe's operands and attributes: indices, offsets, the tables through
/// their handles, feature_tables, pooling, bounds_check, padding_idx,
/// per-sample weights. False if they are too malformed for the output to
/// be checked.
static bool checkTbeLookup(Checker *c, Lookup *lk) {
  MlirType idx = operandType(c, lk->indices), off = operandType(c, lk->offsets);
  if (!checkRank(c, idx, "indices", 1) || !checkRank(c, off, "offsets", 1))
    return false;
  if (!checkIndexInt(c, idx, "indices") || !checkIndexInt(c, off, "offsets"))
    return false;
  checkSameElement(c, idx, "indices", off, "offsets");

  char bc[16];
  checkEnumAttr(c, "pooling", true, poolingModes, lk->pooling,
                sizeof lk->pooling);
  checkEnumAttr(c, "bounds_check", false, boundsCheckModes, bc, sizeof bc);

  // Tables (through their handles): rank 2, D in 1 to EMB_MAX_TABLE_DIM,
  // the dense ones of one float type; quantized ones (checked by their
  // emb.table) only in a forward.
  int64_t minRows = -1;
  lk->table0 = (MlirType){NULL};
  for (int64_t t = 0; t < lk->numTables; ++t) {
    char name[32];
    snprintf(name, sizeof name, "weights_%lld", (long long)t);
    MlirType w = handleOperand(c, lk->firstTable + t, name, &tableHandle);
    if (mlirTypeIsNull(w))
      return false;
    EmbTableInfo info;
    embGetTableInfo(mlirOperationGetOperand(c->op, lk->firstTable + t), &info);
    if (embTableIsQuantized(&info)) {
      if (!embOpIs(c->op, EMB_OP_TBE)) {
        fail(c,
             "%s is an %s table; emb.tbe_backward updates dense tables "
             "only",
             name, info.precisionName);
        return false;
      }
      if (!mlirTypeIsAInteger(mlirShapedTypeGetElementType(w)))
        return false; // its emb.table reports it
    } else if (!checkTableTensor(c, w, name)) {
      return false;
    } else if (mlirTypeIsNull(lk->table0)) {
      lk->table0 = w;
      snprintf(lk->table0Name, sizeof lk->table0Name, "%s", name);
    } else if (!checkSameElement(c, w, name, lk->table0, lk->table0Name)) {
      return false;
    }
    int64_t rows = embDim(w, 0);
    if (rows >= 0 && (minRows < 0 || rows < minRows))
      minRows = rows;
  }
  checkPaddingIdx(c, minRows, "the smallest table");

  // feature_tables: F >= 1 entries, each a table index.
  MlirAttribute ft =
      mlirOperationGetAttributeByName(c->op, embStr("feature_tables"));
  if (mlirAttributeIsNull(ft)) {
    fail(c, "requires attribute 'feature_tables'");
    return false;
  }
  if (!mlirAttributeIsADenseI64Array(ft)) {
    char as[128];
    embPrintAttribute(ft, as, sizeof as);
    fail(c, "feature_tables must be array<i64: ...>, got %s", as);
    return false;
  }
  lk->numFeatures = mlirDenseArrayGetNumElements(ft);
  if (lk->numFeatures == 0) {
    fail(c, "feature_tables must name at least one feature");
    return false;
  }
  lk->sumD = 0;
  lk->commonD = -2;
  for (int64_t f = 0; f < lk->numFeatures; ++f) {
    int64_t t = mlirDenseI64ArrayGetElement(ft, f);
    if (t < 0 || t >= lk->numTables) {
      fail(c, "feature_tables[%lld] is %lld but there are %lld tables",
           (long long)f, (long long)t, (long long)lk->numTables);
      return false;
    }
    EmbTableInfo info;
    embGetTableInfo(mlirOperationGetOperand(c->op, lk->firstTable + t), &info);
    int64_t d = info.dim;
    // Unknown, or out of range (its emb.table reports it; summing such D
    // could overflow).
    if (d < 0 || d > EMB_MAX_TABLE_DIM) {
      lk->sumD = -1;
      continue;
    }
    if (lk->sumD >= 0)
      lk->sumD += d;
    if (lk->commonD == -2)
      lk->commonD = d;
    else if (lk->commonD != d)
      lk->commonD = -1;
  }

  // feature_ends (emb.tbe only): offsets carries 2F more entries, the ends
  // each feature's own offsets must have (emb-batch-tables).
  MlirAttribute ends =
      mlirOperationGetAttributeByName(c->op, embStr(EMB_ATTR_FEATURE_ENDS));
  lk->endsEntries = 0;
  if (!mlirAttributeIsNull(ends)) {
    if (!embOpIs(c->op, EMB_OP_TBE)) {
      fail(c, "feature_ends is an attribute of 'emb.tbe' only");
      return false;
    }
    if (!mlirAttributeIsAUnit(ends)) {
      char as[128];
      embPrintAttribute(ends, as, sizeof as);
      fail(c, "attribute 'feature_ends' must be a unit attribute, got %s", as);
      return false;
    }
    lk->endsEntries = 2 * lk->numFeatures;
  }

  // Offsets are feature-major: F*B+1 entries (then 2F feature ends).
  int64_t o = embDim(off, 0);
  if (o >= 0 && lk->endsEntries > 0) {
    if (o < lk->endsEntries + 1) {
      fail(c,
           "offsets has %lld elements, fewer than F*B+1 offsets and the "
           "2F = %lld feature ends (feature_ends)",
           (long long)o, (long long)lk->endsEntries);
      return false;
    }
    o -= lk->endsEntries;
  }
  if (o == 0)
    fail(c, "offsets must have at least one element (F*B+1)");
  else if (o > 0 && (o - 1) % lk->numFeatures != 0)
    fail(c,
         "offsets has %lld elements, which is not F*B+1 for F = %lld "
         "features",
         (long long)o, (long long)lk->numFeatures);
  if (strcmp(lk->pooling, "none") == 0 && lk->commonD == -1)
    fail(c, "pooling none needs every feature's table to have the same "
            "number of columns");
  if (lk->psw >= 0)
    checkPerSampleWeights(c, lk, "pooling", "weights_0");
  checkMaskedOffsets(c, lk, bc);
  return true;
}

/// The output of an emb.tbe, [B, sum of D over features] ([N,D] for
/// pooling none), or its gradient: `name` in "must" messages, `the` in
/// sentences.
static void checkTbeOutput(Checker *c, const Lookup *lk, MlirType out,
                           const char *name, const char *the) {
  if (!checkRank(c, out, name, 2) || !checkFloat(c, out, name))
    return;
  if (!mlirTypeIsNull(lk->table0))
    checkF32OrSame(c, out, the, lk->table0, lk->table0Name);
  else if (lk->psw >= 0) { // quantized tables only: one 16-bit type at most
    MlirType pe = mlirShapedTypeGetElementType(operandType(c, lk->psw));
    MlirType oe = mlirShapedTypeGetElementType(out);
    if (!mlirTypeIsAF32(pe) && !mlirTypeIsAF32(oe) && !mlirTypeEqual(pe, oe)) {
      char ps[64], os[64];
      embPrintType(pe, ps, sizeof ps);
      embPrintType(oe, os, sizeof os);
      fail(c,
           "per_sample_weights hold %s but %s holds %s: over quantized "
           "tables, each is f32 or both hold one type",
           ps, the, os);
    }
  }
  int64_t o = embDim(operandType(c, lk->offsets), 0), f = lk->numFeatures;
  if (o > 0)
    o -= lk->endsEntries; // checkTbeLookup: at least 1 remains
  int64_t cols = embDim(out, 1);
  if (strcmp(lk->pooling, "none") != 0) {
    if (lk->sumD >= 0 && cols >= 0 && cols != lk->sumD)
      fail(c,
           "%s has %lld columns but the features' tables sum to %lld (sum "
           "of D over features)",
           the, (long long)cols, (long long)lk->sumD);
    int64_t b = embDim(out, 0);
    // Compared as (o-1)/F against B: F*B+1 overflows at huge static B.
    if (o > 0 && (o - 1) % f == 0 && b >= 0 && (o - 1) / f != b) {
      if (b <= (INT64_MAX - 1) / f && lk->endsEntries > 0)
        fail(c,
             "offsets has %lld elements before its %lld feature ends but %s "
             "has %lld rows (offsets must have F*B+1 = %lld)",
             (long long)o, (long long)lk->endsEntries, the, (long long)b,
             (long long)(f * b + 1));
      else if (b <= (INT64_MAX - 1) / f)
        fail(c,
             "offsets has %lld elements but %s has %lld rows (offsets must "
             "have F*B+1 = %lld)",
             (long long)o, the, (long long)b, (long long)(f * b + 1));
      else
        fail(c,
             "offsets has %lld elements but %s has %lld rows (offsets must "
             "have F*B+1, more than INT64_MAX, for F = %lld)",
             (long long)o, the, (long long)b, (long long)f);
    }
    return;
  }
  if (lk->commonD >= 0 && cols >= 0 && cols != lk->commonD)
    fail(c, "%s has %lld columns but the tables have %lld", the,
         (long long)cols, (long long)lk->commonD);
  char what[96];
  snprintf(what, sizeof what, "%s has %%lld rows", the);
  checkDimsAgree(c, out, 0, what, operandType(c, lk->indices), 0,
                 "indices has %lld (pooling none gives one row per index)");
}

/// The sharding plan (dialect/sharding.h): one entry per table, ranks of
/// world_size, ranges that cover the table's rows or columns.
static void checkShardingPlan(Checker *c, const Lookup *lk) {
  int64_t rows[64], cols[64];
  if (lk->numTables > 64) {
    fail(c, "a sharding plan takes at most 64 tables, got %lld",
         (long long)lk->numTables);
    return;
  }
  for (int64_t t = 0; t < lk->numTables; ++t) {
    MlirValue handle = mlirOperationGetOperand(c->op, lk->firstTable + t);
    EmbTableInfo info;
    if (embGetTableInfo(handle, &info) && embTableIsQuantized(&info)) {
      fail(c,
           "a sharding plan takes dense tables only, but weights_%lld is an "
           "%s table",
           (long long)t, info.precisionName);
      return;
    }
    MlirType w = handleTensor(handle, &tableHandle);
    rows[t] = embDim(w, 0);
    cols[t] = embDim(w, 1);
  }
  int64_t world;
  char err[EMB_MAX_MESSAGE];
  if (!embReadShardingPlan(c->op, lk->numTables, rows, cols, &world, NULL, err,
                           sizeof err))
    fail(c, "%s", err);
}

static void verifyTbe(Checker *c) {
  intptr_t n = mlirOperationGetNumOperands(c->op);
  MlirAttribute seg =
      mlirOperationGetAttributeByName(c->op, embStr("operandSegmentSizes"));
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) != 4) {
    fail(c, "requires operandSegmentSizes = array<i32: 1, 1, T, 0 or 1>");
    return;
  }
  int32_t s[4];
  for (int i = 0; i < 4; ++i)
    s[i] = mlirDenseI32ArrayGetElement(seg, i);
  if (s[0] != 1 || s[1] != 1 || s[2] < 1 || s[3] < 0 || s[3] > 1 ||
      (intptr_t)s[0] + s[1] + s[2] + s[3] != n) {
    fail(c,
         "operandSegmentSizes must be array<i32: 1, 1, T, 0 or 1> with T >= "
         "1 summing to the %lld operands, got array<i32: %d, %d, %d, %d>",
         (long long)n, s[0], s[1], s[2], s[3]);
    return;
  }
  if (!checkCounts(c, n, n))
    return;
  Lookup lk = {.indices = 0,
               .offsets = 1,
               .firstTable = 2,
               .numTables = s[2],
               .psw = s[3] == 1 ? n - 1 : -1};
  if (!checkTbeLookup(c, &lk))
    return;
  checkTbeOutput(c, &lk, resultType(c), "result", "the result");
  if (embHasShardingPlan(c->op))
    checkShardingPlan(c, &lk);
}

//===----------------------------------------------------------------------===//
// emb.tbe_backward and emb.embedding_bag_backward
//===----------------------------------------------------------------------===//

static const char *const optimizers[] = {"sgd", "rowwise_adagrad", "adam",
                                         NULL};

/// embrtStatePrecision's names, in its order.
static const char *const statePrecisions[] = {"f32", "bf16", "fp8_e4m3",
                                              "fp8_e5m2", NULL};

static bool isFp8State(int precision) {
  return precision == EMBRT_STATE_FP8_E4M3 || precision == EMBRT_STATE_FP8_E5M2;
}

/// What one element of a state stored at `precision` is, for messages.
static const char *stateElement(int precision) {
  return precision == EMBRT_STATE_F32    ? "f32"
         : precision == EMBRT_STATE_BF16 ? "bf16"
                                         : "fp8 code";
}

/// The state tensors `optimizer` keeps per table: momentum1 (rowwise_adagrad
/// one f32 a row, adam m) and momentum2 (adam v).
static int statesPerTable(const char *optimizer) {
  return !strcmp(optimizer, "adam")              ? 2
         : !strcmp(optimizer, "rowwise_adagrad") ? 1
                                                 : 0;
}

/// A shape as "100x16" ("?" where dynamic); `rank` dims of `t`.
static void shapeText(MlirType t, int rank, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < rank && used < size; ++i) {
    int64_t d = embDim(t, i);
    int n = d < 0 ? snprintf(buf + used, size - used, "%s?", i ? "x" : "")
                  : snprintf(buf + used, size - used, "%s%lld", i ? "x" : "",
                             (long long)d);
    used += n > 0 ? (size_t)n : 0;
  }
}

/// The element type a state stored at `precision` holds: f32, bf16, or i8
/// codes of fp8.
static bool holdsPrecision(MlirType e, int precision) {
  switch (precision) {
  case EMBRT_STATE_F32:
    return mlirTypeIsAF32(e);
  case EMBRT_STATE_BF16:
    return mlirTypeIsABF16(e);
  default:
    return mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 8;
  }
}

/// Checks optimizer state `state` (named `name`, of group `group`: 1 or 2)
/// of `table` (`tableDesc`, e.g. "table 0"): of `precision`'s element type,
/// [rows] for rowwise_adagrad, [rows, D] for adam.
static void checkState(Checker *c, MlirType state, const char *name, int group,
                       int precision, MlirType table, const char *tableDesc,
                       const char *optimizer) {
  if (!checkRank(c, state, name, -1))
    return;
  MlirType e = mlirShapedTypeGetElementType(state);
  if (!holdsPrecision(e, precision)) {
    char es[64];
    embPrintType(e, es, sizeof es);
    if (precision == EMBRT_STATE_F32)
      fail(c, "%s must hold f32, got %s", name, es);
    else
      fail(c, "%s must hold %s (momentum%d_precision = \"%s\"), got %s", name,
           precision == EMBRT_STATE_BF16 ? "bf16" : "i8 (the fp8 codes)", group,
           statePrecisions[precision], es);
    return;
  }
  int rank = statesPerTable(optimizer) == 1 ? 1 : 2;
  int64_t have = mlirShapedTypeGetRank(state);
  bool ok = have == rank;
  for (int i = 0; ok && i < rank; ++i) {
    int64_t a = embDim(state, i), b = embDim(table, i);
    ok = a < 0 || b < 0 || a == b;
  }
  if (ok)
    return;
  char hs[64], ws[64];
  shapeText(state, (int)have, hs, sizeof hs);
  shapeText(table, rank, ws, sizeof ws);
  fail(c, "%s has shape %s but %s needs %s (one %s per %s of %s)", name, hs,
       optimizer, ws, stateElement(precision), rank == 1 ? "row" : "element",
       tableDesc);
}

/// Checks the f32 scales `scales` (named `name`) of an fp8 state of `table`:
/// [rows] for adam (one a row, rewritten by each update), [1] for
/// rowwise_adagrad (one a table, read only).
static void checkScales(Checker *c, MlirType scales, const char *name,
                        MlirType table, const char *tableDesc,
                        const char *optimizer) {
  if (!checkRank(c, scales, name, 1))
    return;
  MlirType e = mlirShapedTypeGetElementType(scales);
  char es[64], hs[64];
  if (!mlirTypeIsAF32(e)) {
    embPrintType(e, es, sizeof es);
    fail(c, "%s must hold f32, got %s", name, es);
    return;
  }
  bool perRow = statesPerTable(optimizer) == 2;
  int64_t have = embDim(scales, 0), want = perRow ? embDim(table, 0) : 1;
  if (have < 0 || want < 0 || have == want)
    return;
  shapeText(scales, 1, hs, sizeof hs);
  if (perRow)
    fail(c,
         "%s has shape %s but adam's fp8 states take one f32 scale per row of "
         "%s (%lld)",
         name, hs, tableDesc, (long long)want);
  else
    fail(c,
         "%s has shape %s but rowwise_adagrad's fp8 state takes one f32 "
         "scale per table (shape 1)",
         name, hs);
}

/// hyper_params (tensor<5xf32>, EMBRT_HYPER_* order), step (tensor<i64>,
/// required by adam) and the seed of the stochastic rounding.
static void checkHyperParams(Checker *c, const EmbBackwardOperands *ops,
                             const char *optimizer) {
  MlirType h = operandType(c, ops->hyper);
  char ts[128];
  if (!mlirTypeIsARankedTensor(h) || mlirShapedTypeGetRank(h) != 1 ||
      embDim(h, 0) != EMB_NUM_HYPER_PARAMS ||
      !mlirTypeIsAF32(mlirShapedTypeGetElementType(h))) {
    embPrintType(h, ts, sizeof ts);
    fail(c,
         "hyper_params must be tensor<%dxf32> (learning rate, eps, beta1, "
         "beta2, weight decay), got %s",
         EMB_NUM_HYPER_PARAMS, ts);
  }
  if (ops->step >= 0) {
    MlirType s = operandType(c, ops->step);
    if (!mlirTypeIsARankedTensor(s) || mlirShapedTypeGetRank(s) != 0 ||
        !mlirTypeIsAInteger(mlirShapedTypeGetElementType(s)) ||
        !mlirIntegerTypeIsSignless(mlirShapedTypeGetElementType(s)) ||
        mlirIntegerTypeGetWidth(mlirShapedTypeGetElementType(s)) != 64) {
      embPrintType(s, ts, sizeof ts);
      fail(c, "step must be tensor<i64>, got %s", ts);
    }
  } else if (!strcmp(optimizer, "adam")) {
    fail(c, "optimizer adam needs a step operand (tensor<i64>: t >= 1 of "
            "the bias correction)");
  }
  MlirAttribute seed = mlirOperationGetAttributeByName(c->op, embStr("seed"));
  if (!mlirAttributeIsNull(seed) && !mlirAttributeIsAInteger(seed)) {
    embPrintAttribute(seed, ts, sizeof ts);
    fail(c, "attribute 'seed' must be an integer, got %s", ts);
  }
}

/// The results: one per updated operand, in operand order, spelled by
/// resultSegmentSizes = array<i32: T, momentum1s, momentum2s>; handles of
/// the same kind for emb.tbe_backward, the operand's type for the bag.
static bool checkBackwardResults(Checker *c, const EmbBackwardOperands *ops) {
  int64_t want[3] = {ops->numTables, ops->numMomentum1, ops->numMomentum2};
  MlirAttribute seg =
      mlirOperationGetAttributeByName(c->op, embStr("resultSegmentSizes"));
  bool ok = !mlirAttributeIsNull(seg) && mlirAttributeIsADenseI32Array(seg) &&
            mlirDenseArrayGetNumElements(seg) == 3;
  for (int i = 0; ok && i < 3; ++i)
    ok = mlirDenseI32ArrayGetElement(seg, i) == want[i];
  if (!ok) {
    char as[128] = "nothing";
    if (!mlirAttributeIsNull(seg))
      embPrintAttribute(seg, as, sizeof as);
    fail(c,
         "resultSegmentSizes must be array<i32: %lld, %lld, %lld> (the "
         "updated tables, momentum1 and momentum2), got %s",
         (long long)want[0], (long long)want[1], (long long)want[2], as);
    return false;
  }
  intptr_t n = want[0] + want[1] + want[2];
  if (mlirOperationGetNumResults(c->op) != n) {
    fail(c, "expects %lld results (the updated tables and states), got %lld",
         (long long)n, (long long)mlirOperationGetNumResults(c->op));
    return false;
  }
  for (intptr_t k = 0; k < n; ++k) {
    int64_t t;
    int group = embBackwardGroup(ops, k, &t);
    char name[32], ts[128], ws[128];
    embBackwardUpdatedName(ops, k, name, sizeof name);
    MlirType r = mlirValueGetType(mlirOperationGetResult(c->op, k));
    MlirType operand = operandType(c, embBackwardUpdatedOperand(ops, k));
    const HandleKind *kind =
        group == EMB_BACKWARD_TABLES ? &tableHandle : &stateHandle;
    embPrintType(r, ts, sizeof ts);
    if (ops->isTbe && !isHandle(r, kind)) {
      fail(c, "the result for %s must be %s, got %s", name, kind->type, ts);
      return false;
    }
    if (!ops->isTbe && !mlirTypeEqual(r, operand)) {
      embPrintType(operand, ws, sizeof ws);
      fail(c, "the result for %s must have its type %s, got %s", name, ws, ts);
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The aliasing contract: an updated operand is not read after the op
//===----------------------------------------------------------------------===//

/// The most values checkUpdatedOperands follows per operand.
enum { maxAliases = 64 };

static void addAlias(MlirValue *set, int *n, MlirValue v) {
  for (int i = 0; i < *n; ++i)
    if (mlirValueEqual(set[i], v))
      return;
  if (*n < maxAliases)
    set[(*n)++] = v;
}

/// The values whose buffer is `v`'s once lowered: up through the ops that
/// alias their operand (embIsBufferAlias) and down through such users. Not
/// through a backward op: its results are the updated values.
static int bufferAliases(MlirValue v, MlirValue *set) {
  int n = 0;
  addAlias(set, &n, v);
  for (int i = 0; i < n; ++i) {
    MlirValue x = set[i];
    if (mlirValueIsAOpResult(x) && embIsBufferAlias(mlirOpResultGetOwner(x)))
      addAlias(set, &n, mlirOperationGetOperand(mlirOpResultGetOwner(x), 0));
    for (MlirOpOperand u = mlirValueGetFirstUse(x); !mlirOpOperandIsNull(u);
         u = mlirOpOperandGetNextUse(u)) {
      MlirOperation user = mlirOpOperandGetOwner(u);
      if (embIsBufferAlias(user) && mlirOpOperandGetOperandNumber(u) == 0 &&
          mlirOperationGetNumResults(user) == 1)
        addAlias(set, &n, mlirOperationGetResult(user, 0));
    }
  }
  return n;
}

/// The first op that uses `v` after `op`: in `op`'s block, or nested in an
/// op that comes after `op` there. Null if none.
static MlirOperation useAfter(MlirOperation op, MlirValue v) {
  MlirBlock block = mlirOperationGetBlock(op);
  MlirOperation first = {NULL}, firstAncestor = {NULL};
  if (mlirBlockIsNull(block))
    return first;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u), a = user;
    while (!mlirOperationIsNull(a) &&
           !mlirBlockEqual(mlirOperationGetBlock(a), block))
      a = mlirOperationGetParentOperation(a);
    if (mlirOperationIsNull(a) || mlirOperationEqual(a, op) ||
        !mlirOperationIsBeforeInBlock(op, a))
      continue;
    if (mlirOperationIsNull(first) ||
        mlirOperationIsBeforeInBlock(a, firstAncestor)) {
      first = user;
      firstAncestor = a;
    }
  }
  return first;
}

/// The tables and states a backward op updates are its operands' buffers
/// once lowered: none may be read after the op (through any value sharing
/// its buffer), and no two may be one buffer.
static void checkUpdatedOperands(Checker *c, const EmbBackwardOperands *ops) {
  intptr_t n = ops->numTables + ops->numMomentum1 + ops->numMomentum2;
  for (intptr_t k = 0; k < n; ++k) {
    char name[32];
    embBackwardUpdatedName(ops, k, name, sizeof name);
    MlirValue v =
        mlirOperationGetOperand(c->op, embBackwardUpdatedOperand(ops, k));
    MlirValue set[maxAliases];
    int m = bufferAliases(v, set);
    for (int i = 0; i < m; ++i) {
      MlirOperation user = useAfter(c->op, set[i]);
      if (mlirOperationIsNull(user))
        continue;
      char userName[64], loc[256];
      embOpName(user, userName, sizeof userName);
      embFormatLocation(mlirOperationGetLocation(user), loc, sizeof loc);
      fail(c,
           "%s is updated in place, but '%s' at %s reads it after this op "
           "(it or a value sharing its buffer); use this op's result",
           name, userName, loc);
      break;
    }
    MlirValue root = embBufferRoot(v);
    for (intptr_t j = 0; j < k; ++j) {
      MlirValue other =
          mlirOperationGetOperand(c->op, embBackwardUpdatedOperand(ops, j));
      if (!mlirValueEqual(root, embBufferRoot(other)))
        continue;
      char otherName[32];
      embBackwardUpdatedName(ops, j, otherName, sizeof otherName);
      fail(c,
           "%s and %s are one buffer: an op updates each table and state "
           "once (features share a table through feature_tables)",
           name, otherName);
      break;
    }
  }
}

//===----------------------------------------------------------------------===//
// The backward ops
//===----------------------------------------------------------------------===//

static void verifyBackward(Checker *c, bool isTbe) {
  EmbBackwardOperands ops;
  if (!embGetBackwardOperands(c->op, &ops)) {
    fail(c,
         "operandSegmentSizes must be array<i32: %s> summing to the %lld "
         "operands",
         isTbe ? "1, 1, T, 0 or 1, 1, 0 or T, 0 or T, 1, 0 or 1"
               : "1, 1, 1, 0 or 1, 1, 0 or 1, 0 or 1, 1, 0 or 1",
         (long long)mlirOperationGetNumOperands(c->op));
    return;
  }
  if (ops.numTables < 1) {
    fail(c, "needs at least one table (operandSegmentSizes[2] is 0)");
    return;
  }
  Lookup lk = {.indices = ops.indices,
               .offsets = ops.offsets,
               .firstTable = ops.firstTable,
               .numTables = ops.numTables,
               .psw = ops.psw};
  if (isTbe ? !checkTbeLookup(c, &lk) : !checkBagLookup(c, &lk))
    return;
  MlirType grad = operandType(c, ops.grad);
  if (isTbe)
    checkTbeOutput(c, &lk, grad, "grad_output", "grad_output");
  else
    checkBagOutput(c, &lk, grad, "grad_output", "grad_output");

  char optimizer[24];
  if (!checkEnumAttr(c, "optimizer", true, optimizers, optimizer,
                     sizeof optimizer))
    return;
  int states = statesPerTable(optimizer);
  int precision[2];
  for (int g = 0; g < 2; ++g) {
    const char *attr =
        g ? EMB_ATTR_MOMENTUM2_PRECISION : EMB_ATTR_MOMENTUM1_PRECISION;
    char name[16];
    if (!checkEnumAttr(c, attr, false, statePrecisions, name, sizeof name))
      return;
    embParseStatePrecision(name, &precision[g]);
    if (precision[g] != EMBRT_STATE_F32 && states <= g) {
      fail(c,
           "attribute '%s' is \"%s\", but optimizer %s keeps no momentum%d "
           "(%s)",
           attr, name, optimizer, g + 1,
           states == 0 ? "it keeps no state" : "only momentum1");
      return;
    }
    // The bag's state groups are single tensors (its IRDL gives each group
    // one type), so an fp8 state's scales have no place there.
    if (!isTbe && isFp8State(precision[g])) {
      fail(c,
           "attribute '%s' is \"%s\", but emb.embedding_bag_backward keeps "
           "f32 or bf16 states: an fp8 state and its scales need "
           "emb.tbe_backward (one table, one feature)",
           attr, name);
      return;
    }
  }
  // Each state group: a state per table, then for fp8 a scale per table.
  int64_t want[2];
  for (int g = 0; g < 2; ++g)
    want[g] =
        states > g ? ops.numTables * (isFp8State(precision[g]) ? 2 : 1) : 0;
  if (ops.numMomentum1 != want[0] || ops.numMomentum2 != want[1]) {
    char what[160];
    if (states == 0)
      snprintf(what, sizeof what, "it keeps no state");
    else if (states == 1)
      snprintf(what, sizeof what, "one %s per table row, per table",
               stateElement(precision[0]));
    else if (precision[0] == precision[1])
      snprintf(what, sizeof what,
               "m and v, one %s per table element, per table",
               stateElement(precision[0]));
    else
      snprintf(what, sizeof what,
               "m and v, one %s and one %s per table element, per table",
               stateElement(precision[0]), stateElement(precision[1]));
    if (isFp8State(precision[0]) || isFp8State(precision[1]))
      snprintf(what + strlen(what), sizeof what - strlen(what),
               "; an fp8 state's codes are followed by its f32 scales");
    fail(c,
         "optimizer %s takes %lld momentum1 and %lld momentum2 operands (%s), "
         "got %lld and %lld",
         optimizer, (long long)want[0], (long long)want[1], what,
         (long long)ops.numMomentum1, (long long)ops.numMomentum2);
    return;
  }
  for (intptr_t k = ops.numTables;
       k < ops.numTables + ops.numMomentum1 + ops.numMomentum2; ++k) {
    int64_t t;
    int group = embBackwardGroup(&ops, k, &t);
    char name[32], tableDesc[32];
    embBackwardUpdatedName(&ops, k, name, sizeof name);
    intptr_t i = embBackwardUpdatedOperand(&ops, k);
    MlirType state =
        isTbe ? handleOperand(c, i, name, &stateHandle) : operandType(c, i);
    MlirValue tableValue = mlirOperationGetOperand(c->op, ops.firstTable + t);
    MlirType table = isTbe ? handleTensor(tableValue, &tableHandle)
                           : mlirValueGetType(tableValue);
    snprintf(tableDesc, sizeof tableDesc, isTbe ? "table %lld" : "weight",
             (long long)t);
    if (mlirTypeIsNull(state))
      continue;
    if (group == EMB_BACKWARD_MOMENTUM1_SCALES ||
        group == EMB_BACKWARD_MOMENTUM2_SCALES)
      checkScales(c, state, name, table, tableDesc, optimizer);
    else
      checkState(c, state, name, group, precision[group - 1], table, tableDesc,
                 optimizer);
  }
  checkHyperParams(c, &ops, optimizer);
  if (checkBackwardResults(c, &ops))
    checkUpdatedOperands(c, &ops);
  if (isTbe && embHasShardingPlan(c->op))
    checkShardingPlan(c, &lk);
}

static void verifyTbeBackward(Checker *c) { verifyBackward(c, true); }

static void verifyEmbeddingBagBackward(Checker *c) { verifyBackward(c, false); }

/// emb.table_value: the tensor a handle names; the result has its type.
static void verifyTableValue(Checker *c) {
  if (!checkCounts(c, 1, 1))
    return;
  MlirValue h = mlirOperationGetOperand(c->op, 0);
  char ts[128], rs[128];
  embPrintType(mlirValueGetType(h), ts, sizeof ts);
  if (!isHandle(mlirValueGetType(h), &tableHandle) &&
      !isHandle(mlirValueGetType(h), &stateHandle)) {
    fail(c, "handle must be an !emb.table_handle or !emb.state_handle, got %s",
         ts);
    return;
  }
  MlirType tensor = embHandleTensorType(h);
  if (mlirTypeIsNull(tensor)) {
    fail(c, "handle must be made by 'emb.tbe_backward', 'emb.table' or "
            "'emb.state' (its tensor type is read from there), not passed in");
    return;
  }
  if (!mlirTypeEqual(tensor, resultType(c))) {
    embPrintType(resultType(c), rs, sizeof rs);
    embPrintType(tensor, ts, sizeof ts);
    fail(c, "the result type %s must be the handle's tensor type %s", rs, ts);
  }
}

//===----------------------------------------------------------------------===//
// emb.broadcast and emb.broadcast_add
//===----------------------------------------------------------------------===//

/// Checks `row` ([U, ...], named rowName) against a candidate-batched
/// `cand` ([B, ...]) of the same trailing shape and element type.
static void checkTrailingAgree(Checker *c, MlirType user, const char *uName,
                               MlirType cand, const char *cName) {
  int64_t ru = mlirShapedTypeGetRank(user), rc = mlirShapedTypeGetRank(cand);
  if (ru != rc) {
    fail(c, "%s has rank %lld but %s has rank %lld", uName, (long long)ru,
         cName, (long long)rc);
    return;
  }
  for (intptr_t i = 1; i < ru; ++i) {
    int64_t a = embDim(user, i), b = embDim(cand, i);
    if (a >= 0 && b >= 0 && a != b) {
      fail(c, "%s dim %lld is %lld but %s dim %lld is %lld", uName,
           (long long)i, (long long)a, cName, (long long)i, (long long)b);
      return;
    }
  }
  checkSameElement(c, user, uName, cand, cName);
}

static void verifyBroadcast(Checker *c) {
  if (!checkCounts(c, 2, 2))
    return;
  MlirType ro = operandType(c, 0), idx = operandType(c, 1), res = resultType(c);
  if (!checkRank(c, ro, "ro", -1) || !checkRank(c, idx, "cand_to_user", 1) ||
      !checkRank(c, res, "result", -1) ||
      !checkIndexInt(c, idx, "cand_to_user"))
    return;
  checkTrailingAgree(c, ro, "ro", res, "the result");
  checkDimsAgree(c, idx, 0, "cand_to_user has %lld rows", res, 0,
                 "the result has %lld");
}

static void verifyBroadcastAdd(Checker *c) {
  if (!checkCounts(c, 3, 3))
    return;
  MlirType ro = operandType(c, 0), idx = operandType(c, 1),
           nro = operandType(c, 2), res = resultType(c);
  if (!checkRank(c, ro, "ro", -1) || !checkRank(c, idx, "cand_to_user", 1) ||
      !checkRank(c, nro, "nro", -1) || !checkRank(c, res, "result", -1) ||
      !checkIndexInt(c, idx, "cand_to_user") || !checkFloat(c, ro, "ro") ||
      !checkFloat(c, nro, "nro"))
    return;
  checkTrailingAgree(c, ro, "ro", nro, "nro");
  checkDimsAgree(c, idx, 0, "cand_to_user has %lld rows", nro, 0,
                 "nro has %lld");
  if (!mlirTypeEqual(nro, res)) {
    char a[128], b[128];
    embPrintType(res, a, sizeof a);
    embPrintType(nro, b, sizeof b);
    fail(c, "the result type %s must equal nro's type %s", a, b);
  }
}

//===----------------------------------------------------------------------===//
// emb.lce and emb.ikbo_lce
//===----------------------------------------------------------------------===//

static void verifyLce(Checker *c) {
  if (!checkCounts(c, 2, 2))
    return;
  MlirType w = operandType(c, 0), x = operandType(c, 1), res = resultType(c);
  if (!checkRank(c, w, "w", 2) || !checkRank(c, x, "x", 3) ||
      !checkRank(c, res, "result", 3) || !checkFloat(c, w, "w"))
    return;
  if (!checkSameElement(c, x, "x", w, "w") ||
      !checkSameElement(c, res, "the result", w, "w"))
    return;
  // Its f32 product is cuBLAS's exact one; the compute types belong to
  // emb.ikbo_lce (what emb-ikbo makes of a broadcast LCE).
  if (!mlirAttributeIsNull(
          mlirOperationGetAttributeByName(c->op, embStr("compute_type"))))
    fail(c, "attribute 'compute_type' is not supported here (f32 emb.lce "
            "is exact); emb.ikbo_lce takes it");
  checkDimsAgree(c, w, 1, "w has %lld columns (K)", x, 1,
                 "x has %lld rows per batch (K)");
  checkDimsAgree(c, res, 0, "the result has batch %lld", x, 0,
                 "x has batch %lld");
  checkDimsAgree(c, res, 1, "the result has %lld rows per batch", w, 0,
                 "w has %lld rows (M)");
  checkDimsAgree(c, res, 2, "the result has %lld columns", x, 2,
                 "x has %lld (N)");
}

static void verifyIkboLce(Checker *c) {
  if (!checkCounts(c, 5, 5))
    return;
  MlirType wu = operandType(c, 0), wc = operandType(c, 1),
           u = operandType(c, 2), cand = operandType(c, 3),
           idx = operandType(c, 4), res = resultType(c);
  if (!checkRank(c, wu, "w_user", 2) || !checkRank(c, wc, "w_cand", 2) ||
      !checkRank(c, u, "user", 3) || !checkRank(c, cand, "cand", 3) ||
      !checkRank(c, idx, "cand_to_user", 1) ||
      !checkRank(c, res, "result", 3) || !checkFloat(c, wc, "w_cand") ||
      !checkIndexInt(c, idx, "cand_to_user"))
    return;
  if (!checkSameElement(c, wu, "w_user", wc, "w_cand") ||
      !checkSameElement(c, u, "user", wc, "w_cand") ||
      !checkSameElement(c, cand, "cand", wc, "w_cand") ||
      !checkSameElement(c, res, "the result", wc, "w_cand"))
    return;
  checkComputeType(c, "w_user, w_cand, user and cand");
  checkDimsAgree(c, wu, 0, "w_user has %lld rows", wc, 0,
                 "w_cand has %lld (M)");
  checkDimsAgree(c, wu, 1, "w_user has %lld columns (Ku)", u, 1,
                 "user has %lld rows per user (Ku)");
  checkDimsAgree(c, wc, 1, "w_cand has %lld columns (Kc)", cand, 1,
                 "cand has %lld rows per candidate (Kc)");
  checkDimsAgree(c, u, 2, "user has %lld columns", cand, 2,
                 "cand has %lld (N)");
  checkDimsAgree(c, idx, 0, "cand_to_user has %lld rows", cand, 0,
                 "cand has %lld candidates");
  checkDimsAgree(c, res, 0, "the result has batch %lld", cand, 0,
                 "cand has %lld candidates");
  checkDimsAgree(c, res, 1, "the result has %lld rows per batch", wc, 0,
                 "w_cand has %lld (M)");
  checkDimsAgree(c, res, 2, "the result has %lld columns", cand, 2,
                 "cand has %lld (N)");
}

//===----------------------------------------------------------------------===//
// emb.attention and emb.ikbo_attention
//===----------------------------------------------------------------------===//

/// additive_mask: a unit attribute, only with the key lengths (operand
/// `lengthsAt`) it makes additive.
static void checkAdditiveMask(Checker *c, intptr_t lengthsAt,
                              const char *lengths) {
  MlirAttribute a =
      mlirOperationGetAttributeByName(c->op, embStr(EMB_ATTR_ADDITIVE_MASK));
  if (mlirAttributeIsNull(a))
    return;
  if (!mlirAttributeIsAUnit(a)) {
    char as[128];
    embPrintAttribute(a, as, sizeof as);
    fail(c, "attribute 'additive_mask' must be a unit attribute, got %s", as);
    return;
  }
  if (mlirOperationGetNumOperands(c->op) <= lengthsAt)
    fail(c, "additive_mask needs %s (the mask it makes additive)", lengths);
}

/// Checks q/k/v/result shapes: q[B,Lq,H,Dh], k and v [X,Lk,H,Dh] where X is
/// B (plain) or U (ikbo), result like q.
static bool checkAttentionShapes(Checker *c, const char *kName,
                                 const char *vName, bool kBatchIsB) {
  MlirType q = operandType(c, 0), k = operandType(c, 1), v = operandType(c, 2),
           res = resultType(c);
  if (!checkRank(c, q, "q", 4) || !checkRank(c, k, kName, 4) ||
      !checkRank(c, v, vName, 4) || !checkRank(c, res, "result", 4) ||
      !checkFloat(c, q, "q"))
    return false;
  if (!checkSameElement(c, k, kName, q, "q") ||
      !checkSameElement(c, v, vName, q, "q"))
    return false;
  if (!mlirTypeEqual(res, q)) {
    char a[128], b[128];
    embPrintType(res, a, sizeof a);
    embPrintType(q, b, sizeof b);
    fail(c, "the result type %s must equal q's type %s", a, b);
    return false;
  }
  char what[64];
  snprintf(what, sizeof what, "%s has %%lld keys", vName);
  char kWhat[64];
  snprintf(kWhat, sizeof kWhat, "%s has %%lld keys", kName);
  bool ok = true;
  if (kBatchIsB) {
    ok &= checkDimsAgree(c, k, 0, "k has batch %lld", q, 0, "q has %lld");
    ok &= checkDimsAgree(c, v, 0, "v has batch %lld", q, 0, "q has %lld");
  } else {
    ok &= checkDimsAgree(c, v, 0, "v_user has %lld users", k, 0,
                         "k_user has %lld");
  }
  ok &= checkDimsAgree(c, v, 1, what, k, 1, kWhat);
  char hq[64], hk[64], hv[64];
  snprintf(hk, sizeof hk, "%s has %%lld heads", kName);
  snprintf(hv, sizeof hv, "%s has %%lld heads", vName);
  snprintf(hq, sizeof hq, "q has %%lld");
  ok &= checkDimsAgree(c, k, 2, hk, q, 2, hq);
  ok &= checkDimsAgree(c, v, 2, hv, q, 2, hq);
  char dk[64], dv[64];
  snprintf(dk, sizeof dk, "%s has head dim %%lld", kName);
  snprintf(dv, sizeof dv, "%s has head dim %%lld", vName);
  ok &= checkDimsAgree(c, k, 3, dk, q, 3, "q has %lld");
  ok &= checkDimsAgree(c, v, 3, dv, q, 3, "q has %lld");
  return ok;
}

static void verifyAttention(Checker *c) {
  if (!checkCounts(c, 3, 4))
    return;
  if (!checkAttentionShapes(c, "k", "v", true))
    return;
  checkScale(c);
  checkComputeType(c, "q, k and v");
  checkAdditiveMask(c, 3, "key_lengths");
  if (mlirOperationGetNumOperands(c->op) == 4) {
    MlirType q = operandType(c, 0), len = operandType(c, 3);
    if (!checkRank(c, len, "key_lengths", 1) ||
        !checkIndexInt(c, len, "key_lengths"))
      return;
    checkDimsAgree(c, len, 0, "key_lengths has %lld entries", q, 0,
                   "q has %lld rows");
  }
}

static void verifyIkboAttention(Checker *c) {
  if (!checkCounts(c, 4, 5))
    return;
  if (!checkAttentionShapes(c, "k_user", "v_user", false))
    return;
  checkScale(c);
  checkComputeType(c, "q, k_user and v_user");
  checkAdditiveMask(c, 4, "user_lengths");
  MlirType q = operandType(c, 0), k = operandType(c, 1),
           idx = operandType(c, 3);
  if (!checkRank(c, idx, "cand_to_user", 1) ||
      !checkIndexInt(c, idx, "cand_to_user"))
    return;
  checkDimsAgree(c, idx, 0, "cand_to_user has %lld rows", q, 0,
                 "q has %lld candidates");
  if (mlirOperationGetNumOperands(c->op) == 5) {
    MlirType len = operandType(c, 4);
    if (!checkRank(c, len, "user_lengths", 1) ||
        !checkIndexInt(c, len, "user_lengths"))
      return;
    checkDimsAgree(c, len, 0, "user_lengths has %lld entries", k, 0,
                   "k_user has %lld users");
  }
}

//===----------------------------------------------------------------------===//
// Sharding: emb.bucketize, emb.lengths_to_offsets and the collectives
//===----------------------------------------------------------------------===//

/// Checks the integer attribute `world_size` (1..EMB_MAX_WORLD_SIZE) and
/// returns it, or -1.
static int64_t checkWorldSize(Checker *c, const char *name) {
  MlirAttribute a = mlirOperationGetAttributeByName(c->op, embStr(name));
  if (mlirAttributeIsNull(a)) {
    fail(c, "requires attribute '%s'", name);
    return -1;
  }
  if (!mlirAttributeIsAInteger(a) || mlirIntegerAttrGetValueInt(a) < 1 ||
      mlirIntegerAttrGetValueInt(a) > EMB_MAX_WORLD_SIZE) {
    char as[128];
    embPrintAttribute(a, as, sizeof as);
    fail(c, "%s must be an integer in 1..%d, got %s", name, EMB_MAX_WORLD_SIZE,
         as);
    return -1;
  }
  return mlirIntegerAttrGetValueInt(a);
}

/// The array<i64> attribute `name` with `n` entries (-1: any), or null.
static MlirAttribute checkI64Array(Checker *c, const char *name, int64_t n) {
  MlirAttribute a = mlirOperationGetAttributeByName(c->op, embStr(name));
  if (mlirAttributeIsNull(a)) {
    fail(c, "requires attribute '%s'", name);
    return a;
  }
  if (!mlirAttributeIsADenseI64Array(a) ||
      (n >= 0 && mlirDenseArrayGetNumElements(a) != n)) {
    char as[128];
    embPrintAttribute(a, as, sizeof as);
    if (n >= 0)
      fail(c, "%s must be array<i64> with %lld entries, got %s", name,
           (long long)n, as);
    else
      fail(c, "%s must be array<i64: ...>, got %s", name, as);
    return (MlirAttribute){NULL};
  }
  return a;
}

/// Checks that `t` is a rank-1 tensor of `n` (-1: any) i64.
static bool checkCounts64(Checker *c, MlirType t, const char *name, int64_t n) {
  if (!checkRank(c, t, name, 1))
    return false;
  MlirType e = mlirShapedTypeGetElementType(t);
  if (!mlirTypeIsAInteger(e) || !mlirIntegerTypeIsSignless(e) ||
      mlirIntegerTypeGetWidth(e) != 64) {
    char es[64];
    embPrintType(e, es, sizeof es);
    fail(c, "%s must hold i64, got %s", name, es);
    return false;
  }
  int64_t d = embDim(t, 0);
  if (n >= 0 && d >= 0 && d != n) {
    fail(c, "%s has %lld entries but world_size is %lld", name, (long long)d,
         (long long)n);
    return false;
  }
  return true;
}

static bool checkResults(Checker *c, intptr_t n) {
  if (mlirOperationGetNumResults(c->op) == n)
    return true;
  fail(c, "expects %lld results, got %lld", (long long)n,
       (long long)mlirOperationGetNumResults(c->op));
  return false;
}

static MlirType resultTypeAt(Checker *c, intptr_t i) {
  return mlirValueGetType(mlirOperationGetResult(c->op, i));
}

/// emb.bucketize(indices[N], offsets[F*B+1], per_sample_weights[N]?)
///   {world_size, slot_*} -> (ids[?], lengths[S*B], counts[W] i64,
///   weights[?]?)
static void verifyBucketize(Checker *c) {
  intptr_t numOperands = mlirOperationGetNumOperands(c->op);
  if (numOperands != 2 && numOperands != 3) {
    fail(c,
         "expects 2 operands (indices, offsets) or 3 (and "
         "per_sample_weights), got %lld",
         (long long)numOperands);
    return;
  }
  bool weighted = numOperands == 3;
  if (!checkResults(c, weighted ? 4 : 3))
    return;
  if (weighted) {
    MlirType psw = operandType(c, 2), w = resultTypeAt(c, 3);
    if (!checkRank(c, psw, "per_sample_weights", 1) ||
        !checkFloat(c, psw, "per_sample_weights") ||
        !checkRank(c, w, "weights", 1) ||
        !checkSameElement(c, w, "weights", psw, "per_sample_weights") ||
        !checkDimsAgree(c, psw, 0, "per_sample_weights has %lld elements",
                        operandType(c, 0), 0, "indices has %lld"))
      return;
  }
  MlirType idx = operandType(c, 0), off = operandType(c, 1);
  MlirType ids = resultTypeAt(c, 0), lens = resultTypeAt(c, 1),
           counts = resultTypeAt(c, 2);
  if (!checkRank(c, idx, "indices", 1) || !checkRank(c, off, "offsets", 1) ||
      !checkIndexInt(c, idx, "indices") || !checkIndexInt(c, off, "offsets") ||
      !checkSameElement(c, idx, "indices", off, "offsets"))
    return;
  if (!checkRank(c, ids, "ids", 1) || !checkRank(c, lens, "lengths", 1) ||
      !checkSameElement(c, ids, "ids", idx, "indices") ||
      !checkSameElement(c, lens, "lengths", off, "offsets"))
    return;
  int64_t world = checkWorldSize(c, "world_size");
  if (world < 0 || !checkCounts64(c, counts, "counts", world))
    return;
  MlirAttribute ranks = checkI64Array(c, "slot_ranks", -1);
  if (mlirAttributeIsNull(ranks))
    return;
  int64_t numSlots = mlirDenseArrayGetNumElements(ranks);
  if (numSlots == 0) {
    fail(c, "slot_ranks must name at least one slot");
    return;
  }
  MlirAttribute feats = checkI64Array(c, "slot_features", numSlots),
                begin = checkI64Array(c, "slot_row_begin", numSlots),
                end = checkI64Array(c, "slot_row_end", numSlots);
  if (mlirAttributeIsNull(feats) || mlirAttributeIsNull(begin) ||
      mlirAttributeIsNull(end))
    return;
  // B from the lengths, F from the offsets, where static.
  int64_t l = embDim(lens, 0), o = embDim(off, 0), f = -1;
  if (l >= 0 && l % numSlots != 0) {
    fail(c, "lengths has %lld entries, which is not S*B for S = %lld slots",
         (long long)l, (long long)numSlots);
    return;
  }
  if (l > 0 && o > 0) {
    int64_t b = l / numSlots;
    if ((o - 1) % b != 0) {
      fail(c, "offsets has %lld elements, which is not F*B+1 for B = %lld",
           (long long)o, (long long)b);
      return;
    }
    f = (o - 1) / b;
  }
  for (int64_t s = 0; s < numSlots; ++s) {
    int64_t r = mlirDenseI64ArrayGetElement(ranks, s);
    int64_t ft = mlirDenseI64ArrayGetElement(feats, s);
    int64_t lo = mlirDenseI64ArrayGetElement(begin, s);
    int64_t hi = mlirDenseI64ArrayGetElement(end, s);
    if (r < 0 || r >= world) {
      fail(c, "slot_ranks[%lld] is %lld, not a rank of world_size %lld",
           (long long)s, (long long)r, (long long)world);
      return;
    }
    if (s > 0 && r < mlirDenseI64ArrayGetElement(ranks, s - 1)) {
      fail(c,
           "slot_ranks must not decrease (each rank's slots are one block), "
           "got %lld after %lld",
           (long long)r, (long long)mlirDenseI64ArrayGetElement(ranks, s - 1));
      return;
    }
    if (ft < 0 || (f >= 0 && ft >= f)) {
      fail(c, "slot_features[%lld] is %lld but there are %lld features",
           (long long)s, (long long)ft, (long long)f);
      return;
    }
    if (lo < 0 || hi < lo) {
      fail(c,
           "slot %lld has rows [%lld, %lld): a range must start at 0 or "
           "more and not end before it starts",
           (long long)s, (long long)lo, (long long)hi);
      return;
    }
  }
}

/// emb.lengths_to_offsets(lengths[L]) {blocks = K}
///   -> (offsets[L+1], block_sums[K] i64)
static void verifyLengthsToOffsets(Checker *c) {
  if (mlirOperationGetNumOperands(c->op) != 1) {
    fail(c, "expects 1 operand, got %lld",
         (long long)mlirOperationGetNumOperands(c->op));
    return;
  }
  if (!checkResults(c, 2))
    return;
  MlirType lens = operandType(c, 0), off = resultTypeAt(c, 0),
           sums = resultTypeAt(c, 1);
  if (!checkRank(c, lens, "lengths", 1) || !checkIndexInt(c, lens, "lengths") ||
      !checkRank(c, off, "offsets", 1) ||
      !checkSameElement(c, off, "offsets", lens, "lengths"))
    return;
  int64_t blocks = checkWorldSize(c, "blocks");
  if (blocks < 0 || !checkRank(c, sums, "block_sums", 1))
    return;
  int64_t l = embDim(lens, 0), o = embDim(off, 0), k = embDim(sums, 0);
  if (l >= 0 && o >= 0 && o != l + 1)
    fail(c,
         "offsets has %lld elements but lengths has %lld (offsets must "
         "have one more)",
         (long long)o, (long long)l);
  if (l >= 0 && l % blocks != 0)
    fail(c, "lengths has %lld entries, which %lld blocks do not divide",
         (long long)l, (long long)blocks);
  if (k >= 0 && k != blocks)
    fail(c, "block_sums has %lld entries but blocks is %lld", (long long)k,
         (long long)blocks);
  MlirType e = mlirShapedTypeGetElementType(sums);
  if (!mlirTypeIsAInteger(e) || mlirIntegerTypeGetWidth(e) != 64)
    fail(c, "block_sums must hold i64");
}

/// A collective's send and receive buffers: one element type, rank >= 1,
/// equal trailing dims.
static bool checkBuffers(Checker *c, MlirType send, MlirType recv) {
  if (!checkRank(c, send, "send", -1) || !checkRank(c, recv, "result", -1) ||
      !checkSameElement(c, recv, "the result", send, "send"))
    return false;
  if (mlirShapedTypeGetRank(send) != mlirShapedTypeGetRank(recv)) {
    fail(c, "the result has rank %lld but send has rank %lld",
         (long long)mlirShapedTypeGetRank(recv),
         (long long)mlirShapedTypeGetRank(send));
    return false;
  }
  bool ok = true;
  for (intptr_t i = 1; i < mlirShapedTypeGetRank(send); ++i)
    ok &= checkDimsAgree(c, recv, i, "the result has %lld in a trailing dim",
                         send, i, "send has %lld");
  return ok;
}

/// Checks splits attribute `name` (W non-negative entries) and returns its
/// sum, or -1.
static int64_t checkSplits(Checker *c, const char *name, int64_t world) {
  MlirAttribute a = checkI64Array(c, name, world);
  if (mlirAttributeIsNull(a))
    return -1;
  int64_t sum = 0;
  for (int64_t i = 0; i < world; ++i) {
    int64_t v = mlirDenseI64ArrayGetElement(a, i);
    if (v < 0) {
      fail(c, "%s[%lld] is %lld, must not be negative", name, (long long)i,
           (long long)v);
      return -1;
    }
    if (v > INT64_MAX - sum) {
      fail(c, "%s sum past INT64_MAX (at %s[%lld] = %lld)", name, name,
           (long long)i, (long long)v);
      return -1;
    }
    sum += v;
  }
  return sum;
}

/// emb.all_to_all(send[N,...], send_counts[W]?, recv_counts[W]?)
///   {world_size, send_splits?, recv_splits?} -> [M,...]
static void verifyAllToAll(Checker *c) {
  intptr_t n = mlirOperationGetNumOperands(c->op);
  if (n != 1 && n != 3) {
    fail(c,
         "expects 1 operand (send, with send_splits and recv_splits) or 3 "
         "(send, send_counts, recv_counts), got %lld",
         (long long)n);
    return;
  }
  if (!checkResults(c, 1))
    return;
  int64_t world = checkWorldSize(c, "world_size");
  MlirType send = operandType(c, 0), recv = resultType(c);
  if (world < 0 || !checkBuffers(c, send, recv))
    return;
  bool hasSplits =
      !mlirAttributeIsNull(
          mlirOperationGetAttributeByName(c->op, embStr("send_splits"))) ||
      !mlirAttributeIsNull(
          mlirOperationGetAttributeByName(c->op, embStr("recv_splits")));
  if (n == 3) {
    if (hasSplits) {
      fail(c, "takes either the counts operands or the splits attributes, "
              "not both");
      return;
    }
    checkCounts64(c, operandType(c, 1), "send_counts", world);
    checkCounts64(c, operandType(c, 2), "recv_counts", world);
    return;
  }
  int64_t sendRows = checkSplits(c, "send_splits", world);
  int64_t recvRows = checkSplits(c, "recv_splits", world);
  if (sendRows < 0 || recvRows < 0)
    return;
  int64_t sn = embDim(send, 0), rn = embDim(recv, 0);
  if (sn >= 0 && sn != sendRows)
    fail(c, "send has %lld rows but send_splits sum to %lld", (long long)sn,
         (long long)sendRows);
  if (rn >= 0 && rn != recvRows)
    fail(c, "the result has %lld rows but recv_splits sum to %lld",
         (long long)rn, (long long)recvRows);
}

/// emb.reduce_scatter(send[W*M,...]) -> [M,...] and emb.all_gather(send[M,
/// ...]) -> [W*M,...]: `gather` says which.
static void verifyEqualBlocks(Checker *c, bool gather) {
  if (!checkCounts(c, 1, 1))
    return;
  int64_t world = checkWorldSize(c, "world_size");
  MlirType send = operandType(c, 0), recv = resultType(c);
  if (world < 0 || !checkBuffers(c, send, recv))
    return;
  MlirType big = gather ? recv : send, small = gather ? send : recv;
  int64_t b = embDim(big, 0), m = embDim(small, 0);
  if (!gather && !checkFloat(c, send, "send"))
    return;
  if (b >= 0 && m >= 0 && b != world * m)
    fail(c,
         "%s has %lld rows but %s has %lld: must be world_size (%lld) "
         "times as many",
         gather ? "the result" : "send", (long long)b,
         gather ? "send" : "the result", (long long)m, (long long)world);
}

static void verifyReduceScatter(Checker *c) { verifyEqualBlocks(c, false); }

static void verifyAllGather(Checker *c) { verifyEqualBlocks(c, true); }

//===----------------------------------------------------------------------===//
// Sequences: emb.jagged_to_padded
//===----------------------------------------------------------------------===//

/// The most rows a user's padded sequence may have (max_length).
enum { maxJaggedLength = 1 << 24 };

/// emb.jagged_to_padded(values[N,D], offsets[U+1]) {max_length = Lk,
///   padding_value?} -> (padded[U,Lk,D], lengths[U])
static void verifyJaggedToPadded(Checker *c) {
  if (mlirOperationGetNumOperands(c->op) != 2) {
    fail(c, "expects 2 operands (values, offsets), got %lld",
         (long long)mlirOperationGetNumOperands(c->op));
    return;
  }
  if (!checkResults(c, 2))
    return;
  MlirType values = operandType(c, 0), offsets = operandType(c, 1),
           padded = resultTypeAt(c, 0), lengths = resultTypeAt(c, 1);
  if (!checkRank(c, values, "values", 2) || !checkFloat(c, values, "values") ||
      !checkRank(c, offsets, "offsets", 1) ||
      !checkIndexInt(c, offsets, "offsets") ||
      !checkRank(c, padded, "padded", 3) ||
      !checkSameElement(c, padded, "padded", values, "values") ||
      !checkRank(c, lengths, "lengths", 1) ||
      !checkSameElement(c, lengths, "lengths", offsets, "offsets"))
    return;
  MlirAttribute lk =
      mlirOperationGetAttributeByName(c->op, embStr("max_length"));
  if (mlirAttributeIsNull(lk)) {
    fail(c, "requires attribute 'max_length'");
    return;
  }
  if (!mlirAttributeIsAInteger(lk) || mlirIntegerAttrGetValueInt(lk) < 1 ||
      mlirIntegerAttrGetValueInt(lk) > maxJaggedLength) {
    char as[128];
    embPrintAttribute(lk, as, sizeof as);
    fail(c, "max_length must be an integer in 1..%d, got %s", maxJaggedLength,
         as);
    return;
  }
  MlirAttribute pad =
      mlirOperationGetAttributeByName(c->op, embStr("padding_value"));
  if (!mlirAttributeIsNull(pad)) {
    double v =
        mlirAttributeIsAFloat(pad) ? mlirFloatAttrGetValueDouble(pad) : 0.0;
    if (!mlirAttributeIsAFloat(pad) || !(v == v)) {
      char as[128];
      embPrintAttribute(pad, as, sizeof as);
      fail(c,
           "attribute 'padding_value' must be a float that is not NaN, "
           "got %s",
           as);
      return;
    }
  }
  int64_t o = embDim(offsets, 0);
  if (o == 0) {
    fail(c, "offsets must have at least one element (U + 1 for U users)");
    return;
  }
  int64_t u = embDim(padded, 0), l = embDim(padded, 1);
  if (o > 0 && u >= 0 && u != o - 1)
    fail(c,
         "padded has %lld users but offsets has %lld elements (one more "
         "than the users)",
         (long long)u, (long long)o);
  int64_t want = mlirIntegerAttrGetValueInt(lk);
  if (l >= 0 && l != want)
    fail(c, "padded dim 1 is %lld but max_length is %lld", (long long)l,
         (long long)want);
  checkDimsAgree(c, values, 1, "values has rows of %lld", padded, 2,
                 "padded has rows of %lld");
  checkDimsAgree(c, lengths, 0, "lengths has %lld entries", padded, 0,
                 "padded has %lld users");
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

typedef struct {
  const char *name;
  void (*verify)(Checker *);
} OpVerifier;

static const OpVerifier verifiers[] = {
    {EMB_OP_EMBEDDING_BAG, verifyEmbeddingBag},
    {EMB_OP_TABLE, verifyTable},
    {EMB_OP_QUANTIZE_TABLE, verifyQuantizeTable},
    {EMB_OP_TBE, verifyTbe},
    {EMB_OP_BROADCAST, verifyBroadcast},
    {EMB_OP_LCE, verifyLce},
    {EMB_OP_IKBO_LCE, verifyIkboLce},
    {EMB_OP_ATTENTION, verifyAttention},
    {EMB_OP_IKBO_ATTENTION, verifyIkboAttention},
    {EMB_OP_BROADCAST_ADD, verifyBroadcastAdd},
    {EMB_OP_STATE, verifyState},
    {EMB_OP_TABLE_VALUE, verifyTableValue},
    {EMB_OP_TBE_BACKWARD, verifyTbeBackward},
    {EMB_OP_EMBEDDING_BAG_BACKWARD, verifyEmbeddingBagBackward},
    {EMB_OP_BUCKETIZE, verifyBucketize},
    {EMB_OP_LENGTHS_TO_OFFSETS, verifyLengthsToOffsets},
    {EMB_OP_ALL_TO_ALL, verifyAllToAll},
    {EMB_OP_REDUCE_SCATTER, verifyReduceScatter},
    {EMB_OP_ALL_GATHER, verifyAllGather},
    {EMB_OP_JAGGED_TO_PADDED, verifyJaggedToPadded},
};

bool embIsEmbOp(MlirOperation op) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length > 4 && memcmp(n.data, "emb.", 4) == 0;
}

typedef struct {
  bool failed;
} WalkState;

static MlirWalkResult verifyOne(MlirOperation op, void *userData) {
  WalkState *state = userData;
  if (!embIsEmbOp(op))
    return MlirWalkResultAdvance;
  Checker c = {.op = op, .failed = false};
  embOpName(op, c.opName, sizeof c.opName);
  for (size_t i = 0; i < sizeof verifiers / sizeof verifiers[0]; ++i) {
    if (strcmp(c.opName, verifiers[i].name) == 0) {
      verifiers[i].verify(&c);
      break;
    }
  }
  state->failed |= c.failed;
  return MlirWalkResultAdvance;
}

MlirLogicalResult embVerify(MlirOperation op) {
  WalkState state = {false};
  mlirOperationWalk(op, verifyOne, &state, MlirWalkPreOrder);
  return state.failed ? mlirLogicalResultFailure() : mlirLogicalResultSuccess();
}
