#!/usr/bin/env bash
# The GPU check: on a machine with a GPU and PyTorch 2.x, in one run, build advisor against that
# PyTorch's LibTorch, run the test suites, export the ViT PatchDropout case and bisect it on the
# GPU. Results go to $OUT (default ./gpu-check-out); docs/gpu-check.md records them.
#
# Lua is often missing there: carry Debian's liblua5.4-dev and liblua5.4-0 .deb files in .deps/
# (`apt-get download liblua5.4-dev liblua5.4-0` in .deps/ on a Debian machine); they are unpacked
# beside the build and linked statically.
set -uo pipefail
cd "$(dirname "$0")/.."
# $OUT takes few files (the device tool returns at most 8): full logs stay in $logs, and the
# summary, the failing tails and the reports are copied out.
out="${OUT:-$PWD/gpu-check-out}"
logs=/tmp/gpu-check-logs
mkdir -p "$out" "$logs"
log() { echo "[gpu-check] $*" | tee -a "$out/summary.txt" >&2; }
step() {  # step NAME COMMAND...: runs it, keeps its log, records its status and time
  local name=$1; shift
  local start=$SECONDS
  "$@" >"$logs/$name.log" 2>&1
  local status=$?
  log "$name: exit $status in $((SECONDS - start)) s"
  ((status == 0)) || tail -30 "$logs/$name.log" >>"$out/failures.txt"
  return $status
}

lua_root=/tmp/advisor-lua
mkdir -p "$lua_root"
for deb in .deps/liblua5.4-*.deb; do dpkg -x "$deb" "$lua_root"; done
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), torch $(python3 -c 'import torch; print(torch.__version__)')"

step configure cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$torch_prefix" -DADVISOR_LUA_ROOT="$lua_root" \
  -DADVISOR_PYTHON="$(command -v python3)" -DCMAKE_CUDA_ARCHITECTURES=90 || exit 1
step build_advisor cmake --build build-gpu -j"$(nproc)" --target advisor || exit 1
if step build_all cmake --build build-gpu -j"$(nproc)"; then
  step tests ctest --test-dir build-gpu --output-on-failure -j8 --timeout 300
  tail -3 "$logs/tests.log" | tee -a "$out/summary.txt"
fi

# The ViT-B/16 PatchDropout case (docs/gpu-check.md): advisor must find patch_drop ->
# GatherBackward0 unaided.
step export_vit python3 scripts/export_vit.py /tmp/vit.pt --steps 10 || exit 1
tail -3 "$logs/export_vit.log" | tee -a "$out/summary.txt"
step bisect_vit build-gpu/advisor bisect /tmp/vit.pt --device cuda --out /tmp/vit-report
tail -12 "$logs/bisect_vit.log" | tee -a "$out/summary.txt"
cp /tmp/vit-report/report.json "$out/vit-report.json" 2>/dev/null
cp /tmp/vit-report/report.md "$out/vit-report.md" 2>/dev/null

# Probe overhead beside torch.profiler (docs/benchmarks.md).
step overhead bash bench/overhead.sh
cat "$out/overhead.json" >/dev/null 2>&1 && log "overhead: $(wc -l <"$out/overhead.json") results"
