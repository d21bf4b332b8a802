#!/usr/bin/env bash
# clang-tidy-14 with the repository's .clang-tidy over the torch-free translation units of build/
# (scripts/setup.sh makes its compile_commands.json); LibTorch's take 10 s and more each and are
# left out unless TIDY_ALL=1. Every warning is an error. Not part of CI: it takes longer than CI
# can spare on 2 cores (docs/benchmarks.md#build-and-ci-checks); run it before a change lands:
#
#   scripts/tidy-check.sh [FILE...]      # all torch-free sources of build/, or only FILE...
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
[ -f build/compile_commands.json ] || { echo "tidy-check.sh: run scripts/setup.sh first" >&2; exit 1; }
if (($# == 0)); then
  mapfile -t files < <(python3 - <<'PY'
import json, os
for entry in json.load(open("build/compile_commands.json")):
    torch = "torch/csrc/api/include" in entry["command"]
    if os.environ.get("TIDY_ALL") == "1" or not torch:
        print(os.path.relpath(entry["file"]))
PY
  )
else
  files=("$@")
fi
printf '%s\n' "${files[@]}" |
  xargs -P"$(nproc)" -n4 clang-tidy-14 -p build --quiet > build/tidy.log 2>&1 || {
  grep -E 'warning:|error:' build/tidy.log | sort -u >&2
  echo "tidy-check.sh: FAILED: the warnings above (build/tidy.log has all)" >&2
  exit 1
}
echo "tidy-check.sh: ${#files[@]} translation units, no warning"
