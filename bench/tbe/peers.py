"""Torch peers of emb's TBE forward, set up as shared/peers/peers_gpu.py sets them up.

For each shape of bench/tbe/tbe_bench.cu (same case names):
  tbe_*   T tables of E rows (torch.randn), L ids a bag drawn uniformly
          (torch.randint) or Zipf(alpha) with the hot rows scattered by a
          randperm, pooled sum, per-sample weights torch.rand in the table dtype.
          Peers: "one_embedding_bag_over_concat" (torch's best: one
          F.embedding_bag over torch.cat(tables) with ids shifted by t * E) and
          "loop_of_T_embedding_bag" (what users write without TBE).
  ebag_*  one table of V rows, ids torch.randint(1, V, (B, L)) with 25% set to
          the padding id 0, F.embedding_bag(mode="mean", padding_idx=0).
Bytes as peers_gpu.py counts them: ids (8 B) + rows read (+ weights) + output.
Timing: triton.testing.do_bench(warmup=25, rep=100, return_mode="median"),
which flushes L2 before each call. Also measures the copy ceiling.

    PYTHONUNBUFFERED=1 python3 bench/tbe/peers.py --out peers.jsonl
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_peers import Recorder, announce  # noqa: E402
from bench_peers import do_bench_median as bench  # noqa: E402

dev = "cuda"

# name, B, T, E, D, L, dtype, weighted, alpha, single-table mean with padding
SHAPES = [
    ("tbe_fbgemm_default", 512, 32, 100_000, 128, 20, torch.float32, False, 1.0, False),
    ("tbe_f16", 16384, 32, 100_000, 128, 20, torch.float16, False, 1.0, False),
    ("tbe_f32", 16384, 32, 100_000, 128, 20, torch.float32, False, 1.0, False),
    ("tbe_f32_zipf", 16384, 32, 100_000, 128, 20, torch.float32, False, 1.15, False),
    ("tbe_f16_zipf", 16384, 32, 100_000, 128, 20, torch.float16, False, 1.15, False),
    ("tbe_f16_weighted_d64", 16384, 32, 100_000, 64, 20, torch.float16, True, 1.0, False),
    ("tbe_f16_l4", 65536, 64, 1_000_000, 64, 4, torch.float16, False, 1.0, False),
] + [
    ("ebag_mean_d%d_l%d" % (D, L), 8192, 1, 1_000_000, D, L, torch.float16, False, 1.0, True)
    for D in (32, 64, 128) for L in (1, 2, 4, 8)
] + [
    ("ebag_mean_big", 131072, 1, 1_000_000, 128, 8, torch.float16, False, 1.0, True),
]


def ids(E, n, alpha):
    if alpha <= 1.0:
        return torch.randint(0, E, (n,), device=dev)
    p = torch.arange(1, E + 1, device=dev, dtype=torch.float64).pow(-alpha)
    r = torch.multinomial(p.float(), n, replacement=True)
    return torch.randperm(E, device=dev)[r]


def tbe(B, T, E, D, L, dtype, weighted, alpha):
    esz = torch.tensor([], dtype=dtype).element_size()
    tables = [torch.randn(E, D, dtype=dtype, device=dev) for _ in range(T)]
    big = torch.cat(tables)
    idx = [ids(E, B * L, alpha) for _ in range(T)]
    offs = torch.arange(0, B * L, L, device=dev)
    psw = [torch.rand(B * L, device=dev, dtype=dtype) for _ in range(T)] if weighted else [None] * T

    def loop():
        return torch.cat([F.embedding_bag(idx[t], tables[t], offs, mode="sum",
                                          per_sample_weights=psw[t]) for t in range(T)], dim=1)
    shifted = torch.cat([idx[t] + t * E for t in range(T)])
    offs_all = torch.arange(0, T * B * L, L, device=dev)
    psw_all = torch.cat(psw) if weighted else None

    def fused():
        return F.embedding_bag(shifted, big, offs_all, mode="sum", per_sample_weights=psw_all)
    nbytes = T * B * L * (8 + D * esz + (esz if weighted else 0)) + T * B * D * esz
    out = [("one_embedding_bag_over_concat", bench(fused))]
    out.append(("loop_of_T_embedding_bag", bench(loop)))
    del tables, big, idx, shifted
    return nbytes, out


def ebag_mean(B, V, D, L, dtype, profile_it=False):
    w = torch.randn(V, D, dtype=dtype, device=dev)
    idx = torch.randint(1, V, (B, L), device=dev)
    idx[torch.rand(B, L, device=dev) < 0.25] = 0
    if profile_it:  # last: the profiler slows every later launch
        try:
            profile_kernels("ebag_mean_d%d_l%d" % (D, L),
                            lambda: F.embedding_bag(idx, w, mode="mean", padding_idx=0))
        except Exception as e:
            print("# profiler failed:", e)
        return 0, []
    ms = bench(lambda: F.embedding_bag(idx, w, mode="mean", padding_idx=0))
    esz = w.element_size()
    return B * L * (8 + D * esz) + B * D * esz, [("torch.embedding_bag", ms)]


def profile_kernels(name, fn):
    """Prints the CUDA kernels one call runs and their mean durations."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
    for e in prof.key_averages():
        if e.device_type.name == "CUDA" and e.count >= 20:
            print("# %s kernel %-60s %3d calls %8.2f us" %
                  (name, e.key[:60], e.count // 20, e.device_time_total / e.count), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    torch.manual_seed(0)
    device = announce()
    record = Recorder(a.out, device=device)

    n = 1 << 30
    x = torch.empty(n, dtype=torch.uint8, device=dev).random_()
    y = torch.empty_like(x)
    ms = bench(lambda: y.copy_(x))
    record(case="ceiling_copy", impl="torch copy_", ms=ms, gbps=2 * n / ms / 1e6)
    del x, y
    only = set(s for s in a.only.split(",") if s)
    for (name, B, T, E, D, L, dtype, weighted, alpha, mean) in SHAPES:
        if only and name not in only:
            continue
        if mean:
            nbytes, res = ebag_mean(B, E, D, L, dtype)
        else:
            nbytes, res = tbe(B, T, E, D, L, dtype, weighted, alpha)
        for impl, ms in res:
            record(case=name, B=B, T=T, E=E, D=D, L=L, dtype=str(dtype).replace("torch.", ""),
                   weighted=weighted, alpha=alpha, impl=impl, ms=ms, gbps=nbytes / ms / 1e6,
                   bytes=nbytes)
        torch.cuda.empty_cache()
    # The kernels torch runs for two launch-bound shapes (after all timing).
    if not only:
        for D, L in ((32, 1), (128, 8)):
            ebag_mean(8192, 1_000_000, D, L, torch.float16, profile_it=True)
    if record.out:
        record.out.close()


if __name__ == "__main__":
    main()
