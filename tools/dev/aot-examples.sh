#!/usr/bin/env bash
# Compiles the example models ahead of time for the GPU (after emb-ikbo, with
# the model as written beside it as <entry>__reference) into .aot/, for
# tools/dev/gpu-check.sh on a GPU machine.
set -euo pipefail
build=${1:-build}
mkdir -p .aot
for model in examples/*.mlir; do
  name=$(basename "$model" .mlir)
  "$build/bin/emb-compile" "$model" --target cuda --pipeline emb-ikbo \
    --with-reference -o ".aot/$name"
done
