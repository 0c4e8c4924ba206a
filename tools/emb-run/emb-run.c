//===- tools/emb-run/emb-run.c - Run a function of an emb module ----------===//
//
// Compiles an entry function of a .mlir file with the JIT and runs it on the
// CPU or a CUDA GPU through the runtime: emb-ikbo (or any --pipeline) first
// if asked, then emb-lower-to-llvm. With --compare-unoptimized it also runs
// the module without that pipeline on its own copies of the same inputs and
// checks that a rewrite keeps what the model computes: the largest difference
// per result and per argument updated in place, and when a side fails, that
// both do.
//
// A sharded model runs with --ranks N (ranks.c): N processes, each making
// its rank's program with emb-shard{rank=R}, running it joined to the world
// and checking it against the unsharded function on the CPU, on its own
// random batch and the tables every rank shares. A function that is already
// one rank's program of a world of one (emb.world_size = 1) runs as it is,
// its context joined to a world of one.
//
//===----------------------------------------------------------------------===//

#include "ranks.h"
#include "runner.h"

#include "../common/flags.h"
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
    "                            and compare results, arguments updated in\n"
    "                            place and errors (an error on one side only\n"
    "                            is a mismatch)\n"
    "  --ranks N                 Run a sharded model as N processes, one a "
    "rank\n"
    "                            (one a GPU with --device cuda), each rank's\n"
    "                            program checked against the unsharded one on\n"
    "                            the CPU (needs --random-inputs)\n"
    "  --allow-unregistered-dialect\n"
    "                            Accept ops of dialects emb does not load\n"
    "                            (tm_tensor from torch-mlir), in generic "
    "form, for\n"
    "                            --pipeline to raise\n";

typedef struct {
  const char *input;
  const char *entry;
  const char *pipeline;
  bool compare;
  bool allowUnregistered;
  int ranks;               ///< --ranks N; 0 without
  const char *rankProcess; ///< --rank-process R:FDS (internal: a rank)
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
    } else if (!strcmp(a, "--allow-unregistered-dialect")) {
      o->allowUnregistered = true;
    } else if (!strcmp(a, "--ranks") || !strncmp(a, "--ranks=", 8)) {
      const char *v = a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : NULL;
      int64_t n = 0;
      if (!embParseFlagInt(v, 1, EMB_RUN_MAX_RANKS, &n)) {
        fprintf(stderr,
                "emb-run: error: --ranks: bad value '%s' (1 to %d ranks)\n",
                v ? v : "(missing)", EMB_RUN_MAX_RANKS);
        return 1;
      }
      o->ranks = (int)n;
    } else if (!strcmp(a, "--rank-process") && i + 1 < argc) {
      o->rankProcess = argv[++i];
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

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/// True if `entry` is still a func.func whose type is `signature`: a
/// pipeline kept the entry that the inputs are made for.
static bool keepsSignature(MlirOperation entry, MlirType signature) {
  if (mlirOperationIsNull(entry))
    return false;
  MlirAttribute type =
      mlirOperationGetAttributeByName(entry, str("function_type"));
  return !mlirAttributeIsNull(type) && mlirAttributeIsAType(type) &&
         mlirTypeEqual(mlirTypeAttrGetValue(type), signature);
}

/// Lowers `module` and JIT-compiles it.
static EmbJit *lowerAndJit(MlirModule module, embrtDevice device) {
  const char *lower = device == EMBRT_DEVICE_CUDA
                          ? "emb-lower-to-llvm{target=cuda}"
                          : "emb-lower-to-llvm{target=cpu}";
  if (embToolRunPipeline("emb-run", module, lower))
    return NULL;
  embCrashSetStage("compiling the module with the JIT (LLVM)", NULL);
  return embJitCreate(module, 2, embToolReportError, "emb-run");
}

/// Runs `pipeline` (if any) on `module`, then lowers and JIT-compiles it.
static EmbJit *compile(MlirModule module, const char *pipeline,
                       embrtDevice device) {
  if (pipeline && embToolRunPipeline("emb-run", module, pipeline))
    return NULL;
  return lowerAndJit(module, device);
}

/// The names the source gives `entry`'s `n` arguments (NULL where it gives
/// none), for the comparison's messages; freed by freeNames.
static char **argumentNames(MlirOperation entry, int n,
                            const EmbToolSource *src) {
  char **names = calloc((size_t)n + 1, sizeof(char *));
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(entry, 0));
  for (int i = 0; names && !mlirBlockIsNull(body) && i < n; ++i)
    names[i] = embToolArgumentName(src, mlirBlockGetArgument(body, i));
  return names;
}

static void freeNames(char **names, int n) {
  for (int i = 0; names && i < n; ++i)
    free(names[i]);
  free(names);
}

/// What --ranks cannot be combined with; 0 when the options fit.
static int checkRanksOptions(const Options *o) {
  const char *no = o->compare         ? "--compare-unoptimized"
                   : o->run.cudaGraph ? "--cuda-graph"
                   : o->run.outputDir ? "--output-dir"
                                      : NULL;
  if (no) {
    fprintf(stderr,
            "emb-run: error: --ranks runs each rank against the unsharded "
            "reference; it does not take %s\n",
            no);
    return 1;
  }
  if (!o->run.random) {
    fprintf(stderr, "emb-run: error: --ranks makes each rank's batch at "
                    "random (the tables one for all ranks): give "
                    "--random-inputs\n");
    return 1;
  }
  if (o->ranks > 1 && o->run.device != EMBRT_DEVICE_CUDA) {
    fprintf(stderr,
            "emb-run: error: --ranks %d needs --device cuda: the CPU "
            "runtime's communicator has one rank (emb builds no transport of "
            "its own; NCCL carries the collectives between GPUs, one a "
            "rank), so on the CPU only --ranks 1 runs\n",
            o->ranks);
    return 1;
  }
  return 0;
}

static MlirWalkResult findShardedBackward(MlirOperation op, void *found) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length == strlen("emb.tbe_backward") &&
      !strncmp(name.data, "emb.tbe_backward", name.length) &&
      !mlirAttributeIsNull(mlirOperationGetAttributeByName(
          op, mlirStringRefCreateFromCString("sharding")))) {
    *(bool *)found = true;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

/// The world of `entry`'s plan must be the --ranks.
static int checkWorld(MlirOperation entry, int ranks, const char *name) {
  int64_t world = embShardingWorldSize(entry);
  if (world == 0) {
    fprintf(stderr,
            "emb-run: error: --ranks: @%s has no sharding plan (give its "
            "emb.tbe one, or run emb-plan-sharding)\n",
            name);
    return 1;
  }
  if (world < 0) {
    fprintf(stderr,
            "emb-run: error: --ranks: the plans of @%s disagree on "
            "world_size (or one is malformed)\n",
            name);
    return 1;
  }
  if (world != ranks) {
    fprintf(stderr,
            "emb-run: error: --ranks %d but the plan of @%s has world_size "
            "%lld\n",
            ranks, name, (long long)world);
    return 1;
  }
  bool backward = false;
  mlirOperationWalk(entry, findShardedBackward, &backward, MlirWalkPreOrder);
  if (backward && ranks > 1) {
    fprintf(stderr,
            "emb-run: error: --ranks %d: @%s is a sharded training step, "
            "whose tables each rank updates with every rank's gradients; "
            "its reference would be one backward over every rank's batch, "
            "which emb-run does not build (run --ranks 1, or see "
            "test/Passes/shard_numbers.mlir)\n",
            ranks, name);
    return 1;
  }
  return 0;
}

/// A function already sharded for one rank (emb.rank, emb.world_size):
/// a world of one runs as it is; a larger one needs its other ranks.
static int checkShardedEntry(MlirOperation entry, Options *o,
                             const char *name) {
  MlirAttribute world = mlirOperationGetAttributeByName(
      entry, mlirStringRefCreateFromCString("emb.world_size"));
  if (mlirAttributeIsNull(world) || !mlirAttributeIsAInteger(world))
    return 0;
  int64_t w = mlirIntegerAttrGetValueInt(world);
  if (w == 1) {
    o->run.worldSize = 1;
    o->run.rank = 0;
    return 0;
  }
  fprintf(stderr,
          "emb-run: error: @%s is one rank's program of a world of %lld "
          "(emb-shard): run the unsharded module with --ranks %lld, which "
          "makes every rank's program\n",
          name, (long long)w, (long long)w);
  return 1;
}

/// One rank of --ranks: its program, the unsharded reference, the run.
static int runRankProcess(Options *o, MlirModule module, MlirOperation entry) {
  int rank = 0, fds[EMB_RUN_MAX_RANKS], numFds = 0;
  if (embRanksParseProcess(o->rankProcess, &rank, fds, EMB_RUN_MAX_RANKS,
                           &numFds) ||
      rank >= o->ranks) {
    fprintf(stderr, "emb-run: error: --rank-process: bad value '%s'\n",
            o->rankProcess);
    return 1;
  }
  int status = 1;
  EmbModelSpec spec, refSpec;
  memset(&spec, 0, sizeof spec);
  memset(&refSpec, 0, sizeof refSpec);
  EmbJit *jit = NULL, *refJit = NULL;
  EmbShardWindow *windows = NULL;
  const char *refOwnName = NULL;
  MlirModule reference = mlirModuleFromOperation(
      mlirOperationClone(mlirModuleGetOperation(module)));
  char name[256], refName[512], pipeline[4096];
  MlirStringRef sym = mlirStringAttrGetValue(mlirOperationGetAttributeByName(
      entry, mlirStringRefCreateFromCString("sym_name")));
  snprintf(name, sizeof name, "%.*s", (int)sym.length, sym.data);
  if (mlirLogicalResultIsFailure(
          embDescribeEntry(embToolFindEntry(reference, name), &refSpec))) {
    fprintf(stderr,
            "emb-run: error: @%s must take and return ranked tensors "
            "of a runtime element type\n",
            name);
    goto done;
  }
  windows = calloc((size_t)refSpec.numInputs + 1, sizeof *windows);
  if (!windows)
    goto done;
  for (int i = 0; i < refSpec.numInputs; ++i)
    windows[i].cut = embShardArgumentWindow(entry, rank, i, windows[i].offsets,
                                            windows[i].sizes);
  snprintf(pipeline, sizeof pipeline, "emb-shard{rank=%d}%s%s", rank,
           o->pipeline ? "," : "", o->pipeline ? o->pipeline : "");
  fprintf(stderr, "emb-run: rank %d: compiling @%s after %s\n", rank, name,
          pipeline);
  if (embToolRunPipeline("emb-run", module, pipeline))
    goto done;
  MlirOperation sharded = embToolFindEntry(module, name);
  if (mlirOperationIsNull(sharded) ||
      mlirLogicalResultIsFailure(embDescribeEntry(sharded, &spec)))
    goto done;
  spec.target = o->run.device == EMBRT_DEVICE_CUDA ? "cuda" : "cpu";
  if (!(jit = lowerAndJit(module, o->run.device)) ||
      !(spec.invoke = embJitLookup(jit, name)))
    goto done;
  if (!(refJit = lowerAndJit(reference, EMBRT_DEVICE_CPU)) ||
      !(refSpec.invoke = embJitLookup(refJit, name)))
    goto done;
  snprintf(refName, sizeof refName, "%s unsharded", name);
  refOwnName = refSpec.name;
  refSpec.name = refName;
  embrtCommId id;
  if (embRanksExchangeId(rank, fds, numFds, o->run.device, &id))
    goto done;
  o->run.worldSize = o->ranks;
  o->run.rank = rank;
  o->run.commId = &id;
  o->run.ordinal = o->run.device == EMBRT_DEVICE_CUDA ? rank : 0;
  status = embRunRank(&spec, &refSpec, windows, &o->run);
done:
  embJitDestroy(jit);
  embJitDestroy(refJit);
  mlirModuleDestroy(reference);
  if (refOwnName)
    refSpec.name = refOwnName;
  embModelSpecDestroy(&spec);
  embModelSpecDestroy(&refSpec);
  free(windows);
  return status ? 1 : 0;
}

int main(int argc, char **argv) {
  embCrashInstall("emb-run", argc, argv);
  Options o;
  memset(&o, 0, sizeof o);
  embRunOptionsInit(&o.run);
  int status = parseArgs(argc, argv, &o);
  if (status < 0 && o.ranks && checkRanksOptions(&o))
    status = 1;
  EmbToolSource src;
  if (status < 0 && embToolRead("emb-run", o.input, &src))
    status = 1;
  if (status >= 0) { // the options or the input refused: nothing else held
    free((void *)o.run.inputs);
    return status;
  }
  if (o.compare && !o.pipeline)
    o.pipeline = "emb-ikbo";

  MlirContext ctx = embToolCreateContext(o.allowUnregistered);
  embToolAttachDiagnostics(ctx, &src);
  status = 1;
  MlirModule module = embToolParse(ctx, &src, src.text), reference = {NULL};
  EmbJit *jit = NULL, *refJit = NULL;
  EmbModelSpec spec, refSpec;
  char refName[512], **names = NULL;
  int numNames = 0;
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
  if (o.ranks) {
    const char *name = o.entry ? o.entry : "entry";
    char buf[256];
    MlirAttribute sym = mlirOperationGetAttributeByName(
        entry, mlirStringRefCreateFromCString("sym_name"));
    if (!mlirAttributeIsNull(sym)) {
      MlirStringRef s = mlirStringAttrGetValue(sym);
      snprintf(buf, sizeof buf, "%.*s", (int)s.length, s.data);
      name = buf;
    }
    if (checkWorld(entry, o.ranks, name))
      goto done;
    status = o.rankProcess ? runRankProcess(&o, module, entry)
                           : embRanksLaunch(argc, argv, o.ranks);
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
  numNames = spec.numInputs;
  names = argumentNames(entry, numNames, &src);
  o.run.inputNames = (const char *const *)names;
  refSpec = spec;
  if (o.compare)
    reference = mlirModuleFromOperation(
        mlirOperationClone(mlirModuleGetOperation(module)));

  fprintf(stderr, "emb-run: compiling @%s%s%s\n", spec.name,
          o.pipeline ? " after " : "", o.pipeline ? o.pipeline : "");
  MlirType signature = mlirTypeAttrGetValue(
      mlirOperationGetAttributeByName(entry, str("function_type")));
  if (o.pipeline && embToolRunPipeline("emb-run", module, o.pipeline))
    goto done;
  entry = embToolFindEntry(module, spec.name);
  if (o.pipeline && !keepsSignature(entry, signature)) {
    fprintf(stderr,
            "emb-run: error: after --pipeline '%s', @%s is no longer a "
            "func.func of the same tensors: emb-run lowers the module "
            "itself (emb-lower-to-llvm), so --pipeline takes passes on "
            "tensors, not a lowering\n",
            o.pipeline, spec.name);
    goto done;
  }
  if (mlirOperationIsNull(entry) || checkShardedEntry(entry, &o, spec.name))
    goto done;
  jit = lowerAndJit(module, o.run.device);
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
  freeNames(names, numNames);
  mlirContextDestroy(ctx);
  free(src.text);
  free((void *)o.run.inputs);
  return status ? 1 : 0;
}
