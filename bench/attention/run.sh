#!/bin/bash
# One call on the GPU machine for the attention kernels: builds (unless the
# binaries were carried), checks correctness, runs compute-sanitizer once,
# dumps the SASS matrix-instruction counts, times ours and the torch peers in
# the same run, and writes bench/results-style JSON and a chart. Prints a
# short table last.
#
#   OUT=/tmp/attn bench/attention/run.sh
#
# The variables every family's run.sh has: bench/common/env.sh. The binaries
# are CMake's, in $BUILD (built here unless they run already, e.g. carried):
# test/Kernels/attention, bench/attention_bench, and the ptxas reports and
# the sm_90a object of `ninja emb-bench-attention-ptxas` in bench/.
# STEPS (default all but f32): smoke,test,sanitize,sass,ncu,bench,
# peers,report,f32 (f32 data: ours through the conversion path in bf16 and
# f16 beside native bf16, and the torch peers in f32 and through bf16;
# f32_report.py writes ikbo_attention_f32.json)
# BASE_BUILD: a second build folder (e.g. the previous commit's, carried)
# whose MAIN_CONFIGS are timed in every run beside ours, alternating; ab.py
# prints new / base last.
set -u
cd "$(dirname "$0")/../.."
source bench/common/env.sh attention smoke,test,sanitize,sass,ncu,bench,peers,report
PROFILE_CONFIG=${PROFILE_CONFIG:-wgmma_d128_pp}
TEST=$BUILD/test/Kernels/attention
BENCH=$BUILD/bench/attention_bench
bench_log_all

bench_gpu
if ! "$TEST" --list >/dev/null 2>&1 || [ ! -x "$BENCH" ]; then
  bench_build embrt-kernel-test-attention emb-bench-attention \
    emb-bench-attention-ptxas || exit 1
  grep -E "error|warning" "$BUILD"/bench/attention_sm90*_ptxas.txt || true
fi

SKIP=""
EXCLUDE=(--exclude "${NEW_CONFIG:-kvfirst}")
if has smoke; then
  stamp smoke
  # One small case of each path first: a hang or a crash (a lost context,
  # rc 3) of the wgmma path must not take the rest of the call with it;
  # wrong answers are reported by the test below. The newest variant
  # (NEW_CONFIG) is smoked apart, so that it can be left out alone.
  timeout 60 "$TEST" --quick "${EXCLUDE[@]}" >"$OUT/test.txt" 2>&1
  rc=$?
  tail -n 14 "$OUT/test.txt"
  echo "smoke rc=$rc"
  if [ $rc -ge 2 ]; then
    echo "the smoke test hung or crashed: skipping the wgmma path below"
    SKIP=--skip-wgmma
  fi
  timeout 30 "$TEST" --quick --filter "${NEW_CONFIG:-kvfirst}" \
    >>"$OUT/test.txt" 2>&1
  rc=$?
  tail -n 3 "$OUT/test.txt"
  echo "smoke ${NEW_CONFIG:-kvfirst} rc=$rc"
  if [ $rc -lt 2 ]; then
    EXCLUDE=()
  else
    echo "${NEW_CONFIG:-kvfirst} hung or crashed: leaving it out below"
  fi
fi

if has test; then
  stamp test
  echo "--- full test" >>"$OUT/test.txt"
  timeout 240 "$TEST" $SKIP "${EXCLUDE[@]}" >>"$OUT/test.txt" 2>&1
  echo "test rc=$?"
  grep -E "^FAIL" "$OUT/test.txt" | head -n 25
  tail -n 2 "$OUT/test.txt"
fi

if has sanitize; then
  stamp sanitize
  for tool in memcheck racecheck; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 \
      "$TEST" --quick $SKIP "${EXCLUDE[@]}" \
      >>"$OUT/sanitizer.txt" 2>&1
    echo "compute-sanitizer $tool rc=$?"
  done
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error|Hazard" "$OUT/sanitizer.txt" |
    sort | uniq -c | head -n 12
fi

if has sass; then
  stamp sass
  cuobjdump -sass "$TEST" >"$OUT/sass.full" 2>&1
  awk '/Function :/ {f=$3} /HGMMA/ {h[f]++} /HMMA/ {m[f]++}
       /MUFU.EX2/ {e[f]++} /LDL|STL/ {l[f]++}
       END {for (f in h) print "HGMMA", h[f], f;
            for (f in m) print "HMMA", m[f], f;
            for (f in e) print "MUFU.EX2", e[f], f;
            for (f in l) print "LDL/STL", l[f], f}' "$OUT/sass.full" |
    sort >"$OUT/profile.txt"
  cut -c1-150 "$OUT/profile.txt" | grep -v "MUFU"
  # The order of the matrix issues (H), their waits (D1: all but the newest
  # group, D0: all), barriers (B sync, A arrive) and exponentials (X) in the
  # f16 Dh-128 pingpong kernel: where the main loop's X run stands against
  # the D0 that waits for O += P V says whether a consumer's softmax
  # overlaps its own product (bench/attention/NOTES.md, v4-v6).
  awk '/Function :/ {p = (index($0, "attentionWgmmaKernelI6__halfLi128ELi128ELb1ELb0EEEv") > 0)}
       p && /HGMMA|DEPBAR|MUFU.EX2|BAR.SYNC|BAR.ARV/ {
         t = "A"
         if ($0 ~ /HGMMA/) t = "H"
         else if ($0 ~ /MUFU/) t = "X"
         else if ($0 ~ /gsb0, 0x1/) t = "D1"
         else if ($0 ~ /gsb0, 0x0/) t = "D0"
         else if ($0 ~ /BAR.SYNC/) t = "B"
         if (t == last) n++
         else { if (last != "") printf "%s%s ", last, (n > 1 ? n : ""); last = t; n = 1 }
       }
       END { printf "%s%s\n", last, (n > 1 ? n : "") }' "$OUT/sass.full" | sed 's/^/pingpong kernel order: /'

  # The f16, head dim 128, 128-key pingpong kernel in full.
  awk '/Function :/ {p = (index($0, "attentionWgmmaKernelI6__halfLi128ELi128ELb1") > 0)}
       p' "$OUT/sass.full" >>"$OUT/profile.txt"
  rm -f "$OUT/sass.full"
fi

if has ncu; then
  stamp ncu
  if [ ${#EXCLUDE[@]} -gt 0 ] && [[ "$PROFILE_CONFIG" == *"${NEW_CONFIG:-kvfirst}"* ]]; then
    PROFILE_CONFIG=wgmma_d128_pp
  fi
  # The main kernel at each of NCU_LKS, then the plan kernel (its duration
  # is part of every call's time).
  for lk in ${NCU_LKS:-512 2048}; do
    echo "--- ncu $PROFILE_CONFIG uniform Lk $lk" >>"$OUT/ncu.txt"
    timeout 120 ncu --clock-control none --kernel-name regex:attentionWgmma \
      --launch-skip 3 --launch-count 1 --section SpeedOfLight \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section WarpStateStats --section SchedulerStats \
      --metrics "regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$" \
      "$BENCH" --uniform --lk "$lk" --reps 3 \
      --config "$PROFILE_CONFIG" >>"$OUT/ncu.txt" 2>&1
    echo "ncu Lk $lk rc=$?"
  done
  echo "--- ncu plan kernel" >>"$OUT/ncu.txt"
  timeout 60 ncu --clock-control none --kernel-name regex:attentionPlan \
    --launch-skip 3 --launch-count 1 --section SpeedOfLight \
    "$BENCH" --uniform --lk 512 --reps 3 \
    --config "$PROFILE_CONFIG" >>"$OUT/ncu.txt" 2>&1
  echo "ncu plan rc=$?"
  grep -E "^--- ncu|Duration|Throughput|Pipe|Issue Slots Busy|Eligible|Warp Cycles Per Issued" "$OUT/ncu.txt" | head -n 60
  # Stall reasons: warps stalled on each reason per issued instruction
  # (their sum is the warp cycles per issued instruction), those >= 0.05.
  awk '/^--- ncu/ {print} /issue_stalled_.*_per_issue_active/ {
         sub(/smsp__average_warps_issue_stalled_/, ""); sub(/_per_issue_active.ratio/, "")
         if ($NF + 0 >= 0.05) print "    stall", $1, $NF}' "$OUT/ncu.txt" | head -n 40
  cat "$OUT/ncu.txt" >>"$OUT/profile.txt"
  rm -f "$OUT/ncu.txt"
fi

# Timing: RUNS runs of ours and the peers, alternating, in f16 (the
# configs in F16_CONFIGS, every peer); then the same in bf16 and with masked
# keys for the configs in MAIN_CONFIGS and the peers of record. report.py takes each
# side's median over the runs and keeps every run.
RUNS=${RUNS:-3}
MAIN_CONFIGS=${MAIN_CONFIGS:-wgmma_d128_pp,wgmma_d128_pp_kvfirst}
F16_CONFIGS=${F16_CONFIGS:-wgmma_d128_pp,wgmma_d128_pp_kvfirst,wgmma_d128_n160_pp,wgmma_d128,mma_d128}
RECORD_PEERS=torch_sdpa_grouped_cudnn_native,torch_sdpa_grouped_default_native,torch_varlen_attn
for r in $(seq 1 "$RUNS"); do
  if has bench; then
    stamp "bench run $r"
    timeout 120 "$BENCH" $SKIP "${EXCLUDE[@]}" --run "$r" \
      --config "$F16_CONFIGS" --out "$OUT/ours_f16_$r.jsonl" >/dev/null
    echo "bench f16 rc=$?"
    if [ -n "${BASE_BUILD:-}" ]; then
      timeout 120 "$BASE_BUILD/bench/attention_bench" --run "$r" \
        --config "$MAIN_CONFIGS" --out "$OUT/base_f16_$r.jsonl" >/dev/null
      echo "base f16 rc=$?"
    fi
  fi
  if has peers; then
    stamp "peers run $r"
    PYTHONUNBUFFERED=1 timeout 200 python3 bench/attention/peers.py --run "$r" \
      --out "$OUT/peers_f16_$r.jsonl" >/dev/null
    echo "peers f16 rc=$?"
  fi
done
for r in $(seq 1 "$RUNS"); do
  if has bench; then
    stamp "bench bf16 and masked, run $r"
    timeout 60 "$BENCH" $SKIP --config "$MAIN_CONFIGS" \
      --dtype bf16 --run "$r" --out "$OUT/ours_bf16_$r.jsonl" >/dev/null
    echo "bench bf16 rc=$?"
    timeout 60 "$BENCH" $SKIP --config "$MAIN_CONFIGS" \
      --masked --run "$r" --out "$OUT/ours_masked_$r.jsonl" >/dev/null
    echo "bench masked rc=$?"
    if [ -n "${BASE_BUILD:-}" ]; then
      timeout 60 "$BASE_BUILD/bench/attention_bench" --config "$MAIN_CONFIGS" \
        --dtype bf16 --run "$r" --out "$OUT/base_bf16_$r.jsonl" >/dev/null
      timeout 60 "$BASE_BUILD/bench/attention_bench" --config "$MAIN_CONFIGS" \
        --masked --run "$r" --out "$OUT/base_masked_$r.jsonl" >/dev/null
      echo "base bf16 and masked rc=$?"
    fi
  fi
  if has peers; then
    PYTHONUNBUFFERED=1 timeout 120 python3 bench/attention/peers.py --run "$r" \
      --dtype bf16 --only "$RECORD_PEERS" --out "$OUT/peers_bf16_$r.jsonl" \
      >/dev/null
    echo "peers bf16 rc=$?"
  fi
done
cat "$OUT"/ours_*.jsonl >"$OUT/ours.jsonl" 2>/dev/null
cat "$OUT"/peers_*.jsonl >"$OUT/peers.jsonl" 2>/dev/null
# (base.jsonl only with BASE_BUILD: at most 8 files come back from a call)
[ -n "${BASE_BUILD:-}" ] && cat "$OUT"/base_*.jsonl >"$OUT/base.jsonl" 2>/dev/null
rm -f "$OUT"/ours_*.jsonl "$OUT"/peers_*.jsonl "$OUT"/base_*.jsonl

if has report; then
  stamp report
  python3 bench/attention/report.py --ours "$OUT/ours.jsonl" \
    --peers "$OUT/peers.jsonl" --json "$OUT/ikbo_attention.json" \
    --png "$OUT/ikbo_attention.png" --commit "$COMMIT"
fi
if has f32; then
  # Uniform users, RUNS runs a side, alternating; the peer of record rounds
  # to bf16 inside its timed call as ours does.
  F32_LKS=${F32_LKS:-512 2048 8192}
  LKARGS=""
  for lk in $F32_LKS; do LKARGS="$LKARGS --lk $lk"; done
  for r in $(seq 1 "$RUNS"); do
    stamp "f32 run $r"
    for ct in bf16 f16; do
      timeout 60 "$BENCH" --uniform --dtype f32 --compute $ct \
        --config "$MAIN_CONFIGS" $LKARGS --run "$r" >>"$OUT/f32_ours.jsonl"
    done
    timeout 60 "$BENCH" --uniform --dtype bf16 \
      --config "$MAIN_CONFIGS" $LKARGS --run "$r" >>"$OUT/f32_ours.jsonl"
    # The exact f32 path (SIMT) at the shortest Lk only: it is slow.
    timeout 60 "$BENCH" --uniform --dtype f32 --config simt \
      --lk 512 --reps 5 --run "$r" >>"$OUT/f32_ours.jsonl"
    echo "bench f32 rc=$?"
    for ct in "" "--compute bf16"; do
      PYTHONUNBUFFERED=1 timeout 150 python3 bench/attention/peers.py --run "$r" \
        --dtype f32 $ct $LKARGS \
        --only torch_sdpa_grouped_cudnn_native,torch_sdpa_grouped_default_native,torch_varlen_attn \
        >>"$OUT/f32_peers.jsonl"
      echo "peers f32 $ct rc=$?"
    done
  done
  python3 bench/attention/f32_report.py --ours "$OUT/f32_ours.jsonl" \
    --peers "$OUT/f32_peers.jsonl" --json "$OUT/ikbo_attention_f32.json" \
    --commit "$COMMIT"
  rm -f "$OUT/f32_ours.jsonl" "$OUT/f32_peers.jsonl"
fi
if [ -s "$OUT/base.jsonl" ]; then # BASE_BUILD given and timed
  stamp "A/B against $BASE_BUILD"
  python3 bench/attention/ab.py --base "$OUT/base.jsonl" --new "$OUT/ours.jsonl"
fi
stamp done
