"""emb's TBE forward under each launch configuration (the rows of kernels/tbe_config.h) on a few
sweep configurations, beside the runtime's choice and torch's forward: which row a shape wants,
to tune the selection. Timed as sweep.py times (runs of calls with L2 flushed before each, the
median of each run, the median of the runs), interleaved: run k of every side before run k + 1.

    PYTHONPATH=python python3 bench/tbe_sweep/forward_configs.py --only 72,229 [--lib L]
        [--rows all|0,10,11] [--runs 3] [--out $OUT/forward_configs.jsonl] [--commit SHA]
        [--warm] [--op]

emb's sides call the runtime's entry point (embrtTbeForward) directly on an argument struct built
once per side, with configId set to the row (-1: the runtime's choice), so that every side has
the same few microseconds of host time a call, well inside the flush's time: the device times
are the kernels'. Each row's output is compared with the runtime's choice (max abs difference
over max abs value) before it is timed. Writes one JSON line per configuration and side.

--op: also emb's forward as users call it (torch.ops.emb.tbe_forward: its host path, C++ where
libemb_torch_ops.so is loaded, and the output from PyTorch's allocator), beside the direct calls.

--warm: also each side's device time a call with nothing flushed (calls back to back between two
events, the median of the runs: `warm_ms`), so that flushed minus warm is what a call pays for
starting from cold caches (its code, its metadata and the rows).
"""
import argparse
import ctypes
import json
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sweep  # noqa: E402
from profile_configs import gpu_configs, host_and_device_us  # noqa: E402
from bench_peers import Timer, calls_per_run  # noqa: E402
from bench_results import commit_id, today  # noqa: E402


def warm_ms(fn, calls):
    """Device ms a call of `fn`, `calls` calls back to back (nothing flushed)."""
    return host_and_device_us(fn, calls)[1] / 1e3


class ForcedForward:
    """emb's forward of `x` on launch configuration `config_id` (-1: the runtime's), through the
    runtime's C entry point on an argument struct built once."""

    def __init__(self, x, config_id):
        from emb_torch import _runtime as R
        from emb_torch import ops
        c = x.c
        self.keep = []
        self.rt = R.runtime()
        dev = x.weights[0].device
        self.ctx = self.rt.context(dev)
        dtype = x.weights[0].dtype
        B = c["B"]
        width = sum(w.shape[1] for w in x.weights)
        self.out = torch.empty(B, width, dtype=dtype, device=dev)
        a = ops._lookup_args(x.weights, x.feature_table, x.indices, x.offsets, x.psw,
                             c["pooling"], "fatal", None, self.keep)
        a.output = self.out.data_ptr()
        a.outputDtype = R.DTYPES[dtype]
        a.configId = config_id
        ws = self.rt.workspace(self.ctx, self.rt.lib.embrtTbeWorkspaceSize, a, dev)
        if ws is not None:
            a.workspace, a.workspaceBytes = ws.data_ptr(), ws.numel()
            self.keep.append(ws)
        self.args = a
        self.ref = ctypes.byref(a)
        self.fn = self.rt.lib.embrtTbeForward

    def __call__(self):
        status = self.fn(self.ctx, self.ref)
        if status != 0:
            self.rt.check(self.ctx, status, "embrtTbeForward")
        return self.out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", default=os.path.join(HERE, "configs.json"))
    ap.add_argument("--only", required=True, help="configuration ids, comma separated")
    ap.add_argument("--rows", default="all", help="launch configuration ids, or all")
    ap.add_argument("--num-rows", type=int, default=14, help="rows of the table (for --rows all)")
    ap.add_argument("--lib", default=None, help="libembrt.so (else emb_torch's search)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--run-ms", type=float, default=40.0)
    ap.add_argument("--out", default=None, help="JSON lines")
    ap.add_argument("--commit", default=None)
    ap.add_argument("--warm", action="store_true", help="also the time a call back to back")
    ap.add_argument("--op", action="store_true", help="also torch.ops.emb.tbe_forward")
    a = ap.parse_args()
    configs = gpu_configs(ap, a)
    rows = (list(range(a.num_rows)) if a.rows == "all"
            else [int(v) for v in a.rows.split(",")])
    dev = torch.device("cuda")
    timer = Timer(dev)
    commit = a.commit or commit_id()
    out = open(a.out, "a") if a.out else None
    print("# %s, torch %s, commit %s" % (torch.cuda.get_device_name(), torch.__version__, commit))
    if a.op:
        import emb_torch
        print("# op's C++ host path: %s" % emb_torch.torch_ops_library())
    table = []
    for c in sweep.select(configs, None, a.only):
        x = sweep.Inputs(c, dev)
        sides = [("auto", ForcedForward(x, -1))]
        sides += [("row %d" % r, ForcedForward(x, r)) for r in rows]
        want = sides[0][1]().float()
        scale = float(want.abs().max()) or 1.0
        errs = {}
        for name, fn in sides[1:]:
            errs[name] = float((fn().float() - want).abs().max()) / scale
        if a.op:
            sides.append(("op", lambda: sweep.emb_forward(x)))
        sides.append(("torch", lambda: sweep.peer_forward(x)))
        reps = {name: calls_per_run(timer.warm_up(fn, 10.0), a.run_ms, 50) for name, fn in sides}
        meds = {name: [] for name, _ in sides}
        for _ in range(a.runs):
            for name, fn in sides:
                meds[name].append(statistics.median(timer.times(fn, reps[name])))
        ms = {name: statistics.median(v) for name, v in meds.items()}
        warm = {}
        if a.warm:
            for name, fn in sides:
                warm[name] = statistics.median(warm_ms(fn, reps[name]) for _ in range(a.runs))
        lmax = int((x.offsets[1:] - x.offsets[:-1]).max())
        head = "config %d: T %d B %d %s D %s L %.1f (max %d) N %d" % (
            c["id"], len(c["D"]), c["B"], c["dtype"], sorted(set(c["D"])),
            x.N / (len(c["D"]) * c["B"]), lmax, x.N)
        print("\n## " + head)
        for name, _ in sides:
            print("  %-8s %9.4f ms  runs %s  x%.2f of auto  %s%s" % (
                name, ms[name], " ".join("%.4f" % v for v in meds[name]),
                ms["auto"] / ms[name], "warm %.4f  " % warm[name] if warm else "",
                "err %.1e" % errs[name] if name in errs else ""), flush=True)
            if out:
                out.write(json.dumps(dict(config=c["id"], side=name, ms=round(ms[name], 5),
                                          ms_runs=[round(v, 5) for v in meds[name]],
                                          warm_ms=(round(warm[name], 5) if warm else None),
                                          reps=reps[name], err=errs.get(name), N=x.N,
                                          L_max=lmax, device=torch.cuda.get_device_name(),
                                          commit=commit, date=today())) + "\n")
        best = min((n for n, _ in sides if n.startswith("row")), key=lambda n: ms[n])
        table.append((c["id"], ms["auto"], best, ms[best], ms["torch"]))
        del x, sides
        torch.cuda.empty_cache()
    print("\n| config | auto ms | best row | its ms | torch ms | auto/torch | best/torch |")
    for cid, auto, best, bms, tms in table:
        print("| %d | %.4f | %s | %.4f | %.4f | %.2fx | %.2fx |" % (
            cid, auto, best, bms, tms, tms / auto, tms / bms))


if __name__ == "__main__":
    main()
