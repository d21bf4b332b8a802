#!/usr/bin/env bash
# Loads the sample windows' trace.json (written by WRITE_SAMPLE_TRACES) with HTA and TensorBoard's
# profiler plugin from the virtualenv scripts/trace-readers-venv.sh keeps
# (trace_readers_load.py).
#
#   tests/report/trace_readers_load.sh WRITE_SAMPLE_TRACES
set -euo pipefail
venv="${ADVISOR_TRACE_READERS_VENV:-$HOME/.cache/advisor/trace-readers-venv}"
if [ ! -x "$venv/bin/python" ]; then
  echo "the trace readers are not installed in $venv: scripts/trace-readers-venv.sh installs them"
  exit 0
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$1" "$scratch"
exec "$venv/bin/python" "$(dirname "$0")/trace_readers_load.py" "$scratch"
