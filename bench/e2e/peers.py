"""Torch peers of emb's compiled models, at the IKBO benchmark shapes.

Runs on the GPU machine in the same call as the compiled models
(bench/e2e/run.sh). Peers are set up as /work/shared/peers/peers_gpu.py and
peers_gpu_compiled.py set them up; timing is triton.testing.do_bench
(L2 flushed before each call), median, in milliseconds. The IKBO LCE peers
are timed RUNS times (default 3) and report the median of those medians with
every run beside it (`ms_runs`): Inductor's figure moves by a few percent
from one measurement to the next.

  ikbo_lce (f16, B=1024, 15 users, M=433, K_user=1178, K_cand=866, N=256):
    torch_eager_original    broadcast + cat + bmm on the model as written
    inductor_max_autotune_decomposed_padded
                            torch.compile(mode="max-autotune-no-cudagraphs")
                            on the hand-decomposed, hand-padded form (K 1184/872)
  ikbo_attention (f16, 32 users x 64 candidates, Lq=64, H=2, Dh=128, Lk=2048):
    torch_sdpa_broadcast    SDPA on K/V index_select'ed to every candidate
    torch_sdpa_grouped_cudnn  SDPA (cuDNN) on hand-grouped queries, the form
                            of BASELINES.md (permute copies inside the timing)

    PYTHONUNBUFFERED=1 python3 bench/e2e/peers.py > peers.jsonl
"""
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_peers import Recorder, announce  # noqa: E402
from bench_peers import do_bench_median as bench  # noqa: E402

dev = "cuda"


RUNS = int(os.environ.get("RUNS", "3"))


def bench_runs(fn):
    """Median of RUNS medians, and the runs."""
    runs = [bench(fn) for _ in range(RUNS)]
    return statistics.median(runs), runs


# Records go to stdout (run.sh keeps them).
emit = Recorder()


def lce_peers():
    B, U, M, Ku, Kc, N = 1024, 15, 433, 1178, 866, 256
    dt = torch.float16
    torch.manual_seed(0)
    W = torch.randn(M, Ku + Kc, dtype=dt, device=dev) / math.sqrt(Ku + Kc)
    user = torch.randn(U, Ku, N, dtype=dt, device=dev)
    cand = torch.randn(B, Kc, N, dtype=dt, device=dev)
    c2u = torch.sort(torch.randint(0, U, (B,), device=dev)).values

    def original():
        return torch.matmul(W, torch.cat([user.index_select(0, c2u), cand], 1))
    ms, runs = bench_runs(original)
    emit(case="ikbo_lce", peer="torch_eager_original", ms=ms, ms_runs=runs)

    # The hand-decomposed, hand-padded form that Inductor compiles.
    pu, pc = 1184, 872
    Wu = torch.zeros(M, pu, dtype=dt, device=dev)
    Wu[:, :Ku] = W[:, :Ku]
    Wc = torch.zeros(M, pc, dtype=dt, device=dev)
    Wc[:, :Kc] = W[:, Ku:]
    userp = torch.zeros(U, pu, N, dtype=dt, device=dev)
    userp[:, :Ku] = user
    candp = torch.zeros(B, pc, N, dtype=dt, device=dev)
    candp[:, :Kc] = cand

    def decomposed(Wu, Wc, user, cand, c2u):
        return torch.matmul(Wc, cand) + torch.matmul(Wu, user).index_select(0, c2u)
    t0 = time.time()
    compiled = torch.compile(decomposed, mode="max-autotune-no-cudagraphs",
                             dynamic=False)
    compiled(Wu, Wc, userp, candp, c2u)
    compile_s = time.time() - t0
    ms, runs = bench_runs(lambda: compiled(Wu, Wc, userp, candp, c2u))
    emit(case="ikbo_lce", peer="inductor_max_autotune_decomposed_padded",
         ms=ms, ms_runs=runs, compile_s=compile_s)


def attention_peers():
    U, C, H, Lq, Lk, Dh = 32, 64, 2, 64, 2048, 128
    dt = torch.float16
    torch.manual_seed(0)
    q = torch.randn(U * C, H, Lq, Dh, dtype=dt, device=dev)
    k = torch.randn(U, H, Lk, Dh, dtype=dt, device=dev)
    v = torch.randn(U, H, Lk, Dh, dtype=dt, device=dev)
    c2u = torch.arange(U, device=dev).repeat_interleave(C)

    def broadcast():
        return F.scaled_dot_product_attention(q, k.index_select(0, c2u),
                                              v.index_select(0, c2u))
    best = min(bench(broadcast), _cudnn(broadcast))
    emit(case="ikbo_attention", peer="torch_sdpa_broadcast", ms=best)

    def grouped():
        qg = q.view(U, C, H, Lq, Dh).permute(0, 2, 1, 3, 4).reshape(U, H, C * Lq, Dh)
        o = F.scaled_dot_product_attention(qg, k, v)
        return o.view(U, H, C, Lq, Dh).permute(0, 2, 1, 3, 4).reshape(U * C, H, Lq, Dh)
    emit(case="ikbo_attention", peer="torch_sdpa_grouped_cudnn",
         ms=_cudnn(grouped))


def _cudnn(fn):
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return bench(fn)


if __name__ == "__main__":
    announce()
    attention_peers()
    lce_peers()
