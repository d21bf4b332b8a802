"""What the memory probe costs inside a recording window (docs/benchmarks.md, "The memory probe
in the bisection's windows"): run once with main's probe library and once with a build that has
the memory reporter, alternating, and compare.

    /usr/bin/python3 bench/memory_probe_cost.py LIBRARY steps siblings|holder
    /usr/bin/python3 bench/memory_probe_cost.py LIBRARY alloc

`steps`: the median step of one of tests/script_runs' models, 30 windows of 5 steps after 20
warm-up steps, with the window's memory events per step. `alloc`: torch.empty(256), an
allocation and a free, 20,000 times in a window, the fastest of 7 rounds.
"""

import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "script_runs"))


def model_and_batch(which):
    if which == "siblings":
        import siblings_train as m
        return m.Regressor(m.CONFIG), torch.randn(256, 32), torch.randn(256)
    import memory_holder_train as m
    return m.Model(), torch.randn(m.BATCH, m.WIDTH), torch.randn(m.BATCH)


def median_step(which):
    model, x, y = model_and_batch(which)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def step():
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        optimizer.step()

    for _ in range(20):
        step()
    times, events = [], 0
    for _ in range(30):
        torch.ops.advisor.probe_start(False, False)
        for _ in range(5):
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
        events += len(json.loads(torch.ops.advisor.probe_finish()).get("memory", []))
    return (f"{which}: median step {statistics.median(times) * 1e3:.3f} ms, "
            f"{events / len(times):.0f} memory events a step")


def allocation():
    best = float("inf")
    for _ in range(7):
        torch.ops.advisor.probe_start(False, False)
        start = time.perf_counter()
        for _ in range(20000):
            torch.empty(256)
        best = min(best, (time.perf_counter() - start) / 20000)
        torch.ops.advisor.probe_finish()
    return f"{best * 1e6:.2f} us per torch.empty(256) (an allocation and a free) in a window"


def main():
    torch.ops.load_library(sys.argv[1])
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(median_step(sys.argv[3]) if sys.argv[2] == "steps" else allocation())


if __name__ == "__main__":
    main()
