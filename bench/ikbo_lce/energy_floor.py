"""The least time a call of each case of a power.py record can take at the
card's power cap, from the energies power.py's --energy-probes measured in
the same call (docs/benchmarks.md, "Clock and power under sustained load"):

  python3 bench/ikbo_lce/energy_floor.py bench/results/ikbo_power_energy.json

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
takes at least (FLOP x e_flop + bytes x e_byte) / (W_cap - P0). The floor
is a kernel whose every FLOP is as cheap as cuBLAS's best product's and
that moves nothing twice through HBM: no padding, no softmax, no epilogue.
Printed: each case's floor, the measured medians of ours and the peer, how
far ours is above the floor, and the ratio to the peer the floor allows.
A P0 taken under load would be higher than the idle draw; the floor moves
little with it (both energies are fitted at the same cap): `--p0` tries
another.
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
    ap.add_argument("record", help="power.py --out JSON with --energy-probes")
    ap.add_argument("--p0", type=float, help="static draw, W (default: idle)")
    a = ap.parse_args()
    rows = json.load(open(a.record))
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])

    def probe(prefix):
        c = [x for x in cases if x.startswith(prefix)]
        if not c:
            sys.exit("energy_floor: no '%s' case in %s (power.py "
                     "--energy-probes)" % (prefix, a.record))
        impl = next(r["impl"] for r in rows if r["case"] == c[0])
        return (c[0], median_of(rows, c[0], impl, "watts"),
                median_of(rows, c[0], impl, "ms"),
                next(r for r in rows if r["case"] == c[0]))

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
    print("\n%-36s %7s %6s %8s %8s %7s %8s %6s %8s %7s" % (
        "case", "GFLOP", "GB", "W cap", "floor ms", "TFLOP/s", "ours ms",
        "above", "peer ms", "ratio<="))
    for c in cases:
        ex = next(r for r in rows if r["case"] == c)
        if not ex["gflop"] or c.startswith("gemm"):
            continue
        impls = []
        for r in rows:
            if r["case"] == c and r["impl"] not in impls:
                impls.append(r["impl"])
        ours = [i for i in impls if i.startswith("emb")]
        peers = [i for i in impls if not i.startswith("emb")]
        w_cap = statistics.median(r["watts"] for r in rows if r["case"] == c)
        floor = (ex["gflop"] * e_flop + ex["gbytes"] * e_byte) / (w_cap - p0)
        for o in ours or [None]:
            ms_o = median_of(rows, c, o, "ms") if o else None
            ms_p = median_of(rows, c, peers[0], "ms") if peers else None
            print("%-36s %7.1f %6.3f %8.0f %8.4f %7.0f %8s %6s %8s %7s" % (
                c + ("" if len(ours) < 2 else " " + o[4:]), ex["gflop"],
                ex["gbytes"], w_cap, floor, ex["gflop"] / floor,
                "%.4f" % ms_o if ms_o else "-",
                "%+.1f%%" % (100 * (ms_o / floor - 1)) if ms_o else "-",
                "%.4f" % ms_p if ms_p else "-",
                "%.3f" % (ms_p / floor) if ms_p else "-"))


if __name__ == "__main__":
    main()
