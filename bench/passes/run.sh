#!/usr/bin/env bash
# emb's rewrite passes timed on large generated modules (README.md), on any
# machine with MLIR (no GPU): time_passes.py (emb-opt --emb-ikbo on 5,000
# ops) and time_raise.py (--emb-raise on a module in torch-mlir's form),
# each exiting 1 over its limit.
#
#   bench/passes/run.sh
#
# The variables every family's run.sh has: bench/common/env.sh; here BUILD
# is a build with the compiler (default build, the one make builds, where
# bin/emb-opt is built when missing; CUDA is not needed). STEPS (default
# all): passes,raise.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
source bench/common/env.sh passes passes,raise
bench_log_all
if [ ! -x "$BUILD/bin/emb-opt" ]; then
  stamp "building emb-opt in $BUILD"
  { cmake -G Ninja -S . -B "$BUILD" $CMAKE_ARGS >"$OUT/configure.log" 2>&1 &&
    ninja -C "$BUILD" emb-opt >"$OUT/build.log" 2>&1; } ||
    { tail -n 40 "$OUT/configure.log" "$OUT/build.log"; exit 1; }
fi
status=0
if has passes; then
  stamp "time_passes.py"
  python3 bench/passes/time_passes.py --emb-opt "$BUILD/bin/emb-opt" || status=1
fi
if has raise; then
  stamp "time_raise.py"
  python3 bench/passes/time_raise.py --emb-opt "$BUILD/bin/emb-opt" || status=1
fi
exit $status
