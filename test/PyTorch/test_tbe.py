"""Tests emb_torch's EmbeddingBagCollection training against a pure PyTorch reference, on small
shapes (plain python, no pytest).

For each optimizer (SGD, rowwise Adagrad, Adam), pooling (sum, mean) and table dtype (f32; f16 for
rowwise Adagrad), with shared tables and per-sample weights (sum): three training
steps through the module in a normal loop (forward, loss = sum(pooled * G) for a fixed random G per
step, loss.backward() applies the update), against the same steps computed directly in f64 by
PyTorch: a dense gradient per table from the bags, then the optimizer on the rows some id touched.
f32 tables must agree to f32 rounding of the updates; f16 tables (stochastic rounding in emb, nearest
here) within two f16 ulps a step. Then a model whose dense layer trains with torch.optim.SGD while
the embeddings train inside backward, the device error path (a bad id under bounds "fatal"), and
on CUDA the order of emb's calls with PyTorch's work on the default stream and on a side stream,
and (with two GPUs) that an op on another GPU leaves PyTorch's current device as it was.

    python3 test/PyTorch/test_tbe.py [--device cuda|cpu] [--lib build/lib/libembrt.so]
Exit status 0 when every check passed; the last line says how many passed and failed.
"""
import os
import sys

import torch

import harness  # noqa: E402  (test/PyTorch/harness.py)
from harness import check  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import emb_torch as et  # noqa: E402


def make_inputs(gen, tables, feature_tables, B, max_bag, padding_idx, device):
    """Ids and offsets of F * B bags (some empty), ids of each feature's table."""
    lengths = torch.randint(0, max_bag + 1, (len(feature_tables) * B,), generator=gen)
    values = []
    for g, n in enumerate(lengths.tolist()):
        rows = tables[feature_tables[g // B]][0]
        ids = torch.randint(0, rows, (n,), generator=gen)
        if padding_idx is not None:
            ids[torch.rand(n, generator=gen) < 0.15] = padding_idx
        values.append(ids)
    values = torch.cat(values) if values else torch.zeros(0, dtype=torch.int64)
    offsets = torch.zeros(lengths.numel() + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)
    return values.to(device), offsets.to(device)


def reference_step(w, s1, s2, feature_tables, values, offsets, weights, grad, opt, hyper, step,
                   pooling, padding_idx):
    """One step in f64, in place on the lists w, s1, s2 (f64 tensors)."""
    lr, eps, b1, b2, wd = hyper
    T, F = len(w), len(feature_tables)
    B = (offsets.numel() - 1) // F
    dims = [w[t].shape[1] for t in feature_tables]
    cols = [sum(dims[:f]) for f in range(F)]
    gsum = [torch.zeros_like(x) for x in w]
    touched = [torch.zeros(x.shape[0], dtype=torch.bool) for x in w]
    values, offsets = values.cpu(), offsets.cpu().tolist()
    grad = grad.double().cpu()
    wts = weights.double().cpu() if weights is not None else None
    for f in range(F):
        t = feature_tables[f]
        for b in range(B):
            lo, hi = offsets[f * B + b], offsets[f * B + b + 1]
            ids = values[lo:hi]
            keep = torch.ones(hi - lo, dtype=torch.bool)
            if padding_idx is not None:
                keep &= ids != padding_idx
            if not keep.any():
                continue
            scale = torch.ones(hi - lo, dtype=torch.float64)
            if wts is not None:
                scale = wts[lo:hi].clone()
            if pooling == "mean":
                scale /= keep.sum().item()
            rows = ids[keep]
            g = grad[b, cols[f]:cols[f] + dims[f]]
            gsum[t].index_add_(0, rows, scale[keep][:, None] * g[None, :])
            touched[t][rows] = True
    for t in range(T):
        r = touched[t].nonzero().flatten()
        if r.numel() == 0:
            continue
        x, g = w[t][r], gsum[t][r]
        if opt == "sgd":
            x = x - lr * (g + wd * x)
        elif opt == "rowwise_adagrad":
            gp = g + wd * x
            s = s1[t][r] + (gp * gp).mean(1)
            x = x - lr * gp / (s.sqrt() + eps)[:, None]
            s1[t][r] = s
        else:
            m = b1 * s1[t][r] + (1 - b1) * g
            v = b2 * s2[t][r] + (1 - b2) * g * g
            x = x - lr * ((m / (1 - b1 ** step)) / ((v / (1 - b2 ** step)).sqrt() + eps) + wd * x)
            s1[t][r], s2[t][r] = m, v
        w[t][r] = x


def run_case(device, lib, opt, pooling, dtype, weighted, seed):
    name = "%s %s %s%s" % (opt, pooling, str(dtype).replace("torch.", ""),
                           " weighted" if weighted else "")
    gen = torch.Generator().manual_seed(seed)
    tables = [(60, 16), (25, 8), (40, 3)]
    pool = et.PoolingType.MEAN if pooling == "mean" else et.PoolingType.SUM
    data_type = {torch.float32: et.DataType.FP32, torch.float16: et.DataType.FP16}[dtype]
    configs = [et.EmbeddingBagConfig(name="t0", embedding_dim=16, num_embeddings=60,
                                     feature_names=["a", "b"], pooling=pool, data_type=data_type),
               et.EmbeddingBagConfig(name="t1", embedding_dim=8, num_embeddings=25,
                                     feature_names=["c"], pooling=pool, data_type=data_type),
               et.EmbeddingBagConfig(name="t2", embedding_dim=3, num_embeddings=40,
                                     feature_names=["d"], pooling=pool, data_type=data_type)]
    feature_tables = [0, 0, 1, 2]
    hyper = (0.05, 1e-3, 0.9, 0.99, 0.01)
    padding_idx = None
    torch.manual_seed(seed)
    ebc = et.EmbeddingBagCollection(
        tables=configs, is_weighted=weighted, device=device, output_dtype=None, seed=seed,
        fused_params={"optimizer": opt, "learning_rate": hyper[0], "eps": hyper[1],
                      "beta1": hyper[2], "beta2": hyper[3], "weight_decay": hyper[4]})
    tables_of = [ebc.embedding_bags[n] for n in ("t0", "t1", "t2")]
    # TorchRec's initialisation: uniform in +-sqrt(1 / num_embeddings).
    for t, (r, _) in zip(tables_of, tables):
        m = t.weight.detach().abs().max().item()
        check(0 < m <= (1 / r) ** 0.5 * (1.0001 if dtype == torch.float32 else 1.001), "%s: init of a %d-row table within "
              "sqrt(1/rows), max %g" % (name, r, m))
    w = [t.weight.detach().double().cpu().clone() for t in tables_of]
    s1 = [torch.zeros(r) if opt == "rowwise_adagrad" else torch.zeros(r, d) for r, d in tables]
    s1 = [x.double() for x in s1]
    s2 = [torch.zeros(r, d, dtype=torch.float64) for r, d in tables]
    B, width = 12, 16 + 16 + 8 + 3
    steps = 3
    for step in range(1, steps + 1):
        values, offsets = make_inputs(gen, tables, feature_tables, B, 5, padding_idx, device)
        weights = (torch.rand(values.numel(), generator=gen) + 0.5).to(device) if weighted else None
        kjt = et.KeyedJaggedTensor(["a", "b", "c", "d"], values, offsets=offsets, weights=weights)
        G = torch.randn(B, width, generator=gen).to(device)
        pooled = ebc(kjt)
        # The forward against the reference tables.
        ref_out = torch.zeros(B, width, dtype=torch.float64)
        off = offsets.cpu().tolist()
        dims = [16, 16, 8, 3]
        col = 0
        for f in range(4):
            for b in range(B):
                lo, hi = off[f * B + b], off[f * B + b + 1]
                ids = values.cpu()[lo:hi]
                sc = weights.cpu().double()[lo:hi] if weighted else torch.ones(hi - lo, dtype=torch.float64)
                keep = ids != padding_idx if padding_idx is not None else torch.ones(hi - lo, dtype=torch.bool)
                if keep.any():
                    v = (sc[keep][:, None] * w[feature_tables[f]][ids[keep]]).sum(0)
                    if pooling == "mean":
                        v = v / keep.sum()
                    ref_out[b, col:col + dims[f]] = v
            col += dims[f]
        tol_out = 2e-3 if dtype != torch.float32 else 1e-4
        err = (pooled.values().double().cpu() - ref_out).abs().max().item()
        check(err <= tol_out * max(1.0, ref_out.abs().max().item()),
              "%s step %d: forward differs by %g" % (name, step, err))
        loss = (pooled.values().float() * G).sum()
        loss.backward()
        # The module's output is in the table dtype: its gradient arrives rounded to it.
        reference_step(w, s1, s2, feature_tables, values, offsets, weights, G.to(dtype), opt, hyper,
                       step, pooling, padding_idx)
    if device == "cuda":
        ebc.synchronize()
    for t in range(len(tables)):
        got = tables_of[t].weight.detach().double().cpu()
        change = (w[t] - got).abs()
        scale = w[t].abs().max().item()
        if dtype == torch.float32:
            tol = 1e-5 * scale + 1e-6
        else:
            tol = steps * 2 * scale / 1024 + 1e-4
        check(change.max().item() <= tol,
              "%s: table %d differs by %g (tol %g)" % (name, t, change.max().item(), tol))
        if opt != "sgd":
            m1 = tables_of[t].momentum1.double().cpu()
            err = (m1 - s1[t]).abs().max().item()
            check(err <= state_tol(dtype) * max(1.0, s1[t].abs().max().item()),
                  "%s: momentum1 of table %d differs by %g" % (name, t, err))
        if opt == "adam":
            m2 = tables_of[t].momentum2.double().cpu()
            err = (m2 - s2[t]).abs().max().item()
            check(err <= state_tol(dtype) * max(1.0, s2[t].abs().max().item()),
                  "%s: momentum2 of table %d differs by %g" % (name, t, err))
    print("ok" if not harness.failures else "..", name, flush=True)


def state_tol(dtype):
    """States follow the rows: with f16 rows, through wd * w, within f16 rounding."""
    return 1e-4 if dtype == torch.float32 else 3e-3


def run_model(device, lib):
    """A dense layer on the pooled embeddings, trained by torch.optim.SGD; the embeddings train in
    backward. Both must move; rows no id touched must not."""
    torch.manual_seed(5)
    configs = [et.EmbeddingBagConfig(name="user", embedding_dim=8, num_embeddings=100,
                                     feature_names=["u"]),
               et.EmbeddingBagConfig(name="item", embedding_dim=8, num_embeddings=50,
                                     feature_names=["i"])]
    ebc = et.EmbeddingBagCollection(tables=configs, device=device)
    et.apply_optimizer_in_backward(torch.optim.Adam, ebc.parameters(), {"lr": 0.01})
    weights = [ebc.embedding_bags["user"].weight, ebc.embedding_bags["item"].weight]
    dense = torch.nn.Linear(16, 1).to(device)
    opt = torch.optim.SGD(dense.parameters(), lr=0.1)
    before = [w.detach().clone() for w in weights]
    dense_before = dense.weight.detach().clone()
    values = torch.tensor([1, 2, 3, 7, 7, 4], device=device)
    offsets = torch.tensor([0, 2, 3, 5, 6], device=device)  # 2 features x B = 2
    for _ in range(3):
        out = dense(ebc(et.KeyedJaggedTensor(keys=["u", "i"], values=values,
                                             offsets=offsets)).values())
        loss = ((out - 1.0) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    if device == "cuda":
        ebc.synchronize()
    check(not torch.equal(dense.weight.detach(), dense_before), "model: the dense layer trained")
    moved = (weights[0].detach() != before[0]).any(1).cpu()
    check(moved[[1, 2, 3]].all().item(), "model: touched user rows moved")
    check(not moved[[0, 4, 5, 99]].any().item(), "model: untouched user rows kept")
    check(ebc.step_0.item() == 3, "model: three steps counted")
    check(weights[0].grad is None, "model: no weight gradient materialised")


def run_errors(device, lib):
    """A bad id under bounds_check_mode "fatal" raises EmbIndexError naming the feature and the
    id: at once on the CPU; on CUDA at the latest in the first emb call after the device ran the
    lookup (torch.cuda.synchronize() stands for time passing), without ebc.synchronize()."""
    configs = [et.EmbeddingBagConfig(name="t", embedding_dim=4, num_embeddings=10,
                                     feature_names=["f", "g"])]
    ebc = et.EmbeddingBagCollection(tables=configs, device=device)
    # Two features of two bags each; the id 12 is feature 1's, bag 0.
    bad = et.KeyedJaggedTensor(keys=["f", "g"], values=torch.tensor([1, 2, 12], device=device),
                               offsets=torch.tensor([0, 1, 2, 3, 3], device=device))
    good = et.KeyedJaggedTensor(keys=["f", "g"], values=torch.tensor([1, 2, 3], device=device),
                                offsets=torch.tensor([0, 1, 2, 3, 3], device=device))
    raised = None
    try:
        ebc(bad)
        if device == "cuda":
            torch.cuda.synchronize()
            ebc(good)
    except et.EmbIndexError as e:
        raised = e
    check(raised is not None, "errors: a bad id under bounds fatal raised nothing by the next call")
    if raised is not None:
        check("feature 1" in str(raised) and "id 12 is outside table 0" in str(raised)
              and isinstance(raised, IndexError),
              "errors: an IndexError naming feature 1 and id 12 (%s)" % raised)
    # Reported once: the module works on afterwards.
    out = ebc(good).values()
    ebc.synchronize()
    check(out.shape == (2, 8), "errors: the module runs on after the error")
    # Wrong inputs: TypeError / ValueError / KeyError naming what is wrong.
    cases = [
        ("float ids", lambda: ebc(et.KeyedJaggedTensor(["f", "g"], good.values().float(),
                                                      offsets=good.offsets())), TypeError,
         "int32 or int64"),
        ("a missing key", lambda: ebc(et.KeyedJaggedTensor(["f", "h"], good.values(),
                                                          offsets=good.offsets())), KeyError,
         "'g'"),
        ("not a KeyedJaggedTensor", lambda: ebc(good.values()), TypeError, "KeyedJaggedTensor"),
        ("a bad pooling", lambda: et.EmbeddingBagCollection(tables=[et.EmbeddingBagConfig(
            name="x", embedding_dim=4, num_embeddings=3, feature_names=["x"],
            pooling=et.PoolingType.NONE)]), ValueError, "pooling NONE"),
        ("a repeated feature", lambda: et.EmbeddingBagCollection(tables=[
            et.EmbeddingBagConfig(name="x", embedding_dim=4, num_embeddings=3, feature_names=["x"]),
            et.EmbeddingBagConfig(name="y", embedding_dim=4, num_embeddings=3,
                                  feature_names=["x"])]), ValueError, "listed by two tables"),
        ("an unknown optimizer", lambda: et.EmbeddingBagCollection(tables=configs, fused_params={
            "optimizer": "lamb"}), ValueError, "'lamb'"),
        ("op: offsets not F*B+1", lambda: torch.ops.emb.tbe_forward(
            [ebc.embedding_bags["t"].weight], [0, 0], good.values(), good.offsets()[:4]),
         ValueError, "F * B + 1"),
        ("op: a table on another device", lambda: torch.ops.emb.tbe_forward(
            [torch.zeros(3, 4, device="meta")], [0], good.values(), good.offsets()[:2]),
         ValueError, "indices is on"),
    ]
    for what, fn, kind, needle in cases:
        try:
            fn()
            check(False, "errors: %s raised nothing" % what)
        except kind as e:
            check(needle in str(e), "errors: %s: %s names %r" % (what, e, needle))
        except Exception as e:  # noqa: BLE001
            check(False, "errors: %s raised %s, expected %s: %s" % (what, type(e).__name__,
                                                                   kind.__name__, e))


def fp8_values(e5m2):
    """The 256 values of fp8 codes (e4m3, or e5m2), from their fields (NaN codes as NaN)."""
    M, bias = (2, 15) if e5m2 else (3, 7)
    out = []
    for code in range(256):
        e, m = (code & 0x7f) >> M, code & ((1 << M) - 1)
        sign = -1.0 if code & 0x80 else 1.0
        if (e5m2 and e == 31) or (not e5m2 and e == 15 and m == 7):
            out.append(float("nan") if m or not e5m2 else sign * float("inf"))
        elif e == 0:
            out.append(sign * m * 2.0 ** (1 - bias - M))
        else:
            out.append(sign * (1 + m / 2 ** M) * 2.0 ** (e - bias))
    return torch.tensor(out, dtype=torch.float64)


def decode_state(state, precision, scale):
    """A stored state as f64 (fp8 codes times their row's scale)."""
    if precision in ("f32", "bf16"):
        return state.double().cpu()
    codes = state.cpu().view(torch.uint8).long()
    v = fp8_values(precision == "fp8_e5m2")[codes]
    sc = scale.double().cpu()
    return v * (sc.view(-1, *([1] * (v.dim() - 1))) if v.dim() > 1 else sc)


def random_state(gen, shape, precision, positive, device):
    """A random state in its stored form (never NaN or infinite, rarely zero)."""
    if precision in ("f32", "bf16"):
        x = torch.rand(shape, generator=gen) * 0.9 + 0.1
        if not positive:
            x = x * (torch.randint(0, 2, shape, generator=gen) * 2 - 1)
        return x.to(et.state_dtype(precision)).to(device)
    vals = fp8_values(precision == "fp8_e5m2")
    ok = torch.tensor([not (v != v or abs(v) == float("inf") or v == 0
                            or (positive and v < 0)) for v in vals.tolist()])
    codes = torch.nonzero(ok).flatten()
    return codes[torch.randint(0, codes.numel(), shape, generator=gen)].to(torch.uint8).to(device)


def format_step(precision, x):
    """One step of the format at |x| (elementwise, f64)."""
    mant, emin = {"f32": (23, -126), "bf16": (7, -126), "fp8_e4m3": (3, -6),
                  "fp8_e5m2": (2, -14)}[precision]
    e = torch.floor(torch.log2(x.abs().clamp_min(1e-300))).clamp_min(emin)
    return torch.pow(2.0, e - mant)


def run_state_precisions(device, lib):
    """Optimizer states stored below f32 through the ops and the module: one step with stored
    states against the same step with f32 states holding their decoded values (tables equal: to
    the bit on the CPU, to f32 rounding on CUDA; each state within one step of its format of the
    f32 run's), the state_dict's stored form, and the named errors."""
    gen = torch.Generator().manual_seed(39)
    tables = [(30, 8), (20, 5)]
    feature_tables = [0, 1, 0]
    B = 6
    values, offsets = make_inputs(gen, tables, feature_tables, B, 4, None, device)
    grad = (torch.rand(B, 8 + 5 + 8, generator=gen) - 0.5).to(device)
    hyper = torch.tensor([0.05, 1e-3, 0.9, 0.99, 0.01], device=device)
    cases = [("rowwise_adagrad", p, "f32") for p in ("bf16", "fp8_e4m3", "fp8_e5m2")] + \
        [("adam", p1, p2) for p1, p2 in (("bf16", "bf16"), ("fp8_e4m3", "fp8_e5m2"),
                                         ("fp8_e5m2", "fp8_e4m3"), ("f32", "fp8_e5m2"))]
    for opt, p1, p2 in cases:
        name = "state %s %s %s" % (opt, p1, p2)
        w0 = [(torch.rand(r, d, generator=gen) - 0.5).to(device) for r, d in tables]
        shape = (lambda r, d: (r,)) if opt == "rowwise_adagrad" else (lambda r, d: (r, d))
        m1 = [random_state(gen, shape(r, d), p1, opt == "rowwise_adagrad", device)
              for r, d in tables]
        m2 = [random_state(gen, (r, d), p2, True, device) for r, d in tables]
        sc1 = sc2 = None
        if p1.startswith("fp8"):
            sc1 = [(torch.rand(r if opt == "adam" else 1, generator=gen) * 0.01 + 0.01
                    if opt == "adam" else torch.full((1,), 0.05)).to(device) for r, d in tables]
        if p2.startswith("fp8"):
            sc2 = [(torch.rand(r, generator=gen) * 0.01 + 0.01).to(device) for r, d in tables]
        dec1 = [decode_state(m, p1, sc1[t] if sc1 else None).float().to(device)
                for t, m in enumerate(m1)]
        dec2 = [decode_state(m, p2, sc2[t] if sc2 else None).float().to(device)
                for t, m in enumerate(m2)]
        wq, wf = [x.clone() for x in w0], [x.clone() for x in w0]
        tail = (feature_tables, values, offsets, None, grad, "sum", "fatal", None, 77)
        stepq = torch.tensor([2], device=device)
        stepf = torch.tensor([2], device=device)
        if opt == "adam":
            torch.ops.emb.tbe_backward_adam(wq, m1, m2, hyper, stepq, *tail, sc1 or [], sc2 or [],
                                            p1, p2)
            torch.ops.emb.tbe_backward_adam(wf, dec1, dec2, hyper, stepf, *tail, [], [])
        else:
            torch.ops.emb.tbe_backward_rowwise_adagrad(wq, m1, hyper, stepq, *tail, sc1 or [], p1)
            torch.ops.emb.tbe_backward_rowwise_adagrad(wf, dec1, hyper, stepf, *tail, [])
        for t in range(len(tables)):
            err = (wq[t] - wf[t]).abs().max().item()
            tol = 0.0 if device == "cpu" else 1e-6 * max(1.0, wf[t].abs().max().item())
            check(err <= tol, "%s: table %d differs from the f32-state step by %g" % (name, t, err))
            for k, (got, want, prec, sc) in enumerate(((m1[t], dec1[t], p1, sc1),
                                                       (m2[t], dec2[t], p2, sc2))):
                if opt == "rowwise_adagrad" and k == 1:
                    continue
                scale = sc[t] if sc else None
                g = decode_state(got, prec, scale)
                wv = want.double().cpu()
                unit = scale.double().cpu() if scale is not None else torch.ones(())
                if unit.dim() and g.dim() > 1:
                    unit = unit.view(-1, 1)
                bound = format_step(prec, wv / unit) * unit * 1.0001 + 1e-6 * wv.abs()
                check(bool(((g - wv).abs() <= bound).all()),
                      "%s: momentum%d of table %d more than a step of %s from the f32 run's "
                      "(max diff %g)" % (name, k + 1, t, prec, (g - wv).abs().max().item()))
                check(got.dtype == et.state_dtype(prec),
                      "%s: momentum%d keeps its stored dtype" % (name, k + 1))
        check(True, name)
        print("ok", name, flush=True)

    # The module: stored states and their scales in the state_dict, and back.
    configs = [et.EmbeddingBagConfig(name="t0", embedding_dim=8, num_embeddings=30,
                                     feature_names=["a", "b"]),
               et.EmbeddingBagConfig(name="t1", embedding_dim=5, num_embeddings=20,
                                     feature_names=["c"])]
    fused = {"optimizer": "adam", "learning_rate": 0.05, "momentum1_precision": "fp8_e4m3",
             "momentum2_precision": "bf16"}
    ebc = et.EmbeddingBagCollection(tables=configs, device=device, fused_params=fused, seed=5)
    kjt = et.KeyedJaggedTensor(keys=["a", "b", "c"], values=values, offsets=offsets)
    for _ in range(3):
        ebc(kjt).values().sum().backward()
    sd = ebc.state_dict()
    m1 = sd["embedding_bags.t0.momentum1"]
    check(m1.dtype == torch.uint8 and tuple(m1.shape) == (30, 8),
          "state_dict: an fp8 momentum1 is its uint8 codes [30, 8], got %s %s"
          % (m1.dtype, tuple(m1.shape)))
    check(tuple(sd["embedding_bags.t0.momentum1_scale"].shape) == (30,),
          "state_dict: an fp8 momentum1 has its [rows] scales")
    check(sd["embedding_bags.t1.momentum2"].dtype == torch.bfloat16
          and "embedding_bags.t1.momentum2_scale" not in sd,
          "state_dict: a bf16 momentum2 is bfloat16, without scales")
    check(bool((m1 != 0).any()), "state_dict: the fp8 states trained")
    other = et.EmbeddingBagCollection(tables=configs, device=device, fused_params=fused, seed=5)
    other.load_state_dict(sd)
    same = all(torch.equal(v, other.state_dict()[k]) for k, v in sd.items())
    check(same, "state_dict: a module of the same precisions loads it unchanged")
    adagrad = et.EmbeddingBagCollection(tables=configs, device=device, seed=5, fused_params={
        "optimizer": "exact_rowwise_adagrad", "momentum1_precision": "fp8_e5m2",
        "momentum1_scale": 0.25})
    adagrad(kjt).values().sum().backward()
    sd = adagrad.state_dict()
    check(sd["embedding_bags.t1.momentum1"].dtype == torch.uint8
          and sd["embedding_bags.t1.momentum1_scale"].tolist() == [0.25],
          "state_dict: fp8 rowwise adagrad keeps its codes and its table scale")
    check(bool((sd["embedding_bags.t1.momentum1"] != 0).any()), "rowwise adagrad fp8 trained")

    # Named errors.
    w = [torch.zeros(30, 8, device=device), torch.zeros(20, 5, device=device)]
    tail = (feature_tables, values, offsets, None, grad, "sum", "fatal", None, 1)
    step = torch.zeros(1, dtype=torch.int64, device=device)
    f32 = [torch.zeros(30, device=device), torch.zeros(20, device=device)]
    u8 = [torch.zeros(30, dtype=torch.uint8, device=device),
          torch.zeros(20, dtype=torch.uint8, device=device)]
    bad = [
        ("a bf16 state held as float32", lambda: torch.ops.emb.tbe_backward_rowwise_adagrad(
            w, f32, hyper, step, *tail, [], "bf16"), ValueError, "momentum1[0] must be a "
         "contiguous torch.bfloat16"),
        ("fp8 without scales", lambda: torch.ops.emb.tbe_backward_rowwise_adagrad(
            w, u8, hyper, step, *tail, [], "fp8_e4m3"), ValueError, "momentum1_scales must"),
        ("a scale of the wrong shape", lambda: torch.ops.emb.tbe_backward_rowwise_adagrad(
            w, u8, hyper, step, *tail, [torch.ones(30, device=device),
                                        torch.ones(1, device=device)], "fp8_e4m3"),
         ValueError, "momentum1_scales[0] must be a contiguous float32 [1]"),
        ("an unknown precision", lambda: torch.ops.emb.tbe_backward_rowwise_adagrad(
            w, f32, hyper, step, *tail, [], "fp16"), ValueError, "momentum1_precision must"),
        ("fp8 adagrad without a table scale", lambda: et.EmbeddingBagCollection(
            tables=configs, fused_params={"optimizer": "exact_rowwise_adagrad",
                                          "momentum1_precision": "fp8_e4m3"}),
         ValueError, "needs momentum1_scale"),
        ("a momentum2 precision for adagrad", lambda: et.EmbeddingBagCollection(
            tables=configs, fused_params={"optimizer": "exact_rowwise_adagrad",
                                          "momentum2_precision": "bf16"}),
         ValueError, "has no momentum2"),
    ]
    for what, fn, kind, needle in bad:
        try:
            fn()
            check(False, "state errors: %s raised nothing" % what)
        except kind as e:
            check(needle in str(e), "state errors: %s: %s names %r" % (what, e, needle))
        except Exception as e:  # noqa: BLE001
            check(False, "state errors: %s raised %s, expected %s: %s"
                  % (what, type(e).__name__, kind.__name__, e))


def run_grad_row_stride(device, lib):
    """A gradient that is some columns of a wider tensor (the lookup's part of a concatenation's
    gradient, as DLRM's interaction gives it) is read in place, a row stride apart: the step equals
    the one from the same gradient made contiguous, for sum and none pooling."""
    gen = torch.Generator().manual_seed(41)
    tables = [(30, 8), (20, 5)]
    hyper = torch.tensor([0.05, 1e-3, 0.9, 0.99, 0.01], device=device)
    for pooling, feature_tables in (("sum", [0, 1, 0]), ("none", [1, 1])):
        values, offsets = make_inputs(gen, tables if pooling == "sum" else [(20, 5), (20, 5)],
                                      feature_tables, 6, 4, None, device)
        rows = 6 if pooling == "sum" else values.numel()
        width = 8 + 5 + 8 if pooling == "sum" else 5
        wide = (torch.rand(rows, 3 + width + 4, generator=gen) - 0.5).to(device)
        grad = wide[:, 3:3 + width]
        if pooling == "none":
            tabs = [(20, 5), (20, 5)]
        else:
            tabs = tables
        w0 = [(torch.rand(r, d, generator=gen) - 0.5).to(device) for r, d in tabs]
        s0 = [torch.rand(r, generator=gen).to(device) for r, d in tabs]
        for opt in ("sgd", "rowwise_adagrad"):
            name = "strided gradient, %s, %s" % (opt, pooling)
            check(not grad.is_contiguous() and grad.stride() == (3 + width + 4, 1),
                  "%s: the gradient is a strided view" % name)
            results = []
            for g in (grad, grad.contiguous()):
                w = [x.clone() for x in w0]
                st = [x.clone() for x in s0]
                step = torch.tensor([1], device=device)
                tail = (feature_tables, values, offsets, None, g, pooling, "fatal", None, 5)
                if opt == "sgd":
                    torch.ops.emb.tbe_backward_sgd(w, hyper, step, *tail)
                else:
                    torch.ops.emb.tbe_backward_rowwise_adagrad(w, st, hyper, step, *tail, [])
                results.append((w, st))
            for t in range(len(tabs)):
                err = (results[0][0][t] - results[1][0][t]).abs().max().item()
                tol = 0.0 if device == "cpu" else 1e-6 * max(1.0, w0[t].abs().max().item())
                check(err <= tol, "%s: table %d differs from the contiguous gradient's step by %g"
                      % (name, t, err))
                check(t not in feature_tables or bool((results[0][0][t] != w0[t]).any()),
                      "%s: table %d trained" % (name, t))
                if opt == "rowwise_adagrad":
                    check(torch.equal(results[0][1][t], results[1][1][t]) or device == "cuda",
                          "%s: state %d differs" % (name, t))


def run_stream_order(lib):
    """emb's calls are ordered with PyTorch's work on its current stream, the default one included:
    a table written by PyTorch behind a long GPU spin (torch.cuda._sleep) is read by the next
    lookup only after the write, and PyTorch reads the lookup's output only after it is written.
    Unordered (emb on a stream of its own) the lookup would read the old rows."""
    configs = [et.EmbeddingBagConfig(name="t", embedding_dim=16, num_embeddings=64,
                                     feature_names=["f"])]
    for side in (False, True):
        stream = torch.cuda.Stream() if side else torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            ebc = et.EmbeddingBagCollection(tables=configs, device="cuda")
            kjt = et.KeyedJaggedTensor(keys=["f"], values=torch.arange(64, device="cuda"),
                                       offsets=torch.arange(0, 65, 8, device="cuda"))
            ebc(kjt).values()  # the context and its first-use work
            with torch.no_grad():
                torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time on this stream
                ebc.embedding_bags["t"].weight.fill_(2.0)
            out = ebc(kjt).values()
            got = out.cpu()
        check(bool((got == 16.0).all()),
              "stream order (%s stream): the lookup read the table PyTorch wrote before it (got %s)"
              % ("side" if side else "default", got.flatten()[:4].tolist()))


def run_keeps_device(lib):
    """An emb op on another GPU than the current one leaves torch.cuda.current_device() as it
    was (the runtime makes its context's device current; emb_torch puts the caller's back), as a
    PyTorch op does. Needs two GPUs; with one there is no other device to move to."""
    if torch.cuda.device_count() < 2:
        print("note: one GPU: the current device cannot move, run_keeps_device checks nothing")
        return
    torch.cuda.set_device(0)
    w = torch.randn((32, 8), device="cuda:1")
    idx = torch.arange(8, device="cuda:1")
    off = torch.tensor([0, 4, 8], device="cuda:1")
    out = torch.ops.emb.tbe_forward([w], [0], idx, off)
    check(torch.cuda.current_device() == 0,
          "a lookup on cuda:1 left the current device at %d, not 0" % torch.cuda.current_device())
    check(out.device == torch.device("cuda:1"), "the output is on cuda:1, got %s" % out.device)
    torch.ops.emb.broadcast(w, torch.zeros(4, dtype=torch.int64, device="cuda:1"))
    check(torch.cuda.current_device() == 0, "emb::broadcast on cuda:1 moved the current device")


def run_torch_ops(device, want):
    """The TBE ops' C++ host path (python/csrc/tbe.cpp, in libemb_torch_ops.so): `want` is
    "required" (the run must have it), "off" (it must not: every call takes the Python kernel) or
    "any". With it: emb_torch::tbe_forward gives the Python kernel's output bit for bit (f32 and
    f16 tables, sum, mean, weighted, padding, none, f32 out), and the op and a module's eager
    call go through it (the Python kernel's checks never run); emb_torch::tbe_backward gives the
    Python kernel's update of every optimizer (f32 and bf16 states) bit for bit; and both refuse,
    without raising and without touching anything, what the Python kernel rejects, which then
    names it."""
    from emb_torch import _torch_ops
    from emb_torch import ops as O
    from emb_torch import quantized as Q
    path = et.torch_ops_library()
    fwd, bwd = _torch_ops.tbe_forward(), _torch_ops.tbe_backward()
    if want == "required":
        check(path is not None and fwd is not None and bwd is not None,
              "torch ops: libemb_torch_ops.so with the TBE ops loaded (%s)" % _torch_ops.why_not())
    elif want == "off":
        check(path is None and fwd is None, "torch ops: none loaded with EMB_TORCH_OPS_LIB=off")
    if fwd is None or bwd is None:
        return
    rt = et.runtime()
    ctx = rt.context(device)
    gen = torch.Generator().manual_seed(51)

    def python_kernel(fn):
        """fn() with the C++ host path hidden: the Python kernel runs."""
        saved = dict(_torch_ops._ops)
        _torch_ops._ops.update(tbe_forward=None, tbe_backward=None, tbe_forward_quantized=None)
        try:
            return fn()
        finally:
            _torch_ops._ops.clear()
            _torch_ops._ops.update(saved)

    def no_python_checks(fn):
        """fn() with the Python kernels' checks made to fail: only the C++ path can run it."""
        saved = O._check_lookup, Q._check_lookup

        def refuse(*_):
            raise AssertionError("the Python kernel ran")
        O._check_lookup = Q._check_lookup = refuse
        try:
            return fn()
        finally:
            O._check_lookup, Q._check_lookup = saved

    def lookup(dtype, tables, feature_tables, pooling):
        w = [((torch.rand(r, d, generator=gen) - 0.5) * 4).to(device, dtype) for r, d in tables]
        values, offsets = make_inputs(gen, tables, feature_tables, 7, 5, None, device)
        return w, values, offsets

    # Forward: bit for bit the Python kernel's, through the op without its checks.
    for dtype, pooling, weighted, pad, out_dtype in (
            (torch.float32, "sum", False, None, None), (torch.float32, "mean", False, 3, None),
            (torch.float32, "sum", True, None, None), (torch.float16, "sum", True, 2, None),
            (torch.float16, "mean", False, None, torch.float32),
            (torch.bfloat16, "sum", False, None, None), (torch.float32, "none", False, None, None)):
        tables = [(30, 8), (20, 8)] if pooling == "none" else [(30, 8), (20, 5)]
        ft = [0, 1, 0]
        w, values, offsets = lookup(dtype, tables, ft, pooling)
        psw = torch.rand(values.numel(), generator=gen).to(device) if weighted else None
        args = (w, ft, values, offsets, psw, pooling, "fatal", pad, out_dtype)
        what = "torch ops: forward %s %s%s%s" % (str(dtype)[6:], pooling,
                                                 " weighted" if weighted else "",
                                                 " padding" if pad is not None else "")
        want_out = python_kernel(lambda: torch.ops.emb.tbe_forward(*args))
        out, status = fwd(w, ft, values, offsets, psw, R_POOLING[pooling], 0, pad, out_dtype,
                          ctx.value, rt.entry_points)
        check(status == 0 and len(out) == 1 and torch.equal(out[0], want_out),
              "%s: emb_torch::tbe_forward equals the Python kernel (status %d)" % (what, status))
        try:
            got = no_python_checks(lambda: torch.ops.emb.tbe_forward(*args))
            check(torch.equal(got, want_out), "%s: the op takes the C++ path" % what)
        except AssertionError as e:
            check(False, "%s: the op ran the Python kernel: %s" % (what, e))

    # A module's eager call (a direct call of the op's kernel) takes it too.
    configs = [et.EmbeddingBagConfig(name="t", embedding_dim=4, num_embeddings=10,
                                     feature_names=["f"])]
    ebc = et.EmbeddingBagCollection(tables=configs, device=torch.device(device))
    kjt = et.KeyedJaggedTensor(["f"], torch.tensor([1, 2, 9], device=device),
                               lengths=torch.tensor([2, 1], device=device))
    with torch.no_grad():
        want_out = python_kernel(lambda: ebc(kjt).values())
        try:
            got = no_python_checks(lambda: ebc(kjt).values())
            check(torch.equal(got, want_out), "torch ops: a module's eager call, bit for bit")
        except AssertionError as e:
            check(False, "torch ops: a module's eager call ran the Python kernel: %s" % e)

    # Quantized tables (emb::tbe_forward_quantized): int8, int4 and a dense f16 table in one
    # lookup, f32 and f16 out.
    src = [(torch.rand(30, 8, generator=gen) - 0.5).to(device),
           (torch.rand(25, 16, generator=gen) - 0.5).to(device)]
    qw = [torch.ops.emb.quantize_table(src[0], "int8"), torch.ops.emb.quantize_table(src[1], "int4"),
          (torch.rand(20, 8, generator=gen) - 0.5).to(device, torch.float16)]
    codes, dims, ft = Q.precision_codes(["int8", "int4", "dense"]), [8, 16, 8], [0, 1, 2, 1]
    values, offsets = make_inputs(gen, [(30, 8), (25, 16), (20, 8)], ft, 5, 4, None, device)
    for out_dtype in (None, torch.float16):
        args = (qw, codes, dims, ft, values, offsets, None, "sum", "fatal", None, out_dtype)
        want_out = python_kernel(lambda: torch.ops.emb.tbe_forward_quantized(*args))
        try:
            got = no_python_checks(lambda: torch.ops.emb.tbe_forward_quantized(*args))
            check(torch.equal(got, want_out), "torch ops: a quantized lookup (%s out) takes the "
                  "C++ path, bit for bit the Python kernel's" % out_dtype)
        except AssertionError as e:
            check(False, "torch ops: a quantized lookup ran the Python kernel: %s" % e)
    qfwd = _torch_ops.tbe_forward_quantized()
    for what, change in (("an int4 table of the wrong width", dict(w=[qw[0], qw[1][:, :-1], qw[2]])),
                         ("a dim int4 does not pack", dict(dims=[8, 15, 8])),
                         ("an unknown precision", dict(codes=[1, 7, 0])),
                         ("bfloat16 out over a float16 dense table", dict(out=torch.bfloat16)),
                         ("one precision too few", dict(codes=codes[:2]))):
        a = dict(dict(w=qw, codes=codes, dims=dims, out=None), **change)
        try:
            out, status = qfwd(a["w"], a["codes"], a["dims"], ft, values, offsets, None, 0, 0,
                               None, a["out"], ctx.value, rt.entry_points)
            check(status == -1 and out == [],
                  "torch ops: quantized forward refuses %s (status %d)" % (what, status))
        except Exception as e:  # noqa: BLE001 - raising is the failure checked
            check(False, "torch ops: quantized forward raised for %s: %r" % (what, e))
    try:
        torch.ops.emb.tbe_forward_quantized([qw[0], qw[1][:, :-1], qw[2]], codes, dims, ft,
                                            values, offsets)
        check(False, "torch ops: a refused quantized lookup raised nothing through the op")
    except ValueError as e:
        check("weights[1] has shape" in str(e), "torch ops: the Python kernel names it: %s" % e)

    # Refusals: nothing raised, nothing returned; the op then raises the Python kernel's error.
    w, values, offsets = lookup(torch.float32, [(30, 8), (20, 5)], [0, 1, 0], "sum")
    other = "cpu" if device == "cuda" else "meta"
    good = dict(w=w, ft=[0, 1, 0], values=values, offsets=offsets, psw=None, pooling=0,
                bounds=0, pad=None, out=None)
    bad = [
        ("no tables", dict(w=[])),
        ("a feature's table out of range", dict(ft=[0, 2, 0])),
        ("float ids", dict(values=values.float())),
        ("2-D ids", dict(values=values.reshape(1, -1))),
        ("offsets not F * B + 1", dict(offsets=offsets[:-1])),
        ("weights with mean pooling", dict(psw=torch.ones(values.numel(), device=device),
                                           pooling=1)),
        ("weights of the wrong length", dict(psw=torch.ones(values.numel() + 1, device=device))),
        ("tables of two dtypes", dict(w=[w[0], w[1].half()])),
        ("a non-contiguous table", dict(w=[w[0], w[1].t().contiguous().t()])),
        ("a table on another device", dict(w=[w[0], w[1].to(other)])),
        ("ids on another device", dict(values=values.to(other))),
        ("a meta table", dict(w=[w[0].to("meta"), w[1].to("meta")])),
        ("a table of dim 0", dict(w=[w[0], torch.zeros(20, 0, device=device)])),
        ("float64 out", dict(out=torch.float64)),
        ("an unknown pooling", dict(pooling=7)),
        ("an unknown bounds check", dict(bounds=9)),
        ("none pooling over two dims", dict(pooling=2)),
        ("a float64 table", dict(w=[w[0].double(), w[1].double()])),
    ]
    for what, change in bad:
        a = dict(good, **change)
        try:
            out, status = fwd(a["w"], a["ft"], a["values"], a["offsets"], a["psw"], a["pooling"],
                              a["bounds"], a["pad"], a["out"], ctx.value, rt.entry_points)
            check(status == -1 and out == [],
                  "torch ops: forward refuses %s (status %d)" % (what, status))
        except Exception as e:  # noqa: BLE001 - raising is the failure checked
            check(False, "torch ops: forward raised for %s instead of refusing: %r" % (what, e))
    try:
        torch.ops.emb.tbe_forward(w, [0, 2, 0], values, offsets)
        check(False, "torch ops: a refused lookup raised nothing through the op")
    except ValueError as e:
        check("feature_table[1] is 2" in str(e), "torch ops: the Python kernel names it: %s" % e)

    # Backward: every optimizer, bit for bit the Python kernel's update.
    hyper = torch.tensor([0.05, 1e-3, 0.9, 0.99, 0.01], device=device)
    tables = [(30, 8), (20, 5)]
    ft = [0, 1, 0]
    for opt, precision in (("sgd", "f32"), ("rowwise_adagrad", "f32"), ("adam", "f32"),
                           ("rowwise_adagrad", "bf16"), ("adam", "bf16")):
        w, values, offsets = lookup(torch.float32, tables, ft, "sum")
        grad = (torch.rand(7, 8 + 5 + 8, generator=gen) - 0.5).to(device)
        sdt = torch.float32 if precision == "f32" else torch.bfloat16
        m1 = [torch.rand(r if opt == "rowwise_adagrad" else (r, d), generator=gen).to(device, sdt)
              for r, d in tables] if opt != "sgd" else []
        m2 = [torch.rand(r, d, generator=gen).to(device, sdt) for r, d in tables] \
            if opt == "adam" else []
        sides = []
        for side in ("python", "c++"):
            ws, s1, s2 = [x.clone() for x in w], [x.clone() for x in m1], [x.clone() for x in m2]
            step = torch.full((1,), 4, dtype=torch.int64, device=device)

            def call():
                O._backward("test", opt, ws, s1, s2, hyper, step, ft, values, offsets, None, grad,
                            "sum", "fatal", None, 77, (precision, "f32" if opt != "adam"
                                                       else precision))
            if side == "python":
                python_kernel(call)
            else:
                try:
                    no_python_checks(call)
                except AssertionError as e:
                    check(False, "torch ops: backward %s ran the Python kernel: %s" % (opt, e))
            sides.append((ws, s1, s2, step))
        (pw, p1, p2, ps), (cw, c1, c2, cs) = sides
        same = all(torch.equal(a, b) for a, b in zip(pw + p1 + p2 + [ps], cw + c1 + c2 + [cs]))
        check(same and int(cs.item()) == 5 and not torch.equal(cw[0], w[0]),
              "torch ops: backward %s (%s states) equals the Python kernel's update, step 4 -> %d"
              % (opt, precision, int(cs.item())))
    # A refused backward touches nothing (the step is not counted).
    w0 = [x.clone() for x in w]
    step = torch.full((1,), 4, dtype=torch.int64, device=device)
    status = bwd(0, w, [], [], 0, 0, hyper, step, ft, values, offsets, None, grad[:, :-1], 0, 0,
                 None, 77, ctx.value, rt.entry_points)
    check(status == -1 and int(step.item()) == 4 and all(torch.equal(a, b) for a, b in zip(w, w0)),
          "torch ops: a backward with a gradient of the wrong width is refused, nothing changed")


R_POOLING = {"sum": 0, "mean": 1, "none": 2}


def main():
    ap = harness.parser()
    harness.torch_ops_option(ap)
    a = ap.parse_args()
    harness.torch_ops_mode(a)
    print("torch", torch.__version__, "device", a.device, flush=True)
    et.runtime(a.lib)
    seed = 1
    for opt in ("sgd", "rowwise_adagrad", "adam"):
        for pooling in ("sum", "mean"):
            for weighted in ((False, True) if pooling == "sum" else (False,)):
                run_case(a.device, a.lib, opt, pooling, torch.float32, weighted, seed)
                seed += 1
    run_case(a.device, a.lib, "rowwise_adagrad", "sum", torch.float16, False, seed)
    run_model(a.device, a.lib)
    run_errors(a.device, a.lib)
    run_state_precisions(a.device, a.lib)
    run_grad_row_stride(a.device, a.lib)
    harness.run("torch_ops", lambda: run_torch_ops(a.device, a.torch_ops))
    if a.device == "cuda":
        run_stream_order(a.lib)
        run_keeps_device(a.lib)
    sys.exit(harness.finish())


if __name__ == "__main__":
    main()
