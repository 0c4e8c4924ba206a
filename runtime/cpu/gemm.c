//===- runtime/cpu/gemm.c - Dense matrix products on the CPU ------*- C -*-===//
//
// The reference embrtGemm: for each batch and output row, a tile of up to 64
// output columns is accumulated over K (f64 for f32 data, f32 for f16 and
// bf16: embrtCpuAccumulate), then the epilogue adds beta * out and the bias,
// applies the activation in double and rounds once to outputDtype. The tile
// keeps the loads of a non-transposed B row contiguous. Arguments are
// checked by runtime/gemm.c (leading dimensions resolved, output not empty).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/cpu.h"

#include <math.h>

enum { kTile = 64 };

static double activate(embrtActivation act, double x) {
  switch (act) {
  case EMBRT_ACTIVATION_RELU:
    return x > 0.0 ? x : 0.0;
  case EMBRT_ACTIVATION_GELU_TANH:
    return 0.5 * x *
           (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
  case EMBRT_ACTIVATION_SIGMOID:
    return 1.0 / (1.0 + exp(-x));
  case EMBRT_ACTIVATION_NONE:
    break;
  }
  return x;
}

embrtStatus embrtCpuGemm(embrtContext *ctx, const embrtGemmArgs *args) {
  (void)ctx;
  const embrtGemmArgs *g = args;
  int inF32 = embrtCpuAccumulatesInF32(g->dtype);
  // Steps between consecutive elements of op(A)'s row i and op(B)'s row p.
  int64_t aRow = g->transA ? 1 : g->lda, aCol = g->transA ? g->lda : 1;
  int64_t bRow = g->transB ? 1 : g->ldb, bCol = g->transB ? g->ldb : 1;
  double acc[kTile];
  for (int64_t b = 0; b < g->batchSize; ++b) {
    int64_t aBase = b * g->strideA, bBase = b * g->strideB,
            cBase = b * g->strideC;
    for (int64_t i = 0; i < g->m; ++i)
      for (int64_t j0 = 0; j0 < g->n; j0 += kTile) {
        int64_t width = g->n - j0 < kTile ? g->n - j0 : kTile;
        for (int64_t j = 0; j < width; ++j)
          acc[j] = 0.0;
        for (int64_t p = 0; p < g->k; ++p) {
          double av = embrtCpuLoad(g->a, g->dtype, aBase + i * aRow + p * aCol);
          int64_t row = bBase + p * bRow + j0 * bCol;
          for (int64_t j = 0; j < width; ++j)
            acc[j] = embrtCpuAccumulate(
                acc[j], av, embrtCpuLoad(g->b, g->dtype, row + j * bCol),
                inF32);
        }
        for (int64_t j = 0; j < width; ++j) {
          int64_t at = cBase + i * g->ldc + j0 + j;
          double x = (double)g->alpha * acc[j];
          if (g->beta != 0.0f)
            x += (double)g->beta * embrtCpuLoad(g->output, g->outputDtype, at);
          if (g->bias)
            x += embrtCpuLoad(g->bias, g->outputDtype, j0 + j);
          embrtCpuStore(g->output, g->outputDtype, at,
                        activate(g->activation, x));
        }
      }
  }
  return EMBRT_OK;
}
