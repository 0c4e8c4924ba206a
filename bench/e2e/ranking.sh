#!/usr/bin/env bash
# The end-to-end ranking model (examples/ranking_model.mlir) on the GPU
# machine against PyTorch, in one call (docs/benchmarks.md, "End to end: the
# ranking model"). Needs .aot/ranking_model.{o,h} and
# .aot/ranking_stage_*.{o,h} (tools/dev/aot-examples.sh, on a machine with
# MLIR; carry .aot), CUDA, PyTorch and Triton. From the repository root:
#
#   STEPS=ranking bench/e2e/run.sh      (or bench/e2e/ranking.sh alone)
#
# 1. In the background: the runtime-only build of the runners
#    (emb-run-aot-ranking_model and one a stage), and the Inductor
#    compiles of the three torch variants in worker processes
#    (ranking.py warm), which fill TORCHINDUCTOR_CACHE_DIR's FX graph cache
#    so that the timed process finds them there.
# 2. Meanwhile the inputs (ranking.py gen, from one seed; the tables as
#    sparse .npy files).
# 3. Once all of that is done, nothing else on the GPU: ours, RUNS times the
#    whole model (`--repeat 30`: timed as do_bench times the peers, at least
#    30 direct calls and 100 ms, then the same of CUDA graph replays, events,
#    L2 flushed before each; the first run writes its output), each stage
#    once (the same); then the peers (ranking.py bench: outputs
#    checked against ours, do_bench RUNS times, the stage breakdown).
# 4. $OUT/e2e_ranking.json and the table (ranking.py report).
#
# The variables every family's run.sh has: bench/common/env.sh. STEPS
# (default stages): stages, the per-stage breakdown (without it the whole
# model alone). Knobs: JOBS (ninja -j, 8),
# WARM_PARALLEL (1: the three compiles at once; 0: one after another),
# WARM_TIMEOUT (270 s a compile),
# DATA (/tmp/emb-ranking-data), SEED (13). Without a
# GPU, the same steps on the small twin (a smoke test of the scripts):
# DEVICE=cpu RANKING_SHAPE=small RANKING_DEVICE=cpu AOT=<small objects for
# the cpu target> CMAKE_ARGS=-DEMB_ENABLE_CUDA=OFF.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/common/env.sh e2e/ranking stages
DATA=${DATA:-/tmp/emb-ranking-data}
breakdown=0
has stages && breakdown=1
JOBS=${JOBS:-8}
WARM_PARALLEL=${WARM_PARALLEL:-1}
DEVICE=${DEVICE:-cuda}
AOT=${AOT:-.aot}
export RUNS SEED=${SEED:-13} PYTHONUNBUFFERED=1
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-/tmp/emb-ranking-inductor}
export TORCHINDUCTOR_FX_GRAPH_CACHE=1 TORCHINDUCTOR_AUTOGRAD_CACHE=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT" "$DATA"
SECONDS=0
log() { echo "[ranking.sh +${SECONDS}s] $*"; }
die() { echo "ranking.sh: error: $*" >&2; exit 1; }

stages=(lookups sequence attention lce mlp)
models="$(cd "$AOT" && pwd)/ranking_model"
targets=(emb-run-aot-ranking_model)
[[ -f $AOT/ranking_model.o && -f $AOT/ranking_model.h ]] ||
  die "$AOT/ranking_model.o or .h is missing: run tools/dev/aot-examples.sh where MLIR is and carry .aot"
if [[ $breakdown == 1 ]]; then
  for s in "${stages[@]}"; do
    [[ -f $AOT/ranking_stage_$s.o ]] || die "$AOT/ranking_stage_$s.o is missing (tools/dev/aot-examples.sh)"
    models+=";$(cd "$AOT" && pwd)/ranking_stage_$s"
    targets+=("emb-run-aot-ranking_stage_$s")
  done
fi
if [[ $DEVICE == cuda ]]; then
  python3 -c 'import torch, triton; assert torch.cuda.is_available()' ||
    die "PyTorch with CUDA and Triton are needed"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
fi

# 1. The build and the compiles, in the background.
(
  # shellcheck disable=SC2086 # CMAKE_ARGS is a list of options
  cmake -G Ninja -S . -B "$BUILD" -DEMB_ENABLE_COMPILER=OFF -DEMB_AOT_MODELS="$models" $CMAKE_ARGS \
    > "$OUT/configure.log" 2>&1 &&
    ninja -C "$BUILD" -j "$JOBS" "${targets[@]}" > "$OUT/build.log" 2>&1
  echo $? > "$OUT/build.rc"
) &
build_pid=$!
# A compile still running after WARM_TIMEOUT seconds is stopped, and its
# variant is left out of the timing (recompiling it there would take as
# long): the call ends within the machine's limit either way.
warm() {
  TORCHINDUCTOR_COMPILE_THREADS=${TORCHINDUCTOR_COMPILE_THREADS:-4} \
    timeout "${WARM_TIMEOUT:-270}" python3 bench/e2e/ranking.py warm --variant "$1" \
    > "$OUT/warm_$1.log" 2>&1
  echo "warm $1: exit $?" >> "$OUT/warm.rc"
}
: > "$OUT/warm.rc"
variants=(as_written hand)
[[ $breakdown == 1 ]] && variants+=(stages)
warm_pids=""
if [[ $WARM_PARALLEL == 1 ]]; then
  for v in "${variants[@]}"; do
    warm "$v" &
    warm_pids+=" $!"
  done
else
  ( for v in "${variants[@]}"; do warm "$v"; done ) &
  warm_pids=$!
fi
log "building the runners (pid $build_pid) and compiling ${variants[*]}"

# 2. The inputs.
python3 bench/e2e/ranking.py gen --data "$DATA" > "$OUT/gen.log" 2>&1 ||
  { cat "$OUT/gen.log"; die "ranking.py gen failed"; }
log "$(tail -1 "$OUT/gen.log")"

wait "$build_pid"
[[ $(cat "$OUT/build.rc" 2>/dev/null) == 0 ]] ||
  { tail -30 "$OUT/configure.log" "$OUT/build.log"; die "the runtime-only build failed"; }
log "runners built"
for p in $warm_pids; do wait "$p"; done
log "compiles done: $(tr '\n' ' ' < "$OUT/warm.rc")"
grep -v "exit 124$" "$OUT/warm.rc" | grep -q "exit [1-9]" &&
  log "a warm-up compile failed ($OUT/warm_*.log); ranking.py bench compiles what is missing"
skip=()
for v in "${variants[@]}"; do
  grep -q "^warm $v: exit 124$" "$OUT/warm.rc" && skip+=(--skip "$v") &&
    log "warm $v: stopped after ${WARM_TIMEOUT:-270} s, left out of the timing"
done

# 3. Ours, then the peers: nothing else runs on the GPU now.
: > "$OUT/ranking_model.txt"
for r in $(seq "$RUNS"); do
  extra=()
  [[ $DEVICE == cuda ]] && extra=(--cuda-graph)
  [[ $r == 1 ]] && extra+=(--output-dir "$OUT/emb_out")
  "$BUILD/bin/emb-run-aot-ranking_model" --device "$DEVICE" --inputs "$(cat "$DATA/ranking_model.inputs")" \
    --repeat 30 ${extra[@]+"${extra[@]}"} >> "$OUT/ranking_model.txt" 2>&1
  echo "exit=$?" >> "$OUT/ranking_model.txt"
done
grep -E "median|captured|error|exit=" "$OUT/ranking_model.txt"
log "ours: $RUNS runs"
if [[ $breakdown == 1 ]]; then
  for s in "${stages[@]}"; do
    "$BUILD/bin/emb-run-aot-ranking_stage_$s" --device "$DEVICE" --inputs "$(cat "$DATA/ranking_stage_$s.inputs")" \
      --repeat 30 > "$OUT/stage_$s.txt" 2>&1
    echo "exit=$?" >> "$OUT/stage_$s.txt"
    grep -E "median|error" "$OUT/stage_$s.txt"
  done
  log "ours: the stages"
fi
no_stages=()
[[ $breakdown == 1 ]] || no_stages=(--no-stages)
python3 bench/e2e/ranking.py bench --emb-out "$OUT/emb_out" --out "$OUT/peers.jsonl" \
  ${no_stages[@]+"${no_stages[@]}"} ${skip[@]+"${skip[@]}"} \
  > "$OUT/peers.log" 2>&1
bench_rc=$?
grep -v "^\s*$" "$OUT/peers.log" | tail -25
log "peers: exit $bench_rc"

# 4. The records.
python3 bench/e2e/ranking.py report --out "$OUT" --commit "$COMMIT"
report_rc=$?
log "done: $OUT/e2e_ranking.json (copy it to bench/results/)"
[[ $bench_rc == 0 && $report_rc == 0 ]]
