"""IKBO linear compression: emb against the torch peers, in one run.

Runs on the GPU machine (bench/ikbo_lce/gpu_run.sh calls it):
  - the bf16 matrix-rate ceiling (8192^3 through torch), as the peers measure it;
  - torch eager on the original model (broadcast + cat + bmm, unpadded K) for
    every shape our benchmark measured, and torch's hand-decomposed form;
  - Inductor max-autotune on the hand-decomposed, hand-padded form (the bar),
    for the IKBO benchmark shape (--inductor; compiles for minutes);
then reads our measurements (JSON lines from build-ikbo/ikbo_lce_bench) and
writes bench/results-style records and a chart:

  python3 bench/ikbo_lce/run_bench.py --ours ours.jsonl --out DIR [--inductor]

Peer setup copied from the shared peers_gpu.py / peers_gpu_compiled.py:
W ~ randn / sqrt(K), user/cand ~ randn, c2u = sorted uniform users,
triton.testing.do_bench medians (warm-up 25 ms, 100 ms of repeats).
"""
import argparse
import datetime
import json
import math
import os
import sys
import time

try:
    import torch
except ImportError:  # --chart-only needs neither torch nor triton
    torch = None

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_peers import do_bench_median as bench  # noqa: E402

dev = "cuda"
BF16_RATE_REF = 708.0  # TFLOP/s, shared/peers/BASELINES.md
UNPADDED = {1184: 1178, 872: 866}  # the compiler pads the model's K to these


def ceiling():
    x = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
    y = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
    ms = bench(lambda: x @ y)
    del x, y
    return 2 * 8192 ** 3 / ms / 1e9


def inputs(B, U, M, Ku, Kc, N, dtype, seed=0):
    torch.manual_seed(seed)
    K = Ku + Kc
    W = torch.randn(M, K, dtype=dtype, device=dev) / math.sqrt(K)
    user = torch.randn(U, Ku, N, dtype=dtype, device=dev)
    cand = torch.randn(B, Kc, N, dtype=dtype, device=dev)
    c2u = torch.sort(torch.randint(0, U, (B,), device=dev)).values
    return W, user, cand, c2u


def eager_original(B, U, M, Ku, Kc, N, dtype):
    """torch eager on the original model: broadcast, concat, batched matmul."""
    W, user, cand, c2u = inputs(B, U, M, Ku, Kc, N, dtype)

    def baseline():
        x = torch.cat([user.index_select(0, c2u), cand], dim=1)
        return torch.matmul(W, x)
    ms = bench(baseline)
    del W, user, cand, c2u
    torch.cuda.empty_cache()
    return ms


def eager_decomposed(B, U, M, Ku, Kc, N, dtype):
    W, user, cand, c2u = inputs(B, U, M, Ku, Kc, N, dtype)
    Wu, Wc = W[:, :Ku].contiguous(), W[:, Ku:].contiguous()

    def decomposed():
        yu = torch.matmul(Wu, user)
        return torch.matmul(Wc, cand) + yu.index_select(0, c2u)
    ms = bench(decomposed)
    del W, user, cand, c2u, Wu, Wc
    torch.cuda.empty_cache()
    return ms


def inductor_decomposed(B, U, M, Ku, Kc, N, dtype):
    """Inductor max-autotune on the hand-decomposed form (peers_gpu_compiled)."""
    W, user, cand, c2u = inputs(B, U, M, Ku, Kc, N, dtype)

    def decomposed(W, user, cand, c2u):
        return (torch.matmul(W[:, Ku:], cand) +
                torch.matmul(W[:, :Ku], user).index_select(0, c2u))
    t0 = time.time()
    cf = torch.compile(decomposed, mode="max-autotune-no-cudagraphs",
                       dynamic=False)
    cf(W, user, cand, c2u)
    compile_s = time.time() - t0
    ms = bench(lambda: cf(W, user, cand, c2u))
    return ms, compile_s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", help="JSON lines of ikbo_lce_bench")
    ap.add_argument("--out")
    ap.add_argument("--inductor", action="store_true")
    ap.add_argument("--inductor-timeout", type=int, default=240)
    ap.add_argument("--inductor-only", action="store_true",
                    help="(child) measure the Inductor peer, print one line")
    ap.add_argument("--chart-only", metavar="RESULTS_JSON",
                    help="redraw the chart of a results file into --out")
    ap.add_argument("--commit", default=os.environ.get("EMB_COMMIT", "unknown"))
    a = ap.parse_args()
    if a.chart_only:
        records = json.load(open(a.chart_only))
        chart(records, records[0]["bf16_rate_tflops"],
              os.path.join(a.out, "ikbo_lce.png"))
        return
    if a.inductor_only:
        ms, cs = inductor_decomposed(1024, 15, 433, 1184, 872, 256,
                                     torch.float16)
        print(json.dumps({"peer": "inductor_maxautotune_decomposed_padded",
                          "ms": ms, "compile_s": cs}), flush=True)
        return
    os.makedirs(a.out, exist_ok=True)
    device = torch.cuda.get_device_name()
    date = datetime.date.today().isoformat()
    print(torch.__version__, device, flush=True)

    ours = [json.loads(l) for l in open(a.ours) if l.startswith("{")]
    rate = ceiling()
    print(json.dumps({"case": "ceiling_bf16_gemm", "tflops": rate}), flush=True)

    peers = {}  # (B, U, dtype) -> eager original ms
    for r in ours:
        if r["case"] not in ("main", "main_unpadded", "sweep"):
            continue
        key = (r["B"], r["U"], r["dtype"])
        if key in peers:
            continue
        dt = torch.bfloat16 if r["dtype"] == "bf16" else torch.float16
        ku, kc = UNPADDED.get(r["Ku"], r["Ku"]), UNPADDED.get(r["Kc"], r["Kc"])
        peers[key] = eager_original(r["B"], r["U"], r["M"], ku, kc, r["N"], dt)
        print(json.dumps({"peer": "torch_eager_broadcast_cat_bmm",
                          "B": r["B"], "U": r["U"], "dtype": r["dtype"],
                          "Ku": ku, "Kc": kc, "ms": peers[key]}), flush=True)
    dec_ms = eager_decomposed(1024, 15, 433, 1184, 872, 256, torch.float16)
    print(json.dumps({"peer": "torch_eager_decomposed_padded", "ms": dec_ms}),
          flush=True)
    ind = None
    # Records without the Inductor peer first, so that a compile running past
    # the time limit still leaves the rest.
    write(a, ours, peers, dec_ms, ind, rate, device, date, not a.inductor)
    if a.inductor:
        # In a child process with a time limit: max-autotune can take minutes.
        import subprocess
        import sys
        cmd = [sys.executable, os.path.abspath(__file__), "--inductor-only"]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True,
                                 timeout=a.inductor_timeout).stdout
            for line in out.splitlines():
                if line.startswith("{"):
                    r = json.loads(line)
                    ind = (r["ms"], r["compile_s"])
                    print(line, flush=True)
        except subprocess.TimeoutExpired:
            print("inductor: no result within %d s" % a.inductor_timeout,
                  flush=True)
        write(a, ours, peers, dec_ms, ind, rate, device, date, True)


def write(a, ours, peers, dec_ms, ind, rate, device, date, final):
    records = []

    def rec(r, peer, peer_ms, **extra):
        d = {"case": "ikbo_lce_" + r["case"], "B": r["B"], "U": r["U"],
             "M": r["M"], "Ku": r["Ku"], "Kc": r["Kc"], "N": r["N"],
             "dtype": r["dtype"], "impl": "emb." + r["config"], "ms": r["ms"],
             "peer": peer, "peer_ms": peer_ms,
             "ratio": (peer_ms / r["ms"]) if peer_ms else None,
             "tflops": r["tflops"],
             "pct_of_bf16_rate": 100.0 * r["tflops"] / rate,
             "bf16_rate_tflops": rate, "device": device,
             "commit": a.commit, "date": date}
        d.update(extra)
        records.append(d)

    for r in ours:
        key = (r["B"], r["U"], r["dtype"])
        if r["case"] in ("main", "main_unpadded", "sweep"):
            rec(r, "torch_eager_broadcast_cat_bmm (K %d/%d)" % (
                UNPADDED.get(r["Ku"], r["Ku"]), UNPADDED.get(r["Kc"], r["Kc"])),
                peers[key])
        if r["case"] == "main" and r["dtype"] == "f16":
            rec(r, "torch_eager_decomposed_padded", dec_ms)
            if ind:
                rec(r, "inductor_maxautotune_decomposed_padded", ind[0],
                    peer_compile_s=ind[1])
        if r["case"] in ("config", "user_only"):
            rec(r, None, None)
    with open(os.path.join(a.out, "ikbo_lce.json"), "w") as f:
        json.dump(records, f, indent=1)
    chart(records, rate, os.path.join(a.out, "ikbo_lce.png"))
    if not final:
        return  # the table follows with the Inductor peer

    print("\n%-18s %5s %5s %-5s %-22s %8s %-44s %8s %7s %7s" % (
        "case", "B", "U", "dtype", "impl", "ms", "peer", "peer_ms", "ratio",
        "TFLOP/s"))
    for d in records:
        print("%-18s %5d %5d %-5s %-22s %8.4f %-44s %8s %7s %7.1f" % (
            d["case"][9:], d["B"], d["U"], d["dtype"], d["impl"][4:], d["ms"],
            d["peer"] or "-",
            "%.4f" % d["peer_ms"] if d["peer_ms"] else "-",
            "%.2f" % d["ratio"] if d["ratio"] else "-", d["tflops"]))


def nominal_per_user(B, U):
    """The sweep's candidates per user (2, 10, 70, 1000) that gave U users."""
    for per in (2, 10, 70, 1000):
        if (B + per - 1) // per == U:
            return per
    return round(B / U)


def chart(records, rate, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: chart skipped")
        return
    sweep = [d for d in records if d["case"] == "ikbo_lce_sweep"]
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    pers = sorted({nominal_per_user(d["B"], d["U"]) for d in sweep})
    for per in pers:
        pts = sorted((d["B"], d["tflops"], d["ratio"]) for d in sweep
                     if nominal_per_user(d["B"], d["U"]) == per)
        label = "%d candidates/user" % per
        ax[0].plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=label)
        ax[1].plot([p[0] for p in pts], [p[2] for p in pts], "o-", label=label)
    impl = sweep[0]["impl"][4:] if sweep else ""
    ax[0].axhline(rate, color="gray", ls="--",
                  label="bf16 matrix rate (%.0f)" % rate)
    ax[0].set_xlabel("candidates B")
    ax[0].set_ylabel("TFLOP/s (decomposed FLOPs)")
    ax[0].set_title("emb.ikbo_lce %s, f16, M=433 N=256 K=1184/872" % impl,
                    fontsize=10)
    ax[0].set_ylim(0, rate * 1.1)
    ax[0].legend(fontsize=8, loc="lower right")
    ax[1].set_xlabel("candidates B")
    ax[1].set_ylabel("speed-up over torch eager broadcast+cat+bmm")
    ax[1].axhline(7, color="gray", ls=":", label="7x bar")
    ax[1].set_ylim(0, 8)
    ax[1].legend(fontsize=8, loc="lower right")
    main = [d for d in records if d["case"] == "ikbo_lce_main" and
            d["dtype"] == "f16" and d["peer"]]
    if main:
        txt = "\n".join("%s: %.3f vs %.3f ms (x%.2f)" % (
            d["peer"].split(" ")[0], d["ms"], d["peer_ms"], d["ratio"])
            for d in main)
        ax[1].text(0.02, 0.02, "B=1024 U=15, %s:\n%s" % (main[0]["impl"][4:],
                                                        txt),
                   transform=ax[1].transAxes, fontsize=7, va="bottom")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("chart", path)


if __name__ == "__main__":
    main()
