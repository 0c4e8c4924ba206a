#!/usr/bin/env python3
"""Times emb-opt's rewrite pipelines on a generated module of ranking blocks.

Usage: time_passes.py [--emb-opt BIN] [--ops N] [--repeat R] [--limit S]

Generates the module with gen_module.py (at least N ops, default 5000), then
runs, R times each (default 5), `emb-opt` alone (parse, verify, print: the
floor), `emb-opt --emb-ikbo` and `emb-opt --emb-batch-tables --emb-ikbo`,
with emb-verify after every pass as emb-opt does by default. Prints the
median and the spread of the wall time of each, and exits 1 if the median of
`--emb-ikbo` is over the limit (default 1 s, the issue's bar).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--emb-opt", default=os.path.join(HERE, "..", "..", "build",
                                                      "bin", "emb-opt"))
    ap.add_argument("--ops", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--limit", type=float, default=1.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "ranking_blocks.mlir")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_module.py"),
                        "--ops", str(args.ops), "-o", module], check=True)
        runs = [
            ("parse + verify + print", []),
            ("--emb-ikbo", ["--emb-ikbo"]),
            ("--emb-batch-tables --emb-ikbo", ["--emb-batch-tables",
                                               "--emb-ikbo"]),
        ]
        medians = {}
        print(f"{'emb-opt':32} {'median s':>9} {'min s':>7} {'max s':>7}")
        for name, flags in runs:
            t = timed([args.emb_opt, module] + flags, args.repeat)
            medians[name] = statistics.median(t)
            print(f"{name:32} {medians[name]:9.3f} {min(t):7.3f} {max(t):7.3f}")
    ikbo = medians["--emb-ikbo"]
    verdict = "under" if ikbo < args.limit else "OVER"
    print(f"emb-ikbo on {args.ops}+ ops: {ikbo:.3f} s, {verdict} the "
          f"{args.limit:g} s limit")
    return 0 if ikbo < args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
