#!/usr/bin/env bash
# emb.jagged_to_padded on the GPU machine, in one call: builds the runtime
# half (no MLIR) under $BUILD, runs the GPU test (test/Kernels/jagged.c) and
# compute-sanitizer memcheck on its quick cases, then the benchmark and the
# torch peer, three runs a side, and prints the table last.
#
#   bash bench/jagged/run.sh       (then cp $OUT/jagged.json bench/results/)
#
# The variables every family's run.sh has: bench/common/env.sh.
# STEPS (default all): test,memcheck,bench,peers,report
set -u
cd "$(dirname "$0")/../.."
source bench/common/env.sh jagged test,memcheck,bench,peers,report
bench_build embrt-kernel-test-jagged emb-bench-jagged || exit 1
if has test; then
  stamp "GPU test"
  timeout 120 "$BUILD/test/Kernels/jagged" 2>&1 | tail -n 3
fi
if has memcheck; then
  stamp "compute-sanitizer memcheck (--quick)"
  timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$BUILD/test/Kernels/jagged" --quick 2>&1 | tail -n 2
fi
if has bench; then
  stamp bench
  timeout 150 "$BUILD/bench/jagged_bench" --out "$OUT/ours.jsonl" >/dev/null || echo "ours failed"
fi
if has peers; then
  stamp peers
  timeout 200 python3 bench/jagged/peers.py --out "$OUT/peers.jsonl" \
    >/dev/null 2>"$OUT/peers.err" || { echo "peers failed"; tail -n 5 "$OUT/peers.err"; }
fi
if has report; then
  python3 bench/jagged/report.py --ours "$OUT/ours.jsonl" --peers "$OUT/peers.jsonl" \
    --json "$OUT/jagged.json" --commit "$COMMIT"
fi
