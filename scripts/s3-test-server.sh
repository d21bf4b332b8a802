#!/usr/bin/env bash
# The virtualenv of the local S3-compatible server the object-store tests run against: moto's
# server from PyPI (tests/object_store/). It is kept in ADVISOR_S3_VENV (by default
# ~/.cache/advisor/s3-venv) and reused while moto's server imports; where it does not (a fresh
# machine, an install cut short) it is made afresh with the default python3, which needs no torch.
# Prints the virtualenv's Python last.
#
#   scripts/s3-test-server.sh
#
# The suite (tests/object_store/s3_test_server.py) starts the servers on free ports and stops
# them; this script only installs them. ctest runs it as the suite's fixture.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${ADVISOR_S3_VENV:-$HOME/.cache/advisor/s3-venv}"
# moto's S3 and IAM (authentication) and the web server alone: "moto[server]" brings every
# service's dependencies: 317 MB in 202 s against 140 MB in 34 to 81 s (this 2-core VM, busy).
exec "$root/scripts/cached-venv.sh" s3-venv ADVISOR_S3_VENV "$venv" \
  'import moto, moto.server, flask; print("[s3-venv] moto", moto.__version__)' \
  "moto[s3,iam]" flask flask-cors
