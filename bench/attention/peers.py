"""Torch peers of emb's IKBO attention, timed on the same shapes as attention_bench.

Shapes: 32 users, 64 query rows a candidate, 2 heads, head dim 128, f16 or bf16
(--dtype), or f32 (--dtype f32: torch's own f32 kernels; with --compute bf16 or
f16 each peer rounds q, k and v to that type and widens its output, inside the
timed call, as emb's conversion path does); uniform
64 candidates a user (B = 2048) or ragged 64-65 (B = 2066: the 18 users with
(7u mod 32) < 18 get 65, as in attention_bench.cu); Lk from 512 to 16384.

Peers (what a user would write instead):
  torch_sdpa_broadcast_{default,cudnn}  the original model: K/V index_select'ed to
      every candidate, then SDPA ([B, H, Lq, Dh] layout, as in peers_gpu.py).
  torch_sdpa_grouped_{cudnn,default}_{copies,native}  uniform only: one user's
      candidates stacked as one query sequence. "copies" is peers_gpu.py's form
      (permute copies of q and of the output inside the timed region); "native"
      reads q [B, Lq, H, Dh] and K/V [U, Lk, H, Dh] through strided views, no copy.
  torch_varlen_attn  torch.nn.attention.varlen.varlen_attn on the packed
      [B*Lq, H, Dh] queries (our layout, no copy) with cu_seq_q at each user's
      first candidate and cu_seq_k = u * Lk.
Timing: triton.testing.do_bench (L2 flushed before each call), median.

    PYTHONUNBUFFERED=1 python3 bench/attention/peers.py --out peers.jsonl \
        [--dtype bf16|f32] [--compute bf16|f16] [--run N] [--only NAME,NAME]
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_peers import Recorder, announce  # noqa: E402
from bench_peers import do_bench_median as bench  # noqa: E402

dev = "cuda"


def varlen_fn():
    try:
        from torch.nn.attention.varlen import varlen_attn
        return lambda q, k, v, cq, ck, mq, mk: varlen_attn(q, k, v, cq, ck, mq, mk)
    except ImportError:
        def fa(q, k, v, cq, ck, mq, mk):
            return torch.ops.aten._flash_attention_forward(
                q, k, v, cq, ck, mq, mk, 0.0, False, False)[0]
        return fa


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--lk", type=int, action="append")
    ap.add_argument("--dtype", choices=("f16", "bf16", "f32"), default="f16")
    ap.add_argument("--compute", choices=("f16", "bf16"), default=None,
                    help="with --dtype f32: the type the peers compute in")
    ap.add_argument("--run", type=int, default=1, help="a label for this run")
    ap.add_argument("--only", default=None, help="comma-separated peers to time")
    a = ap.parse_args()
    lks = a.lk or [512, 1024, 2048, 4096, 8192, 16384]
    record = Recorder(a.out)
    torch.manual_seed(0)
    device = announce()
    varlen = varlen_fn()
    U, Lq, H, Dh = 32, 64, 2, 128
    types = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    dt = types[a.dtype]
    if a.compute and a.dtype != "f32":
        ap.error("--compute needs --dtype f32")
    # c: an operand as the peer computes on it; back: its output as returned.
    if a.compute:
        def c(t):
            return t.to(types[a.compute])

        def back(o):
            return o.float()
    else:
        def c(t):
            return t

        def back(o):
            return o
    for ragged in (False, True):
        counts = [64 + int(ragged and (u * 7) % 32 < 18) for u in range(U)]
        B = sum(counts)
        c2u = torch.repeat_interleave(torch.arange(U, device=dev),
                                      torch.tensor(counts, device=dev))
        cu_q = torch.tensor([0] + counts, device=dev, dtype=torch.int32).cumsum(0)
        cu_q = (cu_q * Lq).to(torch.int32)
        case = "ikbo_attention_ragged" if ragged else "ikbo_attention_uniform"
        for Lk in lks:
            flops = 4 * B * H * Lq * Lk * Dh
            shape = dict(case=case, B=B, U=U, H=H, Lq=Lq, Lk=Lk, Dh=Dh, dtype=a.dtype,
                         compute=a.compute or a.dtype, ragged=ragged, run=a.run,
                         device=device)
            # peers_gpu.py layout
            q = torch.randn(B, H, Lq, Dh, dtype=dt, device=dev)
            k = torch.randn(U, H, Lk, Dh, dtype=dt, device=dev)
            v = torch.randn(U, H, Lk, Dh, dtype=dt, device=dev)
            # emb layout
            qn = torch.randn(B, Lq, H, Dh, dtype=dt, device=dev)
            kn = torch.randn(U, Lk, H, Dh, dtype=dt, device=dev)
            vn = torch.randn(U, Lk, H, Dh, dtype=dt, device=dev)
            cu_k = (torch.arange(U + 1, device=dev, dtype=torch.int32) * Lk).to(torch.int32)

            def broadcast():
                return back(F.scaled_dot_product_attention(
                    c(q), c(k).index_select(0, c2u), c(v).index_select(0, c2u)))

            peers = [("torch_sdpa_broadcast_default", broadcast, None),
                     ("torch_sdpa_broadcast_cudnn", broadcast, SDPBackend.CUDNN_ATTENTION)]
            if not ragged:
                C = B // U

                def grouped_copies():
                    qg = c(q).view(U, C, H, Lq, Dh).permute(0, 2, 1, 3, 4).reshape(U, H, C * Lq, Dh)
                    o = F.scaled_dot_product_attention(qg, c(k), c(v))
                    return back(o.view(U, H, C, Lq, Dh).permute(0, 2, 1, 3, 4).reshape(B, H, Lq, Dh))

                def grouped_native():
                    o = F.scaled_dot_product_attention(
                        c(qn).view(U, C * Lq, H, Dh).transpose(1, 2), c(kn).transpose(1, 2),
                        c(vn).transpose(1, 2))
                    return back(o.transpose(1, 2))  # [U, C*Lq, H, Dh] == [B, Lq, H, Dh]

                peers += [("torch_sdpa_grouped_cudnn_copies", grouped_copies,
                           SDPBackend.CUDNN_ATTENTION),
                          ("torch_sdpa_grouped_cudnn_native", grouped_native,
                           SDPBackend.CUDNN_ATTENTION),
                          ("torch_sdpa_grouped_default_copies", grouped_copies, None),
                          ("torch_sdpa_grouped_default_native", grouped_native, None)]

            qv, kv, vv = qn.view(B * Lq, H, Dh), kn.view(U * Lk, H, Dh), vn.view(U * Lk, H, Dh)
            max_q = max(counts) * Lq

            def packed():
                return back(varlen(c(qv), c(kv), c(vv), cu_q, cu_k, max_q, Lk))

            peers.append(("torch_varlen_attn", packed, None))
            if a.only:
                peers = [x for x in peers if x[0] in a.only.split(",")]
            for name, fn, backend in peers:
                try:
                    if backend is None:
                        ms = bench(fn)
                    else:
                        with sdpa_kernel(backend):
                            ms = bench(fn)
                    record(impl=name, ms=ms, tflops=flops / ms / 1e9, **shape)
                except Exception as e:  # a peer that cannot run is reported, not fatal
                    record(impl=name, ms=None, error=str(e)[:300], **shape)
            del q, k, v, qn, kn, vn, qv, kv, vv
            torch.cuda.empty_cache()
    print("\n%-26s %6s %-36s %9s %7s" % ("case", "Lk", "impl", "ms", "TFLOP/s"))
    for r in record.rows:
        if r.get("ms"):
            print("%-26s %6d %-36s %9.4f %7.0f" % (r["case"], r["Lk"], r["impl"], r["ms"],
                                                   r["tflops"]))


if __name__ == "__main__":
    main()
