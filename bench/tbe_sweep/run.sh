#!/bin/bash
# One call on the GPU machine for the TBE sweep (docs/kernels/tbe_sweep.md):
# finds or builds the CUDA runtime library (libembrt.so: LIB, else carried in
# .sweep-carry/, else bench/common/env.sh's build step in $BUILD), runs
# sweep.py on a slice of the configurations until DEADLINE, and prints
# report.py's table of every record under $OUT and RESUME last. A call stays
# under the device's 10 minutes (TOTAL).
#
#   OUT=/tmp/sweep SLICE=1/3 bench/tbe_sweep/run.sh
#   then, here: cp $OUT/tbe_sweep_*.jsonl bench/tbe_sweep/runs/
#   (runs/ holds every call's lines, committed; a new file there travels
#   with the next call, whose RESUME skips what it holds)
#
# The variables every family's run.sh has: bench/common/env.sh.
# STEPS (default sweep,report):
#   smoke   the shrunk shapes of configurations 0-7 (sweep.py --shrink, one
#           run; $OUT/smoke.jsonl, no measurement): the driver and the
#           checks on this machine in a few seconds, before the slice;
#           unless all 16 records check "ok", the slice's peer update runs
#           eager (NO_COMPILE), and says so
#   sweep   the slice: $OUT/tbe_sweep_<slice>.jsonl (tbe_sweep_all.jsonl
#           without SLICE, tbe_sweep_only.jsonl with ONLY)
#   report  report.py over RESUME and the slice's lines: the distribution,
#           the bars, the worst configurations, $OUT/tbe_sweep.png
# ONLY: configuration ids (sweep.py --only), instead of SLICE.
# RUNS: runs a side (default 3).
# DEADLINE: seconds after the start past which the sweep starts no
#   configuration (default TOTAL - 90: the largest configuration and the
#   report still fit).
# SLICE: I/N, the configurations I-1, I-1+N, ... (sweep.py --slice; default
#   every configuration).
# DRY=1: sweep.py --dry-run (the CPU, no nvidia-smi, no build; give LIB, and
#   PY and PYTHONPATH for an older torch): checks this script end to end;
#   the lines are $OUT/dry_<slice>.jsonl.
# TOTAL: seconds this script may take (default 560); sweep.py is stopped 20 s
#   before, so that the report still runs.
# RESUME: glob of earlier lines whose configurations are skipped (default
#   bench/tbe_sweep/runs/*.jsonl).
# RUN_MS: timed ms a run (default 100). NO_COMPILE=1: the peer's update
#   eager. LIB: a libembrt.so to use. PY: the Python (default python3).
# Files under $OUT: run.log, tbe_sweep_<slice>.jsonl (dry_<slice>.jsonl),
# smoke.jsonl, tbe_sweep.png.
set -u
cd "$(dirname "$0")/../.."
TOTAL=${TOTAL:-560}
DEADLINE=${DEADLINE:-$((TOTAL - 90))}
source bench/common/env.sh tbe_sweep sweep,report
RESUME=${RESUME:-bench/tbe_sweep/runs/*.jsonl}
PY=${PY:-python3}
DRY=${DRY:-}
bench_log_all

[ -z "$DRY" ] && bench_gpu
if [ -n "${LIB:-}" ]; then
  :
elif [ -f .sweep-carry/libembrt.so ]; then
  LIB=.sweep-carry/libembrt.so
else
  LIB=$BUILD/lib/libembrt.so
  bench_build embrt_shared || exit 1
  rm -f "$OUT/build.log" "$OUT/configure.log"
fi
stamp "library $LIB"

tag=all
args=()
if [ -n "${SLICE:-}" ]; then
  args+=(--slice "$SLICE")
  tag=${SLICE/\//of}
fi
if [ -n "$ONLY" ]; then
  args+=("${onlyArgs[@]}")
  tag=only
fi
out=$OUT/tbe_sweep_$tag.jsonl
if [ -n "$DRY" ]; then
  args+=(--dry-run)
  out=$OUT/dry_$tag.jsonl
fi
[ -n "${NO_COMPILE:-}" ] && args+=(--no-compile)
sweep() { # sweep.py's arguments
  PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/python \
    timeout $((TOTAL - $(elapsed) - 20)) $PY bench/tbe_sweep/sweep.py --lib "$LIB" \
    --commit "$COMMIT" "$@" 2>&1 | grep -v -i "warning"
  echo "sweep rc=${PIPESTATUS[0]}"
}
if has smoke; then
  stamp "smoke: shrunk configurations 0-7"
  sweep --out "$OUT/smoke.jsonl" --shrink --only 0,1,2,3,4,5,6,7 --runs 1 \
    ${DRY:+--dry-run} | tail -n 17
  if [ -z "${NO_COMPILE:-}" ] && [ "$(grep -c '"check": "ok"' "$OUT/smoke.jsonl" 2>/dev/null)" != 16 ]; then
    echo "smoke: not every configuration ran and checked: the sweep's peer update runs eager"
    NO_COMPILE=1
    args+=(--no-compile)
  fi
fi
if has sweep; then
  deadline=$((DEADLINE - $(elapsed)))
  stamp "sweep ($tag; no configuration started after $deadline s)"
  sweep --out "$out" --resume "$RESUME" --deadline "$deadline" --runs "$RUNS" \
    --run-ms "${RUN_MS:-100}" "${args[@]}"
fi

if has report; then
  stamp report
  $PY bench/tbe_sweep/report.py --jsonl "$RESUME" --jsonl "$out" \
    --png "$OUT/tbe_sweep.png" --worst 5
fi
stamp done
