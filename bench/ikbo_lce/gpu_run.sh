#!/bin/bash
# One call on the GPU machine: check, sanitize, benchmark, profile, report.
#
#   STAGES="sass smoke test sanitize bench ncu f32 peers inductor" \
#     bench/ikbo_lce/gpu_run.sh
#
# Uses the binaries in $BUILD (default build-ikbo, carried from the build
# machine; rebuilt here with bench/ikbo_lce/build.sh if they do not run).
# Stage `smoke` runs one small case per configuration, each in its own
# process with a watchdog, and keeps any that fail or hang out of the later
# stages. Writes to $OUT (default ./out-ikbo): run.log (everything printed),
# sass.txt (HGMMA/spill census of every sm90a kernel and the full SASS of the
# benchmark-shape kernel), ours.jsonl, ikbo_lce.json, ikbo_lce.png,
# ncu.txt. Prints the result table last.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-ikbo}
OUT=${OUT:-out-ikbo}
STAGES=${STAGES:-"sass smoke test sanitize bench peers inductor"}
NCU_CONFIGS=${NCU_CONFIGS:-}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
export TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache TRITON_CACHE_DIR=/tmp/triton-cache
LOG="$OUT/run.log"
has() { [[ " $STAGES " == *" $1 "* ]]; }
log() { echo "== $*" | tee -a "$LOG"; }

log "$(date -u) stages: $STAGES"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee -a "$LOG"
if ! "$BUILD/ikbo_lce_test" --list >/dev/null 2>&1; then
  log "carried binaries do not run here; rebuilding"
  BUILD="$BUILD" bench/ikbo_lce/build.sh 2>&1 | tail -5 | tee -a "$LOG"
fi

if has sass; then
  log "sass census (per sm90a kernel: HGMMA, local loads/stores, TMA, stmatrix)"
  cuobjdump --dump-sass "$BUILD/ikbo_lce_sm90a.o" >/tmp/sass_all.txt 2>&1
  awk '/Function :/ {name=$3} /HGMMA/ {h[name]++} /LDL/ {l[name]++} /STL/ {s[name]++}
       /UTMALDG/ {t[name]++} /UTMASTG/ {ts[name]++} /STSM/ {sm[name]++} /MEMBAR/ {mb[name]++}
       END {for (n in h) printf "%-100s HGMMA=%d LDL=%d STL=%d UTMALDG=%d UTMASTG=%d STSM=%d MEMBAR=%d\n",
            n, h[n], l[n], s[n], t[n], ts[n], sm[n], mb[n]}' /tmp/sass_all.txt >"$OUT/sass.txt"
  awk '/Function :.*__half.*Li224ELi3ELb1E/ {p=1} p && /Function :/ && !/Li224ELi3ELb1E/ {p=0} p' \
    /tmp/sass_all.txt >>"$OUT/sass.txt"
  head -16 "$OUT/sass.txt" | sed 's/_ZN50_GLOBAL__N__[0-9a-f_]*ikbo_lce_sm90a_cu_[0-9a-f]*//' | cut -c1-160 | tee -a "$LOG"
fi

SKIP="none"
if has smoke; then
  log "smoke: one small case per configuration"
  if ! timeout 120 "$BUILD/ikbo_lce_test" --smoke --watchdog 15 </dev/null 2>&1 | tee -a "$LOG" | grep -q "cases passed" \
     || grep -qE "^(FAIL|HANG)" "$LOG"; then
    log "smoke failed: each configuration in its own process"
    while read -r name dtype cfg; do
      line=$(timeout 60 "$BUILD/ikbo_lce_test" --smoke --filter "$name" --watchdog 15 </dev/null 2>&1 | grep -E "^(PASS|FAIL|HANG)" | head -1)
      echo "$cfg: ${line:-no output}" | cut -c1-200 | tee -a "$LOG"
      [[ "$line" == PASS* ]] || SKIP="$SKIP,$cfg"
    done < <("$BUILD/ikbo_lce_test" --smoke --list | grep _smoke)
  fi
  log "configurations left out: $SKIP"
fi

if has test; then
  log "correctness"
  timeout 300 "$BUILD/ikbo_lce_test" --skip-configs "$SKIP" 2>&1 | tee -a "$LOG"
  echo "test exit: ${PIPESTATUS[0]}" | tee -a "$LOG"
fi

if has sanitize; then
  for tool in memcheck racecheck; do
    log "compute-sanitizer --tool $tool (quick cases)"
    timeout 200 compute-sanitizer --tool $tool --print-limit 20 \
      "$BUILD/ikbo_lce_test" --quick --watchdog 90 --skip-configs "$SKIP" 2>&1 | tail -25 | tee -a "$LOG"
    echo "$tool exit: ${PIPESTATUS[0]}" | tee -a "$LOG"
  done
fi

if has bench; then
  log "benchmark (ours)"
  timeout 200 "$BUILD/ikbo_lce_bench" --set "${BENCH_SET:-all}" --skip-configs "$SKIP" \
    >"$OUT/ours.jsonl" 2>>"$LOG"
  echo "bench exit: $?" | tee -a "$LOG"
  sed 's/"impl": "emb_ikbo_lce", //; s/, "flops.*//' "$OUT/ours.jsonl" | cut -c1-200 | tee -a "$LOG"
fi

if has ncu; then
  for cfg in $NCU_CONFIGS; do
    log "ncu: candidate kernel of the benchmark shape, $cfg"
    timeout 120 ncu --clock-control none -k regex:ikboLceSm90aKernel --launch-skip 1 \
      --launch-count 1 --section SpeedOfLight \
      --section WarpStateStats --section LaunchStats \
      "$BUILD/ikbo_lce_bench" --set one --config "$cfg" >>"$OUT/ncu.txt" 2>&1
    echo "ncu exit: $?" | tee -a "$LOG"
  done
  [ -f "$OUT/ncu.txt" ] && grep -E "Duration|Throughput|Pipe|Stall|Issue Slot|Warp Cycles|L2 Hit|Mem Busy|Max Bandwidth|Registers|Block Limit|Achieved|Cluster" "$OUT/ncu.txt" | cut -c1-150 | tee -a "$LOG"
fi

if has f32; then
  # f32 data: ours exact and through the conversion path (bf16, f16), and
  # the torch peers (exact f32, TF32, via bf16/f16), three runs a side
  # alternating, into ikbo_lce_f32.json.
  log "f32 data"
  for run in 1 2 3; do
    timeout 120 "$BUILD/ikbo_lce_bench" --set f32 --reps 20 2>>"$LOG" |
      sed "s/}\$/, \"run\": $run}/" >>"$OUT/f32_ours.jsonl"
    timeout 150 python3 bench/ikbo_lce/f32_peers.py --run "$run" 2>&1 |
      grep -v Warning >>"$OUT/f32_peers.jsonl"
  done
  python3 bench/ikbo_lce/f32_report.py --ours "$OUT/f32_ours.jsonl" \
    --peers "$OUT/f32_peers.jsonl" --json "$OUT/ikbo_lce_f32.json" \
    --commit "${EMB_COMMIT:-unknown}" 2>&1 | tee -a "$LOG"
fi

if has peers; then
  log "peers and report"
  IND=""
  has inductor && IND="--inductor"
  timeout 420 python3 bench/ikbo_lce/run_bench.py --ours "$OUT/ours.jsonl" \
    --out "$OUT" $IND --inductor-timeout ${INDUCTOR_TIMEOUT:-240} 2>&1 | grep -v Warning | tee -a "$LOG"
fi
log "done $(date -u)"
