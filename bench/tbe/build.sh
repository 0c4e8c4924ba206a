#!/bin/bash
# Builds the TBE GPU test, the config test and the benchmark (with its tuning
# variants of kernels/tbe.cu) into $BUILD (default .tbe-build), with nvcc and
# gcc alone: the runtime's C sources and every kernel family (the CUDA
# backend's table names them all). Keeps the ptxas resource report
# (registers, spills, stack) of kernels/tbe.cu in $BUILD/ptxas.txt.
#
#   bench/tbe/build.sh            (here or on the GPU machine)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-.tbe-build}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_HOME=$(dirname "$(dirname "$NVCC")")
JOBS=${JOBS:-$(nproc)}
mkdir -p "$BUILD/obj"
CFLAGS="-std=c11 -O2 -Wall -Wextra -Wno-unused-parameter -I. -Iinclude -I$CUDA_HOME/include"
NVFLAGS="-std=c++17 -O3 -arch=sm_90 -I. -Iinclude -Xcompiler=-Wall,-Wno-unused-parameter"

pids=()
run() { # run CMD... in the background, at most $JOBS at a time
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
  "$@" &
  pids+=($!)
}
waitAll() { # fails if any background command failed
  local failed=0
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  pids=()
  [ $failed = 0 ] || { echo "build failed" >&2; exit 1; }
}

# The runtime: every C source, the CUDA backend's included.
objs=()
for src in runtime/*.c runtime/cpu/*.c runtime/cuda/*.c kernels/*.c; do
  obj=$BUILD/obj/$(echo "${src%.c}" | tr / _).o
  objs+=("$obj")
  run ${CC:-gcc} $CFLAGS -DEMB_HAVE_CUDA=1 -c "$src" -o "$obj"
done
# The kernels: the Hopper-only files for sm_90a alone (as in
# kernels/CMakeLists.txt), the TBE kernel with its ptxas report.
for src in kernels/*.cu; do
  obj=$BUILD/obj/$(basename "${src%.cu}").o
  objs+=("$obj")
  case $src in
  kernels/tbe.cu) ;;
  *_sm90a.cu)
    run $NVCC ${NVFLAGS/-arch=sm_90/-gencode=arch=compute_90a,code=sm_90a} \
      -c "$src" -o "$obj" ;;
  *) run $NVCC $NVFLAGS -c "$src" -o "$obj" ;;
  esac
done
run bash -c "$NVCC $NVFLAGS -Xptxas -v -c kernels/tbe.cu -o $BUILD/obj/tbe.o \
  2> $BUILD/ptxas.txt"

# Tuning variants for the benchmark: name, flags[, source] (the same list as
# kVariants in tbe_bench.cu; the source defaults to kernels/tbe.cu). Stage
# rows come from the configurations, which the benchmark sweeps. "pos64"
# forces the 64-bit-position kernels that launches with N >= 2^31 take (and
# builds tbe_test_pos64); "pfpages" prefetches one line of every 64 KB of
# the table into L2 at the start of small launches (EMB_TBE_PREFETCH_PAGES,
# call 8: within noise; one line every 2 MB likewise). Measured and dropped
# from the build (NOTES.md): L2 prefetches of the output line, the guessed
# ids and the table's first line at entry (call 7: neutral), plain
# loads (bench/tbe/variants/tbe_v1_plain.cu, 30-40% slower), 3 stages
# (EMB_TBE_STAGES=3), a 160-byte parameter block (EMB_TBE_SMALL_CAP=4), the
# id guess (call 4's kernel), call 4's kernel
# (bench/tbe/variants/tbe_v2_call4.cu, calls 5-6), 16-bit rows through L1
# (EMB_TBE_ROWS_L1_16=1) and f32 rows through L2 (EMB_TBE_ROWS_L1_F32=0),
# calls 5-6. Never run: no evict-first hints (EMB_TBE_STREAM_HINTS=0).
variants=(
  "pos64:-DEMB_TBE_POS32=0"
  "pfpages:-DEMB_TBE_PREFETCH_PAGES=16"
)
vobjs=()
for v in "${variants[@]}"; do
  IFS=: read -r name flags vsrc <<<"$v"
  vsrc=${vsrc:-kernels/tbe.cu}
  vobjs+=("$BUILD/obj/tbe_$name.o")
  run bash -c "$NVCC $NVFLAGS $flags -DEMB_TBE_SUFFIX=_$name -Xptxas -v \
    -c $vsrc -o $BUILD/obj/tbe_$name.o 2> $BUILD/ptxas_$name.txt"
done
waitAll

rm -f "$BUILD/libembrt_tbe.a"
ar rcs "$BUILD/libembrt_tbe.a" "${objs[@]}"
LIBS="$BUILD/libembrt_tbe.a -lcublas -lcudart -lm"
run ${CC:-gcc} $CFLAGS -c test/Kernels/tbe.c -o "$BUILD/obj/test_tbe.o"
run ${CC:-gcc} $CFLAGS -c test/Runtime/tbe_config.c \
  -o "$BUILD/obj/test_tbe_config.o"
run $NVCC $NVFLAGS -DTBE_BENCH_VARIANTS -c bench/tbe/tbe_bench.cu \
  -o "$BUILD/obj/tbe_bench.o"
waitAll
$NVCC -arch=sm_90 "$BUILD/obj/test_tbe.o" $LIBS -o "$BUILD/tbe_test"
$NVCC -arch=sm_90 "$BUILD/obj/test_tbe_config.o" $LIBS -o "$BUILD/tbe_config"
$NVCC -arch=sm_90 "$BUILD/obj/tbe_bench.o" "${vobjs[@]}" $LIBS \
  -o "$BUILD/tbe_bench"
# The GPU test again, against the 64-bit-position kernels (the pos64
# variant with its entry points renamed), which only launches with
# N >= 2^31 take otherwise.
objcopy --redefine-sym embrtCudaLaunchTbeForward_pos64=embrtCudaLaunchTbeForward \
  --redefine-sym embrtCudaTbeWorkspaceSize_pos64=embrtCudaTbeWorkspaceSize \
  "$BUILD/obj/tbe_pos64.o" "$BUILD/obj/tbe_pos64_lib.o"
pos64objs=()
for o in "${objs[@]}"; do
  [ "$o" = "$BUILD/obj/tbe.o" ] && o=$BUILD/obj/tbe_pos64_lib.o
  pos64objs+=("$o")
done
rm -f "$BUILD/libembrt_tbe_pos64.a"
ar rcs "$BUILD/libembrt_tbe_pos64.a" "${pos64objs[@]}"
$NVCC -arch=sm_90 "$BUILD/obj/test_tbe.o" "$BUILD/libembrt_tbe_pos64.a" \
  -lcublas -lcudart -lm -o "$BUILD/tbe_test_pos64"
grep -hE "Used|spill" "$BUILD"/ptxas*.txt | sort | uniq -c | sort -rn | head -n 12
echo "built $BUILD/tbe_test $BUILD/tbe_test_pos64 $BUILD/tbe_config" \
  "$BUILD/tbe_bench"
