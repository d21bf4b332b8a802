#!/usr/bin/env python3
"""What instrumenting a launch-bound model's level costs, piece by piece, in one process: the
launch-bound benchmark's 150 blocks (bench/make_launch_bound.py) trained eagerly, its steps timed
plain, with the probe's op recording alone, with advisor's marker hooks on every block alone, with
both, and with hooks that do nothing (the floor any hook pays). Rounds interleave the variants,
so a change in the machine's load moves them all.

    marker_cost.py PROBE_LIBRARY [--device cuda] [--rounds 5] [--steps 20]

PROBE_LIBRARY: build/probe/libadvisor_probe.so (build-gpu/probe/... on the GPU machine).
"""

import argparse
import os
import statistics
import sys
import time

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "probes", "python", "site"))
from make_launch_bound import LaunchBound  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    torch.ops.load_library(args.library)
    from advisor_probe.markers import Markers

    device = torch.device(args.device)
    cuda = device.type == "cuda"
    torch.manual_seed(0)
    model = LaunchBound(150, 64, 10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    inputs = torch.randn(32, 64, device=device)
    labels = torch.randint(0, 10, (32,), device=device)
    blocks = {"blocks.%d" % i: block for i, block in enumerate(model.blocks)}

    def timed():
        if cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(args.steps):
            loss = torch.nn.functional.cross_entropy(model(inputs), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        if cuda:
            torch.cuda.synchronize()
        return (time.perf_counter() - start) / args.steps * 1e3

    def recorded():
        torch.ops.advisor.probe_start(False)
        try:
            return timed()
        finally:
            torch.ops.advisor.probe_finish()

    def with_hooks(install, measure):
        remove = install()
        try:
            return measure()
        finally:
            remove()

    def markers():
        installed = Markers()
        installed.install(blocks)
        return installed.remove

    def noop_hooks():
        handles = [h for block in blocks.values()
                   for h in (block.register_forward_pre_hook(lambda m, a: None),
                             block.register_forward_hook(lambda m, a, o: None))]
        return lambda: [h.remove() for h in handles]

    variants = {
        "plain": timed,
        "op recording": recorded,
        "no-op hooks": lambda: with_hooks(noop_hooks, timed),
        "markers": lambda: with_hooks(markers, timed),
        "markers + op recording": lambda: with_hooks(markers, recorded),
    }
    for _ in range(3):
        timed()
    results = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, measure in variants.items():
            results[name].append(measure())
    plain = statistics.median(results["plain"])
    print("%s, torch %s, %d blocks, median of %d rounds of %d steps"
          % (torch.cuda.get_device_name() if cuda else "cpu", torch.__version__, len(blocks),
             args.rounds, args.steps))
    for name, times in results.items():
        ms = statistics.median(times)
        print("%-24s %7.2f ms/step  %.2fx  %+7.1f us per block" % (
            name, ms, ms / plain, (ms - plain) * 1e3 / len(blocks)))


if __name__ == "__main__":
    main()
