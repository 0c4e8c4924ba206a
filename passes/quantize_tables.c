//===- passes/quantize_tables.c - emb-quantize-tables ---------------------===//
//
// Stores the tables of emb.tbe lookups at inference precision: each chosen
// dense emb.table becomes an emb.table {precision, dim} over packed rows
// (int8, int4 or int2 rowwise with an f16 scale and bias per row, or fp8
// e4m3 with an f32 scale per row: embrtTablePrecision in emb/runtime.h).
//
// Which tables, and at what precision (tables are numbered 0, 1, ... in the
// order their emb.table ops appear in the module):
//   - `tables=2=int4,0=dense`: those tables at those precisions;
//   - `budget-mib=N`: the other tables so that all tables together take at
//     most N MiB, moving one table one step at a time down dense -> int8 ->
//     int4 -> int2, always the table that takes the most bytes now (the
//     largest tables first, each at the smallest error that fits): so
//     tables are quantized only as far as the budget needs;
//   - otherwise `precision=` (int8 by default) for every other table.
// Only tables read by lookups alone are quantized: a table an
// emb.tbe_backward trains stays dense (with a remark). A table whose width
// does not pack into bytes at the chosen precision (int4: even, int2: a
// multiple of 4) stays dense with a remark, or fails when `tables=` named it.
//
// A constant table (arith.constant, dense or dense_resource) is quantized
// here: the constant is replaced by its packed rows (dense in, dense out;
// dense_resource in, dense_resource out), by the runtime's host loops
// (embrtQuantizeRows: embrtQuantizeTable's arithmetic, no context), and a
// remark gives the error on its rows: the max and RMS over rows of ||row -
// packed row read back|| / ||row||. A table computed or passed in gets an
// emb.quantize_table before its emb.table, which quantizes it on every call
// (embrtQuantizeTable): freeze tables into the model to quantize them once.
// With `arguments=packed`, a table that is an argument of its function (read
// by nothing else, the function called by nothing in the module) is taken
// as its packed rows instead: the argument's type becomes them, and the
// caller quantizes the table once (embrtQuantizeTable) or passes FBGEMM's
// rows. A table with a non-finite value fails, naming its row.
//
// Preconditions: verified IR. Postconditions: the chosen tables are
// quantized; everything else is unchanged. The pass fails on a malformed
// `tables=` list, a budget the tables cannot meet at int2, or a constant
// table that cannot be quantized.
//
//===----------------------------------------------------------------------===//

#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include "emb/runtime.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char passName[] = "emb-quantize-tables";

typedef struct QuantizeTablesOptions {
  int64_t precision; ///< an index into "int8|int4|int2|fp8"
  int64_t budgetMib; ///< 0: no budget
  int64_t arguments; ///< an index into "quantize|packed"
  char tables[EMB_OPTION_TEXT_SIZE];
} QuantizeTablesOptions;

static const EmbPassOption optionRows[] = {
    {.name = "precision",
     .kind = EMB_OPTION_ENUM,
     .offset = offsetof(QuantizeTablesOptions, precision),
     .defaultValue = "int8",
     .choices = "int8|int4|int2|fp8",
     .help = "the precision of every table that neither tables= names nor "
             "budget-mib= chooses"},
    {.name = "budget-mib",
     .kind = EMB_OPTION_INT,
     .offset = offsetof(QuantizeTablesOptions, budgetMib),
     .defaultValue = "0",
     .min = 0,
     .max = INT64_C(1) << 40,
     .help = "choose the precisions of the tables tables= does not name so "
             "that all tables take at most this many MiB (0: no budget, "
             "precision= applies)"},
    {.name = "tables",
     .kind = EMB_OPTION_TEXT,
     .offset = offsetof(QuantizeTablesOptions, tables),
     .defaultValue = "",
     .choices = "<table>=<dense|int8|int4|int2|fp8>,...",
     .help = "the precision of each named table (its emb.table's place in "
             "the module, from 0)"},
    {.name = "arguments",
     .kind = EMB_OPTION_ENUM,
     .offset = offsetof(QuantizeTablesOptions, arguments),
     .defaultValue = "quantize",
     .choices = "quantize|packed",
     .help = "a table passed in as an argument of its function: quantized "
             "on every call (emb.quantize_table), or taken as its packed "
             "rows (the argument's type becomes them: the caller quantizes "
             "once)"},
};

static const EmbOptionTable options = {optionRows, EMB_NUM_OPTIONS(optionRows),
                                       sizeof(QuantizeTablesOptions)};

/// One emb.table of the module and what the pass decides for it.
typedef struct Table {
  MlirOperation op;
  MlirType tensor;
  int64_t rows, dim, elementBytes;
  bool eligible;   ///< dense, read by lookups only, static width
  bool listed;     ///< named by tables=
  int precision;   ///< embrtTablePrecision chosen (0: dense)
  const char *why; ///< why an ineligible table stays dense
} Table;

/// The bytes table `t` takes at `precision`; -1 if its rows are dynamic or
/// its width does not pack.
static int64_t bytesAt(const Table *t, int precision) {
  if (t->rows < 0)
    return -1;
  int64_t row =
      precision == 0
          ? t->dim * t->elementBytes
          : embrtQuantizedRowBytes((embrtTablePrecision)precision, t->dim);
  return row < 0 ? -1 : t->rows * row;
}

/// Reads `tables=`: comma-separated `<index>=<precision>`. False with an
/// error at `loc` when malformed or out of range.
static bool parseList(const char *text, Table *tables, size_t n,
                      MlirLocation loc) {
  char buf[EMB_OPTION_TEXT_SIZE];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *item = buf, *next; *item; item = next) {
    char *comma = strchr(item, ',');
    next = comma ? comma + 1 : item + strlen(item);
    if (comma)
      *comma = '\0';
    char *eq = strchr(item, '='), *end = NULL;
    long long index = eq ? strtoll(item, &end, 10) : -1;
    int precision;
    if (!eq || end != eq || eq == item) {
      embEmitErrorf(loc,
                    "%s: tables= entry '%s' is not <table>=<precision> (a "
                    "table's number, from 0)",
                    passName, item);
      return false;
    }
    if (!embParsePrecision(eq + 1, &precision)) {
      embEmitErrorf(loc,
                    "%s: tables= entry '%s': the precision must be dense, "
                    "int8, int4, int2 or fp8",
                    passName, item);
      return false;
    }
    if (index < 0 || (size_t)index >= n) {
      embEmitErrorf(loc, "%s: tables= names table %lld, but the module has %zu",
                    passName, index, n);
      return false;
    }
    Table *t = &tables[index];
    if (t->listed) {
      embEmitErrorf(loc, "%s: tables= names table %lld twice", passName, index);
      return false;
    }
    t->listed = true;
    t->precision = precision;
    if (precision != 0 && !t->eligible) {
      embEmitErrorf(mlirOperationGetLocation(t->op),
                    "%s: tables= asks for table %lld as %s, but it %s",
                    passName, index, eq + 1, t->why);
      return false;
    }
    if (precision != 0 && bytesAt(t, precision) < 0 && t->rows >= 0) {
      embEmitErrorf(mlirOperationGetLocation(t->op),
                    "%s: tables= asks for table %lld as %s, but its %lld "
                    "columns do not pack into whole bytes of %s",
                    passName, index, eq + 1, (long long)t->dim, eq + 1);
      return false;
    }
  }
  return true;
}

/// Fills `t` for emb.table `op`: its tensor and whether it may be quantized.
static void describe(MlirOperation op, Table *t) {
  memset(t, 0, sizeof *t);
  t->op = op;
  t->tensor = mlirValueGetType(mlirOperationGetOperand(op, 0));
  t->rows = embDim(t->tensor, 0);
  t->dim = embDim(t->tensor, 1);
  if (mlirAttributeIsNull(mlirOperationGetAttributeByName(
          op, embStr(EMB_ATTR_PRECISION))) == false) {
    char p[16] = "";
    embGetStringAttr(op, EMB_ATTR_PRECISION, p, sizeof p);
    if (strcmp(p, "dense") != 0) {
      t->why = "is quantized already";
      return;
    }
  }
  t->elementBytes = embElementBytes(mlirShapedTypeGetElementType(t->tensor));
  if (t->dim < 0) {
    t->why = "has a dynamic number of columns";
    return;
  }
  MlirValue handle = mlirOperationGetResult(op, 0);
  for (MlirOpOperand use = mlirValueGetFirstUse(handle);
       !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (!embOpIs(user, EMB_OP_TBE)) {
      t->why = embOpIs(user, EMB_OP_TBE_BACKWARD)
                   ? "is trained by an emb.tbe_backward (quantized tables are "
                     "for lookups)"
                   : "is read by an op other than emb.tbe";
      return;
    }
  }
  t->eligible = true;
}

/// Chooses the precision of every eligible table tables= did not name, by
/// `precision=` or the budget. False with an error if the budget cannot be
/// met.
static bool choose(const QuantizeTablesOptions *o, Table *tables, size_t n,
                   MlirLocation loc) {
  if (o->budgetMib == 0) {
    for (size_t i = 0; i < n; ++i) {
      Table *t = &tables[i];
      if (t->eligible && !t->listed) {
        int p = (int)o->precision + 1; // int8|int4|int2|fp8
        int64_t packed = embrtQuantizedRowBytes((embrtTablePrecision)p, t->dim);
        if (packed < 0) {
          t->why = "has a width that does not pack into whole bytes at the "
                   "chosen precision";
          t->eligible = false;
        } else if (packed >= t->dim * t->elementBytes) {
          t->why = "is so narrow that its packed rows (a 4-byte header, "
                   "padded to 16 bytes) would take no fewer bytes";
          t->eligible = false;
        } else {
          t->precision = p;
        }
      }
    }
    return true;
  }
  static const int ladder[] = {EMBRT_PRECISION_DENSE, EMBRT_PRECISION_INT8,
                               EMBRT_PRECISION_INT4, EMBRT_PRECISION_INT2};
  int64_t budget = o->budgetMib << 20, total = 0;
  int *at = calloc(n ? n : 1, sizeof *at); // each table's rung
  if (!at) {
    embEmitErrorf(loc, "%s: out of memory", passName);
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t b = bytesAt(&tables[i], tables[i].precision);
    if (b < 0) {
      embEmitErrorf(mlirOperationGetLocation(tables[i].op),
                    "%s: budget-mib needs every table's rows static; table "
                    "%zu's are dynamic",
                    passName, i);
      free(at);
      return false;
    }
    total += b;
  }
  while (total > budget) {
    // The table that takes the most bytes and can go one rung down.
    size_t best = n;
    int64_t bestBytes = -1, bestNext = -1;
    for (size_t i = 0; i < n; ++i) {
      Table *t = &tables[i];
      if (!t->eligible || t->listed)
        continue;
      int64_t now = bytesAt(t, ladder[at[i]]);
      for (int r = at[i] + 1; r < 4; ++r) {
        int64_t next = bytesAt(t, ladder[r]);
        // A rung whose width does not pack, or whose padded rows take no
        // fewer bytes (narrow tables), is passed over.
        if (next < 0 || next >= now)
          continue;
        if (now > bestBytes) {
          best = i;
          bestBytes = now;
          bestNext = r;
        }
        break;
      }
    }
    if (best == n) {
      embEmitErrorf(loc,
                    "%s: the tables take %.2f MiB with every table that may "
                    "be quantized at its smallest precision, more than "
                    "budget-mib=%lld",
                    passName, (double)total / (1 << 20),
                    (long long)o->budgetMib);
      free(at);
      return false;
    }
    total += bytesAt(&tables[best], ladder[bestNext]) - bestBytes;
    at[best] = (int)bestNext;
    tables[best].precision = ladder[bestNext];
  }
  free(at);
  embEmitRemarkf(loc, "%s: the tables take %.2f MiB (budget-mib=%lld)",
                 passName, (double)total / (1 << 20), (long long)o->budgetMib);
  return true;
}

//===----------------------------------------------------------------------===//
// Rewriting one table
//===----------------------------------------------------------------------===//

/// The dense constant that defines `v` (arith.constant of a dense or a
/// dense_resource attribute with its blob), or a null op.
static MlirOperation constantOf(MlirValue v) {
  if (!mlirValueIsAOpResult(v))
    return (MlirOperation){NULL};
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!embOpIs(def, "arith.constant"))
    return (MlirOperation){NULL};
  MlirAttribute value = mlirOperationGetAttributeByName(def, embStr("value"));
  if (mlirAttributeIsADenseElements(value))
    return def;
  if (mlirAttributeIsADenseResourceElements(value) && embResourceHasData(def))
    return def;
  return (MlirOperation){NULL};
}

/// The dtype and bytes of a dense constant's elements (f32, f16 or bf16),
/// in a malloc'ed buffer of rows x dim elements; NULL if memory runs out.
static void *readConstant(MlirOperation constant, const Table *t,
                          embrtDtype *dtype) {
  MlirType e = mlirShapedTypeGetElementType(t->tensor);
  *dtype = mlirTypeIsAF32(e)   ? EMBRT_F32
           : mlirTypeIsAF16(e) ? EMBRT_F16
                               : EMBRT_BF16;
  int64_t n = t->rows * t->dim;
  size_t size = (size_t)t->elementBytes;
  uint8_t *out = malloc(n > 0 ? (size_t)n * size : 1);
  if (!out)
    return NULL;
  MlirAttribute value =
      mlirOperationGetAttributeByName(constant, embStr("value"));
  if (mlirAttributeIsADenseElements(value)) {
    const uint8_t *raw = mlirDenseElementsAttrGetRawData(value);
    bool splat = mlirDenseElementsAttrIsSplat(value);
    for (int64_t i = 0; i < n; ++i)
      memcpy(out + (size_t)i * size, raw + (splat ? 0 : (size_t)i * size),
             size);
    return out;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (*dtype == EMBRT_F32) {
      float v = mlirDenseFloatResourceElementsAttrGetValue(value, i);
      memcpy(out + (size_t)i * 4, &v, 4);
    } else {
      uint16_t v = mlirDenseUInt16ResourceElementsAttrGetValue(value, i);
      memcpy(out + (size_t)i * 2, &v, 2);
    }
  }
  return out;
}

static void freeBlob(void *userData, const void *data, size_t size,
                     size_t align) {
  (void)userData;
  (void)size;
  (void)align;
  free((void *)data);
}

/// Row by row ||row - read back|| / ||row|| of a quantized constant: the
/// max and the RMS over rows (a zero row read back as zeros counts 0).
static void rowErrors(const float *dense, const float *back, int64_t rows,
                      int64_t dim, double *maxError, double *rmsError) {
  double sumSq = 0;
  *maxError = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double err = 0, norm = 0;
    for (int64_t d = 0; d < dim; ++d) {
      double x = dense[r * dim + d], diff = back[r * dim + d] - x;
      err += diff * diff;
      norm += x * x;
    }
    double rel = norm > 0 ? sqrt(err / norm) : (err > 0 ? INFINITY : 0);
    *maxError = rel > *maxError ? rel : *maxError;
    sumSq += rel * rel;
  }
  *rmsError = rows > 0 ? sqrt(sumSq / (double)rows) : 0;
}

/// Element i of dense data of `dtype` (F32, F16 or BF16) as f32.
static float loadF32(const void *p, embrtDtype dtype, int64_t i) {
  if (dtype == EMBRT_F16)
    return embrtF16ToF32(((const uint16_t *)p)[i]);
  if (dtype == EMBRT_BF16)
    return embrtBF16ToF32(((const uint16_t *)p)[i]);
  return ((const float *)p)[i];
}

/// Quantizes constant table `t` (defined by `constant`) at compile time,
/// with the runtime's host loops (embrtQuantizeRows). Returns the packed
/// constant's value, or a null value with an error.
static MlirValue quantizeConstant(Table *t, size_t index,
                                  MlirOperation constant) {
  MlirLocation loc = mlirOperationGetLocation(t->op);
  embrtTablePrecision p = (embrtTablePrecision)t->precision;
  int64_t rowBytes = embrtQuantizedRowBytes(p, t->dim);
  int64_t n = t->rows * t->dim;
  embrtDtype dtype;
  void *dense = readConstant(constant, t, &dtype);
  uint8_t *packed = malloc(t->rows > 0 ? (size_t)(t->rows * rowBytes) : 1);
  float *asF32 = malloc(n > 0 ? (size_t)n * 4 : 1);
  float *back = malloc(n > 0 ? (size_t)n * 4 : 1);
  MlirValue result = {NULL};
  if (!dense || !packed || !asF32 || !back) {
    embEmitErrorf(loc, "%s: out of memory", passName);
    goto done;
  }
  embrtQuantizeTableArgs a = {sizeof a, p,     t->rows, t->dim,
                              dense,    dtype, packed};
  int64_t badRow = 0, badColumn = 0;
  if (embrtQuantizeRows(&a, &badRow, &badColumn) != EMBRT_OK) {
    float x = loadF32(dense, dtype, badRow * t->dim + badColumn);
    embEmitErrorf(loc,
                  "%s: table %zu: row %lld column %lld is %s; a quantized "
                  "table's rows must be finite",
                  passName, index, (long long)badRow, (long long)badColumn,
                  isnan(x) ? "nan" : "infinite");
    goto done;
  }
  embrtQuantizeTableArgs r = {sizeof r, p,         t->rows, t->dim,
                              packed,   EMBRT_F32, back};
  embrtDequantizeRows(&r);
  for (int64_t i = 0; i < n; ++i)
    asF32[i] = loadF32(dense, dtype, i);
  double maxError, rmsError;
  rowErrors(asF32, back, t->rows, t->dim, &maxError, &rmsError);

  MlirContext mctx = mlirOperationGetContext(t->op);
  int64_t shape[2] = {t->rows, rowBytes};
  MlirType type = mlirRankedTensorTypeGet(2, shape, mlirIntegerTypeGet(mctx, 8),
                                          mlirAttributeGetNull());
  MlirAttribute old =
      mlirOperationGetAttributeByName(constant, embStr("value"));
  MlirAttribute value;
  size_t bytes = (size_t)(t->rows * rowBytes);
  if (mlirAttributeIsADenseResourceElements(old)) {
    char name[64];
    snprintf(name, sizeof name, "emb_quantized_table_%zu", index);
    value = mlirUnmanagedDenseResourceElementsAttrGet(
        type, embStr(name), packed, bytes, 16, false, freeBlob, NULL);
    packed = NULL; // the blob owns it
  } else {
    value = mlirDenseElementsAttrRawBufferGet(type, bytes, packed);
  }
  MlirNamedAttribute attr = embNamedAttr(mctx, "value", value);
  MlirOperation q = embCreateOp(t->op, mlirOperationGetLocation(constant),
                                "arith.constant", 0, NULL, type, 1, &attr);
  result = mlirOperationGetResult(q, 0);
  embEmitRemarkf(loc,
                 "%s: table %zu (%lldx%lld) as %s: %lld bytes a row instead "
                 "of %lld; error on its rows (||row - read back|| / ||row||): "
                 "max %.3g, rms %.3g",
                 passName, index, (long long)t->rows, (long long)t->dim,
                 embrtTablePrecisionName(p), (long long)rowBytes,
                 (long long)(t->dim * t->elementBytes), maxError, rmsError);
done:
  free(dense);
  free(packed);
  free(asF32);
  free(back);
  return result;
}

/// The type of table `t`'s packed rows, tensor<rows x row bytes x i8>, and
/// its rows as text ("?" when dynamic) in `rows`.
static MlirType packedType(const Table *t, char rows[24]) {
  MlirContext mctx = mlirOperationGetContext(t->op);
  int64_t rowBytes =
      embrtQuantizedRowBytes((embrtTablePrecision)t->precision, t->dim);
  int64_t shape[2] = {t->rows < 0 ? mlirShapedTypeGetDynamicSize() : t->rows,
                      rowBytes};
  snprintf(rows, 24, "?");
  if (t->rows >= 0)
    snprintf(rows, 24, "%lld", (long long)t->rows);
  return mlirRankedTensorTypeGet(2, shape, mlirIntegerTypeGet(mctx, 8),
                                 mlirAttributeGetNull());
}

/// Quantizes table `t` at run time: an emb.quantize_table before its
/// emb.table.
static MlirValue quantizeAtRunTime(Table *t, size_t index) {
  MlirLocation loc = mlirOperationGetLocation(t->op);
  MlirContext mctx = mlirOperationGetContext(t->op);
  embrtTablePrecision p = (embrtTablePrecision)t->precision;
  char rows[24];
  MlirType type = packedType(t, rows);
  MlirNamedAttribute attrs[2] = {
      embNamedAttr(mctx, EMB_ATTR_PRECISION,
                   mlirStringAttrGet(mctx, embStr(embrtTablePrecisionName(p)))),
      embNamedAttr(mctx, EMB_ATTR_DIM,
                   mlirIntegerAttrGet(mlirIntegerTypeGet(mctx, 64), t->dim)),
  };
  MlirValue weight = mlirOperationGetOperand(t->op, 0);
  MlirOperation q = embCreateOp(t->op, loc, EMB_OP_QUANTIZE_TABLE, 1, &weight,
                                type, 2, attrs);
  embEmitRemarkf(loc,
                 "%s: table %zu (%sx%lld) as %s: not a constant, so "
                 "emb.quantize_table quantizes it on every call (freeze it "
                 "into the model to quantize it once)",
                 passName, index, rows, (long long)t->dim,
                 embrtTablePrecisionName(p));
  return mlirOperationGetResult(q, 0);
}

/// The function whose entry block has argument `v`, when `v` is one that
/// may take packed rows: read by one op only, of a func.func that no op of
/// `ops` calls (a caller would pass dense rows). Null otherwise.
static MlirOperation packableArgument(MlirValue v, const EmbOpList *ops) {
  MlirOperation none = {NULL};
  if (!mlirValueIsABlockArgument(v))
    return none;
  MlirBlock owner = mlirBlockArgumentGetOwner(v);
  MlirOperation func = mlirBlockGetParentOperation(owner);
  if (mlirOperationIsNull(func) || !embOpIs(func, "func.func") ||
      !mlirBlockEqual(owner,
                      mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0))))
    return none;
  MlirOpOperand use = mlirValueGetFirstUse(v);
  if (mlirOpOperandIsNull(use) ||
      !mlirOpOperandIsNull(mlirOpOperandGetNextUse(use)))
    return none;
  MlirAttribute name =
      mlirOperationGetAttributeByName(func, embStr("sym_name"));
  if (mlirAttributeIsNull(name))
    return none;
  MlirStringRef fn = mlirStringAttrGetValue(name);
  for (size_t i = 0; i < ops->size; ++i) {
    MlirAttribute callee =
        mlirOperationGetAttributeByName(ops->ops[i], embStr("callee"));
    if (!mlirAttributeIsNull(callee) && mlirAttributeIsAFlatSymbolRef(callee)) {
      MlirStringRef c = mlirFlatSymbolRefAttrGetValue(callee);
      if (c.length == fn.length && !memcmp(c.data, fn.data, fn.length))
        return none;
    }
  }
  return func;
}

/// Makes argument `arg` of `func` take table `t`'s packed rows: its type and
/// the function's type become them.
static MlirValue takePackedArgument(Table *t, size_t index, MlirValue arg,
                                    MlirOperation func) {
  MlirLocation loc = mlirOperationGetLocation(t->op);
  MlirContext mctx = mlirOperationGetContext(t->op);
  embrtTablePrecision p = (embrtTablePrecision)t->precision;
  int64_t rowBytes = embrtQuantizedRowBytes(p, t->dim);
  char rows[24];
  mlirBlockArgumentSetType(arg, packedType(t, rows));
  MlirBlock entry = mlirBlockArgumentGetOwner(arg);
  MlirType fty = mlirTypeAttrGetValue(
      mlirOperationGetAttributeByName(func, embStr("function_type")));
  intptr_t ni = mlirBlockGetNumArguments(entry);
  intptr_t nr = mlirFunctionTypeGetNumResults(fty);
  MlirType *types = malloc(sizeof(MlirType) * (size_t)(ni + nr + 1));
  MlirValue result = {NULL};
  if (!types) {
    embEmitErrorf(loc, "%s: out of memory", passName);
    return result;
  }
  for (intptr_t i = 0; i < ni; ++i)
    types[i] = mlirValueGetType(mlirBlockGetArgument(entry, i));
  for (intptr_t i = 0; i < nr; ++i)
    types[ni + i] = mlirFunctionTypeGetResult(fty, i);
  mlirOperationSetAttributeByName(
      func, embStr("function_type"),
      mlirTypeAttrGet(mlirFunctionTypeGet(mctx, ni, types, nr, types + ni)));
  free(types);
  MlirStringRef fn = mlirStringAttrGetValue(
      mlirOperationGetAttributeByName(func, embStr("sym_name")));
  embEmitRemarkf(loc,
                 "%s: table %zu (%sx%lld) as %s: argument #%lld of @%.*s "
                 "takes its packed rows (%sx%lld bytes: the caller quantizes "
                 "it once)",
                 passName, index, rows, (long long)t->dim,
                 embrtTablePrecisionName(p),
                 (long long)mlirBlockArgumentGetArgNumber(arg), (int)fn.length,
                 fn.data, rows, (long long)rowBytes);
  return arg;
}

/// Points emb.table `t` at its packed rows.
static void setPacked(Table *t, MlirValue packed) {
  MlirContext mctx = mlirOperationGetContext(t->op);
  MlirValue old = mlirOperationGetOperand(t->op, 0);
  mlirOperationSetOperand(t->op, 0, packed);
  mlirOperationSetAttributeByName(
      t->op, embStr(EMB_ATTR_PRECISION),
      mlirStringAttrGet(mctx, embStr(embrtTablePrecisionName(
                                  (embrtTablePrecision)t->precision))));
  mlirOperationSetAttributeByName(
      t->op, embStr(EMB_ATTR_DIM),
      mlirIntegerAttrGet(mlirIntegerTypeGet(mctx, 64), t->dim));
  if (mlirValueIsAOpResult(old))
    embEraseIfDead(mlirOpResultGetOwner(old));
}

static void run(MlirOperation root, MlirExternalPass pass, const void *opts) {
  const QuantizeTablesOptions *o = opts;
  MlirLocation loc = mlirOperationGetLocation(root);
  EmbOpList ops = {NULL, 0, 0};
  Table *tables = NULL;
  size_t n = 0;
  bool ok = embCollectNestedOps(root, &ops);
  if (ok && ops.size > 0)
    ok = (tables = calloc(ops.size, sizeof *tables)) != NULL;
  if (!ok) {
    embEmitErrorf(loc, "%s: out of memory", passName);
    goto fail;
  }
  for (size_t i = 0; i < ops.size; ++i)
    if (embOpIs(ops.ops[i], EMB_OP_TABLE))
      describe(ops.ops[i], &tables[n++]);
  // The module's own location is often unknown: point at its first table.
  if (n > 0)
    loc = mlirOperationGetLocation(tables[0].op);
  if (!parseList(o->tables, tables, n, loc) || !choose(o, tables, n, loc))
    goto fail;
  for (size_t i = 0; i < n; ++i) {
    Table *t = &tables[i];
    if (!t->eligible && t->why && !t->listed &&
        strcmp(t->why, "is quantized already") != 0)
      embEmitRemarkf(mlirOperationGetLocation(t->op),
                     "%s: table %zu stays dense: it %s", passName, i, t->why);
    if (!t->eligible || t->precision == 0)
      continue;
    MlirValue weight = mlirOperationGetOperand(t->op, 0);
    MlirOperation constant = constantOf(weight);
    MlirOperation func = {NULL};
    if (o->arguments == 1 && mlirOperationIsNull(constant))
      func = packableArgument(weight, &ops);
    MlirValue packed =
        !mlirOperationIsNull(constant) ? quantizeConstant(t, i, constant)
        : !mlirOperationIsNull(func)   ? takePackedArgument(t, i, weight, func)
                                       : quantizeAtRunTime(t, i);
    if (mlirValueIsNull(packed))
      goto fail;
    setPacked(t, packed);
  }
  free(tables);
  embOpListFree(&ops);
  return;
fail:
  free(tables);
  embOpListFree(&ops);
  mlirExternalPassSignalFailure(pass);
}

const EmbPassDef embQuantizeTablesPassDef = {
    .argument = "emb-quantize-tables",
    .name = "EmbQuantizeTables",
    .summary = "Store emb.tbe tables as int8/int4/int2 rowwise or fp8 rows "
               "(by table, by precision or within a memory budget)",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .options = &options,
    .run = run,
};
