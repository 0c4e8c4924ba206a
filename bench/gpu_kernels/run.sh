#!/bin/bash
# The GPU kernels emb-lower-to-runtime{target=cuda} generates
# (docs/codegen.md), on the GPU machine (CUDA, CMake, Ninja; no MLIR):
#
#   tools/dev/aot-examples.sh build   # on a machine with MLIR: fills .aot/
#   bench/gpu_kernels/run.sh          # on the GPU machine
#
# The variables every family's run.sh has: bench/common/env.sh.
# STEPS (default all): test,bench. ITERS: calls a timed run (50).
# Builds a runner for every .aot/gpu_kernels_* model in $BUILD (kept, so a
# second run builds nothing), then:
#   - runs each test model of test/Codegen/Inputs/gpu_kernels/ on the GPU on
#     random inputs and compares it with the model as written compiled for
#     the cpu target, run on the CPU (--compare-unoptimized), and replays one
#     call from a CUDA graph (--cuda-graph); then the same under
#     compute-sanitizer's memcheck;
#   - times the bandwidth shapes of bench/gpu_kernels/ (8192 x 8192 f16, L2
#     flushed before each call, median of $ITERS): a generated elementwise
#     kernel, a generated row softmax, and a device-to-device copy of the
#     same bytes, the bandwidth they are measured against.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/common/env.sh gpu_kernels test,bench
ITERS=${ITERS:-50}
LOGS=$OUT
models=$(ls "$PWD"/.aot/gpu_kernels_*.o | sed 's/\.o$//' | tr '\n' ';')
targets=$(for m in .aot/gpu_kernels_*.o; do echo "emb-run-aot-$(basename "$m" .o)"; done)
CMAKE_ARGS="$CMAKE_ARGS -DEMB_AOT_MODELS=$models"
bench_build $targets || exit 1

status=0
has test && echo "== the GPU against the CPU, a CUDA graph replay, memcheck"
for runner in "$BUILD"/bin/emb-run-aot-gpu_kernels_*; do
  has test || break
  [[ "$runner" == *benchmark* ]] && continue
  name=$(basename "$runner")
  "$runner" --device cuda --random-inputs --seed 7 --compare-unoptimized \
    --cuda-graph >"$LOGS/$name.log" 2>&1 || status=1
  grep -E "error|match|differ|graph" "$LOGS/$name.log" | sed "s/^/$name: /"
  compute-sanitizer --tool memcheck --error-exitcode 3 "$runner" --device cuda \
    --random-inputs --compare-unoptimized >"$LOGS/$name.memcheck.log" 2>&1 ||
    status=1
  echo "$name: memcheck: $(grep -E 'ERROR SUMMARY' "$LOGS/$name.memcheck.log")"
done

has bench && echo "== bandwidth, 8192 x 8192 f16 ($ITERS calls, L2 flushed before each)"
for shape in copy_f16_8192 bias_gelu_f16_8192 softmax_f16_8192; do
  has bench || break
  "$BUILD/bin/emb-run-aot-gpu_kernels_benchmark_$shape" --device cuda \
    --random-inputs --repeat "$ITERS" 2>&1 | grep -E "median|error"
done
exit $status
