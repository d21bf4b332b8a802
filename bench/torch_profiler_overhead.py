#!/usr/bin/env python3
"""What torch.profiler (CPU and CUDA activities) costs the same training step that
bench/probe_overhead measures for advisor's probes, in the same executor mode:

    torch_profiler_overhead.py MODEL.pt [--device cuda] [--steps 10] [--rounds 5] [--cpu-only]

steady state: step times with no profiler, against step times inside an active profiler, in
interleaved rounds; window: the whole cost of a profiled window (start, the steps, stop and
collection with key_averages) beyond the same steps unprofiled, against one step. --cpu-only
leaves the CUDA activity out (beside advisor's op probe alone). Prints JSON.
"""

import argparse
import json
import os
import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import advisor_export  # noqa: E402


def timed_steps(step, count):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--device", default=None)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu-only", action="store_true", help="CPU activity only")
    args = parser.parse_args()

    module, workload = advisor_export.load_archive(args.model)
    if args.device:
        workload["device"] = args.device
        module = module.to(args.device)
    torch._C._set_graph_executor_optimize(False)  # as advisor bisect runs the model
    inputs, target = advisor_export.make_batch(workload)
    optimizer = advisor_export.make_optimizer(module, workload["optimizer"])
    activities = [ProfilerActivity.CPU]
    if workload["device"] == "cuda" and not args.cpu_only:
        activities.append(ProfilerActivity.CUDA)

    def step():
        advisor_export.training_step(module, optimizer, inputs, target, workload["loss"])

    off_ms, on_ms, window_extra_ms, ratios = [], [], [], []
    with advisor_export.deterministic_mode(workload["deterministic"]):
        timed_steps(step, 5)  # warm-up, discarded
        for _ in range(args.rounds):
            off = timed_steps(step, args.steps)
            start = time.perf_counter()
            with profile(activities=activities) as prof:
                on = timed_steps(step, args.steps)
            prof.key_averages()
            window_s = time.perf_counter() - start
            off_ms += off
            on_ms += on
            ratios.append(statistics.median(on) / statistics.median(off))
            window_extra_ms.append(window_s * 1e3 - args.steps * statistics.median(off))

    off_median = statistics.median(off_ms)
    print(json.dumps({
        "model": args.model, "device": workload["device"], "torch": torch.__version__,
        "activities": [str(activity).split(".")[-1] for activity in activities],
        "steps_per_round": args.steps, "rounds": args.rounds,
        "off_median_ms": off_median, "on_median_ms": statistics.median(on_ms),
        "steady_ratio": statistics.median(on_ms) / off_median,
        "steady_ratio_min": min(ratios), "steady_ratio_max": max(ratios),
        "window_extra_ms_median": statistics.median(window_extra_ms),
        "window_extra_ms_max": max(window_extra_ms),
        "window_extra_in_steps": statistics.median(window_extra_ms) / off_median,
    }, indent=2))


if __name__ == "__main__":
    main()
