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
# site config; xz's solid archive stores the kernels that every program
# links once.
(cd / && find "${build#/}" -type f -not -path '*/CMakeFiles/*' \
  \( -perm -u+x -o -name '*.so' -o -name lit.site.cfg.py \) -print) |
  tar -cJf .gpu-carry/build.tar.xz -C / -T -
printf 'build=%s\nsource=%s\n' "$build" "$PWD" > .gpu-carry/paths
ls -la .gpu-carry
