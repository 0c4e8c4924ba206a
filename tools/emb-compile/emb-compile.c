//===- tools/emb-compile/emb-compile.c - Compile a model ahead of time ----===//
//
// Compiles an entry function of a .mlir file to an object file and a C
// header, for machines without MLIR (a GPU machine): emb-ikbo (or any
// --pipeline) first if asked, then emb-lower-to-llvm. --with-reference also
// compiles the function as written, as `<entry>__reference`, into the same
// object, so that the runner there can check the rewrite on the device.
// --shared links them into a shared object that describes itself instead
// (link.c). The object exports the entries alone, as `<prefix><entry>` (emb_ by
// default, --symbol-prefix): a model named `main` links into a program.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "../common/tool.h"
#include "emb/compiled.h"
#include "emb/emb.h"
#include "emb/version.h"
#include "link.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const usage =
    "OVERVIEW: compile an emb model ahead of time\n"
    "\n"
    "USAGE: emb-compile [options] <input.mlir> -o <prefix>\n"
    "       emb-compile [options] <input.mlir> --shared -o <model.so>\n"
    "\n"
    "Writes <prefix>.o and <prefix>.h. Entry @f is the C function emb_f "
    "(and\n"
    "@f__reference emb_f__reference), declared in <prefix>.h.\n"
    "\n"
    "SHARED OBJECTS (--shared):\n"
    "  Writes <model.so>, linked by $CC (default cc), for a program to "
    "dlopen\n"
    "  (emb_torch.load, emb-run-shared). It describes itself: "
    "`emb_models`\n"
    "  (an EmbSharedModel, emb/model.h) lists `emb_model_f` per entry, an\n"
    "  EmbModelSpec whose invoke calls emb_f; no header is needed. It "
    "needs\n"
    "  libembrt.so (DT_NEEDED): the one already loaded in the process, else\n"
    "  one on LD_LIBRARY_PATH, next to <model.so>, or on the system's "
    "path.\n"
    "  `emb_abi_version` records the compiled ABI version it needs.\n"
    "\n"
    "Every object needs the runtime's embrtCompiledAbi<N>, N the compiled ABI\n"
    "version (emb/compiled.h, --version): one linked or loaded with a runtime\n"
    "of another version fails, naming the symbol.\n"
    "\n"
    "OPTIONS:\n"
    "  --shared            Write a shared object <model.so> (-o) instead of\n"
    "                      an object and a header\n"
    "  --entry NAME        The function to compile (default: the first "
    "public one)\n"
    "  --target cpu|cuda   Where the buffers live (default: cpu)\n"
    "  --pipeline P        Run pass pipeline P (e.g. emb-ikbo) before "
    "lowering\n"
    "  --with-reference    Also compile the function as written, as "
    "<entry>__reference\n"
    "  --reference-target cpu|cuda\n"
    "                      The target of <entry>__reference (default: "
    "--target); a\n"
    "                      cpu reference of a cuda model runs on the CPU\n"
    "  --symbol-prefix P   Name the C functions of the entries P<entry> "
    "(default\n"
    "                      emb_); every name the header defines starts "
    "with P\n"
    "  --allow-unregistered-dialect\n"
    "                      Accept ops of dialects emb does not load "
    "(tm_tensor\n"
    "                      from torch-mlir), in generic form, for --pipeline "
    "to\n"
    "                      raise\n"
    "  --version           Print emb's version and the compiled ABI "
    "version\n";

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/// Describes again the inputs of `spec`'s entry in `module` whose types the
/// pipeline changed (emb-quantize-tables{arguments=packed} makes a table
/// argument its packed rows): the description of the model as written is
/// stale for them. Returns the first such input, -1 if none, or -2 when the
/// entry cannot be described.
static int redescribeChangedInputs(MlirModule module, EmbModelSpec *spec) {
  MlirOperation entry = embToolFindEntry(module, spec->name);
  EmbModelSpec after;
  if (mlirOperationIsNull(entry) ||
      mlirLogicalResultIsFailure(embDescribeEntry(entry, &after)))
    return -2;
  int first = -1;
  if (after.numInputs != spec->numInputs) {
    embModelSpecDestroy(&after);
    return -2;
  }
  EmbArgSpec *inputs = (EmbArgSpec *)spec->inputs;
  for (int i = 0; i < spec->numInputs; ++i) {
    const EmbArgSpec *a = &inputs[i], *b = &after.inputs[i];
    if (a->dtype == b->dtype && a->rank == b->rank &&
        !memcmp(a->dims, b->dims, sizeof a->dims))
      continue;
    inputs[i] = *b;
    if (first < 0)
      first = i;
  }
  embModelSpecDestroy(&after);
  return first;
}

int main(int argc, char **argv) {
  embCrashInstall("emb-compile", argc, argv);
  const char *input = NULL, *output = NULL, *entryName = NULL, *pipeline = NULL,
             *target = "cpu";
  const char *refTarget = NULL, *prefix = EMB_DEFAULT_SYMBOL_PREFIX;
  bool withReference = false, allowUnregistered = false, shared = false;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage, stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("emb-compile (emb %s), compiled ABI version %d\n",
             EMB_VERSION_STRING, EMB_ABI_VERSION);
      return 0;
    } else if (!strcmp(a, "-o") && i + 1 < argc) {
      output = argv[++i];
    } else if (!strcmp(a, "--entry") && i + 1 < argc) {
      entryName = argv[++i];
    } else if (!strcmp(a, "--pipeline") && i + 1 < argc) {
      pipeline = argv[++i];
    } else if (!strcmp(a, "--target") && i + 1 < argc) {
      target = argv[++i];
      if (strcmp(target, "cpu") && strcmp(target, "cuda")) {
        fprintf(stderr, "emb-compile: error: --target must be cpu or cuda\n");
        return 1;
      }
    } else if (!strcmp(a, "--with-reference")) {
      withReference = true;
    } else if (!strcmp(a, "--shared")) {
      shared = true;
    } else if (!strcmp(a, "--reference-target") && i + 1 < argc) {
      refTarget = argv[++i];
      if (strcmp(refTarget, "cpu") && strcmp(refTarget, "cuda")) {
        fprintf(stderr,
                "emb-compile: error: --reference-target must be cpu or cuda\n");
        return 1;
      }
    } else if (!strcmp(a, "--symbol-prefix") && i + 1 < argc) {
      prefix = argv[++i];
      if (!embIsSymbolPrefix(prefix)) {
        fprintf(stderr,
                "emb-compile: error: --symbol-prefix '%s' does not begin a C "
                "identifier (letters, digits and '_', not a digit first)\n",
                prefix);
        return 1;
      }
    } else if (!strcmp(a, "--allow-unregistered-dialect")) {
      allowUnregistered = true;
    } else if (a[0] != '-' || !strcmp(a, "-")) {
      if (input) {
        fprintf(stderr,
                "emb-compile: error: more than one input file ('%s' and "
                "'%s')\n",
                input, a);
        return 1;
      }
      input = a;
    } else {
      fprintf(stderr, "emb-compile: error: unknown option '%s'\n", a);
      return 1;
    }
  }
  if (!input || !output) {
    fprintf(stderr,
            "emb-compile: error: need an input file and -o %s (see "
            "--help)\n",
            shared ? "<model.so>" : "<prefix>");
    return 1;
  }

  EmbToolSource src;
  if (embToolRead("emb-compile", input, &src))
    return 1;
  MlirContext ctx = embToolCreateContext(allowUnregistered);
  embToolAttachDiagnostics(ctx, &src);
  int status = 1;
  EmbModelSpec specs[2];
  memset(specs, 0, sizeof specs);
  char refName[256] = "";
  char *path = NULL; // <output>.o, then <output>.h
  // --shared: a directory of its own for the object, the descriptor's
  // source and the runtime's stand-in, removed at the end.
  char tmpDir[4096] = "", tmpPath[2][4200];
  MlirModule module = embToolParse(ctx, &src, src.text), ref = {NULL};
  if (mlirModuleIsNull(module))
    goto done;
  embCrashSetStage("verifying the input (emb's verifiers)", NULL);
  if (mlirLogicalResultIsFailure(embVerify(mlirModuleGetOperation(module))))
    goto done;
  MlirOperation entry = embToolFindEntry(module, entryName);
  if (mlirOperationIsNull(entry) ||
      mlirLogicalResultIsFailure(embDescribeEntry(entry, &specs[0]))) {
    fprintf(stderr, "emb-compile: error: no entry function of ranked "
                    "tensors to compile (--entry)\n");
    goto done;
  }
  specs[0].target = target;
  if (withReference)
    ref = mlirModuleFromOperation(
        mlirOperationClone(mlirModuleGetOperation(module)));
  if (pipeline && embToolRunPipeline("emb-compile", module, pipeline))
    goto done;
  int changed = pipeline ? redescribeChangedInputs(module, &specs[0]) : -1;
  if (changed == -2) {
    fprintf(stderr,
            "emb-compile: error: the pipeline left @%s with inputs "
            "that cannot be described\n",
            specs[0].name);
    goto done;
  }
  if (changed >= 0 && withReference) {
    fprintf(stderr,
            "emb-compile: error: the pipeline changed what @%s takes (input "
            "#%d), so the model as written cannot run beside it on the same "
            "inputs (--with-reference)\n",
            specs[0].name, changed);
    goto done;
  }
  if (withReference) {
    // The entry as written joins the module under another name.
    MlirOperation refEntry = embToolFindEntry(ref, specs[0].name);
    snprintf(refName, sizeof refName, "%s__reference", specs[0].name);
    mlirOperationSetAttributeByName(refEntry, str("sym_name"),
                                    mlirStringAttrGet(ctx, str(refName)));
    // emb-lower-to-runtime lowers a function for the target it names.
    if (refTarget)
      mlirOperationSetAttributeByName(refEntry, str("emb.target"),
                                      mlirStringAttrGet(ctx, str(refTarget)));
    mlirBlockAppendOwnedOperation(mlirModuleGetBody(module),
                                  mlirOperationClone(refEntry));
    specs[1] = specs[0];
    specs[1].name = refName;
    if (refTarget)
      specs[1].target = refTarget;
  }
  char lower[64];
  snprintf(lower, sizeof lower, "emb-lower-to-llvm{target=%s}", target);
  if (embToolRunPipeline("emb-compile", module, lower))
    goto done;
  const char *names[] = {specs[0].name, refName};
  embCrashSetStage("exporting the entries", NULL);
  if (mlirLogicalResultIsFailure(
          embExportEntries(module, names, withReference ? 2 : 1, prefix,
                           embToolReportError, "emb-compile")))
    goto done;
  size_t pathSize = strlen(output) + sizeof ".o";
  if (!(path = malloc(pathSize))) {
    fprintf(stderr, "emb-compile: error: out of memory\n");
    goto done;
  }
  if (shared) {
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpDir, sizeof tmpDir, "%s/emb-compile-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpDir)) {
      fprintf(stderr,
              "emb-compile: error: cannot make a temporary directory '%s' "
              "(TMPDIR): %s\n",
              tmpDir, strerror(errno));
      tmpDir[0] = '\0';
      goto done;
    }
    snprintf(tmpPath[0], sizeof tmpPath[0], "%s/model.o", tmpDir);
    snprintf(tmpPath[1], sizeof tmpPath[1], "%s/descriptor.c", tmpDir);
    embCrashSetStage("emitting the object file (LLVM)", NULL);
    if (mlirLogicalResultIsFailure(embEmitObjectFile(
            module, tmpPath[0], embToolReportError, "emb-compile")))
      goto done;
    embCrashSetStage("writing the descriptor", NULL);
    if (mlirLogicalResultIsFailure(embEmitSharedDescriptor(
            specs, withReference ? 2 : 1, prefix, tmpPath[1],
            embToolReportError, "emb-compile")))
      goto done;
    embCrashSetStage("linking the shared object", NULL);
    if (embLinkShared(tmpDir, tmpPath[0], tmpPath[1], output))
      goto done;
    char refText[600] = "";
    if (withReference)
      snprintf(refText, sizeof refText, ", @%s as %s%s", refName, prefix,
               refName);
    fprintf(stderr,
            "emb-compile: wrote %s (@%s as %s%s%s, target %s; described by "
            "%smodels)\n",
            output, specs[0].name, prefix, specs[0].name, refText, target,
            prefix);
    status = 0;
    goto done;
  }
  snprintf(path, pathSize, "%s.o", output);
  embCrashSetStage("emitting the object file (LLVM)", NULL);
  if (mlirLogicalResultIsFailure(
          embEmitObjectFile(module, path, embToolReportError, "emb-compile")))
    goto done;
  snprintf(path, pathSize, "%s.h", output);
  embCrashSetStage("writing the header", NULL);
  if (mlirLogicalResultIsFailure(embEmitHeader(specs, withReference ? 2 : 1,
                                               prefix, path, embToolReportError,
                                               "emb-compile")))
    goto done;
  char refText[600] = "";
  if (withReference)
    snprintf(refText, sizeof refText, ", @%s as %s%s", refName, prefix,
             refName);
  fprintf(
      stderr, "emb-compile: wrote %s.o and %s.h (@%s as %s%s%s, target %s)\n",
      output, output, specs[0].name, prefix, specs[0].name, refText, target);
  status = 0;

done:
  if (tmpDir[0]) {
    static const char *const made[] = {"model.o", "descriptor.c",
                                       "embrt_stub.c", "libembrt.so"};
    char file[4200];
    for (size_t i = 0; i < sizeof made / sizeof made[0]; ++i) {
      snprintf(file, sizeof file, "%s/%s", tmpDir, made[i]);
      unlink(file);
    }
    rmdir(tmpDir);
  }
  if (!mlirModuleIsNull(ref))
    mlirModuleDestroy(ref);
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  specs[1].name = NULL;
  embModelSpecDestroy(&specs[0]);
  mlirContextDestroy(ctx);
  free(src.text);
  free(path);
  return status;
}
