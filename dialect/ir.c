//===- dialect/ir.c - Small IR helpers shared by emb's C code -------------===//

#include "ir.h"

#include "emb/emb.h"

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

static void copyRef(MlirStringRef ref, char *buf, size_t size) {
  if (size == 0)
    return;
  size_t n = ref.length < size - 1 ? ref.length : size - 1;
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
  if (mlirShapedTypeIsDynamicDim(shaped, i))
    return -1;
  return mlirShapedTypeGetDimSize(shaped, i);
}

int64_t embNumElements(MlirType shaped) {
  int64_t n = 1;
  for (intptr_t i = 0, e = mlirShapedTypeGetRank(shaped); i < e; ++i) {
    int64_t d = embDim(shaped, i);
    if (d < 0)
      return -1;
    n *= d;
  }
  return n;
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
  return snprintf(buf, size, "%.*s:%u:%u", (int)file.length, file.data, line,
                  col);
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
