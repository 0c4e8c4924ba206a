#!/usr/bin/env python3
"""Writes valid random inputs of a model in torch-mlir's form as .npy files.

Usage: npy_inputs.py MODEL.mlir OUTDIR [--seed S]

emb-run's --random-inputs learns what an argument holds (ids, offsets, a
cand_to_user) from the emb ops that read it, which a module in torch-mlir's
form has none of before it is raised. The examples under examples/torch/
say it in a comment, one role per argument of their function:

  // emb-run inputs: data ids<100 offsets<1 index<4 ...

  data       floats uniform in [-1, 1)
  weight<K   floats uniform in [-sqrt(6/K), sqrt(6/K)): a layer's weights of
             fan-in K (Kaiming's bound for relu layers), so that activations
             stay O(1) through the layers
  ids<R      ids uniform in [0, R)
  offsets<A  nondecreasing bag starts from 0, at most the length of argument
             A's ids (torch's offsets: one per bag, without the end)
  csr<A      nondecreasing bag bounds from 0 to the length of argument A's
             ids, the end included (include_last_offset=True, TorchRec's
             offsets: one per bag and the end)
  index<U    a cand_to_user: every user in [0, U) in sorted groups
  jagged<A,LO,HI
             the offsets of a jagged tensor (U + 1 of them, from 0): lengths
             uniform in [LO, HI]; argument A's dynamic first dim (its ids)
             is their total

Prints the comma-separated file names for emb-run --inputs. No numpy: the
.npy format is written by hand (f32, f16, i32, i64; bf16 as f32).
"""
import os
import random
import re
import struct
import sys

DTYPES = {"f32": ("<f4", "f"), "bf16": ("<f4", "f"), "f16": ("<f2", "e"),
          "i32": ("<i4", "i"), "i64": ("<i8", "q")}


def write_npy(path, dtype, shape, values):
    descr, code = DTYPES[dtype]
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}"
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<" + code * len(values), *values))


def main():
    model, outdir = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--seed" else 1
    rng = random.Random(seed)
    text = open(model).read()
    roles = re.search(r"// emb-run inputs: (.*)", text).group(1).split()
    sig = re.search(r"func\.func @\w+\((.*?)\) ->", text).group(1)
    types = re.findall(r"tensor<([0-9?x]*)x?(f32|f16|bf16|i32|i64)>", sig)
    assert len(types) == len(roles), (types, roles)
    shapes = [([d if d == "?" else int(d) for d in dims.split("x") if d], dt)
              for dims, dt in types]
    # Jagged offsets first: they size the dynamic dim of their ids.
    jagged = {}
    for i, role in enumerate(roles):
        kind, _, arg = role.partition("<")
        if kind == "jagged":
            a, lo, hi = (int(x) for x in arg.split(","))
            lengths = [rng.randint(lo, hi) for _ in range(shapes[i][0][0] - 1)]
            offsets = [0]
            for n in lengths:
                offsets.append(offsets[-1] + n)
            jagged[i] = offsets
            shapes[a][0][0] = offsets[-1]
    assert all("?" not in shape for shape, _ in shapes), "a dynamic dim no role sizes"
    os.makedirs(outdir, exist_ok=True)
    names = []
    for i, (role, (shape, dt)) in enumerate(zip(roles, shapes)):
        n = 1
        for d in shape:
            n *= d
        kind, _, arg = role.partition("<")
        if kind == "data":
            values = [rng.uniform(-1.0, 1.0) for _ in range(n)]
        elif kind == "weight":
            bound = (6.0 / int(arg)) ** 0.5
            values = [rng.uniform(-bound, bound) for _ in range(n)]
        elif kind == "ids":
            values = [rng.randrange(int(arg)) for _ in range(n)]
        elif kind == "offsets":
            ids = 1
            for d in shapes[int(arg)][0]:
                ids *= d
            values = sorted(rng.randrange(ids + 1) for _ in range(n))
            values[0] = 0
        elif kind == "csr":
            ids = 1
            for d in shapes[int(arg)][0]:
                ids *= d
            values = sorted(rng.randrange(ids + 1) for _ in range(n))
            values[0], values[-1] = 0, ids
        elif kind == "jagged":
            values = jagged[i]
        elif kind == "index":
            users = int(arg)
            # Every user at least once, in sorted groups of random sizes.
            cuts = sorted(rng.sample(range(1, n), users - 1))
            values, u = [], 0
            for b in range(n):
                while u < len(cuts) and b >= cuts[u]:
                    u += 1
                values.append(u)
        else:
            sys.exit(f"npy_inputs.py: unknown role '{role}'")
        path = os.path.join(outdir, f"arg{i}.npy")
        write_npy(path, dt, shape, values)
        names.append(path)
    print(",".join(names))


if __name__ == "__main__":
    main()
