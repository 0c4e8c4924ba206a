#!/usr/bin/env python3
"""Writes a module of many ranking blocks for timing emb's passes.

Usage: gen_module.py [--ops N] [--blocks-per-func K] [-o FILE]

Each ranking block is the shape of examples/ranking_block.mlir at fp16:
user features from a TBE at user batch size, broadcast to candidate rows and
transformed there (expand_shape, tanh, a scale by a splat), candidate features
from one embedding_bag per feature, everything concatenated along K and
compressed by an lce; every third block also has a target attention on
broadcast keys and values and a broadcast bias add. Blocks are chained inside
a function (each block's output feeds the next block's candidate piece), K
functions to a module, until the module holds at least N ops (default 5000).
Every op the emb-ikbo pipeline rewrites appears in it: elementwise ops,
reshapes, concats, lce, attention and addf on broadcasts.
"""
import argparse
import sys

U, B, N, M = 4, 64, 16, 16   # users, candidates, embedding dim, lce rows
KU, KC = 3, 5                # user and candidate features (K pieces)
LQ, LK, H, DH = 2, 8, 2, 64  # attention shapes (LQ*H*DH = M*N)


def block(out, b, prev, with_attention):
    """Appends the ops of block `b` to `out`; returns its result's name."""
    ops = []
    p = f"%b{b}_"
    ops.append(f'{p}h0 = "emb.table"(%ut0) : (tensor<100x{N}xf16>) -> !emb.table_handle')
    ops.append(f'{p}h1 = "emb.table"(%ut1) : (tensor<50x{N}xf16>) -> !emb.table_handle')
    ops.append(f'{p}user = "emb.tbe"(%uids, %uoff, {p}h0, {p}h1) {{pooling = "sum", '
               f'feature_tables = array<i64: 0, 1, 0>, operandSegmentSizes = array<i32: 1, 1, 2, 0>}} : '
               f'(tensor<?xi64>, tensor<{KU * U + 1}xi64>, !emb.table_handle, !emb.table_handle) '
               f'-> tensor<{U}x{KU * N}xf16>')
    ops.append(f'{p}ub = "emb.broadcast"({p}user, %c2u) : (tensor<{U}x{KU * N}xf16>, '
               f'tensor<{B}xi32>) -> tensor<{B}x{KU * N}xf16>')
    ops.append(f'{p}u3 = tensor.expand_shape {p}ub [[0], [1, 2]] output_shape [{B}, {KU}, {N}] : '
               f'tensor<{B}x{KU * N}xf16> into tensor<{B}x{KU}x{N}xf16>')
    ops.append(f'{p}act = math.tanh {p}u3 : tensor<{B}x{KU}x{N}xf16>')
    ops.append(f'{p}half = arith.constant dense<0.5> : tensor<{B}x{KU}x{N}xf16>')
    ops.append(f'{p}scaled = arith.mulf {p}act, {p}half : tensor<{B}x{KU}x{N}xf16>')
    bags = []
    for f in range(KC - 1):
        ops.append(f'{p}c{f} = "emb.embedding_bag"(%ct{f}, %cids{f}, %coff{f}) {{mode = "mean"}} : '
                   f'(tensor<200x{N}xf16>, tensor<?xi64>, tensor<{B + 1}xi64>) -> tensor<{B}x{N}xf16>')
        bags.append(f"{p}c{f}")
    # The previous block's output (its first row of M) is the last candidate
    # feature, which chains the blocks.
    ops.append(f'{p}prev = tensor.extract_slice {prev}[0, 0, 0] [{B}, 1, {N}] [1, 1, 1] : '
               f'tensor<{B}x{M}x{N}xf16> to tensor<{B}x1x{N}xf16>')
    ops.append(f'{p}cat = tensor.concat dim(1) {", ".join(bags)} : '
               f'({", ".join([f"tensor<{B}x{N}xf16>"] * len(bags))}) -> tensor<{B}x{(KC - 1) * N}xf16>')
    ops.append(f'{p}cand3 = tensor.expand_shape {p}cat [[0], [1, 2]] output_shape [{B}, {KC - 1}, {N}] : '
               f'tensor<{B}x{(KC - 1) * N}xf16> into tensor<{B}x{KC - 1}x{N}xf16>')
    ops.append(f'{p}x = tensor.concat dim(1) {p}scaled, {p}cand3, {p}prev : (tensor<{B}x{KU}x{N}xf16>, '
               f'tensor<{B}x{KC - 1}x{N}xf16>, tensor<{B}x1x{N}xf16>) -> tensor<{B}x{KU + KC}x{N}xf16>')
    ops.append(f'{p}y = "emb.lce"(%w, {p}x) : (tensor<{M}x{KU + KC}xf16>, tensor<{B}x{KU + KC}x{N}xf16>) '
               f'-> tensor<{B}x{M}x{N}xf16>')
    result = f"{p}y"
    if with_attention:
        # Target attention: the lce output, seen as [B, LQ, H, DH] queries,
        # attends to the user's keys and values; a per-user bias is added.
        q = f"tensor<{B}x{LQ}x{H}x{DH}xf16>"
        kv = f"tensor<{U}x{LK}x{H}x{DH}xf16>"
        kvb = f"tensor<{B}x{LK}x{H}x{DH}xf16>"
        flat = f"tensor<{B}x{M * N}xf16>"
        ops.append(f'{p}yf = tensor.collapse_shape {p}y [[0], [1, 2]] : tensor<{B}x{M}x{N}xf16> into {flat}')
        ops.append(f'{p}q = tensor.expand_shape {p}yf [[0], [1, 2, 3]] output_shape [{B}, {LQ}, {H}, {DH}] : '
                   f'{flat} into {q}')
        ops.append(f'{p}kb = "emb.broadcast"(%uk, %c2u) : ({kv}, tensor<{B}xi32>) -> {kvb}')
        ops.append(f'{p}vb = "emb.broadcast"(%uv, %c2u) : ({kv}, tensor<{B}xi32>) -> {kvb}')
        ops.append(f'{p}o = "emb.attention"({p}q, {p}kb, {p}vb) : ({q}, {kvb}, {kvb}) -> {q}')
        ops.append(f'{p}bias = "emb.broadcast"(%ubias, %c2u) : (tensor<{U}x{LQ}x{H}x{DH}xf16>, '
                   f'tensor<{B}xi32>) -> {q}')
        ops.append(f'{p}ob = arith.addf {p}o, {p}bias : {q}')
        ops.append(f'{p}of = tensor.collapse_shape {p}ob [[0], [1, 2, 3]] : {q} into {flat}')
        ops.append(f'{p}z = tensor.expand_shape {p}of [[0], [1, 2]] output_shape [{B}, {M}, {N}] : '
                   f'{flat} into tensor<{B}x{M}x{N}xf16>')
        result = f"{p}z"
    out.extend("    " + op for op in ops)
    return result, len(ops)


def function(out, name, blocks, first):
    args = [f"%ut0: tensor<100x{N}xf16>", f"%ut1: tensor<50x{N}xf16>",
            "%uids: tensor<?xi64>", f"%uoff: tensor<{KU * U + 1}xi64>",
            f"%c2u: tensor<{B}xi32>", f"%w: tensor<{M}x{KU + KC}xf16>",
            f"%uk: tensor<{U}x{LK}x{H}x{DH}xf16>", f"%uv: tensor<{U}x{LK}x{H}x{DH}xf16>",
            f"%ubias: tensor<{U}x{LQ}x{H}x{DH}xf16>", f"%x0: tensor<{B}x{M}x{N}xf16>"]
    for f in range(KC - 1):
        args += [f"%ct{f}: tensor<200x{N}xf16>", f"%cids{f}: tensor<?xi64>",
                 f"%coff{f}: tensor<{B + 1}xi64>"]
    out.append(f"  func.func @{name}({', '.join(args)}) -> tensor<{B}x{M}x{N}xf16> {{")
    prev, count = "%x0", 2  # func.func and func.return
    for b in range(blocks):
        prev, n = block(out, b, prev, (first + b) % 3 == 0)
        count += n
    out.append(f"    return {prev} : tensor<{B}x{M}x{N}xf16>")
    out.append("  }")
    return count


def write_module(text, output, tool, total, functions):
    """Writes the module to `output` ("-": stdout) and says its size."""
    if output == "-":
        sys.stdout.write(text)
    else:
        with open(output, "w") as fh:
            fh.write(text)
    print(f"{tool}: {total} ops in {functions} functions", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=5000)
    ap.add_argument("--blocks-per-func", type=int, default=20)
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args()
    out = ["// Generated by bench/passes/gen_module.py: ranking blocks for timing "
           "emb's passes.", "module {"]
    total, f = 1, 0  # builtin.module
    while total < args.ops:
        total += function(out, f"ranking_{f}", args.blocks_per_func,
                          f * args.blocks_per_func)
        f += 1
    out.append("}")
    write_module("\n".join(out) + "\n", args.output, "gen_module.py", total, f)


if __name__ == "__main__":
    main()
