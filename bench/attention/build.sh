#!/bin/bash
# Builds the attention GPU test and benchmark into $BUILD (default
# .attn-build): the runtime half of the CMake build (no MLIR needed, as on
# the GPU machine), then the binaries under the names
# bench/attention/gpu_run.sh uses. Keeps the ptxas resource reports
# (registers, spills, shared memory) beside them.
#
#   bench/attention/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-.attn-build}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$BUILD"
cmake -G Ninja -S . -B "$BUILD/cmake" -DEMB_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" >"$BUILD/configure.log"
ninja -C "$BUILD/cmake" embrt-kernel-test-attention emb-bench-attention
cp "$BUILD/cmake/test/Kernels/attention" "$BUILD/attention_test"
cp "$BUILD/cmake/bench/attention_bench" "$BUILD/attention_bench"
FLAGS="-std=c++17 -O3 -I. -Iinclude -Xptxas -v"
$NVCC $FLAGS -gencode=arch=compute_90a,code=sm_90a -c kernels/attention_sm90a.cu \
  -o "$BUILD/attention_sm90a.o" 2>"$BUILD/ptxas_sm90a.txt"
$NVCC $FLAGS -gencode=arch=compute_90,code=sm_90 -c kernels/attention.cu \
  -o "$BUILD/attention.o" 2>"$BUILD/ptxas_portable.txt"
grep -E "error|warning" "$BUILD"/ptxas_*.txt || true
echo "built $BUILD/attention_test $BUILD/attention_bench"
