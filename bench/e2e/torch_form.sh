#!/usr/bin/env bash
# The IKBO benchmark as torch-mlir writes it (examples/torch/ikbo_benchmark.mlir,
# raised by emb-raise and rewritten by emb-ikbo) against the emb-dialect
# version (examples/ikbo_benchmark.mlir after emb-ikbo), on the GPU machine:
# both compiled ahead of time here by tools/dev/aot-examples.sh into .aot/,
# built with the runtime there, timed alternately three times each (median of
# 30 with L2 flushed, emb-run-aot --repeat), and run once more on the same
# random inputs (--seed 11) with their outputs compared.
#
#   STEPS=torch_form bench/e2e/run.sh   (or this script alone; carry .aot)
#
# The variables every family's run.sh has: bench/common/env.sh.
set -u
cd "$(dirname "$0")/../.."
source bench/common/env.sh e2e/torch_form ""
P=$PWD B=$BUILD
mkdir -p "$B"
cmake -G Ninja -S . -B $B -DEMB_ENABLE_COMPILER=OFF -DEMB_AOT_MODELS="$P/.aot/ikbo_benchmark;$P/.aot/torch_ikbo_benchmark" > $OUT/cfg.log 2>&1 || { tail $OUT/cfg.log; exit 1; }
time ninja -C $B emb-run-aot-ikbo_benchmark emb-run-aot-torch_ikbo_benchmark > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
for r in 1 2 3; do for m in ikbo_benchmark torch_ikbo_benchmark; do
  $B/bin/emb-run-aot-$m --device cuda --random-inputs --repeat 30 2>&1 | grep median | sed "s/^/$m run $r: /"; done; done
for m in ikbo_benchmark torch_ikbo_benchmark; do $B/bin/emb-run-aot-$m --device cuda --random-inputs --seed 11 --output-dir /tmp/o-$m > /dev/null 2>&1; echo "$m rc=$?"; done
ls /tmp/o-*; cmp /tmp/o-ikbo_benchmark/ikbo_benchmark.result0.npy /tmp/o-torch_ikbo_benchmark/ikbo_benchmark.result0.npy && echo "outputs bit-identical"
python3 -c "
import numpy as np; a=np.load('/tmp/o-ikbo_benchmark/ikbo_benchmark.result0.npy').astype(np.float32); b=np.load('/tmp/o-torch_ikbo_benchmark/ikbo_benchmark.result0.npy').astype(np.float32); print('max abs diff', float(abs(a-b).max()), 'mean abs', float(abs(a).mean()))"
