"""Merges jagged_bench (ours) and peers.py runs into one table and
bench/results/jagged.json: per case the median of three runs a side, every
run kept, ratio = peer ms / our ms, GB/s against the copy bandwidth.

    python3 bench/jagged/report.py --ours ours.jsonl --peers peers.jsonl \\
        --json jagged.json --commit SHA
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_results import add_commit_arg, today, write_results  # noqa: E402
from bench_results import load_jsonl as load  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--json", required=True)
    add_commit_arg(ap)
    a = ap.parse_args()
    ours, peers = load(a.ours), load(a.peers)
    records = []
    print(f"{'case':8} {'emb ms':>8} {'torch ms':>9} {'ratio':>6} {'GB/s':>7} {'of copy':>8} check")
    for case in dict.fromkeys(o["case"] for o in ours):
        o = [r for r in ours if r["case"] == case]
        p = [r for r in peers if r["case"] == case]
        ms = statistics.median(r["ms"] for r in o)
        pms = statistics.median(r["ms"] for r in p) if p else None
        copy = o[0]["copy_gbps"]
        gbps = o[0]["bytes"] / ms / 1e6
        checks = sorted(set(r["check"] for r in o + p))
        rec = dict(case=case, users=o[0]["users"], D=o[0]["D"], Lk=o[0]["Lk"], dtype="float16",
                   impl="emb", ms=round(ms, 5), peer=p[0]["impl"] if p else None,
                   peer_ms=round(pms, 5) if pms else None,
                   ratio=round(pms / ms, 3) if pms else None, gbps=round(gbps, 1),
                   copy_gbps=copy, copy_fraction=round(gbps / copy, 3),
                   ms_runs=[r["ms"] for r in o], peer_ms_runs=[r["ms"] for r in p],
                   check="ok" if checks == ["ok"] else "; ".join(checks),
                   device=p[0].get("device", "NVIDIA H200") if p else "NVIDIA H200",
                   commit=a.commit, date=today())
        records.append(rec)
        print(f"{case:8} {ms:8.4f} {pms or 0:9.4f} {rec['ratio'] or 0:6.2f} {gbps:7.0f} "
              f"{gbps / copy:7.0%} {rec['check']}")
    write_results(a.json, records)


if __name__ == "__main__":
    main()
