"""The Python cost of one emb_torch.load call, without the model's work: loads a model, replaces
its entry with a no-op and times calls on inputs of the right shapes (zeros; dynamic dims 4).

    python3 bench/pytorch_load/host_cost.py MODEL.so --lib build/lib/libembrt.so [--calls 200]
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import emb_torch  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--lib", default=None)
    ap.add_argument("--calls", type=int, default=200)
    a = ap.parse_args()
    emb_torch.runtime(a.lib)
    m = emb_torch.load(a.model, device="cpu")
    inputs = [torch.zeros([4 if d is None else d for d in x.shape], dtype=x.dtype)
              for x in m.inputs]
    m._invoke = lambda slots: None  # the model's work skipped: only the Python around it
    m._status = lambda ctx: 0
    for _ in range(5):
        m(*inputs)
    start = time.perf_counter()
    for _ in range(a.calls):
        m(*inputs)
    us = (time.perf_counter() - start) / a.calls * 1e6
    print("%s: %d inputs, %.1f us of Python a call (%d calls)" % (os.path.basename(a.model),
                                                                 len(inputs), us, a.calls))


if __name__ == "__main__":
    main()
