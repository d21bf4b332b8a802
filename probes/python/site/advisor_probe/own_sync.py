"""The probe's own device synchronisation, in a record_function range of its own.

The probe waits for the device at the end of each measured step and, where a window asks, of each
phase (session.py). The step's end comes inside the user's optimizer step, torch.optim's
`Optimizer.step#SGD.step` range: unmarked, the op probe linked the wait to that range, and
`advisor analyze` of the bisection's trace.json named it the user's synchronisation (92 ms, high,
on a ViT's H200 trace). Inside "advisor::synchronize", a range of advisor's own as its marker and
label ops are, the op probe links the wait to no op (probes/ops/op_probe.cpp) and a trace's reader
passes over it (engine/trace_analysis, IsAdvisorOwn).
"""

import torch

RANGE = "advisor::synchronize"


class NativeOwnRanges:
    """The native probe's ranges of advisor's own: begin(name), end()."""

    def __init__(self):
        self.begin = torch.ops.advisor.own_range_begin.default
        self.end = torch.ops.advisor.own_range_end.default


def synchronize(device, ranges=None, wait=None):
    """Waits for `device` (torch.cuda.synchronize, or a test's `wait`) inside RANGE, opened and
    closed by `ranges` (NativeOwnRanges, or a test's stand-in)."""
    ranges = ranges or NativeOwnRanges()
    ranges.begin(RANGE)
    try:
        (wait or torch.cuda.synchronize)(device)
    finally:
        ranges.end()
