#!/usr/bin/env bash
# Sets up advisor and runs every test: unit suites and the integration tests that export small
# models with /usr/bin/python3 and bisect them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)"
