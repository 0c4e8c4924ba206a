"""f32 IKBO LCE report: joins the runs of `ikbo_lce_bench --set f32` (ours:
exact f32 and computed in bf16/f16) and `f32_peers.py` (torch) into one
results file, medians over the runs with every run kept, and prints the
table of docs/benchmarks.md ("f32 data").

    python3 bench/ikbo_lce/f32_report.py --ours f32_ours.jsonl \\
        --peers f32_peers.jsonl --json ikbo_lce_f32.json [--commit SHA]
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_results import load_jsonl, today, write_results  # noqa: E402

SHAPE = {"B": 1024, "U": 15, "M": 433, "Ku": 1184, "Kc": 872, "N": 256}


def lines(path):
    return load_jsonl(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--commit", default="unknown")
    a = ap.parse_args()
    runs = {}  # (impl, dtype, compute, config) -> [ms of each run]
    device = None
    for r in lines(a.ours):
        key = ("emb_ikbo_lce", r["dtype"], r.get("compute", "as_data"),
               r["config"])
        runs.setdefault(key, []).append(r["ms"])
    for r in lines(a.peers):
        device = r.get("device", device)
        key = (r["peer"], r["dtype"], r.get("compute", "as_data"), None)
        runs.setdefault(key, []).append(r["ms"])
    date = today()
    out = []
    for (impl, dtype, compute, config), ms in runs.items():
        rec = {"case": "ikbo_lce_main", **SHAPE, "dtype": dtype,
               "compute": compute, "impl": impl, "config": config,
               "ms": statistics.median(ms), "ms_runs": ms,
               "device": device, "commit": a.commit, "date": date}
        out.append(rec)
    write_results(a.json, out)
    med = {k: statistics.median(v) for k, v in runs.items()}
    ours = {}  # compute -> our fastest (the automatic row) on f32 data
    for (i, d, c, _), ms in med.items():
        if i == "emb_ikbo_lce" and d == "f32":
            ours[c] = min(ms, ours.get(c, ms))
    print("%-34s %-16s %-5s %-8s %9s %4s  %s" % (
        "implementation", "config", "data", "compute", "ms", "runs",
        "it / ours (same data, compute)"))
    for (impl, dtype, compute, config), ms in sorted(med.items(),
                                                     key=lambda kv: kv[1]):
        mine = ours.get(compute) if dtype == "f32" else None
        # TF32 and exact f32 peers compare with our exact path and via bf16.
        ratio = ""
        if impl != "emb_ikbo_lce":
            if mine:
                ratio = "%.2fx" % (ms / mine)
            elif "bf16" in ours:
                ratio = "%.2fx (ours via bf16)" % (ms / ours["bf16"])
        print("%-34s %-16s %-5s %-8s %9.4f %4d  %s" % (
            impl, config or "", dtype, compute, ms,
            len(runs[(impl, dtype, compute, config)]), ratio))


if __name__ == "__main__":
    main()
