"""A model of emb-compile --shared called from PyTorch (emb_torch.load) against the same shared
object run by emb-run-shared, on the same inputs (bench/pytorch_load/run.sh runs both in one
call; NOTES.md says what is measured and the bar).

    bench.py --model ranking_model_cuda.so --inputs a.npy,b.npy,... --lib libembrt.so \\
        --device cuda --expect DIR --peer-log emb_run.txt --runs 3 --json out.json

1. The inputs (.npy files as bench/e2e/ranking.py gen writes them, its sparse tables included,
   read by bench/e2e/npy_io.py) are moved to the device; the model is loaded with emb_torch.load.
2. One call, checked against the results emb-run-shared --output-dir wrote for the same inputs
   (--expect DIR: <entry>.result<i>.npy), per-dtype tolerances.
3. Timed as emb-run-shared --repeat times (tools/emb-run/runner.c, timeSteps), so that both sides
   run under the same conditions: on a GPU a 256 MiB buffer written before each call (the L2
   flushed, outside the timed region), the time of 5 flushes and calls, 25 ms of warm-up calls,
   then at least --repeat calls and 100 ms (at most 4096), each between its own pair of CUDA
   events, no host synchronisation until the last; the median of the sorted times (element n/2).
   On the CPU: --repeat calls, each timed on the host. --runs times, all kept.
4. On a GPU also the CUDA-graph variant, against emb-run-shared --cuda-graph: one call on a side
   stream (the warm-up), one call captured on it (torch.cuda.graph(g, stream=s)), the replay
   checked against the direct call, then replays timed as above.
5. The peer's times are read from emb-run-shared's log (--peer-log: its "median" and "graph
   replay: median" lines, one of each a run). Records {impl, peer, ms, peer_ms, ratio, runs,
   peer_runs, commit, ...}: ms and peer_ms are the medians of the runs' medians, ratio is
   ms / peer_ms (the bar: at most 1.05), written to --json as a list; a table is printed last.

Exit status 0 when the check passed and every record was timed (whether the bar is met is in the
records, not the status), 1 otherwise.
"""
import argparse
import ctypes
import datetime
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_results import commit_id  # noqa: E402
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "bench", "e2e"))
import npy_io  # noqa: E402  (bench/e2e/npy_io.py)

TORCH_DTYPES = {"f16": torch.float16, "f32": torch.float32, "i64": torch.int64,
                "i32": torch.int32}
# rtol and atol (times the reference's largest magnitude, at least 1) per result dtype; integers
# exactly. Both sides run the same compiled code on the same inputs: only reductions whose order
# varies between launches may differ.
TOL = {torch.float16: 1e-2, torch.bfloat16: 2e-2, torch.float32: 1e-5, torch.float64: 1e-12}
FLUSH_BYTES = 256 << 20  # runner.c: flushBytes
MAX_TIMED = 4096  # runner.c: kMaxTimedSteps
BAR = 1.05  # the PyTorch path may cost at most 5% more than emb-run's


def log(*a):
    print("[bench.py %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


#===------------------------------------------------------------------------------------------===#
# Inputs and the check
#===------------------------------------------------------------------------------------------===#


def read_npy(path):
    """A CPU tensor of the .npy file `path` (npy_io's dtypes: f16, f32, i32, i64)."""
    dtype, shape, data = npy_io.read(path)
    t = torch.empty(shape, dtype=TORCH_DTYPES[dtype])
    if data:
        ctypes.memmove(t.data_ptr(), data, len(data))
    return t


def load_inputs(paths, device):
    inputs, nbytes = [], 0
    for p in paths:
        t = read_npy(p)
        nbytes += t.numel() * t.element_size()
        inputs.append(t.to(device))
        del t  # one table at a time on the host
    return inputs, nbytes


def compare(got, ref):
    """(max abs diff, bit for bit, within tolerance) of `got` (device) against `ref` (CPU)."""
    got = got.detach().cpu()
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return float("inf"), False, False
    same = bool(torch.equal(got, ref)) if ref.numel() else True
    if not got.is_floating_point():
        diff = (got - ref).abs().max().item() if ref.numel() else 0
        return float(diff), same, same
    g, r = got.double(), ref.double()
    if not ref.numel():
        return 0.0, True, True
    both_nan = g.isnan() & r.isnan()
    diff = (g - r).abs().masked_fill(both_nan, 0)
    tol = TOL[got.dtype]
    scale = max(1.0, r.abs().masked_fill(r.isnan(), 0).max().item())
    ok = bool(torch.all((diff <= tol * r.abs() + tol * scale) | both_nan))
    return float(diff.max().item()), same, ok


def as_tuple(outs):
    return outs if isinstance(outs, tuple) else (outs,)


def check_against(outs, refs, what):
    """Prints one line a result; True when each is within tolerance."""
    ok_all = True
    for j, (got, ref) in enumerate(zip(as_tuple(outs), refs)):
        diff, same, ok = compare(got, ref)
        ok_all = ok_all and ok
        print("check: %s: result #%d %s %s: max abs diff %.3g, %s" % (
            what, j, str(ref.dtype).replace("torch.", ""), list(ref.shape), diff,
            "bit for bit" if same else "within tolerance" if ok else "MISMATCH"), flush=True)
    return ok_all


#===------------------------------------------------------------------------------------------===#
# Timing (tools/emb-run/runner.c, timeSteps)
#===------------------------------------------------------------------------------------------===#

_flush = {}


def time_steps(step, repeat, device):
    """Sorted times in ms of `step()`, as emb-run --repeat times a call."""
    if device.type != "cuda":
        ms = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            step()
            ms.append((time.perf_counter() - t0) * 1e3)
        return sorted(ms)
    flush = _flush.get(device)
    if flush is None:
        flush = _flush[device] = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device=device)
    # The time of one flush and step, from 5 of them.
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for r in range(5):
        flush.fill_(r & 0xFF)
        step()
    e1.record()
    e1.synchronize()
    each = max(e0.elapsed_time(e1) / 5, 1e-3)
    for r in range(int(math.ceil(25.0 / each))):
        flush.fill_(r & 0xFF)
        step()
    n = max(repeat, int(math.ceil(100.0 / each)))
    if n > MAX_TIMED:
        n = repeat if repeat > MAX_TIMED else MAX_TIMED
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(n)]
    for r in range(n):
        flush.fill_(r & 0xFF)
        events[r][0].record()
        step()
        events[r][1].record()
    torch.cuda.synchronize(device)
    return sorted(a.elapsed_time(b) for a, b in events)


def host_ms(step, device, calls=50):
    """Host time of one step, from `calls` back to back (no sync between them): what the call
    costs the CPU, which a GPU faster than that waits for."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    t0 = time.perf_counter()
    for _ in range(calls):
        step()
    t = (time.perf_counter() - t0) * 1e3 / calls
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return t


def summary(ms):
    return dict(median=ms[len(ms) // 2], n=len(ms), min=ms[0], max=ms[-1])


#===------------------------------------------------------------------------------------------===#
# The peer: emb-run-shared's log
#===------------------------------------------------------------------------------------------===#


def peer_times(path, entry):
    """(medians of direct calls, medians of graph replays), one of each a run, from the log of
    emb-run-shared --repeat [--cuda-graph] runs (runner.c: runCall, timeReplays)."""
    text = open(path).read()
    e = re.escape(entry)
    direct = [float(t) for t in re.findall(r"@%s: median ([0-9.]+) ms" % e, text)]
    graph = [float(t) for t in re.findall(r"@%s: graph replay: median ([0-9.]+) ms" % e, text)]
    return direct, graph


#===------------------------------------------------------------------------------------------===#
# Main
#===------------------------------------------------------------------------------------------===#


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="the shared object (emb-compile --shared)")
    ap.add_argument("--inputs", required=True, help="comma-separated .npy files, in order")
    ap.add_argument("--lib", default=None, help="libembrt.so (default: emb_torch's search)")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--expect", required=True,
                    help="the folder of emb-run-shared --output-dir for the same inputs")
    ap.add_argument("--peer-log", default=None,
                    help="emb-run-shared's output of its --repeat runs (no records without it)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=30, help="as emb-run --repeat N")
    ap.add_argument("--no-graph", action="store_true", help="leave out the CUDA-graph variant")
    ap.add_argument("--json", default=None, help="where the records go (a JSON list)")
    ap.add_argument("--commit", default=os.environ.get("EMB_COMMIT"))
    a = ap.parse_args()
    if a.runs < 1 or a.repeat < 1:
        ap.error("--runs and --repeat take a positive count")
    device = torch.device(a.device)
    if device.type == "cuda":
        if not torch.cuda.is_available():
            ap.error("--device cuda: torch sees no CUDA device")
        device = torch.device("cuda", torch.cuda.current_device())

    from emb_torch import _runtime
    from emb_torch.compiled import load
    _runtime.runtime(a.lib)  # before the model: its libembrt.so dependency resolves to this one

    t0 = time.time()
    paths = [p for p in a.inputs.split(",") if p]
    inputs, nbytes = load_inputs(paths, device)
    model = load(a.model)
    log("%d inputs (%.2f GiB) on %s in %.1f s; %s; C++ ops: %s" % (
        len(inputs), nbytes / 2**30, device, time.time() - t0, model.extra_repr(),
        model._plan is not None))
    refs = []
    for j in range(len(model.results)):
        refs.append(read_npy(os.path.join(a.expect, "%s.result%d.npy" % (model.name, j))))

    # 2. One call, checked.
    outs = model(*inputs)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    ok = check_against(outs, refs, "emb_torch.load against emb-run-shared")
    del outs

    # 3. and 4. Direct calls and graph replays, --runs times each. With libemb_torch_ops.so
    # loaded, direct calls twice: through it (the default) and through the Python path (the
    # model's plan set aside), alternating in each run.
    def direct():
        model(*inputs)

    plan = model._plan

    def direct_python():
        model._plan = None
        try:
            model(*inputs)
        finally:
            model._plan = plan

    if plan is not None:
        ok = check_against(as_tuple(model(*inputs)), refs,
                           "the C++ path against emb-run-shared") and ok
        model._plan = None
        ok = check_against(as_tuple(model(*inputs)), refs,
                           "the Python path against emb-run-shared") and ok
        model._plan = plan

    graph = None
    if device.type == "cuda" and not a.no_graph:
        s = torch.cuda.Stream(device)
        s.wait_stream(torch.cuda.current_stream(device))
        with torch.cuda.stream(s):
            model(*inputs)  # the warm-up, on the stream that captures
        torch.cuda.current_stream(device).wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=s):
            static_outs = model(*inputs)
        eager = as_tuple(model(*inputs))
        for t in as_tuple(static_outs):
            t.fill_(float("nan") if t.is_floating_point() else -1)  # the replay must write it
        graph.replay()
        torch.cuda.synchronize(device)
        for j, (g, e) in enumerate(zip(as_tuple(static_outs), eager)):
            same = bool(torch.equal(g, e))
            print("check: graph replay: result #%d %s the direct call" % (
                j, "is bit for bit" if same else "differs from"), flush=True)
        ok = check_against(static_outs, refs, "graph replay against emb-run-shared") and ok
        del eager

    ours = {"direct": [], "graph": [], "python": []}
    for r in range(a.runs):
        ms = time_steps(direct, a.repeat, device)
        ours["direct"].append(summary(ms))
        log("run %d: emb_torch.load: median %.4f ms over %d calls (min %.4f, max %.4f)" % (
            r + 1, ms[len(ms) // 2], len(ms), ms[0], ms[-1]))
        if plan is not None:
            ms = time_steps(direct_python, a.repeat, device)
            ours["python"].append(summary(ms))
            log("run %d: emb_torch.load, Python path: median %.4f ms over %d calls" % (
                r + 1, ms[len(ms) // 2], len(ms)))
        if graph is not None:
            ms = time_steps(graph.replay, a.repeat, device)
            ours["graph"].append(summary(ms))
            log("run %d: emb_torch.load+graph: median %.4f ms over %d replays (min %.4f, max "
                "%.4f)" % (r + 1, ms[len(ms) // 2], len(ms), ms[0], ms[-1]))
    host = {"direct": host_ms(direct, device)}
    if plan is not None:
        host["python"] = host_ms(direct_python, device)
    if graph is not None:
        host["graph"] = host_ms(graph.replay, device)

    # 5. The records.
    peer_direct, peer_graph = peer_times(a.peer_log, model.name) if a.peer_log else ([], [])
    pairs = [("emb_torch.load", "emb-run-shared", "direct", peer_direct)]
    if plan is not None:
        pairs.append(("emb_torch.load, Python path", "emb-run-shared", "python", peer_direct))
    if graph is not None:
        pairs.append(("emb_torch.load+graph", "emb-run-shared --cuda-graph", "graph", peer_graph))
    commit = commit_id(a.commit)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    records = []
    for impl, peer, kind, peer_runs in pairs:
        runs = [s["median"] for s in ours[kind]]
        ms = statistics.median(runs)
        peer_ms = statistics.median(peer_runs) if peer_runs else None
        ratio = ms / peer_ms if peer_ms else None
        if a.peer_log and not peer_runs:
            log("%s: no timing lines of @%s in %s" % (peer, model.name, a.peer_log))
            ok = False
        records.append(dict(
            impl=impl, peer=peer, ms=round(ms, 4), peer_ms=peer_ms,
            ratio=round(ratio, 4) if ratio else None, bar=BAR,
            met=ratio <= BAR if ratio else None, runs=[round(t, 4) for t in runs],
            peer_runs=peer_runs, calls=[s["n"] for s in ours[kind]],
            host_ms_per_call=round(host[kind], 4), commit=commit, device=name,
            model=os.path.basename(a.model), entry=model.name, inputs=len(inputs),
            checked=ok, date=datetime.date.today().isoformat(),
            torch_ops=kind != "python" and plan is not None))
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as f:
            json.dump(records, f, indent=1)
            f.write("\n")
        log("wrote %s" % a.json)

    print()
    print("| impl | ms (runs) | peer | peer ms (runs) | ratio (bar <= %.2f) | host ms/call |"
          % BAR)
    print("|---|---|---|---|---|---|")
    for r in records:
        fmt = lambda v: "-" if v is None else "%.4f" % v  # noqa: E731
        print("| %s | %s (%s) | %s | %s (%s) | %s%s | %s |" % (
            r["impl"], fmt(r["ms"]), ", ".join("%.4f" % t for t in r["runs"]), r["peer"],
            fmt(r["peer_ms"]), ", ".join("%.4f" % t for t in r["peer_runs"]) or "-",
            fmt(r["ratio"]), "" if r["met"] is None else ": met" if r["met"] else ": MISSED",
            fmt(r["host_ms_per_call"])))
    if not ok:
        print("bench.py: error: a check failed, or the peer's times are missing (above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
