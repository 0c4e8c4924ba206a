"""What a plain cuBLAS product reaches on the IKBO LCE's candidate product.

The candidate half of the IKBO benchmark shape (bench/ikbo_lce/NOTES.md) is
W_cand [M, Kc] times cand[b] [Kc, N] for every candidate b: 1024 products of
433 x 256 x 872 (padded K 872) sharing W, 198 GFLOP. This times, through torch
(cuBLAS/cuBLASLt), in f16 and bf16:
  - bmm_shared_w: torch.matmul(W, cand) with cand [B, Kc, N] (a strided batched
    GEMM with W broadcast: the layout emb.ikbo_lce reads);
  - one_gemm: W @ X with X [Kc, B * N] contiguous (one large GEMM of the same
    FLOPs, a layout the model does not have: the ceiling of a plain GEMM);
  - both with M padded to 448 (two 224-row tiles, as emb's kernel runs it).
Each figure is the median of three triton.testing.do_bench medians (L2
flushed before each call), every run kept.

    PYTHONUNBUFFERED=1 python3 bench/ikbo_lce/gemm_floor.py [--out FILE]
"""
import argparse
import json
import statistics

import torch
from triton.testing import do_bench

dev = "cuda"


def timed(fn):
    runs = [do_bench(fn, warmup=25, rep=100, return_mode="median") for _ in range(3)]
    return statistics.median(runs), runs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    B, N, Kc = 1024, 256, 872
    rows = []
    for dt, name in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        for M in (433, 448):
            torch.manual_seed(0)
            w = torch.randn(M, Kc, dtype=dt, device=dev) / Kc ** 0.5
            cand = torch.randn(B, Kc, N, dtype=dt, device=dev)
            x = torch.randn(Kc, B * N, dtype=dt, device=dev)
            flops = 2.0 * M * Kc * N * B
            for impl, fn in (("bmm_shared_w", lambda: torch.matmul(w, cand)),
                             ("one_gemm", lambda: w @ x)):
                ms, runs = timed(fn)
                r = dict(impl=impl, dtype=name, M=M, Kc=Kc, N=N, B=B, ms=round(ms, 5),
                         ms_runs=[round(t, 5) for t in runs],
                         tflops=round(flops / ms / 1e9, 1),
                         device=torch.cuda.get_device_name())
                rows.append(r)
                print(json.dumps(r), flush=True)
            del w, cand, x
            torch.cuda.empty_cache()
    if a.out:
        with open(a.out, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    print("\n%-13s %-4s %4s %8s %7s" % ("impl", "dt", "M", "ms", "TF/s"))
    for r in rows:
        print("%-13s %-4s %4d %8.4f %7.1f" % (r["impl"], r["dtype"], r["M"], r["ms"],
                                              r["tflops"]))


if __name__ == "__main__":
    main()
