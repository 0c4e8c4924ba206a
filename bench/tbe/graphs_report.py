"""Pairs bench/tbe/tbe_graphs.c's records with bench/tbe/graphs_peers.py's into
bench/results/tbe_graphs.json (one record per case and mode: ours, the torch
peer measured the same way in the same run, the ratio and the 2x bar), and
prints the table.

    python3 bench/tbe/graphs_report.py --ours ours.jsonl --peers peers.jsonl \\
        --json tbe_graphs.json --commit abc1234
    python3 bench/tbe/graphs_report.py --summary bench/results/tbe_graphs.json
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_results import add_commit_arg, load_jsonl, today  # noqa: E402
from bench_results import write_results  # noqa: E402

BAR = 2.0
MODES = {
    "graph": ("emb graph", "torch.embedding_bag graph"),
    "flushed": ("emb flushed", "torch.embedding_bag flushed (do_bench)"),
}


def load(path):
    return load_jsonl(path)


def pair(ours, peers, commit):
    peer = {(r["case"], r["mode"]): r for r in peers}
    device = next((r["device"] for r in peers if "device" in r), "unknown")
    date = today()
    out = []
    for r in ours:
        p = peer.get((r["case"], r["mode"]), {})
        ms, pms = r["ms"], p.get("ms")
        impl, peer_impl = MODES[r["mode"]]
        rec = {k: r[k] for k in ("case", "B", "T", "E", "D", "L", "dtype")}
        rec.update(mode=r["mode"], impl=impl, ms=round(ms, 6))
        if "ms_runs" in r:
            rec["ms_runs"] = [round(x, 6) for x in r["ms_runs"]]
            rec["calls_per_graph"] = r["calls_per_graph"]
            rec["replays"] = r["replays"]
        rec.update(peer=peer_impl, peer_ms=round(pms, 6) if pms else None)
        if "ms_runs" in p:
            rec["peer_ms_runs"] = [round(x, 6) for x in p["ms_runs"]]
        ratio = pms / ms if pms and ms else None
        rec.update(ratio=round(ratio, 3) if ratio else None, bar=BAR,
                   met=bool(ratio and ratio >= BAR), check=r["check"],
                   peer_check=p.get("check", "missing"), device=device,
                   commit=commit, date=date)
        out.append(rec)
    return out


def summary(records):
    by = {}
    for r in records:
        by.setdefault(r["case"], {})[r["mode"]] = r
    us = lambda v: "%7.2f" % (v * 1e3) if v else "      -"
    rt = lambda v: "%5.2f" % v if v else "    -"
    print("%-19s | %-30s | %-30s" % ("", "graph replay (us a call)",
                                    "per call, L2 flushed (us)"))
    print("%-19s | %7s %7s %5s %-7s | %7s %7s %5s %-7s" %
          ("case", "emb", "torch", "ratio", "2x bar", "emb", "torch", "ratio",
           "2x bar"))
    bad = []
    for case in sorted(by, key=lambda c: (by[c].get("graph", by[c].get("flushed"))["D"],
                                          by[c].get("graph", by[c].get("flushed"))["L"])):
        cells = []
        for mode in ("graph", "flushed"):
            r = by[case].get(mode)
            if not r:
                cells.append("%7s %7s %5s %-7s" % ("-", "-", "-", ""))
                continue
            cells.append("%s %s %s %-7s" % (us(r["ms"]), us(r["peer_ms"]),
                                            rt(r["ratio"]),
                                            "met" if r["met"] else "MISSED"))
            if r["check"] != "ok" or r["peer_check"] != "ok":
                bad.append("%s %s: ours %s, peer %s" % (case, mode, r["check"],
                                                        r["peer_check"]))
        print("%-19s | %s | %s" % (case, cells[0], cells[1]))
    graph = [r for r in records if r["mode"] == "graph"]
    met = sum(r["met"] for r in graph)
    print("graph replay: 2x met at %d of %d points; checks: %s" %
          (met, len(graph), "; ".join(bad) if bad else "all ok"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours")
    ap.add_argument("--peers")
    ap.add_argument("--json")
    add_commit_arg(ap)
    ap.add_argument("--summary")
    a = ap.parse_args()
    if a.summary:
        summary(json.load(open(a.summary)))
        return
    records = pair(load(a.ours), load(a.peers), a.commit)
    if a.json:
        write_results(a.json, records)
    summary(records)


if __name__ == "__main__":
    main()
