"""Where the time of a few sweep configurations goes, side by side: for each configuration and
side (emb forward, emb step, torch step), the host time of a call (calls back to back, no sync
between them), the device time of a call (CUDA events around the same calls) and the operators and
kernels of those calls under torch.profiler, the most device time first. A lead for the worst
configurations of docs/kernels/tbe_sweep.md (the step's fixed cost, the Zipf steps of small N),
not a measurement of record: the sweep's timing is sweep.py's.

    PYTHONPATH=python python3 bench/tbe_sweep/profile_configs.py --only 60,70,83,229
        [--lib build/lib/libembrt.so] [--calls 20] [--rows 15] [--no-compile] [--python 12]
        [--sides emb_forward,emb_step,emb_forward_kernel,emb_forward_cpp,emb_step_kernel,
                 emb_step_config,torch_forward,torch_step] [--backward-config ID]

--python K: also the K Python functions of emb's sides with the most time of their own under
cProfile (where a call's host time goes when it is longer than its device time).
--backward-config ID with the side emb_step_config: emb's step with the backward's launch
configuration ID (embrtTbeBackwardArgs.configId, a row of kernels/tbe_backward_config.h: 3 is
seg64) instead of the runtime's choice, beside emb_step in the same process: an A/B of a routing
without building another library.

Needs a GPU; the configurations are sweep.py's (configs.json), drawn the same way.
"""
import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sweep  # noqa: E402


def host_and_device_us(fn, calls):
    """(host us, device us) of one call, from `calls` back to back."""
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    host = (time.perf_counter() - t0) / calls * 1e6
    end.synchronize()
    return host, start.elapsed_time(end) / calls * 1e3


def gpu_configs(ap, a):
    """The configurations of --configs, after checking for a GPU and loading --lib (else
    emb_torch's search) as emb_torch's runtime."""
    if not torch.cuda.is_available():
        ap.error("needs a GPU")
    import emb_torch
    if a.lib:
        emb_torch.runtime(a.lib)
    with open(a.configs) as f:
        return json.load(f)["configs"]


def profile_table(fn, calls, rows):
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    averages = prof.key_averages()
    for key in ("self_device_time_total", "self_cuda_time_total"):
        try:
            return averages.table(sort_by=key, row_limit=rows)
        except (AttributeError, KeyError, ValueError):
            continue
    return averages.table(row_limit=rows)


def python_table(fn, calls, rows):
    """The `rows` functions with the most time of their own over `calls` calls of fn."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    torch.cuda.synchronize()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(rows)
    return text.getvalue()


def forward_kernel(x):
    """emb's forward as the op runs it, called below the dispatcher: the op's Python kernel
    (emb_torch.ops), without torch.library's layers around it. Its host time against the emb
    forward side's is what those layers cost a call."""
    from emb_torch import ops
    return ops._tbe_forward(x.weights, x.feature_table, x.indices, x.offsets, x.psw,
                            x.c["pooling"], "fatal", None, None)


def forward_cpp(x):
    """emb's forward through its C++ host path alone (torch.ops.emb_torch.tbe_forward,
    python/csrc/tbe.cpp: checks, struct, runtime call, poll), the context and the runtime's
    entry points looked up once: against forward_kernel's host time, what the Python between the
    op's kernel and the C++ costs a call. Needs libemb_torch_ops.so."""
    from emb_torch import _runtime, _torch_ops
    fast = _torch_ops.tbe_forward()
    if fast is None:
        raise RuntimeError("no libemb_torch_ops.so with tbe_forward: %s" % _torch_ops.why_not())
    if not hasattr(x, "cpp_args"):
        rt = _runtime.runtime()
        x.cpp_args = (_runtime.POOLING[x.c["pooling"]], _runtime.BOUNDS["fatal"], None, None,
                      rt.context(x.weights[0].device).value, rt.entry_points)
    out, status = fast(x.weights, x.feature_table, x.indices, x.offsets, x.psw, *x.cpp_args)
    if status != 0:
        raise RuntimeError("emb_torch::tbe_forward: status %d" % status)
    return out[0]


def step_kernel(x):
    """emb's step (forward_kernel, then the backward's Python kernel) below the dispatcher."""
    from emb_torch import ops
    forward_kernel(x)
    op = "emb::tbe_backward_rowwise_adagrad"
    ops._backward(op, "rowwise_adagrad", x.weights, x.momentum, [], x.hyper, x.step_count,
                  x.feature_table, x.indices, x.offsets, x.psw, x.grad, x.c["pooling"], "fatal",
                  None, x.c["seed"])


class ForcedConfig:
    """While active, every backward call of emb_torch asks for launch configuration `config_id`
    (the ops set configId -1, the runtime's choice, on an args struct of this subclass)."""

    def __init__(self, config_id):
        from emb_torch import _runtime
        self.runtime, self.base = _runtime, _runtime.TbeBackwardArgs
        base = self.base

        class Args(base):
            _fields_ = []  # the same layout

            def __setattr__(self, name, value):
                if name == "configId" and value == -1:
                    value = config_id
                base.__setattr__(self, name, value)

        self.args = Args

    def __enter__(self):
        # The C++ host path (libemb_torch_ops.so) builds its own struct: the Python kernel's
        # is the one this forces, so the backward takes it while active.
        from emb_torch import _torch_ops
        self.runtime.TbeBackwardArgs = self.args
        self.ops = _torch_ops._ops
        self.saved = _torch_ops.tbe_backward()  # looked up (and kept in _ops) first
        self.ops["tbe_backward"] = None

    def __exit__(self, *exc):
        self.runtime.TbeBackwardArgs = self.base
        self.ops["tbe_backward"] = self.saved


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", default=os.path.join(HERE, "configs.json"))
    ap.add_argument("--only", required=True, help="configuration ids, comma separated")
    ap.add_argument("--lib", default=None, help="libembrt.so (else emb_torch's search)")
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--rows", type=int, default=15, help="rows of each profiler table")
    ap.add_argument("--no-compile", action="store_true", help="the peer's update eager")
    ap.add_argument("--sides", default="emb_forward,emb_step,torch_step",
                    help="which of emb_forward, emb_step, torch_forward, torch_step, "
                         "emb_forward_kernel, emb_forward_cpp (the C++ host path alone), "
                         "emb_step_kernel (the op's Python kernel below the dispatcher), "
                         "emb_step_config (--backward-config); comma separated")
    ap.add_argument("--backward-config", type=int, default=None,
                    help="the launch configuration of the side emb_step_config")
    ap.add_argument("--python", type=int, default=0,
                    help="also the Python functions of emb's sides with the most own time")
    a = ap.parse_args()
    configs = gpu_configs(ap, a)
    dev = torch.device("cuda")
    wanted = a.sides.split(",")
    unknown = set(wanted) - {"emb_forward", "emb_step", "torch_forward", "torch_step",
                             "emb_forward_kernel", "emb_forward_cpp", "emb_step_kernel",
                             "emb_step_config"}
    if unknown:
        ap.error("--sides: unknown %s" % ", ".join(sorted(unknown)))
    if ("emb_step_config" in wanted) != (a.backward_config is not None):
        ap.error("--backward-config and the side emb_step_config go together")
    forced = ForcedConfig(a.backward_config) if a.backward_config is not None else None

    def config_step(x):
        with forced:
            sweep.emb_step(x)

    peer = sweep.Peer(not a.no_compile)
    print("# %s, torch %s" % (torch.cuda.get_device_name(), torch.__version__), flush=True)
    for c in sweep.select(configs, None, a.only):
        x = sweep.Inputs(c, dev)
        distinct, _, short, long_pos = x.stats()
        print("\n## config %d: T %d B %d %s %s%s %s D %s N %d distinct %d (short rows %d, ids "
              "in long runs %d)" % (
                  c["id"], len(c["D"]), c["B"], c["dtype"], c["pooling"],
                  " weighted" if c["weighted"] else "", c["ids"], sorted(set(c["D"])), x.N,
                  sum(distinct), short, long_pos), flush=True)
        sides = [(name, fn) for name, fn in (("emb forward", lambda: sweep.emb_forward(x)),
                                             ("emb step", lambda: sweep.emb_step(x)),
                                             ("torch forward", lambda: sweep.peer_forward(x)),
                                             ("torch step", lambda: peer.step(x)),
                                             ("emb forward kernel", lambda: forward_kernel(x)),
                                             ("emb forward cpp", lambda: forward_cpp(x)),
                                             ("emb step kernel", lambda: step_kernel(x)),
                                             ("emb step config", lambda: config_step(x)))
                 if name.replace(" ", "_") in wanted]
        for name, fn in sides:
            try:
                for _ in range(3):  # the first calls compile and allocate
                    fn()
                host, device = host_and_device_us(fn, a.calls)
                print("\n### %s: %.1f us of host time a call, %.1f us of device time a call "
                      "(%d calls back to back)" % (name, host, device, a.calls), flush=True)
                print(profile_table(fn, a.calls, a.rows), flush=True)
                if a.python and name.startswith("emb"):
                    print(python_table(fn, a.calls, a.python), flush=True)
            except Exception as e:  # noqa: BLE001: say which side failed, go on
                print("### %s FAILED: %s: %s" % (name, type(e).__name__,
                                                 (str(e).splitlines() or [""])[0][:200]),
                      flush=True)
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
