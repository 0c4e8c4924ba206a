#!/bin/bash
# One call on the GPU machine for the quantized-table lookup
# (docs/kernels/tbe_quantized.md): finds or builds the CUDA runtime library
# (libembrt.so: LIB, else carried in .quant-carry/, else bench/common/env.sh's
# build step in $BUILD), runs bench.py (the accuracy checks, then emb's int8,
# int4, int2, fp8 and f16 lookups and the torch peers, RUNS runs a side) and
# prints report.py's table with the bars last. Meant to fit one device call
# of about 4 minutes with the build (TOTAL).
#
#   STEPS=bench,report COMMIT=<sha> bench/tbe_quantized/run.sh
#   then, here: cp $OUT/tbe_quantized.json bench/results/
#
# The variables every family's run.sh has: bench/common/env.sh.
# STEPS (default bench,report):
#   bench   bench.py: $OUT/tbe_quantized.jsonl (dry.jsonl with DRY=1)
#   report  report.py over those lines: $OUT/tbe_quantized.json (the records
#           and the bars) and the table
# ONLY: the sides to time (bench.py --only: emb_f16, emb_int8, emb_int4,
#   emb_int2, emb_fp8, torch_int4_words, torch_int4_bytes, torch_int8_words,
#   torch_int8_bytes, torch_int4_ebag, torch_int4_eager, torch_int8_eager,
#   torch_f16_ebag); the accuracy checks always run.
# RUNS: runs a side (default 3).
# DEADLINE: seconds after the start past which the peers compile in torch's
#   default mode, the optional peers are skipped and no further run starts
#   (default TOTAL - 60).
# TOTAL: seconds this script may take (default 240); bench.py is stopped
#   15 s before, so that the report still runs.
# DRY=1: bench.py --dry-run (the CPU at tiny shapes, torch eager; no
#   nvidia-smi, no build: give LIB, and PY and PYTHONPATH for an older
#   torch): checks this script end to end.
# PEER_MODE: torch.compile's mode for the peers (default
#   max-autotune-no-cudagraphs); COMPILE_BUDGET: compile seconds after which
#   the rest compile in the default mode (default 90). NO_COMPILE=1: the
#   peers eager. INDEX_DTYPE: int32 (default) or int64 ids and offsets.
# LIB: a libembrt.so to use. PY: the Python (default python3).
# Files under $OUT: run.log, tbe_quantized.jsonl (dry.jsonl),
# tbe_quantized.json.
set -u
cd "$(dirname "$0")/../.."
TOTAL=${TOTAL:-240}
DEADLINE=${DEADLINE:-$((TOTAL - 60))}
source bench/common/env.sh tbe_quantized bench,report
PY=${PY:-python3}
DRY=${DRY:-}
bench_log_all

[ -z "$DRY" ] && bench_gpu
if [ -n "${LIB:-}" ]; then
  :
elif [ -f .quant-carry/libembrt.so ]; then
  LIB=.quant-carry/libembrt.so
elif [ -z "$DRY" ]; then
  LIB=$BUILD/lib/libembrt.so
  bench_build embrt_shared || exit 1
  rm -f "$OUT/build.log" "$OUT/configure.log"
else
  echo "DRY=1 needs LIB (a CPU build's libembrt.so)"
  exit 2
fi
stamp "library $LIB"

out=$OUT/tbe_quantized.jsonl
args=(--runs "$RUNS" --index-dtype "${INDEX_DTYPE:-int32}"
  --peer-mode "${PEER_MODE:-max-autotune-no-cudagraphs}"
  --compile-budget "${COMPILE_BUDGET:-90}")
[ -n "$ONLY" ] && args+=("${onlyArgs[@]}")
[ -n "${NO_COMPILE:-}" ] && args+=(--no-compile)
if [ -n "$DRY" ]; then
  args+=(--dry-run)
  out=$OUT/dry.jsonl
fi
if has bench; then
  stamp "bench (peers past $((DEADLINE - $(elapsed))) s compile in the default mode)"
  PYTHONPATH=${PYTHONPATH:+$PYTHONPATH:}$PWD/python \
    timeout $((TOTAL - $(elapsed) - 15)) $PY bench/tbe_quantized/bench.py --lib "$LIB" \
    --commit "$COMMIT" --out "$out" --deadline $((DEADLINE - $(elapsed))) "${args[@]}" 2>&1 |
    grep -v -i "warning"
  echo "bench rc=${PIPESTATUS[0]}"
fi

if has report; then
  stamp report
  $PY bench/tbe_quantized/report.py --jsonl "$out" --json "$OUT/tbe_quantized.json"
fi
stamp done
