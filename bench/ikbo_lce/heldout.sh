#!/bin/bash
# The IKBO LCE on the held-apart shapes of FBGEMM's IKBO LCE tests against
# Inductor max-autotune, on the GPU machine (bench/ikbo_lce/heldout.py):
#
# The step heldout of bench/ikbo_lce/run.sh, or alone:
#
#   OUT=/tmp/heldout bench/ikbo_lce/heldout.sh [FIRST COUNT]
#
# The variables every family's run.sh has: bench/common/env.sh. Builds the
# kernel benchmark alone with nvcc into $BUILD/heldout (kept, so a second
# call on a warm machine builds nothing), runs `ikbo_lce_bench --set
# heldout` three times, then the peers for shapes FIRST .. FIRST+COUNT-1
# (default all) until HELDOUT_DEADLINE seconds have passed (default 420),
# and prints the table of every shape measured so far.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/common/env.sh ikbo_lce/heldout ""
DEADLINE=${HELDOUT_DEADLINE:-420}
export TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache TRITON_CACHE_DIR=/tmp/triton-cache
BUILD=$BUILD/heldout
mkdir -p "$BUILD"
if [[ ! -x $BUILD/ikbo_lce_bench ]]; then
  flags=(-std=c++17 -O3 -I include -I .)
  nvcc "${flags[@]}" -gencode arch=compute_90,code=sm_90 -c kernels/ikbo_lce.cu -o "$BUILD/ikbo_lce.o" &
  nvcc "${flags[@]}" -gencode arch=compute_90a,code=sm_90a -c kernels/ikbo_lce_sm90a.cu -o "$BUILD/ikbo_lce_sm90a.o" &
  gcc -O2 -c kernels/common/launch_env.c -I include -I . -I /usr/local/cuda/include -o "$BUILD/launch.o"
  wait
  nvcc "${flags[@]}" -arch=sm_90 bench/ikbo_lce/ikbo_lce_bench.cu "$BUILD"/ikbo_lce.o \
    "$BUILD"/ikbo_lce_sm90a.o "$BUILD"/launch.o -lcublas -lcuda -o "$BUILD/ikbo_lce_bench"
fi
if [[ ! -s $OUT/ours.jsonl ]]; then
  for run in 1 2 3; do
    "$BUILD/ikbo_lce_bench" --set heldout >>"$OUT/ours.jsonl"
  done
fi
python3 bench/ikbo_lce/heldout.py --ours "$OUT/ours.jsonl" --out "$OUT" \
  --first "${1:-0}" --count "${2:-1000}" --deadline "$DEADLINE" \
  --commit "$COMMIT"
