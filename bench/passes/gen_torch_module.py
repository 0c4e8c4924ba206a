#!/usr/bin/env python3
"""Writes a module of ranking blocks in the form torch-mlir emits, for timing
emb's raising.

Usage: gen_torch_module.py [--ops N] [--blocks-per-func K] [-o FILE]

Each block is the torch-mlir (linalg-on-tensors) form of the ranking block of
gen_module.py at fp16: three user features pooled by sum embedding bags at
user batch size (the masked-select generic), concatenated, a user-only tanh,
broadcast to the candidates by index_select of cand_to_user (a gather
generic), four candidate sum bags, everything concatenated along K and
compressed by torch.matmul(W, X) (W copied to every row, batch_matmul into an
f32 zero fill, truncf); every third block adds a target attention (SDPA
decomposed: scaled q and k^T, two batch_matmuls, the _safe_softmax generics)
over the user's keys and values gathered per candidate. Blocks are chained in
a function, K functions to a module, until the module holds at least N ops,
counted as MLIR counts them: every op, the ops in generic bodies included.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_forms as tf  # noqa: E402
from gen_module import write_module  # noqa: E402

U, B, N, M = 4, 64, 16, 16   # users, candidates, embedding dim, lce rows
KU, KC = 3, 4                # user features, candidate features (+1 chained)
K = KU + KC + 1
LQ, LK, H, DH = 2, 8, 2, 64  # attention (LQ*H*DH = M*N)
UIDS, CIDS = 3 * U, 2 * B    # ids per user feature, per candidate feature
E = "f16"


def block(wr, prev, with_attention):
    """The ops of one block; returns its [B, M, N] result."""
    users = [tf.emit_embedding_bag_sum(wr, f"%ut{i}", f"%uids{i}", f"%uoff{i}", (100, N), UIDS, U, E)
             for i in range(KU)]
    user, _ = tf.emit_concat(wr, [(u, [U, N]) for u in users], 1, E)
    user3 = wr.fresh("u3")
    wr.emit(f"{user3} = tensor.expand_shape {user} [[0], [1, 2]] output_shape [{U}, {KU}, {N}] : "
            f"{tf.ty([U, KU * N], E)} into {tf.ty([U, KU, N], E)}")
    act = wr.elementwise(user3, [U, KU, N], E, [f"%t = math.tanh %a0 : {E}", f"linalg.yield %t : {E}"])
    ub = tf.emit_gather(wr, act, "%c2u", [U, KU, N], B, E)
    cands = [tf.emit_embedding_bag_sum(wr, f"%ct{i}", f"%cids{i}", f"%coff{i}", (200, N), CIDS, B, E)
             for i in range(KC)]
    cand, _ = tf.emit_concat(wr, [(c, [B, N]) for c in cands], 1, E)
    cand3 = wr.fresh("c3")
    wr.emit(f"{cand3} = tensor.expand_shape {cand} [[0], [1, 2]] output_shape [{B}, {KC}, {N}] : "
            f"{tf.ty([B, KC * N], E)} into {tf.ty([B, KC, N], E)}")
    last = wr.fresh("p")
    wr.emit(f"{last} = tensor.extract_slice {prev}[0, 0, 0] [{B}, 1, {N}] [1, 1, 1] : "
            f"{tf.ty([B, M, N], E)} to {tf.ty([B, 1, N], E)}")
    x, _ = tf.emit_concat(wr, [(ub, [B, KU, N]), (cand3, [B, KC, N]), (last, [B, 1, N])], 1, E)
    y = tf.emit_lce(wr, "%w", x, B, M, K, N, E)
    if not with_attention:
        return y
    flat, q = wr.fresh("yf"), wr.fresh("q")
    wr.emit(f"{flat} = tensor.collapse_shape {y} [[0], [1, 2]] : {tf.ty([B, M, N], E)} into {tf.ty([B, M * N], E)}")
    wr.emit(f"{q} = tensor.expand_shape {flat} [[0], [1, 2, 3]] output_shape [{B}, {LQ}, {H}, {DH}] : "
            f"{tf.ty([B, M * N], E)} into {tf.ty([B, LQ, H, DH], E)}")
    kb = tf.emit_gather(wr, "%uk", "%c2u", [U, LK, H, DH], B, E)
    vb = tf.emit_gather(wr, "%uv", "%c2u", [U, LK, H, DH], B, E)
    qt, _ = tf.emit_transpose(wr, q, [B, LQ, H, DH], [0, 2, 1, 3], E)
    kt, _ = tf.emit_transpose(wr, kb, [B, LK, H, DH], [0, 2, 1, 3], E)
    vt, _ = tf.emit_transpose(wr, vb, [B, LK, H, DH], [0, 2, 1, 3], E)
    o = tf.emit_sdpa(wr, qt, kt, vt, B, H, LQ, LK, DH, E)
    ot, _ = tf.emit_transpose(wr, o, [B, H, LQ, DH], [0, 2, 1, 3], E)
    of, z = wr.fresh("of"), wr.fresh("z")
    wr.emit(f"{of} = tensor.collapse_shape {ot} [[0], [1, 2, 3]] : {tf.ty([B, LQ, H, DH], E)} into {tf.ty([B, M * N], E)}")
    wr.emit(f"{z} = tensor.expand_shape {of} [[0], [1, 2]] output_shape [{B}, {M}, {N}] : "
            f"{tf.ty([B, M * N], E)} into {tf.ty([B, M, N], E)}")
    return z


def count_ops(lines):
    """Ops as MLIR counts them: every op line, a generic's body included."""
    n = 0
    for line in lines:
        s = line.strip()
        if s.startswith("^bb") or s.startswith("}") or not s or s.startswith("//"):
            continue
        n += 1
    return n


def function(name, blocks, first):
    args = [f"%ut{i}: {tf.ty([100, N], E)}" for i in range(KU)]
    args += [f"%uids{i}: {tf.ty([UIDS], 'i64')}, %uoff{i}: {tf.ty([U], 'i64')}" for i in range(KU)]
    args += [f"%ct{i}: {tf.ty([200, N], E)}, %cids{i}: {tf.ty([CIDS], 'i64')}, %coff{i}: {tf.ty([B], 'i64')}"
             for i in range(KC)]
    args += [f"%c2u: {tf.ty([B], 'i64')}", f"%w: {tf.ty([M, K], E)}",
             f"%uk: {tf.ty([U, LK, H, DH], E)}", f"%uv: {tf.ty([U, LK, H, DH], E)}",
             f"%x0: {tf.ty([B, M, N], E)}"]
    wr = tf.Writer(f"{name}_")
    prev = "%x0"
    for b in range(blocks):
        wr.prefix = f"b{b}_"
        prev = block(wr, prev, (first + b) % 3 == 0)
    lines = [f"func.func @{name}({', '.join(args)}) -> {tf.ty([B, M, N], E)} {{"] + wr.lines
    lines.append(f"  return {prev} : {tf.ty([B, M, N], E)}")
    lines.append("}")
    return lines, count_ops(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=5000)
    ap.add_argument("--blocks-per-func", type=int, default=4)
    ap.add_argument("-o", "--output", default="-")
    args = ap.parse_args()
    out = ["// Generated by bench/passes/gen_torch_module.py: ranking blocks in "
           "torch-mlir's form for timing emb's raising."]
    total, f = 1, 0  # builtin.module
    while total < args.ops:
        lines, n = function(f"ranking_{f}", args.blocks_per_func, f * args.blocks_per_func)
        out += lines
        total += n
        f += 1
    write_module("\n".join(out) + "\n", args.output, "gen_torch_module.py",
                 total, f)

if __name__ == "__main__":
    main()
