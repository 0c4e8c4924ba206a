"""Draws the TBE configurations of the sweep (NOTES.md names where each distribution comes from).

    python3 bench/tbe_sweep/gen.py [--seed 40] [--count 300] [--out bench/tbe_sweep/configs.json]

A configuration is one table-batched lookup as a shard of a sharded model holds it: T tables, one
feature a table, B bags a feature, tables of one dtype mixing embedding dims, each table with its
rows, pooling factor and bag-length distribution, ids uniform or Zipf, sum or mean pooling,
weighted or not. Only the shapes are written; the sweep draws lengths and ids on the device from
the configuration's own seed (sweep.py), so the file stays small and the set is fixed by the seed.

Caps (so that every configuration runs on one H200 with the torch peer beside it):
- at most MAX_IDS ids a configuration: B is halved (not below 512), then the largest pooling
  factors are halved, until it fits;
- device memory (HBM_BYTES * HBM_USE): first the non-table bytes (ids, outputs, gradient, emb's
  workspace, the peer's transients; mem_bytes) are brought under half the budget as above, then
  every table's rows are scaled by one factor (not below MIN_ROWS) until tables and their state fit
  in the rest.
Each cap that bit is listed in the configuration's "capped".

Tables are listed in order of D, so that the peer's one embedding_bag per D reads contiguous
features.
"""
import argparse
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import byte_model  # noqa: E402

DIMS = (16, 32, 64, 96, 128, 160, 192, 256, 384, 512)
# How often each D is drawn into a configuration's mix (ours: the middle of the set more often).
DIM_WEIGHTS = (1, 3, 4, 2, 4, 1, 1, 2, 1, 1)
MIN_TABLES, MAX_TABLES = 1, 200
MIN_ROWS, MAX_ROWS = 1_000, 50_000_000
MIN_L, MAX_L = 1, 300
MIN_B, MAX_B = 512, 65536
ALPHA = (1.05, 1.2)
LENGTH_KINDS = ("fixed", "uniform", "heavy")
MAX_IDS = 1 << 26
HBM_BYTES = 139 * (1 << 30)
HBM_USE = 0.85  # the rest: the CUDA context, the allocator's slack, the L2 flush buffer
DEFAULT_SEED = 40
DEFAULT_COUNT = 300
VERSION = 1


def log_uniform_int(rng, lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def ids_count(cfg):
    return sum(cfg["B"] * byte_model.mean_length(L, k) for L, k in zip(cfg["L"], cfg["lengths"]))


def mem_bytes(cfg):
    """Device bytes of a configuration besides its tables and state: emb's and the peer's inputs,
    outputs, gradient and transients (upper estimates), and the 256 MiB L2 flush buffer."""
    B, T, esize = cfg["B"], len(cfg["D"]), byte_model.ESIZE[cfg["dtype"]]
    N = ids_count(cfg)
    per_id = 8 + 8 + (esize if cfg["weighted"] else 0)  # ids, the peer's shifted ids, weights
    width = sum(cfg["D"])
    io = N * per_id + 2 * (T * B + 1) * 8 + 3 * B * width * esize  # outputs (both), gradient
    emb_ws = N * 64                                              # keys, sort, runs: generous
    # The peer's rowwise Adagrad, one D group at a time: a gradient row a position (f32) and the
    # summed rows of its distinct ids (at most one a position) plus their gathered table rows,
    # the sort behind unique and the position-to-bag map.
    peer = 0
    for d in set(cfg["D"]):
        n = sum(cfg["B"] * byte_model.mean_length(L, k)
                for L, k, dd in zip(cfg["L"], cfg["lengths"], cfg["D"]) if dd == d)
        peer = max(peer, n * d * 4 * 3 + n * 48)
    return int(io + max(emb_ws, peer) + (256 << 20))


def table_bytes(cfg):
    esize = byte_model.ESIZE[cfg["dtype"]]
    return sum(E * (D * esize + byte_model.STATE_BYTES) for E, D in zip(cfg["E"], cfg["D"]))


# What a configuration may not use of a device's free memory (fits): the copy-bandwidth and
# L2-flush buffers, the allocator's rounding, the peer's compiled kernels.
FIT_SLACK_BYTES = 2 << 30


def fits(cfg, free):
    """Whether configuration `cfg` (its tables with their state, and the transients of both sides:
    table_bytes + mem_bytes as apply_caps counts them) fits `free` bytes of device memory less
    FIT_SLACK_BYTES. The set is sized for HBM_BYTES (an H200); sweep.py leaves the configurations
    a smaller card cannot hold to a later run on a larger one."""
    return cfg["table_bytes"] + cfg["mem_bytes"] <= free - FIT_SLACK_BYTES


def apply_caps(cfg):
    budget = HBM_BYTES * HBM_USE
    capped = []
    while ids_count(cfg) > MAX_IDS or mem_bytes(cfg) > budget / 2:
        if cfg["B"] > MIN_B:
            cfg["B"] //= 2
            tag = "B"
        else:
            i = max(range(len(cfg["L"])), key=lambda j: cfg["L"][j])
            if cfg["L"][i] == 1:
                break
            cfg["L"][i] = max(1, cfg["L"][i] // 2)
            tag = "L"
        if tag not in capped:
            capped.append(tag)
    room = budget - mem_bytes(cfg)
    if table_bytes(cfg) > room:
        capped.append("rows")
    while table_bytes(cfg) > room:  # again when MIN_ROWS kept small tables from shrinking
        scale = room / table_bytes(cfg) * 0.999
        cfg["E"] = [max(MIN_ROWS, int(E * scale)) for E in cfg["E"]]
    cfg["capped"] = capped


def draw(rng, index, seed):
    T = log_uniform_int(rng, MIN_TABLES, MAX_TABLES)
    k = rng.choice((1, 1, 2, 2, 3, 4))  # distinct dims in the mix
    mix = []
    while len(mix) < min(k, T):
        d = rng.choices(DIMS, weights=DIM_WEIGHTS)[0]
        if d not in mix:
            mix.append(d)
    tables = []
    for t in range(T):
        D = mix[t] if t < len(mix) else rng.choice(mix)  # every dim of the mix used once
        tables.append((D, log_uniform_int(rng, MIN_ROWS, MAX_ROWS), log_uniform_int(rng, MIN_L, MAX_L),
                       rng.choice(LENGTH_KINDS)))
    tables.sort(key=lambda x: x[0])
    zipf = rng.random() < 0.5
    pooling = "mean" if rng.random() < 0.3 else "sum"
    cfg = {
        "id": index,
        "seed": seed * 1_000_003 + index,  # the sweep's draw of lengths and ids
        "B": 1 << rng.randint(int(math.log2(MIN_B)), int(math.log2(MAX_B))),
        "dtype": "fp16" if rng.random() < 0.6 else "fp32",
        "pooling": pooling,
        "weighted": pooling == "sum" and rng.random() < 0.3,
        "ids": "zipf" if zipf else "uniform",
        "alpha": round(rng.uniform(*ALPHA), 3) if zipf else None,
        "D": [x[0] for x in tables],
        "E": [x[1] for x in tables],
        "L": [x[2] for x in tables],
        "lengths": [x[3] for x in tables],
    }
    apply_caps(cfg)
    fwd, step, distinct = byte_model.expected_bytes(cfg)
    cfg.update(T=T, N_expected=int(ids_count(cfg)), distinct_expected=distinct,
               forward_bytes_expected=fwd, step_bytes_expected=step,
               table_bytes=table_bytes(cfg), mem_bytes=mem_bytes(cfg))
    return cfg


def generate(seed=DEFAULT_SEED, count=DEFAULT_COUNT):
    rng = random.Random(seed)
    configs = [draw(rng, i, seed) for i in range(count)]
    return {"version": VERSION, "seed": seed, "count": count, "hbm_bytes": HBM_BYTES,
            "hbm_use": HBM_USE, "max_ids": MAX_IDS, "configs": configs}


def dumps(doc):
    """One configuration a line: diffs and greps stay readable."""
    head = {k: v for k, v in doc.items() if k != "configs"}
    lines = [json.dumps(c, separators=(",", ":")) for c in doc["configs"]]
    text = json.dumps(head)[:-1] + ', "configs": [\n' + ",\n".join(lines) + "\n]}\n"
    return text


def summary(doc):
    cs = doc["configs"]

    def q(xs, f):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(f * len(xs)))]
    print("%d configurations, seed %d" % (len(cs), doc["seed"]))
    for name, xs in (("T", [c["T"] for c in cs]), ("B", [c["B"] for c in cs]),
                     ("ids", [c["N_expected"] for c in cs]),
                     ("table GiB", [c["table_bytes"] / 2**30 for c in cs]),
                     ("step GB", [c["step_bytes_expected"] / 1e9 for c in cs])):
        print("  %-10s min %-12.4g p10 %-12.4g median %-12.4g p90 %-12.4g max %.4g" % (
            name, min(xs), q(xs, .1), q(xs, .5), q(xs, .9), max(xs)))
    for cap in ("B", "L", "rows"):
        print("  capped by %-4s %d" % (cap, sum(cap in c["capped"] for c in cs)))
    print("  fp16 %d, mean %d, weighted %d, zipf %d" % (
        sum(c["dtype"] == "fp16" for c in cs), sum(c["pooling"] == "mean" for c in cs),
        sum(c["weighted"] for c in cs), sum(c["ids"] == "zipf" for c in cs)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "configs.json"))
    a = ap.parse_args()
    doc = generate(a.seed, a.count)
    with open(a.out, "w") as f:
        f.write(dumps(doc))
    summary(doc)


if __name__ == "__main__":
    main()
