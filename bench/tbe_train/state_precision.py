"""Trains a TBE with its optimizer state stored below f32 and with f32 state, from the same data,
and compares the tables: the accuracy side of storing the state in bf16 or fp8
(embrtStatePrecision; emb_torch's momentum<k>_precision).

The case is bench/tbe_train's uniform one by default (B 16384, T 32 tables of E 1e5 rows, D 128,
L 20 ids a bag drawn uniformly, i64 ids, f32 tables, rowwise Adagrad, learning rate 0.01, eps
1e-8), with its data (--data bench): tables and the output gradient in +-[0.25, 1.25), the same
ids and gradient every step, as tbe_train_bench.cu times it. --data fresh: TorchRec's tables
(uniform in +-sqrt(1 / E)) and new ids and N(0, 1) gradients every step, each from a generator
seeded by the step. Both runs see the same data. A step is emb::tbe_forward then the fused
backward (emb::tbe_backward_<optimizer>), the tables and states updated in place.

Printed: each run's median step time (forward + backward; CUDA events on cuda), their ratio, and
after the last step the relative RMS difference of the tables, rms(W - W_f32) / rms(W_f32), also
against the change the f32 run made, rms(W - W_f32) / rms(W_f32 - W_0). The bar (issue 39): the
first at most 1e-2 for fp8 rowwise Adagrad after 100 steps, and the step not slower than f32's.
The last line is one JSON record.

    python3 bench/tbe_train/state_precision.py --lib build/lib/libembrt.so \\
        [--precision fp8_e4m3] [--precision2 f32] [--optimizer rowwise_adagrad] [--steps 100] \\
        [--scale 1.0] [--B 16384 --T 32 --E 100000 --D 128 --L 20] [--device cuda]

--scale is rowwise Adagrad's fp8 table scale (momentum1_scale): with either data a row's state
after 100 steps is a few hundred (3.3 ids a row a step on average), within 2 * 448 (e4m3).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import emb_torch as et  # noqa: E402


def run(a, precision1, precision2):
    """Trains a.steps steps with the states stored at (precision1, precision2); returns the
    tables, the first tables, and the step times in ms."""
    dev = torch.device(a.device)
    T, E, D, B, L = a.T, a.E, a.D, a.B, a.L
    gen = torch.Generator(device=dev).manual_seed(a.seed)
    if a.data == "bench":
        weights = [signed_uniform(gen, (E, D), dev) for _ in range(T)]
    else:
        bound = math.sqrt(1.0 / E)
        weights = [(torch.rand(E, D, device=dev, generator=gen) * 2 - 1) * bound
                   for _ in range(T)]
    w0 = [w.clone() for w in weights] if a.change else None
    adam = a.optimizer == "adam"
    shape = (E, D) if adam else (E,)
    m1 = [torch.zeros(shape, dtype=et.state_dtype(precision1), device=dev) for _ in range(T)]
    m2 = [torch.zeros(E, D, dtype=et.state_dtype(precision2), device=dev) for _ in range(T)] \
        if adam else []
    s1, s2 = [], []
    if precision1.startswith("fp8"):
        s1 = [torch.ones(E, device=dev) if adam else torch.full((1,), a.scale, device=dev)
              for _ in range(T)]
    if adam and precision2.startswith("fp8"):
        s2 = [torch.ones(E, device=dev) for _ in range(T)]
    hyper = torch.tensor([a.lr, a.eps, 0.9, 0.999, 0.0], device=dev)
    step = torch.zeros(1, dtype=torch.int64, device=dev)
    feature_table = list(range(T))
    offsets = torch.arange(0, T * B * L + 1, L, dtype=torch.int64, device=dev)
    times = []
    for k in range(a.steps):
        if a.data == "fresh" or k == 0:
            data = torch.Generator(device=dev).manual_seed(a.seed * 1000003 + k)
            ids = torch.randint(0, E, (T * B * L,), device=dev, generator=data)
            grad = signed_uniform(data, (B, T * D), dev) if a.data == "bench" else \
                torch.randn(B, T * D, device=dev, generator=data)
        tail = (hyper, step, feature_table, ids, offsets, None, grad, "sum", "fatal", None,
                a.seed + k)
        if dev.type == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        else:
            t0 = time.perf_counter()
        torch.ops.emb.tbe_forward(weights, feature_table, ids, offsets)
        if adam:
            torch.ops.emb.tbe_backward_adam(weights, m1, m2, *tail, s1, s2, precision1, precision2)
        else:
            torch.ops.emb.tbe_backward_rowwise_adagrad(weights, m1, *tail, s1, precision1)
        if dev.type == "cuda":
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            times.append((time.perf_counter() - t0) * 1e3)
    return weights, w0, times


def signed_uniform(gen, shape, dev):
    """Values in +-[0.25, 1.25), as tbe_train_bench.cu's tables and gradient."""
    x = torch.rand(shape, device=dev, generator=gen) + 0.25
    sign = torch.randint(0, 2, shape, device=dev, generator=gen) * 2 - 1
    return x * sign


def rms(tensors):
    total = sum(float(t.double().pow(2).sum()) for t in tensors)
    return math.sqrt(total / sum(t.numel() for t in tensors))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lib", default=None)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--optimizer", default="rowwise_adagrad", choices=("rowwise_adagrad", "adam"))
    p.add_argument("--precision", default="fp8_e4m3", choices=et.STATE_PRECISIONS)
    p.add_argument("--precision2", default=None, choices=et.STATE_PRECISIONS,
                   help="Adam's momentum2 (default: fp8_e5m2 when --precision is fp8, else "
                        "the same)")
    p.add_argument("--scale", type=float, default=2.0)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--B", type=int, default=16384)
    p.add_argument("--T", type=int, default=32)
    p.add_argument("--E", type=int, default=100000)
    p.add_argument("--D", type=int, default=128)
    p.add_argument("--L", type=int, default=20)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--eps", type=float, default=1e-8)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--data", default="bench", choices=("bench", "fresh"),
                   help="bench: tbe_train_bench.cu's data, tables and one gradient in "
                        "+-[0.25, 1.25), the same ids and gradient every step; fresh: TorchRec's "
                        "initialisation, new uniform ids and N(0, 1) gradients every step")
    p.add_argument("--no-change", dest="change", action="store_false",
                   help="skip the comparison with the change (saves a copy of the tables)")
    a = p.parse_args()
    et.runtime(a.lib)
    p2 = "f32"
    if a.optimizer == "adam":
        p2 = a.precision2 or ("fp8_e5m2" if a.precision.startswith("fp8") else a.precision)
    print("case: B %d T %d E %d D %d L %d, %s, %d steps on %s; states %s%s against f32"
          % (a.B, a.T, a.E, a.D, a.L, a.optimizer, a.steps, a.device, a.precision,
             "/" + p2 if a.optimizer == "adam" else ""), flush=True)
    ref, w0, ref_times = run(a, "f32", "f32")
    ref = [w.cpu() for w in ref]
    w0 = [w.cpu() for w in w0] if w0 else None
    got, _, times = run(a, a.precision, p2)
    got = [w.cpu() for w in got]
    diff = [g - r for g, r in zip(got, ref)]
    rel = rms(diff) / rms(ref)
    rel_change = rms(diff) / rms([r - w for r, w in zip(ref, w0)]) if w0 else float("nan")
    # The first steps include the first calls' setup: the median of the second half.
    half = max(1, a.steps // 2)
    ms_ref = statistics.median(ref_times[half:] or ref_times)
    ms = statistics.median(times[half:] or times)
    print("step time: f32 state %.3f ms, %s state %.3f ms (%.3fx of f32)"
          % (ms_ref, a.precision, ms, ms / ms_ref))
    print("relative RMS of the tables after %d steps: %.3e (bar 1e-2: %s); against the f32 run's "
          "change: %.3e" % (a.steps, rel, "met" if rel <= 1e-2 else "NOT met", rel_change))
    print(json.dumps({"case": "state_precision", "optimizer": a.optimizer,
                      "precision": a.precision, "precision2": p2, "B": a.B, "T": a.T, "E": a.E,
                      "D": a.D, "L": a.L, "steps": a.steps, "device": a.device,
                      "ms_f32": ms_ref, "ms": ms, "rel_rms": rel, "rel_rms_change": rel_change}))


if __name__ == "__main__":
    main()
