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
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from time_passes import arguments, time_module, verdict  # noqa: E402


def what_it_made(args):
    """Prints the emb ops and the linalg ops left after each pipeline."""
    def after(module):
        for flag in ("--emb-raise", "--emb-from-torch"):
            out = subprocess.run([args.emb_opt, module, flag], check=True,
                                 capture_output=True, text=True).stdout
            ops = sorted(set(re.findall(r'"(emb\.\w+)"', out)))
            counts = ", ".join(f"{out.count(chr(34) + o + chr(34))} {o}" for o in ops)
            left = len(re.findall(r"= linalg\.\w+", out))
            print(f"after {flag}: {counts}; {left} linalg ops left")
    return after


def main():
    args = arguments(__doc__, 7)
    medians = time_module(args, "gen_torch_module.py", [
        ("parse + verify + print", []),
        ("--emb-raise", ["--emb-raise"]),
        ("--emb-from-torch", ["--emb-from-torch"]),
    ], what_it_made(args))
    return verdict("emb-raise", medians["--emb-raise"], args)


if __name__ == "__main__":
    sys.exit(main())
