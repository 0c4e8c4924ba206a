"""The card's SM clock and power while emb's IKBO kernels and their peers run
sustained, in one call on the GPU machine: what bounds the sustained ratios
(docs/benchmarks.md, "Clock and power under sustained load").

  python3 bench/ikbo_lce/power.py --bench BUILD/ikbo_lce_bench \
      [--attention-bench BUILD/attention_bench] [--shape B,U,M,Ku,Kc,N ...]
      [--lce-configs NAME,NAME]
      [--lk N ...] [--energy-probes] [--do-bench] [--seconds 2] [--runs 3]
      [--out F.json]

Cases (f16): the IKBO LCE on each --shape (K as given; default the IKBO
benchmark shape padded and the held-apart B 512 U 51 M 433 K 1024/1024)
against its peer of record, Inductor max-autotune on the hand-decomposed form
(compiled as heldout.py compiles it); with --attention-bench, the IKBO
attention (uniform, 32 users of 64 candidates, 64 query rows, 2 heads, head
dim 128) at each --lk (default 2048) against cuDNN SDPA reading the grouped
queries through strided views (bench/attention/peers.py's
torch_sdpa_grouped_cudnn_native); and a plain cuBLAS product (torch.matmul,
8192 x 8192 x 8192), the energy a FLOP of the matrix units at their best.
With --energy-probes, three probes that split a call's energy into its parts:
the card idle (a 2 s sleep), a device-to-device copy of 1 GiB (2 GiB of HBM
traffic a call: the energy a byte read or written in HBM) and a copy of 16 MiB
into 16 MiB that stays in L2 (50 copies a CUDA graph replay: the energy a byte
moved between L2 and the SMs).
With --do-bench, every LCE phase runs as do_bench times (each call after an
L2 flush, a 256 MB memset, events around the call alone, the median; ours
with `ikbo_lce_bench --flush`): the regime of the tables, where the card
spends part of each call's period in the flush.
With --lce-configs, the LCE's ours phases are one a named configuration,
forced (`ikbo_lce_bench --config`), instead of the selection's.
RUNS times, alternating, a phase of ours (the benchmark binary timing n calls
back to back after its warm-up, each between its own events, no L2 flush;
the median call) and a phase of the peer (n calls back to back between two
events, no flush; the mean call), each about SECONDS long. `nvidia-smi`
samples the SM clock, the power draw and whether the software power cap is
holding the clock, every 20 ms, through the whole call. Each phase reports
its time a call, the median clock and power of the samples in its second
half (the steady part: ours starts a process and fills its inputs first),
the share of those samples under the power cap, the energy a call (power x
time) and a FLOP. Inputs are random on both sides (zeros would draw less
power). One JSON line a phase on stdout, all of them as a JSON list in
--out; the table last.
"""
import argparse
import datetime
import json
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

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


def lce_peer(B, U, M, Ku, Kc, N):
    W, user, cand, c2u = inputs(B, U, M, Ku, Kc, N, torch.float16)

    def decomposed(W, user, cand, c2u):
        return (torch.matmul(W[:, Ku:], cand) +
                torch.matmul(W[:, :Ku], user).index_select(0, c2u))
    cf = torch.compile(decomposed, mode="max-autotune-no-cudagraphs",
                       dynamic=False)
    cf(W, user, cand, c2u)
    return lambda: cf(W, user, cand, c2u)


def attention_peer(Lk):
    U, C, Lq, H, Dh = 32, 64, 64, 2, 128
    q = torch.randn(U * C, Lq, H, Dh, dtype=torch.float16, device="cuda")
    k = torch.randn(U, Lk, H, Dh, dtype=torch.float16, device="cuda")
    v = torch.randn(U, Lk, H, Dh, dtype=torch.float16, device="cuda")

    def grouped_native():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(
                q.view(U, C * Lq, H, Dh).transpose(1, 2), k.transpose(1, 2),
                v.transpose(1, 2)).transpose(1, 2)
    return grouped_native


def gemm_peer():
    x = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
    y = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
    return lambda: x @ y


def idle_probe():
    return lambda: time.sleep(0.04)


def copy_probe(nbytes, per_call):
    """per_call copies of nbytes into nbytes, one CUDA graph replay: a small
    copy alone would time its launch."""
    src = torch.randint(-2 ** 31, 2 ** 31 - 1, (nbytes // 4,),
                        dtype=torch.int32, device="cuda")
    dst = torch.empty_like(src)
    if per_call == 1:
        return lambda: dst.copy_(src)
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        dst.copy_(src)
        with torch.cuda.graph(g):
            for _ in range(per_call):
                dst.copy_(src)
    torch.cuda.current_stream().wait_stream(s)
    return g.replay


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


def flushed_phase(fn, n):
    """n calls, each after a 256 MB memset, as triton's do_bench times: the
    median of events around each call alone."""
    cache = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    ev = [(torch.cuda.Event(enable_timing=True),
           torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    fn()
    for a, b in ev:
        cache.zero_()
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in ev)


def ours_phase(cmd, n, match):
    r = subprocess.run(cmd + ["--reps", str(n)], capture_output=True,
                       text=True, timeout=120)
    if r.returncode != 0:
        sys.exit("%s failed: %s" % (cmd[0], r.stderr[-500:]))
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    got = [x["ms"] for x in lines if all(x.get(k) == v for k, v in match.items())]
    if not got:
        sys.exit("%s printed no line matching %s" % (cmd[0], match))
    return got[-1]


def cases(a):
    """(name, GFLOP a call, peer name, build the peer, {our impl: ours(n)},
    GB a call); a probe's work is its bytes (GFLOP 0)."""
    out = []
    if a.energy_probes:
        out.append(("idle 2 s", 0.0, "sleep", idle_probe, {}, 0.0))
        out.append(("copy 1 GiB (HBM)", 0.0, "torch_copy",
                    lambda: copy_probe(1 << 30, 1), {}, 2 * 2 ** 30 / 1e9))
        out.append(("copy 16 MiB x 50 (L2)", 0.0, "torch_copy_graph",
                    lambda: copy_probe(16 << 20, 50), {},
                    50 * 2 * 2 ** 24 / 1e9))
    for shape in a.shape or ["1024,15,433,1184,872,256",
                             "512,51,433,1024,1024,256"]:
        B, U, M, Ku, Kc, N = map(int, shape.split(","))
        cmd = [a.bench, "--set", "shape", "--shape", shape] + (
            ["--flush"] if a.do_bench else [])
        ours = {"emb": lambda n, c=cmd: ours_phase(c, n, {})}
        if a.lce_configs:  # forced configurations instead of the selection
            ours = {"emb " + x: lambda n, c=cmd + ["--config", x]:
                    ours_phase(c, n, {}) for x in a.lce_configs.split(",")}
        out.append(("ikbo_lce " + shape, 2e-9 * M * N * (B * Kc + U * Ku),
                    "inductor_maxautotune_decomposed",
                    lambda s=(B, U, M, Ku, Kc, N): lce_peer(*s), ours,
                    1e-9 * 2 * (M * (Ku + Kc) + U * Ku * N + B * Kc * N +
                                B * M * N)))
    if a.attention_bench:
        for Lk in a.lk or [2048]:
            cmd = [a.attention_bench, "--uniform", "--lk", str(Lk), "--dtype",
                   "f16", "--config", a.attention_config, "--burst"]
            out.append(("ikbo_attention Lk %d" % Lk,
                        4e-9 * 2048 * 2 * 64 * Lk * 128,
                        "torch_sdpa_grouped_cudnn_native",
                        lambda Lk=Lk: attention_peer(Lk),
                        {"emb": lambda n, c=cmd, Lk=Lk:
                         ours_phase(c, n, {"Lk": Lk})},
                        1e-9 * 2 * (2 * 2048 * 64 * 2 * 128 +
                                    2 * 32 * Lk * 2 * 128)))
    out.append(("gemm 8192^3", 2e-9 * 8192 ** 3, "cublas_matmul", gemm_peer,
                {}, 3 * 2 * 8192 ** 2 / 1e9))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, help="ikbo_lce_bench")
    ap.add_argument("--attention-bench")
    ap.add_argument("--attention-config", default="wgmma_d128_pp_kvfirst")
    ap.add_argument("--shape", action="append")
    ap.add_argument("--lce-configs", help="NAME,NAME: ours forced to each")
    ap.add_argument("--lk", type=int, action="append")
    ap.add_argument("--do-bench", action="store_true",
                    help="LCE phases with an L2 flush before each call")
    ap.add_argument("--energy-probes", action="store_true",
                    help="idle, HBM copy and L2 copy phases first")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--commit", default="unknown")
    a = ap.parse_args()
    log = "/tmp/emb-power-samples.csv"
    smi = sampler(log)
    rows = []
    try:
        for name, gflop, peer, build, ours, gbytes in cases(a):
            fn = build()
            flushed = a.do_bench and name.startswith("ikbo_lce")
            est = peer_phase(fn, 20) + (0.07 if flushed else 0)  # memset
            n = max(50, int(a.seconds / (est * 1e-3)))
            for run in range(1, a.runs + 1):
                for impl in list(ours) + [peer]:
                    time.sleep(1.0)  # the card cools between phases alike
                    t0 = time.time()
                    ms = (ours[impl](n) if impl in ours else
                          flushed_phase(fn, n) if flushed else
                          peer_phase(fn, n))
                    rows.append(dict(case=name, impl=impl, run=run, n=n,
                                     flushed=flushed,
                                     ms=ms, gflop=gflop, gbytes=gbytes, t0=t0,
                                     t1=time.time()))
            del fn
            torch.cuda.empty_cache()
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
        # A flushed phase's draw is shared with its flushes: no energy.
        e = None if r["flushed"] or not w else w * r["ms"]
        r.update(sm_mhz=mhz, watts=w, power_capped=capped, samples=k,
                 mj_per_call=e,
                 pj_per_flop=e / r["gflop"] if e and r["gflop"] else None,
                 pj_per_byte=e / r["gbytes"] if e and r["gbytes"] else None,
                 tflops=r["gflop"] / r["ms"], gbs=r["gbytes"] / r["ms"] * 1e3,
                 device=device,
                 commit=a.commit, date=datetime.date.today().isoformat())
        print(json.dumps(r), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)
    print("\n%-34s %-32s %3s %6s %8s %7s %6s %7s %6s %6s %8s %7s %7s" % (
        "case", "impl", "run", "n", "ms", "TFLOP/s", "GB/s", "SM MHz", "W",
        "capped", "mJ/call", "pJ/FLOP", "pJ/B"))
    for r in rows:
        print("%-34s %-32s %3d %6d %8.4f %7.0f %6.0f %7s %6s %6s %8s %7s %7s" % (
            r["case"], r["impl"], r["run"], r["n"], r["ms"], r["tflops"],
            r["gbs"],
            "%.0f" % r["sm_mhz"] if r["sm_mhz"] else "-",
            "%.0f" % r["watts"] if r["watts"] else "-",
            "%.0f%%" % (100 * r["power_capped"]) if r["samples"] else "-",
            "%.1f" % r["mj_per_call"] if r["mj_per_call"] else "-",
            "%.3f" % r["pj_per_flop"] if r["pj_per_flop"] else "-",
            "%.1f" % r["pj_per_byte"] if r["pj_per_byte"] else "-"))


if __name__ == "__main__":
    main()
