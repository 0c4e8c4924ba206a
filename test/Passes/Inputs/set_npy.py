#!/usr/bin/env python3
"""Sets elements of .npy files that npy_inputs.py wrote, in place.

Usage: set_npy.py FILE.npy INDEX=VALUE [INDEX=VALUE ...]

INDEX is a comma-separated position in the array's shape (2,3,0,1), or
`A:B` in a dim for every position from A to B - 1; VALUE a float (nan,
inf and -inf included) or an integer, written in the file's dtype
(<f2, <f4, <i4, <i8).
"""
import ast
import itertools
import struct
import sys

CODES = {"<f2": "e", "<f4": "f", "<i4": "i", "<i8": "q"}


def main():
    path = sys.argv[1]
    data = bytearray(open(path, "rb").read())
    (hlen,) = struct.unpack("<H", data[8:10])
    header = ast.literal_eval(data[10:10 + hlen].decode())
    code, shape = CODES[header["descr"]], header["shape"]
    size, start = struct.calcsize(code), 10 + hlen
    for item in sys.argv[2:]:
        where, value = item.split("=")
        ranges = []
        for dim, part in zip(shape, where.split(",")):
            lo, _, hi = part.partition(":")
            ranges.append(range(int(lo), int(hi)) if hi else [int(lo)])
        for index in itertools.product(*ranges):
            flat = 0
            for dim, i in zip(shape, index):
                assert 0 <= i < dim, "%s is outside %s" % (index, shape)
                flat = flat * dim + i
            x = float(value) if code in "ef" else int(value)
            struct.pack_into("<" + code, data, start + flat * size, x)
    open(path, "wb").write(bytes(data))


if __name__ == "__main__":
    main()
