#!/usr/bin/env bash
# Installs what advisor needs from Debian's packages (only what is missing) and builds it into
# build/. Safe to run again: a second run only rebuilds what changed.
#
#   scripts/setup.sh                      # Debian's LibTorch 1.13 and /usr/bin/python3's torch
#   scripts/setup.sh --python PATH        # the LibTorch inside that Python's torch package
#   scripts/setup.sh --build DIR          # into DIR instead of build/ (one folder per torch)
#   scripts/setup.sh --targets "A B"      # only those CMake targets (and what they need)
#   scripts/setup.sh --without-torch-free-suites
#                                         # leaves out the torch-free libraries' suites, which
#                                         # scripts/test.sh runs in its sanitized build instead
#
# The options combine: the modern-torch lane (scripts/modern-lane.sh) builds only what the
# script-mode suites run, against a virtualenv's torch, into build-modern/ beside the Debian
# lane's build/.
#
# Script mode (advisor bisect -- python train.py) loads advisor's probe library into the script's
# Python, so the library must be built against that Python's torch: with --python, a pip-installed
# torch (a virtualenv's, CUDA or not) needs nothing else. The build remembers its torch; running
# again with another one rebuilds for that one.
#
# Warnings are errors where CI is set in the environment (CI=1 scripts/setup.sh, as .ci/run
# does) or ADVISOR_WERROR=ON is: CI's gcc 12 builds warning-free, and keeps it so; a user's other
# compiler only warns.
set -euo pipefail
cd "$(dirname "$0")/.."

python=""
build=build
targets=()
torch_free_suites=ON
while (($#)); do
  case "$1" in
    --python) python="${2:?--python needs the path of a Python with torch}"; shift 2 ;;
    --build) build="${2:?--build needs a folder to build into}"; shift 2 ;;
    --targets)
      read -ra targets <<<"${2:?--targets needs the CMake targets to build, e.g. \"advisor\"}"
      shift 2 ;;
    --without-torch-free-suites) torch_free_suites=OFF; shift ;;
    *)
      echo "setup.sh: unknown option $1 (usage: scripts/setup.sh [--python PATH] [--build DIR]" \
        "[--targets \"TARGET...\"] [--without-torch-free-suites])" >&2
      exit 2 ;;
  esac
done

packages=(
  build-essential cmake pkg-config
  ccache                       # one compile of a torch-free unit serves build/ and build-modern/ alike
  libopenblas0-pthread         # without it Debian's LibTorch falls back to the reference BLAS (~10x slower)
  liblua5.4-dev nlohmann-json3-dev libcli11-dev libgtest-dev
  zlib1g-dev                   # .json.gz traces (advisor analyze)
  libisal-dev                  # ISA-L: .json.gz traces inflate 3x faster than zlib's; optional to CMake
  libcurl4-openssl-dev         # s3:// URLs (advisor analyze); optional to CMake
  clang-14 libclang-rt-14-dev  # the fuzz targets (fuzz/, scripts/fuzz.sh)
)
# Debian's LibTorch 1.13 (CPU) and the matching Python, unless another Python's torch is asked for.
[ -n "$python" ] || packages+=(libtorch-dev python3-torch)
scripts/install-debian-packages.sh setup "${packages[@]}"

python="${python:-/usr/bin/python3}"
if ! torch_prefix=$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null); then
  echo "setup.sh: $python cannot import torch: give a Python with torch (--python PATH)" >&2
  exit 1
fi
# Debian's python3-torch ships no CMake files; its LibTorch's are libtorch-dev's.
torch_dir="$torch_prefix/Torch"
[ -f "$torch_dir/TorchConfig.cmake" ] || torch_dir=/usr/lib/x86_64-linux-gnu/cmake/Torch

# Another torch than the build's: start the configuration afresh (its cached Caffe2 and CUDA
# settings belong to the old one); the objects are rebuilt against the new headers.
cache="$build/CMakeCache.txt"
if [ -f "$cache" ] && ! grep -qx "Torch_DIR:PATH=$torch_dir" "$cache"; then
  echo "[setup] building for the torch in $torch_dir (was: $(sed -n 's/^Torch_DIR:PATH=//p' "$cache"))" >&2
  rm -f "$cache"
fi
case "${CI:-}" in "" | 0 | false) werror=OFF ;; *) werror=ON ;; esac
werror="${ADVISOR_WERROR:-$werror}"
# ccache, unless the caller chose a launcher (CMAKE_CXX_COMPILER_LAUNCHER; empty for none), which
# CMake reads when it first configures a build folder. In its depend mode a unit the cache lacks
# costs a compile and no preprocessor run besides: on a fresh cache, 13 % more CPU than no ccache
# in its default mode, 5 % in depend mode (11 of build/'s units, this VM, 2026-11-29).
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER-ccache}"
  export CCACHE_DEPEND="${CCACHE_DEPEND-1}"
fi
source scripts/ccache-pch.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DADVISOR_PYTHON="$python" \
  -DTorch_DIR="$torch_dir" -DADVISOR_WERROR="$werror" \
  -DADVISOR_TORCH_FREE_SUITES="$torch_free_suites" >/dev/null
cmake --build "$build" -j"$(nproc)" ${targets[@]+--target "${targets[@]}"}
