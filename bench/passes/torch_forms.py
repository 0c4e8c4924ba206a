"""Writers of the linalg-on-tensors forms torch-mlir emits, for emb's raising.

Each function appends the ops of one PyTorch-level operation to a list of
lines, in the form torch-mlir's `torch-backend-to-linalg-on-tensors-backend-
pipeline` leaves it (canonicalized: constants hoisted, identity copies and
casts of equal types folded), and returns the SSA name of its result. The
forms follow torch-mlir's conversions (lib/Conversion/TorchToLinalg:
IndirectDataMovement.cpp for gathers and embedding bags, Linear.cpp for
matmul, Reduction.cpp for max/sum, Utils.cpp for broadcasts) and PyTorch's
decomposition of SDPA; docs/frontend.md lists them.

Names are made unique by a prefix per call; constants a form needs are
emitted next to it (the canonicalizer would hoist them; emb's matchers read
them wherever they are). Used by gen_torch_module.py.
"""


def ty(shape, elt):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + elt + ">"


def amap(n, results):
    dims = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


def ident(n):
    return amap(n, [f"d{i}" for i in range(n)])


def iters(kinds):
    return "[" + ", ".join(f'"{k}"' for k in kinds) + "]"


class Writer:
    """Collects lines; hands out fresh SSA names under a prefix."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.lines = []
        self.n = 0

    def fresh(self, what="v"):
        self.n += 1
        return f"%{self.prefix}{what}{self.n}"

    def emit(self, line):
        self.lines.append("  " + line)

    def empty(self, shape, elt):
        e = self.fresh("e")
        self.emit(f"{e} = tensor.empty() : {ty(shape, elt)}")
        return e

    def fill(self, value, shape, elt):
        c, f = self.fresh("c"), self.fresh("f")
        self.emit(f"{c} = arith.constant {value}" + ("" if value in ("true", "false") else f" : {elt}"))
        e = self.empty(shape, elt)
        self.emit(f"{f} = linalg.fill ins({c} : {elt}) outs({e} : {ty(shape, elt)}) -> {ty(shape, elt)}")
        return f

    def generic(self, ins, out_shape, out_elt, maps, kinds, body, arg_types, init=None):
        """ins: [(name, type)]; body: lines using %a0.. for args; last yields."""
        r = self.fresh("g")
        if init is None:
            init = self.empty(out_shape, out_elt)
        ins_s = ", ".join(n for n, _ in ins)
        ins_t = ", ".join(t for _, t in ins)
        ins_part = f"ins({ins_s} : {ins_t}) " if ins else ""
        self.emit(f"{r} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                  f"iterator_types = {iters(kinds)}}} {ins_part}outs({init} : {ty(out_shape, out_elt)}) {{")
        args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
        self.emit(f"^bb0({args}):")
        for line in body:
            self.emit("  " + line)
        self.emit(f"}} -> {ty(out_shape, out_elt)}")
        return r

    def elementwise(self, x, shape, elt, body, out_elt=None):
        n = len(shape)
        out_elt = out_elt or elt
        return self.generic([(x, ty(shape, elt))], shape, out_elt, [ident(n)] * 2,
                            ["parallel"] * n, body, [elt, out_elt])


def gather(w, idx, src_shape, n, elt, form="index_select", idx_elt="i64"):
    """x[idx] along dim 0 of a [U, ...] source: form is index_select,
    embedding (two cf.asserts) or index_tensor (negative ids wrap)."""
    r = len(src_shape)
    out = [n] + list(src_shape[1:])
    body = []
    if form == "index_tensor":
        body += [f"%z = arith.constant 0 : {idx_elt}",
                 f"%u = arith.constant {src_shape[0]} : {idx_elt}",
                 f"%neg = arith.cmpi slt, %a0, %z : {idx_elt}",
                 f"%add = arith.addi %a0, %u : {idx_elt}",
                 f"%id = arith.select %neg, %add, %a0 : {idx_elt}",
                 f"%i0 = arith.index_cast %id : {idx_elt} to index"]
    else:
        body.append(f"%i0 = arith.index_cast %a0 : {idx_elt} to index")
    for j in range(1, r):
        body.append(f"%i{j} = linalg.index {j} : index")
    if form == "embedding":
        body += [f"%rows = arith.constant {src_shape[0]} : index",
                 "%lt = arith.cmpi slt, %i0, %rows : index",
                 'cf.assert %lt, "index must be smaller than dim size"',
                 f"%z = arith.constant 0 : {idx_elt}",
                 f"%ge = arith.cmpi sge, %a0, %z : {idx_elt}",
                 'cf.assert %ge, "index must be larger or equal to 0"']
    body += [f"%x = tensor.extract {w}[{', '.join(f'%i{j}' for j in range(r))}] : {ty(src_shape, elt)}",
             f"linalg.yield %x : {elt}"]
    return body, out


def emit_gather(wr, w, idx, src_shape, n, elt, form="index_select", idx_elt="i64"):
    body, out = gather(w, idx, src_shape, n, elt, form, idx_elt)
    r = len(out)
    return wr.generic([(idx, ty([n], idx_elt))], out, elt,
                      [amap(r, ["d0"]), ident(r)], ["parallel"] * r, body, [idx_elt, elt])


def emit_embedding_bag_sum(wr, w, ids, offs, table, n, bags, elt="f32"):
    """aten._embedding_bag, sum mode: the masked-select generic."""
    e, d = table
    acc = wr.fill("0.000000e+00", [bags, d], elt)
    body = [
        "%c1 = arith.constant 1 : i64", "%c0 = arith.constant 0 : index",
        f"%nb = arith.constant {bags} : i64", f"%ni = arith.constant {n} : i64",
        "%b = linalg.index 0 : index", "%b64 = arith.index_cast %b : index to i64",
        "%b1 = arith.addi %b64, %c1 : i64", "%b1i = arith.index_cast %b1 : i64 to index",
        "%last = arith.cmpi eq, %nb, %b1 : i64", "%safe = arith.select %last, %c0, %b1i : index",
        f"%raw = tensor.extract {offs}[%safe] : {ty([bags], 'i64')}",
        "%next = arith.select %last, %ni, %raw : i64",
        "%j = linalg.index 1 : index", "%j64 = arith.index_cast %j : index to i64",
        "%lt = arith.cmpi slt, %a1, %j64 : i64", "%eq = arith.cmpi eq, %a1, %j64 : i64",
        "%le = arith.ori %lt, %eq : i1", "%end = arith.cmpi slt, %j64, %next : i64",
        "%in = arith.andi %le, %end : i1", "%row = arith.index_cast %a0 : i64 to index",
        "%col = linalg.index 2 : index",
        f"%x = tensor.extract {w}[%row, %col] : {ty([e, d], elt)}",
        f"%s = arith.addf %x, %a2 : {elt}", f"%y = arith.select %in, %s, %a2 : {elt}",
        f"linalg.yield %y : {elt}"]
    return wr.generic([(ids, ty([n], "i64")), (offs, ty([bags], "i64"))], [bags, d], elt,
                      [amap(3, ["d1"]), amap(3, ["d0"]), amap(3, ["d0", "d2"])],
                      ["parallel", "reduction", "parallel"], body, ["i64", "i64", elt], init=acc)


def emit_mean_divisor(wr, offs, n, bags, elt="f32"):
    """(offsets ++ [N]).diff().clamp(min=1).to(float).unsqueeze(1)."""
    last, ext, hi, lo = wr.fresh("n"), wr.fresh("x"), wr.fresh("h"), wr.fresh("l")
    wr.emit(f"{last} = arith.constant dense<{n}> : tensor<1xi64>")
    wr.emit(f"{ext} = tensor.concat dim(0) {offs}, {last} : ({ty([bags], 'i64')}, tensor<1xi64>) -> {ty([bags + 1], 'i64')}")
    wr.emit(f"{hi} = tensor.extract_slice {ext}[1] [{bags}] [1] : {ty([bags + 1], 'i64')} to {ty([bags], 'i64')}")
    wr.emit(f"{lo} = tensor.extract_slice {ext}[0] [{bags}] [1] : {ty([bags + 1], 'i64')} to {ty([bags], 'i64')}")
    v = ident(1)
    ln = wr.generic([(hi, ty([bags], "i64")), (lo, ty([bags], "i64"))], [bags], "i64", [v, v, v],
                    ["parallel"], ["%s = arith.subi %a0, %a1 : i64", "linalg.yield %s : i64"],
                    ["i64", "i64", "i64"])
    cl = wr.elementwise(ln, [bags], "i64", ["%one = arith.constant 1 : i64",
                                            "%p = arith.cmpi slt, %a0, %one : i64",
                                            "%s = arith.select %p, %one, %a0 : i64",
                                            "linalg.yield %s : i64"])
    fl = wr.elementwise(cl, [bags], "i64", [f"%s = arith.sitofp %a0 : i64 to {elt}",
                                            f"linalg.yield %s : {elt}"], out_elt=elt)
    un = wr.fresh("u")
    wr.emit(f"{un} = tensor.expand_shape {fl} [[0, 1]] output_shape [{bags}, 1] : "
            f"{ty([bags], elt)} into {ty([bags, 1], elt)}")
    return un


def emit_divide_rows(wr, s, den, shape, elt="f32"):
    return wr.generic([(s, ty(shape, elt)), (den, ty([shape[0], 1], elt))], shape, elt,
                      [ident(2), amap(2, ["d0", "0"]), ident(2)], ["parallel"] * 2,
                      [f"%s = arith.divf %a0, %a1 : {elt}", f"linalg.yield %s : {elt}"],
                      [elt, elt, elt])


def emit_lce(wr, w, x, b, m, k, n, elt):
    """torch.matmul(W[M,K], X[B,K,N]): W copied to [B,M,K], batch_matmul into
    a zero fill (f32 for f16/bf16, then truncf)."""
    wb = wr.generic([(w, ty([m, k], elt))], [b, m, k], elt,
                    [amap(3, ["d1", "d2"]), ident(3)], ["parallel"] * 3,
                    [f"linalg.yield %a0 : {elt}"], [elt, elt])
    acc_elt = "f32"
    acc = wr.fill("0.000000e+00", [b, m, n], acc_elt)
    y = wr.fresh("mm")
    wr.emit(f"{y} = linalg.batch_matmul ins({wb}, {x} : {ty([b, m, k], elt)}, {ty([b, k, n], elt)}) "
            f"outs({acc} : {ty([b, m, n], acc_elt)}) -> {ty([b, m, n], acc_elt)}")
    if elt == acc_elt:
        return y
    return wr.elementwise(y, [b, m, n], acc_elt, [f"%t = arith.truncf %a0 : f32 to {elt}",
                                                  f"linalg.yield %t : {elt}"], out_elt=elt)


def emit_concat(wr, parts, dim, elt):
    """parts: [(name, shape)]."""
    r = wr.fresh("cat")
    shape = list(parts[0][1])
    shape[dim] = sum(p[1][dim] for p in parts)
    wr.emit(f"{r} = tensor.concat dim({dim}) {', '.join(p[0] for p in parts)} : "
            f"({', '.join(ty(p[1], elt) for p in parts)}) -> {ty(shape, elt)}")
    return r, shape


def emit_transpose(wr, x, shape, perm, elt):
    out = [shape[p] for p in perm]
    e = wr.empty(out, elt)
    r = wr.fresh("t")
    wr.emit(f"{r} = linalg.transpose ins({x} : {ty(shape, elt)}) outs({e} : {ty(out, elt)}) "
            f"permutation = [{', '.join(str(p) for p in perm)}]")
    return r, out


def emit_sdpa(wr, q, k, v, b, h, lq, lk, d, elt="f32", guard=True):
    """PyTorch's math SDPA on q [B,H,Lq,D], k/v [B,H,Lk,D], decomposed and
    lowered: q and k^T scaled by sqrt(1/sqrt(D)), bmm, _safe_softmax, bmm."""
    s = (1.0 / d ** 0.5) ** 0.5
    scale = f"{s:.6e}"
    qs = wr.elementwise(q, [b, h, lq, d], elt, [f"%c = arith.constant {scale} : {elt}",
                                                f"%m = arith.mulf %a0, %c : {elt}",
                                                f"linalg.yield %m : {elt}"])
    kt, _ = emit_transpose(wr, k, [b, h, lk, d], [0, 1, 3, 2], elt)
    ks = wr.elementwise(kt, [b, h, d, lk], elt, [f"%c = arith.constant {scale} : {elt}",
                                                 f"%m = arith.mulf %a0, %c : {elt}",
                                                 f"linalg.yield %m : {elt}"])
    scores = emit_bmm4(wr, qs, ks, b, h, lq, d, lk, elt)
    x = scores
    if elt != "f32":
        x = wr.elementwise(scores, [b, h, lq, lk], elt, [f"%e = arith.extf %a0 : {elt} to f32",
                                                         "linalg.yield %e : f32"], out_elt="f32")
    p = emit_softmax(wr, x, [b, h, lq, lk])
    if elt != "f32":
        p = wr.elementwise(p, [b, h, lq, lk], "f32", [f"%t = arith.truncf %a0 : f32 to {elt}",
                                                      f"linalg.yield %t : {elt}"], out_elt=elt)
    if guard:
        p = emit_guard(wr, scores, p, [b, h, lq, lk], elt)
    return emit_bmm4(wr, p, v, b, h, lq, lk, d, elt)


def emit_bmm4(wr, x, y, b, h, m, k, n, elt):
    cx, cy = wr.fresh("cl"), wr.fresh("cl")
    wr.emit(f"{cx} = tensor.collapse_shape {x} [[0, 1], [2], [3]] : {ty([b, h, m, k], elt)} into {ty([b * h, m, k], elt)}")
    wr.emit(f"{cy} = tensor.collapse_shape {y} [[0, 1], [2], [3]] : {ty([b, h, k, n], elt)} into {ty([b * h, k, n], elt)}")
    acc = wr.fill("0.000000e+00", [b * h, m, n], "f32")
    r = wr.fresh("mm")
    wr.emit(f"{r} = linalg.batch_matmul ins({cx}, {cy} : {ty([b * h, m, k], elt)}, {ty([b * h, k, n], elt)}) "
            f"outs({acc} : {ty([b * h, m, n], 'f32')}) -> {ty([b * h, m, n], 'f32')}")
    if elt != "f32":
        r = wr.elementwise(r, [b * h, m, n], "f32", [f"%t = arith.truncf %a0 : f32 to {elt}",
                                                     f"linalg.yield %t : {elt}"], out_elt=elt)
    ex = wr.fresh("ex")
    wr.emit(f"{ex} = tensor.expand_shape {r} [[0, 1], [2], [3]] output_shape [{b}, {h}, {m}, {n}] : "
            f"{ty([b * h, m, n], elt)} into {ty([b, h, m, n], elt)}")
    return ex


def emit_softmax(wr, x, shape, elt="f32", dim=None):
    """softmax over `dim` (default the last): max (with argmax) + expand,
    sub, exp, keepdim sum, div."""
    n = len(shape)
    dim = n - 1 if dim is None else dim
    red = [s for i, s in enumerate(shape) if i != dim]
    keep = [1 if i == dim else s for i, s in enumerate(shape)]
    kinds = ["reduction" if i == dim else "parallel" for i in range(n)]
    kept = amap(n, [f"d{i}" for i in range(n) if i != dim])
    row = amap(n, ["0" if i == dim else f"d{i}" for i in range(n)])
    idx = wr.fill("0", red, "i64")
    init = wr.fill("0xFF800000", red, elt)
    mx = wr.fresh("max")
    wr.emit(f"{mx}:2 = linalg.generic {{indexing_maps = [{ident(n)}, {kept}, {kept}], "
            f"iterator_types = {iters(kinds)}}} "
            f"ins({x} : {ty(shape, elt)}) outs({init}, {idx} : {ty(red, elt)}, {ty(red, 'i64')}) {{")
    wr.emit(f"^bb0(%a0: {elt}, %a1: {elt}, %a2: i64):")
    for line in [f"%i = linalg.index {dim} : index", "%i64 = arith.index_cast %i : index to i64",
                 f"%m = arith.maximumf %a0, %a1 : {elt}", f"%gt = arith.cmpf ogt, %a0, %a1 : {elt}",
                 "%s = arith.select %gt, %i64, %a2 : i64", f"linalg.yield %m, %s : {elt}, i64"]:
        wr.emit("  " + line)
    wr.emit(f"}} -> ({ty(red, elt)}, {ty(red, 'i64')})")
    # The unit dim joins the group of the dim before it (or after, for 0).
    groups, g = [], []
    for i in range(n):
        g.append(i)
        if i != dim - 1 and not (dim == 0 and i == 0):
            groups.append(g)
            g = []
    mk = wr.fresh("mk")
    wr.emit(f"{mk} = tensor.expand_shape {mx}#0 [{', '.join(str(x) for x in groups)}] "
            f"output_shape [{', '.join(map(str, keep))}] : {ty(red, elt)} into {ty(keep, elt)}")
    sub = wr.generic([(x, ty(shape, elt)), (mk, ty(keep, elt))], shape, elt, [ident(n), row, ident(n)],
                     ["parallel"] * n, [f"%s = arith.subf %a0, %a1 : {elt}", f"linalg.yield %s : {elt}"],
                     [elt, elt, elt])
    ex = wr.elementwise(sub, shape, elt, [f"%e = math.exp %a0 : {elt}", f"linalg.yield %e : {elt}"])
    acc = wr.fill("0.000000e+00", keep, elt)
    sm = wr.generic([(ex, ty(shape, elt))], keep, elt, [ident(n), row], kinds,
                    [f"%s = arith.addf %a0, %a1 : {elt}", f"linalg.yield %s : {elt}"], [elt, elt], init=acc)
    return wr.generic([(ex, ty(shape, elt)), (sm, ty(keep, elt))], shape, elt, [ident(n), row, ident(n)],
                      ["parallel"] * n, [f"%s = arith.divf %a0, %a1 : {elt}", f"linalg.yield %s : {elt}"],
                      [elt, elt, elt])


def emit_guard(wr, scores, p, shape, elt):
    """_safe_softmax: where(all(scores == -inf, -1, keepdim), 0, p)."""
    n = len(shape)
    keep = shape[:-1] + [1]
    row = amap(n, [f"d{i}" for i in range(n - 1)] + ["0"])
    inf = "0xFF800000" if elt == "f32" else ("0xFC00" if elt == "f16" else "0xFF80")
    eq = wr.elementwise(scores, shape, elt, [f"%ninf = arith.constant {inf} : {elt}",
                                             f"%q = arith.cmpf oeq, %a0, %ninf : {elt}",
                                             "linalg.yield %q : i1"], out_elt="i1")
    acc = wr.fill("true", keep, "i1")
    al = wr.generic([(eq, ty(shape, "i1"))], keep, "i1", [ident(n), row],
                    ["parallel"] * (n - 1) + ["reduction"],
                    ["%s = arith.andi %a0, %a1 : i1", "linalg.yield %s : i1"], ["i1", "i1"], init=acc)
    zero = wr.fresh("z")
    wr.emit(f"{zero} = arith.constant dense<0.000000e+00> : tensor<{elt}>")
    return wr.generic([(al, ty(keep, "i1")), (zero, f"tensor<{elt}>"), (p, ty(shape, elt))], shape, elt,
                      [row, amap(n, []), ident(n), ident(n)], ["parallel"] * n,
                      [f"%s = arith.select %a0, %a1, %a2 : {elt}", f"linalg.yield %s : {elt}"],
                      ["i1", elt, elt, elt])
