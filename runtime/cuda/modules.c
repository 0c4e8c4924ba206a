//===- runtime/cuda/modules.c - Kernels the compiler generated ----*- C -*-===//
//
// The CUDA backend's launchKernel hook (embrtCompiledLaunchKernel): the PTX
// modules emb-lower-to-runtime{target=cuda} generates for the ops the runtime
// has no call for (docs/codegen.md), loaded with the CUDA runtime and launched
// on the context's stream.
//
// Modules are loaded through the CUDA runtime's library API
// (cudaLibraryLoadData, cudaLibraryGetKernel, cudaLaunchKernel on the
// cudaKernel_t), not the driver API: the runtime finds the driver when a
// device is used, so nothing links libcuda.so.1 and the tools and tests
// built with CUDA still start on a machine without a GPU driver.
//
// A context loads each module once, on the first launch that needs it
// (cudaLibraryLoadData, which JIT-compiles the PTX for the device), and keeps
// it, keyed by the PTX's hash and size, with the functions looked up in it,
// until the context is destroyed (embrtCudaModulesRelease). A launch is one
// cudaLaunchKernel on the context's stream: nothing waits for the device and
// nothing is allocated, so a launch of a loaded module can be captured into
// a graph. A load cannot (it allocates device memory and may synchronise):
// during a capture the first launch of a module fails with a message that
// says to run the call once first, as embrtCompiledConstant does.
//
// Every cudaError_t is checked and translated here, with CUDA's name for it.
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "runtime/cuda/cuda.h"

#include <cuda_runtime_api.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/// A function of a loaded module, found by name once.
typedef struct Function {
  char *name;
  cudaKernel_t function;
} Function;

/// One loaded module and the functions looked up in it.
typedef struct Module {
  uint64_t hash;
  int64_t bytes;
  cudaLibrary_t module;
  Function *functions;
  size_t numFunctions, functionsCap;
} Module;

struct embrtCudaModules {
  Module *modules;
  size_t numModules, modulesCap;
};

/// Records a failed CUDA call on the context; EMBRT_OK for cudaSuccess.
static embrtStatus record(embrtContext *ctx, cudaError_t result,
                          const char *what, const char *kernel) {
  if (result == cudaSuccess)
    return EMBRT_OK;
  embrtStatus status = result == cudaErrorMemoryAllocation ? EMBRT_OUT_OF_MEMORY
                                                           : EMBRT_DEVICE_ERROR;
  return embrtSetError(ctx, status, "launch_kernel: %s of kernel '%s': %s (%s)",
                       what, kernel, cudaGetErrorName(result),
                       cudaGetErrorString(result));
}

/// Makes room for one more element in `*array` (`count` used of `*cap`);
/// false (recorded on the context) when host memory runs out.
static bool reserve(embrtContext *ctx, void **array, size_t *cap, size_t count,
                    size_t elementBytes) {
  if (count < *cap)
    return true;
  size_t grownCap = *cap ? 2 * *cap : 8;
  void *grown = realloc(*array, grownCap * elementBytes);
  if (!grown) {
    embrtSetError(ctx, EMBRT_OUT_OF_MEMORY,
                  "launch_kernel: out of host memory");
    return false;
  }
  *array = grown;
  *cap = grownCap;
  return true;
}

static Module *findModule(struct embrtCudaModules *m,
                          const embrtKernelLaunch *l) {
  for (size_t i = 0; i < m->numModules; ++i)
    if (m->modules[i].hash == l->hash && m->modules[i].bytes == l->ptxBytes)
      return &m->modules[i];
  return NULL;
}

/// The module of `l`, loaded now unless the context has it.
static embrtStatus moduleOf(embrtContext *ctx, const embrtKernelLaunch *l,
                            Module **out) {
  embrtCudaState *state = embrtCudaStateOf(ctx);
  if (!state->modules) {
    state->modules = calloc(1, sizeof *state->modules);
    if (!state->modules)
      return embrtSetError(ctx, EMBRT_OUT_OF_MEMORY,
                           "launch_kernel: out of host memory");
  }
  struct embrtCudaModules *m = state->modules;
  if ((*out = findModule(m, l)))
    return EMBRT_OK;
  if (ctx->capturing)
    return embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                         "launch_kernel: a captured call cannot load the "
                         "module of kernel '%s' (%lld bytes of PTX); run the "
                         "call once on this context before capturing it",
                         l->kernel, (long long)l->ptxBytes);
  if (!reserve(ctx, (void **)&m->modules, &m->modulesCap, m->numModules,
               sizeof(Module)))
    return EMBRT_OUT_OF_MEMORY;
  cudaLibrary_t module = NULL;
  EMBRT_TRY(record(
      ctx, cudaLibraryLoadData(&module, l->ptx, NULL, NULL, 0, NULL, NULL, 0),
      "cudaLibraryLoadData", l->kernel));
  Module *slot = &m->modules[m->numModules++];
  memset(slot, 0, sizeof *slot);
  slot->hash = l->hash;
  slot->bytes = l->ptxBytes;
  slot->module = module;
  *out = slot;
  return EMBRT_OK;
}

/// Function `name` of `mod`, looked up once.
static embrtStatus functionOf(embrtContext *ctx, Module *mod, const char *name,
                              cudaKernel_t *out) {
  for (size_t i = 0; i < mod->numFunctions; ++i)
    if (!strcmp(mod->functions[i].name, name)) {
      *out = mod->functions[i].function;
      return EMBRT_OK;
    }
  if (!reserve(ctx, (void **)&mod->functions, &mod->functionsCap,
               mod->numFunctions, sizeof(Function)))
    return EMBRT_OUT_OF_MEMORY;
  cudaKernel_t f = NULL;
  EMBRT_TRY(record(ctx, cudaLibraryGetKernel(&f, mod->module, name),
                   "cudaLibraryGetKernel", name));
  size_t n = strlen(name);
  char *copy = malloc(n + 1);
  if (!copy)
    return embrtSetError(ctx, EMBRT_OUT_OF_MEMORY,
                         "launch_kernel: out of host memory");
  memcpy(copy, name, n + 1);
  mod->functions[mod->numFunctions++] = (Function){copy, f};
  *out = f;
  return EMBRT_OK;
}

embrtStatus embrtCudaLaunchKernel(embrtContext *ctx,
                                  const embrtKernelLaunch *l) {
  EMBRT_TRY(embrtCudaRecord(ctx, cudaSetDevice(ctx->ordinal),
                            "launch_kernel: cudaSetDevice"));
  Module *mod = NULL;
  cudaKernel_t f = NULL;
  EMBRT_TRY(moduleOf(ctx, l, &mod));
  EMBRT_TRY(functionOf(ctx, mod, l->kernel, &f));
  // cudaLaunchKernel reads each parameter through a pointer to it, and takes
  // a cudaKernel_t in place of a __global__ function's address.
  void *params[EMB_MAX_KERNEL_ARGS];
  for (int i = 0; i < l->numArgs; ++i)
    params[i] = (void *)&l->args[i];
  cudaStream_t stream = (cudaStream_t)embrtCudaStateOf(ctx)->env.stream;
  dim3 grid = {l->grid[0], l->grid[1], l->grid[2]};
  dim3 block = {l->block[0], l->block[1], l->block[2]};
  return record(ctx,
                cudaLaunchKernel((const void *)f, grid, block, params,
                                 (size_t)l->sharedBytes, stream),
                "cudaLaunchKernel", l->kernel);
}

void embrtCudaModulesRelease(embrtContext *ctx) {
  embrtCudaState *state = embrtCudaStateOf(ctx);
  struct embrtCudaModules *m = state ? state->modules : NULL;
  if (!m)
    return;
  // The device is current (embrtCudaContextRelease); cudaLibraryUnload waits
  // for the module's launches in flight. Errors have nowhere to go.
  for (size_t i = 0; i < m->numModules; ++i) {
    Module *mod = &m->modules[i];
    for (size_t k = 0; k < mod->numFunctions; ++k)
      free(mod->functions[k].name);
    free(mod->functions);
    (void)cudaLibraryUnload(mod->module);
  }
  free(m->modules);
  free(m);
  state->modules = NULL;
}
