"""f32 attention: emb's conversion path (computeDtype bf16 or f16) against the
torch peers on the same f32 tensors, from one gpu_run.sh call (STEPS=f32).

    python3 bench/attention/f32_report.py --ours f32_ours.jsonl \
        --peers f32_peers.jsonl --json ikbo_attention_f32.json [--commit SHA]

Ours: attention_bench --dtype f32 --compute bf16|f16 (the rounding of q, k and
v, the kernels and the widening of the output, one timed call), the same
shapes in native bf16 (what the conversion costs) and the exact f32 path at
the shortest Lk. Peers: torch SDPA on the f32
tensors (exact: its own f32 kernels) and each peer rounding to bf16 and widening
back inside its timed call (peers.py --compute bf16). Medians over the runs;
every run is kept. Ratios are peer time / our time (> 1: we are faster).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_results import add_commit_arg, load_jsonl, today  # noqa: E402
from bench_results import write_results  # noqa: E402


def load(path):
    return load_jsonl(path)


def medians(rows):
    runs = {}
    for r in rows:
        if r.get("ms"):
            key = (r["impl"], r["dtype"], r.get("compute", r["dtype"]), r["Lk"])
            runs.setdefault(key, []).append(r["ms"])
    return {k: (statistics.median(v), v) for k, v in runs.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--json", required=True)
    add_commit_arg(ap)
    a = ap.parse_args()
    ours_rows = load(a.ours)
    ours, peers = medians(ours_rows), medians(load(a.peers))
    # Our automatic row per Lk (the one the runtime picks: "auto" true).
    auto = {(r["dtype"], r.get("compute", r["dtype"]), r["Lk"]): r["impl"]
            for r in ours_rows if r.get("auto")}
    device = next((r.get("device") for r in load(a.peers) if r.get("device")), "")
    date = today()
    records = []
    lks = sorted({k[3] for k in ours})
    print("%6s %-22s %9s %9s | %-34s %9s %6s" % (
        "Lk", "ours", "ms", "vs bf16", "peer", "ms", "ratio"))
    for lk in lks:
        native = auto.get(("bf16", "bf16", lk))
        native_ms = ours.get((native, "bf16", "bf16", lk), (None, []))[0]
        for ct in ("bf16", "f16", "f32"):
            impl = auto.get(("f32", ct, lk))
            if not impl or (impl, "f32", ct, lk) not in ours:
                continue
            ms, runs = ours[(impl, "f32", ct, lk)]
            for peer, pct in (("torch_sdpa_grouped_cudnn_native", "bf16"),
                              ("torch_varlen_attn", "bf16"),
                              ("torch_sdpa_grouped_default_native", "f32")):
                if (ct == "f32") != (pct == "f32") and ct != "f16":
                    continue  # exact against exact, rounded against rounded
                if ct == "f16" and pct != "f32":
                    continue  # the peers round to bf16 only
                pms, pruns = peers.get((peer, "f32", pct, lk), (None, []))
                rec = dict(case="ikbo_attention_uniform", dtype="f32", compute=ct,
                           Lk=lk, impl=impl, ms=ms, ms_runs=runs,
                           bf16_native_ms=native_ms, peer=peer, peer_compute=pct,
                           peer_ms=pms, peer_ms_runs=pruns,
                           ratio=(pms / ms if pms else None), device=device,
                           commit=a.commit, date=date)
                records.append(rec)
                print("%6d %-22s %9.4f %9s | %-34s %9s %6s" % (
                    lk, "%s via %s" % (impl[4:], ct), ms,
                    "%.3f" % (ms / native_ms) if native_ms else "-",
                    "%s (%s)" % (peer[6:], pct),
                    "%.4f" % pms if pms else "n/a",
                    "%.2f" % rec["ratio"] if pms else "-"))
    write_results(a.json, records)


if __name__ == "__main__":
    main()
