#!/bin/bash
# Builds the IKBO LCE GPU test and benchmark into $BUILD (default
# build-ikbo): the runtime half of the CMake build in $BUILD/cmake (no MLIR
# needed, as on the GPU machine), then copies the binaries, the ptxas
# resource reports (registers, spills, shared memory) and the sm_90a object
# (for the SASS census) beside it under the names bench/ikbo_lce/gpu_run.sh
# uses.
#
#   bench/ikbo_lce/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-ikbo}
mkdir -p "$BUILD"
cmake -G Ninja -S . -B "$BUILD/cmake" -DEMB_ENABLE_COMPILER=OFF \
  -DCMAKE_BUILD_TYPE=Release >"$BUILD/configure.log"
ninja -C "$BUILD/cmake" embrt-kernel-test-ikbo-lce emb-bench-ikbo-lce \
  emb-bench-ikbo-lce-ptxas
out=$BUILD/cmake/bench
cp "$BUILD/cmake/test/Kernels/ikbo_lce" "$BUILD/ikbo_lce_test"
cp "$out/ikbo_lce_bench" "$out/ikbo_lce_sm90a.o" "$BUILD/"
cp "$out/ikbo_lce_sm90a_ptxas.txt" "$BUILD/ptxas_sm90a.txt"
cp "$out/ikbo_lce_sm90_ptxas.txt" "$BUILD/ptxas_portable.txt"
grep -E "error|warning|spill stores" "$BUILD"/ptxas_*.txt | sort | uniq -c || true
echo "built $BUILD/ikbo_lce_test $BUILD/ikbo_lce_bench"
