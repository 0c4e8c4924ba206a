"""Tests emb_torch's quantized-table ops against references written in torch (plain python).

emb::quantize_table against FBGEMM's rowwise quantizer (FloatToFusedNBitRowwiseQuantizedSBHalf:
bias the row's min rounded to fp16, scale (max - bias) / (2^bits - 1) rounded to fp16, q =
round-half-even((x - bias) / scale) clamped) and an e4m3 encoder for fp8, both written here in
torch ops, compared byte for byte on random normal tables of float32, float16 and bfloat16 with
constant, zero and wide rows; on PyTorch with float8_e4m3fn the fp8 bytes are also checked against
its cast. row_bytes against the runtime's embrtQuantizedRowBytes. emb::dequantize_table against a
decoder written here. emb::tbe_forward_quantized over int8, int4, int2, fp8 and dense tables in one
lookup against float64 sums of the decoded rows: sum, mean and none pooling, weighted bags,
padding, out-of-range ids (fatal raises EmbIndexError, warning and ignore skip), float32 and
16-bit outputs. The quantization error of int8/int4 on normal tables is printed against the
reference quantizer's (equal: the same bytes). Fake kernels under FakeTensorMode; wrong dtypes,
shapes, precisions and non-finite tables raise TypeError/ValueError/EmbIndexError naming the
argument (on CUDA a non-finite table's at the runtime's synchronize). On CUDA also: quantize_table
and dequantize_table equal to the CPU's byte for byte, and the lookups run on the GPU.

    python3 test/PyTorch/test_quantized.py [--device cuda|cpu] [--lib build/lib/libembrt.so]
Exit status 0 when every check passed; the last line says how many passed and failed.
"""
import os
import sys

import torch

import harness  # noqa: E402  (test/PyTorch/harness.py)
from harness import check, run  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
import emb_torch  # noqa: E402
from emb_torch import _runtime  # noqa: E402
from emb_torch import quantized as Q  # noqa: E402

DEV = None
GEN = torch.Generator().manual_seed(39)
PACKED = ("int8", "int4", "int2", "fp8")


#===------------------------------------------------------------------------------------------===#
# References
#===------------------------------------------------------------------------------------------===#

def ref_e4m3(v):
    """float32 -> e4m3 codes (uint8), nearest even, saturating at 448."""
    sign = (v < 0) | ((v == 0) & (1.0 / v < 0))
    a = v.abs().double()
    a = torch.where(a >= 448, torch.full_like(a, 448.0), a)
    sub = torch.round(a * 512)  # subnormals: steps of 2^-9
    m, e = torch.frexp(a)  # a = m * 2^e, m in [0.5, 1)
    q = torch.round(m * 16)  # 8..16
    e = torch.where(q == 16, e + 1, e)
    q = torch.where(q == 16, torch.full_like(q, 8.0), q)
    normal = ((e - 1 + 7) * 8 + (q - 8)).clamp(max=0x7E)
    code = torch.where(a < 2.0 ** -6, sub, normal.double())
    return (code.to(torch.int64) | (sign.to(torch.int64) << 7)).to(torch.uint8)


def ref_quantize(x, precision):
    """FBGEMM's rowwise quantizer (fp16 scale and bias first) and emb's fp8, in torch."""
    x = x.float()
    rows, dim = x.shape
    out = torch.zeros((rows, Q.row_bytes(precision, dim)), dtype=torch.uint8)
    if precision == "fp8":
        amax = x.abs().max(1).values
        scale = torch.where(amax > 0, amax / 448.0, torch.ones_like(amax))
        out[:, :4] = scale.contiguous().view(torch.uint8).view(rows, 4)
        out[:, 4:4 + dim] = ref_e4m3(x / scale[:, None])
        return out
    bits = Q.BITS[precision]
    bias = x.min(1).values.half().float()
    rng = x.max(1).values - bias
    scale = torch.where(rng == 0, torch.ones_like(rng), rng / float(2 ** bits - 1))
    scale = scale.half().float()
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    inv = 1.0 / scale
    bad = torch.isinf(inv)
    scale, inv = torch.where(bad, torch.ones_like(scale), scale), torch.where(bad, torch.ones_like(inv), inv)
    q = torch.round((x - bias[:, None]) * inv[:, None]).clamp(0, 2 ** bits - 1).to(torch.int64)
    out[:, 0:2] = scale.half().view(torch.uint8).view(rows, 2)
    out[:, 2:4] = bias.half().view(torch.uint8).view(rows, 2)
    per = 8 // bits
    packed = torch.zeros((rows, dim // per), dtype=torch.int64)
    for k in range(per):
        packed |= q[:, k::per] << (k * bits)
    out[:, 4:4 + dim // per] = packed.to(torch.uint8)
    return out


def ref_decode(packed, precision, dim):
    """The float32 values packed rows read as (fmaf(scale, q, bias); e4m3(q) * scale)."""
    rows = packed.shape[0]
    if precision == "fp8":
        scale = packed[:, :4].contiguous().view(torch.float32).view(rows)
        c = packed[:, 4:4 + dim].to(torch.int64)
        e, m = (c >> 3) & 15, (c & 7).double()
        v = torch.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * torch.pow(2.0, (e - 7).double()))
        v = torch.where((c & 0x80) != 0, -v, v).float()
        return v * scale[:, None]
    bits = Q.BITS[precision]
    per = 8 // bits
    scale = packed[:, 0:2].contiguous().view(torch.float16).view(rows).double()
    bias = packed[:, 2:4].contiguous().view(torch.float16).view(rows).double()
    b = packed[:, 4:4 + dim // per].to(torch.int64)
    q = torch.empty((rows, dim), dtype=torch.int64)
    for k in range(per):
        q[:, k::per] = (b >> (k * bits)) & (2 ** bits - 1)
    return (scale[:, None] * q.double() + bias[:, None]).float()  # exact, then one rounding


def normal_table(rows, dim, dtype):
    t = torch.randn((rows, dim), generator=GEN)
    t[1] = 0.0  # a zero row
    t[2] = 0.75  # a constant row
    t[3] *= 1000.0  # a wide row
    return t.to(dtype)


#===------------------------------------------------------------------------------------------===#
# Tests
#===------------------------------------------------------------------------------------------===#

def test_row_bytes():
    rt = _runtime.runtime()
    for p in PACKED:
        for dim in list(range(1, 41)) + [127, 128, 2047, 2048, 2049]:
            want = rt.lib.embrtQuantizedRowBytes(Q.PRECISIONS.index(p), dim)
            try:
                got = Q.row_bytes(p, dim)
            except ValueError:
                got = -1
            check(got == want, "row_bytes(%s, %d) is %d, the runtime's %d" % (p, dim, got, want))
    check(Q.row_bytes("int4", 128) == 80, "an int4 row of 128 is 80 bytes")


def test_quantize():
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for p in PACKED:
            for dim in (8, 64, 132):
                x = normal_table(37, dim, dtype)
                got = torch.ops.emb.quantize_table(x.to(DEV), p).cpu()
                want = ref_quantize(x, p)
                diff = (got != want).nonzero()
                check(got.shape == want.shape and diff.numel() == 0,
                      "quantize_table %s %s D %d: %d bytes differ from the reference, first at %s"
                      % (dtype, p, dim, diff.shape[0], diff[:1].tolist()))
                back = torch.ops.emb.dequantize_table(got.to(DEV), p, dim, torch.float32).cpu()
                check(torch.equal(back, ref_decode(got, p, dim)),
                      "dequantize_table %s %s D %d reads as the reference decoder" % (dtype, p, dim))
    if hasattr(torch, "float8_e4m3fn"):
        x = torch.randn((64, 32), generator=GEN)
        got = torch.ops.emb.quantize_table(x.to(DEV), "fp8").cpu()
        scale = got[:, :4].contiguous().view(torch.float32)
        torch_fp8 = (x / scale).to(torch.float8_e4m3fn).view(torch.uint8)
        check(torch.equal(got[:, 4:36], torch_fp8), "fp8 bytes are torch's float8_e4m3fn cast")
    else:
        print("note: this PyTorch has no float8_e4m3fn; fp8 checked against ref_e4m3 only")


def test_error():
    """The quantization error on normal rows, int8 and int4: the relative RMS over the table."""
    x = torch.randn((4096, 128), generator=GEN)
    for p in ("int8", "int4", "fp8"):
        packed = torch.ops.emb.quantize_table(x.to(DEV), p)
        back = torch.ops.emb.dequantize_table(packed, p, 128).cpu()
        ref = ref_decode(ref_quantize(x, p), p, 128)
        err = ((back - x).norm() / x.norm()).item()
        ref_err = ((ref - x).norm() / x.norm()).item()
        print("quantization error %s on N(0,1) rows of 128: %.4g (reference quantizer %.4g)"
              % (p, err, ref_err))
        check(err <= 2 * ref_err + 1e-12, "%s error %.4g within 2x the reference's %.4g"
              % (p, err, ref_err))


def lookup_case(T_precisions, dims, rows, pooling, weighted, out_dtype, bounds):
    tables, dense = [], []
    for p, d, r in zip(T_precisions, dims, rows):
        x = torch.randn((r, d), generator=GEN)
        if p == "dense":
            tables.append(x.to(DEV))
            dense.append(x.double())
        else:
            packed = torch.ops.emb.quantize_table(x.to(DEV), p)
            tables.append(packed)
            dense.append(ref_decode(packed.cpu(), p, d).double())
    feature_table = list(range(len(tables))) + [0]
    B, ids, offsets = 5, [], [0]
    for t in feature_table:
        for b in range(B):
            n = 0 if b == 2 else int(torch.randint(1, 5, (1,), generator=GEN))
            for _ in range(n):
                i = int(torch.randint(0, rows[t], (1,), generator=GEN))
                if bounds != "fatal" and torch.rand((1,), generator=GEN).item() < 0.1:
                    i = rows[t] + 3
                ids.append(i)
            offsets.append(len(ids))
    indices = torch.tensor(ids, dtype=torch.int64)
    offs = torch.tensor(offsets, dtype=torch.int64)
    psw = torch.rand((len(ids),), generator=GEN) + 0.5 if weighted else None
    out = torch.ops.emb.tbe_forward_quantized(
        tables, Q.precision_codes(T_precisions), list(dims), feature_table, indices.to(DEV), offs.to(DEV),
        None if psw is None else psw.to(DEV), pooling, bounds, 1, out_dtype).cpu()
    # The reference: float64 sums of the decoded rows; padding id 1 and bad ids skipped.
    cols = []
    for f, t in enumerate(feature_table):
        rows_out = []
        for b in range(B):
            acc, mag, n = torch.zeros(dims[t], dtype=torch.float64), 0.0, 0
            lo, hi = offsets[f * B + b], offsets[f * B + b + 1]
            for i in range(lo, hi):
                if ids[i] == 1 or ids[i] >= rows[t]:
                    continue
                w = float(psw[i]) if psw is not None else 1.0
                acc += w * dense[t][ids[i]]
                mag += abs(w) * float(dense[t][ids[i]].abs().max())
                n += 1
            if pooling == "mean" and n:
                acc, mag = acc / n, mag / n
            rows_out.append((acc, mag))
        cols.append(rows_out)
    tol = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1e-2}[out_dtype or torch.float32]
    worst = 0.0
    for b in range(B):
        c = 0
        for f, t in enumerate(feature_table):
            acc, mag = cols[f][b]
            got = out[b, c:c + dims[t]].double()
            worst = max(worst, float(((got - acc).abs() / max(mag, 1e-30)).max()))
            c += dims[t]
    return worst, tol


def test_lookup():
    precisions = ("int8", "int4", "int2", "fp8", "dense")
    dims, rows = (16, 8, 12, 5, 6), (11, 9, 13, 7, 8)
    for pooling in ("sum", "mean"):
        for weighted in ((False, True) if pooling == "sum" else (False,)):
            for out_dtype in (torch.float32, None):
                for bounds in ("warning", "ignore"):
                    worst, tol = lookup_case(precisions, dims, rows, pooling, weighted, out_dtype,
                                             bounds)
                    check(worst <= tol, "tbe_forward_quantized %s weighted=%s out %s %s: relative "
                          "error %.3g > %.3g" % (pooling, weighted, out_dtype, bounds, worst, tol))
    # Quantized tables only, a float16 output (tableDtype follows the output).
    worst, tol = lookup_case(("int4", "fp8"), (8, 8), (9, 7), "sum", False, torch.float16,
                             "ignore")
    check(worst <= tol, "tbe_forward_quantized float16 output: %.3g > %.3g" % (worst, tol))
    # pooling none: one row per id, read as the decoder reads it.
    x = torch.randn((10, 8), generator=GEN)
    packed = torch.ops.emb.quantize_table(x.to(DEV), "int4")
    idx = torch.tensor([3, 0, 9, 1, 4], dtype=torch.int64)
    out = torch.ops.emb.tbe_forward_quantized([packed], Q.precision_codes(["int4"]), [8], [0], idx.to(DEV),
                                              torch.tensor([0, 2, 5]).to(DEV), None, "none").cpu()
    check(torch.equal(out, ref_decode(packed.cpu(), "int4", 8)[idx]),
          "pooling none gives the decoded rows exactly")
    # fatal bounds: EmbIndexError naming the id.
    try:
        torch.ops.emb.tbe_forward_quantized([packed], Q.precision_codes(["int4"]), [8], [0],
                                            torch.tensor([3, 12]).to(DEV),
                                            torch.tensor([0, 1, 2]).to(DEV))
        if DEV.type == "cuda":  # a device error: raised when emb's work is waited for
            emb_torch.synchronize(DEV)
        check(False, "an id outside an int4 table raised nothing")
    except _runtime.EmbIndexError as e:
        check("id 12 is outside table 0 (10 rows)" in str(e), "the message names the id: %s" % e)


def test_errors():
    x = torch.randn((4, 8), generator=GEN).to(DEV)
    cases = [
        (lambda: torch.ops.emb.quantize_table(x, "int3"), ValueError, "precision must be one of"),
        (lambda: torch.ops.emb.quantize_table(x.int(), "int8"), TypeError, "weight must be float32"),
        (lambda: torch.ops.emb.quantize_table(x[:, :7], "int4"), ValueError,
         "weight has dim 7, which must be 1..2048 and a multiple of 2 for int4"),
        (lambda: torch.ops.emb.dequantize_table(torch.zeros((4, 12), dtype=torch.uint8,
                                                            device=DEV), "int8", 8),
         ValueError, "packed has shape (4, 12), must be [rows, 16]"),
        (lambda: torch.ops.emb.tbe_forward_quantized(
            [torch.zeros((4, 16), dtype=torch.uint8, device=DEV)], [1], [8, 8], [0],
            torch.tensor([0]).to(DEV), torch.tensor([0, 1]).to(DEV)),
         ValueError, "1 weights but 1 precisions and 2 dims"),
        (lambda: torch.ops.emb.tbe_forward_quantized(
            [torch.zeros((4, 16), dtype=torch.float32, device=DEV)], [1], [8], [0],
            torch.tensor([0]).to(DEV), torch.tensor([0, 1]).to(DEV)),
         TypeError, "weights[0] must be uint8 (packed int8 rows), got torch.float32"),
        (lambda: torch.ops.emb.tbe_forward_quantized(
            [torch.zeros((4, 16), dtype=torch.uint8, device=DEV), x], [1, 0], [8, 8],
            [0, 1], torch.tensor([0, 0]).to(DEV), torch.tensor([0, 1, 2]).to(DEV), None, "sum",
            "fatal", None, torch.float16),
         TypeError, "output_dtype must be float32 or the dense tables' torch.float32"),
        (lambda: torch.ops.emb.tbe_forward_quantized(
            [torch.zeros((4, 16), dtype=torch.uint8, device=DEV)], [5], [8], [0],
            torch.tensor([0]).to(DEV), torch.tensor([0, 1]).to(DEV)),
         ValueError, "precisions[0] is 5, must be an embrtTablePrecision code 0..4 (0 dense, "
         "1 int8, 2 int4, 3 int2, 4 fp8"),
        (lambda: Q.precision_codes(["int8", "int3"]), ValueError,
         "names[1] must be one of ['dense', 'int8', 'int4', 'int2', 'fp8'], got 'int3'"),
    ]
    for fn, exc, text in cases:
        try:
            fn()
            check(False, "%s was not raised (%s)" % (exc.__name__, text))
        except exc as e:
            check(text in str(e), "%s names what is wrong: %s (want %r)" % (exc.__name__, e, text))
    bad = torch.randn((3, 8), generator=GEN)
    bad[1, 5] = float("nan")
    try:
        torch.ops.emb.quantize_table(bad.to(DEV), "int8")
        if DEV.type == "cuda":  # a device error: reported when emb's work is waited for
            emb_torch.synchronize(DEV)
        check(False, "a NaN in a table raised nothing")
    except _runtime.EmbIndexError as e:
        check("row 1 column 5 is nan" in str(e), "the NaN's row and column are named: %s" % e)


def test_fake():
    try:
        from torch._subclasses.fake_tensor import FakeTensorMode
    except ImportError:
        print("note: this PyTorch has no FakeTensorMode; fake kernels not checked")
        return
    with FakeTensorMode():
        w = torch.empty((100, 64), device=DEV)
        q = torch.ops.emb.quantize_table(w, "int4")
        check(tuple(q.shape) == (100, 48) and q.dtype == torch.uint8, "fake quantize_table shape")
        out = torch.ops.emb.tbe_forward_quantized(
            [q], Q.precision_codes(["int4"]), [64], [0, 0], torch.empty((10,), dtype=torch.int64, device=DEV),
            torch.empty((9,), dtype=torch.int64, device=DEV))
        check(tuple(out.shape) == (4, 128) and out.dtype == torch.float32,
              "fake tbe_forward_quantized shape %s" % (tuple(out.shape),))


def test_cuda_matches_cpu():
    """quantize_table and dequantize_table on cuda give the CPU's bytes exactly."""
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        for p in PACKED:
            for dim in (8 // Q.BITS[p], 24, 100, 128, 1000):  # the least D that packs first
                x = normal_table(53, dim, dtype)
                want = torch.ops.emb.quantize_table(x, p)
                got = torch.ops.emb.quantize_table(x.to(DEV), p).cpu()
                check(torch.equal(got, want), "quantize_table %s %s D %d: cuda's bytes are the "
                      "cpu's (%d differ)" % (dtype, p, dim, (got != want).sum().item()))
                for out in (torch.float32, torch.float16, torch.bfloat16):
                    ref = torch.ops.emb.dequantize_table(want, p, dim, out)
                    back = torch.ops.emb.dequantize_table(want.to(DEV), p, dim, out).cpu()
                    check(torch.equal(back, ref), "dequantize_table %s %s D %d to %s: cuda's "
                          "values are the cpu's" % (dtype, p, dim, out))


def main():
    global DEV
    args = harness.parser().parse_args()
    if args.lib:
        os.environ["EMB_RUNTIME_LIB"] = args.lib
    DEV = torch.device(args.device)
    tests = [("row_bytes", test_row_bytes), ("quantize", test_quantize), ("error", test_error),
             ("lookup", test_lookup), ("errors", test_errors), ("fake", test_fake)]
    if DEV.type == "cuda":
        tests.append(("cuda_matches_cpu", test_cuda_matches_cpu))
    for name, fn in tests:
        run(name, fn)
    return harness.finish()


if __name__ == "__main__":
    sys.exit(main())
