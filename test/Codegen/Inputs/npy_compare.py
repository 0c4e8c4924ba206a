#!/usr/bin/env python3
"""Compares two .npy results as emb-run --compare-unoptimized does.

Usage: npy_compare.py GOT.npy WANT.npy [--tol T]

An element may differ by T of itself plus T of the largest magnitude of
WANT (at least 1): two correct computations that round in different places
differ by ulps of the values they rounded. T defaults by dtype: f32 1e-4,
f16 1e-2. Prints the largest absolute difference and `ok`, or `MISMATCH`
and exits 1. No numpy: the .npy format is read by hand.
"""
import ast
import struct
import sys

CODES = {"<f4": "f", "<f2": "e", "<f8": "d", "<i4": "i", "<i8": "q"}
TOL = {"<f4": 1e-4, "<f2": 1e-2, "<f8": 1e-4, "<i4": 0.0, "<i8": 0.0}


def read_npy(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    code = CODES[header["descr"]]
    n = 1
    for d in header["shape"]:
        n *= d
    body = data[10 + hlen:]
    return header["descr"], header["shape"], struct.unpack("<" + code * n, body[:n * struct.calcsize(code)])


def main():
    got_t, got_shape, got = read_npy(sys.argv[1])
    want_t, want_shape, want = read_npy(sys.argv[2])
    if got_t != want_t or got_shape != want_shape:
        print(f"MISMATCH: {got_t}{got_shape} against {want_t}{want_shape}")
        return 1
    tol = float(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--tol" else TOL[want_t]
    scale = max(1.0, max(abs(w) for w in want))
    worst, bad = 0.0, 0
    for g, w in zip(got, want):
        d = abs(g - w)
        worst = max(worst, d)
        if not d <= tol * scale + tol * abs(w):
            bad += 1
    verdict = "ok" if bad == 0 else f"MISMATCH ({bad} elements)"
    print(f"{got_shape}: max abs diff {worst:.3g} (tol {tol:g}): {verdict}")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
