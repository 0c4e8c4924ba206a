"""Merges tbe_bench (ours) and peers.py output into bench/results records, a
chart of achieved GB/s against the copy bandwidth, and the table of the bars.

    python3 bench/tbe/report.py --ours ours.jsonl --peers peers.jsonl \
        --json tbe_forward.json --png tbe_forward.png [--commit SHA]
    python3 bench/tbe/report.py --redraw bench/results/tbe_forward.json \
        --png docs/kernels/tbe_forward.png
    python3 bench/tbe/report.py --ours ... --peers ... --json new.json \
        --merge bench/results/tbe_forward.json --run 3 --png tbe_forward.png
        (the records of the cases this run measured replace the old ones of
        those cases; the others are kept; the chart is drawn from the merge)

Records: one per (shape, our implementation) with case, B, T, E, D, L, dtype,
weighted, alpha, impl, config, ms, peer (torch's best: one embedding_bag over
the concatenated tables, or the single-table embedding_bag), peer_ms, ratio
(peer_ms / ms: > 1 means we are faster), gbps (ours, bytes as peers_gpu.py
counts them), peer_gbps, loop_ms (torch loop of T embedding_bag calls, where
measured), bar (the issue's ratio to reach), device, commit, date, run
(which device call measured it: NOTES.md).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_results import add_commit_arg, load_jsonl, today  # noqa: E402
from bench_results import write_results  # noqa: E402

BEST_PEER = ("one_embedding_bag_over_concat", "torch.embedding_bag")
BARS = {
    "tbe_f16": 3.0, "tbe_f32": 2.5, "tbe_f32_zipf": 2.5, "tbe_f16_zipf": 2.5,
    "tbe_f16_weighted_d64": 2.5, "tbe_f16_l4": 4.0, "tbe_fbgemm_default": 1.5,
    "ebag_mean_big": 3.5,
}


def bar(case):
    return BARS.get(case, 2.0 if case.startswith("ebag_mean_d") else None)


def load(path):
    """The JSON lines of `path`; none when it is missing."""
    return load_jsonl(path, missing_ok=True)


def chart(rows, copy, device, png):
    """Bars of achieved GB/s, ours against torch's best, and the copy line.
    A row whose peer is missing takes peer_ms/ratio from `alt` (hatched)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # the numbers matter more than the picture
        print("chart failed:", e)
        return
    xs = list(range(len(rows)))
    fig, ax = plt.subplots(figsize=(13, 5))
    for x, r in zip(xs, rows):
        alt = r.get("alt")
        ours = (alt or r)["gbps"]
        ax.bar(x - 0.2, ours, 0.4, color="tab:blue", hatch="//" if alt else None,
               label="emb" if x == 0 else None)
        peer = r["peer_gbps"] or (alt and alt["peer_gbps"]) or 0
        ax.bar(x + 0.2, peer, 0.4, color="tab:orange", hatch="//" if alt else None,
               label="torch best (one embedding_bag)" if x == 0 else None)
        ratio = r["ratio"] or (alt and alt["ratio"])
        if ratio:
            ax.text(x, ours + 40, "%.1fx%s" % (ratio, "*" if alt else ""),
                    ha="center", fontsize=7)
    if copy:
        ax.axhline(copy, color="k", ls="--", lw=1, label="device copy %.0f GB/s" % copy)
    ax.set_xticks(xs)
    ax.set_xticklabels([r["case"] for r in rows], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("GB/s (ids + rows + output, as peers_gpu.py)")
    ax.set_title("TBE forward on %s: achieved bandwidth (ratio = torch ms / emb ms)" % device)
    if any(r.get("alt") for r in rows):
        ax.text(0.99, 0.97, "* hatched: emb and torch of run 1 (run-2 torch time disturbed)",
                transform=ax.transAxes, ha="right", va="top", fontsize=7)
    ax.legend(fontsize=8, loc="center")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def redraw(path, png, records=None):
    """Draws the chart of a merged results file (records of several runs):
    each case's newest "emb" record; where its ratio is missing, the newest
    older one that has a ratio is drawn hatched."""
    records = records if records is not None else json.load(open(path))
    newest, alts, order = {}, {}, []
    for r in records:
        if r["impl"] != "emb" or r["case"].startswith("probe"):
            continue
        c = r["case"]
        if c not in order:
            order.append(c)
        if c not in newest or r.get("run", 0) > newest[c].get("run", 0):
            newest[c] = r
    for r in records:
        c = r["case"]
        if (r["impl"] == "emb" and c in newest and r is not newest[c]
                and r["ratio"] is not None
                and (c not in alts or r.get("run", 0) > alts[c].get("run", 0))):
            alts[c] = r
    rows = []
    for c in order:
        r = dict(newest[c])
        if r["ratio"] is None and c in alts:
            r["alt"] = alts[c]
        rows.append(r)
    copy = next((r["copy_gbps"] for r in reversed(records) if r.get("copy_gbps")), None)
    chart(rows, copy, records[0]["device"], png)


def merge(old, new):
    """The old records with those of every case in `new` replaced by new's."""
    cases = set(r["case"] for r in new)
    out, placed = [], set()
    for r in old:
        c = r["case"]
        if c not in cases:
            out.append(r)
        elif c not in placed:
            out.extend(n for n in new if n["case"] == c)
            placed.add(c)
    out.extend(n for n in new if n["case"] not in placed and n["case"] not in
               set(r["case"] for r in old))
    return out


def summary(records):
    """The table of the bars: one row per case's automatic configuration."""
    print("\n%-22s %-13s %9s %9s %7s %5s %4s %7s %s" %
          ("case", "config", "ms", "peer_ms", "ratio", "bar", "met", "GB/s", "check"))
    for r in records:
        if r["impl"] != "emb" or r["case"].startswith("probe"):
            continue
        met = "yes" if r["ratio"] and r["bar"] and r["ratio"] >= r["bar"] else "NO"
        print("%-22s %-13s %9.4f %9.4f %7.2f %5.1f %4s %7.0f %s" %
              (r["case"], r["config"], r["ms"], r["peer_ms"] or 0, r["ratio"] or 0,
               r["bar"] or 0, met, r["gbps"], r["check"][:30]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours")
    ap.add_argument("--peers")
    ap.add_argument("--json")
    ap.add_argument("--png", default=None)
    add_commit_arg(ap)
    ap.add_argument("--redraw", default=None, help="a merged results JSON to draw")
    ap.add_argument("--merge", default=None, help="older results to merge into")
    ap.add_argument("--run", type=int, default=None, help="this run's number")
    ap.add_argument("--summary", default=None,
                    help="a results JSON: print the table of its --run records")
    a = ap.parse_args()
    if a.redraw:
        redraw(a.redraw, a.png)
        return
    if a.summary:
        summary([r for r in json.load(open(a.summary))
                 if a.run is None or r.get("run") == a.run])
        return
    ours, peers = load(a.ours), load(a.peers)
    date = today()
    device = next((p["device"] for p in peers if p.get("device")), "NVIDIA H200")
    copy = next((p["gbps"] for p in peers if p["case"] == "ceiling_copy"), None)
    records = []
    for o in ours:
        best = next((p for p in peers if p["case"] == o["case"] and p["impl"] in BEST_PEER), None)
        loop = next((p for p in peers if p["case"] == o["case"]
                     and p["impl"] == "loop_of_T_embedding_bag"), None)
        records.append(dict(
            case=o["case"], B=o.get("B"), T=o.get("T"), E=o.get("E"), D=o.get("D"),
            L=o.get("L"), dtype=o.get("dtype"), weighted=o.get("weighted"),
            alpha=o.get("alpha"), impl=o["impl"], config=o.get("config"),
            ms=round(o["ms"], 5), peer=best["impl"] if best else None,
            peer_ms=round(best["ms"], 5) if best else None,
            ratio=round(best["ms"] / o["ms"], 3) if best else None,
            gbps=round(o.get("gbps", 0), 1),
            peer_gbps=round(best["gbps"], 1) if best else None,
            loop_ms=round(loop["ms"], 5) if loop else None, bar=bar(o["case"]),
            check=o.get("check", "ok"), copy_gbps=round(copy, 1) if copy else None,
            device=device, commit=a.commit, date=date))
        if a.run is not None:
            records[-1]["run"] = a.run
    merged = merge(json.load(open(a.merge)), records) if a.merge else records
    write_results(a.json, merged)

    main_rows = [r for r in records if r["impl"] == "emb" and not r["case"].startswith("probe")]
    probes = [r for r in records if r["case"].startswith("probe") and r["impl"] == "emb"]
    if a.png and a.merge:
        redraw(None, a.png, merged)
    elif a.png and main_rows:
        chart(main_rows, copy, device, a.png)

    summary(main_rows)
    print("\nprobes (ms): " + ", ".join("%s %.4f" % (r["case"][6:], r["ms"]) for r in probes))
    print("\nsweep (ms): configs and variants")
    cases = []
    for r in records:
        if r["case"] not in cases and not r["case"].startswith("probe"):
            cases.append(r["case"])
    impls = []
    for r in records:
        if r["impl"] != "emb" and r["impl"] not in impls:
            impls.append(r["impl"])
    print("%-22s" % "case" + "".join(" %13s" % i.split("=")[-1][:13] for i in impls))
    for c in cases:
        row = {r["impl"]: r for r in records if r["case"] == c}
        print("%-22s" % c + "".join(" %13.4f" % row[i]["ms"] if i in row else " %13s" % "-"
                                     for i in impls))
    bad = [r for r in records if r["check"] != "ok"]
    print("\nchecks: %d of %d ok" % (len(records) - len(bad), len(records)))
    for r in bad[:10]:
        print("  CHECK FAILED", r["case"], r["impl"], r["check"])


if __name__ == "__main__":
    main()
