#!/usr/bin/env bash
# Loads the sample windows' trace.json (written by WRITE_SAMPLE_TRACES) with HTA's TraceAnalysis
# from the virtualenv scripts/hta-venv.sh keeps, and runs its breakdowns (hta_reads_trace.py).
#
#   tests/report/hta_reads_trace.sh WRITE_SAMPLE_TRACES
set -euo pipefail
venv="${ADVISOR_HTA_VENV:-$HOME/.cache/advisor/hta-venv}"
if [ ! -x "$venv/bin/python" ]; then
  echo "HTA is not installed in $venv: scripts/hta-venv.sh installs it"
  exit 0
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$1" "$scratch"
exec "$venv/bin/python" "$(dirname "$0")/hta_reads_trace.py" "$scratch"
