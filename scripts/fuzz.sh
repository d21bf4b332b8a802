#!/usr/bin/env bash
# Fuzzes every target registered in fuzz/CMakeLists.txt for SECONDS each (default 30), after
# building them into build-fuzz/ (clang, libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer;
# the torch-free libraries only). Each target starts from its seed corpus, fuzz/corpus/NAME/ (and
# the shipped rules or recipes, for their parsers), and
# keeps what it finds in build-fuzz/fuzz/work/NAME/ (the seed corpus is not changed). A crash,
# leak, timeout or sanitizer report saves its input under build-fuzz/fuzz/crashes/NAME/ and makes
# the script fail; once fixed, copy the input into fuzz/regressions/NAME/, where ctest replays it.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      JOBS=N: targets run N at a time (default: cores)
#
# Prints one line per target: executions, coverage (edges) and features reached, corpus size.
set -euo pipefail
seconds="${1:-30}"
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
jobs="${JOBS:-$(nproc)}"

"$root/scripts/configure-fuzz.sh"
mapfile -t targets < "$build/fuzz/targets.txt"
names=()
for line in "${targets[@]}"; do names+=("${line%% *}_fuzz"); done
cmake --build "$build" -j"$jobs" --target "${names[@]}"

run_target() {
  local name="$1" binary="$2"
  shift 2  # the rest: the seed folders
  local work="$build/fuzz/work/$name" crashes="$build/fuzz/crashes/$name/"
  local log="$build/fuzz/logs/$name.log" dict="$root/fuzz/$name.dict"
  mkdir -p "$work" "$crashes" "$(dirname "$log")"
  local seeds
  for seeds in "$@"; do cp -n "$seeds"/* "$work"/ 2>/dev/null || true; done
  local options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
                 -artifact_prefix="$crashes")
  [ -f "$dict" ] && options+=(-dict="$dict")
  if "$binary" "${options[@]}" "$work" > "$log" 2>&1; then
    local runs coverage
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
    coverage="$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' || true)"
    echo "[fuzz] $name: ${runs:-?} executions in ${seconds} s, ${coverage:-no coverage line}, no crash"
  else
    echo "[fuzz] $name: FAILED, see $log; the input is in $crashes"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -5 || true
    return 1
  fi
}
export -f run_target
export build root seconds

# Each line of targets.txt is "NAME BINARY SEED_FOLDER..."; xargs runs JOBS of them at a time.
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -L 1 bash -c 'run_target "$@"' _
