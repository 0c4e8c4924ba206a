//===- codegen/gpu/binary.c - A group's module to PTX ---------------------===//
//
// Module to binary: a group's module (outline.c) is compiled by MLIR's own
// passes: elementwise ops become linalg, named ops generic, chains of
// elementwise generics are fused into one (linalg-fuse-elementwise-ops), and
// one-shot-bufferize writes the results into the output buffers
// (intermediates it allocates become runtime allocations of the function,
// freed at its end). Each linalg.generic on buffers then becomes a
// gpu.launch (loops.c, reductions.c). gpu-kernel-outlining,
// convert-gpu-to-nvvm (bare-pointer memrefs: a kernel takes one pointer a
// buffer) and gpu-module-to-binary{format=isa} (PTX for sm_90 with +ptx80;
// libdevice, for the math functions, is linked from the CUDA toolkit's
// nvvm/libdevice, which is data, not a tool) finish it. The host side of
// that module becomes runtime calls (host.c).
//
// Refused, at the group's first op: dynamic shapes, reads of scalars
// computed at run time, and what MLIR's passes cannot take.
//
//===----------------------------------------------------------------------===//

#include "gpu.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// What kernels are compiled for; %s is the nvvm target's libraries.
static const char *const gpuPipeline =
    "lower-affine, gpu-kernel-outlining, "
    "nvvm-attach-target{chip=sm_90 features=+ptx80 O=3%s}, "
    "gpu.module(convert-scf-to-cf, "
    "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1}, canonicalize, "
    "cse, reconcile-unrealized-casts), "
    "gpu-module-to-binary{format=isa}";

/// libdevice (the __nv_* math functions convert-gpu-to-nvvm calls), as a
/// library option of the nvvm target, from the CUDA toolkit that
/// $CUDA_ROOT, $CUDA_HOME or $CUDA_PATH names, else /usr/local/cuda: MLIR
/// looks only where its build was told to and in $PATH. Empty if none has
/// it (kernels that need it then fail, naming the function).
static void libdeviceOption(char *out, size_t n) {
  const char *const vars[] = {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH", NULL};
  out[0] = '\0';
  for (int i = 0; i < 4; ++i) {
    const char *root = vars[i] ? getenv(vars[i]) : "/usr/local/cuda";
    if (!root || !*root || strpbrk(root, " ,{}"))
      continue;
    char path[512];
    snprintf(path, sizeof path, "%s/nvvm/libdevice/libdevice.10.bc", root);
    FILE *f = fopen(path, "rb");
    if (!f)
      continue;
    fclose(f);
    snprintf(out, n, " l=%s", path);
    return;
  }
}

/// How a group's function on tensors becomes linalg.generic ops on tensors,
/// then (after duplicateElementwise) fused generics on buffers.
static const char *const generalizePipeline =
    "func.func(convert-elementwise-to-linalg), linalg-generalize-named-ops";
static const char *const tensorPipeline =
    "linalg-fuse-elementwise-ops, canonicalize, eliminate-empty-tensors, "
    "one-shot-bufferize, canonicalize, linalg-generalize-named-ops, cse";

//===----------------------------------------------------------------------===//
// Compiling a group's module
//===----------------------------------------------------------------------===//

typedef struct Diagnostics {
  char text[256];
} Diagnostics;

static void onPipelineError(MlirStringRef message, void *userData) {
  Diagnostics *d = userData;
  size_t used = strlen(d->text);
  if (used + 1 < sizeof d->text)
    snprintf(d->text + used, sizeof d->text - used, "%.*s", (int)message.length,
             message.data);
}

/// Runs `pipeline` (pass elements on builtin.module) on `module`; a
/// pipeline that does not parse says why in `why`.
static bool runPipeline(MlirContext ctx, MlirModule module,
                        const char *pipeline, char *why, size_t n) {
  MlirPassManager pm =
      mlirPassManagerCreateOnOperation(ctx, embStr("builtin.module"));
  Diagnostics d = {{0}};
  MlirLogicalResult r =
      mlirOpPassManagerAddPipeline(mlirPassManagerGetAsOpPassManager(pm),
                                   embStr(pipeline), onPipelineError, &d);
  if (mlirLogicalResultIsFailure(r))
    snprintf(why, n, "the pipeline '%s' does not parse: %s", pipeline, d.text);
  else if (mlirLogicalResultIsFailure(
               r = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))))
    snprintf(why, n, "%s", "");
  mlirPassManagerDestroy(pm);
  return mlirLogicalResultIsSuccess(r);
}

/// Whether `op` is an elementwise linalg.generic of one result (every loop
/// parallel), which a consumer can recompute instead of reading.
static bool isElementwiseGeneric(MlirOperation op) {
  if (!embOpIs(op, "linalg.generic") || mlirOperationGetNumResults(op) != 1)
    return false;
  MlirAttribute iters =
      mlirOperationGetAttributeByName(op, embStr("iterator_types"));
  for (intptr_t i = 0, n = mlirArrayAttrGetNumElements(iters); i < n; ++i) {
    char text[64];
    embPrintAttribute(mlirArrayAttrGetElement(iters, i), text, sizeof text);
    if (!strstr(text, "parallel"))
      return false;
  }
  return true;
}

/// linalg-fuse-elementwise-ops fuses a producer into its consumer only when
/// the consumer is its one use. A softmax reads exp(x - max) twice (the sum
/// and the division) and x twice (the max and the exp): each use gets a copy
/// of its elementwise producer, so that every kernel recomputes it from the
/// inputs rather than reading an intermediate from memory (a kernel is
/// bound by memory, not arithmetic).
static void duplicateElementwise(MlirModule module) {
  size_t n = 0;
  MlirOperation *ops =
      embCollectOps(mlirModuleGetOperation(module), isElementwiseGeneric, &n);
  // Consumers first, so that a copy made for one is itself split later.
  for (size_t i = n; i-- > 0;) {
    MlirValue r = result0(ops[i]);
    MlirOpOperand u = mlirValueGetFirstUse(r);
    if (mlirOpOperandIsNull(u))
      continue;
    // Collect the uses first: rewriting them changes the list.
    size_t numUses = 0;
    for (MlirOpOperand v = u; !mlirOpOperandIsNull(v);
         v = mlirOpOperandGetNextUse(v))
      ++numUses;
    MlirOpOperand *uses = calloc(numUses, sizeof(MlirOpOperand));
    numUses = 0;
    for (MlirOpOperand v = u; !mlirOpOperandIsNull(v);
         v = mlirOpOperandGetNextUse(v))
      uses[numUses++] = v;
    for (size_t k = 1; k < numUses; ++k) {
      MlirOperation user = mlirOpOperandGetOwner(uses[k]);
      if (!mlirBlockEqual(mlirOperationGetBlock(user),
                          mlirOperationGetBlock(ops[i])))
        continue;
      MlirOperation copy = mlirOperationClone(ops[i]);
      mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(user), user,
                                          copy);
      mlirOperationSetOperand(user, mlirOpOperandGetOperandNumber(uses[k]),
                              result0(copy));
    }
    free(uses);
  }
  free(ops);
}
//===----------------------------------------------------------------------===//
// Every linalg.generic as a gpu.launch (loops.c, reductions.c)
//===----------------------------------------------------------------------===//

typedef struct Sink {
  MlirOperation launch;
  MlirBlock host, body;
  MlirOperation first;
  ValueMap copies;
} Sink;

/// Copies the constants of the host block that `op` reads to the start of
/// the launch body: a kernel takes buffers only.
static MlirWalkResult sinkConstant(MlirOperation op, void *userData) {
  Sink *s = userData;
  if (mlirOperationEqual(op, s->launch))
    return MlirWalkResultAdvance; // its grid stays on the host
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (!mlirValueIsAOpResult(v))
      continue;
    MlirOperation def = mlirOpResultGetOwner(v);
    if (!embOpIs(def, "arith.constant") ||
        !mlirBlockEqual(mlirOperationGetBlock(def), s->host))
      continue;
    MlirValue copy = embGpuMapGet(&s->copies, v);
    if (mlirValueIsNull(copy)) {
      MlirOperation c = mlirOperationClone(def);
      mlirBlockInsertOwnedOperationBefore(s->body, s->first, c);
      copy = result0(c);
      embGpuMapPut(&s->copies, v, copy);
    }
    mlirOperationSetOperand(op, i, copy);
  }
  return MlirWalkResultAdvance;
}

static bool isGeneric(MlirOperation op) {
  return embOpIs(op, "linalg.generic");
}

/// Every linalg.generic of the module's functions becomes a gpu.launch.
static bool launchGenerics(MlirModule module, char *why, size_t n) {
  size_t count = 0;
  MlirOperation *ops =
      embCollectOps(mlirModuleGetOperation(module), isGeneric, &count);
  bool ok = true;
  for (size_t i = 0; i < count && ok; ++i) {
    Generic g;
    if (!embGpuReadGeneric(ops[i], &g, why, n)) {
      ok = false;
      break;
    }
    EmbBuilder b = {mlirOperationGetContext(ops[i]),
                    mlirOperationGetLocation(ops[i]),
                    mlirOperationGetBlock(ops[i]), ops[i]};
    const Combiner *c = NULL;
    MlirOperation combinerOp = {NULL};
    intptr_t accPos = 0;
    Loops lp = embGpuSplitLoops(&g);
    // A tree launches a block per point, a pointwise kernel a thread.
    bool tree = lp.nr > 0 && lp.reduced >= minTreeReduction &&
                lp.points <= maxGridBlocks &&
                embGpuMatchTree(&g, &c, &combinerOp, &accPos);
    if (!tree &&
        (lp.points + blockThreads - 1) / blockThreads > maxGridBlocks) {
      snprintf(why, n,
               "its %lld parallel points need more than %d blocks of %d "
               "threads, a launch's most",
               (long long)lp.points, maxGridBlocks, blockThreads);
      ok = false;
      break;
    }
    MlirOperation launch = tree ? embGpuLowerTree(&b, &g, c, combinerOp, accPos)
                                : embGpuLowerPointwise(&b, &g);
    mlirOperationDestroy(ops[i]);
    if (!mlirOperationIsNull(launch)) {
      MlirBlock body =
          mlirRegionGetFirstBlock(mlirOperationGetRegion(launch, 0));
      Sink s = {launch, b.block, body, mlirBlockGetFirstOperation(body), {0}};
      mlirOperationWalk(launch, sinkConstant, &s, MlirWalkPreOrder);
      embGpuMapFree(&s.copies);
    }
  }
  free(ops);
  return ok;
}

//===----------------------------------------------------------------------===//
// A group
//===----------------------------------------------------------------------===//

static void failGroup(EmbLowering *l, const EmbGpuKernelGroup *g,
                      const char *why) {
  char what[768];
  snprintf(what, sizeof what, "no GPU kernel for it: %s", why);
  embLowerFail(l, (MlirOperation){(void *)g->ops[0]}, what);
}

bool embLowerGpuKernel(EmbLowering *l, MlirOperation op) {
  EmbGpuKernelGroup *g = embGpuGroupOf(l, op);
  if (!g)
    return false;
  if (g->ops[g->numOps - 1] != op.ptr)
    return true; // the group's last op compiles it
  MlirOperation first = {(void *)g->ops[0]};
  MlirBlock fnBody = mlirOperationGetBlock(first);
  MlirModule module = mlirModuleCreateEmpty(mlirOperationGetLocation(first));
  char name[64];
  snprintf(name, sizeof name, "emb_kernel_%zu", l->numKernelModules++);
  Interface io = {NULL, NULL, 0, 0};
  char why[512] = "";
  bool ok = embGpuBuildGroupFunction(l, g, fnBody, module, name, &io, why,
                                     sizeof why);
  if (ok && !mlirOperationVerify(mlirModuleGetOperation(module))) {
    snprintf(why, sizeof why, "its ops do not verify on their own");
    ok = false;
  }
  if (ok && !runPipeline(l->ctx, module, generalizePipeline, why, sizeof why)) {
    if (!why[0])
      snprintf(why, sizeof why,
               "MLIR's generalization of its ops failed (see the errors "
               "above)");
    ok = false;
  }
  if (ok)
    duplicateElementwise(module);
  if (ok && !runPipeline(l->ctx, module, tensorPipeline, why, sizeof why)) {
    if (!why[0])
      snprintf(why, sizeof why,
               "MLIR's bufferization of its ops failed (see the errors "
               "above)");
    ok = false;
  }
  ok = ok && launchGenerics(module, why, sizeof why);
  char libdevice[600], pipeline[1600];
  libdeviceOption(libdevice, sizeof libdevice);
  snprintf(pipeline, sizeof pipeline, gpuPipeline, libdevice);
  if (ok && !runPipeline(l->ctx, module, pipeline, why, sizeof why)) {
    if (!why[0])
      snprintf(why, sizeof why,
               "MLIR's GPU pipeline failed on its kernels (see the errors "
               "above)");
    ok = false;
  }
  MlirOperation fn = {NULL};
  for (MlirOperation f = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       ok && !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f))
    if (embOpIs(f, "func.func"))
      fn = f;
  if (ok && mlirOperationIsNull(fn)) {
    snprintf(why, sizeof why, "its function was lost");
    ok = false;
  }
  if (ok) {
    // The buffers of its inputs and outputs in the lowered function.
    size_t nargs = io.numInputs + io.numOutputs;
    MlirValue *args = calloc(nargs + 1, sizeof(MlirValue));
    for (size_t i = 0; i < io.numInputs && ok; ++i) {
      EmbMapped *m = embLookupValue(l, io.inputs[i]);
      if (!m || !m->isTensor) {
        snprintf(why, sizeof why, "an input was not lowered");
        ok = false;
      } else {
        args[i] = m->value;
      }
    }
    for (size_t i = 0; i < io.numOutputs && ok; ++i) {
      MlirType t = mlirValueGetType(io.outputs[i]);
      EmbDim dims[EMBRT_MAX_RANK];
      intptr_t rank = mlirShapedTypeGetRank(t);
      if (rank > EMBRT_MAX_RANK) {
        snprintf(why, sizeof why, "a result has more than %d dims",
                 EMBRT_MAX_RANK);
        ok = false;
        break;
      }
      for (intptr_t d = 0; d < rank; ++d)
        dims[d] = embConstDim(mlirShapedTypeGetDimSize(t, d));
      args[io.numInputs + i] = embDefineResult(l, io.outputs[i], dims)->value;
    }
    ok = ok && embGpuEmitHost(l, module, fn, args, why, sizeof why);
    free(args);
  }
  if (!ok && !l->failed)
    failGroup(l, g, why);
  free(io.inputs);
  free(io.outputs);
  mlirModuleDestroy(module);
  return true;
}
