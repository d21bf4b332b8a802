#!/usr/bin/env python3
"""Cuts whole steps out of a torch.profiler (Kineto) trace into a small trace, for a test fixture:
the ProfilerStep#N ranges chosen, every host event of their process inside them, the GPU work
their CUDA calls launched, the flows between those, and the metadata that names the processes
and devices. Correlation ids recur in advisor's trace.json of several windows written before
7d3ddfb (each window's CUPTI records numbered from 1), so the GPU work kept is that whose launch
call is kept and which starts inside the steps.

  scripts/cut_trace_steps.py trace.json.gz out.json.gz --pid 200 --first 2 --count 3

keeps the steps 2, 3 and 4 (by start, counted from 0) of the process with id 200 (window 2 of an
advisor bisection's trace.json).
"""
import argparse
import gzip
import json
import sys

GPU_WORK = {"kernel", "gpu_memcpy", "gpu_memset"}
CALLS = {"cuda_runtime", "cuda_driver"}


def open_trace(path, mode):
    return gzip.open(path, mode + "t") if path.endswith(".gz") else open(path, mode)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("out")
    parser.add_argument("--pid", type=int, required=True, help="the process whose steps to keep")
    parser.add_argument("--first", type=int, default=0, help="the first step kept, from 0")
    parser.add_argument("--count", type=int, default=1, help="how many steps to keep")
    args = parser.parse_args()
    with open_trace(args.trace, "r") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    steps = sorted((e for e in events if e.get("pid") == args.pid and
                    str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: e["ts"])
    chosen = steps[args.first:args.first + args.count]
    if len(chosen) < args.count:
        sys.exit(f"{args.trace}: process {args.pid} has {len(steps)} steps, "
                 f"not {args.first + args.count}")
    start, end = chosen[0]["ts"], chosen[-1]["ts"] + chosen[-1]["dur"]

    def inside(e):
        return "ts" in e and start <= e["ts"] < end

    host = [e for e in events if e.get("pid") == args.pid and e.get("ph") != "M" and
            e.get("cat") != "ac2g" and inside(e)]
    launches = {e["args"]["correlation"] for e in host
                if e.get("cat") in CALLS and "correlation" in e.get("args", {})}
    work = [e for e in events if e.get("cat") in GPU_WORK and inside(e) and
            e.get("args", {}).get("correlation") in launches]
    flows = [e for e in events if e.get("cat") == "ac2g" and inside(e) and e.get("id") in launches]
    pids = {args.pid} | {e["pid"] for e in work}
    metadata = [e for e in events if e.get("ph") == "M" and e.get("pid") in pids]
    trace["traceEvents"] = metadata + host + work + flows
    with open_trace(args.out, "w") as f:
        json.dump(trace, f, separators=(",", ":"))
    print(f"{args.out}: {len(chosen)} steps, {len(host)} host events, {len(work)} GPU records, "
          f"{len(flows)} flow events")


if __name__ == "__main__":
    main()
