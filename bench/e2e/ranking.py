"""The end-to-end ranking model against PyTorch, on the GPU machine
(bench/e2e/ranking.sh runs every step in one call).

    ranking.py gen --data DIR              inputs for emb's runners (.npy)
    ranking.py warm --variant V            compile a torch variant (fills
                                           TORCHINDUCTOR_CACHE_DIR), exit
    ranking.py bench --data DIR --emb-out DIR --out FILE
                                           check and time the torch peers
    ranking.py report --out DIR --commit SHA
                                           e2e_ranking.json and the table

and for the model with its pooled tables at int4 (bench/e2e/ranking_int4.sh):

    ranking.py gen --int4 --data DIR       also the packed int4 tables
    ranking.py check-int4 [--lib SO]       their bytes against emb's quantizer
    ranking.py warm --variant hand_int4    compile the int4 torch peer
    ranking.py bench-int4 --emb-int4-out DIR --emb-f16-out DIR --out FILE ...
                                           check emb's int4 outputs, check
                                           and time the int4 torch peer
    ranking.py report-int4 --out DIR --commit SHA
                                           e2e_ranking_int4.json and the table

The model is examples/ranking_model.mlir (bench/e2e/ranking_model.py writes
it; its shapes are ranking_model.SHAPES["full"]): U = 32 users, B = 2048
candidates (64 a user, sorted by user), 32 user and 32 candidate features
of 1e6 x 128 f16 tables (bags of 20 and 4 ids), a history of 256..1024 ids a
user in a 1e6 x 128 table padded to Lk = 1024, keys and values of 2 heads of
128, the candidates' queries from their first feature, masked target
attention, an LCE of the 66 rows to 64, an MLP 8192 -> 1024 -> 256 -> 1.

Same weights and inputs on both sides: every tensor comes from one seed
(`make_data`, a CPU torch.Generator, so every process makes the same).
`gen` writes them as .npy for emb-run-aot (a table as a sparse file: only
the rows the request reads are written, the rest is a hole that reads as
zeros, so 16 GiB of tables cost a few MB of disk and no generation time);
`bench` makes the same tensors again on the GPU, the tables zeros but for
the same rows. Values of rows nobody reads do not matter to either side.

Peers (same call, after ours):
  torch_eager_as_written        the model as written (forward below), eager
  torch_compile_as_written      torch.compile(mode="max-autotune"), which
                                captures CUDA graphs, on the same module
  torch_compile_hand_optimised  torch.compile(mode="max-autotune") of the
                                hand-optimised module (`Hand`): one
                                embedding_bag a side over the tables
                                concatenated (TBE-like, feature-major
                                offsets), keys and values in one GEMM, the
                                LCE decomposed (the users' product at user
                                batch, the candidates' K padded to 40),
                                attention grouped by user (each user's 64
                                queries against its keys once)
Tables, weights and the request are the modules' buffers and static inputs
(torch._dynamo.mark_static_address), so a CUDA graph replay copies nothing.
Timing: triton.testing.do_bench (L2 flushed before each call, median),
RUNS times a peer; ours is emb-run-aot's (events, L2 flushed, median of
30), RUNS times. Outputs are checked against ours within f16 tolerances.
The per-stage breakdown (lookups, sequence+projection, attention, LCE,
MLP): each stage of the hand-optimised model compiled as a function of its
own and timed like the whole (do_bench), and the same stage functions run
in sequence under torch.profiler with a record_function range each (kernel
time per range); ours: each stage compiled by emb on its own
(ranking_model.py --stage) and timed by its runner.

Tables at int4: the 64 pooled tables quantized once (FBGEMM's rowwise int4,
`quantize_int4`, the bytes emb's quantize_table writes) and passed to emb's
int4 model as packed rows; the torch peer, torch_compile_hand_optimised_int4
(`HandInt4`), is the hand-optimised model with the same packed rows as its
tables, dequantised after the gather. The history's table stays f16 on
both sides.
"""
import argparse
import ctypes
import datetime
import json
import math
import os
import re
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import npy_io  # noqa: E402
import ranking_model as rm  # noqa: E402

# RANKING_SHAPE=small and RANKING_DEVICE=cpu run the same code on the small
# twin (examples/torch/ranking_model_small.mlir) without a GPU.
SHAPE = os.environ.get("RANKING_SHAPE", "full")
S = rm.SHAPES[SHAPE]
DEV = os.environ.get("RANKING_DEVICE", "cuda")
U, R = S["U"], S["R"]
B = U * R
FU, FC, E, ES, D = S["FU"], S["FC"], S["E"], S["ES"], S["D"]
LU, LC, LK, H, DH, M = S["LU"], S["LC"], S["LK"], S["H"], S["DH"], S["M"]
H1, H2 = S["MLP"]
HD = H * DH
K = FU + FC + H
KCP = (FC + H + 7) // 8 * 8  # the candidates' K, padded to a multiple of 8
SEQ_LO, SEQ_HI = S["SEQ"]
SEED = int(os.environ.get("SEED", "13"))
RUNS = int(os.environ.get("RUNS", "3"))
STAGE_NAMES = {"lookups": "lookups", "sequence": "sequence+projection",
               "attention": "attention", "lce": "LCE", "mlp": "MLP"}


def log(*a):
    print(f"[ranking.py {time.strftime('%H:%M:%S')}]", *a, file=sys.stderr, flush=True)


#===------------------------------------------------------------------------===#
# The data, from one seed
#===------------------------------------------------------------------------===#

def make_data(torch, seed=SEED, values=True):
    """Every input of the model as CPU tensors, by name (the names of
    examples/ranking_model.mlir's arguments), plus "rows:<table>" and
    "vals:<table>": the rows of each table the request reads and their
    values (the tables are zeros elsewhere). With values=False the table
    rows are left out (shapes are all a compile needs)."""
    # The request and the weights from one generator, the tables' rows from
    # another: leaving the rows out changes no other tensor.
    g = torch.Generator().manual_seed(seed)
    gv = torch.Generator().manual_seed(seed + 1)
    d = {}

    def randn(*shape, std=1.0, gen=g):
        return (torch.randn(*shape, generator=gen) * std).to(torch.float16)

    def table(name, ids, std):
        d[name] = None  # made on the device: zeros and these rows
        if values:
            rows = torch.unique(ids)
            d["rows:" + name] = rows
            d["vals:" + name] = randn(rows.numel(), D, std=std, gen=gv)

    for f in range(FU):
        d[f"user_ids_{f}"] = torch.randint(0, E, (U * LU,), generator=g)
        d[f"user_offsets_{f}"] = torch.arange(U, dtype=torch.int64) * LU
        table(f"user_table_{f}", d[f"user_ids_{f}"], 1.0 / math.sqrt(LU))
    for f in range(FC):
        d[f"cand_ids_{f}"] = torch.randint(0, E, (B * LC,), generator=g)
        d[f"cand_offsets_{f}"] = torch.arange(B, dtype=torch.int64) * LC
        table(f"cand_table_{f}", d[f"cand_ids_{f}"], 1.0 / math.sqrt(LC))
    lengths = torch.randint(SEQ_LO, SEQ_HI + 1, (U,), generator=g)
    d["seq_offsets"] = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    d["seq_ids"] = torch.randint(0, ES, (int(d["seq_offsets"][-1]),), generator=g)
    table("seq_table", d["seq_ids"], 1.0)
    d["cand_to_user"] = torch.arange(U, dtype=torch.int64).repeat_interleave(R)
    d["w_q"] = randn(HD, D, std=1 / math.sqrt(D))
    d["w_k"] = randn(HD, D, std=1 / math.sqrt(D))
    d["w_v"] = randn(HD, D, std=1 / math.sqrt(D))
    d["w_lce"] = randn(M, K, std=1 / math.sqrt(K))
    d["w_1"] = randn(H1, M * D, std=math.sqrt(2 / (M * D)))
    d["b_1"] = randn(H1, std=0.1)
    d["w_2"] = randn(H2, H1, std=math.sqrt(2 / H1))
    d["b_2"] = randn(H2, std=0.1)
    d["w_3"] = randn(1, H2, std=1 / math.sqrt(H2))
    d["b_3"] = randn(1, std=0.1)
    # What the stages after the first read (for emb's stage runners; values
    # do not change their time): random, the history's true lengths.
    d["cand_0"] = randn(B, D)
    d["keys"] = randn(U, LK, H, DH)
    d["values"] = randn(U, LK, H, DH)
    d["lengths"] = lengths.clamp(max=LK)
    d["user_features"] = randn(U, FU, D)
    d["cand_features"] = randn(B, FC, D)
    d["attention"] = randn(B, H, DH)
    d["compressed"] = randn(B, M * D)
    return d


def signature(stage=None):
    """[(name, shape)] of the arguments of the model (or of a stage), from
    the IR ranking_model.py writes."""
    text = rm.model(S, SHAPE, stage)
    line = next(l for l in text.splitlines() if "func.func @" in l)
    return [(n, shape) for n, shape in re.findall(r"%(\w+): tensor<([0-9?x]*)x?[a-z0-9]+>", line)]


TABLE_SHAPES = {**{f"user_table_{f}": (E, D) for f in range(FU)},
                **{f"cand_table_{f}": (E, D) for f in range(FC)},
                "seq_table": (ES, D)}


def tensor_bytes(t):
    t = t.contiguous()
    return ctypes.string_at(t.data_ptr(), t.numel() * t.element_size())


def cmd_gen(a):
    import torch
    t0 = time.time()
    d = make_data(torch)
    os.makedirs(a.data, exist_ok=True)
    dt = {torch.float16: "f16", torch.int64: "i64"}
    written = set()

    def path(name):
        return os.path.join(a.data, name + ".npy")

    def write(name):
        if name in written:
            return
        if name in TABLE_SHAPES:
            rows = d["rows:" + name]
            npy_io.write_sparse_rows(path(name), "f16", TABLE_SHAPES[name], rows.tolist(),
                                     tensor_bytes(d["vals:" + name]))
        else:
            t = d[name]
            npy_io.write(path(name), dt[t.dtype], tuple(t.shape), tensor_bytes(t))
        written.add(name)

    for stage in [None] + list(rm.STAGES):
        names = [n for n, _ in signature(stage)]
        for n in names:
            write(n)
        fname = "ranking_model" if stage is None else "ranking_stage_" + stage
        with open(os.path.join(a.data, fname + ".inputs"), "w") as f:
            f.write(",".join(path(n) for n in names) + "\n")
    if a.int4:
        gen_int4(torch, d, a.data, path)
    meta = dict(seed=SEED, history_ids=int(d["seq_offsets"][-1]),
                history_lengths=d["lengths"].tolist(),
                table_rows_written={n: int(d["rows:" + n].numel()) for n in TABLE_SHAPES})
    with open(os.path.join(a.data, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    log(f"gen: {len(written)} files in {a.data} in {time.time() - t0:.1f} s "
        f"({meta['history_ids']} history ids)")


#===------------------------------------------------------------------------===#
# The torch models
#===------------------------------------------------------------------------===#

def torch_dtype(torch):
    """The torch models' float dtype: f16, or f32 in the CPU dry run on a
    PyTorch before 2.0 (no f16 matmul on the CPU there)."""
    return torch.float32 if DEV == "cpu" and not hasattr(torch, "compile") else torch.float16


def on_device(torch, t):
    return t.to(DEV, torch_dtype(torch)) if t.dtype == torch.float16 else t.to(DEV)


def scatter_rows(torch, shape, dtype, rows, vals):
    """A device tensor of zeros but for `rows`, which hold `vals`."""
    t = torch.zeros(shape, dtype=dtype, device=DEV)
    if rows is not None:
        t[rows.to(DEV)] = vals.to(DEV, dtype)
    return t


def device_data(torch, values=True, d=None):
    """make_data on the GPU, tables built as zeros plus their rows."""
    d = make_data(torch, values=values) if d is None else d
    out = {}
    for n, t in d.items():
        if n.startswith(("rows:", "vals:")):
            continue
        if n in TABLE_SHAPES:
            out[n] = scatter_rows(torch, TABLE_SHAPES[n], torch_dtype(torch),
                                  d.get("rows:" + n), d.get("vals:" + n))
        else:
            out[n] = on_device(torch, t)
    return out


REQUEST = ([f"user_ids_{f}" for f in range(FU)] + [f"user_offsets_{f}" for f in range(FU)]
           + [f"cand_ids_{f}" for f in range(FC)] + [f"cand_offsets_{f}" for f in range(FC)]
           + ["seq_ids", "seq_offsets", "cand_to_user"])
WEIGHTS = ["w_q", "w_k", "w_v", "w_lce", "w_1", "b_1", "w_2", "b_2", "w_3", "b_3"]


def jagged_to_padded(torch, values, offsets):
    """FBGEMM's jagged_to_padded_dense: aten's kernel where this PyTorch has
    it (`_jagged_to_padded_dense_forward`, nested tensors'), else gathers."""
    op = getattr(torch.ops.aten, "_jagged_to_padded_dense_forward", None)
    if op is not None:
        return op(values, [offsets], [LK], 0.0)
    lengths = offsets[1:] - offsets[:-1]
    pos = torch.arange(LK, device=values.device)
    valid = pos[None, :] < lengths[:, None]
    idx = torch.where(valid, offsets[:-1, None] + pos[None, :], 0)
    return torch.where(valid[..., None], values[idx], 0)


def models(torch):
    import torch.nn.functional as F
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    if sdpa is None:  # the CPU dry run on a PyTorch before 2.0: the math form
        def sdpa(q, k, v, attn_mask):
            s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            s = s.masked_fill(~attn_mask, float("-inf"))
            return torch.matmul(torch.softmax(s, -1).nan_to_num(0.0), v)

    class AsWritten(torch.nn.Module):
        """The model of examples/ranking_model.mlir, as its header writes it."""

        def __init__(self, p):
            super().__init__()
            for n, t in p.items():
                if n in TABLE_SHAPES or n in WEIGHTS:
                    self.register_buffer(n, t, persistent=False)

        def forward(self, *req):
            r = dict(zip(REQUEST, req))
            c2u = r["cand_to_user"]
            u = [F.embedding_bag(r[f"user_ids_{f}"], getattr(self, f"user_table_{f}"),
                                 r[f"user_offsets_{f}"], mode="sum") for f in range(FU)]
            c = [F.embedding_bag(r[f"cand_ids_{f}"], getattr(self, f"cand_table_{f}"),
                                 r[f"cand_offsets_{f}"], mode="sum") for f in range(FC)]
            seq = F.embedding(r["seq_ids"], self.seq_table)
            offs = r["seq_offsets"]
            padded = jagged_to_padded(torch, seq, offs)
            lengths = (offs[1:] - offs[:-1]).clamp(max=LK)
            k = F.linear(padded, self.w_k).view(U, LK, H, DH)
            v = F.linear(padded, self.w_v).view(U, LK, H, DH)
            q = F.linear(c[0], self.w_q).view(B, 1, H, DH)
            key_mask = torch.arange(LK, device=q.device) < lengths.unsqueeze(1)
            o = sdpa(
                q.transpose(1, 2),
                k.index_select(0, c2u).transpose(1, 2),
                v.index_select(0, c2u).transpose(1, 2),
                attn_mask=key_mask.index_select(0, c2u)[:, None, None, :])
            att = o.transpose(1, 2).reshape(B, H, DH)
            x = torch.cat([torch.stack(u, 1).index_select(0, c2u), torch.stack(c, 1), att], 1)
            z = torch.matmul(self.w_lce, x).flatten(1)
            h = F.relu(F.linear(z, self.w_1, self.b_1))
            h = F.relu(F.linear(h, self.w_2, self.b_2))
            return torch.sigmoid(F.linear(h, self.w_3, self.b_3))

    class Hand(torch.nn.Module):
        """The same model by hand: one embedding_bag a side over the tables
        concatenated (ids shifted by table, offsets feature-major), keys and
        values in one GEMM, attention grouped by user (candidates are R
        consecutive rows a user, as the request is laid out), the LCE
        decomposed (the users' product at user batch, indexed by
        cand_to_user) with the candidates' K padded to a multiple of 8. The
        stages are methods, for the per-stage breakdown."""

        def __init__(self, p, tables=True):
            super().__init__()

            def buf(n, t):
                self.register_buffer(n, t.contiguous(), persistent=False)

            if tables:  # HandInt4 keeps packed tables instead
                buf("user_cat", torch.cat([p[f"user_table_{f}"] for f in range(FU)]))
                buf("cand_cat", torch.cat([p[f"cand_table_{f}"] for f in range(FC)]))
            buf("seq_table", p["seq_table"])
            buf("w_q", p["w_q"])
            buf("w_kv", torch.cat([p["w_k"], p["w_v"]], 0))
            buf("w_u", p["w_lce"][:, :FU])
            w_c = torch.zeros(M, KCP, dtype=p["w_lce"].dtype, device=DEV)
            w_c[:, :FC + H] = p["w_lce"][:, FU:]
            buf("w_c", w_c)
            buf("pad", torch.zeros(B, KCP - FC - H, D, dtype=p["w_lce"].dtype, device=DEV))
            for n in ["w_1", "b_1", "w_2", "b_2", "w_3", "b_3"]:
                buf(n, p[n])
            buf("table_base_u", (torch.arange(FU, device=DEV) * E).view(FU, 1))
            buf("table_base_c", (torch.arange(FC, device=DEV) * E).view(FC, 1))
            buf("bag_base_u", (torch.arange(FU, device=DEV) * (U * LU)).view(FU, 1))
            buf("bag_base_c", (torch.arange(FC, device=DEV) * (B * LC)).view(FC, 1))

        def lookups(self, *req):
            r = dict(zip(REQUEST, req))
            uid = (torch.stack([r[f"user_ids_{f}"] for f in range(FU)]) + self.table_base_u).flatten()
            uoff = (torch.stack([r[f"user_offsets_{f}"] for f in range(FU)]) + self.bag_base_u).flatten()
            user = F.embedding_bag(uid, self.user_cat, uoff, mode="sum").view(FU, U, D).transpose(0, 1)
            cid = (torch.stack([r[f"cand_ids_{f}"] for f in range(FC)]) + self.table_base_c).flatten()
            coff = (torch.stack([r[f"cand_offsets_{f}"] for f in range(FC)]) + self.bag_base_c).flatten()
            cand = F.embedding_bag(cid, self.cand_cat, coff, mode="sum").view(FC, B, D).transpose(0, 1)
            return user, cand

        def sequence(self, seq_ids, seq_offsets):
            padded = jagged_to_padded(torch, F.embedding(seq_ids, self.seq_table), seq_offsets)
            kv = F.linear(padded, self.w_kv)                     # [U, Lk, 2 H Dh]
            lengths = (seq_offsets[1:] - seq_offsets[:-1]).clamp(max=LK)
            return kv, lengths

        def attention(self, cand0, kv, lengths):
            q = F.linear(cand0, self.w_q).view(U, R, H, DH).transpose(1, 2)   # [U, H, R, Dh]
            k = kv[..., :HD].view(U, LK, H, DH).transpose(1, 2)
            v = kv[..., HD:].view(U, LK, H, DH).transpose(1, 2)
            mask = (torch.arange(LK, device=q.device) < lengths[:, None])[:, None, None, :]
            o = sdpa(q, k, v, attn_mask=mask)                               # [U, H, R, Dh]
            return o.transpose(1, 2).reshape(B, H, DH)

        def lce(self, user, cand, att, c2u):
            zu = torch.matmul(self.w_u, user)                               # [U, M, D]
            zc = torch.matmul(self.w_c, torch.cat([cand, att, self.pad], 1))  # [B, M, D]
            return (zc + zu.index_select(0, c2u)).flatten(1)

        def mlp(self, z):
            h = F.relu(F.linear(z, self.w_1, self.b_1))
            h = F.relu(F.linear(h, self.w_2, self.b_2))
            return torch.sigmoid(F.linear(h, self.w_3, self.b_3))

        def forward(self, *req):
            r = dict(zip(REQUEST, req))
            user, cand = self.lookups(*req)
            kv, lengths = self.sequence(r["seq_ids"], r["seq_offsets"])
            att = self.attention(cand[:, 0], kv, lengths)
            return self.mlp(self.lce(user, cand, att, r["cand_to_user"]))

    return AsWritten, Hand


def static(torch, tensors):
    """Marks every tensor's address static (no copy into a CUDA graph's
    inputs at replay), returns them."""
    if DEV == "cpu" and not hasattr(torch, "compile"):
        return tensors  # the CPU dry run on a PyTorch without torch.compile
    for t in tensors:
        torch._dynamo.mark_static_address(t)
    return tensors


def compiled(torch, fn):
    if DEV == "cpu" and not hasattr(torch, "compile"):
        return fn  # the CPU dry run: eager (records say compile "eager")
    return torch.compile(fn, mode="max-autotune", dynamic=False)


def stage_calls(torch, hand, req, as_compiled):
    """[(stage, fn, inputs)] of the hand-optimised model's stages, each
    input a static copy of what the stage before it gave (eager), and each
    fn compiled on its own (as_compiled) or the eager method."""
    r = dict(zip(REQUEST, req))
    with torch.no_grad():
        user, cand = hand.lookups(*req)
        kv, lengths = hand.sequence(r["seq_ids"], r["seq_offsets"])
        att = hand.attention(cand[:, 0], kv, lengths)
        z = hand.lce(user, cand, att, r["cand_to_user"])
    user, cand, kv, lengths, att, z = static(torch, [t.clone() for t in
                                                     (user, cand, kv, lengths, att, z)])
    cand0 = static(torch, [cand[:, 0].contiguous()])[0]
    wrap = (lambda f: compiled(torch, f)) if as_compiled else (lambda f: f)
    return [("lookups", wrap(hand.lookups), tuple(req)),
            ("sequence", wrap(hand.sequence), (r["seq_ids"], r["seq_offsets"])),
            ("attention", wrap(hand.attention), (cand0, kv, lengths)),
            ("lce", wrap(hand.lce), (user, cand, att, r["cand_to_user"])),
            ("mlp", wrap(hand.mlp), (z,))]


def call(torch, fn, args):
    if DEV == "cuda":  # CUDA graphs' step marker (max-autotune captures graphs)
        torch.compiler.cudagraph_mark_step_begin()
    return fn(*args)


def cmd_warm(a):
    """Compiles a variant (values do not matter to a compile) so that the
    timed process finds it in TORCHINDUCTOR_CACHE_DIR's FX graph cache."""
    import torch
    t0 = time.time()
    if a.variant == "hand_int4":
        m, p = int4_hand(torch, make_data(torch, values=False), False)
        req = static(torch, [p[n] for n in REQUEST])
        with torch.no_grad():
            f = compiled(torch, m)
            for _ in range(3):
                call(torch, f, req)
            torch.cuda.synchronize()
        log(f"warm {a.variant}: compiled in {time.time() - t0:.0f} s")
        return
    p = device_data(torch, values=False)
    req = static(torch, [p[n] for n in REQUEST])
    AsWritten, Hand = models(torch)
    with torch.no_grad():
        if a.variant == "as_written":
            m = AsWritten(p).eval()
            static(torch, list(m.buffers()))
            f = compiled(torch, m)
            for _ in range(3):
                call(torch, f, req)
        else:
            m = Hand(p).eval()
            static(torch, list(m.buffers()))
            if a.variant == "hand":
                f = compiled(torch, m)
                for _ in range(3):
                    call(torch, f, req)
            else:  # the stages
                for name, f, args in stage_calls(torch, m, req, True):
                    for _ in range(3):
                        call(torch, f, args)
        torch.cuda.synchronize()
    log(f"warm {a.variant}: compiled in {time.time() - t0:.0f} s")


#===------------------------------------------------------------------------===#
# Checking and timing
#===------------------------------------------------------------------------===#

def emit(out, **kw):
    out.write(json.dumps(kw) + "\n")
    out.flush()


def compare(torch, got, ref):
    """Max abs difference, and whether `got` is within f16 tolerances of
    `ref` (emb-run's rule: rtol 1e-2 of each element plus atol 1e-2 of the
    largest magnitude, at least 1)."""
    g, r = got.float().flatten(), ref.float().flatten()
    if g.shape != r.shape:
        return float("inf"), False
    diff = (g - r).abs()
    scale = max(1.0, float(r.abs().max()))
    ok = bool(((diff <= 1e-2 * scale + 1e-2 * r.abs()) | (g.isnan() & r.isnan())).all())
    return float(diff.max()), ok


def load_emb_output(torch, path):
    dtype, shape, data = npy_io.read(path)
    if dtype != "f16":
        raise ValueError(f"{path}: {dtype}, f16 expected")
    return torch.frombuffer(bytearray(data), dtype=torch.float16).view(*shape).to(DEV)


def cmd_bench(a):
    import torch
    from triton.testing import do_bench
    failures = []
    out = open(a.out, "w")
    device = torch.cuda.get_device_name()
    print(torch.__version__, device, flush=True)
    emit(out, kind="device", device=device, torch=torch.__version__,
         jagged=("aten._jagged_to_padded_dense_forward"
                 if hasattr(torch.ops.aten, "_jagged_to_padded_dense_forward") else "gathers"))
    t0 = time.time()
    p = device_data(torch)
    req = static(torch, [p[n] for n in REQUEST])
    AsWritten, Hand = models(torch)
    written = AsWritten(p).eval()
    static(torch, list(written.buffers()))
    hand = Hand(p).eval()
    static(torch, list(hand.buffers()))
    log(f"bench: data and modules in {time.time() - t0:.1f} s")
    emb_out = None
    path = os.path.join(a.emb_out, "ranking_model.result0.npy")
    try:
        emb_out = load_emb_output(torch, path)
    except Exception as e:  # noqa: BLE001
        failures.append(f"emb's output {path}: {e}")
        log(failures[-1])

    def bench_runs(fn):
        runs = [do_bench(fn, warmup=25, rep=100, return_mode="median") for _ in range(RUNS)]
        return statistics.median(runs), runs

    peers = [("torch_eager_as_written", lambda: written),
             ("torch_compile_as_written", lambda: compiled(torch, written)),
             ("torch_compile_hand_optimised", lambda: compiled(torch, hand))]
    variant_of = {"torch_compile_as_written": "as_written",
                  "torch_compile_hand_optimised": "hand"}
    skipped = [n for n, _ in peers if variant_of.get(n) in a.skip]
    for n in skipped:
        emit(out, kind="peer", case="ranking_model", peer=n,
             note="its compile did not finish in time (ranking.sh's WARM_TIMEOUT)")
        failures.append(f"{n}: not compiled in time")
    peers = [(n, m) for n, m in peers if n not in skipped]
    eager_out = None
    with torch.no_grad():
        for name, make in peers:
            try:
                t1 = time.time()
                fn = make()
                y = call(torch, fn, req).clone()   # compiles (or hits the cache)
                torch.cuda.synchronize()
                compile_s = time.time() - t1
                rec = dict(kind="peer", case="ranking_model", peer=name, compile_s=compile_s)
                if eager_out is None:
                    eager_out = y
                if emb_out is not None:
                    rec["max_abs_diff_vs_emb"], rec["check_vs_emb"] = compare(torch, y, emb_out)
                rec["max_abs_diff_vs_eager"], rec["check_vs_eager"] = compare(torch, y, eager_out)
                rec["output_sum"] = float(y.float().sum())
                rec["ms"], rec["ms_runs"] = bench_runs(lambda: call(torch, fn, req))
                emit(out, **rec)
                log(f"{name}: {rec['ms']:.4f} ms (compile or cache {compile_s:.0f} s), "
                    f"vs emb {rec.get('max_abs_diff_vs_emb')} ({rec.get('check_vs_emb')})")
                if rec.get("check_vs_emb") is False:
                    failures.append(f"{name}: output differs from emb's beyond f16 tolerance")
            except Exception:  # noqa: BLE001
                failures.append(f"{name}: {traceback.format_exc()}")
                log(failures[-1])
        if emb_out is not None:
            rec = dict(kind="emb_output", output_sum=float(emb_out.float().sum()))
            if eager_out is not None:
                rec["max_abs_diff_vs_eager"], rec["check_vs_eager"] = compare(torch, emb_out, eager_out)
            emit(out, **rec)
        if not a.no_stages and "stages" not in a.skip:
            try:
                stage_breakdown(torch, do_bench, hand, req, out)
            except Exception:  # noqa: BLE001
                failures.append(f"stages: {traceback.format_exc()}")
                log(failures[-1])
    out.close()
    if failures:
        print("\n".join(["FAILED:"] + failures), file=sys.stderr)
        sys.exit(1)


def stage_breakdown(torch, do_bench, hand, req, out):
    """Each stage of the hand-optimised model compiled on its own: do_bench
    of each (as the whole is timed), then the five in sequence under
    torch.profiler, a record_function range each: kernel time a range."""
    calls = stage_calls(torch, hand, req, True)
    for name, fn, args in calls:
        call(torch, fn, args)
        runs = [do_bench(lambda: call(torch, fn, args), warmup=25, rep=100, return_mode="median")
                for _ in range(RUNS)]
        emit(out, kind="stage", stage=name, peer="torch_compile_hand_optimised",
             ms=statistics.median(runs), ms_runs=runs)
        log(f"stage {name}: {statistics.median(runs):.4f} ms")
    from torch.profiler import ProfilerActivity, profile, record_function
    iters = 10
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            for name, fn, args in calls:
                with record_function("stage:" + name):
                    call(torch, fn, args)
        torch.cuda.synchronize()
    for ev in prof.key_averages():
        if ev.key.startswith("stage:"):
            us = getattr(ev, "device_time_total", None)
            if us is None:
                us = ev.cuda_time_total
            rec = dict(kind="stage_profile", stage=ev.key[len("stage:"):],
                       peer="torch_compile_hand_optimised", ms=us / 1000.0 / iters)
            if us == 0:  # the profiler saw no kernel of the graph replays
                rec["ms"] = None
                rec["note"] = "no kernel time attributed to the range"
            emit(out, **rec)


#===------------------------------------------------------------------------===#
# The records
#===------------------------------------------------------------------------===#

def runner_times(path, entry):
    """(medians of direct calls, medians of graph replays) in an emb-run-aot
    log, one of each a run."""
    text = open(path).read() if os.path.exists(path) else ""
    direct = [float(t) for t in re.findall(rf"@{entry}: median ([0-9.]+) ms", text)]
    graph = [float(t) for t in re.findall(rf"@{entry}: graph replay: median ([0-9.]+) ms", text)]
    return direct, graph


def write_records(path, records, widths):
    """Writes the records to `path` and prints them as a table (columns of
    `widths` for case, impl and peer)."""
    with open(path, "w") as f:
        json.dump(records, f, indent=1)
    row = "%%-%ds %%-%ds %%-%ds" % widths
    print("\n" + row % ("case", "impl", "peer") + " %9s %9s %7s %s" % ("ms", "peer_ms", "ratio",
                                                                    "check"))
    for r in records:
        check = {True: "ok", False: "MISMATCH"}.get(r.get("check"), "")
        print(row % (r["case"], r["impl"], r["peer"]) + " %9.4f %9.4f %7.2f %s" % (
            r["ms"], r["peer_ms"], r["ratio"], check))


def cmd_report(a):
    lines = open(os.path.join(a.out, "peers.jsonl")).read().splitlines() \
        if os.path.exists(os.path.join(a.out, "peers.jsonl")) else []
    recs = [json.loads(l) for l in lines if l.startswith("{")]
    dev = next((r for r in recs if r.get("kind") == "device"), {})
    peers = [r for r in recs if r.get("kind") == "peer"]
    emb_check = next((r for r in recs if r.get("kind") == "emb_output"), {})
    base = dict(device=dev.get("device", "unknown"), commit=a.commit,
                date=datetime.date.today().isoformat(),
                shape=dict(U=U, B=B, features_user=FU, features_cand=FC, table_rows=E, D=D,
                           bag_user=LU, bag_cand=LC, Lk=LK, heads=H, head_dim=DH, lce_rows=M,
                           mlp=[M * D, H1, H2, 1], dtype="f16"))
    direct, graph = runner_times(os.path.join(a.out, "ranking_model.txt"), "ranking_model")
    records = []
    for impl, runs in (("emb_compiled", direct), ("emb_compiled_cuda_graph", graph)):
        if not runs:
            print(f"report: no timing of {impl} in ranking_model.txt", file=sys.stderr)
            continue
        ms = statistics.median(runs)
        for p in peers:
            if "ms" not in p:
                continue
            records.append(dict(base, case="ranking_model", impl=impl, ms=ms, ms_runs=runs,
                                peer=p["peer"], peer_ms=p["ms"], peer_ms_runs=p["ms_runs"],
                                ratio=p["ms"] / ms, check=p.get("check_vs_emb"),
                                max_abs_diff=p.get("max_abs_diff_vs_emb"),
                                peer_compile_s=p.get("compile_s")))
    stages = {r["stage"]: r for r in recs if r.get("kind") == "stage"}
    profiled = {r["stage"]: r for r in recs if r.get("kind") == "stage_profile"}
    for st in rm.STAGES:
        ours, _ = runner_times(os.path.join(a.out, f"stage_{st}.txt"), f"ranking_stage_{st}")
        if not ours or st not in stages:
            print(f"report: stage {st}: ours {ours}, peer {st in stages}", file=sys.stderr)
            continue
        ms = statistics.median(ours)
        r = dict(base, case="ranking_model/" + STAGE_NAMES[st], impl="emb_compiled_stage",
                 ms=ms, ms_runs=ours, peer=stages[st]["peer"], peer_ms=stages[st]["ms"],
                 peer_ms_runs=stages[st]["ms_runs"], ratio=stages[st]["ms"] / ms)
        if st in profiled and profiled[st].get("ms") is not None:
            r["peer_profiled_ms"] = profiled[st]["ms"]
        records.append(r)
    write_records(os.path.join(a.out, "e2e_ranking.json"), records, (36, 24, 30))
    if emb_check:
        print(f"\nemb vs torch eager: max abs diff {emb_check.get('max_abs_diff_vs_eager')} "
              f"({'ok' if emb_check.get('check_vs_eager') else 'MISMATCH'})")
    if not records:
        sys.exit(1)

#===------------------------------------------------------------------------===#
# Tables at int4 (bench/e2e/ranking_int4.sh)
#===------------------------------------------------------------------------===#

# The tables emb-quantize-tables packs: the pooled lookups' (the history's
# lookup is an emb.embedding_bag of mode none, whose table stays f16 on both
# sides).
INT4_TABLES = [n for n in TABLE_SHAPES if n != "seq_table"]
INT4_ROW = (4 + D // 2 + 15) // 16 * 16  # bytes a row (embrtQuantizedRowBytes)
INT4_ENTRIES = {"ranking_model_int4": None, "ranking_stage_lookups_int4": "lookups"}


def quantize_int4(torch, x):
    """FBGEMM's rowwise int4 of the rows of `x` (CPU) in its IntNBit TBE row
    layout: uint8 [n, INT4_ROW], an f16 scale and an f16 bias, then the
    columns two a byte (low nibble first), zeros to 16 bytes.
    embrtEncodeRow's arithmetic in f32: bias = f16(min), scale = f16((max -
    bias) / 15) (1 where that is 0 or 1 / scale overflows), q = (x - bias)
    * (1 / scale) rounded to even and clamped to 0..15; so these are the
    bytes emb's quantize_table writes (`ranking.py check-int4` holds them
    equal)."""
    x = x.float()
    n = x.shape[0]
    one = torch.ones(n)
    bias = x.min(1).values.half().float()
    rng = x.max(1).values - bias
    scale = torch.where(rng == 0, one, rng / 15.0).half().float()
    scale = torch.where(scale == 0, one, scale)
    inv = 1.0 / scale
    bad = torch.isinf(inv)
    scale, inv = torch.where(bad, one, scale), torch.where(bad, one, inv)
    q = torch.round((x - bias[:, None]) * inv[:, None]).clamp(0, 15).to(torch.uint8)
    out = torch.zeros(n, INT4_ROW, dtype=torch.uint8)
    out[:, 0:2] = scale.half().view(torch.uint8).view(n, 2)
    out[:, 2:4] = bias.half().view(torch.uint8).view(n, 2)
    out[:, 4:4 + D // 2] = q[:, 0::2] | (q[:, 1::2] << 4)
    return out


def dequantize_int4(torch, packed):
    """f32 [n, D] of packed int4 rows as emb reads them: scale * q + bias
    (q * scale is exact in f32, so this is emb's fmaf)."""
    n = packed.shape[0]
    sb = packed[:, 0:4].contiguous().view(torch.float16).float().view(n, 2)
    b = packed[:, 4:4 + D // 2]
    q = torch.stack([b & 15, b >> 4], -1).reshape(n, D).float()
    return q * sb[:, 0:1] + sb[:, 1:2]


def int4_pooled(torch, words, ids, features, bags, length):
    """The torch peer's lookup of `features` int4 features (ids shifted by
    table into the tables concatenated, feature-major), each `bags` bags of
    `length` ids: [bags, features, D] f16. The packed rows viewed as int32
    words (`words`), gathered, scale and bias bit-cast from the header word,
    the nibbles unpacked by shifts and masks, q * scale + bias in f32,
    summed over each bag by a reshape, written f16 (bench/tbe_quantized's
    "words" form, the one Inductor fuses into one kernel a side)."""
    w = words.index_select(0, ids)                                   # [n, INT4_ROW / 4]
    h = w[:, 0]
    scale = (h & 0xFFFF).to(torch.int16).view(torch.float16).float()
    bias = (h >> 16).to(torch.int16).view(torch.float16).float()
    d = w[:, 1:1 + D // 8]
    q = torch.stack([(d >> s) & 15 for s in range(0, 32, 4)], -1).reshape(-1, D).float()
    v = q * scale[:, None] + bias[:, None]
    return v.view(features, bags, length, D).sum(2).to(torch_dtype(torch)).transpose(0, 1)


def int4_models(torch):
    """HandInt4: the hand-optimised model (`Hand`) with its pooled tables
    stored as packed int4 rows, dequantised after the gather
    (`int4_pooled`): one gather a side over the tables concatenated. Bags
    are summed by a reshape: the request's bags are LU and LC ids long (a
    fixed-length request, as bench/tbe_quantized's peers read theirs)."""
    _, Hand = models(torch)

    class HandInt4(Hand):
        def __init__(self, p, packed):
            super().__init__(p, tables=False)
            self.register_buffer("user_words", torch.cat(
                [packed[f"user_table_{f}"] for f in range(FU)]).view(torch.int32), persistent=False)
            self.register_buffer("cand_words", torch.cat(
                [packed[f"cand_table_{f}"] for f in range(FC)]).view(torch.int32), persistent=False)

        def lookups(self, *req):
            r = dict(zip(REQUEST, req))
            uid = (torch.stack([r[f"user_ids_{f}"] for f in range(FU)]) + self.table_base_u).flatten()
            cid = (torch.stack([r[f"cand_ids_{f}"] for f in range(FC)]) + self.table_base_c).flatten()
            return (int4_pooled(torch, self.user_words, uid, FU, U, LU),
                    int4_pooled(torch, self.cand_words, cid, FC, B, LC))

    return HandInt4


def int4_packed(torch, d):
    """{table: (rows, packed rows)} of make_data's tables (CPU)."""
    return {n: (d["rows:" + n], quantize_int4(torch, d["vals:" + n])) for n in INT4_TABLES}


def int4_path(data, name):
    return os.path.join(data, name + "_int4.npy")


def gen_int4(torch, d, data, path):
    """The int4 tables as sparse .npy files of i8 [E, INT4_ROW] (rows not
    read are zero bytes: scale and bias 0, reading as zeros), and the input
    lists of the int4 model and of its lookups stage (the f16 model's, the
    pooled tables replaced by these)."""
    for n, (rows, packed) in int4_packed(torch, d).items():
        npy_io.write_sparse_rows(int4_path(data, n), "i8", (TABLE_SHAPES[n][0], INT4_ROW),
                                 rows.tolist(), tensor_bytes(packed))
    for entry, stage in INT4_ENTRIES.items():
        names = [n for n, _ in signature(stage)]
        with open(os.path.join(data, entry + ".inputs"), "w") as f:
            f.write(",".join(int4_path(data, n) if n in INT4_TABLES else path(n)
                             for n in names) + "\n")


def without_tables(d, names):
    """make_data's `d` less the tables `names` (and their rows)."""
    drop = set(names) | {k + n for n in names for k in ("rows:", "vals:")}
    return {n: t for n, t in d.items() if n not in drop}


def int4_hand(torch, d, values):
    """HandInt4 on the device, its tables packed (zeros but the rows read)."""
    p = device_data(torch, values=values, d=without_tables(d, INT4_TABLES))
    packed = int4_packed(torch, d) if values else {}
    tables = {n: scatter_rows(torch, (TABLE_SHAPES[n][0], INT4_ROW), torch.uint8,
                              *(packed.get(n) or (None, None)))
              for n in INT4_TABLES}
    hand = int4_models(torch)(p, tables).eval()
    static(torch, list(hand.buffers()))
    return hand, p


def bench_timer(torch):
    """do_bench's median (L2 flushed, ms); in the CPU dry run without Triton
    the median of 10 timed calls."""
    try:
        from triton.testing import do_bench
        return lambda fn: do_bench(fn, warmup=25, rep=100, return_mode="median")
    except ImportError:
        if DEV != "cpu":
            raise

    def cpu(fn):
        fn()
        ts = []
        for _ in range(10):
            t0 = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(ts)
    return cpu


def f16_ulps(torch, a, b):
    """Max distance of two f16 tensors in f16 ulps (ordered bit patterns,
    +0 and -0 one value)."""
    def ordered(t):
        i = t.contiguous().view(torch.int16).to(torch.int32) & 0xFFFF
        return torch.where(i >= 0x8000, 0x8000 - i, i)
    return int((ordered(a) - ordered(b)).abs().max()) if a.numel() else 0


def load_npy(torch, path):
    dtype, shape, data = npy_io.read(path)
    t = {"f16": torch.float16, "i64": torch.int64}[dtype]
    return torch.frombuffer(bytearray(data), dtype=t).view(*shape)


def cmd_check_int4(a):
    """quantize_int4's bytes against emb's quantize_table (the runtime's
    loops, through emb_torch on the CPU) on N(0, 1) rows and on rows of
    make_data's first table."""
    import torch
    sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
    if a.lib:
        os.environ["EMB_RUNTIME_LIB"] = a.lib
    import emb_torch.quantized  # noqa: F401  (registers torch.ops.emb.quantize_table)
    g = torch.Generator().manual_seed(SEED)
    d = make_data(torch)
    for name, x in (("normal", torch.randn(4096, D, generator=g).half()),
                    ("table", d["vals:" + INT4_TABLES[0]])):
        want = torch.ops.emb.quantize_table(x, "int4")
        got = quantize_int4(torch, x)
        same = bool(torch.equal(want, got))
        print(f"check-int4 {name}: {x.shape[0]} rows of {D}: "
              f"{'equal' if same else 'DIFFERENT'} bytes")
        if not same:
            sys.exit(1)


def cmd_bench_int4(a):
    """The int4 side's checks and the torch peer (ranking_int4.sh, after
    emb's runs): emb's int4 output against the model eager on the
    dequantised tables (f16 tolerances) and against emb's f16-table output
    (within the model's own quantization error), emb's lookups on the CPU
    against the device's (f16 ulps), then HandInt4 compiled, checked and
    timed RUNS times."""
    import torch
    timer = bench_timer(torch)
    failures = []
    out = open(a.out, "w")
    device = torch.cuda.get_device_name() if DEV == "cuda" else "cpu"
    emit(out, kind="device", device=device, torch=torch.__version__, dtype=str(torch_dtype(torch)))
    t0 = time.time()
    d = make_data(torch)
    req = None
    AsWritten, _ = models(torch)

    def eager(tables):
        nonlocal req
        p = device_data(torch, d=without_tables(d, tables))
        p.update(tables)
        req = [p[n] for n in REQUEST]
        with torch.no_grad():
            y = AsWritten(p).eval()(*req).to(torch.float16)
        del p
        return y

    y_f16 = eager({})
    packed = int4_packed(torch, d)
    deq = {n: scatter_rows(torch, TABLE_SHAPES[n], torch_dtype(torch), rows,
                           dequantize_int4(torch, pk).half())
           for n, (rows, pk) in packed.items()}
    y_deq = eager(deq)
    del deq
    log(f"bench-int4: the eager references in {time.time() - t0:.1f} s")

    def load(path, what):
        try:
            return load_npy(torch, path).to(DEV)
        except Exception as e:  # noqa: BLE001
            failures.append(f"{what} ({path}): {e}")
            log(failures[-1])
            return None

    emb4 = load(os.path.join(a.emb_int4_out, "ranking_model.result0.npy"), "emb's int4 output")
    emb16 = load(os.path.join(a.emb_f16_out, "ranking_model.result0.npy"), "emb's f16 output")
    if emb4 is not None:
        diff, ok = compare(torch, emb4, y_deq)
        emit(out, kind="check", what="emb_int4_vs_dequantised_eager", max_abs_diff=diff, ok=ok)
        if not ok:
            failures.append("emb's int4 output differs from the model on the dequantised "
                            "tables beyond f16 tolerance")
    if emb4 is not None and emb16 is not None:
        # Within the quantization error: emb's int4 output differs from its
        # f16-table output by at most what the model itself loses to int4
        # (torch eager, dequantised tables against f16 ones), plus the f16
        # tolerance of `compare`.
        e4, e16, qe = emb4.float(), emb16.float(), (y_deq.float() - y_f16.float()).abs()
        tol = 1e-2 * max(1.0, float(e16.abs().max())) + 1e-2 * e16.abs()
        gap = (e4 - e16).abs()
        ok = bool((gap <= qe + tol).all())
        emit(out, kind="check", what="emb_int4_vs_emb_f16", max_abs_diff=float(gap.max()),
             mean_abs_diff=float(gap.mean()), model_quantization_error_max=float(qe.max()),
             model_quantization_error_mean=float(qe.mean()), ok=ok)
        if not ok:
            failures.append("emb's int4 output is further from its f16 output than the "
                            "model's quantization error")
    for tag, cpu_dir in (("lookups", a.lookups_cpu_out), ("whole", a.whole_cpu_out)):
        if not cpu_dir:
            continue
        dev_dir = a.lookups_dev_out if tag == "lookups" else a.emb_int4_out
        entry = "ranking_stage_lookups" if tag == "lookups" else "ranking_model"
        rec = dict(kind="check", what=f"emb_int4_{tag}_cpu_vs_{DEV}", results=[])
        for i in range(2 if tag == "lookups" else 1):
            x = load(os.path.join(cpu_dir, f"{entry}.result{i}.npy"), f"{tag} on the CPU")
            y = load(os.path.join(dev_dir, f"{entry}.result{i}.npy"), f"{tag} on {DEV}")
            if x is None or y is None:
                continue
            diff, close = compare(torch, y, x)
            rec["results"].append(dict(result=i, max_ulps=f16_ulps(torch, x, y),
                                       max_abs_diff=diff, f16_tolerance=close))
        # The lookups read the same packed rows on both: within 1 ulp (the
        # bar). The whole model adds GEMMs, summed in another order on the
        # device: f16 tolerances.
        rec["ok"] = bool(rec["results"]) and all(
            r["max_ulps"] <= 1 if tag == "lookups" else r["f16_tolerance"] for r in rec["results"])
        emit(out, **rec)
        if not rec["ok"]:
            failures.append(f"emb's int4 {tag} on the CPU against {DEV}: {rec['results']}")

    name = "torch_compile_hand_optimised_int4"
    if "hand_int4" in a.skip:
        emit(out, kind="peer", case="ranking_model_int4", peer=name,
             note="its compile did not finish in time (ranking_int4.sh's WARM_TIMEOUT)")
        failures.append(f"{name}: not compiled in time")
    else:
        try:
            hand, p = int4_hand(torch, d, True)
            req = static(torch, [p[n] for n in REQUEST])
            if a.lookups_dev_out:
                # The peer's lookups, eager, against emb's on the device: two
                # decoders of the same packed rows, before any layer.
                with torch.no_grad():
                    mine = hand.lookups(*req)
                rec = dict(kind="check", what="torch_int4_lookups_vs_emb", results=[])
                for i, t in enumerate(mine):
                    y = load(os.path.join(a.lookups_dev_out, f"ranking_stage_lookups.result{i}.npy"),
                             f"lookups on {DEV}")
                    if y is not None:
                        diff, close = compare(torch, t, y)
                        rec["results"].append(dict(result=i, max_abs_diff=diff, f16_tolerance=close))
                rec["ok"] = bool(rec["results"]) and all(r["f16_tolerance"] for r in rec["results"])
                emit(out, **rec)
                if not rec["ok"]:
                    failures.append(f"the peer's int4 lookups against emb's: {rec['results']}")
            with torch.no_grad():
                t1 = time.time()
                fn = compiled(torch, hand)
                y = call(torch, fn, req).clone()
                if DEV == "cuda":
                    torch.cuda.synchronize()
                rec = dict(kind="peer", case="ranking_model_int4", peer=name,
                           compile_s=time.time() - t1,
                           compile="max-autotune" if fn is not hand else "eager")
                rec["max_abs_diff_vs_dequantised"], rec["check_vs_dequantised"] = \
                    compare(torch, y, y_deq)
                if emb4 is not None:
                    rec["max_abs_diff_vs_emb"], rec["check_vs_emb"] = compare(torch, y, emb4)
                runs = [timer(lambda: call(torch, fn, req)) for _ in range(RUNS)]
                rec["ms"], rec["ms_runs"] = statistics.median(runs), runs
            emit(out, **rec)
            log(f"{name}: {rec['ms']:.4f} ms, vs emb {rec.get('max_abs_diff_vs_emb')} "
                f"({rec.get('check_vs_emb')})")
            if rec.get("check_vs_emb") is False or not rec["check_vs_dequantised"]:
                failures.append(f"{name}: output differs beyond f16 tolerance")
        except Exception:  # noqa: BLE001
            failures.append(f"{name}: {traceback.format_exc()}")
            log(failures[-1])
    out.close()
    if failures:
        print("\n".join(["FAILED:"] + failures), file=sys.stderr)
        sys.exit(1)


def cmd_report_int4(a):
    """e2e_ranking_int4.json: emb's int4 model against its f16-table model
    and against HandInt4, direct calls and CUDA graph replays, with the
    checks, and the table."""
    path = os.path.join(a.out, "peers_int4.jsonl")
    recs = [json.loads(l) for l in open(path) if l.startswith("{")] if os.path.exists(path) else []
    dev = next((r for r in recs if r.get("kind") == "device"), {})
    checks = {r["what"]: r for r in recs if r.get("kind") == "check"}
    peer = next((r for r in recs if r.get("kind") == "peer" and "ms" in r), None)
    base = dict(device=dev.get("device", "unknown"), commit=a.commit,
                date=datetime.date.today().isoformat(),
                shape=dict(U=U, B=B, features_user=FU, features_cand=FC, table_rows=E, D=D,
                           bag_user=LU, bag_cand=LC, Lk=LK, heads=H, head_dim=DH, lce_rows=M,
                           mlp=[M * D, H1, H2, 1], dtype="f16",
                           tables=f"{FU + FC} pooled tables int4 ({INT4_ROW} bytes a row), "
                                  "the history's f16"),
                checks={k: v.get("ok") for k, v in checks.items()})
    if SHAPE != "full" or DEV != "cuda":
        base["dry_run"] = True
    d4, g4 = runner_times(os.path.join(a.out, "ranking_model_int4.txt"), "ranking_model")
    d16, g16 = runner_times(os.path.join(a.out, "ranking_model_f16.txt"), "ranking_model")
    quant = checks.get("emb_int4_vs_emb_f16", {})
    records = []
    for impl, r4, r16 in (("emb_compiled", d4, d16), ("emb_compiled_cuda_graph", g4, g16)):
        if not r4:
            continue
        ms = statistics.median(r4)
        rec = dict(base, case="ranking_model_int4", impl=impl, ms=ms, ms_runs=r4)
        if r16:
            records.append(dict(rec, peer=impl.replace("emb_compiled", "emb_compiled_f16_tables"),
                                peer_ms=statistics.median(r16), peer_ms_runs=r16,
                                ratio=statistics.median(r16) / ms, check=quant.get("ok"),
                                max_abs_diff=quant.get("max_abs_diff"),
                                model_quantization_error_max=quant.get(
                                    "model_quantization_error_max")))
        if peer:
            records.append(dict(rec, peer=peer["peer"], peer_ms=peer["ms"],
                                peer_ms_runs=peer["ms_runs"], ratio=peer["ms"] / ms,
                                check=peer.get("check_vs_emb"),
                                max_abs_diff=peer.get("max_abs_diff_vs_emb"),
                                peer_compile_s=peer.get("compile_s"),
                                peer_compile=peer.get("compile")))
    write_records(os.path.join(a.out, "e2e_ranking_int4.json"), records, (24, 26, 36))
    for k, v in checks.items():
        extra = {x: v[x] for x in ("max_abs_diff", "model_quantization_error_max", "results")
                 if x in v}
        print(f"check {k}: {'ok' if v.get('ok') else 'FAILED'} {json.dumps(extra)}")
    if not records or not all(v.get("ok") for v in checks.values()):
        sys.exit(1)



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--data", required=True)
    g.add_argument("--int4", action="store_true",
                   help="also the int4 tables and the int4 models' input lists")
    w = sub.add_parser("warm")
    w.add_argument("--variant", choices=["as_written", "hand", "stages", "hand_int4"],
                   required=True)
    b = sub.add_parser("bench")
    b.add_argument("--emb-out", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--no-stages", action="store_true")
    b.add_argument("--skip", action="append", default=[],
                   choices=["as_written", "hand", "stages"],
                   help="a variant whose compile did not finish in time")
    r = sub.add_parser("report")
    r.add_argument("--out", required=True)
    r.add_argument("--commit", default="unknown")
    c = sub.add_parser("check-int4")
    c.add_argument("--lib", help="libembrt.so (default: emb_torch's search)")
    b4 = sub.add_parser("bench-int4")
    b4.add_argument("--emb-int4-out", required=True)
    b4.add_argument("--emb-f16-out", required=True)
    b4.add_argument("--lookups-cpu-out")
    b4.add_argument("--lookups-dev-out")
    b4.add_argument("--whole-cpu-out")
    b4.add_argument("--out", required=True)
    b4.add_argument("--skip", action="append", default=[], choices=["hand_int4"])
    r4 = sub.add_parser("report-int4")
    r4.add_argument("--out", required=True)
    r4.add_argument("--commit", default="unknown")
    a = ap.parse_args()
    {"gen": cmd_gen, "warm": cmd_warm, "bench": cmd_bench, "report": cmd_report,
     "check-int4": cmd_check_int4, "bench-int4": cmd_bench_int4,
     "report-int4": cmd_report_int4}[a.cmd](a)


if __name__ == "__main__":
    main()
