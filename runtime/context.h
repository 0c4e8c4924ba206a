//===- runtime/context.h - The layout of a context ----------------*- C -*-===//
//
// What an embrtContext holds: its device and backend (chosen at creation,
// runtime/context.c), the sticky status with the last message
// (runtime/status.c), the invalid-id count, whether it is capturing a graph,
// the device copies of compiled models' constants (runtime/compiled.c), and
// the backend's own state (the CUDA backend's stream, device properties,
// device error record and cuBLAS handle: runtime/cuda/cuda.h). Only the
// runtime reads it: kernels get what they need in an embrtLaunchEnv
// (kernels/common/launch_env.h).
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_CONTEXT_H
#define EMB_RUNTIME_CONTEXT_H

#include "emb/runtime.h"

#include <stddef.h>
#include <stdint.h>

struct embrtBackend;

/// One uploaded constant: its content key and device copy.
typedef struct embrtConstant {
  uint64_t hash;
  int64_t bytes;
  void *device;
} embrtConstant;

struct embrtContext {
  embrtDevice device;
  int ordinal;
  /// The backend of `device` (runtime/backend.h).
  const struct embrtBackend *backend;
  /// What the backend keeps for this context (NULL on the CPU); made by its
  /// contextInit, freed by its contextRelease.
  void *backendState;
  /// First failing status since the context was created or last cleared.
  embrtStatus status;
  /// Message of the last failure (or warning note).
  char message[1024];
  int64_t invalidIdCount;
  /// Whether the context is capturing its stream into a graph
  /// (embrtContextBeginCapture): calls that cannot be captured check it and
  /// fail instead of breaking the capture.
  int capturing;
  /// The message of the first failure during the capture (runtime/status.c),
  /// which embrtContextEndCapture reports: later failures are its echoes.
  char captureFailure[1024];
  /// Device copies of compiled models' constants (embrtCompiledConstant),
  /// freed by embrtContextDestroy.
  embrtConstant *constants;
  size_t numConstants, constantsCap;
  /// The communicator (runtime/collectives.c): worldSize 0 until
  /// embrtContextSetCommunicator; `comm` is the backend's (an ncclComm_t).
  int worldSize, rank;
  void *comm;
};

#endif // EMB_RUNTIME_CONTEXT_H
