"""Reads bench.py's JSON lines, writes bench/results/tbe_quantized.json (the records and the
bars) and prints the table with each bar marked met or NOT met.

    python3 bench/tbe_quantized/report.py --jsonl '$OUT/tbe_quantized*.jsonl' \
        [--json bench/results/tbe_quantized.json]
    python3 bench/tbe_quantized/report.py --summary bench/results/tbe_quantized.json

A record measured twice (a re-run) keeps its last (bench_results.last_by on kind and name);
dry-run records count only where there is nothing else. The torch peer of record for the int4
bar is the fastest compiled form (`torch_int4_*` whose mode is not eager); when none compiled,
the fastest form, and the bar says so.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_results import last_by, load_jsonl, write_results  # noqa: E402

FRACTION_BAR = 0.70
ULP_BAR = 1
QERR_BAR = 2.0


def load(patterns):
    rows = load_jsonl(*patterns, missing_ok=True)
    measured = [r for r in rows if not r.get("dry_run")]
    return last_by(measured or rows, lambda r: (r["kind"], r["name"]))


def timed(recs):
    return {r["name"]: r for r in recs if r["kind"] == "lookup" and r.get("ms")}


def compiled(r):
    return r.get("mode") not in (None, "eager") and not str(r.get("mode")).startswith("eager")


def peer_of_record(lk, precision):
    """(the record, note) of the fastest compiled torch form of `precision`, else the fastest."""
    forms = [r for n, r in lk.items() if n.startswith("torch_%s_" % precision)]
    best = [r for r in forms if compiled(r)]
    if best:
        return min(best, key=lambda r: r["ms"]), ""
    if forms:
        return min(forms, key=lambda r: r["ms"]), " (no compiled form: eager)"
    return None, ""


def bars(recs):
    """The bar records: name, value, threshold, met, what they compare."""
    lk = timed(recs)
    out = []

    def bar(name, value, threshold, what, at_most=False):
        met = None if value is None else (value <= threshold if at_most else value >= threshold)
        out.append(dict(kind="bar", name=name, value=None if value is None else round(value, 4),
                        threshold=threshold, met=met, what=what))

    def ratio(slow, fast):
        return slow["ms"] / fast["ms"] if slow and fast else None

    peer, note = peer_of_record(lk, "int4")
    e4, e8, f16 = lk.get("emb_int4"), lk.get("emb_int8"), lk.get("emb_f16")
    bar("int4 vs torch", ratio(peer, e4), 3.0,
        "emb_int4 against %s%s" % (peer["name"] if peer else "no torch int4 peer", note))
    bar("int4 vs emb f16", ratio(f16, e4), 2.0, "emb_int4 against emb_f16")
    bar("int8 vs emb f16", ratio(f16, e8), 1.6, "emb_int8 against emb_f16")
    for p, r in (("int4", e4), ("int8", e8)):
        bar("%s copy fraction" % p, r["bw_fraction"] if r else None, FRACTION_BAR,
            "emb_%s: bytes that must move / ms over the copy bandwidth" % p)
    acc = {r["name"]: r for r in recs if r["kind"] == "cuda_vs_cpu"}
    for p in ("int8", "int4", "fp8"):
        r = acc.get(p, {})
        bar("%s device = cpu" % p, r.get("max_ulp_f16"), ULP_BAR,
            "emb's lookup on the device against its CPU lookup, f16 output: max ulps", True)
    qe = {r["name"]: r for r in recs if r["kind"] == "quant_error"}
    for p in ("int8", "int4"):
        r = qe.get(p, {})
        bar("%s quantisation error" % p, r.get("ratio"), QERR_BAR,
            "emb's mean relative RMS row error over FBGEMM's rowwise quantizer's (numpy)", True)
    return out


def fmt(v, spec, none="-"):
    return none if v is None else spec % v


def pct(v):
    return fmt(None if v is None else 100 * v, "%.1f%%")


def summary(recs):
    if not recs:
        print("no records")
        return
    first = recs[0]
    dry = any(r.get("dry_run") for r in recs)
    copy = [r for r in recs if r["kind"] == "copy"]
    print("tbe_quantized: %s, torch %s, commit %s, %s%s" % (
        first["device"], first["torch"], first["commit"], first["date"],
        " (DRY RUN: CPU, tiny shapes; not a measurement)" if dry else ""))
    print("B %d T %d E %d D %d L %d, %s ids, sum, f16 out; copy %s GB/s" % (
        first["B"], first["T"], first["E"], first["D"], first["L"], first["index_dtype"],
        fmt(copy[0]["gbps"] if copy else None, "%.0f")))
    tables = [r for r in recs if r["kind"] == "table"]
    if tables:
        odd = {p: v for p, v in tables[0]["packer"].items() if v != "emb"}
        if odd:
            print("tables not packed by emb on the device: %s" % odd)
    print("\n%-18s %-28s %9s %-29s %8s %7s %8s %7s  %s" % (
        "side", "mode", "ms", "runs", "GB/s", "copy%", "sector%", "comp s", "check"))
    order = ["emb_f16", "emb_int8", "emb_int4", "emb_int2", "emb_fp8"]
    lookups = sorted((r for r in recs if r["kind"] == "lookup"),
                     key=lambda r: (order.index(r["name"]) if r["name"] in order else 9,
                                    r["name"]))
    for r in lookups:
        runs = "/".join("%.4f" % v for v in r.get("ms_runs") or [])
        print("%-18s %-28s %9s %-29s %8s %7s %8s %7s  %s" % (
            r["name"], str(r.get("mode") or "-")[:28], fmt(r.get("ms"), "%.4f"), runs,
            fmt(r.get("gbps"), "%.0f"), pct(r.get("bw_fraction")), pct(r.get("sector_fraction")),
            fmt(r.get("compile_s"), "%.1f"), r["check"]))
    print("\naccuracy: emb's device lookup against its CPU lookup (f16 out: max ulps, "
          "elements off; f32 out: max rel)")
    for r in recs:
        if r["kind"] == "cuda_vs_cpu":
            print("  %-5s %s" % (r["name"], "max %s ulp, %s of %s off, f32 %s  %s" % (
                r.get("max_ulp_f16"), r.get("mismatch_f16"), r.get("elements"),
                fmt(r.get("max_rel_f32"), "%.2e"), r["check"])))
    print("quantisation error on N(0,1) rows (mean relative RMS a row): emb / FBGEMM reference")
    for r in recs:
        if r["kind"] == "quant_error":
            print("  %-5s %s" % (r["name"], "%s / %s = %s, bytes equal %s  %s%s" % (
                fmt(r.get("emb_err"), "%.5f"), fmt(r.get("ref_err"), "%.5f"),
                fmt(r.get("ratio"), "%.3f"), fmt(r.get("bytes_equal"), "%.4f"), r["check"],
                "" if r.get("on") in (None, "cuda", "cpu") else "  (on %s)" % r["on"])))
    print("\nbars%s:" % (" (dry run: not a measurement)" if dry else ""))
    for b in [r for r in recs if r["kind"] == "bar"] or bars(recs):
        verdict = {True: "met", False: "NOT met", None: "not measured"}[b["met"]]
        print("  %-24s %10s  %s %-5s %-12s %s" % (
            b["name"], fmt(b["value"], "%.3f"), "<=" if "error" in b["name"] or "cpu" in
            b["name"] else ">=", b["threshold"], verdict, b["what"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jsonl", action="append", default=[], help="glob of bench.py's lines")
    ap.add_argument("--json", default=None, help="write the records and the bars here")
    ap.add_argument("--summary", default=None, help="a results JSON: print its table")
    a = ap.parse_args()
    if a.summary:
        with open(a.summary) as f:
            recs = json.load(f)
    else:
        recs = [r for r in load(a.jsonl) if r["kind"] != "bar"]
        recs += bars(recs)
    if a.json:
        write_results(a.json, recs)
    summary(recs)


if __name__ == "__main__":
    main()
