//===- runtime/cpu/quantize.c - Quantized tables on the CPU -------*- C -*-===//
//
// embrtQuantizeTable and embrtDequantizeTable row by row over
// runtime/quantize.h's codec. A non-finite element stops the quantization
// at its row: the rows before it are written, it and the rows after are
// not.
//
//===----------------------------------------------------------------------===//

#include "runtime/quantize.h"
#include "runtime/cpu/cpu.h"

#include <math.h>

embrtStatus embrtCpuQuantizeTable(embrtContext *ctx,
                                  const embrtQuantizeTableArgs *args) {
  int64_t D = args->dim;
  int64_t rowBytes = embrtQuantizedRowBytes(args->precision, D);
  float row[EMBRT_MAX_TABLE_DIM];
  for (int64_t r = 0; r < args->rows; ++r) {
    for (int64_t d = 0; d < D; ++d) {
      row[d] = (float)embrtCpuLoad(args->input, args->denseDtype, r * D + d);
      if (!isfinite(row[d]))
        return embrtSetError(ctx, EMBRT_OUT_OF_RANGE,
                             "quantize_table: row %lld column %lld is %s; a "
                             "quantized table's rows must be finite",
                             (long long)r, (long long)d,
                             isnan(row[d]) ? "nan" : "infinite");
    }
    embrtEncodeRow(args->precision, row, D,
                   (uint8_t *)args->output + r * rowBytes);
  }
  return EMBRT_OK;
}

embrtStatus embrtCpuDequantizeTable(embrtContext *ctx,
                                    const embrtQuantizeTableArgs *args) {
  (void)ctx;
  int64_t D = args->dim;
  int64_t rowBytes = embrtQuantizedRowBytes(args->precision, D);
  float row[EMBRT_MAX_TABLE_DIM];
  for (int64_t r = 0; r < args->rows; ++r) {
    embrtDecodeRow(args->precision, (const uint8_t *)args->input + r * rowBytes,
                   D, row);
    for (int64_t d = 0; d < D; ++d)
      embrtCpuStore(args->output, args->denseDtype, r * D + d, row[d]);
  }
  return EMBRT_OK;
}
