"""Runs emb-shard's programs of every rank together and checks their numbers.

For each function of the input with one sharded emb.tbe, this script makes
every rank's program with `emb-opt --emb-shard{rank=r}` (after
`--emb-plan-sharding{...}` when --plan is given), interprets them in
lockstep on random inputs (each rank its own batch; the tables cut into the
shards the plan gives it), carrying out the collectives between the ranks,
and compares each rank's result with the unsharded emb.tbe on that rank's
batch. It prints one line per rank and function:

    @table_wise rank 1: 4x40, max abs diff 0

and exits non-zero if a result differs, a collective is issued by one rank
and not by the others, or their counts disagree.

The interpreter knows the ops emb-shard emits (emb.table, emb.bucketize
with or without per-sample weights,
emb.lengths_to_offsets, emb.all_to_all, emb.reduce_scatter,
emb.all_gather, emb.tbe, tensor.extract_slice, tensor.concat,
tensor.collapse_shape, tensor.expand_shape, tensor.empty), with the
semantics docs/dialect.md gives them. Plain Python, no numpy: the shapes
are small. Values are Python floats, so only the data flow is checked,
not f16/bf16 rounding.
"""

import os
import random
import re
import subprocess
import sys
import tempfile

# ---------------------------------------------------------------------------
# Parsing the generic form that emb-opt prints
# ---------------------------------------------------------------------------

OP_RE = re.compile(r'^\s*(?:(%[\w]+)(?::(\d+))? = )?"([\w.]+)"\((.*?)\)(.*)$')


def parse_type(t):
    t = t.strip()
    m = re.match(r"tensor<(.*)x([a-z]+\d+)>$", t)
    if m:
        dims = [(-1 if d == "?" else int(d)) for d in m.group(1).split("x")]
        return ("tensor", dims, m.group(2))
    m = re.match(r"tensor<([a-z]+\d+)>$", t)
    if m:
        return ("tensor", [], m.group(1))
    return ("other", None, t)


def split_top(s):
    """Splits at commas outside <>, (), [] and {}."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [x.strip() for x in out]


def i64_array(text, name):
    m = re.search(r"\b" + name + r" = array<i(?:64|32)(?:: ([-\d, ]+))?>", text)
    if not m:
        return None
    return [int(x) for x in m.group(1).split(",")] if m.group(1) else []


def int_attr(text, name):
    m = re.search(r"\b" + name + r" = (-?\d+) : i64", text)
    return int(m.group(1)) if m else None


def str_attr(text, name):
    m = re.search(r"\b" + name + r' = "([^"]*)"', text)
    return m.group(1) if m else None


class Op:
    def __init__(self, line):
        m = OP_RE.match(line)
        self.result, n, self.name, operands, rest = m.groups()
        self.num_results = int(n) if n else (1 if self.result else 0)
        self.operands = [o.strip() for o in operands.split(",") if o.strip()]
        self.attrs = rest
        sig = rest[rest.rindex(" : (") + 3:]
        ins, outs = sig.split(") -> ", 1) if ") -> " in sig else (sig, "")
        outs = outs.strip()
        if outs.startswith("(") and outs.endswith(")"):
            outs = outs[1:-1]
        self.result_types = [parse_type(t) for t in split_top(outs)] if outs else []

    def results(self):
        if self.num_results == 1:
            return [self.result]
        return ["%s#%d" % (self.result, i) for i in range(self.num_results)]


class Func:
    def __init__(self, name, args, ops, attrs):
        self.name, self.args, self.ops, self.attrs = name, args, ops, attrs


def parse_module(text):
    funcs, cur = [], None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith('"func.func"'):
            name = re.search(r'sym_name = "([^"]+)"', s).group(1)
            cur = Func(name, [], [], "")
            funcs.append(cur)
        elif s.startswith("^bb0("):
            for a in split_top(s[5:s.rindex(")")]):
                n, t = a.split(":", 1)
                cur.args.append((n.strip(), parse_type(t)))
        elif s.startswith("})") and cur is not None:
            cur.attrs = s
            cur = None
        elif cur is not None and s.startswith(("%", '"')):
            cur.ops.append(Op(s))
    return funcs


# ---------------------------------------------------------------------------
# Tensors: (shape, flat row-major list)
# ---------------------------------------------------------------------------


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def slice_tensor(t, offsets, sizes):
    shape, data = t
    out = []
    strides = [numel(shape[i + 1:]) for i in range(len(shape))]

    def rec(dim, base):
        if dim == len(shape):
            out.append(data[base])
            return
        for i in range(sizes[dim]):
            rec(dim + 1, base + (offsets[dim] + i) * strides[dim])

    rec(0, 0)
    return (list(sizes), out)


def concat(ts, dim):
    shape = list(ts[0][0])
    shape[dim] = sum(t[0][dim] for t in ts)
    outer = numel(shape[:dim])
    out = []
    for o in range(outer):
        for t in ts:
            inner = numel(t[0][dim:])
            out.extend(t[1][o * inner:(o + 1) * inner])
    return (shape, out)


# ---------------------------------------------------------------------------
# The ops
# ---------------------------------------------------------------------------


class BoundsError(Exception):
    pass


def tbe(ids, offsets, tables, feature_tables, pooling, bounds_check, padding,
        batch, weights=None):
    """emb.tbe, sum or mean pooling (weighted sum with `weights`): [B, sum of
    D]."""
    rows = []
    for b in range(batch):
        row = []
        for f, t in enumerate(feature_tables):
            (e, d), w = tables[t]
            lo, hi = offsets[f * batch + b], offsets[f * batch + b + 1]
            acc, count = [0.0] * d, 0
            for k in range(lo, hi):
                i = ids[k]
                if padding is not None and i == padding:
                    continue
                if i < 0 or i >= e:
                    if bounds_check == "fatal":
                        raise BoundsError("feature %d bag %d id %d" % (f, b, i))
                    continue
                count += 1
                scale = weights[k] if weights is not None else 1.0
                for c in range(d):
                    acc[c] += scale * w[i * d + c]
            if pooling == "mean" and count:
                acc = [a / count for a in acc]
            row.extend(acc)
        rows.extend(row)
    return rows


def tbe_backward(ids, offsets, tables, m1, m2, grad, feature_tables, pooling,
                 bounds_check, padding, psw, optimizer, hyper, step):
    """emb.tbe_backward (docs/dialect.md, runtime.h's embrtOptimizer): each
    touched row's gradient summed over the batch, then the optimizer once.
    Returns the new tables, momentum1 and momentum2 as (shape, data)."""
    (batch, width), g = grad
    sums = [dict() for _ in tables]
    col = 0
    for f, t in enumerate(feature_tables):
        (e, d), _ = tables[t]
        for b in range(batch):
            keep = []
            for k in range(offsets[f * batch + b], offsets[f * batch + b + 1]):
                i = ids[k]
                if padding is not None and i == padding:
                    continue
                if i < 0 or i >= e:
                    if bounds_check == "fatal":
                        raise BoundsError("feature %d bag %d id %d" % (f, b, i))
                    continue
                keep.append(k)
            for k in keep:
                scale = psw[k] if psw is not None else 1.0
                if pooling == "mean":
                    scale /= len(keep)
                row = sums[t].setdefault(ids[k], [0.0] * d)
                for c in range(d):
                    row[c] += scale * g[b * width + col + c]
        col += d
    lr, eps, b1, b2, wd = hyper
    new_t = [(list(sh), list(w)) for sh, w in tables]
    new_m1 = [(list(sh), list(v)) for sh, v in m1]
    new_m2 = [(list(sh), list(v)) for sh, v in m2]
    for t, rows in enumerate(sums):
        (e, d), w = new_t[t]
        for i, gr in rows.items():
            base = i * d
            if optimizer == "sgd":
                for c in range(d):
                    w[base + c] -= lr * (gr[c] + wd * w[base + c])
            elif optimizer == "rowwise_adagrad":
                gp = [gr[c] + wd * w[base + c] for c in range(d)]
                state = new_m1[t][1]
                state[i] += sum(x * x for x in gp) / d
                for c in range(d):
                    w[base + c] -= lr * gp[c] / (state[i] ** 0.5 + eps)
            else:  # adam
                m, v = new_m1[t][1], new_m2[t][1]
                for c in range(d):
                    m[base + c] = b1 * m[base + c] + (1 - b1) * gr[c]
                    v[base + c] = b2 * v[base + c] + (1 - b2) * gr[c] ** 2
                    mh = m[base + c] / (1 - b1 ** step)
                    vh = v[base + c] / (1 - b2 ** step)
                    w[base + c] -= lr * (mh / (vh ** 0.5 + eps) + wd * w[base + c])
    return new_t, new_m1, new_m2


def bucketize(ids, offsets, op, batch, psw=None):
    ranks = i64_array(op.attrs, "slot_ranks")
    feats = i64_array(op.attrs, "slot_features")
    begin = i64_array(op.attrs, "slot_row_begin")
    end = i64_array(op.attrs, "slot_row_end")
    world = int_attr(op.attrs, "world_size")
    out_ids, lengths, counts, weights = [], [], [0] * world, []
    for s in range(len(ranks)):
        f = feats[s]
        mine = [k for k in range(len(ranks)) if feats[k] == f]
        low = min(begin[k] for k in mine)
        high = max(end[k] for k in mine)
        for b in range(batch):
            n = 0
            for k in range(offsets[f * batch + b], offsets[f * batch + b + 1]):
                i = ids[k]
                c = min(max(i, low), high - 1)
                if begin[s] <= c < end[s]:
                    out_ids.append(i - begin[s])
                    if psw is not None:
                        weights.append(psw[k])
                    n += 1
            lengths.append(n)
            counts[ranks[s]] += n
    return out_ids, lengths, counts, weights


def run_program(func, args, rank):
    """A generator: yields ("collective", op, inputs) and receives outputs;
    returns the function's results."""
    env = dict(zip([a[0] for a in func.args], args))
    for op in func.ops:
        get = lambda i: env[op.operands[i]]
        res = None
        if op.name in ("emb.table", "emb.state", "emb.table_value"):
            res = [get(0)]
        elif op.name == "emb.tbe_backward":
            seg = i64_array(op.attrs, "operandSegmentSizes")
            at = [sum(seg[:k]) for k in range(len(seg))]
            tables = [get(at[2] + t) for t in range(seg[2])]
            psw = get(at[3])[1] if seg[3] else None
            m1 = [get(at[5] + t) for t in range(seg[5])]
            m2 = [get(at[6] + t) for t in range(seg[6])]
            step = get(at[8])[1][0] if seg[8] else None
            nt, n1, n2 = tbe_backward(
                get(0)[1], get(1)[1], tables, m1, m2, get(at[4]),
                i64_array(op.attrs, "feature_tables"),
                str_attr(op.attrs, "pooling"),
                str_attr(op.attrs, "bounds_check") or "fatal",
                int_attr(op.attrs, "padding_idx"), psw,
                str_attr(op.attrs, "optimizer"), get(at[7])[1], step)
            res = nt + n1 + n2
        elif op.name == "emb.bucketize":
            (_, ids), (oshape, offs) = get(0), get(1)
            batch = op.result_types[1][1][0] // len(i64_array(op.attrs, "slot_ranks"))
            psw = get(2)[1] if len(op.operands) == 3 else None
            i, l, c, w = bucketize(ids, offs, op, batch, psw)
            res = [([len(i)], i), ([len(l)], l), ([len(c)], c)]
            if psw is not None:
                res.append(([len(w)], w))
        elif op.name == "emb.lengths_to_offsets":
            _, lens = get(0)
            k = int_attr(op.attrs, "blocks")
            offs, at = [0], 0
            for x in lens:
                at += x
                offs.append(at)
            per = len(lens) // k
            sums = [sum(lens[j * per:(j + 1) * per]) for j in range(k)]
            res = [([len(offs)], offs), ([k], sums)]
        elif op.name in ("emb.all_to_all", "emb.reduce_scatter",
                         "emb.all_gather"):
            res = [(yield (op, [get(i) for i in range(len(op.operands))]))]
        elif op.name == "emb.tbe":
            seg = i64_array(op.attrs, "operandSegmentSizes")
            weights = get(2 + seg[2])[1] if seg[3] else None
            tables = [get(2 + t) for t in range(seg[2])]
            ft = i64_array(op.attrs, "feature_tables")
            shape = op.result_types[0][1]
            data = tbe(get(0)[1], get(1)[1], tables, ft,
                       str_attr(op.attrs, "pooling"),
                       str_attr(op.attrs, "bounds_check") or "fatal",
                       int_attr(op.attrs, "padding_idx"), shape[0], weights)
            res = [(shape, data)]
        elif op.name == "tensor.extract_slice":
            res = [slice_tensor(get(0), i64_array(op.attrs, "static_offsets"),
                                i64_array(op.attrs, "static_sizes"))]
        elif op.name == "tensor.concat":
            dim = int_attr(op.attrs, "dim")
            res = [concat([get(i) for i in range(len(op.operands))], dim)]
        elif op.name in ("tensor.collapse_shape", "tensor.expand_shape"):
            res = [(op.result_types[0][1], get(0)[1])]
        elif op.name == "tensor.empty":
            shape = op.result_types[0][1]
            res = [(shape, [0.0] * numel(shape))]
        elif op.name == "func.return":
            return [get(i) for i in range(len(op.operands))]
        else:
            raise RuntimeError("the simulator does not know " + op.name)
        for name, value in zip(op.results(), res):
            env[name] = value
    raise RuntimeError("no func.return")


def collective(ops, inputs):
    """Carries out one collective over all ranks; returns each rank's result."""
    world = len(ops)
    names = set(op.name for op in ops)
    if len(names) != 1:
        raise RuntimeError("ranks issue different collectives: %s" % names)
    op = ops[0]
    if op.name == "emb.all_to_all":
        rows, send_counts = [], []
        for r in range(world):
            shape, data = inputs[r][0]
            row = numel(shape[1:])
            if len(inputs[r]) == 3:
                send, recv = inputs[r][1][1], inputs[r][2][1]
            else:
                send = i64_array(ops[r].attrs, "send_splits")
                recv = i64_array(ops[r].attrs, "recv_splits")
            send_counts.append((send, recv, row, data))
        out = []
        for r in range(world):
            got, shape0 = [], 0
            for p in range(world):
                send, _, row, data = send_counts[p]
                at = sum(send[:r])
                if send[r] != send_counts[r][1][p]:
                    raise RuntimeError(
                        "rank %d sends %d rows to rank %d, which expects %d" %
                        (p, send[r], r, send_counts[r][1][p]))
                got.extend(data[at * row:(at + send[r]) * row])
                shape0 += send[r]
            shape = [shape0] + list(inputs[r][0][0][1:])
            out.append((shape, got))
        return out
    if op.name == "emb.reduce_scatter":
        shape = inputs[0][0][0]
        m = shape[0] // world
        block = m * numel(shape[1:])
        out = []
        for r in range(world):
            acc = [0.0] * block
            for p in range(world):
                data = inputs[p][0][1]
                for k in range(block):
                    acc[k] += data[r * block + k]
            out.append(([m] + shape[1:], acc))
        return out
    if op.name == "emb.all_gather":
        data = []
        for p in range(world):
            data.extend(inputs[p][0][1])
        shape = [inputs[0][0][0][0] * world] + inputs[0][0][0][1:]
        return [(shape, list(data)) for _ in range(world)]
    raise RuntimeError(op.name)


def run_ranks(programs, args):
    gens = [run_program(p, a, r) for r, (p, a) in enumerate(zip(programs, args))]
    pending = [None] * len(gens)
    results = [None] * len(gens)
    sends = [None] * len(gens)
    while True:
        for r, g in enumerate(gens):
            if results[r] is not None:
                continue
            try:
                pending[r] = g.send(sends[r])
            except StopIteration as stop:
                results[r] = stop.value
                pending[r] = None
        if all(x is not None for x in results):
            return results
        if any(p is None for p in pending):
            raise RuntimeError("a rank finished while others wait in a collective")
        outs = collective([p[0] for p in pending], [p[1] for p in pending])
        sends = outs


# ---------------------------------------------------------------------------
# Inputs, the plan's shards, the check
# ---------------------------------------------------------------------------


def plan_of(op, num_tables):
    body = op.attrs[op.attrs.index("sharding = [") + len("sharding = ["):]
    entries = re.findall(r"\{[^{}]*\}", body)[:num_tables]
    return [{"kind": str_attr(e, "kind"), "ranks": i64_array(e, "ranks"),
             "rows": i64_array(e, "row_ranges"),
             "cols": i64_array(e, "col_ranges")} for e in entries]


def shard_state(state, entry, rank):
    """A state's shard: its rows as the table's (a state of one f32 a row),
    or rows and columns (one an element)."""
    shape, data = state
    if len(shape) == 2:
        return shard(state, entry, rank)
    sh, d = shard(([shape[0], 1], data), dict(entry, kind=(
        "table_wise" if entry["kind"] == "column_wise" else entry["kind"])),
        rank)
    return ([sh[0]], d)


def shard(table, entry, rank):
    (e, d), w = table
    kind = entry["kind"]
    if kind == "data_parallel":
        return table
    if rank not in entry["ranks"]:
        return ([0, d], [])
    j = entry["ranks"].index(rank)
    if kind == "table_wise":
        return table
    if kind == "row_wise":
        a, b = entry["rows"][j], entry["rows"][j + 1]
        return slice_tensor(table, [a, 0], [b - a, d])
    a, b = entry["cols"][j], entry["cols"][j + 1]
    return slice_tensor(table, [0, a], [e, b - a])


def emb_opt(emb_opt_path, src, flags):
    out = subprocess.run([emb_opt_path, "--mlir-print-op-generic"] + flags +
                         [src], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("emb-opt %s failed:\n%s" % (" ".join(flags), out.stderr))
    return parse_module(out.stdout)


def main():
    emb_opt_path, src_path = sys.argv[1], sys.argv[2]
    plan = []
    if len(sys.argv) > 3:
        plan = ["--emb-plan-sharding=" + sys.argv[3]]
    # One function a `// -----` chunk: each has its own world size.
    with open(src_path) as f:
        chunks = re.split(r"^// -----\s*$", f.read(), flags=re.M)
    ok = True
    for fi, chunk in enumerate(chunks):
        with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                         delete=False) as tmp:
            tmp.write(chunk)
        src = tmp.name
        try:
            ok &= check(emb_opt_path, src, plan, fi)
        finally:
            os.unlink(src)
    sys.exit(0 if ok else 1)


def check(emb_opt_path, src, plan, fi):
    ok = True
    for func in emb_opt(emb_opt_path, src, plan)[:1]:
        if any(op.name == "emb.tbe_backward" for op in func.ops):
            ok &= check_step(emb_opt_path, src, plan, fi, func)
            continue
        tbe_op = [op for op in func.ops if op.name == "emb.tbe"][0]
        world = int_attr(tbe_op.attrs, "world_size")
        if world is None:  # checked by the run with the planner
            print("@%s: no plan" % func.name)
            continue
        programs = [emb_opt(emb_opt_path, src,
                            plan + ["--emb-shard=rank=%d" % r])[0]
                    for r in range(world)]
        seg = i64_array(tbe_op.attrs, "operandSegmentSizes")
        arg_names = [a[0] for a in func.args]
        producers = {op.result: op for op in func.ops if op.result}
        table_args = [arg_names.index(producers[tbe_op.operands[2 + t]].operands[0])
                      for t in range(seg[2])]
        entries = plan_of(tbe_op, seg[2])
        ft = i64_array(tbe_op.attrs, "feature_tables")
        bounds = str_attr(tbe_op.attrs, "bounds_check") or "fatal"
        rng = random.Random(17 + fi)
        tables = []
        for a in table_args:
            e, d = func.args[a][1][1]
            tables.append(([e, d], [rng.uniform(-1, 1) for _ in range(e * d)]))
        out_shape = tbe_op.result_types[0][1]
        batch, nf = out_shape[0], len(ft)
        n_ids = func.args[arg_names.index(tbe_op.operands[0])][1][1][0]
        args, refs = [], []
        for r in range(world):
            lens = [rng.randint(0, 3) for _ in range(nf * batch)]
            if n_ids >= 0:  # a static count: spread exactly n_ids
                lens = [0] * (nf * batch)
                for _ in range(n_ids):
                    lens[rng.randrange(nf * batch)] += 1
            offs, ids = [0], []
            for k, n in enumerate(lens):
                e = tables[ft[k // batch]][0][0]
                for _ in range(n):
                    # Out-of-range ids where the lookup skips them.
                    if bounds != "fatal" and rng.random() < 0.1:
                        ids.append(rng.choice([-1, e, e + 5]))
                    else:
                        ids.append(rng.randrange(e))
                offs.append(len(ids))
            rank_args = [None] * len(func.args)
            rank_args[arg_names.index(tbe_op.operands[0])] = ([len(ids)], ids)
            rank_args[arg_names.index(tbe_op.operands[1])] = ([len(offs)], offs)
            if seg[3]:  # per-sample weights, one an id
                rank_args[arg_names.index(tbe_op.operands[-1])] = (
                    [len(ids)], [rng.uniform(0, 2) for _ in ids])
            ref_args = list(rank_args)
            for t, a in enumerate(table_args):
                ref_args[a] = tables[t]
                rank_args[a] = shard(tables[t], entries[t], r)
                want = programs[r].args[a][1][1]
                if rank_args[a][0] != want:
                    sys.exit("@%s rank %d: argument %d is %s but the program "
                             "takes %s" % (func.name, r, a, rank_args[a][0], want))
            args.append(rank_args)
            refs.append(run_ranks([func], [ref_args])[0][0])
        got = run_ranks(programs, args)
        for r in range(world):
            shape, data = got[r][0]
            diff = max(abs(x - y) for x, y in zip(data, refs[r][1])) if data else 0.0
            good = shape == refs[r][0] and diff <= 1e-9
            ok &= good
            print("@%s rank %d: %s, max abs diff %.3g%s" %
                  (func.name, r, "x".join(map(str, shape)), diff,
                   "" if good else " MISMATCH"))
    return ok


def check_step(emb_opt_path, src, plan, fi, func):
    """A training step: each rank's forward results against the unsharded
    forward of its batch, its updated shards of the tables and states
    against the windows of one unsharded backward over every rank's batch
    (the gradients of all ranks reach the rows' owners)."""
    bwd = [op for op in func.ops if op.name == "emb.tbe_backward"][0]
    world = int_attr(bwd.attrs, "world_size")
    programs = [emb_opt(emb_opt_path, src, plan + ["--emb-shard=rank=%d" % r])[0]
                for r in range(world)]
    seg = i64_array(bwd.attrs, "operandSegmentSizes")
    at = [sum(seg[:k]) for k in range(len(seg))]
    T = seg[2]
    arg_names = [a[0] for a in func.args]
    made = {}
    for op in func.ops:
        for k, name in enumerate(op.results()):
            made[name] = (op, k)

    def arg_of(name):  # through emb.table / emb.state
        while name not in arg_names:
            name = made[name][0].operands[0]
        return arg_names.index(name)

    table_args = [arg_of(bwd.operands[at[2] + t]) for t in range(T)]
    state_args = [arg_of(bwd.operands[at[5] + k]) for k in range(seg[5] + seg[6])]
    grad_arg = arg_of(bwd.operands[at[4]])
    entries = plan_of(bwd, T)
    ft = i64_array(bwd.attrs, "feature_tables")
    bounds = str_attr(bwd.attrs, "bounds_check") or "fatal"
    optimizer = str_attr(bwd.attrs, "optimizer")
    rng = random.Random(29 + fi)
    tables = [(func.args[a][1][1], [rng.uniform(-1, 1) for _ in
                                    range(numel(func.args[a][1][1]))])
              for a in table_args]
    states = [(func.args[a][1][1], [rng.uniform(0, 1) for _ in
                                    range(numel(func.args[a][1][1]))])
              for a in state_args]
    hyper = [0.1, 1e-3, 0.9, 0.99, 0.01]
    batch, width = func.args[grad_arg][1][1]
    nf = len(ft)
    args, refs, batches = [], [], []
    for r in range(world):
        lens = [rng.randint(0, 3) for _ in range(nf * batch)]
        offs, ids = [0], []
        for k, n in enumerate(lens):
            e = tables[ft[k // batch]][0][0]
            for _ in range(n):
                if bounds != "fatal" and rng.random() < 0.1:
                    ids.append(rng.choice([-1, e, e + 5]))
                else:
                    ids.append(rng.randrange(e))
            offs.append(len(ids))
        psw = [rng.uniform(0, 2) for _ in ids] if seg[3] else None
        grad = [rng.uniform(-1, 1) for _ in range(batch * width)]
        batches.append((ids, offs, psw, grad))
        rank_args = [None] * len(func.args)
        rank_args[arg_of(bwd.operands[0])] = ([len(ids)], ids)
        rank_args[arg_of(bwd.operands[1])] = ([len(offs)], offs)
        if psw is not None:
            rank_args[arg_of(bwd.operands[at[3]])] = ([len(psw)], psw)
        rank_args[grad_arg] = ([batch, width], grad)
        rank_args[arg_of(bwd.operands[at[7]])] = ([5], hyper)
        if seg[8]:
            rank_args[arg_of(bwd.operands[at[8]])] = ([], [3])
        ref_args = list(rank_args)
        for t, a in enumerate(table_args):
            ref_args[a] = tables[t]
            rank_args[a] = shard(tables[t], entries[t], r)
        for k, a in enumerate(state_args):
            ref_args[a] = states[k]
            rank_args[a] = shard_state(states[k], entries[k % T], r)
        for a, v in enumerate(rank_args):
            want = programs[r].args[a][1][1]
            if v is not None and (len(v[0]) != len(want) or any(
                    w >= 0 and w != d for w, d in zip(want, v[0]))):
                sys.exit("@%s rank %d: argument %d is %s but the program "
                         "takes %s" % (func.name, r, a, v[0], want))
        args.append(rank_args)
        refs.append(run_ranks([func], [ref_args])[0])
    # One backward over every rank's batch: bags rank by rank in each
    # feature, the gradients' rows rank by rank.
    u_ids, u_offs, u_psw, u_grad = [], [0], [] if seg[3] else None, []
    for f in range(nf):
        for r in range(world):
            ids, offs, psw, _ = batches[r]
            for b in range(batch):
                lo, hi = offs[f * batch + b], offs[f * batch + b + 1]
                u_ids.extend(ids[lo:hi])
                if psw is not None:
                    u_psw.extend(psw[lo:hi])
                u_offs.append(len(u_ids))
    for r in range(world):
        u_grad.extend(batches[r][3])
    nt, n1, n2 = tbe_backward(
        u_ids, u_offs, tables, states[:seg[5]], states[seg[5]:],
        ([world * batch, width], u_grad), ft, str_attr(bwd.attrs, "pooling"),
        bounds, int_attr(bwd.attrs, "padding_idx"), u_psw, optimizer, hyper, 3)
    updated = nt + n1 + n2
    ret = [op for op in func.ops if op.name == "func.return"][0]
    got = run_ranks(programs, args)
    ok = True
    for r in range(world):
        for i, name in enumerate(ret.operands):
            op, _ = made.get(name, (None, 0))
            if op is not None and op.name == "emb.table_value":
                k = made[op.operands[0]][1]  # which result of the backward
                t = k % T
                want = (shard(updated[k], entries[t], r) if k < T else
                        shard_state(updated[k], entries[t], r))
            else:
                want = refs[r][i]
            shape, data = got[r][i]
            diff = max(abs(x - y) for x, y in zip(data, want[1])) if data else 0.0
            good = shape == want[0] and diff <= 1e-9
            ok &= good
            print("@%s rank %d result %d: %s, max abs diff %.3g%s" %
                  (func.name, r, i, "x".join(map(str, shape)), diff,
                   "" if good else " MISMATCH"))
    return ok


if __name__ == "__main__":
    main()
