"""Writes and prints small NumPy .npy files without NumPy, for tests that
feed emb-run known inputs and check its results by hand.

  npy.py write PATH DTYPE SHAPE VALUES   DTYPE f4, f8, i1, i4 or i8; SHAPE 5x2 (or
                                         'scalar'); VALUES comma-separated,
                                         or 'iota' for 0, 1, 2, ...
  npy.py print PATH                      one row (the last dim) per line
                                         (integers exact, floats as %g)
"""
import ast
import struct
import sys

FORMATS = {"<f4": "f", "<f8": "d", "<f2": "e", "<i8": "q", "<i4": "i", "|i1": "b"}


def write(path, dtype, shape, values):
    dims = () if shape == "scalar" else tuple(int(d) for d in shape.split("x"))
    count = 1
    for d in dims:
        count *= d
    if values == "iota":
        values = ",".join(str(i) for i in range(count))
    vals = [float(v) if dtype in ("f4", "f8") else int(v)
            for v in values.split(",") if v != ""]
    if len(vals) != count:
        sys.exit(f"npy.py: {len(vals)} values for shape {shape}")
    descr = ("|" if dtype == "i1" else "<") + dtype
    # NumPy's spelling: (), (4,), (5, 2).
    shape_text = "(" + ", ".join(str(d) for d in dims)
    shape_text += ",)" if len(dims) == 1 else ")"
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<" + FORMATS[descr] * count, *vals))


def show(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"npy.py: {path} is not a .npy file")
    n = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + n].decode("latin1"))
    fmt = FORMATS[header["descr"]]
    dims = header["shape"]
    count = 1
    for d in dims:
        count *= d
    vals = struct.unpack("<" + fmt * count, data[10 + n:10 + n + struct.calcsize(fmt) * count])
    row = dims[-1] if dims else 1
    for i in range(0, count, row):
        print(" ".join(str(v) if isinstance(v, int) else f"{v:g}"
                       for v in vals[i:i + row]))


if __name__ == "__main__":
    if sys.argv[1] == "write" and len(sys.argv) == 6:
        write(*sys.argv[2:])
    elif sys.argv[1] == "print" and len(sys.argv) == 3:
        show(sys.argv[2])
    else:
        sys.exit(__doc__)
