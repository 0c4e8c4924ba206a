#!/usr/bin/env bash
# The compiled models on the GPU against their torch peers, in one call on the
# GPU machine: builds the runtime and a runner for each model that
# tools/dev/aot-examples.sh compiled into .aot/ (from the model as written,
# through emb-ikbo and emb-lower-to-runtime{target=cuda}), runs the IKBO
# benchmark models checked against the model as written, times them with
# events (median of --repeat, L2 flushed before each run), runs the peers
# (bench/e2e/peers.py), and writes $OUT/e2e.json. Needs EMB_COMMIT.
set -uo pipefail
out=${OUT:-/tmp/emb-e2e}
mkdir -p "$out"
build=${BUILD:-build-gpu}
# Each model is run RUNS times (default 3), each run the median of
# `--repeat 30` (on a GPU: 25 ms of warm-up, at least 30 calls and 100 ms, as
# do_bench times the peers).
for model in ikbo_benchmark target_attention_benchmark; do
  : > "$out/$model.txt"
  for run in $(seq "${RUNS:-3}"); do
    "$build/bin/emb-run-aot-$model" --device cuda --random-inputs \
      --compare-unoptimized --repeat 30 >> "$out/$model.txt" 2>&1
    echo "exit=$?" >> "$out/$model.txt"
  done
  cat "$out/$model.txt"
done
PYTHONUNBUFFERED=1 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache \
  python3 bench/e2e/peers.py > "$out/peers.jsonl" 2> "$out/peers.err"
tail -3 "$out/peers.err"
python3 bench/e2e/report.py --out "$out" --commit "${EMB_COMMIT:-unknown}"
