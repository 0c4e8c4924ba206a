#!/usr/bin/env bash
# emb.jagged_to_padded on the GPU machine, in one call: builds the runtime
# half (no MLIR) under $BUILD, runs the GPU test (test/Kernels/jagged.c) and
# compute-sanitizer memcheck on its quick cases, then the benchmark and the
# torch peer, three runs a side, and prints the table last.
#
#   bash bench/jagged/run.sh       (OUT=/tmp/jagged; then
#                                   cp $OUT/jagged.json bench/results/)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/jagged}
BUILD=${BUILD:-/tmp/emb-jagged-build}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo uncommitted)}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
mkdir -p "$OUT"
cmake -G Ninja -S . -B "$BUILD" -DEMB_ENABLE_COMPILER=OFF \
  -DCMAKE_CUDA_ARCHITECTURES=90-real >"$OUT/configure.log" 2>&1 &&
  ninja -C "$BUILD" -j "$(nproc)" embrt-kernel-test-jagged emb-bench-jagged \
    >"$OUT/build.log" 2>&1 || { tail -n 40 "$OUT/build.log"; exit 1; }
echo "== GPU test"
timeout 120 "$BUILD/test/Kernels/jagged" 2>&1 | tail -n 3
echo "== compute-sanitizer memcheck (--quick)"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 \
  "$BUILD/test/Kernels/jagged" --quick 2>&1 | tail -n 2
echo "== bench"
timeout 150 "$BUILD/bench/jagged_bench" --out "$OUT/ours.jsonl" >/dev/null || echo "ours failed"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/jagged/peers.py --out "$OUT/peers.jsonl" \
  >/dev/null 2>"$OUT/peers.err" || { echo "peers failed"; tail -n 5 "$OUT/peers.err"; }
python3 bench/jagged/report.py --ours "$OUT/ours.jsonl" --peers "$OUT/peers.jsonl" \
  --json "$OUT/jagged.json" --commit "$COMMIT"
