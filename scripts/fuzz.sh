#!/usr/bin/env bash
# Builds a fuzz target of fuzz/ with clang into build-fuzz/ and runs it: its crash regressions and
# seed corpus once each, then fuzzing for SECONDS with a work corpus kept in build-fuzz/.
#
#   scripts/fuzz.sh TARGET [SECONDS]        e.g. scripts/fuzz.sh trace_reader 60
#
# A crash stops the run and leaves the input in build-fuzz/TARGET-crash-*; once fixed, copy it
# into fuzz/regressions/TARGET/ so that every later run replays it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:?usage: scripts/fuzz.sh TARGET [SECONDS]}"
seconds="${2:-30}"

clang="$(command -v clang++-14 || command -v clang++ || true)"
if [ -z "$clang" ]; then
  echo "fuzz.sh: clang++ not found (scripts/setup.sh installs clang-14 and libclang-rt-14-dev)" >&2
  exit 1
fi
build="$root/build-fuzz"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$clang" \
  -DADVISOR_FUZZ=ON -DADVISOR_WITH_TORCH=OFF -DADVISOR_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target "${target}_fuzz" -j"$(nproc)" >/dev/null
binary="$build/fuzz/${target}_fuzz"

seeds="$root/fuzz/corpus/$target"
regressions="$root/fuzz/regressions/$target"
work="$build/corpus/$target"
mkdir -p "$work"
# Every known input once: a regression that crashes again fails here, with its name.
inputs=()
for input in "$regressions"/* "$seeds"/*; do
  [ -f "$input" ] && inputs+=("$input")
done
if ((${#inputs[@]})); then
  "$binary" -runs=1 "${inputs[@]}" 2>&1 | tail -n 3
fi
"$binary" "$work" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -artifact_prefix="$build/$target-" -print_final_stats=1 2>&1 | tail -n 12
