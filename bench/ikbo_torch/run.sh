#!/usr/bin/env bash
# The IKBO PyTorch modules (python/emb_torch) against the torch forms they
# replace, on the GPU machine (NOTES.md): bench/ikbo_torch/bench.py, RUNS
# runs, the records to $OUT/ikbo_torch.json (copy it to bench/results/).
#
#   bench/ikbo_torch/run.sh
#
# The variables every family's run.sh has: bench/common/env.sh. ONLY: the
# cases (bench.py --cases; default all). LIB: the libembrt.so to load
# (default $BUILD/lib/libembrt.so, built here when missing).
set -u
cd "$(dirname "$0")/../.."
source bench/common/env.sh ikbo_torch ""
LIB=${LIB:-$BUILD/lib/libembrt.so}
bench_log_all

bench_gpu
if [ ! -f "$LIB" ]; then
  bench_build embrt_shared || exit 1
fi
cases=()
[ -n "$ONLY" ] && cases=(--cases "$ONLY")
python3 bench/ikbo_torch/bench.py --lib "$LIB" --runs "$RUNS" "${cases[@]}" \
  --out "$OUT/ikbo_torch.json"
