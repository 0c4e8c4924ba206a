#!/usr/bin/env bash
# The main job on the shipped examples: for the ranking block and the
# target-attention block, emb-opt verifies the model and shows its emb-ikbo
# rewrite, then emb-run runs it (on the GPU when one answers, else the CPU)
# rewritten and as written on the same random inputs and prints the check.
set -euo pipefail
build=${1:-build}
device=cpu
if [[ -x "$build/test/emb-gpu-probe" ]] && "$build/test/emb-gpu-probe" 2>/dev/null; then
  device=cuda
fi
for model in examples/ranking_block.mlir examples/target_attention.mlir; do
  echo "== $model: the emb-ikbo rewrite"
  "$build/bin/emb-opt" --emb-ikbo "$model"
  echo "== $model: run on $device, rewritten and as written"
  "$build/bin/emb-run" "$model" --device "$device" --random-inputs \
    --compare-unoptimized --repeat 20
done
