#!/usr/bin/env python3
"""Issue #28's question about short A/B blocks on an input-fed script: after a slow baseline
block the DataLoader's queue is full, so how many steps of a fast fix run from the queue before
the step waits for the loader? bench/seed_by_hand.py's model, loader and fixes; each cycle a
baseline block, then each fix's block, every step timed apart (CUDA events on the stream) with
the host's wait for its batch.

    loader_transient.py [--fixes bf16-autocast,tf32-matmul] [--cycles 3] [--baseline-steps 20]
                        [--steps 40] [--model vit_base_patch16_224] [--workers 6] [--out FILE]

Prints, per fix, the median over cycles of each step's time and wait after the switch (one JSON
line, also to --out).
"""

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from seed_by_hand import Setting, batches, build, write_line  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fixes", default="bf16-autocast,tf32-matmul")
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--baseline-steps", type=int, default=20)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--model", default="vit_base_patch16_224")
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    device = torch.device("cuda")
    loader, train_step = build(args, device, compile_needed=False)
    feed = batches(loader)

    def run(setting, count):
        """count steps under setting: each step's ms on the stream and the host's wait for it."""
        events, waits = [], []
        with setting:
            for _ in range(count):
                asked = time.perf_counter()
                images, labels = next(feed)
                waits.append((time.perf_counter() - asked) * 1e3)
                event = torch.cuda.Event(enable_timing=True)
                event.record()
                events.append(event)
                train_step(setting, images, labels)
            end = torch.cuda.Event(enable_timing=True)
            end.record()
            end.synchronize()
        events.append(end)
        return [a.elapsed_time(b) for a, b in zip(events, events[1:])], waits

    baseline = Setting("baseline", device)
    fixes = [Setting(name, device) for name in args.fixes.split(",") if name]
    run(baseline, 10)  # warm-up, the queue filled
    curves = {f.name: {"step_ms": [], "wait_ms": []} for f in fixes}
    baseline_ms = []
    for cycle in range(args.cycles):
        for fix in fixes:
            ms, _ = run(baseline, args.baseline_steps)
            baseline_ms.append(statistics.median(ms[5:]))
            ms, waits = run(fix, args.steps)
            curves[fix.name]["step_ms"].append(ms)
            curves[fix.name]["wait_ms"].append(waits)
        print("loader_transient.py: cycle %d of %d" % (cycle + 1, args.cycles), file=sys.stderr,
              flush=True)
    result = {"baseline_ms": statistics.median(baseline_ms), "workers": args.workers, "fixes": {}}
    for name, curve in curves.items():
        result["fixes"][name] = {
            key: [round(statistics.median(column), 2) for column in zip(*rows)]
            for key, rows in curve.items()}
    write_line(result, args.out)


if __name__ == "__main__":
    main()
