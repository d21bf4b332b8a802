#!/usr/bin/env bash
# Installs what advisor needs from Debian's packages (only what is missing) and builds it into
# build/. Safe to run again: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config
  libtorch-dev python3-torch   # LibTorch 1.13 (CPU) and the matching Python to export models
  libopenblas0-pthread         # without it Debian's LibTorch falls back to the reference BLAS (~10x slower)
  liblua5.4-dev nlohmann-json3-dev libcli11-dev libgtest-dev
  zlib1g-dev                   # .json.gz traces (advisor analyze)
  clang-14 libclang-rt-14-dev  # the fuzz targets (fuzz/, scripts/fuzz.sh)
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "[setup] installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DADVISOR_PYTHON=/usr/bin/python3 >/dev/null
cmake --build build -j"$(nproc)"
