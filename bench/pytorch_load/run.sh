#!/usr/bin/env bash
# The ranking model through emb_torch.load against the same shared object run
# by emb-run-shared, in one call on the GPU machine (NOTES.md). From the
# repository root, carrying the models and the CUDA runtime build:
#
#   bench/pytorch_load/run.sh
#
# Needs $MODELS/ranking_model_cuda.so (bench/pytorch_load/compile.sh, where
# MLIR is) and $BUILD/bin/emb-run-shared with $BUILD/lib/libembrt.so (a
# runtime-only build with CUDA), PyTorch with CUDA; $BUILD/lib/
# libemb_torch_ops.so when the build has it (or $EMB_TORCH_OPS_LIB).
#
# 1. The inputs: bench/e2e/ranking.py gen (one seed; the tables as sparse
#    .npy files).
# 2. The peer, RUNS times: emb-run-shared --repeat REPEAT --cuda-graph (each
#    run times direct calls, then replays of one captured call, as do_bench
#    times: L2 flushed, warm-up, at least REPEAT calls and 100 ms); the first
#    run writes its results (--output-dir).
# 3. bench.py: the same inputs and object through emb_torch.load, checked
#    against those results, timed the same way RUNS times, direct and
#    replayed; the peer's times read from its log; the records to $JSON.
# 4. The table, last.
#
# The variables every family's run.sh has: bench/common/env.sh. Knobs:
# REPEAT (30), MODELS (.aot/pytorch_load), DATA (/tmp/emb-pytorch-load-data),
# JSON (bench/results/pytorch_load.json), PYTHON (python3), SEED (13).
# DEVICE=cpu: the same steps on the small twin on the CPU (a smoke test of
# the scripts: MODELS/ranking_model_small_cpu.so, a CPU runtime build, no
# graphs; the records go to $OUT/pytorch_load.json unless JSON is set).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/common/env.sh pytorch_load ""
DEVICE=${DEVICE:-cuda}
REPEAT=${REPEAT:-30}
MODELS=${MODELS:-.aot/pytorch_load}
DATA=${DATA:-/tmp/emb-pytorch-load-data}
PYTHON=${PYTHON:-python3}
export SEED=${SEED:-13} PYTHONUNBUFFERED=1
SECONDS=0
log() { echo "[run.sh +${SECONDS}s] $*"; }
die() { echo "run.sh: error: $*" >&2; exit 1; }

case $DEVICE in
cuda)
  model=$MODELS/ranking_model_cuda.so
  export RANKING_SHAPE=full RANKING_DEVICE=cuda
  JSON=${JSON:-bench/results/pytorch_load.json}
  graph=(--cuda-graph)
  ;;
cpu)
  model=$MODELS/ranking_model_small_cpu.so
  export RANKING_SHAPE=small RANKING_DEVICE=cpu
  JSON=${JSON:-$OUT/pytorch_load.json}
  graph=()
  ;;
*) die "DEVICE is cuda or cpu, got '$DEVICE'" ;;
esac
runner=$BUILD/bin/emb-run-shared
lib=$BUILD/lib/libembrt.so
[[ -f $model ]] || die "$model is missing: run bench/pytorch_load/compile.sh $MODELS where MLIR is, and carry it"
[[ -x $runner && -f $lib ]] ||
  die "$runner or $lib is missing: build them (NOTES.md) and carry $BUILD/bin/emb-run-shared and $BUILD/lib"
# The runner and the model find this runtime (the build's RUNPATH may name a
# folder of another machine); CUDA's libraries where the machine has them.
libdir=$(cd "$BUILD/lib" && pwd) || exit 1
# emb_torch's C++ ops, when the build has them (a build configured with a
# Python that imports torch; docs/pytorch.md, "The C++ ops library"): bench.py
# then times direct calls through them and through the Python path.
if [[ -z ${EMB_TORCH_OPS_LIB:-} && -f $libdir/libemb_torch_ops.so ]]; then
  export EMB_TORCH_OPS_LIB=$libdir/libemb_torch_ops.so
fi
export LD_LIBRARY_PATH=$libdir:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT" "$DATA"
if [[ $DEVICE == cuda ]]; then
  "$PYTHON" -c 'import torch; assert torch.cuda.is_available()' || die "PyTorch with CUDA is needed"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
fi

# 1. The inputs.
"$PYTHON" bench/e2e/ranking.py gen --data "$DATA" > "$OUT/gen.log" 2>&1 ||
  { cat "$OUT/gen.log"; die "ranking.py gen failed"; }
log "$(tail -1 "$OUT/gen.log")"
inputs=$(cat "$DATA/ranking_model.inputs")

# 2. The peer.
: > "$OUT/emb_run.txt"
rm -rf "$OUT/emb_out"
for r in $(seq "$RUNS"); do
  extra=(${graph[@]+"${graph[@]}"})
  [[ $r == 1 ]] && extra+=(--output-dir "$OUT/emb_out")
  "$runner" "$model" --device "$DEVICE" --inputs "$inputs" --repeat "$REPEAT" \
    ${extra[@]+"${extra[@]}"} >> "$OUT/emb_run.txt" 2>&1
  echo "exit=$?" >> "$OUT/emb_run.txt"
done
grep -E "median|captured|error|exit=" "$OUT/emb_run.txt"
grep -q "exit=[1-9]" "$OUT/emb_run.txt" && die "emb-run-shared failed ($OUT/emb_run.txt)"
log "emb-run-shared: $RUNS runs"

# 3. Ours.
"$PYTHON" bench/pytorch_load/bench.py --model "$model" --inputs "$inputs" --lib "$lib" \
  --device "$DEVICE" --expect "$OUT/emb_out" --peer-log "$OUT/emb_run.txt" --runs "$RUNS" \
  --repeat "$REPEAT" --json "$JSON" > "$OUT/bench.log" 2>&1
rc=$?
grep -v "^|" "$OUT/bench.log"
log "bench.py: exit $rc; records in $JSON"

# 4. The table.
grep "^|" "$OUT/bench.log"
exit $rc
