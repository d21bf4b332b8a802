#!/usr/bin/env bash
# Sets up advisor and runs every test, in two lanes.
#
# The Debian lane (Debian's torch 1.13): the suites that need LibTorch, the integration tests
# among them, which export small models with /usr/bin/python3 and bisect them; the format check
# (scripts/format-check.sh, clang-format-14) and the layer check (scripts/layers-check.py: no
# include points up a layer of engine/); the torch-free libraries and their suites under
# AddressSanitizer and UndefinedBehaviorSanitizer, every fuzz target replaying its corpus
# (scripts/sanitize.sh), and a short fuzzing run of each target (scripts/fuzz.sh, FUZZ_SECONDS per
# target, 5 by default; 0 skips it). The torch-free suites run there alone: build/ leaves them
# out (setup.sh --without-torch-free-suites), which saves CI's 2 cores their second build.
# The ODR check (scripts/odr-check.sh) is not run here: its 590 CPU-seconds are more than CI's
# 40 minutes on 2 cores can spare (docs/architecture.md#the-houses-checks says when to run it).
#
# The modern-torch lane (scripts/modern-lane.sh), where CI is set or ADVISOR_MODERN_LANE=1 (0
# skips it): advisor built against a current torch from PyPI and the script-mode suites run with
# it, the trainers of transformers, Lightning and accelerate among them. Its virtualenv is made
# in the background from the start (scripts/modern-venv.sh), so that the download overlaps the
# Debian lane; an install that fails fails the run, naming its log.
#
# With CI set (.ci/run), warnings are errors. docs/architecture.md#the-houses-checks says what
# each check is, docs/benchmarks.md#build-and-ci-checks what each costs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

case "${ADVISOR_MODERN_LANE:-}" in
  0) modern_lane=false ;;
  1) modern_lane=true ;;
  "") case "${CI:-}" in "" | 0 | false) modern_lane=false ;; *) modern_lane=true ;; esac ;;
  *) echo "test.sh: ADVISOR_MODERN_LANE is 1 (run the modern-torch lane) or 0 (skip it)," \
       "not '$ADVISOR_MODERN_LANE'" >&2; exit 2 ;;
esac
# Work started in the background: the modern lane's virtualenv, and the sanitized build and
# suites, which only compile and run torch-free code, beside the suites that time scripts: those
# run one test at a time and leave a core idle. Run one after the other, the stages took 2,516 s
# of CI's 2,400 on this 2-core VM (2026-11-29, docs/benchmarks.md). Each runs in a session of its
# own, so that a run that fails ends it with its compilers, and at the lowest priority beside the
# tests, so that they keep their CPU time.
# A new session is also a new scheduling group where the kernel groups by session
# (sched_autogroup): a nice value counts only inside its group, and the group's own nice is what
# weighs against the tests. Left at 0, it took half the CPU: a planted-hotspot test ran 86 s
# instead of 5 and named the wrong module (CI, stop 38).
background_pids=()
# in_background lowest|normal LOG COMMAND...: starts COMMAND in a session of its own, at the
# lowest priority or at the caller's; its pid in $background_pid.
in_background() {
  local priority="$1" log="$2"
  shift 2
  if [ "$priority" = lowest ]; then
    setsid bash -c '{ echo 19 >/proc/self/autogroup; } 2>/dev/null; exec nice -n 19 "$@"' \
      in_background "$@" >"$log" 2>&1 &
  else
    setsid "$@" >"$log" 2>&1 &
  fi
  background_pid=$!
  background_pids+=("$background_pid")
}
# at_lowest_priority PID: lowers the scheduling group of a session started in_background, where
# it still runs.
at_lowest_priority() {
  { echo 19 >"/proc/$1/autogroup"; } 2>/dev/null || true
}
end_all() {
  local pid
  for pid in "${background_pids[@]}"; do kill -- -"$pid" 2>/dev/null || true; done
}
trap end_all EXIT

if $modern_lane; then
  mkdir -p "$root/build-modern"
  install_log="$root/build-modern/venv-install.log"
  echo "[test] the modern lane's virtualenv: made in the background, its log $install_log" >&2
  # Network-bound, and done within the build where the mirror is quick: at the build's priority
  # until the suites start, then at the lowest (below), so that a slow download never takes a
  # timed test's CPU.
  in_background normal "$install_log" "$root/scripts/modern-venv.sh"
  install=$background_pid
fi

# Each stage says what it took, so that a CI log shows where its 40 minutes go: its seconds, and
# the CPU-seconds the whole machine spent meanwhile, the work beside it included (on CI's 2 cores
# the run is bound by CPU: only less work shortens it, docs/benchmarks.md#build-and-ci-checks).
cpu_busy_seconds() {  # user, nice, system, irq and softirq time of all CPUs since boot
  awk -v tick="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%d\n", ($2 + $3 + $4 + $7 + $8) / tick }' \
    /proc/stat
}
stage() {
  local name="$1" start=$SECONDS cpu_start
  cpu_start="$(cpu_busy_seconds)"
  shift
  "$@"
  echo "[test] $name: $((SECONDS - start)) s, $(($(cpu_busy_seconds) - cpu_start)) CPU-s" \
    "(at $SECONDS s)" >&2
}

joined() {  # joined PID LOG: waits for a check started beside; its log where it failed
  if ! wait "$1"; then
    cat "$2" >&2
    return 1
  fi
  tail -1 "$2" >&2
}
stage "the build" "$root/scripts/setup.sh" --without-torch-free-suites
stage "the format check" "$root/scripts/format-check.sh"
stage "the layer check" /usr/bin/python3 "$root/scripts/layers-check.py"
if $modern_lane; then at_lowest_priority "$install"; fi
sanitize_log="$root/build/sanitize.log"
in_background lowest "$sanitize_log" "$root/scripts/sanitize.sh"
sanitize=$background_pid
stage "the suites" bash -c 'cd "$1/build" && ctest --output-on-failure -j"$(nproc)"' _ "$root"

if $modern_lane; then
  if ! wait "$install"; then
    echo "test.sh: the modern-torch lane's virtualenv could not be made" \
      "(scripts/modern-venv.sh failed; its log: $install_log)" >&2
    exit 1
  fi
  stage "the modern-torch lane" "$root/scripts/modern-lane.sh"
fi
stage "the sanitized suites (beside the lanes; its log $sanitize_log)" \
  joined "$sanitize" "$sanitize_log"
seconds="${FUZZ_SECONDS:-5}"
if [ "$seconds" -gt 0 ]; then stage "the fuzzing" "$root/scripts/fuzz.sh" "$seconds"; fi
