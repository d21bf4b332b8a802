#!/usr/bin/env bash
# Sets up advisor and runs every test: unit suites and the integration tests that export small
# models with /usr/bin/python3 and bisect them; the format check (scripts/format-check.sh,
# clang-format-14), the layer check (scripts/layers-check.py: no include points up a layer of
# engine/) and the ODR check (scripts/odr-check.sh: every engine library in one GCC LTO
# link, -Werror=odr); then the torch-free libraries and their suites under AddressSanitizer and
# UndefinedBehaviorSanitizer, every fuzz target replaying its corpus (scripts/sanitize.sh), and a
# short fuzzing run of each target (scripts/fuzz.sh, FUZZ_SECONDS per target, 10 by default; 0
# skips it). With CI set (.ci/run), warnings are errors. docs/architecture.md#the-houses-checks
# says what each check is, docs/benchmarks.md#build-and-ci-checks what each costs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/format-check.sh"
/usr/bin/python3 "$root/scripts/layers-check.py"
(cd "$root/build" && ctest --output-on-failure -j"$(nproc)")
"$root/scripts/odr-check.sh"
"$root/scripts/sanitize.sh"
seconds="${FUZZ_SECONDS:-10}"
if [ "$seconds" -gt 0 ]; then "$root/scripts/fuzz.sh" "$seconds"; fi
