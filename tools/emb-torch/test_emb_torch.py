"""Tests emb_torch against a pure PyTorch reference, on small shapes (plain python, no pytest).

For each optimizer (SGD, rowwise Adagrad, Adam), pooling (sum, mean) and table dtype (f32; f16 for
rowwise Adagrad), with shared tables, padding ids and per-sample weights (sum): three training
steps through the module in a normal loop (forward, loss = sum(pooled * G) for a fixed random G per
step, loss.backward() applies the update), against the same steps computed directly in f64 by
PyTorch: a dense gradient per table from the bags, then the optimizer on the rows some id touched.
f32 tables must agree to f32 rounding of the updates; f16 tables (stochastic rounding in emb, nearest
here) within two f16 ulps a step. Then a model whose dense layer trains with torch.optim.SGD while
the embeddings train inside backward, the device error path (a bad id under bounds "fatal"), and
on CUDA the order of emb's calls with PyTorch's work on the default stream and on a side stream.

    python3 tools/emb-torch/test_emb_torch.py [--device cuda|cpu] [--lib build/lib/libembrt.so]
Exit status 0 when every check passed; the last line says how many passed and failed.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import emb_torch as et  # noqa: E402

failures = []
passes = 0


def check(cond, what):
    global passes
    if cond:
        passes += 1
    else:
        failures.append(what)
        print("FAIL", what, flush=True)


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
    configs = [et.EmbeddingBagConfig("t0", 60, 16, ["a", "b"]),
               et.EmbeddingBagConfig("t1", 25, 8, ["c"]),
               et.EmbeddingBagConfig("t2", 40, 3, ["d"])]
    feature_tables = [0, 0, 1, 2]
    hyper = (0.05, 1e-3, 0.9, 0.99, 0.01)
    padding_idx = 2 if pooling == "mean" else None
    torch.manual_seed(seed)
    ebc = et.EmbeddingBagCollection(configs, optimizer=opt, lr=hyper[0], eps=hyper[1],
                                    betas=hyper[2:4], weight_decay=hyper[4], pooling=pooling,
                                    dtype=dtype, device=device, seed=seed, padding_idx=padding_idx,
                                    library=lib)
    w = [p.detach().double().cpu().clone() for p in ebc.weights]
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
        got = ebc.weights[t].detach().double().cpu()
        change = (w[t] - got).abs()
        scale = w[t].abs().max().item()
        if dtype == torch.float32:
            tol = 1e-5 * scale + 1e-6
        else:
            tol = steps * 2 * scale / 1024 + 1e-4
        check(change.max().item() <= tol,
              "%s: table %d differs by %g (tol %g)" % (name, t, change.max().item(), tol))
        if opt != "sgd":
            m1 = getattr(ebc, "momentum1_%d" % t).double().cpu()
            err = (m1 - s1[t]).abs().max().item()
            check(err <= state_tol(dtype) * max(1.0, s1[t].abs().max().item()),
                  "%s: momentum1 of table %d differs by %g" % (name, t, err))
        if opt == "adam":
            m2 = getattr(ebc, "momentum2_%d" % t).double().cpu()
            err = (m2 - s2[t]).abs().max().item()
            check(err <= state_tol(dtype) * max(1.0, s2[t].abs().max().item()),
                  "%s: momentum2 of table %d differs by %g" % (name, t, err))
    print("ok" if not failures else "..", name, flush=True)


def state_tol(dtype):
    """States follow the rows: with f16 rows, through wd * w, within f16 rounding."""
    return 1e-4 if dtype == torch.float32 else 3e-3


def run_model(device, lib):
    """A dense layer on the pooled embeddings, trained by torch.optim.SGD; the embeddings train in
    backward. Both must move; rows no id touched must not."""
    torch.manual_seed(5)
    configs = [et.EmbeddingBagConfig("user", 100, 8, ["u"]), et.EmbeddingBagConfig("item", 50, 8, ["i"])]
    ebc = et.EmbeddingBagCollection(configs, optimizer="adam", lr=0.01, device=device, library=lib)
    dense = torch.nn.Linear(16, 1).to(device)
    opt = torch.optim.SGD(dense.parameters(), lr=0.1)
    before = [w.detach().clone() for w in ebc.weights]
    dense_before = dense.weight.detach().clone()
    values = torch.tensor([1, 2, 3, 7, 7, 4], device=device)
    offsets = torch.tensor([0, 2, 3, 5, 6], device=device)  # 2 features x B = 2
    for _ in range(3):
        out = dense(ebc(et.KeyedJaggedTensor(["u", "i"], values, offsets=offsets)).values())
        loss = ((out - 1.0) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    if device == "cuda":
        ebc.synchronize()
    check(not torch.equal(dense.weight.detach(), dense_before), "model: the dense layer trained")
    moved = (ebc.weights[0].detach() != before[0]).any(1).cpu()
    check(moved[[1, 2, 3]].all().item(), "model: touched user rows moved")
    check(not moved[[0, 4, 5, 99]].any().item(), "model: untouched user rows kept")
    check(ebc.step.item() == 3, "model: three steps counted")
    check(ebc.weights[0].grad is None, "model: no weight gradient materialised")


def run_errors(device, lib):
    configs = [et.EmbeddingBagConfig("t", 10, 4, ["f"])]
    ebc = et.EmbeddingBagCollection(configs, device=device, library=lib)
    values = torch.tensor([1, 12], device=device)
    offsets = torch.tensor([0, 1, 2], device=device)
    try:
        out = ebc(values, offsets).values()
        out.sum().backward()
        ebc.synchronize()
        check(False, "errors: a bad id under bounds fatal raised nothing")
    except RuntimeError as e:
        check("outside table 0" in str(e), "errors: message names the table (%s)" % e)


def run_stream_order(lib):
    """emb's calls are ordered with PyTorch's work on its current stream, the default one included:
    a table written by PyTorch behind a long GPU spin (torch.cuda._sleep) is read by the next
    lookup only after the write, and PyTorch reads the lookup's output only after it is written.
    Unordered (emb on a stream of its own) the lookup would read the old rows."""
    configs = [et.EmbeddingBagConfig("t", 64, 16, ["f"])]
    for side in (False, True):
        stream = torch.cuda.Stream() if side else torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            ebc = et.EmbeddingBagCollection(configs, device="cuda", library=lib)
            values = torch.arange(64, device="cuda")
            offsets = torch.arange(0, 65, 8, device="cuda")
            ebc(values, offsets).values()  # the context and its first-use work
            with torch.no_grad():
                torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU time on this stream
                ebc.weights[0].fill_(2.0)
            out = ebc(values, offsets).values()
            got = out.cpu()
        check(bool((got == 16.0).all()),
              "stream order (%s stream): the lookup read the table PyTorch wrote before it (got %s)"
              % ("side" if side else "default", got.flatten()[:4].tolist()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--lib", default=None)
    a = ap.parse_args()
    print("torch", torch.__version__, "device", a.device, flush=True)
    seed = 1
    for opt in ("sgd", "rowwise_adagrad", "adam"):
        for pooling in ("sum", "mean"):
            for weighted in ((False, True) if pooling == "sum" else (False,)):
                run_case(a.device, a.lib, opt, pooling, torch.float32, weighted, seed)
                seed += 1
    run_case(a.device, a.lib, "rowwise_adagrad", "sum", torch.float16, False, seed)
    run_model(a.device, a.lib)
    run_errors(a.device, a.lib)
    if a.device == "cuda":
        run_stream_order(a.lib)
    print("%d passed, %d failed" % (passes, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
