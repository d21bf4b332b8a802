#!/usr/bin/env bash
# `advisor analyze` end to end against Python's json.load on large traces of both shapes, side by
# side in one run (docs/benchmarks.md, issue #32):
#
#   scripts/bench_analyze.sh [BUILD_DIR] [WORK_DIR] [MEGABYTES]
#
# Writes into WORK_DIR, unless they exist: legacy.json (scripts/make_legacy_trace.py: the bare
# list of events torch without Kineto writes, a recorded case's steps repeated), kineto.json
# (scripts/make_big_trace.py: Kineto's {"traceEvents": [...]} of a GPU step) and legacy.json.gz,
# each MEGABYTES of JSON (default 257). Each file is read once into the page cache, then timed
# on one core (taskset -c 0): advisor analyze with one reader thread (the median of 3 runs by
# wall time, with its CPU time, /usr/bin/time's peak RSS, and that run's --verbose stage lines),
# and json.load once. CORES=all times both on every core instead, advisor with its default
# reader threads (one a core): the 16-core figure of issue #32 (scripts/gpu-check.sh
# analyze_bench).
# Prints one JSON line per run and a Markdown table. BEFORE=PATH times that advisor binary too (an
# older build; its rules from ADVISOR_RULES_DIR where it needs them), its runs interleaved with
# BUILD_DIR's so that both see the same load.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
work="${2:-/tmp/advisor-analyze-bench}"
megabytes="${3:-257}"
python="${PYTHON:-/usr/bin/python3}"  # Debian's, whose torch wrote the legacy shape
case "${CORES:-1}" in
  1) on_cores=(taskset -c 0); reader_threads=(--threads 1) ;;
  all) on_cores=(); reader_threads=() ;;
  *) echo "bench_analyze.sh: CORES is 1 or all, not '$CORES'" >&2; exit 2 ;;
esac

# TRACES: which of the three to time (default all; the 16-core run on the GPU host times the two
# shapes issue #32's bars are for, its device time being short).
read -r -a names <<< "${TRACES:-legacy.json kineto.json legacy.json.gz}"
wanted() { [[ " ${names[*]} " == *" $1 "* ]]; }
mkdir -p "$work"
if { wanted legacy.json || wanted legacy.json.gz; } && [ ! -f "$work/legacy.json" ]; then
  "$python" "$root/scripts/make_legacy_trace.py" "$work/legacy.json" --megabytes "$megabytes" >&2
fi
if wanted kineto.json && [ ! -f "$work/kineto.json" ]; then
  "$python" "$root/scripts/make_big_trace.py" "$work/kineto.json" \
    --gigabytes "$("$python" -c "print($megabytes / 1000)")" >&2
fi
if wanted legacy.json.gz && [ ! -f "$work/legacy.json.gz" ]; then
  gzip -1 -c "$work/legacy.json" > "$work/legacy.json.gz"
fi
cmake --build "$build" --target advisor -j"$(nproc)" >/dev/null
binaries=("$build/advisor")
[ -z "${BEFORE:-}" ] || binaries+=("$BEFORE")
traces=()
for name in "${names[@]}"; do traces+=("$work/$name"); done
cat "${traces[@]}" > /dev/null  # every run starts from the page cache

echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# One timed run of "$@" (on core 0 unless CORES=all): prints {"seconds", "cpu_seconds",
# "peak_rss_mb"} from /usr/bin/time. On a machine busy with other work the wall time waits for the core; the CPU time
# (user and system) is what the run itself took.
timed() {
  local times
  times=$(mktemp)
  ${on_cores[@]+"${on_cores[@]}"} /usr/bin/time -f "%e %U %S %M" -o "$times" "$@" >/dev/null
  read -r seconds user system kilobytes < "$times"
  rm -f "$times"
  echo "{\"seconds\": $seconds, \"cpu_seconds\": $(awk "BEGIN {print $user + $system}"),"\
    "\"peak_rss_mb\": $((kilobytes / 1024))}"
}

json_load='
import gzip, json, sys
path = sys.argv[1]
with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
    trace = json.load(f)
events = trace["traceEvents"] if isinstance(trace, dict) else trace
print(len(events), file=sys.stderr)
'

lines=()
for trace in "${traces[@]}"; do
  json_bytes=$("$python" -c '
import gzip, sys
path = sys.argv[1]
with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as f:
    print(sum(len(block) for block in iter(lambda: f.read(1 << 24), b"")))' "$trace")
  declare -A runs=()
  for run in 1 2 3; do
    for binary in "${binaries[@]}"; do
      verbose=-q  # builds before --verbose have no stage lines to give
      if "$binary" analyze --help | grep -q -- --verbose; then verbose=--verbose; fi
      result=$(timed "$binary" analyze "$trace" ${reader_threads[@]+"${reader_threads[@]}"} \
                 --out "$work/report" "$verbose" \
                 2> "$work/stages.txt")
      # "records: 152 ms (CPU 290 ms)" (builds before 2026-11-30 print no CPU time), a
      # .json.gz's "inflater: ISA-L", and the records stage's one-thread part ("records on one
      # thread, CPU: join 23 ms, ...")
      stages=$(sed -n -e 's/^\[advisor\] \([a-z ]*: [0-9]* ms\( (CPU [0-9]* ms)\)\{0,1\}\);.*/\1/p' \
                 -e 's/^\[advisor\] \(inflater: .*\)/\1/p' \
                 -e 's/^\[advisor\] \(records on one thread, CPU: .*\)/\1/p' "$work/stages.txt" |
               paste -sd, - | sed 's/,/, /g')
      runs[$binary]+="${result%\}}, \"stages\": \"$stages\"}"$'\n'
    done
  done
  python_run=$(timed "$python" -c "$json_load" "$trace" 2>/dev/null)
  for binary in "${binaries[@]}"; do
    line=$(printf '%s' "${runs[$binary]}" | "$python" -c '
import json, os, sys
trace, json_bytes, binary, python = sys.argv[1], int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
runs = sorted((json.loads(line) for line in sys.stdin if line.strip()), key=lambda r: r["seconds"])
print(json.dumps({"file": trace, "file_bytes": os.path.getsize(trace), "json_bytes": json_bytes,
                  "binary": binary, "advisor": runs[1], "json_load": python}))' \
      "$trace" "$json_bytes" "$binary" "$python_run")
    echo "$line"
    lines+=("$line")
  done
done

printf '%s\n' "${lines[@]}" | "$python" -c '
import json, os, sys
cores = os.environ.get("CORES", "1")
print("| trace | JSON | binary | advisor analyze, %s core(s): wall (CPU, MB/s of CPU time; MB/s of wall), peak RSS | json.load: wall (CPU, MB/s of CPU time), peak RSS | speed vs json.load: wall (CPU) | advisor peak RSS / JSON |" % cores)
print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
for line in sys.stdin:
    r = json.loads(line)
    mb = r["json_bytes"] / 1e6
    a, p = r["advisor"], r["json_load"]
    print("| %s | %.0f MB | %s | %.2f s (%.2f s, %.0f MB/s; %.0f MB/s), %d MB | %.2f s (%.2f s, %.0f MB/s), %d MB | %.1fx (%.1fx) | %.2fx |" % (
        os.path.basename(r["file"]), mb, r["binary"], a["seconds"], a["cpu_seconds"], mb / a["cpu_seconds"],
        mb / a["seconds"],
        a["peak_rss_mb"], p["seconds"], p["cpu_seconds"], mb / p["cpu_seconds"], p["peak_rss_mb"],
        p["seconds"] / a["seconds"], p["cpu_seconds"] / a["cpu_seconds"],
        a["peak_rss_mb"] * 1024 * 1024 / r["json_bytes"]))
'
