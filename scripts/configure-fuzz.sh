#!/usr/bin/env bash
# Configures build-fuzz/: the torch-free libraries, their tests and the fuzz targets, built by
# clang with libFuzzer's instrumentation, AddressSanitizer and UndefinedBehaviorSanitizer
# (-DADVISOR_FUZZ=ON). Installs clang with apt-get where it is missing. Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
packages=(clang-14 libclang-rt-14-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "[fuzz] installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
# Warnings are errors where CI is set, as in scripts/setup.sh: clang 14 builds this warning-free.
case "${CI:-}" in "" | 0 | false) werror=OFF ;; *) werror=ON ;; esac
werror="${ADVISOR_WERROR:-$werror}"
# Build type "Fuzz" has no flags of its own: cmake/Sanitizers.cmake sets them (no NDEBUG).
cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=Fuzz -DADVISOR_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DADVISOR_WERROR="$werror" >/dev/null
