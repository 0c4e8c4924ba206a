"""f32 IKBO LCE: the torch peers of emb's exact f32 path on the main shape
(B 1024, U 15, M 433, K 1184/872, N 256), in one run: the hand-decomposed
form (user product, gather, candidate product) in exact f32
(`allow_tf32 = False`, torch's default for matmul) and in TF32
(`allow_tf32 = True`), and the original broadcast + cat + bmm in exact f32.
One JSON line each; ours comes from `ikbo_lce_bench --set f32`.

    python3 bench/ikbo_lce/f32_peers.py [--run N]
"""
import argparse
import json

import torch

import run_bench as rb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", type=int, default=1)
    a = ap.parse_args()
    shape = (1024, 15, 433, 1184, 872, 256)
    device = torch.cuda.get_device_name()
    for tf32 in (False, True):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        ms = rb.eager_decomposed(*shape, torch.float32)
        print(json.dumps({"peer": "torch_eager_decomposed_%s" % ("tf32" if tf32 else "f32"),
                          "dtype": "f32", "ms": ms, "run": a.run, "device": device}),
              flush=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    ms = rb.eager_original(*shape, torch.float32)
    print(json.dumps({"peer": "torch_eager_broadcast_cat_bmm_f32", "dtype": "f32",
                      "ms": ms, "run": a.run, "device": device}), flush=True)


if __name__ == "__main__":
    main()
