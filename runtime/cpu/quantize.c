//===- runtime/cpu/quantize.c - Quantized tables on the CPU -------*- C -*-===//
//
// embrtQuantizeTable and embrtDequantizeTable: the host loops of
// runtime/quantize_rows.c, and the message that names a non-finite
// element's row and column (the rows before it are written, it and the rows
// after are not).
//
//===----------------------------------------------------------------------===//

#include "runtime/quantize.h"
#include "runtime/cpu/cpu.h"

#include <math.h>

embrtStatus embrtCpuQuantizeTable(embrtContext *ctx,
                                  const embrtQuantizeTableArgs *args) {
  int64_t row = 0, column = 0;
  embrtStatus status = embrtQuantizeRows(args, &row, &column);
  if (status != EMBRT_OUT_OF_RANGE)
    return status; // the arguments are checked: EMBRT_OK
  float x = (float)0;
  const void *p = args->input;
  int64_t i = row * args->dim + column;
  x = args->denseDtype == EMBRT_F32 ? ((const float *)p)[i]
      : args->denseDtype == EMBRT_F16
          ? embrtF16ToF32(((const uint16_t *)p)[i])
          : embrtBF16ToF32(((const uint16_t *)p)[i]);
  return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                       "quantize_table: row %lld column %lld is %s; a "
                       "quantized table's rows must be finite",
                       (long long)row, (long long)column,
                       isnan(x) ? "nan" : "infinite");
}

embrtStatus embrtCpuDequantizeTable(embrtContext *ctx,
                                    const embrtQuantizeTableArgs *args) {
  (void)ctx;
  return embrtDequantizeRows(args);
}
