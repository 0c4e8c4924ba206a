#!/usr/bin/env bash
# Packs a runtime-only build made on this machine into .gpu-carry/, so that a
# call on the GPU machine carries it instead of building it there (the
# kernels take minutes to build, and device time is short):
#
#   tools/dev/aot-examples.sh build
#   cmake -G Ninja -S . -B /tmp/bgpu -DEMB_ENABLE_COMPILER=OFF \
#     -DEMB_AOT_MODELS="$(ls $PWD/.aot/*.o | sed 's/\.o$//' | paste -sd';')"
#   ninja -C /tmp/bgpu
#   tools/dev/gpu-pack.sh /tmp/bgpu
#
# then name .gpu-carry (ignored by git: add /.gpu-carry/ to
# .git/info/exclude) in the call's carry list; tools/dev/gpu-check.sh unpacks
# it. The archive holds the programs (tests, runners), libembrt.so and lit's
# site config, at the build's absolute path; the site config also names this
# checkout's absolute path, which gpu-check.sh links to the copy there.
set -euo pipefail
build=$(cd "${1:?usage: gpu-pack.sh BUILD_DIR}" && pwd)
cd "$(dirname "$0")/../.."
mkdir -p .gpu-carry
# Executables and shared libraries outside CMake's object folders, and the
# site config. Every program links the kernels: zstd's long-range matching
# (a 2 GiB window) stores them about once (a whole build: 1.4 GiB to about
# 30 MB; xz's 8 MiB window left 517 MB). The GPU machine has no zstd: its
# program (statically linked to libzstd) travels beside the archive.
(cd / && find "${build#/}" -type f -not -path '*/CMakeFiles/*' \
  \( -perm -u+x -o -name '*.so' -o -name lit.site.cfg.py \) -print) |
  tar -cf - -C / -T - | zstd -q --long=31 -12 -T0 -f -o .gpu-carry/build.tar.zst
cp "$(command -v zstd)" .gpu-carry/zstd
printf 'build=%s\nsource=%s\n' "$build" "$PWD" > .gpu-carry/paths
ls -la .gpu-carry
