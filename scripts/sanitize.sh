#!/usr/bin/env bash
# The torch-free libraries and their tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, and every fuzz target replaying its corpus and regressions: builds
# build-fuzz/ (scripts/configure-fuzz.sh) and runs its ctest. CI runs it (scripts/test.sh).
# The whole suite, LibTorch included, runs under the sanitizers with -DADVISOR_SANITIZE=ON
# (docs/security.md#sanitizers-and-fuzzing).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/configure-fuzz.sh"
cmake --build "$root/build-fuzz" -j"$(nproc)"
cd "$root/build-fuzz"
ctest --output-on-failure -j"$(nproc)"
