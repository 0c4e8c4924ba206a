"""A/B of two builds of our kernels timed in one gpu_run.sh call (BASE_BUILD):
the median over runs of each side, new / base time per shape and config.

    python3 bench/attention/ab.py --base base.jsonl --new ours.jsonl
"""
import argparse
import json
import statistics


def medians(path):
    runs = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if not r.get("ms"):
                continue
            key = (r["impl"], r["dtype"], "ragged" if r["ragged"] else "uniform",
                   "masked" if r.get("masked") else "", r["Lk"])
            runs.setdefault(key, []).append(r["ms"])
    return {k: (statistics.median(v), v) for k, v in runs.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    a = ap.parse_args()
    base, new = medians(a.base), medians(a.new)
    print(f"{'config':28} {'dtype':5} {'shape':8} {'mask':6} {'Lk':>6} "
          f"{'base ms':>9} {'new ms':>9} {'base/new':>8}  runs (new)")
    for k in sorted(set(base) & set(new)):
        b, n = base[k][0], new[k][0]
        runs = " ".join(f"{x:.4f}" for x in new[k][1])
        print(f"{k[0]:28} {k[1]:5} {k[2]:8} {k[3]:6} {k[4]:6} {b:9.4f} {n:9.4f} "
              f"{b / n:8.3f}  {runs}")


if __name__ == "__main__":
    main()
