"""The torch peer of bench/tbe/tbe_graphs.c: the single-table mean-pooling points
of the TBE benchmark, per call (L2 flushed) and replayed from CUDA graphs.

The peer of record is bench/tbe/peers.py's: one table of V = 1e6 rows
(torch.randn, f16), ids torch.randint(1, V, (B, L)) with 25% set to the padding
id 0, F.embedding_bag(idx, w, mode="mean", padding_idx=0), B = 8192,
D in {32, 64, 128}, L in {1, 2, 4, 8}.

  flushed  triton.testing.do_bench(warmup=25, rep=100, return_mode="median"),
           as peers.py (L2 flushed before each call).
  graph    N calls captured into one torch.cuda.CUDAGraph (after warm-up
           calls on a side stream, as the torch docs do it), one run = R
           replays between two CUDA events, its time / (N * R); the median of
           three runs. The graph's output is checked against an eager call.

    PYTHONUNBUFFERED=1 python3 bench/tbe/graphs_peers.py --out peers.jsonl
"""
import argparse
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_peers import Recorder, announce, do_bench_median  # noqa: E402

dev = "cuda"
B, V = 8192, 1_000_000
POINTS = [(D, L) for D in (32, 64, 128) for L in (1, 2, 4, 8)]


def graph_ms(fn, calls, replays, runs=3):
    """Per-call milliseconds of `calls` calls of fn captured in one graph."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            out = fn()
    g.replay()
    torch.cuda.synchronize()
    same = torch.equal(out, fn())
    for _ in range(3):
        g.replay()
    times = []
    for _ in range(runs):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(replays):
            g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / (calls * replays))
    del g
    return statistics.median(times), times, same


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", default="")
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--replays", type=int, default=10)
    a = ap.parse_args()
    torch.manual_seed(0)
    device = announce("#")
    only = set(s for s in a.only.split(",") if s)
    record = Recorder(a.out, device=device, impl="torch.embedding_bag", B=B,
                      T=1, E=V, dtype="float16")

    for D, L in POINTS:
        name = "ebag_mean_d%d_l%d" % (D, L)
        if only and name not in only:
            continue
        w = torch.randn(V, D, dtype=torch.float16, device=dev)
        idx = torch.randint(1, V, (B, L), device=dev)
        idx[torch.rand(B, L, device=dev) < 0.25] = 0

        def fn():
            return F.embedding_bag(idx, w, mode="mean", padding_idx=0)
        ms = do_bench_median(fn)
        record(case=name, D=D, L=L, mode="flushed", ms=ms, check="ok")
        try:
            ms, runs, same = graph_ms(fn, a.calls, a.replays)
            record(case=name, D=D, L=L, mode="graph", ms=ms, ms_runs=runs,
                   calls_per_graph=a.calls, replays=a.replays,
                   check="ok" if same else "graph output differs from eager")
        except Exception as e:  # a capture torch refuses is a result too
            record(case=name, D=D, L=L, mode="graph", ms=None,
                   check="capture failed: %s" % str(e).splitlines()[0][:200])
        del w, idx
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
