#!/usr/bin/env bash
# The bottleneck zoo on the GPU machine, in one scripted run (docs/benchmarks.md, "Localisation on
# the zoo"): exports the cases that have a GPU answer once, runs scripts/zoo.py --device cuda
# $ZOO_RUNS times (default 3) for localisation accuracy and wall time, then bisects each case once
# more with --autotest for the step-time gain of each fix, and writes the dated Markdown section
# to $OUT/zoo-benchmarks.md, to paste into docs/benchmarks.md.
#
#   bash bench/zoo_gpu.sh [CASE ...]      # default: every case with a GPU answer
#
# Needs build-gpu/ from scripts/gpu-check.sh (run it first on the same machine) and python3 with
# torch (and timm, for patchdrop_vit). Environment: OUT (default ./zoo-gpu-out), ZOO_RUNS (3),
# ZOO_AUTOTEST (1; 0 skips the fixes), ZOO_STATE (/tmp/zoo-gpu).
#
# Resumable: every finished run and every case's autotest is kept in $ZOO_STATE and skipped when
# the script runs again, so a run cut off by a time limit goes on where it stopped when the same
# command is given again on the same (still warm) machine. Remove $ZOO_STATE to start afresh.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/zoo-gpu-out}"
state="${ZOO_STATE:-/tmp/zoo-gpu}"
runs="${ZOO_RUNS:-3}"
advisor=build-gpu/advisor
mkdir -p "$out" "$state"
if [ ! -x "$advisor" ]; then
  echo "zoo_gpu: $advisor is missing: run scripts/gpu-check.sh first" >&2
  exit 1
fi
zoo=(python3 scripts/zoo.py --device cuda --advisor "$advisor" --python python3
     --workdir "$state/work" --reuse-exports)

# run_zoo NAME ARGS...: one zoo.py run into $state/NAME.json (kept only when complete) and
# $out/NAME.txt (its table); skipped when $state/NAME.json exists.
run_zoo() {
  local name=$1; shift
  [ -f "$state/$name.json" ] && return 0
  local start=$SECONDS
  "${zoo[@]}" --json "$state/$name.part.json" "$@" >"$out/$name.txt" 2>&1
  echo "zoo_gpu: $name: $(tail -1 "$out/$name.txt") in $((SECONDS - start)) s" >&2
  if [ -f "$state/$name.part.json" ]; then
    mv "$state/$name.part.json" "$state/$name.json"
  else
    echo "zoo_gpu: $name wrote no results; see $out/$name.txt" >&2
    return 1
  fi
}

for i in $(seq 1 "$runs"); do
  run_zoo "run-$i" "$@" || exit 1
done

fixes=()
if [ "${ZOO_AUTOTEST:-1}" = 1 ]; then
  # One case per call, so that each finished case survives a cut-off.
  cases=("$@")
  if [ ${#cases[@]} -eq 0 ]; then
    mapfile -t cases < <(python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]: print(r["case"])' "$state/run-1.json")
  fi
  for case in "${cases[@]}"; do
    run_zoo "autotest-$case" --autotest --timeout 540 "$case"
    [ -f "$state/autotest-$case.json" ] && fixes+=("$state/autotest-$case.json")
  done
fi

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
torch_version=$(python3 -c 'import torch; print(torch.__version__)')
run_files=()
for i in $(seq 1 "$runs"); do run_files+=("$state/run-$i.json"); done
fix_args=()
[ ${#fixes[@]} -gt 0 ] && fix_args=(--fixes "${fixes[@]}")
python3 scripts/zoo/markdown.py "${run_files[@]}" "${fix_args[@]}" \
  --machine "${gpu%%,*} (driver${gpu##*,}), PyTorch $torch_version" \
  --command "ZOO_RUNS=$runs bash bench/zoo_gpu.sh${*:+ $*}" \
  >"$out/zoo-benchmarks.md" || exit 1
cp "${run_files[@]}" "${fixes[@]}" "$out/"
echo "zoo_gpu: wrote $out/zoo-benchmarks.md" >&2
