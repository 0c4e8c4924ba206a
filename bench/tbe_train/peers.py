"""Torch peers of emb's TBE training step, set up as shared/peers/peers_gpu.py sets them up.

For each case of bench/tbe_train/tbe_train_bench.cu (same names): T tables of E rows concatenated into
one table (torch.randn), L ids a bag drawn uniformly (torch.randint) or Zipf(alpha) with the hot rows
scattered by a randperm, ids shifted by t * E, one F.embedding_bag(mode="sum", sparse=True) over the
concatenated table, out.backward(g) with a fixed random g, then the optimizer step and zero_grad:
torch.optim.Adagrad (rowwise Adagrad's peer, as peers_gpu.py), torch.optim.SGD, torch.optim.SparseAdam
(torch.optim.Adam takes no sparse gradients). Learning rate 0.01, as ours. f16 tables train in f16
where torch can (else in f32, and the record says so).

Timing: triton.testing.do_bench(warmup=50, rep=300, return_mode="median") of the whole step, which
flushes L2 before each call. Also measures the copy ceiling (1 GiB device-to-device copy, bytes read +
written).

    PYTHONUNBUFFERED=1 python3 bench/tbe_train/peers.py --out peers.jsonl [--only CASE,...] [--run N]
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_peers import Recorder, announce, do_bench_median  # noqa: E402

dev = "cuda"

# name, B, T, E, D, L, dtype, alpha, optimizer
SHAPES = [
    ("train_rowwise_uniform", 16384, 32, 100_000, 128, 20, torch.float32, 1.0, "adagrad"),
    ("train_rowwise_zipf", 16384, 32, 100_000, 128, 20, torch.float32, 1.15, "adagrad"),
    ("train_rowwise_l4", 65536, 64, 1_000_000, 64, 4, torch.float32, 1.0, "adagrad"),
    ("train_rowwise_fbgemm", 512, 32, 100_000, 128, 20, torch.float32, 1.0, "adagrad"),
    ("train_sgd_uniform", 16384, 32, 100_000, 128, 20, torch.float32, 1.0, "sgd"),
    ("train_adam_uniform", 16384, 32, 100_000, 128, 20, torch.float32, 1.0, "sparse_adam"),
    ("train_rowwise_f16", 16384, 32, 100_000, 128, 20, torch.float16, 1.0, "adagrad"),
]


def ids(E, n, alpha):
    if alpha <= 1.0:
        return torch.randint(0, E, (n,), device=dev)
    p = torch.arange(1, E + 1, device=dev, dtype=torch.float64).pow(-alpha)
    r = torch.multinomial(p.float(), n, replacement=True)
    return torch.randperm(E, device=dev)[r]


def make_optimizer(name, params):
    if name == "adagrad":
        return torch.optim.Adagrad(params, lr=0.01)
    if name == "sgd":
        return torch.optim.SGD(params, lr=0.01)
    return torch.optim.SparseAdam(params, lr=0.01)


def train(B, T, E, D, L, dtype, alpha, opt_name):
    shifted = torch.cat([ids(E, B * L, alpha) + t * E for t in range(T)])
    offs = torch.arange(0, T * B * L, L, device=dev)
    g32 = torch.randn(T * B, D, device=dev)
    for train_dtype in ([dtype, torch.float32] if dtype != torch.float32 else [dtype]):
        try:
            wt = torch.nn.Parameter(torch.randn(T * E, D, device=dev, dtype=train_dtype))
            opt = make_optimizer(opt_name, [wt])
            g = g32.to(train_dtype)

            def step():
                out = F.embedding_bag(shifted, wt, offs, mode="sum", sparse=True)
                out.backward(g)
                opt.step()
                opt.zero_grad(set_to_none=True)

            step()
            torch.cuda.synchronize()
            ms = do_bench_median(step, warmup=50, rep=300)
            impl = "torch embedding_bag(sparse) + %s" % {
                "adagrad": "Adagrad", "sgd": "SGD", "sparse_adam": "SparseAdam"}[opt_name]
            if train_dtype != dtype:
                impl += " (f32: f16 failed)"
            del wt, opt
            return impl, ms
        except Exception as e:  # f16 sparse optimizers may be missing
            print("# %s in %s failed: %s" % (opt_name, train_dtype, str(e).splitlines()[0]), flush=True)
            torch.cuda.empty_cache()
    return None, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", default="")
    ap.add_argument("--run", type=int, default=1)
    a = ap.parse_args()
    torch.manual_seed(a.run)
    device = announce()
    record = Recorder(a.out, device=device, run=a.run)

    n = 1 << 30
    x = torch.empty(n, dtype=torch.uint8, device=dev).random_()
    y = torch.empty_like(x)
    ms = do_bench_median(lambda: y.copy_(x))
    record(case="ceiling_copy", impl="torch copy_", ms=ms, gbps=2 * n / ms / 1e6)
    del x, y
    only = set(s for s in a.only.split(",") if s)
    for (name, B, T, E, D, L, dtype, alpha, opt) in SHAPES:
        if only and name not in only:
            continue
        impl, ms = train(B, T, E, D, L, dtype, alpha, opt)
        if impl:
            record(case=name, B=B, T=T, E=E, D=D, L=L, dtype=str(dtype).replace("torch.", ""),
                   alpha=alpha, impl=impl, ms=ms)
        torch.cuda.empty_cache()
    if record.out:
        record.out.close()


if __name__ == "__main__":
    main()
