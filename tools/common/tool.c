//===- tools/common/tool.c - What emb's command-line tools share ----------===//

#define _POSIX_C_SOURCE 200809L

#include "tool.h"
#include "upstream.h"

#include "emb/emb.h"

#include "mlir-c/BuiltinAttributes.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static char *readAll(FILE *f, size_t *size) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  if (!buf)
    return NULL;
  for (;;) {
    if (n + 1 >= cap) {
      cap *= 2;
      char *grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        return NULL;
      }
      buf = grown;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0)
      break;
  }
  buf[n] = '\0';
  *size = n;
  return buf;
}

int embToolRead(const char *tool, const char *path, EmbToolSource *src) {
  memset(src, 0, sizeof *src);
  src->name = path;
  FILE *in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!in) {
    fprintf(stderr, "%s: error: cannot open input file '%s'\n", tool, path);
    return -1;
  }
  // fopen opens a directory for reading, and fread then reads nothing: it
  // would pass for an empty module.
  struct stat st;
  if (fstat(fileno(in), &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "%s: error: '%s': is a directory\n", tool, path);
    if (in != stdin)
      fclose(in);
    return -1;
  }
  if (in == stdin)
    src->name = "<stdin>";
  embCrashSetInput(src->name);
  errno = 0;
  src->text = readAll(in, &src->size);
  int readError = ferror(in) ? errno : 0;
  if (in != stdin)
    fclose(in);
  if (!src->text || readError) {
    fprintf(stderr, "%s: error: cannot read input file '%s'%s%s\n", tool, path,
            readError ? ": " : "", readError ? strerror(readError) : "");
    free(src->text);
    src->text = NULL;
    return -1;
  }
  return 0;
}

MlirContext embToolCreateContext(bool allowUnregistered) {
  MlirContext ctx = embContextCreate();
  // As mlir-opt's flag: torch-mlir's tm_tensor ops parse (in generic form)
  // for the raise passes to read, without the TMTensor dialect.
  if (!mlirContextIsNull(ctx) && allowUnregistered)
    mlirContextSetAllowUnregisteredDialects(ctx, true);
  return ctx;
}

/// Prints line `line` of the source and a caret under column `col`.
static void printSourceLine(const EmbToolSource *src, unsigned line,
                            unsigned col) {
  const char *p = src->text, *end = src->text + src->size;
  for (unsigned l = 1; l < line && p < end; ++l) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
      return;
    p = nl + 1;
  }
  const char *eol = memchr(p, '\n', (size_t)(end - p));
  size_t len = (size_t)((eol ? eol : end) - p);
  // A long line (generated or fuzzed input) is shown around the column.
  enum { WINDOW = 100 };
  size_t first = col > WINDOW ? col - WINDOW : 1; // 1-based, shown
  if (first > len)
    first = len ? len : 1;
  size_t last = first + 2 * WINDOW < len ? first + 2 * WINDOW : len;
  const char *pre = first > 1 ? "..." : "";
  fprintf(stderr, "%s%.*s%s\n", pre, (int)(last - first + 1), p + first - 1,
          last < len ? "..." : "");
  fputs(pre, stderr);
  for (size_t c = first; c < col && c <= len; ++c)
    fputc(p[c - 1] == '\t' ? '\t' : ' ', stderr);
  fprintf(stderr, "^\n");
}

static void printMessage(MlirStringRef s, void *userData) {
  (void)userData;
  fwrite(s.data, 1, s.length, stderr);
}

static const char *severityName(MlirDiagnosticSeverity s) {
  switch (s) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "error";
}

/// Prints "file:line:col: severity: message", the source line and a caret,
/// as mlir-opt does. The parser names its buffer "-"; that is our input.
void embToolPrintDiagnostic(EmbToolSource *src, MlirLocation loc,
                            const char *severity, MlirDiagnostic *diag,
                            const char *text) {
  char where[512];
  embFormatLocation(loc, where, sizeof where);
  if (!strncmp(where, "-:", 2)) {
    char named[512];
    snprintf(named, sizeof named, "%s%s", src->name, where + 1);
    snprintf(where, sizeof where, "%s", named);
  }
  fprintf(stderr, "%s: %s: ", where, severity);
  if (diag)
    mlirDiagnosticPrint(*diag, printMessage, NULL);
  else
    fputs(text, stderr);
  fputc('\n', stderr);
  unsigned line = 0, col = 0;
  const char *colon = strrchr(where, ':');
  if (colon && colon > where) {
    const char *prev = colon - 1;
    while (prev > where && *prev != ':')
      --prev;
    if (*prev == ':' && sscanf(prev + 1, "%u:%u", &line, &col) == 2)
      printSourceLine(src, line, col);
  }
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic diag, void *userData) {
  EmbToolSource *src = userData;
  MlirDiagnosticSeverity sev = mlirDiagnosticGetSeverity(diag);
  if (sev == MlirDiagnosticError)
    ++src->errors;
  embToolPrintDiagnostic(src, mlirDiagnosticGetLocation(diag),
                         severityName(sev), &diag, NULL);
  for (intptr_t i = 0, n = mlirDiagnosticGetNumNotes(diag); i < n; ++i) {
    MlirDiagnostic note = mlirDiagnosticGetNote(diag, i);
    embToolPrintDiagnostic(src, mlirDiagnosticGetLocation(note), "note", &note,
                           NULL);
  }
  return mlirLogicalResultSuccess();
}

static void onRemark(MlirLocation loc, const char *message, void *userData) {
  embToolPrintDiagnostic(userData, loc, "remark", NULL, message);
}

MlirDiagnosticHandlerID embToolAttachDiagnostics(MlirContext ctx,
                                                 EmbToolSource *src) {
  embSetRemarkHandler(onRemark, src);
  return mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, src, NULL);
}

//===----------------------------------------------------------------------===//
// Parsing
//
// IRDL ops parse in the generic form only, and MLIR's parser fails on their
// custom form without a diagnostic. When a parse fails silently, find the
// first emb op written without quotes and say so at its location.
//===----------------------------------------------------------------------===//

static bool findCustomEmbOp(const char *text, size_t size, unsigned *line,
                            unsigned *col, char *name, size_t nameSize) {
  unsigned l = 1, c = 1;
  bool inString = false;
  for (size_t i = 0; i < size; ++i) {
    char ch = text[i];
    if (ch == '\n') {
      ++l;
      c = 1;
      inString = false;
      continue;
    }
    if (inString) {
      if (ch == '\\' && i + 1 < size)
        ++i, ++c;
      else if (ch == '"')
        inString = false;
      ++c;
      continue;
    }
    if (ch == '/' && i + 1 < size && text[i + 1] == '/') {
      while (i + 1 < size && text[i + 1] != '\n')
        ++i;
      continue;
    }
    if (ch == '"') {
      inString = true;
      ++c;
      continue;
    }
    bool boundary =
        i == 0 ||
        !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_' ||
          text[i - 1] == '.' || text[i - 1] == '%' || text[i - 1] == '@' ||
          text[i - 1] == '!' || text[i - 1] == '#' || text[i - 1] == '^');
    if (boundary && size - i > 4 && !strncmp(text + i, "emb.", 4) &&
        isalpha((unsigned char)text[i + 4])) {
      size_t n = 4;
      while (i + n < size &&
             (isalnum((unsigned char)text[i + n]) || text[i + n] == '_'))
        ++n;
      snprintf(name, nameSize, "%.*s", (int)n, text + i);
      *line = l;
      *col = c;
      return true;
    }
    ++c;
  }
  return false;
}

/// The C API parses a module from a buffer it names "-". Give the ops'
/// locations the input's name, so that diagnostics from passes and printed
/// debug info name the file.
typedef struct {
  MlirContext ctx;
  MlirStringRef name;
} Rename;

static MlirWalkResult renameLocation(MlirOperation op, void *userData) {
  Rename *r = userData;
  MlirLocation loc = mlirOperationGetLocation(op);
  if (!mlirLocationIsAFileLineColRange(loc))
    return MlirWalkResultAdvance;
  MlirStringRef file =
      mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
  if (file.length != 1 || file.data[0] != '-')
    return MlirWalkResultAdvance;
  mlirOperationSetLocation(
      op, mlirLocationFileLineColRangeGet(
              r->ctx, r->name, mlirLocationFileLineColRangeGetStartLine(loc),
              mlirLocationFileLineColRangeGetStartColumn(loc),
              mlirLocationFileLineColRangeGetEndLine(loc),
              mlirLocationFileLineColRangeGetEndColumn(loc)));
  return MlirWalkResultAdvance;
}

MlirModule embToolParse(MlirContext ctx, EmbToolSource *src, const char *text) {
  int errorsBefore = src->errors;
  // Forms that crash MLIR 22's parser or the verifiers it runs are
  // rejected before it sees them (upstream.h).
  EmbUpstreamCrash crash;
  if (embToolFindUpstreamCrash(text, strlen(text), &crash)) {
    ++src->errors;
    embToolPrintDiagnostic(
        src,
        mlirLocationFileLineColGet(ctx, str(src->name), crash.line, crash.col),
        "error", NULL, crash.message);
    return (MlirModule){NULL};
  }
  // MLIR's parser runs the upstream verifiers too.
  embCrashSetStage("parsing and verifying the input (MLIR's parser)", NULL);
  embCrashTestPoint("parse");
  // mlirModuleCreateParse wraps top-level ops in a module, as mlir-opt does.
  MlirModule module = mlirModuleCreateParse(ctx, str(text));
  if (mlirModuleIsNull(module)) {
    if (src->errors == errorsBefore) {
      unsigned line = 1, col = 1;
      char name[64] = "";
      char msg[512];
      MlirLocation loc;
      if (findCustomEmbOp(text, strlen(text), &line, &col, name, sizeof name))
        snprintf(msg, sizeof msg,
                 "custom syntax is not supported for '%s': write it in the "
                 "generic form \"%s\"(operands) {attributes} : "
                 "(operand types) -> result type",
                 name, name);
      else
        snprintf(msg, sizeof msg,
                 "failed to parse the input (the parser gave no reason)");
      loc = mlirLocationFileLineColGet(ctx, str(src->name), line, col);
      ++src->errors;
      embToolPrintDiagnostic(src, loc, "error", NULL, msg);
    }
    return module;
  }
  Rename rename = {ctx, str(src->name)};
  mlirOperationWalk(mlirModuleGetOperation(module), renameLocation, &rename,
                    MlirWalkPreOrder);
  MlirOperation at;
  char msg[512];
  if (embToolFindUpstreamCrashOp(module, &at, msg, sizeof msg)) {
    ++src->errors;
    embToolPrintDiagnostic(src, mlirOperationGetLocation(at), "error", NULL,
                           msg);
    mlirModuleDestroy(module);
    return (MlirModule){NULL};
  }
  return module;
}

//===----------------------------------------------------------------------===//
// Pipelines and entry functions
//===----------------------------------------------------------------------===//

void embToolReportError(const char *message, void *tool) {
  fprintf(stderr, "%s: error: %s\n", (const char *)tool, message);
}

int embToolRunPipeline(const char *tool, MlirModule module,
                       const char *pipeline) {
  MlirOperation op = mlirModuleGetOperation(module);
  MlirPassManager pm = mlirPassManagerCreateOnOperation(
      mlirOperationGetContext(op), str("builtin.module"));
  int status = 0;
  embCrashSetStage("running a pass pipeline", pipeline);
  embCrashTestPoint("pipeline");
  if (mlirLogicalResultIsFailure(embAddPassPipeline(
          mlirPassManagerGetAsOpPassManager(pm), str(pipeline), true,
          embToolReportError, (void *)tool)) ||
      mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op)))
    status = 1;
  embCrashSetStage("after a pass pipeline", NULL);
  mlirPassManagerDestroy(pm);
  return status;
}

MlirOperation embToolFindEntry(MlirModule module, const char *name) {
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
    if (n.length != 9 || memcmp(n.data, "func.func", 9))
      continue;
    MlirStringRef s = mlirStringAttrGetValue(
        mlirOperationGetAttributeByName(op, str("sym_name")));
    bool hasBody = !mlirBlockIsNull(
        mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0)));
    bool isPublic = mlirAttributeIsNull(
        mlirOperationGetAttributeByName(op, str("sym_visibility")));
    if (name ? (s.length == strlen(name) &&
                (s.length == 0 || !memcmp(s.data, name, s.length)))
             : (hasBody && isPublic))
      return op;
  }
  return (MlirOperation){NULL};
}

char *embToolArgumentName(const EmbToolSource *src, MlirValue arg) {
  // MLIR's parser locates a function argument at its `%name` (unless the
  // source gives it a loc of its own); the name itself is not kept.
  MlirLocation loc = mlirValueGetLocation(arg);
  if (!mlirLocationIsAFileLineColRange(loc) || !src->text)
    return NULL;
  int line = mlirLocationFileLineColRangeGetStartLine(loc);
  int col = mlirLocationFileLineColRangeGetStartColumn(loc);
  const char *p = src->text, *end = src->text + src->size;
  for (int l = 1; l < line && p < end; ++l) {
    p = memchr(p, '\n', (size_t)(end - p));
    p = p ? p + 1 : end;
  }
  p += col > 0 ? col - 1 : 0;
  if (p >= end || *p != '%')
    return NULL;
  size_t n = 1;
  while (p + n < end && (isalnum((unsigned char)p[n]) || p[n] == '_' ||
                         p[n] == '.' || p[n] == '$' || p[n] == '-'))
    ++n;
  char *name = n > 1 ? malloc(n + 1) : NULL;
  if (name) {
    memcpy(name, p, n);
    name[n] = '\0';
  }
  return name;
}
