"""Writes a .npy file byte by byte, malformed as asked, for emb-run's tests
of bad inputs (no NumPy needed).

  raw_npy.py PATH SHAPE [--descr <f4] [--version 1.0] [--data N]
             [--trailing N] [--size N] [--header DICT]

SHAPE is the header's shape text as NumPy writes it, e.g. "(2, 3)" or
"(99999999999999999999, 3)"; --data writes N zero bytes of data (default:
what the shape needs, if that is small), --trailing N more bytes after
them, --size makes the file N bytes long without writing them (a sparse
file: a header that promises terabytes of data the file really holds).
--header writes DICT as the header's text instead of the dict made of
--descr and SHAPE (a key twice, another fortran_order); SHAPE still sizes
the data.
"""
import argparse
import struct

p = argparse.ArgumentParser()
p.add_argument("path")
p.add_argument("shape")
p.add_argument("--descr", default="<f4")
p.add_argument("--version", default="1.0")
p.add_argument("--data", type=int)
p.add_argument("--trailing", type=int, default=0)
p.add_argument("--size", type=int)
p.add_argument("--header")
a = p.parse_args()

major, minor = (int(v) for v in a.version.split("."))
header = a.header or "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (a.descr, a.shape)
length_bytes = 2 if major <= 1 else 4
header += " " * ((64 - (8 + length_bytes + len(header) + 1) % 64) % 64) + "\n"
if a.data is None:
    count = 1
    for d in a.shape.strip("()").split(","):
        if d.strip():
            count *= int(d)
    a.data = count * int(a.descr[2:]) if count < 1 << 20 else 0
with open(a.path, "wb") as f:
    f.write(b"\x93NUMPY" + bytes([major, minor]))
    f.write(struct.pack("<H" if length_bytes == 2 else "<I", len(header)))
    f.write(header.encode("latin1"))
    f.write(bytes(a.data + a.trailing))
    if a.size is not None:
        f.truncate(a.size)
