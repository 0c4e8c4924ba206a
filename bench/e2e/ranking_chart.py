#!/usr/bin/env python3
"""The chart of bench/results/e2e_ranking.json (docs/benchmarks.md, "End to
end: the ranking model"): for the whole model and each stage, emb's time
beside the peers', as an SVG (standard library only, so it is drawn where
the records are, with or without the GPU machine's matplotlib).

    python3 bench/e2e/ranking_chart.py bench/results/e2e_ranking.json \
        -o bench/results/e2e_ranking.svg
"""
import argparse
import json
from xml.sax.saxutils import escape

COLOURS = {
    "emb_compiled": "#1f77b4",
    "emb_compiled_cuda_graph": "#17becf",
    "emb_compiled_stage": "#1f77b4",
    "torch_eager_as_written": "#d62728",
    "torch_compile_as_written": "#ff7f0e",
    "torch_compile_hand_optimised": "#2ca02c",
}


def rows(records):
    """(group, [(label, ms, colour)]): the whole model (ours direct and
    replayed, each peer once), then each stage (ours, the peer)."""
    whole = [r for r in records if r["case"] == "ranking_model"]
    bars, seen = [], set()
    for r in whole:
        if r["impl"] not in seen:
            seen.add(r["impl"])
            bars.append((r["impl"], r["ms"], COLOURS[r["impl"]]))
    for r in whole:
        if r["peer"] not in seen:
            seen.add(r["peer"])
            bars.append((r["peer"], r["peer_ms"], COLOURS[r["peer"]]))
    out = [("whole model", bars)]
    for r in records:
        if r["case"].startswith("ranking_model/"):
            out.append((r["case"].split("/", 1)[1],
                        [("emb (stage alone)", r["ms"], COLOURS[r["impl"]]),
                         (r["peer"], r["peer_ms"], COLOURS[r["peer"]])]))
    return out


def svg(groups, title):
    width, left, bar, gap, scale_w = 900, 330, 16, 14, 480
    top = max(ms for _, bars in groups for _, ms, _ in bars)
    y, parts = 40, []
    for name, bars in groups:
        parts.append(f'<text x="8" y="{y + 12}" font-weight="bold">{escape(name)}</text>')
        y += 18
        for label, ms, colour in bars:
            w = max(1.0, ms / top * scale_w)
            parts.append(f'<text x="24" y="{y + 12}">{escape(label)}</text>')
            parts.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar}" fill="{colour}"/>')
            parts.append(f'<text x="{left + w + 6:.1f}" y="{y + 12}">{ms:.4f} ms</text>')
            y += bar + 4
        y += gap
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y}" '
            f'font-family="sans-serif" font-size="12">'
            f'<rect width="100%" height="100%" fill="white"/>'
            f'<text x="8" y="20" font-size="14" font-weight="bold">{escape(title)}</text>')
    return head + "".join(parts) + "</svg>\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    records = json.load(open(a.json))
    first = records[0]
    title = (f"ranking model, {first['device']}, commit {first['commit']}, "
             f"{first['date']}: median ms (shorter is faster)")
    with open(a.out, "w") as f:
        f.write(svg(rows(records), title))


if __name__ == "__main__":
    main()
