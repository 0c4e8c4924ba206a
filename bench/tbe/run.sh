#!/bin/bash
# One call on the GPU machine for the TBE forward: builds with CMake in
# $BUILD (bench/common/env.sh: the GPU test, its 64-bit-position twin
# tbe_pos64, the config test, the benchmark with its tuning variants and the
# ptxas report; incremental, so a warm machine rebuilds only what changed;
# skipped when a $BUILD/bins.tar.xz of those binaries was carried instead),
# runs the config test and the GPU test (also against the 64-bit-position
# kernels), runs compute-sanitizer memcheck and racecheck on the quick test,
# counts the kernel's SASS memory instructions, times ours (all
# configurations and tuning variants) and the torch peers in the same run,
# and writes the bench/results records and the chart. Prints a short table
# last. The step graphs runs bench/tbe/graphs.sh (CUDA graphs; its own
# results file).
#
#   OUT=/tmp/tbe MERGE=bench/results/tbe_forward.json RUN=5 bench/tbe/run.sh
#   then: cp $OUT/tbe_forward.json bench/results/
#         cp $OUT/tbe_forward.png docs/kernels/
#
# To run binaries built on another machine instead (same paths, relative to
# its build folder B, configured as above):
#   tar cJf build-bench/bins.tar.xz -C B test/Kernels/tbe \
#     test/Kernels/tbe_pos64 test/Runtime/tbe_config bench/tbe_bench \
#     bench/tbe_sm90.o bench/tbe_sm90_ptxas.txt
# and carry build-bench/bins.tar.xz; it is removed once unpacked, so a later
# call on the same machine builds from the sources again.
#
# The variables every family's run.sh has: bench/common/env.sh.
# STEPS (default all but quick and graphs):
#   quick,test,memcheck,racecheck,sass,bench,regress,peers,report,ncu,graphs
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
set -u
cd "$(dirname "$0")/../.."
source bench/common/env.sh tbe test,memcheck,racecheck,sass,bench,peers,report,ncu
REGRESS=${REGRESS:-}
bench_log_all

bench_gpu
# Where CMake puts the binaries under $BUILD.
TEST=$BUILD/test/Kernels/tbe
TEST_POS64=$BUILD/test/Kernels/tbe_pos64
CONFIG_TEST=$BUILD/test/Runtime/tbe_config
BENCH=$BUILD/bench/tbe_bench
if [ -f "$BUILD/bins.tar.xz" ]; then
  # Carried, built elsewhere: paths as above, relative to $BUILD.
  tar xJf "$BUILD/bins.tar.xz" -C "$BUILD" && rm "$BUILD/bins.tar.xz"
else
  bench_build embrt-test-tbe_config embrt-kernel-test-tbe \
    embrt-kernel-test-tbe-pos64 emb-bench-tbe emb-bench-tbe-ptxas || exit 1
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
  bench_sanitize "$1" 100 "$1" "$TEST" --quick
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
if bench_late racecheck; then
  stamp racecheck
  sanitize racecheck
fi
if has memcheck || has racecheck; then
  bench_sanitizer_summary
fi

if bench_late ncu; then
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
fi

if has report && [ -f "$OUT/tbe_forward.json" ]; then
  python3 bench/tbe/report.py --summary "$OUT/tbe_forward.json" \
    ${RUN:+--run "$RUN"}
fi

# CUDA graphs (bench/tbe/graphs.sh: its own build targets, tests and
# results file, tbe_graphs.json, under $OUT/graphs).
if has graphs; then
  stamp "CUDA graphs (bench/tbe/graphs.sh)"
  OUT=$OUT/graphs bash bench/tbe/graphs.sh
fi
stamp done
