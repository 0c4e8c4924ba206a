"""Where a training step's time goes: the CUDA kernels of emb's forward and fused backward, timed by
PyTorch's profiler (CUPTI), through the PyTorch binding on the bench's shapes.

Prints, per shape, each kernel's mean device time per step (ours run on PyTorch's stream, so the
profiler sees them: the linearize, CUB's radix sort passes, the run-length encode and scan, the
classify, the accumulate launches, the forward).

    PYTHONUNBUFFERED=1 python3 bench/tbe_train/kernel_times.py --lib build/lib/libembrt.so
"""
import argparse
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
import emb_torch as et  # noqa: E402

SHAPES = [
    ("train_rowwise_uniform", 16384, 32, 100_000, 128, 20, 1.0),
    ("train_rowwise_zipf", 16384, 32, 100_000, 128, 20, 1.15),
    ("train_rowwise_l4", 65536, 64, 1_000_000, 64, 4, 1.0),
]


def ids(E, n, alpha):
    if alpha <= 1.0:
        return torch.randint(0, E, (n,), device="cuda")
    p = torch.arange(1, E + 1, device="cuda", dtype=torch.float64).pow(-alpha)
    r = torch.multinomial(p.float(), n, replacement=True)
    return torch.randperm(E, device="cuda")[r]


def short(name):
    for key in ("linearize", "classify", "accumulate", "Onesweep", "RadixSortHistogram",
                "ExclusiveSum", "ReduceByKey", "DeviceScanKernel", "ScanInit", "CompactInit",
                "tbeForward", "SingleTile"):
        if key in name:
            return key
    return name[:40]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=None)
    ap.add_argument("--steps", type=int, default=5)
    a = ap.parse_args()
    for name, B, T, E, D, L, alpha in SHAPES:
        et.runtime(a.lib)
        configs = [et.EmbeddingBagConfig(name="t%d" % t, embedding_dim=D, num_embeddings=E,
                                         feature_names=["f%d" % t]) for t in range(T)]
        ebc = et.EmbeddingBagCollection(
            tables=configs, device="cuda", output_dtype=None,
            fused_params={"optimizer": "exact_rowwise_adagrad", "learning_rate": 0.01})
        keys = ["f%d" % t for t in range(T)]
        values = torch.cat([ids(E, B * L, alpha) for _ in range(T)])
        offsets = torch.arange(0, T * B * L + 1, L, device="cuda")
        G = torch.randn(B, T * D, device="cuda")

        def step():
            out = ebc(et.KeyedJaggedTensor(keys, values, offsets=offsets)).values()
            out.backward(G)

        for _ in range(3):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(a.steps):
                step()
            torch.cuda.synchronize()
        rows = {}
        for e in prof.key_averages():
            if e.device_type.name != "CUDA":
                continue
            k = short(e.key)
            c, t = rows.get(k, (0, 0.0))
            rows[k] = (c + e.count, t + e.device_time_total)
        total = sum(t for _, t in rows.values()) / a.steps
        print("%s: %.3f ms of kernels a step" % (name, total / 1e3), flush=True)
        for k, (c, t) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
            print("  %-24s %3d launches a step %9.1f us" % (k, c // a.steps, t / a.steps), flush=True)
        ebc.synchronize()
        del ebc, values, offsets, G
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
