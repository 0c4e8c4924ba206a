"""Merges attention_bench (ours) and peers.py output into bench/results records,
a chart, and the table of the issue's bars.

    python3 bench/attention/report.py --ours ours.jsonl --peers peers.jsonl \
        --json ikbo_attention.json --png ikbo_attention.png [--commit SHA]

Records: one per (shape, our config, peer) with case, B, U, H, Lq, Lk, Dh, dtype,
ragged, impl, ms, peer, peer_ms, ratio (peer_ms / ms: > 1 means we are faster),
tflops (ours), peer_tflops, device, commit, date.
"""
import argparse
import datetime
import json


def load(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                out.append(json.loads(line))
    return out


def best(peers, names):
    got = [p for p in peers if p["impl"] in names and p.get("ms")]
    return min(got, key=lambda p: p["ms"]) if got else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--png", default=None)
    ap.add_argument("--commit", default="uncommitted")
    a = ap.parse_args()
    ours = load(a.ours)
    try:
        peers = load(a.peers)
    except OSError:
        peers = []
    date = datetime.date.today().isoformat()
    device = next((p["device"] for p in peers if p.get("device")), "unknown")
    records = []
    for o in ours:
        for p in peers:
            if p["case"] != o["case"] or p["Lk"] != o["Lk"] or not p.get("ms"):
                continue
            records.append(dict(
                case=o["case"], B=o["B"], U=o["U"], H=o["H"], Lq=o["Lq"], Lk=o["Lk"],
                Dh=o["Dh"], dtype=o["dtype"], ragged=o["ragged"], impl=o["impl"],
                auto=o["auto"], ms=round(o["ms"], 5), peer=p["impl"],
                peer_ms=round(p["ms"], 5), ratio=round(p["ms"] / o["ms"], 3),
                tflops=round(o["tflops"], 1), peer_tflops=round(p["tflops"], 1),
                device=device, commit=a.commit, date=date))
    with open(a.json, "w") as f:
        json.dump(records, f, indent=1)

    # The bars, for the automatic configuration.
    print("\n%-8s %6s %-22s %8s  %-34s %8s %7s %6s" %
          ("case", "Lk", "ours", "ms", "peer", "peer_ms", "ratio", "TF/s"))
    groups = {
        "grouped cuDNN": ["torch_sdpa_grouped_cudnn_copies", "torch_sdpa_grouped_cudnn_native"],
        "varlen": ["torch_varlen_attn"],
        "broadcast": ["torch_sdpa_broadcast_default", "torch_sdpa_broadcast_cudnn"],
    }
    for o in sorted(ours, key=lambda r: (r["case"], r["Lk"], r["impl"])):
        if not o["auto"]:
            continue
        ps = [p for p in peers if p["case"] == o["case"] and p["Lk"] == o["Lk"]]
        for label, names in groups.items():
            p = best(ps, names)
            if not p:
                continue
            print("%-8s %6d %-22s %8.4f  %-34s %8.4f %7.2f %6.0f" %
                  (o["case"].split("_")[-1], o["Lk"], o["impl"], o["ms"], p["impl"],
                   p["ms"], p["ms"] / o["ms"], o["tflops"]))
    print("\nall configs (ms / TFLOP/s):")
    for o in sorted(ours, key=lambda r: (r["case"], r["Lk"], r["impl"])):
        print("  %-8s %6d %-22s %8.4f %6.0f%s" % (
            o["case"].split("_")[-1], o["Lk"], o["impl"], o["ms"], o["tflops"],
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
            for o in ours:
                if o["case"] == case:
                    series.setdefault("emb " + o["impl"][4:], []).append((o["Lk"], o["tflops"]))
            for label, names in groups.items():
                for lk in sorted({p["Lk"] for p in peers if p["case"] == case}):
                    p = best([p for p in peers if p["case"] == case and p["Lk"] == lk], names)
                    if p:
                        series.setdefault("torch " + label, []).append((lk, p["tflops"]))
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
