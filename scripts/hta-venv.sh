#!/usr/bin/env bash
# The virtualenv of HolisticTraceAnalysis (HTA, PyPI), which the trace test loads advisor's
# trace.json with (tests/report/hta_reads_trace.py). It is kept in ADVISOR_HTA_VENV (by default
# ~/.cache/advisor/hta-venv) and reused while HTA imports; where it does not (a fresh machine, an
# install cut short) it is made afresh with Debian's python3. HTA needs no torch. Prints the
# virtualenv's Python last.
#
#   scripts/hta-venv.sh
#
# ctest runs it as the HTA test's fixture.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${ADVISOR_HTA_VENV:-$HOME/.cache/advisor/hta-venv}"
exec "$root/scripts/cached-venv.sh" hta-venv ADVISOR_HTA_VENV "$venv" \
  'import hta, importlib.metadata as m; from hta.trace_analysis import TraceAnalysis; print("[hta-venv] HolisticTraceAnalysis", m.version("HolisticTraceAnalysis"))' \
  HolisticTraceAnalysis
