"""Merges bench/dlrm_train/dlrm.py's JSON lines into bench/results/dlrm_train.json, a chart, and
the table of the issue's bars (bench/dlrm_train/NOTES.md).

    python3 bench/dlrm_train/report.py OUT/dlrm_train.jsonl [--json bench/results/dlrm_train.json]
        [--chart bench/results/dlrm_train] [--commit SHA]
    python3 bench/dlrm_train/report.py --summary bench/results/dlrm_train.json

Records (a JSON list), each with part, impl, peer, ms, peer_ms, ratio, commit (and bar, met,
device, date, the runs behind each median):
  part "step"       an emb implementation's step against the best peer's step (the fastest of
                    torch_eager, torch_compiled_dense, torch_rowwise); ratio = peer_ms / ms,
                    bar 2.5
  part "embedding"  the embedding part of the step (the sparse part's kernels, from the
                    profiler) against the best peer's embedding part; bar 6
  part "dense"      the dense part timed alone, against the best peer's (no bar: the same code)
  part "parts"      the step against its embedding part plus the dense part alone: ratio =
                    ms / peer_ms, bar at most 1.10 (nothing lost between the parts)
  part "compile"    emb_compiled against emb_eager: ratio = peer_ms / ms, bar at least 1 (within
                    2%, the runs' spread)
  part "loss_curve" the largest difference of the losses over the recorded steps: emb_eager
                    against torch_rowwise (the same math; bar --loss-tol), emb_compiled against
                    emb_eager, and emb_eager against torch_eager (element-wise Adagrad: how far a
                    different optimizer moves the curve, for scale)
  part "impl"       every implementation's numbers as measured
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from bench_results import load_jsonl, today, write_results  # noqa: E402

OURS = ("emb_eager", "emb_compiled")
PEERS = ("torch_eager", "torch_compiled_dense", "torch_rowwise")
IMPLS = OURS + PEERS
BARS = {"step": 2.5, "embedding": 6.0, "parts": 1.10, "compile": 1.0}
COMPILE_SPREAD = 0.02


def load(patterns):
    """The JSON lines of the files the glob patterns match."""
    return load_jsonl(*patterns, missing_ok=True)


def gather(lines):
    """{impl: {kind: record}} (the last record of a kind wins; "memory" records merge)."""
    by = {}
    for r in lines:
        d = by.setdefault(r["impl"], {})
        if r["kind"] == "memory" and "memory" in d:
            d["memory"].update(r)
        else:
            d[r["kind"]] = r
    return by


def measure(by, impl):
    """(step ms, embedding ms, dense ms) of an implementation, None where missing."""
    d = by.get(impl, {})
    return (d.get("step", {}).get("ms"), d.get("profile", {}).get("embedding_ms"),
            d.get("dense", {}).get("ms"))


def runs(by, impl, kind, key):
    return by.get(impl, {}).get(kind, {}).get(key)


def max_diff(a, b):
    n = min(len(a), len(b))
    return (max(abs(x - y) for x, y in zip(a[:n], b[:n])), n) if n else (None, 0)


def build(by, commit, loss_tol):
    config = next((d["config"] for d in by.values() if "config" in d), {})
    base = dict(commit=commit, device=config.get("device"), date=today(),
                batch=config.get("batch"), cap_rows=config.get("cap_rows"),
                zipf=config.get("zipf"), torch=config.get("torch"))
    records = []

    def best_peer(index, kind, key):
        got = [(measure(by, p)[index], p) for p in PEERS if measure(by, p)[index] is not None]
        if not got:
            return None, None, None
        ms, peer = min(got)
        return peer, ms, runs(by, peer, kind, key)

    for index, part, kind, key in ((0, "step", "step", "ms_runs"),
                                   (1, "embedding", "profile", "embedding_ms_runs"),
                                   (2, "dense", "dense", "ms_runs")):
        peer, peer_ms, peer_runs = best_peer(index, kind, key)
        for impl in OURS:
            ms = measure(by, impl)[index]
            if ms is None:
                continue
            ratio = peer_ms / ms if peer_ms else None
            bar = BARS.get(part)
            records.append(dict(part=part, impl=impl, peer=peer, ms=round(ms, 4),
                                peer_ms=round(peer_ms, 4) if peer_ms else None,
                                ratio=round(ratio, 3) if ratio else None, bar=bar,
                                met=(ratio >= bar) if (bar and ratio) else None,
                                ms_runs=runs(by, impl, kind, key), peer_ms_runs=peer_runs,
                                **base))
    for impl in OURS:
        step, emb, dense = measure(by, impl)
        if None in (step, emb, dense):
            continue
        parts = emb + dense
        records.append(dict(part="parts", impl=impl, peer="embedding part + dense part alone",
                            ms=round(step, 4), peer_ms=round(parts, 4),
                            ratio=round(step / parts, 3), bar=BARS["parts"],
                            met=step / parts <= BARS["parts"], **base))
    eager, compiled = measure(by, "emb_eager")[0], measure(by, "emb_compiled")[0]
    if eager and compiled:
        ratio = eager / compiled
        records.append(dict(part="compile", impl="emb_compiled", peer="emb_eager",
                            ms=round(compiled, 4), peer_ms=round(eager, 4), ratio=round(ratio, 3),
                            bar=BARS["compile"], met=ratio >= BARS["compile"] - COMPILE_SPREAD,
                            scope=by["emb_compiled"].get("config", {}).get("compile_scope"), **base))
    curves = {impl: by[impl]["curve"]["losses"] for impl in IMPLS
              if "curve" in by.get(impl, {})}
    for impl, peer, tol in (("emb_eager", "torch_rowwise", loss_tol),
                            ("emb_compiled", "emb_eager", loss_tol),
                            ("emb_eager", "torch_eager", None),
                            ("torch_compiled_dense", "torch_eager", None)):
        if impl in curves and peer in curves:
            diff, n = max_diff(curves[impl], curves[peer])
            first = abs(curves[impl][0] - curves[peer][0])
            records.append(dict(part="loss_curve", impl=impl, peer=peer, steps=n,
                                max_abs_diff=diff, first_step_diff=first, bar=tol,
                                met=(diff <= tol) if tol is not None else None,
                                final_loss=curves[impl][n - 1], peer_final_loss=curves[peer][n - 1],
                                **base))
    for impl in IMPLS:
        d = by.get(impl)
        if not d:
            continue
        step, emb, dense = measure(by, impl)
        prof = d.get("profile", {})
        records.append(dict(part="impl", impl=impl, peer=None, ms=step, peer_ms=None, ratio=None,
                            ms_runs=runs(by, impl, "step", "ms_runs"), embedding_ms=emb,
                            embedding_ms_runs=prof.get("embedding_ms_runs"),
                            embedding_ms_by_kernel_name=prof.get("embedding_ms_by_kernel_name"),
                            kernel_ms=prof.get("kernel_ms"),
                            dense_kernel_ms=prof.get("dense_kernel_ms"),
                            profile_method=prof.get("method"), dense_ms=dense,
                            dense_ms_runs=runs(by, impl, "dense", "ms_runs"),
                            first_step_s=d.get("curve", {}).get("first_step_s"),
                            memory=d.get("memory"), check=d.get("check"),
                            errors=[d["error"]["phase"] + ": " + d["error"]["error"]]
                            if "error" in d else [], **base))
    return records


def chart(records, path):
    """path.png with matplotlib, else path.svg drawn by bench/e2e/ranking_chart.py's svg()."""
    rows = [r for r in records if r["part"] == "impl" and r["ms"]]
    if not rows:
        return None
    first = records[0]
    title = ("DLRM-DCNv2 training step, %s, commit %s, %s: median ms (shorter is faster)"
             % (first["device"], first["commit"], first["date"]))
    bars = [("step", "ms", "#1f77b4"), ("embedding part (kernels)", "embedding_ms", "#ff7f0e"),
            ("dense part alone", "dense_ms", "#2ca02c")]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:  # noqa: BLE001  (the records matter more than the picture)
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.join(here, "..", "e2e"))
        from ranking_chart import svg
        groups = [(r["impl"], [(label, r[key], colour) for label, key, colour in bars
                               if r.get(key)]) for r in rows]
        with open(path + ".svg", "w") as f:
            f.write(svg(groups, title))
        return path + ".svg"
    fig, ax = plt.subplots(figsize=(10, 5))
    width = 0.27
    for j, (label, key, colour) in enumerate(bars):
        xs = [i + (j - 1) * width for i in range(len(rows))]
        ys = [r.get(key) or 0 for r in rows]
        ax.bar(xs, ys, width, label=label, color=colour)
        for x, y in zip(xs, ys):
            if y:
                ax.text(x, y * 1.02, "%.1f" % y, ha="center", fontsize=7)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["impl"] for r in rows])
    ax.set_ylabel("ms per training step (median of 3 runs)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path + ".png", dpi=110)
    return path + ".png"


def summary(records):
    def f(x, fmt="%9.3f"):
        return fmt % x if isinstance(x, (int, float)) and x is not None else "%9s" % "-"
    print("\n%-22s %9s %9s %9s %9s  %s" % ("impl", "step ms", "emb part", "dense", "kernels",
                                          "errors"))
    for r in records:
        if r["part"] == "impl":
            print("%-22s %s %s %s %s  %s" % (r["impl"], f(r["ms"]), f(r["embedding_ms"]),
                                             f(r["dense_ms"]), f(r["kernel_ms"]),
                                             "; ".join(r["errors"])[:60]))
    print("\n%-11s %-13s %-22s %9s %9s %7s %6s %4s" % ("bar", "impl", "against", "ms", "peer ms",
                                                     "ratio", "bar", "met"))
    for r in records:
        if r["part"] in ("step", "embedding", "parts", "compile"):
            bar = ("<= %g" if r["part"] == "parts" else ">= %g") % r["bar"] if r["bar"] else "-"
            met = "-" if r["met"] is None else ("yes" if r["met"] else "NO")
            print("%-11s %-13s %-22s %s %s %7s %6s %4s" % (
                r["part"], r["impl"], (r["peer"] or "-")[:22], f(r["ms"]), f(r["peer_ms"]),
                "%.2f" % r["ratio"] if r["ratio"] else "-", bar, met))
        elif r["part"] == "loss_curve":
            met = "-" if r["met"] is None else ("yes" if r["met"] else "NO")
            print("%-11s %-13s %-22s max |diff| %.3g over %d steps (first %.3g)%s %s" % (
                "loss_curve", r["impl"], r["peer"], r["max_abs_diff"], r["steps"],
                r["first_step_diff"], " <= %g" % r["bar"] if r["bar"] is not None else "", met))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="*", help="dlrm.py's JSON lines (globs)")
    ap.add_argument("--json", default="bench/results/dlrm_train.json")
    ap.add_argument("--chart", default="bench/results/dlrm_train",
                    help="the chart's path without extension (.png or .svg is added)")
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--loss-tol", type=float, default=1e-3,
                    help="largest loss difference of emb_eager and torch_rowwise that passes")
    ap.add_argument("--summary", default=None, help="a results JSON: print its table")
    a = ap.parse_args()
    if a.summary:
        summary(json.load(open(a.summary)))
        return
    records = build(gather(load(a.inputs)), a.commit, a.loss_tol)
    if not records:
        print("no records in", a.inputs)
        sys.exit(1)
    write_results(a.json, records)
    drawn = chart(records, a.chart)
    print("wrote %s%s" % (a.json, ", " + drawn if drawn else ""))
    summary(records)


if __name__ == "__main__":
    main()
