#!/bin/sh
# Compiles the end-to-end ranking model into shared objects for
# bench/pytorch_load (emb_torch.load against emb-run-shared), on a machine
# with MLIR, into a folder to carry to the GPU machine:
#
#   bench/pytorch_load/compile.sh OUT [BUILD]
#
# The model and the flags are those of the ranking benchmark
# (tools/dev/aot-examples.sh, bench/e2e/ranking.sh), plus --shared:
#   OUT/ranking_model_cuda.so        examples/ranking_model.mlir, target cuda
#   OUT/ranking_model_cpu.so         the same, target cpu
#   OUT/ranking_model_small_cuda.so  its small twin
#   OUT/ranking_model_small_cpu.so   (examples/torch/ranking_model_small.mlir:
#                                    the DEVICE=cpu smoke test of run.sh)
# The cuda objects need no CUDA to compile: every op of this model maps to a
# runtime call (libembrt.so runs it on the GPU), and kernels the compiler
# generates would travel as PTX. BUILD is the build folder with emb-compile
# (default: build).
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 OUT [BUILD]" >&2
  exit 1
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
build=${2:-$src/build}
pipeline=emb-raise,emb-ikbo,emb-batch-tables
mkdir -p "$out"
for target in cuda cpu; do
  "$build/bin/emb-compile" "$src/examples/ranking_model.mlir" --target "$target" \
    --pipeline "$pipeline" --shared -o "$out/ranking_model_$target.so"
  "$build/bin/emb-compile" "$src/examples/torch/ranking_model_small.mlir" --target "$target" \
    --pipeline "$pipeline" --shared -o "$out/ranking_model_small_$target.so"
done
echo "wrote $out"
