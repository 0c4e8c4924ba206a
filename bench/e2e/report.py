"""Merges the compiled models' timings and the peers into e2e.json records.

    python3 bench/e2e/report.py --out DIR --commit SHA
reads DIR/<model>.txt (emb-run-aot output: one or more runs of the
compiled model, each a median of its repeats) and DIR/peers.jsonl. Where a
side was timed more than once the record holds the median of the runs and
every run (`ms_runs`, `peer_ms_runs`).
"""
import argparse
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_results import today, write_results  # noqa: E402

MODELS = {
    "ikbo_lce": dict(file="ikbo_benchmark", entry="ikbo_benchmark",
                     shape=dict(B=1024, U=15, M=433, Ku=1178, Kc=866, N=256,
                                dtype="f16"),
                     # the decomposed form's work: the user product at user
                     # batch size (BASELINES.md: 202 GFLOP)
                     flops=2 * 433 * 256 * (1024 * 866 + 15 * 1178)),
    "ikbo_attention": dict(file="target_attention_benchmark",
                           entry="target_attention_benchmark",
                           shape=dict(B=2048, U=32, H=2, Lq=64, Lk=2048,
                                      Dh=128, dtype="f16"),
                           flops=4 * 2048 * 2 * 64 * 2048 * 128),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--commit", default="unknown")
    a = ap.parse_args()
    lines = open(os.path.join(a.out, "peers.jsonl")).read().splitlines()
    device = lines[0].split(" ", 1)[1] if lines else "unknown"
    peers = [json.loads(l) for l in lines if l.startswith("{")]
    date = today()
    records = []
    for case, m in MODELS.items():
        text = open(os.path.join(a.out, m["file"] + ".txt")).read()
        times = re.findall(r"@(\S+): median ([0-9.]+) ms", text)
        ours = [float(t) for name, t in times if name == m["entry"]]
        written = [float(t) for name, t in times
                   if name == m["entry"] + "__reference"]
        check = re.findall(r"result #0 .*: (ok|MISMATCH)", text)
        if not ours:
            print("no timing for", case)
            continue
        ms = statistics.median(ours)
        checks = set(check)
        base = dict(case=case, **m["shape"], device=device, commit=a.commit,
                    date=date,
                    check="missing" if not checks else
                    "ok" if checks == {"ok"} else "MISMATCH")
        if len(ours) > 1:
            base["ms_runs"] = ours
        rows = ([("emb_compiled_as_written", statistics.median(written),
                  written)] if written else [])
        rows += [(p["peer"], p["ms"], p.get("ms_runs", [p["ms"]]))
                 for p in peers if p["case"] == case]
        for peer, peer_ms, peer_runs in rows:
            r = dict(base, impl="emb_compiled_emb_ikbo", ms=ms, peer=peer,
                     peer_ms=peer_ms, ratio=peer_ms / ms,
                     tflops=m["flops"] / ms / 1e9)
            if len(peer_runs) > 1:
                r["peer_ms_runs"] = peer_runs
            records.append(r)
    write_results(os.path.join(a.out, "e2e.json"), records)
    print("\n%-15s %-42s %9s %9s %7s %7s %s" % ("case", "peer", "ms", "peer_ms",
                                               "ratio", "TF/s", "check"))
    for r in records:
        print("%-15s %-42s %9.4f %9.4f %7.2f %7.0f %s" % (
            r["case"], r["peer"], r["ms"], r["peer_ms"], r["ratio"],
            r["tflops"], r["check"]))


if __name__ == "__main__":
    main()
