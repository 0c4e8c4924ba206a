//===- runtime/compiled.c - Memory and checks of the compiled ABI -*- C -*-===//
//
// The memory side of include/emb/compiled.h: the intermediates, copies and
// constants of compiled models, and the model's own assertions (cf.assert).
// The ABI's op decoders (embrtCompiledTbe, ...) live with their families
// (runtime/tbe.c, ...). Statuses are left in the context (sticky), not
// returned.
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"
#include "runtime/status.h"

#include <stdlib.h>

/// The address of the versioned symbol as compiled.h declares it: a bump of
/// EMB_ABI_VERSION that leaves the declaration's name behind is an
/// undeclared identifier here, so the header, this definition and the
/// lowering's reference (runtime_symbols.def) cannot disagree.
int32_t embrtCompiledAbiVersion(void) {
  int32_t (*const declared)(void) = EMB_ABI_SYMBOL;
  return declared();
}

int32_t EMB_ABI_SYMBOL(void) { return EMB_ABI_VERSION; }

/// Every NULL return leaves its error in the context (embrtMallocAsync and
/// the backends record theirs), so that a failed allocation never goes
/// unreported.
void *embrtCompiledAlloc(embrtContext *ctx, int64_t bytes) {
  void *p = NULL;
  if (!ctx)
    return NULL;
  if (bytes < 0) {
    embrtInvalid(ctx, "alloc: bytes is %lld, must be >= 0", (long long)bytes);
    return NULL;
  }
  // A zero-byte tensor still gets a unique, valid pointer.
  if (embrtMallocAsync(ctx, bytes ? (size_t)bytes : 1, &p) != EMBRT_OK)
    return NULL;
  return p;
}

void embrtCompiledFree(embrtContext *ctx, void *ptr) {
  embrtFreeAsync(ctx, ptr);
}

void embrtCompiledCopy(embrtContext *ctx, int64_t kind, void *dst,
                       const void *src, int64_t bytes) {
  if (bytes < 0) {
    if (ctx)
      embrtInvalid(ctx, "copy: bytes is %lld, must be >= 0", (long long)bytes);
    return;
  }
  if (bytes > 0)
    embrtMemcpy(ctx, dst, src, (size_t)bytes, (embrtCopyKind)kind);
}

/// A backend that reads host memory uses the constant in place; others get
/// one device copy a context per content (`hash` and size), uploaded on first
/// use (not during a capture: the warm-up call uploads) and freed by
/// embrtContextDestroy.
void *embrtCompiledConstant(embrtContext *ctx, const void *host, int64_t bytes,
                            int64_t hash) {
  if (!ctx || bytes < 0 || (!host && bytes > 0)) {
    if (ctx)
      embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                    "constant: %lld bytes at %p is not a constant",
                    (long long)bytes, host);
    return NULL;
  }
  if (ctx->backend->usesHostMemory)
    return (void *)host;
  for (size_t i = 0; i < ctx->numConstants; ++i)
    if (ctx->constants[i].hash == (uint64_t)hash &&
        ctx->constants[i].bytes == bytes)
      return ctx->constants[i].device;
  if (ctx->capturing) {
    // The upload would allocate and copy pageable host memory: neither can
    // be captured, and a replay must not upload again anyway.
    embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                  "constant: a captured call cannot upload a constant (%lld "
                  "bytes); run the call once on this context before "
                  "capturing it",
                  (long long)bytes);
    return NULL;
  }
  if (ctx->numConstants == ctx->constantsCap) {
    size_t cap = ctx->constantsCap ? 2 * ctx->constantsCap : 8;
    embrtConstant *grown = realloc(ctx->constants, cap * sizeof *grown);
    if (!grown) {
      embrtSetError(ctx, EMBRT_OUT_OF_MEMORY,
                    "constant: no host memory to track %zu constants", cap);
      return NULL;
    }
    ctx->constants = grown;
    ctx->constantsCap = cap;
  }
  void *device = NULL;
  if (embrtMalloc(ctx, bytes ? (size_t)bytes : 1, &device) != EMBRT_OK)
    return NULL;
  if (embrtMemcpy(ctx, device, host, (size_t)bytes,
                  EMBRT_COPY_HOST_TO_DEVICE) != EMBRT_OK) {
    embrtFree(ctx, device);
    return NULL;
  }
  ctx->constants[ctx->numConstants++] =
      (embrtConstant){(uint64_t)hash, bytes, device};
  return device;
}

/// The first failure is the one to report: a failed bounds check fails for
/// every out-of-range id, and an earlier error of another call explains more
/// than an assertion that tripped after it.
void embrtCompiledAssert(embrtContext *ctx, int64_t ok, const char *message) {
  if (ok || !ctx || ctx->status != EMBRT_OK)
    return;
  embrtSetError(ctx, EMBRT_OUT_OF_RANGE, "%s",
                message ? message : "assertion failed");
}

int64_t embrtCompiledCheckExtent(embrtContext *ctx, int64_t actual,
                                 int64_t expected, const char *what) {
  if (actual == expected)
    return 1;
  if (ctx && ctx->status == EMBRT_OK)
    embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                  "%s is %lld, but the result's shape needs %lld",
                  what ? what : "a size", (long long)actual,
                  (long long)expected);
  return 0;
}

int64_t embrtCompiledCheckIndex(embrtContext *ctx, int64_t index, int64_t size,
                                const char *what) {
  if (index >= 0 && index < size)
    return 1;
  if (ctx && ctx->status == EMBRT_OK) {
    if (size > 0)
      embrtSetError(
          ctx, EMBRT_OUT_OF_RANGE, "%s: index %lld is outside 0..%lld",
          what ? what : "an index", (long long)index, (long long)size - 1);
    else
      embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                    "%s: index %lld of a dim with no elements",
                    what ? what : "an index", (long long)index);
  }
  return 0;
}

/// Checks what the compiler wrote (a null buffer is a failed allocation,
/// refused like every other call refuses it) and hands the launch to the
/// backend; a backend without the hook cannot run PTX.
void embrtCompiledLaunchKernel(embrtContext *ctx, const char *ptx,
                               int64_t ptxBytes, int64_t hash,
                               const char *kernel, const int64_t *launch,
                               void *const *args, int64_t numArgs) {
  if (!ctx)
    return;
  const char *name = kernel ? kernel : "(null)";
  if (!ptx || ptxBytes <= 0 || !kernel || !launch || (numArgs > 0 && !args) ||
      numArgs < 0 || numArgs > EMB_MAX_KERNEL_ARGS) {
    embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                  "launch_kernel: kernel '%s': its module, name, launch "
                  "array or %lld arguments (at most %d) are not valid",
                  name, (long long)numArgs, EMB_MAX_KERNEL_ARGS);
    return;
  }
  embrtKernelLaunch l = {.ptx = ptx,
                         .ptxBytes = ptxBytes,
                         .hash = (uint64_t)hash,
                         .kernel = kernel,
                         .args = args,
                         .numArgs = (int)numArgs};
  for (int i = 0; i < 3; ++i) {
    int64_t g = launch[EMB_ABI_LAUNCH_GRID_X + i];
    int64_t b = launch[EMB_ABI_LAUNCH_BLOCK_X + i];
    if (g < 1 || g > 0x7fffffff || b < 1 || b > 1024) {
      embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                    "launch_kernel: kernel '%s': grid %lld or block %lld in "
                    "dimension %d is out of range",
                    name, (long long)g, (long long)b, i);
      return;
    }
    l.grid[i] = (unsigned)g;
    l.block[i] = (unsigned)b;
  }
  int64_t shared = launch[EMB_ABI_LAUNCH_SHARED_BYTES];
  if (shared < 0 || shared > 0x7fffffff) {
    embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                  "launch_kernel: kernel '%s': %lld bytes of shared memory",
                  name, (long long)shared);
    return;
  }
  l.sharedBytes = (unsigned)shared;
  for (int64_t i = 0; i < numArgs; ++i)
    if (!args[i]) {
      embrtSetError(ctx, EMBRT_INVALID_ARGUMENT,
                    "launch_kernel: kernel '%s': argument %lld is null", name,
                    (long long)i);
      return;
    }
  if (!ctx->backend->launchKernel) {
    embrtSetError(ctx, EMBRT_UNSUPPORTED,
                  "launch_kernel: kernel '%s' is GPU code the compiler "
                  "generated for the cuda target, and this context's device "
                  "cannot run it; compile the model for the cpu target to "
                  "run it on the CPU",
                  name);
    return;
  }
  ctx->backend->launchKernel(ctx, &l);
}
