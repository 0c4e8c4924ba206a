#!/usr/bin/env bash
# The main job on the shipped examples: for the ranking block and the
# target-attention block, emb-opt verifies the model and shows its emb-ikbo
# rewrite, then emb-run runs it (on the GPU when one answers, else the CPU)
# rewritten and as written on the same random inputs and prints the check.
# Then a model in torch-mlir's form (examples/torch/): emb-opt raises and
# rewrites it (emb-from-torch), and emb-run runs the result.
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
torch_model=examples/torch/lce_ranking.mlir
raised=$(mktemp --suffix=.mlir)
trap 'rm -f "$raised"' EXIT
echo "== $torch_model: torch-mlir's form, raised and rewritten (emb-from-torch)"
"$build/bin/emb-opt" --emb-from-torch "$torch_model" -o "$raised"
cat "$raised"
echo "== $torch_model: the raised model run on $device"
"$build/bin/emb-run" "$raised" --device "$device" --random-inputs --repeat 20
