"""Inputs and the expected result of quantized_tbe.mlir, without NumPy.

  quantized_tbe.py make DIR    writes q4.npy (int4, D 8), q8.npy (int8, D 4),
                               f8.npy (fp8, D 4), dense.npy (f32, D 2),
                               ids.npy, offsets.npy and want.npy (the pooled
                               sums, f32 [B, 26])
  quantized_tbe.py check GOT WANT TOL
                               exits 1 unless every |got - want| <= TOL *
                               max(1, |want|)

The rows are random bytes with chosen f16 scales and biases (and f32 fp8
scales), decoded here as emb's format says (docs/dialect.md), apart from the
runtime's decoder.
"""
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npy  # noqa: E402

B = 3
ROWS = 5


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def e4m3(code):
    e, m = (code >> 3) & 15, code & 7
    v = m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
    return -v if code & 0x80 else v


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def int_table(rng, bits, dim):
    """Packed rows and their decoded values (fmaf: one f32 rounding)."""
    row_bytes = (4 + dim * bits // 8 + 15) // 16 * 16
    data, values = [], []
    for _ in range(ROWS):
        scale, bias = f16(rng.uniform(0.01, 0.5)), f16(rng.uniform(-1, 1))
        qs = [rng.randrange(1 << bits) for _ in range(dim)]
        packed = [0] * (row_bytes - 4)
        for d, q in enumerate(qs):
            packed[d * bits // 8] |= q << (d * bits % 8)
        data += list(struct.pack("<ee", scale, bias)) + packed
        values.append([f32(scale * q + bias) for q in qs])
    return data, row_bytes, values


def fp8_table(rng, dim):
    row_bytes = (4 + dim + 15) // 16 * 16
    data, values = [], []
    for _ in range(ROWS):
        scale = f32(rng.uniform(0.001, 0.01))
        codes = [rng.choice([c for c in range(256) if c & 0x7f != 0x7f])
                 for _ in range(dim)]
        data += list(struct.pack("<f", scale)) + codes + [0] * (row_bytes - 4 - dim)
        values.append([f32(e4m3(c) * scale) for c in codes])
    return data, row_bytes, values


def write_bytes(path, rows, row_bytes, data):
    signed = [b - 256 if b > 127 else b for b in data]
    header = "{'descr': '|i1', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, row_bytes)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%db" % len(signed), *signed))


def make(out):
    rng = random.Random(39)
    tables = []
    data, rb, vals = int_table(rng, 4, 8)
    write_bytes(os.path.join(out, "q4.npy"), ROWS, rb, data)
    tables.append(vals)
    data, rb, vals = int_table(rng, 8, 4)
    write_bytes(os.path.join(out, "q8.npy"), ROWS, rb, data)
    tables.append(vals)
    data, rb, vals = fp8_table(rng, 4)
    write_bytes(os.path.join(out, "f8.npy"), ROWS, rb, data)
    tables.append(vals)
    dense = [[f32(rng.uniform(-1, 1)) for _ in range(2)] for _ in range(ROWS)]
    npy.write(os.path.join(out, "dense.npy"), "f4", "%dx2" % ROWS,
              ",".join(repr(v) for r in dense for v in r))
    tables.append(dense)
    # Features 0..3 read tables 0..3, feature 4 reads table 0 again.
    feature_tables = [0, 1, 2, 3, 0]
    ids, offsets = [], [0]
    for f in range(len(feature_tables)):
        for b in range(B):
            ids += [rng.randrange(ROWS) for _ in range(0 if b == 1 else rng.randrange(1, 4))]
            offsets.append(len(ids))
    npy.write(os.path.join(out, "ids.npy"), "i8", str(len(ids)), ",".join(map(str, ids)))
    npy.write(os.path.join(out, "offsets.npy"), "i8", str(len(offsets)),
              ",".join(map(str, offsets)))
    want = []
    for b in range(B):
        row = []
        for f, t in enumerate(feature_tables):
            dim = len(tables[t][0])
            acc = [0.0] * dim
            for i in range(offsets[f * B + b], offsets[f * B + b + 1]):
                for d in range(dim):
                    acc[d] += tables[t][ids[i]][d]
            row += acc
        want.append(row)
    npy.write(os.path.join(out, "want.npy"), "f4", "%dx%d" % (B, len(want[0])),
              ",".join(repr(v) for r in want for v in r))


def read(path):
    import ast
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + n].decode("latin1"))
    count = math.prod(header["shape"])
    return struct.unpack("<%df" % count, data[10 + n:10 + n + 4 * count])


def check(got_path, want_path, tol):
    got, want = read(got_path), read(want_path)
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want))
           if not abs(g - w) <= float(tol) * max(1.0, abs(w))]
    if len(got) != len(want) or bad:
        sys.exit("quantized_tbe.py: %d of %d differ, first %r" % (len(bad), len(want), bad[:1]))
    print("quantized_tbe.py: %d values match" % len(want))


if __name__ == "__main__":
    if sys.argv[1:2] == ["make"] and len(sys.argv) == 3:
        make(sys.argv[2])
    elif sys.argv[1:2] == ["check"] and len(sys.argv) == 5:
        check(*sys.argv[2:])
    else:
        sys.exit(__doc__)
