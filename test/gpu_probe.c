//===- test/gpu_probe.c - Does a GPU answer here? -------------------------===//
//
// Exits 0 when the runtime can create a CUDA context (on the GPU of the
// ordinal given as the argument, 0 without), 1 otherwise. lit runs it to
// decide the cuda-gpu feature, and with 1 the cuda-gpus-2 feature (the
// several-rank runs of emb-run --ranks, one rank a GPU).
//
//===----------------------------------------------------------------------===//

#include "emb/runtime.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  embrtContext *ctx = NULL;
  int ordinal = argc > 1 ? atoi(argv[1]) : 0;
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, ordinal, NULL, &ctx) != EMBRT_OK) {
    fprintf(stderr, "no GPU: %s\n", embrtGetCreateError());
    return 1;
  }
  embrtContextDestroy(ctx);
  return 0;
}
