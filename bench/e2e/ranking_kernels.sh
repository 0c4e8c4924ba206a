#!/usr/bin/env bash
# Where one call of the end-to-end ranking model spends its GPU time, kernel
# by kernel (docs/benchmarks.md, "End to end: the ranking model"): ncu's
# gpu__time_duration of every kernel of emb's compiled model
# (.aot/ranking_model, carried), each kernel run alone with the caches
# flushed before it (ncu's defaults; clocks left alone). On the GPU machine,
# from the repository root:
#
#   STEPS=ranking_kernels bench/e2e/run.sh  (or this script alone)
#
# Prints the kernels of one call (the runner's last), slowest first, and
# writes $OUT/kernels.csv (ncu's rows) and $OUT/kernels.txt (the table).
# The variables every family's run.sh has: bench/common/env.sh. Knobs: DATA
# (/tmp/emb-ranking-data, shared with ranking.sh), JOBS (8).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/common/env.sh e2e/ranking_kernels ""
DATA=${DATA:-/tmp/emb-ranking-data}
JOBS=${JOBS:-8}
export SEED=${SEED:-13}
mkdir -p "$OUT" "$DATA"
die() { echo "ranking_kernels.sh: error: $*" >&2; exit 1; }
[[ -f .aot/ranking_model.o ]] || die ".aot/ranking_model.o is missing (tools/dev/aot-examples.sh; carry .aot)"
command -v ncu > /dev/null || die "ncu (Nsight Compute) is not on the PATH"
cmake -G Ninja -S . -B "$BUILD" -DEMB_ENABLE_COMPILER=OFF \
  -DEMB_AOT_MODELS="$(pwd)/.aot/ranking_model" > "$OUT/configure.log" 2>&1 &&
  ninja -C "$BUILD" -j "$JOBS" emb-run-aot-ranking_model > "$OUT/build.log" 2>&1 ||
  { tail -20 "$OUT/configure.log" "$OUT/build.log"; die "the build failed"; }
[[ -f $DATA/ranking_model.inputs ]] ||
  python3 bench/e2e/ranking.py gen --data "$DATA" > "$OUT/gen.log" 2>&1 ||
  { cat "$OUT/gen.log"; die "ranking.py gen failed"; }
# One warm-up call and one timed (--repeat 1): the second half of the
# kernels (the runner's L2 flush between them is a memset, no kernel).
ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  "$BUILD/bin/emb-run-aot-ranking_model" --device cuda \
  --inputs "$(cat "$DATA/ranking_model.inputs")" --repeat 1 \
  > "$OUT/kernels.csv" 2> "$OUT/ncu.log" || { tail -20 "$OUT/ncu.log"; die "ncu failed"; }
python3 - "$OUT/kernels.csv" > "$OUT/kernels.txt" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, rows = rows[0], rows[1:]
col = {n: i for i, n in enumerate(head)}
calls = []
for r in rows:
    if r[col["Metric Name"]] != "gpu__time_duration.sum":
        continue
    name = r[col["Kernel Name"]]
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0,
             "ms": 1e3, "msecond": 1e3}[r[col["Metric Unit"]]]
    us = float(r[col["Metric Value"]].replace(",", "")) * scale
    calls.append((name, us))
# Two calls of the same kernels: the second half is the timed one.
last = calls[len(calls) // 2:]
total = sum(us for _, us in last)
print(f"{len(last)} kernels, {total:.1f} us in one call (each alone, caches flushed)")
print(f"{'us':>8} {'share':>6}  kernel")
for name, us in sorted(last, key=lambda x: -x[1]):
    print(f"{us:8.1f} {100 * us / total:5.1f}%  {name[:110]}")
PY
cat "$OUT/kernels.txt"
