#!/usr/bin/env bash
# Configures build-fuzz/: the torch-free libraries, their tests and the fuzz targets, built by
# clang with libFuzzer's instrumentation, AddressSanitizer and UndefinedBehaviorSanitizer
# (-DADVISOR_FUZZ=ON). Installs clang with apt-get where it is missing. Safe to run again.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-debian-packages.sh" fuzz clang-14 libclang-rt-14-dev
# Warnings are errors where CI is set, as in scripts/setup.sh: clang 14 builds this warning-free.
case "${CI:-}" in "" | 0 | false) werror=OFF ;; *) werror=ON ;; esac
werror="${ADVISOR_WERROR:-$werror}"
# Build type "Fuzz" has no flags of its own: cmake/Sanitizers.cmake sets them (no NDEBUG).
cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=Fuzz -DADVISOR_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DADVISOR_WERROR="$werror" >/dev/null
