#!/usr/bin/env python3
"""Times emb's raising on a generated module in torch-mlir's form.

Usage: time_raise.py [--emb-opt BIN] [--ops N] [--repeat R] [--limit S]

Generates the module with gen_torch_module.py (at least N ops counted as
MLIR counts them, generic bodies included; default 5000), then runs, R
times each (default 7), `emb-opt` alone (parse, verify, print: the floor),
`emb-opt --emb-raise` and `emb-opt --emb-from-torch`, with emb-verify after
every pass as emb-opt does by default. Prints the median and the spread of
the wall time of each and what the raise made, and exits 1 if the median of
`--emb-raise` is over the limit (default 1 s, the issue's bar).
"""
import argparse
import os
import re
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
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--limit", type=float, default=1.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "torch_blocks.mlir")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_torch_module.py"),
                        "--ops", str(args.ops), "-o", module], check=True)
        runs = [("parse + verify + print", []),
                ("--emb-raise", ["--emb-raise"]),
                ("--emb-from-torch", ["--emb-from-torch"])]
        medians = {}
        print(f"{'emb-opt':32} {'median s':>9} {'min s':>7} {'max s':>7}")
        for name, flags in runs:
            t = timed([args.emb_opt, module] + flags, args.repeat)
            medians[name] = statistics.median(t)
            print(f"{name:32} {medians[name]:9.3f} {min(t):7.3f} {max(t):7.3f}")
        for flag in ("--emb-raise", "--emb-from-torch"):
            out = subprocess.run([args.emb_opt, module, flag], check=True,
                                 capture_output=True, text=True).stdout
            ops = sorted(set(re.findall(r'"(emb\.\w+)"', out)))
            counts = ", ".join(f"{out.count(chr(34) + o + chr(34))} {o}" for o in ops)
            left = len(re.findall(r"= linalg\.\w+", out))
            print(f"after {flag}: {counts}; {left} linalg ops left")
    raise_s = medians["--emb-raise"]
    verdict = "under" if raise_s < args.limit else "OVER"
    print(f"emb-raise on {args.ops}+ ops: {raise_s:.3f} s, {verdict} the "
          f"{args.limit:g} s limit")
    return 0 if raise_s < args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
