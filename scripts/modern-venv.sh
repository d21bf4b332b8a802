#!/usr/bin/env bash
# The modern-torch lane's virtualenv: a current torch from PyPI and the trainers people use with
# it (transformers, accelerate, lightning, timm). It is kept in ADVISOR_MODERN_VENV (by default
# ~/.cache/advisor/modern-venv) and reused while its packages import; where they do not (a fresh
# machine, an install cut short) it is made afresh. Prints the virtualenv's Python last.
#
#   scripts/modern-venv.sh
#
# CPU use only, yet PyPI's Linux wheel of torch brings its CUDA libraries (some 3 GB of nvidia-*
# packages, without which it does not import): what the install costs is in docs/benchmarks.md
# (the modern-torch lane). scripts/test.sh starts this in the background, so that the download
# overlaps the Debian lane.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${ADVISOR_MODERN_VENV:-$HOME/.cache/advisor/modern-venv}"
python="$venv/bin/python"
packages=(torch transformers accelerate lightning timm)
# Imports every package (a few seconds) and says which versions the lane runs.
versions='import torch, transformers, accelerate, lightning, timm
print("[modern-venv]", ", ".join(f"{m.__name__} {m.__version__}"
                                for m in (torch, transformers, accelerate, lightning, timm)))'

if ! "$python" -c "$versions" >&2 2>/dev/null; then
  if [ -e "$venv" ] && [ ! -f "$venv/pyvenv.cfg" ]; then
    echo "modern-venv.sh: $venv is there but no virtualenv: name another (ADVISOR_MODERN_VENV)" >&2
    exit 1
  fi
  "$root/scripts/install-debian-packages.sh" modern-venv python3-venv
  echo "[modern-venv] installing ${packages[*]} from PyPI into $venv" >&2
  start=$SECONDS
  /usr/bin/python3 -m venv --clear "$venv"
  # No pip cache: on a fresh machine it would only write a second copy of the 3 GB of wheels, and
  # where the machine keeps its files the virtualenv itself is kept (docs/benchmarks.md).
  "$venv/bin/pip" install -q --no-cache-dir "${packages[@]}"
  if ! "$python" -c "$versions" >&2; then
    echo "modern-venv.sh: the packages installed into $venv do not import (the error above)" >&2
    exit 1
  fi
  echo "[modern-venv] installed in $((SECONDS - start)) s" >&2
fi
echo "$python"
