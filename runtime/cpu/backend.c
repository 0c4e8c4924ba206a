//===- runtime/cpu/backend.c - The CPU backend's table ------------*- C -*-===//
//
// embrtCpuBackend: the host as a device. A context needs nothing of its own,
// memory is malloc'd host memory, every call has finished when it returns
// (so synchronize has nothing to wait for, and an event is the host's
// monotonic clock at the time it was recorded), there is nothing to capture
// into a graph (EMBRT_UNSUPPORTED), and the ops are the reference loops of
// runtime/cpu/<family>.c.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "runtime/backend.h"
#include "runtime/cpu/cpu.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

static embrtStatus contextInit(embrtContext *ctx, void *stream) {
  return EMBRT_OK;
}

static void contextRelease(embrtContext *ctx) {}

static embrtStatus synchronize(embrtContext *ctx) { return EMBRT_OK; }

static embrtStatus pollDeviceErrors(embrtContext *ctx) { return EMBRT_OK; }

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

static embrtStatus hostMalloc(embrtContext *ctx, size_t bytes, void **out) {
  *out = malloc(bytes);
  if (!*out)
    return embrtSetError(ctx, EMBRT_OUT_OF_MEMORY,
                         "malloc: %zu bytes of host memory are not available",
                         bytes);
  return EMBRT_OK;
}

static embrtStatus hostFree(embrtContext *ctx, void *ptr) {
  free(ptr);
  return EMBRT_OK;
}

static embrtStatus hostMemcpy(embrtContext *ctx, void *dst, const void *src,
                              size_t bytes, embrtCopyKind kind) {
  memmove(dst, src, bytes);
  return EMBRT_OK;
}

static embrtStatus hostMemset(embrtContext *ctx, void *dst, int value,
                              size_t bytes) {
  memset(dst, value, bytes);
  return EMBRT_OK;
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

static embrtStatus eventCreate(embrtContext *ctx, embrtEvent *event) {
  return EMBRT_OK;
}

static embrtStatus eventRecord(embrtContext *ctx, embrtEvent *event) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  event->hostMs = (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
  return EMBRT_OK;
}

static embrtStatus eventElapsedMs(embrtContext *ctx, const embrtEvent *start,
                                  const embrtEvent *end, float *ms) {
  *ms = (float)(end->hostMs - start->hostMs);
  return EMBRT_OK;
}

static void eventDestroy(embrtContext *ctx, embrtEvent *event) {}

//===----------------------------------------------------------------------===//
// Graphs: none on the host, where every call has run when it returns
//===----------------------------------------------------------------------===//

static embrtStatus captureBegin(embrtContext *ctx, embrtCaptureMode mode) {
  return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                       "capture: graphs need a CUDA context; on the CPU every "
                       "call runs when it is made");
}

// Never capturing, so never asked to end a capture or run a graph.
static embrtStatus captureEnd(embrtContext *ctx, embrtGraph *graph) {
  return graph ? captureBegin(ctx, EMBRT_CAPTURE_THREAD_LOCAL) : EMBRT_OK;
}

static embrtStatus graphLaunch(embrtContext *ctx, const embrtGraph *graph) {
  return captureBegin(ctx, EMBRT_CAPTURE_THREAD_LOCAL);
}

static void graphDestroy(embrtContext *ctx, embrtGraph *graph) {}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

const struct embrtBackend embrtCpuBackend = {
    .workspaceAlignment = 16,
    .usesHostMemory = 1,

    .contextInit = contextInit,
    .contextRelease = contextRelease,
    .synchronize = synchronize,
    .pollDeviceErrors = pollDeviceErrors,

    // Stream order is call order: the asynchronous forms are the plain ones.
    .deviceMalloc = hostMalloc,
    .deviceFree = hostFree,
    .deviceMallocAsync = hostMalloc,
    .deviceFreeAsync = hostFree,
    .deviceMemcpy = hostMemcpy,
    .deviceMemset = hostMemset,

    .eventCreate = eventCreate,
    .eventRecord = eventRecord,
    .eventElapsedMs = eventElapsedMs,
    .eventDestroy = eventDestroy,

    .captureBegin = captureBegin,
    .captureEnd = captureEnd,
    .graphLaunch = graphLaunch,
    .graphDestroy = graphDestroy,

// The ops: embrtCpu<Op> for every row of kernels/ops.def.
#define EMBRT_OP(op, Op, Args, takes) .op = embrtCpu##Op,
#include "kernels/ops.def"
    .launchKernel = NULL, // PTX: embrtCompiledLaunchKernel refuses it

    .commGetUniqueId = embrtCpuCommGetUniqueId,
    .commInit = embrtCpuCommInit,
    .commRelease = embrtCpuCommRelease,
};
