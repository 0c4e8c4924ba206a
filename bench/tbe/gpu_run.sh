#!/bin/bash
# One call on the GPU machine for the TBE forward: builds (unless the binaries
# were carried in $BUILD), runs the config test and the GPU test, runs
# compute-sanitizer memcheck and racecheck on the quick test, counts the
# kernel's SASS memory instructions, times ours (all configurations and
# tuning variants) and the torch peers in the same run, and writes the
# bench/results records and the chart. Prints a short table last.
#
#   OUT=/tmp/tbe bench/tbe/gpu_run.sh
#   then: cp $OUT/tbe_forward.json bench/results/
#         cp $OUT/tbe_forward.png docs/kernels/
#
# STEPS (comma list, default all): test,sanitize,sass,bench,ncu,peers,report
# COMMIT: recorded in the results (default: git's, else "uncommitted").
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/tbe-out}
BUILD=${BUILD:-.tbe-build}
STEPS=${STEPS:-test,sanitize,sass,bench,ncu,peers,report}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo uncommitted)}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
has() { [[ ",$STEPS," == *",$1,"* ]]; }
t0=$(date +%s)
stamp() { echo "=== $1 ($(($(date +%s) - t0)) s)"; }

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv,noheader
if ! "$BUILD/tbe_config" >/dev/null 2>&1 || [ ! -x "$BUILD/tbe_bench" ]; then
  stamp "building here"
  BUILD=$BUILD bench/tbe/build.sh || exit 1
fi

if has test; then
  stamp "config test"
  "$BUILD/tbe_config" 2>&1 | tail -n 1
  stamp "GPU test (quick, then full)"
  timeout 120 "$BUILD/tbe_test" --quick >"$OUT/test.txt" 2>&1
  echo "quick rc=$?"
  timeout 240 "$BUILD/tbe_test" >>"$OUT/test.txt" 2>&1
  echo "full rc=$?"
  grep -vE "^@" "$OUT/test.txt" | head -n 30
fi

if has sanitize; then
  stamp sanitize
  for tool in memcheck racecheck; do
    echo "--- $tool" >>"$OUT/sanitizer.txt"
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 \
      "$BUILD/tbe_test" --quick >>"$OUT/sanitizer.txt" 2>&1
    echo "compute-sanitizer $tool rc=$?"
  done
  grep -E "^---|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Hazard|PASSED|FAILED" \
    "$OUT/sanitizer.txt" | sort | uniq -c | head -n 12
fi

if has sass; then
  stamp sass
  cuobjdump -sass "$BUILD/obj/tbe.o" >/tmp/tbe_sass.txt 2>&1
  awk '/Function :/ {f=$3} /LDGSTS/ {g[f]++} /LDG/ {l[f]++} /LDL|STL/ {s[f]++}
       /LDS/ {d[f]++} /STG/ {t[f]++} END {for (k in l) printf "%s LDGSTS=%d LDG=%d LDS=%d STG=%d local=%d\n",
       substr(k, 1, 80), g[k], l[k], d[k], t[k], s[k]}' /tmp/tbe_sass.txt
fi

if has bench; then
  stamp "bench (ours)"
  timeout 300 "$BUILD/tbe_bench" --out "$OUT/ours.jsonl" >/dev/null
  echo "bench rc=$?"
fi

if has ncu; then
  stamp "ncu (one launch each: speed of light, pipes, DRAM bytes, L2 hits)"
  for c in tbe_f16 tbe_f32 tbe_f32_zipf ebag_mean_d32_l1; do
    echo "--- $c"
    timeout 120 ncu --clock-control none -k regex:tbeForward --launch-skip 2 \
      --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct \
      "$BUILD/tbe_bench" --only $c --no-sweep 2>&1 |
      grep -E "Duration|Throughput|Busy|Pipe|dram__|lts__|Issue|Ipc" | head -n 16
  done
fi

if has peers; then
  stamp "peers (torch)"
  PYTHONUNBUFFERED=1 timeout 300 python3 bench/tbe/peers.py \
    --out "$OUT/peers.jsonl" >"$OUT/peers.txt" 2>&1
  echo "peers rc=$?"
  grep -v "^{" "$OUT/peers.txt" | head -n 20
  rm -f "$OUT/peers.txt"
fi

if has report; then
  stamp report
  python3 bench/tbe/report.py --ours "$OUT/ours.jsonl" --peers "$OUT/peers.jsonl" \
    --json "$OUT/tbe_forward.json" --png "$OUT/tbe_forward.png" --commit "$COMMIT"
fi
stamp done
