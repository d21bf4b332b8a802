#!/usr/bin/env bash
# Installs those of the named Debian packages that are not installed yet (apt-get, through sudo
# where not root); does nothing when all are. The set-up scripts call it for what they need.
#
#   scripts/install-debian-packages.sh TAG PACKAGE...    # TAG names the caller in its one line
#
# One apt-get at a time: scripts/test.sh makes the modern-torch lane's virtualenv in the
# background (scripts/modern-venv.sh) while the Debian lane sets itself up, and a second apt-get
# beside a running one fails at once on dpkg's lock.
set -euo pipefail
if (($# < 2)); then
  echo "install-debian-packages.sh: usage: scripts/install-debian-packages.sh TAG PACKAGE..." >&2
  exit 2
fi
tag="$1"
shift
missing=()
for package in "$@"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
((${#missing[@]})) || exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "[$tag] installing: ${missing[*]}" >&2
exec 9>"${TMPDIR:-/tmp}/advisor-apt.lock"
flock 9
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
