"""The card's SM clock and power while emb.ikbo_lce and its Inductor peer run
sustained, in one call on the GPU machine: what bounds the sustained ratios
(docs/benchmarks.md, "Clock and power under sustained load").

  python3 bench/ikbo_lce/power.py --bench BUILD/ikbo_lce_bench \
      [--shape B,U,M,Ku,Kc,N ...] [--seconds 2] [--runs 3] [--out F.jsonl]

Per shape (f16, K as given; default the IKBO benchmark shape padded and the
held-apart B 512 U 51 M 433 K 1024/1024): the peer of record (Inductor
max-autotune on the hand-decomposed form, as heldout.py compiles it) is
compiled first; then RUNS times, alternating, a phase of ours
(`ikbo_lce_bench --set shape --shape ... --reps n`: n calls back to back
after one warm-up, each between its own events, no L2 flush; the median
call) and a phase of the peer (n calls back to back between two events,
no flush; the mean call), each about SECONDS long. `nvidia-smi` samples the
SM clock, the power draw and whether the software power cap is holding the
clock, every 20 ms, through the whole call. Each phase reports its time a
call, the median clock and power of the samples in its second half (the
steady part: ours starts a process and fills its inputs first), the share
of those samples under the power cap, and the energy a call (power x
time). Inputs: random on both sides (ours uniform in [-1, 1), the peer's
normal, W scaled by 1/sqrt(K)); zeros would draw less power. One JSON line a
phase on stdout and --out; the table last.
"""
import argparse
import datetime
import json
import statistics
import subprocess
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from run_bench import inputs  # noqa: E402  (the peers' inputs)

QUERY = "timestamp,clocks.sm,power.draw,clocks_event_reasons.sw_power_cap"


def sampler(path):
    """nvidia-smi writing a sample every 20 ms to path (a file, not a pipe:
    a pipe nobody reads would fill and stall it); older drivers name the
    reasons clocks_throttle_reasons."""
    for query in (QUERY, QUERY.replace("clocks_event", "clocks_throttle")):
        p = subprocess.Popen(
            ["nvidia-smi", "--query-gpu=" + query,
             "--format=csv,noheader,nounits", "-lms", "20"],
            stdout=open(path, "w"), stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        if p.poll() is None:
            return p
    sys.exit("power: nvidia-smi cannot sample " + QUERY)


def parse(text):
    """(epoch seconds, MHz, W, capped) of each sample line."""
    out = []
    for line in text.splitlines():
        f = [x.strip() for x in line.split(",")]
        if len(f) != 4:
            continue
        try:
            t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f")
            out.append((t.timestamp(), float(f[1]), float(f[2]),
                        f[3].lower().startswith("active")))
        except ValueError:
            continue
    return out


def steady(samples, t0, t1):
    mid = t0 + 0.5 * (t1 - t0)
    s = [x for x in samples if mid <= x[0] <= t1]
    if not s:
        return None, None, None, 0
    return (statistics.median(x[1] for x in s),
            statistics.median(x[2] for x in s),
            sum(x[3] for x in s) / len(s), len(s))


def compile_peer(B, U, M, Ku, Kc, N):
    W, user, cand, c2u = inputs(B, U, M, Ku, Kc, N, torch.float16)

    def decomposed(W, user, cand, c2u):
        return (torch.matmul(W[:, Ku:], cand) +
                torch.matmul(W[:, :Ku], user).index_select(0, c2u))
    cf = torch.compile(decomposed, mode="max-autotune-no-cudagraphs",
                       dynamic=False)
    cf(W, user, cand, c2u)
    torch.cuda.synchronize()
    return lambda: cf(W, user, cand, c2u)


def peer_phase(fn, n):
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    fn()
    a.record()
    for _ in range(n):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / n


def ours_phase(bench, shape, n):
    r = subprocess.run([bench, "--set", "shape", "--shape", shape,
                        "--reps", str(n)], capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        sys.exit("ikbo_lce_bench failed: " + r.stderr[-500:])
    line = [x for x in r.stdout.splitlines() if x.startswith("{")][-1]
    return json.loads(line)["ms"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--shape", action="append")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--commit", default="unknown")
    a = ap.parse_args()
    shapes = a.shape or ["1024,15,433,1184,872,256",
                         "512,51,433,1024,1024,256"]
    out = open(a.out, "w") if a.out else None
    log = "/tmp/emb-power-samples.csv"
    smi = sampler(log)
    rows = []
    try:
        for shape in shapes:
            B, U, M, Ku, Kc, N = map(int, shape.split(","))
            fn = compile_peer(B, U, M, Ku, Kc, N)
            est = peer_phase(fn, 20)
            n = max(50, int(a.seconds / (est * 1e-3)))
            for run in range(1, a.runs + 1):
                for impl in ("emb", "inductor"):
                    time.sleep(1.0)  # the card cools between phases alike
                    t0 = time.time()
                    ms = (ours_phase(a.bench, shape, n) if impl == "emb"
                          else peer_phase(fn, n))
                    rows.append(dict(shape=shape, impl=impl, run=run, n=n,
                                     ms=ms, t0=t0, t1=time.time()))
    finally:
        time.sleep(0.2)
        smi.terminate()
        smi.wait()
    samples = parse(open(log).read())
    if not samples:
        sys.exit("power: nvidia-smi gave no samples (%s)" % log)
    device = torch.cuda.get_device_name()
    for r in rows:
        mhz, w, capped, k = steady(samples, r.pop("t0"), r.pop("t1"))
        r.update(sm_mhz=mhz, watts=w, power_capped=capped, samples=k,
                 mj_per_call=w * r["ms"] if w else None, device=device,
                 commit=a.commit, date=datetime.date.today().isoformat())
        line = json.dumps(r)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
    print("\n%-26s %-9s %3s %6s %8s %7s %6s %6s %8s" % (
        "shape", "impl", "run", "n", "ms", "SM MHz", "W", "capped", "mJ/call"))
    for r in rows:
        print("%-26s %-9s %3d %6d %8.4f %7s %6s %6s %8s" % (
            r["shape"], r["impl"], r["run"], r["n"], r["ms"],
            "%.0f" % r["sm_mhz"] if r["sm_mhz"] else "-",
            "%.0f" % r["watts"] if r["watts"] else "-",
            "%.0f%%" % (100 * r["power_capped"]) if r["samples"] else "-",
            "%.3f" % r["mj_per_call"] if r["mj_per_call"] else "-"))


if __name__ == "__main__":
    main()
