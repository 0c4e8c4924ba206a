#!/bin/bash
# Builds the attention GPU test and benchmark with nvcc alone (no CMake, no
# runtime library: bench/attention/stub_runtime.c stands in for its
# embrtSetError and embrtCudaCheck), into $BUILD (default .attn-build).
# Also keeps the ptxas resource reports (registers, spills, shared memory)
# beside the binaries.
#
#   bench/attention/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-.attn-build}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$BUILD"
FLAGS="-std=c++17 -O3 -I. -Iinclude"
PORTABLE="-gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_80,code=compute_80"
$NVCC $FLAGS -gencode=arch=compute_90a,code=sm_90a -Xptxas -v \
  -c kernels/attention_sm90a.cu -o "$BUILD/attention_sm90a.o" \
  2>"$BUILD/ptxas_sm90a.txt" &
$NVCC $FLAGS $PORTABLE -Xptxas -v -c kernels/attention.cu \
  -o "$BUILD/attention.o" 2>"$BUILD/ptxas_portable.txt" &
wait %1 %2
${CC:-gcc} -O2 -I. -Iinclude -I"$(dirname "$NVCC")/../include" \
  -c bench/attention/stub_runtime.c \
  -o "$BUILD/stub_runtime.o"
OBJS="$BUILD/attention.o $BUILD/attention_sm90a.o $BUILD/stub_runtime.o"
$NVCC $FLAGS $PORTABLE test/Kernels/attention.cu $OBJS \
  -o "$BUILD/attention_test" &
$NVCC $FLAGS $PORTABLE bench/attention/attention_bench.cu $OBJS \
  -o "$BUILD/attention_bench" &
wait %1 %2
grep -E "error|warning" "$BUILD"/ptxas_*.txt || true
echo "built $BUILD/attention_test $BUILD/attention_bench"
