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


def arguments(doc, repeat):
    """The command line both timing scripts take."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--emb-opt", default=os.path.join(HERE, "..", "..", "build",
                                                      "bin", "emb-opt"))
    ap.add_argument("--ops", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=repeat)
    ap.add_argument("--limit", type=float, default=1.0)
    return ap.parse_args()


def time_module(args, generator, runs, after=None):
    """Writes a module of at least args.ops ops with `generator` (a script
    here), times emb-opt on it with each (name, flags) of `runs` and prints
    the table; calls after(module path) before the module goes. Returns the
    median of each run by name."""
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "module.mlir")
        subprocess.run([sys.executable, os.path.join(HERE, generator),
                        "--ops", str(args.ops), "-o", module], check=True)
        medians = {}
        print(f"{'emb-opt':32} {'median s':>9} {'min s':>7} {'max s':>7}")
        for name, flags in runs:
            t = timed([args.emb_opt, module] + flags, args.repeat)
            medians[name] = statistics.median(t)
            print(f"{name:32} {medians[name]:9.3f} {min(t):7.3f} {max(t):7.3f}")
        if after:
            after(module)
    return medians


def verdict(what, seconds, args):
    """Prints whether `what` took under the limit; the exit status."""
    word = "under" if seconds < args.limit else "OVER"
    print(f"{what} on {args.ops}+ ops: {seconds:.3f} s, {word} the "
          f"{args.limit:g} s limit")
    return 0 if seconds < args.limit else 1


def main():
    args = arguments(__doc__, 5)
    medians = time_module(args, "gen_module.py", [
        ("parse + verify + print", []),
        ("--emb-ikbo", ["--emb-ikbo"]),
        ("--emb-batch-tables --emb-ikbo", ["--emb-batch-tables",
                                           "--emb-ikbo"]),
    ])
    return verdict("emb-ikbo", medians["--emb-ikbo"], args)


if __name__ == "__main__":
    sys.exit(main())
