#!/bin/bash
# One call on the GPU machine: check, sanitize, benchmark, profile, report.
#
#   STEPS=sass,smoke,test,sanitize,bench,ncu,f32,peers,inductor \
#     bench/ikbo_lce/run.sh
#
# The variables every family's run.sh has: bench/common/env.sh. Uses CMake's
# binaries in $BUILD (test/Kernels/ikbo_lce, bench/ikbo_lce_bench, and the
# sm_90a object and ptxas reports of `ninja emb-bench-ikbo-lce-ptxas` in
# bench/; carried from the build machine, or built here if they do not run).
# STEPS (default sass,smoke,test,sanitize,bench,peers,inductor; also ncu
# with NCU_CONFIGS, f32, and heldout: bench/ikbo_lce/heldout.sh, FBGEMM's
# held-apart shapes, under $OUT/heldout). Step `smoke` runs one small case
# per configuration, each in its own process with a watchdog, and keeps any
# that fail or hang out of the later steps. Writes to $OUT: run.log
# (everything printed), sass.txt (HGMMA/spill census of every sm90a kernel
# and the full SASS of the benchmark-shape kernel), ours.jsonl,
# ikbo_lce.json, ikbo_lce.png, ncu.txt. Prints the result table last.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/common/env.sh ikbo_lce sass,smoke,test,sanitize,bench,peers,inductor
NCU_CONFIGS=${NCU_CONFIGS:-}
export TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache TRITON_CACHE_DIR=/tmp/triton-cache
TEST=$BUILD/test/Kernels/ikbo_lce
BENCH=$BUILD/bench/ikbo_lce_bench
log() { echo "== $*" | tee -a "$LOG"; }

log "$(date -u) steps: $STEPS"
bench_gpu 2>&1 | tee -a "$LOG"
if ! "$TEST" --list >/dev/null 2>&1 || [ ! -x "$BENCH" ]; then
  log "carried binaries do not run here; rebuilding"
  bench_build embrt-kernel-test-ikbo-lce emb-bench-ikbo-lce \
    emb-bench-ikbo-lce-ptxas 2>&1 | tail -5 | tee -a "$LOG"
  grep -E "error|warning|spill stores" "$BUILD"/bench/ikbo_lce_sm90*_ptxas.txt |
    sort | uniq -c | tee -a "$LOG"
fi

if has sass; then
  log "sass census (per sm90a kernel: HGMMA, local loads/stores, TMA, stmatrix)"
  cuobjdump --dump-sass "$BUILD/bench/ikbo_lce_sm90a.o" >/tmp/sass_all.txt 2>&1
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
  if ! timeout 120 "$TEST" --smoke --watchdog 15 </dev/null 2>&1 | tee -a "$LOG" | grep -q "cases passed" \
     || grep -qE "^(FAIL|HANG)" "$LOG"; then
    log "smoke failed: each configuration in its own process"
    while read -r name dtype cfg; do
      line=$(timeout 60 "$TEST" --smoke --filter "$name" --watchdog 15 </dev/null 2>&1 | grep -E "^(PASS|FAIL|HANG)" | head -1)
      echo "$cfg: ${line:-no output}" | cut -c1-200 | tee -a "$LOG"
      [[ "$line" == PASS* ]] || SKIP="$SKIP,$cfg"
    done < <("$TEST" --smoke --list | grep _smoke)
  fi
  log "configurations left out: $SKIP"
fi

if has test; then
  log "correctness"
  timeout 300 "$TEST" --skip-configs "$SKIP" 2>&1 | tee -a "$LOG"
  echo "test exit: ${PIPESTATUS[0]}" | tee -a "$LOG"
fi

if has sanitize; then
  for tool in memcheck racecheck; do
    log "compute-sanitizer --tool $tool (quick cases)"
    timeout 200 compute-sanitizer --tool $tool --print-limit 20 \
      "$TEST" --quick --watchdog 90 --skip-configs "$SKIP" 2>&1 | tail -25 | tee -a "$LOG"
    echo "$tool exit: ${PIPESTATUS[0]}" | tee -a "$LOG"
  done
fi

if has bench; then
  log "benchmark (ours)"
  timeout 200 "$BENCH" --set "${BENCH_SET:-all}" --skip-configs "$SKIP" \
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
      "$BENCH" --set one --config "$cfg" >>"$OUT/ncu.txt" 2>&1
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
    timeout 120 "$BENCH" --set f32 --reps 20 2>>"$LOG" |
      sed "s/}\$/, \"run\": $run}/" >>"$OUT/f32_ours.jsonl"
    timeout 150 python3 bench/ikbo_lce/f32_peers.py --run "$run" 2>&1 |
      grep -v Warning >>"$OUT/f32_peers.jsonl"
  done
  python3 bench/ikbo_lce/f32_report.py --ours "$OUT/f32_ours.jsonl" \
    --peers "$OUT/f32_peers.jsonl" --json "$OUT/ikbo_lce_f32.json" \
    --commit "$COMMIT" 2>&1 | tee -a "$LOG"
fi

if has peers; then
  log "peers and report"
  IND=""
  has inductor && IND="--inductor"
  timeout 420 python3 bench/ikbo_lce/run_bench.py --ours "$OUT/ours.jsonl" \
    --out "$OUT" --commit "$COMMIT" $IND --inductor-timeout ${INDUCTOR_TIMEOUT:-240} 2>&1 | grep -v Warning | tee -a "$LOG"
fi
if has heldout; then
  log "held-apart shapes (bench/ikbo_lce/heldout.sh)"
  OUT=$OUT/heldout bash bench/ikbo_lce/heldout.sh 2>&1 | tee -a "$LOG"
fi
log "done $(date -u)"
