#!/usr/bin/env bash
# Sets up advisor and runs every test, in two lanes.
#
# The Debian lane (Debian's torch 1.13): unit suites and the integration tests that export small
# models with /usr/bin/python3 and bisect them; the format check (scripts/format-check.sh,
# clang-format-14), the layer check (scripts/layers-check.py: no include points up a layer of
# engine/) and the ODR check (scripts/odr-check.sh: every engine library in one GCC LTO
# link, -Werror=odr); then the torch-free libraries and their suites under AddressSanitizer and
# UndefinedBehaviorSanitizer, every fuzz target replaying its corpus (scripts/sanitize.sh), and a
# short fuzzing run of each target (scripts/fuzz.sh, FUZZ_SECONDS per target, 10 by default; 0
# skips it).
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
if $modern_lane; then
  mkdir -p "$root/build-modern"
  install_log="$root/build-modern/venv-install.log"
  echo "[test] the modern lane's virtualenv: made in the background, its log $install_log" >&2
  # A session of its own, so that a Debian lane that fails ends the install with the run.
  setsid "$root/scripts/modern-venv.sh" >"$install_log" 2>&1 &
  install=$!
  trap 'kill -- -"$install" 2>/dev/null || true' EXIT
fi

# Each stage says what it took, so that a CI log shows where its 40 minutes go.
stage() {
  local name="$1" start=$SECONDS
  shift
  "$@"
  echo "[test] $name: $((SECONDS - start)) s (at $SECONDS s)" >&2
}

stage "the build" "$root/scripts/setup.sh"
stage "the format check" "$root/scripts/format-check.sh"
stage "the layer check" /usr/bin/python3 "$root/scripts/layers-check.py"
stage "the suites" bash -c 'cd "$1/build" && ctest --output-on-failure -j"$(nproc)"' _ "$root"
stage "the ODR check" "$root/scripts/odr-check.sh"
stage "the sanitized suites" "$root/scripts/sanitize.sh"
seconds="${FUZZ_SECONDS:-10}"
if [ "$seconds" -gt 0 ]; then stage "the fuzzing" "$root/scripts/fuzz.sh" "$seconds"; fi

if $modern_lane; then
  if ! wait "$install"; then
    echo "test.sh: the modern-torch lane's virtualenv could not be made" \
      "(scripts/modern-venv.sh failed; its log: $install_log)" >&2
    exit 1
  fi
  trap - EXIT
  stage "the modern-torch lane" "$root/scripts/modern-lane.sh"
fi
