"""Times emb's TBE forward and training step against the torch peers on gen.py's configurations.

    PYTHONUNBUFFERED=1 python3 bench/tbe_sweep/sweep.py --out $OUT/tbe_sweep.jsonl \
        [--configs bench/tbe_sweep/configs.json] [--slice I/N] [--only 3,17] [--resume 'runs/*.jsonl']
        [--deadline SECONDS] [--runs 3] [--commit SHA]
    PYTHONPATH=/tmp/shim:python python3 bench/tbe_sweep/sweep.py --dry-run --out /tmp/dry.jsonl

For each configuration (or the slice I of N: configurations I-1, I-1+N, ..., so that every slice is
a cross-section of the set): lengths, ids and weights drawn on the device from the configuration's
seed; the tables one buffer per D (emb's tables are views of it, so emb and the peer read the same
memory and a configuration needs its tables once); then, three runs a side in this call, each run
the median of `reps` CUDA-event timed calls with L2 flushed (a 256 MiB write) before each:

  emb forward   torch.ops.emb.tbe_forward (every table, one launch; output in the tables' dtype)
  peer forward  one F.embedding_bag over the concatenated tables of each D (ids shifted by each
                table's first row), output left as embedding_bag gives it ([T_D * B, D] a D, not
                rearranged to emb's [B, sum of D]: the peer is spared that copy)
  emb step      the forward, then torch.ops.emb.tbe_backward_rowwise_adagrad with a fixed gradient
  peer step     each D's embedding_bag, then a hand-written exact rowwise Adagrad in torch under
                torch.compile (dynamic shapes): each position's bag (searchsorted) and torch.unique
                of the ids eagerly, then compiled: each position's gradient row (scaled by its
                weight, or by 1 / its bag's length for mean), index_add_ of the rows into the
                distinct ids, state += mean(g^2), row -= lr * g / (sqrt(state) + eps)

Before the runs each side is called for 25 ms and at least twice (the first call compiles), and
checked: emb's forward output against the peer's (relative norm error), and, where the tables are
small enough to copy, one step of each from the same tables (updated rows and state). The copy
bandwidth is measured at the start of the call (a 1 GiB device-to-device copy, bytes read plus
written). The timer, the warm-up, the size of a run and the copy bandwidth are bench/common's
(bench_peers.py: Timer, calls_per_run, copy_gbps).

Writes one JSON line per configuration and op (forward, step): the shape fields, ms (median of the
runs' medians), ms_runs, peer, peer_ms, peer_ms_runs, ratio (peer_ms / ms), bytes (byte_model.py,
the distinct rows counted from the drawn ids), gbps, copy_gbps, bw_fraction (gbps / copy_gbps),
bytes_per_id (forward: the same bytes with a row read for every id), check, commit (--commit,
else bench_results.commit_id's). report.py merges the lines into bench/results/tbe_sweep.json and
prints the table.

A configuration whose tables and transients do not fit the device's free memory (the set is sized
for an H200's 139 GiB; on an 80 GB H100 about two thirds fit) is not run and writes no line: a
later run on a larger device with --resume over these lines runs just those.

--dry-run: on the CPU (emb's CPU runtime, torch without compile), every configuration shrunk (at most
6 tables, B 16, 500 rows, pooling factor 6), one rep a run: checks the driver end to end and the
peer's Adagrad against emb's reference. --shrink: the same shapes on the GPU (a smoke test there).
Records of either say dry_run: true and are no measurement.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "common"))
import byte_model as bm  # noqa: E402
import gen  # noqa: E402
from bench_peers import Timer, copy_gbps, calls_per_run  # noqa: E402
from bench_results import commit_id, load_jsonl, today  # noqa: E402

DTYPES = {"fp16": torch.float16, "fp32": torch.float32}
LR, EPS = 0.01, 1e-8
HEAVY_SHAPE, MAX_LEN = 1.5, 300   # as byte_model.heavy_mean_length
COPY_BYTES = 1 << 30
WARMUP_MS = 25.0                  # calls before the runs: at least this long, at least 2 calls
RUN_BUDGET_MS = 100.0             # timed calls a run: about this long, 3 to MAX_REPS calls
MAX_REPS = 50
CHECK_TABLE_BYTES = 2 << 30       # the step is checked where the tables copy in this much
TOL = {"fp16": 2e-2, "fp32": 1e-3}


#===------------------------------------------------------------------------------------------===#
# Inputs
#===------------------------------------------------------------------------------------------===#

def shrink(c):
    """A tiny configuration of the same kind, for --dry-run on the CPU."""
    c = dict(c)
    keep = sorted(range(len(c["D"])), key=lambda t: c["D"][t])[:6]
    for k in ("D", "E", "L", "lengths"):
        c[k] = [c[k][t] for t in keep]
    c["E"] = [min(E, 500) for E in c["E"]]
    c["L"] = [min(L, 6) for L in c["L"]]
    c["B"] = 16
    return c


def coprime_multiplier(E):
    """A multiplier of ranks that is a bijection mod E: hot rows land spread over the table."""
    a = 0x9E3779B1 % E or 1
    while math.gcd(a, E) != 1:
        a += 1
    return a


def draw_lengths(g, B, L, kind, dev):
    if kind == "fixed":
        return torch.full((B,), L, dtype=torch.int64, device=dev)
    if kind == "uniform":  # 0..2L, mean L
        return torch.randint(0, 2 * L + 1, (B,), generator=g, device=dev, dtype=torch.int64)
    # heavy: floor(L * X), X Pareto(1.5) of mean 1, capped (byte_model.heavy_mean_length)
    u = torch.rand(B, generator=g, device=dev, dtype=torch.float64)
    xm = (HEAVY_SHAPE - 1.0) / HEAVY_SHAPE
    x = xm * u.pow(-1.0 / HEAVY_SHAPE)
    return torch.floor(L * x).clamp(max=MAX_LEN).to(torch.int64)


def draw_ids(g, E, n, alpha, dev):
    if alpha is None:
        return torch.randint(0, E, (n,), generator=g, device=dev, dtype=torch.int64)
    # Rank by the inverse CDF of the bounded power law on [1, E + 1) (byte_model's p_k), then the
    # rank scattered over the table by a bijection.
    u = torch.rand(n, generator=g, device=dev, dtype=torch.float64)
    b = 1.0 - alpha
    x = torch.exp(torch.log1p(u * math.expm1(b * math.log(E + 1.0))) / b)
    rank = torch.floor(x).to(torch.int64).clamp(1, E) - 1
    return (rank * coprime_multiplier(E) + E // 3) % E


class Inputs:
    """One configuration's tensors on the device, for emb and for the peer."""

    def __init__(self, c, dev):
        self.c = c
        g = torch.Generator(device=dev)
        g.manual_seed(c["seed"])
        dtype = DTYPES[c["dtype"]]
        B, T = c["B"], len(c["D"])
        alpha = c["alpha"] if c["ids"] == "zipf" else None
        lengths = [draw_lengths(g, B, L, k, dev) for L, k in zip(c["L"], c["lengths"])]
        counts = [int(x.sum()) for x in lengths]
        ids = [draw_ids(g, E, n, alpha, dev) for E, n in zip(c["E"], counts)]
        self.N = sum(counts)
        self.indices = torch.cat(ids)
        self.offsets = torch.zeros(T * B + 1, dtype=torch.int64, device=dev)
        torch.cumsum(torch.cat(lengths), 0, out=self.offsets[1:])
        self.psw = (torch.rand(self.N, generator=g, device=dev, dtype=torch.float32).to(dtype)
                    if c["weighted"] else None)
        self.grad = torch.randn(B, sum(c["D"]), generator=g, device=dev, dtype=torch.float32).to(dtype)
        # The tables: one buffer (and one state vector) per D; emb's tables are views of it.
        self.weights, self.momentum, self.groups = [], [], []
        col, t = 0, 0
        while t < T:
            D = c["D"][t]
            t1 = t
            while t1 < T and c["D"][t1] == D:
                t1 += 1
            rows = c["E"][t:t1]
            W = torch.empty(sum(rows), D, dtype=dtype, device=dev).uniform_(-0.05, 0.05)
            M = torch.zeros(sum(rows), dtype=torch.float32, device=dev)
            base = 0
            bases = []
            for E in rows:
                self.weights.append(W[base:base + E])
                self.momentum.append(M[base:base + E])
                bases.append(base)
                base += E
            p0, p1 = int(self.offsets[t * B]), int(self.offsets[t1 * B])
            shift = torch.repeat_interleave(
                torch.tensor(bases, dtype=torch.int64, device=dev),
                torch.tensor(counts[t:t1], dtype=torch.int64, device=dev))
            grp = dict(t0=t, t1=t1, D=D, W=W, M=M, bases=bases,
                       ids=self.indices[p0:p1] + shift,
                       offsets=self.offsets[t * B:t1 * B + 1] - p0,
                       psw=self.psw[p0:p1] if self.psw is not None else None,
                       # the peer's gradient: emb's columns of these tables, [T_D * B, D]
                       grad=self.grad[:, col:col + (t1 - t) * D].reshape(B, t1 - t, D)
                       .transpose(0, 1).reshape((t1 - t) * B, D).contiguous(),
                       cols=(col, col + (t1 - t) * D))
            self.groups.append(grp)
            col += (t1 - t) * D
            t = t1
        self.feature_table = list(range(T))
        self.hyper = torch.tensor([LR, EPS, 0.9, 0.999, 0.0], dtype=torch.float32, device=dev)
        self.step_count = torch.zeros(1, dtype=torch.int64, device=dev)

    def stats(self):
        """Distinct rows of each table (exact), ids of each table, and how the positions fall
        into runs of one row (the backward's segments: short under 4, long past 256)."""
        distinct, per_table, short, long_pos = [], [], 0, 0
        for grp in self.groups:
            # the shifted ids of a group's tables never collide: a table's distinct rows are the
            # distinct shifted ids from its first row on
            uniq, cnt = torch.unique(grp["ids"], return_counts=True)
            bases = torch.tensor(grp["bases"], dtype=torch.int64, device=uniq.device)
            table = torch.bucketize(uniq, bases, right=True) - 1
            nt = grp["t1"] - grp["t0"]
            distinct += [int(v) for v in torch.bincount(table, minlength=nt)[:nt]]
            per_table += [int(v) for v in torch.bincount(table, weights=cnt.double(),
                                                         minlength=nt)[:nt]]
            short += int((cnt < 4).sum())
            long_pos += int(cnt[cnt > 256].sum())
        return distinct, per_table, short, long_pos


#===------------------------------------------------------------------------------------------===#
# emb and the peers
#===------------------------------------------------------------------------------------------===#

def emb_forward(x):
    c = x.c
    return torch.ops.emb.tbe_forward(x.weights, x.feature_table, x.indices, x.offsets, x.psw,
                                     c["pooling"], "fatal", None, None)


def emb_step(x, weights=None, momentum=None):
    c = x.c
    weights = weights if weights is not None else x.weights
    momentum = momentum if momentum is not None else x.momentum
    torch.ops.emb.tbe_forward(weights, x.feature_table, x.indices, x.offsets, x.psw,
                              c["pooling"], "fatal", None, None)
    torch.ops.emb.tbe_backward_rowwise_adagrad(weights, momentum, x.hyper, x.step_count,
                                               x.feature_table, x.indices, x.offsets, x.psw,
                                               x.grad, c["pooling"], "fatal", None, c["seed"], [])


def peer_forward(x):
    return [F.embedding_bag(grp["ids"], grp["W"], grp["offsets"], mode=x.c["pooling"],
                            per_sample_weights=grp["psw"], include_last_offset=True)
            for grp in x.groups]


def adagrad_apply(W, M, uniq, inv, bag, psw, length, grad, lr: float, eps: float):
    """The update of exact rowwise Adagrad once the distinct rows are known: each position's
    gradient row (times its weight, or over its bag's length for mean), summed into its distinct
    row, then state += mean(g^2) and row -= lr * g / (sqrt(state) + eps). This is the part
    torch.compile fuses (the gather, the scaling and the scatter-add in one kernel)."""
    rows = grad.float()[bag]
    if psw is not None:
        rows = rows * psw.float()[:, None]
    elif length is not None:
        rows = rows / length[bag][:, None]
    g = torch.zeros(uniq.numel(), W.shape[1], dtype=torch.float32, device=W.device)
    g.index_add_(0, inv, rows)
    state = M[uniq] + g.pow(2).mean(1)
    M[uniq] = state
    W[uniq] = (W[uniq].float() - (lr / (state.sqrt() + eps))[:, None] * g).to(W.dtype)


def rowwise_adagrad(W, M, ids, offsets, psw, grad, mean, lr, eps, apply=adagrad_apply):
    """Exact rowwise Adagrad on the rows an embedding_bag read (FBGEMM's EXACT_ROWWISE_ADAGRAD),
    each distinct row once. The bag of each position (a binary search of the offsets) and the
    distinct rows (a sort) run eagerly: they are one library kernel either way, and with them
    inside the compiled function (dynamic shapes, output sizes captured) torch 2.11's compiled
    code failed a bound check of its gather (a device-side assert) at the sweep's first
    configuration."""
    pos = torch.arange(ids.numel(), device=ids.device)
    bag = torch.searchsorted(offsets, pos, right=True) - 1
    length = ((offsets[1:] - offsets[:-1]).clamp(min=1).float()
              if mean and psw is None else None)
    uniq, inv = torch.unique(ids, return_inverse=True)
    apply(W, M, uniq, inv, bag, psw, length, grad, lr, eps)


class Peer:
    """The peer's step: embedding_bag, then rowwise_adagrad with its update (adagrad_apply)
    compiled (dynamic shapes) where torch.compile is."""

    def __init__(self, compile_it):
        self.apply = adagrad_apply
        self.compiled = False
        self.note = "eager"
        if compile_it and hasattr(torch, "compile"):
            try:
                import torch._dynamo as dynamo
                # one graph per table dtype and scaling (weights, mean, none): room for them all
                for name in ("recompile_limit", "cache_size_limit"):
                    if hasattr(dynamo.config, name):
                        setattr(dynamo.config, name, max(getattr(dynamo.config, name), 64))
                self.apply = torch.compile(adagrad_apply, dynamic=True)
                self.compiled = True
                self.note = "compiled"
            except Exception as e:  # noqa: BLE001: the eager update, said in the records
                self.fallback(e)

    def warm(self, configs, dev):
        """Compiles the update for each kind of configuration in `configs` (table dtype, and
        weights, mean or neither) on its shrunk shape, before any full-size tables take the
        device's memory: compiling next to a configuration sized to fill an H200 ran out of
        memory. Dynamic shapes: the full-size calls reuse these graphs."""
        if not self.compiled:
            return
        kinds = {}
        for c in configs:
            kinds.setdefault((c["dtype"], c["weighted"], c["pooling"] == "mean"), c)
        try:
            for c in kinds.values():
                x = Inputs(shrink(c), dev)
                self.step(x)
                del x
        except Exception as e:  # noqa: BLE001: the eager update, said in the records
            self.fallback(e)
        torch.cuda.empty_cache()

    def fallback(self, err):
        """A compile failure leaves the eager update (the record says so)."""
        self.apply = adagrad_apply
        self.compiled = False
        self.note = "eager (compile failed: %s)" % str(err).splitlines()[0][:120]

    def step(self, x, groups=None):
        for grp in (groups or x.groups):
            F.embedding_bag(grp["ids"], grp["W"], grp["offsets"], mode=x.c["pooling"],
                            per_sample_weights=grp["psw"], include_last_offset=True)
            rowwise_adagrad(grp["W"], grp["M"], grp["ids"], grp["offsets"], grp["psw"],
                            grp["grad"], x.c["pooling"] == "mean", LR, EPS, self.apply)


#===------------------------------------------------------------------------------------------===#
# Checks
#===------------------------------------------------------------------------------------------===#

def _sums(a, b, base=None):
    """(||x - y||^2, ||y||^2) for x = a - base, y = b - base, in f64 over chunks of 16M elements
    (the whole tables would not fit twice more in f64)."""
    rows = max(1, (1 << 24) // max(1, a[0].numel() if a.dim() > 1 and a.shape[0] else 1))
    num = den = 0.0
    for i in range(0, a.shape[0], rows):
        x, y = a[i:i + rows].double(), b[i:i + rows].double()
        if base is not None:
            z = base[i:i + rows].double()
            x, y = x - z, y - z
        num += float(((x - y) ** 2).sum())
        den += float((y ** 2).sum())
    return num, den


def _rel(num, den):
    return math.sqrt(num / den) if den > 0 else math.sqrt(num)


def check_forward(x):
    """emb's output against the peer's, table by table ([B, D] columns against [B, D] rows)."""
    out = emb_forward(x)
    B = x.c["B"]
    if not torch.isfinite(out).all():
        return "forward: not finite"
    num = den = 0.0
    for grp, o in zip(x.groups, peer_forward(x)):
        a, D = grp["cols"][0], grp["D"]
        for k in range(grp["t1"] - grp["t0"]):
            n, d = _sums(out[:, a + k * D:a + (k + 1) * D], o[k * B:(k + 1) * B])
            num, den = num + n, den + d
    e = _rel(num, den)
    return "ok" if e <= TOL[x.c["dtype"]] else "forward: rel err %.2e" % e


def check_step(x, peer):
    """One step of each from copies of the same tables: every row's change, and the state."""
    tables = sum(grp["W"].numel() * grp["W"].element_size() + grp["M"].numel() * 4
                 for grp in x.groups)
    if tables > CHECK_TABLE_BYTES:
        return "not checked (tables %.1f GiB)" % (tables / 2**30)
    W0 = [grp["W"].clone() for grp in x.groups]
    M0 = [grp["M"].clone() for grp in x.groups]
    # emb on copies (views of the copied buffers, as x.weights are of the originals)
    ew, em = [], []
    for grp, W, M in zip(x.groups, W0, M0):
        Wc, Mc = W.clone(), M.clone()
        base = 0
        for E in x.c["E"][grp["t0"]:grp["t1"]]:
            ew.append(Wc[base:base + E])
            em.append(Mc[base:base + E])
            base += E
        grp["emb_W"], grp["emb_M"] = Wc, Mc
    emb_step(x, ew, em)
    pg = [dict(grp, W=W.clone(), M=M.clone()) for grp, W, M in zip(x.groups, W0, M0)]
    peer.step(x, pg)
    worst_w = worst_m = 0.0
    for grp, p, W in zip(x.groups, pg, W0):
        worst_w = max(worst_w, _rel(*_sums(grp.pop("emb_W"), p["W"], W)))
        worst_m = max(worst_m, _rel(*_sums(grp.pop("emb_M"), p["M"])))
    tol = TOL[x.c["dtype"]]
    if worst_w <= tol * 5 and worst_m <= 1e-3:  # f16 rows: emb rounds stochastically, torch to nearest
        return "ok"
    return "step: rows rel err %.2e, state %.2e" % (worst_w, worst_m)


#===------------------------------------------------------------------------------------------===#
# The sweep
#===------------------------------------------------------------------------------------------===#

def select(configs, slice_arg, only):
    if only:
        want = set(int(s) for s in only.split(",") if s)
        return [c for c in configs if c["id"] in want]
    if slice_arg:
        i, n = (int(s) for s in slice_arg.split("/"))
        if not 1 <= i <= n:
            raise SystemExit("--slice %s: must be I/N with 1 <= I <= N" % slice_arg)
        return configs[i - 1::n]
    return configs


def done_ids(pattern):
    ops = {}
    for r in load_jsonl(pattern, missing_ok=True) if pattern else []:
        if not r.get("dry_run"):
            ops.setdefault(r["config"], set()).add(r["op"])
    return set(k for k, v in ops.items() if {"forward", "step"} <= v)


def shape_fields(c, x, distinct, short, long_pos):
    dims = sorted(set(c["D"]))
    return dict(
        config=c["id"], seed=c["seed"], T=len(c["D"]), B=c["B"], dtype=c["dtype"],
        pooling=c["pooling"], weighted=c["weighted"], ids=c["ids"], alpha=c["alpha"],
        dims=dims, D_max=max(c["D"]), D_min=min(c["D"]), width=sum(c["D"]),
        E_total=sum(c["E"]), L_max=max(c["L"]),
        lengths={k: c["lengths"].count(k) for k in sorted(set(c["lengths"]))},
        N=x.N, L_mean=round(x.N / (len(c["D"]) * c["B"]), 3), distinct=sum(distinct),
        runs_short_frac=round(short / max(1, sum(distinct)), 4),
        pos_long_frac=round(long_pos / max(1, x.N), 4))


def run_config(c, dev, timer, peer, runs, reps_max, copy, run_ms=RUN_BUDGET_MS):
    x = Inputs(c, dev)
    distinct, per_table, short, long_pos = x.stats()
    esize = bm.ESIZE[c["dtype"]]
    fwd_bytes = bm.lookup_bytes(c["D"], distinct, c["B"], x.N, esize, c["weighted"])
    # A row read for every id (bench/tbe's count): what a lookup without deduplication moves.
    fwd_bytes_per_id = bm.lookup_bytes(c["D"], per_table, c["B"], x.N, esize, c["weighted"])
    step_bytes = bm.step_bytes(c["D"], distinct, c["B"], x.N, esize, c["weighted"])
    checks = {"forward": check_forward(x)}
    t0 = time.perf_counter()
    try:
        peer.step(x)
    except Exception as e:  # noqa: BLE001: a compile failure is recorded, not fatal
        if not peer.compiled:
            raise
        peer.fallback(e)
        peer.step(x)
    compile_s = time.perf_counter() - t0
    checks["step"] = check_step(x, peer)
    sides = [("forward", "emb", lambda: emb_forward(x)), ("forward", "peer", lambda: peer_forward(x)),
             ("step", "emb", lambda: emb_step(x)), ("step", "peer", lambda: peer.step(x))]
    reps = {}
    for op, impl, fn in sides:
        reps[op, impl] = calls_per_run(timer.warm_up(fn, WARMUP_MS), run_ms, reps_max)
    meds = {k: [] for k in reps}
    for _ in range(runs):
        for op, impl, fn in sides:
            meds[op, impl].append(statistics.median(timer.times(fn, reps[op, impl])))
    shape = shape_fields(c, x, distinct, short, long_pos)
    out = []
    for op, nbytes in (("forward", fwd_bytes), ("step", step_bytes)):
        ms = statistics.median(meds[op, "emb"])
        peer_ms = statistics.median(meds[op, "peer"])
        gbps = nbytes / ms / 1e6
        rec = dict(shape, op=op, impl="emb", ms=round(ms, 5),
                   ms_runs=[round(v, 5) for v in meds[op, "emb"]],
                   peer=("torch embedding_bag per D" if op == "forward" else
                         "torch embedding_bag per D + rowwise Adagrad (%s)" % peer.note),
                   peer_ms=round(peer_ms, 5), peer_ms_runs=[round(v, 5) for v in meds[op, "peer"]],
                   ratio=round(peer_ms / ms, 4), bytes=int(nbytes), gbps=round(gbps, 1),
                   copy_gbps=round(copy, 1), bw_fraction=round(gbps / copy, 4),
                   reps=reps[op, "emb"], peer_reps=reps[op, "peer"], check=checks[op])
        if op == "forward":
            rec["bytes_per_id"] = int(fwd_bytes_per_id)
        if op == "step":
            rec["peer_first_call_s"] = round(compile_s, 2)
        out.append(rec)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", default=os.path.join(HERE, "configs.json"))
    ap.add_argument("--out", required=True, help="JSON lines, appended")
    ap.add_argument("--slice", default=None, help="I/N: configurations I-1, I-1+N, ...")
    ap.add_argument("--only", default="", help="configuration ids, comma separated")
    ap.add_argument("--resume", default=None, help="glob of earlier JSON lines: skip what they hold")
    ap.add_argument("--deadline", type=float, default=1e9,
                    help="seconds after the start past which no configuration is started")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max-reps", type=int, default=MAX_REPS)
    ap.add_argument("--run-ms", type=float, default=RUN_BUDGET_MS,
                    help="timed calls a run: about this many ms of them (at least 3 calls)")
    ap.add_argument("--no-compile", action="store_true", help="the peer's update eager")
    ap.add_argument("--dry-run", action="store_true", help="CPU, shrunk configurations")
    ap.add_argument("--shrink", action="store_true",
                    help="shrunk configurations on the GPU (a smoke test of the driver there)")
    ap.add_argument("--lib", default=None, help="libembrt.so (else emb_torch's search)")
    ap.add_argument("--commit", default=None)
    a = ap.parse_args()
    start = time.perf_counter()
    dev = torch.device("cpu" if a.dry_run else "cuda")
    import emb_torch
    if a.lib:
        emb_torch.runtime(a.lib)
    commit = commit_id(a.commit)
    with open(a.configs) as f:
        doc = json.load(f)
    todo = select(doc["configs"], a.slice, a.only)
    skip = done_ids(a.resume)
    todo = [c for c in todo if c["id"] not in skip]
    if a.dry_run or a.shrink:
        todo = [shrink(c) for c in todo]
    timer = Timer(dev)
    device = torch.cuda.get_device_name() if dev.type == "cuda" else "cpu (dry run)"
    copy = copy_gbps(timer, dev, COPY_BYTES if dev.type == "cuda" else 64 << 20)
    print("# %s, torch %s, copy %.0f GB/s, %d configurations to run (%d skipped as done)"
          % (device, torch.__version__, copy, len(todo), len(skip)), flush=True)
    peer = Peer(not a.no_compile and not a.dry_run)
    if dev.type == "cuda" and not a.shrink:
        peer.warm(todo, dev)
        print("# peer update: %s" % peer.note, flush=True)
    date = today()
    left, too_big = [], []
    with open(a.out, "a") as out:
        for i, c in enumerate(todo):
            if time.perf_counter() - start > a.deadline:
                left = [d["id"] for d in todo[i:]]
                break
            if dev.type == "cuda" and not a.shrink:
                torch.cuda.empty_cache()
                free = torch.cuda.mem_get_info(dev)[0]
                if not gen.fits(c, free):
                    print("# config %d needs %.1f GiB, %.1f GiB free: not run here" % (
                        c["id"], (c["table_bytes"] + c["mem_bytes"]) / 2**30, free / 2**30),
                        flush=True)
                    too_big.append(c["id"])
                    continue
            t = time.perf_counter()
            try:
                recs = run_config(c, dev, timer, peer, a.runs if not a.dry_run else 1,
                                  a.max_reps if not a.dry_run else 1, copy, a.run_ms)
            except Exception as e:  # noqa: BLE001: out of memory, a failed op: say so, go on
                print("# config %d FAILED: %s: %s" % (c["id"], type(e).__name__,
                                                      (str(e).splitlines() or [""])[0][:200]),
                      flush=True)
                recs = []
            for r in recs:
                r.update(device=device, torch=torch.__version__, commit=commit, date=date,
                         configs_seed=doc["seed"], dry_run=a.dry_run or a.shrink)
                out.write(json.dumps(r) + "\n")
            out.flush()
            if dev.type == "cuda":
                torch.cuda.empty_cache()
            for r in recs:
                print("config %3d %-7s T %3d B %5d %s %-4s L %6.1f emb %9.4f ms peer %9.4f ms "
                      "x%-7.2f %5.1f%% copy  %s  (%.1f s)" % (
                          r["config"], r["op"], r["T"], r["B"], r["dtype"], r["pooling"],
                          r["L_mean"], r["ms"], r["peer_ms"], r["ratio"],
                          100 * r["bw_fraction"], r["check"], time.perf_counter() - t), flush=True)
    if left:
        print("# deadline: %d configurations not started: %s" % (len(left), ",".join(map(str, left))))
    if too_big:
        print("# %d configurations larger than this device's memory, for a larger one (--resume): "
              "%s" % (len(too_big), ",".join(map(str, too_big))))
    print("# %.0f s" % (time.perf_counter() - start))


if __name__ == "__main__":
    main()
