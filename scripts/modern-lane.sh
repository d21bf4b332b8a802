#!/usr/bin/env bash
# The modern-torch lane: advisor built against a current torch from PyPI and the script-mode
# suites (ctest label "script", less those no torch version changes: below) run with it, the
# trainers among them: transformers' Trainer, Lightning and an accelerate loop, each bisected to
# the planted slow block of its model and the line in tests/script_runs/tiny_lm.py. It builds
# only what those suites run (advisor, its probe library, script_mode_tests), into build-modern/
# beside the Debian lane's build/, the torch-free units from ccache (scripts/setup.sh).
#
#   scripts/modern-lane.sh      # the virtualenv (scripts/modern-venv.sh), the build, the suites
#
# scripts/test.sh runs it after the Debian lane where CI is set or ADVISOR_MODERN_LANE=1.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="$("$root/scripts/modern-venv.sh" | tail -n 1)"

start=$SECONDS
"$root/scripts/setup.sh" --python "$python" --build build-modern \
  --targets "advisor script_mode_tests"
echo "[modern-lane] built in $((SECONDS - start)) s" >&2

start=$SECONDS
log="$root/build-modern/script-suites.log"
# What the Debian lane alone runs, since no torch version changes it (CI's 2 cores are its
# budget, docs/benchmarks.md#build-and-ci-checks): advisor's own handling of scripts that fail,
# hang, are interrupted or are launched wrong; --let-run; the merge of several nodes' reports;
# the ways of spawning a loader's workers but the loader's own; and the second case of a
# pipeline's crop and of its workers' persistence.
debian_lane_only=(
  '^(Scripts/RejectsBadScript|Ranks/ScriptRanksEnd|Signals/ScriptInterrupt)\.'
  '^ScriptRanks\.CtrlC'
  '^ScriptMode\.LetRun'
  '^ScriptNodes\.'
  '^Ways/SpawnedWorkers\..*/(by_the_start_method|without_pythonpath) '
  '^ScriptMode\.(CropFirstFindsTheBlurInsideAHandWrittenPipeline|WorkersKeptAcrossEpochsAreNotToldToBeKept)$'
)
excluded="$(IFS='|'; echo "${debian_lane_only[*]}")"
(cd "$root/build-modern" && ctest --output-on-failure -L script -E "$excluded") | tee "$log"
echo "[modern-lane] suites ran in $((SECONDS - start)) s" >&2
# A suite skips what its Python lacks; here nothing may be missing, or the lane did not run it.
if grep -q "(Skipped)" "$log"; then
  echo "modern-lane.sh: tests skipped in the modern lane (a framework missing?): see $log" >&2
  exit 1
fi
