//===- passes/pass.c - Making external passes and parsing options ---------===//

#include "pass.h"

#include "ir.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// External passes
//===----------------------------------------------------------------------===//

/// What each pass instance owns: its definition and a copy of its options.
/// The pass manager clones passes (one copy per thread); clones do not get
/// `initialize`, so all state is here and copied in `clone`.
typedef struct {
  const EmbPassDef *def;
  size_t size;
  _Alignas(16) unsigned char options[];
} PassState;

static void construct(void *userData) { (void)userData; }

static void destruct(void *userData) { free(userData); }

static void *clonePass(void *userData) {
  PassState *s = userData;
  PassState *copy = malloc(sizeof(PassState) + s->size);
  if (copy)
    memcpy(copy, s, sizeof(PassState) + s->size);
  return copy;
}

static void runPass(MlirOperation op, MlirExternalPass pass, void *userData) {
  PassState *s = userData;
  s->def->run(op, pass, s->options);
}

MlirPass embMakePass(const EmbPassDef *def, const void *options) {
  PassState *s = malloc(sizeof(PassState) + def->optionsSize);
  if (!s)
    return (MlirPass){NULL};
  s->def = def;
  s->size = def->optionsSize;
  if (def->optionsSize)
    memcpy(s->options, options, def->optionsSize);
  MlirExternalPassCallbacks callbacks = {
      .construct = construct,
      .destruct = destruct,
      .initialize = NULL,
      .clone = clonePass,
      .run = runPass,
  };
  // The definition's address is unique and aligned: it serves as the TypeID.
  return mlirCreateExternalPass(mlirTypeIDCreate(def), embStr(def->name),
                                embStr(def->argument), embStr(def->summary),
                                embStr(def->anchor), 0, NULL, callbacks, s);
}

MlirPass embMakePassWithoutOptions(const EmbPassDef *def, MlirStringRef options,
                                   EmbErrorCallback onError, void *userData) {
  char key[64], value[64];
  int r = embNextOption(&options, key, sizeof key, value, sizeof value,
                        def->argument, onError, userData);
  if (r != 0) {
    if (r > 0)
      embUnknownOption(def->argument, key, "", onError, userData);
    return (MlirPass){NULL};
  }
  return embMakePass(def, NULL);
}

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

void embReportf(EmbErrorCallback onError, void *userData, const char *fmt,
                ...) {
  if (!onError)
    return;
  char msg[EMB_MAX_MESSAGE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  onError(msg, userData);
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static void skipSpace(MlirStringRef *s) {
  while (s->length && isspace((unsigned char)*s->data)) {
    ++s->data;
    --s->length;
  }
}

int embNextOption(MlirStringRef *rest, char *key, size_t keySize, char *value,
                  size_t valueSize, const char *passName,
                  EmbErrorCallback onError, void *userData) {
  skipSpace(rest);
  if (rest->length == 0)
    return 0;
  const char *start = rest->data;
  size_t k = 0;
  while (k < rest->length && rest->data[k] != '=' &&
         !isspace((unsigned char)rest->data[k]))
    ++k;
  if (k == 0 || k >= rest->length || rest->data[k] != '=' || k >= keySize) {
    size_t show = 0;
    while (show < rest->length && !isspace((unsigned char)start[show]))
      ++show;
    embReportf(onError, userData,
               "%s: malformed option '%.*s' (expected key=value)", passName,
               (int)show, start);
    return -1;
  }
  memcpy(key, rest->data, k);
  key[k] = '\0';
  rest->data += k + 1;
  rest->length -= k + 1;
  size_t v = 0;
  if (rest->length && *rest->data == '"') {
    ++rest->data;
    --rest->length;
    while (v < rest->length && rest->data[v] != '"')
      ++v;
    if (v >= rest->length) {
      embReportf(onError, userData, "%s: option '%s' has an unterminated quote",
                 passName, key);
      return -1;
    }
  } else {
    while (v < rest->length && !isspace((unsigned char)rest->data[v]))
      ++v;
  }
  if (v >= valueSize) {
    embReportf(onError, userData, "%s: option '%s' value is too long", passName,
               key);
    return -1;
  }
  memcpy(value, rest->data, v);
  value[v] = '\0';
  size_t consumed = v + (rest->length > v && rest->data[v] == '"');
  rest->data += consumed;
  rest->length -= consumed;
  return 1;
}

bool embParseIntOption(const char *passName, const char *key, const char *value,
                       long long lo, long long hi, long long *out,
                       EmbErrorCallback onError, void *userData) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(value, &end, 10);
  if (*value == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi) {
    embReportf(onError, userData,
               "%s: option '%s' must be an integer in %lld..%lld, got '%s'",
               passName, key, lo, hi, value);
    return false;
  }
  *out = v;
  return true;
}

void embUnknownOption(const char *passName, const char *key, const char *known,
                      EmbErrorCallback onError, void *userData) {
  if (known && *known)
    embReportf(onError, userData, "%s: unknown option '%s' (options: %s)",
               passName, key, known);
  else
    embReportf(onError, userData, "%s: unknown option '%s' (it takes none)",
               passName, key);
}
