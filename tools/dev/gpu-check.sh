#!/usr/bin/env bash
# On a GPU machine without MLIR: build the runtime, the kernels, their tests
# and a runner for every model compiled ahead of time into .aot/ (by
# tools/dev/aot-examples.sh on a machine with MLIR), run the GPU test suite
# with lit (carried in .lit/) and every compiled model on the GPU, checked
# against the model as written. Logs go to $OUT when it is set. A build
# packed here by tools/dev/gpu-pack.sh (.gpu-carry/) is used instead of
# building, when it was carried. .lit/ holds lit's package (a copy of
# /usr/lib/llvm-22/utils/lit/lit) and, in .lit/bin, LLVM's FileCheck, not
# and count with the libz3.so.4 they link, which the GPU machine lacks.
set -uo pipefail
if [[ -d .lit/bin ]]; then
  export PATH=$PWD/.lit/bin:$PATH
  export LD_LIBRARY_PATH=$PWD/.lit/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
out=${OUT:-/tmp/emb-gpu-check}
mkdir -p "$out"
if [[ -f .gpu-carry/build.tar.zst ]]; then
  # A build packed on the build machine (tools/dev/gpu-pack.sh): unpacked at
  # its own path, with the checkout's path there leading to this copy.
  source .gpu-carry/paths
  .gpu-carry/zstd -q -d --long=31 -c .gpu-carry/build.tar.zst | tar -xf - -C /
  if [[ "$(cd "$source" 2>/dev/null && pwd -P)" != "$(pwd -P)" ]]; then
    mkdir -p "$(dirname "$source")"
    ln -sfn "$PWD" "$source"
  fi
  # The site config names the build machine's python3.
  sed -i "s|^config.python_executable = .*|config.python_executable = r\"$(command -v python3)\"|" \
    "$build/test/lit.site.cfg.py"
  # and its tools where they are; there they may be elsewhere on PATH
  # (cmake and ninja come with the PyTorch environment).
  for tool in cmake:cmake make_program:ninja c_compiler:cc pkg_config:pkg-config; do
    key=${tool%%:*} name=${tool#*:}
    if ! [[ -x $(sed -n "s|^config.$key = r\"\(.*\)\"|\1|p" "$build/test/lit.site.cfg.py") ]] &&
      where=$(command -v "$name"); then
      sed -i "s|^config.$key = .*|config.$key = r\"$where\"|" "$build/test/lit.site.cfg.py"
    fi
  done
  rm -rf build-gpu && ln -s "$build" build-gpu
else
  models=$(ls "$PWD"/.aot/*.o 2>/dev/null | sed 's/\.o$//' | tr '\n' ';')
  cmake -G Ninja -S . -B build-gpu -DEMB_ENABLE_COMPILER=OFF \
    -DEMB_AOT_MODELS="$models" > "$out/configure.log" 2>&1 || {
    tail -30 "$out/configure.log"; exit 1; }
  ninja -C build-gpu -j "$(nproc)" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# A packed build holds the programs, not CMake's install scripts: the install
# tests (Tools/install, CI runs them on a whole build) are left out there.
litArgs=()
if [[ -f .gpu-carry/build.tar.zst ]]; then
  litArgs=(--filter-out 'Tools/install/')
  echo "packed build: Tools/install/ left out (no cmake_install.cmake in a pack)"
fi
PYTHONPATH=.lit python3 -c 'import sys; from lit.main import main; sys.argv[0] = "lit"; main()' \
  -sv "${litArgs[@]}" build-gpu/test 2>&1 | tee "$out/lit.log" | tail -25
# The benchmark-shape models are timed against their peers by bench/e2e/run.sh,
# the ranking model (16 GiB of tables, its inputs written by the benchmark)
# by bench/e2e/ranking.sh.
for runner in build-gpu/bin/emb-run-aot-*; do
  case "$runner" in
  *benchmark* | */emb-run-aot-ranking_model | */emb-run-aot-ranking_stage_*) continue ;;
  esac
  [[ -x "$runner" ]] || continue
  echo "== $runner"
  # A model in torch-mlir's form whose header names its inputs' roles
  # (dynamic sizes that --random-inputs cannot derive) gets them as .npy.
  name=${runner##*/emb-run-aot-}
  source_model=examples/torch/${name#torch_}.mlir
  inputs=(--random-inputs)
  if [[ $name == torch_* ]] && grep -q '^// emb-run inputs:' "$source_model" 2>/dev/null; then
    inputs=(--inputs "$(python3 test/Codegen/Inputs/npy_inputs.py "$source_model" "$out/inputs_$name" --seed 3)")
  fi
  "$runner" --device cuda "${inputs[@]}" --compare-unoptimized --repeat 20 2>&1 | tee -a "$out/models.log"
done
