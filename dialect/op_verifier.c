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

#include "emb/emb.h"

#include <stdarg.h>
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
// emb.embedding_bag
//===----------------------------------------------------------------------===//

static void verifyEmbeddingBag(Checker *c) {
  if (!checkCounts(c, 3, 4))
    return;
  MlirType w = operandType(c, 0), idx = operandType(c, 1),
           off = operandType(c, 2), res = resultType(c);
  bool weighted = mlirOperationGetNumOperands(c->op) == 4;
  if (!checkRank(c, w, "weight", 2) || !checkRank(c, idx, "indices", 1) ||
      !checkRank(c, off, "offsets", 1) || !checkRank(c, res, "result", 2))
    return;
  if (!checkFloat(c, w, "weight") || !checkIndexInt(c, idx, "indices") ||
      !checkIndexInt(c, off, "offsets") || !checkFloat(c, res, "result"))
    return;
  checkSameElement(c, idx, "indices", off, "offsets");
  char mode[16];
  checkEnumAttr(c, "mode", true, poolingModes, mode, sizeof mode);
  char bc[16];
  checkEnumAttr(c, "bounds_check", false, boundsCheckModes, bc, sizeof bc);
  checkPaddingIdx(c, embDim(w, 0), "weight");

  checkF32OrSame(c, res, "the result", w, "weight");
  if (embDim(off, 0) == 0)
    fail(c, "offsets must have at least one element (B+1)");
  checkDimsAgree(c, res, 1, "the result has %lld columns", w, 1,
                 "weight has %lld (D)");
  if (strcmp(mode, "none") == 0)
    checkDimsAgree(c, res, 0, "the result has %lld rows", idx, 0,
                   "indices has %lld (mode none gives one row per index)");
  else {
    int64_t o = embDim(off, 0), b = embDim(res, 0);
    if (o > 0 && b >= 0 && o != b + 1)
      fail(c,
           "offsets has %lld elements but the result has %lld rows "
           "(offsets must have B+1)",
           (long long)o, (long long)b);
  }
  if (weighted) {
    MlirType psw = operandType(c, 3);
    if (!checkRank(c, psw, "per_sample_weights", 1) ||
        !checkFloat(c, psw, "per_sample_weights"))
      return;
    if (strcmp(mode, "sum") != 0)
      fail(c,
           "per_sample_weights are only allowed with mode sum, got "
           "mode %s",
           mode);
    checkF32OrSame(c, psw, "per_sample_weights", w, "weight");
    checkDimsAgree(c, psw, 0, "per_sample_weights has %lld elements", idx, 0,
                   "indices has %lld");
  }
}

//===----------------------------------------------------------------------===//
// emb.table and emb.tbe
//===----------------------------------------------------------------------===//

/// True if `t` is !emb.table_handle.
static bool isTableHandle(MlirType t) {
  MlirType handle =
      mlirTypeParseGet(mlirTypeGetContext(t), embStr("!emb.table_handle"));
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

static void verifyTable(Checker *c) {
  if (!checkCounts(c, 1, 1))
    return;
  checkTableTensor(c, operandType(c, 0), "weight");
  MlirType res = resultType(c);
  if (!isTableHandle(res)) {
    char ts[128];
    embPrintType(res, ts, sizeof ts);
    fail(c, "the result must be !emb.table_handle, got %s", ts);
  }
}

/// The tensor type behind a table handle (the operand of the emb.table that
/// made it), or a null type if `v` is not such a handle.
static MlirType handleTable(MlirValue v) {
  if (!mlirValueIsAOpResult(v))
    return (MlirType){NULL};
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!embOpIs(def, EMB_OP_TABLE) || mlirOperationGetNumOperands(def) != 1)
    return (MlirType){NULL};
  return mlirValueGetType(mlirOperationGetOperand(def, 0));
}

/// The tensor type of table operand `i` of an emb.tbe; reports and returns a
/// null type if the operand is not a handle made by emb.table.
static MlirType tableOfHandle(Checker *c, intptr_t i, const char *name) {
  MlirValue v = mlirOperationGetOperand(c->op, i);
  char ts[128];
  if (!isTableHandle(mlirValueGetType(v))) {
    embPrintType(mlirValueGetType(v), ts, sizeof ts);
    fail(c, "%s must be an !emb.table_handle made by 'emb.table', got %s", name,
         ts);
    return (MlirType){NULL};
  }
  MlirType table = handleTable(v);
  if (mlirTypeIsNull(table))
    fail(c,
         "%s must be made by 'emb.table' (the table's shape is read "
         "from it), not passed in",
         name);
  return table;
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
  int64_t numTables = s[2];
  bool weighted = s[3] == 1;
  MlirType idx = operandType(c, 0), off = operandType(c, 1),
           res = resultType(c);
  if (!checkRank(c, idx, "indices", 1) || !checkRank(c, off, "offsets", 1) ||
      !checkRank(c, res, "result", 2))
    return;
  if (!checkIndexInt(c, idx, "indices") || !checkIndexInt(c, off, "offsets") ||
      !checkFloat(c, res, "result"))
    return;
  checkSameElement(c, idx, "indices", off, "offsets");

  char pooling[16], bc[16];
  checkEnumAttr(c, "pooling", true, poolingModes, pooling, sizeof pooling);
  checkEnumAttr(c, "bounds_check", false, boundsCheckModes, bc, sizeof bc);
  bool pooled = strcmp(pooling, "none") != 0;

  // Tables (through their handles): rank 2, one float type, D in 1 to
  // EMB_MAX_TABLE_DIM.
  MlirType w0 = {NULL};
  int64_t minRows = -1;
  for (int64_t t = 0; t < numTables; ++t) {
    char name[32];
    snprintf(name, sizeof name, "weights_%lld", (long long)t);
    MlirType w = tableOfHandle(c, 2 + t, name);
    if (mlirTypeIsNull(w) || !checkTableTensor(c, w, name))
      return;
    if (t == 0)
      w0 = w;
    else if (!checkSameElement(c, w, name, w0, "weights_0"))
      return;
    int64_t rows = embDim(w, 0);
    if (rows >= 0 && (minRows < 0 || rows < minRows))
      minRows = rows;
  }
  checkF32OrSame(c, res, "the result", w0, "weights_0");
  checkPaddingIdx(c, minRows, "the smallest table");

  // feature_tables: F >= 1 entries, each a table index.
  MlirAttribute ft =
      mlirOperationGetAttributeByName(c->op, embStr("feature_tables"));
  if (mlirAttributeIsNull(ft)) {
    fail(c, "requires attribute 'feature_tables'");
    return;
  }
  if (!mlirAttributeIsADenseI64Array(ft)) {
    char as[128];
    embPrintAttribute(ft, as, sizeof as);
    fail(c, "feature_tables must be array<i64: ...>, got %s", as);
    return;
  }
  int64_t numFeatures = mlirDenseArrayGetNumElements(ft);
  if (numFeatures == 0) {
    fail(c, "feature_tables must name at least one feature");
    return;
  }
  int64_t sumD = 0, commonD = -2;
  bool dynamicD = false;
  for (int64_t f = 0; f < numFeatures; ++f) {
    int64_t t = mlirDenseI64ArrayGetElement(ft, f);
    if (t < 0 || t >= numTables) {
      fail(c, "feature_tables[%lld] is %lld but there are %lld tables",
           (long long)f, (long long)t, (long long)numTables);
      return;
    }
    int64_t d = embDim(handleTable(mlirOperationGetOperand(c->op, 2 + t)), 1);
    if (d < 0) {
      dynamicD = true;
      continue;
    }
    sumD += d;
    if (commonD == -2)
      commonD = d;
    else if (commonD != d)
      commonD = -1;
  }

  // Offsets are feature-major: F*B+1 entries.
  int64_t o = embDim(off, 0);
  if (o == 0)
    fail(c, "offsets must have at least one element (F*B+1)");
  if (pooled) {
    if (!dynamicD && embDim(res, 1) >= 0 && embDim(res, 1) != sumD)
      fail(c,
           "the result has %lld columns but the features' tables sum to "
           "%lld (sum of D over features)",
           (long long)embDim(res, 1), (long long)sumD);
    int64_t b = embDim(res, 0);
    if (o > 0 && (o - 1) % numFeatures != 0)
      fail(c,
           "offsets has %lld elements, which is not F*B+1 for F = %lld "
           "features",
           (long long)o, (long long)numFeatures);
    else if (o > 0 && b >= 0 && o != numFeatures * b + 1)
      fail(c,
           "offsets has %lld elements but the result has %lld rows "
           "(offsets must have F*B+1 = %lld)",
           (long long)o, (long long)b, (long long)(numFeatures * b + 1));
  } else {
    if (commonD == -1)
      fail(c, "pooling none needs every feature's table to have the same "
              "number of columns");
    else if (commonD >= 0 && embDim(res, 1) >= 0 && embDim(res, 1) != commonD)
      fail(c, "the result has %lld columns but the tables have %lld",
           (long long)embDim(res, 1), (long long)commonD);
    checkDimsAgree(c, res, 0, "the result has %lld rows", idx, 0,
                   "indices has %lld (pooling none gives one row per index)");
    if (o > 0 && (o - 1) % numFeatures != 0)
      fail(c,
           "offsets has %lld elements, which is not F*B+1 for F = %lld "
           "features",
           (long long)o, (long long)numFeatures);
  }

  if (weighted) {
    MlirType psw = operandType(c, n - 1);
    if (!checkRank(c, psw, "per_sample_weights", 1) ||
        !checkFloat(c, psw, "per_sample_weights"))
      return;
    if (strcmp(pooling, "sum") != 0)
      fail(c,
           "per_sample_weights are only allowed with pooling sum, got "
           "pooling %s",
           pooling);
    checkF32OrSame(c, psw, "per_sample_weights", w0, "weights_0");
    checkDimsAgree(c, psw, 0, "per_sample_weights has %lld elements", idx, 0,
                   "indices has %lld");
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
  if (!checkCounts(c, 3, 3))
    return;
  checkAttentionShapes(c, "k", "v", true);
  checkScale(c);
}

static void verifyIkboAttention(Checker *c) {
  if (!checkCounts(c, 4, 5))
    return;
  if (!checkAttentionShapes(c, "k_user", "v_user", false))
    return;
  checkScale(c);
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
// Entry points
//===----------------------------------------------------------------------===//

typedef struct {
  const char *name;
  void (*verify)(Checker *);
} OpVerifier;

static const OpVerifier verifiers[] = {
    {EMB_OP_EMBEDDING_BAG, verifyEmbeddingBag},
    {EMB_OP_TABLE, verifyTable},
    {EMB_OP_TBE, verifyTbe},
    {EMB_OP_BROADCAST, verifyBroadcast},
    {EMB_OP_LCE, verifyLce},
    {EMB_OP_IKBO_LCE, verifyIkboLce},
    {EMB_OP_ATTENTION, verifyAttention},
    {EMB_OP_IKBO_ATTENTION, verifyIkboAttention},
    {EMB_OP_BROADCAST_ADD, verifyBroadcastAdd},
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
