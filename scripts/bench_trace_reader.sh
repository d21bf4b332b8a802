#!/usr/bin/env bash
# advisor's trace reader against Python's json.load on one large torch.profiler trace, side by
# side in one run (docs/benchmarks.md):
#
#   scripts/bench_trace_reader.sh [BUILD_DIR] [WORK_DIR] [GIGABYTES]
#
# Writes WORK_DIR/big.json (scripts/make_big_trace.py, GIGABYTES of JSON, default 1.2) and
# big.json.gz unless they exist, builds bench/trace_reader_bench, reads each file once into the
# page cache, then times: advisor's reader on one core (taskset -c 0, one thread), on every core,
# on the .json.gz on every core, zlib's inflate alone on the .json.gz (what bounds that read), and
# Python's json.load (one core). Each advisor and inflate figure is the median of 3 runs; json.load
# runs once (it holds several times the file in memory). Prints one JSON line per run and a
# Markdown table: MB/s of JSON text and peak resident memory.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
work="${2:-/tmp/advisor-trace-bench}"
gigabytes="${3:-1.2}"
python="${PYTHON:-python3}"

mkdir -p "$work"
[ -f "$work/big.json" ] || "$python" "$root/scripts/make_big_trace.py" "$work/big.json" --gigabytes "$gigabytes" >&2
[ -f "$work/big.json.gz" ] || gzip -1 -c "$work/big.json" > "$work/big.json.gz"
cmake --build "$build" --target trace_reader_bench -j"$(nproc)" >/dev/null
bench="$build/bench/trace_reader_bench"
cat "$work/big.json" "$work/big.json.gz" > /dev/null  # every reader starts from the page cache

echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(free -g | awk '/^Mem/{print $2}') GiB memory" >&2
echo "file: $(du -h "$work/big.json" | cut -f1) JSON, $(du -h "$work/big.json.gz" | cut -f1) gzip" >&2

median_of_3() {  # median of 3 runs of "$@" by json_mb_per_s; prints that run's line
  for _ in 1 2 3; do "$@"; done | "$python" -c '
import json, sys
runs = sorted((json.loads(line) for line in sys.stdin), key=lambda r: r["json_mb_per_s"])
print(json.dumps(runs[1]))'
}

one_core=$(median_of_3 taskset -c 0 "$bench" "$work/big.json" --threads 1)
all_cores=$(median_of_3 "$bench" "$work/big.json")
gzip_all=$(median_of_3 "$bench" "$work/big.json.gz")
# What bounds the .json.gz read: zlib's inflate alone (Python's zlib module, 1 MiB reads, the
# output thrown away), on one core.
inflate_script=$(cat <<'PY'
import json, sys, time, zlib
inflater = zlib.decompressobj(31)  # gzip framing
inflated = 0
start = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    while True:
        block = f.read(1 << 20)
        if not block:
            break
        inflated += len(inflater.decompress(block))
inflated += len(inflater.flush())
seconds = time.perf_counter() - start
print(json.dumps({"file": sys.argv[1], "threads": 1, "json_bytes": inflated,
                  "seconds": round(seconds, 3), "json_mb_per_s": round(inflated / 1e6 / seconds, 1),
                  "peak_rss_mb": 0}))
PY
)
inflate_alone=$(median_of_3 "$python" -c "$inflate_script" "$work/big.json.gz")
python_load=$("$python" - "$work/big.json" <<'PY'
import json, os, resource, sys, time
path = sys.argv[1]
start = time.perf_counter()
with open(path) as f:
    events = len(json.load(f)["traceEvents"])
seconds = time.perf_counter() - start
size = os.path.getsize(path)
print(json.dumps({"file": path, "threads": 1, "json_bytes": size, "events": events,
                  "seconds": round(seconds, 3), "json_mb_per_s": round(size / 1e6 / seconds, 1),
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
PY
)
for line in "$one_core" "$all_cores" "$gzip_all" "$inflate_alone" "$python_load"; do echo "$line"; done
"$python" - "$one_core" "$all_cores" "$gzip_all" "$inflate_alone" "$python_load" <<'PY'
import json, sys
names = ["advisor, 1 core", "advisor, all cores", "advisor, .json.gz, all cores",
         "zlib inflate alone (no parse), 1 core", "Python json.load"]
print("| reader | threads | seconds | MB/s of JSON | peak RSS MiB | peak RSS / JSON size |")
print("|---|---:|---:|---:|---:|---:|")
for name, line in zip(names, sys.argv[1:]):
    r = json.loads(line)
    print(f"| {name} | {r['threads']} | {r['seconds']:.2f} | {r['json_mb_per_s']:.0f} | " +
          (f"{r['peak_rss_mb']:.0f} | {r['peak_rss_mb'] * 2**20 / r['json_bytes']:.2f}x |"
           if r["peak_rss_mb"] else "- | - |"))
PY
