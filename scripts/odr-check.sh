#!/usr/bin/env bash
# The ODR check: no two types share a qualified name across advisor's linked code. Builds
# build-odr/ with GCC, -flto and -Werror=odr, and links every engine and probe library whole into
# one executable, advisor_odr_check (cmake/OdrCheck.cmake); two translation units defining
# different types of one name fail that link with GCC's "violates the C++ One Definition Rule",
# naming both definitions. Not in CI (its cost): run it before a change lands that adds or moves a
# type or touches the build; docs/architecture.md#the-houses-checks.
# Needs what scripts/setup.sh installs (it configures with the same torch).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
torch_dir=$(sed -n 's/^Torch_DIR:PATH=//p' "$root/build/CMakeCache.txt" 2>/dev/null || true)
[ -n "$torch_dir" ] || torch_dir=/usr/lib/x86_64-linux-gnu/cmake/Torch
source "$root/scripts/ccache-pch.sh"
cmake -S "$root" -B "$root/build-odr" -DCMAKE_BUILD_TYPE=OdrCheck -DADVISOR_ODR_CHECK=ON \
  -DCMAKE_AR="$(command -v gcc-ar)" -DCMAKE_RANLIB="$(command -v gcc-ranlib)" \
  -DADVISOR_BUILD_TESTS=OFF -DCMAKE_CXX_COMPILER=g++ -DTorch_DIR="$torch_dir" >/dev/null
if ! cmake --build "$root/build-odr" --target advisor_odr_check -j"$(nproc)"; then
  echo "odr-check.sh: FAILED: two translation units define different types with one name" \
       "(or the build broke); see GCC's 'One Definition Rule' error above" >&2
  exit 1
fi
echo "odr-check.sh: no type defined twice differently across the engine and probe libraries"
