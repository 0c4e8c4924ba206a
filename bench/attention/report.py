"""Merges attention_bench (ours) and peers.py output into bench/results records,
a chart, and the table of the issue's bars.

    python3 bench/attention/report.py --ours ours.jsonl --peers peers.jsonl \
        --json ikbo_attention.json --png ikbo_attention.png [--commit SHA]

Both inputs may hold several runs (their "run" field): each side's figure is the
median over its runs, and every run's figure is kept (ms_runs, peer_ms_runs).

Records: one per (shape, dtype, our config, peer) with case, B, U, H, Lq, Lk, Dh,
dtype, ragged, masked, impl, ms, ms_runs, peer, peer_ms, peer_ms_runs, ratio
(peer_ms / ms: > 1 means we are faster), tflops (ours), peer_tflops, device,
commit, date. A masked run (user lengths, keys past them masked) is set beside
our own unmasked run of the same config and shape: peer "emb_unmasked",
ratio = our useful TFLOP/s masked / our TFLOP/s unmasked.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_results import add_commit_arg, load_jsonl, today  # noqa: E402
from bench_results import write_results  # noqa: E402
from bench_results import median_runs as medians  # noqa: E402

# The peer of record first (bench/attention/NOTES.md): cuDNN reading the
# grouped queries through strided views.
GROUPS = {
    "cuDNN native grouped": ["torch_sdpa_grouped_cudnn_native"],
    "default native grouped": ["torch_sdpa_grouped_default_native"],
    "varlen": ["torch_varlen_attn"],
    "cuDNN grouped, copies": ["torch_sdpa_grouped_cudnn_copies"],
    "broadcast": ["torch_sdpa_broadcast_default", "torch_sdpa_broadcast_cudnn"],
}


def load(path):
    return load_jsonl(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--png", default=None)
    add_commit_arg(ap)
    a = ap.parse_args()
    ours_rows = load(a.ours)
    try:
        peer_rows = load(a.peers)
    except OSError:
        peer_rows = []
    date = today()
    device = next((p["device"] for p in peer_rows if p.get("device")), "unknown")
    shape = lambda r: (r["case"], r["Lk"], r.get("dtype", "f16"))
    ours = medians(ours_rows, lambda r: shape(r) + (r.get("masked", False), r["impl"]))
    peers = medians(peer_rows, lambda r: shape(r) + (r["impl"],))

    def flops_rate(o, ms):
        return o["tflops"] * o["ms"] / ms  # tflops scales with 1 / ms

    records = []
    for (case, lk, dt, masked, impl), (ms, runs, o) in sorted(ours.items()):
        base = dict(case=case, B=o["B"], U=o["U"], H=o["H"], Lq=o["Lq"], Lk=lk,
                    Dh=o["Dh"], dtype=dt, ragged=o["ragged"], masked=masked,
                    impl=impl, auto=o["auto"], ms=round(ms, 5),
                    ms_runs=[round(x, 5) for x in runs],
                    tflops=round(flops_rate(o, ms), 1))
        if masked:
            u = ours.get((case, lk, dt, False, impl))
            if not u:
                continue
            useful = o["useful_tflops"] * o["ms"] / ms
            unmasked = flops_rate(u[2], u[0])
            records.append(dict(base, useful_tflops=round(useful, 1), peer="emb_unmasked",
                                peer_ms=round(u[0], 5),
                                peer_ms_runs=[round(x, 5) for x in u[1]],
                                peer_tflops=round(unmasked, 1),
                                ratio=round(useful / unmasked, 3), device=device,
                                commit=a.commit, date=date))
            continue
        for (pc, plk, pdt, pimpl), (pms, pruns, p) in sorted(peers.items()):
            if (pc, plk, pdt) != (case, lk, dt):
                continue
            records.append(dict(base, peer=pimpl, peer_ms=round(pms, 5),
                                peer_ms_runs=[round(x, 5) for x in pruns],
                                peer_tflops=round(p["tflops"] * p["ms"] / pms, 1),
                                ratio=round(pms / ms, 3), device=device,
                                commit=a.commit, date=date))
    write_results(a.json, records)

    # The bars, for the automatic configuration: medians over runs.
    print("\n%-8s %-4s %6s %-22s %8s  %-34s %8s %6s %6s" %
          ("case", "dt", "Lk", "ours", "ms", "peer", "peer_ms", "ratio", "TF/s"))
    order = [n for names in GROUPS.values() for n in names]
    bars = [r for r in records if r["auto"] and not r["masked"] and r["peer"] in order
            and r["peer"] != "torch_sdpa_broadcast_default"]
    bars.sort(key=lambda r: (r["case"], r["dtype"], r["Lk"], order.index(r["peer"])))
    for r in bars:
        print("%-8s %-4s %6d %-22s %8.4f  %-34s %8.4f %6.3f %6.0f" %
              (r["case"].split("_")[-1], r["dtype"], r["Lk"], r["impl"], r["ms"],
               r["peer"], r["peer_ms"], r["ratio"], r["tflops"]))
    masked = [r for r in records if r["masked"]]
    if masked:
        print("\nmasked keys (user lengths Lk/2..Lk): useful TFLOP/s against unmasked")
        for r in masked:
            print("  %-8s %-4s %6d %-22s %8.4f %6.0f useful / %6.0f unmasked = %.3f" %
                  (r["case"].split("_")[-1], r["dtype"], r["Lk"], r["impl"], r["ms"],
                   r["useful_tflops"], r["peer_tflops"], r["ratio"]))
    print("\nall configs (median ms over runs / TFLOP/s; runs):")
    for (case, lk, dt, m, impl), (ms, runs, o) in sorted(ours.items()):
        print("  %-8s %-4s %6d %-7s %-24s %8.4f %6.0f  %s%s" % (
            case.split("_")[-1], dt, lk, "masked" if m else "", impl, ms,
            flops_rate(o, ms), " ".join("%.4f" % x for x in runs),
            "  NONFINITE %d" % o["nonfinite"] if o.get("nonfinite") else ""))

    if a.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
        colors = {}
        palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for ax, case in zip(axes, ("ikbo_attention_uniform", "ikbo_attention_ragged")):
            series = {}
            for (c, lk, dt, m, impl), (ms, _, o) in ours.items():
                if c == case and dt == "f16" and not m:
                    series.setdefault("emb " + impl[4:], []).append((lk, flops_rate(o, ms)))
            for label, names in GROUPS.items():
                for lk in sorted({k[1] for k in peers if k[0] == case and k[2] == "f16"}):
                    got = [(v[0], v[2]) for k, v in peers.items()
                           if k[0] == case and k[1] == lk and k[2] == "f16" and k[3] in names]
                    if got:
                        pms, p = min(got, key=lambda x: x[0])
                        series.setdefault("torch " + label, []).append(
                            (lk, p["tflops"] * p["ms"] / pms))
            for label, pts in sorted(series.items()):
                pts.sort()
                color = colors.setdefault(label, palette[len(colors) % len(palette)])
                style = "-o" if label.startswith("emb") else "--s"
                ax.plot([x for x, _ in pts], [y for _, y in pts], style, label=label,
                        color=color)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("Lk (keys a user)")
            ax.set_title(case.replace("ikbo_attention_", "") +
                         " (32 users, Lq 64, H 2, Dh 128, f16)")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7, loc="center right", bbox_to_anchor=(1.0, 0.42))
        axes[0].set_ylabel("TFLOP/s (4 B H Lq Lk Dh / time)")
        fig.suptitle("emb.ikbo_attention on %s" % device)
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()
