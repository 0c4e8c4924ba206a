#!/bin/bash
# Builds the IKBO LCE GPU test and benchmark into $BUILD (default build-ikbo):
# the runtime half of the CMake build (no MLIR needed, as on the GPU
# machine), then the binaries under the names bench/ikbo_lce/gpu_run.sh
# uses. Keeps the ptxas resource reports (registers, spills, shared memory)
# and the sm_90a object (for the SASS census) beside them.
#
#   bench/ikbo_lce/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-ikbo}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$BUILD"
cmake -G Ninja -S . -B "$BUILD/cmake" -DEMB_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$NVCC" >"$BUILD/configure.log"
ninja -C "$BUILD/cmake" embrt-kernel-test-ikbo-lce emb-bench-ikbo-lce
cp "$BUILD/cmake/test/Kernels/ikbo_lce" "$BUILD/ikbo_lce_test"
cp "$BUILD/cmake/bench/ikbo_lce_bench" "$BUILD/ikbo_lce_bench"
FLAGS="-std=c++17 -O3 -I. -Iinclude -Xptxas -v"
$NVCC $FLAGS -gencode=arch=compute_90a,code=sm_90a -c kernels/ikbo_lce_sm90a.cu \
  -o "$BUILD/ikbo_lce_sm90a.o" 2>"$BUILD/ptxas_sm90a.txt"
$NVCC $FLAGS -gencode=arch=compute_90,code=sm_90 -c kernels/ikbo_lce.cu \
  -o "$BUILD/ikbo_lce.o" 2>"$BUILD/ptxas_portable.txt"
grep -E "error|warning|spill stores" "$BUILD"/ptxas_*.txt | sort | uniq -c || true
echo "built $BUILD/ikbo_lce_test $BUILD/ikbo_lce_bench"
