"""emb_torch's IKBO modules against the torch forms they replace, eager and torch.compile.

IkboLinearCompression against `torch.matmul(W, torch.cat([user.index_select(0, c2u), cand], 1))`
on the IKBO benchmark shape of docs/benchmarks.md ("IKBO linear compression": B = 1024 candidates
of 15 users, M = 433, N = 256, K padded to 1184/872 as emb-pad-k does; also the unpadded
1178/866 of the original model, and bf16); c2u sorted random users, W as nn.Linear initialises
it, user/cand ~ randn.

IkboTargetAttention against SDPA on keys and values index_select'ed to the candidates (the
original model, torch's default SDPA backend) on the shapes of docs/benchmarks.md ("IKBO
attention": 32 users, 64 candidates each, 64 query rows, 2 heads of 128, f16, Lk 512 and 2048,
no mask) and the target attention of the end-to-end ranking model (bench/e2e/ranking_model.py
"full": one query row a candidate, Lk 1024, history lengths uniform in 256..1024 as the mask).

Each side: the module (emb eager, emb compiled with fullgraph=True) and the torch form (torch
eager, torch compiled), inference under torch.no_grad. Timing as do_bench: a 256 MiB L2 flush
before each call, CUDA events around the call alone, a warm-up, then at least 100 ms (and 30
calls) of calls with no host sync between them; a run's figure is the median call; 3 runs a
side, alternated in one process; each figure is the median of the 3 runs. ratio = peer ms / ms.
Every case also checks the module's output against the torch form's (max error relative to the
largest value, recorded).

    python3 bench/ikbo_torch/bench.py [--lib build/lib/libembrt.so] [--runs 3]
        [--cases lce_main,...] [--out bench/results/ikbo_torch.json]
"""
import argparse
import datetime
import json
import os
import statistics
import sys

import torch
import torch._dynamo
import torch.nn.functional as F

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
from emb_torch import _runtime  # noqa: E402
from emb_torch import ikbo  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_results import commit_id  # noqa: E402

DEV = "cuda"


def lce_torch_form(weight, user, cand, c2u):
    return torch.matmul(weight, torch.cat([user.index_select(0, c2u), cand], dim=1))


def attention_torch_form(q, k, v, c2u, key_lengths, heads):
    (b, lq, e), (_, lk, _) = q.shape, k.shape
    dh = e // heads
    mask = None
    if key_lengths is not None:
        mask = torch.arange(lk, device=q.device) < key_lengths.unsqueeze(1)
        mask = mask.index_select(0, c2u)[:, None, None, :]
    o = F.scaled_dot_product_attention(
        q.view(b, lq, heads, dh).transpose(1, 2),
        k.index_select(0, c2u).view(b, lk, heads, dh).transpose(1, 2),
        v.index_select(0, c2u).view(b, lk, heads, dh).transpose(1, 2), attn_mask=mask)
    return o.transpose(1, 2).reshape(b, lq, e)


def lce_case(name, dtype, batch=1024, users=15, m=433, ku=1184, kc=872, n=256):
    gen = torch.Generator(device=DEV).manual_seed(0)
    mod = ikbo.IkboLinearCompression(ku, kc, m, device=DEV, dtype=dtype)
    user = torch.randn(users, ku, n, generator=gen, device=DEV, dtype=dtype)
    cand = torch.randn(batch, kc, n, generator=gen, device=DEV, dtype=dtype)
    c2u = torch.sort(torch.randint(0, users, (batch,), generator=gen, device=DEV))[0]
    flops = 2 * m * n * (batch * kc + users * ku)
    shape = dict(B=batch, U=users, M=m, Ku=ku, Kc=kc, N=n, dtype=str(dtype).split(".")[1],
                 gflop_decomposed=flops / 1e9)
    return dict(case=name, shape=shape, emb_fn=mod, emb_args=(user, cand, c2u),
                torch_fn=lce_torch_form, torch_args=(mod.weight, user, cand, c2u))


def attention_case(name, lk, lq=64, users=32, per_user=64, heads=2, dh=128, lengths=None,
                   dtype=torch.float16):
    gen = torch.Generator(device=DEV).manual_seed(0)
    batch, e = users * per_user, heads * dh
    q = torch.randn(batch, lq, e, generator=gen, device=DEV, dtype=dtype)
    if lq == 1:
        q = q.view(batch, e)
    k = torch.randn(users, lk, e, generator=gen, device=DEV, dtype=dtype)
    v = torch.randn(users, lk, e, generator=gen, device=DEV, dtype=dtype)
    c2u = torch.arange(users, device=DEV).repeat_interleave(per_user)
    key_lengths = None
    if lengths is not None:
        key_lengths = torch.randint(lengths[0], lengths[1] + 1, (users,), generator=gen,
                                    device=DEV)
    mod = ikbo.IkboTargetAttention(heads)

    def torch_fn(q, k, v, c2u, key_lengths):
        q3 = q.unsqueeze(1) if q.dim() == 2 else q
        o = attention_torch_form(q3, k, v, c2u, key_lengths, heads)
        return o.squeeze(1) if q.dim() == 2 else o

    flops = 4 * batch * heads * lq * lk * dh
    shape = dict(B=batch, U=users, Lq=lq, Lk=lk, H=heads, Dh=dh, dtype=str(dtype).split(".")[1],
                 key_lengths=list(lengths) if lengths else None, gflop=flops / 1e9)
    return dict(case=name, shape=shape, emb_fn=mod, emb_args=(q, k, v, c2u, key_lengths),
                torch_fn=torch_fn, torch_args=(q, k, v, c2u, key_lengths))


CASES = {
    "lce_main": lambda: lce_case("lce_main", torch.float16),
    "lce_main_bf16": lambda: lce_case("lce_main_bf16", torch.bfloat16),
    "lce_unpadded": lambda: lce_case("lce_unpadded", torch.float16, ku=1178, kc=866),
    "attention_lk512": lambda: attention_case("attention_lk512", 512),
    "attention_lk2048": lambda: attention_case("attention_lk2048", 2048),
    "ranking_target_attention": lambda: attention_case(
        "ranking_target_attention", 1024, lq=1, lengths=(256, 1024)),
}


def time_calls(fn, flush):
    """The median of one run's calls (ms): warm-up, then >= 100 ms and >= 30 calls, each
    after an L2 flush, CUDA events around the call alone."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        fn()
    end.record()
    end.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-3)
    calls = int(min(max(30, 100.0 / estimate), 5000))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(calls)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(calls)]
    for i in range(calls):
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def rel_err(a, b):
    a, b = a.float(), b.float()
    return ((a - b).abs().max() / b.abs().max().clamp(min=1)).item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=None)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "ikbo_torch.json"))
    a = ap.parse_args()
    _runtime.runtime(a.lib)
    device = torch.cuda.get_device_name()
    print("torch", torch.__version__, device, flush=True)
    flush = torch.empty(256 << 20, dtype=torch.int8, device=DEV)
    records = []
    with torch.no_grad():
        for name in a.cases.split(","):
            # Each case compiles afresh for its own static shapes (the forms' code is shared
            # between cases, and a second shape would make Dynamo compile a dynamic one).
            torch._dynamo.reset()
            c = CASES[name]()
            emb_compiled = torch.compile(c["emb_fn"], fullgraph=True)
            torch_compiled = torch.compile(c["torch_fn"])
            sides = {
                "emb_torch eager": lambda: c["emb_fn"](*c["emb_args"]),
                "emb_torch compiled": lambda: emb_compiled(*c["emb_args"]),
                "torch eager": lambda: c["torch_fn"](*c["torch_args"]),
                "torch compiled": lambda: torch_compiled(*c["torch_args"]),
            }
            ref = sides["torch eager"]()
            errors = {side: rel_err(fn(), ref) for side, fn in sides.items()}
            del ref
            runs = {side: [] for side in sides}
            for _ in range(a.runs):
                for side, fn in sides.items():
                    runs[side].append(time_calls(fn, flush))
            ms = {side: statistics.median(r) for side, r in runs.items()}
            for impl in ("emb_torch eager", "emb_torch compiled"):
                for peer in ("torch eager", "torch compiled"):
                    records.append(dict(
                        case=name, impl=impl, peer=peer, ms=ms[impl], peer_ms=ms[peer],
                        ratio=ms[peer] / ms[impl], runs=runs[impl], peer_runs=runs[peer],
                        max_rel_err=errors[impl], peer_max_rel_err=errors[peer], **c["shape"],
                        commit=commit_id(), torch=torch.__version__, device=device,
                        date=datetime.datetime.now(datetime.timezone.utc).isoformat()))
            print("%-26s %s" % (name, "  ".join("%s %.4f ms" % (s, ms[s]) for s in sides)),
                  flush=True)
            del c, sides, emb_compiled, torch_compiled
            torch.cuda.empty_cache()
    print()
    print("| case | impl | ms | peer | peer ms | ratio | max rel err |")
    print("|---|---|---|---|---|---|---|")
    for r in records:
        print("| %s | %s | %.4f | %s | %.4f | %.2f | %.1e |" % (
            r["case"], r["impl"], r["ms"], r["peer"], r["peer_ms"], r["ratio"],
            r["max_rel_err"]))
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(records, f, indent=1)
        f.write("\n")
    print("wrote", a.out)


if __name__ == "__main__":
    main()
