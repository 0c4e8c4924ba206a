//===- dialect/ir.c - Small IR helpers shared by emb's C code -------------===//

#include "ir.h"

#include "emb/emb.h"
#include "emb/runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

MlirNamedAttribute embNamedAttr(MlirContext ctx, const char *name,
                                MlirAttribute attr) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, embStr(name)), attr);
}

bool embOpIs(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  size_t len = strlen(name);
  return n.length == len && memcmp(n.data, name, len) == 0;
}

bool embIsCollective(MlirOperation op) {
  return embOpIs(op, EMB_OP_ALL_TO_ALL) || embOpIs(op, EMB_OP_REDUCE_SCATTER) ||
         embOpIs(op, EMB_OP_ALL_GATHER);
}

int64_t embTbeFeatureEndsEntries(MlirOperation op) {
  if (!embOpIs(op, EMB_OP_TBE) ||
      mlirAttributeIsNull(
          mlirOperationGetAttributeByName(op, embStr(EMB_ATTR_FEATURE_ENDS))))
    return 0;
  MlirAttribute ft =
      mlirOperationGetAttributeByName(op, embStr("feature_tables"));
  return mlirAttributeIsNull(ft) || !mlirAttributeIsADenseI64Array(ft)
             ? 0
             : 2 * mlirDenseArrayGetNumElements(ft);
}

bool embUpdatesInPlace(MlirOperation op) {
  return embOpIs(op, EMB_OP_TBE_BACKWARD) ||
         embOpIs(op, EMB_OP_EMBEDDING_BAG_BACKWARD);
}

bool embHasEffects(MlirOperation op) {
  return embUpdatesInPlace(op) || embIsCollective(op);
}

static void copyRef(MlirStringRef ref, char *buf, size_t size) {
  if (size == 0)
    return;
  // An empty string attribute ("") has a NULL data pointer.
  size_t n = ref.length < size - 1 ? ref.length : size - 1;
  if (n)
    memcpy(buf, ref.data, n);
  buf[n] = '\0';
}

void embOpName(MlirOperation op, char *buf, size_t size) {
  copyRef(mlirIdentifierStr(mlirOperationGetName(op)), buf, size);
}

bool embGetStringAttr(MlirOperation op, const char *name, char *buf,
                      size_t size) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, embStr(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return false;
  copyRef(mlirStringAttrGetValue(a), buf, size);
  return true;
}

bool embGetIntAttr(MlirOperation op, const char *name, int64_t *value) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, embStr(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return false;
  *value = mlirIntegerAttrGetValueInt(a);
  return true;
}

bool embGetFloatAttr(MlirOperation op, const char *name, double *value) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, embStr(name));
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAFloat(a))
    return false;
  *value = mlirFloatAttrGetValueDouble(a);
  return true;
}

typedef struct {
  char *buf;
  size_t size;
  size_t used;
} Sink;

static void appendToSink(MlirStringRef s, void *userData) {
  Sink *sink = userData;
  if (sink->size == 0)
    return;
  size_t room = sink->size - 1 - sink->used;
  size_t n = s.length < room ? s.length : room;
  if (n == 0)
    return;
  memcpy(sink->buf + sink->used, s.data, n);
  sink->used += n;
  sink->buf[sink->used] = '\0';
}

void embPrintType(MlirType type, char *buf, size_t size) {
  Sink sink = {buf, size, 0};
  if (size)
    buf[0] = '\0';
  mlirTypePrint(type, appendToSink, &sink);
}

void embPrintAttribute(MlirAttribute attr, char *buf, size_t size) {
  Sink sink = {buf, size, 0};
  if (size)
    buf[0] = '\0';
  mlirAttributePrint(attr, appendToSink, &sink);
}

bool embIsFloat(MlirType type) {
  return mlirTypeIsAF32(type) || mlirTypeIsAF16(type) || mlirTypeIsABF16(type);
}

bool embIsIndexInt(MlirType type) {
  if (!mlirTypeIsAInteger(type) || !mlirIntegerTypeIsSignless(type))
    return false;
  unsigned w = mlirIntegerTypeGetWidth(type);
  return w == 32 || w == 64;
}

int64_t embDim(MlirType shaped, intptr_t i) {
  if (!mlirTypeIsAShaped(shaped) || !mlirShapedTypeHasRank(shaped) || i < 0 ||
      i >= mlirShapedTypeGetRank(shaped) ||
      mlirShapedTypeIsDynamicDim(shaped, i))
    return -1;
  return mlirShapedTypeGetDimSize(shaped, i);
}

int64_t embNumElements(MlirType shaped) {
  int64_t n = 1;
  bool overflow = false;
  for (intptr_t i = 0, e = mlirShapedTypeGetRank(shaped); i < e; ++i) {
    int64_t d = embDim(shaped, i);
    if (d < 0)
      return -1;
    if (d != 0 && n > INT64_MAX / d)
      overflow = true; // unless a later dim is 0
    else
      n *= d;
  }
  return overflow && n != 0 ? -1 : n;
}

//===----------------------------------------------------------------------===//
// Training: the backward ops' operands, handles and the buffers they update
//===----------------------------------------------------------------------===//

bool embGetBackwardOperands(MlirOperation op, EmbBackwardOperands *out) {
  MlirAttribute seg =
      mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) != 9)
    return false;
  // Groups: 0-2 the lookup's (single but the tables of emb.tbe_backward),
  // 3 per-sample weights?, 4 grad_output, 5-6 the states, 7 hyper_params,
  // 8 step?.
  bool isTbe = embOpIs(op, EMB_OP_TBE_BACKWARD);
  intptr_t at[9], next = 0;
  for (int i = 0; i < 9; ++i) {
    int32_t n = mlirDenseI32ArrayGetElement(seg, i);
    bool single = i == 0 || i == 1 || (i == 2 && !isTbe) || i == 4 || i == 7;
    bool optional = i == 3 || i == 8;
    if (n < 0 || (single && n != 1) || (optional && n > 1))
      return false;
    at[i] = next;
    next += n;
  }
  if (next != mlirOperationGetNumOperands(op))
    return false;
  int32_t s[9];
  for (int i = 0; i < 9; ++i)
    s[i] = mlirDenseI32ArrayGetElement(seg, i);
  out->isTbe = isTbe;
  out->indices = isTbe ? at[0] : at[1];
  out->offsets = isTbe ? at[1] : at[2];
  out->firstTable = isTbe ? at[2] : at[0];
  out->numTables = isTbe ? s[2] : 1;
  out->psw = s[3] ? at[3] : -1;
  out->grad = at[4];
  out->momentum1 = at[5];
  out->numMomentum1 = s[5];
  out->momentum2 = at[6];
  out->numMomentum2 = s[6];
  out->hyper = at[7];
  out->step = s[8] ? at[8] : -1;
  const char *attrs[2] = {EMB_ATTR_MOMENTUM1_PRECISION,
                          EMB_ATTR_MOMENTUM2_PRECISION};
  int *precisions[2] = {&out->momentum1Precision, &out->momentum2Precision};
  for (int g = 0; g < 2; ++g) {
    char name[24];
    *precisions[g] = EMBRT_STATE_F32;
    if (mlirAttributeIsNull(
            mlirOperationGetAttributeByName(op, embStr(attrs[g]))))
      continue;
    if (!embGetStringAttr(op, attrs[g], name, sizeof name) ||
        !embParseStatePrecision(name, precisions[g]))
      *precisions[g] = -1;
  }
  return true;
}

intptr_t embBackwardUpdatedOperand(const EmbBackwardOperands *ops, intptr_t r) {
  if (r < 0)
    return -1;
  if (r < ops->numTables)
    return ops->firstTable + r;
  r -= ops->numTables;
  if (r < ops->numMomentum1)
    return ops->momentum1 + r;
  r -= ops->numMomentum1;
  return r < ops->numMomentum2 ? ops->momentum2 + r : -1;
}

int embBackwardGroup(const EmbBackwardOperands *ops, intptr_t r,
                     int64_t *index) {
  if (r < ops->numTables) {
    *index = r;
    return EMB_BACKWARD_TABLES;
  }
  r -= ops->numTables;
  bool first = r < ops->numMomentum1;
  if (!first)
    r -= ops->numMomentum1;
  // A state group's first T entries are the states, any others their
  // scales (an fp8 group; the verifier checks the count).
  bool scale = r >= ops->numTables;
  *index = scale ? r - ops->numTables : r;
  if (first)
    return scale ? EMB_BACKWARD_MOMENTUM1_SCALES : EMB_BACKWARD_MOMENTUM1;
  return scale ? EMB_BACKWARD_MOMENTUM2_SCALES : EMB_BACKWARD_MOMENTUM2;
}

bool embParseStatePrecision(const char *name, int *precision) {
  static const embrtStatePrecision all[] = {EMBRT_STATE_F32, EMBRT_STATE_BF16,
                                            EMBRT_STATE_FP8_E4M3,
                                            EMBRT_STATE_FP8_E5M2};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    if (!strcmp(name, embrtStatePrecisionName(all[i]))) {
      *precision = (int)all[i];
      return true;
    }
  return false;
}

void embBackwardUpdatedName(const EmbBackwardOperands *ops, intptr_t r,
                            char *buf, size_t size) {
  static const char *const groups[] = {"weights", "momentum1", "momentum2",
                                       "momentum1_scales", "momentum2_scales"};
  int64_t t;
  int group = embBackwardGroup(ops, r, &t);
  if (!ops->isTbe)
    snprintf(buf, size, "%s",
             group == EMB_BACKWARD_TABLES ? "weight" : groups[group]);
  else if (group == EMB_BACKWARD_TABLES)
    snprintf(buf, size, "weights_%lld", (long long)t);
  else
    snprintf(buf, size, "%s #%lld", groups[group], (long long)t);
}

/// The emb.table or emb.state that made handle `v`, following the results
/// of emb.tbe_backward to the handles they update; null if none.
static MlirOperation handleMaker(MlirValue v) {
  // A chain longer than this is not made by the backward ops (each takes
  // handles of emb.table and emb.state); stop rather than follow it.
  for (int depth = 0; depth < 8 && mlirValueIsAOpResult(v); ++depth) {
    MlirOperation def = mlirOpResultGetOwner(v);
    if ((embOpIs(def, EMB_OP_TABLE) || embOpIs(def, EMB_OP_STATE)) &&
        mlirOperationGetNumOperands(def) == 1)
      return def;
    EmbBackwardOperands ops;
    if (!embOpIs(def, EMB_OP_TBE_BACKWARD) ||
        !embGetBackwardOperands(def, &ops))
      break;
    intptr_t i =
        embBackwardUpdatedOperand(&ops, mlirOpResultGetResultNumber(v));
    if (i < 0)
      break;
    v = mlirOperationGetOperand(def, i);
  }
  return (MlirOperation){NULL};
}

MlirType embHandleTensorType(MlirValue v) {
  MlirOperation maker = handleMaker(v);
  if (mlirOperationIsNull(maker))
    return (MlirType){NULL};
  return mlirValueGetType(mlirOperationGetOperand(maker, 0));
}

bool embParsePrecision(const char *name, int *precision) {
  static const struct {
    const char *name;
    embrtTablePrecision precision;
  } names[] = {{"dense", EMBRT_PRECISION_DENSE},
               {"int8", EMBRT_PRECISION_INT8},
               {"int4", EMBRT_PRECISION_INT4},
               {"int2", EMBRT_PRECISION_INT2},
               {"fp8", EMBRT_PRECISION_FP8}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (strcmp(name, names[i].name) == 0) {
      *precision = (int)names[i].precision;
      return true;
    }
  return false;
}

bool embGetTableInfo(MlirValue handle, EmbTableInfo *info) {
  memset(info, 0, sizeof *info);
  info->tensor = embHandleTensorType(handle);
  if (mlirTypeIsNull(info->tensor))
    return false;
  info->rows = embDim(info->tensor, 0);
  info->dim = embDim(info->tensor, 1);
  snprintf(info->precisionName, sizeof info->precisionName, "dense");
  MlirOperation table = handleMaker(handle);
  char name[16];
  int64_t dim;
  if (!mlirOperationIsNull(table) && embOpIs(table, EMB_OP_TABLE) &&
      embGetStringAttr(table, EMB_ATTR_PRECISION, name, sizeof name) &&
      embParsePrecision(name, &info->precision) && info->precision != 0) {
    snprintf(info->precisionName, sizeof info->precisionName, "%s", name);
    info->dim = embGetIntAttr(table, EMB_ATTR_DIM, &dim) ? dim : -1;
  }
  return true;
}

/// Finds the start of a printed resource section ("{-#") across chunks.
typedef struct {
  int matched; ///< characters of "{-#" matched so far
  bool found;
} SectionScan;

static void scanForSection(MlirStringRef s, void *userData) {
  SectionScan *scan = userData;
  static const char marker[] = "{-#";
  for (size_t i = 0; i < s.length && !scan->found; ++i) {
    if (s.data[i] == marker[scan->matched])
      scan->found = ++scan->matched == 3;
    else
      scan->matched = s.data[i] == marker[0];
  }
}

/// The C API has no test for a dense_resource whose blob is missing (a
/// handle the dialect_resources section does not define parses fine), and
/// its element readers dereference the missing blob. The printer writes a
/// module's resource section only for blobs that exist, so the constant is
/// printed alone in a module, blobs elided (no bytes are written), and the
/// section looked for.
bool embResourceHasData(MlirOperation op) {
  MlirModule m = mlirModuleCreateEmpty(mlirOperationGetLocation(op));
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(m), mlirOperationClone(op));
  MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
  mlirOpPrintingFlagsElideLargeResourceString(flags, 0);
  SectionScan scan = {0, false};
  mlirOperationPrintWithFlags(mlirModuleGetOperation(m), flags, scanForSection,
                              &scan);
  mlirOpPrintingFlagsDestroy(flags);
  mlirModuleDestroy(m);
  return scan.found;
}

bool embIsBufferAlias(MlirOperation op) {
  static const char *const aliases[] = {
      EMB_OP_TABLE,  EMB_OP_STATE,          EMB_OP_TABLE_VALUE,
      "tensor.cast", "tensor.expand_shape", "tensor.collapse_shape",
  };
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; ++i)
    if (embOpIs(op, aliases[i]))
      return mlirOperationGetNumOperands(op) >= 1;
  return false;
}

MlirValue embBufferRoot(MlirValue v) {
  while (mlirValueIsAOpResult(v) && embIsBufferAlias(mlirOpResultGetOwner(v)))
    v = mlirOperationGetOperand(mlirOpResultGetOwner(v), 0);
  return v;
}

void embEmitErrorf(MlirLocation loc, const char *fmt, ...) {
  char msg[EMB_MAX_MESSAGE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mlirEmitError(loc, msg);
}

//===----------------------------------------------------------------------===//
// Remarks
//
// The C API can emit errors but not remarks, so remarks go through a handler
// of our own. Without one they are dropped: the library never prints.
//===----------------------------------------------------------------------===//

static EmbRemarkHandler remarkHandler;
static void *remarkUserData;

void embSetRemarkHandler(EmbRemarkHandler handler, void *userData) {
  remarkHandler = handler;
  remarkUserData = userData;
}

/// Finds the innermost file:line:col of a location (through names, call
/// sites and fused locations).
static bool fileLineCol(MlirLocation loc, MlirStringRef *file, unsigned *line,
                        unsigned *col) {
  for (int depth = 0; depth < 16; ++depth) {
    if (mlirLocationIsAFileLineColRange(loc)) {
      *file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
      *line = (unsigned)mlirLocationFileLineColRangeGetStartLine(loc);
      *col = (unsigned)mlirLocationFileLineColRangeGetStartColumn(loc);
      return true;
    }
    if (mlirLocationIsAName(loc))
      loc = mlirLocationNameGetChildLoc(loc);
    else if (mlirLocationIsACallSite(loc))
      loc = mlirLocationCallSiteGetCallee(loc);
    else if (mlirLocationIsAFused(loc) &&
             mlirLocationFusedGetNumLocations(loc) > 0) {
      MlirLocation all[64];
      if (mlirLocationFusedGetNumLocations(loc) > 64)
        return false;
      mlirLocationFusedGetLocations(loc, all);
      loc = all[0];
    } else
      return false;
  }
  return false;
}

int embFormatLocation(MlirLocation loc, char *buf, size_t size) {
  MlirStringRef file;
  unsigned line, col;
  if (!fileLineCol(loc, &file, &line, &col))
    return snprintf(buf, size, "<unknown>");
  return snprintf(buf, size, "%.*s:%u:%u", (int)file.length,
                  file.length ? file.data : "", line, col);
}

void embEmitRemarkf(MlirLocation loc, const char *fmt, ...) {
  char msg[EMB_MAX_MESSAGE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (remarkHandler)
    remarkHandler(loc, msg, remarkUserData);
}
