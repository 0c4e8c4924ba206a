#!/usr/bin/env bash
# Installs what building and testing emb needs on Debian 12, skipping what is
# already there: CMake, Ninja, Python 3 with pip, clang-format 14, pkg-config (the
# install tests build against the installed emb with it), and LLVM/MLIR 22 (the
# compiler half; lit and FileCheck come with it). The CUDA toolkit is not
# installed here: the build uses /usr/local/cuda when it exists and builds the
# CPU runtime alone otherwise.
#
# Set EMB_SKIP_BOOTSTRAP=1 to skip it (a machine without a package registry).
set -euo pipefail

if [[ "${EMB_SKIP_BOOTSTRAP:-0}" == 1 ]]; then
  exit 0
fi

missing=()
need() { # need <package> <path or command that proves it is installed>
  if [[ "$2" == /* ]]; then
    [[ -e "$2" ]] || missing+=("$1")
  else
    command -v "$2" >/dev/null 2>&1 || missing+=("$1")
  fi
}
need cmake cmake
need ninja-build ninja
need python3 python3
# pip installs emb_torch's wheel in test/Tools/install/wheel.test, as users do.
need python3-pip /usr/lib/python3/dist-packages/pip/__init__.py
# clang-format-14 is the version the tree is formatted with
# (test/Format/check_format.py refuses to judge with another).
need clang-format-14 clang-format-14
need pkgconf pkg-config
need git git
need libmlir-22-dev /usr/lib/llvm-22/lib/cmake/mlir/MLIRConfig.cmake
need mlir-22-tools /usr/lib/llvm-22/bin/mlir-opt
need llvm-22-dev /usr/lib/llvm-22/lib/libLLVM.so
need llvm-22-tools /usr/lib/llvm-22/bin/FileCheck

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "bootstrap: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null 2>&1 || {
    echo "bootstrap: need root or sudo to install ${missing[*]}" >&2
    exit 1
  }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
