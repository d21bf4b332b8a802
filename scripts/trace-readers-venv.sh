#!/usr/bin/env bash
# The virtualenv of the readers of torch.profiler traces that advisor's trace.json is tested
# against (tests/report/trace_readers_load.py): HolisticTraceAnalysis (HTA) and TensorBoard's
# profiler plugin (torch-tb-profiler), from PyPI; neither needs torch. It is kept in
# ADVISOR_TRACE_READERS_VENV (by default ~/.cache/advisor/trace-readers-venv) and reused while
# both import; where they do not (a fresh machine, an install cut short) it is made afresh with
# Debian's python3. Prints the virtualenv's Python last.
#
#   scripts/trace-readers-venv.sh
#
# ctest runs it as the trace readers' test's fixture.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${ADVISOR_TRACE_READERS_VENV:-$HOME/.cache/advisor/trace-readers-venv}"
check='import importlib.metadata as m, hta.trace_analysis, torch_tb_profiler.profiler.data
print("[trace-readers-venv] HTA", m.version("HolisticTraceAnalysis"), "and torch-tb-profiler",
      m.version("torch-tb-profiler"))'
exec "$root/scripts/cached-venv.sh" trace-readers-venv ADVISOR_TRACE_READERS_VENV "$venv" "$check" \
  HolisticTraceAnalysis torch-tb-profiler
