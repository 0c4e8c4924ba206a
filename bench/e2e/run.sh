#!/usr/bin/env bash
# The compiled models on the GPU against their torch peers, in one call on the
# GPU machine: builds the runtime and a runner for each model that
# tools/dev/aot-examples.sh compiled into .aot/ (from the model as written,
# through emb-ikbo and emb-lower-to-runtime{target=cuda}), runs the IKBO
# benchmark models checked against the model as written, times them with
# events (median of --repeat, L2 flushed before each run), runs the peers
# (bench/e2e/peers.py), and writes $OUT/e2e.json.
#
# The variables every family's run.sh has: bench/common/env.sh.
# STEPS (default models):
#   models           the above
#   ranking          the end-to-end ranking model and its per-stage
#                    breakdown (bench/e2e/ranking.sh, under $OUT/ranking)
#   ranking_whole    the same without the per-stage breakdown
#   ranking_int4     the ranking model with its pooled tables at int4 against
#                    its f16-table model and the int4 torch peer
#                    (bench/e2e/ranking_int4.sh, under $OUT/ranking_int4)
#   ranking_kernels  its kernels one by one under ncu
#                    (bench/e2e/ranking_kernels.sh, under $OUT/ranking_kernels)
#   torch_form       the IKBO benchmark as torch-mlir writes it against the
#                    emb-dialect version (bench/e2e/torch_form.sh)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
source bench/common/env.sh e2e models
out=$OUT
build=$BUILD
# Each model is run RUNS times (default 3), each run the median of
# `--repeat 30` (on a GPU: 25 ms of warm-up, at least 30 calls and 100 ms, as
# do_bench times the peers).
if has models; then
  for model in ikbo_benchmark target_attention_benchmark; do
    : > "$out/$model.txt"
    for run in $(seq "${RUNS:-3}"); do
      "$build/bin/emb-run-aot-$model" --device cuda --random-inputs \
        --compare-unoptimized --repeat 30 >> "$out/$model.txt" 2>&1
      echo "exit=$?" >> "$out/$model.txt"
    done
    cat "$out/$model.txt"
  done
  PYTHONUNBUFFERED=1 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache \
    python3 bench/e2e/peers.py > "$out/peers.jsonl" 2> "$out/peers.err"
  tail -3 "$out/peers.err"
  python3 bench/e2e/report.py --out "$out" --commit "$COMMIT"
fi
if has ranking; then
  OUT=$out/ranking STEPS=stages bash bench/e2e/ranking.sh
fi
if has ranking_whole; then
  OUT=$out/ranking STEPS=whole bash bench/e2e/ranking.sh
fi
if has ranking_int4; then
  OUT=$out/ranking_int4 bash bench/e2e/ranking_int4.sh
fi
if has ranking_kernels; then
  OUT=$out/ranking_kernels bash bench/e2e/ranking_kernels.sh
fi
if has torch_form; then
  OUT=$out/torch_form bash bench/e2e/torch_form.sh
fi
