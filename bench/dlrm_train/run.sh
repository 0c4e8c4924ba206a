#!/bin/bash
# The DLRM-DCNv2 training benchmark in one call on the GPU machine (bench/dlrm_train/NOTES.md):
# each implementation in a process of its own (bench/dlrm_train/dlrm.py: the loss curve from the
# init, the step timed, the profiled embedding part, the dense part alone), then report.py writes
# the records and the chart and prints the table last.
#
#   OUT=/tmp/dlrm bench/dlrm_train/run.sh path/to/libembrt.so
#   then: cp $OUT/dlrm_train.json $OUT/dlrm_train.svg (or .png) bench/results/
#
# LIB (or the first argument): libembrt.so. IMPLS: the implementations, in this order by default
# (the curve's pair first, the compiled ones last: they take longest to start, and the second
# finds the dense graph in the inductor cache). EXTRA: more dlrm.py flags for every
# implementation (e.g. "--zipf 1.05", "--cap-rows 10000000"). DEADLINE: seconds after which no
# further implementation starts (default 420); each one is also cut at LIMIT seconds (default
# 180) and at 560 s from the start (DLRM_DEADLINE replaces 420).
# Files under $OUT: run.log, dlrm_train.jsonl, dlrm_train.json, dlrm_train.svg or .png.
# The variables every family's run.sh has: bench/common/env.sh.
set -u
cd "$(dirname "$0")/../.." || exit 1
source bench/common/env.sh dlrm_train ""
LIB=${1:-${LIB:-$BUILD/lib/libembrt.so}}
IMPLS=${IMPLS:-emb_eager torch_rowwise torch_eager emb_compiled torch_compiled_dense}
EXTRA=${EXTRA:-}
DEADLINE=${DLRM_DEADLINE:-420}
LIMIT=${LIMIT:-180}
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-/tmp/inductor-dlrm}
bench_log_all

bench_gpu
echo "lib $LIB, commit $COMMIT, impls: $IMPLS"
rm -f "$OUT/dlrm_train.jsonl"
for impl in $IMPLS; do
  if [ "$(elapsed)" -gt "$DEADLINE" ]; then
    echo "=== $impl skipped: past the deadline ($(elapsed) s)"
    continue
  fi
  # The curve's pair (emb_eager, torch_rowwise) and emb_compiled record 200 steps from the
  # init; the slow peers 20 (their warm-up, and the first steps of the curve for scale).
  case $impl in
    torch_eager | torch_compiled_dense) curve=20 ;;
    *) curve=200 ;;
  esac
  left=$((560 - $(elapsed)))
  limit=$((left < LIMIT ? left : LIMIT))
  echo "=== $impl ($(elapsed) s, at most $limit s)"
  # shellcheck disable=SC2086  # EXTRA is a list of flags
  timeout "$limit" python3 bench/dlrm_train/dlrm.py --impl "$impl" --lib "$LIB" \
    --curve-steps "$curve" --out "$OUT/dlrm_train.jsonl" $EXTRA 2>&1 |
    grep -vE "Warning|warnings.warn" | cut -c1-400
  echo "=== $impl rc=${PIPESTATUS[0]} ($(elapsed) s)"
done
python3 bench/dlrm_train/report.py "$OUT/dlrm_train.jsonl" --json "$OUT/dlrm_train.json" \
  --chart "$OUT/dlrm_train" --commit "$COMMIT"
echo "=== done ($(elapsed) s)"
