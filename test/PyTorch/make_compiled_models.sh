#!/bin/sh
# Compiles the models of test/PyTorch/test_compiled.py into shared objects
# (emb-compile --shared), on a machine with MLIR, into a folder to carry to
# the machine that runs the test (which needs only libembrt.so and torch):
#
#   test/PyTorch/make_compiled_models.sh OUT [BUILD]
#
# OUT gets <entry>_<target>.so for each entry of Inputs/compiled_models.mlir
# and each target (cpu, cuda: a cuda model's object needs no CUDA to
# compile), bad_descriptors.so (descriptors a loader must refuse) and
# next_abi.so (an object of the next compiled ABI version).
# BUILD is the build folder with emb-compile (default: build).
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 OUT [BUILD]" >&2
  exit 1
fi
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
build=${2:-$src/build}
mkdir -p "$out"
for entry in dense_tower sgd_step sequence many_inputs many_inputs_sgd; do
  for target in cpu cuda; do
    "$build/bin/emb-compile" "$src/test/PyTorch/Inputs/compiled_models.mlir" \
      --entry "$entry" --target "$target" --shared -o "$out/${entry}_$target.so"
  done
done
${CC:-cc} -shared -fPIC -I"$src/include" -o "$out/bad_descriptors.so" \
  "$src/test/Tools/emb-compile/Inputs/bad_descriptors.c"
abi=$(sed -n 's/^#define EMB_ABI_VERSION \([0-9][0-9]*\).*/\1/p' \
  "$src/include/emb/compiled.h")
${CC:-cc} -shared -fPIC -I"$src/include" -DOTHER_ABI=$((abi + 1)) \
  -o "$out/next_abi.so" "$src/test/Tools/emb-compile/Inputs/other_abi.c"
echo "wrote $out"
