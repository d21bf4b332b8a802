#!/usr/bin/env bash
# A virtualenv kept between runs (scripts/modern-venv.sh's, scripts/s3-test-server.sh's): reused
# while CHECK, Python code that imports what it needs and prints their versions, runs in it; where
# it does not (a fresh machine, an install cut short) made afresh with Debian's python3 and
# PACKAGEs from PyPI. Prints the virtualenv's Python last.
#
#   scripts/cached-venv.sh TAG VARIABLE VENV CHECK PACKAGE...
#
# TAG starts its lines; VARIABLE is the environment variable that names another VENV.
set -euo pipefail
if (($# < 5)); then
  echo "cached-venv.sh: usage: scripts/cached-venv.sh TAG VARIABLE VENV CHECK PACKAGE..." >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
tag="$1" variable="$2" venv="$3" check="$4"
shift 4
python="$venv/bin/python"

if ! "$python" -c "$check" >&2 2>/dev/null; then
  if [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ]; then
    echo "$tag: $venv is there but no virtualenv: name another ($variable)" >&2
    exit 1
  fi
  "$root/scripts/install-debian-packages.sh" "$tag" python3-venv
  echo "[$tag] installing $* from PyPI into $venv" >&2
  start=$SECONDS
  /usr/bin/python3 -m venv --clear "$venv"
  # No pip cache: on a fresh machine it would only write a second copy of the wheels (3 GB for the
  # modern lane), and where the machine keeps its files the virtualenv itself is kept
  # (docs/benchmarks.md).
  "$venv/bin/pip" install -q --no-cache-dir "$@"
  if ! "$python" -c "$check" >&2; then
    echo "$tag: the packages installed into $venv do not import (the error above)" >&2
    exit 1
  fi
  echo "[$tag] installed in $((SECONDS - start)) s" >&2
fi
echo "$python"
