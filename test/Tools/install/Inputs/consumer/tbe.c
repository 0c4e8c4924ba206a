// A CPU lookup through emb's public runtime API (emb/runtime.h), as a program
// built against an installed emb makes it: one table of 4 rows of width 2,
// two bags summed, {0, 2} and {3}. Prints "tbe: ok" when the output is right.

#include "emb/runtime.h"

#include <stdio.h>

static int fail(embrtContext *ctx, const char *what) {
  fprintf(stderr, "%s: %s\n", what,
          ctx ? embrtContextGetLastError(ctx) : embrtGetCreateError());
  if (ctx)
    embrtContextDestroy(ctx);
  return 1;
}

int main(void) {
  embrtContext *ctx = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &ctx) != EMBRT_OK)
    return fail(NULL, "embrtContextCreate");

  const float table[4 * 2] = {1, 2, 10, 20, 100, 200, 1000, 2000};
  const void *tables[1] = {table};
  const int64_t rows[1] = {4}, dims[1] = {2}, featureTables[1] = {0};
  const int64_t indices[3] = {0, 2, 3}, offsets[3] = {0, 2, 3};
  float output[2 * 2] = {-1, -1, -1, -1};

  embrtTbeArgs args = {sizeof args};
  args.pooling = EMBRT_POOLING_SUM;
  args.boundsCheck = EMBRT_BOUNDS_FATAL;
  args.numTables = 1;
  args.tables = tables;
  args.tableRows = rows;
  args.tableDims = dims;
  args.tableDtype = EMBRT_F32;
  args.numFeatures = 1;
  args.featureTables = featureTables;
  args.batchSize = 2;
  args.numIndices = 3;
  args.indices = indices;
  args.indexDtype = EMBRT_I64;
  args.offsets = offsets;
  args.offsetDtype = EMBRT_I64;
  args.output = output;
  args.outputDtype = EMBRT_F32;
  args.configId = -1;

  size_t bytes = 0;
  if (embrtTbeWorkspaceSize(ctx, &args, &bytes) != EMBRT_OK)
    return fail(ctx, "embrtTbeWorkspaceSize");
  if (bytes && embrtMalloc(ctx, bytes, &args.workspace) != EMBRT_OK)
    return fail(ctx, "embrtMalloc");
  args.workspaceBytes = bytes;
  if (embrtTbeForward(ctx, &args) != EMBRT_OK ||
      embrtSynchronize(ctx) != EMBRT_OK)
    return fail(ctx, "embrtTbeForward");
  embrtFree(ctx, args.workspace);
  embrtContextDestroy(ctx);

  const float want[4] = {101, 202, 1000, 2000};
  for (int i = 0; i < 4; ++i) {
    if (output[i] != want[i]) {
      fprintf(stderr, "output[%d] = %g, expected %g\n", i, output[i], want[i]);
      return 1;
    }
  }
  printf("tbe: ok\n");
  return 0;
}
