"""The peer of bench/jagged/jagged_bench.c: torch's own jagged-to-padded
kernel, torch.ops.aten._jagged_to_padded_dense_forward (what nested jagged
tensors' to_padded_tensor runs; FBGEMM's jagged_to_padded_dense has the same
contract), on the same cases with the same offsets generator, timed with
triton.testing.do_bench (L2 flushed before each call, the median), three
runs a side. Checks its output against the same host rule as ours. One JSON
line per case and run.

    python3 bench/jagged/peers.py [--out FILE.jsonl]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_peers import Recorder, do_bench_median  # noqa: E402

CASES = [("model", 32, 256, 1024, 128, 1024),
         ("large", 2048, 0, 1024, 128, 1024),
         ("short", 16384, 0, 64, 64, 64)]


class Xorshift:
    """The benchmark's generator (jagged_bench.c's next()), so both sides
    see the same user lengths."""

    def __init__(self):
        self.s = 0x9E3779B97F4A7C15

    def next(self):
        m = (1 << 64) - 1
        self.s ^= (self.s << 13) & m
        self.s ^= self.s >> 7
        self.s ^= (self.s << 17) & m
        return self.s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    a = ap.parse_args()
    record = Recorder(a.out)
    rng = Xorshift()
    dev = torch.device("cuda")
    for name, users, lo, hi, d, lk in CASES:
        lens = [lo + rng.next() % (hi - lo + 1) for _ in range(users)]
        # ours draws its values from the generator after the lengths; the
        # peer's values are its own (the copy does not depend on them).
        offsets = torch.zeros(users + 1, dtype=torch.int64)
        offsets[1:] = torch.cumsum(torch.tensor(lens, dtype=torch.int64), 0)
        n = int(offsets[-1])
        values = (torch.rand(n, d, device=dev) + 1).half()
        off = offsets.to(dev)
        fn = lambda: torch.ops.aten._jagged_to_padded_dense_forward(values, [off], [lk], 0.0)
        got = fn()
        check = "ok"
        for u in (0, users // 2, users - 1):
            k = min(lens[u], lk)
            ref = torch.zeros(lk, d, dtype=torch.half, device=dev)
            ref[:k] = values[int(offsets[u]):int(offsets[u]) + k]
            if not torch.equal(got[u], ref):
                check = "MISMATCH"
        kept = sum(min(x, lk) for x in lens)
        nbytes = kept * d * 2 + users * lk * d * 2 + (users + 1) * 8
        for run in (1, 2, 3):
            ms = do_bench_median(fn)
            record(case=name, impl="torch _jagged_to_padded_dense_forward", run=run,
                   users=users, D=d, Lk=lk, rows=n, ms=round(ms, 5), bytes=nbytes,
                   gbps=round(nbytes / ms / 1e6, 1), check=check,
                   torch=torch.__version__, device=torch.cuda.get_device_name())


if __name__ == "__main__":
    main()
