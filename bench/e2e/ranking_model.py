#!/usr/bin/env python3
"""Writes the end-to-end ranking model of issue 13 in the form torch-mlir's
linalg-on-tensors output takes, at any shape.

    ranking_model.py [--shape full|small] [-o FILE]

`full` is the benchmark (examples/ranking_model.mlir): one request of 32
users and 2048 candidates, 32 user and 32 candidate features of 1e6 x 128
f16 tables each, a user history of up to 1024 ids, target attention, a
linear compression to 64 rows and an MLP 8192 -> 1024 -> 256 -> 1. `small`
is its twin at shapes the CPU reference runs in lit
(examples/torch/ranking_model_small.mlir), `small16` the same at D 16
(bench/e2e/ranking_int4.sh's dry run). test/Examples/ranking_model.test
checks that this script writes both files byte for byte.

The PyTorch module it comes from is written into the file's header
(`forward`, below); bench/e2e/ranking.py holds the same model in PyTorch.
The forms follow torch-mlir's conversions (lib/Conversion/TorchToLinalg):
embedding_bag's masked-select generic, aten.embedding's gather with its two
cf.asserts, index_select's gather, F.linear as a transpose of the weight, a
matmul into an f32 zero fill (f16 accumulates in f32) and a truncf, the
bias and relu/sigmoid generics, torch.matmul(W, X) as W copied to every row
and a batch_matmul, PyTorch's math decomposition of SDPA with a boolean
mask (q and k^T scaled by sqrt(scale), the mask made additive by
where(mask, 0, -inf) and added to the scores, _safe_softmax in f32 between
an extf and a truncf, its -inf guard). Elementwise generics follow
createElementwiseLinalgGeneric's broadcasting: inputs right-aligned to the
loops, a dim of static size 1 read at the constant 0.

FBGEMM's jagged_to_padded_dense (the sequence feature, TorchRec's
EmbeddingCollection with pooling none) has no torch-mlir lowering: an
exporter writes emb.jagged_to_padded for it, whose lengths result is
min(length, Lk) per user (what offsets.diff() gives for the lengths here).
Standard library only.
"""
import argparse
import sys

SHAPES = {
    # U users, R candidates a user, FU/FC features, E rows a table (ES for
    # the history), D dim, LU/LC ids a bag, LK history length, H heads of DH,
    # M LCE rows, MLP hidden sizes; SEQ: history lengths for inputs.
    "full": dict(U=32, R=64, FU=32, FC=32, E=1000000, ES=1000000, D=128,
                 LU=20, LC=4, LK=1024, H=2, DH=128, M=64, MLP=(1024, 256),
                 SEQ=(256, 1024)),
    "small": dict(U=4, R=3, FU=3, FC=3, E=50, ES=40, D=8, LU=3, LC=2, LK=6,
                  H=2, DH=8, M=4, MLP=(16, 8), SEQ=(0, 8)),
    # The small twin at D = 16, where an int4 row (16 bytes) is smaller than
    # an f16 one (32): the CPU dry run of bench/e2e/ranking_int4.sh.
    "small16": dict(U=4, R=3, FU=3, FC=3, E=50, ES=40, D=16, LU=3, LC=2, LK=6,
                    H=2, DH=16, M=4, MLP=(16, 8), SEQ=(0, 8)),
}


def ty(shape, elt):
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{elt}>"


def amap(n, results):
    dims = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


def ident(n):
    return amap(n, [f"d{i}" for i in range(n)])


class Writer:
    """Collects the function's lines and hands out fresh SSA names."""

    def __init__(self):
        self.lines = []
        self.counts = {}

    def fresh(self, what):
        n = self.counts.get(what, 0)
        self.counts[what] = n + 1
        return f"%{what}{n}"

    def emit(self, line):
        self.lines.append("    " + line)

    def const(self, what, value, elt):
        name = self.fresh(what)
        typed = "" if value in ("true", "false") else f" : {elt}"
        self.emit(f"{name} = arith.constant {value}{typed}")
        return name

    def empty(self, shape, elt, dyn=()):
        e = self.fresh("empty")
        self.emit(f"{e} = tensor.empty({', '.join(dyn)}) : {ty(shape, elt)}")
        return e

    def fill(self, value, shape, elt):
        c = self.const("cst", value, elt)
        e = self.empty(shape, elt)
        f = self.fresh("fill")
        self.emit(f"{f} = linalg.fill ins({c} : {elt}) outs({e} : {ty(shape, elt)}) -> {ty(shape, elt)}")
        return f

    def generic(self, ins, shape, elt, maps, kinds, body, init=None, what="g", dyn=()):
        """ins: [(name, shape, elt)]; body lines use %in0.. and %out."""
        if init is None:
            init = self.empty(shape, elt, dyn)
        r = self.fresh(what)
        ins_part = ""
        if ins:
            ins_part = (f"ins({', '.join(n for n, _, _ in ins)} : "
                        f"{', '.join(ty(s, e) for _, s, e in ins)}) ")
        kinds_s = ", ".join(f'"{k}"' for k in kinds)
        self.emit(f"{r} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                  f"iterator_types = [{kinds_s}]}} {ins_part}outs({init} : {ty(shape, elt)}) {{")
        args = [f"%in{i}: {e}" for i, (_, _, e) in enumerate(ins)] + [f"%out: {elt}"]
        self.emit(f"^bb0({', '.join(args)}):")
        for line in body:
            self.emit("  " + line)
        self.emit(f"}} -> {ty(shape, elt)}")
        return r

    def elementwise(self, ins, shape, elt, body, what="g"):
        """An elementwise op: inputs broadcast as torch-mlir does (right-
        aligned, a static size-1 dim read at 0)."""
        n = len(shape)
        maps = []
        for _, s, _ in ins:
            off = n - len(s)
            maps.append(amap(n, ["0" if d == 1 else f"d{off + j}" for j, d in enumerate(s)]))
        return self.generic(ins, shape, elt, maps + [ident(n)], ["parallel"] * n, body, what=what)

    def reshape(self, op, x, groups, src, dst, elt):
        r = self.fresh("collapsed" if op == "collapse" else "expanded")
        g = "[" + ", ".join("[" + ", ".join(map(str, grp)) + "]" for grp in groups) + "]"
        out = f" output_shape [{', '.join(map(str, dst))}]" if op == "expand" else ""
        into = "into"
        self.emit(f"{r} = tensor.{op}_shape {x} {g}{out} : {ty(src, elt)} {into} {ty(dst, elt)}")
        return r

    def transpose(self, x, shape, perm, elt):
        out = [shape[p] for p in perm]
        e = self.empty(out, elt)
        r = self.fresh("transposed")
        self.emit(f"{r} = linalg.transpose ins({x} : {ty(shape, elt)}) outs({e} : {ty(out, elt)}) "
                  f"permutation = [{', '.join(map(str, perm))}]")
        return r, out

    def concat(self, parts, dim, elt):
        shape = list(parts[0][1])
        shape[dim] = sum(p[1][dim] for p in parts)
        r = self.fresh("concat")
        self.emit(f"{r} = tensor.concat dim({dim}) {', '.join(p[0] for p in parts)} : "
                  f"({', '.join(ty(p[1], elt) for p in parts)}) -> {ty(shape, elt)}")
        return r, shape


#===------------------------------------------------------------------------===#
# The forms of the PyTorch operations
#===------------------------------------------------------------------------===#

F16 = "f16"


def embedding_bag_sum(w, table, ids, offsets, rows, dim, n, bags):
    """F.embedding_bag(ids, table, offsets, mode="sum"): the masked-select
    generic over (bag, id, column) of IndirectDataMovement.cpp."""
    acc = w.fill("0.000000e+00", [bags, dim], F16)
    body = [
        "%b = linalg.index 0 : index",
        "%b64 = arith.index_cast %b : index to i64",
        "%next_b = arith.addi %b64, %c1_i64 : i64",
        "%next_i = arith.index_cast %next_b : i64 to index",
        f"%is_last = arith.cmpi eq, %next_b, %c{bags}_i64 : i64",
        "%safe = arith.select %is_last, %c0, %next_i : index",
        f"%start = tensor.extract {offsets}[%safe] : {ty([bags], 'i64')}",
        f"%end = arith.select %is_last, %c{n}_i64, %start : i64",
        "%j = linalg.index 1 : index",
        "%j64 = arith.index_cast %j : index to i64",
        "%before = arith.cmpi slt, %in1, %j64 : i64",
        "%at = arith.cmpi eq, %in1, %j64 : i64",
        "%from = arith.ori %before, %at : i1",
        "%to = arith.cmpi slt, %j64, %end : i64",
        "%in_bag = arith.andi %from, %to : i1",
        "%row = arith.index_cast %in0 : i64 to index",
        "%col = linalg.index 2 : index",
        f"%x = tensor.extract {table}[%row, %col] : {ty([rows, dim], F16)}",
        f"%sum = arith.addf %x, %out : {F16}",
        f"%y = arith.select %in_bag, %sum, %out : {F16}",
        f"linalg.yield %y : {F16}",
    ]
    return w.generic([(ids, [n], "i64"), (offsets, [bags], "i64")], [bags, dim], F16,
                     [amap(3, ["d1"]), amap(3, ["d0"]), amap(3, ["d0", "d2"])],
                     ["parallel", "reduction", "parallel"], body, init=acc, what="bag")


def embedding_dynamic(w, table, ids, rows, dim):
    """F.embedding(ids, table) over a dynamic number of ids, with
    aten.embedding's two cf.asserts."""
    n = w.fresh("n")
    w.emit(f"{n} = tensor.dim {ids}, %c0 : {ty([None], 'i64')}")
    body = [
        "%row = arith.index_cast %in0 : i64 to index",
        "%col = linalg.index 1 : index",
        f"%lt = arith.cmpi slt, %row, %c{rows} : index",
        'cf.assert %lt, "index must be smaller than dim size"',
        "%ge = arith.cmpi sge, %in0, %c0_i64 : i64",
        'cf.assert %ge, "index must be larger or equal to 0"',
        f"%x = tensor.extract {table}[%row, %col] : {ty([rows, dim], F16)}",
        f"linalg.yield %x : {F16}",
    ]
    return w.generic([(ids, [None], "i64")], [None, dim], F16, [amap(2, ["d0"]), ident(2)],
                     ["parallel", "parallel"], body, what="rows", dyn=(n,))


def gather(w, src, shape, idx, n, elt):
    """torch.index_select(src, 0, idx)."""
    r = len(shape)
    body = ["%u = arith.index_cast %in0 : i64 to index"]
    body += [f"%i{j} = linalg.index {j} : index" for j in range(1, r)]
    where = ", ".join(["%u"] + [f"%i{j}" for j in range(1, r)])
    body += [f"%x = tensor.extract {src}[{where}] : {ty(shape, elt)}", f"linalg.yield %x : {elt}"]
    return w.generic([(idx, [n], "i64")], [n] + shape[1:], elt, [amap(r, ["d0"]), ident(r)],
                     ["parallel"] * r, body, what="gathered")


def truncate(w, x, shape):
    return w.elementwise([(x, shape, "f32")], shape, F16,
                         [f"%t = arith.truncf %in0 : f32 to {F16}", f"linalg.yield %t : {F16}"])


def linear(w, x, weight, rows, k, n, bias=None, act=None):
    """F.linear(x[rows, k], weight[n, k], bias) (+ relu or sigmoid): the
    weight transposed (aten.t), a matmul into an f32 zero fill, truncf, then
    the bias and the activation as elementwise generics."""
    wt, _ = w.transpose(weight, [n, k], [1, 0], F16)
    acc = w.fill("0.000000e+00", [rows, n], "f32")
    mm = w.fresh("mm")
    w.emit(f"{mm} = linalg.matmul ins({x}, {wt} : {ty([rows, k], F16)}, {ty([k, n], F16)}) "
           f"outs({acc} : {ty([rows, n], 'f32')}) -> {ty([rows, n], 'f32')}")
    y = truncate(w, mm, [rows, n])
    if bias is not None:
        y = w.elementwise([(y, [rows, n], F16), (bias, [n], F16)], [rows, n], F16,
                          [f"%s = arith.addf %in0, %in1 : {F16}", f"linalg.yield %s : {F16}"])
    if act == "relu":
        y = w.elementwise([(y, [rows, n], F16)], [rows, n], F16,
                          [f"%p = arith.cmpf ugt, %in0, %cst_f16 : {F16}",
                           f"%r = arith.select %p, %in0, %cst_f16 : {F16}",
                           f"linalg.yield %r : {F16}"])
    elif act == "sigmoid":
        y = w.elementwise([(y, [rows, n], F16)], [rows, n], F16,
                          [f"%neg = arith.negf %in0 : {F16}",
                           f"%e = math.exp %neg : {F16}",
                           f"%d = arith.addf %e, %one_f16 : {F16}",
                           f"%s = arith.divf %one_f16, %d : {F16}",
                           f"linalg.yield %s : {F16}"])
    return y


def scale(w, x, shape, factor):
    return w.elementwise([(x, shape, F16)], shape, F16,
                         [f"%m = arith.mulf %in0, {factor} : {F16}", f"linalg.yield %m : {F16}"])


def bmm4(w, x, y, b, h, m, k, n):
    """matmul of [B, H, m, k] and [B, H, k, n] (f16): collapsed to B*H, a
    batch_matmul into f32 zeros, truncf, expanded back."""
    cx = w.reshape("collapse", x, [[0, 1], [2], [3]], [b, h, m, k], [b * h, m, k], F16)
    cy = w.reshape("collapse", y, [[0, 1], [2], [3]], [b, h, k, n], [b * h, k, n], F16)
    acc = w.fill("0.000000e+00", [b * h, m, n], "f32")
    mm = w.fresh("bmm")
    w.emit(f"{mm} = linalg.batch_matmul ins({cx}, {cy} : {ty([b * h, m, k], F16)}, "
           f"{ty([b * h, k, n], F16)}) outs({acc} : {ty([b * h, m, n], 'f32')}) -> {ty([b * h, m, n], 'f32')}")
    t = truncate(w, mm, [b * h, m, n])
    return w.reshape("expand", t, [[0, 1], [2], [3]], [b * h, m, n], [b, h, m, n], F16)


def safe_softmax(w, x, shape, guard=True):
    """_safe_softmax(x, -1) of f16 scores [B, H, Lq, Lk]: the softmax in f32
    (max with its argmax, sub, exp, keepdim sum, div), truncf, and the guard
    that gives 0 where a row is all -inf (a plain softmax without it)."""
    n = len(shape)
    red, keep = shape[:-1], shape[:-1] + [1]
    xf = w.elementwise([(x, shape, F16)], shape, "f32",
                       [f"%e = arith.extf %in0 : {F16} to f32", "linalg.yield %e : f32"])
    idx = w.fill("0", red, "i64")
    init = w.fill("0xFF800000", red, "f32")
    mx = w.fresh("max")
    kept = amap(n, [f"d{i}" for i in range(n - 1)])
    kinds = ", ".join(['"parallel"'] * (n - 1) + ['"reduction"'])
    w.emit(f"{mx}:2 = linalg.generic {{indexing_maps = [{ident(n)}, {kept}, {kept}], "
           f"iterator_types = [{kinds}]}} ins({xf} : {ty(shape, 'f32')}) "
           f"outs({init}, {idx} : {ty(red, 'f32')}, {ty(red, 'i64')}) {{")
    w.emit("^bb0(%in0: f32, %out: f32, %out_i: i64):")
    for line in [f"%i = linalg.index {n - 1} : index", "%i64 = arith.index_cast %i : index to i64",
                 "%m = arith.maximumf %in0, %out : f32", "%gt = arith.cmpf ogt, %in0, %out : f32",
                 "%s = arith.select %gt, %i64, %out_i : i64", "linalg.yield %m, %s : f32, i64"]:
        w.emit("  " + line)
    w.emit(f"}} -> ({ty(red, 'f32')}, {ty(red, 'i64')})")
    groups = [[i] for i in range(n - 2)] + [[n - 2, n - 1]]
    mk = w.reshape("expand", f"{mx}#0", groups, red, keep, "f32")
    sub = w.elementwise([(xf, shape, "f32"), (mk, keep, "f32")], shape, "f32",
                        ["%s = arith.subf %in0, %in1 : f32", "linalg.yield %s : f32"])
    ex = w.elementwise([(sub, shape, "f32")], shape, "f32",
                       ["%e = math.exp %in0 : f32", "linalg.yield %e : f32"])
    acc = w.fill("0.000000e+00", keep, "f32")
    row = amap(n, [f"d{i}" for i in range(n - 1)] + ["0"])
    sm = w.generic([(ex, shape, "f32")], keep, "f32", [ident(n), row],
                   ["parallel"] * (n - 1) + ["reduction"],
                   ["%s = arith.addf %in0, %out : f32", "linalg.yield %s : f32"], init=acc, what="sum")
    div = w.elementwise([(ex, shape, "f32"), (sm, keep, "f32")], shape, "f32",
                        ["%s = arith.divf %in0, %in1 : f32", "linalg.yield %s : f32"])
    p = w.elementwise([(div, shape, "f32")], shape, F16,
                      [f"%t = arith.truncf %in0 : f32 to {F16}", f"linalg.yield %t : {F16}"])
    if not guard:
        return p
    eq = w.elementwise([(x, shape, F16)], shape, "i1",
                       [f"%q = arith.cmpf oeq, %in0, %ninf_f16 : {F16}", "linalg.yield %q : i1"])
    allacc = w.fill("true", keep, "i1")
    al = w.generic([(eq, shape, "i1")], keep, "i1", [ident(n), row],
                   ["parallel"] * (n - 1) + ["reduction"],
                   ["%s = arith.andi %in0, %out : i1", "linalg.yield %s : i1"], init=allacc, what="all")
    return w.elementwise([(al, keep, "i1"), ("%zero_f16_0d", [], F16), (p, shape, F16)], shape, F16,
                         [f"%s = arith.select %in0, %in1, %in2 : {F16}", f"linalg.yield %s : {F16}"])


#===------------------------------------------------------------------------===#
# The model
#===------------------------------------------------------------------------===#

def header(s, name, roles):
    U, R, B = s["U"], s["R"], s["U"] * s["R"]
    K = s["FU"] + s["FC"] + s["H"]
    lo, hi = s["SEQ"]
    return f"""\
// The end-to-end ranking model of issue 13 ({name} shapes), in the form
// torch-mlir's linalg-on-tensors output takes (written by
// bench/e2e/ranking_model.py --shape {name}; do not edit by hand). One
// request: U = {U} users, B = {B} candidates ({R} a user, sorted by user),
// f16 weights and activations, f32 accumulation.
//
//   def forward(self, user_tables, user_ids, user_offsets,    # {s['FU']} features
//               cand_tables, cand_ids, cand_offsets,          # {s['FC']} features
//               seq_table, seq_ids, seq_offsets, cand_to_user,
//               w_q, w_k, w_v, w_lce, w_1, b_1, w_2, b_2, w_3, b_3):
//       u = [F.embedding_bag(i, t, o, mode="sum")              # [U, D] each,
//            for t, i, o in zip(user_tables, user_ids, user_offsets)]  # {s['LU']} ids a bag
//       c = [F.embedding_bag(i, t, o, mode="sum")              # [B, D] each,
//            for t, i, o in zip(cand_tables, cand_ids, cand_offsets)]  # {s['LC']} ids a bag
//       seq = F.embedding(seq_ids, seq_table)                  # [N, D], N ids
//       padded, lengths = jagged_to_padded(seq, seq_offsets, {s['LK']})  # [U, Lk, D]
//       k = F.linear(padded, w_k).view(U, {s['LK']}, {s['H']}, {s['DH']})
//       v = F.linear(padded, w_v).view(U, {s['LK']}, {s['H']}, {s['DH']})
//       q = F.linear(c[0], w_q).view(B, 1, {s['H']}, {s['DH']})
//       key_mask = torch.arange({s['LK']}) < lengths.unsqueeze(1)     # [U, Lk]
//       o = F.scaled_dot_product_attention(
//           q.transpose(1, 2),
//           k.index_select(0, cand_to_user).transpose(1, 2),
//           v.index_select(0, cand_to_user).transpose(1, 2),
//           attn_mask=key_mask.index_select(0, cand_to_user)[:, None, None, :])
//       att = o.transpose(1, 2).reshape(B, {s['H']}, {s['DH']})        # H rows of D
//       x = torch.cat([torch.stack(u, 1).index_select(0, cand_to_user),
//                      torch.stack(c, 1), att], 1)             # [B, {K}, D]
//       z = torch.matmul(w_lce, x).flatten(1)                  # [B, {s['M']} * {s['D']}]
//       h = F.relu(F.linear(z, w_1, b_1))
//       h = F.relu(F.linear(h, w_2, b_2))
//       return torch.sigmoid(F.linear(h, w_3, b_3))            # [B, 1]
//
// jagged_to_padded is FBGEMM's jagged_to_padded_dense with lengths =
// offsets.diff() clamped to Lk; it has no torch-mlir lowering, and the
// exporter writes emb.jagged_to_padded for it. Tables: {s['E']} rows of D = {s['D']}
// ({s['ES']} for the history); history lengths {lo}..{hi} in the benchmark inputs.
// emb-raise, emb-ikbo and emb-batch-tables make of it two emb.tbe (user and
// candidate batch), the history's lookup and jagged_to_padded, one
// emb.ikbo_attention (masked by the lengths), one emb.ikbo_lce and the
// GEMMs of the projections and the MLP (docs/benchmarks.md, "End to end:
// the ranking model").
// emb-run inputs: {' '.join(roles)}
"""


STAGES = ("lookups", "sequence", "attention", "lce", "mlp")


def model(s, name, stage=None):
    """The model's function, or with `stage` one stage of it as a function
    of its own (for the per-stage breakdown of bench/e2e/ranking.sh): its
    inputs those of the model it reads and the results of the stages before
    it, its results what the stages after it read."""
    U, R = s["U"], s["R"]
    B = U * R
    FU, FC, E, ES, D = s["FU"], s["FC"], s["E"], s["ES"], s["D"]
    LU, LC, LK, H, DH, M = s["LU"], s["LC"], s["LK"], s["H"], s["DH"], s["M"]
    H1, H2 = s["MLP"]
    HD = H * DH
    K = FU + FC + H
    assert DH == D, "the attention's heads are LCE rows of D"
    assert stage is None or stage in STAGES, stage
    NU, NC = U * LU, B * LC
    args, roles = [], []

    def on(*stages):
        return stage is None or stage in stages

    def arg(nm, shape, elt, role):
        args.append((f"%{nm}", shape, elt))
        roles.append(role)
        return f"%{nm}"

    if on("lookups"):
        user = [(arg(f"user_table_{f}", [E, D], F16, "data"),
                 arg(f"user_ids_{f}", [NU], "i64", f"ids<{E}"),
                 arg(f"user_offsets_{f}", [U], "i64", f"offsets<{len(args) - 1}"))
                for f in range(FU)]
        cand = [(arg(f"cand_table_{f}", [E, D], F16, "data"),
                 arg(f"cand_ids_{f}", [NC], "i64", f"ids<{E}"),
                 arg(f"cand_offsets_{f}", [B], "i64", f"offsets<{len(args) - 1}"))
                for f in range(FC)]
    if on("sequence"):
        seq_table = arg("seq_table", [ES, D], F16, "data")
        seq_ids = arg("seq_ids", [None], "i64", f"ids<{ES}")
        lo, hi = s["SEQ"]
        seq_offsets = arg("seq_offsets", [U + 1], "i64", f"jagged<{len(args) - 1},{lo},{hi}")
    if stage == "attention":
        cand0 = arg("cand_0", [B, D], F16, "data")
        k4 = arg("keys", [U, LK, H, DH], F16, "data")
        v4 = arg("values", [U, LK, H, DH], F16, "data")
        lengths = arg("lengths", [U], "i64", f"ids<{LK + 1}")
    if stage == "lce":
        ustack = arg("user_features", [U, FU, D], F16, "data")
        cstack = arg("cand_features", [B, FC, D], F16, "data")
        att = arg("attention", [B, H, DH], F16, "data")
    if on("attention", "lce"):
        c2u = arg("cand_to_user", [B], "i64", f"index<{U}")
    if on("attention"):
        w_q = arg("w_q", [HD, D], F16, f"weight<{D}")
    if on("sequence"):
        w_k = arg("w_k", [HD, D], F16, f"weight<{D}")
        w_v = arg("w_v", [HD, D], F16, f"weight<{D}")
    if on("lce"):
        w_lce = arg("w_lce", [M, K], F16, f"weight<{K}")
    if stage == "mlp":
        zf = arg("compressed", [B, M * D], F16, "data")
    if on("mlp"):
        w_1 = arg("w_1", [H1, M * D], F16, f"weight<{M * D}")
        b_1 = arg("b_1", [H1], F16, f"weight<{M * D}")
        w_2 = arg("w_2", [H2, H1], F16, f"weight<{H1}")
        b_2 = arg("b_2", [H2], F16, f"weight<{H1}")
        w_3 = arg("w_3", [1, H2], F16, f"weight<{H2}")
        b_3 = arg("b_3", [1], F16, f"weight<{H2}")

    w = Writer()
    results = []
    # The constants canonicalize hoisted to the top.
    s2 = (1.0 / DH ** 0.5) ** 0.5
    for line in [
        "%c0 = arith.constant 0 : index",
        "%c0_i64 = arith.constant 0 : i64",
        "%c1_i64 = arith.constant 1 : i64",
        f"%c{U}_i64 = arith.constant {U} : i64",
        f"%c{B}_i64 = arith.constant {B} : i64",
        f"%c{NU}_i64 = arith.constant {NU} : i64",
        f"%c{NC}_i64 = arith.constant {NC} : i64",
        f"%c{ES} = arith.constant {ES} : index",
        "%cst_f16 = arith.constant 0.000000e+00 : f16",
        "%one_f16 = arith.constant 1.000000e+00 : f16",
        "%ninf_f16 = arith.constant 0xFC00 : f16",
        f"%sqrt_scale = arith.constant {s2:.6e} : f16",
        "%zero_f16_0d = arith.constant dense<0.000000e+00> : tensor<f16>",
        "%ninf_f16_0d = arith.constant dense<0xFC00> : tensor<f16>",
    ]:
        if "    " + line not in w.lines:  # U * LU may equal B
            w.emit(line)

    def stacks():
        ue = [w.reshape("expand", x, [[0], [1, 2]], [U, D], [U, 1, D], F16) for x in ub]
        us, _ = w.concat([(x, [U, 1, D]) for x in ue], 1, F16)
        ce = [w.reshape("expand", x, [[0], [1, 2]], [B, D], [B, 1, D], F16) for x in cb]
        cs, _ = w.concat([(x, [B, 1, D]) for x in ce], 1, F16)
        return us, cs

    # Pooled lookups.
    if on("lookups"):
        ub = [embedding_bag_sum(w, t, i, o, E, D, NU, U) for t, i, o in user]
        cb = [embedding_bag_sum(w, t, i, o, E, D, NC, B) for t, i, o in cand]
        cand0 = cb[0]
    if stage == "lookups":
        ustack, cstack = stacks()
        results += [(ustack, [U, FU, D], F16), (cstack, [B, FC, D], F16)]
    # The history, projected to keys and values.
    if on("sequence"):
        rows = embedding_dynamic(w, seq_table, seq_ids, ES, D)
        padded, lengths = w.fresh("padded"), w.fresh("lengths")
        w.emit(f'{padded}, {lengths} = "emb.jagged_to_padded"({rows}, {seq_offsets}) {{max_length = {LK} : i64}} : '
               f"({ty([None, D], F16)}, {ty([U + 1], 'i64')}) -> ({ty([U, LK, D], F16)}, {ty([U], 'i64')})")
        flat = w.reshape("collapse", padded, [[0, 1], [2]], [U, LK, D], [U * LK, D], F16)
        k2 = linear(w, flat, w_k, U * LK, D, HD)
        k4 = w.reshape("expand", k2, [[0, 1], [2, 3]], [U * LK, HD], [U, LK, H, DH], F16)
        v2 = linear(w, flat, w_v, U * LK, D, HD)
        v4 = w.reshape("expand", v2, [[0, 1], [2, 3]], [U * LK, HD], [U, LK, H, DH], F16)
    if stage == "sequence":
        results += [(k4, [U, LK, H, DH], F16), (v4, [U, LK, H, DH], F16), (lengths, [U], "i64")]
    # Target attention: the candidates' queries over their users' history.
    if on("attention"):
        q2 = linear(w, cand0, w_q, B, D, HD)
        q4 = w.reshape("expand", q2, [[0, 1], [2, 3]], [B, HD], [B, 1, H, DH], F16)
        # key_mask = arange(Lk) < lengths.unsqueeze(1), gathered per candidate.
        ar = w.generic([], [LK], "i64", [ident(1)], ["parallel"],
                       ["%i = linalg.index 0 : index", "%i64 = arith.index_cast %i : index to i64",
                        "linalg.yield %i64 : i64"], what="arange")
        len2 = w.reshape("expand", lengths, [[0, 1]], [U], [U, 1], "i64")
        mask_u = w.elementwise([(ar, [LK], "i64"), (len2, [U, 1], "i64")], [U, LK], "i1",
                               ["%lt = arith.cmpi slt, %in0, %in1 : i64", "linalg.yield %lt : i1"],
                               what="key_mask")
        mask_b = gather(w, mask_u, [U, LK], c2u, B, "i1")
        mask4 = w.reshape("expand", mask_b, [[0, 1, 2], [3]], [B, LK], [B, 1, 1, LK], "i1")
        # SDPA, PyTorch's math decomposition.
        kb = gather(w, k4, [U, LK, H, DH], c2u, B, F16)
        vb = gather(w, v4, [U, LK, H, DH], c2u, B, F16)
        qt, _ = w.transpose(q4, [B, 1, H, DH], [0, 2, 1, 3], F16)
        qs = scale(w, qt, [B, H, 1, DH], "%sqrt_scale")
        addmask = w.elementwise([(mask4, [B, 1, 1, LK], "i1"), ("%zero_f16_0d", [], F16),
                                 ("%ninf_f16_0d", [], F16)], [B, 1, 1, LK], F16,
                                [f"%s = arith.select %in0, %in1, %in2 : {F16}", f"linalg.yield %s : {F16}"],
                                what="attn_bias")
        kt, _ = w.transpose(kb, [B, LK, H, DH], [0, 2, 3, 1], F16)
        ks = scale(w, kt, [B, H, DH, LK], "%sqrt_scale")
        scores = bmm4(w, qs, ks, B, H, 1, DH, LK)
        masked = w.elementwise([(scores, [B, H, 1, LK], F16), (addmask, [B, 1, 1, LK], F16)],
                               [B, H, 1, LK], F16,
                               [f"%s = arith.addf %in0, %in1 : {F16}", f"linalg.yield %s : {F16}"],
                               what="masked")
        probs = safe_softmax(w, masked, [B, H, 1, LK])
        vt, _ = w.transpose(vb, [B, LK, H, DH], [0, 2, 1, 3], F16)
        o = bmm4(w, probs, vt, B, H, 1, LK, DH)
        ot, _ = w.transpose(o, [B, H, 1, DH], [0, 2, 1, 3], F16)
        att = w.reshape("collapse", ot, [[0, 1], [2], [3]], [B, 1, H, DH], [B, H, DH], F16)
    if stage == "attention":
        results += [(att, [B, H, DH], F16)]
    # The LCE of the users' features broadcast, the candidates' and the
    # attention's rows.
    if on("lce"):
        if stage is None:
            ustack, cstack = stacks()
        ubcast = gather(w, ustack, [U, FU, D], c2u, B, F16)
        x, _ = w.concat([(ubcast, [B, FU, D]), (cstack, [B, FC, D]), (att, [B, H, D])], 1, F16)
        wb = w.generic([(w_lce, [M, K], F16)], [B, M, K], F16, [amap(3, ["d1", "d2"]), ident(3)],
                       ["parallel"] * 3, [f"linalg.yield %in0 : {F16}"], what="w_rows")
        acc = w.fill("0.000000e+00", [B, M, D], "f32")
        z = w.fresh("lce")
        w.emit(f"{z} = linalg.batch_matmul ins({wb}, {x} : {ty([B, M, K], F16)}, {ty([B, K, D], F16)}) "
               f"outs({acc} : {ty([B, M, D], 'f32')}) -> {ty([B, M, D], 'f32')}")
        z16 = truncate(w, z, [B, M, D])
        zf = w.reshape("collapse", z16, [[0], [1, 2]], [B, M, D], [B, M * D], F16)
    if stage == "lce":
        results += [(zf, [B, M * D], F16)]
    # The MLP.
    if on("mlp"):
        h = linear(w, zf, w_1, B, M * D, H1, b_1, "relu")
        h = linear(w, h, w_2, B, H1, H2, b_2, "relu")
        y = linear(w, h, w_3, B, H2, 1, b_3, "sigmoid")
        results += [(y, [B, 1], F16)]
    w.emit(f"return {', '.join(r for r, _, _ in results)} : "
           f"{', '.join(ty(sh, e) for _, sh, e in results)}")

    sig = ", ".join(f"{n}: {ty(sh, e)}" for n, sh, e in args)
    rtypes = ", ".join(ty(sh, e) for _, sh, e in results)
    if len(results) > 1:
        rtypes = f"({rtypes})"
    fname = "ranking_model" if stage is None else f"ranking_stage_{stage}"
    if stage is None:
        head = header(s, name, roles)
    else:
        head = (f"// Stage `{stage}` of the end-to-end ranking model ({name} shapes), as a\n"
                f"// function of its own for the per-stage breakdown of bench/e2e/ranking.sh\n"
                f"// (written by bench/e2e/ranking_model.py --shape {name} --stage {stage}).\n"
                f"// emb-run inputs: {' '.join(roles)}\n")
    out = [head, "module {", f"  func.func @{fname}({sig}) -> {rtypes} {{"]
    out += w.lines
    out += ["  }", "}"]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", choices=sorted(SHAPES), default="full")
    ap.add_argument("--stage", choices=STAGES,
                    help="one stage of the model as a function of its own")
    ap.add_argument("-o", "--output", help="file to write (default stdout)")
    a = ap.parse_args()
    text = model(SHAPES[a.shape], a.shape, a.stage)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
