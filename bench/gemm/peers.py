"""torch on the ranking model's MLP shapes, timed as bench/gemm/gemm_bench.c
times embrtGemm: f16 x [2048, K] and W [N, K], bias [N], relu (and sigmoid
after the last layer); 10 warm-up calls, three runs of `iters` calls timed
with CUDA events, the median in ms per call. Peers: eager
(torch.nn.functional.linear then relu) and, unless COMPILE=0,
torch.compile(mode="max-autotune") of the same function.

Prints `<peer> <m> <k> <n> <epilogue> <ms>` lines.
"""
import os
import sys

import torch
import torch.nn.functional as F

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 100
torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False


def relu_layer(x, w, b):
    return torch.relu(F.linear(x, w, b))


def sigmoid_layer(x, w, b):
    return torch.sigmoid(F.linear(x, w, b))


def timed(fn, *args):
    for _ in range(10):
        fn(*args)
    runs = []
    for _ in range(3):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn(*args)
        end.record()
        torch.cuda.synchronize()
        runs.append(start.elapsed_time(end) / iters)
    return sorted(runs)[1]


cases = [(2048, 8192, 1024, "bias_relu", relu_layer),
         (2048, 1024, 256, "bias_relu", relu_layer),
         (2048, 256, 1, "bias_relu", relu_layer),
         (2048, 256, 1, "bias_sigmoid", sigmoid_layer)]
compile_peer = os.environ.get("COMPILE", "1") != "0"
for m, k, n, name, fn in cases:
    g = torch.Generator(device="cuda").manual_seed(0)
    x = (torch.rand(m, k, device="cuda", generator=g) - 0.5).half() * 0.25
    w = (torch.rand(n, k, device="cuda", generator=g) - 0.5).half() * 0.25
    b = (torch.rand(n, device="cuda", generator=g) - 0.5).half() * 0.25
    with torch.no_grad():
        print(f"torch_eager {m} {k} {n} {name} {timed(fn, x, w, b):.5f}",
              flush=True)
        if compile_peer:
            compiled = torch.compile(fn, mode="max-autotune", dynamic=False)
            print(f"torch_compile {m} {k} {n} {name} "
                  f"{timed(compiled, x, w, b):.5f}", flush=True)
