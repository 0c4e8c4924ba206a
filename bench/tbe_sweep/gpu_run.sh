#!/bin/bash
# One call on the GPU machine for the TBE sweep: finds or builds the CUDA
# runtime library (libembrt.so: carried in .sweep-carry/, left by an earlier
# call of this session in $BUILD, or built here with CMake, runtime half),
# runs sweep.py on a slice of the configurations until the call's time is
# spent, and prints report.py's table of every record under $OUT and RESUME
# last. Each call stays under the device's 10 minutes (TOTAL).
#
#   OUT=/tmp/sweep SLICE=1/3 bench/tbe_sweep/gpu_run.sh
#   then, here: cp $OUT/tbe_sweep_*.jsonl bench/tbe_sweep/runs/
#   (runs/ is untracked and not ignored: it travels with the next call, whose
#   RESUME skips what it holds)
#
# SLICE: I/N (sweep.py --slice; default every configuration). ONLY: ids.
# RESUME: glob of earlier lines to skip (default bench/tbe_sweep/runs/*.jsonl).
# TOTAL: seconds this script may take (default 560); the sweep starts no
#   configuration past TOTAL - MARGIN (default 90: the largest configuration
#   and the report) seconds after the script's start.
# SMOKE=1: first the shrunk shapes of configurations 0-7 (sweep.py --shrink,
#   one run; $OUT/smoke.jsonl, no measurement): the driver and the checks on
#   this machine in a few seconds, before the slice.
# RUNS: runs a side (default 3). RUN_MS: timed ms a run (default 100).
# NO_COMPILE=1: the peer's update eager.
# BUILD: where the library is built (default build-sweep: ignored, so a warm
#   machine keeps it for the session's next call). LIB: a library to use.
# DRY=1: sweep.py --dry-run (the CPU, no nvidia-smi, no build; give LIB, and
#   PY and PYTHONPATH for an older torch): checks this script end to end.
# Files under $OUT: run.log, tbe_sweep_<slice>.jsonl (dry_<slice>.jsonl),
# smoke.jsonl, tbe_sweep.png.
set -u
cd "$(dirname "$0")/../.."
t0=$(date +%s)
OUT=${OUT:-/tmp/tbe-sweep-out}
BUILD=${BUILD:-build-sweep}
TOTAL=${TOTAL:-560}
MARGIN=${MARGIN:-90}
RESUME=${RESUME:-bench/tbe_sweep/runs/*.jsonl}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo uncommitted)}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
elapsed() { echo $(($(date +%s) - t0)); }
stamp() { echo "=== $1 ($(elapsed) s)"; }

PY=${PY:-python3}
[ -z "${DRY:-}" ] &&
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,memory.used \
    --format=csv,noheader
if [ -n "${LIB:-}" ]; then
  :
elif [ -f .sweep-carry/libembrt.so ]; then
  LIB=.sweep-carry/libembrt.so
else
  LIB=$BUILD/lib/libembrt.so
  if [ ! -f "$LIB" ]; then
    stamp "building libembrt.so (CMake, runtime half)"
    cmake -G Ninja -S . -B "$BUILD" -DEMB_ENABLE_COMPILER=OFF -DEMB_ENABLE_CUDA=ON \
      >"$OUT/build.txt" 2>&1 &&
      ninja -C "$BUILD" embrt_shared >>"$OUT/build.txt" 2>&1 ||
      { tail -n 30 "$OUT/build.txt"; exit 1; }
    rm -f "$OUT/build.txt"
  fi
fi
stamp "library $LIB"

tag=all
args=()
if [ -n "${SLICE:-}" ]; then
  args+=(--slice "$SLICE")
  tag=${SLICE/\//of}
fi
if [ -n "${ONLY:-}" ]; then
  args+=(--only "$ONLY")
  tag=only
fi
out=$OUT/tbe_sweep_$tag.jsonl
if [ -n "${DRY:-}" ]; then
  args+=(--dry-run)
  out=$OUT/dry_$tag.jsonl
fi
[ -n "${NO_COMPILE:-}" ] && args+=(--no-compile)
sweep() { # sweep.py's arguments
  PYTHONUNBUFFERED=1 PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/python \
    timeout $((TOTAL - $(elapsed) - 20)) $PY bench/tbe_sweep/sweep.py --lib "$LIB" \
    --commit "$COMMIT" "$@" 2>&1 | grep -v -i "warning"
  echo "sweep rc=${PIPESTATUS[0]}"
}
if [ -n "${SMOKE:-}" ]; then
  stamp "smoke: shrunk configurations 0-7"
  sweep --out "$OUT/smoke.jsonl" --shrink --only 0,1,2,3,4,5,6,7 --runs 1 \
    ${DRY:+--dry-run} | tail -n 17
fi
deadline=$((TOTAL - MARGIN - $(elapsed)))
stamp "sweep ($tag; no configuration started after $deadline s)"
sweep --out "$out" --resume "$RESUME" --deadline "$deadline" --runs "${RUNS:-3}" \
  --run-ms "${RUN_MS:-100}" "${args[@]}"

stamp report
$PY bench/tbe_sweep/report.py --jsonl "$RESUME" --jsonl "$out" \
  --png "$OUT/tbe_sweep.png" --worst 5
stamp done
