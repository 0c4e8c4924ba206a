#!/usr/bin/env bash
# The end-to-end ranking model with its 64 pooled tables at int4, on the GPU
# machine in one call (docs/benchmarks.md, "End to end: the ranking model",
# "Tables at int4"): emb's int4 model, emb's f16-table model and the
# hand-optimised torch model over packed int4 tables under torch.compile,
# each checked, RUNS runs a side. From the repository root:
#
#   STEPS=ranking_int4 bench/e2e/run.sh    (or bench/e2e/ranking_int4.sh alone)
#
# Needs .aot/ranking_model.{o,h} (the f16-table model),
# .aot/ranking_model_int4.{o,h} and .aot/ranking_stage_lookups_int4.{o,h}
# (tools/dev/aot-examples.sh, where MLIR is; carry .aot), CUDA, PyTorch 2.x
# and Triton.
#
# The int4 model is examples/ranking_model.mlir through emb-raise, emb-ikbo,
# emb-batch-tables and emb-quantize-tables{precision=int4
# arguments=packed}: each pooled table is an argument of packed int4 rows
# (FBGEMM's IntNBit rows, 80 bytes a row of 128), quantized once by
# `ranking.py gen` (embrtEncodeRow's arithmetic, the bytes emb's
# quantize_table writes: `ranking.py check-int4`), so no quantization is in
# the timed call. The history's table stays f16 on every side (its lookup is
# not an emb.tbe).
#
# 1. In the background: the runtime-only build of the three runners, and the
#    Inductor compile of the torch peer (ranking.py warm --variant
#    hand_int4, filling TORCHINDUCTOR_CACHE_DIR).
# 2. Meanwhile the inputs (ranking.py gen --int4; shared with ranking.sh);
#    once the build is done, the packed rows against emb's quantize_table
#    (ranking.py check-int4: equal bytes).
# 3. Then nothing else on the GPU: emb's int4 and f16-table models
#    alternately, RUNS runs each (`--repeat 30`: the median of at least 30
#    direct calls and 100 ms, then the same of CUDA graph replays, events, L2
#    flushed before each; the first run writes the outputs); the int4
#    lookups stage on the CPU and on the device (`--output-dir`); with
#    CPU_WHOLE=1 the whole int4 model on the CPU too (minutes).
# 4. ranking.py bench-int4: emb's int4 output against the model run eager on
#    the dequantised tables (f16 tolerances) and against emb's f16-table
#    output (at most the model's own quantization error, eager f16 against
#    eager dequantised, plus f16 tolerances); the lookups CPU against device
#    (at most 1 f16 ulp); the torch peer's lookups (eager) against emb's
#    on the device (f16 tolerances: two decoders of the same rows); then the
#    torch peer compiled (from the cache), checked against emb's output and
#    the dequantised model's, and timed RUNS times (do_bench).
# 5. $OUT/e2e_ranking_int4.json (ranking.py report-int4: emb's int4 model
#    against the f16-table model and against the torch peer, direct calls
#    and CUDA graph replays; copy it to bench/results/) and the table.
#
# The variables every family's run.sh has: bench/common/env.sh. Knobs: JOBS
# (ninja -j, 8), WARM_TIMEOUT (270 s), DATA (/tmp/emb-ranking-data), SEED
# (13), CPU_WHOLE (0), PREBUILT (1: $BUILD already holds bin/emb-run-aot-<model>
# for the three models and lib/libembrt.so, built from the same .aot where
# MLIR is and carried; step 1 then only checks them), PREPARE_ONLY (1: stop
# after steps 1 and 2, so that a second call on the same machine, which finds
# the build, the compile cache and the inputs, times alone). Without a GPU, the same steps on the small16
# twin (a dry run of the scripts; records marked dry_run): DEVICE=cpu
# RANKING_SHAPE=small16 RANKING_DEVICE=cpu CMAKE_ARGS=-DEMB_ENABLE_CUDA=OFF
# AOT=DIR, DIR from `bench/e2e/ranking_int4_compile.sh build/bin/emb-compile
# DIR small16 cpu`.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/common/env.sh e2e/ranking_int4 ""
DATA=${DATA:-/tmp/emb-ranking-data}
JOBS=${JOBS:-8}
DEVICE=${DEVICE:-cuda}
AOT=${AOT:-.aot}
CPU_WHOLE=${CPU_WHOLE:-0}
export RUNS SEED=${SEED:-13} PYTHONUNBUFFERED=1
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-/tmp/emb-ranking-inductor}
export TORCHINDUCTOR_FX_GRAPH_CACHE=1 TORCHINDUCTOR_AUTOGRAD_CACHE=1
mkdir -p "$OUT" "$DATA"
SECONDS=0
log() { echo "[ranking_int4.sh +${SECONDS}s] $*"; }
die() { echo "ranking_int4.sh: error: $*" >&2; exit 1; }

models=() targets=()
for m in ranking_model ranking_model_int4 ranking_stage_lookups_int4; do
  [[ -f $AOT/$m.o && -f $AOT/$m.h ]] ||
    die "$AOT/$m.o or .h is missing: run tools/dev/aot-examples.sh where MLIR is and carry .aot"
  models+=("$(cd "$AOT" && pwd)/$m")
  targets+=("emb-run-aot-$m")
done
targets+=(embrt_shared) # ranking.py check-int4 reads emb's quantizer through emb_torch
if [[ $DEVICE == cuda ]]; then
  python3 -c 'import torch, triton; assert torch.cuda.is_available()' ||
    die "PyTorch with CUDA and Triton are needed"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
fi

# 1. The build and the compile, in the background.
(
  if [[ ${PREBUILT:-0} == 1 ]]; then # built where MLIR is, from the same .aot
    missing=0
    : > "$OUT/configure.log"
    for t in "${targets[@]}"; do
      [[ $t == embrt_shared ]] && f=$BUILD/lib/libembrt.so || f=$BUILD/bin/$t
      [[ -x $f || -f $f ]] || { echo "PREBUILT=1: $f is missing" > "$OUT/build.log"; missing=1; }
    done
    echo $missing > "$OUT/build.rc"
  else
    # shellcheck disable=SC2086 # CMAKE_ARGS is a list of options
    cmake -G Ninja -S . -B "$BUILD" -DEMB_ENABLE_COMPILER=OFF \
      -DEMB_AOT_MODELS="$(IFS=';'; echo "${models[*]}")" $CMAKE_ARGS > "$OUT/configure.log" 2>&1 &&
      ninja -C "$BUILD" -j "$JOBS" "${targets[@]}" > "$OUT/build.log" 2>&1
    echo $? > "$OUT/build.rc"
  fi
) &
build_pid=$!
warm_pid=""
: > "$OUT/warm.rc"
if [[ $DEVICE == cuda ]]; then
  (
    TORCHINDUCTOR_COMPILE_THREADS=${TORCHINDUCTOR_COMPILE_THREADS:-4} \
      timeout "${WARM_TIMEOUT:-270}" python3 bench/e2e/ranking.py warm --variant hand_int4 \
      > "$OUT/warm_hand_int4.log" 2>&1
    echo "warm hand_int4: exit $?" >> "$OUT/warm.rc"
  ) &
  warm_pid=$!
fi
log "building the runners (pid $build_pid), compiling the torch peer (pid ${warm_pid:-none})"

# 2. The inputs.
python3 bench/e2e/ranking.py gen --int4 --data "$DATA" > "$OUT/gen.log" 2>&1 ||
  { cat "$OUT/gen.log"; die "ranking.py gen failed"; }
log "$(tail -1 "$OUT/gen.log")"

wait "$build_pid"
[[ $(cat "$OUT/build.rc" 2>/dev/null) == 0 ]] ||
  { tail -30 "$OUT/configure.log" "$OUT/build.log"; die "the runtime-only build failed"; }
log "runners built"
python3 bench/e2e/ranking.py check-int4 --lib "$BUILD/lib/libembrt.so" > "$OUT/check_int4.txt" 2>&1
check_rc=$?
tail -2 "$OUT/check_int4.txt"
[[ -n $warm_pid ]] && wait "$warm_pid"
log "compile: $(cat "$OUT/warm.rc")"
if [[ ${PREPARE_ONLY:-0} == 1 ]]; then
  log "prepared (PREPARE_ONLY=1): the build in $BUILD, the compile in $TORCHINDUCTOR_CACHE_DIR, the inputs in $DATA"
  [[ $check_rc == 0 ]]
  exit
fi
skip=()
grep -q "exit 124$" "$OUT/warm.rc" && skip=(--skip hand_int4) &&
  log "the peer's compile was stopped after ${WARM_TIMEOUT:-270} s: left out of the timing"

# 3. Ours: the int4 and the f16-table model alternately, then the CPU checks.
run() { # MODEL INPUTS LOG [ARGS...]
  local m=$1 inputs=$2 logf=$3
  shift 3
  "$BUILD/bin/emb-run-aot-$m" --inputs "$(cat "$DATA/$inputs.inputs")" "$@" >> "$logf" 2>&1
  echo "exit=$?" >> "$logf"
}
: > "$OUT/ranking_model_int4.txt"
: > "$OUT/ranking_model_f16.txt"
graph=()
[[ $DEVICE == cuda ]] && graph=(--cuda-graph)
for r in $(seq "$RUNS"); do
  o4=() o16=()
  [[ $r == 1 ]] && o4=(--output-dir "$OUT/emb_int4_out") && o16=(--output-dir "$OUT/emb_f16_out")
  run ranking_model_int4 ranking_model_int4 "$OUT/ranking_model_int4.txt" --device "$DEVICE" \
    --repeat 30 ${graph[@]+"${graph[@]}"} ${o4[@]+"${o4[@]}"}
  run ranking_model ranking_model "$OUT/ranking_model_f16.txt" --device "$DEVICE" \
    --repeat 30 ${graph[@]+"${graph[@]}"} ${o16[@]+"${o16[@]}"}
done
grep -HE "median|captured|error|exit=" "$OUT/ranking_model_int4.txt" "$OUT/ranking_model_f16.txt"
log "ours: $RUNS runs a side"
: > "$OUT/checks.txt"
run ranking_stage_lookups_int4 ranking_stage_lookups_int4 "$OUT/checks.txt" --device cpu \
  --output-dir "$OUT/lookups_cpu"
run ranking_stage_lookups_int4 ranking_stage_lookups_int4 "$OUT/checks.txt" --device "$DEVICE" \
  --output-dir "$OUT/lookups_dev"
whole=()
if [[ $CPU_WHOLE == 1 ]]; then
  run ranking_model_int4 ranking_model_int4 "$OUT/checks.txt" --device cpu \
    --output-dir "$OUT/emb_int4_cpu"
  whole=(--whole-cpu-out "$OUT/emb_int4_cpu")
fi
grep -E "error|exit=" "$OUT/checks.txt"
log "ours: the CPU checks"

# 4. The checks and the peer.
python3 bench/e2e/ranking.py bench-int4 --emb-int4-out "$OUT/emb_int4_out" \
  --emb-f16-out "$OUT/emb_f16_out" --lookups-cpu-out "$OUT/lookups_cpu" \
  --lookups-dev-out "$OUT/lookups_dev" --out "$OUT/peers_int4.jsonl" \
  ${whole[@]+"${whole[@]}"} ${skip[@]+"${skip[@]}"} > "$OUT/peers_int4.log" 2>&1
bench_rc=$?
grep -v "^\s*$" "$OUT/peers_int4.log" | tail -25
log "checks and peer: exit $bench_rc"

# 5. The records.
python3 bench/e2e/ranking.py report-int4 --out "$OUT" --commit "$COMMIT"
report_rc=$?
log "done: $OUT/e2e_ranking_int4.json (copy it to bench/results/)"
[[ $check_rc == 0 && $bench_rc == 0 && $report_rc == 0 ]]
