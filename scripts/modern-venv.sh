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
# Imports every package (a few seconds) and says which versions the lane runs.
versions='import torch, transformers, accelerate, lightning, timm
print("[modern-venv]", ", ".join(f"{m.__name__} {m.__version__}"
                                for m in (torch, transformers, accelerate, lightning, timm)))'
exec "$root/scripts/cached-venv.sh" modern-venv ADVISOR_MODERN_VENV "$venv" "$versions" \
  torch transformers accelerate lightning timm
