//===- passes/pass.c - Making passes, their options, pipelines ------------===//
//
// What every pass and pipeline definition (pass.h) is made into: an external
// pass owning a copy of its options; its options read from text, defaulted,
// checked and described, all from its option table; and the pipeline
// builder, which adds emb passes, emb pipelines and upstream passes to a
// pass manager, verifying after each when asked.
//
//===----------------------------------------------------------------------===//

#include "pass.h"

#include "ir.h"

#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/Dialect/Tensor.h"

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

size_t embPassOptionsSize(const EmbPassDef *def) {
  return def->options ? def->options->structSize : 0;
}

MlirPass embMakePass(const EmbPassDef *def, const void *options) {
  size_t size = embPassOptionsSize(def);
  PassState *s = malloc(sizeof(PassState) + size);
  if (!s)
    return (MlirPass){NULL};
  s->def = def;
  s->size = size;
  if (size)
    memcpy(s->options, options, size);
  MlirExternalPassCallbacks callbacks = {
      .construct = construct,
      .destruct = destruct,
      .initialize = NULL,
      .clone = clonePass,
      .run = runPass,
  };
  // The dialects whose ops emb's rewrites create, so that a host that loads
  // dialects lazily (mlir-opt with emb's plugin) loads them before the pass
  // runs. emb's own ops come from embLoadDialect, which has no handle.
  MlirDialectHandle dialects[] = {mlirGetDialectHandle__arith__(),
                                  mlirGetDialectHandle__tensor__(),
                                  mlirGetDialectHandle__linalg__()};
  // The definition's address is unique and aligned: it serves as the TypeID.
  return mlirCreateExternalPass(
      mlirTypeIDCreate(def), embStr(def->name), embStr(def->argument),
      embStr(def->summary), embStr(def->anchor),
      (intptr_t)(sizeof dialects / sizeof dialects[0]), dialects, callbacks, s);
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
// Options: "key=value key2=value2", as inside MLIR's pass {braces}
//===----------------------------------------------------------------------===//

/// The longest key or value of an option.
enum { maxOptionText = EMB_OPTION_TEXT_SIZE };

static int64_t *field(const EmbPassOption *o, void *options) {
  return (int64_t *)((char *)options + o->offset);
}

static int64_t fieldValue(const EmbPassOption *o, const void *options) {
  return *(const int64_t *)((const char *)options + o->offset);
}

static void skipSpace(MlirStringRef *s) {
  while (s->length && isspace((unsigned char)*s->data)) {
    ++s->data;
    --s->length;
  }
}

/// Reads the next key=value pair from `*rest` into `key` and `value`,
/// advancing `*rest`. Returns 0 at the end, 1 for a pair, -1 for a malformed
/// pair (reported).
static int nextOption(MlirStringRef *rest, char *key, char *value,
                      const char *passName, EmbErrorCallback onError,
                      void *userData) {
  skipSpace(rest);
  if (rest->length == 0)
    return 0;
  const char *start = rest->data;
  size_t k = 0;
  while (k < rest->length && rest->data[k] != '=' &&
         !isspace((unsigned char)rest->data[k]))
    ++k;
  if (k == 0 || k >= rest->length || rest->data[k] != '=' ||
      k >= maxOptionText) {
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
  if (v >= maxOptionText) {
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

/// The number of choices in "a|b|c".
static int64_t numChoices(const char *choices) {
  int64_t count = 1;
  for (const char *c = choices; *c; ++c)
    count += *c == '|';
  return count;
}

/// Writes "a, b or c" for choices "a|b|c".
static void describeChoices(const char *choices, char *buf, size_t size) {
  size_t n = 0;
  int64_t count = numChoices(choices);
  buf[0] = '\0';
  const char *start = choices;
  for (int64_t i = 0; i < count; ++i) {
    const char *end = strchr(start, '|');
    size_t len = end ? (size_t)(end - start) : strlen(start);
    const char *sep = i == 0 ? "" : i + 1 == count ? " or " : ", ";
    int w = snprintf(buf + n, size - n, "%s%.*s", sep, (int)len, start);
    if (w < 0 || (size_t)w >= size - n)
      return;
    n += (size_t)w;
    start = end ? end + 1 : start + len;
  }
}

/// The index of `value` among `choices` ("cpu|cuda"), or -1.
static int64_t choiceIndex(const char *choices, const char *value) {
  size_t len = strlen(value);
  int64_t i = 0;
  for (const char *start = choices;; ++i) {
    const char *end = strchr(start, '|');
    size_t n = end ? (size_t)(end - start) : strlen(start);
    if (n == len && !memcmp(start, value, n))
      return i;
    if (!end)
      return -1;
    start = end + 1;
  }
}

/// Sets option `o` in `options` from its text `value`; reports and returns
/// false if the value is not one it takes.
static bool setOption(const char *passName, const EmbPassOption *o,
                      const char *value, void *options,
                      EmbErrorCallback onError, void *userData) {
  if (o->kind == EMB_OPTION_TEXT) {
    size_t n = strlen(value);
    if (n >= EMB_OPTION_TEXT_SIZE) {
      embReportf(onError, userData,
                 "%s: option '%s' is %zu characters, longer than %d", passName,
                 o->name, n, EMB_OPTION_TEXT_SIZE - 1);
      return false;
    }
    memcpy((char *)options + o->offset, value, n + 1);
    return true;
  }
  if (o->kind == EMB_OPTION_ENUM) {
    int64_t i = choiceIndex(o->choices, value);
    if (i < 0) {
      char choices[256];
      describeChoices(o->choices, choices, sizeof choices);
      embReportf(onError, userData, "%s: option '%s' must be %s, got '%s'",
                 passName, o->name, choices, value);
      return false;
    }
    *field(o, options) = i;
    return true;
  }
  char *end = NULL;
  errno = 0;
  long long v = strtoll(value, &end, 10);
  if (*value == '\0' || *end != '\0' || errno != 0 || v < o->min ||
      v > o->max) {
    embReportf(onError, userData,
               "%s: option '%s' must be an integer in %lld..%lld, got '%s'",
               passName, o->name, (long long)o->min, (long long)o->max, value);
    return false;
  }
  *field(o, options) = v;
  return true;
}

/// The rows of `def`'s option table, and their number in `*n`.
static const EmbPassOption *rowsOf(const EmbPassDef *def, size_t *n) {
  *n = def->options ? def->options->numRows : 0;
  return def->options ? def->options->rows : NULL;
}

void embDefaultPassOptions(const EmbPassDef *def, void *options) {
  size_t n;
  const EmbPassOption *rows = rowsOf(def, &n);
  for (size_t i = 0; i < n; ++i)
    // A default the table cannot parse is a bug in the table (the registry
    // test lists every pass's defaults through the parser).
    setOption(def->argument, &rows[i], rows[i].defaultValue, options, NULL,
              NULL);
}

/// Reports an unknown option, listing the known ones.
static void unknownOption(const EmbPassDef *def, const char *key,
                          EmbErrorCallback onError, void *userData) {
  size_t numRows;
  const EmbPassOption *rows = rowsOf(def, &numRows);
  if (numRows == 0) {
    embReportf(onError, userData, "%s: unknown option '%s' (it takes none)",
               def->argument, key);
    return;
  }
  char known[256] = "";
  size_t n = 0;
  for (size_t i = 0; i < numRows && n < sizeof known; ++i) {
    int w = snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "",
                     rows[i].name);
    n += w > 0 ? (size_t)w : 0;
  }
  embReportf(onError, userData, "%s: unknown option '%s' (options: %s)",
             def->argument, key, known);
}

bool embParsePassOptions(const EmbPassDef *def, MlirStringRef text,
                         void *options, EmbErrorCallback onError,
                         void *userData) {
  embDefaultPassOptions(def, options);
  char key[maxOptionText], value[maxOptionText];
  int r;
  while ((r = nextOption(&text, key, value, def->argument, onError, userData)) >
         0) {
    size_t n;
    const EmbPassOption *rows = rowsOf(def, &n), *o = NULL;
    for (size_t i = 0; i < n && !o; ++i)
      if (!strcmp(rows[i].name, key))
        o = &rows[i];
    if (!o) {
      unknownOption(def, key, onError, userData);
      return false;
    }
    if (!setOption(def->argument, o, value, options, onError, userData))
      return false;
  }
  return r == 0;
}

/// Checks the values in `options` against the table; reports and returns
/// false if one is out of range.
static bool checkValues(const EmbPassDef *def, const void *options,
                        const char *function, EmbErrorCallback onError,
                        void *userData) {
  size_t n;
  const EmbPassOption *rows = rowsOf(def, &n);
  for (size_t i = 0; i < n; ++i) {
    const EmbPassOption *o = &rows[i];
    if (o->kind == EMB_OPTION_TEXT) {
      const char *text = (const char *)options + o->offset;
      if (!memchr(text, '\0', EMB_OPTION_TEXT_SIZE)) {
        embReportf(onError, userData, "%s: %s is not NUL-terminated", function,
                   o->name);
        return false;
      }
      continue;
    }
    int64_t v = fieldValue(o, options);
    if (o->kind == EMB_OPTION_ENUM) {
      if (v < 0 || v >= numChoices(o->choices)) {
        char choices[256];
        describeChoices(o->choices, choices, sizeof choices);
        embReportf(onError, userData, "%s: %s must be %s, got %lld", function,
                   o->name, choices, (long long)v);
        return false;
      }
    } else if (v < o->min || v > o->max) {
      embReportf(onError, userData, "%s: %s must be in %lld..%lld, got %lld",
                 function, o->name, (long long)o->min, (long long)o->max,
                 (long long)v);
      return false;
    }
  }
  return true;
}

bool embTakePassOptions(const EmbPassDef *def, const void *given, void *out,
                        const char *function, const char *typeName,
                        EmbErrorCallback onError, void *userData) {
  if (!given)
    return true;
  size_t structSize, expected = embPassOptionsSize(def);
  memcpy(&structSize, given, sizeof structSize);
  if (structSize != expected) {
    embReportf(onError, userData,
               "%s: options.structSize is %zu, expected %zu (sizeof(%s))",
               function, structSize, expected, typeName);
    return false;
  }
  if (!checkValues(def, given, function, onError, userData))
    return false;
  memcpy(out, given, expected);
  return true;
}

void embFormatPassOptionsHelp(const EmbPassDef *def, char *buf, size_t size) {
  size_t n = 0, numRows;
  const EmbPassOption *rows = rowsOf(def, &numRows);
  if (size)
    buf[0] = '\0';
  for (size_t i = 0; i < numRows && n < size; ++i) {
    const EmbPassOption *o = &rows[i];
    int w =
        snprintf(buf + n, size - n, "%s%s=%s: %s (default %s)", i ? "\n" : "",
                 o->name, o->kind == EMB_OPTION_INT ? "<int>" : o->choices,
                 o->help, o->defaultValue[0] ? o->defaultValue : "\"\"");
    n += w > 0 ? (size_t)w : 0;
  }
}

//===----------------------------------------------------------------------===//
// Building pipelines
//===----------------------------------------------------------------------===//

static void addVerify(EmbPipelineBuilder *b) {
  if (b->verifyEach)
    mlirOpPassManagerAddOwnedPass(b->pm, embCreateVerifyPass());
}

MlirLogicalResult embPipelineAdd(EmbPipelineBuilder *b, const EmbPassDef *def,
                                 const void *options) {
  void *defaults = NULL;
  size_t size = embPassOptionsSize(def);
  if (!options && size) {
    if (!(defaults = calloc(1, size))) {
      embReportf(b->onError, b->userData, "%s: out of memory", def->argument);
      return mlirLogicalResultFailure();
    }
    embDefaultPassOptions(def, defaults);
    options = defaults;
  }
  MlirLogicalResult result = mlirLogicalResultFailure();
  if (def->kind == EMB_PASS_KIND_PIPELINE) {
    result = def->build(b, options);
  } else if (*def->anchor && strcmp(def->anchor, b->anchor) != 0) {
    // The pass manager aborts on a pass of another anchor: refuse it here.
    embReportf(b->onError, b->userData,
               "pass '%s' runs on '%s' and cannot be nested under '%s'",
               def->argument, def->anchor, b->anchor);
  } else {
    MlirPass pass = embMakePass(def, options);
    if (pass.ptr) {
      mlirOpPassManagerAddOwnedPass(b->pm, pass);
      addVerify(b);
      result = mlirLogicalResultSuccess();
    } else {
      embReportf(b->onError, b->userData, "%s: out of memory", def->argument);
    }
  }
  free(defaults);
  return result;
}

/// MLIR's pipeline parser message about one element.
typedef struct {
  char text[EMB_MAX_MESSAGE];
  size_t used;
} Collected;

static void collect(MlirStringRef s, void *userData) {
  Collected *c = userData;
  size_t room = sizeof c->text - 1 - c->used;
  size_t n = s.length < room ? s.length : room;
  if (n == 0)
    return;
  memcpy(c->text + c->used, s.data, n);
  c->used += n;
  c->text[c->used] = '\0';
}

/// The first line of MLIR's pipeline parser message, without its
/// "MLIR Textual PassPipeline Parser:1:1: error: " prefix.
static const char *upstreamReason(Collected *msg) {
  if (msg->used == 0)
    return "not a registered pass";
  char *nl = strchr(msg->text, '\n');
  if (nl)
    *nl = '\0';
  const char *marker = "error: ";
  const char *at = strstr(msg->text, marker);
  return at ? at + strlen(marker) : msg->text;
}

MlirLogicalResult embPipelineAddUpstream(EmbPipelineBuilder *b,
                                         MlirStringRef element) {
  Collected msg = {.used = 0};
  msg.text[0] = '\0';
  if (mlirLogicalResultIsFailure(
          mlirOpPassManagerAddPipeline(b->pm, element, collect, &msg))) {
    embReportf(b->onError, b->userData,
               "invalid pass pipeline element '%.*s': %s", (int)element.length,
               element.data, upstreamReason(&msg));
    return mlirLogicalResultFailure();
  }
  addVerify(b);
  return mlirLogicalResultSuccess();
}

MlirLogicalResult embPipelineAddCleanup(EmbPipelineBuilder *b) {
  if (mlirLogicalResultIsFailure(embPipelineAddUpstream(
          b, mlirStringRefCreateFromCString("canonicalize"))))
    return mlirLogicalResultFailure();
  return embPipelineAddUpstream(b, mlirStringRefCreateFromCString("cse"));
}
