#!/usr/bin/env bash
# Compiles what bench/e2e/ranking_int4.sh runs, where MLIR is:
#
#   bench/e2e/ranking_int4_compile.sh EMB_COMPILE AOT [SHAPE [TARGET]]
#
# into AOT/: ranking_model (the f16-table model), ranking_model_int4 (its 64
# pooled tables packed at int4 and passed in as packed rows: no
# quantization in the call) and ranking_stage_lookups_int4 (its lookups
# alone, for the CPU-against-device check). SHAPE is a shape of
# bench/e2e/ranking_model.py (full: examples/ranking_model.mlir; small16:
# the dry run's), TARGET cuda (default) or cpu. tools/dev/aot-examples.sh
# runs it for the full shape into .aot.
set -euo pipefail
cd "$(dirname "$0")/../.."
compile=${1:?usage: ranking_int4_compile.sh EMB_COMPILE AOT [SHAPE [TARGET]]}
aot=${2:?usage: ranking_int4_compile.sh EMB_COMPILE AOT [SHAPE [TARGET]]}
shape=${3:-full}
target=${4:-cuda}
pipeline=emb-raise,emb-ikbo,emb-batch-tables
int4="$pipeline,emb-quantize-tables{precision=int4 arguments=packed}"
mkdir -p "$aot"
python3 bench/e2e/ranking_model.py --shape "$shape" -o "$aot/ranking_model_$shape.mlir"
python3 bench/e2e/ranking_model.py --shape "$shape" --stage lookups \
  -o "$aot/ranking_stage_lookups_$shape.mlir"
# The remarks (one a table) go to a log beside the objects.
"$compile" "$aot/ranking_model_$shape.mlir" --target "$target" --pipeline "$pipeline" \
  -o "$aot/ranking_model" > "$aot/ranking_int4_compile.log" 2>&1
"$compile" "$aot/ranking_model_$shape.mlir" --target "$target" --pipeline "$int4" \
  -o "$aot/ranking_model_int4" >> "$aot/ranking_int4_compile.log" 2>&1
"$compile" "$aot/ranking_stage_lookups_$shape.mlir" --target "$target" --pipeline "$int4" \
  -o "$aot/ranking_stage_lookups_int4" >> "$aot/ranking_int4_compile.log" 2>&1
grep -c "takes its packed rows" "$aot/ranking_int4_compile.log" |
  sed "s/^/ranking_int4_compile.sh: tables taken as packed int4 rows (model and lookups stage): /"
