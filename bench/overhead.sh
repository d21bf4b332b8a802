#!/usr/bin/env bash
# Probe overhead on the GPU machine, advisor's probes beside torch.profiler on the same models in
# one run (docs/benchmarks.md): the ViT PatchDropout case, the launch-bound model and the demo.
# Needs build-gpu/ from scripts/gpu-check.sh. Writes $OUT/overhead.json (one object per line).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/gpu-check-out}"
mkdir -p "$out"
[ -f /tmp/vit.pt ] || python3 scripts/export_vit.py /tmp/vit.pt >/dev/null
python3 bench/make_launch_bound.py /tmp/launch_bound.pt >/dev/null
for model in /tmp/vit.pt /tmp/launch_bound.pt build-gpu/demo/demo.pt; do
  for tool in advisor torch.profiler; do
    if [ "$tool" = advisor ]; then
      result=$(build-gpu/bench/probe_overhead "$model" --device cuda --steps 10 --rounds 5)
    else
      result=$(python3 bench/torch_profiler_overhead.py "$model" --device cuda --steps 10 --rounds 5)
    fi
    echo "$result" | python3 -c "import json,sys; r=json.load(sys.stdin); r['tool']='$tool'; print(json.dumps(r))" \
      | tee -a "$out/overhead.json"
  done
done
