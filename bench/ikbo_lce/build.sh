#!/bin/bash
# Builds the IKBO LCE GPU test and benchmark with nvcc alone (no CMake, no
# runtime library: bench/ikbo_lce/stub_runtime.c stands in for
# embrtSetError) into $BUILD (default build-ikbo). Keeps the ptxas resource
# reports (registers, spills, shared memory) beside the binaries.
#
#   bench/ikbo_lce/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-ikbo}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$BUILD"
FLAGS="-std=c++17 -O3 -I. -Iinclude"
PORTABLE="-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_80,code=compute_80"

waitAll() {
  local rc=0
  for pid in "$@"; do wait "$pid" || rc=1; done
  return $rc
}

$NVCC $FLAGS -gencode=arch=compute_90a,code=sm_90a -Xptxas -v \
  -c kernels/ikbo_lce_sm90a.cu -o "$BUILD/ikbo_lce_sm90a.o" \
  2>"$BUILD/ptxas_sm90a.txt" &
p1=$!
$NVCC $FLAGS $PORTABLE -Xptxas -v -c kernels/ikbo_lce.cu \
  -o "$BUILD/ikbo_lce.o" 2>"$BUILD/ptxas_portable.txt" &
p2=$!
${CC:-gcc} -O2 -I. -Iinclude -c bench/ikbo_lce/stub_runtime.c \
  -o "$BUILD/stub_runtime.o"
waitAll $p1 $p2 || { cat "$BUILD"/ptxas_*.txt; exit 1; }
OBJS="$BUILD/ikbo_lce.o $BUILD/ikbo_lce_sm90a.o $BUILD/stub_runtime.o"
$NVCC $FLAGS $PORTABLE test/Kernels/ikbo_lce.cu $OBJS -lcublas \
  -o "$BUILD/ikbo_lce_test" &
p1=$!
$NVCC $FLAGS $PORTABLE bench/ikbo_lce/ikbo_lce_bench.cu $OBJS \
  -o "$BUILD/ikbo_lce_bench" &
p2=$!
waitAll $p1 $p2
grep -E "error|warning|spill stores" "$BUILD"/ptxas_*.txt | sort | uniq -c || true
echo "built $BUILD/ikbo_lce_test $BUILD/ikbo_lce_bench"
