#!/bin/bash
# Packs what bench/tbe_train/run.sh runs from a CMake build of the runtime
# half (cmake -G Ninja -S . -B BUILD -DEMB_ENABLE_COMPILER=OFF; ninja -C BUILD
# all emb-bench-tbe-train embrt-kernel-test-tbe-backward-pipe)
# into .bwd-carry/bins.tar.xz, so that a device call can carry the binaries
# instead of building them (device time). Add /.bwd-carry/ to
# .git/info/exclude and name .bwd-carry in the call's carry list.
#
#   bench/tbe_train/pack.sh build-bench [CARRY_DIR]   (default .bwd-carry; run.sh
#   reads CARRY)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:?usage: pack.sh BUILD_DIR [CARRY_DIR]}
CARRY=${2:-.bwd-carry}
mkdir -p "$CARRY"
tar cJf "$CARRY/bins.tar.xz" -C "$BUILD" \
  test/Kernels/tbe_backward test/Kernels/tbe_backward_pipe \
  test/Kernels/tbe_backward_state test/Kernels/tbe_backward_config \
  test/Kernels/tbe test/Runtime/tbe_backward test/Runtime/tbe_backward_state \
  bench/tbe_train_bench \
  lib/libembrt.so
ls -la "$CARRY/bins.tar.xz"
