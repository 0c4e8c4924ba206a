#!/usr/bin/env bash
# Compiles the example models ahead of time for the GPU (after emb-ikbo, with
# the model as written beside it as <entry>__reference) into .aot/, for
# tools/dev/gpu-check.sh on a GPU machine. The IKBO benchmark as torch-mlir
# writes it goes too, raised (emb-raise, emb-ikbo), as
# .aot/torch_ikbo_benchmark: bench/ab/run.sh and bench/e2e/run.sh time it
# beside the emb-dialect version. It has no reference: the model as written
# would run on the CPU, too slowly at that shape. Nor has the end-to-end
# ranking model (.aot/ranking_model and its stages .aot/ranking_stage_*, for
# bench/e2e/ranking.sh; .aot/ranking_model_int4 and
# .aot/ranking_stage_lookups_int4, for bench/e2e/ranking_int4.sh).
set -euo pipefail
build=${1:-build}
mkdir -p .aot
for model in examples/*.mlir; do
  name=$(basename "$model" .mlir)
  [[ $name == ranking_model ]] && continue # below
  "$build/bin/emb-compile" "$model" --target cuda --pipeline emb-ikbo \
    --with-reference -o ".aot/$name"
done
"$build/bin/emb-compile" examples/torch/ikbo_benchmark.mlir --target cuda \
  --pipeline emb-raise,emb-ikbo -o .aot/torch_ikbo_benchmark
# The other models in torch-mlir's form, raised and rewritten (emb-from-torch)
# for the GPU, each with the model as written compiled for the cpu target as
# <entry>__reference: gpu-check.sh checks the GPU against the CPU on them.
for model in examples/torch/*.mlir; do
  name=$(basename "$model" .mlir)
  [[ "$name" != ikbo_benchmark ]] || continue
  "$build/bin/emb-compile" "$model" --target cuda --pipeline emb-from-torch \
    --with-reference --reference-target cpu -o ".aot/torch_$name"
done
# The end-to-end ranking model, in torch-mlir's form, through the whole
# pipeline (bench/e2e/ranking.sh runs it on its inputs). No reference: the
# model as written on the CPU reference would take hours at this size; the
# small twin is checked against it in test/Examples/ranking_model.test.
"$build/bin/emb-compile" examples/ranking_model.mlir --target cuda \
  --pipeline emb-raise,emb-ikbo,emb-batch-tables -o .aot/ranking_model
# With its 64 pooled tables at int4, passed in as packed rows, and its
# lookups stage so (bench/e2e/ranking_int4.sh): .aot/ranking_model_int4 and
# .aot/ranking_stage_lookups_int4 (and .aot/ranking_model again).
bench/e2e/ranking_int4_compile.sh "$build/bin/emb-compile" .aot full cuda
# Its stages, each a function of its own (the per-stage breakdown).
for stage in lookups sequence attention lce mlp; do
  python3 bench/e2e/ranking_model.py --stage "$stage" -o ".aot/ranking_stage_$stage.mlir"
  "$build/bin/emb-compile" ".aot/ranking_stage_$stage.mlir" --target cuda \
    --pipeline emb-raise,emb-ikbo,emb-batch-tables -o ".aot/ranking_stage_$stage"
done
# Models of GPU kernels the compiler generates (docs/codegen.md), each with
# its model as written compiled for the cpu target as <entry>__reference:
# --compare-unoptimized checks the GPU against the CPU. The benchmark shapes
# of bench/gpu_kernels/ go as .aot/gpu_kernels_benchmark_<name>, timed alone.
for model in test/Codegen/Inputs/gpu_kernels/*.mlir; do
  name=$(basename "$model" .mlir)
  "$build/bin/emb-compile" "$model" --target cuda --with-reference \
    --reference-target cpu -o ".aot/gpu_kernels_$name"
done
for model in bench/gpu_kernels/*.mlir; do
  name=$(basename "$model" .mlir)
  "$build/bin/emb-compile" "$model" --target cuda \
    -o ".aot/gpu_kernels_benchmark_$name"
done
