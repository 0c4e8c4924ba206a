"""Reading and writing .npy files without NumPy, for bench/e2e/ranking.py.

The ranking model's 64 tables of 1e6 x 128 f16 are 16 GiB; a lookup touches
a few hundred thousand of their rows. `write_sparse_rows` writes a table's
header and only the rows given (at their place), and sizes the file with
truncate: the other rows are a hole, which reads as zeros. emb-run reads the
file as a dense array; torch builds the same table (zeros and the same rows)
in device memory. Standard library only.
"""
import ast
import os
import struct

DESCR = {"f16": "<f2", "f32": "<f4", "i64": "<i8", "i32": "<i4", "i8": "|i1"}
SIZE = {"f16": 2, "f32": 4, "i64": 8, "i32": 4, "i8": 1}


def header(dtype, shape):
    """The .npy (version 1.0) header of a C-order array."""
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    text = f"{{'descr': '{DESCR[dtype]}', 'fortran_order': False, 'shape': ({dims}), }}"
    pad = 64 - (10 + len(text) + 1) % 64
    text += " " * pad + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode()


def write(path, dtype, shape, data):
    """A dense array: `data` holds its bytes, C order."""
    n = SIZE[dtype]
    for d in shape:
        n *= d
    if len(data) != n:
        raise ValueError(f"{path}: {len(data)} bytes for {dtype} {shape} ({n} expected)")
    with open(path, "wb") as f:
        f.write(header(dtype, shape))
        f.write(data)


def write_sparse_rows(path, dtype, shape, rows, data):
    """A 2-D array of zeros but for `rows` (sorted, distinct), whose bytes
    are `data` (len(rows) rows, C order); the rest of the file is a hole."""
    h = header(dtype, shape)
    row_bytes = SIZE[dtype] * shape[1]
    if len(data) != row_bytes * len(rows):
        raise ValueError(f"{path}: {len(data)} bytes for {len(rows)} rows of {row_bytes}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, h)
        view = memoryview(data)
        for i, r in enumerate(rows):
            if not 0 <= r < shape[0]:
                raise ValueError(f"{path}: row {r} outside {shape[0]}")
            os.pwrite(fd, view[i * row_bytes:(i + 1) * row_bytes], len(h) + r * row_bytes)
        os.ftruncate(fd, len(h) + row_bytes * shape[0])
    finally:
        os.close(fd)


def read(path):
    """(dtype, shape, bytes) of a .npy file this module or emb-run wrote."""
    with open(path, "rb") as f:
        magic = f.read(8)
        if magic[:6] != b"\x93NUMPY":
            raise ValueError(f"{path}: not a .npy file")
        if magic[6] == 1:
            (hlen,) = struct.unpack("<H", f.read(2))
        else:
            (hlen,) = struct.unpack("<I", f.read(4))
        meta = ast.literal_eval(f.read(hlen).decode("latin1"))
        if meta.get("fortran_order"):
            raise ValueError(f"{path}: Fortran order")
        descr = meta["descr"]
        dtype = {v: k for k, v in DESCR.items()}.get(descr)
        if dtype is None:
            raise ValueError(f"{path}: dtype {descr} not read here")
        data = f.read()
    shape = tuple(meta["shape"])
    n = SIZE[dtype]
    for d in shape:
        n *= d
    if len(data) != n:
        raise ValueError(f"{path}: {len(data)} bytes of data, {n} expected")
    return dtype, shape, data
