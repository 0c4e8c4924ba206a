#!/bin/bash
# One call on the GPU machine for the TBE training step (issue 14): builds the
# runtime half with CMake (no MLIR there) unless binaries were carried, runs
# the GPU test of the backward (and the CPU and config tests), runs
# compute-sanitizer memcheck and racecheck on its quick case, times ours and
# the torch peers three times a side in one call, runs the PyTorch binding's
# test, and writes the results (bench/results/tbe_train.json's records) and
# the chart. Prints a short table last.
#
#   OUT=/tmp/train bench/tbe_train/run.sh
#   then: cp $OUT/tbe_train.json bench/results/
#         cp $OUT/tbe_train.png docs/kernels/
#
# Binaries built on another machine (same CUDA 13, sm_90) can travel instead
# of being built here: bench/tbe_train/pack.sh BUILD_DIR writes
# .bwd-carry/bins.tar.xz (carry .bwd-carry), which is unpacked into $BUILD.
#
# The variables every family's run.sh has: bench/common/env.sh.
# STEPS (default all):
#   test,memcheck,racecheck,bench,profile,binding,report,state
#   (state: bench/tbe_train/state_precision.py, 100 steps of the uniform case
#   with f32 state and with bf16 / fp8 state from the same data: the tables'
#   relative RMS difference and both step times, into run.log)
#   (profile: each kernel's time in a step, PyTorch's profiler through the
#   binding; printed into run.log)
# RUNS: runs a side (default 3). ONLY: cases for the bench and the peers.
# SWEEP=1: the first run also times the routing configurations and the
#   accumulate variants (each step whole, its backward alone, and checked
#   as the default's); VARIANTS=NAME,...: only those variants.
# BACKWARD_TESTS: the GPU backward tests run (default: tbe_backward and, when
#   built, tbe_backward_pipe, short runs by the accumulate kernel's per-run
#   pipeline, and tbe_backward_state, states below f32); the first of them
#   also runs under the sanitizers.
#   FORWARD_TEST=0: skip the forward's GPU test.
# DEADLINE: seconds after the start past which later bench runs and
#   racecheck (run last) are skipped.
# Files under $OUT (at most 8 come back): run.log, test.txt, sanitizer.txt,
# ours.jsonl, peers.jsonl, binding.txt, tbe_train.json, tbe_train.png.
set -u
cd "$(dirname "$0")/../.."
source bench/common/env.sh tbe_train test,memcheck,racecheck,bench,profile,binding,report,state
CARRY=${CARRY:-.bwd-carry}
FORWARD_TEST=${FORWARD_TEST:-1}
VARIANTS=${VARIANTS:-}
bench_log_all
variantArgs=()
[ -n "$VARIANTS" ] && variantArgs=(--variants "$VARIANTS")

bench_gpu
if [ -f "$CARRY/bins.tar.xz" ]; then
  mkdir -p "$BUILD"
  tar xJf "$CARRY/bins.tar.xz" -C "$BUILD"
fi
if ! "$BUILD/test/Kernels/tbe_backward_config" >/dev/null 2>&1 ||
  [ ! -x "$BUILD/bench/tbe_train_bench" ]; then
  bench_build embrt-kernel-test-tbe-backward \
    embrt-kernel-test-tbe-backward-pipe embrt-kernel-test-tbe-backward-state \
    embrt-kernel-test-tbe-backward-config embrt-test-tbe_backward \
    embrt-kernel-test-tbe emb-bench-tbe-train embrt_shared || exit 1
  rm -f "$OUT/build.log" "$OUT/configure.log"
fi

if [ -z "${BACKWARD_TESTS:-}" ]; then
  BACKWARD_TESTS=tbe_backward
  for t in tbe_backward_pipe tbe_backward_state; do
    [ -x "$BUILD/test/Kernels/$t" ] && BACKWARD_TESTS="$BACKWARD_TESTS $t"
  done
fi
if has test; then
  stamp "tests: config (CPU), reference (CPU), backward (GPU), forward (GPU)"
  {
    "$BUILD/test/Kernels/tbe_backward_config"
    echo "config rc=$?"
    "$BUILD/test/Runtime/tbe_backward" 2>&1 | tail -n 3
    echo "cpu reference rc=${PIPESTATUS[0]}"
    for t in $BACKWARD_TESTS; do
      timeout 150 "$BUILD/test/Kernels/$t" 2>&1
      echo "gpu backward ($t) rc=$?"
    done
    if [ "$FORWARD_TEST" != 0 ]; then
      timeout 120 "$BUILD/test/Kernels/tbe" 2>&1 | tail -n 3
      echo "gpu forward rc=${PIPESTATUS[0]}"
    fi
  } >"$OUT/test.txt" 2>&1
  grep -vE "^@" "$OUT/test.txt" | head -n 40
fi

sanitize() { # tool
  local t=${BACKWARD_TESTS%% *}
  bench_sanitize "$1" 150 "$1 ($t)" "$BUILD/test/Kernels/$t" --quick
}
if has memcheck; then
  stamp memcheck
  sanitize memcheck
fi

if has bench; then
  rm -f "$OUT/ours.jsonl" "$OUT/peers.jsonl"
  for r in $(seq 1 "$RUNS"); do
    if [ "$r" -gt 1 ] && [ "$(elapsed)" -gt "$DEADLINE" ]; then
      echo "bench run $r skipped: past the deadline"
      break
    fi
    stamp "bench run $r (ours)"
    sweepArg=()
    [ "$r" = 1 ] && [ -n "${SWEEP:-}" ] && sweepArg=(--sweep)
    timeout 150 "$BUILD/bench/tbe_train_bench" --out "$OUT/ours_$r.jsonl" \
      --run "$r" "${sweepArg[@]}" "${variantArgs[@]}" "${onlyArgs[@]}" \
      >/dev/null
    echo "ours rc=$?"
    cat "$OUT/ours_$r.jsonl" >>"$OUT/ours.jsonl" 2>/dev/null
    rm -f "$OUT/ours_$r.jsonl"
    stamp "bench run $r (torch)"
    PYTHONUNBUFFERED=1 timeout 150 python3 bench/tbe_train/peers.py \
      --out "$OUT/peers_$r.jsonl" --run "$r" "${onlyArgs[@]}" >/tmp/peers.txt 2>&1
    echo "peers rc=$?"
    grep -v "^{" /tmp/peers.txt | head -n 5
    cat "$OUT/peers_$r.jsonl" >>"$OUT/peers.jsonl" 2>/dev/null
    rm -f "$OUT/peers_$r.jsonl"
  done
fi

if has profile; then
  stamp "profile (kernels of a step)"
  PYTHONUNBUFFERED=1 timeout 200 python3 bench/tbe_train/kernel_times.py \
    --lib "$BUILD/lib/libembrt.so" 2>&1 | grep -v Warning
fi

if has binding; then
  stamp "PyTorch binding test"
  PYTHONUNBUFFERED=1 timeout 150 python3 test/PyTorch/test_tbe.py \
    --device cuda --lib "$BUILD/lib/libembrt.so" >"$OUT/binding.txt" 2>&1
  echo "binding rc=$?"
  tail -n 4 "$OUT/binding.txt"
fi

if has state; then
  stamp "optimizer states below f32: 100 steps against f32 state"
  for args in "--precision fp8_e4m3" "--precision fp8_e5m2" "--precision bf16" \
    "--optimizer adam --precision fp8_e4m3 --precision2 fp8_e5m2" \
    "--optimizer adam --precision bf16"; do
    # shellcheck disable=SC2086
    PYTHONUNBUFFERED=1 timeout 200 python3 bench/tbe_train/state_precision.py \
      --lib "$BUILD/lib/libembrt.so" $args 2>&1 | grep -v Warning
    echo "state ($args) rc=${PIPESTATUS[0]}"
  done
fi

if has report && [ -f "$OUT/ours.jsonl" ]; then
  stamp report
  python3 bench/tbe_train/report.py --ours "$OUT/ours.jsonl" \
    --peers "$OUT/peers.jsonl" --json "$OUT/tbe_train.json" \
    --png "$OUT/tbe_train.png" --commit "$COMMIT"
fi
# Last, being the slowest and optional: skipped past DEADLINE.
if bench_late racecheck; then
  stamp racecheck
  sanitize racecheck
fi
if has memcheck || has racecheck; then
  bench_sanitizer_summary
fi
grep -E "rc=|PASSED|FAILED|cases$" "$OUT/test.txt" 2>/dev/null | head -n 12
stamp done
