#!/usr/bin/env bash
# Probe overhead on the GPU machine, advisor's probes beside torch.profiler on the same models in
# one run (docs/benchmarks.md): the ViT PatchDropout case, the launch-bound model, and two zoo
# cases at their GPU size (launch_bound, handwritten_attention). On the launch-bound model it also
# takes advisor's probes apart (CUPTI without driver API records, without any API records, the op
# probe alone) and torch.profiler with the CPU activity alone, to show where the time goes.
# Needs build-gpu/ from scripts/gpu-check.sh. Appends one JSON object per line to
# $OUT/overhead.json.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/gpu-check-out}"
rounds="${OVERHEAD_ROUNDS:-5}"
mkdir -p "$out"
[ -f /tmp/vit.pt ] || python3 scripts/export_vit.py /tmp/vit.pt >/dev/null
python3 bench/make_launch_bound.py /tmp/launch_bound.pt --device cuda >/dev/null
python3 scripts/zoo/export.py /tmp/zoo-overhead --device cuda launch_bound handwritten_attention \
  >/dev/null

# measure TOOL VARIANT MODEL: one JSON line, tagged with the tool and the variant.
measure() {
  local tool=$1 variant=$2 model=$3 result
  if [ "$tool" = advisor ]; then
    result=$(build-gpu/bench/probe_overhead "$model" --device cuda --steps 10 --rounds "$rounds" \
      --gpu-probe "$variant")
  else
    local flags=()
    [ "$variant" = cpu-only ] && flags=(--cpu-only)
    result=$(python3 bench/torch_profiler_overhead.py "$model" --device cuda --steps 10 \
      --rounds "$rounds" "${flags[@]}")
  fi
  echo "$result" | python3 -c "import json,sys; r=json.load(sys.stdin); r['tool']='$tool'; r['variant']='$variant'; print(json.dumps(r))" \
    | tee -a "$out/overhead.json"
}

for model in /tmp/vit.pt /tmp/launch_bound.pt /tmp/zoo-overhead/launch_bound.pt \
             /tmp/zoo-overhead/handwritten_attention.pt; do
  measure advisor full "$model"
  measure torch.profiler cpu+cuda "$model"
done
for variant in no-driver no-api off; do measure advisor "$variant" /tmp/launch_bound.pt; done
measure torch.profiler cpu-only /tmp/launch_bound.pt
