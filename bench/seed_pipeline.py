#!/usr/bin/env python3
"""The data-input seed's pipeline, measured step by step (docs/benchmarks.md, "The input pipeline").

    seed_pipeline.py --advisor build/advisor [--python /usr/bin/python3] [--size cpu|cuda]
                     [--device cpu|cuda] [--workers 2,4,8] [--steps 8] [--out DIR]
                     [--autotest-budget 8m]

Exports scripts/zoo/cases/seed_dilate_crop.py (random dilation of a float mask, then a crop) with
each worker count of --workers, times each with ``advisor bisect --max-depth 1`` (step.mean_ms
of report.json: the unprofiled steps' mean, the time a run takes per step, which a median misses
where prefetched batches make the waits come in bursts), then the two changes inside the pipeline at the
fastest count measured by hand: the dilation on bool, then the crop first. Last, ``advisor bisect
--autotest`` on the seed at 4 workers says what advisor itself finds: the slow transform and its
line, the rules that fired, and dataloader-workers' knee and series. Prints a Markdown table and
writes everything to --out. Needs only the Python 3 standard library; the exports need torch.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

EXPORT = """
import os, sys
sys.path.insert(0, {zoo!r}); sys.path.insert(0, os.path.dirname({zoo!r}))
import torch
import advisor_export
from cases import seed_dilate_crop
torch.manual_seed(0)
model, spec = seed_dilate_crop.build({size!r}, variant={variant!r}, workers={workers})
advisor_export.export(model, {path!r}, device={device!r},
                      source_model="scripts/zoo/cases/seed_dilate_crop.py", **spec)
"""


def export(python, size, device, variant, workers, path):
    code = EXPORT.format(zoo=os.path.join(ROOT, "scripts", "zoo"), size=size, variant=variant,
                         workers=workers, path=path, device=device)
    subprocess.run([python, "-c", code], check=True)


def bisect(advisor, model, device, steps, out, extra=()):
    subprocess.run([advisor, "bisect", model, "--device", device, "-q", "--max-depth", "1",
                    "--steps", str(steps), "--out", out, *extra], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--advisor", required=True)
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--size", choices=("cpu", "cuda"), default="cuda")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--workers", default="2,4,8", help="worker counts to time by hand")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--autotest-budget", default="8m")
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="seed-pipeline-")
    os.makedirs(out, exist_ok=True)

    rows = []
    def measure(variant, workers):
        name = f"seed-{variant}-w{workers}"
        path = os.path.join(out, name + ".pt")
        export(args.python, args.size, args.device, variant, workers, path)
        report = bisect(args.advisor, path, args.device, args.steps, os.path.join(out, name))
        step = report["step"]
        rows.append((variant, workers, step["mean_ms"], step["median_ms"], step["min_ms"],
                     step["max_ms"]))
        print(f"{name}: {step['mean_ms']:.1f} ms/step", file=sys.stderr, flush=True)
        return step["mean_ms"]

    counts = [int(n) for n in args.workers.split(",")]
    by_count = {n: measure("float", n) for n in counts}
    best = min(by_count, key=by_count.get)
    measure("bool", best)
    measure("crop-first", best)

    seed = os.path.join(out, "seed-float-w4.pt")
    if not os.path.exists(seed):
        export(args.python, args.size, args.device, "float", 4, seed)
    report = bisect(args.advisor, seed, args.device, args.steps, os.path.join(out, "autotest"),
                    ["--autotest", "--autotest-budget", args.autotest_budget])

    print("| pipeline | workers | ms/step (mean) | median | min | max |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for variant, workers, mean, median, low, high in rows:
        print(f"| {variant} | {workers} | {mean:.1f} | {median:.1f} | {low:.1f} | {high:.1f} |")
    print()
    stage = (report.get("data") or {}).get("stage") or {}
    for piece in stage.get("pieces", [])[:4]:
        source = piece.get("source") or {}
        print(f"- piece {piece['kind']} {piece['name']} at {os.path.basename(source.get('file', '?'))}"
              f":{source.get('line', '?')}: {piece['ms']:.1f} ms, {100 * piece['share']:.0f}% of the batch")
    for finding in report.get("findings", []):
        print(f"- finding {finding['rule']} ({finding['severity']}): {finding['evidence']}")
    for fix in report.get("fixes", []):
        series = ", ".join(f"{p['workers']}: {p['step_ms']:.1f} ms" if p["step_ms"] else
                           f"{p['workers']}: {p['status']}" for p in fix.get("worker_series", []))
        knee = f", knee {fix['knee_workers']}; {series}" if fix.get("knee_workers") else ""
        print(f"- fix {fix['recipe']}: {fix['status']}, {fix.get('speedup') or 0:.3f}x{knee}")
    print(f"\nfastest by hand: {best} workers, {by_count[best]:.1f} ms/step; reports in {out}")


if __name__ == "__main__":
    main()
