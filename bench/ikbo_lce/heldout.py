"""The IKBO LCE on the held-apart shapes of FBGEMM's IKBO LCE tests, against
Inductor, in one call on the GPU machine (bench/ikbo_lce/heldout.sh runs it).

Ours: the JSON lines of `ikbo_lce_bench --set heldout` (three runs of it,
each the median of at least 30 calls and 100 ms, timed as do_bench times the
peers); the shapes are read from them. The peer of
record: Inductor max-autotune on the hand-decomposed, hand-padded form
(W[:, Ku:] @ cand + (W[:, :Ku] @ user).index_select(0, c2u), K padded to
multiples of 8, as for the benchmark shape), each shape compiled in a child
process with a time limit, then three `do_bench` medians. Ours is compared
at the padded K too (emb-pad-k pads the model's K the same way); the
unpadded figures are kept beside it.

  python3 bench/ikbo_lce/heldout.py --ours ours.jsonl --out DIR \
      [--first I --count N] [--deadline SECONDS]

Writes DIR/ikbo_lce_heldout.jsonl (one peer line per shape, appended, so a
second call can continue with --first) and prints the table of what it has.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time


def pad8(k):
    return (k + 7) // 8 * 8


def peer(B, U, M, Ku, Kc, N):
    """(child) Inductor max-autotune on the decomposed, padded form."""
    import torch
    from triton.testing import do_bench
    from run_bench import inputs  # the peers' inputs (shared/peers set-up)
    W, user, cand, c2u = inputs(B, U, M, Ku, Kc, N, torch.float16)

    def decomposed(W, user, cand, c2u):
        return (torch.matmul(W[:, Ku:], cand) +
                torch.matmul(W[:, :Ku], user).index_select(0, c2u))
    t0 = time.time()
    cf = torch.compile(decomposed, mode="max-autotune-no-cudagraphs",
                       dynamic=False)
    got = cf(W, user, cand, c2u)
    compile_s = time.time() - t0
    ref = (W[:, Ku:].float() @ cand.float() +
           (W[:, :Ku].float() @ user.float()).index_select(0, c2u))
    err = (got.float() - ref).abs().max().item()
    runs = [do_bench(lambda: cf(W, user, cand, c2u), warmup=25, rep=100,
                     return_mode="median") for _ in range(3)]
    print(json.dumps({"peer": "inductor_maxautotune_decomposed_padded",
                      "B": B, "U": U, "M": M, "Ku": Ku, "Kc": Kc, "N": N,
                      "peer_ms_runs": runs, "compile_s": compile_s,
                      "max_abs_err_vs_f32": err}), flush=True)


def median(xs):
    return sorted(xs)[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours")
    ap.add_argument("--out")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--deadline", type=float, default=1e9,
                    help="seconds after which no new shape starts")
    ap.add_argument("--timeout", type=int, default=120,
                    help="seconds one shape's compile and timing may take")
    ap.add_argument("--commit", default=os.environ.get("EMB_COMMIT", "unknown"))
    ap.add_argument("--peer", nargs=6, type=int, metavar="X",
                    help="(child) B U M Ku Kc N")
    a = ap.parse_args()
    if a.peer:
        return peer(*a.peer)
    start = time.time()
    ours = {}
    for line in open(a.ours):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r["case"].startswith("heldout"):
            ours.setdefault((r["case"], r["B"], r["U"], r["M"], r["Ku"],
                             r["Kc"]), []).append(r)
    # One peer per shape, at the padded K.
    shapes = []
    for (case, B, U, M, Ku, Kc) in ours:
        key = (B, U, M, pad8(Ku), pad8(Kc))
        if key not in shapes:
            shapes.append(key)
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "ikbo_lce_heldout.jsonl")
    for i, (B, U, M, Ku, Kc) in enumerate(shapes):
        if i < a.first or i >= a.first + a.count:
            continue
        if time.time() - start > a.deadline:
            print("heldout: deadline: shapes from #%d left for another call"
                  % i, flush=True)
            break
        cmd = [sys.executable, os.path.abspath(__file__), "--peer",
               str(B), str(U), str(M), str(Ku), str(Kc), "256"]
        try:
            out = subprocess.run(cmd, capture_output=True, text=True,
                                 timeout=a.timeout)
            lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
            if not lines:
                print("heldout: #%d: no result: %s" % (
                    i, out.stderr.strip().splitlines()[-1:]), flush=True)
                continue
            with open(path, "a") as f:
                f.write(lines[-1] + "\n")
            print("heldout: #%d %s" % (i, lines[-1]), flush=True)
        except subprocess.TimeoutExpired:
            print("heldout: #%d: no result within %d s" % (i, a.timeout),
                  flush=True)
    table(a, ours, path)


def table(a, ours, path):
    peers = {}
    if os.path.exists(path):
        for line in open(path):
            p = json.loads(line)
            peers[(p["B"], p["U"], p["M"], p["Ku"], p["Kc"])] = p
    try:
        import torch
        device = torch.cuda.get_device_name()
    except (ImportError, RuntimeError):  # the table alone, elsewhere
        device = "unknown"
    date = datetime.date.today().isoformat()
    records = []
    print("%5s %4s %4s %9s %5s | %-20s %-22s %9s | %9s %6s" % (
        "B", "U", "M", "K u/c", "B/U", "ours ms (K as given)",
        "ours ms (K padded)", "TFLOP/s", "Inductor", "ratio"))
    for (case, B, U, M, Ku, Kc), runs in sorted(ours.items(),
                                                key=lambda kv: kv[0][1:]):
        if case != "heldout":
            continue
        padded = ours.get(("heldout_padded", B, U, M, pad8(Ku), pad8(Kc)),
                          runs if Ku % 8 == 0 and Kc % 8 == 0 else None)
        ms = median([r["ms"] for r in runs])
        pms = median([r["ms"] for r in padded]) if padded else None
        p = peers.get((B, U, M, pad8(Ku), pad8(Kc)))
        peer_ms = median(p["peer_ms_runs"]) if p else None
        best = pms if pms is not None else ms
        flops = 2.0 * M * 256 * (B * Kc + U * Ku)
        rec = {"case": "ikbo_lce_heldout", "B": B, "U": U, "M": M, "Ku": Ku,
               "Kc": Kc, "N": 256, "dtype": "f16",
               "impl": "emb.ikbo_lce (%s)" % runs[0]["config"],
               "ms": ms, "ms_runs": [r["ms"] for r in runs],
               "ms_padded": pms,
               "ms_padded_runs": [r["ms"] for r in padded] if padded else None,
               "tflops": flops / best / 1e9,
               "peer": "inductor_maxautotune_decomposed_padded",
               "peer_ms": peer_ms,
               "peer_ms_runs": p["peer_ms_runs"] if p else None,
               "peer_compile_s": p["compile_s"] if p else None,
               "ratio": peer_ms / best if peer_ms else None,
               "device": device, "commit": a.commit, "date": date}
        records.append(rec)
        print("%5d %4d %4d %4d/%-4d %5.1f | %-20s %-22s %9.1f | %9s %6s" % (
            B, U, M, Ku, Kc, B / U, "%.4f" % ms,
            "%.4f" % pms if pms else "-", rec["tflops"],
            "%.4f" % peer_ms if peer_ms else "-",
            "%.2f" % rec["ratio"] if rec["ratio"] else "-"))
    with open(os.path.join(a.out, "ikbo_lce_heldout.json"), "w") as f:
        json.dump(records, f, indent=1)


if __name__ == "__main__":
    main()
