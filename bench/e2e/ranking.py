"""The end-to-end ranking model against PyTorch, on the GPU machine
(bench/e2e/ranking.sh runs every step in one call).

    ranking.py gen --data DIR              inputs for emb's runners (.npy)
    ranking.py warm --variant V            compile a torch variant (fills
                                           TORCHINDUCTOR_CACHE_DIR), exit
    ranking.py bench --data DIR --emb-out DIR --out FILE
                                           check and time the torch peers
    ranking.py report --out DIR --commit SHA
                                           e2e_ranking.json and the table

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

def device_data(torch, values=True):
    """make_data on the GPU, tables built as zeros plus their rows."""
    d = make_data(torch, values=values)
    out = {}
    for n, t in d.items():
        if n.startswith(("rows:", "vals:")):
            continue
        if n in TABLE_SHAPES:
            tab = torch.zeros(TABLE_SHAPES[n], dtype=torch.float16, device=DEV)
            if values:
                tab[d["rows:" + n].to(DEV)] = d["vals:" + n].to(DEV)
            out[n] = tab
        else:
            out[n] = t.to(DEV)
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
            o = F.scaled_dot_product_attention(
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

        def __init__(self, p):
            super().__init__()

            def buf(n, t):
                self.register_buffer(n, t.contiguous(), persistent=False)

            buf("user_cat", torch.cat([p[f"user_table_{f}"] for f in range(FU)]))
            buf("cand_cat", torch.cat([p[f"cand_table_{f}"] for f in range(FC)]))
            buf("seq_table", p["seq_table"])
            buf("w_q", p["w_q"])
            buf("w_kv", torch.cat([p["w_k"], p["w_v"]], 0))
            buf("w_u", p["w_lce"][:, :FU])
            w_c = torch.zeros(M, KCP, dtype=torch.float16, device=DEV)
            w_c[:, :FC + H] = p["w_lce"][:, FU:]
            buf("w_c", w_c)
            buf("pad", torch.zeros(B, KCP - FC - H, D, dtype=torch.float16, device=DEV))
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
            o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)     # [U, H, R, Dh]
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
    for t in tensors:
        torch._dynamo.mark_static_address(t)
    return tensors


def compiled(torch, fn):
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
    torch.compiler.cudagraph_mark_step_begin()
    return fn(*args)


def cmd_warm(a):
    """Compiles a variant (values do not matter to a compile) so that the
    timed process finds it in TORCHINDUCTOR_CACHE_DIR's FX graph cache."""
    import torch
    t0 = time.time()
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
    with open(os.path.join(a.out, "e2e_ranking.json"), "w") as f:
        json.dump(records, f, indent=1)
    print("\n%-36s %-24s %-30s %9s %9s %7s %s" % ("case", "impl", "peer", "ms", "peer_ms",
                                                "ratio", "check"))
    for r in records:
        check = {True: "ok", False: "MISMATCH"}.get(r.get("check"), "")
        print("%-36s %-24s %-30s %9.4f %9.4f %7.2f %s" % (
            r["case"], r["impl"], r["peer"], r["ms"], r["peer_ms"], r["ratio"], check))
    if emb_check:
        print(f"\nemb vs torch eager: max abs diff {emb_check.get('max_abs_diff_vs_eager')} "
              f"({'ok' if emb_check.get('check_vs_eager') else 'MISMATCH'})")
    if not records:
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--data", required=True)
    w = sub.add_parser("warm")
    w.add_argument("--variant", choices=["as_written", "hand", "stages"], required=True)
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
    a = ap.parse_args()
    {"gen": cmd_gen, "warm": cmd_warm, "bench": cmd_bench, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    main()
