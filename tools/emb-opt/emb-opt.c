//===- tools/emb-opt/emb-opt.c - The emb optimizer driver -----------------===//
//
// An mlir-opt-style tool for emb IR: reads a file (or stdin), verifies it
// (MLIR's verifier and emb's own), runs a pass pipeline that may mix emb's
// passes with any upstream pass, verifying after every pass, and prints the
// result. Exit status 0 on success, 1 on any error.
//
//===----------------------------------------------------------------------===//

#include "emb/emb.h"
#include "emb/version.h"

#include "../common/tool.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static const char *const usage =
    "OVERVIEW: emb optimizer driver\n"
    "\n"
    "USAGE: emb-opt [options] [input file, or - for stdin]\n"
    "\n"
    "OPTIONS:\n"
    "  -o <file>                    Write the output to <file> (default: "
    "stdout)\n"
    "  --pass-pipeline=<pipeline>   Run a textual pipeline, e.g.\n"
    "                               'builtin.module(emb-verify,canonicalize)'\n"
    "  --<pass>[=<options>]         Run one pass: an emb pass (see "
    "--list-passes)\n"
    "                               or any upstream pass (--canonicalize, "
    "--cse)\n"
    "  --split-input-file[=<sep>]   Process chunks separated by <sep> "
    "(default, and\n"
    "                               when empty: '// -----') on their own\n"
    "  --verify-each=<bool>         Verify after every pass (default: true)\n"
    "  --mlir-print-ir-after-all    Print the IR after every pass (stderr)\n"
    "  --mlir-print-ir-before-all   Print the IR before every pass (stderr)\n"
    "  --mlir-print-op-generic      Print every op in the generic form\n"
    "  --mlir-print-debuginfo       Print locations\n"
    "  --mlir-disable-threading     Run passes on one thread\n"
    "  --allow-unregistered-dialect Accept ops of dialects emb does not load\n"
    "                               (tm_tensor from torch-mlir), in generic "
    "form\n"
    "  --list-passes                List emb's passes and pipelines\n"
    "  --help                       Show this text\n"
    "  --version                    Show the version\n";

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

typedef struct {
  const char *input;
  const char *output;
  char *pipeline; ///< comma-joined pipeline elements, in flag order
  size_t pipelineSize;
  bool split;
  const char *splitMarker;
  bool verifyEach;
  bool printAfterAll;
  bool printBeforeAll;
  bool generic;
  bool debugInfo;
  bool noThreading;
  bool allowUnregistered;
  bool listPasses;
} Options;

static int toolError(const char *fmt, const char *arg) {
  fprintf(stderr, "emb-opt: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  return 1;
}

static void appendPipeline(Options *o, const char *text, size_t len) {
  size_t used = o->pipeline ? strlen(o->pipeline) : 0;
  size_t need = used + len + 2;
  if (need > o->pipelineSize) {
    o->pipelineSize = need * 2;
    o->pipeline = realloc(o->pipeline, o->pipelineSize);
    if (!o->pipeline) {
      fprintf(stderr, "emb-opt: error: out of memory\n");
      exit(1);
    }
    o->pipeline[used] = '\0';
  }
  if (used)
    strcat(o->pipeline, ",");
  strncat(o->pipeline, text, len);
}

/// Parses a boolean flag value: true/false/1/0.
static bool parseBool(const char *v, bool *out) {
  if (!strcmp(v, "true") || !strcmp(v, "1")) {
    *out = true;
    return true;
  }
  if (!strcmp(v, "false") || !strcmp(v, "0")) {
    *out = false;
    return true;
  }
  return false;
}

/// Turns `--name=opts` into the pipeline element `name{opts}`.
static void addPassFlag(Options *o, const char *flag) {
  const char *eq = strchr(flag, '=');
  if (!eq) {
    appendPipeline(o, flag, strlen(flag));
    return;
  }
  size_t size = strlen(flag) + 2; // '=' becomes '{', and '}' and a NUL
  char *elem = malloc(size);
  if (!elem) {
    fprintf(stderr, "emb-opt: error: out of memory\n");
    exit(1);
  }
  snprintf(elem, size, "%.*s{%s}", (int)(eq - flag), flag, eq + 1);
  appendPipeline(o, elem, strlen(elem));
  free(elem);
}

/// Lists emb's passes and pipelines, each option on a line of its own.
static void listPasses(void) {
  printf("emb passes and pipelines (any upstream MLIR pass is accepted "
         "too):\n");
  for (intptr_t i = 0, n = embGetNumPasses(); i < n; ++i) {
    EmbPassInfo info = embGetPassInfo(i);
    printf("  --%-28s %s%s\n", info.name,
           info.kind == EMB_PASS_KIND_PIPELINE ? "(pipeline) " : "",
           info.summary);
    for (const char *line = info.options; line && *line;) {
      size_t len = strcspn(line, "\n");
      printf("  %-30s   %.*s\n", "", (int)len, line);
      line += len + (line[len] == '\n');
    }
  }
}

/// Returns -1 to continue, or an exit status.
static int parseArgs(int argc, char **argv, Options *o) {
  bool sawInput = false;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "-o")) {
      if (i + 1 >= argc)
        return toolError("%s needs a file name", a);
      o->output = argv[++i];
    } else if (!strncmp(a, "-o", 2) && a[2] != '-' && a[2]) {
      o->output = a + 2;
    } else if (!strcmp(a, "-") || a[0] != '-') {
      if (sawInput)
        return toolError("more than one input file ('%s')", a);
      o->input = a;
      sawInput = true;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage, stdout);
      printf("\n");
      listPasses();
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("emb-opt (emb " EMB_VERSION_STRING ") on MLIR 22\n");
      return 0;
    } else if (!strcmp(a, "--list-passes")) {
      o->listPasses = true;
    } else if (!strcmp(a, "--split-input-file")) {
      o->split = true;
    } else if (!strncmp(a, "--split-input-file=", 19)) {
      // An empty marker would match every line: as mlir-opt does, it means
      // the default one.
      o->split = true;
      o->splitMarker = a[19] ? a + 19 : NULL;
    } else if (!strcmp(a, "--verify-each")) {
      o->verifyEach = true;
    } else if (!strncmp(a, "--verify-each=", 14)) {
      if (!parseBool(a + 14, &o->verifyEach))
        return toolError("--verify-each takes true or false, got '%s'", a + 14);
    } else if (!strcmp(a, "--mlir-print-ir-after-all")) {
      o->printAfterAll = true;
    } else if (!strcmp(a, "--mlir-print-ir-before-all")) {
      o->printBeforeAll = true;
    } else if (!strcmp(a, "--mlir-print-op-generic")) {
      o->generic = true;
    } else if (!strcmp(a, "--mlir-print-debuginfo")) {
      o->debugInfo = true;
    } else if (!strcmp(a, "--mlir-disable-threading")) {
      o->noThreading = true;
    } else if (!strcmp(a, "--allow-unregistered-dialect")) {
      o->allowUnregistered = true;
    } else if (!strncmp(a, "--pass-pipeline=", 16)) {
      appendPipeline(o, a + 16, strlen(a + 16));
    } else if (!strcmp(a, "--pass-pipeline")) {
      if (i + 1 >= argc)
        return toolError("%s needs a pipeline", a);
      ++i;
      appendPipeline(o, argv[i], strlen(argv[i]));
    } else if (a[0] == '-' && a[1] == '-' && isalpha((unsigned char)a[2])) {
      // Any other --name is a pass; the pipeline parser says if it is not.
      addPassFlag(o, a + 2);
    } else {
      return toolError("unknown option '%s' (see --help)", a);
    }
  }
  return -1;
}

//===----------------------------------------------------------------------===//
// Input and diagnostics
//===----------------------------------------------------------------------===//

static void onPipelineError(const char *message, void *userData) {
  (void)userData;
  fprintf(stderr, "emb-opt: error: %s\n", message);
}

//===----------------------------------------------------------------------===//
// Processing one buffer
//===----------------------------------------------------------------------===//

static void writeToFile(MlirStringRef s, void *userData) {
  fwrite(s.data, 1, s.length, (FILE *)userData);
}

/// Parses, verifies, transforms and prints one buffer. `chunk` is padded
/// with newlines so that locations match the whole file.
static int processBuffer(MlirContext ctx, const Options *o, EmbToolSource *src,
                         const char *chunk, FILE *out) {
  MlirModule module = embToolParse(ctx, src, chunk);
  if (mlirModuleIsNull(module))
    return 1;
  MlirOperation op = mlirModuleGetOperation(module);
  int status = 0;
  embCrashSetStage("verifying the input (emb's verifiers)", NULL);
  if (mlirLogicalResultIsFailure(embVerify(op)))
    status = 1;
  if (status == 0 && o->pipeline && *o->pipeline) {
    MlirPassManager pm =
        mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
    mlirPassManagerEnableVerifier(pm, o->verifyEach);
    if (o->printAfterAll || o->printBeforeAll) {
      MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
      if (o->generic)
        mlirOpPrintingFlagsPrintGenericOpForm(flags);
      mlirPassManagerEnableIRPrinting(pm, o->printBeforeAll, o->printAfterAll,
                                      false, false, false, flags, str(""));
      mlirOpPrintingFlagsDestroy(flags);
    }
    embCrashSetStage("running the pass pipeline", o->pipeline);
    embCrashTestPoint("pipeline");
    if (mlirLogicalResultIsFailure(embAddPassPipeline(
            mlirPassManagerGetAsOpPassManager(pm), str(o->pipeline),
            o->verifyEach, onPipelineError, NULL)))
      status = 1;
    else if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, op)))
      status = 1;
    mlirPassManagerDestroy(pm);
  }
  if (status == 0) {
    embCrashSetStage("printing the result", NULL);
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    if (o->generic)
      mlirOpPrintingFlagsPrintGenericOpForm(flags);
    if (o->debugInfo)
      mlirOpPrintingFlagsEnableDebugInfo(flags, true, false);
    mlirOperationPrintWithFlags(op, flags, writeToFile, out);
    fputc('\n', out);
    mlirOpPrintingFlagsDestroy(flags);
  }
  mlirModuleDestroy(module);
  return status;
}

/// Runs every chunk of the input through processBuffer.
static int processInput(MlirContext ctx, const Options *o, EmbToolSource *src,
                        FILE *out) {
  if (!o->split)
    return processBuffer(ctx, o, src, src->text, out);
  const char *marker = o->splitMarker ? o->splitMarker : "// -----";
  size_t markerLen = strlen(marker);
  int status = 0;
  const char *p = src->text, *end = src->text + src->size;
  unsigned firstLine = 1;
  bool firstChunk = true;
  while (p <= end) {
    // A chunk ends at a line that starts with the marker.
    const char *q = p;
    unsigned lines = 0;
    const char *chunkEnd = end, *next = NULL;
    while (q < end) {
      const char *eol = memchr(q, '\n', (size_t)(end - q));
      const char *lineEnd = eol ? eol : end;
      const char *s = q;
      while (s < lineEnd && (*s == ' ' || *s == '\t'))
        ++s;
      if ((size_t)(lineEnd - s) >= markerLen &&
          !strncmp(s, marker, markerLen)) {
        chunkEnd = q;
        next = eol ? eol + 1 : end;
        break;
      }
      ++lines;
      if (!eol)
        break;
      q = eol + 1;
    }
    size_t len = (size_t)(chunkEnd - p);
    char *chunk = malloc(firstLine - 1 + len + 1);
    if (!chunk)
      return toolError("%s", "out of memory");
    memset(chunk, '\n', firstLine - 1);
    memcpy(chunk + firstLine - 1, p, len);
    chunk[firstLine - 1 + len] = '\0';
    if (!firstChunk)
      fprintf(out, "// -----\n");
    firstChunk = false;
    status |= processBuffer(ctx, o, src, chunk, out);
    free(chunk);
    if (!next)
      break;
    firstLine += lines + 1;
    p = next;
  }
  return status;
}

int main(int argc, char **argv) {
  embCrashInstall("emb-opt", argc, argv);
  Options o = {.input = "-", .output = "-", .verifyEach = true};
  int status = parseArgs(argc, argv, &o);
  if (status >= 0)
    return status;
  if (o.listPasses) {
    listPasses();
    return 0;
  }

  EmbToolSource src;
  if (embToolRead("emb-opt", o.input, &src))
    return 1;

  MlirContext ctx = embToolCreateContext(o.allowUnregistered);
  if (mlirContextIsNull(ctx))
    return toolError("%s", "cannot load the emb dialect");
  if (o.noThreading || o.printAfterAll || o.printBeforeAll)
    mlirContextEnableMultithreading(ctx, false);
  MlirDiagnosticHandlerID handler = embToolAttachDiagnostics(ctx, &src);

  FILE *out = stdout;
  if (strcmp(o.output, "-")) {
    out = fopen(o.output, "w");
    if (!out) {
      mlirContextDetachDiagnosticHandler(ctx, handler);
      mlirContextDestroy(ctx);
      free(src.text);
      free(o.pipeline);
      return toolError("cannot open output file '%s'", o.output);
    }
  }
  status = processInput(ctx, &o, &src, out);
  if (out != stdout && fclose(out) != 0)
    status = toolError("cannot write output file '%s'", o.output);

  embSetRemarkHandler(NULL, NULL);
  mlirContextDetachDiagnosticHandler(ctx, handler);
  mlirContextDestroy(ctx);
  free(src.text);
  free(o.pipeline);
  return status ? 1 : 0;
}
