"""What the benchmark scripts print about their own steps, the same way in each: the mean step of
every block of steps (the GPU synchronised only at block ends), and once, the mean of N steps
profiled with torch.profiler (CPU and CUDA activity), as a user would profile them.

    steps 100-149: 168.2 ms/step
    torch.profiler: 20 steps, 171.0 ms/step

bench/script_overhead.py reads these lines.
"""

import time

import torch


class StepReport:
    def __init__(self, every, profile_steps, cuda):
        self._every = every
        self._profile_steps = profile_steps
        self._sync = torch.cuda.synchronize if cuda else (lambda: None)
        self._block_start = None
        self._profiler = None
        self._profiled = 0
        self._profiled_from = None

    def step_done(self, step, note=""):
        """Call after each optimizer step; `step` counts from 1."""
        if self._profiler is not None:
            self._profiled += 1
            if self._profiled == self._profile_steps:
                self._sync()
                print("torch.profiler: %d steps, %.2f ms/step" % (
                    self._profiled, 1000 * (time.perf_counter() - self._profiled_from) /
                    self._profiled), flush=True)
                self._profiler.__exit__(None, None, None)
                self._profiler = None
                self._profile_steps = 0
        if step % self._every:
            return
        self._sync()
        now = time.perf_counter()
        if self._block_start is not None:
            print("steps %d-%d: %.2f ms/step%s" % (step - self._every, step - 1,
                                                  1000 * (now - self._block_start) / self._every,
                                                  note), flush=True)
        self._block_start = now
        # After two blocks, so that warm-up is over; the profiler's own start is in its steps.
        if self._profile_steps and self._profiler is None and step >= 2 * self._every:
            self._profiler = torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU,
                            torch.profiler.ProfilerActivity.CUDA])
            self._profiler.__enter__()
            self._profiled_from = time.perf_counter()
