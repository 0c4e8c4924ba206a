#!/usr/bin/env bash
# CUDA graphs on the GPU machine, in one call: builds the runtime half (no
# MLIR) under $BUILD, runs the runtime's graph tests (test/Runtime/graph.c,
# cuda_graph.c, and cuda_plumbing.c for the memory paths the capture checks
# touch), runs every model compiled ahead of time into .aot/ (if carried:
# tools/dev/aot-examples.sh on a machine with MLIR) with emb-run-aot
# --cuda-graph (captured, replay checked against a direct call, replays
# timed), then times the single-table mean-pooling points of the TBE
# benchmark replayed from CUDA graphs and per call with L2 flushed, ours
# (bench/tbe/tbe_graphs.c) and torch's (bench/tbe/graphs_peers.py) in the
# same run, writes $OUT/tbe_graphs.json and prints the table last.
#
# The step graphs of bench/tbe/run.sh (STEPS=graphs bench/tbe/run.sh), or
# alone:
#
#   bash bench/tbe/graphs.sh            (OUT=/tmp/emb-bench/tbe/graphs)
#   then: cp $OUT/tbe_graphs.json bench/results/
#
# The variables every family's run.sh has: bench/common/env.sh.
# CALLS, REPLAYS: calls captured in one graph, replays a timed run (100, 10).
# GRAPHS_DEADLINE: seconds after the start past which the compiled models
#   are skipped (default 330), so that the whole call stays under 8 minutes.
set -u
cd "$(dirname "$0")/../.."
source bench/common/env.sh tbe/graphs ""
CALLS=${CALLS:-100}
REPLAYS=${REPLAYS:-10}
DEADLINE=${GRAPHS_DEADLINE:-330}
bench_log_all

bench_gpu
models=$(ls "$PWD"/.aot/*.o 2>/dev/null | sed 's/\.o$//' | tr '\n' ';')
runners=""
for m in $(ls .aot/*.o 2>/dev/null); do
  runners="$runners emb-run-aot-$(basename "$m" .o)"
done

CMAKE_ARGS="$CMAKE_ARGS -DEMB_AOT_MODELS=$models"
bench_build embrt-test-graph embrt-test-cuda_graph embrt-test-cuda_plumbing \
  emb-bench-tbe-graphs || exit 1
# The compiled models' runners: a failure here skips them, not the rest.
if [ -n "$runners" ] &&
  ! ninja -C "$BUILD" $runners >>"$OUT/build.log" 2>&1; then
  tail -n 20 "$OUT/build.log"
  echo "emb-run-aot runners failed to build: skipped"
  runners=""
fi

stamp "runtime graph tests"
for t in graph cuda_graph cuda_plumbing; do
  timeout 120 "$BUILD/test/Runtime/$t" >"$OUT/test_$t.txt" 2>&1
  echo "test/Runtime/$t rc=$? ($(tail -n 1 "$OUT/test_$t.txt"))"
  grep -v "^PASSED" "$OUT/test_$t.txt" | head -n 20
done

if [ -n "$runners" ]; then
  stamp "compiled models: emb-run-aot --cuda-graph"
  for r in $runners; do
    if [ "$(elapsed)" -ge "$DEADLINE" ]; then
      echo "$r skipped: past the deadline"
      continue
    fi
    timeout 90 "$BUILD/bin/$r" --device cuda --random-inputs --cuda-graph \
      --repeat 20 >"$OUT/$r.txt" 2>&1
    echo "$r rc=$?"
    grep -E "median|graph|error|MISMATCH|differ" "$OUT/$r.txt" |
      sed 's/^emb-run: //' | head -n 6
  done
else
  echo "no compiled models (.aot/ not carried, or runners not built): emb-run-aot --cuda-graph not run"
fi

stamp "ours: tbe_graphs"
timeout 150 "$BUILD/bench/tbe_graphs" --out "$OUT/ours.jsonl" \
  --calls "$CALLS" --replays "$REPLAYS" >"$OUT/ours.txt" 2>&1
echo "tbe_graphs rc=$?"
grep -v "^{" "$OUT/ours.txt" | head -n 10

stamp "torch: graphs_peers.py"
PYTHONUNBUFFERED=1 timeout 200 python3 bench/tbe/graphs_peers.py \
  --out "$OUT/peers.jsonl" --calls "$CALLS" --replays "$REPLAYS" \
  >"$OUT/peers.txt" 2>&1
echo "graphs_peers rc=$?"
grep -v "^{" "$OUT/peers.txt" | head -n 10

stamp report
python3 bench/tbe/graphs_report.py --ours "$OUT/ours.jsonl" \
  --peers "$OUT/peers.jsonl" --json "$OUT/tbe_graphs.json" --commit "$COMMIT"
stamp done
