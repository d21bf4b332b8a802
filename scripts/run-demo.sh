#!/usr/bin/env bash
# Sets up advisor and runs the main job, `advisor bisect`, on the bundled demo model (or on the
# model and options given). The report lands in ./advisor-report.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
exec "$root/build/advisor" bisect "$@"
