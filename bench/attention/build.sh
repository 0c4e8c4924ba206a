#!/bin/bash
# Builds the attention GPU test and benchmark into $BUILD (default
# .attn-build): the runtime half of the CMake build in $BUILD/cmake (no MLIR
# needed, as on the GPU machine), then copies the binaries, the ptxas
# resource reports (registers, spills, shared memory) and the sm_90a object
# beside it under the names bench/attention/gpu_run.sh uses.
#
#   bench/attention/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-.attn-build}
mkdir -p "$BUILD"
cmake -G Ninja -S . -B "$BUILD/cmake" -DEMB_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release >"$BUILD/configure.log"
ninja -C "$BUILD/cmake" embrt-kernel-test-attention emb-bench-attention \
  emb-bench-attention-ptxas
out=$BUILD/cmake/bench
cp "$BUILD/cmake/test/Kernels/attention" "$BUILD/attention_test"
cp "$out/attention_bench" "$out/attention_sm90a.o" "$BUILD/"
cp "$out/attention_sm90a_ptxas.txt" "$BUILD/ptxas_sm90a.txt"
cp "$out/attention_sm90_ptxas.txt" "$BUILD/ptxas_portable.txt"
grep -E "error|warning" "$BUILD"/ptxas_*.txt || true
echo "built $BUILD/attention_test $BUILD/attention_bench"
