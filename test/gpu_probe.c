//===- test/gpu_probe.c - Does a GPU answer here? -------------------------===//
//
// Exits 0 when the runtime can create a CUDA context, 1 otherwise. lit runs
// it to decide the cuda-gpu feature.
//
//===----------------------------------------------------------------------===//

#include "emb/runtime.h"

#include <stdio.h>

int main(void) {
  embrtContext *ctx = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &ctx) != EMBRT_OK) {
    fprintf(stderr, "no GPU: %s\n", embrtGetCreateError());
    return 1;
  }
  embrtContextDestroy(ctx);
  return 0;
}
