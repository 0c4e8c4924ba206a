//===- tools/emb-run/emb-run.c - Run a function of an emb module ----------===//
//
// Compiles an entry function of a .mlir file with the JIT and runs it on the
// CPU or a CUDA GPU through the runtime: emb-ikbo (or any --pipeline) first
// if asked, then emb-lower-to-llvm. With --compare-unoptimized it also runs
// the module without that pipeline on the same inputs and reports the
// largest difference per result: the check that a rewrite keeps the numbers.
//
//===----------------------------------------------------------------------===//

#include "runner.h"

#include "../common/tool.h"
#include "emb/emb.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const usage =
    "OVERVIEW: run a function of an emb module\n"
    "\n"
    "USAGE: emb-run [options] <input.mlir>\n"
    "\n"
    "OPTIONS:\n"
    "  --entry NAME              The function to run (default: the first "
    "public one)\n"
    "  --pipeline P              Run pass pipeline P (e.g. emb-ikbo) before "
    "lowering\n"
    "  --compare-unoptimized     Also run without --pipeline (default "
    "emb-ikbo)\n"
    "                            and report the difference per result\n";

typedef struct {
  const char *input;
  const char *entry;
  const char *pipeline;
  bool compare;
  EmbRunOptions run;
} Options;

static int parseArgs(int argc, char **argv, Options *o) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    int took = embRunParseOption(argc, argv, &i, &o->run, "emb-run");
    if (took < 0)
      return 1;
    if (took)
      continue;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf("%s%s", usage, embRunOptionsHelp);
      return 0;
    } else if (!strcmp(a, "--entry") && i + 1 < argc) {
      o->entry = argv[++i];
    } else if (!strncmp(a, "--entry=", 8)) {
      o->entry = a + 8;
    } else if (!strcmp(a, "--pipeline") && i + 1 < argc) {
      o->pipeline = argv[++i];
    } else if (!strncmp(a, "--pipeline=", 11)) {
      o->pipeline = a + 11;
    } else if (!strcmp(a, "--compare-unoptimized")) {
      o->compare = true;
    } else if (a[0] != '-' || !strcmp(a, "-")) {
      if (o->input) {
        fprintf(stderr, "emb-run: error: more than one input file ('%s')\n", a);
        return 1;
      }
      o->input = a;
    } else {
      fprintf(stderr, "emb-run: error: unknown option '%s' (see --help)\n", a);
      return 1;
    }
  }
  if (!o->input) {
    fprintf(stderr, "emb-run: error: no input file (see --help)\n");
    return 1;
  }
  if (!o->run.random && o->run.numInputs == 0) {
    fprintf(stderr, "emb-run: error: give --inputs a.npy,... or "
                    "--random-inputs\n");
    return 1;
  }
  return -1;
}

/// Lowers `module` (after `pipeline`, if any) and JIT-compiles it.
static EmbJit *compile(MlirModule module, const char *pipeline,
                       embrtDevice device) {
  if (pipeline && embToolRunPipeline("emb-run", module, pipeline))
    return NULL;
  const char *lower = device == EMBRT_DEVICE_CUDA
                          ? "emb-lower-to-llvm{target=cuda}"
                          : "emb-lower-to-llvm{target=cpu}";
  if (embToolRunPipeline("emb-run", module, lower))
    return NULL;
  embCrashSetStage("compiling the module with the JIT (LLVM)", NULL);
  return embJitCreate(module, 2, embToolReportError, "emb-run");
}

int main(int argc, char **argv) {
  embCrashInstall("emb-run", argc, argv);
  Options o;
  memset(&o, 0, sizeof o);
  embRunOptionsInit(&o.run);
  int status = parseArgs(argc, argv, &o);
  if (status >= 0)
    return status;
  if (o.compare && !o.pipeline)
    o.pipeline = "emb-ikbo";

  EmbToolSource src;
  if (embToolRead("emb-run", o.input, &src))
    return 1;
  MlirContext ctx = embContextCreate();
  embToolAttachDiagnostics(ctx, &src);
  status = 1;
  MlirModule module = embToolParse(ctx, &src, src.text), reference = {NULL};
  EmbJit *jit = NULL, *refJit = NULL;
  EmbModelSpec spec, refSpec;
  char refName[512];
  memset(&spec, 0, sizeof spec);
  memset(&refSpec, 0, sizeof refSpec);
  if (mlirModuleIsNull(module))
    goto done;
  embCrashSetStage("verifying the input (emb's verifiers)", NULL);
  if (mlirLogicalResultIsFailure(embVerify(mlirModuleGetOperation(module))))
    goto done;
  MlirOperation entry = embToolFindEntry(module, o.entry);
  if (mlirOperationIsNull(entry)) {
    fprintf(stderr, "emb-run: error: %s\n",
            o.entry ? "no function of that name (--entry)"
                    : "no public function with a body to run");
    goto done;
  }
  if (mlirLogicalResultIsFailure(embDescribeEntry(entry, &spec))) {
    fprintf(stderr,
            "emb-run: error: @%s must take and return ranked tensors of "
            "f32, f16, bf16, f64, i32, i64, i8 or i1\n",
            o.entry ? o.entry : "entry");
    goto done;
  }
  spec.target = o.run.device == EMBRT_DEVICE_CUDA ? "cuda" : "cpu";
  refSpec = spec;
  if (o.compare)
    reference = mlirModuleFromOperation(
        mlirOperationClone(mlirModuleGetOperation(module)));

  fprintf(stderr, "emb-run: compiling @%s%s%s\n", spec.name,
          o.pipeline ? " after " : "", o.pipeline ? o.pipeline : "");
  jit = compile(module, o.pipeline, o.run.device);
  if (!jit || !(spec.invoke = embJitLookup(jit, spec.name)))
    goto done;
  if (o.compare) {
    fprintf(stderr, "emb-run: compiling @%s as written (the reference)\n",
            spec.name);
    refJit = compile(reference, NULL, o.run.device);
    if (!refJit || !(refSpec.invoke = embJitLookup(refJit, spec.name)))
      goto done;
    snprintf(refName, sizeof refName, "%s as written", spec.name);
    refSpec.name = refName;
  }
  status = embRunModel(&spec, o.compare ? &refSpec : NULL, &o.run);

done:
  embJitDestroy(jit);
  embJitDestroy(refJit);
  if (!mlirModuleIsNull(reference))
    mlirModuleDestroy(reference);
  if (!mlirModuleIsNull(module))
    mlirModuleDestroy(module);
  embModelSpecDestroy(&spec);
  mlirContextDestroy(ctx);
  free(src.text);
  free((void *)o.run.inputs);
  return status ? 1 : 0;
}
