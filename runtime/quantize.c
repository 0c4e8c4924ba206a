//===- runtime/quantize.c - Quantized tables ----------------------*- C -*-===//
//
// The entry points embrtQuantizeTable and embrtDequantizeTable (the
// argument checks, then the context's backend) and the compiled ABI's
// decoder. The rows themselves: runtime/quantize_rows.c.
//
//===----------------------------------------------------------------------===//

#include "runtime/quantize.h"
#include "emb/compiled.h"
#include "runtime/backend.h"
#include "runtime/check.h"
#include "runtime/context.h"

#include <string.h>

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

static embrtStatus checkQuantize(embrtContext *ctx, const char *op,
                                 const embrtQuantizeTableArgs *args) {
  EMBRT_TRY(embrtCheckStruct(ctx, op, args, args ? args->structSize : 0,
                             sizeof(embrtQuantizeTableArgs),
                             "embrtQuantizeTableArgs"));
  if (embrtPrecisionBits(args->precision) == 0)
    return embrtInvalid(ctx,
                        "%s: precision is %d, must be int8, int4, int2 or fp8",
                        op, (int)args->precision);
  EMBRT_TRY(embrtCheckStorageFloat(ctx, op, "denseDtype", args->denseDtype));
  EMBRT_TRY(embrtCheckNonNegative(ctx, op, "rows", args->rows));
  int64_t rowBytes = embrtQuantizedRowBytes(args->precision, args->dim);
  if (rowBytes < 0)
    return embrtInvalid(ctx,
                        "%s: dim is %lld, must be in 1..%d and a multiple of "
                        "%d for %s",
                        op, (long long)args->dim, EMBRT_MAX_TABLE_DIM,
                        8 / embrtPrecisionBits(args->precision),
                        embrtTablePrecisionName(args->precision));
  int64_t denseElements = 0, packedBytes = 0;
  EMBRT_TRY(embrtCheckCount(ctx, op, "the dense table", args->denseDtype,
                            &denseElements, args->rows, args->dim, 1, 1));
  EMBRT_TRY(embrtCheckCount(ctx, op, "the packed table", EMBRT_I8, &packedBytes,
                            args->rows, rowBytes, 1, 1));
  EMBRT_TRY(embrtCheckData(ctx, op, "input", args->input, args->rows));
  return embrtCheckData(ctx, op, "output", args->output, args->rows);
}

embrtStatus embrtQuantizeTable(embrtContext *ctx,
                               const embrtQuantizeTableArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkQuantize(ctx, "quantize_table", args));
  if (args->rows == 0)
    return EMBRT_OK;
  return ctx->backend->quantizeTable(ctx, args);
}

embrtStatus embrtDequantizeTable(embrtContext *ctx,
                                 const embrtQuantizeTableArgs *args) {
  if (!ctx)
    return EMBRT_INVALID_ARGUMENT;
  EMBRT_TRY(checkQuantize(ctx, "dequantize_table", args));
  if (args->rows == 0)
    return EMBRT_OK;
  return ctx->backend->dequantizeTable(ctx, args);
}

void embrtCompiledQuantizeTable(embrtContext *ctx, const int64_t *attrs,
                                void *const *buffers, const int64_t *dims) {
  int64_t rows = dims[EMB_ABI_QUANTIZE_DIM_ROWS];
  if (embrtCheckExtent(ctx, "emb.quantize_table", "the result",
                       dims[EMB_ABI_QUANTIZE_DIM_OUTPUT_ROWS], "rows", "weight",
                       rows, "rows") != EMBRT_OK)
    return;
  embrtQuantizeTableArgs a;
  memset(&a, 0, sizeof a);
  a.structSize = sizeof a;
  a.precision = (embrtTablePrecision)attrs[EMB_ABI_QUANTIZE_PRECISION];
  a.denseDtype = (embrtDtype)attrs[EMB_ABI_QUANTIZE_DENSE_DTYPE];
  a.rows = rows;
  a.dim = dims[EMB_ABI_QUANTIZE_DIM_COLS];
  a.input = buffers[EMB_ABI_QUANTIZE_BUF_INPUT];
  a.output = buffers[EMB_ABI_QUANTIZE_BUF_OUTPUT];
  embrtQuantizeTable(ctx, &a);
}
