"""Times emb's TBE forward over quantized tables against emb's f16 tables and the torch peers, and
checks the accuracy of the lookup and of the quantizer (docs/kernels/tbe_quantized.md).

    PYTHONUNBUFFERED=1 python3 bench/tbe_quantized/bench.py --out $OUT/tbe_quantized.jsonl \
        [--lib libembrt.so] [--runs 3] [--only emb_int4,torch_int4_words] [--deadline SECONDS]
    PYTHONPATH=/tmp/shim:python /usr/bin/python3 bench/tbe_quantized/bench.py --dry-run \
        --out /tmp/dry.jsonl --lib build/lib/libembrt.so

The shape (the issue's bars): B 16384 bags, T 32 features of one table each, E 1e6 rows, D 128,
L 20 ids a bag (fixed), ids uniform, int32 ids and offsets (--index-dtype), sum pooling, f16
output. Tables: one f16 buffer [T E, D] of N(0, 1) values drawn on the device, packed once per
precision by torch.ops.emb.quantize_table on the device (one call over the whole buffer: rows are
packed independently); emb's tables are views of these buffers, T of them, and the peers read the
same buffers with each feature's ids shifted by its table's first row.

Sides (each timed as bench/common/bench_peers.Timer times: L2 flushed before every call, CUDA
events around each, RUNS runs a side alternating all sides, each run the median of about RUN_MS
of calls; `ms` is the median of the runs, every run kept in `ms_runs`):

  emb_f16            torch.ops.emb.tbe_forward over the f16 tables
  emb_int8 ... fp8   torch.ops.emb.tbe_forward_quantized over the packed tables, f16 output
  torch_<p>_words    the peer, compiled: the packed table viewed as int32 words, the rows
                     gathered (index_select), scale and bias bit-cast from the header word, the
                     columns unpacked by shifts and masks, q * scale + bias in f32, summed over
                     the bag's L ids by a reshape, written f16 as [B, T D] like emb's output
  torch_<p>_bytes    the same on the uint8 rows as stored (scale and bias viewed as f16 from the
                     row's first bytes, nibbles by shifts and masks), compiled
  torch_int4_ebag    the gathered rows dequantised to f32, then F.embedding_bag over them
                     (compiled; it materialises the rows: the slower form, timed to show it)
  torch_<p>_eager    the bytes form without compile
  torch_f16_ebag     one F.embedding_bag over the f16 tables (context: torch's own lookup)

torch.compile's mode is --peer-mode (default "max-autotune-no-cudagraphs"); once the compile time
spent passes --compile-budget seconds the remaining forms compile with the default mode, and a
form that fails to compile is timed eager; each record says which (`mode`, `compile_s`: its first
call's wall time).

Bytes that must move (the issue's count): every id's packed row as stored (padding and header
included) + ids + offsets + the output; `bw_fraction` = bytes / ms over the copy bandwidth measured
in this call (a COPY_BYTES device-to-device torch copy, bytes read plus written). Also recorded:
`bytes_distinct` (each distinct row once) and `sector_bytes` (every id's row rounded out to the
32-byte sectors it touches: an 80-byte int4 row at a 16-byte offset touches three).

Accuracy:
  cuda_vs_cpu   emb's lookup on the device against emb's CPU lookup of the same packed rows (the
                first ACC_ROWS rows of each table, ACC_B bags), f16 output: max distance in f16
                ulps, and f32 output: max relative difference; every precision and f16 tables
  quant_error   emb's quantize_table on a N(0, 1) float32 table (QERR_ROWS x 128, numpy's
                generator, seed 39; on the CPU where the device refuses it, said in `on`)
                against fbgemm_ref.py (FBGEMM's rowwise quantizer in numpy): each row's
                relative RMS error, the mean over rows, both sides decoded by the same numpy
                decoder; and the fraction of bytes equal to the reference's

Writes one JSON line a record (kind: copy, table, cuda_vs_cpu, quant_error, lookup); report.py
reads them. --dry-run: on the CPU at tiny shapes (emb's CPU runtime, torch eager, one rep a run):
checks the driver end to end; its records say dry_run: true and are no measurement.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "common"))
import fbgemm_ref as ref  # noqa: E402
from bench_peers import Timer, calls_per_run, copy_gbps  # noqa: E402
from bench_results import commit_id, today  # noqa: E402

SHAPE = dict(B=16384, T=32, E=1000000, D=128, L=20)
DRY_SHAPE = dict(B=16, T=4, E=1000, D=128, L=20)
PRECISIONS = ("int8", "int4", "int2", "fp8")
# embrtTablePrecision codes (emb_torch.quantized.precision_codes), as tbe_forward_quantized takes.
CODES = {"dense": 0, "int8": 1, "int4": 2, "int2": 3, "fp8": 4}
# The compiled peers, in the order they compile (what the bars need first); OPTIONAL ones are
# skipped once the deadline has passed.
PEER_FORMS = (("int4", "words"), ("int4", "bytes"), ("int8", "words"), ("int8", "bytes"),
              ("int4", "ebag"))
OPTIONAL = ("torch_int8_bytes", "torch_int4_ebag")
EAGER = ("int4", "int8")
COPY_BYTES = 2 << 30
WARMUP_MS = 25.0
RUN_MS = 100.0
MAX_REPS = 100
ACC_ROWS, ACC_B = 4096, 256
QERR_ROWS, QERR_DIM = 100000, 128
SECTOR = 32
CHECK_TOL = 2e-3  # relative norm error of a side's output against the exact decode


#===------------------------------------------------------------------------------------------===#
# Tables and inputs
#===------------------------------------------------------------------------------------------===#

def torch_quantize(w, precision, chunk=1 << 20):
    """FBGEMM's rowwise quantizer in torch on w's device, chunk by chunk: the bytes emb's
    quantize_table writes (test/PyTorch/test_quantized.py holds the two equal on the CPU). Used
    only where emb's quantize_table is refused on the device, so that the other sides still run;
    the table record says so."""
    rows, dim = w.shape
    out = torch.zeros((rows, ref.row_bytes(precision, dim)), dtype=torch.uint8, device=w.device)
    for r0 in range(0, rows, chunk):
        x = w[r0:r0 + chunk].float()
        n = x.shape[0]
        o = out[r0:r0 + n]
        if precision == "fp8":
            raise RuntimeError("no torch fallback for fp8")
        bits = ref.BITS[precision]
        levels = float(2 ** bits - 1)
        bias = x.min(1).values.half().float()
        rng = x.max(1).values - bias
        scale = torch.where(rng == 0, torch.ones_like(rng), rng / levels).half().float()
        scale = torch.where(scale == 0, torch.ones_like(scale), scale)
        inv = 1.0 / scale
        bad = torch.isinf(inv)
        scale = torch.where(bad, torch.ones_like(scale), scale)
        inv = torch.where(bad, torch.ones_like(inv), inv)
        q = torch.round((x - bias[:, None]) * inv[:, None]).clamp(0, levels).to(torch.int32)
        o[:, 0:2] = scale.half().view(torch.uint8).view(n, 2)
        o[:, 2:4] = bias.half().view(torch.uint8).view(n, 2)
        per = 8 // bits
        packed = torch.zeros((n, dim // per), dtype=torch.int32, device=w.device)
        for k in range(per):
            packed |= q[:, k::per] << (k * bits)
        o[:, 4:4 + dim // per] = packed.to(torch.uint8)
    return out


class Inputs:
    """The tables (one buffer a precision, T views each) and the ids of one shape."""

    def __init__(self, s, dev, index_dtype, emit, log):
        B, T, E, D, L = s["B"], s["T"], s["E"], s["D"], s["L"]
        self.s, self.dev = s, dev
        g = torch.Generator(device=dev)
        g.manual_seed(39)
        t0 = time.perf_counter()
        self.w16 = torch.randn((T * E, D), generator=g, device=dev, dtype=torch.float32).half() \
            if dev.type == "cpu" else torch.randn((T * E, D), generator=g, device=dev,
                                                  dtype=torch.float16)
        self.packed, self.packer = {}, {}
        for p in PRECISIONS:
            try:
                self.packed[p] = torch.ops.emb.quantize_table(self.w16, p)
                self.packer[p] = "emb"
            except Exception as e:  # noqa: BLE001: the device may refuse: record, go on
                note = "emb::quantize_table refused: %s" % _first_line(e)
                try:
                    self.packed[p] = torch_quantize(self.w16, p)
                    self.packer[p] = "torch (%s)" % note
                except Exception as e2:  # noqa: BLE001
                    self.packer[p] = "none (%s; %s)" % (note, _first_line(e2))
            log("# %s tables: %s" % (p, self.packer[p]))
        self.sync()
        emit(kind="table", name="tables", seconds=round(time.perf_counter() - t0, 2),
             packer=self.packer, row_bytes={p: ref.row_bytes(p, D) for p in PRECISIONS})
        # ids: feature-major (TorchRec's KJT layout), each bag L ids uniform in its table
        n = T * B * L
        self.indices = torch.randint(0, E, (n,), generator=g, device=dev,
                                     dtype=torch.int64).to(index_dtype)
        self.offsets = (torch.arange(T * B + 1, device=dev, dtype=torch.int64) * L) \
            .to(index_dtype)
        shift = torch.arange(T, device=dev, dtype=torch.int64).repeat_interleave(B * L) * E
        self.shifted = (self.indices.to(torch.int64) + shift).to(index_dtype)
        self.arange_n = torch.arange(n, device=dev, dtype=torch.int64).to(index_dtype)
        self.feature_table = list(range(T))
        self.f16_views = [self.w16[t * E:(t + 1) * E] for t in range(T)]
        self.views = {p: [w[t * E:(t + 1) * E] for t in range(T)] for p, w in self.packed.items()}
        self.words = {p: w.view(torch.int32) for p, w in self.packed.items() if p != "fp8"}
        self.N = n

    def sync(self):
        if self.dev.type == "cuda":
            torch.cuda.synchronize()

    def row_counts(self, row_bytes):
        """(distinct rows, 32-byte sectors touched by every id's row) of the shifted ids."""
        ids = self.shifted.to(torch.int64)
        distinct = int(torch.unique(ids).numel())
        start = ids * row_bytes
        sectors = int(((start + row_bytes - 1) // SECTOR - start // SECTOR + 1).sum())
        return distinct, sectors


def _first_line(e):
    return "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:200])


#===------------------------------------------------------------------------------------------===#
# emb and the peers
#===------------------------------------------------------------------------------------------===#

def emb_f16(x):
    return torch.ops.emb.tbe_forward(x.f16_views, x.feature_table, x.indices, x.offsets, None,
                                     "sum", "fatal", None, None)


def emb_quantized(x, p, out_dtype=torch.float16):
    T, D = x.s["T"], x.s["D"]
    return torch.ops.emb.tbe_forward_quantized(x.views[p], [CODES[p]] * T, [D] * T, x.feature_table,
                                               x.indices, x.offsets, None, "sum", "fatal", None,
                                               out_dtype)


def make_peer(form, bits, T, B, L, D):
    """The peer's lookup of one precision, in form "words", "bytes" or "ebag" (the module
    docstring): a function of (the packed table or its int32 view, shifted ids, offsets, 0..N-1)
    returning [B, T D] f16."""
    mask = (1 << bits) - 1

    def pooled(v):  # [T B L, D] f32 -> [B, T D] f16: the bag sums, in emb's output layout
        return v.view(T, B, L, D).sum(2).permute(1, 0, 2).reshape(B, T * D).to(torch.float16)

    def unpack_bytes(r):  # uint8 rows [n, rowBytes] -> f32 [n, D]
        scale = r[:, 0:2].view(torch.float16).float()
        bias = r[:, 2:4].view(torch.float16).float()
        b = r[:, 4:4 + D * bits // 8]
        if bits == 8:
            q = b
        else:
            q = torch.stack([(b >> s) & mask for s in range(0, 8, bits)], -1).reshape(-1, D)
        return q.float() * scale + bias

    def words(packed32, ids, offsets, arange_n):
        w = packed32.index_select(0, ids)  # [n, rowBytes / 4] int32
        h = w[:, 0]
        scale = (h & 0xFFFF).to(torch.int16).view(torch.float16).float()
        bias = (h >> 16).to(torch.int16).view(torch.float16).float()
        d = w[:, 1:1 + D * bits // 32]
        q = torch.stack([(d >> s) & mask for s in range(0, 32, bits)], -1).reshape(-1, D)
        return pooled(q.float() * scale[:, None] + bias[:, None])

    def bytes_(packed, ids, offsets, arange_n):
        return pooled(unpack_bytes(packed.index_select(0, ids)))

    def ebag(packed, ids, offsets, arange_n):
        v = unpack_bytes(packed.index_select(0, ids))
        o = F.embedding_bag(arange_n, v, offsets, mode="sum", include_last_offset=True)
        return o.view(T, B, D).permute(1, 0, 2).reshape(B, T * D).to(torch.float16)

    return {"words": words, "bytes": bytes_, "ebag": ebag}[form]


def decode_rows(rows, p, D):
    """Packed rows (uint8 [n, rowBytes], any device) as float64 [n, D]: exactly the values emb
    reads (fbgemm_ref.decode's arithmetic, in torch on the rows' device)."""
    n = rows.shape[0]
    if p == "fp8":
        table = torch.from_numpy(ref.E4M3).to(rows.device)
        scale = rows[:, 0:4].contiguous().view(torch.float32).view(n).double()
        return table[rows[:, 4:4 + D].long()] * scale[:, None]
    bits = ref.BITS[p]
    per = 8 // bits
    scale = rows[:, 0:2].contiguous().view(torch.float16).view(n).double()
    bias = rows[:, 2:4].contiguous().view(torch.float16).view(n).double()
    b = rows[:, 4:4 + D // per].long()
    q = torch.stack([(b >> (k * bits)) & (2 ** bits - 1) for k in range(per)], -1).view(n, D)
    return (scale[:, None] * q.double() + bias[:, None]).float().double()


def exact_pool(x, p):
    """The exact output of a lookup of precision p (or "f16"): the rows as emb reads them, summed
    in float64, feature by feature; [B, T D] float64 on the device, for the checks."""
    s = x.s
    B, T, L, D = s["B"], s["T"], s["L"], s["D"]
    out = torch.empty((B, T * D), dtype=torch.float64, device=x.dev)
    for t in range(T):
        ids = x.shifted[t * B * L:(t + 1) * B * L].to(torch.int64)
        if p == "f16":
            rows = x.w16.index_select(0, ids).double()
        else:
            rows = decode_rows(x.packed[p].index_select(0, ids), p, D)
        out[:, t * D:(t + 1) * D] = rows.view(B, L, D).sum(1)
    return out


def check(out, want):
    """A side's output against the exact one: ("ok" or what is wrong, the relative norm error);
    within CHECK_TOL is "ok" (f16 output: each element rounded once, 2^-11 relative)."""
    got = out.double()
    if not bool(torch.isfinite(got).all()):
        return "not finite", None
    e = float((got - want).norm() / want.norm().clamp(min=1e-30))
    return ("ok" if e <= CHECK_TOL else "rel err %.2e > %.0e" % (e, CHECK_TOL)), e


#===------------------------------------------------------------------------------------------===#
# Accuracy
#===------------------------------------------------------------------------------------------===#

def f16_ulps(a, b):
    """|a - b| in f16 ulps, elementwise (f16 tensors): the distance of their ordered bit
    patterns, +0 and -0 one value."""
    def ordered(t):
        i = t.contiguous().view(torch.int16).to(torch.int32) & 0xFFFF
        return torch.where(i >= 0x8000, 0x8000 - i, i)
    return (ordered(a) - ordered(b)).abs()


def cuda_vs_cpu(x, emit, log):
    """emb's device lookup against emb's CPU lookup of the same packed rows."""
    s, dev = x.s, x.dev
    T, D, L = s["T"], s["D"], s["L"]
    rows = min(ACC_ROWS, s["E"])
    B = min(ACC_B, s["B"])
    g = torch.Generator().manual_seed(40)
    ids = torch.randint(0, rows, (T * B * L,), generator=g).to(x.indices.dtype)
    offs = (torch.arange(T * B + 1) * L).to(x.indices.dtype)
    for p in ("f16",) + PRECISIONS:
        rec = dict(kind="cuda_vs_cpu", name=p, rows=rows, B=B)
        try:
            if p == "f16":
                tabs = [v[:rows] for v in x.f16_views]
                cpu = [t.cpu() for t in tabs]

                def run(ts, i, o, out_dtype):
                    return torch.ops.emb.tbe_forward(ts, x.feature_table, i, o, None, "sum",
                                                     "fatal", None, out_dtype)
            else:
                if p not in x.views:
                    raise RuntimeError("no %s tables" % p)
                tabs = [v[:rows] for v in x.views[p]]
                cpu = [t.cpu() for t in tabs]

                def run(ts, i, o, out_dtype, p=p):
                    return torch.ops.emb.tbe_forward_quantized(
                        ts, [CODES[p]] * T, [D] * T, x.feature_table, i, o, None, "sum", "fatal", None,
                        out_dtype)
            di, do = ids.to(dev), offs.to(dev)
            got16 = run(tabs, di, do, torch.float16).cpu()
            want16 = run(cpu, ids, offs, torch.float16)
            ulps = f16_ulps(got16, want16)
            got32 = run(tabs, di, do, torch.float32).cpu().double()
            want32 = run(cpu, ids, offs, torch.float32).double()
            rel = float(((got32 - want32).abs() / want32.abs().clamp(min=1e-6)).max())
            rec.update(max_ulp_f16=int(ulps.max()), mismatch_f16=int((ulps > 0).sum()),
                       elements=ulps.numel(), max_rel_f32=rel,
                       check="ok" if int(ulps.max()) <= 1 else "over 1 ulp")
        except Exception as e:  # noqa: BLE001: a refused precision is a record, not a crash
            rec.update(check="failed: %s" % _first_line(e))
        emit(**rec)
        log("# cuda_vs_cpu %-4s %s" % (p, {k: rec[k] for k in rec if k not in ("kind", "name")}))


def quant_error(dev, rows, emit, log):
    """emb's quantize_table against fbgemm_ref.quantize on a N(0, 1) table."""
    x = np.random.default_rng(39).standard_normal((rows, QERR_DIM), dtype=np.float32)
    xt = torch.from_numpy(x).to(dev)
    for p in PRECISIONS:
        rec = dict(kind="quant_error", name=p, rows=rows, dim=QERR_DIM)
        try:
            t0 = time.perf_counter()
            try:
                mine = torch.ops.emb.quantize_table(xt, p).cpu().numpy()
                rec["on"] = dev.type
            except Exception as e:  # noqa: BLE001: the device refuses: emb's CPU quantizer
                mine = torch.ops.emb.quantize_table(torch.from_numpy(x), p).numpy()
                rec["on"] = "cpu (%s refused: %s)" % (dev.type, _first_line(e))
            want = ref.quantize(x, p)
            emb_err = ref.row_errors(ref.decode(mine, p, QERR_DIM), x)
            ref_err = ref.row_errors(ref.decode(want, p, QERR_DIM), x)
            rec.update(emb_err=float(emb_err.mean()), ref_err=float(ref_err.mean()),
                       emb_err_max=float(emb_err.max()), ref_err_max=float(ref_err.max()),
                       ratio=float(emb_err.mean() / ref_err.mean()),
                       bytes_equal=float((mine == want).mean()),
                       seconds=round(time.perf_counter() - t0, 2))
            rec["check"] = "ok" if rec["ratio"] <= 2.0 else "over 2x the reference"
        except Exception as e:  # noqa: BLE001
            rec.update(check="failed: %s" % _first_line(e))
        emit(**rec)
        log("# quant_error %-4s %s" % (p, {k: rec[k] for k in rec if k not in ("kind", "name")}))


#===------------------------------------------------------------------------------------------===#
# Timing
#===------------------------------------------------------------------------------------------===#

class Side:
    """One timed side: `fn` calls it; a compiled peer has `raw` (the eager function of (table,
    ids, offsets, 0..N-1)) and `table`, compiled at its first call."""

    def __init__(self, name, impl, precision, fn=None, form=None, mode=None, raw=None,
                 table=None):
        self.name, self.impl, self.precision, self.fn = name, impl, precision, fn
        self.form, self.mode, self.raw, self.table = form, mode, raw, table
        self.compile_s = None
        self.check, self.err = "not checked", None
        self.reps, self.runs = 0, []


def build_sides(x, a):
    s = x.s
    T, B, L, D = s["T"], s["B"], s["L"], s["D"]
    sides = [Side("emb_f16", "emb", "f16", lambda: emb_f16(x))]
    for p in PRECISIONS:
        if p in x.views:
            sides.append(Side("emb_" + p, "emb", p, lambda p=p: emb_quantized(x, p)))
    compiled = not a.no_compile and not a.dry_run and hasattr(torch, "compile")
    for p, form in PEER_FORMS:
        if p not in x.packed:
            continue
        raw = make_peer(form, ref.BITS[p], T, B, L, D)
        table = x.words[p] if form == "words" else x.packed[p]
        sides.append(Side("torch_%s_%s" % (p, form), "torch", p, form=form,
                          mode="compile" if compiled else "eager", raw=raw, table=table))
    for p in EAGER:
        if p in x.packed and compiled:
            sides.append(Side("torch_%s_eager" % p, "torch", p, form="bytes", mode="eager",
                              raw=make_peer("bytes", ref.BITS[p], T, B, L, D),
                              table=x.packed[p]))
    sides.append(Side("torch_f16_ebag", "torch", "f16",
                      lambda: F.embedding_bag(x.shifted, x.w16, x.offsets, mode="sum",
                                              include_last_offset=True), "ebag", "eager"))
    if a.only:
        want = set(a.only.split(","))
        sides = [sd for sd in sides if sd.name in want]
    return sides


class Compiler:
    """torch.compile for the peers: --peer-mode until --compile-budget seconds of compiling are
    spent or the deadline has passed, then the default mode."""

    def __init__(self, a, deadline_at):
        self.mode, self.budget, self.deadline_at = a.peer_mode, a.compile_budget, deadline_at
        self.spent = 0.0

    def prepare(self, side, x):
        """Sets side.fn (and side.mode) for a peer with `raw`."""
        def bind(fn):
            return lambda: fn(side.table, x.shifted, x.offsets, x.arange_n)
        if side.raw is None:
            return
        if side.mode != "compile":
            side.fn = bind(side.raw)
            return
        late = self.spent >= self.budget or time.perf_counter() > self.deadline_at
        side.mode = "default" if late or self.mode == "default" else self.mode
        kw = {} if side.mode == "default" else {"mode": side.mode}
        side.fn = bind(torch.compile(side.raw, dynamic=False, **kw))


def first_call(side, x, want, compiler, log):
    """The side's first call (a compiled peer compiles here), timed, and its check; a compile
    that fails leaves the eager form, said in `mode`. False when the side cannot run."""
    if side.name in OPTIONAL and time.perf_counter() > compiler.deadline_at:
        side.check = "skipped: past the deadline"
        log("# %s: %s" % (side.name, side.check))
        return False
    if (side.raw is not None and side.mode == "compile" and side.form in ("bytes", "ebag")
            and side.table.numel() >= 1 << 31):
        # On torch 2.11 (H100, 2026-12-05) Inductor's kernel for these forms read a uint8 table
        # of more than 2^31 elements wrongly (int4: sums not finite) or out of bounds (int8: an
        # illegal address, which ends every later CUDA call of the process): 32-bit indexing.
        # The words form (int32, a quarter of the elements) is the compiled peer there.
        side.check = ("skipped: compiled over a uint8 table of %d elements (2^31 or more), "
                      "which Inductor indexes in 32 bits" % side.table.numel())
        log("# %s: %s" % (side.name, side.check))
        return False
    compiler.prepare(side, x)
    t0 = time.perf_counter()
    try:
        out = side.fn()
        x.sync()
    except Exception as e:  # noqa: BLE001
        if side.raw is None or side.mode == "eager":
            side.check = "failed: %s" % _first_line(e)
            log("# %s: %s" % (side.name, side.check))
            return False
        side.mode = "eager (compile failed: %s)" % _first_line(e)
        raw = side.raw
        side.fn = lambda: raw(side.table, x.shifted, x.offsets, x.arange_n)
        out = side.fn()
        x.sync()
    side.compile_s = round(time.perf_counter() - t0, 2)
    if side.raw is not None and side.mode != "eager" and not side.mode.startswith("eager"):
        compiler.spent += side.compile_s
    if side.name == "torch_f16_ebag":  # [T B, D]: into emb's layout for the check
        s = x.s
        out = out.view(s["T"], s["B"], s["D"]).permute(1, 0, 2).reshape(s["B"], -1)
    side.check, side.err = check(out, want[side.precision])
    log("# %-18s first call %7.2f s (%s), check %s" % (side.name, side.compile_s,
                                                        side.mode or "-", side.check))
    return True


def l2_fetch_limit(limit):
    """Sets L2's fetch granularity limit (cudaLimitMaxL2FetchGranularity) to `limit` bytes unless
    0, and returns the limit in force, as the CUDA runtime of the process reads it."""
    cudart = ctypes.CDLL("libcudart.so.13")  # the one already loaded: torch's and emb's
    if limit and cudart.cudaDeviceSetLimit(5, ctypes.c_size_t(limit)) != 0:
        raise RuntimeError("cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, %d) failed" % limit)
    value = ctypes.c_size_t(0)
    if cudart.cudaDeviceGetLimit(ctypes.byref(value), 5) != 0:
        raise RuntimeError("cudaDeviceGetLimit(cudaLimitMaxL2FetchGranularity) failed")
    return value.value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="JSON lines (written anew)")
    ap.add_argument("--lib", default=None, help="libembrt.so (else emb_torch's search)")
    ap.add_argument("--commit", default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--run-ms", type=float, default=RUN_MS)
    ap.add_argument("--max-reps", type=int, default=MAX_REPS)
    ap.add_argument("--only", default="", help="sides to time, comma separated (default all)")
    ap.add_argument("--index-dtype", choices=("int32", "int64"), default="int32")
    ap.add_argument("--peer-mode", default="max-autotune-no-cudagraphs")
    ap.add_argument("--compile-budget", type=float, default=90.0,
                    help="compile seconds past which the peers compile in the default mode")
    ap.add_argument("--no-compile", action="store_true", help="the peers eager")
    ap.add_argument("--deadline", type=float, default=1e9,
                    help="seconds after the start past which no more peers compile in "
                         "--peer-mode and the runs are cut to one")
    ap.add_argument("--l2-fetch-limit", type=int, default=0,
                    help="L2's fetch granularity limit in bytes, set once emb's context exists "
                         "(0: emb's own, 32; 64 is the driver's default on the H100)")
    ap.add_argument("--dry-run", action="store_true", help="CPU, tiny shapes")
    for k in SHAPE:
        ap.add_argument("--" + k, type=int, default=None)
    a = ap.parse_args()
    start = time.perf_counter()
    deadline_at = start + a.deadline
    dev = torch.device("cpu" if a.dry_run else "cuda")
    import emb_torch
    if a.lib:
        emb_torch.runtime(a.lib)
    shape = dict(DRY_SHAPE if a.dry_run else SHAPE)
    for k in SHAPE:
        if getattr(a, k) is not None:
            shape[k] = getattr(a, k)
    index_dtype = getattr(torch, a.index_dtype)
    commit = commit_id(a.commit)
    device = torch.cuda.get_device_name() if dev.type == "cuda" else "cpu (dry run)"
    common = dict(device=device, torch=torch.__version__, commit=commit, date=today(),
                  dry_run=a.dry_run, index_dtype=a.index_dtype, out_dtype="f16", pooling="sum",
                  **shape)
    out = open(a.out, "w")

    def emit(**rec):
        rec.update(common)
        out.write(json.dumps(rec) + "\n")
        out.flush()
        return rec

    def log(msg):
        print("%s (%.0f s)" % (msg, time.perf_counter() - start), flush=True)

    timer = Timer(dev)
    copy = copy_gbps(timer, dev, COPY_BYTES if dev.type == "cuda" else 64 << 20)
    emit(kind="copy", name="copy", gbps=round(copy, 1),
         bytes=COPY_BYTES if dev.type == "cuda" else 64 << 20)
    log("# %s, torch %s, copy %.0f GB/s, shape %s, %s ids" % (device, torch.__version__, copy,
                                                              shape, a.index_dtype))
    quant_error(dev, QERR_ROWS if not a.dry_run else 2000, emit, log)

    x = Inputs(shape, dev, index_dtype, emit, log)
    log("# tables and ids ready: %d ids" % x.N)
    cuda_vs_cpu(x, emit, log)
    if dev.type == "cuda":  # emb's context exists now: it set the limit when it was made
        common["l2_fetch_limit"] = l2_fetch_limit(a.l2_fetch_limit)
        log("# L2 fetch granularity limit %d bytes" % common["l2_fetch_limit"])
    want = {p: exact_pool(x, p) for p in ("f16",) + tuple(x.packed)}
    log("# exact outputs ready")

    compiler = Compiler(a, deadline_at)
    all_sides = build_sides(x, a)
    sides = [sd for sd in all_sides if first_call(sd, x, want, compiler, log)]
    del want
    runs = a.runs if not a.dry_run else 1
    reps_max = a.max_reps if not a.dry_run else 1
    for sd in sides:
        sd.reps = calls_per_run(timer.warm_up(sd.fn, WARMUP_MS), a.run_ms, reps_max)
    for r in range(runs):
        if r > 0 and time.perf_counter() > deadline_at:
            log("# deadline: %d runs a side, not %d" % (r, runs))
            break
        for sd in sides:
            sd.runs.append(statistics.median(timer.times(sd.fn, sd.reps)))
    log("# timed %d sides" % len(sides))

    s = shape
    idx_bytes = x.indices.element_size()
    fixed = x.N * idx_bytes + (s["T"] * s["B"] + 1) * idx_bytes + s["B"] * s["T"] * s["D"] * 2
    counts = {}
    for sd in all_sides:
        base = dict(kind="lookup", name=sd.name, impl=sd.impl, precision=sd.precision,
                    form=sd.form, mode=sd.mode, check=sd.check)
        if not sd.runs:
            emit(ms=None, **base)
            log("%-18s not timed: %s" % (sd.name, sd.check))
            continue
        rb = 2 * s["D"] if sd.precision == "f16" else ref.row_bytes(sd.precision, s["D"])
        if rb not in counts:
            counts[rb] = x.row_counts(rb)
        distinct, sectors = counts[rb]
        nbytes = x.N * rb + fixed
        ms = statistics.median(sd.runs)
        gbps = nbytes / ms / 1e6
        rec = emit(ms=round(ms, 5), ms_runs=[round(v, 5) for v in sd.runs], reps=sd.reps,
                   row_bytes=rb, bytes=int(nbytes), bytes_distinct=int(distinct * rb + fixed),
                   sector_bytes=int(sectors * SECTOR + fixed), gbps=round(gbps, 1),
                   copy_gbps=round(copy, 1), bw_fraction=round(gbps / copy, 4),
                   sector_fraction=round((sectors * SECTOR + fixed) / ms / 1e6 / copy, 4),
                   rel_err=sd.err, compile_s=sd.compile_s, **base)
        log("%-18s %9.4f ms %7.1f GB/s %5.1f%% copy (sectors %5.1f%%)  %s  %s" % (
            rec["name"], rec["ms"], rec["gbps"], 100 * rec["bw_fraction"],
            100 * rec["sector_fraction"], rec["check"], rec["mode"] or ""))
    out.close()
    log("# done")


if __name__ == "__main__":
    main()
