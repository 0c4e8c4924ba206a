"""f32 IKBO LCE: the torch peers of emb's exact f32 path on the main shape
(B 1024, U 15, M 433, K 1184/872, N 256), in one run: the hand-decomposed
form (user product, gather, candidate product) in exact f32
(`allow_tf32 = False`, torch's default for matmul) and in TF32
(`allow_tf32 = True`), the same form on the f32 data rounded to bf16 and to
f16 inside the timed call (the casts, the products in that type with f32
accumulation, the result widened to f32: what emb's computeDtype path does),
and the original broadcast + cat + bmm in exact f32. One JSON line each;
ours comes from `ikbo_lce_bench --set f32`.

    python3 bench/ikbo_lce/f32_peers.py [--run N]
"""
import argparse

import torch

import run_bench as rb
from bench_peers import Recorder  # bench/common, on the path run_bench sets


def decomposed_via(shape, dt):
    """The decomposed form on f32 data computed in `dt`: every operand cast
    in the timed call, the result widened to f32."""
    B, U, M, Ku, Kc, N = shape
    W, user, cand, c2u = rb.inputs(B, U, M, Ku, Kc, N, torch.float32)
    Wu, Wc = W[:, :Ku], W[:, Ku:]

    def via():
        yu = torch.matmul(Wu.to(dt), user.to(dt))
        y = torch.matmul(Wc.to(dt), cand.to(dt)) + yu.index_select(0, c2u)
        return y.float()
    ms = rb.bench(via)
    del W, user, cand, c2u
    torch.cuda.empty_cache()
    return ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", type=int, default=1)
    a = ap.parse_args()
    shape = (1024, 15, 433, 1184, 872, 256)
    device = torch.cuda.get_device_name()
    record = Recorder(run=a.run, device=device)
    for tf32 in (False, True):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        ms = rb.eager_decomposed(*shape, torch.float32)
        record(peer="torch_eager_decomposed_%s" % ("tf32" if tf32 else "f32"),
               dtype="f32", ms=ms)
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, dt in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        ms = decomposed_via(shape, dt)
        record(peer="torch_eager_decomposed_via_%s" % name, dtype="f32",
               compute=name, ms=ms)
    ms = rb.eager_original(*shape, torch.float32)
    record(peer="torch_eager_broadcast_cat_bmm_f32", dtype="f32", ms=ms)


if __name__ == "__main__":
    main()
