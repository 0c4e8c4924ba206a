#!/bin/bash
# One call on the GPU machine for the TBE forward: builds with CMake in
# $BUILD (the runtime half, no MLIR: the GPU test, its 64-bit-position twin
# tbe_pos64, the config test, the benchmark with its tuning variants and the
# ptxas report; incremental, so a warm machine rebuilds only what changed;
# skipped when a $BUILD/bins.tar.xz of those binaries was carried instead),
# runs the config test and the GPU test (also against the 64-bit-position
# kernels), runs compute-sanitizer memcheck and racecheck on the quick test,
# counts the kernel's SASS memory instructions, times ours (all
# configurations and tuning variants) and the torch peers in the same run,
# and writes the bench/results records and the chart. Prints a short table
# last.
#
#   OUT=/tmp/tbe MERGE=bench/results/tbe_forward.json RUN=5 bench/tbe/gpu_run.sh
#   then: cp $OUT/tbe_forward.json bench/results/
#         cp $OUT/tbe_forward.png docs/kernels/
#
# To run binaries built on another machine instead (same paths, relative to
# its build folder B, configured as above):
#   tar cJf .tbe-build/bins.tar.xz -C B test/Kernels/tbe \
#     test/Kernels/tbe_pos64 test/Runtime/tbe_config bench/tbe_bench \
#     bench/tbe_sm90.o bench/tbe_sm90_ptxas.txt
# and carry .tbe-build/bins.tar.xz; it is removed once unpacked, so a later
# call on the same machine builds from the sources again.
#
# STEPS (comma list, default all but quick):
#   quick,test,memcheck,racecheck,sass,bench,regress,peers,report,ncu
# ONLY: cases (comma list) for bench and peers, default all.
# REGRESS: cases timed ours-only, auto configuration, no sweep (a check that
#   a change slowed nothing; no records), default none. REGRESS_VARIANTS=1:
#   the tuning variants too (no configuration sweep).
# PROBES=1: the bench step runs the first-access probes first (tbe_bench
#   --probes; records named probe_*).
# DEADLINE: seconds after the start past which racecheck and ncu are skipped
#   (default 10000).
# MERGE, RUN: report merges this run's records (numbered RUN) into the
#   results file MERGE (e.g. bench/results/tbe_forward.json), replacing the
#   records of the cases it measured, and draws the chart from the merge.
# COMMIT: recorded in the results (default: git's, else "uncommitted").
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/tbe-out}
BUILD=${BUILD:-.tbe-build}
STEPS=${STEPS:-test,memcheck,racecheck,sass,bench,peers,report,ncu}
ONLY=${ONLY:-}
REGRESS=${REGRESS:-}
DEADLINE=${DEADLINE:-10000}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo uncommitted)}
# Binaries built elsewhere find the CUDA libraries here.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
has() { [[ ",$STEPS," == *",$1,"* ]]; }
t0=$(date +%s)
elapsed() { echo $(($(date +%s) - t0)); }
stamp() { echo "=== $1 ($(elapsed) s)"; }
onlyArgs=()
[ -n "$ONLY" ] && onlyArgs=(--only "$ONLY")

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv,noheader
# Where CMake puts the binaries under $BUILD.
TEST=$BUILD/test/Kernels/tbe
TEST_POS64=$BUILD/test/Kernels/tbe_pos64
CONFIG_TEST=$BUILD/test/Runtime/tbe_config
BENCH=$BUILD/bench/tbe_bench
if [ -f "$BUILD/bins.tar.xz" ]; then
  # Carried, built elsewhere: paths as above, relative to $BUILD.
  tar xJf "$BUILD/bins.tar.xz" -C "$BUILD" && rm "$BUILD/bins.tar.xz"
else
  stamp "building (CMake, runtime half)"
  { cmake -G Ninja -S . -B "$BUILD" -DEMB_ENABLE_COMPILER=OFF \
    >"$OUT/configure.log" 2>&1 &&
    ninja -C "$BUILD" embrt-test-tbe_config embrt-kernel-test-tbe \
      embrt-kernel-test-tbe-pos64 emb-bench-tbe emb-bench-tbe-ptxas \
      >"$OUT/build.log" 2>&1; } ||
    { tail -n 30 "$OUT/configure.log" "$OUT/build.log"; exit 1; }
  # Registers, spills and stack frames of the library's TBE kernels.
  grep -hE "Used|spill" "$BUILD/bench/tbe_sm90_ptxas.txt" | sort | uniq -c |
    sort -rn | head -n 12
fi

if has test; then
  stamp "config test"
  "$CONFIG_TEST" 2>&1 | tail -n 1
  if has quick; then
    timeout 120 "$TEST" --quick >"$OUT/test.txt" 2>&1
    echo "quick rc=$?"
  fi
  stamp "GPU test (full)"
  timeout 120 "$TEST" >>"$OUT/test.txt" 2>&1
  echo "full rc=$?"
  if [ -x "$TEST_POS64" ]; then
    stamp "GPU test (full), 64-bit-position kernels"
    echo "--- tbe_pos64" >>"$OUT/test.txt"
    timeout 120 "$TEST_POS64" >>"$OUT/test.txt" 2>&1
    echo "full pos64 rc=$?"
  fi
  grep -vE "^@" "$OUT/test.txt" | head -n 30
fi

sanitize() { # tool
  echo "--- $1" >>"$OUT/sanitizer.txt"
  timeout 100 compute-sanitizer --tool "$1" --error-exitcode 9 \
    "$TEST" --quick >>"$OUT/sanitizer.txt" 2>&1
  echo "compute-sanitizer $1 rc=$?"
}
if has memcheck; then
  stamp memcheck
  sanitize memcheck
fi

if has sass; then
  stamp sass
  cuobjdump -sass "$BUILD/bench/tbe_sm90.o" >/tmp/tbe_sass.txt 2>&1
  awk '/Function :/ {f=$3} /LDGSTS/ {g[f]++} /LDG/ {l[f]++} /LDL|STL/ {s[f]++}
       /LDS/ {d[f]++} /STG/ {t[f]++} END {for (k in l) printf "%s LDGSTS=%d LDG=%d LDS=%d STG=%d local=%d\n",
       substr(k, 1, 90), g[k], l[k], d[k], t[k], s[k]}' /tmp/tbe_sass.txt |
    sed 's/_ZN[0-9]*_GLOBAL__N__[0-9a-f_]*tbe_cu_[0-9a-f]*16//'
fi

if has bench; then
  stamp "bench (ours)"
  timeout 150 "$BENCH" --out "$OUT/ours.jsonl" "${onlyArgs[@]}" \
    ${PROBES:+--probes} >/dev/null
  echo "bench rc=$?"
fi

if has regress && [ -n "$REGRESS" ]; then
  stamp "regression check (ours only, no sweep)"
  regressArgs=(--no-sweep)
  [ -n "${REGRESS_VARIANTS:-}" ] && regressArgs=(--no-configs)
  timeout 90 "$BENCH" --out "$OUT/regress.jsonl" --only "$REGRESS" \
    "${regressArgs[@]}" >/dev/null
  echo "regress rc=$?"
  python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "config" in r:
        print("regress %-22s %-16s %-14s %9.4f ms %7.0f GB/s %s" %
              (r["case"], r["impl"][-16:], r["config"], r["ms"], r["gbps"],
               r["check"]))
' "$OUT/regress.jsonl"
fi

if has peers; then
  stamp "peers (torch)"
  PYTHONUNBUFFERED=1 timeout 150 python3 bench/tbe/peers.py \
    --out "$OUT/peers.jsonl" "${onlyArgs[@]}" >"$OUT/peers.txt" 2>&1
  echo "peers rc=$?"
  grep -v "^{" "$OUT/peers.txt" | head -n 20
  rm -f "$OUT/peers.txt"
fi

mergeArgs=()
[ -n "${MERGE:-}" ] && mergeArgs=(--merge "$MERGE")
[ -n "${RUN:-}" ] && mergeArgs+=(--run "$RUN")
if has report; then
  stamp report
  python3 bench/tbe/report.py --ours "$OUT/ours.jsonl" --peers "$OUT/peers.jsonl" \
    --json "$OUT/tbe_forward.json" --png "$OUT/tbe_forward.png" \
    --commit "$COMMIT" "${mergeArgs[@]}"
fi

# Optional, after the results are written: skipped past DEADLINE.
if has racecheck; then
  if [ "$(elapsed)" -lt "$DEADLINE" ]; then
    stamp racecheck
    sanitize racecheck
  else
    echo "racecheck skipped: past the deadline"
  fi
fi
if has memcheck || has racecheck; then
  grep -E "^---|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Hazard|PASSED|FAILED" \
    "$OUT/sanitizer.txt" | sort | uniq -c | head -n 12
fi

if has ncu; then
  if [ "$(elapsed)" -lt "$DEADLINE" ]; then
    stamp "ncu (one launch each: speed of light, pipes, DRAM bytes, L2 hits)"
    for c in ${NCU_CASES:-tbe_f32_zipf}; do
      echo "--- $c"
      timeout 60 ncu --clock-control none -k regex:tbeForward --launch-skip 2 \
        --launch-count 1 --section SpeedOfLight \
        --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,regex:sm__inst_executed_pipe_.*avg.pct_of_peak_sustained_active \
        "$BENCH" --only "$c" --no-sweep >/tmp/ncu.txt 2>&1
      grep -E "Duration|Throughput|Busy|dram__|lts__|Issue|Ipc|Hit|ERR" /tmp/ncu.txt |
        head -n 24
      grep -E "pipe_" /tmp/ncu.txt | sort -k3 -g -r | head -n 8
    done
  else
    echo "ncu skipped: past the deadline"
  fi
fi

if has report && [ -f "$OUT/tbe_forward.json" ]; then
  python3 bench/tbe/report.py --summary "$OUT/tbe_forward.json" \
    ${RUN:+--run "$RUN"}
fi
stamp done
