#!/usr/bin/env bash
# A/B of the runtime between two trees, in one call on the GPU machine: for a
# change that must leave every figure as it was (a refactor of the runtime or
# the launchers), time the same benchmarks built from the old tree and from
# this one, alternating, and print the ratio of each case with the spread of
# its runs. The comparison runs through the same paths users take: the
# compiled IKBO models (emb-run-aot, through the compiled ABI, the entry points
# and the backend), the TBE forward through the public API (tbe_bench), and
# the IKBO LCE and attention launchers (their benches).
#
#   OLD=.ab/old OLD_AOT=.ab/old-aot RUNS=3 OUT=/tmp/ab bench/ab/run.sh
#
# OLD: the old tree's sources (git archive <commit> | tar -x -C .ab/old).
# OLD_AOT, .aot: the benchmark models compiled ahead of time by each tree's
#   emb-compile (tools/dev/aot-examples.sh). This tree's .aot may also hold
#   torch_ikbo_benchmark (the IKBO benchmark as torch-mlir writes it, raised):
#   it is timed beside the emb-dialect version and its outputs compared.
# TBE_CASES: tbe_bench cases (default all of its headline and small cases).
# TRAIN_CASES: tbe_train_bench cases, the training step (default the f32- and
#   f16-table cases of every optimizer the old tree has).
# STEPS: build (both trees), ab (the timed runs and the table), test (this
#   tree's GPU suite and compiled examples); default all three. Without
#   build, $BUILD and $BUILD-old must already hold both trees' binaries
#   (built on another machine and carried: the runs need bench/tbe_bench,
#   bench/tbe_train_bench, bench/ikbo_lce_bench, bench/attention_bench and
#   the bin/emb-run-aot-* models, each skipped where it is missing).
# Writes $OUT/ab.json (one record per case and side, every run kept), runs
# this tree's GPU test suite, and prints the table last. The variables every
# family's run.sh has: bench/common/env.sh; this tree builds in $BUILD, the
# old one in $BUILD-old.
set -uo pipefail
cd "$(dirname "$0")/../.."
source bench/common/env.sh ab build,ab,test
if has build; then
  OLD=${OLD:?OLD: the old tree}
  OLD_AOT=${OLD_AOT:?OLD_AOT: the old tree\'s compiled models}
fi
TBE_CASES=${TBE_CASES:-tbe_fbgemm_default,tbe_f16,tbe_f32,tbe_f32_zipf,tbe_f16_weighted_d64,tbe_f16_l4,ebag_mean_d32_l1,ebag_mean_d64_l4,ebag_mean_d128_l8,ebag_mean_big}
TRAIN_CASES=${TRAIN_CASES:-train_rowwise_uniform,train_rowwise_zipf,train_rowwise_l4,train_rowwise_fbgemm,train_sgd_uniform,train_adam_uniform,train_rowwise_f16}
NEW_B=$BUILD OLD_B=$BUILD-old
case $OLD_B in /*) ;; *) OLD_B=$PWD/$OLD_B ;; esac
models() { ls "$PWD/$1"/*.o 2>/dev/null | sed 's/\.o$//' | tr '\n' ';'; }
# The default target, and the benchmark drivers where they are not part of it
# (emb-bench).
build() {
  ninja -C "$1" && if ninja -C "$1" -t query emb-bench >/dev/null 2>&1; then
    ninja -C "$1" emb-bench
  fi
}

if has build; then
  stamp "build both trees (runtime half, with their compiled models)"
  cmake -G Ninja -S . -B $NEW_B -DEMB_ENABLE_COMPILER=OFF \
    -DEMB_AOT_MODELS="$(models .aot)" >"$OUT/new-configure.log" 2>&1 &&
    build $NEW_B >"$OUT/new-build.log" 2>&1 &
  newPid=$!
  (cmake -G Ninja -S "$OLD" -B $OLD_B -DEMB_ENABLE_COMPILER=OFF \
    -DEMB_AOT_MODELS="$(models "$OLD_AOT")" >"$OUT/old-configure.log" 2>&1 &&
    build $OLD_B >"$OUT/old-build.log" 2>&1 &&
    if [ -f "$OLD/bench/tbe/build.sh" ]; then
      (cd "$OLD" && BUILD=/tmp/ab-old-tbe bench/tbe/build.sh) >"$OUT/old-tbe.log" 2>&1
    fi) &
  oldPid=$!
  wait $newPid || { tail -30 "$OUT/new-build.log"; exit 1; }
  wait $oldPid || { tail -30 "$OUT"/old-*.log; exit 1; }
fi
oldTbe=$OLD_B/bench/tbe_bench
[ -x "$oldTbe" ] || oldTbe=/tmp/ab-old-tbe/tbe_bench

if has ab; then
  stamp "A/B runs ($RUNS a side, alternating)"
  for run in $(seq "$RUNS"); do
    for side in new old; do
      if [ $side = new ]; then b=$NEW_B tbe=$NEW_B/bench/tbe_bench; else b=$OLD_B tbe=$oldTbe; fi
      d="$OUT/$side-$run"
      mkdir -p "$d"
      timeout 120 "$tbe" --out "$d/tbe.jsonl" --only "$TBE_CASES" --no-sweep >/dev/null 2>"$d/tbe.err"
      if [ -x "$b/bench/tbe_train_bench" ]; then
        timeout 120 "$b/bench/tbe_train_bench" --out "$d/tbe_train.jsonl" --only "$TRAIN_CASES" \
          >/dev/null 2>"$d/tbe_train.err"
      fi
      timeout 60 "$b/bench/ikbo_lce_bench" --set main >"$d/ikbo_lce.jsonl" 2>"$d/ikbo_lce.err"
      timeout 60 "$b/bench/attention_bench" --uniform --lk 512 --lk 2048 \
        --out "$d/attention.jsonl" >/dev/null 2>"$d/attention.err"
      for m in ikbo_benchmark target_attention_benchmark; do
        timeout 60 "$b/bin/emb-run-aot-$m" --device cuda --random-inputs \
          --repeat 30 >"$d/$m.txt" 2>&1
      done
      if [ $side = new ] && [ -x "$b/bin/emb-run-aot-torch_ikbo_benchmark" ]; then
        timeout 60 "$b/bin/emb-run-aot-torch_ikbo_benchmark" --device cuda \
          --random-inputs --repeat 30 >"$d/torch_ikbo_benchmark.txt" 2>&1
      fi
    done
  done
  # The torch-form model against the emb-dialect one on the same inputs.
  if [ -x "$NEW_B/bin/emb-run-aot-torch_ikbo_benchmark" ]; then
    for m in ikbo_benchmark torch_ikbo_benchmark; do
      "$NEW_B/bin/emb-run-aot-$m" --device cuda --random-inputs --seed 11 \
        --output-dir "$OUT/outputs-$m" >/dev/null 2>&1
    done
  fi
  stamp "report"
  python3 bench/ab/report.py "$OUT" "$RUNS" | tee "$OUT/ab.txt"
fi

# Last, so that a call cut short still brings the timings back.
if has test; then
  stamp "GPU test suite of this tree"
  PYTHONPATH=.lit timeout "${LIT_TIMEOUT:-300}" python3 -c \
    'import sys; from lit.main import main; sys.argv[0] = "lit"; main()' \
    -sv $NEW_B/test >"$OUT/lit.log" 2>&1
  echo "lit rc=$?"
  grep -E "^(FAIL|XPASS)|Passed|Failed|Unsupported|Expectedly" "$OUT/lit.log" | tail -8
  # Every other compiled example on the GPU against the model as written.
  for runner in $NEW_B/bin/emb-run-aot-*; do
    [[ -x "$runner" && "$runner" != *benchmark* ]] || continue
    "$runner" --device cuda --random-inputs --compare-unoptimized --repeat 5 \
      >"$OUT/$(basename "$runner").txt" 2>&1
    echo "$(basename "$runner") rc=$? $(grep -c ': ok' "$OUT/$(basename "$runner").txt") ok" \
      "$(grep -c MISMATCH "$OUT/$(basename "$runner").txt") mismatch"
  done
fi
[ -f "$OUT/ab.txt" ] && cat "$OUT/ab.txt"
