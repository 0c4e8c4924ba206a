"""Tables at inference precision: emb's quantized-table ops, registered with torch.library.

    torch.ops.emb.quantize_table(weight, precision) -> Tensor            (uint8 packed rows)
    torch.ops.emb.dequantize_table(packed, precision, dim, dtype=None) -> Tensor
    torch.ops.emb.tbe_forward_quantized(weights, precisions, dims, feature_table, indices,
                                        offsets, ...) -> Tensor

A quantized table is uint8 [rows, row_bytes(precision, dim)]: each row is FBGEMM's IntNBit TBE row
(row_alignment 16), so FBGEMM's inference weights are emb's tables byte for byte:

    "int8", "int4", "int2": an fp16 scale and an fp16 bias, then the columns of 8, 4 or 2 bits
        (low bits first), each reading fmaf(scale, q, bias);
    "fp8": an fp32 scale, then e4m3 bytes, each reading e4m3(q) * scale;

padded with zeros to a multiple of 16 bytes (docs/dialect.md has the table). quantize_table packs
a float32/float16/bfloat16 table as FBGEMM's FloatToFusedNBitRowwiseQuantizedSBHalf does (fp8: the
row's max |x| / 448 as the scale); a NaN or an infinity raises EmbIndexError naming its row and
column. tbe_forward_quantized is tbe_forward (emb_torch.ops) over tables of any precision, one
per table ("dense" tables are float tensors of one dtype); quantized rows are read in f32 and
summed in f32. The output is float32 (the default) or the dense tables' dtype, or over quantized
tables only, float16 or bfloat16. Its `precisions` are one embrtTablePrecision code a table (an
operator schema holds no list of strings), as FBGEMM's IntNBit lookup takes SparseType codes:
precision_codes(["int4", "dense"]) gives them (PRECISIONS lists the names in code order).

The CPU and CUDA runtimes run these ops, reading the same values. No autograd: quantized tables
are for inference.
"""
import ctypes
from typing import List, Optional

import torch
from torch import Tensor

from . import _runtime as R
from . import _torch_ops
from .ops import MAX_DIM, REFUSED, TABLE_DTYPES, _check_features, host_path

__all__ = ["quantize_table", "dequantize_table", "tbe_forward_quantized", "row_bytes",
           "precision_codes", "PRECISIONS"]

PRECISIONS = ("dense", "int8", "int4", "int2", "fp8")  # embrtTablePrecision, in order
BITS = {"int8": 8, "int4": 4, "int2": 2, "fp8": 8}
ROW_ALIGNMENT = 16  # EMBRT_QUANTIZED_ROW_ALIGNMENT


def row_bytes(precision: str, dim: int) -> int:
    """Bytes of one packed row of `dim` columns (embrtQuantizedRowBytes): a 4-byte header and
    the columns, padded to 16. ValueError for "dense", an unknown precision, or a dim outside
    1..2048 or that does not pack into whole bytes (int4: even, int2: a multiple of 4)."""
    if precision not in BITS:
        raise ValueError("emb_torch.row_bytes: precision must be one of %s, got %r"
                         % (sorted(BITS), precision))
    bits = BITS[precision]
    if not 1 <= dim <= MAX_DIM or dim * bits % 8 != 0:
        raise ValueError("emb_torch.row_bytes: dim is %d, must be 1..%d and a multiple of %d for %s"
                         % (dim, MAX_DIM, 8 // bits, precision))
    return (4 + dim * bits // 8 + ROW_ALIGNMENT - 1) // ROW_ALIGNMENT * ROW_ALIGNMENT


def precision_codes(names: List[str]) -> List[int]:
    """The embrtTablePrecision codes of precision names ("dense", "int8", "int4", "int2",
    "fp8"), for tbe_forward_quantized's `precisions`."""
    return [_precision("emb_torch.precision_codes", "names[%d]" % i, n, True)
            for i, n in enumerate(names)]


def _precision(op, name, precision, dense_ok):
    allowed = PRECISIONS if dense_ok else PRECISIONS[1:]
    if precision not in allowed:
        raise ValueError("%s: %s must be one of %s, got %r" % (op, name, list(allowed), precision))
    return PRECISIONS.index(precision)


def _packed_shape(op, name, packed, precision, dim):
    if packed.dtype != torch.uint8:
        raise TypeError("%s: %s must be uint8 (packed %s rows), got %s"
                        % (op, name, precision, packed.dtype))
    try:
        want = row_bytes(precision, dim)
    except ValueError:
        raise ValueError("%s: %s has dim %d, which must be 1..%d and a multiple of %d for %s"
                         % (op, name, dim, MAX_DIM, 8 // BITS[precision], precision)) from None
    if packed.dim() != 2 or packed.shape[1] != want:
        raise ValueError("%s: %s has shape %s, must be [rows, %d]: a %s row of %d columns takes "
                         "%d bytes" % (op, name, tuple(packed.shape), want, precision, dim, want))
    if not packed.is_contiguous():
        raise ValueError("%s: %s must be contiguous (rows packed)" % (op, name))


def _table_args(precision, rows, dim, dense_dtype):
    a = R.QuantizeTableArgs()
    a.structSize = ctypes.sizeof(R.QuantizeTableArgs)
    a.precision = PRECISIONS.index(precision)
    a.rows, a.dim = rows, dim
    a.denseDtype = R.DTYPES[dense_dtype]
    return a


#===------------------------------------------------------------------------------------------===#
# quantize_table, dequantize_table
#===------------------------------------------------------------------------------------------===#

def _check_quantize(weight, precision):
    op = "emb::quantize_table"
    _precision(op, "precision", precision, False)
    if weight.dtype not in TABLE_DTYPES:
        raise TypeError("%s: weight must be float32, float16 or bfloat16, got %s"
                        % (op, weight.dtype))
    if weight.dim() != 2:
        raise ValueError("%s: weight must be 2-D [rows, dim], got shape %s"
                         % (op, tuple(weight.shape)))
    try:
        return row_bytes(precision, weight.shape[1])
    except ValueError:
        raise ValueError("%s: weight has dim %d, which must be 1..%d and a multiple of %d for %s"
                         % (op, weight.shape[1], MAX_DIM, 8 // BITS[precision],
                            precision)) from None


@torch.library.custom_op("emb::quantize_table", mutates_args=())
@R.keeps_device
def quantize_table(weight: Tensor, precision: str) -> Tensor:
    """The packed rows of `weight` at `precision` ("int8", "int4", "int2", "fp8"): uint8
    [rows, row_bytes(precision, dim)] (embrtQuantizeTable)."""
    rb = _check_quantize(weight, precision)
    weight = weight.contiguous()
    out = weight.new_empty((weight.shape[0], rb), dtype=torch.uint8)
    rt = R.runtime()
    ctx = rt.context(weight.device)
    a = _table_args(precision, weight.shape[0], weight.shape[1], weight.dtype)
    a.input, a.output = weight.data_ptr(), out.data_ptr()
    rt.check(ctx, rt.lib.embrtQuantizeTable(ctx, ctypes.byref(a)), "emb::quantize_table")
    # On CUDA a non-finite element is a device error: raised by this poll of a later call, as a
    # bad id is.
    rt.poll(ctx, "emb::quantize_table")
    return out


@quantize_table.register_fake
def _(weight, precision):
    return weight.new_empty((weight.shape[0], _check_quantize(weight, precision)),
                            dtype=torch.uint8)


def _check_dequantize(packed, precision, dim, dtype):
    op = "emb::dequantize_table"
    _precision(op, "precision", precision, False)
    _packed_shape(op, "packed", packed, precision, dim)
    dtype = torch.float32 if dtype is None else dtype
    if dtype not in TABLE_DTYPES:
        raise TypeError("%s: dtype must be float32, float16 or bfloat16, got %s" % (op, dtype))
    return dtype


@torch.library.custom_op("emb::dequantize_table", mutates_args=())
@R.keeps_device
def dequantize_table(packed: Tensor, precision: str, dim: int,
                     dtype: Optional[torch.dtype] = None) -> Tensor:
    """The dense [rows, dim] table (float32 by default) that packed rows read as, each element
    rounded once (embrtDequantizeTable)."""
    dtype = _check_dequantize(packed, precision, dim, dtype)
    out = packed.new_empty((packed.shape[0], dim), dtype=dtype)
    rt = R.runtime()
    ctx = rt.context(packed.device)
    a = _table_args(precision, packed.shape[0], dim, dtype)
    a.input, a.output = packed.data_ptr(), out.data_ptr()
    rt.check(ctx, rt.lib.embrtDequantizeTable(ctx, ctypes.byref(a)), "emb::dequantize_table")
    rt.poll(ctx, "emb::dequantize_table")
    return out


@dequantize_table.register_fake
def _(packed, precision, dim, dtype=None):
    dtype = _check_dequantize(packed, precision, dim, dtype)
    return packed.new_empty((packed.shape[0], dim), dtype=dtype)


#===------------------------------------------------------------------------------------------===#
# tbe_forward_quantized
#===------------------------------------------------------------------------------------------===#

def _check_lookup(weights, precisions, dims, feature_table, indices, offsets, per_sample_weights,
                  pooling, bounds_check, output_dtype):
    """Checks a quantized lookup; returns (B, width, tableDtype, output dtype)."""
    op = "emb::tbe_forward_quantized"
    T = len(weights)
    if T == 0:
        raise ValueError("%s: weights is empty, needs at least one table" % op)
    if len(precisions) != T or len(dims) != T:
        raise ValueError("%s: %d weights but %d precisions and %d dims (one each a table)"
                         % (op, T, len(precisions), len(dims)))
    device, dense = weights[0].device, None
    for t, (w, code, d) in enumerate(zip(weights, precisions, dims)):
        name = "weights[%d]" % t
        if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code < len(PRECISIONS):
            raise ValueError("%s: precisions[%d] is %r, must be an embrtTablePrecision code 0..%d "
                             "(%s; precision_codes(names) makes them)"
                             % (op, t, code, len(PRECISIONS) - 1, ", ".join(
                                 "%d %s" % (i, n) for i, n in enumerate(PRECISIONS))))
        p = PRECISIONS[code]
        if w.device != device:
            raise ValueError("%s: %s is on %s but weights[0] is on %s" % (op, name, w.device,
                                                                        device))
        if p != "dense":
            _packed_shape(op, name, w, p, d)
            continue
        if w.dtype not in TABLE_DTYPES:
            raise TypeError("%s: %s is dense and must be float32, float16 or bfloat16, got %s"
                            % (op, name, w.dtype))
        if dense is not None and w.dtype != dense:
            raise TypeError("%s: %s is %s but the other dense tables are %s: dense tables share "
                            "a dtype" % (op, name, w.dtype, dense))
        dense = w.dtype
        if w.dim() != 2 or w.shape[1] != d or not 1 <= d <= MAX_DIM:
            raise ValueError("%s: %s has shape %s but dims[%d] is %d (1..%d)"
                             % (op, name, tuple(w.shape), t, d, MAX_DIM))
        if not w.is_contiguous():
            raise ValueError("%s: %s must be contiguous (rows packed)" % (op, name))
    _check_features(op, T, feature_table, indices, offsets, pooling, bounds_check, device)
    F = len(feature_table)
    out = torch.float32 if output_dtype is None else output_dtype
    psw = per_sample_weights.dtype if per_sample_weights is not None else None
    # tableDtype: the dense tables' dtype; over quantized tables only, the 16-bit one the output
    # or the weights hold (embrtTbeArgs::tablePrecisions).
    table_dtype = dense or (out if out != torch.float32 else psw or torch.float32)
    if out not in (torch.float32, table_dtype) or out not in TABLE_DTYPES:
        raise TypeError("%s: output_dtype must be float32 or %s, got %s"
                        % (op, "the dense tables' %s" % dense if dense else
                           "float16 or bfloat16 (one 16-bit type with per_sample_weights)", out))
    if per_sample_weights is not None:
        if pooling != "sum":
            raise ValueError("%s: per_sample_weights needs pooling \"sum\", got %r" % (op, pooling))
        if psw not in (torch.float32, table_dtype):
            raise TypeError("%s: per_sample_weights must be float32 or %s, got %s"
                            % (op, table_dtype, psw))
        if per_sample_weights.dim() != 1 or per_sample_weights.shape[0] != indices.shape[0]:
            raise ValueError("%s: per_sample_weights has shape %s, must be [%d] like indices"
                             % (op, tuple(per_sample_weights.shape), indices.shape[0]))
        if per_sample_weights.device != device:
            raise ValueError("%s: per_sample_weights is on %s but the tables are on %s"
                             % (op, per_sample_weights.device, device))
    fdims = [dims[t] for t in feature_table]
    B = (offsets.shape[0] - 1) // F
    if pooling == "none":
        if any(d != fdims[0] for d in fdims):
            raise ValueError("%s: pooling \"none\" needs every feature's table to have one dim, "
                             "got %s" % (op, fdims))
        return B, fdims[0], table_dtype, out
    return B, sum(fdims), table_dtype, out


def _tbe_forward_quantized(weights: List[Tensor], precisions: List[int], dims: List[int],
                           feature_table: List[int], indices: Tensor, offsets: Tensor,
                           per_sample_weights: Optional[Tensor] = None, pooling: str = "sum",
                           bounds_check: str = "fatal", padding_idx: Optional[int] = None,
                           output_dtype: Optional[torch.dtype] = None) -> Tensor:
    """tbe_forward over tables stored at `precisions` (one embrtTablePrecision code a table:
    precision_codes(["int4", "dense", ...])); `dims` are the tables' columns D (a packed table's
    width is its bytes)."""
    op = "emb::tbe_forward_quantized"
    # The C++ host path first; its op keeps the current device itself (a device guard).
    fast = _torch_ops.tbe_forward_quantized()
    if (fast is not None and weights and pooling in R.POOLING and bounds_check in R.BOUNDS
            and all(type(c) is int for c in precisions)):
        out = host_path(op, fast, weights[0].device, weights, precisions, dims, feature_table,
                        indices, offsets, per_sample_weights, R.POOLING[pooling],
                        R.BOUNDS[bounds_check], padding_idx, output_dtype)
        if out is not REFUSED:
            return out
    return _forward_quantized_python(op, weights, precisions, dims, feature_table, indices,
                                     offsets, per_sample_weights, pooling, bounds_check,
                                     padding_idx, output_dtype)


@R.keeps_device
def _forward_quantized_python(op, weights, precisions, dims, feature_table, indices, offsets,
                              per_sample_weights, pooling, bounds_check, padding_idx,
                              output_dtype):
    B, width, table_dtype, out_dtype = _check_lookup(
        weights, precisions, dims, feature_table, indices, offsets, per_sample_weights, pooling,
        bounds_check, output_dtype)
    rows = indices.shape[0] if pooling == "none" else B
    out = weights[0].new_empty((rows, width), dtype=out_dtype)
    indices, offsets = indices.contiguous(), offsets.contiguous()
    if per_sample_weights is not None:
        per_sample_weights = per_sample_weights.contiguous()
    T, F = len(weights), len(feature_table)
    arrays = ((ctypes.c_void_p * T)(*[w.data_ptr() for w in weights]),
              (ctypes.c_int64 * T)(*[w.shape[0] for w in weights]),
              (ctypes.c_int64 * T)(*dims),
              (ctypes.c_int64 * T)(*precisions),
              (ctypes.c_int64 * F)(*feature_table))
    a = R.TbeArgs()
    a.structSize = ctypes.sizeof(R.TbeArgs)
    a.pooling, a.boundsCheck = R.POOLING[pooling], R.BOUNDS[bounds_check]
    a.numTables, a.numFeatures = T, F
    a.tables = ctypes.cast(arrays[0], R._pp)
    a.tableRows = ctypes.cast(arrays[1], R._i64p)
    a.tableDims = ctypes.cast(arrays[2], R._i64p)
    a.tablePrecisions = ctypes.cast(arrays[3], R._i64p)
    a.featureTables = ctypes.cast(arrays[4], R._i64p)
    a.tableDtype = R.DTYPES[table_dtype]
    a.batchSize, a.numIndices = B, indices.shape[0]
    a.indices, a.indexDtype = indices.data_ptr(), R.DTYPES[indices.dtype]
    a.offsets, a.offsetDtype = offsets.data_ptr(), R.DTYPES[offsets.dtype]
    if per_sample_weights is not None:
        a.perSampleWeights = per_sample_weights.data_ptr()
        a.perSampleWeightDtype = R.DTYPES[per_sample_weights.dtype]
    a.hasPaddingIdx = padding_idx is not None
    a.paddingIdx = padding_idx if padding_idx is not None else 0
    a.output, a.outputDtype = out.data_ptr(), R.DTYPES[out_dtype]
    a.configId = -1
    rt = R.runtime()
    device = weights[0].device
    ctx = rt.context(device)
    ws = rt.workspace(ctx, rt.lib.embrtTbeWorkspaceSize, a, device)
    if ws is not None:
        a.workspace, a.workspaceBytes = ws.data_ptr(), ws.numel()
    rt.check(ctx, rt.lib.embrtTbeForward(ctx, ctypes.byref(a)), op)
    rt.poll(ctx, op)
    return out


tbe_forward_quantized = torch.library.custom_op("emb::tbe_forward_quantized",
                                              mutates_args=())(_tbe_forward_quantized)


@tbe_forward_quantized.register_fake
def _(weights, precisions, dims, feature_table, indices, offsets, per_sample_weights=None,
      pooling="sum", bounds_check="fatal", padding_idx=None, output_dtype=None):
    B, width, _, out_dtype = _check_lookup(weights, precisions, dims, feature_table, indices,
                                           offsets, per_sample_weights, pooling, bounds_check,
                                           output_dtype)
    rows = indices.shape[0] if pooling == "none" else B
    return weights[0].new_empty((rows, width), dtype=out_dtype)
