// A C program that calls a compiled model named @main by the name its
// header declares (emb_main), as a user's program would: it has a main of
// its own. Prints the two bags' sums; exits 1 if the call fails.

#include EMB_MODEL_HEADER

#include <stdint.h>
#include <stdio.h>

/// A memref descriptor of rank `R`, as the entry takes it.
#define MEMREF(R)                                                              \
  struct {                                                                     \
    void *allocated, *aligned;                                                 \
    int64_t offset, sizes[R], strides[R];                                      \
  }

int main(void) {
  // Row r of the table is (r, 10 r); bag 0 holds ids 0 and 1, bag 1 ids 3,
  // 2 and 2: the sums are (1, 10) and (7, 70).
  float table[4][2] = {{0, 0}, {1, 10}, {2, 20}, {3, 30}};
  int64_t ids[5] = {0, 1, 3, 2, 2}, offsets[3] = {0, 2, 5};
  float out[2][2] = {{-1, -1}, {-1, -1}};
  MEMREF(2) t = {table, table, 0, {4, 2}, {2, 1}};
  MEMREF(1) i = {ids, ids, 0, {5}, {1}};
  MEMREF(1) o = {offsets, offsets, 0, {3}, {1}};
  MEMREF(2) r = {out, out, 0, {2, 2}, {2, 1}};
  embrtContext *ctx = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &ctx) != EMBRT_OK) {
    fprintf(stderr, "call_main: %s\n", embrtGetCreateError());
    return 1;
  }
  emb_main(ctx, &t, &i, &o, &r);
  embrtStatus status = embrtSynchronize(ctx);
  if (status == EMBRT_OK)
    status = embrtContextGetStatus(ctx);
  if (status != EMBRT_OK) {
    fprintf(stderr, "call_main: %s\n", embrtContextGetLastError(ctx));
    embrtContextDestroy(ctx);
    return 1;
  }
  printf("emb_main: [[%g, %g], [%g, %g]]\n", out[0][0], out[0][1], out[1][0],
         out[1][1]);
  embrtContextDestroy(ctx);
  return 0;
}
