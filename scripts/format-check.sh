#!/usr/bin/env bash
# The format check (CI, scripts/test.sh): every tracked .h and .cpp as clang-format-14 writes it
# with the repository's .clang-format (docs/architecture.md#the-houses-checks). The code was
# formatted by hand before .clang-format existed, in a style close to it but not the same;
# scripts/format-pending.txt lists the files not yet formatted whole, and for them only what is a
# real deviation is checked: their include blocks and their lines over 100 columns as
# clang-format writes them. A listed file that is already clean fails the check, so that the
# list only shrinks. Installs clang-format-14 where it is missing.
#
#   scripts/format-check.sh              # check; exit 1 naming each file and line that differs
#   scripts/format-check.sh --fix FILE…  # format FILE's include blocks and long lines only
#   clang-format-14 -i FILE              # format FILE whole, then take it off the list
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
format=clang-format-14
scripts/install-debian-packages.sh format "$format"

# The lines clang-format is asked about in a hand-formatted file: includes, lines over 100.
deviation_lines() {
  local ranges=() line
  while read -r line; do ranges+=("--lines=$line:$line"); done < <(
    LC_ALL=C.UTF-8 grep -nE '^#include|^.{101,}' "$1" | cut -d: -f1)
  ((${#ranges[@]} == 0)) || printf '%s\n' "${ranges[@]}"
}

if [ "${1:-}" = "--fix" ]; then
  shift
  for file in "$@"; do
    mapfile -t ranges < <(deviation_lines "$file")
    ((${#ranges[@]} == 0)) || "$format" -i "${ranges[@]}" "$file"
  done
  exit 0
fi

declare -A pending=()
while read -r entry; do
  case "$entry" in
    "" | "#"*) ;;
    *) pending["$entry"]=1 ;;
  esac
done < scripts/format-pending.txt

whole=()
failed=0
while read -r file; do
  if [ -z "${pending[$file]:-}" ]; then
    whole+=("$file")
    continue
  fi
  mapfile -t ranges < <(deviation_lines "$file")
  if ((${#ranges[@]})); then "$format" --dry-run -Werror "${ranges[@]}" "$file" || failed=1; fi
  if [ -z "$("$format" --dry-run "$file" 2>&1)" ]; then
    echo "$file: formatted whole now: take it off scripts/format-pending.txt" >&2
    failed=1
  fi
done < <(git ls-files '*.h' '*.cpp')
"$format" --dry-run -Werror "${whole[@]}" || failed=1
if ((failed)); then
  echo "format-check.sh: FAILED: format the files named above with $format -i FILE, or only" \
       "their include blocks and long lines with scripts/format-check.sh --fix FILE" >&2
  exit 1
fi
echo "format-check.sh: ${#whole[@]} files as clang-format-14 writes them; ${#pending[@]}" \
     "formatted by hand, their include blocks and long lines checked"
