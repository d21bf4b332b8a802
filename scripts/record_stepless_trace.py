#!/usr/bin/env python3
"""Records a torch.profiler trace without ProfilerStep#N ranges, as torch's documentation shows a
profile: `with profile(...) as prof:` around a few training steps, no schedule, no prof.step().

    record_stepless_trace.py OUT.json.gz OUT_STEPS.json

A small MLP trained with SGD for 4 steps on the CPU (zero_grad, forward, loss, backward, step).
Beside the trace, OUT_STEPS.json holds each step's phases as the script timed them by hand
(time.perf_counter_ns at the step's start and after the loss, backward and the optimizer step):
a clock of its own, so only the steps' count, the phases' order and their lengths compare with
what advisor analyze cuts from the trace. With Debian's torch 1.13 (built without Kineto) the
trace is in the legacy exporter's format. tests/data/traces/torch-1.13-cpu/single/
stepless_mlp.json.gz and stepless_mlp.steps.json were recorded by it (/usr/bin/python3, torch
1.13).
"""

import json
import sys
import time

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile

from record_traces import save_trace  # scripts/ is the script's folder, first on the path

STEPS = 4


def main():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    inputs, target = torch.randn(64, 256), torch.randint(0, 10, (64,))
    steps = []
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(STEPS):
            start = time.perf_counter_ns()
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(inputs), target)
            forward_end = time.perf_counter_ns()
            loss.backward()
            backward_end = time.perf_counter_ns()
            optimizer.step()
            end = time.perf_counter_ns()
            steps.append({"forward_ms": (forward_end - start) / 1e6,
                          "backward_ms": (backward_end - forward_end) / 1e6,
                          "optimizer_ms": (end - backward_end) / 1e6})
    save_trace(prof, sys.argv[1])
    with open(sys.argv[2], "w") as out:
        json.dump({"torch": torch.__version__, "steps": steps}, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
