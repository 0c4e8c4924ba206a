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
#include "runtime/context.h"
#include "runtime/status.h"

#include <stdlib.h>

void *embrtCompiledAlloc(embrtContext *ctx, int64_t bytes) {
  void *p = NULL;
  if (bytes < 0)
    return NULL;
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
