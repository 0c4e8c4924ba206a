"""The time a call of each case of a power.py record would take at the card's
power cap if its FLOPs cost what cuBLAS's best product's cost and it moved
its least bytes through HBM, from the energies power.py's --energy-probes
measured (docs/benchmarks.md, "Clock and power under sustained load"):

  python3 bench/ikbo_lce/energy_model.py bench/results/ikbo_power_energy.json \
      [--probes OTHER.json] [--p0 W]

--probes takes the probes' energies from another record (another call, or
another card) for the same cases: the byte energy differs between calls.

The model. A call draws the card's static power P0 (the idle probe's draw)
for its whole time, plus a dynamic energy for its work:
- each FLOP at the dynamic energy a FLOP of the plain cuBLAS product
  (8192^3 f16, in the same call, at the cap): (W - P0) x ms / GFLOP. It
  includes that product's own operand traffic through L2 and shared memory;
- each byte the case must move to or from HBM (its least bytes: every input
  read once, the output written once) at the HBM copy's dynamic energy a
  byte less the L2-resident copy's: what a byte costs beyond L2, since both
  copies pay the same SM-side work a byte.
At the cap the draw is W_cap (the case's own median draw), so the call
takes (FLOP x e_flop + bytes x e_byte) / (W_cap - P0): the model's time,
for a kernel whose every FLOP is as cheap as cuBLAS's best product's and
that moves nothing twice through HBM (no padding, no softmax, no epilogue).
It is an estimate, not a bound: a copy's energy a byte includes what its
loads and stores cost in the SMs beyond an L2-resident copy's, which a TMA
kernel may not pay, and it varied by 22 % between two calls. Printed: each
case's model time, the measured medians of ours and the peer, how far ours
is from the model, and the peer's time over the model's. A P0 taken under
load would be higher than the idle draw; the model moves little with it
(both energies are fitted at the same cap): `--p0` tries another.
"""
import argparse
import json
import statistics
import sys


def median_of(rows, case, impl, key):
    v = [r[key] for r in rows if r["case"] == case and r["impl"] == impl]
    return statistics.median(v) if v else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("record", help="power.py --out JSON")
    ap.add_argument("--probes", help="the record of the probes (default: "
                    "the record itself, run with --energy-probes)")
    ap.add_argument("--p0", type=float, help="static draw, W (default: idle)")
    a = ap.parse_args()
    rows = json.load(open(a.record))
    prows = json.load(open(a.probes)) if a.probes else rows
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])

    def probe(prefix):
        c = sorted({r["case"] for r in prows if r["case"].startswith(prefix)})
        if not c:
            sys.exit("energy_model: no '%s' case in %s (power.py "
                     "--energy-probes)" % (prefix, a.probes or a.record))
        impl = next(r["impl"] for r in prows if r["case"] == c[0])
        return (c[0], median_of(prows, c[0], impl, "watts"),
                median_of(prows, c[0], impl, "ms"),
                next(r for r in prows if r["case"] == c[0]))

    _, p_idle, _, _ = probe("idle")
    p0 = a.p0 if a.p0 is not None else p_idle
    _, w_hbm, ms_hbm, r_hbm = probe("copy 1 GiB")
    _, w_l2, ms_l2, r_l2 = probe("copy 16 MiB")
    _, w_mm, ms_mm, r_mm = probe("gemm")
    e_hbm = (w_hbm - p0) * ms_hbm / r_hbm["gbytes"]  # pJ a byte
    e_l2 = (w_l2 - p0) * ms_l2 / r_l2["gbytes"]
    e_byte = e_hbm - e_l2
    e_flop = (w_mm - p0) * ms_mm / r_mm["gflop"]  # pJ a FLOP
    print("static draw P0 %.0f W (idle %.0f W); dynamic energy: a FLOP %.3f pJ"
          " (cuBLAS 8192^3 at %.0f W), a byte through HBM %.1f pJ (copy "
          "%.1f, L2-resident copy %.1f)" % (p0, p_idle, e_flop, w_mm, e_byte,
                                            e_hbm, e_l2))
    print("\n%-36s %7s %6s %8s %8s %7s %8s %6s %8s %10s" % (
        "case", "GFLOP", "GB", "W cap", "model ms", "TFLOP/s", "ours ms",
        "vs it", "peer ms", "peer/model"))
    for c in cases:
        ex = next(r for r in rows if r["case"] == c)
        if not ex["gflop"] or c.startswith("gemm") or ex.get("flushed"):
            continue  # a flushed phase's draw is shared with its flushes
        impls = []
        for r in rows:
            if r["case"] == c and r["impl"] not in impls:
                impls.append(r["impl"])
        ours = [i for i in impls if i.startswith("emb")]
        peers = [i for i in impls if not i.startswith("emb")]
        w_cap = statistics.median(r["watts"] for r in rows if r["case"] == c)
        model = (ex["gflop"] * e_flop + ex["gbytes"] * e_byte) / (w_cap - p0)
        for o in ours or [None]:
            ms_o = median_of(rows, c, o, "ms") if o else None
            ms_p = median_of(rows, c, peers[0], "ms") if peers else None
            print("%-36s %7.1f %6.3f %8.0f %8.4f %7.0f %8s %6s %8s %10s" % (
                c + ("" if len(ours) < 2 else " " + o[4:]), ex["gflop"],
                ex["gbytes"], w_cap, model, ex["gflop"] / model,
                "%.4f" % ms_o if ms_o else "-",
                "%+.1f%%" % (100 * (ms_o / model - 1)) if ms_o else "-",
                "%.4f" % ms_p if ms_p else "-",
                "%.3f" % (ms_p / model) if ms_p else "-"))


if __name__ == "__main__":
    main()
