"""Merges tbe_train_bench (ours) and peers.py runs into bench/results/tbe_train.json, a chart, and the
table of the bars.

    python3 bench/tbe_train/report.py --ours 'ours_run*.jsonl' --peers 'peers_run*.jsonl' \
        --json tbe_train.json --png tbe_train.png [--commit SHA]
    python3 bench/tbe_train/report.py --summary bench/results/tbe_train.json

Each side ran three times in one device call (METHOD.md: run-to-run spread is a few percent): a case's
ms is the median of its runs' medians, and every run's value is kept (ms_runs, peer_ms_runs).

Records: one per (case, our implementation) with the forward records' fields (case, B, T, E, D, L,
dtype, weighted, alpha, impl, ms, peer, peer_ms, ratio = peer_ms / ms, gbps, bar, check, copy_gbps,
device, commit, date, run) plus optimizer, fwd_ms and bwd_ms (the forward and the backward timed alone),
unique (touched rows), bytes (the step's floor: the forward's row reads, the gradient read once, one
read and write of each touched row and its state), floor_ms (bytes at the measured copy bandwidth) and
copy_fraction (gbps / copy_gbps).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_results import add_commit_arg, load_jsonl, today  # noqa: E402
from bench_results import median, write_results  # noqa: E402


def load(pattern):
    """The JSON lines of the files `pattern` matches."""
    return load_jsonl(pattern, missing_ok=True)


def build(ours, peers, commit):
    date = today()
    device = next((p["device"] for p in peers if p.get("device")), "NVIDIA H200")
    copies = [p["gbps"] for p in peers if p["case"] == "ceiling_copy"]
    copy = median(copies)
    keys = []
    for o in ours:
        k = (o["case"], o["impl"])
        if k not in keys:
            keys.append(k)
    records = []
    for case, impl in keys:
        runs = [o for o in ours if o["case"] == case and o["impl"] == impl]
        peer_runs = [p for p in peers if p["case"] == case]
        o = runs[0]
        ms = median([r["ms"] for r in runs])
        peer_ms = median([p["ms"] for p in peer_runs])
        checks = sorted(set(r["check"] for r in runs))
        rec = dict(
            case=case, B=o["B"], T=o["T"], E=o["E"], D=o["D"], L=o["L"], dtype=o["dtype"],
            weighted=o["weighted"], alpha=o["alpha"], optimizer=o["optimizer"], impl=impl,
            config=o.get("config"), ms=round(ms, 5),
            fwd_ms=round(median([r["fwd_ms"] for r in runs]), 5),
            bwd_ms=round(median([r["bwd_ms"] for r in runs]), 5),
            peer=peer_runs[0]["impl"] if peer_runs else None,
            peer_ms=round(peer_ms, 4) if peer_ms else None,
            ratio=round(peer_ms / ms, 3) if peer_ms else None,
            gbps=round(o["bytes"] / ms / 1e6, 1), bytes=o["bytes"], unique=o["unique"],
            bar=o["bar"] or None,
            check="ok" if checks == ["ok"] else "; ".join(checks),
            copy_gbps=round(copy, 1) if copy else None,
            floor_ms=round(o["bytes"] / copy / 1e6, 4) if copy else None,
            copy_fraction=round(o["bytes"] / ms / 1e6 / copy, 3) if copy else None,
            ms_runs=[round(r["ms"], 5) for r in runs],
            peer_ms_runs=[round(p["ms"], 4) for p in peer_runs],
            device=device, commit=commit, date=date, run=len(runs))
        records.append(rec)
    return records, copy, device


def chart(records, copy, device, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # the numbers matter more than the picture
        print("chart failed:", e)
        return
    rows = [r for r in records if r["impl"] == "emb"]
    xs = list(range(len(rows)))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 5))
    for x, r in zip(xs, rows):
        ax1.bar(x - 0.2, r["ms"], 0.4, color="tab:blue", label="emb (fwd + fused bwd)" if x == 0 else None)
        ax1.bar(x - 0.2, r["fwd_ms"], 0.4, color="tab:cyan", label="emb forward alone" if x == 0 else None)
        if r["peer_ms"]:
            ax1.bar(x + 0.2, r["peer_ms"], 0.4, color="tab:orange",
                    label="torch sparse embedding_bag + optimizer" if x == 0 else None)
            ax1.text(x, max(r["ms"], r["peer_ms"]) * 1.15, "%.1fx%s" % (
                r["ratio"], " (bar %gx)" % r["bar"] if r["bar"] else ""), ha="center", fontsize=7)
        ax2.bar(x, r["gbps"], 0.6, color="tab:blue")
        ax2.text(x, r["gbps"] + 40, "%.0f%%" % (100 * (r["copy_fraction"] or 0)), ha="center", fontsize=7)
    ax1.set_yscale("log")
    ax1.set_ylabel("ms per training step (log)")
    ax1.set_title("TBE training step on %s" % device)
    ax1.legend(fontsize=7, loc="lower left")
    ax1.set_ylim(top=ax1.get_ylim()[1] * 3)
    if copy:
        ax2.axhline(copy, color="k", ls="--", lw=1, label="device copy %.0f GB/s" % copy)
    ax2.set_ylabel("GB/s of the step's floor bytes")
    ax2.set_title("achieved bandwidth (% of copy)")
    ax2.legend(fontsize=7, loc="upper right")
    ax2.set_ylim(top=(copy or 4000) * 1.1)
    for ax in (ax1, ax2):
        ax.set_xticks(xs)
        ax.set_xticklabels([r["case"].replace("train_", "") for r in rows], rotation=40, ha="right",
                           fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def summary(records):
    print("\n%-22s %-16s %8s %8s %8s %9s %7s %5s %4s %6s %5s %s" % (
        "case", "optimizer", "ms", "fwd", "bwd", "torch", "ratio", "bar", "met", "GB/s", "copy", "check"))
    for r in records:
        if r["impl"] != "emb":
            continue
        met = "-" if not r["bar"] else ("yes" if r["ratio"] and r["ratio"] >= r["bar"] else "NO")
        print("%-22s %-16s %8.3f %8.3f %8.3f %9.3f %7.2f %5s %4s %6.0f %4.0f%% %s" % (
            r["case"], r["optimizer"], r["ms"], r["fwd_ms"], r["bwd_ms"], r["peer_ms"] or 0,
            r["ratio"] or 0, "%g" % r["bar"] if r["bar"] else "-", met, r["gbps"],
            100 * (r["copy_fraction"] or 0), r["check"][:40]))
    others = [r for r in records if r["impl"] != "emb"]
    if others:
        print("\nrouting and variants (backward ms):")
        for r in others:
            print("  %-22s %-14s bwd %8.3f  step %8.3f" % (r["case"], r["impl"], r["bwd_ms"], r["ms"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours")
    ap.add_argument("--peers")
    ap.add_argument("--json")
    ap.add_argument("--png", default=None)
    add_commit_arg(ap)
    ap.add_argument("--summary", default=None, help="a results JSON: print its table")
    a = ap.parse_args()
    if a.summary:
        summary(json.load(open(a.summary)))
        return
    records, copy, device = build(load(a.ours), load(a.peers), a.commit)
    write_results(a.json, records)
    if a.png:
        chart(records, copy, device, a.png)
    summary(records)


if __name__ == "__main__":
    main()
