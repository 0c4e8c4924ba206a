"""Merges sweep.py's JSON lines into bench/results/tbe_sweep.json and prints the distribution, the
bars of issue 40 and the worst configurations.

    python3 bench/tbe_sweep/report.py --jsonl '$OUT/*.jsonl' [--json bench/results/tbe_sweep.json]
        [--png docs/kernels/tbe_sweep.png] [--worst 10]
    python3 bench/tbe_sweep/report.py --summary bench/results/tbe_sweep.json

A configuration measured twice (a re-run, a resumed slice) keeps its last record
(bench_results.last_by). Percentiles are nearest-rank over the configurations of one op
(bench_results.percentile). The "shape hint" beside a worst configuration names
what its shape points at (a launch-sized floor, short bags, long runs, small D); it is a lead for
the profiler, not a measured bound. The forward's "ceiling" is a bound: the copy fraction a lookup
could reach if every id's bytes went between L2 and the SMs at the fastest rate row_gather measured
over an L2-resident table on that device (bench/results/row_gather.json).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_results import last_by, load_jsonl, write_results  # noqa: E402
from bench_results import percentile as pct  # noqa: E402
from byte_model import ESIZE  # noqa: E402

BARS = {  # op: (median bw_fraction, 10th percentile bw_fraction, median ratio, least ratio)
    "forward": (0.75, 0.50, 4.0, 1.5),
    "step": (0.55, None, 6.0, None),
}


def load(patterns):
    """The last record of each (configuration, op); dry-run records only where nothing else is."""
    rows = load_jsonl(*patterns, missing_ok=True)
    measured = [r for r in rows if not r.get("dry_run")]
    return last_by(measured or rows, lambda r: (r["config"], r["op"]))


def peer_compiled(r):
    """Whether a step's peer ran its update compiled (sweep.py's Peer.note in the record)."""
    return r["op"] != "step" or "(compiled)" in r["peer"]


def peer_note(r):
    """How a step's peer ran its update: the parenthesised end of its `peer` field."""
    peer = r["peer"]
    return peer[peer.index("(") + 1:-1] if "(" in peer else peer


def where(recs):
    """The devices and commits of `recs`, with how many configurations each."""
    def count(key):
        n = {}
        for r in recs:
            n.setdefault(r[key], set()).add(r["config"])
        return ", ".join("%s (%d)" % (k, len(v)) for k, v in sorted(n.items()))
    return "%s; commit %s" % (count("device"), count("commit"))


GATHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results",
                      "row_gather.json")


def l2_rates(path):
    """Device -> the fastest gather over an L2-resident table in row_gather's records, as a
    multiple of the same call's copy rate (bench/tbe_quantized/row_gather.cu)."""
    try:
        with open(path) as f:
            recs = json.load(f)
    except (OSError, ValueError):
        return {}
    rates = {}
    for r in recs:
        if r.get("l2_resident"):
            rates[r["device"]] = max(rates.get(r["device"], 0.0), r["bw_fraction"])
    return rates


def ceiling(r, rates):
    """The copy fraction a forward could reach at most: every id's row (and the ids, offsets,
    weights and output: `bytes_per_id`) passes between L2 and the SMs, at best at the fastest
    rate row_gather measured over an L2-resident table on that device, while the fraction counts
    each distinct row once. None where the record or the device lacks what it needs."""
    x = rates.get(r["device"])
    if x is None or r.get("bytes_per_id") is None:
        return None
    return min(1.0, x * r["bytes"] / r["bytes_per_id"])


def hint(r):
    floor_us = r["bytes"] / r["copy_gbps"] / 1e3
    out = []
    if floor_us < 20:
        out.append("launch-sized (floor %.1f us)" % floor_us)
    if r["L_mean"] < 4:
        out.append("short bags (L %.1f)" % r["L_mean"])
    if r["op"] == "step" and r["pos_long_frac"] > 0.3:
        out.append("long runs (%.0f%% of ids in runs > 256)" % (100 * r["pos_long_frac"]))
    if r["op"] == "step" and r["runs_short_frac"] > 0.9:
        out.append("short runs (%.0f%% of rows < 4 ids)" % (100 * r["runs_short_frac"]))
    if r["D_max"] <= 32:
        out.append("small D (%d)" % r["D_max"])
    return ", ".join(out) or "-"


def shape(r):
    return "T %3d B %5d %s %-4s%s %s D %s L %.1f (max %d) N %.3g" % (
        r["T"], r["B"], r["dtype"], r["pooling"], " w" if r["weighted"] else "  ",
        "zipf %.2f" % r["alpha"] if r["ids"] == "zipf" else "uniform  ",
        "/".join(str(d) for d in r["dims"]), r["L_mean"], r["L_max"], r["N"])


def summary(recs, worst=10, rates=None):
    if not recs:
        print("no records")
        return
    dry = any(r.get("dry_run") for r in recs)
    print("%d records, %d configurations, %s%s" % (
        len(recs), len(set(r["config"] for r in recs)), where(recs),
        " (DRY RUN: CPU, shrunk shapes; not a measurement)" if dry else ""))
    bad = [r for r in recs if r["check"] != "ok" and not r["check"].startswith("not checked")]
    for op in ("forward", "step"):
        rs = [r for r in recs if r["op"] == op]
        # A step timed against the eager update (its compile failed) is not against the peer of
        # record: listed apart, not in the distribution or the bars.
        eager = [r for r in rs if op == "step" and not peer_compiled(r)]
        rs = [r for r in rs if r not in eager]
        if eager:
            ratio = [r["ratio"] for r in eager]
            print("\n%s: %d configurations timed against the eager update (%s), not counted "
                  "below: speedup median %.2f (min %.2f, max %.2f); %s" % (
                      op, len(eager), peer_note(eager[0]),
                      pct(ratio, 50), min(ratio), max(ratio), where(eager)))
        if not rs:
            continue
        ratio = [r["ratio"] for r in rs]
        bw = [r["bw_fraction"] for r in rs]
        print("\n%s: %d configurations" % (op, len(rs)))
        print("  %-12s %8s %8s %8s %8s %8s" % ("", "min", "p10", "median", "p90", "max"))
        print("  %-12s %8.2f %8.2f %8.2f %8.2f %8.2f" % (
            "speedup", min(ratio), pct(ratio, 10), pct(ratio, 50), pct(ratio, 90), max(ratio)))
        print("  %-12s %7.1f%% %7.1f%% %7.1f%% %7.1f%% %7.1f%%" % (
            "copy frac", 100 * min(bw), 100 * pct(bw, 10), 100 * pct(bw, 50), 100 * pct(bw, 90),
            100 * max(bw)))
        devices = sorted(set(r["device"] for r in rs))
        if len(devices) > 1:
            for d in devices:
                dr = [r for r in rs if r["device"] == d]
                print("  %-12s %d on %s: speedup median %.2f, copy fraction median %.1f%%" % (
                    "", len(dr), d, pct([r["ratio"] for r in dr], 50),
                    100 * pct([r["bw_fraction"] for r in dr], 50)))
        med_bw, p10_bw, med_ratio, least = BARS[op]
        bars = [("median copy fraction >= %g%%" % (100 * med_bw), pct(bw, 50) >= med_bw),
                ("median speedup >= %gx" % med_ratio, pct(ratio, 50) >= med_ratio)]
        if p10_bw is not None:
            bars.append(("p10 copy fraction >= %g%%" % (100 * p10_bw), pct(bw, 10) >= p10_bw))
        if least is not None:
            bars.append(("every speedup >= %gx" % least, min(ratio) >= least))
        print("  bars: " + "; ".join("%s: %s" % (k, "met" if v else "NOT met") for k, v in bars))
        if op == "forward":
            per_id, approx = [], 0
            for r in rs:
                b = r.get("bytes_per_id")
                if b is None:  # lines before the field: the repeats at the mean D of the tables
                    b = r["bytes"] + (r["N"] - r["distinct"]) * r["width"] / r["T"] * ESIZE[r["dtype"]]
                    approx += 1
                per_id.append(b / r["ms"] / 1e6 / r["copy_gbps"])
            print("  %-12s %7.1f%% %7.1f%% %7.1f%% %7.1f%% %7.1f%%  (a row read for every id%s)" % (
                "per-id frac", 100 * min(per_id), 100 * pct(per_id, 10), 100 * pct(per_id, 50),
                100 * pct(per_id, 90), 100 * max(per_id),
                "; %d lines at their tables' mean D" % approx if approx else ""))
            ceil = [(ceiling(r, rates or {}), r) for r in rs]
            ceil = [(c, r) for c, r in ceil if c is not None]
            if ceil:
                cs = [c for c, _ in ceil]
                print("  %-12s %7.1f%% %7.1f%% %7.1f%% %7.1f%% %7.1f%%  (the most a lookup could "
                      "reach: every id's bytes through L2 at %s; %d configurations)" % (
                          "ceiling", 100 * min(cs), 100 * pct(cs, 10), 100 * pct(cs, 50),
                          100 * pct(cs, 90), 100 * max(cs),
                          ", ".join("%.2fx copy on %s" % (x, d) for d, x in sorted(rates.items())
                                    if any(r["device"] == d for _, r in ceil)), len(ceil)))
                print("  %-12s %d of them below the p10 bar's %g%%, %d below the median bar's "
                      "%g%%; emb's fraction over the ceiling: median %.1f%%" % (
                          "", sum(c < BARS[op][1] for c in cs), 100 * BARS[op][1],
                          sum(c < BARS[op][0] for c in cs), 100 * BARS[op][0],
                          100 * pct([r["bw_fraction"] / c for c, r in ceil], 50)))
            big = [f for f, r in zip(per_id, rs) if r["ms"] > 0.2]
            if big:
                print("  %-12s median %.1f%% over the %d forwards past 0.2 ms (%.1f%% of emb's time)" % (
                    "", 100 * pct(big, 50), len(big),
                    100 * sum(r["ms"] for r in rs if r["ms"] > 0.2) / sum(r["ms"] for r in rs)))
        ms, floor = sum(r["ms"] for r in rs), sum(r["bytes"] / r["copy_gbps"] / 1e6 for r in rs)
        print("  emb %.1f ms in all, %.1f ms of it over the copy floor; torch %.1f ms" % (
            ms, ms - floor, sum(r["peer_ms"] for r in rs)))
        for key, title in (("ratio", "speedup"), ("bw_fraction", "copy fraction")):
            print("  worst %d by %s:" % (worst, title))
            for r in sorted(rs, key=lambda r: r[key])[:worst]:
                print("    #%-3d x%-6.2f %5.1f%% %9.4f ms  %s  [%s]" % (
                    r["config"], r["ratio"], 100 * r["bw_fraction"], r["ms"], shape(r), hint(r)))
    if bad:
        print("\nchecks that failed (%d): %s" % (len(bad), "; ".join(
            "#%d %s: %s" % (r["config"], r["op"], r["check"]) for r in bad[:8])))


def chart(recs, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001: the numbers matter more than the picture
        print("chart skipped:", e)
        return
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    for row, (key, label) in enumerate((("ratio", "speedup over torch"),
                                        ("bw_fraction", "fraction of copy bandwidth"))):
        for col, (x, xlabel) in enumerate((("L_mean", "mean pooling factor"),
                                           ("D_max", "largest D in the mix"))):
            ax = axes[row][col]
            for op, color in (("forward", "tab:blue"), ("step", "tab:orange")):
                rs = [r for r in recs if r["op"] == op and peer_compiled(r)]
                ax.scatter([r[x] for r in rs], [r[key] for r in rs], s=10, c=color, label=op,
                           alpha=0.7)
            ax.set_xscale("log", base=2 if x == "D_max" else 10)
            if key == "ratio":
                ax.set_yscale("log")
                ax.axhline(1, color="k", lw=0.8)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(label)
            ax.legend(fontsize=7)
    fig.suptitle("emb TBE sweep: %d configurations; %s" % (
        len(set(r["config"] for r in recs)), where(recs)), fontsize=9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jsonl", action="append", default=[], help="glob of sweep.py's JSON lines")
    ap.add_argument("--json", default=None, help="write the merged records here")
    ap.add_argument("--png", default=None)
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--summary", default=None, help="a merged results JSON: print its table")
    ap.add_argument("--gather", default=GATHER,
                    help="row_gather's records (the L2 rate of the forward's ceiling)")
    a = ap.parse_args()
    if a.summary:
        with open(a.summary) as f:
            recs = json.load(f)
    else:
        recs = load(a.jsonl)
    if a.json:
        write_results(a.json, recs)
    if a.png and recs:
        chart(recs, a.png)
    summary(recs, a.worst, l2_rates(a.gather))


if __name__ == "__main__":
    main()
