#!/usr/bin/env bash
# Sets up advisor and runs every test: unit suites and the integration tests that export small
# models with /usr/bin/python3 and bisect them; then the torch-free libraries and their suites
# under AddressSanitizer and UndefinedBehaviorSanitizer, every fuzz target replaying its corpus
# (scripts/sanitize.sh), and a short fuzzing run of each target (scripts/fuzz.sh,
# FUZZ_SECONDS per target, 10 by default; 0 skips it). docs/security.md says what each costs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
(cd "$root/build" && ctest --output-on-failure -j"$(nproc)")
"$root/scripts/sanitize.sh"
seconds="${FUZZ_SECONDS:-10}"
if [ "$seconds" -gt 0 ]; then "$root/scripts/fuzz.sh" "$seconds"; fi
